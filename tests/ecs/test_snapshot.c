/* World snapshots: byte-identical round trips, the world hash, free-list
 * order, rejected files (truncated, corrupted, wrong version, wrong
 * endianness, unknown component, bad tables) leaving the world untouched,
 * schema migrations, transient components, formatters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "ecs/ecs_internal.h"

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y, z;
} Velocity;
typedef struct Cache {
    uint32_t frame;
} Cache;

/* A component that owns memory: raw bytes cannot carry it. */
typedef struct Text {
    char *s;
} Text;

static int g_text_dtors, g_fmt_writes, g_fmt_reads;

static void text_dtor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    Text *t = ptr;
    for (uint32_t i = 0; i < count; i++) {
        if (t[i].s) {
            ze_mem_sys_free(t[i].s);
            g_text_dtors++;
        }
        t[i].s = NULL;
    }
}
static void text_copy(void *dst, const void *src, uint32_t count, void *user)
{
    (void)user;
    Text *d = dst;
    const Text *s = src;
    for (uint32_t i = 0; i < count; i++) {
        d[i].s = NULL;
        if (s[i].s) {
            size_t n = strlen(s[i].s) + 1;
            d[i].s = ze_mem_sys_alloc(n);
            memcpy(d[i].s, s[i].s, n);
        }
    }
}
static ze_result text_write(ze_byte_writer_t *out, const void *value, void *user)
{
    (void)user;
    const Text *t = value;
    uint32_t n = t->s ? (uint32_t)strlen(t->s) : 0;
    g_fmt_writes++;
    ze_byte_write(out, &n, 4);
    ze_byte_write(out, t->s, n);
    return ZE_OK;
}
static ze_result text_read(ze_byte_reader_t *in, void *value, void *user)
{
    (void)user;
    Text *t = value;
    uint32_t n;
    g_fmt_reads++;
    if (!ze_byte_read(in, &n, 4) || n > in->size - in->pos)
        return ZE_ERR_PARSE;
    t->s = ze_mem_sys_alloc(n + 1);
    ze_byte_read(in, t->s, n);
    t->s[n] = 0;
    return ZE_OK;
}

typedef struct fixture_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_component_t pos, vel, cache, frozen, text;
} fixture_t;

static void register_all(ze_kernel_t *k, fixture_t *f)
{
    assert_int_equal(
        ze_component_register(
            k, &(ze_component_desc_t){.name = "Position", .size = sizeof(Position)}, &f->pos),
        ZE_OK);
    assert_int_equal(
        ze_component_register(
            k, &(ze_component_desc_t){.name = "Velocity", .size = sizeof(Velocity)}, &f->vel),
        ZE_OK);
    assert_int_equal(ze_component_register(k,
                                           &(ze_component_desc_t){.name = "Cache",
                                                                  .size = sizeof(Cache),
                                                                  .flags = ZE_COMPONENT_TRANSIENT},
                                           &f->cache),
                     ZE_OK);
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "Frozen", .size = 0}, &f->frozen),
        ZE_OK);
    assert_int_equal(ze_component_register(
                         k,
                         &(ze_component_desc_t){.name = "Text",
                                                .size = sizeof(Text),
                                                .hooks = {.dtor = text_dtor, .copy = text_copy}},
                         &f->text),
                     ZE_OK);
}

static int setup(void **state)
{
    static fixture_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    if (!f.k)
        return -1;
    register_all(f.k, &f);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.name = "test", .capacity = 10000});
    g_text_dtors = g_fmt_writes = g_fmt_reads = 0;
    *state = &f;
    return f.w ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

static ze_byte_writer_t writer(const fixture_t *f)
{
    return (ze_byte_writer_t){.alloc = f->k->alloc};
}

/* A world with holes in its table, components added in mixed orders, an
 * pack, tags, transient values and built-ins. */
