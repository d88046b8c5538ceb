/* Child cooker processes (asset/child.h): fork + execve of one `zengine cook`
 * per import, resource limits applied in the child, the child watched from
 * the main-thread tick without ever blocking.
 *
 * Why: a crash, a runaway allocation or a hang inside a third-party decoder
 * must become a failed import with a one-line reason. The limits (RLIMIT_AS,
 * RLIMIT_CPU, RLIMIT_CORE 0) are computed before fork; between fork and exec
 * the child makes only async-signal-safe calls (the parent may have other
 * threads holding locks). Parent ends of the pipes are non-blocking, the
 * child's ends blocking (O_NONBLOCK lives on each end's open file
 * description, so it is set on the read ends alone). Reaping is wait4 on the
 * pid with WNOHANG: the pid cannot be reused before we reap it, so no race;
 * wait4 also reports the CPU time, which tells an RLIMIT_CPU SIGKILL apart.
 * The pidfd is kept only for callers that sleep in poll(2); a kernel without
 * pidfd_open (before 5.3) leaves it at -1 and everything else works.
 * Memory: the object and the stdout buffer come from desc.alloc; the stderr
 * tail lives inside the object.
 */
/* pidfd_open through syscall(), close_range and prctl are Linux (GNU). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asset/asset_internal.h"
#include "asset/child.h"

extern char **environ;

enum {
    ZE__CHILD_OUT_INITIAL = 4096,
    ZE__CHILD_READ_CHUNK = 16384,
    /* Bytes read from one pipe per call: a child writing as fast as we read
       (stderr has no cap) must not keep a poll from returning. */
    ZE__CHILD_DRAIN_BUDGET = 4 << 20,
};

struct ze__child_t {
    ze_allocator_t alloc;
    pid_t pid;
    int pidfd;             /* -1 when unavailable or after the reap */
    int out_fd, err_fd;    /* parent read ends; -1 once closed */
    uint64_t start_ns;     /* ze_time_now_ns() at spawn */
    uint64_t deadline_ns;  /* 0 = none */
    uint64_t memory_limit; /* as in the desc, for the reason */
    uint32_t cpu_seconds;
    uint32_t timeout_ms;
    ze__child_outcome killed_for; /* TIMED_OUT or OUTPUT_OVERFLOW once we sent SIGKILL */
    bool out_nomem;               /* the stdout buffer could not grow */
    ze__child_outcome outcome;    /* RUNNING until reaped */
    int exit_code, signal;
    uint64_t elapsed_ns;
    char *out; /* out_cap bytes from alloc, NUL-terminated */
    size_t out_len, out_cap;
    size_t err_len;
    char err_tail[ZE__CHILD_STDERR_KEEP + 1];
    char reason[ZE__ASSET_ERROR_MAX];
};

/* --------------------------------------------------------------- the child */

/* What the forked child needs, prepared by the parent: after fork the child
 * makes async-signal-safe calls only, allocates nothing, never returns. */
typedef struct ze__child_plan_t {
    char *argv[ZE__CHILD_MAX_ARGS + 1];
    pid_t parent;
    int out_w, err_w;
    bool set_as, set_cpu;
    struct rlimit as, cpu, core;
    int max_fd; /* for the close loop when close_range is missing */
    char exec_msg[320];
    size_t exec_msg_len;
} ze__child_plan_t;

static void child_write(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* One line on the child's stderr (the parent's pipe), then exit 127. */
static _Noreturn void child_fail(const char *head, size_t head_len, const char *what)
{
    child_write(head, head_len);
    child_write(what, strlen(what));
    child_write("\n", 1);
    _exit(127);
}

#define ZE__CHILD_SAY        "zengine child: "
#define ZE__CHILD_FAIL(what) child_fail(ZE__CHILD_SAY, sizeof ZE__CHILD_SAY - 1, (what))

static bool child_dup(int from, int to)
{
    if (from == to) /* only the close-on-exec flag to clear */
        return fcntl(to, F_SETFD, 0) == 0;
    return dup2(from, to) == to;
}

