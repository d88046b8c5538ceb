/* Worlds: the entity table (generations, masks, free list), entity create
 * and destroy, the structural gate (defer during iteration, refuse during a
 * parallel wave) and the world hash. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ecs_internal.h"

#define NO_SLOT UINT32_MAX

ze_result ze__kernel_add_world(ze_kernel_t *k, ze_world_t *w);
void ze__kernel_forget_world(ze_kernel_t *k, ze_world_t *w);

ze_world_t *ze_world_create(ze_kernel_t *k, const ze_world_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    ze_world_desc_t d = desc ? *desc : (ze_world_desc_t){0};
    if (!k)
        return NULL;
    uint32_t cap = d.capacity ? d.capacity : ZE_DEFAULT_WORLD_CAPACITY;
    if (cap > ZE_MAX_WORLD_CAPACITY) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_LIMIT, "world capacity %u above the limit of %u",
                          cap, (unsigned)ZE_MAX_WORLD_CAPACITY);
        return NULL;
    }
    ze_world_t *w = ze_alloc(k->alloc, sizeof *w, _Alignof(ze_world_t));
    if (!w)
        return NULL;
    memset(w, 0, sizeof *w);
    w->kernel = k;
    w->alloc = k->alloc;
    w->capacity = cap;
    w->free_head = NO_SLOT;
    w->auto_groups = !d.no_auto_packs;
    w->actor_capacity = d.actor_capacity ? d.actor_capacity : ZE_DEFAULT_ACTOR_CAPACITY;
    snprintf(w->name, sizeof w->name, "%s", d.name ? d.name : "world");
    atomic_init(&w->iter_depth, 0);
    atomic_init(&w->in_parallel, false);
    atomic_init(&w->jobs_open, false);
    atomic_init(&w->version, 1); /* 0 is "before everything" */
    w->rebased_at = 1;
    /* One word of entity mask per slot until the world uses its 65th type. */
    w->mask_words = 1;
    w->special = ze_alloc(w->alloc, sizeof(uint64_t), _Alignof(uint64_t));
    w->pend_union = ze_alloc(w->alloc, sizeof(uint64_t), _Alignof(uint64_t));
    w->tmp_bits = ze_alloc(w->alloc, sizeof(uint64_t), _Alignof(uint64_t));
    if (!w->special || !w->pend_union || !w->tmp_bits) {
        ze_world_destroy(w);
        return NULL;
    }
    *w->special = *w->pend_union = *w->tmp_bits = 0;
    ze_hashmap_init(&w->query_map, w->alloc, sizeof(ze_query_desc_t), sizeof(uint32_t));
    ze__scope_init(&w->scope, w->alloc);
    w->id = k->next_world_id++;
    if (d.tag_count) {
        w->tags = ze_alloc(w->alloc, sizeof(char *) * d.tag_count, 16);
        if (!w->tags) {
            ze_world_destroy(w);
            return NULL;
        }
        memset(w->tags, 0, sizeof(char *) * d.tag_count);
        w->tag_count = d.tag_count;
        for (uint32_t i = 0; i < d.tag_count; i++) {
            const char *t = d.tags[i] ? d.tags[i] : "";
            size_t n = strlen(t) + 1;
            w->tags[i] = ze_alloc(w->alloc, n, 1);
            if (!w->tags[i]) {
                ze_world_destroy(w);
                return NULL;
            }
            memcpy(w->tags[i], t, n);
        }
    }
    ze_mem_t *mm = k->mem;
    if (ze_mem_region_reserve(mm, ZE_MEM_OWNER_ECS, (size_t)cap * sizeof(uint32_t),
                              &w->gen_region) != ZE_OK ||
        ze_mem_region_reserve(mm, ZE_MEM_OWNER_ECS, (size_t)cap * sizeof(uint64_t),
                              &w->mask_region) != ZE_OK) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                          "world '%s': cannot reserve the entity table for %u entities", w->name,
                          cap);
        ze_world_destroy(w);
        return NULL;
    }
    w->gen = (uint32_t *)w->gen_region.base;
    w->mask = (uint64_t *)w->mask_region.base;
    w->deferred = ze_commands_create(w);
    if (!w->deferred || ze__kernel_add_world(k, w) != ZE_OK) {
        ze_world_destroy(w);
        return NULL;
    }
    return w;
}

