/* Internal: the Vulkan render backend's private header (src/gfx/vk_*.c).
 *
 * One struct, ze_vk_backend_t, holds the whole backend; each vk_*.c file
 * owns one concern and its part of the struct:
 *   vk_host.c       host allocations (VkAllocationCallbacks) in the Vulkan owner
 *   vk_instance.c   instance, validation layer + messenger, device selection
 *   vk_memory.c     GPU memory sub-allocator, buffers and images
 *   vk_frame.c      timeline pacing, command buffers, deferred destruction,
 *                   timestamps, one-shot submissions
 *   vk_target.c     the offscreen target (an interface a swapchain slots into)
 *   vk_swapchain.c  the window target: surface swapchain, recreate state machine
 *   vk_rrm.c        render resource manager: pending queue, staging ring,
 *                   global vertex/index buffers, textures, bindless set
 *   vk_pipeline.c   SPIR-V loading, the pipeline cache and its persistence
 *   vk_draws.c      per-frame draw data: constants, materials, draw list
 *   vk_graph.c      the render graph's Vulkan executor: the pass table,
 *                   builds (transients, aliased memory), barriers,
 *                   timestamps (the graph's core: rg.h)
 *   vk_pass_*.c     one pass each: scatter, cull (and the late cull), prepass,
 *                   forward (and the late forward), pyramid (the depth
 *                   pyramid of occlusion culling: hzb.h), tonemap, ui (the
 *                   overlay), present
 *   vk_screenshot.c read back the final image, PNG
 *   vk_backend.c    the vtable
 *
 * Threads: create (main thread, render_device stage) and destroy (main
 * thread, after the render thread is joined) make Vulkan calls; between
 * them every Vulkan call is on the render thread, which the backend records
 * at its first frame. ZE__VK_ON_RENDER_THREAD(b) asserts that in debug
 * builds at every function that calls Vulkan during the run. asset_ready
 * (main thread) only copies CPU data into the pending ring. */
#ifndef ZE_GFX_VK_INTERNAL_H
#define ZE_GFX_VK_INTERNAL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <vulkan/vulkan.h>

#include "gfx/backend.h"
#include "gfx/hzb.h"
#include "gfx/rg.h"

#define ZE_VK_LOG "vulkan"

enum {
    ZE_VK_FRAMES = 2,          /* frames in flight */
    ZE_VK_MAX_TEXTURES = 4096, /* bindless array size */
    ZE_VK_MAX_POINT_LIGHTS = 32,
    ZE_VK_MAX_PASSES = ZE_RENDER_MAX_PASS_TIMES, /* in the pass table, timed per frame */
    ZE_VK_TIMESTAMPS = 2 * ZE_VK_MAX_PASSES,     /* per frame: each pass's begin and end */
    ZE_VK_TEX_NONE = 0xFFFFFFFFu,
    ZE_VK_TEX_FALLBACK = 0, /* bindless slot of the hot-pink 4x4 */
};

extern const ze__render_backend_vtable_t ze__vulkan_render_backend;

/* --------------------------------------------------- host allocations */

/* VkAllocationCallbacks over a heap of the Vulkan owner (vk_host.c). One
 * per backend; every create and destroy of the backend's Vulkan objects
 * passes its callbacks (b->host_cb). */
typedef struct ze_vk_host_t ze_vk_host_t;

typedef struct ze_vk_host_stats_t {
    uint64_t bytes, peak;                   /* requested by Vulkan, live now / highest */
    uint64_t blocks;                        /* live */
    uint64_t allocations;                   /* served (reallocations included) */
    uint64_t align_max;                     /* largest alignment requested */
    uint64_t internal_bytes, internal_peak; /* the driver's own, notified */
} ze_vk_host_stats_t;

/* ZE_ERR_BUDGET when the Vulkan owner has no budget (a custom config), or
 * its heap's result. */
ze_result ze__vk_host_create(ze_mem_t *mm, ze_vk_host_t **out);
/* After every Vulkan object is gone (the instance last). A block Vulkan
 * still holds keeps the heap alive (logged). NULL is fine. */
void ze__vk_host_destroy(ze_vk_host_t *h);
/* NULL for NULL: Vulkan allocates with the C library. */
const VkAllocationCallbacks *ze__vk_host_callbacks(ze_vk_host_t *h);
/* Any thread. */
ze_vk_host_stats_t ze__vk_host_stats(const ze_vk_host_t *h);

/* ------------------------------------------------------------- memory */

/* First-fit free list over [0, capacity): GPU memory blocks and the global
 * vertex/index buffers. Free ranges sorted by offset, merged on free. */
typedef struct ze_vk_ranges_t {
    ze_array_t free; /* ze_vk_range_t */
    uint64_t capacity;
} ze_vk_ranges_t;

typedef struct ze_vk_range_t {
    uint64_t offset, size;
} ze_vk_range_t;

void ze__vk_ranges_init(ze_vk_ranges_t *r, ze_allocator_t alloc);
ze_result ze__vk_ranges_grow(ze_vk_ranges_t *r, uint64_t capacity);
bool ze__vk_ranges_alloc(ze_vk_ranges_t *r, uint64_t size, uint64_t align, uint64_t *offset);
void ze__vk_ranges_free(ze_vk_ranges_t *r, uint64_t offset, uint64_t size);
void ze__vk_ranges_fini(ze_vk_ranges_t *r);

typedef struct ze_vk_alloc_t {
    VkDeviceMemory memory;
    VkDeviceSize offset, size;
    uint32_t type;
    int32_t block; /* index into the memory blocks; -1 = dedicated */
    uint8_t *mapped;
} ze_vk_alloc_t;

typedef struct ze_vk_block_t {
    VkDeviceMemory memory;
    uint32_t type;
    uint8_t *mapped;
    ze_vk_ranges_t ranges;
} ze_vk_block_t;

typedef struct ze_vk_memory_t {
    VkPhysicalDeviceMemoryProperties props;
    VkDeviceSize granularity;
    ze_array_t blocks; /* ze_vk_block_t */
    uint64_t device_bytes, used_bytes, allocations, dedicated;
} ze_vk_memory_t;

