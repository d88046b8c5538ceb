/* The kernel: component registry, memory manager and job system, worlds,
 * the fixed-step accumulator. */
#include <math.h>
#include <string.h>

#include "ecs_internal.h"

#ifdef ZE_DEBUG
_Thread_local bool ze__ecs_thread_forbidden;
#endif

void ze_ecs_forbid_thread(bool forbid)
{
#ifdef ZE_DEBUG
    ze__ecs_thread_forbidden = forbid;
#else
    (void)forbid;
#endif
}

ze_kernel_t *ze_kernel_create(const ze_kernel_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    ze_kernel_desc_t d = desc ? *desc : (ze_kernel_desc_t){0};
    ze_mem_t *mem = d.mem;
    bool owns_mem = false, owns_jobs = false;
    if (!mem) {
        if (ze_mem_create(&(ze_mem_desc_t){0}, &mem) != ZE_OK) {
            ze_diag(&d.diag, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "ecs", "kernel",
                    "cannot create a memory manager");
            return NULL;
        }
        owns_mem = true;
    }
    /* The kernel's own heap for storage pages and tables: an eighth of the
     * ECS owner's range to start with, growing by regions (entity tables,
     * the owner's heap and large blocks share the rest: a million-entity
     * world and its snapshot fit the Default budget). Thread-safe: parallel
     * systems record commands from pool threads. */
    ze_heap_t *heap = NULL;
    uint64_t budget = ze_mem_owner_stats(mem, ZE_MEM_OWNER_ECS).budget;
    size_t heap_size =
        ZE_ALIGN_UP(ZE_MAX((size_t)(budget / 8), ZE_MIN((size_t)(budget / 2), (size_t)ZE_MIB(4))),
                    ze_mem_page_size());
    if (!heap_size || ze_heap_create(mem,
                                     &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_ECS,
                                                       .max_size = heap_size,
                                                       .thread_safe = true,
                                                       .grow = true},
                                     &heap) != ZE_OK) {
        ze_diag(&d.diag, ZE_LOG_ERROR, ZE_ERR_BUDGET, "ecs", "kernel",
                "cannot create the ECS heap (ECS budget %llu MiB)",
                (unsigned long long)(budget >> 20));
        if (owns_mem)
            ze_mem_destroy(mem);
        return NULL;
    }
    ze_allocator_t alloc = ze_heap_allocator(heap);
    ze_kernel_t *k = ze_alloc(alloc, sizeof *k, _Alignof(ze_kernel_t));
    if (!k) {
        ze_heap_destroy(heap);
        if (owns_mem)
            ze_mem_destroy(mem);
        return NULL;
    }
    memset(k, 0, sizeof *k);
    ze_hashmap_init(&k->comp_by_name, alloc, sizeof(uint64_t), sizeof(uint32_t));
    ze_hashmap_init(&k->comp_by_stable, alloc, sizeof(uint64_t), sizeof(uint32_t));
    ze_hashmap_init(&k->msg_by_name, alloc, sizeof(uint64_t), sizeof(uint32_t));
    ze__scope_init(&k->scope, alloc);
    k->mem = mem;
    k->owns_mem = owns_mem;
    k->heap = heap;
    k->alloc = alloc;
    snprintf(k->name, sizeof k->name, "%s", d.name ? d.name : "kernel");
    k->jobs = d.jobs;
    if (!k->jobs) {
        if (ze_job_system_create(&(ze_job_system_desc_t){.mem = mem}, &k->jobs) != ZE_OK) {
            ze_diag(&d.diag, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "ecs", "kernel",
                    "cannot create a job system");
            ze_kernel_destroy(k);
            return NULL;
        }
        owns_jobs = true;
    }
    k->owns_jobs = owns_jobs;
    k->next_world_id = 1;
    k->services = (ze_services_t){
        .mem = mem, .jobs = k->jobs, .clock = d.clock, .clock_user = d.clock_user, .diag = d.diag};
    if (ze_kernel_set_fixed_step(k, d.fixed_dt ? d.fixed_dt : 1.0 / 60.0,
                                 d.max_substeps ? d.max_substeps : 5) != ZE_OK) {
        ze_kernel_destroy(k);
        return NULL;
    }
    if (ze__builtins_register(k) != ZE_OK) {
        ze_kernel_destroy(k);
        return NULL;
    }
    return k;
}

