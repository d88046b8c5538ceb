/* The "null" render backend: consumes frames and counts what they contain
 * (tests, dedicated servers, CI without a GPU).
 *
 * Asset notifications: ze_render_backend_asset_ready (main thread) copies a
 * small record (uuid, type, generation, byte size; no payload) into a
 * bounded single-producer single-consumer ring; the render thread drains it
 * at the start of each frame (BeginFrame) into the resident table, uuid ->
 * (type, generation). The ring's indices are monotonic 64-bit counters:
 * the producer owns `tail`, the consumer `head`; the producer reads `head`
 * with acquire (the consumer is done with the slots before it) and
 * publishes a slot with a release store of `tail`; the consumer reads
 * `tail` with acquire and frees slots with a release store of `head`. No
 * locks, no allocation per notification, no standalone fences. Only MESH,
 * MATERIAL, TEXTURE and ENVMAP are kept; SOURCE, FILE and SCENE
 * notifications are accepted and ignored (nothing to upload).
 *
 * The resident table is written by the render thread at drain and read by
 * ze_render_backend_resident from any thread: a mutex guards it (one lock
 * per drained batch, not a hot path). Resident assets survive scene reloads
 * (they are keyed by uuid); a scene_revision change is only counted.
 * ze_render_backend_asset_release queues a release record (type UNKNOWN)
 * in the same ring: the drain removes the resident, so the counts and the
 * meshes' vertex and index bytes follow the Vulkan backend's.
 *
 * A scene's UI overlay is read (every instance, the atlas's ends) and
 * counted: ui_instances (the last frame's), ui_atlas_uploads (atlas
 * revisions it had not received before).
 *
 * Statistics are relaxed atomics written by the render thread (frames,
 * instances, resident counts) or the main thread (rejections), readable from
 * any thread. Each field is exact on its own; a snapshot of several fields
 * taken while the render thread runs may mix two frames.
 *
 * Test faults (backend.h, never in the public desc): frame_delay_us (each frame sleeps, a slow GPU)
 * and lose_device_at_frame (that frame, 1-based over the frames that passed
 * argument checks, returns ZE_ERR_IO and logs "device lost (simulated)";
 * every later frame returns ZE_ERR_IO too). */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#include "gfx/backend.h"

#define LOG_CH "gfx"

enum { DEFAULT_PENDING = 1024 };

typedef struct pending_t {
    ze_uuid_t uuid;
    uint32_t type; /* ze_asset_type; ZE_ASSET_TYPE_UNKNOWN: a release */
    uint32_t generation;
    uint64_t size;                      /* artifact bytes */
    uint64_t vertex_bytes, index_bytes; /* meshes, at the budgets' rates */
} pending_t;

typedef struct resident_t {
    uint32_t generation;
    uint32_t type;
    uint64_t size;
    uint64_t vertex_bytes, index_bytes;
} resident_t;

typedef struct null_backend_t {
    ze_render_backend_t base; /* first: the public handle */
    ze_allocator_t alloc;
    bool headless;
    uint32_t frame_delay_us;
    uint64_t lose_at;

    /* pending ring (SPSC) */
    pending_t *ring;
    uint32_t capacity;
    alignas(64) atomic_uint_fast64_t tail; /* written by the producer (main) */
    alignas(64) atomic_uint_fast64_t head; /* written by the consumer (render) */

    /* render thread only */
    alignas(64) uint64_t frame_calls; /* frames that passed argument checks */
    uint64_t revision;                /* last scene_revision seen; starts at 0 */
    bool lost;
    float checksum; /* what reading the snapshot produced (keeps reads alive) */

    /* resident table: render thread writes, any thread reads */
    pthread_mutex_t lock;
    ze_hashmap_t resident; /* ze_uuid_t -> resident_t */

    /* statistics */
    atomic_uint_fast64_t frames, instances_drawn, last_scene_frame;
    atomic_uint_fast64_t assets_received, scene_resets, assets_released;
    atomic_uint_fast64_t vertex_bytes, index_bytes; /* resident meshes */
    atomic_uint_fast32_t last_instances, last_lights;
    atomic_uint_fast32_t counts[ZE_ASSET_TYPE_COUNT]; /* resident per type */
    atomic_uint_fast32_t ui_instances;                /* in the last frame's overlay */
    atomic_uint_fast64_t ui_atlas_uploads;            /* atlas revisions received */
    uint64_t atlas_revision;                          /* render thread: the last received + 1 */
    alignas(64) atomic_uint_fast64_t assets_rejected; /* main thread */
} null_backend_t;

