/* A checker of Chrome trace-event captures (what `--trace` writes), in C:
 * every event has name, ph, ts, pid and tid of the right types; "B"/"E"
 * balance per thread, each "E" closing the zone its thread opened last;
 * timestamps never go back on a thread; "X" events have a "dur" >= 0;
 * "M" thread_name events name threads. It counts the threads with zones,
 * the GPU track's spans, the "frame" zones and the bytes per frame.
 * Header-only; include after cmocka.h (it uses no cmocka itself). */
#ifndef ZE_TEST_TRACE_CHECK_H
#define ZE_TEST_TRACE_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum { TC_MAX_THREADS = 64, TC_MAX_DEPTH = 64 };

typedef struct tc_report_t {
    size_t events;
    unsigned zone_threads;  /* threads with at least one B event */
    unsigned named_threads; /* thread_name events */
    size_t gpu_spans;       /* X events on the thread named "GPU" */
    size_t frames;          /* "frame" zones on the thread named "main" */
    bool has_main, has_render, has_worker;
    size_t bytes;
} tc_report_t;

typedef struct tc_thread_t {
    json_int_t tid;
    double last_ts;
    unsigned depth;
    const char *stack[TC_MAX_DEPTH];
    bool zones;
    const char *name;
} tc_thread_t;

static tc_thread_t *tc_thread(tc_thread_t *t, unsigned *n, json_int_t tid)
{
    for (unsigned i = 0; i < *n; i++)
        if (t[i].tid == tid)
            return &t[i];
    if (*n == TC_MAX_THREADS)
        return NULL;
    memset(&t[*n], 0, sizeof t[*n]);
    t[*n].tid = tid;
    t[*n].last_ts = -1.0;
    return &t[(*n)++];
}

#define TC_FAIL(...)                         \
    do {                                     \
        snprintf(why, why_cap, __VA_ARGS__); \
        json_decref(root);                   \
        return false;                        \
    } while (0)

/* Check the capture in `text`; false with the first problem in why. */
static bool tc_check_text(const char *text, size_t len, tc_report_t *out, char *why, size_t why_cap)
{
    memset(out, 0, sizeof *out);
    out->bytes = len;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        snprintf(why, why_cap, "not JSON: %s (line %d)", jerr.text, jerr.line);
        return false;
    }
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events))
        TC_FAIL("no traceEvents array");
    static tc_thread_t threads[TC_MAX_THREADS];
    unsigned nthreads = 0;
    size_t i;
    json_t *ev;
    /* names first: a thread may be named after its first zone */
    json_array_foreach(events, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *name = json_string_value(json_object_get(ev, "name"));
        json_t *tid = json_object_get(ev, "tid");
        if (!ph || !name || !json_is_integer(tid) || !json_is_integer(json_object_get(ev, "pid")) ||
            !json_is_number(json_object_get(ev, "ts")))
            TC_FAIL("event %zu lacks name, ph, ts, pid or tid", i);
        if (strcmp(ph, "M") != 0)
            continue;
        const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        tc_thread_t *t = tc_thread(threads, &nthreads, json_integer_value(tid));
        if (strcmp(name, "thread_name") != 0 || !tn || !t)
            TC_FAIL("event %zu: a metadata event that is not a thread_name with args.name", i);
        if (t->name)
            TC_FAIL("event %zu: thread %lld named twice", i, (long long)t->tid);
        t->name = tn;
        out->named_threads++;
        out->has_main |= strcmp(tn, "main") == 0;
        out->has_render |= strcmp(tn, "render") == 0;
        out->has_worker |= strncmp(tn, "worker", 6) == 0;
    }
    json_array_foreach(events, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (strcmp(ph, "M") == 0)
            continue;
        out->events++;
        tc_thread_t *t =
            tc_thread(threads, &nthreads, json_integer_value(json_object_get(ev, "tid")));
        if (!t)
            TC_FAIL("more than %d threads", TC_MAX_THREADS);
        double ts = json_number_value(json_object_get(ev, "ts"));
        if (ts < t->last_ts)
            TC_FAIL("event %zu (%s): ts %.3f before %.3f on thread %lld", i, name, ts, t->last_ts,
                    (long long)t->tid);
        t->last_ts = ts;
        if (strcmp(ph, "B") == 0) {
            if (t->depth == TC_MAX_DEPTH)
                TC_FAIL("event %zu: zones nest deeper than %d", i, TC_MAX_DEPTH);
            t->stack[t->depth++] = name;
            if (!t->zones)
                out->zone_threads++;
            t->zones = true;
            if (strcmp(name, "frame") == 0 && t->name && strcmp(t->name, "main") == 0)
                out->frames++;
        } else if (strcmp(ph, "E") == 0) {
            if (t->depth == 0)
                TC_FAIL("event %zu: an end (%s) without a begin on thread %lld", i, name,
                        (long long)t->tid);
            const char *open = t->stack[--t->depth];
            if (strcmp(open, name) != 0)
                TC_FAIL("event %zu: end of '%s' closes '%s' on thread %lld", i, name, open,
                        (long long)t->tid);
        } else if (strcmp(ph, "X") == 0) {
            json_t *dur = json_object_get(ev, "dur");
            if (!json_is_number(dur) || json_number_value(dur) < 0)
                TC_FAIL("event %zu: an X event without a dur >= 0", i);
            if (t->name && strcmp(t->name, "GPU") == 0)
                out->gpu_spans++;
        } else {
            TC_FAIL("event %zu: unexpected ph '%s'", i, ph);
        }
    }
    for (unsigned k = 0; k < nthreads; k++)
        if (threads[k].depth)
            TC_FAIL("thread %lld ends with %u zones open ('%s')", (long long)threads[k].tid,
                    threads[k].depth, threads[k].stack[threads[k].depth - 1]);
    json_decref(root);
    return true;
}

#undef TC_FAIL

#endif
