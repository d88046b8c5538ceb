/* The AssetRegistry: uuid -> type, state, source, path, generation, reason,
 * and the dependency graph both ways. Main-thread data: no locks.
 *
 * Entries live in an insertion-ordered array (a removed one is a hole, so
 * indices held by the maps stay valid); a uuid map and a path-hash map find
 * them. Graph walks (cycle check, stale marking) use an epoch mark per entry
 * instead of a visited set, so they allocate only their work stack. */
#include <string.h>

#include "asset/asset_internal.h"
#include "asset/runtime_internal.h"

typedef struct reg_entry_t {
    ze_uuid_t uuid, source;
    ze_asset_type type; /* UNKNOWN = removed */
    ze_asset_state state;
    uint32_t generation;
    uint32_t mark;
    char *path;
    size_t path_size;
    char *reason; /* NULL = "" */
    size_t reason_size;
    ze_array_t dependents;   /* of uint32_t entry indices */
    ze_array_t dependencies; /* of uint32_t entry indices */
} reg_entry_t;

typedef struct reg_listener_t {
    ze_asset_state_fn fn;
    void *user;
} reg_listener_t;

struct ze_asset_registry_t {
    ze_allocator_t alloc;
    ze_array_t entries;   /* of reg_entry_t */
    ze_hashmap_t by_uuid; /* uuid -> uint32_t index */
    ze_hashmap_t by_path; /* path hash -> uint32_t index (collisions: scan) */
    uint32_t live;
    uint32_t epoch;
    reg_listener_t listeners[ZE_ASSET_MAX_LISTENERS];
    uint32_t listener_count;
};

const char *ze_asset_state_name(ze_asset_state state)
{
    static const char *const names[ZE_ASSET_STATE_COUNT] = {
        "unknown", "queued", "importing", "loaded", "failed", "stale",
    };
    return (unsigned)state < ZE_ASSET_STATE_COUNT ? names[state] : "invalid";
}

static reg_entry_t *entry_at(const ze_asset_registry_t *reg, uint32_t i)
{
    return (reg_entry_t *)ze_array_at(&reg->entries, i);
}

static bool index_of(const ze_asset_registry_t *reg, ze_uuid_t uuid, uint32_t *out)
{
    const uint32_t *v = ze_hashmap_get(&reg->by_uuid, &uuid);
    if (!v)
        return false;
    *out = *v;
    return true;
}

static uint64_t path_key(const char *path)
{
    return ze_hash64(path, strlen(path), 0x7a7061746873ull) | 1u;
}

static char *dup_string(ze_allocator_t a, const char *s, size_t *size)
{
    size_t n = strlen(s) + 1;
    char *p = ze_alloc(a, n, 1);
    if (p)
        memcpy(p, s, n);
    *size = p ? n : 0;
    return p;
}

static void fill_info(const reg_entry_t *e, ze_asset_info_t *out)
{
    out->uuid = e->uuid;
    out->type = e->type;
    out->state = e->state;
    out->source = e->source;
    out->path = e->path ? e->path : "";
    out->generation = e->generation;
    out->reason = e->reason ? e->reason : "";
}