void ze__kernel_forget_world(ze_kernel_t *k, ze_world_t *w);
void ze__kernel_forget_world(ze_kernel_t *k, ze_world_t *w)
{
    for (uint32_t i = 0; i < k->world_count; i++) {
        if (k->worlds[i] == w) {
            memmove(&k->worlds[i], &k->worlds[i + 1],
                    (k->world_count - i - 1) * sizeof(*k->worlds));
            k->world_count--;
            return;
        }
    }
}

ze_result ze__kernel_add_world(ze_kernel_t *k, ze_world_t *w);
ze_result ze__kernel_add_world(ze_kernel_t *k, ze_world_t *w)
{
    if (k->world_count == k->world_cap) {
        uint32_t cap = k->world_cap ? k->world_cap * 2 : 4;
        ze_world_t **p =
            ze_realloc(k->alloc, k->worlds, sizeof(*p) * k->world_cap, sizeof(*p) * cap, 16);
        if (!p)
            return ZE_ERR_OUT_OF_MEMORY;
        k->worlds = p;
        k->world_cap = cap;
    }
    k->worlds[k->world_count++] = w;
    return ZE_OK;
}

void ze_kernel_destroy(ze_kernel_t *k)
{
    ZE__ECS_THREAD_CHECK();
    if (!k)
        return;
    while (k->world_count)
        ze_world_destroy(k->worlds[k->world_count - 1]);
    ze__scope_fini(&k->scope); /* after the worlds' scopes: child before parent */
    ze_free(k->alloc, k->worlds, sizeof(*k->worlds) * k->world_cap);
    for (uint32_t i = 0; i < k->component_count; i++)
        if (ze__info(k, i)->fields)
            ze_free(k->alloc, (void *)ze__info(k, i)->fields,
                    sizeof(ze_field_desc_t) * ze__info(k, i)->field_count);
    for (uint32_t c = 0; c < k->comp_chunk_cap && k->comp_chunks[c]; c++)
        ze_free(k->alloc, k->comp_chunks[c], sizeof(ze__component_rec_t) * ZE__REC_CHUNK);
    ze_free(k->alloc, k->comp_chunks, sizeof(*k->comp_chunks) * k->comp_chunk_cap);
    ze_hashmap_free(&k->comp_by_name);
    ze_hashmap_free(&k->comp_by_stable);
    ze_hashmap_free(&k->msg_by_name);
    ze_free(k->alloc, k->messages, sizeof(*k->messages) * k->message_cap);
    ze__migrations_fini(k);
    ze_mem_t *mem = k->mem;
    bool owns_mem = k->owns_mem;
    ze_heap_t *heap = k->heap;
    if (k->owns_jobs)
        ze_job_system_destroy(k->jobs);
    ze_free(k->alloc, k, sizeof *k);
    ze_heap_destroy(heap);
    if (owns_mem)
        ze_mem_destroy(mem);
}

ze_mem_t *ze_kernel_mem(const ze_kernel_t *k)
{
    return k->mem;
}

ze_job_system_t *ze_kernel_jobs(const ze_kernel_t *k)
{
    return k->jobs;
}

/* ------------------------------------------------------------ registry */

/* Limits on one component type's layout (ze_component_register). */
#define ZE__COMPONENT_SIZE_MAX  (1u << 20)
#define ZE__COMPONENT_ALIGN_MAX 4096u

/* Default alignment: the largest power of two dividing the size, at most 16
 * (what a struct of that size can need). */
static uint32_t default_align(size_t size)
{
    if (!size)
        return 1;
    size_t low = size & (~size + 1);
    return low > 16 ? 16u : (uint32_t)low;
}