static void populate(fixture_t *f, ze_world_t *w)
{
    ze_entity_t e[64];
    for (int i = 0; i < 64; i++)
        e[i] = ze_entity_create(w);
    for (int i = 0; i < 64; i++) {
        if (i % 3 == 0)
            ze_component_set(w, e[i], f->vel, &(Velocity){(float)i, -1.0f, 0.5f});
        if (i % 2 == 0)
            ze_component_set(w, e[i], f->pos, &(Position){(float)i, (float)(i * i)});
        if (i % 5 == 0)
            ze_component_add(w, e[i], f->frozen);
        if (i % 7 == 0)
            ze_component_set(w, e[i], f->cache, &(Cache){(uint32_t)i});
        if (i % 4 == 1) {
            ze_transform_t t = ze_transform_identity();
            t.position = (ze_vec3_t){(float)i, 2, 3};
            ze_component_set(w, e[i], ZE_ID(ze_transform_t), &t);
        }
    }
    /* A pack reorders the dense arrays. */
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ze_mask_or(ze_mask_of(f->pos), ze_mask_of(f->vel))});
    assert_true(q.id != 0);
    /* Holes: destroyed in a scrambled order. */
    static const int dead[] = {17, 3, 40, 22, 9, 63, 0, 31};
    for (size_t i = 0; i < ZE_COUNTOF(dead); i++)
        assert_int_equal(ze_entity_destroy(w, e[dead[i]]), ZE_OK);
    /* Re-add after removal so dense order differs from index order. */
    ze_component_remove(w, e[4], f->pos);
    ze_component_set(w, e[4], f->pos, &(Position){4.5f, 4.5f});
}

static void assert_same_bytes(const ze_byte_writer_t *a, const ze_byte_writer_t *b)
{
    assert_int_equal(a->size, b->size);
    assert_memory_equal(a->data, b->data, a->size);
}

/* Rewrite the trailing checksum after a deliberate edit. */
static void resign(uint8_t *d, size_t n)
{
    uint64_t h = ze_hash64(d, n - 8, 0);
    for (int i = 0; i < 8; i++)
        d[n - 8 + i] = (uint8_t)(h >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void test_round_trip_byte_identical(void **state)
{
    fixture_t *f = *state;
    populate(f, f->w);
    uint64_t hash = ze_world_hash(f->w);
    ze_byte_writer_t a = writer(f), b = writer(f), c = writer(f);
    assert_int_equal(ze_world_save(f->w, &a), ZE_OK);
    assert_false(a.failed);

    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.name = "copy", .capacity = 10000});
    assert_int_equal(ze_world_load(w2, a.data, a.size), ZE_OK);
    assert_int_equal(ze_world_hash(w2), hash);
    assert_int_equal(ze_world_entity_count(w2), ze_world_entity_count(f->w));
    assert_int_equal(ze_world_save(w2, &b), ZE_OK);
    assert_same_bytes(&a, &b);

    /* Loading over the same (populated) world replaces it whole. */
    assert_int_equal(ze_world_load(f->w, a.data, a.size), ZE_OK);
    assert_int_equal(ze_world_hash(f->w), hash);
    assert_int_equal(ze_world_save(f->w, &c), ZE_OK);
    assert_same_bytes(&a, &c);

    /* Values, the group and queries still work after the load. */
    ze_entity_t e2 = ze_entity_from_index(w2, 6);
    const Position *p = ze_component_get(w2, e2, f->pos);
    assert_non_null(p);
    assert_true(p->x == 6.0f && p->y == 36.0f);
    assert_null(ze_component_get(w2, e2, f->cache)); /* transient */
    ze_query_t q = ze_query_create(
        w2, &(ze_query_desc_t){.with = ze_mask_or(ze_mask_of(f->pos), ze_mask_of(f->vel))});
    assert_int_equal(ze_query_count(w2, q),
                     ze_pack_size(w2, ze_mask_or(ze_mask_of(f->pos), ze_mask_of(f->vel))));
    assert_int_equal(ze_query_count(w2, q), 10); /* i % 6 == 0, 0 destroyed */
    ze_world_destroy(w2);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
    ze_byte_writer_free(&c);
}