ze_result ze_asset_registry_create(const ze_asset_registry_desc_t *desc, ze_asset_registry_t **out)
{
    ZE_CHECK(out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_allocator_t a = ze__asset_alloc_or_default(desc ? desc->alloc : (ze_allocator_t){0});
    ze_asset_registry_t *reg = ZE_NEW(a, ze_asset_registry_t);
    if (!reg)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(reg, 0, sizeof *reg);
    reg->alloc = a;
    ZE_ARRAY_INIT(&reg->entries, a, reg_entry_t);
    ze_hashmap_init(&reg->by_uuid, a, sizeof(ze_uuid_t), sizeof(uint32_t));
    ze_hashmap_init(&reg->by_path, a, sizeof(uint64_t), sizeof(uint32_t));
    *out = reg;
    return ZE_OK;
}

static void entry_free(ze_asset_registry_t *reg, reg_entry_t *e)
{
    if (e->path)
        ze_free(reg->alloc, e->path, e->path_size);
    if (e->reason)
        ze_free(reg->alloc, e->reason, e->reason_size);
    ze_array_free(&e->dependents);
    ze_array_free(&e->dependencies);
    e->path = e->reason = NULL;
}

void ze_asset_registry_destroy(ze_asset_registry_t *reg)
{
    if (!reg)
        return;
    for (uint32_t i = 0; i < reg->entries.count; i++)
        entry_free(reg, entry_at(reg, i));
    ze_array_free(&reg->entries);
    ze_hashmap_free(&reg->by_uuid);
    ze_hashmap_free(&reg->by_path);
    ze_free(reg->alloc, reg, sizeof *reg);
}

/* by_path holds one index per hash; a colliding path is found by scan. */
static void path_index_put(ze_asset_registry_t *reg, const char *path, uint32_t i)
{
    uint64_t k = path_key(path);
    if (!ze_hashmap_get(&reg->by_path, &k))
        (void)ze_hashmap_put(&reg->by_path, &k, &i);
}

static void path_index_drop(ze_asset_registry_t *reg, const char *path, uint32_t i)
{
    uint64_t k = path_key(path);
    uint32_t *v = ze_hashmap_get(&reg->by_path, &k);
    if (!v || *v != i)
        return;
    ze_hashmap_remove(&reg->by_path, &k);
    /* another live entry with the same hash takes the slot */
    for (uint32_t j = 0; j < reg->entries.count; j++) {
        reg_entry_t *e = entry_at(reg, j);
        if (j != i && e->type != ZE_ASSET_TYPE_UNKNOWN && e->path && path_key(e->path) == k) {
            (void)ze_hashmap_put(&reg->by_path, &k, &j);
            return;
        }
    }
}

ze_result ze_asset_registry_put(ze_asset_registry_t *reg, ze_uuid_t uuid, ze_asset_type type,
                                ze_uuid_t source, const char *path)
{
    ZE_CHECK(reg && path && path[0], ZE_ERR_INVALID_ARG);
    if (ze_uuid_is_nil(uuid) || type <= ZE_ASSET_TYPE_UNKNOWN || type >= ZE_ASSET_TYPE_COUNT)
        return ZE_ERR_INVALID_ARG;
    if (type == ZE_ASSET_TYPE_SOURCE || type == ZE_ASSET_TYPE_FILE || ze_uuid_is_nil(source))
        source = uuid;
    size_t psize;
    char *p = dup_string(reg->alloc, path, &psize);
    if (!p)
        return ZE_ERR_OUT_OF_MEMORY;
    uint32_t i;
    if (index_of(reg, uuid, &i)) {
        reg_entry_t *e = entry_at(reg, i);
        path_index_drop(reg, e->path, i);
        ze_free(reg->alloc, e->path, e->path_size);
        e->path = p;
        e->path_size = psize;
        e->type = type;
        e->source = source;
        path_index_put(reg, p, i);
        return ZE_OK;
    }
    reg_entry_t e = {.uuid = uuid, .source = source, .type = type, .path = p, .path_size = psize};
    ZE_ARRAY_INIT(&e.dependents, reg->alloc, uint32_t);
    ZE_ARRAY_INIT(&e.dependencies, reg->alloc, uint32_t);
    i = reg->entries.count;
    if (ze_array_push(&reg->entries, &e) != ZE_OK) {
        ze_free(reg->alloc, p, psize);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (ze_hashmap_put(&reg->by_uuid, &uuid, &i) != ZE_OK) {
        ze_array_pop(&reg->entries, NULL);
        ze_free(reg->alloc, p, psize);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    path_index_put(reg, p, i);
    reg->live++;
    return ZE_OK;
}

static void remove_index(ze_array_t *list, uint32_t v)
{
    for (uint32_t k = 0; k < list->count; k++)
        if (*(uint32_t *)ze_array_at(list, k) == v) {
            ze_array_remove_ordered(list, k);
            return;
        }
}

static void clear_dependencies_at(ze_asset_registry_t *reg, uint32_t i)
{
    reg_entry_t *e = entry_at(reg, i);
    for (uint32_t k = 0; k < e->dependencies.count; k++) {
        uint32_t d = *(uint32_t *)ze_array_at(&e->dependencies, k);
        remove_index(&entry_at(reg, d)->dependents, i);
    }
    ze_array_clear(&e->dependencies);
}

ze_result ze_asset_registry_remove(ze_asset_registry_t *reg, ze_uuid_t uuid)
{
    ZE_CHECK(reg, ZE_ERR_INVALID_ARG);
    uint32_t i;
    if (!index_of(reg, uuid, &i))
        return ZE_ERR_NOT_FOUND;
    clear_dependencies_at(reg, i);
    reg_entry_t *e = entry_at(reg, i);
    for (uint32_t k = 0; k < e->dependents.count; k++) {
        uint32_t d = *(uint32_t *)ze_array_at(&e->dependents, k);
        remove_index(&entry_at(reg, d)->dependencies, i);
    }
    path_index_drop(reg, e->path, i);
    ze_hashmap_remove(&reg->by_uuid, &uuid);
    entry_free(reg, e);
    e->type = ZE_ASSET_TYPE_UNKNOWN;
    reg->live--;
    return ZE_OK;
}

bool ze_asset_registry_get(const ze_asset_registry_t *reg, ze_uuid_t uuid, ze_asset_info_t *out)
{
    uint32_t i;
    if (!reg || !index_of(reg, uuid, &i))
        return false;
    if (out)
        fill_info(entry_at(reg, i), out);
    return true;
}

bool ze_asset_registry_find_path(const ze_asset_registry_t *reg, const char *path, ze_uuid_t *out)
{
    if (!reg || !path)
        return false;
    uint64_t k = path_key(path);
    const uint32_t *v = ze_hashmap_get(&reg->by_path, &k);
    if (!v)
        return false;
    const reg_entry_t *e = entry_at(reg, *v);
    if (strcmp(e->path, path) != 0) {
        /* a hash collision: the slow way */
        e = NULL;
        for (uint32_t j = 0; j < reg->entries.count; j++) {
            const reg_entry_t *c = entry_at(reg, j);
            if (c->type != ZE_ASSET_TYPE_UNKNOWN && strcmp(c->path, path) == 0) {
                e = c;
                break;
            }
        }
        if (!e)
            return false;
    }
    if (out)
        *out = e->uuid;
    return true;
}

uint32_t ze_asset_registry_count(const ze_asset_registry_t *reg)
{
    return reg ? reg->live : 0;
}

static bool transition_ok(ze_asset_state from, ze_asset_state to)
{
    switch (to) {
    case ZE_ASSET_STATE_QUEUED:
        return from != ZE_ASSET_STATE_IMPORTING;
    case ZE_ASSET_STATE_IMPORTING:
        return from == ZE_ASSET_STATE_QUEUED;
    case ZE_ASSET_STATE_LOADED:
        return from == ZE_ASSET_STATE_IMPORTING || from == ZE_ASSET_STATE_STALE ||
               from == ZE_ASSET_STATE_UNKNOWN || from == ZE_ASSET_STATE_LOADED ||
               from == ZE_ASSET_STATE_FAILED;
    case ZE_ASSET_STATE_FAILED:
        return true;
    case ZE_ASSET_STATE_STALE:
        return true;
    case ZE_ASSET_STATE_UNKNOWN:
        return from == ZE_ASSET_STATE_LOADED || from == ZE_ASSET_STATE_STALE ||
               from == ZE_ASSET_STATE_FAILED || from == ZE_ASSET_STATE_UNKNOWN;
    default:
        return false;
    }
}

static void notify(ze_asset_registry_t *reg, uint32_t i, ze_asset_state old)
{
    /* Copy the list: a listener may unlisten itself. */
    reg_listener_t ls[ZE_ASSET_MAX_LISTENERS];
    uint32_t n = reg->listener_count;
    memcpy(ls, reg->listeners, n * sizeof ls[0]);
    for (uint32_t k = 0; k < n; k++) {
        ze_asset_info_t info;
        fill_info(entry_at(reg, i), &info); /* fresh: a listener may change it */
        ls[k].fn(ls[k].user, &info, old);
    }
}

static ze_result set_state_at(ze_asset_registry_t *reg, uint32_t i, ze_asset_state state,
                              const char *reason)
{
    reg_entry_t *e = entry_at(reg, i);
    ze_asset_state old = e->state;
    if (!transition_ok(old, state))
        return ZE_ERR_STATE;
    if (state == ZE_ASSET_STATE_FAILED || state == ZE_ASSET_STATE_LOADED) {
        if (e->reason)
            ze_free(reg->alloc, e->reason, e->reason_size);
        e->reason = NULL;
        e->reason_size = 0;
        if (state == ZE_ASSET_STATE_FAILED && reason && reason[0])
            e->reason = dup_string(reg->alloc, reason, &e->reason_size);
    }
    if (state == ZE_ASSET_STATE_LOADED &&
        (old == ZE_ASSET_STATE_IMPORTING || old == ZE_ASSET_STATE_UNKNOWN ||
         old == ZE_ASSET_STATE_LOADED || old == ZE_ASSET_STATE_FAILED))
        e->generation++;
    e->state = state;
    notify(reg, i, old);
    return ZE_OK;
}

ze_result ze_asset_registry_set_state(ze_asset_registry_t *reg, ze_uuid_t uuid,
                                      ze_asset_state state, const char *reason)
{
    ZE_CHECK(reg && (unsigned)state < ZE_ASSET_STATE_COUNT, ZE_ERR_INVALID_ARG);
    uint32_t i;
    if (!index_of(reg, uuid, &i))
        return ZE_ERR_NOT_FOUND;
    return set_state_at(reg, i, state, reason);
}

/* Is `target` reachable from `from` along dependents edges? */
static bool reaches(ze_asset_registry_t *reg, uint32_t from, uint32_t target)
{
    if (from == target)
        return true;
    uint32_t epoch = ++reg->epoch;
    ze_array_t stack;
    ZE_ARRAY_INIT(&stack, reg->alloc, uint32_t);
    bool found = false;
    entry_at(reg, from)->mark = epoch;
    if (ze_array_push(&stack, &from) != ZE_OK) {
        ze_array_free(&stack);
        return true; /* out of memory: refuse the edge rather than risk a cycle */
    }
    uint32_t cur;
    while (!found && ze_array_pop(&stack, &cur)) {
        reg_entry_t *e = entry_at(reg, cur);
        for (uint32_t k = 0; k < e->dependents.count; k++) {
            uint32_t d = *(uint32_t *)ze_array_at(&e->dependents, k);
            if (d == target) {
                found = true;
                break;
            }
            reg_entry_t *de = entry_at(reg, d);
            if (de->mark == epoch)
                continue;
            de->mark = epoch;
            if (ze_array_push(&stack, &d) != ZE_OK) {
                found = true;
                break;
            }
        }
    }
    ze_array_free(&stack);
    return found;
}

ze_result ze_asset_registry_add_dependency(ze_asset_registry_t *reg, ze_uuid_t dependent,
                                           ze_uuid_t dependency)
{
    ZE_CHECK(reg, ZE_ERR_INVALID_ARG);
    uint32_t a, b;
    if (!index_of(reg, dependent, &a) || !index_of(reg, dependency, &b))
        return ZE_ERR_NOT_FOUND;
    reg_entry_t *ea = entry_at(reg, a);
    for (uint32_t k = 0; k < ea->dependencies.count; k++)
        if (*(uint32_t *)ze_array_at(&ea->dependencies, k) == b)
            return ZE_OK;
    /* b -> a would close a cycle if b is already reachable from a */
    if (reaches(reg, a, b))
        return ZE_ERR_CYCLE;
    if (ze_array_push(&ea->dependencies, &b) != ZE_OK)
        return ZE_ERR_OUT_OF_MEMORY;
    if (ze_array_push(&entry_at(reg, b)->dependents, &a) != ZE_OK) {
        ze_array_pop(&ea->dependencies, NULL);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    return ZE_OK;
}

void ze_asset_registry_clear_dependencies(ze_asset_registry_t *reg, ze_uuid_t dependent)
{
    uint32_t i;
    if (reg && index_of(reg, dependent, &i))
        clear_dependencies_at(reg, i);
}

uint32_t ze_asset_registry_dependents(const ze_asset_registry_t *reg, ze_uuid_t uuid,
                                      ze_uuid_t *out, uint32_t max)
{
    uint32_t i;
    if (!reg || !index_of(reg, uuid, &i))
        return 0;
    const reg_entry_t *e = entry_at(reg, i);
    for (uint32_t k = 0; out && k < e->dependents.count && k < max; k++)
        out[k] = entry_at(reg, *(uint32_t *)ze_array_at(&e->dependents, k))->uuid;
    return e->dependents.count;
}

uint32_t ze_asset_registry_mark_stale(ze_asset_registry_t *reg, ze_uuid_t uuid)
{
    uint32_t i;
    if (!reg || !index_of(reg, uuid, &i))
        return 0;
    /* Breadth first: an entry is marked before the ones built from it. */
    uint32_t epoch = ++reg->epoch;
    ze_array_t queue;
    ZE_ARRAY_INIT(&queue, reg->alloc, uint32_t);
    entry_at(reg, i)->mark = epoch;
    if (ze_array_push(&queue, &i) != ZE_OK) {
        ze_array_free(&queue);
        return set_state_at(reg, i, ZE_ASSET_STATE_STALE, NULL) == ZE_OK ? 1 : 0;
    }
    uint32_t marked = 0;
    for (uint32_t head = 0; head < queue.count; head++) {
        uint32_t cur = *(uint32_t *)ze_array_at(&queue, head);
        if (entry_at(reg, cur)->state != ZE_ASSET_STATE_STALE &&
            set_state_at(reg, cur, ZE_ASSET_STATE_STALE, NULL) == ZE_OK)
            marked++;
        reg_entry_t *e = entry_at(reg, cur); /* listeners may have grown the array */
        for (uint32_t k = 0; k < e->dependents.count; k++) {
            uint32_t d = *(uint32_t *)ze_array_at(&e->dependents, k);
            reg_entry_t *de = entry_at(reg, d);
            if (de->mark == epoch)
                continue;
            de->mark = epoch;
            if (ze_array_push(&queue, &d) != ZE_OK)
                break;
            e = entry_at(reg, cur);
        }
    }
    ze_array_free(&queue);
    return marked;
}

uint32_t ze_asset_registry_sub_assets(const ze_asset_registry_t *reg, ze_uuid_t source,
                                      ze_uuid_t *out, uint32_t max)
{
    if (!reg)
        return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < reg->entries.count; i++) {
        const reg_entry_t *e = entry_at(reg, i);
        if (e->type == ZE_ASSET_TYPE_UNKNOWN || !ze_uuid_eq(e->source, source) ||
            ze_uuid_eq(e->uuid, source))
            continue;
        if (out && n < max)
            out[n] = e->uuid;
        n++;
    }
    return n;
}

void ze_asset_registry_foreach(const ze_asset_registry_t *reg, ze_asset_registry_fn fn, void *user)
{
    if (!reg || !fn)
        return;
    for (uint32_t i = 0; i < reg->entries.count; i++) {
        const reg_entry_t *e = entry_at(reg, i);
        if (e->type == ZE_ASSET_TYPE_UNKNOWN)
            continue;
        ze_asset_info_t info;
        fill_info(e, &info);
        if (!fn(user, &info))
            return;
    }
}

ze_result ze_asset_registry_listen(ze_asset_registry_t *reg, ze_asset_state_fn fn, void *user)
{
    ZE_CHECK(reg && fn, ZE_ERR_INVALID_ARG);
    if (reg->listener_count == ZE_ASSET_MAX_LISTENERS)
        return ZE_ERR_LIMIT;
    reg->listeners[reg->listener_count++] = (reg_listener_t){fn, user};
    return ZE_OK;
}

void ze_asset_registry_unlisten(ze_asset_registry_t *reg, ze_asset_state_fn fn, void *user)
{
    if (!reg)
        return;
    for (uint32_t k = 0; k < reg->listener_count; k++)
        if (reg->listeners[k].fn == fn && reg->listeners[k].user == user) {
            memmove(&reg->listeners[k], &reg->listeners[k + 1],
                    (reg->listener_count - k - 1) * sizeof reg->listeners[0]);
            reg->listener_count--;
            return;
        }
}

void ze__registry_sources_within(const ze_asset_registry_t *reg, const ze_path_t *dir,
                                 ze_array_t *out)
{
    for (uint32_t i = 0; reg && i < reg->entries.count; i++) {
        const reg_entry_t *e = entry_at(reg, i);
        ze_path_t p;
        if (e->type != ZE_ASSET_TYPE_SOURCE || ze_path_make(e->path, &p) != ZE_OK ||
            !ze_path_is_within(&p, dir))
            continue;
        if (ze_array_push(out, &e->uuid) != ZE_OK)
            return;
    }
}

void ze__registry_bump_generation(ze_asset_registry_t *reg, ze_uuid_t uuid)
{
    uint32_t i;
    if (reg && index_of(reg, uuid, &i))
        entry_at(reg, i)->generation++;
}
