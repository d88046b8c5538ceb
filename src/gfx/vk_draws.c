/* Per-frame draw data, in the frame slot's host-visible buffer (f->data,
 * grown by doubling, the old one freed by timeline value): the frame
 * constants (view-projection, camera, frustum planes, sky, one directional
 * light, up to ZE_VK_MAX_POINT_LIGHTS point lights), the materials the
 * frame uses (index 0: the default; each resident material once per frame)
 * and one indexed indirect command per instance and submesh (firstInstance
 * indexes the per-draw SSBO: world and normal matrices, material index,
 * the submesh's local bounding sphere) with their count, for one
 * vkCmdDrawIndexedIndirectCount. Written by the CPU before the submission
 * (host-coherent: no GPU barrier). With GPU culling these commands are the
 * candidates: the cull pass (vk_pass_cull.c) copies the visible ones into
 * the slot's `visible` buffer (device-local, as many as the candidates'
 * capacity) and counts them in `visible_count` (host-visible: zeroed here,
 * read back by ze__vk_draws_retire for the statistics). Render thread. */
#include <math.h>
#include <string.h>

#include "gfx/vk_internal.h"

typedef struct layout_t {
    VkDeviceSize materials, draws, indirect, count, total;
} layout_t;

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a)
{
    return (v + a - 1) / a * a;
}

static layout_t frame_layout(uint32_t draws, uint32_t materials)
{
    layout_t l;
    l.materials = align_up(sizeof(ze_vk_gpu_frame_t), 256);
    l.draws = align_up(l.materials + sizeof(ze_vk_gpu_material_t) * materials, 256);
    l.indirect = align_up(l.draws + sizeof(ze_vk_gpu_draw_t) * draws, 256);
    l.count = align_up(
        l.indirect + sizeof(VkDrawIndexedIndirectCommand) * draws * ZE_VK_FACE_CLASSES, 256);
    l.total = l.count + 256;
    return l;
}

/* The cull pass's output for `cap` draws (the count buffer once). */
static ze_result cull_buffers(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t cap)
{
    VkBufferUsageFlags use =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    if (!f->visible_count.buffer) {
        ze_result r = ze__vk_buffer_create(b, 256, use, true, &f->visible_count);
        if (r != ZE_OK)
            return r;
    }
    ze__vk_defer_buffer(b, &f->visible);
    return ze__vk_buffer_create(
        b, sizeof(VkDrawIndexedIndirectCommand) * (VkDeviceSize)cap * ZE_VK_FACE_CLASSES, use,
        false, &f->visible);
}

static ze_result frame_data(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t draws)
{
    uint32_t want = draws + 1; /* materials: at most one per draw, plus the default */
    if (f->data.buffer && draws <= f->draw_capacity && want <= f->material_capacity)
        return ZE_OK;
    uint32_t cap = f->draw_capacity ? f->draw_capacity : 64;
    while (cap < want)
        cap *= 2;
    layout_t l = frame_layout(cap, cap);
    ze__vk_defer_buffer(b, &f->data);
    ze_result r = ze__vk_buffer_create(b, l.total,
                                       VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                       true, &f->data);
    if (r == ZE_OK && b->cull)
        r = cull_buffers(b, f, cap);
    if (r != ZE_OK) {
        ze__vk_defer_buffer(b, &f->data);
        f->draw_capacity = f->material_capacity = 0;
        return r;
    }
    f->draw_capacity = f->material_capacity = cap;
    /* set 1: frame, materials, draws; with culling also the candidate
       commands, the visible ones and their count (the cull pass's) */
    VkDescriptorBufferInfo bi[6] = {
        {f->data.buffer, 0, sizeof(ze_vk_gpu_frame_t)},
        {f->data.buffer, l.materials, sizeof(ze_vk_gpu_material_t) * cap},
        {f->data.buffer, l.draws, sizeof(ze_vk_gpu_draw_t) * cap},
        {f->data.buffer, l.indirect,
         sizeof(VkDrawIndexedIndirectCommand) * cap * ZE_VK_FACE_CLASSES},
        {f->visible.buffer, 0, VK_WHOLE_SIZE},
        {f->visible_count.buffer, 0, VK_WHOLE_SIZE},
    };
    uint32_t nw = b->cull ? 6 : 3;
    VkWriteDescriptorSet w[6];
    for (uint32_t i = 0; i < nw; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = f->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType =
                i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &bi[i],
        };
    vkUpdateDescriptorSets(b->device, nw, w, 0, NULL);
    return ZE_OK;
}

static void gpu_material(ze_vk_backend_t *b, const ze_zematerial_t *m, ze_vk_gpu_material_t *g)
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

/* The material's index in the frame's SSBO (0: the default), and whether
 * it is double-sided, from the CPU copy: the SSBO is mapped
 * write-combined on discrete GPUs, where reading it back costs a bus
 * round trip per read. */
static uint32_t material_index(ze_vk_backend_t *b, ze_uuid_t uuid, ze_vk_gpu_material_t *mats,
                               uint32_t *count, bool *double_sided)
{
    *double_sided = false;
    if (ze_uuid_is_nil(uuid))
        return 0;
    ze_vk_material_t *m = ze_hashmap_get(&b->materials, &uuid);
    if (!m)
        return 0;
    *double_sided = m->m.double_sided;
    if (m->stamp != b->frame_calls) {
        m->stamp = b->frame_calls;
        m->gpu_index = (*count)++;
        gpu_material(b, &m->m, &mats[m->gpu_index]);
    }
    return m->gpu_index;
}

