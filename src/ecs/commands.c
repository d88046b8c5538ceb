/* WorldCommands: deferred structural changes recorded into a linear buffer
 * and applied, in recording order, through the public API.
 *
 * Layout. The buffer is one growable block (64-byte aligned) of records: a
 * 16-byte header {kind, pad, component, value size, entity}, `pad` bytes, then
 * the value rounded up to 16 bytes. Records start on 16-byte boundaries;
 * `pad` puts a value whose alignment is above 16 (at most CMD_ALIGN) on its
 * boundary, and merge keeps offsets modulo CMD_ALIGN (it pads the destination
 * with a NOP record first), so values never need re-aligning. Values are
 * relocated bytewise when the buffer grows or merges, as realloc would.
 *
 * Pending handles. ze_cmd_spawn returns {generation = ZE__GEN_DEAD, index =
 * spawn ordinal in this buffer}. Real handles never carry the top bit, and a
 * dead slot's word is ZE__GEN_DEAD | generation with generation >= 1, so a
 * pending handle is never alive and never equal to a real one. Flush resolves
 * ordinals to the entities it creates; merge renumbers the source's ordinals
 * after the destination's. Pending handles are resolved as command targets
 * only, not inside component values.
 *
 * Values of components with hooks: set records a copy made by the copy hook
 * (into zeroed memory, as storage does) so the caller may drop its value at
 * once; flush sets the component
 * from it (the copy hook runs again, into storage) and destroys the buffered
 * copy (dtor), as does clear for commands never applied.
 *
 * Skips, not failures: a command whose target is not alive when it applies
 * (a dead id, an entity destroyed earlier in the buffer, a spawn that
 * failed), a second destroy, removing an absent component. They are counted
 * in ze_commands_last_skipped.
 *
 * Re-entrancy. Applying a command runs user code (spawn callbacks, hooks),
 * which may record into the buffer being flushed (for the world's own buffer
 * this is how structural calls made while a callback iterates a query come
 * back). Flush walks by offset up to the current end, so those commands are
 * applied in the same flush; a nested flush of a buffer already flushing
 * returns at once (the outer loop applies what was added); a block replaced
 * by growth during a flush is freed only when the flush ends.
 *
 * Threads: a buffer belongs to one thread at a time (WorldTick gives each
 * system of a parallel wave its own); recording never touches the world.
 * Flush runs on the world's thread, never inside a parallel wave.
 */
#include <string.h>

#include "ecs/ecs_internal.h"

enum {
    CMD_NOP = 0, /* padding (merge) */
    CMD_SPAWN,
    CMD_DESTROY,
    CMD_ADD,
    CMD_SET,
    CMD_REMOVE,
};

enum {
    CMD_ALIGN = 64,     /* block alignment and the largest value alignment */
    CMD_MIN_CAP = 4096, /* first block */
    CMD_HDR = 16,
};

typedef struct cmd_hdr_t {
    uint8_t kind;
    uint8_t pad;   /* bytes between the header and the value */
    uint16_t comp; /* component id (< ZE_MAX_COMPONENTS); a destroy's ze_destroy_flags */
    uint32_t size; /* value bytes (before rounding) */
    uint64_t entity;
} cmd_hdr_t;
_Static_assert(sizeof(cmd_hdr_t) == CMD_HDR, "command header is 16 bytes");

typedef struct cmd_spawn_t {
    ze_spawn_fn fn;
    void *user;
} cmd_spawn_t;

/* A block replaced while flushing, freed when the flush ends. Written into
 * the first bytes of the old block itself. */
typedef struct cmd_retired_t {
    struct cmd_retired_t *next;
    size_t size;
} cmd_retired_t;

