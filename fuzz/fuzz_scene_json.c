/* ze_scene_load_json on arbitrary bytes, into a fresh small world of a
 * kernel with the built-ins, a component reflecting every field type, a
 * raw (base64) component, a tag and a component that cannot be written.
 * Whatever loads must save to a document that loads into another world
 * without a single reported problem and saves to the same bytes. */
#include <string.h>

#include "zengine/ecs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct FzAll {
    bool flag;
    uint8_t byte;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    ze_vec2_t v2;
    ze_vec4_t v4;
    ze_mat4_t m;
    ze_uuid_t id;
    ze_entity_t target;
    char label[8];
    float floats[2];
    ze_entity_t links[2];
} FzAll;

static const ze_field_desc_t g_fz_fields[] = {
    ZE_FIELD(FzAll, flag, ZE_FIELD_BOOL),
    ZE_FIELD(FzAll, byte, ZE_FIELD_U8),
    ZE_FIELD(FzAll, i32, ZE_FIELD_I32),
    ZE_FIELD(FzAll, u32, ZE_FIELD_U32),
    ZE_FIELD(FzAll, i64, ZE_FIELD_I64),
    ZE_FIELD(FzAll, u64, ZE_FIELD_U64),
    ZE_FIELD(FzAll, f32, ZE_FIELD_F32),
    ZE_FIELD(FzAll, f64, ZE_FIELD_F64),
    ZE_FIELD(FzAll, v2, ZE_FIELD_VEC2),
    ZE_FIELD(FzAll, v4, ZE_FIELD_VEC4),
    ZE_FIELD(FzAll, m, ZE_FIELD_MAT4),
    ZE_FIELD(FzAll, id, ZE_FIELD_UUID),
    ZE_FIELD(FzAll, target, ZE_FIELD_ENTITY),
    ZE_FIELD_ARRAY(FzAll, label, ZE_FIELD_CHARS, 8),
    ZE_FIELD_ARRAY(FzAll, floats, ZE_FIELD_F32, 2),
    ZE_FIELD_ARRAY(FzAll, links, ZE_FIELD_ENTITY, 2),
};

typedef struct FzRaw {
    int32_t a, b;
} FzRaw;
typedef struct FzOwning {
    void *p;
} FzOwning;

static void fz_nop_dtor(void *ptr, uint32_t count, void *user)
{
    (void)ptr;
    (void)count;
    (void)user;
}

enum { FZ_CAPACITY = 4096 };

static ze_kernel_t *fz_kernel(void)
{
    static ze_kernel_t *k;
    if (k)
        return k;
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .level = ZE_LOG_FATAL});
    k = ze_kernel_create(&(ze_kernel_desc_t){.name = "fuzz"});
    ZE_VERIFY(k);
    ze_component_t c;
    ZE_VERIFY(ze_component_register(k,
                                    &(ze_component_desc_t){.name = "All",
                                                           .size = sizeof(FzAll),
                                                           .align = _Alignof(FzAll),
                                                           .fields = g_fz_fields,
                                                           .field_count = ZE_COUNTOF(g_fz_fields)},
                                    &c) == ZE_OK);
    ZE_VERIFY(ze_component_register(k, &(ze_component_desc_t){.name = "Raw", .size = sizeof(FzRaw)},
                                    &c) == ZE_OK);
    ZE_VERIFY(ze_component_register(k, &(ze_component_desc_t){.name = "Tag"}, &c) == ZE_OK);
    ZE_VERIFY(ze_component_register(k,
                                    &(ze_component_desc_t){.name = "Owning",
                                                           .size = sizeof(FzOwning),
                                                           .hooks = {.dtor = fz_nop_dtor}},
                                    &c) == ZE_OK);
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_kernel_t *k = fz_kernel();
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = FZ_CAPACITY});
    ZE_VERIFY(w);
    ze_entity_t keep = ze_entity_create(w);
    ze_set(w, keep, ze_name_t, {"keep"});
    uint64_t before = ze_world_hash(w);
    ze_scene_report_t rep;
    ze_result r = ze_scene_load_json(w, (const char *)data, size, &rep);
    if (r != ZE_OK) {
        ZE_VERIFY(rep.problems >= 1 && rep.entities == 0);
        ZE_VERIFY(ze_world_hash(w) == before && ze_world_entity_count(w) == 1);
        ze_world_destroy(w);
        return 0;
    }
    ze_byte_writer_t a = {.alloc = ze_mem_system_allocator()};
    ze_byte_writer_t b = {.alloc = ze_mem_system_allocator()};
    ZE_VERIFY(ze_scene_save_json(w, &a) == ZE_OK);
    ze_world_t *w2 = ze_world_create(k, &(ze_world_desc_t){.capacity = FZ_CAPACITY});
    ZE_VERIFY(w2);
    ZE_VERIFY(ze_scene_load_json(w2, (const char *)a.data, a.size, &rep) == ZE_OK);
    ZE_VERIFY(rep.problems == 0);
    ZE_VERIFY(ze_scene_save_json(w2, &b) == ZE_OK);
    ZE_VERIFY(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
    ze_world_destroy(w2);
    ze_world_destroy(w);
    return 0;
}
