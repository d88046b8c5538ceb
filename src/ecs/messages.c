/* Messages: the per-world bus.
 *
 * Message types live in the kernel (name + fixed payload size, ids 1 up to
 * ZE_MAX_MESSAGE_TYPES; the registry grows as they come).
 * Each world has one queue for all types: publishing appends a record
 * (global sequence number, type, payload copy) under a mutex, so the queue
 * order *is* the publish order across types (the seed left cross-type order
 * unspecified). The pump swaps the queue with an empty one under the same
 * mutex and delivers the swapped batch without holding it: whatever a
 * subscriber (or another thread) publishes meanwhile lands in the fresh
 * queue and waits for the next pump, so a subscriber that republishes its
 * own type cannot loop forever (the seed's did).
 *
 * Threads: publish from any thread; register, subscribe, unsubscribe and
 * pump on the world's thread. Memory: the world's allocator (thread-safe).
 */
#include <pthread.h>
#include <string.h>

#include "ecs_internal.h"

enum {
    ZE__MESSAGE_SIZE_MAX = 64 * 1024, /* payload bytes per message */
    ZE__MESSAGE_RECORD_ALIGN = 16,    /* payloads are 16-byte aligned */
    ZE__MESSAGE_QUEUE_MIN = 4096,     /* first queue allocation, bytes */
};
/* A world's queue holds at most this many bytes of records between pumps;
 * a publish past it fails with ZE_ERR_FULL (logged once per pump). */
#define ZE__MESSAGE_QUEUE_MAX ((size_t)256 << 20)

typedef struct msg_record_t {
    uint64_t seq;
    uint32_t type;
    uint32_t size;
    /* payload follows, padded to ZE__MESSAGE_RECORD_ALIGN */
} msg_record_t;
_Static_assert(sizeof(msg_record_t) % ZE__MESSAGE_RECORD_ALIGN == 0, "payload alignment");

typedef struct msg_queue_t {
    uint8_t *data; /* records back to back */
    size_t size, cap;
    uint32_t count;
} msg_queue_t;

typedef struct msg_sub_t {
    uint32_t id;
    ze_message_fn fn; /* NULL: unsubscribed during delivery (removed after it) */
    void *user;
} msg_sub_t;

struct ze__messages_t {
    pthread_mutex_t lock; /* guards `pending`, `next_seq`, `full_logged` */
    msg_queue_t pending;  /* published since the last pump began */
    uint64_t next_seq;
    bool full_logged;
    /* World thread only. */
    msg_queue_t delivering; /* the batch of the pump in progress */
    bool in_pump;
    bool tombstones; /* some msg_sub_t has fn == NULL */
    uint32_t next_serial;
    ze_array_t *subs; /* [subs_cap] by type id: msg_sub_t, subscription order */
    uint32_t subs_cap;
};

/* ---------------------------------------------------------- registry */

ze_result ze_message_register(ze_kernel_t *k, const char *name, size_t size, ze_message_type_t *out)
{
    if (!k || !name || !name[0] || !out)
        return ZE_ERR_INVALID_ARG;
    size_t len = strlen(name);
    if (len >= ZE_COMPONENT_NAME_MAX) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                          "message name '%.40s...' is longer than %d characters", name,
                          ZE_COMPONENT_NAME_MAX - 1);
        return ZE_ERR_INVALID_ARG;
    }
    if (size > ZE__MESSAGE_SIZE_MAX) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                          "message '%s': payload of %zu bytes above the limit of %d", name, size,
                          ZE__MESSAGE_SIZE_MAX);
        return ZE_ERR_LIMIT;
    }
    uint64_t key = ze_hash64(name, len, 0);
    const uint32_t *named = ze_hashmap_get(&k->msg_by_name, &key);
    for (uint32_t id = named ? *named : k->message_count + 1; id <= k->message_count; id++) {
        if (strcmp(k->messages[id].name, name) != 0)
            continue;
        if (k->messages[id].size != size) {
            ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_CONFLICT,
                              "message '%s' registered again with a different size (%u, now %zu)",
                              name, k->messages[id].size, size);
            return ZE_ERR_CONFLICT;
        }
        *out = (ze_message_type_t){id};
        return ZE_OK;
    }
    if (ze_kernel_sealed(k)) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_STATE,
                          "cannot register message '%s': the registry is sealed (%s)", name,
                          k->sealed ? "ze_kernel_seal" : "a world runs a parallel wave");
        return ZE_ERR_STATE;
    }
    if (k->message_count >= ZE_MAX_MESSAGE_TYPES) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                          "cannot register message '%s': the kernel already has %d message types, "
                          "the limit",
                          name, ZE_MAX_MESSAGE_TYPES);
        return ZE_ERR_LIMIT;
    }
    uint32_t id = k->message_count + 1;
    if (id >= k->message_cap) {
        uint32_t cap = k->message_cap ? k->message_cap * 2 : 64;
        ze__message_rec_t *t = ze_realloc(k->alloc, k->messages, sizeof(*t) * k->message_cap,
                                          sizeof(*t) * cap, _Alignof(ze__message_rec_t));
        if (!t)
            return ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                     "message '%s': out of memory for the registry", name);
        k->messages = t;
        k->message_cap = cap;
    }
    if (!named && ze_hashmap_put(&k->msg_by_name, &key, &id) != ZE_OK)
        return ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                 "message '%s': out of memory for the registry", name);
    k->message_count = id;
    memcpy(k->messages[id].name, name, len + 1);
    k->messages[id].size = (uint32_t)size;
    *out = (ze_message_type_t){id};
    return ZE_OK;
}