struct ze_commands_t {
    ze_world_t *world;
    ze_allocator_t alloc;
    uint8_t *data;
    size_t size, cap;
    uint32_t count;       /* commands recorded (NOPs excluded) */
    uint32_t spawn_count; /* spawns recorded: the next pending ordinal */
    uint32_t last_skipped;
    bool flushing;
    /* Flush state: ordinal -> created entity (NULL when the spawn failed),
     * valid below resolved_count. Spawn records come in ordinal order. */
    ze_entity_t *resolved;
    uint32_t resolved_cap;
    uint32_t resolved_count;
    cmd_retired_t *retired;
    ze_array_t rejections; /* ze_command_rejection_t of the last flush */
};

/* Write-permission predicates and value validators of a world. */
typedef struct hook_fn_t {
    void *fn;
    void *user;
    uint32_t comp; /* validators: the component; permissions: unused */
} hook_fn_t;
struct ze__hooks_t {
    ze_array_t permissions; /* hook_fn_t */
    ze_array_t validators;  /* hook_fn_t */
};

static inline size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static inline bool is_pending(ze_entity_t e)
{
    return (ze_entity_generation(e) & ZE__GEN_DEAD) != 0;
}

/* The registry entry of a component (NULL if unregistered). Inline rather
 * than ze_component_info: it is on the per-command path. */
static inline const ze_component_info_t *info_of(const ze_world_t *w, uint32_t id)
{
    const ze_kernel_t *k = w->kernel;
    return id < k->component_count ? ze__info(k, id) : NULL;
}

static inline ze_entity_t pending_handle(uint32_t ordinal)
{
    return (ze_entity_t){((uint64_t)ZE__GEN_DEAD << 32) | ordinal};
}

/* ----------------------------------------------------------- the buffer */

static void retire(ze_commands_t *c, uint8_t *block, size_t size)
{
    cmd_retired_t *r = (cmd_retired_t *)(void *)block;
    r->next = c->retired;
    r->size = size;
    c->retired = r;
}

static void free_retired(ze_commands_t *c)
{
    while (c->retired) {
        cmd_retired_t *r = c->retired;
        c->retired = r->next;
        ze_free(c->alloc, r, r->size);
    }
}

static bool reserve(ze_commands_t *c, size_t extra)
{
    size_t need;
    if (!ze_size_add(c->size, extra, &need))
        return false;
    if (need <= c->cap)
        return true;
    size_t cap = c->cap ? c->cap : CMD_MIN_CAP;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    /* alloc + copy + free rather than ze_realloc: the heap's realloc reads
     * the block header without its lock, which races (formally) with a
     * neighbour block being freed by another thread, and staging buffers
     * grow on pool threads. */
    uint8_t *data = ze_alloc(c->alloc, cap, CMD_ALIGN);
    if (!data)
        return false;
    if (c->data) {
        memcpy(data, c->data, c->size);
        if (c->flushing) /* the flush may hold a pointer into the old block */
            retire(c, c->data, c->cap);
        else
            ze_free(c->alloc, c->data, c->cap);
    }
    c->data = data;
    c->cap = cap;
    return true;
}

/* Appends a record and returns its value area (`size` bytes aligned to
 * `align`), or NULL when memory ran out (logged). */
static void *push(ze_commands_t *c, uint8_t kind, uint32_t comp, ze_entity_t e, size_t size,
                  size_t align)
{
    size_t pad = 0;
    if (align > 16) {
        size_t value_at = c->size + CMD_HDR;
        pad = ZE_ALIGN_UP(value_at, align) - value_at;
    }
    size_t total = CMD_HDR + pad + round16(size);
    if (size > UINT32_MAX || !reserve(c, total)) {
        ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "commands: out of memory recording a %zu-byte value", size);
        return NULL;
    }
    cmd_hdr_t *h = (cmd_hdr_t *)(void *)(c->data + c->size);
    h->kind = kind;
    h->pad = (uint8_t)pad;
    h->comp = (uint16_t)comp;
    h->size = (uint32_t)size;
    h->entity = e.id;
    uint8_t *value = c->data + c->size + CMD_HDR + pad;
    c->size += total;
    if (kind != CMD_NOP)
        c->count++;
    return value;
}

static inline size_t record_size(const cmd_hdr_t *h)
{
    return CMD_HDR + h->pad + round16(h->size);
}