typedef struct ze_vk_buffer_t {
    VkBuffer buffer;
    ze_vk_alloc_t mem;
    VkDeviceSize size;
    uint8_t *map; /* host-visible buffers: persistently mapped */
} ze_vk_buffer_t;

typedef struct ze_vk_image_t {
    VkImage image;
    VkImageView view;
    ze_vk_alloc_t mem;
    VkFormat format;
    uint32_t width, height, mips;
} ze_vk_image_t;

/* ------------------------------------------------------------- frames */

/* How a draw's triangles are culled by the rasteriser: a single-sided
 * material culls back faces, whose winding flips when the world matrix
 * mirrors (a negative determinant, glTF 3.7.4); a double-sided one culls
 * none. Each class is its own range of commands and its own draw. */
enum { ZE_VK_CULL_GROUP = 64 }; /* cull.comp's local_size_x */

typedef enum ze_vk_face_class {
    ZE_VK_FACES_FRONT_CCW = 0,
    ZE_VK_FACES_FRONT_CW, /* mirrored */
    ZE_VK_FACES_BOTH,     /* double-sided */
    ZE_VK_FACE_CLASSES
} ze_vk_face_class;

/* The frame's draws (vk_draws.c sizes them; shaders/bins.glsl says how
 * they are made). The cull passes write each visible draw (an instance x
 * a submesh) as an element of its class range (class k at k * stride of
 * `elements`, device-local) and count it in its bin: a (class, submesh,
 * level of detail) triple, `bins` per class range. The bins passes turn
 * the counts into one instanced command per non-empty bin (class k's at
 * k * bins of `visible`, their count at visible_count[ZE_VK_DRAW_COUNTS +
 * k]) and the place passes write each element's ref (instance slot,
 * material) at its command's firstInstance + its index in the bin, so
 * that a command draws its instances' refs in a row. */
typedef struct ze_vk_draw_list_t {
    uint32_t stride;  /* elements per class range: at least `draws` */
    uint32_t draws;   /* candidates (instances x resident submeshes) */
    uint32_t slots;   /* instance slots the cull pass walks */
    uint32_t updates; /* instance records the scatter pass writes */
    uint32_t bins;    /* bins per class range (stride): at least every submesh's levels */
} ze_vk_draw_list_t;

typedef struct ze_vk_frame_t {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    uint64_t value;       /* timeline value its last submission signals */
    uint64_t staging_end; /* staging ring head when it was submitted */
    /* the passes whose timestamps its queries hold (2 each), in order */
    const char *timed[ZE_VK_MAX_PASSES];
    uint32_t timed_count;
    uint64_t submit_ns; /* ze_time_now_ns at its submission: the GPU track's anchor */
    /* per-frame host-visible (vk_draws.c): the frame constants, the
       scene's materials, meshes and submeshes (copied when they changed),
       the instance records to scatter */
    ze_vk_buffer_t data;
    VkDescriptorSet set; /* set 1 (vk_draws.c lists its bindings) */
    uint32_t draw_capacity, material_capacity, mesh_capacity, submesh_capacity, update_capacity;
    uint32_t bin_capacity;    /* bins per class range its buffers hold */
    uint64_t tables_serial;   /* the scene tables' serial its copy holds */
    VkBuffer bound_instances; /* the instance table its set names */
    ze_vk_draw_list_t draws;
    /* the cull passes' output (device-local): elements and refs
       (ZE_VK_FACE_CLASSES x draw_capacity per phase), the bins' counts
       (then their offsets) and the instanced commands (ZE_VK_FACE_CLASSES
       x bin_capacity per phase; the bins also both phases' ranges and a
       tail, ZE_VK_BIN_TAIL), the place passes' dispatch sizes (8 words
       per phase: x, y, z); and the counts
       (host-visible: zeroed by the CPU before the submission, read back
       once the frame completed, for the statistics) */
    ze_vk_buffer_t elements, bins, visible, refs, place_args, visible_count;
    /* occlusion culling: the early cull's candidates for the late one
       (device-local, draw_capacity of them) and the late cull's dispatch
       size (host-visible: zeroed by the CPU, written by the bins pass) */
    ze_vk_buffer_t candidates, late_args;
    bool count_pending; /* a submitted frame's counts are still to be read */
} ze_vk_frame_t;

typedef enum ze_vk_dead_kind {
    ZE_VK_DEAD_BUFFER,
    ZE_VK_DEAD_IMAGE,
    ZE_VK_DEAD_SLOT
} ze_vk_dead_kind;

typedef struct ze_vk_dead_t {
    uint64_t value; /* destroy once the timeline reaches it */
    ze_vk_dead_kind kind;
    ze_vk_buffer_t buffer;
    ze_vk_image_t image;
    uint32_t slot;
} ze_vk_dead_t;

/* ------------------------------------------------------------- target */

/* The binary semaphores a frame's submission waits on and signals besides
 * the timeline (VK_NULL_HANDLE: none). */
typedef struct ze_vk_submit_sync_t {
    VkSemaphore wait;
    VkPipelineStageFlags2 wait_stage;
    VkSemaphore signal;
} ze_vk_submit_sync_t;

/* The image a frame presents into (the swapchain's), when there is one. */
typedef struct ze_vk_backbuffer_t {
    VkImage image; /* VK_NULL_HANDLE: nothing to present this frame */
    VkFormat format;
    uint32_t width, height;
} ze_vk_backbuffer_t;

/* What the frame renders into. Both targets own an LDR image the
 * tone-mapping pass writes (and screenshots read); the offscreen one stops
 * there, the swapchain one (vk_swapchain.c) acquires a presentable image
 * per frame, which the graph's present pass blits the LDR image into. */
typedef struct ze_vk_target_t ze_vk_target_t;
typedef struct ze_vk_target_ops_t {
    const char *name;
    /* This frame's image to present into (none offscreen, or when the
       swapchain has none: minimized, out of date, timed out). */
    ze_result (*acquire)(ze_vk_target_t *t, ze_vk_backbuffer_t *out);
    /* The backbuffer a frame would get now, without acquiring (the graph
       built at create); none offscreen. */
    void (*backbuffer)(ze_vk_target_t *t, ze_vk_backbuffer_t *out);
    /* The semaphores this frame's submission must wait on / signal. */
    void (*sync)(ze_vk_target_t *t, ze_vk_submit_sync_t *sync);
    /* After the frame's submission. */
    ze_result (*present)(ze_vk_target_t *t);
    ze_result (*resize)(ze_vk_target_t *t, uint32_t width, uint32_t height);
    void (*destroy)(ze_vk_target_t *t);
} ze_vk_target_ops_t;

