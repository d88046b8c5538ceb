/* zengine/gfx.h — the render-backend interface, the render-state snapshot
 * the render thread consumes, and the `null` backend.
 *
 * What: the engine's render thread drives one backend through this
 * interface. Each frame it hands the backend an immutable render-state
 * snapshot (instances with world matrices, lights, camera, sky) that the
 * main thread built in a mailbox slot's arena; the backend never sees ECS
 * data. Assets reach a backend only as `ze_asset_data_t` notifications from
 * the AssetManager's on_asset_ready (main thread): the backend copies what
 * it needs into a bounded pending queue and uploads it at its next frame on
 * the render thread. Backends: "null" (consumes frames and counts what they
 * contain: tests, dedicated servers, CI without a GPU) and "vulkan" (docs/gfx.md).
 * The Vulkan backend renders each frame through a render graph (passes
 * declaring typed uses of images and buffers; barriers, transients and
 * their aliasing derived from them: docs/gfx.md); its GPU time per pass is
 * in the stats, and the compiled graph can be written as JSON.
 * A scene may carry the UI overlay (ze_render_overlay_t: ZUI's instances
 * and glyph atlas), which the Vulkan backend draws over the tone-mapped
 * image on every target, so screenshots show it; the null backend counts
 * its instances.
 * Not: windows and input (engine: it hands the backend its window through
 * desc.native_window); the graph is internal (no pass is named here).
 * Threads: create/destroy on the main thread (destroy after the render
 * thread is joined); ze_render_backend_frame and _screenshot on the render
 * thread only; ze_render_backend_asset_ready on the main thread (it may run
 * while the render thread renders); ze_render_backend_stats from any thread.
 * Memory: backends allocate from the Render owner of the memory manager in
 * their desc; the Vulkan backend routes what Vulkan allocates on the host
 * for its objects (VkAllocationCallbacks) to the Vulkan owner.
 * Errors: ze_result; ZE_ERR_FULL from asset_ready when the pending queue is
 * full (the caller retries next frame; counted); ZE_ERR_IO ("device lost")
 * from frame when the backend can no longer render: the render loop leaves
 * and the engine shuts down with an error.
 */
#ifndef ZENGINE_GFX_H
#define ZENGINE_GFX_H
#include "zengine/asset.h"
#include "zengine/base.h"
#include "zengine/mem.h"
#include "zengine/vfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ render state */

/* Render instances are persistent (render proxies): the backend keeps a
 * table of them indexed by a dense slot that the engine assigns, and a
 * state carries only what changed since the engine last knew the render
 * thread had it: whole records for instances created, re-meshed or
 * re-materialed, transforms for those that only moved, and the slots of
 * those destroyed. Every record holds the slot's whole state of its kind,
 * so applying one twice, or a newer one over an older, is harmless
 * (docs/gfx.md "Render proxies" says how the engine keeps this lossless
 * through a latest-state mailbox). */
enum {
    /* drawn at lerp(previous_position, world's translation, state.alpha):
       the point between the last two fixed steps the frame reaches
       (rotation and scale as they are) */
    ZE_RENDER_INSTANCE_INTERPOLATE = 1u << 0,
    ZE_RENDER_MAX_INSTANCE_SLOTS = 1u << 26, /* 67M: a state above is refused */
};

/* An instance's whole state. */
typedef struct ze_render_instance_t {
    ze_mat4_t world;             /* at the last fixed step */
    ze_vec3_t previous_position; /* INTERPOLATE: the translation one step earlier */
    uint32_t slot;               /* its row in the instance table (< state.instance_slots) */
    ze_uuid_t mesh;              /* a cooked mesh */
    ze_uuid_t material;          /* per-instance override; nil = the mesh's own */
    uint64_t id;                 /* opaque, chosen by the engine (picking) */
    uint32_t flags;              /* ZE_RENDER_INSTANCE_* */
    uint32_t _pad;
} ze_render_instance_t;

/* A live instance that moved: its new transform, the rest kept. */
typedef struct ze_render_transform_t {
    ze_mat4_t world;
    ze_vec3_t previous_position;
    uint32_t slot;
    uint32_t flags;
    uint32_t _pad[3];
} ze_render_transform_t;

