/* Child cooker processes: one `zengine cook` run per import, started with
 * resource limits, watched without blocking, killed on timeout.
 *
 * Why a child: third-party decoders (assimp, stb_image) have a long CVE
 * history; a crash, a runaway allocation or a hang inside one must become a
 * Failed import with its reason, never take the engine down or block a
 * thread. The parent never waits on a child: the import coordinator calls
 * ze__child_poll from the main-thread tick; the child's pidfd tells whether
 * it ended, its stdout and stderr are drained through non-blocking pipes
 * (bounded: stdout up to ZE__CHILD_STDOUT_MAX, stderr keeps its last
 * ZE__CHILD_STDERR_KEEP bytes), and a child past its deadline gets SIGKILL.
 * Threads: a ze__child_t belongs to the thread that spawned it.
 * Memory: the child's bookkeeping and captured output come from desc.alloc.
 */
#ifndef ZE_ASSET_CHILD_H
#define ZE_ASSET_CHILD_H
#include "asset/asset_internal.h"

enum {
    ZE__CHILD_STDOUT_MAX = 16 << 20, /* more is a protocol error (child killed) */
    ZE__CHILD_STDERR_KEEP = 4096,
    ZE__CHILD_MAX_ARGS = 16,
};

typedef struct ze__child_desc_t {
    ze_allocator_t alloc; /* zero = the system allocator */
    /* argv[0] is the program (an executable path, not searched in PATH);
       NULL-terminated, at most ZE__CHILD_MAX_ARGS entries. */
    const char *const *argv;
    uint64_t memory_limit; /* RLIMIT_AS in bytes; 0 = inherit */
    uint32_t cpu_seconds;  /* RLIMIT_CPU (SIGXCPU, then SIGKILL); 0 = inherit */
    uint32_t timeout_ms;   /* wall clock from spawn, enforced by poll; 0 = none */
} ze__child_desc_t;

typedef enum ze__child_outcome {
    ZE__CHILD_RUNNING = 0,
    ZE__CHILD_EXITED,          /* exit_code holds the status (0 = success) */
    ZE__CHILD_SIGNALED,        /* killed by `signal` (a crash, or RLIMIT_CPU) */
    ZE__CHILD_TIMED_OUT,       /* killed by us at the deadline */
    ZE__CHILD_OUTPUT_OVERFLOW, /* killed by us: stdout over ZE__CHILD_STDOUT_MAX */
} ze__child_outcome;

typedef struct ze__child_t ze__child_t;

/* fork + exec with the limits applied in the child (RLIMIT_CORE 0 too: no
 * core dumps; stdin from /dev/null; every other descriptor closed; the
 * child dies with its parent via PR_SET_PDEATHSIG). ZE_ERR_IO with a reason
 * in err when the process cannot be started; an exec failure (missing
 * program) shows up later as exit code 127 with a stderr line. */
ze_result ze__child_spawn(const ze__child_desc_t *desc, ze__child_t **out, ze__asset_error_t *err);

/* Never blocks: drains the pipes, checks the pidfd, enforces the deadline
 * and the output cap. Returns the outcome (RUNNING until the child is reaped;
 * then the same final outcome on every call). `now_ns` from ze_time_now_ns. */
ze__child_outcome ze__child_poll(ze__child_t *c, uint64_t now_ns);

/* The pidfd (readable when the child has ended), for callers that want to
 * sleep in poll(2) over many children. -1 after the child is reaped. */
int ze__child_pidfd(const ze__child_t *c);

typedef struct ze__child_result_t {
    ze__child_outcome outcome;
    int exit_code; /* EXITED */
    int signal;    /* SIGNALED (and the SIGKILL of TIMED_OUT/OUTPUT_OVERFLOW) */
    uint64_t elapsed_ns;
    const char *out; /* captured stdout, NUL-terminated, owned by the child object */
    size_t out_len;
    const char *err_tail; /* last bytes of stderr, NUL-terminated */
    /* One line for a log or a Failed state: "exit status 1: <last stderr
       line>", "killed by SIGSEGV (crash)", "killed by SIGABRT: <line>
       (memory limit 64 MiB)", "timed out after 1000 ms", ... */
    char reason[ZE__ASSET_ERROR_MAX];
} ze__child_result_t;

/* Valid once poll returned something other than RUNNING; pointers live
 * until ze__child_destroy. */
void ze__child_result(const ze__child_t *c, ze__child_result_t *out);

/* Kills (SIGKILL) and reaps a child still running (a reap after SIGKILL does
 * not wait on the child's work), closes everything, frees. NULL is fine. */
void ze__child_destroy(ze__child_t *c);

#endif
