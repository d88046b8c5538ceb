/* .zemesh: the cooked mesh format and its bounds-checked reader (the asset
 * runtime); the writer is the cooker's (src/cook/zemesh_write.c).
 *
 * File format, version 2. Little-endian whatever the host; offsets from the
 * start of the file; every section starts on a 4-byte boundary.
 *
 *   header (96 bytes)
 *     0  magic          "ZEMESH" 0x00 0x1a
 *     8  u32 version    2
 *    12  u32 attributes ZE_VATTR_BIT set (POSITION always; no unknown bits)
 *    16  uuid[16]       the mesh's identity
 *    32  u32 stride     bytes per vertex (must match the attributes)
 *    36  u32 vertices
 *    40  u32 indices    triangle-list indices of every level (multiple of 3)
 *    44  u32 submeshes  at least 1
 *    48  f32 min[3], f32 max[3]   bounds of all positions
 *    72  u64 size       bytes of the whole file, checksum included
 *    80  u32 lods       levels of all submeshes together
 *    84  u32 reserved[3] zero
 *   submeshes[submeshes] (64 bytes each)
 *     0  u32 index_offset, u32 index_count (level 0), u32 vertex_offset,
 *        u32 vertex_count
 *    16  uuid[16] material (nil = default)
 *    32  f32 min[3], f32 max[3]
 *    56  u32 lod_first  its first entry in the level table
 *    60  u32 lod_count  [1, ZE_ZEMESH_LOD_MAX]
 *   lods[lods] (16 bytes each), submesh by submesh, finest first
 *     0  u32 index_offset, u32 index_count
 *     8  f32 error      object-space units; level 0: 0; finite,
 *                       non-decreasing within a submesh
 *    12  u32 reserved   zero
 * A submesh's level 0 is its index range; each next level's indices follow
 * the previous level's; the next submesh's follow its last level's (so the
 * submeshes' levels tile the index array in order).
 *
 * Version 1 (still read) has an 80-byte header (no lods, no reserved), 56-
 * byte submeshes (no lod_first, lod_count) and no level table: one level
 * per submesh, error 0.
 *
 *   u32 indices[indices]   absolute vertex numbers; those of a submesh's
 *                          levels lie in its vertex range
 *   vertices[vertices]     interleaved streams in ze_vattr order:
 *                          POSITION f32x3, NORMAL f32x3, TANGENT f32x4,
 *                          TEXCOORD0 f32x2, TEXCOORD1 f32x2, COLOR0 f32x4,
 *                          JOINTS0 u16x4, WEIGHTS0 f32x4
 *   u64 checksum           ze_hash64 (XXH3, seed 0) of everything before it
 *
 * A submesh is a triangle primitive of the source mesh with its own
 * vertices (vertices shared between primitives are duplicated). Each
 * submesh is optimized with meshoptimizer: triangles reordered for the
 * post-transform vertex cache (meshopt_optimizeVertexCache), then vertices
 * renumbered in first-use order for fetch locality
 * (meshopt_optimizeVertexFetchRemap), which also drops vertices no triangle
 * uses. Both are deterministic. Levels past the first (importer setting
 * lod_count) come from meshopt_simplify on level 0, each optimized for the
 * vertex cache again (src/cook/zemesh_write.c). Streams a
 * primitive lacks but another has are filled with defaults: normal 0,
 * tangent (1,0,0,1), texcoords 0, colour (1,1,1,1), joints 0, weights 0.
 */
#include <math.h>
/* The reader streams the checksum (an XXH3_state_t on the stack). */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
/* A libxxhash built with its x86 dispatcher (it then installs this header)
 * hashes with AVX2/AVX-512 where the CPU has them, about twice the speed of
 * the SSE2 code of the plain entry points: the checksum is most of a load's
 * time. Same function, same value. The symbol is weak so that a library
 * without it still links; the plain update is used then. */
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#pragma weak XXH3_64bits_update_dispatch
#define HAVE_XXH_DISPATCH 1
#endif
#endif

#include "asset/asset_internal.h"

#include "asset/zemesh_format.h"

uint32_t ze_asset_vertex_stride(uint32_t attributes, uint32_t offsets[ZE_VATTR_COUNT])
{
    uint32_t off = 0;
    for (int k = 0; k < ZE_VATTR_COUNT; k++) {
        if (offsets)
            offsets[k] = off;
        if (attributes & ZE_VATTR_BIT(k))
            off += g_zemesh_attr_size[k];
    }
    return off;
}

