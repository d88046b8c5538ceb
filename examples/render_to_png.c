/* Rendering a model to a PNG, headless: the engine on its Vulkan backend
 * (a GPU, or Mesa's lavapipe on the CPU where there is none), a camera, a
 * sun and a crate made from code, a few frames on a virtual clock, and a
 * screenshot of the last one. ze_app_run is ze_app_main without the
 * command line: the program says what to run, and gets a report back.
 *
 * Run it in a project folder (project.json, models/crate.gltf); it writes
 * crate.png there. The same from the shell, for any model:
 *   zengine render models/crate.gltf --out crate.png
 */
#include <stdio.h>

#include <zengine/zengine.h>

/* The scene, from code. Right-handed, +Y up; a camera looks down its -Z,
 * a light shines down its -Z (docs/engine.md, "Coordinates and units"). */
static ze_result on_initialized(ze_engine_t *e, void *user)
{
    (void)user;
    ze_world_t *w = ze_engine_world(e);

    ze_entity_t camera = ze_entity_create(w);
    ze_transform_t ct = ze_transform_identity();
    ct.position = (ze_vec3_t){0, 1.5f, 4};
    ct.rotation = ze_quat_from_axis_angle((ze_vec3_t){1, 0, 0}, -0.35f); /* look down a bit */
    ze_component_set(w, camera, ZE_ID(ze_transform_t), &ct);
    ze_set(w, camera, ze_camera_t,
           {.fov_y = 1.0f, .near_plane = 0.1f, .far_plane = 100, .is_main = true});

    ze_entity_t sun = ze_entity_create(w);
    ze_transform_t st = ze_transform_identity();
    st.rotation = ze_quat_from_axis_angle((ze_vec3_t){1, 0, 0}, -1.0f); /* from above, in front */
    ze_component_set(w, sun, ZE_ID(ze_transform_t), &st);
    ze_set(w, sun, ze_light_t, {.type = ZE_LIGHT_DIRECTIONAL, .intensity = 3, .color = {1, 1, 1}});

    /* The model's node hierarchy, once, at the origin (turned to show two
     * faces). The engine imports it first when it is not cooked yet. */
    ze_transform_t at = ze_transform_identity();
    at.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, 0.6f);
    return ze_engine_spawn(e, &(ze_spawn_desc_t){.asset = "/models/crate.gltf", .transform = &at});
}

/* The picture's size, from the PNG's IHDR chunk (big-endian, at byte 16). */
static bool png_size(const char *path, uint32_t *w, uint32_t *h)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(b, 1, sizeof b, f) == sizeof b && b[1] == 'P' && b[2] == 'N';
    if (f)
        fclose(f);
    *w = ok ? (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19] : 0;
    *h = ok ? (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23] : 0;
    return ok;
}

int main(void)
{
    ze_app_desc_t app = {.name = "render_to_png", .on_initialized = on_initialized};
    /* A run that ends: headless, 5 iterations of 1/60 s (the assets are
     * imported and loaded before the first), a PNG of the last frame. The
     * window size comes from project.json (640 x 360). */
    ze_run_desc_t run = {.project = "project.json",
                         .headless = true,
                         .frames = 5,
                         .fixed_dt = 1.0 / 60.0,
                         .backend = "vulkan",
                         .screenshot = "crate.png"};
    ze_run_report_t rep;
    if (ze_app_run(&app, &run, &rep) != ZE_OK) {
        printf("render_to_png: the run failed: %s\n", rep.error);
        return 1;
    }
    uint32_t width, height;
    if (!png_size("crate.png", &width, &height)) {
        printf("render_to_png: no crate.png\n");
        return 1;
    }
    /* What the report says the GPU did in the last frame: draws (instance x
     * submesh) that passed culling, and their triangles; and what the
     * Vulkan validation layer (on in debug builds) said: nothing, we hope. */
    printf("render_to_png: crate.png %ux%u on %s, %u draw%s visible, %llu triangles, %llu "
           "validation messages\n",
           width, height, rep.device, rep.draws_visible, rep.draws_visible == 1 ? "" : "s",
           (unsigned long long)rep.triangles, (unsigned long long)rep.validation_messages);
    return rep.validation_messages == 0 && rep.draws_visible > 0 ? 0 : 1;
}
