/* World snapshots: binary save and load of a whole world, formatters and
 * schema migrations.
 *
 * File format, version 1. Every integer of the framing is little-endian
 * whatever the host; offsets are from the start of the snapshot.
 *
 *   header (48 bytes)
 *     0  magic        "ZESNAP" 0x00 0x1a
 *     8  u32 format   1
 *    12  u32 order    0x01020304: raw records are little-endian (0x04030201:
 *                     big-endian); raw component bytes are copied as the
 *                     host lays them out, so a file is only loaded on a host
 *                     of the same byte order (ZE_ERR_UNSUPPORTED otherwise)
 *    16  u32 flags    0 (any other bit: ZE_ERR_UNSUPPORTED)
 *    20  u32 sections
 *    24  u32 fresh    entity slots ever handed out (the table's length)
 *    28  u32 alive
 *    32  u32 free     length of the free list
 *    36  u32 retired  dead slots that are not on the free list
 *    40  u64 size     bytes of the whole snapshot, checksum included
 *   entity table
 *     u32 gen[fresh]  each slot's generation word, ZE__GEN_DEAD bit included
 *     u32 free_list[free]  dead slots in the order entity_create takes them
 *   sections, one per non-transient component type with entities, by
 *   ascending stable id (32 bytes + name + payload each)
 *     0  u64 stable_id
 *     8  u32 schema   the component's schema version when saved
 *    12  u32 count    records
 *    16  u32 record   bytes of each raw record, or 0xffffffff: records
 *                     written by a formatter, each prefixed by its length
 *    20  u32 name_len 1..63 (the component's name, for messages only: the
 *                     stable id is what matches)
 *    24  u64 payload  bytes of the records
 *    32  name[name_len], then `count` records by ascending entity index:
 *        u32 entity index, then `record` bytes, or u32 length + bytes
 *   u64 checksum      ze_hash64 (XXH3, 64-bit, seed 0) of everything before
 *
 * Records are ordered by entity index, not by storage order, so a loaded
 * world saves to the same bytes whatever order its pools ended up in (owning
 * groups reorder dense arrays). Tags are raw records of 0 bytes. Transient
 * components are not written. A component with dtor/copy/move hooks holds
 * something raw bytes cannot carry (a pointer, a handle): it needs a
 * formatter, else save and load refuse it (ZE_ERR_UNSUPPORTED).
 *
 * Load validates everything before it changes the world: header, checksum,
 * the table (generations non-zero, free list in range, dead, without
 * repeats, retired slots at the last generation, counts consistent, `fresh`
 * within the world's capacity), then each section (stable id known to the
 * kernel, schema version equal or upgradable by registered migrations,
 * records in range, ascending, of alive entities, raw sizes equal to the
 * component's, formatter records read completely by the formatter into a
 * scratch value). Only then is the world replaced: every entity destroyed
 * (dtors run), the table restored (so entities created afterwards get the
 * same handles as in the saved world), the components inserted through the
 * public API (packs and bindings see them as adds). Formatter reads
 * therefore run twice per record, and must depend on their input only. The
 * one failure after validation is running out of memory while inserting: the
 * world then holds part of the snapshot and ZE_ERR_OUT_OF_MEMORY is
 * returned. Actors are not saved; the entities of existing actors are
 * replaced like any other. */
#include <string.h>

#include "ecs_internal.h"

uint8_t *ze__byte_reserve(ze_byte_writer_t *w, size_t extra);

#define NO_SLOT UINT32_MAX

enum {
    FORMAT_VERSION = 1,
    HEADER_SIZE = 48,
    SECTION_HEAD = 32,
    CHECKSUM_SIZE = 8,
    ORDER_LE = 0x01020304u,
    ORDER_BE = 0x04030201u,
    MAX_RECORD_SIZE = 1u << 20, /* the registry's component size limit */
};
#define FORMATTED 0xffffffffu

static const uint8_t k_magic[8] = {'Z', 'E', 'S', 'N', 'A', 'P', 0x00, 0x1a};

/* -------------------------------------------------------- little endian */

static inline void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void put_u64(uint8_t *p, uint64_t v)
{
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}
static bool write_u32(ze_byte_writer_t *o, uint32_t v)
{
    uint8_t b[4];
    put_u32(b, v);
    return ze_byte_write(o, b, 4);
}
static bool read_u32(ze_byte_reader_t *r, uint32_t *v)
{
    uint8_t b[4];
    if (!ze_byte_read(r, b, 4))
        return false;
    *v = get_u32(b);
    return true;
}
static bool read_u64(ze_byte_reader_t *r, uint64_t *v)
{
    uint8_t b[8];
    if (!ze_byte_read(r, b, 8))
        return false;
    *v = get_u64(b);
    return true;
}

static uint32_t host_order(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return ORDER_BE;
#else
    return ORDER_LE;
#endif
}