/* ----------------------------------------------------------------- reader */

static ze_vec3_t rd_vec3(const uint8_t *p)
{
    return (ze_vec3_t){ze__rd_f32le(p), ze__rd_f32le(p + 4), ze__rd_f32le(p + 8)};
}

static bool bounds_ok(ze_vec3_t mn, ze_vec3_t mx)
{
    return isfinite(mn.x) && isfinite(mn.y) && isfinite(mn.z) && isfinite(mx.x) && isfinite(mx.y) &&
           isfinite(mx.z) && mn.x <= mx.x && mn.y <= mx.y && mn.z <= mx.z;
}

#define FAIL(code, ...)                                   \
    do {                                                  \
        ze__asset_error_set(err, "zemesh: " __VA_ARGS__); \
        return (code);                                    \
    } while (0)

enum {
    /* Bytes hashed at a time by the fused checksum and index pass: small
     * enough that the indices of a chunk are still in L1/L2 when checked. */
    HASH_CHUNK = 64 * 1024,
};

/* The largest ix[k] - lo (mod 2^32) over n indices: they all lie in
 * [lo, lo + count) iff it is below count (those below lo wrap around).
 * Branch-free, no early exit, so the compiler vectorizes it. */
static inline __attribute__((always_inline)) uint32_t spread_body(const uint32_t *ix, size_t n,
                                                                  uint32_t lo)
{
    uint32_t m = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t d = ix[k] - lo;
        m = d > m ? d : m;
    }
    return m;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE2 has no unsigned 32-bit max (emulated in 7 instructions per 4
 * indices); AVX2's vpmaxud does 8 in one: the check then costs little next
 * to the checksum. */
__attribute__((target("avx2"))) static uint32_t spread_avx2(const uint32_t *ix, size_t n,
                                                            uint32_t lo)
{
    return spread_body(ix, n, lo);
}
#define HAVE_SPREAD_AVX2 1
#endif

static uint32_t index_spread(const uint32_t *ix, size_t n, uint32_t lo)
{
#ifdef HAVE_SPREAD_AVX2
    if (__builtin_cpu_supports("avx2"))
        return spread_avx2(ix, n, lo);
#endif
    return spread_body(ix, n, lo);
}

/* Everything after the checksum: header fields, the submesh and level
 * tables and, unless check_indices is false, the index ranges of every
 * submesh, in the order (and with the messages) of the format's checks.
 * Only reads inside the `size` bytes, so it may run before the checksum is
 * verified. The caller checked the size against the version's header. */