struct ze_vk_target_t {
    const ze_vk_target_ops_t *ops;
    struct ze_vk_backend_t *b;
    uint32_t width, height;
    ze_vk_image_t image; /* LDR: RGBA8, ZE_VK_LDR_USAGE, GENERAL between frames */
};

/* The LDR image's usage: tone mapping writes it (storage), the UI pass
 * blends over it (colour attachment), present and screenshots read it, a
 * pass may copy into it. */
#define ZE_VK_LDR_USAGE                                                 \
    (VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | \
     VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)

/* ------------------------------------------------------------- graph */

/* What a graph is built for; a different shape rebuilds it. */
typedef struct ze_vk_shape_t {
    uint32_t width, height;  /* the render size (the target's) */
    ze_vk_backbuffer_t back; /* image VK_NULL_HANDLE: no present pass */
    bool prepass;            /* a depth prepass before forward shading */
    bool occlusion;          /* occlusion culling: the depth pyramid, the late passes */
} ze_vk_shape_t;

/* Resources every frame imports (vk_graph.c declares them). */
#define ZE_VK_RES_LDR        "ldr"
#define ZE_VK_RES_BACKBUFFER "backbuffer"
/* The instance table (device-local, one for all frames: the scatter pass
   writes it), and the cull pass's output (each frame slot's own buffers
   are bound): the visible draws' commands, their refs and their count. */
#define ZE_VK_RES_INSTANCES     "instances"
#define ZE_VK_RES_VISIBLE       "visible_draws"
#define ZE_VK_RES_VISIBLE_REFS  "visible_refs"
#define ZE_VK_RES_VISIBLE_COUNT "visible_count"
#define ZE_VK_RES_ELEMENTS      "cull_elements"
#define ZE_VK_RES_BINS          "draw_bins"
#define ZE_VK_RES_PLACE_ARGS    "place_args"
/* Occlusion culling (vk_pass_pyramid.c): the depth pyramid (the backend's,
   kept from frame to frame), and each frame slot's late candidates and the
   late cull's dispatch size. */
#define ZE_VK_RES_HZB        "hzb"
#define ZE_VK_RES_CANDIDATES "cull_candidates"
#define ZE_VK_RES_LATE_ARGS  "cull_late_args"

typedef struct ze_vk_backend_t ze_vk_backend_t;

typedef struct ze_vk_pass_ctx_t {
    ze_vk_backend_t *b;
    ze_vk_frame_t *f;
    VkCommandBuffer cmd;
    const ze_render_state_t *scene;
    void *state; /* the pass's own */
} ze_vk_pass_ctx_t;

/* A pass (one file each, vk_pass_*.c), in vk_graph.c's table. */
typedef struct ze_vk_pass_t {
    const char *name;
    ze_rg_pass_kind kind;
    size_t state_size; /* zeroed, from the Render owner */
    /* Long-lived objects (pipelines, layouts); create (main thread), and
       again when the pipeline cache is attached. Optional. */
    ze_result (*create)(ze_vk_backend_t *b, void *state);
    void (*destroy)(ze_vk_backend_t *b, void *state);
    /* Does it run in this shape? NULL: always. */
    bool (*enabled)(const ze_vk_shape_t *shape);
    /* Ordered after the pass declared before it (ze__rg_order): for a pass
       that writes what the previous one wrote without reading it first in
       the graph's terms (the UI blends over the tone-mapped image). */
    bool after_previous;
    /* Its resources (created, or found by name) and uses. */
    void (*declare)(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                    const ze_vk_shape_t *shape);
    /* After a build, the GPU idle: descriptor writes. Optional. */
    void (*bind)(ze_vk_backend_t *b, void *state);
    /* Its commands; the executor records its barriers and timestamps. */
    ze_result (*record)(const ze_vk_pass_ctx_t *ctx);
} ze_vk_pass_t;

extern const ze_vk_pass_t ze__vk_pass_scatter, ze__vk_pass_bins_clear, ze__vk_pass_cull,
    ze__vk_pass_bins, ze__vk_pass_place, ze__vk_pass_prepass, ze__vk_pass_forward,
    ze__vk_pass_pyramid, ze__vk_pass_cull_late, ze__vk_pass_bins_late, ze__vk_pass_place_late,
    ze__vk_pass_forward_late, ze__vk_pass_tonemap, ze__vk_pass_ui, ze__vk_pass_present;

/* The Vulkan objects of a graph resource: transients (owned by the graph,
 * bound into their aliased slot's memory), imports (bound each frame). */
typedef struct ze_vk_graph_res_t {
    ze_vk_image_t image; /* image.mem unused: the slot owns the memory */
    VkBuffer buffer;
    VkDeviceSize size;
    VkImageAspectFlags aspect;
    bool owned; /* a transient: the graph destroys it */
} ze_vk_graph_res_t;

typedef struct ze_vk_graph_t {
    ze_rg_t *rg;
    bool built;
    ze_vk_shape_t shape;
    ze_vk_graph_res_t res[ZE_RG_MAX_RESOURCES];
    ze_vk_alloc_t slots[ZE_RG_MAX_RESOURCES];
    uint32_t slot_count;
    const ze_vk_pass_t *const *passes; /* the frame, in running order */
    uint32_t pass_count;
    void *state[ZE_VK_MAX_PASSES]; /* per pass */
    uint64_t builds;
} ze_vk_graph_t;

/* The depth pyramid (vk_pass_pyramid.c; hzb.h says what it holds). */
typedef struct ze_vk_hzb_t {
    ze_vk_image_t image; /* R32_SFLOAT, `levels` mips; its view: all of them */
    VkImageView level_views[ZE_HZB_MAX_LEVELS];
    uint32_t depth_width, depth_height, levels;
    /* the image holds the pyramid of the last recorded frame, made with
       view_proj (the next frame's prev_view_proj) */
    bool history;
    float view_proj[16], next_view_proj[16];
    VkDescriptorSetLayout set_layout; /* set 2 of the cull passes */
    VkDescriptorPool pool;
    VkDescriptorSet set;
} ze_vk_hzb_t;