static void test_empty_world_round_trip(void **state)
{
    fixture_t *f = *state;
    ze_byte_writer_t a = writer(f), b = writer(f);
    assert_int_equal(ze_world_save(f->w, &a), ZE_OK);
    assert_int_equal(a.size, 48 + 8);
    ze_entity_t e = ze_entity_create(f->w);
    ze_component_set(f->w, e, f->pos, &(Position){1, 2});
    assert_int_equal(ze_world_load(f->w, a.data, a.size), ZE_OK);
    assert_int_equal(ze_world_entity_count(f->w), 0);
    assert_int_equal(ze_component_population(f->w, f->pos), 0);
    assert_int_equal(ze_world_save(f->w, &b), ZE_OK);
    assert_same_bytes(&a, &b);
    /* The first entity after loading an empty table is slot 0 again. */
    assert_int_equal(ze_entity_create(f->w).id, e.id);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
}

static void test_free_list_order_preserved(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t e[40];
    for (int i = 0; i < 40; i++)
        e[i] = ze_entity_create(w);
    static const int order[] = {5, 30, 12, 1, 39, 20, 7, 25};
    for (size_t i = 0; i < ZE_COUNTOF(order); i++)
        ze_entity_destroy(w, e[order[i]]);
    /* Reuse two (the generation moves on), destroy one of them again. */
    ze_entity_t r1 = ze_entity_create(w);
    ze_entity_create(w);
    ze_entity_destroy(w, r1);

    ze_byte_writer_t a = writer(f);
    assert_int_equal(ze_world_save(w, &a), ZE_OK);
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 10000});
    assert_int_equal(ze_world_load(w2, a.data, a.size), ZE_OK);
    for (int i = 0; i < 12; i++) {
        ze_entity_t x = ze_entity_create(w), y = ze_entity_create(w2);
        assert_int_equal(x.id, y.id);
    }
    ze_world_destroy(w2);
    ze_byte_writer_free(&a);
}

static void test_retired_slots_round_trip(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    (void)b;
    /* Force slot 0 to the last generation, so destroying retires it. */
    w->gen[0] = ZE__GEN_MAX;
    a = ze_entity_from_index(w, 0);
    assert_int_equal(ze_entity_destroy(w, a), ZE_OK);
    assert_int_equal(w->retired, 1);
    ze_byte_writer_t s1 = writer(f), s2 = writer(f);
    assert_int_equal(ze_world_save(w, &s1), ZE_OK);
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 10000});
    assert_int_equal(ze_world_load(w2, s1.data, s1.size), ZE_OK);
    assert_int_equal(w2->retired, 1);
    assert_int_equal(ze_world_save(w2, &s2), ZE_OK);
    assert_same_bytes(&s1, &s2);
    /* The retired slot is never handed out again. */
    assert_int_equal(ze_entity_index(ze_entity_create(w2)), 2);
    ze_world_destroy(w2);
    ze_byte_writer_free(&s1);
    ze_byte_writer_free(&s2);
}

/* The world is untouched: same hash, same bytes when saved, same handles
 * for the next creation. */
typedef struct world_state_t {
    uint64_t hash;
    ze_byte_writer_t bytes;
} world_state_t;

static world_state_t capture(const fixture_t *f)
{
    world_state_t s = {ze_world_hash(f->w), writer(f)};
    assert_int_equal(ze_world_save(f->w, &s.bytes), ZE_OK);
    return s;
}

static void assert_untouched(const fixture_t *f, world_state_t *before)
{
    world_state_t now = capture(f);
    assert_int_equal(now.hash, before->hash);
    assert_same_bytes(&now.bytes, &before->bytes);
    ze_byte_writer_free(&now.bytes);
}