static ze_result check_layout(const uint8_t *b, size_t size, uint32_t version, bool check_indices,
                              ze_zemesh_view_t *out, ze__asset_error_t *err)
{
    ze_zemesh_view_t v;
    memset(&v, 0, sizeof v);
    v.version = version;
    v.attributes = ze__rd_u32le(b + 12);
    memcpy(v.uuid.bytes, b + 16, 16);
    v.vertex_stride = ze__rd_u32le(b + 32);
    v.vertex_count = ze__rd_u32le(b + 36);
    v.index_count = ze__rd_u32le(b + 40);
    v.submesh_count = ze__rd_u32le(b + 44);
    v.min = rd_vec3(b + 48);
    v.max = rd_vec3(b + 60);
    const bool v1 = version == 1;
    const size_t header = v1 ? HEADER_SIZE_V1 : HEADER_SIZE;
    const size_t sub_size = v1 ? SUBMESH_SIZE_V1 : SUBMESH_SIZE;
    v.lod_total = v1 ? v.submesh_count : ze__rd_u32le(b + 80);
    if (v.attributes >> ZE_VATTR_COUNT)
        FAIL(ZE_ERR_PARSE, "unknown attribute bits 0x%x", v.attributes);
    if (!(v.attributes & ZE_VATTR_BIT(ZE_VATTR_POSITION)))
        FAIL(ZE_ERR_PARSE, "no POSITION stream");
    if (v.vertex_stride != ze_asset_vertex_stride(v.attributes, v.attribute_offset))
        FAIL(ZE_ERR_PARSE, "vertex stride %u does not match the attributes", v.vertex_stride);
    if (v.submesh_count == 0)
        FAIL(ZE_ERR_PARSE, "no submeshes");
    if (v.index_count % 3 != 0)
        FAIL(ZE_ERR_PARSE, "index count %u is not a multiple of 3", v.index_count);
    if (!bounds_ok(v.min, v.max))
        FAIL(ZE_ERR_PARSE, "invalid bounds");
    if (!v1 && (ze__rd_u32le(b + 84) | ze__rd_u32le(b + 88) | ze__rd_u32le(b + 92)) != 0)
        FAIL(ZE_ERR_PARSE, "reserved header bytes are not zero");
    size_t expect = header + CHECKSUM_SIZE, part;
    if (!ze_size_mul(v.submesh_count, sub_size, &part) || !ze_size_add(expect, part, &expect) ||
        !ze_size_mul(v1 ? 0 : v.lod_total, LOD_SIZE, &part) ||
        !ze_size_add(expect, part, &expect) || !ze_size_mul(v.index_count, 4, &part) ||
        !ze_size_add(expect, part, &expect) ||
        !ze_size_mul(v.vertex_count, v.vertex_stride, &part) ||
        !ze_size_add(expect, part, &expect) || expect != size)
        FAIL(ZE_ERR_PARSE, "section sizes do not add up to the file size");
    const uint8_t *subs = b + header;
    v.submeshes_ = subs;
    v.lods_ = v1 ? NULL : subs + (size_t)v.submesh_count * sub_size;
    v.indices = (const uint32_t *)(const void *)(subs + (size_t)v.submesh_count * sub_size +
                                                 (v1 ? 0 : (size_t)v.lod_total * LOD_SIZE));
    v.vertices = (const uint8_t *)(v.indices + v.index_count);

    uint64_t next_index = 0, next_vertex = 0, next_lod = 0;
    for (uint32_t i = 0; i < v.submesh_count; i++) {
        if (!v1) {
            /* The level table entries, before ze_asset_zemesh_submesh
               reads them. */
            const uint8_t *p = subs + (size_t)i * sub_size;
            const uint32_t first = ze__rd_u32le(p + 56), n = ze__rd_u32le(p + 60);
            if (n == 0 || n > ZE_ZEMESH_LOD_MAX)
                FAIL(ZE_ERR_PARSE, "submesh %u has %u levels of detail (1 to %d)", i, n,
                     ZE_ZEMESH_LOD_MAX);
            if (first != next_lod || next_lod + n > v.lod_total)
                FAIL(ZE_ERR_PARSE, "submesh %u: levels %u..%u are not the next in the table of %u",
                     i, first, first + n - 1, v.lod_total);
            next_lod += n;
        }
        ze_zemesh_submesh_t s;
        ze_asset_zemesh_submesh(&v, i, &s);
        /* Submeshes tile the index and vertex arrays in order. */
        if (s.index_offset != next_index || s.vertex_offset != next_vertex)
            FAIL(ZE_ERR_PARSE, "submesh %u does not follow the previous one", i);
        if (s.index_count == 0 || s.index_count % 3 != 0 || s.vertex_count == 0)
            FAIL(ZE_ERR_PARSE, "submesh %u has %u indices and %u vertices", i, s.index_count,
                 s.vertex_count);
        next_vertex += s.vertex_count;
        if (next_vertex > v.vertex_count)
            FAIL(ZE_ERR_PARSE, "submesh %u runs past the index or vertex array", i);
        if (!bounds_ok(s.min, s.max))
            FAIL(ZE_ERR_PARSE, "submesh %u has invalid bounds", i);
        for (uint32_t k = 0; k < s.lod_count; k++) {
            const ze_zemesh_lod_t *l = &s.lods[k];
            if (k == 0 && l->index_count != s.index_count)
                FAIL(ZE_ERR_PARSE, "submesh %u: level 0 has %u indices, the submesh %u", i,
                     l->index_count, s.index_count);
            if (l->index_offset != next_index)
                FAIL(ZE_ERR_PARSE, "submesh %u level %u does not follow the previous level", i, k);
            if (l->index_count == 0 || l->index_count % 3 != 0)
                FAIL(ZE_ERR_PARSE, "submesh %u level %u has %u indices", i, k, l->index_count);
            next_index += l->index_count;
            if (next_index > v.index_count)
                FAIL(ZE_ERR_PARSE, "submesh %u runs past the index or vertex array", i);
            if (!isfinite(l->error) || (k == 0 && l->error != 0.0f) ||
                (k > 0 && !(l->error >= s.lods[k - 1].error)))
                FAIL(ZE_ERR_PARSE,
                     "submesh %u level %u: error %g is not finite, not 0 at level 0 or below "
                     "the previous level's",
                     i, k, (double)l->error);
            if (!v1 &&
                ze__rd_u32le(v.lods_ + (size_t)(next_lod - s.lod_count + k) * LOD_SIZE + 12) != 0)
                FAIL(ZE_ERR_PARSE, "submesh %u level %u: reserved bytes are not zero", i, k);
        }
        if (!check_indices)
            continue;
        /* lo + vertex_count cannot wrap: next_vertex <= v.vertex_count. */
        const uint32_t *ix = v.indices + s.index_offset;
        const uint32_t block = (uint32_t)(next_index - s.index_offset);
        const uint32_t lo = s.vertex_offset, hi = s.vertex_offset + s.vertex_count;
        if (index_spread(ix, block, lo) < s.vertex_count)
            continue;
        for (uint32_t k = 0; k < block; k++) /* the first culprit, for the message */
            if (ix[k] < lo || ix[k] >= hi)
                FAIL(ZE_ERR_PARSE, "submesh %u: index %u at %u is outside its vertices", i, ix[k],
                     k);
    }
    if (next_lod != (v1 ? 0 : v.lod_total))
        FAIL(ZE_ERR_PARSE, "submeshes use %llu of the %u levels of detail",
             (unsigned long long)next_lod, v.lod_total);
    if (next_index != v.index_count || next_vertex != v.vertex_count)
        FAIL(ZE_ERR_PARSE, "submeshes do not cover every index and vertex");
    *out = v;
    return ZE_OK;
}