/* Components whose bytes cannot be copied raw: they own something. */
static bool needs_formatter(const ze_component_info_t *info)
{
    return info->size && (info->hooks.dtor || info->hooks.copy || info->hooks.move);
}

/* ----------------------------------------------------------- migrations */

typedef struct migration_t {
    uint64_t stable_id;
    uint32_t from;
    ze_migration_fn fn;
    void *user;
} migration_t;

struct ze__migrations_t {
    migration_t *items;
    uint32_t count, cap;
};

static const migration_t *find_migration(const ze_kernel_t *k, uint64_t stable_id, uint32_t from)
{
    const ze__migrations_t *m = k->migrations;
    for (uint32_t i = 0; m && i < m->count; i++)
        if (m->items[i].stable_id == stable_id && m->items[i].from == from)
            return &m->items[i];
    return NULL;
}

ze_result ze_snapshot_add_migration(ze_kernel_t *k, uint64_t stable_id, uint32_t from_version,
                                    ze_migration_fn fn, void *user)
{
    if (!k || !fn || from_version == 0 || from_version == UINT32_MAX)
        return ZE_ERR_INVALID_ARG;
    if (find_migration(k, stable_id, from_version)) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_EXISTS,
                          "snapshot migration of %016llx from version %u already added",
                          (unsigned long long)stable_id, from_version);
        return ZE_ERR_EXISTS;
    }
    ze__migrations_t *m = k->migrations;
    if (!m) {
        m = ze_alloc(k->alloc, sizeof *m, _Alignof(ze__migrations_t));
        if (!m)
            return ZE_ERR_OUT_OF_MEMORY;
        memset(m, 0, sizeof *m);
        k->migrations = m;
    }
    if (m->count == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 8;
        migration_t *items = ze_realloc(k->alloc, m->items, sizeof *items * m->cap,
                                        sizeof *items * cap, _Alignof(migration_t));
        if (!items)
            return ZE_ERR_OUT_OF_MEMORY;
        m->items = items;
        m->cap = cap;
    }
    m->items[m->count++] = (migration_t){stable_id, from_version, fn, user};
    return ZE_OK;
}

void ze__migrations_fini(ze_kernel_t *k)
{
    if (!k || !k->migrations)
        return;
    ze__migrations_t *m = k->migrations;
    ze_free(k->alloc, m->items, sizeof *m->items * m->cap);
    ze_free(k->alloc, m, sizeof *m);
    k->migrations = NULL;
}

ze_result ze_component_set_formatter(ze_kernel_t *k, ze_component_t c,
                                     const ze_component_formatter_t *f)
{
    if (!k || c.id >= k->component_count)
        return ZE_ERR_INVALID_ARG;
    if (!f || (!f->write && !f->read)) {
        ze__rec(k, c.id)->formatter = (ze_component_formatter_t){0};
        return ZE_OK;
    }
    if (!f->write || !f->read || !ze__info(k, c.id)->size) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                          "formatter of '%s': needs both write and read, and data",
                          ze__info(k, c.id)->name);
        return ZE_ERR_INVALID_ARG;
    }
    ze__rec(k, c.id)->formatter = *f;
    return ZE_OK;
}

/* ----------------------------------------------------------------- save */

/* True when the pool's dense entities are in ascending index order, so
 * records can be written by walking the dense arrays. */
static bool dense_sorted(const ze__pool_t *p)
{
    for (uint32_t d = 1; d < p->count; d++)
        if (ze__pool_entity(p, d) <= ze__pool_entity(p, d - 1))
            return false;
    return true;
}

static ze_result save_raw_records(const ze_world_t *w, const ze__pool_t *p, ze_byte_writer_t *out)
{
    size_t rec = 4 + (size_t)p->size;
    uint8_t *dst = ze__byte_reserve(out, rec * p->count);
    if (!dst)
        return ZE_ERR_OUT_OF_MEMORY;
    if (dense_sorted(p)) {
        for (uint32_t d = 0; d < p->count; d++, dst += rec) {
            put_u32(dst, ze__pool_entity(p, d));
            if (p->size)
                memcpy(dst + 4, ze__pool_data(p, d), p->size);
        }
    } else {
        for (uint32_t idx = 0; idx < w->fresh; idx++) {
            if ((w->gen[idx] & ZE__GEN_DEAD) || !ze__bit_get(ze__row(w, idx), p->bit))
                continue;
            put_u32(dst, idx);
            if (p->size)
                memcpy(dst + 4, ze__pool_data(p, ze__sparse_get(p, idx) - 1), p->size);
            dst += rec;
        }
    }
    out->size += rec * p->count;
    return ZE_OK;
}

