/* Internal: the render-backend vtable behind include/zengine/gfx.h.
 *
 * Every backend's object starts with a ze_render_backend_t (its first
 * member), so the public handle and the backend's own struct are the same
 * pointer. backend.c checks arguments (NULL handles, a snapshot whose counts
 * promise arrays it lacks) and dispatches; a backend's functions see only
 * valid arguments.
 *
 * Names: "null" (null_backend.c), "vulkan" (vk_backend.c and the other
 * vk_*.c files). Any other name: ZE_ERR_NOT_FOUND (logged).
 *
 * Threads, as in gfx.h: create/destroy on the main thread; frame and
 * screenshot on the render thread; asset_ready on the main thread, possibly
 * while the render thread is in frame; stats, resident and device from any
 * thread. Not a public header. */
#ifndef ZE_GFX_BACKEND_H
#define ZE_GFX_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/gfx.h"

/* Faults for lifecycle tests, never in the public desc
 * (ze__render_backend_create_with). */
typedef struct ze__render_faults_t {
    uint32_t frame_delay_us;       /* null backend: each frame sleeps (a slow GPU) */
    uint64_t lose_device_at_frame; /* that frame (1-based) reports a lost device; 0 never */
} ze__render_faults_t;

/* ze_render_backend_create with faults (NULL: none). */
ze_result ze__render_backend_create_with(const char *name, const ze_render_backend_desc_t *desc,
                                         const ze__render_faults_t *faults,
                                         ze_render_backend_t **out);

typedef struct ze__render_backend_vtable_t {
    const char *name;
    /* desc: checked non-NULL with desc->mem set; defaults not yet applied;
       faults never NULL. On success *out is the backend's object (base
       first). */
    ze_result (*create)(const ze_render_backend_desc_t *desc, const ze__render_faults_t *faults,
                        ze_render_backend_t **out);
    void (*destroy)(ze_render_backend_t *b);
    /* scene: checked non-NULL and consistent (counts match arrays; the
       overlay's too, and an atlas it carries has a size). */
    ze_result (*frame)(ze_render_backend_t *b, const ze_render_state_t *scene);
    ze_result (*asset_ready)(ze_render_backend_t *b, const ze_asset_data_t *data);
    /* uuid checked non-nil; queued like asset_ready (same ring, same order) */
    ze_result (*asset_release)(ze_render_backend_t *b, ze_uuid_t uuid);
    ze_result (*screenshot)(ze_render_backend_t *b, const char *png_path);
    /* Optional (NULL: ZE_ERR_UNSUPPORTED). */
    ze_result (*dump_graph)(ze_render_backend_t *b, const char *json_path);
    /* Optional (NULL: nothing to persist). */
    ze_result (*use_cache)(ze_render_backend_t *b, ze_vfs_t *vfs);
    ze_render_stats_t (*stats)(const ze_render_backend_t *b);
    uint32_t (*resident)(const ze_render_backend_t *b, ze_uuid_t uuid);
    const char *(*device)(const ze_render_backend_t *b);
    /* The backend mirrors the instance table (the Vulkan one, on the
       GPU): the table tracks the slots each apply touched. */
    bool mirrors_instances;
} ze__render_backend_vtable_t;

/* The instance table every backend keeps (instance_table.c): the rows
 * the engine's states create, move and destroy, indexed by slot. Written
 * by the render thread (apply); the published figures are atomics, read
 * by ze_render_backend_stats from any thread. A backend reads `rows` and
 * `live` on the render thread. */
typedef struct ze__instance_table_t {
    /* per slot, in regions of the Render owner (tables of a million rows
       are larger than its heap) */
    ze_mem_table_t row_table, live_table;
    ze_render_instance_t *rows;
    uint8_t *live;
    uint32_t capacity, slots, live_count;
    uint64_t applied_serial;
    uint64_t hash;           /* wrapping sum of the live rows' digests */
    uint64_t drawn_revision; /* scene_revision of the last state with nothing pending */
    bool drawn_any;          /* such a state was applied */
    bool refused_logged;
    bool grow_failed; /* the last apply could not grow (logged once) */
    /* Backends that mirror the table (Vulkan: on the GPU) track the slots
       applies touched since they last took them: each slot once, in the
       order first touched (`touched`, a mark per slot in `marked`). */
    bool track;
    ze_mem_table_t touched_table, marked_table;
    uint32_t *touched;
    uint8_t *marked;
    uint32_t touched_count;
    atomic_uint_fast32_t pub_live, pub_last_records;
    atomic_uint_fast64_t pub_hash, pub_records, pub_states, pub_refused;
} ze__instance_table_t;

