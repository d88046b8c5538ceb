/* Service scopes (ZenECS's ServiceContainer, in C): named services, a
 * kernel scope and one scope per world whose lookups fall back to the
 * kernel's. A scope is sealed when composition is over (a world's at its
 * first BeginFrame, the kernel's at the first BeginFrame of any of its
 * worlds): registering then fails with ZE_ERR_STATE. When a scope ends (the
 * world destroyed, after its systems' shutdown; the kernel destroyed, after
 * its worlds) each service's release callback runs, in reverse order of
 * registration (child scopes before the parent's).
 *
 * Threads: the world's thread. Memory: the scope owner's allocator. */
#include <string.h>

#include "ecs_internal.h"

typedef struct service_t {
    char name[ZE_COMPONENT_NAME_MAX];
    ze_service_desc_t desc; /* desc.name points at `name` */
} service_t;

void ze__scope_init(ze__scope_t *s, ze_allocator_t a)
{
    memset(s, 0, sizeof *s);
    ZE_ARRAY_INIT(&s->list, a, service_t);
    ze_hashmap_init(&s->index, a, sizeof(uint64_t), sizeof(uint32_t));
}

/* Release in reverse order of registration, then free. */
void ze__scope_fini(ze__scope_t *s)
{
    for (uint32_t i = s->list.count; i-- > 0;) {
        const service_t *e = ze_array_at(&s->list, i);
        if (e->desc.release)
            e->desc.release(e->desc.service, e->desc.user);
    }
    ze_array_free(&s->list);
    ze_hashmap_free(&s->index);
}

static const service_t *scope_find(const ze__scope_t *s, const char *name, uint64_t key)
{
    const uint32_t *at = ze_hashmap_get(&s->index, &key);
    if (!at)
        return NULL;
    /* Names sharing a hash: the index points at the first; scan on. */
    for (uint32_t i = *at; i < s->list.count; i++) {
        const service_t *e = ze_array_at(&s->list, i);
        if (strcmp(e->name, name) == 0)
            return e;
    }
    return NULL;
}

static void *scope_get(const ze__scope_t *s, const char *name)
{
    if (!name)
        return NULL;
    const service_t *e = scope_find(s, name, ze_hash64(name, strlen(name), 0));
    return e ? e->desc.service : NULL;
}

/* Reports go to the scope owner's sink: the world's (w) or the kernel's. */
static ze_result scope_add(ze__scope_t *s, const ze_service_desc_t *d, const char *scope_name,
                           const char *sealed_by, const ze_world_t *w, const ze_kernel_t *k)
{
#define REPORT(code, ...)                                      \
    (w ? ze_world_report(w, ZE_LOG_ERROR, (code), __VA_ARGS__) \
       : ze__kernel_report(k, ZE_LOG_ERROR, (code), __VA_ARGS__))
    if (!d || !d->name || !d->name[0])
        return ZE_ERR_INVALID_ARG;
    if (s->sealed)
        return REPORT(ZE_ERR_STATE,
                      "service '%s' registered after %s (the %s scope is sealed then)", d->name,
                      sealed_by, scope_name);
    size_t len = strlen(d->name);
    if (len >= ZE_COMPONENT_NAME_MAX)
        return REPORT(ZE_ERR_INVALID_ARG, "service name '%.40s...' longer than %d characters",
                      d->name, ZE_COMPONENT_NAME_MAX - 1);
    uint64_t key = ze_hash64(d->name, len, 0);
    if (scope_find(s, d->name, key))
        return REPORT(ZE_ERR_CONFLICT, "service '%s' is already registered in the %s scope",
                      d->name, scope_name);
    service_t e = {.desc = *d};
    memcpy(e.name, d->name, len + 1);
    e.desc.name = NULL; /* the copy's name is `name` (the caller's may go) */
    uint32_t at = s->list.count;
    if (ze_array_push(&s->list, &e) != ZE_OK)
        return REPORT(ZE_ERR_OUT_OF_MEMORY, "out of memory registering service '%s'", d->name);
    if (!ze_hashmap_get(&s->index, &key) && ze_hashmap_put(&s->index, &key, &at) != ZE_OK) {
        s->list.count--;
        return REPORT(ZE_ERR_OUT_OF_MEMORY, "out of memory registering service '%s'", d->name);
    }
    return ZE_OK;
#undef REPORT
}

/* ------------------------------------------------------------- public */

ze_result ze_world_service_add(ze_world_t *w, const ze_service_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    return scope_add(&w->scope, desc, "world's", "the world started (its first BeginFrame)", w,
                     NULL);
}

ze_result ze_world_service_register(ze_world_t *w, const char *name, void *service)
{
    return ze_world_service_add(w, &(ze_service_desc_t){.name = name, .service = service});
}

void *ze_world_service_get(const ze_world_t *w, const char *name)
{
    ZE__ECS_THREAD_CHECK();
    void *s = scope_get(&w->scope, name);
    return s ? s : scope_get(&w->kernel->scope, name); /* the parent scope */
}

ze_result ze_kernel_service_add(ze_kernel_t *k, const ze_service_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(k, ZE_ERR_INVALID_ARG);
    return scope_add(&k->scope, desc, "kernel's", "a world of the kernel started", NULL, k);
}

void *ze_kernel_service_get(const ze_kernel_t *k, const char *name)
{
    ZE__ECS_THREAD_CHECK();
    return scope_get(&k->scope, name);
}