static ze_result save_formatted_records(const ze_world_t *w, const ze__pool_t *p,
                                        const ze_component_formatter_t *f, ze_byte_writer_t *out)
{
    for (uint32_t idx = 0; idx < w->fresh; idx++) {
        if ((w->gen[idx] & ZE__GEN_DEAD) || !ze__bit_get(ze__row(w, idx), p->bit))
            continue;
        write_u32(out, idx);
        size_t at = out->size;
        write_u32(out, 0); /* length, patched below */
        if (out->failed)
            return ZE_ERR_OUT_OF_MEMORY;
        ze_result r = f->write(out, ze__pool_data(p, ze__sparse_get(p, idx) - 1), f->user);
        if (r != ZE_OK) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                            "snapshot formatter of '%s' failed (%s)",
                            ze__info(w->kernel, p->id)->name, ze_result_str(r));
            return r;
        }
        if (out->failed)
            return ZE_ERR_OUT_OF_MEMORY;
        size_t len = out->size - at - 4;
        if (len > UINT32_MAX - 1) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_LIMIT, "a '%s' record is over 4 GiB",
                            ze__info(w->kernel, p->id)->name);
            return ZE_ERR_LIMIT;
        }
        put_u32(out->data + at, (uint32_t)len);
    }
    return ZE_OK;
}

static ze_result save_body(ze_world_t *w, ze_byte_writer_t *out, uint32_t *order, uint32_t *count);

ze_result ze_world_save(const ze_world_t *cw, ze_byte_writer_t *out)
{
    ZE__ECS_THREAD_CHECK();
    if (!cw || !out)
        return ZE_ERR_INVALID_ARG;
    /* The gate only reads the world's atomics; settling deferred destroys
     * (pool walks below) changes storage, not content. Worlds are never
     * const objects (ze_world_create allocates them). */
    ze_world_t *w = (ze_world_t *)cw;
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        ze_world_report(cw, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "snapshot save during an iteration or parallel wave");
        return ZE_ERR_STATE;
    }
    ze__world_settle(w);
    if (out->failed)
        return ZE_ERR_OUT_OF_MEMORY;

    /* Sections: pools with entities, non-transient, by stable id. */
    size_t order_bytes = sizeof(uint32_t) * ZE_MAX(w->pool_count, 1u);
    uint32_t *order = ze_alloc(w->alloc, order_bytes, _Alignof(uint32_t)), n = 0;
    if (!order)
        return ZE_ERR_OUT_OF_MEMORY;
    ze_result result = save_body(w, out, order, &n);
    ze_free(w->alloc, order, order_bytes);
    return result;
}

static ze_result save_body(ze_world_t *w, ze_byte_writer_t *out, uint32_t *order, uint32_t *count)
{
    const ze_kernel_t *k = w->kernel;
    uint32_t n = 0;
    for (uint32_t b = 0; b < w->pool_count; b++) {
        uint32_t c = w->pool_list[b]->id;
        const ze_component_info_t *info = ze__info(k, c);
        if (!w->pool_list[b]->count || (info->flags & ZE_COMPONENT_TRANSIENT))
            continue;
        if (needs_formatter(info) && !ze__rec(k, c)->formatter.write) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_UNSUPPORTED,
                            "component '%s' has dtor/copy/move hooks and no snapshot "
                            "formatter: its bytes cannot be saved raw",
                            info->name);
            return ZE_ERR_UNSUPPORTED;
        }
        uint32_t i = n++;
        for (; i > 0 && ze__info(k, order[i - 1])->stable_id > info->stable_id; i--)
            order[i] = order[i - 1];
        order[i] = c;
    }
    *count = n;

    /* The free list, in order (it is bounded by the dead slots). */
    uint32_t dead = w->fresh - w->alive, free_count = 0;
    for (uint32_t s = w->free_head; s != NO_SLOT; s = ze__free_next(w, s)) {
        if (s >= w->fresh || free_count > dead) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INTERNAL, "corrupt free list");
            return ZE_ERR_INTERNAL;
        }
        free_count++;
    }

    size_t start = out->size;
    uint8_t *h = ze__byte_reserve(out, HEADER_SIZE + ((size_t)w->fresh + free_count) * 4);
    if (!h)
        return ZE_ERR_OUT_OF_MEMORY;
    memcpy(h, k_magic, 8);
    put_u32(h + 8, FORMAT_VERSION);
    put_u32(h + 12, host_order());
    put_u32(h + 16, 0);
    put_u32(h + 20, n);
    put_u32(h + 24, w->fresh);
    put_u32(h + 28, w->alive);
    put_u32(h + 32, free_count);
    put_u32(h + 36, w->retired);
    put_u64(h + 40, 0); /* size, patched at the end */
    uint8_t *t = h + HEADER_SIZE;
    for (uint32_t i = 0; i < w->fresh; i++, t += 4)
        put_u32(t, w->gen[i]);
    for (uint32_t s = w->free_head; s != NO_SLOT; s = ze__free_next(w, s), t += 4)
        put_u32(t, s);
    out->size += HEADER_SIZE + ((size_t)w->fresh + free_count) * 4;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = order[i];
        const ze_component_info_t *info = ze__info(k, c);
        const ze__pool_t *p = w->pools[c];
        const ze_component_formatter_t *f = &ze__rec(k, c)->formatter;
        bool formatted = f->write && info->size;
        uint32_t name_len = (uint32_t)strlen(info->name);
        size_t at = out->size;
        uint8_t *s = ze__byte_reserve(out, SECTION_HEAD + name_len);
        if (!s)
            return ZE_ERR_OUT_OF_MEMORY;
        put_u64(s, info->stable_id);
        put_u32(s + 8, info->schema_version);
        put_u32(s + 12, p->count);
        put_u32(s + 16, formatted ? FORMATTED : info->size);
        put_u32(s + 20, name_len);
        put_u64(s + 24, 0); /* payload, patched below */
        memcpy(s + SECTION_HEAD, info->name, name_len);
        out->size += SECTION_HEAD + name_len;
        size_t payload_at = out->size;
        ze_result r =
            formatted ? save_formatted_records(w, p, f, out) : save_raw_records(w, p, out);
        if (r != ZE_OK)
            return r;
        put_u64(out->data + at + 24, (uint64_t)(out->size - payload_at));
    }

    uint8_t *end = ze__byte_reserve(out, CHECKSUM_SIZE);
    if (!end)
        return ZE_ERR_OUT_OF_MEMORY;
    put_u64(out->data + start + 40, (uint64_t)(out->size - start + CHECKSUM_SIZE));
    put_u64(end, ze_hash64(out->data + start, out->size - start, 0));
    out->size += CHECKSUM_SIZE;
    return ZE_OK;
}