ze_result ze_component_register(ze_kernel_t *k, const ze_component_desc_t *desc,
                                ze_component_t *out)
{
    if (!k || !desc || !desc->name || !desc->name[0] || !out)
        return ZE_ERR_INVALID_ARG;
    size_t name_len = strlen(desc->name);
    if (name_len >= ZE_COMPONENT_NAME_MAX) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                          "component name '%.40s...' is longer than %d characters", desc->name,
                          ZE_COMPONENT_NAME_MAX - 1);
        return ZE_ERR_INVALID_ARG;
    }
    uint32_t align = desc->align ? (uint32_t)desc->align : default_align(desc->size);
    uint64_t name_key = ze_hash64(desc->name, name_len, 0);
    const uint32_t *named = ze_hashmap_get(&k->comp_by_name, &name_key);
    /* Names that share a hash: rare enough for a scan from the first. */
    for (uint32_t i = named ? *named : k->component_count; i < k->component_count; i++) {
        const ze_component_info_t *c = ze__info(k, i);
        if (strcmp(c->name, desc->name) != 0)
            continue;
        if (c->size != desc->size || c->align != align) {
            ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_CONFLICT,
                              "component '%s' registered again with a different layout "
                              "(%u/%u, now %zu/%u)",
                              desc->name, c->size, c->align, desc->size, align);
            return ZE_ERR_CONFLICT;
        }
        *out = (ze_component_t){i};
        return ZE_OK;
    }
    if (desc->size > ZE__COMPONENT_SIZE_MAX || align > ZE__COMPONENT_ALIGN_MAX) {
        ze__kernel_report(
            k, ZE_LOG_ERROR, ZE_ERR_LIMIT,
            "component '%s': size %zu / alignment %u above the limit of %u bytes / %u", desc->name,
            desc->size, align, (unsigned)ZE__COMPONENT_SIZE_MAX, (unsigned)ZE__COMPONENT_ALIGN_MAX);
        return ZE_ERR_LIMIT;
    }
    if (!ZE_IS_POW2(align) || (desc->size && desc->size % align)) {
        ze__kernel_report(
            k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
            "component '%s': alignment %u must be a power of two dividing the size %zu", desc->name,
            align, desc->size);
        return ZE_ERR_INVALID_ARG;
    }
    if (ze_kernel_sealed(k)) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_STATE,
                          "cannot register component '%s': the registry is sealed (%s)", desc->name,
                          k->sealed ? "ze_kernel_seal" : "a world runs a parallel wave");
        return ZE_ERR_STATE;
    }
    if (k->component_count >= ZE_MAX_COMPONENTS) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                          "cannot register component '%s': the kernel already has %d component "
                          "types, the limit (ids are 16-bit)",
                          desc->name, ZE_MAX_COMPONENTS);
        return ZE_ERR_LIMIT;
    }
    uint32_t id = k->component_count;
    uint64_t stable = desc->stable_id ? desc->stable_id : ze_hash64(desc->name, name_len, 0);
    const uint32_t *taken = ze_hashmap_get(&k->comp_by_stable, &stable);
    if (taken) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_CONFLICT,
                          "component '%s': stable id %016llx already used by '%s'", desc->name,
                          (unsigned long long)stable, ze__info(k, *taken)->name);
        return ZE_ERR_CONFLICT;
    }
    /* Room: a chunk of records (records never move: info pointers stay). */
    uint32_t chunk = id >> ZE__REC_CHUNK_BITS;
    if (chunk >= k->comp_chunk_cap) {
        uint32_t cap = k->comp_chunk_cap ? k->comp_chunk_cap * 2 : 4;
        ze__component_rec_t **t =
            ze_realloc(k->alloc, k->comp_chunks, sizeof(*t) * k->comp_chunk_cap, sizeof(*t) * cap,
                       _Alignof(ze__component_rec_t *));
        if (!t)
            return ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                     "component '%s': out of memory for the registry", desc->name);
        memset(t + k->comp_chunk_cap, 0, sizeof(*t) * (cap - k->comp_chunk_cap));
        k->comp_chunks = t;
        k->comp_chunk_cap = cap;
    }
    if (!k->comp_chunks[chunk]) {
        k->comp_chunks[chunk] = ze_alloc(k->alloc, sizeof(ze__component_rec_t) * ZE__REC_CHUNK,
                                         _Alignof(ze__component_rec_t));
        if (!k->comp_chunks[chunk])
            return ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                     "component '%s': out of memory for the registry", desc->name);
        memset(k->comp_chunks[chunk], 0, sizeof(ze__component_rec_t) * ZE__REC_CHUNK);
    }
    if ((!named && ze_hashmap_put(&k->comp_by_name, &name_key, &id) != ZE_OK) ||
        ze_hashmap_put(&k->comp_by_stable, &stable, &id) != ZE_OK) {
        if (!named)
            ze_hashmap_remove(&k->comp_by_name, &name_key);
        return ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                                 "component '%s': out of memory for the registry", desc->name);
    }
    /* The field list is copied (it may be a compound literal of the
       caller's, see ZE_COMPONENT_FIELDS); the field names are borrowed
       (ZE_FIELD gives string literals). */
    ze_field_desc_t *fields = NULL;
    if (desc->fields && desc->field_count) {
        fields = ze_alloc(k->alloc, sizeof *fields * desc->field_count, _Alignof(ze_field_desc_t));
        if (!fields) {
            ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                              "component '%s': out of memory for %u fields", desc->name,
                              desc->field_count);
            ze_hashmap_remove(&k->comp_by_stable, &stable);
            if (!named)
                ze_hashmap_remove(&k->comp_by_name, &name_key);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        memcpy(fields, desc->fields, sizeof *fields * desc->field_count);
    }
    ze__component_rec_t *rec = ze__rec(k, id);
    memcpy(rec->name, desc->name, name_len + 1);
    rec->info = (ze_component_info_t){
        .name = rec->name,
        .size = (uint32_t)desc->size,
        .align = align,
        .stable_id = stable,
        .schema_version = desc->schema_version ? desc->schema_version : 1,
        .flags = desc->flags,
        .hooks = desc->hooks,
        .fields = fields,
        .field_count = fields ? desc->field_count : 0,
    };
    k->component_count++;
    *out = (ze_component_t){id};
    return ZE_OK;
}