/* ---------------------------------------------------------------- RRM */

typedef struct ze_vk_pending_t {
    ze_uuid_t uuid;
    uint32_t type; /* ze_asset_type */
    uint32_t generation;
    void *payload; /* mesh or texture data, from the Render owner */
    size_t payload_size;
    ze_zematerial_t material;
} ze_vk_pending_t;

/* Our vertex: what every cooked layout is converted to. */
typedef struct ze_vk_vertex_t {
    float pos[3], normal[3], uv[2], tangent[4]; /* tangent.w 0 = none */
} ze_vk_vertex_t;

typedef struct ze_vk_lod_t {
    uint32_t index_offset, index_count; /* in the mesh's indices */
    float error;                        /* object space */
} ze_vk_lod_t;

typedef struct ze_vk_submesh_t {
    uint32_t index_offset, index_count; /* level 0 */
    ze_uuid_t material;
    float sphere[4]; /* bounds for culling: its box's centre, half-diagonal */
    uint32_t lod_count;
    ze_vk_lod_t lods[ZE_RENDER_LOD_MAX]; /* lods[0]: the submesh's own range */
} ze_vk_submesh_t;

typedef struct ze_vk_mesh_payload_t {
    uint32_t vertex_count, index_count, submesh_count, _pad;
    ze_vec3_t min, max;
    /* then submeshes, vertices, indices */
} ze_vk_mesh_payload_t;

typedef struct ze_vk_tex_payload_t {
    uint32_t format; /* ze_tex_format */
    uint32_t width, height, mips;
    uint64_t offset[ZE_TEX_MAX_MIPS], size[ZE_TEX_MAX_MIPS];
} ze_vk_tex_payload_t;

typedef struct ze_vk_mesh_t {
    uint32_t generation;
    uint64_t vertex_first, vertex_count; /* in vertices of the global VB */
    uint64_t index_first, index_count;   /* in indices of the global IB */
    ze_vk_submesh_t *submeshes;
    uint32_t submesh_count;
    ze_vec3_t min, max;
} ze_vk_mesh_t;

typedef struct ze_vk_texture_t {
    uint32_t generation;
    ze_vk_image_t image;
    uint32_t slot;
} ze_vk_texture_t;

typedef struct ze_vk_material_t {
    uint32_t generation;
    ze_zematerial_t m;
    uint64_t stamp; /* frame that last gave it a GPU index */
    uint32_t gpu_index;
} ze_vk_material_t;

typedef struct ze_vk_resident_t {
    uint32_t generation;
    uint32_t type;
} ze_vk_resident_t;

/* GPU layouts (std140 / std430) shared with the shaders. */
typedef struct ze_vk_gpu_frame_t {
    float view_proj[16];
    float camera_pos[4];
    float sky[4];         /* rgb linear, w = ambient strength */
    float light_dir[4];   /* xyz direction light travels, w = 1 when present */
    float light_color[4]; /* rgb * intensity */
    uint32_t counts[4];   /* x = point lights */
    float point_pos[ZE_VK_MAX_POINT_LIGHTS][4];   /* xyz, w = range (0 = none) */
    float point_color[ZE_VK_MAX_POINT_LIGHTS][4]; /* rgb * intensity */
    /* the view frustum, world space: inside when dot(xyz, p) + w >= 0;
       left, right, bottom, top, near, far (normalised; a degenerate plane
       is (0, 0, 0, 1): everything inside) */
    float planes[6][4];
    /* x = instance slots, y = flags (ZE_VK_FRAME_CULL), z = commands per
       class range, w = instance records to scatter */
    uint32_t scene[4];
    /* x = interpolation alpha, y = pixels per unit at distance 1
       (|projection[1][1]| x height / 2), z = the LOD error in pixels
       (<= 0: level 0 always) */
    float params[4];
    /* occlusion culling: the view-projection the depth pyramid was made
       with (the previous frame's); the pyramid: x, y = the depth image's
       size, z = levels */
    float prev_view_proj[16];
    uint32_t hzb[4];
    /* x = bins per class range (the buffers' stride), y = submeshes,
       z = bins in use (bins.glsl) */
    uint32_t bins[4];
} ze_vk_gpu_frame_t;

/* scene[1]: frustum culling; the pyramid holds the previous frame's depth */
enum { ZE_VK_FRAME_CULL = 1u, ZE_VK_FRAME_HISTORY = 2u };
/* visible_count (cull.glsl, bins.glsl): the classes' counts at 0..2, the
   late candidates at 3, the drawn draws per level of detail from
   ZE_VK_LOD_COUNTS, the late classes' counts from ZE_VK_LATE_COUNTS, the
   instanced commands of the six class ranges (early, late) from
   ZE_VK_DRAW_COUNTS, the triangles they draw (early, late) from
   ZE_VK_TRIANGLE_COUNTS */
enum {
    ZE_VK_CANDIDATE_COUNT = 3,
    ZE_VK_LOD_COUNTS = 4,
    ZE_VK_LATE_COUNTS = ZE_VK_LOD_COUNTS + ZE_RENDER_LOD_MAX,
    ZE_VK_DRAW_COUNTS = ZE_VK_LATE_COUNTS + 4,
    ZE_VK_TRIANGLE_COUNTS = ZE_VK_DRAW_COUNTS + 2 * ZE_VK_FACE_CLASSES,
    ZE_VK_COUNTS = ZE_VK_TRIANGLE_COUNTS + 2
};

/* The bins buffer: 2 x ZE_VK_FACE_CLASSES ranges of bins (their counts,
   then offsets), then the counters the cull passes count with (in
   visible_count's layout; device-local, so their atomics stay off the
   bus), which the bins passes copy into visible_count. */
enum { ZE_VK_BIN_TAIL = 32 };
_Static_assert((int)ZE_VK_COUNTS <= (int)ZE_VK_BIN_TAIL, "the bins' tail holds the counters");

/* A visible draw the cull passes emitted (bins.glsl's Element): its
   instance slot, material, bin and index within the bin. */