static void expect_rejected(const fixture_t *f, world_state_t *before, const uint8_t *d, size_t n,
                            ze_result want)
{
    ze_result r = ze_world_load(f->w, d, n);
    assert_int_not_equal(r, ZE_OK);
    if (want != ZE_OK)
        assert_int_equal(r, want);
    assert_untouched(f, before);
}

static void test_truncated_rejected(void **state)
{
    fixture_t *f = *state;
    populate(f, f->w);
    world_state_t before = capture(f);
    ze_byte_writer_t *s = &before.bytes;
    expect_rejected(f, &before, s->data, 0, ZE_ERR_PARSE);
    expect_rejected(f, &before, NULL, 0, ZE_ERR_PARSE);
    for (size_t n = 1; n < s->size; n += 1 + n / 8)
        expect_rejected(f, &before, s->data, n, ZE_ERR_PARSE);
    expect_rejected(f, &before, s->data, s->size - 1, ZE_ERR_PARSE);
    /* Trailing bytes are as wrong as missing ones. */
    uint8_t *longer = ze_mem_sys_alloc(s->size + 1);
    memcpy(longer, s->data, s->size);
    longer[s->size] = 0;
    expect_rejected(f, &before, longer, s->size + 1, ZE_ERR_PARSE);
    ze_mem_sys_free(longer);
    ze_byte_writer_free(&before.bytes);
}

static void test_every_corrupted_byte_rejected(void **state)
{
    fixture_t *f = *state;
    populate(f, f->w);
    world_state_t before = capture(f);
    size_t n = before.bytes.size;
    uint8_t *d = ze_mem_sys_alloc(n);
    for (size_t i = 0; i < n; i++) {
        memcpy(d, before.bytes.data, n);
        d[i] ^= 0x20;
        assert_int_not_equal(ze_world_load(f->w, d, n), ZE_OK);
    }
    assert_untouched(f, &before);
    /* The checksum is what catches a flipped payload byte. */
    memcpy(d, before.bytes.data, n);
    d[n / 2] ^= 1;
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);
    ze_mem_sys_free(d);
    ze_byte_writer_free(&before.bytes);
}

static void test_header_fields_rejected(void **state)
{
    fixture_t *f = *state;
    populate(f, f->w);
    world_state_t before = capture(f);
    size_t n = before.bytes.size;
    uint8_t *d = ze_mem_sys_alloc(n);

    memcpy(d, before.bytes.data, n); /* a newer format version */
    put32(d + 8, 2);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_UNSUPPORTED);

    memcpy(d, before.bytes.data, n); /* written on a big-endian host */
    put32(d + 12, 0x04030201u);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_UNSUPPORTED);

    memcpy(d, before.bytes.data, n); /* not a byte-order marker */
    put32(d + 12, 0x12345678u);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* unknown flags */
    put32(d + 16, 1);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_UNSUPPORTED);

    memcpy(d, before.bytes.data, n); /* bad magic */
    d[0] = 'X';
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* counts that do not add up */
    put32(d + 28, 1);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* a free-list entry naming an alive slot */
    uint32_t fresh = before.bytes.data[24] | before.bytes.data[25] << 8;
    put32(d + 48 + (size_t)fresh * 4, 1);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* generation 0 */
    put32(d + 48 + 4, 0);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* an alive slot marked dead */
    put32(d + 48 + 4, 1u | ZE__GEN_DEAD);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    ze_mem_sys_free(d);
    ze_byte_writer_free(&before.bytes);
}

/* Offset of the first section (after the header and the table). */
static size_t first_section(const uint8_t *d)
{
    uint32_t fresh = d[24] | d[25] << 8 | d[26] << 16 | (uint32_t)d[27] << 24;
    uint32_t nfree = d[32] | d[33] << 8 | d[34] << 16 | (uint32_t)d[35] << 24;
    return 48 + ((size_t)fresh + nfree) * 4;
}

