/* The crash handler: fatal signals -> a report on stderr and in
 * `<dir>/crash-<pid>.log`, then death by the same signal.
 *
 * Everything the handler needs is prepared at install: the log path, an
 * alternate signal stack from mmap (so a stack overflow can still be
 * reported), and one backtrace() call so that libgcc's unwinder is loaded
 * before any fault (its first use may allocate). After a fault the handler
 * uses only async-signal-safe calls (open, write, close, getpid, sigaction,
 * raise) plus backtrace()/backtrace_symbols_fd(), which glibc documents as
 * safe once the unwinder is loaded.
 *
 * Log lines: the last records of the logger's ring through
 * ze_log_crash_dump, which uses write(2) only and takes the log lock only if
 * it is free (a thread that faulted inside the logger holds it).
 *
 * Signals: SA_SIGINFO | SA_ONSTACK | SA_RESETHAND. After the report, a
 * handler installed before ours (a sanitizer's, a host program's) is called;
 * then the handler restores the default action and re-raises, so the exit
 * status names the signal (and a core is dumped where the system allows)
 * unless that earlier handler ended the process its own way. A second fatal signal during the
 * report (another thread, or the handler itself faulting) kills the process
 * at once with that signal.
 *
 * Threads: install and uninstall on the main thread, before other threads
 * start and after they end. An alternate stack belongs to one thread: the
 * installing thread gets one at install; every other thread the engine
 * starts (job workers through the job system's thread hooks, the render
 * thread) calls ze_crash_handler_thread_enter first and _thread_leave last,
 * so a stack overflow there is reported like one on the main thread. A
 * thread without one still dies by the signal, unreported when its stack
 * overflowed.
 *
 * Globals: the crash handler state below (on the STYLE.md list).
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/engine.h"

enum {
    CRASH_STACK_SIZE = 256 * 1024, /* ASan builds need more than SIGSTKSZ */
    CRASH_GUARD_SIZE = 64 * 1024,  /* PROT_NONE below the stack (>= a page) */
    CRASH_FRAMES_MAX = 64,
    CRASH_LOG_RECORDS = 32,
    CRASH_PATH_MAX = 4096,
};

static const int k_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define CRASH_SIGNAL_COUNT ((int)(sizeof k_signals / sizeof k_signals[0]))

static struct {
    bool installed;
    char dir[CRASH_PATH_MAX];  /* absolute, no trailing slash (except "/") */
    char path[CRASH_PATH_MAX]; /* dir + "/crash-<pid>.log" */
    pid_t pid;                 /* the pid in `path` */
    struct sigaction previous[CRASH_SIGNAL_COUNT];
    void *map; /* guard + stack */
    size_t map_size;
    stack_t previous_stack;
    bool stack_installed;
    atomic_int handling;
} g_crash;

/* ------------------------------------------- async-signal-safe formatting */

typedef struct sbuf_t {
    char data[512];
    size_t len;
} sbuf_t;

static void sb_str(sbuf_t *b, const char *s)
{
    while (*s && b->len < sizeof b->data)
        b->data[b->len++] = *s++;
}

static void sb_u64(sbuf_t *b, uint64_t v, unsigned base, int min_digits)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < (int)sizeof tmp);
    while (n < min_digits && n < (int)sizeof tmp)
        tmp[n++] = '0';
    while (n > 0 && b->len < sizeof b->data)
        b->data[b->len++] = tmp[--n];
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void write_both(int fd, const sbuf_t *b)
{
    write_all(STDERR_FILENO, b->data, b->len);
    if (fd >= 0)
        write_all(fd, b->data, b->len);
}

/* dir + "/crash-<pid>.log" into out (CRASH_PATH_MAX); false if too long. */
static bool format_path(char *out, const char *dir, pid_t pid)
{
    size_t dl = strlen(dir);
    sbuf_t nb = {.len = 0};
    sb_str(&nb, dl && dir[dl - 1] == '/' ? "crash-" : "/crash-");
    sb_u64(&nb, (uint64_t)pid, 10, 1);
    sb_str(&nb, ".log");
    if (dl + nb.len >= CRASH_PATH_MAX)
        return false;
    memcpy(out, dir, dl);
    memcpy(out + dl, nb.data, nb.len);
    out[dl + nb.len] = '\0';
    return true;
}

/* ---------------------------------------------------------------- handler */

static void die_by(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* Pending until the handler returns (the signal is blocked inside it);
       then the default action ends the process. A hardware fault would also
       simply recur on return. */
    raise(sig);
}

