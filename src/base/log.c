/* The process logger: one of the documented globals (log configuration and
 * sink). Formatting happens outside the lock; the lock covers sequencing,
 * the ring buffer, the sink and stderr, so records come out in seq order. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "zengine/base.h"

enum { BUILTIN_RING = 64 };

static struct {
    pthread_mutex_t lock;
    atomic_int level;
    bool quiet;
    ze_log_sink_fn sink;
    void *sink_user;
    ze_log_record_t *ring;
    uint32_t ring_cap;
    uint64_t next_seq; /* seq of the next record, under lock */
    atomic_uint_fast64_t counts[ZE_LOG_LEVEL_COUNT];
} g_log = {.lock = PTHREAD_MUTEX_INITIALIZER, .level = ZE_LOG_INFO, .next_seq = 1};

static ze_log_record_t g_builtin_ring[BUILTIN_RING];
static pthread_once_t g_log_once = PTHREAD_ONCE_INIT;

static const char *const g_level_names[ZE_LOG_LEVEL_COUNT] = {"trace", "debug", "info", "warn",
                                                              "error", "fatal", "off"};

const char *ze_log_level_name(ze_log_level level)
{
    return (unsigned)level < ZE_LOG_LEVEL_COUNT ? g_level_names[level] : "?";
}

ze_result ze_log_level_parse(const char *s, ze_log_level *out)
{
    if (!s)
        return ZE_ERR_PARSE;
    for (int i = 0; i < ZE_LOG_LEVEL_COUNT; i++) {
        if (strcasecmp(s, g_level_names[i]) == 0) {
            *out = (ze_log_level)i;
            return ZE_OK;
        }
    }
    if (strcasecmp(s, "warning") == 0) {
        *out = ZE_LOG_WARN;
        return ZE_OK;
    }
    return ZE_ERR_PARSE;
}

static ze_log_level env_level(void)
{
    ze_log_level lv = ZE_LOG_INFO;
    const char *env = getenv("ZENGINE_LOG_LEVEL");
    if (env && *env && ze_log_level_parse(env, &lv) != ZE_OK) {
        fprintf(stderr, "[warn ] log: ZENGINE_LOG_LEVEL=\"%s\" is not a level; using info\n", env);
        lv = ZE_LOG_INFO;
    }
    return lv;
}

static void log_init_once(void)
{
    atomic_store(&g_log.level, (int)env_level());
    if (!g_log.ring) {
        g_log.ring = g_builtin_ring;
        g_log.ring_cap = BUILTIN_RING;
    }
}

void ze_log_configure(const ze_log_desc_t *desc)
{
    pthread_once(&g_log_once, log_init_once);
    ze_log_desc_t d = desc ? *desc : (ze_log_desc_t){0};
    pthread_mutex_lock(&g_log.lock);
    ze_log_level lv = d.explicit_level || d.level != ZE_LOG_TRACE ? d.level : env_level();
    atomic_store(&g_log.level, (int)lv);
    g_log.quiet = d.quiet;
    g_log.sink = d.sink;
    g_log.sink_user = d.sink_user;
    if (d.ring && d.ring_capacity && ZE_IS_POW2(d.ring_capacity)) {
        g_log.ring = d.ring;
        g_log.ring_cap = d.ring_capacity;
    } else {
        g_log.ring = g_builtin_ring;
        g_log.ring_cap = BUILTIN_RING;
    }
    /* A new ring starts empty: records before this call are not in it. */
    memset(g_log.ring, 0, sizeof(ze_log_record_t) * g_log.ring_cap);
    pthread_mutex_unlock(&g_log.lock);
}

void ze_log_reset(void)
{
    ze_log_configure(NULL);
}

void ze_log_set_level(ze_log_level level)
{
    pthread_once(&g_log_once, log_init_once);
    atomic_store(&g_log.level, (int)level);
}

ze_log_level ze_log_get_level(void)
{
    pthread_once(&g_log_once, log_init_once);
    return (ze_log_level)atomic_load(&g_log.level);
}