void ze__instance_table_init(ze__instance_table_t *t, ze_mem_t *mm);
void ze__instance_table_free(ze__instance_table_t *t);
/* Apply a state's changes (skipped when its delta_serial was applied):
 * ZE_ERR_OUT_OF_MEMORY leaves the table as it was. */
ze_result ze__instance_table_apply(ze__instance_table_t *t, const ze_render_state_t *s);
/* Whether a frame of this (applied) state may be drawn: nothing pending,
 * or of the scene revision already drawn. */
bool ze__instance_table_drawable(const ze__instance_table_t *t, const ze_render_state_t *s);
/* Start tracking touched slots (before the first apply). */
void ze__instance_table_track(ze__instance_table_t *t);
/* Forget the touched slots (after the backend mirrored them). */
void ze__instance_table_untouch(ze__instance_table_t *t);
/* Fill the stats' instance fields. */
void ze__instance_table_stats(const ze__instance_table_t *t, ze_render_stats_t *out);

/* The overlay's texture handles (texture_handle.c): handle i + 1 names
 * uuids[i]. The main thread adds (ze_render_backend_ui_texture), the render
 * thread resolves; the lock guards both. Entries live as long as the
 * backend: a handle never comes to name another texture. */
typedef struct ze__render_textures_t {
    pthread_mutex_t lock;
    ze_allocator_t alloc;
    ze_uuid_t *uuids;
    uint32_t count, cap;
    ze_hashmap_t ids; /* ze_uuid_t -> uint32_t handle id */
} ze__render_textures_t;

/* The geometry budgets' books (backend.c, main thread): what every mesh
 * sent and not released commits, at ZE_RENDER_VERTEX_BYTES a vertex and
 * ZE_RENDER_INDEX_BYTES an index. */
typedef struct ze__geometry_books_t {
    ze_hashmap_t meshes; /* ze_uuid_t -> uint64_t[2]: vertex, index bytes */
    uint64_t vertex_bytes, index_bytes;
    uint64_t vertex_budget, index_budget; /* desc's, defaults applied */
    uint32_t instance_budget;
    bool instance_logged;            /* apply over the budget: logged once until it fits */
    atomic_uint_fast64_t rejections; /* either thread */
} ze__geometry_books_t;

struct ze_render_backend_t {
    const ze__render_backend_vtable_t *vt;
    ze__geometry_books_t books;        /* set up by backend.c around create/destroy */
    ze__render_textures_t ui_textures; /* set up by backend.c around create/destroy */
    ze__instance_table_t instances;    /* set up by backend.c after create */
    /* ze_render_backend_frame's own CPU time (render thread writes, stats
       read): the last frame's, the sums, the frames */
    _Atomic uint64_t cpu_last_ns, cpu_sum_ns, cpu_steady_sum_ns, cpu_frames;
    bool drew; /* render thread: the last ze_render_backend_frame drew a frame */
};

/* Render thread: whether the last ze_render_backend_frame drew the state
 * (ZE_OK also when it only applied one of a scene not all there yet):
 * what it was handed (the overlay's atlas) reached the backend. */
bool ze__render_backend_drew(const ze_render_backend_t *b);

void ze__render_textures_init(ze_render_backend_t *b, ze_mem_t *mem);
void ze__render_textures_fini(ze_render_backend_t *b);
/* Render thread: the uuids of n handle ids, under one lock (nil for 0 or
 * an id never handed out). */
void ze__render_textures_resolve(ze_render_backend_t *b, const uint32_t *ids, ze_uuid_t *out,
                                 uint32_t n);

extern const ze__render_backend_vtable_t ze__null_render_backend;
extern const ze__render_backend_vtable_t ze__vulkan_render_backend; /* vk_backend.c */

#endif /* ZE_GFX_BACKEND_H */
