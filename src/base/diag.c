/* The diagnostics sink: every module's recoverable failures, as text, go
 * through one of these (the default is the process logger). */
#include <stdio.h>
#include <string.h>

#include "zengine/base.h"

const char *ze_diag_format(const ze_diag_t *d, char *buf, size_t cap)
{
    if (!cap)
        return buf;
    const char *mod = d->module && d->module[0] ? d->module : "zengine";
    if (d->subject && d->subject[0])
        snprintf(buf, cap, "%s: %s: %s", mod, d->subject, d->message ? d->message : "");
    else
        snprintf(buf, cap, "%s: %s", mod, d->message ? d->message : "");
    return buf;
}

void ze_diag_emit(const ze_diag_sink_t *sink, const ze_diag_t *d)
{
    if (sink && sink->fn) {
        sink->fn(sink->user, d);
        return;
    }
    const char *ch = d->module && d->module[0] ? d->module : "zengine";
    if (d->subject && d->subject[0])
        ze_log(d->level, ch, "%s: %s", d->subject, d->message ? d->message : "");
    else
        ze_log(d->level, ch, "%s", d->message ? d->message : "");
}

ze_result ze_diagv(const ze_diag_sink_t *sink, ze_log_level level, ze_result code,
                   const char *module, const char *subject, const char *fmt, va_list ap)
{
    char msg[ZE_LOG_MESSAGE_MAX];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n >= (int)sizeof msg)
        memcpy(msg + sizeof msg - 4, "...", 4);
    ze_diag_t d = {.code = code,
                   .level = level,
                   .module = module ? module : "",
                   .subject = subject ? subject : "",
                   .message = msg};
    ze_diag_emit(sink, &d);
    return code;
}

ze_result ze_diag(const ze_diag_sink_t *sink, ze_log_level level, ze_result code,
                  const char *module, const char *subject, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ze_result r = ze_diagv(sink, level, code, module, subject, fmt, ap);
    va_end(ap);
    return r;
}

static void capture_lock(ze_diag_capture_t *c)
{
    while (__atomic_exchange_n(&c->lock_, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&c->lock_, __ATOMIC_RELAXED))
            ;
}

static void capture_unlock(ze_diag_capture_t *c)
{
    __atomic_store_n(&c->lock_, 0, __ATOMIC_RELEASE);
}

static void capture_fn(void *user, const ze_diag_t *d)
{
    ze_diag_capture_t *c = user;
    char text[ZE_DIAG_TEXT_MAX];
    ze_diag_format(d, text, sizeof text);
    capture_lock(c);
    c->count++;
    if (d->level >= ZE_LOG_ERROR)
        c->errors++;
    if (d->level >= c->min_level) {
        if (!c->first[0]) {
            memcpy(c->first, text, sizeof text);
            c->first_code = d->code;
        }
        memcpy(c->last, text, sizeof text);
        snprintf(c->last_message, sizeof c->last_message, "%s", d->message ? d->message : "");
        c->last_code = d->code;
    }
    capture_unlock(c);
    if (c->pass_on)
        ze_diag_emit(&c->forward, d);
}

ze_diag_sink_t ze_diag_capture_sink(ze_diag_capture_t *c)
{
    return (ze_diag_sink_t){capture_fn, c};
}