static void test_bad_records_rejected(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w), c = ze_entity_create(w);
    ze_component_set(w, a, f->pos, &(Position){1, 1});
    ze_component_set(w, c, f->pos, &(Position){3, 3});
    ze_entity_destroy(w, b);
    world_state_t before = capture(f);
    size_t n = before.bytes.size;
    uint8_t *d = ze_mem_sys_alloc(n);
    size_t sec = first_section(before.bytes.data);
    size_t name_len = before.bytes.data[sec + 20];
    size_t rec0 = sec + 32 + name_len; /* u32 entity + 8 bytes */

    memcpy(d, before.bytes.data, n); /* a record of the dead slot 1 */
    put32(d + rec0, 1);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* entity out of range */
    put32(d + rec0, 9999);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* records out of order (2, then 2) */
    put32(d + rec0, 2);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* a record size that is not Position's */
    put32(d + sec + 16, 4);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* more records than the payload holds */
    put32(d + sec + 12, 3);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    memcpy(d, before.bytes.data, n); /* a schema newer than the kernel's */
    put32(d + sec + 8, 7);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_UNSUPPORTED);

    memcpy(d, before.bytes.data, n); /* payload length past the end */
    put32(d + sec + 24, 0xffffff);
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);

    /* A world too small for the table. */
    ze_world_t *tiny = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1});
    ze_entity_t keep = ze_entity_create(tiny);
    assert_int_equal(ze_world_capacity(tiny), 1); /* as asked, not rounded to a page */
    for (int i = 0; i < 5000 && ze_world_entity_count(w) < 5000; i++)
        ze_entity_create(w);
    ze_byte_writer_t big = writer(f);
    assert_int_equal(ze_world_save(w, &big), ZE_OK);
    assert_int_equal(ze_world_load(tiny, big.data, big.size), ZE_ERR_LIMIT);
    assert_true(ze_entity_alive(tiny, keep));
    ze_world_destroy(tiny);
    ze_byte_writer_free(&big);
    ze_mem_sys_free(d);
    ze_byte_writer_free(&before.bytes);
}

static void test_unknown_component_rejected(void **state)
{
    fixture_t *f = *state;
    /* A second kernel with one more component saves a world using it. */
    ze_kernel_t *k2 = ze_kernel_create(&(ze_kernel_desc_t){0});
    fixture_t f2 = {.k = k2};
    register_all(k2, &f2);
    ze_component_t extra;
    assert_int_equal(
        ze_component_register(k2, &(ze_component_desc_t){.name = "Extra", .size = 4}, &extra),
        ZE_OK);
    ze_world_t *w2 = ze_world_create(k2, &(ze_world_desc_t){.capacity = 10000});
    ze_entity_t e = ze_entity_create(w2);
    ze_component_set(w2, e, extra, &(uint32_t){7});
    ze_component_set(w2, e, f2.pos, &(Position){1, 2});
    ze_byte_writer_t s = {.alloc = k2->alloc};
    assert_int_equal(ze_world_save(w2, &s), ZE_OK);

    populate(f, f->w);
    world_state_t before = capture(f);
    expect_rejected(f, &before, s.data, s.size, ZE_ERR_NOT_FOUND);
    ze_byte_writer_free(&s);
    ze_byte_writer_free(&before.bytes);
    ze_kernel_destroy(k2);
}

/* Schema v1: {i32 hp}. v2: {i32 hp; f32 speed}. v3: {i32 hp; f32 speed;
 * u32 level}. */
typedef struct StatsV1 {
    int32_t hp;
} StatsV1;
typedef struct StatsV2 {
    int32_t hp;
    float speed;
} StatsV2;
typedef struct StatsV3 {
    int32_t hp;
    float speed;
    uint32_t level;
} StatsV3;
enum { STATS_ID = 0x5157a75 };