/* The matrix a backend draws an instance with at interpolation factor
 * alpha (the state's): its world, with the translation at
 * lerp(previous_position, translation, alpha) when it interpolates. */
ze_mat4_t ze_render_instance_matrix(const ze_render_instance_t *in, float alpha);

/* The digest of an instance's identity and placement (id, mesh, material,
 * world): a backend's table hash is the wrapping sum of its live rows'
 * digests, so a test can compare it with the same sum over the world. */
uint64_t ze_render_instance_digest(uint64_t id, ze_uuid_t mesh, ze_uuid_t material,
                                   const ze_mat4_t *world);

typedef enum ze_render_light_type {
    ZE_RENDER_LIGHT_DIRECTIONAL = 0,
    ZE_RENDER_LIGHT_POINT,
    ZE_RENDER_LIGHT_SPOT,
} ze_render_light_type;

typedef struct ze_render_light_t {
    ze_render_light_type type;
    float intensity;
    float range;      /* point and spot */
    float spot_angle; /* spot, radians */
    ze_vec3_t color;
    ze_vec3_t position;  /* world space */
    ze_vec3_t direction; /* world space, normalized (the light's -Z) */
} ze_render_light_t;

typedef struct ze_render_camera_t {
    ze_mat4_t view;
    ze_mat4_t projection; /* right-handed, depth 0..1 */
    ze_vec3_t position;
    float fov_y, near_plane, far_plane, aspect;
} ze_render_camera_t;

typedef struct ze_render_sky_t {
    ze_vec3_t clear_color; /* linear RGB */
    float exposure;
    ze_uuid_t envmap; /* nil = clear colour only */
} ze_render_sky_t;

/* ------------------------------------------------------- UI overlay */

typedef enum ze_render_ui_kind {
    ZE_RENDER_UI_RECT = 0, /* a rounded rectangle with an optional border */
    ZE_RENDER_UI_GLYPH,    /* coverage from the overlay's glyph atlas, tinted by color */
    ZE_RENDER_UI_IMAGE,    /* a texture (ze_render_texture_t id), tinted by color */
} ze_render_ui_kind;

/* One overlay instance: a quad drawn over the final image. The layout is
 * ZUI's draw-list instance (ze_ui_instance_t, 80 bytes, std430-friendly);
 * the engine copies a draw list as it is. Pixels, origin top-left, x1/y1
 * exclusive; colours 0xRRGGBBAA, sRGB, straight alpha. */
typedef struct ze_render_ui_instance_t {
    float rect[4]; /* x0, y0, x1, y1 */
    float clip[4]; /* nothing outside is drawn */
    float uv[4];   /* GLYPH: atlas coordinates 0..1 (u0, v0, u1, v1) */
    uint32_t color;
    uint32_t border_color;
    float corner_radius, border_width; /* pixels */
    uint32_t kind;                     /* ze_render_ui_kind */
    uint32_t texture;                  /* IMAGE: a ze_render_texture_t's id */
    uint32_t codepoint;                /* GLYPH: what it draws (not read by backends) */
    uint32_t _pad;
} ze_render_ui_instance_t;

/* The UI overlay of a frame: the main thread's latest draw list, published
 * through its own latest-state mailbox (not the render state's) and
 * attached to the state by the render thread. Arrays live in the overlay
 * slot's arena, valid for the frame call that receives them. */
typedef struct ze_render_overlay_t {
    uint64_t frame;          /* main-loop iteration that built it */
    uint32_t width, height;  /* the target the UI was laid out for, pixels */
    uint32_t instance_count; /* painter's order */
    const ze_render_ui_instance_t *instances;
    /* The glyph atlas the instances' uv refer to: 8-bit coverage,
       row-major, atlas_width x atlas_height. atlas_pixels is NULL when this
       overlay does not carry it: its revision was received already, and
       the backend draws with what it uploaded then. A backend uploads the
       atlas when the revision differs from its own. */
    uint64_t atlas_revision;
    uint32_t atlas_width, atlas_height;
    const uint8_t *atlas_pixels;
} ze_render_overlay_t;

/* A texture the overlay can draw: ZUI's image widget takes its id
 * (ze_ui_image). 0 = none. */