static inline void *record_value(cmd_hdr_t *h)
{
    return (uint8_t *)h + CMD_HDR + h->pad;
}

/* Destroys the buffered copy of a SET value (a no-op without a dtor). */
static void drop_value(ze_commands_t *c, cmd_hdr_t *h)
{
    if (h->kind != CMD_SET)
        return;
    const ze_component_info_t *info = info_of(c->world, h->comp);
    if (info && info->hooks.dtor)
        info->hooks.dtor(record_value(h), 1, info->hooks.user);
}

static void reset(ze_commands_t *c)
{
    c->size = 0;
    c->count = 0;
    c->spawn_count = 0;
}

/* ------------------------------------------------------------ lifecycle */

ze_commands_t *ze_commands_create(ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, NULL);
    ze_commands_t *c = ZE_NEW(w->alloc, ze_commands_t);
    if (!c) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "commands: out of memory");
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->world = w;
    c->alloc = w->alloc;
    ZE_ARRAY_INIT(&c->rejections, w->alloc, ze_command_rejection_t);
    return c;
}

void ze_commands_clear(ze_commands_t *c)
{
    ZE__ECS_THREAD_CHECK();
    if (!c)
        return;
    /* Called by user code while this buffer flushes: the flush clears it when
     * done; clearing now would destroy values it already applied. */
    ZE_CHECK(!c->flushing, );
    for (size_t at = 0; at < c->size;) {
        cmd_hdr_t *h = (cmd_hdr_t *)(void *)(c->data + at);
        drop_value(c, h);
        at += record_size(h);
    }
    reset(c);
}

void ze_commands_destroy(ze_commands_t *c)
{
    ZE__ECS_THREAD_CHECK();
    if (!c)
        return;
    ZE_VERIFY_MSG(!c->flushing, "ze_commands_destroy on a buffer that is being flushed");
    ze_commands_clear(c);
    ze_free(c->alloc, c->data, c->cap);
    ze_free(c->alloc, c->resolved, (size_t)c->resolved_cap * sizeof(ze_entity_t));
    ze_array_free(&c->rejections);
    ze_free(c->alloc, c, sizeof *c);
}

uint32_t ze_commands_count(const ze_commands_t *c)
{
    return c ? c->count : 0;
}

uint32_t ze_commands_last_skipped(const ze_commands_t *c)
{
    return c ? c->last_skipped : 0;
}

/* ------------------------------------------------------------ recording */

/* Null is refused; a pending handle must come from this buffer (an ordinal
 * it has handed out); any other handle is accepted, alive or not (checked
 * when the command applies). */
static ze_result check_target(const ze_commands_t *c, ze_entity_t e)
{
    if (ze_entity_is_null(e))
        return ZE_ERR_INVALID_ARG;
    if (is_pending(e) &&
        (ze_entity_generation(e) != ZE__GEN_DEAD || ze_entity_index(e) >= c->spawn_count))
        return ZE_ERR_INVALID_ARG;
    return ZE_OK;
}

static const ze_component_info_t *check_component(const ze_commands_t *c, ze_component_t comp)
{
    const ze_component_info_t *info = info_of(c->world, comp.id);
    if (!info) {
        ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "commands: unknown component id %u", comp.id);
        return NULL;
    }
    return info;
}

ze_entity_t ze_cmd_spawn(ze_commands_t *c, ze_spawn_fn fn, void *user)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ENTITY_NULL);
    if (c->spawn_count == UINT32_MAX) {
        ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                        "commands: too many spawns in one buffer");
        return ZE_ENTITY_NULL;
    }
    ze_entity_t pending = pending_handle(c->spawn_count);
    cmd_spawn_t *s = push(c, CMD_SPAWN, 0, pending, sizeof(cmd_spawn_t), 16);
    if (!s)
        return ZE_ENTITY_NULL;
    s->fn = fn;
    s->user = user;
    c->spawn_count++;
    return pending;
}

