/* Prefabs: entities copied out of a world as a template, instantiated any
 * number of times into worlds of the same kernel (a scene file used as a
 * template, a model's node hierarchy).
 *
 * Layout: one record per (entity, component), entity-major in the source's
 * index order, each with the offset of its value in one block (aligned to
 * the component; tags have none). Values are copies made through the copy
 * hook (memcpy without one) and destroyed with the dtor when the prefab
 * goes. ENTITY fields (reflection) are rewritten at creation into prefab
 * positions: {id = position + 1, generation 0}, which no live handle has
 * (generation 0 is never valid); a reference to an entity outside the
 * source world's alive set becomes null. Instantiation creates every
 * entity first, then sets each component from a copy of its value whose
 * positions were turned into the new handles, so references resolve
 * whatever the order. Components whose entity references are not
 * reflected (raw data) are copied as they are: their handles point at the
 * source world's entities. UUID and transient components are not copied:
 * an instance is a new entity, not the same one again. */
#include <string.h>

#include "ecs/ecs_internal.h"

typedef struct prefab_rec_t {
    uint32_t entity; /* position in the prefab */
    uint32_t comp;
    bool remap;    /* the value has reflected ENTITY fields */
    size_t offset; /* into data; unused for tags */
} prefab_rec_t;

struct ze_prefab_t {
    ze_kernel_t *kernel;
    ze_allocator_t alloc;
    uint32_t count; /* entities */
    uint32_t rec_count;
    prefab_rec_t *recs;
    uint8_t *data;
    size_t data_size, data_align;
    size_t max_value; /* the largest value: the scratch copy's size */
};

static bool has_entity_fields(const ze_component_info_t *info)
{
    for (uint32_t f = 0; f < info->field_count; f++)
        if (info->fields[f].type == ZE_FIELD_ENTITY)
            return true;
    return false;
}

/* Rewrite the ENTITY fields of one value with `map` (an entity -> entity
 * function over the field's handle). */
typedef ze_entity_t (*remap_fn)(const void *ctx, ze_entity_t e);
static void remap_value(const ze_component_info_t *info, uint8_t *value, remap_fn fn,
                        const void *ctx)
{
    for (uint32_t f = 0; f < info->field_count; f++) {
        const ze_field_desc_t *fd = &info->fields[f];
        uint32_t n = fd->count ? fd->count : 1;
        if (fd->type != ZE_FIELD_ENTITY ||
            (uint64_t)fd->offset + (uint64_t)n * sizeof(ze_entity_t) > info->size)
            continue;
        for (uint32_t i = 0; i < n; i++) {
            ze_entity_t e;
            uint8_t *p = value + fd->offset + (size_t)i * sizeof e;
            memcpy(&e, p, sizeof e);
            e = fn(ctx, e);
            memcpy(p, &e, sizeof e);
        }
    }
}

/* Source handle -> prefab position (+1, generation 0), via the source's
 * index -> position table. */
typedef struct to_pos_t {
    const ze_world_t *src;
    const uint32_t *pos; /* [src->fresh]: position + 1, 0 = not in the prefab */
} to_pos_t;
static ze_entity_t to_position(const void *ctx, ze_entity_t e)
{
    const to_pos_t *t = ctx;
    uint32_t idx = ze_entity_index(e);
    if (e.id == 0 || !ze__alive(t->src, e) || !t->pos[idx])
        return ZE_ENTITY_NULL;
    return (ze_entity_t){t->pos[idx]};
}

/* Prefab position -> the instance's entity. */
typedef struct to_new_t {
    const ze_entity_t *made;
    uint32_t count;
} to_new_t;
static ze_entity_t to_instance(const void *ctx, ze_entity_t e)
{
    const to_new_t *t = ctx;
    if (e.id == 0 || ze_entity_generation(e) != 0 || ze_entity_index(e) > t->count)
        return ZE_ENTITY_NULL;
    return t->made[ze_entity_index(e) - 1];
}

static bool copied(const ze_component_info_t *info, uint32_t c)
{
    return c != ZE_COMPONENT_ID_UUID && !(info->flags & ZE_COMPONENT_TRANSIENT);
}

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