ze_message_type_t ze__message_register_or_invalid(ze_kernel_t *k, const char *name, size_t size)
{
    ze_message_type_t t = {0};
    if (ze_message_register(k, name, size, &t) != ZE_OK)
        return (ze_message_type_t){0};
    return t;
}

/* ------------------------------------------------------------- the bus */

static void bus_free(ze_world_t *w, ze__messages_t *b)
{
    ze_free(w->alloc, b->pending.data, b->pending.cap);
    ze_free(w->alloc, b->delivering.data, b->delivering.cap);
    for (uint32_t t = 0; t < b->subs_cap; t++)
        ze_array_free(&b->subs[t]);
    if (b->subs)
        ze_free(w->alloc, b->subs, sizeof(*b->subs) * b->subs_cap);
    pthread_mutex_destroy(&b->lock);
    ze_free(w->alloc, b, sizeof *b);
}

/* The bus is created on first use, possibly by several pool threads
 * publishing at once: the first to install it wins, the others free theirs.
 * (world.c zeroes w->messages; the field is only ever accessed atomically
 * here, so the cast is to the same object viewed as atomic.) */
static ze__messages_t *bus_get(ze_world_t *w)
{
    _Atomic(ze__messages_t *) *slot = (_Atomic(ze__messages_t *) *)&w->messages;
    ze__messages_t *b = atomic_load_explicit(slot, memory_order_acquire);
    if (b)
        return b;
    b = ze_alloc(w->alloc, sizeof *b, _Alignof(ze__messages_t));
    if (!b) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory creating the message bus");
        return NULL;
    }
    memset(b, 0, sizeof *b);
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        ze_free(w->alloc, b, sizeof *b);
        return NULL;
    }
    ze__messages_t *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(slot, &expected, b, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        bus_free(w, b);
        return expected;
    }
    return b;
}

static ze__messages_t *bus_peek(const ze_world_t *w)
{
    return atomic_load_explicit((_Atomic(ze__messages_t *) *)&w->messages, memory_order_acquire);
}

void ze__messages_fini(ze_world_t *w)
{
    ze__messages_t *b = bus_peek(w);
    if (!b)
        return;
    atomic_store_explicit((_Atomic(ze__messages_t *) *)&w->messages, NULL, memory_order_release);
    bus_free(w, b);
}

static bool valid_type(const ze_world_t *w, ze_message_type_t type)
{
    return type.id != 0 && type.id <= w->kernel->message_count;
}

static size_t record_bytes(uint32_t payload)
{
    return sizeof(msg_record_t) + ZE_ALIGN_UP((size_t)payload, (size_t)ZE__MESSAGE_RECORD_ALIGN);
}

ze_result ze_message_publish(ze_world_t *w, ze_message_type_t type, const void *payload)
{
    if (!w || !valid_type(w, type))
        return ZE_ERR_INVALID_ARG;
    uint32_t size = w->kernel->messages[type.id].size;
    if (size && !payload)
        return ZE_ERR_INVALID_ARG;
    ze__messages_t *b = bus_get(w);
    if (!b)
        return ZE_ERR_OUT_OF_MEMORY;
    size_t need = record_bytes(size);

    pthread_mutex_lock(&b->lock);
    msg_queue_t *q = &b->pending;
    if (q->size + need > q->cap) {
        if (q->size + need > ZE__MESSAGE_QUEUE_MAX) {
            bool log = !b->full_logged;
            b->full_logged = true;
            pthread_mutex_unlock(&b->lock);
            if (log)
                ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_FULL,
                                "message queue full (%zu MiB between pumps); "
                                "'%s' and later messages dropped until the next pump",
                                ZE__MESSAGE_QUEUE_MAX >> 20, w->kernel->messages[type.id].name);
            return ZE_ERR_FULL;
        }
        size_t cap = q->cap ? q->cap : ZE__MESSAGE_QUEUE_MIN;
        while (cap < q->size + need)
            cap *= 2;
        cap = ZE_MIN(cap, ZE__MESSAGE_QUEUE_MAX);
        uint8_t *nd = ze_realloc(w->alloc, q->data, q->cap, cap, ZE__MESSAGE_RECORD_ALIGN);
        if (!nd) {
            pthread_mutex_unlock(&b->lock);
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of memory publishing '%s'",
                            w->kernel->messages[type.id].name);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        q->data = nd;
        q->cap = cap;
    }
    msg_record_t *r = (msg_record_t *)(q->data + q->size);
    r->seq = b->next_seq++;
    r->type = type.id;
    r->size = size;
    if (size)
        memcpy(r + 1, payload, size);
    q->size += need;
    q->count++;
    pthread_mutex_unlock(&b->lock);
    return ZE_OK;
}