void ze_world_destroy(ze_world_t *w)
{
    if (!w)
        return;
    ZE__ECS_THREAD_CHECK();
    ze__systems_fini(w); /* shutdown callbacks see the world whole */
    ze__worker_fini(w);
    ze__actors_fini(w);
    ze__scope_fini(&w->scope); /* services: reverse order, after who uses them */
    ze__bindings_fini(w);
    ze__messages_fini(w);
    ze__hooks_fini(w);
    /* Components with destructors get them run. */
    for (uint32_t b = 0; b < w->pool_count; b++) {
        ze__pool_t *p = w->pool_list[b];
        if (p->hooks.dtor) {
            for (uint32_t d = 0; d < p->count; d++)
                p->hooks.dtor(ze__pool_data(p, d), 1, p->hooks.user);
        }
        w->pools[p->id] = NULL;
        ze__pool_free(w, p);
    }
    ze_free(w->alloc, w->pools, sizeof(*w->pools) * w->pool_cap);
    ze_free(w->alloc, w->pool_list, sizeof(*w->pool_list) * w->pool_list_cap);
    ze_free(w->alloc, w->special, sizeof(uint64_t) * w->mask_words);
    ze_free(w->alloc, w->pend_union, sizeof(uint64_t) * w->mask_words);
    ze_free(w->alloc, w->tmp_bits, sizeof(uint64_t) * w->mask_words);
    ze__queries_free(w);
    ze__hierarchy_fini(w);
    ze_hashmap_free(&w->query_map);
    for (uint32_t i = 0; i < w->tag_count; i++)
        if (w->tags[i])
            ze_free(w->alloc, w->tags[i], strlen(w->tags[i]) + 1);
    if (w->tags)
        ze_free(w->alloc, w->tags, sizeof(char *) * w->tag_count);
    if (w->deferred)
        ze_commands_destroy(w->deferred);
    ze_mem_region_release(&w->gen_region);
    ze_mem_region_release(&w->mask_region);
    if (w->pend_region.base)
        ze_mem_region_release(&w->pend_region);
    ze__kernel_forget_world(w->kernel, w);
    ze_free(w->alloc, w, sizeof *w);
}

ze_kernel_t *ze_world_kernel(const ze_world_t *w)
{
    return w->kernel;
}
const char *ze_world_name(const ze_world_t *w)
{
    return w->name;
}
uint32_t ze_world_entity_count(const ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    return w->alive;
}
uint32_t ze_world_capacity(const ze_world_t *w)
{
    return w->capacity;
}
uint32_t ze_world_slot_count(const ze_world_t *w)
{
    return w->fresh;
}
ze_commands_t *ze_world_commands(ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    return w->deferred;
}

/* ---------------------------------------------------------------- gate */

void ze__world_iter_begin(ze_world_t *w)
{
    atomic_fetch_add_explicit(&w->iter_depth, 1, memory_order_acq_rel);
}

void ze__world_iter_end(ze_world_t *w)
{
    int left = atomic_fetch_sub_explicit(&w->iter_depth, 1, memory_order_acq_rel) - 1;
    /* The last iteration on the owning thread applies what was deferred.
     * Inside a parallel wave the WorldTick flushes after the wave. */
    if (left == 0 && !atomic_load_explicit(&w->in_parallel, memory_order_acquire) &&
        !w->flushing_deferred && ze_commands_count(w->deferred)) {
        w->flushing_deferred = true;
        ze_commands_flush(w->deferred);
        w->flushing_deferred = false;
    }
}

void ze__world_parallel_begin(ze_world_t *w)
{
    ze__world_settle(w);    /* workers' iterations must find no ghosts */
    ze__queries_refresh(w); /* nor compile a query: the world's bits are fixed now */
    atomic_store_explicit(&w->in_parallel, true, memory_order_release);
}

void ze__world_parallel_end(ze_world_t *w)
{
    atomic_store_explicit(&w->in_parallel, false, memory_order_release);
}

/* ------------------------------------------------------------ entities */

static bool ensure_committed(ze_world_t *w, uint32_t slots)
{
    return ze_mem_region_commit(&w->gen_region, (size_t)slots * sizeof(uint32_t)) == ZE_OK &&
           ze_mem_region_commit(&w->mask_region,
                                (size_t)slots * w->mask_words * sizeof(uint64_t)) == ZE_OK;
}