typedef struct ze_render_texture_t {
    uint32_t id;
} ze_render_texture_t;

/* One frame's immutable snapshot. Arrays live in the same mailbox slot
 * arena as the struct; valid until the render thread takes a newer one. */
typedef struct ze_render_state_t {
    uint64_t frame;     /* main-loop iteration that built it */
    uint64_t sim_steps; /* fixed steps run so far */
    float alpha;        /* interpolation factor used for the matrices */
    uint32_t width, height;
    bool resized;            /* the target size changed since the last snapshot */
    uint64_t scene_revision; /* bumped when a scene is (re)loaded: backends reset */
    bool has_camera;
    ze_render_camera_t camera;
    ze_render_sky_t sky;
    /* Instances (see ze_render_instance_t): the slots in use are below
       instance_slots; instance_count are live once this state's changes are
       applied (removes first, then whole records, then transforms; one
       record per slot per state). delta_serial increases with every state
       the engine builds (0: apply always): a backend applies a state's
       changes once. instances_pending: the engine holds changes to the
       instance set (creates, re-meshes, re-materials, destroys) that this
       state does not carry (moves left for a later state never set it);
       a backend applies such a state but, when its
       scene_revision is one it has not drawn, draws nothing until a state
       without pending changes arrives, so no frame mixes two scenes. */
    uint32_t instance_slots, instance_count;
    uint32_t instance_update_count, transform_update_count, instance_remove_count;
    const ze_render_instance_t *instance_updates;
    const ze_render_transform_t *transform_updates;
    const uint32_t *instance_removes;
    uint64_t delta_serial;
    bool instances_pending;
    uint32_t light_count;
    const ze_render_light_t *lights;
    /* The UI drawn over the final image (NULL: none). The main thread
       leaves it NULL; the render thread sets it from the overlay mailbox. */
    const ze_render_overlay_t *overlay;
} ze_render_state_t;

/* A state that carries a whole set of n instances (tools and tests that
 * build states themselves): record i goes to slot i, every other slot is
 * free; delta_serial 0, so a backend applies it each time it is given. */
static inline void ze_render_state_set_instances(ze_render_state_t *s, ze_render_instance_t *inst,
                                                 uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        inst[i].slot = i;
    s->instance_updates = inst;
    s->instance_update_count = n;
    s->instance_slots = s->instance_count = n;
    s->transform_update_count = s->instance_remove_count = 0;
    s->delta_serial = 0;
    s->instances_pending = false;
}

/* --------------------------------------------------- levels of detail */

/* The level of detail to draw (the CPU reference of the cull pass's
 * choice; docs/gfx.md "LODs"). lod_error[i]: level i's object-space error
 * (ze_zemesh_lod_t.error; non-decreasing, lod_error[0] = 0), world_scale:
 * the instance's largest axis scale, distance: from the camera to the
 * bounding sphere's centre, radius: the sphere's world-space radius,
 * proj_scale: projection[1][1] * viewport_height / 2 (pixels per unit at
 * distance 1). Level i projects to
 *   lod_error[i] * world_scale * proj_scale / max(distance - radius, 1e-4)
 * pixels; the result is the highest level whose projection is at most
 * threshold_px, 0 when the camera is inside the sphere (distance <= radius)
 * or lod_count <= 1. Any thread; pure. */
uint32_t ze_render_lod_select(const float *lod_error, uint32_t lod_count, float world_scale,
                              float distance, float radius, float proj_scale, float threshold_px);

/* ----------------------------------------------------------- backends */

typedef struct ze_render_backend_t ze_render_backend_t;

/* What the GPU draws of a state's instances. */
typedef enum ze_render_cull_mode {
    /* vulkan: a compute pass tests each draw's bounding sphere (the mesh's
       bounds through its world matrix) against the view frustum, then
       against a depth pyramid of the previous frame (occlusion culling,
       two-phase: what it hides is tested again against this frame's
       pyramid, built from the draws it let through, and drawn late if
       visible after all), and compacts the visible ones for indirect
       draws; docs/gfx.md "Occlusion culling" */
    ZE_RENDER_CULL_DEFAULT = 0,
    ZE_RENDER_CULL_NONE,    /* every instance is drawn (debugging, references) */
    ZE_RENDER_CULL_FRUSTUM, /* the frustum test only (no pyramid, no late passes) */
} ze_render_cull_mode;