static void mat_copy(float dst[16], const ze_mat4_t *m)
{
    memcpy(dst, m, sizeof(float) * 16);
}

/* The determinant of the world matrix's upper 3x3: negative when it
 * mirrors. */
static float det3(const ze_mat4_t *w)
{
    const float(*m)[4] = w->m;
    return m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) -
           m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
           m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
}

static uint32_t count_draws(ze_vk_backend_t *b)
{
    const ze__instance_table_t *t = &b->base.instances;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->slots; i++) {
        if (!t->live[i])
            continue;
        const ze_vk_mesh_t *m = ze_hashmap_get(&b->meshes, &t->rows[i].mesh);
        if (m)
            n += m->submesh_count;
    }
    return n;
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
    uint32_t draws = s->has_camera ? count_draws(b) : 0;
    ze_result r = frame_data(b, f, draws);
    if (r != ZE_OK)
        return r;
    layout_t l = frame_layout(f->draw_capacity, f->material_capacity);
    uint8_t *base = f->data.map;
    fill_frame(b, s, (ze_vk_gpu_frame_t *)base);
    ze_vk_gpu_material_t *mats = (ze_vk_gpu_material_t *)(base + l.materials);
    ze_vk_gpu_draw_t *gd = (ze_vk_gpu_draw_t *)(base + l.draws);
    VkDrawIndexedIndirectCommand *cmds = (VkDrawIndexedIndirectCommand *)(base + l.indirect);
    /* material 0: the default (white, non-metal, roughness 0.5) */
    mats[0] = (ze_vk_gpu_material_t){
        .base_color = {1, 1, 1, 1},
        .params = {0.0f, 0.5f, 1.0f, 0.5f},
        .tex = {ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, 0},
    };
    uint32_t nmat = 1, n = 0, per[ZE_VK_FACE_CLASSES] = {0};
    uint32_t stride = f->draw_capacity;
    const ze__instance_table_t *t = &b->base.instances;
    for (uint32_t i = 0; i < t->slots && draws; i++) {
        if (!t->live[i])
            continue;
        const ze_render_instance_t *in = &t->rows[i];
        const ze_vk_mesh_t *m = ze_hashmap_get(&b->meshes, &in->mesh);
        if (!m)
            continue;
        ze_mat4_t world = ze_render_instance_matrix(in, s->alpha);
        ze_mat4_t inv, nrm;
        if (!ze_mat4_inverse(world, &inv))
            inv = ze_mat4_identity();
        nrm = ze_mat4_transpose(inv);
        bool mirrored = det3(&world) < 0.0f;
        for (uint32_t k = 0; k < m->submesh_count && n < draws; k++) {
            const ze_vk_submesh_t *sm = &m->submeshes[k];
            ze_uuid_t mu = ze_uuid_is_nil(in->material) ? sm->material : in->material;
            mat_copy(gd[n].world, &world);
            mat_copy(gd[n].normal, &nrm);
            bool both;
            gd[n].material = material_index(b, mu, mats, &nmat, &both);
            memcpy(gd[n].sphere, sm->sphere, sizeof sm->sphere);
            uint32_t cls = both       ? ZE_VK_FACES_BOTH
                           : mirrored ? ZE_VK_FACES_FRONT_CW
                                      : ZE_VK_FACES_FRONT_CCW;
            cmds[cls * stride + per[cls]++] = (VkDrawIndexedIndirectCommand){
                .indexCount = sm->index_count,
                .instanceCount = 1,
                .firstIndex = (uint32_t)m->index_first + sm->index_offset,
                .vertexOffset = (int32_t)m->vertex_first,
                .firstInstance = n,
            };
            n++;
        }
    }
    ze_vk_gpu_frame_t *gf = (ze_vk_gpu_frame_t *)base;
    f->draws = (ze_vk_draw_list_t){.buffer = f->data.buffer,
                                   .indirect = l.indirect,
                                   .count = l.count,
                                   .stride = stride,
                                   .draws = n};
    for (uint32_t k = 0; k < ZE_VK_FACE_CLASSES; k++) {
        ((uint32_t *)(base + l.count))[k] = per[k];
        gf->counts[1 + k] = per[k];
        f->draws.class_draws[k] = per[k];
        if (b->cull)
            ((uint32_t *)f->visible_count.map)[k] = 0; /* the cull pass counts from here */
    }
    gf->ranges[0] = stride;
    uint32_t g0 = (per[0] + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP;
    uint32_t g1 = (per[1] + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP;
    uint32_t g2 = (per[2] + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP;
    gf->ranges[1] = g0;
    gf->ranges[2] = g0 + g1;
    f->draws.cull_groups = g0 + g1 + g2;
    f->count_pending = true;
    return ZE_OK;
}

void ze__vk_draws_retire(ze_vk_backend_t *b, ze_vk_frame_t *f)
{
    if (!f->count_pending)
        return;
    f->count_pending = false;
    uint32_t n = f->draws.draws, visible = n;
    if (b->cull && n) {
        const uint32_t *c = (const uint32_t *)f->visible_count.map;
        visible = c[0] + c[1] + c[2];
    }
    atomic_store_explicit(&b->last_draws, n, memory_order_relaxed);
    atomic_store_explicit(&b->last_draws_visible, visible < n ? visible : n, memory_order_relaxed);
}