static ze_result stats_1_to_2(ze_byte_reader_t *in, ze_byte_writer_t *out, void *user)
{
    int *calls = user;
    StatsV1 v1;
    if (!ze_byte_read(in, &v1, sizeof v1))
        return ZE_ERR_PARSE;
    StatsV2 v2 = {v1.hp * 10, 1.5f};
    ze_byte_write(out, &v2, sizeof v2);
    (*calls)++;
    return ZE_OK;
}
static ze_result stats_2_to_3(ze_byte_reader_t *in, ze_byte_writer_t *out, void *user)
{
    (void)user;
    StatsV2 v2;
    if (!ze_byte_read(in, &v2, sizeof v2))
        return ZE_ERR_PARSE;
    StatsV3 v3 = {v2.hp, v2.speed, 3};
    ze_byte_write(out, &v3, sizeof v3);
    return ZE_OK;
}

static ze_kernel_t *stats_kernel(uint32_t version, size_t size, ze_component_t *c)
{
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(k);
    assert_int_equal(ze_component_register(k,
                                           &(ze_component_desc_t){.name = "Stats",
                                                                  .size = size,
                                                                  .stable_id = STATS_ID,
                                                                  .schema_version = version},
                                           c),
                     ZE_OK);
    return k;
}

static void test_migration_v1_to_v2_and_v3(void **state)
{
    (void)state;
    ze_component_t c1, c2, c3;
    ze_kernel_t *k1 = stats_kernel(1, sizeof(StatsV1), &c1);
    ze_world_t *w1 = ze_world_create(k1, &(ze_world_desc_t){.capacity = 4096});
    ze_entity_t e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = ze_entity_create(w1);
        ze_component_set(w1, e[i], c1, &(StatsV1){i + 1});
    }
    ze_entity_destroy(w1, e[1]);
    ze_byte_writer_t v1 = {.alloc = k1->alloc};
    assert_int_equal(ze_world_save(w1, &v1), ZE_OK);

    /* v2 without a migration: refused, world untouched. */
    ze_kernel_t *k2 = stats_kernel(2, sizeof(StatsV2), &c2);
    ze_world_t *w2 = ze_world_create(k2, &(ze_world_desc_t){.capacity = 4096});
    ze_entity_t keep = ze_entity_create(w2);
    assert_int_equal(ze_world_load(w2, v1.data, v1.size), ZE_ERR_UNSUPPORTED);
    assert_true(ze_entity_alive(w2, keep));

    int calls = 0;
    assert_int_equal(ze_snapshot_add_migration(k2, STATS_ID, 1, stats_1_to_2, &calls), ZE_OK);
    assert_int_equal(ze_snapshot_add_migration(k2, STATS_ID, 1, stats_1_to_2, &calls),
                     ZE_ERR_EXISTS);
    assert_int_equal(ze_world_load(w2, v1.data, v1.size), ZE_OK);
    assert_int_equal(calls, 2);
    assert_true(ze_entity_alive(w2, e[0]) && ze_entity_alive(w2, e[2]));
    assert_false(ze_entity_alive(w2, e[1]));
    const StatsV2 *s0 = ze_component_get(w2, e[0], c2), *s2 = ze_component_get(w2, e[2], c2);
    assert_non_null(s0);
    assert_non_null(s2);
    assert_int_equal(s0->hp, 10);
    assert_int_equal(s2->hp, 30);
    assert_true(s0->speed == 1.5f && s2->speed == 1.5f);
    /* The v2 world saves as v2. */
    ze_byte_writer_t v2 = {.alloc = k2->alloc};
    assert_int_equal(ze_world_save(w2, &v2), ZE_OK);
    size_t sec = first_section(v2.data);
    assert_int_equal(v2.data[sec + 8], 2);

    /* A chain: v1 -> v2 -> v3. */
    ze_kernel_t *k3 = stats_kernel(3, sizeof(StatsV3), &c3);
    int calls3 = 0;
    assert_int_equal(ze_snapshot_add_migration(k3, STATS_ID, 1, stats_1_to_2, &calls3), ZE_OK);
    ze_world_t *w3 = ze_world_create(k3, &(ze_world_desc_t){.capacity = 4096});
    assert_int_equal(ze_world_load(w3, v1.data, v1.size), ZE_ERR_UNSUPPORTED); /* 2->3 missing */
    assert_int_equal(ze_snapshot_add_migration(k3, STATS_ID, 2, stats_2_to_3, NULL), ZE_OK);
    assert_int_equal(ze_world_load(w3, v1.data, v1.size), ZE_OK);
    const StatsV3 *t = ze_component_get(w3, e[2], c3);
    assert_non_null(t);
    assert_int_equal(t->hp, 30);
    assert_true(t->speed == 1.5f);
    assert_int_equal(t->level, 3);
    assert_int_equal(ze_world_load(w3, v2.data, v2.size), ZE_OK); /* from v2 too */
    assert_int_equal(((const StatsV3 *)ze_component_get(w3, e[0], c3))->hp, 10);

    /* A v3 file is newer than the v2 kernel. */
    ze_byte_writer_t v3 = {.alloc = k3->alloc};
    assert_int_equal(ze_world_save(w3, &v3), ZE_OK);
    assert_int_equal(ze_world_load(w2, v3.data, v3.size), ZE_ERR_UNSUPPORTED);

    ze_byte_writer_free(&v1);
    ze_byte_writer_free(&v2);
    ze_byte_writer_free(&v3);
    ze_kernel_destroy(k1);
    ze_kernel_destroy(k2);
    ze_kernel_destroy(k3);
}