void ze_logv(ze_log_level level, const char *channel, const char *fmt, va_list ap)
{
    pthread_once(&g_log_once, log_init_once);
    if ((unsigned)level >= ZE_LOG_OFF ||
        (int)level < atomic_load_explicit(&g_log.level, memory_order_relaxed))
        return;
    ze_log_record_t rec;
    rec.time_ns = ze_time_now_ns();
    rec.thread = ze_thread_id();
    rec.level = level;
    snprintf(rec.channel, sizeof rec.channel, "%s", channel ? channel : "");
    int n = vsnprintf(rec.message, sizeof rec.message, fmt, ap);
    if (n >= (int)sizeof rec.message)
        memcpy(rec.message + sizeof rec.message - 4, "...", 4);

    pthread_mutex_lock(&g_log.lock);
    rec.seq = g_log.next_seq++;
    g_log.ring[(rec.seq - 1) & (g_log.ring_cap - 1)] = rec;
    atomic_fetch_add_explicit(&g_log.counts[level], 1, memory_order_relaxed);
    if (g_log.sink)
        g_log.sink(g_log.sink_user, &rec);
    if (!g_log.quiet)
        fprintf(stderr, "[%-5s] %s: %s\n", g_level_names[level], rec.channel, rec.message);
    pthread_mutex_unlock(&g_log.lock);
}

void ze_log(ze_log_level level, const char *channel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ze_logv(level, channel, fmt, ap);
    va_end(ap);
}

uint32_t ze_log_ring_read(uint64_t *cursor, ze_log_record_t *out, uint32_t max, uint64_t *dropped)
{
    pthread_once(&g_log_once, log_init_once);
    uint32_t n = 0;
    uint64_t lost = 0;
    pthread_mutex_lock(&g_log.lock);
    uint64_t last = g_log.next_seq - 1;
    uint64_t oldest = last >= g_log.ring_cap ? last - g_log.ring_cap + 1 : 1;
    uint64_t from = *cursor + 1;
    if (from < oldest) {
        lost = oldest - from;
        from = oldest;
    }
    for (uint64_t s = from; s <= last && n < max; s++) {
        const ze_log_record_t *r = &g_log.ring[(s - 1) & (g_log.ring_cap - 1)];
        *cursor = s;
        if (r->seq != s) { /* slot cleared by a reconfigure */
            lost++;
            continue;
        }
        out[n++] = *r;
    }
    if (from > *cursor + 1) /* everything before `from` was lost */
        *cursor = from - 1;
    pthread_mutex_unlock(&g_log.lock);
    if (dropped)
        *dropped = lost;
    return n;
}

uint64_t ze_log_count(ze_log_level level)
{
    uint64_t total = 0;
    for (int l = level; l < ZE_LOG_OFF; l++)
        total += atomic_load_explicit(&g_log.counts[l], memory_order_relaxed);
    return total;
}

void ze_log_flush(void)
{
    pthread_mutex_lock(&g_log.lock);
    fflush(stderr);
    pthread_mutex_unlock(&g_log.lock);
}

static void dump_str(int fd, const char *s, size_t cap)
{
    size_t n = 0;
    while (n < cap && s[n])
        n++;
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

uint32_t ze_log_crash_dump(int fd, uint32_t max)
{
    if (fd < 0 || max == 0 || !g_log.ring)
        return 0;
    bool locked = pthread_mutex_trylock(&g_log.lock) == 0;
    uint64_t last = g_log.next_seq - 1;
    uint64_t first = last >= max ? last - max + 1 : 1;
    if (last >= g_log.ring_cap && first < last - g_log.ring_cap + 1)
        first = last - g_log.ring_cap + 1;
    uint32_t n = 0;
    for (uint64_t seq = first; seq <= last; seq++) {
        const ze_log_record_t *r = &g_log.ring[(seq - 1) & (g_log.ring_cap - 1)];
        if (r->seq != seq)
            continue;
        dump_str(fd, "[", 1);
        dump_str(fd, (unsigned)r->level < ZE_LOG_LEVEL_COUNT ? g_level_names[r->level] : "?", 8);
        dump_str(fd, "] ", 2);
        dump_str(fd, r->channel, sizeof r->channel);
        dump_str(fd, ": ", 2);
        dump_str(fd, r->message, sizeof r->message);
        dump_str(fd, "\n", 1);
        n++;
    }
    if (locked)
        pthread_mutex_unlock(&g_log.lock);
    return n;
}