/* One past a submesh's last index: the end of its last level. */
static size_t block_end(const ze_zemesh_submesh_t *s)
{
    const ze_zemesh_lod_t *l = &s->lods[s->lod_count - 1];
    return (size_t)l->index_offset + l->index_count;
}

static void hash_update(XXH3_state_t *st, const void *p, size_t n)
{
#ifdef HAVE_XXH_DISPATCH
    if (XXH3_64bits_update_dispatch) {
        (void)XXH3_64bits_update_dispatch(st, p, n);
        return;
    }
#endif
    (void)XXH3_64bits_update(st, p, n);
}

/* The checksum of the first len bytes of a file whose layout check_layout
 * accepted (v), fused with the index range check: each chunk's indices are
 * checked right after the chunk is hashed, while it is still in cache, which
 * saves a second pass over memory. *indices_ok: every submesh's indices lie
 * in its vertex range. Streaming XXH3 with seed 0 gives the value of
 * ze_hash64(b, len, 0) (XXH3_64bits_withSeed), which the format fixes. */
static uint64_t hash_and_check_indices(const uint8_t *b, size_t len, const ze_zemesh_view_t *v,
                                       bool *indices_ok)
{
    XXH3_state_t st;
    XXH3_64bits_reset_withSeed(&st, 0);
    const uint8_t *ibeg = (const uint8_t *)v->indices;
    const uint8_t *iend = (const uint8_t *)(v->indices + v->index_count);
    uint32_t sub = 0, spread = 0;
    ze_zemesh_submesh_t s;
    ze_asset_zemesh_submesh(v, 0, &s);
    bool ok = true;
    for (size_t off = 0; off < len; off += HASH_CHUNK) {
        const size_t n = len - off < HASH_CHUNK ? len - off : HASH_CHUNK;
        hash_update(&st, b + off, n);
        const uint8_t *lo = b + off > ibeg ? b + off : ibeg;
        const uint8_t *hi = b + off + n < iend ? b + off + n : iend;
        if (!ok || lo >= hi)
            continue;
        /* Indices [k, k1) of this chunk (HASH_CHUNK and the index array's
           offset are multiples of 4), split at submesh ends. */
        size_t k = (size_t)(lo - ibeg) / 4;
        const size_t k1 = (size_t)(hi - ibeg) / 4;
        while (k < k1) {
            const size_t send = block_end(&s);
            const size_t seg = (send < k1 ? send : k1) - k;
            const uint32_t d = index_spread(v->indices + k, seg, s.vertex_offset);
            spread = d > spread ? d : spread;
            k += seg;
            if (k == send) {
                if (spread >= s.vertex_count) {
                    ok = false;
                    break;
                }
                spread = 0;
                if (++sub < v->submesh_count)
                    ze_asset_zemesh_submesh(v, sub, &s);
            }
        }
    }
    *indices_ok = ok;
    return XXH3_64bits_digest(&st);
}