/* ----------------------------------------------------------------- load */

/* Records of one section: fixed-size (raw) or each prefixed by its length
 * (formatter output, migration output). */
typedef struct rec_iter_t {
    const uint8_t *p;
    size_t size, pos;
    uint32_t record; /* fixed size, or FORMATTED */
} rec_iter_t;

static bool rec_next(rec_iter_t *it, uint32_t *idx, const uint8_t **bytes, uint32_t *len)
{
    size_t left = it->size - it->pos;
    if (left < 4)
        return false;
    *idx = get_u32(it->p + it->pos);
    it->pos += 4;
    left -= 4;
    uint32_t n = it->record;
    if (n == FORMATTED) {
        if (left < 4)
            return false;
        n = get_u32(it->p + it->pos);
        it->pos += 4;
        left -= 4;
    }
    if (n > left)
        return false;
    *bytes = it->p + it->pos;
    *len = n;
    it->pos += n;
    return true;
}

typedef struct section_t {
    uint32_t comp;
    uint32_t count;
    rec_iter_t recs;           /* the records to insert (final schema) */
    ze_byte_writer_t migrated; /* owns recs.p when the section was upgraded */
} section_t;

typedef struct loader_t {
    ze_world_t *w;
    const ze_kernel_t *k;
    const uint8_t *gen; /* the file's table, little-endian */
    const uint8_t *free_list;
    uint32_t fresh, alive, free_count, retired, section_count;
    section_t *sections; /* [section_cap] */
    uint32_t section_cap;
    uint64_t *on_free_list; /* bitmap over the table */
    size_t bitmap_bytes;
    void *temp; /* one value, for checking formatter records */
    size_t temp_size;
} loader_t;

#define REJECT(L, res, ...) reject((L), (res), __VA_ARGS__)
__attribute__((format(printf, 3, 4))) static ze_result reject(const loader_t *L, ze_result res,
                                                              const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ze_world_report(L->w, ZE_LOG_ERROR, ZE_ERR_PARSE, "snapshot rejected (world unchanged): %s",
                    msg);
    return res;
}

static void loader_free(loader_t *L)
{
    ze_allocator_t a = L->w->alloc;
    for (uint32_t i = 0; i < L->section_count; i++)
        ze_byte_writer_free(&L->sections[i].migrated);
    if (L->sections)
        ze_free(a, L->sections, sizeof(section_t) * L->section_cap);
    if (L->on_free_list)
        ze_free(a, L->on_free_list, L->bitmap_bytes);
    if (L->temp)
        ze_free(a, L->temp, L->temp_size);
}

static inline uint32_t file_gen(const loader_t *L, uint32_t idx)
{
    return get_u32(L->gen + (size_t)idx * 4);
}