ze_result ze_cmd_destroy(ze_commands_t *c, ze_entity_t e)
{
    return ze_cmd_destroy_ex(c, e, ZE_DESTROY_SUBTREE);
}

ze_result ze_cmd_destroy_ex(ze_commands_t *c, ze_entity_t e, uint32_t flags)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ERR_INVALID_ARG);
    if (flags & ~(uint32_t)ZE_DESTROY_DETACH_CHILDREN)
        return ZE_ERR_INVALID_ARG;
    ze_result r = check_target(c, e);
    if (r != ZE_OK)
        return r;
    /* A destroy has no component: its header's field holds the flags. */
    return push(c, CMD_DESTROY, flags, e, 0, 16) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

ze_result ze_cmd_add(ze_commands_t *c, ze_entity_t e, ze_component_t comp)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ERR_INVALID_ARG);
    ze_result r = check_target(c, e);
    if (r != ZE_OK)
        return r;
    if (!check_component(c, comp))
        return ZE_ERR_INVALID_ARG;
    return push(c, CMD_ADD, comp.id, e, 0, 16) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

ze_result ze_cmd_set(ze_commands_t *c, ze_entity_t e, ze_component_t comp, const void *value)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ERR_INVALID_ARG);
    ze_result r = check_target(c, e);
    if (r != ZE_OK)
        return r;
    const ze_component_info_t *info = check_component(c, comp);
    if (!info)
        return ZE_ERR_INVALID_ARG;
    if (info->size == 0) /* a tag: setting it is adding it */
        return push(c, CMD_ADD, comp.id, e, 0, 16) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
    if (!value)
        return ZE_ERR_INVALID_ARG;
    if (info->align > CMD_ALIGN) {
        ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_UNSUPPORTED,
                        "commands: component %s is aligned to %u bytes; commands hold values "
                        "aligned to at most %d",
                        info->name, info->align, CMD_ALIGN);
        return ZE_ERR_UNSUPPORTED;
    }
    void *dst = push(c, CMD_SET, comp.id, e, info->size, info->align);
    if (!dst)
        return ZE_ERR_OUT_OF_MEMORY;
    const ze_component_hooks_t *hk = &info->hooks;
    if (hk->copy) {
        /* Storage copies into fresh memory too (no ctor first); zeroed, so a
         * hook written as an assignment finds no garbage to release. */
        memset(dst, 0, info->size);
        hk->copy(dst, value, 1, hk->user);
    } else {
        memcpy(dst, value, info->size);
    }
    return ZE_OK;
}

ze_result ze_cmd_remove(ze_commands_t *c, ze_entity_t e, ze_component_t comp)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ERR_INVALID_ARG);
    ze_result r = check_target(c, e);
    if (r != ZE_OK)
        return r;
    if (!check_component(c, comp))
        return ZE_ERR_INVALID_ARG;
    return push(c, CMD_REMOVE, comp.id, e, 0, 16) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

/* ---------------------------------------------------------------- merge */

ze_result ze_commands_merge(ze_commands_t *dst, ze_commands_t *src)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(dst && src && dst != src, ZE_ERR_INVALID_ARG);
    ZE_CHECK(dst->world == src->world, ZE_ERR_INVALID_ARG);
    if (src->flushing)
        return ZE_ERR_STATE;
    if (src->size == 0) {
        reset(src);
        return ZE_OK;
    }
    if ((uint64_t)dst->spawn_count + src->spawn_count > UINT32_MAX)
        return ZE_ERR_LIMIT;
    /* Keep src's offsets modulo CMD_ALIGN: its padded values stay aligned. */
    size_t gap = ZE_ALIGN_UP(dst->size, (size_t)CMD_ALIGN) - dst->size;
    size_t total;
    if (!ze_size_add(gap, src->size, &total) || !reserve(dst, total)) {
        ze_world_report(dst->world, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "commands: out of memory merging %zu bytes", src->size);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (gap) {
        /* A NOP record covering the gap: header plus gap-16 bytes of "value". */
        push(dst, CMD_NOP, 0, ZE_ENTITY_NULL, gap - CMD_HDR, 16);
    }
    uint8_t *base = dst->data + dst->size;
    memcpy(base, src->data, src->size);
    uint32_t shift = dst->spawn_count;
    if (shift) {
        for (size_t at = 0; at < src->size;) {
            cmd_hdr_t *h = (cmd_hdr_t *)(void *)(base + at);
            ze_entity_t e = {h->entity};
            if (h->kind != CMD_NOP && is_pending(e))
                h->entity = pending_handle(ze_entity_index(e) + shift).id;
            at += record_size(h);
        }
    }
    dst->size += src->size;
    dst->count += src->count;
    dst->spawn_count += src->spawn_count;
    reset(src); /* the values moved: no dtor */
    return ZE_OK;
}