typedef struct ze_render_backend_desc_t {
    ze_mem_t *mem;   /* required */
    ze_vfs_t *vfs;   /* engine assets, /cache/pso; may be NULL (null backend) */
    bool headless;   /* offscreen target, no window */
    uint32_t width;  /* 0 = 1280 */
    uint32_t height; /* 0 = 720 */
    const char *title;
    bool vsync;
    uint32_t pending_capacity; /* asset notifications in flight; 0 = 1024 */
    /* The engine's window (a GLFWwindow *) or NULL. With one (and headless
       false) the Vulkan backend creates its surface from it at create, on
       the main thread (glfwCreateWindowSurface with the backend's instance,
       which enables glfwGetRequiredInstanceExtensions), and renders into a
       swapchain; the window must outlive the backend. NULL: offscreen.
       The null backend ignores it. */
    void *native_window;
    ze_render_cull_mode cull;
    /* vulkan: a depth-only pass draws the visible geometry first, then
       forward shading tests for equal depth without writing it, so each
       pixel is shaded once (worth it where shading is dear and overdraw
       high; one more geometry pass otherwise) */
    bool depth_prepass;
    /* vulkan: the screen-space error a mesh level of detail may make, in
       pixels: the cull pass draws the coarsest level whose error projects
       to at most this (ze_render_lod_select; meshes cooked with one level
       always draw it). 0 = 1 pixel; negative: level 0 always. */
    float lod_error_px;
    /* Geometry budgets (a project's renderer settings): the global vertex
       buffer's bytes (48 a vertex: position, normal, uv, tangent), the
       index buffer's (4 an index) and the instance table's slots. The
       buffers grow to what the resident meshes need, up to these; a mesh
       that would take the committed geometry over one is refused by
       asset_ready with ZE_ERR_LIMIT, and a state with more instance slots
       by apply, each logged with the budget and the sizes. 0 = the
       defaults (ZE_RENDER_DEFAULT_*). */
    uint64_t vertex_budget_bytes;
    uint64_t index_budget_bytes;
    uint32_t instance_budget;
} ze_render_backend_desc_t;

enum {
    ZE_RENDER_VERTEX_BYTES = 48, /* what a vertex costs the vertex budget */
    ZE_RENDER_INDEX_BYTES = 4,
};
#define ZE_RENDER_DEFAULT_VERTEX_BUDGET   (1024ull << 20) /* 1 GiB: 22M vertices */
#define ZE_RENDER_DEFAULT_INDEX_BUDGET    (512ull << 20)  /* 512 MiB: 134M indices */
#define ZE_RENDER_DEFAULT_INSTANCE_BUDGET ((uint32_t)ZE_RENDER_MAX_INSTANCE_SLOTS)

enum { ZE_RENDER_MAX_PASS_TIMES = 32, ZE_RENDER_PASS_NAME_MAX = 32 };

/* One render-graph pass's GPU time (timestamps around it). */
typedef struct ze_render_pass_time_t {
    char name[ZE_RENDER_PASS_NAME_MAX];
    double gpu_ms;
} ze_render_pass_time_t;

enum { ZE_RENDER_LOD_MAX = 8 }; /* levels of detail a mesh may have (ZE_ZEMESH_LOD_MAX) */