ze_entity_t ze_entity_create(ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    if (ze__write_denied(w, true)) {
        ze__write_refused(w, "ze_entity_create");
        return ZE_ENTITY_NULL;
    }
    /* A new entity has no components, so making one never disturbs an open
     * iteration; only parallel waves are refused. */
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire)) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "entity_create inside a parallel wave (use the "
                        "system's command buffer)");
        return ZE_ENTITY_NULL;
    }
    uint32_t idx;
    if (w->free_head != NO_SLOT) {
        /* The slot may still have ghost entries in the pools. */
        ze__world_settle(w);
        idx = w->free_head;
        w->free_head = ze__free_next(w, idx);
        w->gen[idx] &= ~ZE__GEN_DEAD;
    } else {
        if (w->fresh == w->capacity) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                            "all %u entity slots are in use or retired", w->capacity);
            return ZE_ENTITY_NULL;
        }
        idx = w->fresh;
        if ((size_t)(idx + 1) * w->mask_words * sizeof(uint64_t) > w->mask_region.committed &&
            !ensure_committed(w, idx + 1)) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                            "out of ECS memory for the entity table");
            return ZE_ENTITY_NULL;
        }
        w->fresh++;
        w->gen[idx] = 1;
    }
    ze__row_zero(w, ze__row(w, idx));
    w->alive++;
    return (ze_entity_t){(uint64_t)w->gen[idx] << 32 | idx};
}

/* The slot's components are gone: the generation moves on and the slot goes
 * on the free list, or is retired when the next generation would wrap to one
 * a stale handle may hold. */
static inline void slot_free(ze_world_t *w, uint32_t idx)
{
    uint32_t g = w->gen[idx];
    w->alive--;
    if (g >= ZE__GEN_MAX) {
        w->gen[idx] = g | ZE__GEN_DEAD;
        ze__row_zero(w, ze__row(w, idx));
        w->retired++;
        return;
    }
    w->gen[idx] = (g + 1) | ZE__GEN_DEAD;
    ze__free_link(w, idx, w->free_head);
    w->free_head = idx;
}

/* Room for one more deferred destroy: the list is a region reserved on
 * first use for the world's capacity and committed in steps. */
__attribute__((noinline)) static bool pend_grow(ze_world_t *w)
{
    if (w->pend_stuck)
        return false; /* one failed attempt per settle, not one per destroy */
    w->pend_stuck = true;
    if (!w->pend_region.base) {
        if (ze_mem_region_reserve(w->kernel->mem, ZE_MEM_OWNER_ECS,
                                  (size_t)w->capacity * sizeof(uint32_t), &w->pend_region) != ZE_OK)
            return false;
        w->pend = (uint32_t *)w->pend_region.base;
    }
    uint32_t cap = ZE_MIN(w->capacity, ZE_MAX(w->pend_cap * 2, 16384u));
    if (cap <= w->pend_cap ||
        ze_mem_region_commit(&w->pend_region, (size_t)cap * sizeof(uint32_t)) != ZE_OK)
        return false;
    w->pend_stuck = false;
    w->pend_cap = (uint32_t)ZE_MIN(w->pend_region.committed / sizeof(uint32_t), w->capacity);
    return true;
}

/* Slot `idx` (alive) dies: its components go (dtors and binder notes now,
 * or as ghosts settled later), then the slot itself. Inlined: destroys are
 * hot (a call and a frame more cost a quarter of a plain one). */
__attribute__((always_inline)) static inline void destroy_slot(ze_world_t *w, uint32_t idx)
{
    const uint64_t *row = ze__row(w, idx);
    if (ze__row_meets(w, row, w->special)) {
        /* dtors and binder notes run now, in type order */
        ze__entity_remove_all(w, idx);
    } else if (ze__row_empty(w, row)) {
    } else if (w->pend_count < w->pend_cap || pend_grow(w)) {
        /* Plain data: the slot dies now (generation, free list), its
         * entries stay in the pools as ghosts until ze__world_settle
         * removes them in bulk. Nothing reads a ghost: lookups check the
         * generation first, walks of the pools settle first. */
        w->pend[w->pend_count++] = idx;
        ze__row_or(w, w->pend_union, row);
    } else {
        ze__entity_remove_all(w, idx); /* no room to defer */
    }
    slot_free(w, idx);
}

void ze__entity_destroy_flat(ze_world_t *w, ze_entity_t e)
{
    if (ze__alive(w, e))
        destroy_slot(w, ze_entity_index(e));
}

/* A destroy in a world with Parent components: find the children first
 * (hierarchy.c), so that no Parent link is left naming the dead entity. Out
 * of line: the plain destroy stays a leaf function. */