static ze_result check_table(loader_t *L)
{
    if (L->fresh > L->w->capacity)
        return REJECT(L, ZE_ERR_LIMIT, "%u entity slots, the world's capacity is %u", L->fresh,
                      L->w->capacity);
    if (L->alive > L->fresh || L->free_count > L->fresh - L->alive ||
        L->retired != L->fresh - L->alive - L->free_count)
        return REJECT(L, ZE_ERR_PARSE,
                      "entity counts do not add up (%u slots, %u alive, %u free, %u retired)",
                      L->fresh, L->alive, L->free_count, L->retired);
    uint32_t dead = 0;
    for (uint32_t i = 0; i < L->fresh; i++) {
        uint32_t g = file_gen(L, i);
        if (!(g & ZE__GEN_MAX))
            return REJECT(L, ZE_ERR_PARSE, "slot %u has generation 0", i);
        dead += (g & ZE__GEN_DEAD) != 0;
    }
    if (dead != L->fresh - L->alive)
        return REJECT(L, ZE_ERR_PARSE, "%u dead slots, the header says %u", dead,
                      L->fresh - L->alive);
    L->bitmap_bytes = ((size_t)L->fresh + 63) / 64 * 8;
    if (L->bitmap_bytes) {
        L->on_free_list = ze_alloc(L->w->alloc, L->bitmap_bytes, 16);
        if (!L->on_free_list)
            return ZE_ERR_OUT_OF_MEMORY;
        memset(L->on_free_list, 0, L->bitmap_bytes);
    }
    for (uint32_t i = 0; i < L->free_count; i++) {
        uint32_t s = get_u32(L->free_list + (size_t)i * 4);
        if (s >= L->fresh || !(file_gen(L, s) & ZE__GEN_DEAD))
            return REJECT(L, ZE_ERR_PARSE, "free list entry %u (slot %u) is not a dead slot", i, s);
        uint64_t bit = (uint64_t)1 << (s & 63);
        if (L->on_free_list[s >> 6] & bit)
            return REJECT(L, ZE_ERR_PARSE, "slot %u is twice on the free list", s);
        L->on_free_list[s >> 6] |= bit;
    }
    /* The dead slots left off the free list are retired: only a slot at the
     * last generation is. */
    for (uint32_t i = 0; i < L->fresh; i++) {
        uint32_t g = file_gen(L, i);
        if ((g & ZE__GEN_DEAD) && !(L->on_free_list[i >> 6] & ((uint64_t)1 << (i & 63))) &&
            (g & ZE__GEN_MAX) != ZE__GEN_MAX)
            return REJECT(L, ZE_ERR_PARSE, "dead slot %u is neither free nor retired", i);
    }
    return ZE_OK;
}

/* Run the migration chain from `from` to the kernel's schema over one
 * record; the result is left in `a` or `b` and returned through *res. */
static ze_result migrate_record(const loader_t *L, const ze_component_info_t *info, uint32_t from,
                                const uint8_t *bytes, uint32_t len, ze_byte_writer_t *a,
                                ze_byte_writer_t *b, const ze_byte_writer_t **res)
{
    const uint8_t *src = bytes;
    size_t src_len = len;
    ze_byte_writer_t *dst = a;
    for (uint32_t v = from; v < info->schema_version; v++) {
        const migration_t *m = find_migration(L->k, info->stable_id, v);
        dst->size = 0;
        ze_byte_reader_t in = {.data = src, .size = src_len};
        ze_result r = m->fn(&in, dst, m->user);
        if (r != ZE_OK)
            return REJECT(L, r, "migration of '%s' from version %u failed (%s)", info->name, v,
                          ze_result_str(r));
        if (dst->failed)
            return ZE_ERR_OUT_OF_MEMORY;
        if (dst->size > UINT32_MAX - 1)
            return REJECT(L, ZE_ERR_LIMIT, "migrated '%s' record over 4 GiB", info->name);
        src = dst->data;
        src_len = dst->size;
        *res = dst;
        dst = dst == a ? b : a;
    }
    return ZE_OK;
}

/* One final-schema record: raw of the component's size, or read completely
 * by the formatter. */
static ze_result check_value(loader_t *L, const ze_component_info_t *info, uint32_t comp,
                             uint32_t idx, const uint8_t *bytes, uint32_t len)
{
    const ze_component_formatter_t *f = &ze__rec(L->k, comp)->formatter;
    if (!f->read || !info->size) {
        if (len != info->size)
            return REJECT(L, ZE_ERR_PARSE, "'%s' record of entity %u has %u bytes, not %u",
                          info->name, idx, len, info->size);
        return ZE_OK;
    }
    if (!L->temp || L->temp_size < info->size) {
        if (L->temp)
            ze_free(L->w->alloc, L->temp, L->temp_size);
        L->temp_size = 0;
        L->temp = ze_alloc(L->w->alloc, info->size, ZE_MAX(info->align, 16u));
        if (!L->temp)
            return ZE_ERR_OUT_OF_MEMORY;
        L->temp_size = info->size;
    }
    if (info->hooks.ctor)
        info->hooks.ctor(L->temp, 1, info->hooks.user);
    else
        memset(L->temp, 0, info->size);
    ze_byte_reader_t in = {.data = bytes, .size = len};
    ze_result r = f->read(&in, L->temp, f->user);
    if (info->hooks.dtor)
        info->hooks.dtor(L->temp, 1, info->hooks.user);
    if (r != ZE_OK || in.failed || in.pos != len)
        return REJECT(L, r != ZE_OK ? r : ZE_ERR_PARSE,
                      "formatter of '%s' did not read the record of entity %u (%s, %zu of %u "
                      "bytes)",
                      info->name, idx, ze_result_str(r), in.pos, len);
    return ZE_OK;
}