/* ---------------------------------------------------------------- flush */

static bool resolve_reserve(ze_commands_t *c, uint32_t n)
{
    if (n <= c->resolved_cap)
        return true;
    uint32_t cap = c->resolved_cap ? c->resolved_cap : 64;
    while (cap < n)
        cap = cap > UINT32_MAX / 2 ? n : cap * 2;
    ze_entity_t *r = ze_alloc(c->alloc, (size_t)cap * sizeof *r, _Alignof(ze_entity_t));
    if (!r)
        return false;
    if (c->resolved) {
        memcpy(r, c->resolved, (size_t)c->resolved_cap * sizeof *r);
        ze_free(c->alloc, c->resolved, (size_t)c->resolved_cap * sizeof *r);
    }
    c->resolved = r;
    c->resolved_cap = cap;
    return true;
}

/* The entity a command targets now: a pending handle becomes the entity its
 * spawn created (NULL when that failed or never ran). */
static ze_entity_t resolve(const ze_commands_t *c, ze_entity_t e)
{
    if (!is_pending(e))
        return e;
    uint32_t ordinal = ze_entity_index(e);
    return ordinal < c->resolved_count ? c->resolved[ordinal] : ZE_ENTITY_NULL;
}

static inline void keep_first(ze_result *first, ze_result r)
{
    if (*first == ZE_OK && r != ZE_OK)
        *first = r;
}

/* ------------------------------------------------- hooks and validators */

static ze__hooks_t *hooks_of(ze_world_t *w)
{
    if (!w->hooks) {
        w->hooks = ZE_NEW(w->alloc, ze__hooks_t);
        if (!w->hooks)
            return NULL;
        ZE_ARRAY_INIT(&w->hooks->permissions, w->alloc, hook_fn_t);
        ZE_ARRAY_INIT(&w->hooks->validators, w->alloc, hook_fn_t);
    }
    return w->hooks;
}

ze_result ze_hooks_add_write_permission(ze_world_t *w, ze_write_permission_fn fn, void *user)
{
    ZE_CHECK(w && fn, ZE_ERR_INVALID_ARG);
    ze__hooks_t *h = hooks_of(w);
    if (!h)
        return ZE_ERR_OUT_OF_MEMORY;
    return ze_array_push(&h->permissions, &(hook_fn_t){(void *)fn, user, 0});
}

ze_result ze_hooks_add_validator(ze_world_t *w, ze_component_t c, ze_validator_fn fn, void *user)
{
    ZE_CHECK(w && fn && info_of(w, c.id), ZE_ERR_INVALID_ARG);
    ze__hooks_t *h = hooks_of(w);
    if (!h)
        return ZE_ERR_OUT_OF_MEMORY;
    return ze_array_push(&h->validators, &(hook_fn_t){(void *)fn, user, c.id});
}

void ze__hooks_fini(ze_world_t *w);
void ze__hooks_fini(ze_world_t *w)
{
    if (!w->hooks)
        return;
    ze_array_free(&w->hooks->permissions);
    ze_array_free(&w->hooks->validators);
    ze_free(w->alloc, w->hooks, sizeof *w->hooks);
    w->hooks = NULL;
}

void ze_world_set_validation_policy(ze_world_t *w, ze_validation_policy policy)
{
    w->policy = policy;
}

