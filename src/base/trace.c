/* Profiler zones: per-thread event buffers, written out as Chrome
 * trace-event JSON ("B"/"E" duration events), which Perfetto opens.
 * Global state (the documented profiler hooks): one capture at a time. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "zengine/base.h"

typedef struct trace_event_t {
    const char *name; /* NULL marks an end event */
    uint64_t ts_ns;
} trace_event_t;

typedef struct trace_buffer_t {
    uint32_t tid;
    const char *thread_name; /* NULL: unnamed */
    atomic_uint count;
    trace_event_t *events;
} trace_buffer_t;

typedef struct trace_gpu_span_t {
    char name[32];
    uint64_t begin_ns, end_ns;
} trace_gpu_span_t;

/* The capture's switch, tested inline by ZE_ZONE_BEGIN/END (base.h):
   __atomic builtins, as the macros use, so C++ includes the header too. */
int ze__trace_on;

static struct {
    pthread_mutex_t lock;
    bool captured;          /* buffers exist: started, maybe paused, not yet stopped */
    atomic_uint generation; /* bumped by every start; stale TLS detects it */
    ze_allocator_t alloc;
    uint32_t events_per_thread;
    uint32_t max_threads;
    atomic_uint nbuffers;
    trace_buffer_t *buffers;
    atomic_uint_fast64_t dropped;
    uint64_t start_ns;
    /* the GPU track: few spans per frame, from the render thread */
    pthread_mutex_t gpu_lock;
    trace_gpu_span_t *gpu;
    uint32_t gpu_cap, gpu_count;
} g_trace = {.lock = PTHREAD_MUTEX_INITIALIZER, .gpu_lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local trace_buffer_t *t_buffer;
static _Thread_local unsigned t_generation;
static _Thread_local const char *t_name;

ze_result ze_trace_start(const ze_trace_desc_t *desc)
{
    if (!desc || !desc->alloc.fn)
        return ZE_ERR_INVALID_ARG;
    pthread_mutex_lock(&g_trace.lock);
    if (g_trace.captured) {
        pthread_mutex_unlock(&g_trace.lock);
        return ZE_ERR_STATE;
    }
    uint32_t per = desc->events_per_thread ? desc->events_per_thread : 65536;
    uint32_t maxt = desc->max_threads ? desc->max_threads : 64;
    uint32_t ngpu = desc->gpu_events ? desc->gpu_events : 16384;
    trace_buffer_t *bufs = ZE_NEW_ARRAY(desc->alloc, trace_buffer_t, maxt);
    trace_gpu_span_t *gpu = ZE_NEW_ARRAY(desc->alloc, trace_gpu_span_t, ngpu);
    if (!bufs || !gpu) {
        ze_free(desc->alloc, bufs, sizeof(trace_buffer_t) * maxt);
        ze_free(desc->alloc, gpu, sizeof(trace_gpu_span_t) * ngpu);
        pthread_mutex_unlock(&g_trace.lock);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(bufs, 0, sizeof(trace_buffer_t) * maxt);
    pthread_mutex_lock(&g_trace.gpu_lock);
    g_trace.gpu = gpu;
    g_trace.gpu_cap = ngpu;
    g_trace.gpu_count = 0;
    pthread_mutex_unlock(&g_trace.gpu_lock);
    g_trace.captured = true;
    g_trace.alloc = desc->alloc;
    g_trace.events_per_thread = per;
    g_trace.max_threads = maxt;
    g_trace.buffers = bufs;
    atomic_store(&g_trace.nbuffers, 0);
    atomic_store(&g_trace.dropped, 0);
    g_trace.start_ns = ze_time_now_ns();
    atomic_fetch_add(&g_trace.generation, 1);
    __atomic_store_n(&ze__trace_on, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_trace.lock);
    return ZE_OK;
}

bool ze_trace_active(void)
{
    return __atomic_load_n(&ze__trace_on, __ATOMIC_ACQUIRE) != 0;
}

static trace_buffer_t *thread_buffer(void)
{
    unsigned gen = atomic_load_explicit(&g_trace.generation, memory_order_acquire);
    if (t_buffer && t_generation == gen)
        return t_buffer;
    t_buffer = NULL;
    pthread_mutex_lock(&g_trace.lock);
    if (__atomic_load_n(&ze__trace_on, __ATOMIC_SEQ_CST)) {
        uint32_t i = atomic_load(&g_trace.nbuffers);
        if (i < g_trace.max_threads) {
            trace_buffer_t *b = &g_trace.buffers[i];
            b->events = ZE_NEW_ARRAY(g_trace.alloc, trace_event_t, g_trace.events_per_thread);
            if (b->events) {
                b->tid = ze_thread_id();
                b->thread_name = t_name;
                atomic_store(&g_trace.nbuffers, i + 1);
                t_buffer = b;
                t_generation = gen;
            }
        }
    }
    pthread_mutex_unlock(&g_trace.lock);
    return t_buffer;
}

static void record(const char *name)
{
    if (!ze_trace_active())
        return;
    trace_buffer_t *b = thread_buffer();
    if (!b) {
        atomic_fetch_add_explicit(&g_trace.dropped, 1, memory_order_relaxed);
        return;
    }
    unsigned n = atomic_load_explicit(&b->count, memory_order_relaxed);
    if (n >= g_trace.events_per_thread) {
        atomic_fetch_add_explicit(&g_trace.dropped, 1, memory_order_relaxed);
        return;
    }
    b->events[n] = (trace_event_t){name, ze_time_now_ns()};
    atomic_store_explicit(&b->count, n + 1, memory_order_release);
}

void ze_trace_begin(const char *name)
{
    record(name ? name : "?");
}

void ze_trace_end(void)
{
    record(NULL);
}

uint64_t ze_trace_dropped(void)
{
    return atomic_load(&g_trace.dropped);
}

void ze_trace_thread_name(const char *name)
{
    t_name = name;
    /* under the lock: a stop frees the buffers and bumps the generation,
     * so a buffer from a finished capture is never written */
    pthread_mutex_lock(&g_trace.lock);
    if (t_buffer && g_trace.captured && t_generation == atomic_load(&g_trace.generation))
        t_buffer->thread_name = name;
    pthread_mutex_unlock(&g_trace.lock);
}

void ze_trace_pause(void)
{
    __atomic_store_n(&ze__trace_on, 0, __ATOMIC_RELEASE);
}

void ze_trace_gpu_span(const char *name, uint64_t begin_ns, uint64_t end_ns)
{
    if (!ze_trace_active())
        return;
    pthread_mutex_lock(&g_trace.gpu_lock);
    if (g_trace.gpu && g_trace.gpu_count < g_trace.gpu_cap) {
        trace_gpu_span_t *sp = &g_trace.gpu[g_trace.gpu_count++];
        snprintf(sp->name, sizeof sp->name, "%s", name ? name : "?");
        sp->begin_ns = begin_ns;
        sp->end_ns = end_ns > begin_ns ? end_ns : begin_ns;
    } else {
        atomic_fetch_add_explicit(&g_trace.dropped, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&g_trace.gpu_lock);
}

static void write_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static double rel_us(uint64_t ns)
{
    return ns >= g_trace.start_ns ? (double)(ns - g_trace.start_ns) / 1000.0 : 0.0;
}

static void write_event(FILE *out, bool *first, const char *name, const char *ph, uint64_t ts_ns,
                        uint32_t tid)
{
    fprintf(out, "%s{\"name\":", *first ? "" : ",\n");
    write_json_string(out, name);
    fprintf(out, ",\"ph\":\"%s\",\"ts\":%.3f,\"pid\":1,\"tid\":%u}", ph, rel_us(ts_ns), tid);
    *first = false;
}

static void write_thread_name(FILE *out, bool *first, uint32_t tid, const char *name)
{
    fprintf(out,
            "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":%u,\"args\":{"
            "\"name\":",
            *first ? "" : ",\n", tid);
    write_json_string(out, name);
    fputs("}}", out);
    *first = false;
}

/* One thread's zones. Names of end events come from a per-thread stack so
 * the capture reads well even in viewers that match E events by name;
 * unmatched ends are dropped, zones left open (a pause) closed at the
 * thread's last timestamp. */
static void write_thread(FILE *out, bool *first, const trace_buffer_t *b)
{
    unsigned n = atomic_load_explicit(&b->count, memory_order_acquire);
    if (b->thread_name)
        write_thread_name(out, first, b->tid, b->thread_name);
    const char *stack[256];
    unsigned depth = 0;
    uint64_t last = g_trace.start_ns;
    for (unsigned e = 0; e < n; e++) {
        const trace_event_t *ev = &b->events[e];
        const char *name = ev->name;
        if (name) {
            if (depth < ZE_COUNTOF(stack))
                stack[depth] = name;
            depth++;
        } else {
            if (depth == 0)
                continue; /* unmatched end: drop it */
            depth--;
            name = depth < ZE_COUNTOF(stack) ? stack[depth] : "?";
        }
        last = ev->ts_ns > last ? ev->ts_ns : last;
        write_event(out, first, name, ev->name ? "B" : "E", last, b->tid);
    }
    while (depth > 0) {
        depth--;
        write_event(out, first, depth < ZE_COUNTOF(stack) ? stack[depth] : "?", "E", last, b->tid);
    }
}

/* The GPU track (tid 0): complete events, in submission order, made
 * monotonic (a span starts no earlier than the one before it began). */
static void write_gpu(FILE *out, bool *first)
{
    if (!g_trace.gpu_count)
        return;
    write_thread_name(out, first, 0, "GPU");
    uint64_t last = g_trace.start_ns;
    for (uint32_t i = 0; i < g_trace.gpu_count; i++) {
        const trace_gpu_span_t *sp = &g_trace.gpu[i];
        uint64_t b = sp->begin_ns > last ? sp->begin_ns : last;
        uint64_t dur = sp->end_ns > sp->begin_ns ? sp->end_ns - sp->begin_ns : 0;
        last = b;
        fprintf(out, "%s{\"name\":", *first ? "" : ",\n");
        write_json_string(out, sp->name);
        fprintf(out, ",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":0}", rel_us(b),
                (double)dur / 1000.0);
        *first = false;
    }
}

ze_result ze_trace_stop(FILE *out)
{
    pthread_mutex_lock(&g_trace.lock);
    if (!g_trace.captured) {
        pthread_mutex_unlock(&g_trace.lock);
        return ZE_ERR_STATE;
    }
    __atomic_store_n(&ze__trace_on, 0, __ATOMIC_RELEASE);
    uint32_t nb = atomic_load(&g_trace.nbuffers);
    ze_result r = ZE_OK;
    pthread_mutex_lock(&g_trace.gpu_lock);
    if (out) {
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
        bool first = true;
        for (uint32_t i = 0; i < nb; i++)
            write_thread(out, &first, &g_trace.buffers[i]);
        write_gpu(out, &first);
        fputs("\n]}\n", out);
        if (ferror(out))
            r = ZE_ERR_IO;
    }
    ze_free(g_trace.alloc, g_trace.gpu, sizeof(trace_gpu_span_t) * g_trace.gpu_cap);
    g_trace.gpu = NULL;
    g_trace.gpu_cap = g_trace.gpu_count = 0;
    pthread_mutex_unlock(&g_trace.gpu_lock);
    for (uint32_t i = 0; i < nb; i++)
        ze_free(g_trace.alloc, g_trace.buffers[i].events,
                sizeof(trace_event_t) * g_trace.events_per_thread);
    ze_free(g_trace.alloc, g_trace.buffers, sizeof(trace_buffer_t) * g_trace.max_threads);
    g_trace.buffers = NULL;
    atomic_store(&g_trace.nbuffers, 0);
    atomic_fetch_add(&g_trace.generation, 1); /* every thread's buffer is stale now */
    g_trace.captured = false;
    pthread_mutex_unlock(&g_trace.lock);
    return r;
}