ze_result ze__asset_zemesh_read(const void *data, size_t size, ze_zemesh_view_t *out,
                                ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(out != NULL && (data != NULL || size == 0), ZE_ERR_INVALID_ARG);
    const uint8_t *b = data;
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    if (first != 1)
        FAIL(ZE_ERR_UNSUPPORTED, "views need a little-endian host");
    if (((uintptr_t)b & 3u) != 0)
        FAIL(ZE_ERR_INVALID_ARG, "data must be 4-byte aligned");
    if (size < HEADER_SIZE_V1 + CHECKSUM_SIZE)
        FAIL(ZE_ERR_PARSE, "truncated: %zu bytes, shorter than the header", size);
    if (memcmp(b, g_zemesh_magic, 8) != 0)
        FAIL(ZE_ERR_PARSE, "bad magic (not a .zemesh file)");
    uint32_t version = ze__rd_u32le(b + 8);
    if (version != 1 && version != ZE_ZEMESH_VERSION)
        FAIL(ZE_ERR_UNSUPPORTED, "format version %u is not supported (this reader: 1 to %u)",
             version, ZE_ZEMESH_VERSION);
    if (version != 1 && size < HEADER_SIZE + CHECKSUM_SIZE)
        FAIL(ZE_ERR_PARSE, "truncated: %zu bytes, shorter than the header", size);
    uint64_t declared = ze__rd_u64le(b + 72);
    if (declared != size)
        FAIL(ZE_ERR_PARSE, "truncated or padded: the header says %llu bytes, there are %zu",
             (unsigned long long)declared, size);
    uint64_t sum = ze__rd_u64le(b + size - CHECKSUM_SIZE);
    ze_zemesh_view_t v;
    ze__asset_error_t layout_err;
    /* A sound layout (checked first, its verdict kept for after the
       checksum) allows the one fused pass; otherwise hash, then report what
       the checks in their order find. A bad checksum wins either way. */
    if (check_layout(b, size, version, false, &v, &layout_err) == ZE_OK) {
        bool indices_ok;
        if (sum != hash_and_check_indices(b, size - CHECKSUM_SIZE, &v, &indices_ok))
            FAIL(ZE_ERR_PARSE, "checksum mismatch (the file is corrupted)");
        if (indices_ok) {
            *out = v;
            return ZE_OK;
        }
    } else if (sum != ze_hash64(b, size - CHECKSUM_SIZE, 0)) {
        FAIL(ZE_ERR_PARSE, "checksum mismatch (the file is corrupted)");
    }
    ze_result r = check_layout(b, size, version, true, &v, err);
    if (r == ZE_OK)
        *out = v;
    return r;
}

void ze_asset_zemesh_submesh(const ze_zemesh_view_t *view, uint32_t i, ze_zemesh_submesh_t *out)
{
    const bool v1 = view->version == 1;
    const uint8_t *p = view->submeshes_ + (size_t)i * (v1 ? SUBMESH_SIZE_V1 : SUBMESH_SIZE);
    memset(out, 0, sizeof *out);
    out->index_offset = ze__rd_u32le(p);
    out->index_count = ze__rd_u32le(p + 4);
    out->vertex_offset = ze__rd_u32le(p + 8);
    out->vertex_count = ze__rd_u32le(p + 12);
    memcpy(out->material.bytes, p + 16, 16);
    out->min = rd_vec3(p + 32);
    out->max = rd_vec3(p + 44);
    if (v1) {
        out->lod_count = 1;
        out->lods[0] = (ze_zemesh_lod_t){out->index_offset, out->index_count, 0.0f};
        return;
    }
    const uint32_t first = ze__rd_u32le(p + 56), n = ze__rd_u32le(p + 60);
    out->lod_count = n < ZE_ZEMESH_LOD_MAX ? n : ZE_ZEMESH_LOD_MAX;
    for (uint32_t k = 0; k < out->lod_count; k++) {
        const uint8_t *l = view->lods_ + ((size_t)first + k) * LOD_SIZE;
        out->lods[k] = (ze_zemesh_lod_t){ze__rd_u32le(l), ze__rd_u32le(l + 4), ze__rd_f32le(l + 8)};
    }
}
