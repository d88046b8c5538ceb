/* Per-frame draw data, in the frame slot's host-visible buffer (f->data,
 * grown by doubling, the old one freed by timeline value): the frame
 * constants (view-projection, camera, frustum planes, sky, one directional
 * light, up to ZE_VK_MAX_POINT_LIGHTS point lights, the interpolation
 * alpha, the instance slots and the culling flag), the scene's tables
 * (materials, meshes, submeshes: vk_scene.c's, copied when this slot's
 * copy is older) and the instance records the scatter pass writes into
 * the device table. Written by the CPU before the submission
 * (host-coherent: no GPU barrier). The cull pass expands every instance
 * into its submeshes' draws, tests them and compacts the visible ones
 * into the slot's `visible` commands and `refs` (device-local,
 * ZE_VK_FACE_CLASSES ranges of as many as the candidates) with their
 * counts in `visible_count` (host-visible: zeroed here, read back by
 * ze__vk_draws_retire for the statistics). The CPU's work per frame is
 * the constants, the changed records and, when they changed, the tables:
 * nothing per instance.
 *
 * With occlusion culling the commands and refs have twice the ranges
 * (the late cull's after the early one's), and the slot has the late
 * candidates (device-local, as many as the draws) and the late cull's
 * dispatch size (host-visible: x zeroed here, y = z = 1).
 *
 * Set 1, per frame slot (ze__vk_frame_layout_create):
 *   0 frame constants (uniform)     6 visible commands
 *   1 materials                     7 visible counts
 *   2 the instance table (device)   8 visible refs (slot, material)
 *   3 meshes                        9 late candidates
 *   4 submeshes                    10 the late cull's dispatch size
 *   5 instance records to scatter
 * Render thread. */
#include <math.h>
#include <string.h>

#include "gfx/vk_internal.h"

enum { FRAME_BINDINGS = 14 };

typedef struct layout_t {
    VkDeviceSize materials, meshes, submeshes, updates, total;
} layout_t;

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a)
{
    return (v + a - 1) / a * a;
}

static layout_t frame_layout(const ze_vk_frame_t *f)
{
    layout_t l;
    l.materials = align_up(sizeof(ze_vk_gpu_frame_t), 256);
    l.meshes = align_up(l.materials + sizeof(ze_vk_gpu_material_t) * f->material_capacity, 256);
    l.submeshes = align_up(l.meshes + sizeof(ze_vk_gpu_mesh_t) * f->mesh_capacity, 256);
    l.updates = align_up(l.submeshes + sizeof(ze_vk_gpu_submesh_t) * f->submesh_capacity, 256);
    l.total = align_up(l.updates + sizeof(ze_vk_gpu_update_t) * f->update_capacity, 256);
    return l;
}

ze_result ze__vk_frame_layout_create(ze_vk_backend_t *b)
{
    VkShaderStageFlags vf =
        VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutBinding fb[FRAME_BINDINGS];
    for (uint32_t i = 0; i < FRAME_BINDINGS; i++)
        fb[i] = (VkDescriptorSetLayoutBinding){
            i, i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
            vf, NULL};
    VkDescriptorSetLayoutCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = FRAME_BINDINGS,
        .pBindings = fb,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &fci, b->host_cb, &b->frame_layout),
               "vkCreateDescriptorSetLayout");
    return ZE_OK;
}

static uint32_t grow_to(uint32_t cap, uint32_t want, uint32_t least)
{
    if (cap < least)
        cap = least;
    while (cap < want)
        cap = cap > UINT32_MAX / 2 ? want : cap * 2;
    return cap;
}

/* The cull passes' output for `cap` draws per class (the counts and the
   dispatch sizes once). */