__attribute__((noinline)) static ze_result destroy_with_children(ze_world_t *w, ze_entity_t e,
                                                                 uint32_t flags)
{
    bool detach = (flags & ZE_DESTROY_DETACH_CHILDREN) != 0;
    ze_array_t found;
    ZE_ARRAY_INIT(&found, w->alloc, ze_entity_t);
    if (!ze__hierarchy_collect(w, e, !detach, &found)) {
        ze_array_free(&found);
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory finding the children of entity %u:%u; "
                        "nothing destroyed",
                        ze_entity_index(e), ze_entity_generation(e));
        return ZE_ERR_OUT_OF_MEMORY;
    }
    const ze_entity_t *list = found.data;
    if (detach)
        ze__hierarchy_detach(w, e, list, found.count);
    destroy_slot(w, ze_entity_index(e));
    /* Parents before children; a dtor run meanwhile may have destroyed
     * some already. */
    for (uint32_t i = 0; !detach && i < found.count; i++)
        ze__entity_destroy_flat(w, list[i]);
    ze_array_free(&found);
    return ZE_OK;
}

ze_result ze_world_clear(ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                               "ze_world_clear during an iteration or a parallel wave");
    /* Every entity goes: no child search per destroy (what a subtree
       destroy would find is destroyed anyway). */
    uint32_t left = ze_world_entity_count(w);
    for (uint32_t idx = 0; left && idx < ze_world_capacity(w); idx++) {
        ze_entity_t e = ze_entity_from_index(w, idx);
        if (!ze_entity_is_null(e)) {
            ze__entity_destroy_flat(w, e);
            left--;
        }
    }
    return ZE_OK;
}

ze_result ze_entity_destroy(ze_world_t *w, ze_entity_t e)
{
    return ze_entity_destroy_ex(w, e, ZE_DESTROY_SUBTREE);
}

ze_result ze_entity_destroy_ex(ze_world_t *w, ze_entity_t e, uint32_t flags)
{
    ZE__ECS_THREAD_CHECK();
    if (flags & ~(uint32_t)ZE_DESTROY_DETACH_CHILDREN)
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e))
        return ZE_ERR_NOT_FOUND;
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_entity_destroy");
    switch (ze__world_gate(w)) {
    case ZE__GATE_REFUSE:
        return ZE_ERR_STATE;
    case ZE__GATE_DEFER:
        return ze_cmd_destroy_ex(w->deferred, e, flags);
    case ZE__GATE_NOW:
        break;
    }
    /* Without any Parent component nobody can be a child: no search. */
    const ze__pool_t *links = ze__pool_of(w, ZE_COMPONENT_ID_PARENT);
    if (links && links->count)
        return destroy_with_children(w, e, flags);
    destroy_slot(w, ze_entity_index(e));
    return ZE_OK;
}

bool ze_entity_alive(const ze_world_t *w, ze_entity_t e)
{
    ZE__ECS_THREAD_CHECK();
    return ze__alive(w, e);
}

ze_entity_t ze_entity_from_index(const ze_world_t *w, uint32_t index)
{
    ZE__ECS_THREAD_CHECK();
    if (index >= w->fresh || (w->gen[index] & ZE__GEN_DEAD))
        return ZE_ENTITY_NULL;
    return (ze_entity_t){(uint64_t)w->gen[index] << 32 | index};
}

uint32_t ze_entity_components(const ze_world_t *w, ze_entity_t e, ze_component_t *out, uint32_t max)
{
    ZE__ECS_THREAD_CHECK();
    return ze__alive(w, e) ? ze__entity_components(w, ze_entity_index(e), out, max) : 0;
}

ze_mask_t ze_entity_mask(const ze_world_t *w, ze_entity_t e)
{
    ZE__ECS_THREAD_CHECK();
    ze_component_t ids[ZE_MASK_MAX + 1];
    uint32_t n = ze_entity_components(w, e, ids, ZE_MASK_MAX + 1);
    return ze_mask_make(ids, ZE_MIN(n, (uint32_t)ZE_MASK_MAX + 1)); /* overflows past the max */
}

/* -------------------------------------------------------------- hashing */

static uint64_t hash_component(const ze_component_info_t *info, const void *data)
{
    if (!info->size)
        return 0x7a9;
    if (!info->field_count) /* plain data: its bytes */
        return ze_hash64(data, info->size, 0);
    /* Reflected: hash the fields only, so padding and derived members
     * (never saved) do not make equal worlds differ. */
    uint64_t h = 0;
    static const uint32_t type_size[ZE_FIELD_TYPE_COUNT] = {
        [ZE_FIELD_BOOL] = 1,  [ZE_FIELD_U8] = 1,    [ZE_FIELD_I32] = 4,    [ZE_FIELD_U32] = 4,
        [ZE_FIELD_I64] = 8,   [ZE_FIELD_U64] = 8,   [ZE_FIELD_F32] = 4,    [ZE_FIELD_F64] = 8,
        [ZE_FIELD_VEC2] = 8,  [ZE_FIELD_VEC3] = 12, [ZE_FIELD_VEC4] = 16,  [ZE_FIELD_QUAT] = 16,
        [ZE_FIELD_MAT4] = 64, [ZE_FIELD_UUID] = 16, [ZE_FIELD_ENTITY] = 8, [ZE_FIELD_CHARS] = 1,
    };
    for (uint32_t f = 0; f < info->field_count; f++) {
        const ze_field_desc_t *fd = &info->fields[f];
        uint32_t n = fd->count ? fd->count : 1;
        uint32_t ts = (unsigned)fd->type < ZE_FIELD_TYPE_COUNT ? type_size[fd->type] : 0;
        const uint8_t *p = (const uint8_t *)data + fd->offset;
        size_t len = (size_t)ts * n;
        if (fd->type == ZE_FIELD_CHARS)
            len = strnlen((const char *)p, n);
        h = ze_hash64(p, len, h ^ f);
    }
    return h;
}