typedef struct ze_vk_gpu_element_t {
    uint32_t slot, material, bin, index;
} ze_vk_gpu_element_t;

/* A late candidate (cull.glsl's Candidate). */
typedef struct ze_vk_gpu_candidate_t {
    uint32_t slot, submesh, material, face_class;
} ze_vk_gpu_candidate_t;

typedef struct ze_vk_gpu_material_t {
    float base_color[4];
    float params[4]; /* metallic, roughness, normal scale, alpha cutoff */
    uint32_t tex[4]; /* base colour, metal/rough, normal slot; flags */
} ze_vk_gpu_material_t;

/* The GPU instance table's row (vk_scene.c): the world matrix's first
 * three rows (affine), the previous position for interpolation, the
 * mesh's handle (ZE_VK_NO_HANDLE: nothing drawn) and the material
 * override's handle + 1 (0: the submeshes' own). */
typedef struct ze_vk_gpu_instance_t {
    float rows[3][4];
    float previous[4];
    uint32_t mesh, material, flags, _pad; /* flags: ZE_RENDER_INSTANCE_* */
} ze_vk_gpu_instance_t;

typedef struct ze_vk_gpu_update_t {
    uint32_t slot, _pad[3];
    ze_vk_gpu_instance_t row;
} ze_vk_gpu_update_t;

typedef struct ze_vk_gpu_mesh_t {
    uint32_t first_submesh, submesh_count, _pad[2];
} ze_vk_gpu_mesh_t;

typedef struct ze_vk_gpu_submesh_t {
    uint32_t index_count, first_index;
    int32_t vertex_offset;
    uint32_t material;                     /* handle + 1; 0: the default */
    float sphere[4];                       /* local bounds: centre, radius */
    uint32_t lod[4];                       /* x = levels, y = its first bin */
    uint32_t levels[ZE_RENDER_LOD_MAX][4]; /* first index, index count, error (float bits) */
} ze_vk_gpu_submesh_t;

/* A draw the cull pass emitted: its instance slot and material index. */
typedef struct ze_vk_gpu_ref_t {
    uint32_t slot, material;
} ze_vk_gpu_ref_t;

enum { ZE_VK_MAT_MASK = 1u, ZE_VK_MAT_DOUBLE_SIDED = 2u };

/* -------------------------------------------------------------- scene */

/* Dense GPU handles for uuids (vk_scene.c): the index of a uuid in the
 * GPU's mesh or material table, held while anything references it (the
 * instances' meshes and overrides, the submeshes of referenced meshes);
 * freed indices are reused. */
enum { ZE_VK_NO_HANDLE = 0xFFFFFFFFu };

typedef struct ze_vk_handle_t {
    ze_uuid_t uuid;
    uint32_t refs;      /* 0: free */
    uint32_t submeshes; /* meshes: resident submeshes at the last table build */
} ze_vk_handle_t;

typedef struct ze_vk_handles_t {
    ze_hashmap_t ids;   /* ze_uuid_t -> uint32_t */
    ze_array_t entries; /* ze_vk_handle_t */
    ze_array_t free;    /* uint32_t */
} ze_vk_handles_t;

/* What a slot's GPU row references (the handles it holds). */
typedef struct ze_vk_slot_refs_t {
    uint32_t mesh, material; /* ZE_VK_NO_HANDLE: none */
} ze_vk_slot_refs_t;

/* The GPU-resident scene (vk_scene.c): the instance table on the device,
 * mirrored from the backend's table through the slots applies touched,
 * and the mesh, submesh and material tables the cull pass and the shaders
 * index by handle (CPU copies, rebuilt when a handle or a resident asset
 * changes, copied into each frame slot). */
typedef struct ze_vk_scene_t {
    bool created;
    ze_vk_handles_t meshes, materials;
    ze_mem_table_t refs_table; /* ze_vk_slot_refs_t per slot */
    ze_vk_slot_refs_t *refs;
    uint32_t refs_capacity;
    ze_vk_buffer_t instances; /* device-local, instance_capacity rows */
    uint32_t instance_capacity;
    ze_vk_buffer_t grown_from; /* copied into `instances` by the scatter pass */
    bool grown;
    bool resync;            /* re-upload every slot (a frame was lost) */
    uint64_t tables_serial; /* bumped when the tables must be rebuilt */
    uint64_t built_serial;
    uint64_t resident_seen; /* b->resident_serial at the last build */
    uint64_t draws;         /* candidates: refs x resident submeshes */
    uint32_t bins;          /* every resident submesh's levels (bins per class) */
    ze_array_t pins;        /* uint32_t: material handles the submeshes hold */
    ze_array_t materials_gpu, meshes_gpu, submeshes_gpu;
} ze_vk_scene_t;

/* ------------------------------------------------------------ backend */

struct ze_vk_backend_t {
    ze_render_backend_t base; /* first: the public handle */
    ze_allocator_t alloc;
    ze_render_backend_desc_t desc;
    char device_name[400];

    /* host allocations (vk_host.c): created first, destroyed last; host_cb
       goes to every vkCreate and vkDestroy call (NULL: unrouted) */
    ze_vk_host_t *host;
    const VkAllocationCallbacks *host_cb;

    /* instance (vk_instance.c) */
    VkInstance instance;
    VkSurfaceKHR surface; /* from desc.native_window; VK_NULL_HANDLE offscreen */
    VkDebugUtilsMessengerEXT messenger;
    bool validation;
    VkPhysicalDevice gpu;
    VkPhysicalDeviceProperties gpu_props;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    float timestamp_period; /* ns per tick; 0 = no timestamps */

    /* memory (vk_memory.c) */
    ze_vk_memory_t mem;

    /* frames (vk_frame.c) */
    VkSemaphore timeline;
    uint64_t next_value; /* the value this frame's submission will signal */
    /* the highest timeline value the render thread waited for on the host
       (vkWaitSemaphores): what is freed for reuse is what it waited for,
       not what the counter says is done, so the synchronization validation
       layer sees every reuse ordered after the GPU's last access */
    uint64_t waited_value;
    ze_vk_frame_t frames[ZE_VK_FRAMES];
    uint32_t frame_slot;
    ze_array_t dead; /* ze_vk_dead_t, in value order */
    VkQueryPool queries;
    VkCommandPool oneshot_pool;