static inline null_backend_t *nb_of(ze_render_backend_t *b)
{
    return (null_backend_t *)b;
}

static inline const null_backend_t *cnb_of(const ze_render_backend_t *b)
{
    return (const null_backend_t *)b;
}

static inline uint64_t ld(atomic_uint_fast64_t *a)
{
    return atomic_load_explicit(a, memory_order_relaxed);
}

/* Single-writer counters: load + store, no read-modify-write needed. */
static inline void add64(atomic_uint_fast64_t *a, uint64_t n)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

static inline void add32(atomic_uint_fast32_t *a, int32_t n)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + (uint32_t)n,
                          memory_order_relaxed);
}

static bool kept_type(uint32_t type)
{
    return type == ZE_ASSET_TYPE_MESH || type == ZE_ASSET_TYPE_MATERIAL ||
           type == ZE_ASSET_TYPE_TEXTURE || type == ZE_ASSET_TYPE_ENVMAP;
}

static void null_destroy(ze_render_backend_t *b);

static ze_result null_create(const ze_render_backend_desc_t *desc,
                             const ze__render_faults_t *faults, ze_render_backend_t **out)
{
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_RENDER);
    null_backend_t *nb = ze_alloc(alloc, sizeof *nb, alignof(null_backend_t));
    if (!nb) {
        ZE_LOG_ERROR(LOG_CH, "null backend: the Render owner refused %zu bytes", sizeof *nb);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(nb, 0, sizeof *nb);
    nb->base.vt = &ze__null_render_backend;
    nb->alloc = alloc;
    nb->headless = desc->headless;
    nb->frame_delay_us = faults->frame_delay_us;
    nb->lose_at = faults->lose_device_at_frame;
    nb->capacity = desc->pending_capacity ? desc->pending_capacity : DEFAULT_PENDING;
    atomic_init(&nb->tail, 0);
    atomic_init(&nb->head, 0);
    atomic_init(&nb->frames, 0);
    atomic_init(&nb->instances_drawn, 0);
    atomic_init(&nb->last_scene_frame, 0);
    atomic_init(&nb->assets_received, 0);
    atomic_init(&nb->scene_resets, 0);
    atomic_init(&nb->assets_released, 0);
    atomic_init(&nb->vertex_bytes, 0);
    atomic_init(&nb->index_bytes, 0);
    atomic_init(&nb->assets_rejected, 0);
    atomic_init(&nb->last_instances, 0);
    atomic_init(&nb->last_lights, 0);
    for (int i = 0; i < ZE_ASSET_TYPE_COUNT; i++)
        atomic_init(&nb->counts[i], 0);
    atomic_init(&nb->ui_instances, 0);
    atomic_init(&nb->ui_atlas_uploads, 0);
    pthread_mutex_init(&nb->lock, NULL);
    ze_hashmap_init(&nb->resident, alloc, sizeof(ze_uuid_t), sizeof(resident_t));
    nb->ring = ze_alloc(alloc, sizeof(pending_t) * nb->capacity, alignof(pending_t));
    if (!nb->ring) {
        ZE_LOG_ERROR(LOG_CH, "null backend: no memory for %u pending asset records", nb->capacity);
        null_destroy(&nb->base);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    ZE_LOG_DEBUG(LOG_CH, "null backend created (%s, %u pending asset records)",
                 nb->headless ? "headless" : "windowless", nb->capacity);
    *out = &nb->base;
    return ZE_OK;
}

static void null_destroy(ze_render_backend_t *b)
{
    null_backend_t *nb = nb_of(b);
    ze_hashmap_free(&nb->resident);
    pthread_mutex_destroy(&nb->lock);
    if (nb->ring)
        ze_free(nb->alloc, nb->ring, sizeof(pending_t) * nb->capacity);
    ze_free(nb->alloc, nb, sizeof *nb);
}

/* Main thread: one record into the ring (ZE_ERR_FULL: none). */
static ze_result push(null_backend_t *nb, const pending_t *p)
{
    uint64_t tail = atomic_load_explicit(&nb->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&nb->head, memory_order_acquire);
    if (tail - head >= nb->capacity) {
        atomic_fetch_add_explicit(&nb->assets_rejected, 1, memory_order_relaxed);
        return ZE_ERR_FULL;
    }
    nb->ring[tail % nb->capacity] = *p;
    atomic_store_explicit(&nb->tail, tail + 1, memory_order_release);
    return ZE_OK;
}

static ze_result null_asset_release(ze_render_backend_t *b, ze_uuid_t uuid)
{
    return push(nb_of(b), &(pending_t){.uuid = uuid, .type = ZE_ASSET_TYPE_UNKNOWN});
}

/* Main thread. */
static ze_result null_asset_ready(ze_render_backend_t *b, const ze_asset_data_t *data)
{
    null_backend_t *nb = nb_of(b);
    if (data->type == ZE_ASSET_TYPE_UNKNOWN || ze_uuid_is_nil(data->uuid) ||
        data->generation == 0) {
        ZE_LOG_ERROR(LOG_CH, "asset notification rejected: type %s, generation %u%s",
                     ze_asset_type_name(data->type), data->generation,
                     ze_uuid_is_nil(data->uuid) ? ", nil uuid" : "");
        return ZE_ERR_INVALID_ARG;
    }
    if (!kept_type((uint32_t)data->type))
        return ZE_OK; /* sources, files, scenes: nothing for a renderer */
    pending_t p = {
        .uuid = data->uuid,
        .type = (uint32_t)data->type,
        .generation = data->generation,
        .size = data->size,
    };
    if (data->type == ZE_ASSET_TYPE_MESH) {
        p.vertex_bytes = (uint64_t)data->as.mesh.vertex_count * ZE_RENDER_VERTEX_BYTES;
        p.index_bytes = (uint64_t)data->as.mesh.index_count * ZE_RENDER_INDEX_BYTES;
    }
    return push(nb, &p);
}

static void geometry_add(null_backend_t *nb, const resident_t *r, int sign)
{
    uint64_t v = ld(&nb->vertex_bytes), i = ld(&nb->index_bytes);
    atomic_store_explicit(&nb->vertex_bytes, sign > 0 ? v + r->vertex_bytes : v - r->vertex_bytes,
                          memory_order_relaxed);
    atomic_store_explicit(&nb->index_bytes, sign > 0 ? i + r->index_bytes : i - r->index_bytes,
                          memory_order_relaxed);
}

/* Render thread: BeginFrame. The latest notification of a uuid wins (the
 * ring keeps the order the main thread sent them in). */
static void drain_pending(null_backend_t *nb)
{
    uint64_t head = atomic_load_explicit(&nb->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&nb->tail, memory_order_acquire);
    if (head == tail)
        return;
    uint64_t received = 0, released = 0;
    pthread_mutex_lock(&nb->lock);
    for (; head != tail; head++) {
        const pending_t *p = &nb->ring[head % nb->capacity];
        resident_t *r = ze_hashmap_get(&nb->resident, &p->uuid);
        resident_t nr = {p->generation, p->type, p->size, p->vertex_bytes, p->index_bytes};
        if (p->type == ZE_ASSET_TYPE_UNKNOWN) { /* a release */
            if (r) {
                add32(&nb->counts[r->type], -1);
                geometry_add(nb, r, -1);
                ze_hashmap_remove(&nb->resident, &p->uuid);
                released++;
            }
        } else if (r) {
            if (r->type != p->type) {
                add32(&nb->counts[r->type], -1);
                add32(&nb->counts[p->type], 1);
            }
            geometry_add(nb, r, -1);
            *r = nr;
            geometry_add(nb, r, 1);
            received++;
        } else if (ze_hashmap_put(&nb->resident, &p->uuid, &nr) == ZE_OK) {
            add32(&nb->counts[p->type], 1);
            geometry_add(nb, &nr, 1);
            received++;
        } else {
            /* Out of Render memory: the asset stays absent (the mem module
               logged why); counted as a rejection. */
            atomic_fetch_add_explicit(&nb->assets_rejected, 1, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&nb->lock);
    atomic_store_explicit(&nb->head, head, memory_order_release);
    add64(&nb->assets_received, received);
    add64(&nb->assets_released, released);
}

/* Read what a renderer would read, so a dangling snapshot shows up under
 * AddressSanitizer instead of passing silently. */
static float consume_snapshot(const ze_render_state_t *scene)
{
    float acc = scene->alpha + scene->sky.exposure;
    if (scene->has_camera)
        acc += scene->camera.view.m[3][3] + scene->camera.projection.m[2][3];
    for (uint32_t i = 0; i < scene->instance_update_count; i++) {
        const ze_render_instance_t *in = &scene->instance_updates[i];
        acc += in->world.m[3][0] + in->world.m[3][1] + in->world.m[3][2] + (float)in->mesh.bytes[0];
    }
    for (uint32_t i = 0; i < scene->transform_update_count; i++)
        acc += scene->transform_updates[i].world.m[3][0];
    for (uint32_t i = 0; i < scene->instance_remove_count; i++)
        acc += (float)scene->instance_removes[i];
    for (uint32_t i = 0; i < scene->light_count; i++)
        acc += scene->lights[i].intensity + (float)scene->lights[i].type;
    const ze_render_overlay_t *ov = scene->overlay;
    for (uint32_t i = 0; ov && i < ov->instance_count; i++)
        acc += ov->instances[i].rect[2] + (float)ov->instances[i].color;
    if (ov && ov->atlas_pixels) /* its first and last bytes */
        acc += (float)ov->atlas_pixels[0] +
               (float)ov->atlas_pixels[(size_t)ov->atlas_width * ov->atlas_height - 1];
    return acc;
}

/* The overlay: its instance count, and an atlas revision not seen before
 * counted as an upload. */
static void count_overlay(null_backend_t *nb, const ze_render_overlay_t *ov)
{
    atomic_store_explicit(&nb->ui_instances, ov ? ov->instance_count : 0, memory_order_relaxed);
    if (ov && ov->atlas_pixels && ov->atlas_revision + 1 != nb->atlas_revision) {
        nb->atlas_revision = ov->atlas_revision + 1;
        add64(&nb->ui_atlas_uploads, 1);
    }
}

/* Render thread. */
static ze_result null_frame(ze_render_backend_t *b, const ze_render_state_t *scene)
{
    null_backend_t *nb = nb_of(b);
    if (nb->lost)
        return ZE_ERR_IO;
    nb->frame_calls++;
    if (nb->lose_at && nb->frame_calls == nb->lose_at) {
        nb->lost = true;
        ZE_LOG_ERROR(LOG_CH, "device lost (simulated) at frame %llu",
                     (unsigned long long)nb->frame_calls);
        return ZE_ERR_IO;
    }
    drain_pending(nb);
    if (scene->scene_revision != nb->revision) {
        nb->revision = scene->scene_revision;
        add64(&nb->scene_resets, 1); /* resident assets stay: keyed by uuid */
    }
    nb->checksum += consume_snapshot(scene);
    count_overlay(nb, scene->overlay);
    uint32_t live = b->instances.live_count; /* the table, as applied (backend.c) */
    atomic_store_explicit(&nb->last_instances, live, memory_order_relaxed);
    atomic_store_explicit(&nb->last_lights, scene->light_count, memory_order_relaxed);
    atomic_store_explicit(&nb->last_scene_frame, scene->frame, memory_order_relaxed);
    add64(&nb->instances_drawn, live);
    if (nb->frame_delay_us)
        ze_time_sleep_ns((uint64_t)nb->frame_delay_us * 1000u);
    add64(&nb->frames, 1);
    return ZE_OK;
}

static ze_result null_screenshot(ze_render_backend_t *b, const char *png_path)
{
    (void)b;
    ZE_LOG_WARN(LOG_CH, "screenshot %s: the null backend has no images", png_path);
    return ZE_ERR_UNSUPPORTED;
}

/* Any thread. */
static ze_render_stats_t null_stats(const ze_render_backend_t *b)
{
    null_backend_t *nb = (null_backend_t *)cnb_of(b); /* atomics: loads only */
    return (ze_render_stats_t){
        .frames = ld(&nb->frames),
        .instances_drawn = ld(&nb->instances_drawn),
        .last_instances = (uint32_t)atomic_load_explicit(&nb->last_instances, memory_order_relaxed),
        .last_lights = (uint32_t)atomic_load_explicit(&nb->last_lights, memory_order_relaxed),
        .last_scene_frame = ld(&nb->last_scene_frame),
        .assets_received = ld(&nb->assets_received),
        .assets_rejected = ld(&nb->assets_rejected),
        .meshes =
            (uint32_t)atomic_load_explicit(&nb->counts[ZE_ASSET_TYPE_MESH], memory_order_relaxed),
        .materials = (uint32_t)atomic_load_explicit(&nb->counts[ZE_ASSET_TYPE_MATERIAL],
                                                    memory_order_relaxed),
        .textures = (uint32_t)atomic_load_explicit(&nb->counts[ZE_ASSET_TYPE_TEXTURE],
                                                   memory_order_relaxed),
        .envmaps =
            (uint32_t)atomic_load_explicit(&nb->counts[ZE_ASSET_TYPE_ENVMAP], memory_order_relaxed),
        .validation_messages = 0, /* no validation layer behind a null device */
        .scene_resets = ld(&nb->scene_resets),
        .assets_released = ld(&nb->assets_released),
        .vertex_bytes_used = ld(&nb->vertex_bytes),
        .index_bytes_used = ld(&nb->index_bytes),
        .ui_instances = (uint32_t)atomic_load_explicit(&nb->ui_instances, memory_order_relaxed),
        .ui_atlas_uploads = ld(&nb->ui_atlas_uploads),
    };
}

/* Any thread. */
static uint32_t null_resident(const ze_render_backend_t *b, ze_uuid_t uuid)
{
    null_backend_t *nb = (null_backend_t *)cnb_of(b); /* the lock is the only write */
    pthread_mutex_lock(&nb->lock);
    const resident_t *r = ze_hashmap_get(&nb->resident, &uuid);
    uint32_t gen = r ? r->generation : 0;
    pthread_mutex_unlock(&nb->lock);
    return gen;
}

static const char *null_device(const ze_render_backend_t *b)
{
    return cnb_of(b)->headless ? "null (headless)" : "null";
}

const ze__render_backend_vtable_t ze__null_render_backend = {
    .name = "null",
    .create = null_create,
    .destroy = null_destroy,
    .frame = null_frame,
    .asset_ready = null_asset_ready,
    .asset_release = null_asset_release,
    .screenshot = null_screenshot,
    .stats = null_stats,
    .resident = null_resident,
    .device = null_device,
};