static ze_result cull_buffers(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t cap)
{
    VkBufferUsageFlags use =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    _Static_assert(ZE_VK_COUNTS * sizeof(uint32_t) <= 256, "visible_count holds the counts");
    if (!f->visible_count.buffer) {
        ze_result r = ze__vk_buffer_create(b, 256, use, true, &f->visible_count);
        if (r != ZE_OK)
            return r;
    }
    if (!f->late_args.buffer) {
        ze_result r = ze__vk_buffer_create(b, 16, use, true, &f->late_args);
        if (r != ZE_OK)
            return r;
    }
    if (!f->place_args.buffer) {
        ze_result r = ze__vk_buffer_create(b, 2 * 8 * sizeof(uint32_t), use, false, &f->place_args);
        if (r != ZE_OK)
            return r;
    }
    ze__vk_defer_buffer(b, &f->elements);
    ze__vk_defer_buffer(b, &f->refs);
    ze__vk_defer_buffer(b, &f->candidates);
    VkDeviceSize n = (VkDeviceSize)cap * ZE_VK_FACE_CLASSES * (b->occlusion ? 2 : 1);
    /* without occlusion culling nothing reads the candidates: one, for the set */
    VkDeviceSize nc = b->occlusion ? cap : 1;
    ze_result r = ze__vk_buffer_create(b, sizeof(ze_vk_gpu_element_t) * n,
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, &f->elements);
    if (r == ZE_OK)
        r = ze__vk_buffer_create(b, sizeof(ze_vk_gpu_ref_t) * n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 false, &f->refs);
    if (r == ZE_OK)
        r = ze__vk_buffer_create(b, sizeof(ze_vk_gpu_candidate_t) * nc,
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, &f->candidates);
    if (r != ZE_OK) {
        ze__vk_defer_buffer(b, &f->elements);
        ze__vk_defer_buffer(b, &f->refs);
        ze__vk_defer_buffer(b, &f->candidates);
    }
    return r;
}

/* The bins and the instanced commands for `cap` bins per class range. The
   bins are cleared by a transfer pass (bins_clear) each frame. */
static ze_result bin_buffers(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t cap)
{
    ze__vk_defer_buffer(b, &f->bins);
    ze__vk_defer_buffer(b, &f->visible);
    VkDeviceSize n = (VkDeviceSize)cap * ZE_VK_FACE_CLASSES * (b->occlusion ? 2 : 1);
    /* the bins of both phases' ranges, then the classes' counts (the
       place passes' bound: ZE_VK_BIN_TAIL words) */
    VkDeviceSize nb = (VkDeviceSize)cap * ZE_VK_FACE_CLASSES * 2 + ZE_VK_BIN_TAIL;
    ze_result r = ze__vk_buffer_create(
        b, sizeof(uint32_t) * nb,
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &f->bins);
    if (r == ZE_OK)
        r = ze__vk_buffer_create(b, sizeof(VkDrawIndexedIndirectCommand) * n,
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                     VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                 false, &f->visible);
    if (r != ZE_OK) {
        ze__vk_defer_buffer(b, &f->bins);
        ze__vk_defer_buffer(b, &f->visible);
    }
    return r;
}

static void write_set(ze_vk_backend_t *b, ze_vk_frame_t *f)
{
    layout_t l = frame_layout(f);
    const ze_vk_scene_t *sc = &b->scene;
    VkDescriptorBufferInfo bi[FRAME_BINDINGS] = {
        {f->data.buffer, 0, sizeof(ze_vk_gpu_frame_t)},
        {f->data.buffer, l.materials, sizeof(ze_vk_gpu_material_t) * f->material_capacity},
        {sc->instances.buffer, 0, VK_WHOLE_SIZE},
        {f->data.buffer, l.meshes, sizeof(ze_vk_gpu_mesh_t) * f->mesh_capacity},
        {f->data.buffer, l.submeshes, sizeof(ze_vk_gpu_submesh_t) * f->submesh_capacity},
        {f->data.buffer, l.updates, sizeof(ze_vk_gpu_update_t) * f->update_capacity},
        {f->visible.buffer, 0, VK_WHOLE_SIZE},
        {f->visible_count.buffer, 0, VK_WHOLE_SIZE},
        {f->refs.buffer, 0, VK_WHOLE_SIZE},
        {f->candidates.buffer, 0, VK_WHOLE_SIZE},
        {f->late_args.buffer, 0, VK_WHOLE_SIZE},
        {f->elements.buffer, 0, VK_WHOLE_SIZE},
        {f->bins.buffer, 0, VK_WHOLE_SIZE},
        {f->place_args.buffer, 0, VK_WHOLE_SIZE},
    };
    VkWriteDescriptorSet w[FRAME_BINDINGS];
    for (uint32_t i = 0; i < FRAME_BINDINGS; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = f->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType =
                i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &bi[i],
        };
    vkUpdateDescriptorSets(b->device, FRAME_BINDINGS, w, 0, NULL);
    f->bound_instances = sc->instances.buffer;
}