static void test_transient_skipped(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_component_set(f->w, e, f->cache, &(Cache){42});
    ze_byte_writer_t a = writer(f);
    assert_int_equal(ze_world_save(f->w, &a), ZE_OK);
    assert_int_equal(a.data[20], 0); /* no section */
    ze_component_set(f->w, e, f->pos, &(Position){1, 2});
    ze_byte_writer_t b = writer(f);
    assert_int_equal(ze_world_save(f->w, &b), ZE_OK);
    assert_int_equal(b.data[20], 1);  /* Position only */
    uint64_t h = ze_world_hash(f->w); /* transient values are not hashed */
    assert_int_equal(ze_world_load(f->w, b.data, b.size), ZE_OK);
    assert_false(ze_component_has(f->w, e, f->cache));
    assert_true(ze_component_has(f->w, e, f->pos));
    assert_int_equal(ze_world_hash(f->w), h);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
}

static void test_formatter_used(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t e[3];
    static const char *const words[] = {"alpha", "", "a longer string"};
    for (int i = 0; i < 3; i++) {
        e[i] = ze_entity_create(w);
        char buf[32];
        snprintf(buf, sizeof buf, "%s", words[i]);
        ze_component_set(w, e[i], f->text, &(Text){buf});
    }
    /* Hooks that own memory and no formatter: refused. */
    ze_byte_writer_t a = writer(f);
    assert_int_equal(ze_world_save(w, &a), ZE_ERR_UNSUPPORTED);
    ze_byte_writer_free(&a);
    assert_int_equal(
        ze_component_set_formatter(f->k, f->text, &(ze_component_formatter_t){.write = text_write}),
        ZE_ERR_INVALID_ARG);
    assert_int_equal(
        ze_component_set_formatter(
            f->k, f->frozen, &(ze_component_formatter_t){.write = text_write, .read = text_read}),
        ZE_ERR_INVALID_ARG); /* a tag has no data */
    assert_int_equal(
        ze_component_set_formatter(
            f->k, f->text, &(ze_component_formatter_t){.write = text_write, .read = text_read}),
        ZE_OK);
    assert_int_equal(ze_world_save(w, &a), ZE_OK);
    assert_int_equal(g_fmt_writes, 3);

    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 10000});
    assert_int_equal(ze_world_load(w2, a.data, a.size), ZE_OK);
    assert_int_equal(g_fmt_reads, 6); /* checked, then inserted */
    for (int i = 0; i < 3; i++) {
        const Text *t = ze_component_get(w2, e[i], f->text);
        assert_non_null(t);
        assert_string_equal(t->s, words[i]);
    }
    ze_byte_writer_t b = writer(f);
    assert_int_equal(ze_world_save(w2, &b), ZE_OK);
    assert_same_bytes(&a, &b);

    /* Loading over w2 destroys its Texts (dtors run) before inserting. */
    int dtors = g_text_dtors;
    assert_int_equal(ze_world_load(w2, a.data, a.size), ZE_OK);
    assert_true(g_text_dtors >= dtors + 3);
    ze_world_destroy(w2);

    /* A formatter that reads less than the record is a rejected file. */
    world_state_t before = capture(f);
    size_t n = before.bytes.size;
    uint8_t *d = ze_mem_sys_alloc(n);
    memcpy(d, before.bytes.data, n);
    size_t sec = first_section(d);
    size_t rec0 = sec + 32 + d[sec + 20];
    put32(d + rec0 + 8, 2); /* "alpha" claims 2 bytes of its 5 */
    resign(d, n);
    expect_rejected(f, &before, d, n, ZE_ERR_PARSE);
    ze_mem_sys_free(d);
    ze_byte_writer_free(&before.bytes);

    /* Without the formatter the formatted file is refused, not misread. */
    assert_int_equal(ze_component_set_formatter(f->k, f->text, NULL), ZE_OK);
    assert_int_equal(ze_world_load(w, a.data, a.size), ZE_ERR_UNSUPPORTED);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
}