static _Noreturn void child_main(const ze__child_plan_t *p)
{
    /* Dies with the thread that forked it, so an engine killed outright
       leaves no cooker behind; the parent may already be gone. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != p->parent)
        _exit(127);
    /* Signal mask and ignored signals survive exec: give the cooker a
       clean slate (handlers are reset by exec anyway). */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL); /* SIGKILL, SIGSTOP and RT internals just fail */

    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || !child_dup(devnull, 0) || !child_dup(p->out_w, 1) || !child_dup(p->err_w, 2))
        _exit(127); /* stderr may not be ours yet: nothing to say it on */
    if (setrlimit(RLIMIT_CORE, &p->core) != 0)
        ZE__CHILD_FAIL("cannot set RLIMIT_CORE");
    if (p->set_as && setrlimit(RLIMIT_AS, &p->as) != 0)
        ZE__CHILD_FAIL("cannot set RLIMIT_AS");
    if (p->set_cpu && setrlimit(RLIMIT_CPU, &p->cpu) != 0)
        ZE__CHILD_FAIL("cannot set RLIMIT_CPU");
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
        for (int fd = 3; fd <= p->max_fd; fd++)
            close(fd);
    execve(p->argv[0], p->argv, environ);
    int e = errno;
    child_fail(p->exec_msg, p->exec_msg_len, /* "zengine child: cannot execute 'PATH': " */
               e == ENOENT                 ? "no such file"
               : e == EACCES               ? "permission denied"
               : e == ENOEXEC              ? "not an executable"
               : e == ENOMEM || e == E2BIG ? "out of memory"
                                           : "exec failed");
}

/* -------------------------------------------------------------- the parent */

/* A descriptor above 2 (a parent with closed stdio gets 0..2 from pipe2),
 * close-on-exec. */
static int fd_above_stdio(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return n;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static ze_result make_pipe(int *r, int *w, ze__asset_error_t *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        ze__asset_error_set(err, "cannot create a pipe: %s", strerror(errno));
        return ZE_ERR_IO;
    }
    *r = fd_above_stdio(p[0]);
    *w = fd_above_stdio(p[1]);
    if (*r < 0 || *w < 0 || fcntl(*r, F_SETFL, O_NONBLOCK) != 0) {
        ze__asset_error_set(err, "cannot set up a pipe: %s", strerror(errno));
        close_fd(r);
        close_fd(w);
        return ZE_ERR_IO;
    }
    return ZE_OK;
}