/* The slot's buffers hold this frame's data: grown (doubling) where it
 * does not fit, the set rewritten when a buffer it names changed. */
static ze_result frame_data(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t draws, uint32_t bins,
                            uint32_t updates)
{
    const ze_vk_scene_t *sc = &b->scene;
    uint32_t mats = sc->materials_gpu.count, meshes = sc->meshes_gpu.count,
             subs = sc->submeshes_gpu.count;
    bool data_fits = f->data.buffer && mats <= f->material_capacity && meshes <= f->mesh_capacity &&
                     subs <= f->submesh_capacity && updates <= f->update_capacity;
    bool cull_fits = f->elements.buffer && draws <= f->draw_capacity;
    bool bins_fit = f->bins.buffer && bins <= f->bin_capacity;
    ze_result r = ZE_OK;
    if (!data_fits) {
        f->material_capacity = grow_to(f->material_capacity, mats, 64);
        f->mesh_capacity = grow_to(f->mesh_capacity, meshes, 64);
        f->submesh_capacity = grow_to(f->submesh_capacity, subs, 64);
        f->update_capacity = grow_to(f->update_capacity, updates, 256);
        ze__vk_defer_buffer(b, &f->data);
        r = ze__vk_buffer_create(b, frame_layout(f).total,
                                 VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 true, &f->data);
        f->tables_serial = 0; /* a new buffer: the tables again */
    }
    if (r == ZE_OK && !cull_fits) {
        uint32_t cap = grow_to(f->draw_capacity, draws, 64);
        r = cull_buffers(b, f, cap);
        f->draw_capacity = r == ZE_OK ? cap : 0;
    }
    if (r == ZE_OK && !bins_fit) {
        uint32_t cap = grow_to(f->bin_capacity, bins, 16);
        r = bin_buffers(b, f, cap);
        f->bin_capacity = r == ZE_OK ? cap : 0;
    }
    if (r != ZE_OK) {
        ze__vk_defer_buffer(b, &f->data);
        f->material_capacity = f->mesh_capacity = f->submesh_capacity = f->update_capacity = 0;
        f->draw_capacity = f->bin_capacity = 0;
        return r;
    }
    if (!data_fits || !cull_fits || !bins_fit || f->bound_instances != sc->instances.buffer)
        write_set(b, f);
    return ZE_OK;
}

void ze__vk_gpu_material(ze_vk_backend_t *b, const ze_zematerial_t *m, ze_vk_gpu_material_t *g)
{
    memcpy(g->base_color, &m->base_color_factor, sizeof g->base_color);
    g->params[0] = m->metallic_factor;
    g->params[1] = m->roughness_factor;
    g->params[2] = m->normal.present ? m->normal.scale : 1.0f;
    g->params[3] = m->alpha_cutoff;
    g->tex[0] = ze__vk_rrm_texture_slot(b, &m->base_color, ZE_VK_TEX_NONE);
    g->tex[1] = ze__vk_rrm_texture_slot(b, &m->metallic_roughness, ZE_VK_TEX_NONE);
    g->tex[2] = ze__vk_rrm_texture_slot(b, &m->normal, ZE_VK_TEX_NONE);
    g->tex[3] = (m->alpha_mode == ZE_ALPHA_MASK ? ZE_VK_MAT_MASK : 0u) |
                (m->double_sided ? ZE_VK_MAT_DOUBLE_SIDED : 0u);
}

void ze__vk_gpu_material_default(ze_vk_gpu_material_t *g)
{
    *g = (ze_vk_gpu_material_t){
        .base_color = {1, 1, 1, 1},
        .params = {0.0f, 0.5f, 1.0f, 0.5f},
        .tex = {ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, 0},
    };
}

static void mat_copy(float dst[16], const ze_mat4_t *m)
{
    memcpy(dst, m, sizeof(float) * 16);
}

/* The frustum's planes from the view-projection (Gribb and Hartmann, for
 * Vulkan's clip volume: -w <= x, y <= w, 0 <= z <= w): row 3 +- row 0,
 * row 3 +- row 1, row 2, row 3 - row 2; normalised so that a sphere is
 * outside when its centre is more than its radius behind one. */