static void test_refused_during_iteration(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_component_set(f->w, e, f->pos, &(Position){1, 2});
    ze_byte_writer_t a = writer(f);
    assert_int_equal(ze_world_save(f->w, &a), ZE_OK);
    ze_query_t q = ze_query_create(f->w, &(ze_query_desc_t){.with = ze_mask_of(f->pos)});
    ze_iter_t it = ze_query_iter(f->w, q);
    assert_true(ze_query_next(&it));
    assert_int_equal(ze_world_load(f->w, a.data, a.size), ZE_ERR_STATE);
    ze_byte_writer_t b = writer(f);
    assert_int_equal(ze_world_save(f->w, &b), ZE_ERR_STATE);
    ze_iter_fini(&it);
    assert_int_equal(ze_world_load(f->w, a.data, a.size), ZE_OK);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
}

static void test_byte_writer_and_reader(void **state)
{
    fixture_t *f = *state;
    ze_byte_writer_t w = writer(f);
    for (uint32_t i = 0; i < 1000; i++)
        assert_true(ze_byte_write(&w, &i, 4));
    assert_int_equal(w.size, 4000);
    ze_byte_reader_t r = {.data = w.data, .size = w.size};
    uint32_t v;
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(ze_byte_read(&r, &v, 4));
        assert_int_equal(v, i);
    }
    v = 77;
    assert_false(ze_byte_read(&r, &v, 1));
    assert_true(r.failed);
    assert_int_equal(v, 77);               /* untouched */
    assert_false(ze_byte_read(&r, &v, 0)); /* stays failed */
    ze_byte_writer_free(&w);
    assert_null(w.data);
    ze_byte_writer_t none = {0}; /* no allocator */
    assert_false(ze_byte_write(&none, "x", 1));
    assert_true(none.failed);
    ze_byte_writer_free(&none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_byte_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_world_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_list_order_preserved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retired_slots_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_corrupted_byte_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_fields_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_records_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_component_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration_v1_to_v2_and_v3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transient_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formatter_used, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_during_iteration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byte_writer_and_reader, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
