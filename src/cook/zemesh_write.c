/* The .zemesh writer: a mesh of an imported model into the cooked format
 * (described in src/asset/zemesh.c), each submesh optimized with
 * meshoptimizer. Part of the cooker: linked only into programs that cook. */
#include <math.h>
#include <meshoptimizer.h>

#include "cook/cook_internal.h"
#include "asset/zemesh_format.h"
#include "zengine/cook.h"

/* ----------------------------------------------------------------- writer */

typedef struct wr_t {
    uint8_t *p;
} wr_t;

static void put_u32(wr_t *w, uint32_t v)
{
    w->p[0] = (uint8_t)v;
    w->p[1] = (uint8_t)(v >> 8);
    w->p[2] = (uint8_t)(v >> 16);
    w->p[3] = (uint8_t)(v >> 24);
    w->p += 4;
}

static void put_u16(wr_t *w, uint16_t v)
{
    w->p[0] = (uint8_t)v;
    w->p[1] = (uint8_t)(v >> 8);
    w->p += 2;
}

static void put_u64(wr_t *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_f32(wr_t *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(w, u);
}

static void put_floats(wr_t *w, const float *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        put_f32(w, f[i]);
}

static void put_bytes(wr_t *w, const void *src, size_t n)
{
    memcpy(w->p, src, n);
    w->p += n;
}

static void put_vec3(wr_t *w, ze_vec3_t v)
{
    put_f32(w, v.x);
    put_f32(w, v.y);
    put_f32(w, v.z);
}

/* Levels of detail of one optimized primitive. */
enum {
    /* A level must drop at least 1/8 of the previous level's indices, or
       the simplifier has reached what it can do (locked borders, topology,
       the error limit) and no more levels are built. */
    LOD_MIN_DROP_DIV = 8,
};

/* The relative error (of the mesh's extent, meshopt_simplifyScale) level k
 * may reach: 1 % for level 1, doubling with each level. */
static float lod_target_error(uint32_t k)
{
    return 1e-2f * (float)(1u << (k - 1u));
}

typedef struct lod_buf_t {
    ze_allocator_t alloc;
    uint32_t *idx; /* levels past 0 of every primitive, local vertex numbers */
    size_t len, cap;
} lod_buf_t;

static bool lod_buf_reserve(lod_buf_t *b, size_t more)
{
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more)
        cap *= 2;
    uint32_t *n = ze_alloc(b->alloc, cap * 4, 16);
    if (!n)
        return false;
    if (b->len)
        memcpy(n, b->idx, b->len * 4);
    if (b->idx)
        ze_free(b->alloc, b->idx, b->cap * 4);
    b->idx = n;
    b->cap = cap;
    return true;
}

/* Levels 1.. of a primitive whose level 0 is ix[0, count) over `unique`
 * vertices at pos (xyz, in the optimized order): each aims at half the
 * indices of the previous, simplified from level 0 (so its error is
 * against the original surface), cache-optimized. Appends to b; fills
 * off[k] (into b), cnt[k], err[k] for k >= 1 and returns the level count
 * (1 when nothing was built). */
static ze_result build_lods(const uint32_t *ix, uint32_t count, const float *pos, size_t unique,
                            uint32_t want, uint32_t *scratch, lod_buf_t *b, size_t *off,
                            uint32_t *cnt, float *err, uint32_t *levels)
{
    *levels = 1;
    if (want <= 1)
        return ZE_OK;
    const float scale = meshopt_simplifyScale(pos, unique, 12);
    uint32_t prev = count;
    float prev_err = 0.0f;
    for (uint32_t k = 1; k < want; k++) {
        size_t target = (size_t)prev / 2 / 3 * 3;
        if (target < 3)
            break;
        float rel = 0.0f;
        size_t n = meshopt_simplify(scratch, ix, count, pos, unique, 12, target,
                                    lod_target_error(k), meshopt_SimplifyLockBorder, &rel);
        if (n == 0 || n > (size_t)prev - prev / LOD_MIN_DROP_DIV)
            break;
        meshopt_optimizeVertexCache(scratch, scratch, n, unique);
        float e = rel * scale;
        if (!(e >= prev_err)) /* the levels' errors never decrease */
            e = prev_err;
        if (!lod_buf_reserve(b, n))
            return ZE_ERR_OUT_OF_MEMORY;
        memcpy(b->idx + b->len, scratch, n * 4);
        off[k] = b->len;
        cnt[k] = (uint32_t)n;
        err[k] = e;
        b->len += n;
        prev = (uint32_t)n;
        prev_err = e;
        *levels = k + 1;
    }
    return ZE_OK;
}