uint32_t ze_commands_rejections(const ze_commands_t *c, const ze_command_rejection_t **out)
{
    if (out)
        *out = c ? c->rejections.data : NULL;
    return c ? c->rejections.count : 0;
}

static bool permitted(ze_world_t *w, ze_entity_t e, uint32_t comp)
{
    const ze__hooks_t *h = w->hooks;
    for (uint32_t i = 0; h && i < h->permissions.count; i++) {
        const hook_fn_t *f = &ZE_ARRAY_AT(&h->permissions, hook_fn_t, i);
        if (!((ze_write_permission_fn)f->fn)(w, e, (ze_component_t){comp}, f->user))
            return false;
    }
    return true;
}

static bool valid_value(ze_world_t *w, ze_entity_t e, uint32_t comp, const void *value)
{
    const ze__hooks_t *h = w->hooks;
    for (uint32_t i = 0; h && i < h->validators.count; i++) {
        const hook_fn_t *f = &ZE_ARRAY_AT(&h->validators, hook_fn_t, i);
        if (f->comp == comp && !((ze_validator_fn)f->fn)(w, e, value, f->user))
            return false;
    }
    return true;
}

/* The entity itself (component id ZE_COMPONENT_INVALID), then each of its
 * components. */
static bool permitted_destroy(ze_world_t *w, ze_entity_t e)
{
    if (!permitted(w, e, ZE_COMPONENT_INVALID.id))
        return false;
    const uint64_t *row = ze__row(w, ze_entity_index(e));
    ZE__FOR_BITS(w, row, bit)
    {
        if (!permitted(w, e, w->pool_list[bit]->id))
            return false;
    }
    return true;
}

/* A destroy also changes the entities below `e`: a subtree destroy asks
 * about each descendant as about `e`; a detach about each child's Parent
 * (removed) and Transform (rewritten). */
static ze_result vet_destroy(ze_world_t *w, ze_entity_t e, uint32_t flags)
{
    if (!w->hooks->permissions.count)
        return ZE_OK;
    if (!permitted_destroy(w, e))
        return ZE_ERR_DENIED;
    const ze__pool_t *links = ze__pool_of(w, ZE_COMPONENT_ID_PARENT);
    if (!links || !links->count)
        return ZE_OK;
    bool detach = (flags & ZE_DESTROY_DETACH_CHILDREN) != 0;
    ze_array_t below;
    ZE_ARRAY_INIT(&below, w->alloc, ze_entity_t);
    ze_result why = ze__hierarchy_collect(w, e, !detach, &below) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; why == ZE_OK && i < below.count; i++) {
        ze_entity_t x = ZE_ARRAY_AT(&below, ze_entity_t, i);
        bool ok = detach ? permitted(w, x, ZE_COMPONENT_ID_PARENT) &&
                               (!ze_component_has(w, x, ZE_ID(ze_transform_t)) ||
                                permitted(w, x, ZE_COMPONENT_ID_TRANSFORM))
                         : permitted_destroy(w, x);
        if (!ok)
            why = ZE_ERR_DENIED;
    }
    ze_array_free(&below);
    return why;
}

/* Why a command may not apply (ZE_OK when it may): the group's policy
 * (values only), then permissions, then validators. */
static ze_result vet(ze_commands_t *c, const cmd_hdr_t *h, ze_entity_t e, const void *value,
                     uint32_t flags)
{
    ze_world_t *w = c->world;
    bool structural = h->kind == CMD_SPAWN || h->kind == CMD_DESTROY || h->kind == CMD_ADD ||
                      h->kind == CMD_REMOVE ||
                      (h->kind == CMD_SET && !ze_component_has(w, e, (ze_component_t){h->comp}));
    if ((flags & ZE__FLUSH_VALUES_ONLY) && structural)
        return ZE_ERR_DENIED;
    if (!w->hooks || h->kind == CMD_SPAWN)
        return ZE_OK;
    if (h->kind == CMD_DESTROY)
        return vet_destroy(w, e, h->comp);
    if (!permitted(w, e, h->comp))
        return ZE_ERR_DENIED;
    if (h->kind == CMD_SET && !valid_value(w, e, h->comp, value))
        return ZE_ERR_INVALID_ARG;
    return ZE_OK;
}

