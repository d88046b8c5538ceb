/* Test helper: capture the error records of the process logger, to check
 * that a refusal was reported and what its message says. */
#ifndef ZE_TESTS_ECS_LOG_CAPTURE_H
#define ZE_TESTS_ECS_LOG_CAPTURE_H

#include <stdio.h>
#include <string.h>

#include "zengine/base.h"

enum { LOG_CAPTURE_MAX = 64 };

typedef struct log_capture_t {
    char errors[LOG_CAPTURE_MAX][ZE_LOG_MESSAGE_MAX];
    uint32_t count; /* error records seen (the first LOG_CAPTURE_MAX kept) */
} log_capture_t;

static inline void log_capture_sink(void *user, const ze_log_record_t *rec)
{
    log_capture_t *c = user;
    if (rec->level < ZE_LOG_ERROR)
        return;
    if (c->count < LOG_CAPTURE_MAX)
        snprintf(c->errors[c->count], ZE_LOG_MESSAGE_MAX, "%s", rec->message);
    c->count++;
}

/* Start capturing into *c (cleared), quietly. ze_log_reset() ends it. */
static inline void log_capture_begin(log_capture_t *c)
{
    memset(c, 0, sizeof *c);
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = log_capture_sink, .sink_user = c});
}

/* Some captured error contains every one of the given strings (NULL ends
 * the list). */
static inline bool log_captured(const log_capture_t *c, const char *a, const char *b, const char *d)
{
    uint32_t n = c->count < LOG_CAPTURE_MAX ? c->count : LOG_CAPTURE_MAX;
    for (uint32_t i = 0; i < n; i++) {
        const char *m = c->errors[i];
        if (strstr(m, a) && (!b || strstr(m, b)) && (!d || strstr(m, d)))
            return true;
    }
    return false;
}

static inline void log_capture_print(const log_capture_t *c)
{
    uint32_t n = c->count < LOG_CAPTURE_MAX ? c->count : LOG_CAPTURE_MAX;
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, "  logged: %s\n", c->errors[i]);
}

#endif