ze_subscription_t ze_message_subscribe(ze_world_t *w, ze_message_type_t type, ze_message_fn fn,
                                       void *user)
{
    if (!w || !fn || !valid_type(w, type))
        return (ze_subscription_t){0};
    ze__messages_t *b = bus_get(w);
    if (!b)
        return (ze_subscription_t){0};
    /* Serials wrap after 4 Gi subscriptions; an id is unique among the
     * subscriptions alive unless one outlived 4 Gi later ones. */
    if (++b->next_serial == 0)
        b->next_serial = 1;
    if (type.id >= b->subs_cap) { /* the table grows with the types used */
        uint32_t cap = ZE_MAX(type.id + 1, b->subs_cap * 2);
        ze_array_t *t = ze_realloc(w->alloc, b->subs, sizeof(*t) * b->subs_cap, sizeof(*t) * cap,
                                   _Alignof(ze_array_t));
        if (!t) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                            "out of memory subscribing to '%s'", w->kernel->messages[type.id].name);
            return (ze_subscription_t){0};
        }
        for (uint32_t i = b->subs_cap; i < cap; i++)
            ZE_ARRAY_INIT(&t[i], w->alloc, msg_sub_t);
        b->subs = t;
        b->subs_cap = cap;
    }
    msg_sub_t s = {.id = b->next_serial, .fn = fn, .user = user};
    if (ze_array_push(&b->subs[type.id], &s) != ZE_OK) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of memory subscribing to '%s'",
                        w->kernel->messages[type.id].name);
        return (ze_subscription_t){0};
    }
    return (ze_subscription_t){s.id};
}

ze_result ze_message_unsubscribe(ze_world_t *w, ze_subscription_t s)
{
    ze__messages_t *b = w ? bus_peek(w) : NULL;
    if (!b || !s.id)
        return ZE_ERR_NOT_FOUND;
    for (uint32_t t = 1; t < b->subs_cap; t++) {
        ze_array_t *subs = &b->subs[t];
        for (uint32_t i = 0; i < subs->count; i++) {
            msg_sub_t *sub = ze_array_at(subs, i);
            if (sub->id != s.id || !sub->fn)
                continue;
            if (b->in_pump) {
                /* The pump walks this array by index: leave a tombstone, so
                 * no later subscriber is skipped, and compact after delivery. */
                sub->fn = NULL;
                b->tombstones = true;
            } else {
                ze_array_remove_ordered(subs, i);
            }
            return ZE_OK;
        }
    }
    return ZE_ERR_NOT_FOUND;
}

static void compact_subscriptions(ze__messages_t *b)
{
    for (uint32_t t = 1; t < b->subs_cap; t++) {
        ze_array_t *subs = &b->subs[t];
        uint32_t n = 0;
        for (uint32_t i = 0; i < subs->count; i++) {
            msg_sub_t *sub = ze_array_at(subs, i);
            if (sub->fn)
                ZE_ARRAY_AT(subs, msg_sub_t, n++) = *sub;
        }
        subs->count = n;
    }
    b->tombstones = false;
}

uint32_t ze_message_pump(ze_world_t *w)
{
    ze__messages_t *b = w ? bus_peek(w) : NULL;
    if (!b)
        return 0;
    if (b->in_pump) {
        ze_world_report(w, ZE_LOG_WARN, ZE_OK, "message pump called from a subscriber (ignored)");
        return 0;
    }
    /* Take the batch: `delivering` is empty (kept allocated), so publishers
     * get its buffer and the pump walks theirs. */
    pthread_mutex_lock(&b->lock);
    msg_queue_t batch = b->pending;
    b->pending = b->delivering;
    b->full_logged = false;
    pthread_mutex_unlock(&b->lock);
    b->delivering = batch;

    b->in_pump = true;
    size_t at = 0;
    for (uint32_t m = 0; m < batch.count; m++) {
        const msg_record_t *r = (const msg_record_t *)(batch.data + at);
        at += record_bytes(r->size);
        ze_message_type_t type = {r->type};
        const void *payload = r->size ? (const void *)(r + 1) : NULL;
        if (r->type >= b->subs_cap)
            continue; /* nobody subscribed to the type */
        /* Subscribers added by a callback start with the next message; the
         * array (and the table) may grow meanwhile: re-read them each time. */
        uint32_t n = b->subs[r->type].count;
        for (uint32_t i = 0; i < n; i++) {
            msg_sub_t sub = ZE_ARRAY_AT(&b->subs[r->type], msg_sub_t, i);
            if (sub.fn)
                sub.fn(w, type, payload, sub.user);
        }
    }
    b->in_pump = false;
    b->delivering.size = 0;
    b->delivering.count = 0;
    if (b->tombstones)
        compact_subscriptions(b);
    return batch.count;
}