void ze_prefab_destroy(ze_prefab_t *p)
{
    if (!p)
        return;
    const ze_kernel_t *k = p->kernel;
    for (uint32_t i = 0; p->data && i < p->rec_count; i++) {
        const prefab_rec_t *r = &p->recs[i];
        const ze_component_info_t *info = ze__info(k, r->comp);
        if (info->size && info->hooks.dtor)
            info->hooks.dtor(p->data + r->offset, 1, info->hooks.user);
    }
    ze_free(p->alloc, p->recs, sizeof *p->recs * p->rec_count);
    ze_free(p->alloc, p->data, p->data_size);
    ze_free(p->alloc, p, sizeof *p);
}

ze_result ze_prefab_create(ze_world_t *src, ze_prefab_t **out)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(src && out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_kernel_t *k = src->kernel;
    ze_allocator_t a = k->alloc;
    ze_prefab_t *p = ze_alloc(a, sizeof *p, _Alignof(ze_prefab_t));
    if (!p)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(p, 0, sizeof *p);
    p->kernel = k;
    p->alloc = a;
    p->data_align = 16;

    /* Sizes: positions, records, the value block. */
    uint32_t *pos = src->fresh ? ze_alloc(a, sizeof *pos * src->fresh, 16) : NULL;
    if (src->fresh && !pos) {
        ze_free(a, p, sizeof *p);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    size_t bytes = 0;
    for (uint32_t idx = 0; idx < src->fresh; idx++) {
        ze_entity_t e = ze_entity_from_index(src, idx);
        pos[idx] = 0;
        if (ze_entity_is_null(e))
            continue;
        pos[idx] = ++p->count;
        ZE__FOR_BITS(src, ze__row(src, idx), bit)
        {
            uint32_t c = src->pool_list[bit]->id;
            const ze_component_info_t *info = ze__info(k, c);
            if (!copied(info, c))
                continue;
            p->rec_count++;
            if (info->size) {
                bytes = align_up(bytes, info->align) + info->size;
                if (info->align > p->data_align)
                    p->data_align = info->align;
                if (info->size > p->max_value)
                    p->max_value = info->size;
            }
        }
    }
    ze_result r = ZE_OK;
    if (p->rec_count && !(p->recs = ze_alloc(a, sizeof *p->recs * p->rec_count, 16)))
        r = ZE_ERR_OUT_OF_MEMORY;
    if (r == ZE_OK && bytes && !(p->data = ze_alloc(a, bytes, p->data_align)))
        r = ZE_ERR_OUT_OF_MEMORY;
    if (r != ZE_OK) {
        p->rec_count = p->recs ? p->rec_count : 0;
        ze_free(a, pos, sizeof *pos * src->fresh);
        p->data = NULL;
        ze_prefab_destroy(p);
        return r;
    }
    p->data_size = bytes;
    if (bytes)
        memset(p->data, 0, bytes); /* copy hooks construct into zeroed memory */

    /* Copy the values; entity references become positions. */
    to_pos_t tp = {.src = src, .pos = pos};
    size_t off = 0;
    uint32_t ri = 0;
    for (uint32_t idx = 0; idx < src->fresh; idx++) {
        if (!pos[idx])
            continue;
        ze_entity_t e = ze_entity_from_index(src, idx);
        ZE__FOR_BITS(src, ze__row(src, idx), bit)
        {
            uint32_t c = src->pool_list[bit]->id;
            const ze_component_info_t *info = ze__info(k, c);
            if (!copied(info, c))
                continue;
            prefab_rec_t *rec = &p->recs[ri++];
            rec->entity = pos[idx] - 1;
            rec->comp = c;
            rec->remap = false;
            rec->offset = 0;
            if (!info->size)
                continue;
            off = align_up(off, info->align);
            rec->offset = off;
            off += info->size;
            const void *v = ze_component_get(src, e, (ze_component_t){c});
            uint8_t *dst = p->data + rec->offset;
            if (info->hooks.copy)
                info->hooks.copy(dst, v, 1, info->hooks.user);
            else
                memcpy(dst, v, info->size);
            if (has_entity_fields(info)) {
                rec->remap = true;
                remap_value(info, dst, to_position, &tp);
            }
        }
    }
    ze_free(a, pos, sizeof *pos * src->fresh);
    *out = p;
    return ZE_OK;
}

uint32_t ze_prefab_entity_count(const ze_prefab_t *p)
{
    return p ? p->count : 0;
}

/* The prefab entity at `pos` has a Parent inside the prefab. */
static bool has_parent(const ze_prefab_t *p, uint32_t first_rec, uint32_t pos)
{
    for (uint32_t i = first_rec; i < p->rec_count && p->recs[i].entity == pos; i++)
        if (p->recs[i].comp == ZE_COMPONENT_ID_PARENT) {
            ze_parent_t v;
            memcpy(&v, p->data + p->recs[i].offset, sizeof v);
            return v.parent.id != 0;
        }
    return false;
}

ze_result ze_prefab_instantiate(ze_world_t *w, const ze_prefab_t *p, ze_entity_t parent,
                                ze_entity_t *out)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w && p && p->kernel == w->kernel, ZE_ERR_INVALID_ARG);
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_prefab_instantiate");
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                               "ze_prefab_instantiate during an iteration or parallel wave");
    if (!ze_entity_is_null(parent) && !ze_entity_alive(w, parent))
        return ZE_ERR_NOT_FOUND;
    const ze_kernel_t *k = w->kernel;
    ze_allocator_t a = w->alloc;
    ze_entity_t *made = out;
    if (!made && p->count && !(made = ze_alloc(a, sizeof *made * p->count, 16)))
        return ZE_ERR_OUT_OF_MEMORY;
    uint8_t *scratch = p->max_value ? ze_alloc(a, p->max_value, p->data_align) : NULL;
    ze_result r = p->max_value && !scratch ? ZE_ERR_OUT_OF_MEMORY : ZE_OK;
    uint32_t created = 0;
    for (; r == ZE_OK && created < p->count; created++) {
        made[created] = ze_entity_create(w);
        if (ze_entity_is_null(made[created]))
            r = ZE_ERR_LIMIT; /* reported by the world */
    }
    to_new_t tn = {.made = made, .count = p->count};
    uint32_t first = 0; /* the current entity's first record */
    for (uint32_t i = 0; r == ZE_OK && i < p->rec_count; i++) {
        const prefab_rec_t *rec = &p->recs[i];
        if (i == 0 || rec->entity != p->recs[i - 1].entity) {
            first = i;
            /* a root of the prefab hangs under `parent` */
            if (!ze_entity_is_null(parent) && !has_parent(p, first, rec->entity))
                r = ze_set(w, made[rec->entity], ze_parent_t, {parent});
        }
        const ze_component_info_t *info = ze__info(k, rec->comp);
        ze_component_t c = {rec->comp};
        if (r != ZE_OK)
            break;
        if (!info->size) {
            r = ze_component_add(w, made[rec->entity], c) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
            continue;
        }
        const uint8_t *v = p->data + rec->offset;
        if (rec->remap) {
            /* a copy with the positions turned into this instance's entities */
            memset(scratch, 0, info->size);
            if (info->hooks.copy)
                info->hooks.copy(scratch, v, 1, info->hooks.user);
            else
                memcpy(scratch, v, info->size);
            remap_value(info, scratch, to_instance, &tn);
            r = ze_component_set(w, made[rec->entity], c, scratch);
            if (info->hooks.dtor)
                info->hooks.dtor(scratch, 1, info->hooks.user);
        } else {
            r = ze_component_set(w, made[rec->entity], c, v);
        }
    }
    /* Entities of the prefab without any component still hang under the
       parent (an empty node of a model). */
    for (uint32_t e = 0; r == ZE_OK && !ze_entity_is_null(parent) && e < p->count; e++)
        if (ze_entity_components(w, made[e], NULL, 0) == 0)
            r = ze_set(w, made[e], ze_parent_t, {parent});
    if (r != ZE_OK) /* nothing half-made stays */
        for (uint32_t e = 0; e < created; e++)
            if (!ze_entity_is_null(made[e]))
                (void)ze_entity_destroy(w, made[e]); /* a second time: not found */
    ze_free(a, scratch, p->max_value);
    if (made != out)
        ze_free(a, made, sizeof *made * p->count);
    return r;
}