ze_result ze_asset_zemesh_write(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                const ze_uuid_t *material_uuids, ze_allocator_t alloc,
                                uint8_t **bytes, size_t *size)
{
    return ze_asset_zemesh_write_lods(model, mesh, uuid, material_uuids, 1, alloc, bytes, size);
}

ze_result ze_asset_zemesh_write_lods(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                     const ze_uuid_t *material_uuids, uint32_t lod_count,
                                     ze_allocator_t alloc, uint8_t **bytes, size_t *size)
{
    ZE_CHECK(model && bytes && size && mesh < model->mesh_count && lod_count >= 1 &&
                 lod_count <= ZE_ZEMESH_LOD_MAX,
             ZE_ERR_INVALID_ARG);
    alloc = ze__asset_alloc_or_default(alloc);
    const ze_model_mesh_t *m = &model->meshes[mesh];
    uint32_t attrs = ZE_VATTR_BIT(ZE_VATTR_POSITION), nsub = 0, max_idx = 0;
    uint64_t nvert = 0, nidx = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        attrs |= p->attributes;
        nsub++;
        nvert += p->vertex_count;
        nidx += p->index_count;
        max_idx = p->index_count > max_idx ? p->index_count : max_idx;
    }
    if (nsub == 0)
        return ZE_ERR_NOT_FOUND;
    if (nvert > UINT32_MAX || nidx > UINT32_MAX)
        return ZE_ERR_LIMIT;
    /* meshoptimizer, per primitive: opt_idx holds the optimized indices
       (local to the primitive), src_of[new] the source vertex of each kept
       vertex, kept[i] the primitive's kept vertex count; with levels of
       detail, pos the kept positions in their new order (the simplifier's
       input) and scratch its output, lods the levels past 0. */
    const bool lods_on = lod_count > 1;
    const size_t np = m->primitive_count;
    size_t idx_bytes = (size_t)nidx * 4 + 4, vtx_bytes = (size_t)nvert * 4 + 4,
           kept_bytes = np * 4 + 4, pos_bytes = lods_on ? (size_t)nvert * 12 + 4 : 0,
           scratch_bytes = lods_on ? (size_t)max_idx * 4 + 4 : 0,
           lvl_n = np * ZE_ZEMESH_LOD_MAX + 1;
    uint32_t *opt_idx = ze_alloc(alloc, idx_bytes, 16);
    uint32_t *src_of = ze_alloc(alloc, vtx_bytes, 16);
    uint32_t *remap = ze_alloc(alloc, vtx_bytes, 16);
    uint32_t *kept = ze_alloc(alloc, kept_bytes, 16);
    uint32_t *levels = ze_alloc(alloc, kept_bytes, 16);
    float *pos = lods_on ? ze_alloc(alloc, pos_bytes, 16) : NULL;
    uint32_t *scratch = lods_on ? ze_alloc(alloc, scratch_bytes, 16) : NULL;
    size_t *lvl_off = ze_alloc(alloc, lvl_n * sizeof(size_t), 16);
    uint32_t *lvl_cnt = ze_alloc(alloc, lvl_n * 4, 16);
    float *lvl_err = ze_alloc(alloc, lvl_n * 4, 16);
    lod_buf_t lb = {.alloc = alloc};
    uint8_t *buf = NULL;
    size_t total = 0;
    ze_result res = opt_idx && src_of && remap && kept && levels && lvl_off && lvl_cnt && lvl_err &&
                            (!lods_on || (pos && scratch))
                        ? ZE_OK
                        : ZE_ERR_OUT_OF_MEMORY;
    uint64_t kept_total = 0, lod_total = 0, lod_idx_total = 0;
    for (uint32_t i = 0, io = 0, vo = 0; res == ZE_OK && i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        kept[i] = 0;
        levels[i] = 0;
        if (p->skipped)
            continue;
        uint32_t *ix = opt_idx + io;
        meshopt_optimizeVertexCache(ix, p->indices, p->index_count, p->vertex_count);
        size_t unique =
            meshopt_optimizeVertexFetchRemap(remap, ix, p->index_count, p->vertex_count);
        meshopt_remapIndexBuffer(ix, ix, p->index_count, remap);
        for (uint32_t v = 0; v < p->vertex_count; v++)
            if (remap[v] != ~0u)
                src_of[vo + remap[v]] = v;
        kept[i] = (uint32_t)unique;
        kept_total += unique;
        size_t *off = lvl_off + (size_t)i * ZE_ZEMESH_LOD_MAX;
        uint32_t *cnt = lvl_cnt + (size_t)i * ZE_ZEMESH_LOD_MAX;
        float *err = lvl_err + (size_t)i * ZE_ZEMESH_LOD_MAX;
        off[0] = 0;
        cnt[0] = p->index_count;
        err[0] = 0.0f;
        levels[i] = 1;
        if (lods_on) {
            for (size_t nv = 0; nv < unique; nv++)
                memcpy(pos + nv * 3, p->positions + (size_t)src_of[vo + nv] * 3, 12);
            res = build_lods(ix, p->index_count, pos, unique, lod_count, scratch, &lb, off, cnt,
                             err, &levels[i]);
        }
        for (uint32_t k = 1; k < levels[i]; k++)
            lod_idx_total += cnt[k];
        lod_total += levels[i];
        io += p->index_count;
        vo += (uint32_t)unique;
    }
    ze_free(alloc, remap, vtx_bytes);
    remap = NULL;
    if (res != ZE_OK)
        goto done;
    res = ZE_ERR_LIMIT;
    if (nidx + lod_idx_total > UINT32_MAX)
        goto done;
    const uint64_t nidx_all = nidx + lod_idx_total;
    nvert = kept_total;
    uint32_t offsets[ZE_VATTR_COUNT];
    uint32_t stride = ze_asset_vertex_stride(attrs, offsets);
    size_t part;
    total = HEADER_SIZE + CHECKSUM_SIZE;
    if (!ze_size_mul(nsub, SUBMESH_SIZE, &part) || !ze_size_add(total, part, &total) ||
        !ze_size_mul((size_t)lod_total, LOD_SIZE, &part) || !ze_size_add(total, part, &total) ||
        !ze_size_mul((size_t)nidx_all, 4, &part) || !ze_size_add(total, part, &total) ||
        !ze_size_mul((size_t)nvert, stride, &part) || !ze_size_add(total, part, &total))
        goto done;
    res = ZE_ERR_OUT_OF_MEMORY;
    buf = ze_alloc(alloc, total, 16);
    if (!buf)
        goto done;
    res = ZE_OK;

    ze_vec3_t mn = {INFINITY, INFINITY, INFINITY}, mx = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        mn.x = fminf(mn.x, p->min.x);
        mn.y = fminf(mn.y, p->min.y);
        mn.z = fminf(mn.z, p->min.z);
        mx.x = fmaxf(mx.x, p->max.x);
        mx.y = fmaxf(mx.y, p->max.y);
        mx.z = fmaxf(mx.z, p->max.z);
    }

    wr_t w = {buf};
    put_bytes(&w, g_zemesh_magic, 8);
    put_u32(&w, ZE_ZEMESH_VERSION);
    put_u32(&w, attrs);
    put_bytes(&w, uuid.bytes, 16);
    put_u32(&w, stride);
    put_u32(&w, (uint32_t)nvert);
    put_u32(&w, (uint32_t)nidx_all);
    put_u32(&w, nsub);
    put_vec3(&w, mn);
    put_vec3(&w, mx);
    put_u64(&w, (uint64_t)total);
    put_u32(&w, (uint32_t)lod_total);
    for (int k = 0; k < 3; k++)
        put_u32(&w, 0);

    /* Submeshes: each block holds its levels in order. */
    uint32_t ioff = 0, voff = 0, lfirst = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        const uint32_t *cnt = lvl_cnt + (size_t)i * ZE_ZEMESH_LOD_MAX;
        put_u32(&w, ioff);
        put_u32(&w, p->index_count);
        put_u32(&w, voff);
        put_u32(&w, kept[i]);
        ze_uuid_t mat = {{0}};
        if (p->material >= 0 && material_uuids)
            mat = material_uuids[p->material];
        put_bytes(&w, mat.bytes, 16);
        put_vec3(&w, p->min);
        put_vec3(&w, p->max);
        put_u32(&w, lfirst);
        put_u32(&w, levels[i]);
        for (uint32_t k = 0; k < levels[i]; k++)
            ioff += cnt[k];
        voff += kept[i];
        lfirst += levels[i];
    }
    ioff = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        if (m->primitives[i].skipped)
            continue;
        const uint32_t *cnt = lvl_cnt + (size_t)i * ZE_ZEMESH_LOD_MAX;
        const float *err = lvl_err + (size_t)i * ZE_ZEMESH_LOD_MAX;
        for (uint32_t k = 0; k < levels[i]; k++) {
            put_u32(&w, ioff);
            put_u32(&w, cnt[k]);
            put_f32(&w, err[k]);
            put_u32(&w, 0);
            ioff += cnt[k];
        }
    }
    voff = 0;
    uint32_t io0 = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        const size_t *off = lvl_off + (size_t)i * ZE_ZEMESH_LOD_MAX;
        const uint32_t *cnt = lvl_cnt + (size_t)i * ZE_ZEMESH_LOD_MAX;
        for (uint32_t k = 0; k < p->index_count; k++)
            put_u32(&w, opt_idx[io0 + k] + voff);
        for (uint32_t l = 1; l < levels[i]; l++)
            for (uint32_t k = 0; k < cnt[l]; k++)
                put_u32(&w, lb.idx[off[l] + k] + voff);
        io0 += p->index_count;
        voff += kept[i];
    }
    static const float zero4[4] = {0, 0, 0, 0}, one4[4] = {1, 1, 1, 1};
    static const float tangent_default[4] = {1, 0, 0, 1};
    voff = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        for (uint32_t nv = 0; nv < kept[i]; nv++) {
            size_t v = src_of[voff + nv];
            put_floats(&w, p->positions + v * 3, 3);
            if (attrs & ZE_VATTR_BIT(ZE_VATTR_NORMAL))
                put_floats(&w, p->normals ? p->normals + v * 3 : zero4, 3);
            if (attrs & ZE_VATTR_BIT(ZE_VATTR_TANGENT))
                put_floats(&w, p->tangents ? p->tangents + v * 4 : tangent_default, 4);
            for (int t = 0; t < 2; t++)
                if (attrs & ZE_VATTR_BIT(ZE_VATTR_TEXCOORD0 + t))
                    put_floats(&w, p->texcoords[t] ? p->texcoords[t] + v * 2 : zero4, 2);
            if (attrs & ZE_VATTR_BIT(ZE_VATTR_COLOR0))
                put_floats(&w, p->colors ? p->colors + v * 4 : one4, 4);
            if (attrs & ZE_VATTR_BIT(ZE_VATTR_JOINTS0))
                for (int k = 0; k < 4; k++)
                    put_u16(&w, p->joints ? p->joints[v * 4 + (size_t)k] : 0);
            if (attrs & ZE_VATTR_BIT(ZE_VATTR_WEIGHTS0))
                put_floats(&w, p->weights ? p->weights + v * 4 : zero4, 4);
        }
        voff += kept[i];
    }
    put_u64(&w, ze_hash64(buf, total - CHECKSUM_SIZE, 0));
    ZE_ASSERT((size_t)(w.p - buf) == total);
    *bytes = buf;
    *size = total;
done:
    if (res != ZE_OK && buf)
        ze_free(alloc, buf, total);
    ze_free(alloc, opt_idx, idx_bytes);
    ze_free(alloc, src_of, vtx_bytes);
    ze_free(alloc, remap, vtx_bytes);
    ze_free(alloc, kept, kept_bytes);
    ze_free(alloc, levels, kept_bytes);
    ze_free(alloc, pos, pos_bytes);
    ze_free(alloc, scratch, scratch_bytes);
    ze_free(alloc, lvl_off, lvl_n * sizeof(size_t));
    ze_free(alloc, lvl_cnt, lvl_n * 4);
    ze_free(alloc, lvl_err, lvl_n * 4);
    if (lb.idx)
        ze_free(alloc, lb.idx, lb.cap * 4);
    return res;
}