static void crash_handler(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_crash.handling, &expected, 1)) {
        die_by(sig);
        errno = saved_errno;
        return;
    }

    /* A forked child that never exec'd writes under its own pid. */
    pid_t pid = getpid();
    if (pid != g_crash.pid && format_path(g_crash.path, g_crash.dir, pid))
        g_crash.pid = pid;
    int fd = open(g_crash.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    write_all(STDERR_FILENO, "\n", 1); /* off whatever line stderr was on */
    sbuf_t b = {.len = 0};
    sb_str(&b, "zengine crashed: ");
    const char *name = ze_signal_name(sig);
    sb_str(&b, name ? name : "signal");
    sb_str(&b, " (signal ");
    sb_u64(&b, (uint64_t)sig, 10, 1);
    sb_str(&b, ")");
    if (info && info->si_code > 0 && sig != SIGABRT) { /* a fault: si_addr is set */
        sb_str(&b, " at address 0x");
        sb_u64(&b, (uint64_t)(uintptr_t)info->si_addr, 16, 16);
    } else if (info && info->si_code <= 0 && sig != SIGABRT) { /* kill(), raise() */
        sb_str(&b, " sent by pid ");
        sb_u64(&b, (uint64_t)info->si_pid, 10, 1);
    }
    sb_str(&b, "\npid ");
    sb_u64(&b, (uint64_t)pid, 10, 1);
    if (fd >= 0) {
        sb_str(&b, ", crash log ");
        sb_str(&b, g_crash.path);
    }
    sb_str(&b, "\nbacktrace:\n");
    write_both(fd, &b);

    void *frames[CRASH_FRAMES_MAX];
    int n = backtrace(frames, CRASH_FRAMES_MAX);
    if (n > 0) {
        backtrace_symbols_fd(frames, n, STDERR_FILENO);
        if (fd >= 0)
            backtrace_symbols_fd(frames, n, fd);
    }

    b.len = 0;
    sb_str(&b, "last log records:\n");
    write_both(fd, &b);
    /* the ring, not the sink: only write(2) from here */
    ze_log_crash_dump(STDERR_FILENO, CRASH_LOG_RECORDS);
    if (fd >= 0)
        ze_log_crash_dump(fd, CRASH_LOG_RECORDS);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    /* A handler that was there before (a sanitizer's, a host's) gets its
       turn; if it returns, the default action still ends the process. */
    for (int i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        const struct sigaction *prev = &g_crash.previous[i];
        if (k_signals[i] != sig)
            continue;
        if (prev->sa_flags & SA_SIGINFO) {
            if (prev->sa_sigaction)
                prev->sa_sigaction(sig, info, uctx);
        } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
            prev->sa_handler(sig);
        }
    }
    die_by(sig);
    errno = saved_errno;
}

/* -------------------------------------------------------- install / remove */

/* Guard + stack, the guard PROT_NONE below the stack; installed as this
 * thread's alternate stack (the previous one saved in *previous). */
static ze_result map_alt_stack(void **map, size_t *size, stack_t *previous)
{
    *size = CRASH_GUARD_SIZE + CRASH_STACK_SIZE;
    *map = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
    if (*map == MAP_FAILED) {
        *map = NULL;
        *size = 0;
        return ZE_ERR_OUT_OF_MEMORY;
    }
    mprotect(*map, CRASH_GUARD_SIZE, PROT_NONE);
    stack_t ss = {.ss_sp = (char *)*map + CRASH_GUARD_SIZE, .ss_size = CRASH_STACK_SIZE};
    if (sigaltstack(&ss, previous) != 0) {
        munmap(*map, *size);
        *map = NULL;
        *size = 0;
        return ZE_ERR_INTERNAL;
    }
    return ZE_OK;
}

/* Put `previous` back as this thread's alternate stack and unmap ours, if
 * ours is the current one and not in use; false when it was left mapped. */
static bool unmap_alt_stack(void *map, size_t size, stack_t previous)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || cur.ss_sp != (char *)map + CRASH_GUARD_SIZE ||
        (cur.ss_flags & SS_ONSTACK))
        return false;
    if (previous.ss_flags & SS_DISABLE) {
        previous.ss_sp = NULL;
        previous.ss_size = 0;
        previous.ss_flags = SS_DISABLE;
    } else {
        previous.ss_flags = 0;
    }
    sigaltstack(&previous, NULL);
    munmap(map, size);
    return true;
}

/* The alternate stack of a thread other than the installing one. */
static _Thread_local struct {
    void *map;
    size_t size;
    stack_t previous;
} t_crash_stack;