/* A component with a formatter hashes what the formatter writes (what a
 * snapshot keeps): its raw bytes may hold pointers (hooks) that differ
 * between equal worlds. `buf` is reused across calls. */
static uint64_t hash_formatted(const ze_component_formatter_t *f, const void *data,
                               ze_byte_writer_t *buf)
{
    buf->size = 0;
    buf->failed = false;
    ze_result r = f->write(buf, data, f->user);
    if (r == ZE_OK && buf->failed)
        r = ZE_ERR_OUT_OF_MEMORY;
    if (r != ZE_OK) /* still deterministic: equal worlds fail alike */
        return ze_hash_u64(0xf0a7u + (uint64_t)(int64_t)r);
    return ze_hash64(buf->data, buf->size, 0x5f0a7);
}

uint64_t ze_world_hash(const ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    ze_byte_writer_t buf = {.alloc = w->alloc};
    uint64_t total = ze_hash_u64(w->alive + 0x1234567ull);
    for (uint32_t idx = 0; idx < w->fresh; idx++) {
        if (w->gen[idx] & ZE__GEN_DEAD)
            continue;
        uint64_t h = ze_hash_u64(((uint64_t)w->gen[idx] << 32 | idx) + 0x9e3779b97f4a7c15ull);
        /* Components combine commutatively: the world's bits may be in any
         * order (each world numbers the types it uses as they come). */
        uint64_t acc = 0;
        const uint64_t *row = ze__row(w, idx);
        ZE__FOR_BITS(w, row, bit)
        {
            const ze__pool_t *p = w->pool_list[bit];
            uint32_t c = p->id;
            const ze_component_info_t *info = ze__info(w->kernel, c);
            if (info->flags & ZE_COMPONENT_TRANSIENT)
                continue;
            const void *data = info->size ? ze__pool_data(p, ze__sparse_get(p, idx) - 1) : NULL;
            const ze_component_formatter_t *f = &ze__rec(w->kernel, c)->formatter;
            uint64_t ch =
                info->size && f->write ? hash_formatted(f, data, &buf) : hash_component(info, data);
            acc += ze_hash_u64(ch + c);
        }
        h = ze_hash_u64(h ^ acc);
        total += ze_hash_u64(h); /* commutative: the order of entities does not matter */
    }
    ze_byte_writer_free(&buf);
    return total;
}

/* ------------------------------------------------------------ framework */

uint32_t ze_world_id(const ze_world_t *w)
{
    return w->id;
}

bool ze_world_has_tag(const ze_world_t *w, const char *tag)
{
    for (uint32_t i = 0; tag && i < w->tag_count; i++)
        if (strcmp(w->tags[i], tag) == 0)
            return true;
    return false;
}

const ze_services_t *ze_world_services(const ze_world_t *w)
{
    return &w->kernel->services;
}

uint64_t ze_world_now_ns(const ze_world_t *w)
{
    const ze_services_t *s = &w->kernel->services;
    return s->clock ? s->clock(s->clock_user) : ze_time_now_ns();
}

ze_result ze__kernel_report(const ze_kernel_t *k, ze_log_level level, ze_result code,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ze_diagv(k ? &k->services.diag : NULL, level, code, "ecs", "", fmt, ap);
    va_end(ap);
    return code;
}

ze_result ze_world_report(const ze_world_t *w, ze_log_level level, ze_result code, const char *fmt,
                          ...)
{
    va_list ap;
    va_start(ap, fmt);
    char subject[80] = "";
    if (w)
        snprintf(subject, sizeof subject, "world '%.64s'", w->name);
    ze_diagv(w ? &w->kernel->services.diag : NULL, level, code, "ecs", subject, fmt, ap);
    va_end(ap);
    return code;
}

bool ze_world_started(const ze_world_t *w)
{
    return w->started;
}