static ze_result parse_section(loader_t *L, ze_byte_reader_t *rd, section_t *s, bool first,
                               uint64_t prev_stable, uint64_t *stable_out)
{
    uint64_t stable, payload;
    uint32_t version, count, record, name_len;
    if (!read_u64(rd, &stable) || !read_u32(rd, &version) || !read_u32(rd, &count) ||
        !read_u32(rd, &record) || !read_u32(rd, &name_len) || !read_u64(rd, &payload))
        return REJECT(L, ZE_ERR_PARSE, "truncated section header");
    char name[ZE_COMPONENT_NAME_MAX];
    if (name_len == 0 || name_len >= ZE_COMPONENT_NAME_MAX || !ze_byte_read(rd, name, name_len))
        return REJECT(L, ZE_ERR_PARSE, "bad section name (%u bytes)", name_len);
    name[name_len] = 0;
    for (uint32_t i = 0; i < name_len; i++)
        if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
            name[i] = '?'; /* for messages only */
    if (!first && stable <= prev_stable)
        return REJECT(L, ZE_ERR_PARSE, "sections not in ascending stable id order at '%s'", name);
    *stable_out = stable;
    if (payload > rd->size - rd->pos)
        return REJECT(L, ZE_ERR_PARSE, "section '%s' runs past the end", name);

    uint32_t comp = UINT32_MAX;
    for (uint32_t c = 0; c < L->k->component_count; c++)
        if (ze__info(L->k, c)->stable_id == stable)
            comp = c;
    if (comp == UINT32_MAX)
        return REJECT(L, ZE_ERR_NOT_FOUND,
                      "component '%s' (stable id %016llx) is not registered in this kernel", name,
                      (unsigned long long)stable);
    const ze_component_info_t *info = ze__info(L->k, comp);
    const ze_component_formatter_t *f = &ze__rec(L->k, comp)->formatter;
    if (needs_formatter(info) && !f->read)
        return REJECT(L, ZE_ERR_UNSUPPORTED,
                      "component '%s' has dtor/copy/move hooks and no snapshot formatter",
                      info->name);
    if (version == 0 || version > info->schema_version)
        return REJECT(L, ZE_ERR_UNSUPPORTED, "'%s' schema version %u, this kernel has %u",
                      info->name, version, info->schema_version);
    for (uint32_t v = version; v < info->schema_version; v++)
        if (!find_migration(L->k, stable, v))
            return REJECT(L, ZE_ERR_UNSUPPORTED,
                          "'%s' schema version %u, this kernel has %u and no migration from %u",
                          info->name, version, info->schema_version, v);
    bool migrate = version != info->schema_version;
    bool formatted_now = f->read && info->size;
    if (record != FORMATTED && record > MAX_RECORD_SIZE)
        return REJECT(L, ZE_ERR_PARSE, "'%s' records of %u bytes", info->name, record);
    if (!migrate && formatted_now != (record == FORMATTED))
        return REJECT(L, ZE_ERR_PARSE, "'%s' records are %s, this kernel %s a formatter",
                      info->name, record == FORMATTED ? "formatted" : "raw",
                      formatted_now ? "has" : "has no");
    if (count > L->alive)
        return REJECT(L, ZE_ERR_PARSE, "'%s' has %u records for %u alive entities", info->name,
                      count, L->alive);

    s->comp = comp;
    s->count = count;
    s->recs = (rec_iter_t){.p = rd->data + rd->pos, .size = (size_t)payload, .record = record};
    rd->pos += (size_t)payload;

    /* Walk the records as written: entity order and liveness, then either
     * the value or its upgrade. */
    rec_iter_t it = s->recs;
    ze_byte_writer_t a = {.alloc = L->w->alloc}, b = {.alloc = L->w->alloc};
    if (migrate)
        s->migrated.alloc = L->w->alloc;
    ze_result r = ZE_OK;
    uint32_t prev = 0;
    for (uint32_t n = 0; n < count && r == ZE_OK; n++) {
        uint32_t idx = 0, len = 0;
        const uint8_t *bytes = NULL;
        if (!rec_next(&it, &idx, &bytes, &len)) {
            r = REJECT(L, ZE_ERR_PARSE, "'%s' record %u runs past its section", info->name, n);
            break;
        }
        if (idx >= L->fresh || (file_gen(L, idx) & ZE__GEN_DEAD) || (n && idx <= prev)) {
            r = REJECT(L, ZE_ERR_PARSE, "'%s' record %u: entity %u not alive or out of order",
                       info->name, n, idx);
            break;
        }
        prev = idx;
        if (!migrate) {
            r = check_value(L, info, comp, idx, bytes, len);
            continue;
        }
        const ze_byte_writer_t *res = NULL;
        r = migrate_record(L, info, version, bytes, len, &a, &b, &res);
        if (r == ZE_OK) {
            write_u32(&s->migrated, idx);
            write_u32(&s->migrated, (uint32_t)res->size);
            ze_byte_write(&s->migrated, res->data, res->size);
            if (s->migrated.failed)
                r = ZE_ERR_OUT_OF_MEMORY;
        }
    }
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
    if (r != ZE_OK)
        return r;
    if (it.pos != it.size)
        return REJECT(L, ZE_ERR_PARSE, "'%s' section has %zu bytes after its records", info->name,
                      it.size - it.pos);
    if (!migrate)
        return ZE_OK;
    s->recs = (rec_iter_t){.p = s->migrated.data, .size = s->migrated.size, .record = FORMATTED};
    it = s->recs;
    for (uint32_t n = 0; n < count && r == ZE_OK; n++) {
        uint32_t idx = 0, len = 0;
        const uint8_t *bytes = NULL;
        ZE_VERIFY(rec_next(&it, &idx, &bytes, &len)); /* written above */
        r = check_value(L, info, comp, idx, bytes, len);
    }
    return r;
}