/* FAIL policy: keep the refused command and everything after it. Pending
 * handles of spawns already applied become the real entities; the others
 * are renumbered from 0. */
static void keep_tail(ze_commands_t *c, size_t from, uint32_t commands_left)
{
    uint32_t applied_spawns = c->resolved_count;
    memmove(c->data, c->data + from, c->size - from);
    c->size -= from;
    for (size_t at = 0; at < c->size;) {
        cmd_hdr_t *h = (cmd_hdr_t *)(void *)(c->data + at);
        ze_entity_t e = {h->entity};
        if (h->kind != CMD_NOP && is_pending(e)) {
            uint32_t ord = ze_entity_index(e);
            if (h->kind != CMD_SPAWN && ord < applied_spawns)
                h->entity = c->resolved[ord].id;
            else
                h->entity = pending_handle(ord - applied_spawns).id;
        }
        at += record_size(h);
    }
    c->count = commands_left;
    c->spawn_count -= applied_spawns;
}

ze_result ze_commands_flush(ze_commands_t *c)
{
    return ze__commands_flush_ex(c, 0);
}

ze_result ze__commands_flush_ex(ze_commands_t *c, uint32_t flags)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(c, ZE_ERR_INVALID_ARG);
    if (c->flushing)
        return ZE_OK; /* re-entered from a callback: the outer loop applies it */
    ze_world_t *w = c->world;
    switch (ze__world_gate(w)) {
    case ZE__GATE_NOW:
        break;
    case ZE__GATE_REFUSE:
        ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "commands: flush refused inside a parallel wave");
        return ZE_ERR_STATE;
    case ZE__GATE_DEFER:
        /* An iteration is open on the world: hand the commands to the world's
         * buffer, which is flushed when the last iteration ends. */
        if (c == ze_world_commands(w))
            return ZE_OK;
        return ze_commands_merge(ze_world_commands(w), c);
    }

    c->flushing = true;
    c->resolved_count = 0;
    ze_array_clear(&c->rejections);
    ze_result first = ZE_OK;
    uint32_t skipped = 0, position = 0;
    bool stopped = false;
    /* c->size and c->data are re-read every step: user code run by a command
     * may append to this buffer (and so move it). */
    for (size_t at = 0; at < c->size;) {
        size_t record_at = at;
        cmd_hdr_t h = *(cmd_hdr_t *)(void *)(c->data + at);
        size_t value_at = at + CMD_HDR + h.pad;
        at += record_size(&h);
        if (h.kind == CMD_NOP)
            continue;
        uint32_t this_command = position++;
        /* Vetting: group policy, permissions, validators. */
        {
            ze_entity_t target =
                h.kind == CMD_SPAWN ? ZE_ENTITY_NULL : resolve(c, (ze_entity_t){h.entity});
            if (h.kind == CMD_SPAWN || ze__alive(w, target)) {
                ze_result why = vet(c, &h, target, c->data + value_at, flags);
                if (why != ZE_OK) {
                    /* spawns and destroys concern the entity, no component */
                    ze_component_t rc = h.kind == CMD_SPAWN || h.kind == CMD_DESTROY
                                            ? ZE_COMPONENT_INVALID
                                            : (ze_component_t){h.comp};
                    ze_command_rejection_t rej = {this_command, target, rc, why};
                    ze_array_push(&c->rejections, &rej);
                    if (w->policy == ZE_VALIDATION_FAIL && !(flags & ZE__FLUSH_NEVER_STOP)) {
                        keep_tail(c, record_at, c->count - this_command);
                        stopped = true;
                        keep_first(&first, ZE_ERR_DENIED);
                        break;
                    }
                    if (w->policy == ZE_VALIDATION_LOG || (flags & ZE__FLUSH_VALUES_ONLY))
                        ze_world_report(c->world, ZE_LOG_WARN, ZE_OK,
                                        "commands: command %u on entity %u:%u refused (%s)",
                                        this_command, ze_entity_index(target),
                                        ze_entity_generation(target), ze_result_str(why));
                    if (h.kind == CMD_SET)
                        drop_value(c, (cmd_hdr_t *)(void *)(c->data + record_at));
                    if (h.kind == CMD_SPAWN) {
                        /* Not created: commands on its pending handle skip. */
                        if (resolve_reserve(c, c->resolved_count + 1))
                            c->resolved[c->resolved_count++] = ZE_ENTITY_NULL;
                    }
                    skipped++;
                    continue;
                }
            }
        }
        if (h.kind == CMD_SPAWN) {
            cmd_spawn_t s = *(cmd_spawn_t *)(void *)(c->data + value_at);
            uint32_t ordinal = ze_entity_index((ze_entity_t){h.entity});
            if (ordinal != c->resolved_count || !resolve_reserve(c, ordinal + 1)) {
                /* Not created, nor any later spawn of this flush (their
                 * slots cannot be recorded): commands on them are skipped. */
                ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                "commands: out of memory resolving spawns");
                keep_first(&first, ZE_ERR_OUT_OF_MEMORY);
                continue;
            }
            ze_entity_t e = ze_entity_create(w);
            c->resolved[c->resolved_count++] = e;
            if (ze_entity_is_null(e)) {
                keep_first(&first, ZE_ERR_LIMIT); /* create logged why */
                continue;
            }
            if (s.fn)
                s.fn(w, e, s.user);
            continue;
        }
        ze_entity_t e = resolve(c, (ze_entity_t){h.entity});
        ze_component_t comp = {h.kind == CMD_DESTROY ? ZE_COMPONENT_INVALID.id : h.comp};
        if (!ze__alive(w, e)) {
            skipped++;
            if (h.kind == CMD_SET)
                drop_value(c, (cmd_hdr_t *)(void *)(c->data + value_at - h.pad - CMD_HDR));
            continue;
        }
        ze_result r = ZE_OK;
        switch (h.kind) {
        case CMD_DESTROY:
            r = ze_entity_destroy_ex(w, e, h.comp);
            break;
        case CMD_ADD:
            if (!ze_component_add(w, e, comp) && !ze_component_has(w, e, comp))
                r = ZE_ERR_STATE;
            break;
        case CMD_SET:
            r = ze_component_set(w, e, comp, c->data + value_at);
            /* c->data re-read: the set may have run user code that grew the
             * buffer (the old block stays valid until the flush ends). */
            drop_value(c, (cmd_hdr_t *)(void *)(c->data + value_at - h.pad - CMD_HDR));
            break;
        case CMD_REMOVE:
            r = ze_component_remove(w, e, comp);
            if (r == ZE_ERR_NOT_FOUND) { /* absent: a no-op that says so */
                skipped++;
                r = ZE_OK;
            }
            break;
        default:
            ZE_VERIFY_MSG(false, "corrupt command buffer");
        }
        if (r != ZE_OK) {
            const ze_component_info_t *info = info_of(w, comp.id);
            ze_world_report(c->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                            "commands: %s of %s on entity %u:%u failed: %s",
                            h.kind == CMD_DESTROY ? "destroy"
                            : h.kind == CMD_ADD   ? "add"
                            : h.kind == CMD_SET   ? "set"
                                                  : "remove",
                            h.kind == CMD_DESTROY ? "entity" : (info ? info->name : "?"),
                            ze_entity_index(e), ze_entity_generation(e), ze_result_str(r));
            keep_first(&first, r);
        }
    }
    c->flushing = false;
    c->last_skipped = skipped;
    if (!stopped)
        reset(c);
    free_retired(c);
    if (c->rejections.count && first == ZE_OK && (flags & ZE__FLUSH_VALUES_ONLY))
        first = ZE_ERR_DENIED; /* the caller (a group barrier) reports it */
    return first;
}