    /* target (vk_target.c) */
    ze_vk_target_t *target;

    /* render graph (vk_graph.c) */
    ze_vk_graph_t graph;

    /* the GPU-resident scene (vk_scene.c) */
    ze_vk_scene_t scene;

    /* RRM (vk_rrm.c) */
    ze_vk_pending_t *ring;
    uint32_t capacity;
    alignas(64) atomic_uint_fast64_t tail; /* producer: main thread */
    alignas(64) atomic_uint_fast64_t head; /* consumer: render thread */
    alignas(64) ze_vk_buffer_t staging;
    uint64_t staging_head, staging_tail; /* monotonic byte counters */
    ze_vk_buffer_t vb, ib;
    ze_vk_ranges_t vb_ranges, ib_ranges;      /* in vertices / indices */
    ze_hashmap_t meshes, textures, materials; /* uuid -> ze_vk_mesh_t etc. */
    uint32_t free_slots[ZE_VK_MAX_TEXTURES];
    uint32_t free_slot_count;
    uint64_t resident_serial; /* bumped when resident assets change */
    ze_vk_image_t fallback, white, flat_normal;
    uint32_t white_slot, flat_slot;
    VkSampler sampler;
    VkDescriptorPool pool;
    VkDescriptorSetLayout bindless_layout, frame_layout;
    VkDescriptorSet bindless_set;
    VkCommandBuffer upload_cmd; /* the frame's command buffer while draining */
    bool uploads_recorded;
    uint64_t revision;
    /* unload and geometry budgets (vk_rrm.c, vk_memory.c): releases
       applied, and what the stats report of what is held */
    atomic_uint_fast64_t assets_released, mem_used_bytes;
    atomic_uint_fast64_t vb_used, vb_cap, ib_used, ib_cap; /* bytes */
    atomic_uint_fast32_t slots_used;

    /* pipelines (vk_pipeline.c) */
    VkPipelineCache pipeline_cache;
    bool pso_persist; /* desc.vfs has a writable /cache */

    /* render thread */
    pthread_t render_thread;
    bool render_thread_known;
    uint64_t frame_calls;
    bool lost;
    bool has_image; /* a frame completed into the target */

    /* resident table and pass times: render thread writes, any thread
       reads, under the lock */
    pthread_mutex_t lock;
    ze_hashmap_t resident; /* uuid -> ze_vk_resident_t */
    ze_render_pass_time_t pass_times[ZE_VK_MAX_PASSES];
    uint32_t pass_time_count;

    /* statistics: relaxed atomics */
    atomic_uint_fast64_t frames_done, instances_drawn, last_scene_frame, assets_received,
        assets_rejected, scene_resets, validation_messages;
    atomic_uint_fast32_t last_instances, last_lights;
    atomic_uint_fast32_t counts[ZE_ASSET_TYPE_COUNT];
    atomic_uint_fast64_t cpu_frame_ns, gpu_memory_bytes;
    atomic_uint_fast64_t transient_bytes, transient_bytes_unaliased;
    atomic_uint_fast64_t swapchain_recreates;
    atomic_uint_fast32_t ui_instances;     /* the last frame's overlay (vk_pass_ui.c) */
    atomic_uint_fast64_t ui_atlas_uploads; /* atlas revisions uploaded */
    uint64_t lose_device_at_frame;         /* test fault (backend.h); 0 never */
    /* culling (vk_pass_cull.c): desc.cull; the last completed frame's
       candidate and visible draws */
    bool cull;
    bool prepass;   /* desc.depth_prepass (vk_pass_prepass.c) */
    bool occlusion; /* desc.cull is ZE_RENDER_CULL_DEFAULT (vk_pass_pyramid.c) */
    ze_vk_hzb_t hzb;
    atomic_uint_fast32_t last_draws, last_draws_visible, last_draws_occluded;
    atomic_uint_fast32_t last_draw_commands;
    _Atomic uint64_t last_triangles;
    atomic_uint_fast32_t last_draws_lod[ZE_RENDER_LOD_MAX];
    float lod_error_px; /* desc.lod_error_px, defaulted */
};

static inline ze_vk_backend_t *ze__vk(ze_render_backend_t *b)
{
    return (ze_vk_backend_t *)b;
}

#ifdef ZE_DEBUG
#define ZE__VK_ON_RENDER_THREAD(b) \
    ZE_ASSERT(!(b)->render_thread_known || pthread_equal((b)->render_thread, pthread_self()))
#else
#define ZE__VK_ON_RENDER_THREAD(b) ((void)(b))
#endif

/* A failed Vulkan call: logs `what`; VK_ERROR_DEVICE_LOST marks the device
 * lost. Returns the matching ze_result (ZE_ERR_IO when lost). */
ze_result ze__vk_fail(ze_vk_backend_t *b, VkResult r, const char *what);
#define ZE__VK_TRY(b, call, what)                 \
    do {                                          \
        VkResult vr_ = (call);                    \
        if (vr_ != VK_SUCCESS)                    \
            return ze__vk_fail((b), vr_, (what)); \
    } while (0)

/* vk_instance.c */
ze_result ze__vk_instance_create(ze_vk_backend_t *b);
ze_result ze__vk_device_create(ze_vk_backend_t *b);
void ze__vk_instance_destroy(ze_vk_backend_t *b);

/* vk_memory.c */
void ze__vk_memory_init(ze_vk_backend_t *b);
void ze__vk_memory_fini(ze_vk_backend_t *b);
ze_result ze__vk_mem_alloc(ze_vk_backend_t *b, const VkMemoryRequirements *req,
                           VkMemoryPropertyFlags want, ze_vk_alloc_t *out);
void ze__vk_mem_free(ze_vk_backend_t *b, ze_vk_alloc_t *a);
ze_result ze__vk_buffer_create(ze_vk_backend_t *b, VkDeviceSize size, VkBufferUsageFlags usage,
                               bool host, ze_vk_buffer_t *out);
void ze__vk_buffer_destroy(ze_vk_backend_t *b, ze_vk_buffer_t *buf);
ze_result ze__vk_image_create(ze_vk_backend_t *b, VkFormat format, uint32_t width, uint32_t height,
                              uint32_t mips, VkImageUsageFlags usage, ze_vk_image_t *out);