static ze_result validate(loader_t *L, const uint8_t *data, size_t size)
{
    if (size < HEADER_SIZE + CHECKSUM_SIZE)
        return REJECT(L, ZE_ERR_PARSE, "%zu bytes: truncated", size);
    if (memcmp(data, k_magic, 8) != 0)
        return REJECT(L, ZE_ERR_PARSE, "not a snapshot (bad magic)");
    uint32_t version = get_u32(data + 8);
    if (version != FORMAT_VERSION)
        return REJECT(L, ZE_ERR_UNSUPPORTED, "format version %u (this build reads %u)", version,
                      FORMAT_VERSION);
    uint32_t order = get_u32(data + 12);
    if (order != ORDER_LE && order != ORDER_BE)
        return REJECT(L, ZE_ERR_PARSE, "bad byte-order marker %08x", order);
    if (order != host_order())
        return REJECT(L, ZE_ERR_UNSUPPORTED, "written on a %s-endian host, this one is %s-endian",
                      order == ORDER_LE ? "little" : "big",
                      host_order() == ORDER_LE ? "little" : "big");
    if (get_u32(data + 16) != 0)
        return REJECT(L, ZE_ERR_UNSUPPORTED, "unknown flags %08x", get_u32(data + 16));
    uint64_t total = get_u64(data + 40);
    if (total != size)
        return REJECT(L, ZE_ERR_PARSE, "%zu bytes, the header says %llu (truncated?)", size,
                      (unsigned long long)total);
    if (ze_hash64(data, size - CHECKSUM_SIZE, 0) != get_u64(data + size - CHECKSUM_SIZE))
        return REJECT(L, ZE_ERR_PARSE, "checksum mismatch (corrupted)");

    L->section_count = 0;
    uint32_t sections = get_u32(data + 20);
    L->fresh = get_u32(data + 24);
    L->alive = get_u32(data + 28);
    L->free_count = get_u32(data + 32);
    L->retired = get_u32(data + 36);
    ze_byte_reader_t rd = {.data = data, .size = size - CHECKSUM_SIZE, .pos = HEADER_SIZE};
    size_t table = ((size_t)L->fresh + L->free_count) * 4; /* < 2^35: no overflow */
    if (table > rd.size - rd.pos)
        return REJECT(L, ZE_ERR_PARSE, "entity table runs past the end");
    L->gen = data + rd.pos;
    L->free_list = L->gen + (size_t)L->fresh * 4;
    rd.pos += table;
    ze_result r = check_table(L);
    if (r != ZE_OK)
        return r;
    if (sections > L->k->component_count)
        return REJECT(L, ZE_ERR_PARSE, "%u sections for %u component types", sections,
                      L->k->component_count);
    if (sections) {
        L->sections = ze_alloc(L->w->alloc, sizeof(section_t) * sections, _Alignof(section_t));
        if (!L->sections)
            return REJECT(L, ZE_ERR_OUT_OF_MEMORY, "no memory for %u sections", sections);
        memset(L->sections, 0, sizeof(section_t) * sections);
        L->section_cap = sections;
    }
    uint64_t prev = 0;
    for (uint32_t i = 0; i < sections; i++) {
        L->section_count = i + 1;
        r = parse_section(L, &rd, &L->sections[i], i == 0, prev, &prev);
        if (r != ZE_OK)
            return r;
    }
    if (rd.pos != rd.size)
        return REJECT(L, ZE_ERR_PARSE, "%zu bytes after the last section", rd.size - rd.pos);
    /* Room for the table, taken before anything changes. */
    if (L->fresh &&
        (ze_mem_region_commit(&L->w->gen_region, (size_t)L->fresh * sizeof(uint32_t)) != ZE_OK ||
         ze_mem_region_commit(&L->w->mask_region,
                              (size_t)L->fresh * L->w->mask_words * sizeof(uint64_t)) != ZE_OK))
        return REJECT(L, ZE_ERR_OUT_OF_MEMORY, "no memory for %u entity slots", L->fresh);
    for (uint32_t i = 0; i < L->section_count; i++)
        if (!ze__pool_get(L->w, L->sections[i].comp))
            return REJECT(L, ZE_ERR_OUT_OF_MEMORY, "no memory for a component pool");
    return ZE_OK;
}

