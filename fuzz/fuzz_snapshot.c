/* ze_world_load on arbitrary bytes, into a fresh small world of a kernel
 * with raw, migrated, formatted (owning memory), tag and transient
 * components. Each input is loaded as it is (header and checksum checks)
 * and again with its checksum fixed up (so mutations reach the parser).
 * Whatever loads must save, load into another world and save again to the
 * same bytes. Leaks and overreads are ASan's to catch. */
#include <string.h>

#include "zengine/ecs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct FzPos {
    float x, y;
} FzPos;
typedef struct FzStatsV2 {
    int32_t hp;
    float speed;
} FzStatsV2;
typedef struct FzText {
    char *s;
    uint32_t len;
} FzText;

enum { FZ_STATS_ID = 0x57a75, FZ_CAPACITY = 4096, FZ_TEXT_MAX = 1024 };

static void fz_text_dtor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    FzText *t = ptr;
    for (uint32_t i = 0; i < count; i++) {
        if (t[i].s)
            ze_mem_sys_free(t[i].s);
        t[i] = (FzText){0};
    }
}
static void fz_text_copy(void *dst, const void *src, uint32_t count, void *user)
{
    (void)user;
    FzText *d = dst;
    const FzText *s = src;
    for (uint32_t i = 0; i < count; i++) {
        d[i] = (FzText){0};
        if (s[i].s) {
            d[i].s = ze_mem_sys_alloc(s[i].len + 1);
            memcpy(d[i].s, s[i].s, s[i].len + 1);
            d[i].len = s[i].len;
        }
    }
}
static ze_result fz_text_write(ze_byte_writer_t *out, const void *value, void *user)
{
    (void)user;
    const FzText *t = value;
    uint8_t n[2] = {(uint8_t)t->len, (uint8_t)(t->len >> 8)};
    ze_byte_write(out, n, 2);
    ze_byte_write(out, t->s, t->len);
    return ZE_OK;
}
static ze_result fz_text_read(ze_byte_reader_t *in, void *value, void *user)
{
    (void)user;
    FzText *t = value;
    uint8_t n[2];
    if (!ze_byte_read(in, n, 2))
        return ZE_ERR_PARSE;
    uint32_t len = n[0] | (uint32_t)n[1] << 8;
    if (len > FZ_TEXT_MAX || len > in->size - in->pos)
        return ZE_ERR_PARSE;
    t->s = ze_mem_sys_alloc(len + 1);
    ze_byte_read(in, t->s, len);
    t->s[len] = 0;
    t->len = len;
    return ZE_OK;
}
/* v1 {i32 hp} -> v2 {i32 hp; f32 speed} */
static ze_result fz_stats_1_to_2(ze_byte_reader_t *in, ze_byte_writer_t *out, void *user)
{
    (void)user;
    int32_t hp;
    if (!ze_byte_read(in, &hp, 4))
        return ZE_ERR_PARSE;
    FzStatsV2 v = {hp, 1.0f};
    ze_byte_write(out, &v, sizeof v);
    return ZE_OK;
}

typedef struct fz_t {
    ze_kernel_t *k;
    ze_component_t pos, stats, text, tag, cache;
} fz_t;

static fz_t *fz_get(void)
{
    static fz_t f;
    if (f.k)
        return &f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .level = ZE_LOG_FATAL});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){.name = "fuzz"});
    ZE_VERIFY(f.k);
    ZE_VERIFY(ze_component_register(f.k,
                                    &(ze_component_desc_t){.name = "Pos", .size = sizeof(FzPos)},
                                    &f.pos) == ZE_OK);
    ZE_VERIFY(ze_component_register(f.k,
                                    &(ze_component_desc_t){.name = "Stats",
                                                           .size = sizeof(FzStatsV2),
                                                           .stable_id = FZ_STATS_ID,
                                                           .schema_version = 2},
                                    &f.stats) == ZE_OK);
    ZE_VERIFY(ze_component_register(
                  f.k,
                  &(ze_component_desc_t){.name = "Text",
                                         .size = sizeof(FzText),
                                         .hooks = {.dtor = fz_text_dtor, .copy = fz_text_copy}},
                  &f.text) == ZE_OK);
    ZE_VERIFY(ze_component_register(f.k, &(ze_component_desc_t){.name = "Tag"}, &f.tag) == ZE_OK);
    ZE_VERIFY(
        ze_component_register(
            f.k,
            &(ze_component_desc_t){.name = "Cache", .size = 4, .flags = ZE_COMPONENT_TRANSIENT},
            &f.cache) == ZE_OK);
    ZE_VERIFY(ze_component_set_formatter(
                  f.k, f.text,
                  &(ze_component_formatter_t){.write = fz_text_write, .read = fz_text_read}) ==
              ZE_OK);
    ZE_VERIFY(ze_snapshot_add_migration(f.k, FZ_STATS_ID, 1, fz_stats_1_to_2, NULL) == ZE_OK);
    return &f;
}

static void fz_check_reload(fz_t *f, ze_world_t *w)
{
    ze_byte_writer_t a = {.alloc = ze_mem_system_allocator()};
    ze_byte_writer_t b = {.alloc = ze_mem_system_allocator()};
    ZE_VERIFY(ze_world_save(w, &a) == ZE_OK);
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = FZ_CAPACITY});
    ZE_VERIFY(w2);
    ZE_VERIFY(ze_world_load(w2, a.data, a.size) == ZE_OK);
    /* (No ze_world_hash comparison: it hashes Text's raw bytes, a pointer.) */
    ZE_VERIFY(ze_world_save(w2, &b) == ZE_OK);
    ZE_VERIFY(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
    ze_world_destroy(w2);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
}

static void fz_load(fz_t *f, const uint8_t *data, size_t size)
{
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = FZ_CAPACITY});
    ZE_VERIFY(w);
    /* Something to replace (and to keep intact on failure). */
    ze_entity_t e = ze_entity_create(w);
    ze_component_set(w, e, f->text, &(FzText){"keep", 4});
    uint64_t before = ze_world_hash(w);
    if (ze_world_load(w, data, size) == ZE_OK)
        fz_check_reload(f, w);
    else
        ZE_VERIFY(ze_world_hash(w) == before && ze_entity_alive(w, e));
    ze_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_t *f = fz_get();
    fz_load(f, data, size);
    if (size >= 56 && size <= (1u << 20)) {
        /* The same bytes with a correct size field and checksum. */
        uint8_t *d = ze_mem_sys_alloc(size);
        memcpy(d, data, size);
        for (int i = 0; i < 8; i++)
            d[40 + i] = (uint8_t)((uint64_t)size >> (8 * i));
        uint64_t h = ze_hash64(d, size - 8, 0);
        for (int i = 0; i < 8; i++)
            d[size - 8 + i] = (uint8_t)(h >> (8 * i));
        fz_load(f, d, size);
        ze_mem_sys_free(d);
    }
    return 0;
}