void ze__vk_image_destroy(ze_vk_backend_t *b, ze_vk_image_t *img);

/* vk_frame.c */
ze_result ze__vk_frames_create(ze_vk_backend_t *b);
void ze__vk_frames_destroy(ze_vk_backend_t *b);
/* Wait for the slot's previous use, retire what it finished, reset its
 * command pool and begin its command buffer. */
ze_result ze__vk_frame_begin(ze_vk_backend_t *b, ze_vk_frame_t **out);
/* `sync` may be NULL: no binary semaphores. */
ze_result ze__vk_frame_submit(ze_vk_backend_t *b, ze_vk_frame_t *f,
                              const ze_vk_submit_sync_t *sync);
ze_result ze__vk_wait_value(ze_vk_backend_t *b, uint64_t value);
ze_result ze__vk_wait_idle(ze_vk_backend_t *b);
void ze__vk_retire(ze_vk_backend_t *b, uint64_t completed);
void ze__vk_defer_buffer(ze_vk_backend_t *b, ze_vk_buffer_t *buf);
void ze__vk_defer_image(ze_vk_backend_t *b, ze_vk_image_t *img);
void ze__vk_defer_slot(ze_vk_backend_t *b, uint32_t slot);
/* One-shot command buffer: begin, then end + submit + wait. */
ze_result ze__vk_oneshot_begin(ze_vk_backend_t *b, VkCommandBuffer *out);
ze_result ze__vk_oneshot_end(ze_vk_backend_t *b, VkCommandBuffer cmd);
void ze__vk_timestamp(ze_vk_backend_t *b, VkCommandBuffer cmd, VkPipelineStageFlags2 stage,
                      uint32_t query);
/* Publish the pass times of every frame slot the timeline has passed. */
void ze__vk_timestamps_poll(ze_vk_backend_t *b, uint64_t completed);
/* With the device idle: read every frame's timestamps still unread (the
 * last frames' GPU spans reach a profiler capture). */
void ze__vk_timestamps_flush(ze_vk_backend_t *b);
void ze__vk_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                          VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                          VkImageLayout from, VkImageLayout to, uint32_t mips);

/* The barrier ze__rg_transition gives, on an image (outside a graph). */
void ze__vk_transition(VkCommandBuffer cmd, const ze_vk_image_t *img, ze_rg_use from,
                       ze_rg_pass_kind from_kind, ze_rg_use to, ze_rg_pass_kind to_kind);

/* vk_target.c */
ze_result ze__vk_target_offscreen_create(ze_vk_backend_t *b, uint32_t width, uint32_t height,
                                         ze_vk_target_t **out);
/* vk_swapchain.c: the window target over b->surface (main thread at create,
 * then the render thread). */
ze_result ze__vk_target_swapchain_create(ze_vk_backend_t *b, uint32_t width, uint32_t height,
                                         ze_vk_target_t **out);

/* vk_graph.c */
/* The graph and every pass's state and long-lived objects (create). */
ze_result ze__vk_graph_create(ze_vk_backend_t *b);
void ze__vk_graph_destroy(ze_vk_backend_t *b);
/* The passes' long-lived objects again (the pipeline cache changed; no
 * frame in flight), then their descriptors for the graph as built. */
ze_result ze__vk_passes_recreate(ze_vk_backend_t *b);
/* Rebuild when the shape differs from the built one: waits for the GPU,
 * declares, compiles, places the transients. */
ze_result ze__vk_graph_prepare(ze_vk_backend_t *b, const ze_vk_shape_t *shape);
/* Record the frame: the imports bound (the target's LDR image, `back`),
 * then each pass behind its barrier batch, between timestamps. */
ze_result ze__vk_graph_record(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_state_t *s,
                              const ze_vk_backbuffer_t *back);
/* A resource of the built graph (a pass's own handle), NULL if none. */
ze_vk_graph_res_t *ze__vk_graph_res(ze_vk_backend_t *b, ze_rg_res_t res);
/* Tests: frames run these passes instead of the frame's (the GPU idled,
 * the current passes and transients destroyed; rebuilt at the next frame). */
ze_result ze__vk_graph_set_passes(ze_vk_backend_t *b, const ze_vk_pass_t *const *passes,
                                  uint32_t count);
ze_result ze__vk_graph_dump(ze_vk_backend_t *b, const char *path);

/* vk_rrm.c */
ze_result ze__vk_rrm_create(ze_vk_backend_t *b);
void ze__vk_rrm_destroy(ze_vk_backend_t *b);
ze_result ze__vk_rrm_asset_ready(ze_vk_backend_t *b, const ze_asset_data_t *data);
ze_result ze__vk_rrm_asset_release(ze_vk_backend_t *b, ze_uuid_t uuid);
/* BeginFrame: drain pending notifications, recording uploads into cmd. */
ze_result ze__vk_rrm_begin_frame(ze_vk_backend_t *b, VkCommandBuffer cmd);
void ze__vk_rrm_scene_reset(ze_vk_backend_t *b);
uint32_t ze__vk_rrm_texture_slot(ze_vk_backend_t *b, const ze_zematerial_texture_t *t,
                                 uint32_t none);
uint32_t ze__vk_rrm_resident(ze_vk_backend_t *b, ze_uuid_t uuid);

/* vk_pipeline.c */
/* The pipeline cache (loaded from /cache/pso of desc.vfs when it has one). */
ze_result ze__vk_pipeline_cache_create(ze_vk_backend_t *b);
/* Saves it first (when persistence is on). */
void ze__vk_pipeline_cache_destroy(ze_vk_backend_t *b);
/* The pipeline cache's data to /cache/pso of desc.vfs (when persistence is
 * on); nothing without a VFS. */