ze_component_t ze__component_register_or_invalid(ze_kernel_t *k, const ze_component_desc_t *d)
{
    ze_component_t c = ZE_COMPONENT_INVALID;
    if (ze_component_register(k, d, &c) != ZE_OK)
        return ZE_COMPONENT_INVALID;
    return c;
}

ze_result ze_component_find(const ze_kernel_t *k, const char *name, ze_component_t *out)
{
    if (!name)
        return ZE_ERR_NOT_FOUND;
    uint64_t key = ze_hash64(name, strlen(name), 0);
    const uint32_t *first = ze_hashmap_get(&k->comp_by_name, &key);
    for (uint32_t i = first ? *first : k->component_count; i < k->component_count; i++) {
        if (strcmp(ze__info(k, i)->name, name) == 0) {
            *out = (ze_component_t){i};
            return ZE_OK;
        }
    }
    return ZE_ERR_NOT_FOUND;
}

const ze_component_info_t *ze_component_info(const ze_kernel_t *k, ze_component_t c)
{
    return c.id < k->component_count ? ze__info(k, c.id) : NULL;
}

void ze_kernel_seal(ze_kernel_t *k)
{
    if (k)
        k->sealed = true;
}

bool ze_kernel_sealed(const ze_kernel_t *k)
{
    if (k->sealed)
        return true;
    for (uint32_t i = 0; i < k->world_count; i++)
        if (atomic_load_explicit(&k->worlds[i]->in_parallel, memory_order_acquire))
            return true;
    return false;
}

uint32_t ze_component_count(const ze_kernel_t *k)
{
    return k->component_count;
}

/* ------------------------------------------------------------- worlds */

ze_world_t *ze_kernel_find_world(const ze_kernel_t *k, uint32_t id)
{
    for (uint32_t i = 0; i < k->world_count; i++)
        if (k->worlds[i]->id == id)
            return k->worlds[i];
    return NULL;
}

ze_world_t *ze_kernel_find_world_by_name(const ze_kernel_t *k, const char *name)
{
    for (uint32_t i = 0; name && i < k->world_count; i++)
        if (strcmp(k->worlds[i]->name, name) == 0)
            return k->worlds[i];
    return NULL;
}