ze_result ze_crash_handler_thread_enter(void)
{
    if (t_crash_stack.map)
        return ZE_OK;
    stack_t cur;
    if (g_crash.map && sigaltstack(NULL, &cur) == 0 &&
        cur.ss_sp == (char *)g_crash.map + CRASH_GUARD_SIZE)
        return ZE_OK; /* the installing thread has the handler's own */
    return map_alt_stack(&t_crash_stack.map, &t_crash_stack.size, &t_crash_stack.previous);
}

void ze_crash_handler_thread_leave(void)
{
    if (!t_crash_stack.map)
        return;
    unmap_alt_stack(t_crash_stack.map, t_crash_stack.size, t_crash_stack.previous);
    t_crash_stack.map = NULL;
    t_crash_stack.size = 0;
}

static void release_stack(void)
{
    if (g_crash.stack_installed) {
        /* Only this thread's stack can be swapped back; when the installing
           thread is another one, the mapping is kept (it may still be in
           use there). */
        unmap_alt_stack(g_crash.map, g_crash.map_size, g_crash.previous_stack);
        g_crash.stack_installed = false;
    } else if (g_crash.map) {
        munmap(g_crash.map, g_crash.map_size);
    }
    g_crash.map = NULL;
    g_crash.map_size = 0;
}

ze_result ze_crash_handler_install(const char *dir)
{
    char abs[CRASH_PATH_MAX];
    if (!dir || !dir[0]) {
        if (!getcwd(abs, sizeof abs))
            return ZE_ERR_IO;
    } else if (dir[0] == '/') {
        size_t n = strlen(dir);
        if (n >= sizeof abs)
            return ZE_ERR_LIMIT;
        memcpy(abs, dir, n + 1);
    } else {
        char cwd[CRASH_PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return ZE_ERR_IO;
        int n = snprintf(abs, sizeof abs, "%s/%s", cwd, dir);
        if (n < 0 || (size_t)n >= sizeof abs)
            return ZE_ERR_LIMIT;
    }
    struct stat st;
    if (stat(abs, &st) != 0)
        return errno == ENOENT ? ZE_ERR_NOT_FOUND : ZE_ERR_IO;
    if (!S_ISDIR(st.st_mode))
        return ZE_ERR_INVALID_ARG;
    size_t al = strlen(abs);
    while (al > 1 && abs[al - 1] == '/')
        abs[--al] = '\0';
    char path[CRASH_PATH_MAX];
    pid_t pid = getpid();
    if (!format_path(path, abs, pid))
        return ZE_ERR_LIMIT;

    if (g_crash.installed) {
        /* Re-install: only the destination changes. Block the signals while
           the path is rewritten so a crash never sees half a path. */
        sigset_t set, old;
        sigemptyset(&set);
        for (int i = 0; i < CRASH_SIGNAL_COUNT; i++)
            sigaddset(&set, k_signals[i]);
        pthread_sigmask(SIG_BLOCK, &set, &old);
        memcpy(g_crash.dir, abs, al + 1);
        memcpy(g_crash.path, path, strlen(path) + 1);
        g_crash.pid = pid;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return ZE_OK;
    }

    /* Load the unwinder now: its first use may allocate and dlopen. */
    void *warm[4];
    (void)backtrace(warm, 4);

    ze_result sr = map_alt_stack(&g_crash.map, &g_crash.map_size, &g_crash.previous_stack);
    if (sr != ZE_OK)
        return sr;
    g_crash.stack_installed = true;

    memcpy(g_crash.dir, abs, al + 1);
    memcpy(g_crash.path, path, strlen(path) + 1);
    g_crash.pid = pid;
    atomic_store(&g_crash.handling, 0);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < CRASH_SIGNAL_COUNT; i++)
        sigaddset(&sa.sa_mask, k_signals[i]);
    for (int i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (sigaction(k_signals[i], &sa, &g_crash.previous[i]) != 0) {
            for (int j = i - 1; j >= 0; j--)
                sigaction(k_signals[j], &g_crash.previous[j], NULL);
            release_stack();
            g_crash.path[0] = '\0';
            return ZE_ERR_INTERNAL;
        }
    }
    g_crash.installed = true;
    return ZE_OK;
}

void ze_crash_handler_uninstall(void)
{
    if (!g_crash.installed)
        return;
    for (int i = CRASH_SIGNAL_COUNT - 1; i >= 0; i--)
        sigaction(k_signals[i], &g_crash.previous[i], NULL);
    release_stack();
    g_crash.installed = false;
    g_crash.path[0] = '\0';
    g_crash.dir[0] = '\0';
}

const char *ze_crash_handler_log_path(void)
{
    return g_crash.path;
}