typedef struct ze_render_stats_t {
    uint64_t frames;          /* frames rendered */
    uint64_t instances_drawn; /* summed over frames */
    uint32_t last_instances, last_lights;
    uint64_t last_scene_frame;                     /* `frame` of the last snapshot rendered */
    uint64_t assets_received;                      /* notifications drained into resources */
    uint64_t assets_rejected;                      /* asset_ready refused: queue full */
    uint32_t meshes, materials, textures, envmaps; /* resident now */
    /* What the resident assets hold now (unload returns each to its value
       before the load, once the frames that used them retire): assets
       released (ze_render_backend_asset_release) and applied; vulkan:
       device memory in live sub-allocations (gpu_memory_bytes counts the
       VkDeviceMemory blocks, freed when empty), the bindless texture slots
       taken (built-ins included) out of their capacity, and the bytes of
       the global vertex and index buffers in use and their capacity (the
       budgets: ze_render_backend_desc_t); null: the meshes' vertex and
       index bytes at the budgets' 48 and 4 bytes each, no capacity. */
    uint64_t assets_released;
    uint64_t gpu_memory_used_bytes;
    uint32_t bindless_slots_used, bindless_slots_capacity;
    uint64_t vertex_bytes_used, vertex_bytes_capacity;
    uint64_t index_bytes_used, index_bytes_capacity;
    uint64_t budget_rejections; /* asset_ready or apply refused by a geometry budget */
    uint64_t validation_messages;
    uint64_t scene_resets; /* scene_revision changes seen */
    /* vulkan: the validation layer is enabled (debug/test builds) */
    bool validation_enabled;
    /* vulkan: render-thread wall time of the last frame (it includes
       waiting for a frame slot behind the GPU), device memory */
    double cpu_frame_ms;
    /* every backend: the render thread's own CPU time (not blocked) in
       ze_render_backend_frame (applying the state's changes, building and
       submitting the frame): the last frame's, the mean over all frames,
       and over the frames after the first 10 (startup uploads left out) */
    double thread_cpu_ms, thread_cpu_avg_ms, thread_cpu_steady_ms;
    uint64_t gpu_memory_bytes;
    /* vulkan: GPU time of each pass of the last frame whose timestamps were
       read (one frame late), in the order the passes ran */
    uint32_t gpu_pass_count;
    ze_render_pass_time_t gpu_passes[ZE_RENDER_MAX_PASS_TIMES];
    /* vulkan: the render graph's transient images and buffers, in the
       memory they share (aliased) and as if each had its own */
    uint64_t transient_bytes, transient_bytes_unaliased;
    /* vulkan, window target: swapchains recreated after the first (resize,
       out-of-date, suboptimal, restore from minimized) */
    uint64_t swapchain_recreates;
    /* the overlay: instances in the last frame's (0 without one), and the
       atlas revisions received (uploaded, for backends with images) */
    uint32_t ui_instances;
    uint64_t ui_atlas_uploads;
    /* vulkan: host memory the loader, layers and driver hold through the
       backend's VkAllocationCallbacks (the Vulkan memory owner), now and at
       its highest, in bytes they asked for; the allocations served; and
       what the driver reported allocating itself (internal allocations
       notified, outside the owner) */
    uint64_t host_bytes, host_bytes_peak, host_allocations, host_internal_bytes;
    /* vulkan: the last completed frame's draws (an instance x a submesh of
       its mesh): candidates, those drawn, those outside the view frustum,
       and those inside it that occlusion culling hid (candidates = visible
       + frustum culled + occlusion culled; 0 culled without culling) */
    uint32_t last_draws, last_draws_visible, last_draws_frustum_culled;
    uint32_t last_draws_occlusion_culled;
    /* vulkan: the last completed frame's visible draws by the level of
       detail the cull pass chose (0: full detail) */
    uint32_t last_draws_lod[ZE_RENDER_LOD_MAX];
    /* vulkan: the last completed frame's instanced draw commands (one per
       face class, submesh and level of detail with visible draws: what the
       geometry passes issue) and the triangles they drew */
    uint32_t last_draw_commands;
    uint64_t last_triangles;
    /* the instance table: live rows, their digest sum
       (ze_render_instance_digest), the records the last applied state
       carried and all applied so far, states applied, and states whose
       records were refused (a transform for a slot not live, a slot at or
       above instance_slots: each logged once) */
    uint32_t instances_live;
    uint64_t instance_table_hash;
    uint32_t last_instance_records;
    uint64_t instance_records, instance_states;
    uint64_t instance_records_refused;
} ze_render_stats_t;

/* "null" (and, when built, "vulkan"). ZE_ERR_NOT_FOUND for an unknown name;
 * ZE_ERR_UNSUPPORTED with a logged reason when the backend cannot run here. */
ze_result ze_render_backend_create(const char *name, const ze_render_backend_desc_t *desc,
                                   ze_render_backend_t **out);
