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

ze_result ze_asset_zemesh_write(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                const ze_uuid_t *material_uuids, ze_allocator_t alloc,
                                uint8_t **bytes, size_t *size)
{
    ZE_CHECK(model && bytes && size && mesh < model->mesh_count, ZE_ERR_INVALID_ARG);
    alloc = ze__asset_alloc_or_default(alloc);
    const ze_model_mesh_t *m = &model->meshes[mesh];
    uint32_t attrs = ZE_VATTR_BIT(ZE_VATTR_POSITION), nsub = 0;
    uint64_t nvert = 0, nidx = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        attrs |= p->attributes;
        nsub++;
        nvert += p->vertex_count;
        nidx += p->index_count;
    }
    if (nsub == 0)
        return ZE_ERR_NOT_FOUND;
    if (nvert > UINT32_MAX || nidx > UINT32_MAX)
        return ZE_ERR_LIMIT;
    /* meshoptimizer, per primitive: opt_idx holds the optimized indices
       (local to the primitive), src_of[new] the source vertex of each kept
       vertex, kept[i] the primitive's kept vertex count. */
    size_t idx_bytes = (size_t)nidx * 4 + 4, vtx_bytes = (size_t)nvert * 4 + 4,
           kept_bytes = (size_t)m->primitive_count * 4 + 4;
    uint32_t *opt_idx = ze_alloc(alloc, idx_bytes, 16);
    uint32_t *src_of = ze_alloc(alloc, vtx_bytes, 16);
    uint32_t *remap = ze_alloc(alloc, vtx_bytes, 16);
    uint32_t *kept = ze_alloc(alloc, kept_bytes, 16);
    ze_result res = opt_idx && src_of && remap && kept ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
    uint64_t kept_total = 0;
    for (uint32_t i = 0, io = 0, vo = 0; res == ZE_OK && i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        kept[i] = 0;
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
        io += p->index_count;
        vo += (uint32_t)unique;
    }
    if (res != ZE_OK) {
        ze_free(alloc, opt_idx, idx_bytes);
        ze_free(alloc, src_of, vtx_bytes);
        ze_free(alloc, remap, vtx_bytes);
        ze_free(alloc, kept, kept_bytes);
        return res;
    }
    ze_free(alloc, remap, vtx_bytes);
    remap = NULL;
    nvert = kept_total;
    uint32_t offsets[ZE_VATTR_COUNT];
    uint32_t stride = ze_asset_vertex_stride(attrs, offsets);
    size_t total = HEADER_SIZE + CHECKSUM_SIZE, part;
    if (!ze_size_mul(nsub, SUBMESH_SIZE, &part) || !ze_size_add(total, part, &total) ||
        !ze_size_mul((size_t)nidx, 4, &part) || !ze_size_add(total, part, &total) ||
        !ze_size_mul((size_t)nvert, stride, &part) || !ze_size_add(total, part, &total)) {
        ze_free(alloc, opt_idx, idx_bytes);
        ze_free(alloc, src_of, vtx_bytes);
        ze_free(alloc, kept, kept_bytes);
        return ZE_ERR_LIMIT;
    }
    uint8_t *buf = ze_alloc(alloc, total, 16);
    if (!buf) {
        ze_free(alloc, opt_idx, idx_bytes);
        ze_free(alloc, src_of, vtx_bytes);
        ze_free(alloc, kept, kept_bytes);
        return ZE_ERR_OUT_OF_MEMORY;
    }

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
    put_u32(&w, (uint32_t)nidx);
    put_u32(&w, nsub);
    put_vec3(&w, mn);
    put_vec3(&w, mx);
    put_u64(&w, (uint64_t)total);

    uint32_t ioff = 0, voff = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
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
        ioff += p->index_count;
        voff += kept[i];
    }
    voff = 0;
    ioff = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const ze_model_primitive_t *p = &m->primitives[i];
        if (p->skipped)
            continue;
        for (uint32_t k = 0; k < p->index_count; k++)
            put_u32(&w, opt_idx[ioff + k] + voff);
        ioff += p->index_count;
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
    ze_free(alloc, opt_idx, idx_bytes);
    ze_free(alloc, src_of, vtx_bytes);
    ze_free(alloc, kept, kept_bytes);
    put_u64(&w, ze_hash64(buf, total - CHECKSUM_SIZE, 0));
    ZE_ASSERT((size_t)(w.p - buf) == total);
    *bytes = buf;
    *size = total;
    return ZE_OK;
}