static void frustum_planes(const ze_mat4_t *vp, float planes[6][4])
{
    float row[4][4];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            row[r][c] = vp->m[c][r]; /* column-major */
    for (int c = 0; c < 4; c++) {
        planes[0][c] = row[3][c] + row[0][c];
        planes[1][c] = row[3][c] - row[0][c];
        planes[2][c] = row[3][c] + row[1][c];
        planes[3][c] = row[3][c] - row[1][c];
        planes[4][c] = row[2][c];
        planes[5][c] = row[3][c] - row[2][c];
    }
    for (int i = 0; i < 6; i++) {
        float *p = planes[i];
        float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (len > 1e-20f && isfinite(len)) {
            for (int c = 0; c < 4; c++)
                p[c] /= len;
        } else {
            p[0] = p[1] = p[2] = 0.0f;
            p[3] = 1.0f;
        }
    }
}

static void fill_frame(ze_vk_backend_t *b, const ze_render_state_t *s, ze_vk_gpu_frame_t *g)
{
    memset(g, 0, sizeof *g);
    ze_mat4_t vp = ze_mat4_mul(s->camera.projection, s->camera.view);
    mat_copy(g->view_proj, &vp);
    frustum_planes(&vp, g->planes);
    /* occlusion culling: the pyramid's view, and this one for the next */
    ze_vk_hzb_t *z = &b->hzb;
    if (b->occlusion && z->levels) {
        memcpy(g->prev_view_proj, z->view_proj, sizeof g->prev_view_proj);
        g->hzb[0] = z->depth_width;
        g->hzb[1] = z->depth_height;
        g->hzb[2] = z->levels;
        mat_copy(z->next_view_proj, &vp);
    }
    g->camera_pos[0] = s->camera.position.x;
    g->camera_pos[1] = s->camera.position.y;
    g->camera_pos[2] = s->camera.position.z;
    g->sky[0] = s->sky.clear_color.x;
    g->sky[1] = s->sky.clear_color.y;
    g->sky[2] = s->sky.clear_color.z;
    g->sky[3] = 0.1f; /* ambient: a tenth of the sky colour */
    uint32_t points = 0;
    bool sun = false;
    for (uint32_t i = 0; i < s->light_count; i++) {
        const ze_render_light_t *l = &s->lights[i];
        if (l->type == ZE_RENDER_LIGHT_DIRECTIONAL && !sun) {
            sun = true;
            g->light_dir[0] = l->direction.x;
            g->light_dir[1] = l->direction.y;
            g->light_dir[2] = l->direction.z;
            g->light_dir[3] = 1.0f;
            g->light_color[0] = l->color.x * l->intensity;
            g->light_color[1] = l->color.y * l->intensity;
            g->light_color[2] = l->color.z * l->intensity;
        } else if (l->type != ZE_RENDER_LIGHT_DIRECTIONAL && points < ZE_VK_MAX_POINT_LIGHTS) {
            float *p = g->point_pos[points], *c = g->point_color[points];
            p[0] = l->position.x;
            p[1] = l->position.y;
            p[2] = l->position.z;
            p[3] = l->range;
            c[0] = l->color.x * l->intensity;
            c[1] = l->color.y * l->intensity;
            c[2] = l->color.z * l->intensity;
            points++;
        }
    }
    g->counts[0] = points;
}