void ze_render_backend_destroy(ze_render_backend_t *b);
const char *ze_render_backend_name(const ze_render_backend_t *b);
/* A human-readable device ("null (headless)", "NVIDIA H200 (driver ...)"). */
const char *ze_render_backend_device(const ze_render_backend_t *b);
/* Render thread: apply the state's instance changes to the backend's
 * table (once per delta_serial; ze_render_backend_frame does it itself when
 * it was not called). The engine calls it first so that it knows the
 * changes have arrived before the frame is drawn. ZE_ERR_OUT_OF_MEMORY when
 * the table cannot grow (nothing applied); ZE_ERR_INVALID_ARG for a state
 * whose counts promise arrays it lacks. */
ze_result ze_render_backend_apply(ze_render_backend_t *b, const ze_render_state_t *state);
/* Render thread: apply (above), drain pending assets, render the
 * snapshot, finish. */
ze_result ze_render_backend_frame(ze_render_backend_t *b, const ze_render_state_t *state);
/* Main thread: an asset became Loaded (or was reloaded). Copies what the
 * backend keeps; `data` may be freed right after. */
ze_result ze_render_backend_asset_ready(ze_render_backend_t *b, const ze_asset_data_t *data);
/* Main thread: nobody uses the asset any more (the asset manager's
 * on_asset_released). Queued behind the notifications sent before it; at
 * its next frame the backend drops the resource and frees what it held
 * (buffers, images, bindless slots, vertex and index ranges) once the
 * frames that may still read it retire; when no mesh is left the vertex
 * and index buffers go back to their initial size (the seed's
 * ResetGeometryBuffers). A later asset_ready of the uuid uploads it
 * again. The caller must not draw instances of it after the state that
 * removed them (the engine sends releases only once the render thread
 * has applied those removes). A uuid not resident is ignored. ZE_ERR_FULL
 * when the pending queue is full (retry next frame); ZE_ERR_INVALID_ARG
 * for a nil uuid. */
ze_result ze_render_backend_asset_release(ze_render_backend_t *b, ze_uuid_t uuid);
/* Render thread, after a frame: write the last image as PNG.
 * ZE_ERR_UNSUPPORTED for backends without images (null). */
ze_result ze_render_backend_screenshot(ze_render_backend_t *b, const char *png_path);
/* Render thread (or after it is joined): the compiled render graph as JSON
 * (passes in order with their uses and barriers, resources with lifetimes
 * and layouts, transient aliasing). ZE_ERR_UNSUPPORTED for backends
 * without a graph (null); ZE_ERR_STATE before the first frame was built. */
ze_result ze_render_backend_dump_graph(ze_render_backend_t *b, const char *json_path);
/* Main thread, at startup (the engine's pso_cache stage, after the VFS
 * exists) and at shutdown: persist the backend's pipeline cache under
 * /cache/pso of `vfs`. Vulkan loads the saved blob (a corrupt or foreign one
 * is discarded with a warning) and rebuilds its pipelines with it; a VFS
 * without a writable /cache turns persistence off, which is not an error.
 * NULL saves the cache to the attached VFS and detaches it (call before
 * the VFS goes away). A no-op for backends without pipelines (null). */
ze_result ze_render_backend_use_cache(ze_render_backend_t *b, ze_vfs_t *vfs);
/* Any thread. */
ze_render_stats_t ze_render_backend_stats(const ze_render_backend_t *b);
/* Is this resource resident in the backend (render thread's view, read
 * from any thread): the asset's generation, 0 when absent. */
uint32_t ze_render_backend_resident(const ze_render_backend_t *b, ze_uuid_t uuid);

/* Any thread (the main thread, building the UI): the handle of a cooked
 * texture, by its asset uuid, for the overlay. The same uuid always gives
 * the same handle, for the backend's lifetime. A frame draws it when the
 * texture is resident then and the fallback texture (hot pink) when it is
 * not (not loaded yet, failed, unloaded). {0} for a nil uuid, or when the
 * table cannot grow (logged). */
ze_render_texture_t ze_render_backend_ui_texture(ze_render_backend_t *b, ze_uuid_t texture);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_GFX_H */