void ze__vk_pso_save(ze_vk_backend_t *b);
ze_result ze__vk_shader_load(ze_vk_backend_t *b, const char *name, VkShaderModule *out);
/* vk_geometry.c: the geometry passes' pipeline and draws. */
#define ZE_VK_HDR_FORMAT   VK_FORMAT_R16G16B16A16_SFLOAT
#define ZE_VK_DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
typedef struct ze_vk_geometry_desc_t {
    VkPipelineLayout layout; /* sets: bindless, frame */
    const char *fragment;    /* <name>.spv */
    VkFormat color_format;   /* VK_FORMAT_UNDEFINED: depth only */
    VkFormat depth_format;
    bool depth_write;
    VkCompareOp depth_compare;
} ze_vk_geometry_desc_t;
ze_result ze__vk_geometry_pipeline(ze_vk_backend_t *b, const ze_vk_geometry_desc_t *d,
                                   VkPipeline *out);
/* A geometry pass's reads of the cull pass's output (indirect: the
 * visible draws and their count; the vertex stage: their refs) and of the
 * instance table. */
void ze__vk_geometry_declare(ze_rg_t *g, ze_rg_pass_t pass);
/* Inside a rendering scope: viewport, the pipeline and sets, the global
 * vertex and index buffers, and one indirect count draw per face class of
 * the cull pass's output. */
void ze__vk_geometry_record(ze_vk_backend_t *b, const ze_vk_frame_t *f, VkCommandBuffer cmd,
                            VkPipeline pipeline, VkPipelineLayout layout, uint32_t width,
                            uint32_t height);
/* The late geometry pass's draws: the late cull's ranges and counts. */
void ze__vk_geometry_record_late(ze_vk_backend_t *b, const ze_vk_frame_t *f, VkCommandBuffer cmd,
                                 VkPipeline pipeline, VkPipelineLayout layout, uint32_t width,
                                 uint32_t height);
/* The layout of the scene's pipelines: set 0 the bindless textures, set 1
 * the frame's (vk_draws.c). */
ze_result ze__vk_scene_layout(ze_vk_backend_t *b, VkPipelineLayout *out);

/* vk_pass_pyramid.c: the depth pyramid of occlusion culling, the
 * backend's (b->hzb). create: the sampling set's layout and set (main
 * thread, at backend create); prepare: the pyramid for a shape (at a graph
 * build, the GPU idle: a new size makes a new one, in SHADER_READ_ONLY
 * with no history); destroy: all of it. The cull passes sample it through
 * set 2 of ze__vk_hzb_layout's pipeline layout. */
ze_result ze__vk_hzb_create(ze_vk_backend_t *b);
ze_result ze__vk_hzb_prepare(ze_vk_backend_t *b, const ze_vk_shape_t *shape);
void ze__vk_hzb_destroy(ze_vk_backend_t *b);
/* sets: bindless, frame, the pyramid */
ze_result ze__vk_hzb_layout(ze_vk_backend_t *b, VkPipelineLayout *out);
/* Destroys both (either may be VK_NULL_HANDLE) and clears them. */
void ze__vk_pipeline_release(ze_vk_backend_t *b, VkPipelineLayout *layout, VkPipeline *pipeline);
/* A compute pipeline of one shader (<name>.spv) with `layout`. */
ze_result ze__vk_compute_pipeline(ze_vk_backend_t *b, const char *name, VkPipelineLayout layout,
                                  VkPipeline *out);
/* The state of a compute pass of one shader: its layout and pipeline.
 * scene_create makes them over the scene layout; destroy is a pass's
 * `destroy` for such a state. */
typedef struct ze_vk_compute_t {
    VkPipelineLayout layout;
    VkPipeline pipeline;
} ze_vk_compute_t;
ze_result ze__vk_scene_compute_create(ze_vk_backend_t *b, ze_vk_compute_t *c, const char *shader);
void ze__vk_compute_destroy(ze_vk_backend_t *b, void *state);
/* The `enabled` of the occlusion culling's late passes. */
bool ze__vk_shape_occlusion(const ze_vk_shape_t *shape);

/* vk_scene.c */
ze_result ze__vk_scene_create(ze_vk_backend_t *b);
void ze__vk_scene_destroy(ze_vk_backend_t *b);
/* Render thread, each frame: the slots applies touched since the last
 * frame take and drop their handles, the tables are rebuilt when a handle
 * or a resident asset changed, the device table grows to the slots. The
 * touched slots stay listed for ze__vk_scene_records. */
ze_result ze__vk_scene_sync(ze_vk_backend_t *b);
/* The touched slots' GPU rows into `out` (as many as listed), then forget
 * them; the count. */
uint32_t ze__vk_scene_records(ze_vk_backend_t *b, ze_vk_gpu_update_t *out);
/* How many records ze__vk_scene_records will write. */
uint32_t ze__vk_scene_pending(const ze_vk_backend_t *b);
/* The frame set's layout (set 1: vk_draws.c's bindings). */
ze_result ze__vk_frame_layout_create(ze_vk_backend_t *b);

/* vk_draws.c */
/* The frame's data in f->data (constants: camera, frustum planes, lights,
 * sky, alpha; the scene tables when they changed; the instance records to
 * scatter) and its draw list; the cull pass's output grown to the
 * candidates and its counts zeroed; set 1 rewritten when a buffer it
 * names changed. */
ze_result ze__vk_draws_build(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_state_t *s);
/* Render thread, once the frame in `f` completed: its visible count into
 * the statistics. */
void ze__vk_draws_retire(ze_vk_backend_t *b, ze_vk_frame_t *f);
/* A material's GPU record (textures resolved to bindless slots now). */
void ze__vk_gpu_material(ze_vk_backend_t *b, const ze_zematerial_t *m, ze_vk_gpu_material_t *g);
/* The default material (white, non-metal, roughness 0.5). */
void ze__vk_gpu_material_default(ze_vk_gpu_material_t *g);

/* vk_screenshot.c */
/* The last image as tightly packed RGBA8 (sRGB-encoded), from the Render
 * owner: free with ze_free(b->alloc, *pixels, *size). */
ze_result ze__vk_read_pixels(ze_vk_backend_t *b, uint8_t **pixels, size_t *size, uint32_t *width,
                             uint32_t *height);
ze_result ze__vk_screenshot(ze_vk_backend_t *b, const char *png_path);
/* Tests: the last image's pixels (RGBA8) copied into `rgba` (width*height*4). */
ze_result ze__vk_test_pixels(ze_render_backend_t *b, uint8_t *rgba, size_t size);

#endif /* ZE_GFX_VK_INTERNAL_H */
