/* Built-in components: registered first in every kernel, in the order of
 * the ZE_COMPONENT_ID_* constants, with reflection for files and tools. */
#include "ecs_internal.h"

static const ze_field_desc_t g_transform_fields[] = {
    ZE_FIELD(ze_transform_t, position, ZE_FIELD_VEC3),
    ZE_FIELD(ze_transform_t, rotation, ZE_FIELD_QUAT),
    ZE_FIELD(ze_transform_t, scale, ZE_FIELD_VEC3),
};
static const ze_field_desc_t g_parent_fields[] = {
    ZE_FIELD(ze_parent_t, parent, ZE_FIELD_ENTITY),
};
static const ze_field_desc_t g_mesh_fields[] = {
    ZE_FIELD(ze_mesh_t, mesh, ZE_FIELD_UUID),
};
static const ze_field_desc_t g_camera_fields[] = {
    ZE_FIELD(ze_camera_t, fov_y, ZE_FIELD_F32),     ZE_FIELD(ze_camera_t, near_plane, ZE_FIELD_F32),
    ZE_FIELD(ze_camera_t, far_plane, ZE_FIELD_F32), ZE_FIELD(ze_camera_t, aspect, ZE_FIELD_F32),
    ZE_FIELD(ze_camera_t, is_main, ZE_FIELD_BOOL),
};
static const ze_field_desc_t g_light_fields[] = {
    ZE_FIELD(ze_light_t, type, ZE_FIELD_I32),   ZE_FIELD(ze_light_t, intensity, ZE_FIELD_F32),
    ZE_FIELD(ze_light_t, range, ZE_FIELD_F32),  ZE_FIELD(ze_light_t, spot_angle, ZE_FIELD_F32),
    ZE_FIELD(ze_light_t, color, ZE_FIELD_VEC3),
};
static const ze_field_desc_t g_material_fields[] = {
    ZE_FIELD(ze_material_t, material, ZE_FIELD_UUID),
};
static const ze_field_desc_t g_name_fields[] = {
    ZE_FIELD_ARRAY(ze_name_t, value, ZE_FIELD_CHARS, ZE_NAME_MAX),
};
static const ze_field_desc_t g_rigidbody_fields[] = {
    ZE_FIELD(ze_rigidbody_t, motion, ZE_FIELD_I32),
    ZE_FIELD(ze_rigidbody_t, mass, ZE_FIELD_F32),
    ZE_FIELD(ze_rigidbody_t, friction, ZE_FIELD_F32),
    ZE_FIELD(ze_rigidbody_t, restitution, ZE_FIELD_F32),
};
static const ze_field_desc_t g_uuid_fields[] = {
    ZE_FIELD(ze_uuid_component_t, value, ZE_FIELD_UUID),
};

/* New components of these types start in a usable state, not all zeros. */
static void transform_ctor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    ze_transform_t *t = ptr;
    for (uint32_t i = 0; i < count; i++)
        t[i] = ze_transform_identity();
}
static void mesh_ctor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    ze_mesh_t *m = ptr;
    for (uint32_t i = 0; i < count; i++)
        m[i] = (ze_mesh_t){.render_instance = ZE_RENDER_INSTANCE_NONE};
}
static void rigidbody_ctor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    ze_rigidbody_t *r = ptr;
    for (uint32_t i = 0; i < count; i++)
        r[i] = (ze_rigidbody_t){.mass = 1.0f, .friction = 0.5f, .body_id = ZE_BODY_NONE};
}
static void camera_ctor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    ze_camera_t *c = ptr;
    for (uint32_t i = 0; i < count; i++)
        c[i] = (ze_camera_t){
            .fov_y = 1.0471976f, .near_plane = 0.1f, .far_plane = 1000.0f, .aspect = 16.0f / 9.0f};
}
static void light_ctor(void *ptr, uint32_t count, void *user)
{
    (void)user;
    ze_light_t *l = ptr;
    for (uint32_t i = 0; i < count; i++)
        l[i] = (ze_light_t){
            .intensity = 1.0f, .range = 10.0f, .spot_angle = 0.7853982f, .color = {1, 1, 1}};
}

#define BUILTIN_FLAGS(T, nm, f, ctor_fn, fl)                                             \
    {                                                                                    \
        .name = nm, .size = sizeof(T), .align = _Alignof(T), .hooks = {.ctor = ctor_fn}, \
        .fields = f, .field_count = ZE_COUNTOF(f), .flags = fl                           \
    }
#define BUILTIN(T, nm, f, ctor_fn) BUILTIN_FLAGS(T, nm, f, ctor_fn, 0)
/* What the renderer draws is tracked per row: it sends only what changed
 * (the hierarchy reads Transform's row versions too). */
#define BUILTIN_TRACKED(T, nm, f, ctor_fn) BUILTIN_FLAGS(T, nm, f, ctor_fn, ZE_COMPONENT_TRACKED)

ze_result ze__builtins_register(ze_kernel_t *k)
{
    const ze_component_desc_t descs[ZE_BUILTIN_COMPONENT_COUNT] = {
        [ZE_COMPONENT_ID_TRANSFORM] =
            BUILTIN_TRACKED(ze_transform_t, "Transform", g_transform_fields, transform_ctor),
        [ZE_COMPONENT_ID_PARENT] = BUILTIN(ze_parent_t, "Parent", g_parent_fields, NULL),
        [ZE_COMPONENT_ID_MESH] = BUILTIN_TRACKED(ze_mesh_t, "Mesh", g_mesh_fields, mesh_ctor),
        [ZE_COMPONENT_ID_CAMERA] =
            BUILTIN_TRACKED(ze_camera_t, "Camera", g_camera_fields, camera_ctor),
        [ZE_COMPONENT_ID_LIGHT] = BUILTIN_TRACKED(ze_light_t, "Light", g_light_fields, light_ctor),
        [ZE_COMPONENT_ID_MATERIAL] =
            BUILTIN_TRACKED(ze_material_t, "Material", g_material_fields, NULL),
        [ZE_COMPONENT_ID_NAME] = BUILTIN(ze_name_t, "Name", g_name_fields, NULL),
        [ZE_COMPONENT_ID_RIGIDBODY] =
            BUILTIN(ze_rigidbody_t, "RigidBody", g_rigidbody_fields, rigidbody_ctor),
        [ZE_COMPONENT_ID_UUID] = BUILTIN(ze_uuid_component_t, "UUID", g_uuid_fields, NULL),
    };
    for (uint32_t i = 0; i < ZE_BUILTIN_COMPONENT_COUNT; i++) {
        ze_component_t c;
        ze_result r = ze_component_register(k, &descs[i], &c);
        if (r != ZE_OK)
            return r;
        ZE_VERIFY(c.id == i); /* the constants in ecs.h depend on it */
    }
    return ZE_OK;
}
