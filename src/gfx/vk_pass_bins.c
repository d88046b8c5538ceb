/* The bins passes: the cull passes' visible draws into instanced
 * commands (shaders/bins.glsl says how).
 *
 * "bins_clear" (transfer, first of the frame's culling work): the frame
 * slot's bin counts (both phases) and counters zeroed. Imports "draw_bins": its last
 * use before the graph is the previous frame's place pass (storage read);
 * the contents are not kept.
 *
 * "bins" (compute, one workgroup): after the cull pass counted each
 * visible draw in its (class, submesh, level) bin, the counts of the
 * early class ranges become offsets (an exclusive scan per class range),
 * each non-empty bin one instanced command (compacted per class range,
 * the count at visible_count[ZE_VK_DRAW_COUNTS + k]), the triangles they
 * draw at visible_count[ZE_VK_TRIANGLE_COUNTS], the place pass's dispatch
 * size at place_args[0..2], with occlusion culling the late cull's
 * dispatch size (late_args), and the counters the cull counted with (the
 * bins' tail) copied into visible_count for the statistics. Imports
 * "visible_count" (host-visible; last read by the previous frame's
 * geometry passes, indirect),
 * "visible_draws" (the commands: last read by the previous frame's
 * geometry passes, indirect) and "place_args" (last read by the place
 * passes, indirect).
 *
 * "bins_late" (occlusion culling only): the same for the late class
 * ranges after the late cull, place_args[8..10].
 * Render thread, or create/destroy. */
#include "gfx/vk_internal.h"

static const ze_rg_import_t BINS_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};

static const ze_rg_import_t COMMANDS_IMPORT = {
    .before = ZE_RG_INDIRECT,
    .kind = ZE_RG_GRAPHICS,
    .discard = true,
};

static const ze_rg_import_t COUNT_IMPORT = {
    .before = ZE_RG_INDIRECT,
    .kind = ZE_RG_GRAPHICS,
    .discard = true,
};

static const ze_rg_import_t LATE_ARGS_IMPORT = {
    .before = ZE_RG_INDIRECT,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};

static const ze_rg_import_t PLACE_ARGS_IMPORT = {
    .before = ZE_RG_INDIRECT,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};

static bool has_draws(const ze_vk_pass_ctx_t *ctx)
{
    return ctx->f->draws.draws && ctx->f->draws.slots;
}

/* ------------------------------------------------------------- clear */

static void clear_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                          const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = sizeof(uint32_t)};
    ze__rg_use(g, pass, ze__rg_import(g, ZE_VK_RES_BINS, &d, &BINS_IMPORT), ZE_RG_TRANSFER_DST);
}

static ze_result clear_record(const ze_vk_pass_ctx_t *ctx)
{
    if (has_draws(ctx))
        vkCmdFillBuffer(ctx->cmd, ctx->f->bins.buffer, 0, VK_WHOLE_SIZE, 0);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_bins_clear = {
    .name = "bins_clear",
    .kind = ZE_RG_TRANSFER,
    .declare = clear_declare,
    .record = clear_record,
};

/* -------------------------------------------------------------- bins */

static ze_result bins_create(ze_vk_backend_t *b, void *state)
{
    return ze__vk_scene_compute_create(b, state, "bins.comp");
}

static ze_result bins_late_create(ze_vk_backend_t *b, void *state)
{
    if (!b->occlusion)
        return ZE_OK; /* never in the graph */
    return ze__vk_scene_compute_create(b, state, "bins_late.comp");
}

/* A buffer of the frame, imported by the first pass that uses it. */
static ze_rg_res_t find_or_import(ze_rg_t *g, const char *name, VkDeviceSize size,
                                  const ze_rg_import_t *imp)
{
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = size};
    return ze__rg_find_or_import(g, name, &d, imp);
}

static void bins_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                         const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_BINS), ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass, find_or_import(g, ZE_VK_RES_VISIBLE_COUNT, sizeof(uint32_t), &COUNT_IMPORT),
               ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass,
               find_or_import(g, ZE_VK_RES_VISIBLE, sizeof(VkDrawIndexedIndirectCommand),
                              &COMMANDS_IMPORT),
               ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass,
               find_or_import(g, ZE_VK_RES_PLACE_ARGS, sizeof(VkDispatchIndirectCommand),
                              &PLACE_ARGS_IMPORT),
               ZE_RG_STORAGE_WRITE);
}

/* The early bins pass also makes the late cull's dispatch size. */
static void bins_early_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                               const ze_vk_shape_t *shape)
{
    bins_declare(b, state, g, pass, shape);
    if (shape->occlusion)
        ze__rg_use(g, pass,
                   find_or_import(g, ZE_VK_RES_LATE_ARGS, sizeof(VkDispatchIndirectCommand),
                                  &LATE_ARGS_IMPORT),
                   ZE_RG_STORAGE_WRITE);
}

static ze_result bins_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_compute_t *s = ctx->state;
    if (!has_draws(ctx))
        return ZE_OK;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 1, 1, &ctx->f->set, 0,
                            NULL);
    vkCmdDispatch(cmd, 1, 1, 1);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_bins = {
    .name = "bins",
    .kind = ZE_RG_COMPUTE,
    .after_previous = true, /* its cull's bins and counts, read and rewritten */
    .state_size = sizeof(ze_vk_compute_t),
    .create = bins_create,
    .destroy = ze__vk_compute_destroy,
    .declare = bins_early_declare,
    .record = bins_record,
};

const ze_vk_pass_t ze__vk_pass_bins_late = {
    .name = "bins_late",
    .kind = ZE_RG_COMPUTE,
    .after_previous = true, /* its cull's bins and counts, read and rewritten */
    .state_size = sizeof(ze_vk_compute_t),
    .create = bins_late_create,
    .destroy = ze__vk_compute_destroy,
    .enabled = ze__vk_shape_occlusion,
    .declare = bins_declare,
    .record = bins_record,
};
