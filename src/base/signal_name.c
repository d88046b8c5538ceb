/* Names of the signals the engine reports: the crash handler
 * (src/engine/crash.c) and the cooker child's reasons (src/asset/child.c). */
#include <signal.h>

#include "zengine/base.h"

const char *ze_signal_name(int sig)
{
    /* A switch over constants: no table to initialise, no locale, no
     * allocation, so it is async-signal-safe. */
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGXCPU:
        return "SIGXCPU";
    case SIGTERM:
        return "SIGTERM";
    default:
        return NULL;
    }
}