uint32_t ze_kernel_find_worlds_by_tag(const ze_kernel_t *k, const char *tag, ze_world_t **out,
                                      uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; tag && i < k->world_count; i++) {
        if (ze_world_has_tag(k->worlds[i], tag)) {
            if (n < max && out)
                out[n] = k->worlds[i];
            n++;
        }
    }
    return n;
}

uint32_t ze_kernel_world_count(const ze_kernel_t *k)
{
    return k->world_count;
}

ze_world_t *ze_kernel_world_at(const ze_kernel_t *k, uint32_t i)
{
    return i < k->world_count ? k->worlds[i] : NULL;
}

/* ------------------------------------------------------ fixed-step clock */

/* The accumulator counts time in units of 1/den nanosecond, den (1..1000)
 * chosen so that a step is a whole number of units: 1/60 s is 50,000,000
 * units of 1/3 ns. Whole nanoseconds would round that step to 16,666,667
 * ns; thirty such steps overrun 0.5 s by 10 ns, so a 0.5 s frame dropped
 * 24 steps instead of 25 and kept 0.9999994 of a step (alpha 1.0 as a
 * float), and frames of 1/120 s added up to one step short every second
 * frame. With exact units, whole multiples of the step are whole steps. A
 * step that no den up to 1000 makes whole (within 1e-6 ns) uses 1000: off
 * by less than 0.0005 ns a step. */
enum { STEP_DEN_MAX = 1000 };

void ze__fixed_clock_set_step(ze_kernel_t *k, double fixed_dt)
{
    double ns = fixed_dt * 1e9;
    int64_t den = STEP_DEN_MAX;
    for (int64_t d = 1; d < STEP_DEN_MAX; d++) {
        double units = ns * (double)d;
        if (fabs(units - nearbyint(units)) <= 1e-6 * (double)d) {
            den = d;
            break;
        }
    }
    int64_t step = llround(ns * (double)den);
    /* Time already accumulated carries over into the new unit. */
    if (k->step_den) {
        double units =
            ((double)k->accumulator + k->accumulator_carry) * (double)den / (double)k->step_den;
        k->accumulator = llround(units);
        k->accumulator_carry = units - (double)k->accumulator;
    }
    k->step_units = step < 1 ? 1 : step;
    k->step_den = den;
}

ze__fixed_advance_t ze__fixed_clock_advance(ze_kernel_t *k, double dt)
{
    int64_t step = k->step_units, den = k->step_den;
    /* About half a nanosecond of slack: a frame that lands that close below
     * a whole step (the caller's rounding of dt) completes it, and the
     * accumulator goes that little below zero instead of waiting a frame. */
    int64_t slack = ZE_MIN((den + 1) / 2, step / 2);
    /* dt in units, rounded with error diffusion: the fraction of a unit
     * rounded away is carried to the next frame, so frames of 1/144 s
     * (20,833,333.33 units) add up without drift. */
    double units = dt * 1e9 * (double)den + k->accumulator_carry;
    int64_t whole = llround(units);
    k->accumulator_carry = units - (double)whole;
    k->accumulator += whole;
    ze__fixed_advance_t out = {0};
    while (out.steps < k->max_substeps && k->accumulator >= step - slack) {
        k->accumulator -= step;
        out.steps++;
    }
    /* No spiral of death: whole steps the sub-step limit left are dropped
     * (and reported); the fraction of a step stays. */
    if (k->accumulator >= step - slack) {
        int64_t keep = k->accumulator % step;
        if (keep >= step - slack)
            keep -= step;
        out.dropped_seconds = (double)(k->accumulator - keep) / (double)den * 1e-9;
        k->accumulator = keep;
    }
    double alpha = k->accumulator > 0 ? (double)k->accumulator / (double)step : 0.0;
    out.alpha = (float)alpha;
    if (out.alpha >= 1.0f) /* float rounding of a fraction just below one */
        out.alpha = nextafterf(1.0f, 0.0f);
    return out;
}
