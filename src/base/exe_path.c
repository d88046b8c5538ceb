/* Paths beside the running program, and where an installed engine keeps
 * its files: packaged engine assets and the `zengine` cooker are found
 * there. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/base.h"

/* The configured install layout (CMake: CMAKE_INSTALL_PREFIX and
   GNUInstallDirs' LIBDIR, relative to the prefix), set on this file only. */
#ifndef ZE_INSTALL_PREFIX
#define ZE_INSTALL_PREFIX "/usr/local"
#endif
#ifndef ZE_INSTALL_LIBDIR
#define ZE_INSTALL_LIBDIR "lib"
#endif

bool ze_path_beside_executable(const char *name, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !name || !out)
        return false;
    exe[n] = '\0';
    const char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    size_t dir = (size_t)(slash - exe), len = strlen(name);
    if (dir + 1 + len + 1 > cap)
        return false;
    memcpy(out, exe, dir + 1);
    memcpy(out + dir + 1, name, len + 1);
    return true;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool join3(char *out, size_t cap, const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    if (la + 1 + lb + 1 + lc + 1 > cap)
        return false;
    memcpy(out, a, la);
    out[la] = '/';
    memcpy(out + la + 1, b, lb);
    out[la + 1 + lb] = '/';
    memcpy(out + la + 2 + lb, c, lc + 1);
    return true;
}

/* The prefix of the shared library this code is in: its folder with one
   level removed per component of ZE_INSTALL_LIBDIR. false when this code is
   linked into the program itself (static library) or the layout differs. */
static bool shared_library_prefix(char *out, size_t cap)
{
    Dl_info info;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!dladdr((void *)&ze_path_installed, &info) || !info.dli_fname || !info.dli_fname[0])
        return false;
    if (n > 0) {
        exe[n] = '\0';
        char real[PATH_MAX];
        if (realpath(info.dli_fname, real) && strcmp(real, exe) == 0)
            return false; /* the program itself */
    }
    char path[PATH_MAX];
    if (!realpath(info.dli_fname, path))
        return false;
    int levels = 1; /* the file name */
    for (const char *p = ZE_INSTALL_LIBDIR; *p; p++)
        levels += *p == '/';
    levels += ZE_INSTALL_LIBDIR[0] != '\0';
    for (int i = 0; i < levels; i++) {
        char *slash = strrchr(path, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
    size_t len = strlen(path);
    if (len == 0 || len + 1 > cap)
        return false;
    memcpy(out, path, len + 1);
    return true;
}

bool ze_path_installed(const char *subdir, const char *name, char *out, size_t cap)
{
    if (!subdir || !name || !out)
        return false;
    char prefix[PATH_MAX];
    if (shared_library_prefix(prefix, sizeof prefix) && join3(out, cap, prefix, subdir, name) &&
        exists(out))
        return true;
    return join3(out, cap, ZE_INSTALL_PREFIX, subdir, name) && exists(out);
}