static void plan_limits(ze__child_plan_t *p, const ze__child_desc_t *desc)
{
    /* Never above the current hard limit: raising it is EPERM. */
    struct rlimit cur;
    p->core.rlim_cur = p->core.rlim_max = 0;
    if (desc->memory_limit) {
        rlim_t v = (rlim_t)desc->memory_limit;
        if (getrlimit(RLIMIT_AS, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max)
            v = cur.rlim_max;
        p->as.rlim_cur = p->as.rlim_max = v;
        p->set_as = true;
    }
    if (desc->cpu_seconds) {
        /* SIGXCPU at the soft limit, SIGKILL a second later if ignored. */
        rlim_t soft = desc->cpu_seconds, hard = soft + 1;
        if (getrlimit(RLIMIT_CPU, &cur) == 0 && cur.rlim_max != RLIM_INFINITY) {
            hard = hard > cur.rlim_max ? cur.rlim_max : hard;
            soft = soft > hard ? hard : soft;
        }
        p->cpu.rlim_cur = soft;
        p->cpu.rlim_max = hard;
        p->set_cpu = true;
    }
    p->max_fd = 1024;
    if (getrlimit(RLIMIT_NOFILE, &cur) == 0 && cur.rlim_cur != RLIM_INFINITY)
        p->max_fd = cur.rlim_cur > 65536 ? 65536 : (int)cur.rlim_cur;
}

ze_result ze__child_spawn(const ze__child_desc_t *desc, ze__child_t **out, ze__asset_error_t *err)
{
    ZE_CHECK(desc && out && desc->argv && desc->argv[0], ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze__child_plan_t plan;
    memset(&plan, 0, sizeof plan);
    size_t argc = 0;
    for (; desc->argv[argc]; argc++) {
        if (argc >= ZE__CHILD_MAX_ARGS) {
            ze__asset_error_set(err, "more than %d arguments for '%s'", ZE__CHILD_MAX_ARGS,
                                desc->argv[0]);
            return ZE_ERR_INVALID_ARG;
        }
        plan.argv[argc] = (char *)desc->argv[argc]; /* execve's type; never written */
    }
    int n = snprintf(plan.exec_msg, sizeof plan.exec_msg,
                     ZE__CHILD_SAY "cannot execute '%s': ", desc->argv[0]);
    plan.exec_msg_len = n < 0 ? 0 : ZE_MIN((size_t)n, sizeof plan.exec_msg - 1);
    plan_limits(&plan, desc);
    plan.parent = getpid();

    ze_allocator_t alloc = ze__asset_alloc_or_default(desc->alloc);
    ze__child_t *c = ZE_NEW(alloc, ze__child_t);
    if (!c) {
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    c->pidfd = c->out_fd = c->err_fd = -1;
    c->memory_limit = desc->memory_limit;
    c->cpu_seconds = desc->cpu_seconds;
    c->timeout_ms = desc->timeout_ms;
    c->out_cap = ZE__CHILD_OUT_INITIAL;
    c->out = ze_alloc(alloc, c->out_cap, 16);
    if (!c->out) {
        ze_free(alloc, c, sizeof *c);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    c->out[0] = 0;
    plan.out_w = plan.err_w = -1;
    ze_result r = make_pipe(&c->out_fd, &plan.out_w, err);
    if (r == ZE_OK)
        r = make_pipe(&c->err_fd, &plan.err_w, err);
    if (r != ZE_OK) {
        ze__child_destroy(c);
        return r;
    }

    c->start_ns = ze_time_now_ns();
    pid_t pid = fork();
    if (pid == 0)
        child_main(&plan);
    int fork_errno = errno;
    close_fd(&plan.out_w);
    close_fd(&plan.err_w);
    if (pid < 0) {
        ze__asset_error_set(err, "cannot start '%s': fork: %s", desc->argv[0],
                            strerror(fork_errno));
        ze__child_destroy(c);
        return ZE_ERR_IO;
    }
    c->pid = pid;
    /* Not reaped before we wait on it, so this pid is still our child. */
    long pidfd = syscall(SYS_pidfd_open, pid, 0);
    c->pidfd = pidfd >= 0 ? (int)pidfd : -1;
    if (desc->timeout_ms)
        c->deadline_ns = c->start_ns + (uint64_t)desc->timeout_ms * 1000000u;
    *out = c;
    return ZE_OK;
}

/* SIGKILL, once, remembering why. */
static void kill_for(ze__child_t *c, ze__child_outcome why)
{
    if (c->killed_for != ZE__CHILD_RUNNING || c->pid <= 0)
        return;
    c->killed_for = why;
    kill(c->pid, SIGKILL);
}

static void take_out(ze__child_t *c, const char *buf, size_t n)
{
    if (c->killed_for == ZE__CHILD_OUTPUT_OVERFLOW)
        return; /* discarding what is left in the pipe */
    if (c->out_len + n > ZE__CHILD_STDOUT_MAX) {
        kill_for(c, ZE__CHILD_OUTPUT_OVERFLOW);
        c->killed_for = ZE__CHILD_OUTPUT_OVERFLOW; /* even if a timeout came first */
        return;
    }
    if (c->out_len + n + 1 > c->out_cap) {
        size_t cap = c->out_cap;
        while (cap < c->out_len + n + 1)
            cap *= 2;
        cap = ZE_MIN(cap, (size_t)ZE__CHILD_STDOUT_MAX + 1);
        char *p = ze_realloc(c->alloc, c->out, c->out_cap, cap, 16);
        if (!p) {
            c->out_nomem = true;
            kill_for(c, ZE__CHILD_OUTPUT_OVERFLOW);
            c->killed_for = ZE__CHILD_OUTPUT_OVERFLOW;
            return;
        }
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, buf, n);
    c->out_len += n;
    c->out[c->out_len] = 0;
}

static void take_err(ze__child_t *c, const char *buf, size_t n)
{
    const size_t keep = ZE__CHILD_STDERR_KEEP;
    if (n >= keep) {
        memcpy(c->err_tail, buf + (n - keep), keep);
        c->err_len = keep;
    } else {
        if (c->err_len + n > keep) {
            size_t drop = c->err_len + n - keep;
            memmove(c->err_tail, c->err_tail + drop, c->err_len - drop);
            c->err_len -= drop;
        }
        memcpy(c->err_tail + c->err_len, buf, n);
        c->err_len += n;
    }
    c->err_tail[c->err_len] = 0;
}

/* Reads until the pipe is empty (EAGAIN), closed (EOF, then closes it) or
 * the budget is spent. */
static void drain(ze__child_t *c, int *fd, bool is_out)
{
    char buf[ZE__CHILD_READ_CHUNK];
    for (size_t budget = ZE__CHILD_DRAIN_BUDGET; *fd >= 0 && budget > 0;) {
        ssize_t r = read(*fd, buf, sizeof buf);
        if (r > 0) {
            budget -= ZE_MIN(budget, (size_t)r);
            if (is_out)
                take_out(c, buf, (size_t)r);
            else
                take_err(c, buf, (size_t)r);
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close_fd(fd); /* EOF, or an error that will not go away */
        }
    }
}

/* The last non-empty line of the stderr tail, control characters replaced. */
static void last_line(const ze__child_t *c, char *line, size_t cap)
{
    const char *s = c->err_tail;
    size_t end = c->err_len;
    while (end > 0 &&
           (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' ' || s[end - 1] == '\t'))
        end--;
    size_t begin = end;
    while (begin > 0 && s[begin - 1] != '\n')
        begin--;
    while (begin < end && (s[begin] == ' ' || s[begin] == '\t' || s[begin] == '\r'))
        begin++;
    size_t n = ZE_MIN(end - begin, cap - 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[begin + i];
        line[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    line[n] = 0;
}

static bool mentions_memory(const char *line)
{
    static const char *const words[] = {"memory", "bad_alloc", "Cannot allocate", "ENOMEM"};
    for (size_t i = 0; i < ZE_COUNTOF(words); i++)
        if (strstr(line, words[i]))
            return true;
    return false;
}

static void make_reason(ze__child_t *c, uint64_t cpu_us)
{
    char line[ZE__ASSET_ERROR_MAX];
    last_line(c, line, sizeof line);
    char *r = c->reason;
    const size_t cap = sizeof c->reason;
    switch (c->outcome) {
    case ZE__CHILD_TIMED_OUT:
        snprintf(r, cap, "timed out after %u ms", c->timeout_ms);
        return;
    case ZE__CHILD_OUTPUT_OVERFLOW:
        if (c->out_nomem)
            snprintf(r, cap, "out of memory capturing %zu bytes of output", c->out_len);
        else
            snprintf(r, cap, "output over %d bytes", ZE__CHILD_STDOUT_MAX);
        return;
    case ZE__CHILD_EXITED:
    case ZE__CHILD_SIGNALED:
        break;
    case ZE__CHILD_RUNNING:
        r[0] = 0;
        return;
    }
    char head[64];
    const char *crash = "";
    bool memory = c->memory_limit && mentions_memory(line);
    bool cpu = false;
    if (c->outcome == ZE__CHILD_EXITED) {
        snprintf(head, sizeof head, "exit status %d", c->exit_code);
    } else {
        const char *name = ze_signal_name(c->signal);
        if (name)
            snprintf(head, sizeof head, "killed by %s", name);
        else
            snprintf(head, sizeof head, "killed by signal %d", c->signal);
        int s = c->signal;
        if (s == SIGSEGV || s == SIGBUS || s == SIGFPE || s == SIGILL)
            crash = "crash";
        memory = memory || (c->memory_limit && (s == SIGABRT || s == SIGSEGV || s == SIGKILL));
        cpu = c->cpu_seconds &&
              (s == SIGXCPU || (s == SIGKILL && cpu_us >= (uint64_t)c->cpu_seconds * 1000000u));
    }
    char notes[128] = "", mem[48] = "", cpu_note[32] = "";
    if (memory)
        snprintf(mem, sizeof mem, "memory limit %llu MiB",
                 (unsigned long long)(c->memory_limit >> 20));
    if (cpu)
        snprintf(cpu_note, sizeof cpu_note, "CPU limit %u s", c->cpu_seconds);
    const char *parts[] = {crash, mem, cpu_note};
    for (size_t i = 0; i < ZE_COUNTOF(parts); i++) {
        if (!parts[i][0])
            continue;
        strcat(notes, notes[0] ? ", " : " (");
        strcat(notes, parts[i]);
    }
    if (notes[0])
        strcat(notes, ")");
    /* head ": " line notes; the notes survive a long line, which is cut. */
    size_t hn = strlen(head), nn = strlen(notes), ln = strlen(line);
    size_t room = cap - 1 - hn - nn - 2; /* head and notes are short */
    ln = ZE_MIN(ln, room);
    memcpy(r, head, hn);
    size_t at = hn;
    if (ln) {
        memcpy(r + at, ": ", 2);
        memcpy(r + at + 2, line, ln);
        at += 2 + ln;
    }
    memcpy(r + at, notes, nn);
    r[at + nn] = 0;
}

/* wait4 with WNOHANG (or blocking); true once reaped. */
static bool reap(ze__child_t *c, uint64_t now_ns, bool block)
{
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    do
        w = wait4(c->pid, &st, block ? 0 : WNOHANG, &ru);
    while (w < 0 && errno == EINTR);
    if (w == 0)
        return false;
    if (w < 0) {
        /* ECHILD: someone else reaped it (a waitpid(-1) elsewhere in the
           process, or SIGCHLD set to SIG_IGN). Nothing left to learn. */
        st = 0;
        c->signal = 0;
        c->exit_code = -1;
        c->outcome = ZE__CHILD_EXITED;
    } else if (WIFSIGNALED(st)) {
        c->signal = WTERMSIG(st);
        c->outcome = ZE__CHILD_SIGNALED;
    } else {
        c->exit_code = WEXITSTATUS(st);
        c->outcome = ZE__CHILD_EXITED;
    }
    if (c->killed_for != ZE__CHILD_RUNNING)
        c->outcome = c->killed_for; /* our verdict stands, whatever raced it */
    c->pid = 0;
    close_fd(&c->pidfd);
    c->elapsed_ns = now_ns > c->start_ns ? now_ns - c->start_ns : 0;
    /* What the child wrote before it ended; a grandchild holding the pipes
       open cannot make us wait, so stop at empty as well as at EOF. */
    drain(c, &c->out_fd, true);
    drain(c, &c->err_fd, false);
    close_fd(&c->out_fd);
    close_fd(&c->err_fd);
    uint64_t cpu_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
                      (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    make_reason(c, cpu_us);
    return true;
}

ze__child_outcome ze__child_poll(ze__child_t *c, uint64_t now_ns)
{
    ZE_CHECK(c, ZE__CHILD_RUNNING);
    if (c->outcome != ZE__CHILD_RUNNING)
        return c->outcome;
    drain(c, &c->out_fd, true);
    drain(c, &c->err_fd, false);
    if (reap(c, now_ns, false))
        return c->outcome;
    if (c->deadline_ns && now_ns >= c->deadline_ns)
        kill_for(c, ZE__CHILD_TIMED_OUT); /* reaped on a later poll */
    return ZE__CHILD_RUNNING;
}

int ze__child_pidfd(const ze__child_t *c)
{
    return c ? c->pidfd : -1;
}

void ze__child_result(const ze__child_t *c, ze__child_result_t *out)
{
    ZE_CHECK(c && out, );
    memset(out, 0, sizeof *out);
    out->outcome = c->outcome;
    out->exit_code = c->exit_code;
    out->signal = c->signal;
    if (c->outcome == ZE__CHILD_TIMED_OUT || c->outcome == ZE__CHILD_OUTPUT_OVERFLOW)
        out->signal = SIGKILL;
    out->elapsed_ns = c->elapsed_ns;
    out->out = c->out ? c->out : "";
    out->out_len = c->out_len;
    out->err_tail = c->err_tail;
    memcpy(out->reason, c->reason, sizeof out->reason);
}

void ze__child_destroy(ze__child_t *c)
{
    if (!c)
        return;
    if (c->pid > 0 && c->outcome == ZE__CHILD_RUNNING) {
        kill(c->pid, SIGKILL);
        int st;
        while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    close_fd(&c->pidfd);
    close_fd(&c->out_fd);
    close_fd(&c->err_fd);
    ze_free(c->alloc, c->out, c->out_cap);
    ze_free(c->alloc, c, sizeof *c);
}