static ze_result apply(loader_t *L)
{
    ze_world_t *w = L->w;
    /* Highest index first: storage then removes from the ends of its dense
     * arrays (their usual order), with nothing to move. */
    for (uint32_t idx = w->fresh; idx-- > 0;) {
        /* Every entity goes: no search for children (a pass over the
         * Parent components per destroy). */
        ze_entity_t e = ze_entity_from_index(w, idx);
        if (!ze_entity_is_null(e))
            ze__entity_destroy_flat(w, e);
    }
    ZE_VERIFY(w->alive == 0);
    ze__world_settle(w); /* the table is replaced: no ghosts may outlive it */
    w->fresh = L->fresh;
    w->alive = L->alive;
    w->retired = L->retired;
    for (uint32_t i = 0; i < L->fresh; i++) {
        w->gen[i] = file_gen(L, i);
        memset(ze__row(w, i), 0, sizeof(uint64_t) * w->mask_words);
    }
    w->free_head = L->free_count ? get_u32(L->free_list) : NO_SLOT;
    for (uint32_t i = 0; i < L->free_count; i++) {
        uint32_t s = get_u32(L->free_list + (size_t)i * 4);
        ze__free_link(
            w, s, i + 1 < L->free_count ? get_u32(L->free_list + (size_t)(i + 1) * 4) : NO_SLOT);
    }

    ze_result result = ZE_OK;
    for (uint32_t i = 0; i < L->section_count; i++) {
        const section_t *s = &L->sections[i];
        ze_component_t c = {s->comp};
        const ze_component_info_t *info = ze__info(L->k, s->comp);
        const ze_component_formatter_t *f = &ze__rec(L->k, s->comp)->formatter;
        rec_iter_t it = s->recs;
        for (uint32_t n = 0; n < s->count; n++) {
            uint32_t idx = 0, len = 0;
            const uint8_t *bytes = NULL;
            ZE_VERIFY(rec_next(&it, &idx, &bytes, &len)); /* validated */
            ze_entity_t e = {(uint64_t)w->gen[idx] << 32 | idx};
            ze_result r = ZE_OK;
            if (!info->size) {
                ze_component_add(w, e, c);
                r = ze_component_has(w, e, c) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
            } else if (!f->read) {
                r = ze_component_set(w, e, c, bytes);
            } else {
                void *dst = ze_component_add(w, e, c); /* default-constructed */
                ze_byte_reader_t in = {.data = bytes, .size = len};
                r = dst ? f->read(&in, dst, f->user) : ZE_ERR_OUT_OF_MEMORY;
                if (r == ZE_OK && (in.failed || in.pos != len))
                    r = ZE_ERR_PARSE;
            }
            if (r != ZE_OK && result == ZE_OK) {
                ze_world_report(w, ZE_LOG_ERROR, r,
                                "snapshot load failed inserting '%s' after validation "
                                "(%s): the world holds part of the snapshot",
                                info->name, ze_result_str(r));
                result = r;
            }
        }
    }
    return result;
}

ze_result ze_world_load(ze_world_t *w, const void *data, size_t size)
{
    ZE__ECS_THREAD_CHECK();
    if (!w || (!data && size))
        return ZE_ERR_INVALID_ARG;
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_world_load");
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "snapshot load during an iteration or parallel wave");
        return ZE_ERR_STATE;
    }
    loader_t *L = ze_alloc(w->alloc, sizeof *L, _Alignof(loader_t));
    if (!L)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(L, 0, sizeof *L);
    L->w = w;
    L->k = w->kernel;
    ze_result r = validate(L, data, size);
    if (r == ZE_OK)
        r = apply(L);
    loader_free(L);
    ze_free(w->alloc, L, sizeof *L);
    return r;
}