ze_result ze__vk_draws_build(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_state_t *s)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_result r = ze__vk_scene_sync(b);
    if (r != ZE_OK)
        return r;
    const ze_vk_scene_t *sc = &b->scene;
    uint32_t slots = s->has_camera ? b->base.instances.slots : 0;
    uint32_t draws = s->has_camera ? (uint32_t)sc->draws : 0;
    uint32_t updates = ze__vk_scene_pending(b);
    uint32_t bins = draws ? sc->bins : 0;
    r = frame_data(b, f, draws, bins, updates);
    if (r != ZE_OK)
        return r;
    layout_t l = frame_layout(f);
    uint8_t *base = f->data.map;
    ze_vk_gpu_frame_t *gf = (ze_vk_gpu_frame_t *)base;
    fill_frame(b, s, gf);
    if (f->tables_serial != sc->built_serial) { /* empty tables have no data pointer */
        if (sc->materials_gpu.count)
            memcpy(base + l.materials, sc->materials_gpu.data,
                   sizeof(ze_vk_gpu_material_t) * sc->materials_gpu.count);
        if (sc->meshes_gpu.count)
            memcpy(base + l.meshes, sc->meshes_gpu.data,
                   sizeof(ze_vk_gpu_mesh_t) * sc->meshes_gpu.count);
        if (sc->submeshes_gpu.count)
            memcpy(base + l.submeshes, sc->submeshes_gpu.data,
                   sizeof(ze_vk_gpu_submesh_t) * sc->submeshes_gpu.count);
        f->tables_serial = sc->built_serial;
    }
    updates = ze__vk_scene_records(b, (ze_vk_gpu_update_t *)(base + l.updates));
    gf->scene[0] = draws ? slots : 0;
    gf->scene[1] = (b->cull ? ZE_VK_FRAME_CULL : 0u) |
                   (b->occlusion && b->hzb.history ? ZE_VK_FRAME_HISTORY : 0u);
    gf->scene[2] = f->draw_capacity;
    gf->scene[3] = updates;
    gf->params[0] = s->alpha;
    gf->params[1] = fabsf(s->camera.projection.m[1][1]) * (float)b->target->height * 0.5f;
    gf->params[2] = b->lod_error_px;
    gf->bins[0] = f->bin_capacity;
    gf->bins[1] = sc->submeshes_gpu.count;
    gf->bins[2] = bins;
    f->draws = (ze_vk_draw_list_t){.stride = f->draw_capacity,
                                   .draws = draws,
                                   .slots = gf->scene[0],
                                   .updates = updates,
                                   .bins = f->bin_capacity};
    uint32_t *counts = (uint32_t *)f->visible_count.map;
    for (uint32_t k = 0; k < ZE_VK_COUNTS; k++)
        counts[k] = 0; /* the cull passes count from here */
    uint32_t *late = (uint32_t *)f->late_args.map;
    late[0] = 0; /* the early bins pass sets it from the candidates' count */
    late[1] = late[2] = 1;
    late[3] = 0;
    f->count_pending = true;
    return ZE_OK;
}

void ze__vk_draws_retire(ze_vk_backend_t *b, ze_vk_frame_t *f)
{
    if (!f->count_pending)
        return;
    f->count_pending = false;
    uint32_t n = f->draws.draws, visible = 0, occluded = 0;
    const uint32_t *c = (const uint32_t *)f->visible_count.map;
    if (n) {
        visible = c[0] + c[1] + c[2];
        if (b->occlusion) {
            uint32_t late =
                c[ZE_VK_LATE_COUNTS] + c[ZE_VK_LATE_COUNTS + 1] + c[ZE_VK_LATE_COUNTS + 2];
            uint32_t candidates = c[ZE_VK_CANDIDATE_COUNT];
            visible += late;
            occluded = candidates > late ? candidates - late : 0;
        }
    }
    for (uint32_t k = 0; k < ZE_RENDER_LOD_MAX; k++)
        atomic_store_explicit(&b->last_draws_lod[k], n ? c[ZE_VK_LOD_COUNTS + k] : 0,
                              memory_order_relaxed);
    uint32_t commands = 0;
    uint64_t triangles = 0;
    if (n) {
        uint32_t ranges = ZE_VK_FACE_CLASSES * (b->occlusion ? 2 : 1);
        for (uint32_t k = 0; k < ranges; k++)
            commands += c[ZE_VK_DRAW_COUNTS + k];
        triangles = (uint64_t)c[ZE_VK_TRIANGLE_COUNTS] + c[ZE_VK_TRIANGLE_COUNTS + 1];
    }
    atomic_store_explicit(&b->last_draw_commands, commands, memory_order_relaxed);
    atomic_store_explicit(&b->last_triangles, triangles, memory_order_relaxed);
    atomic_store_explicit(&b->last_draws, n, memory_order_relaxed);
    visible = visible < n ? visible : n;
    atomic_store_explicit(&b->last_draws_visible, visible, memory_order_relaxed);
    atomic_store_explicit(&b->last_draws_occluded, occluded < n - visible ? occluded : n - visible,
                          memory_order_relaxed);
}
