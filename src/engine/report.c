/* What a run did: frame-time samples, the report, the --stats JSON.
 *
 * Frame times are the main loop's work per iteration, from its start to the
 * end of step 11, without the frame-rate cap's sleep. The last
 * ZE__FRAME_SAMPLES iterations are kept (a ring allocated once, so sampling
 * never allocates): avg_frame_ms and p99_frame_ms are over those.
 * allocations_per_frame is the memory manager's heap-allocation counter
 * (less the Vulkan owner's: the driver's, vulkan_allocations_per_frame)
 * over the second half of the kept iterations (steady state: imports and
 * first loads happen early), divided by their number. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

void ze__report_sample(ze_engine_t *e, double work_ms)
{
    if (!e->samples) {
        e->samples = ZE_NEW_ARRAY(e->alloc, ze__frame_sample_t, ZE__FRAME_SAMPLES);
        if (!e->samples)
            return;
    }
    ze__frame_sample_t *s = &e->samples[e->sample_count % ZE__FRAME_SAMPLES];
    s->work_ms = (float)work_ms;
    uint64_t driver = ze_mem_owner_stats(e->mem, ZE_MEM_OWNER_VULKAN).allocations;
    s->allocs = ze_mem_allocation_count(e->mem) - driver;
    s->driver_allocs = driver;
    e->sample_count++;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The i-th kept sample, oldest first. */
static const ze__frame_sample_t *sample_at(const ze_engine_t *e, uint64_t n, uint64_t i)
{
    uint64_t first = e->sample_count - n;
    return &e->samples[(first + i) % ZE__FRAME_SAMPLES];
}

static void frame_figures(ze_engine_t *e, ze_run_report_t *rep)
{
    uint64_t n = e->sample_count < ZE__FRAME_SAMPLES ? e->sample_count : ZE__FRAME_SAMPLES;
    if (!e->samples || n == 0)
        return;
    float *sorted = ZE_NEW_ARRAY(e->alloc, float, n);
    double sum = 0.0;
    for (uint64_t i = 0; i < n; i++) {
        float ms = sample_at(e, n, i)->work_ms;
        sum += ms;
        if (sorted)
            sorted[i] = ms;
    }
    rep->avg_frame_ms = sum / (double)n;
    if (sorted) {
        qsort(sorted, n, sizeof *sorted, cmp_float);
        uint64_t k = (uint64_t)((double)n * 0.99);
        rep->p99_frame_ms = sorted[k < n ? k : n - 1];
        ze_free(e->alloc, sorted, sizeof *sorted * n);
    }
    if (n >= 2) {
        uint64_t mid = n / 2;
        const ze__frame_sample_t *sa = sample_at(e, n, mid - 1), *sb = sample_at(e, n, n - 1);
        rep->allocations_per_frame = (double)(sb->allocs - sa->allocs) / (double)(n - mid);
        rep->vulkan_allocations_per_frame =
            (double)(sb->driver_allocs - sa->driver_allocs) / (double)(n - mid);
    }
}

void ze__report_fill(ze_engine_t *e)
{
    ze_run_report_t *rep = e->report;
    rep->frames = e->frame;
    rep->sim_steps = e->sim_steps;
    rep->instances = e->last_instances;
    rep->lights = e->last_lights;
    rep->instance_records = e->records_sent;
    rep->instance_records_last = e->last_records;
    rep->frames_rendered = atomic_load(&e->frames_rendered);
    rep->frames_drawn = atomic_load(&e->frames_drawn);
    rep->unrouted_heap_bytes = ze_mem_unrouted_heap_bytes(); /* window and device still up */
    frame_figures(e, rep);
    if (e->backend) {
        ze_render_stats_t rs = ze_render_backend_stats(e->backend);
        rep->validation_messages = rs.validation_messages;
        rep->meshes_resident = rs.meshes;
        rep->materials_resident = rs.materials;
        rep->textures_resident = rs.textures;
        rep->render_cpu_ms = rs.cpu_frame_ms;
        rep->render_thread_cpu_ms = rs.thread_cpu_ms;
        rep->render_thread_cpu_steady_ms = rs.thread_cpu_steady_ms;
        rep->gpu_pass_count = rs.gpu_pass_count;
        memcpy(rep->gpu_passes, rs.gpu_passes, sizeof rep->gpu_passes);
        rep->gpu_memory_bytes = rs.gpu_memory_bytes;
        rep->assets_released = rs.assets_released;
        rep->bindless_slots_used = rs.bindless_slots_used;
        rep->vertex_bytes_used = rs.vertex_bytes_used;
        rep->index_bytes_used = rs.index_bytes_used;
        rep->budget_rejections = rs.budget_rejections;
        rep->draws = rs.last_draws;
        rep->draws_visible = rs.last_draws_visible;
        rep->draws_frustum_culled = rs.last_draws_frustum_culled;
        rep->draws_occlusion_culled = rs.last_draws_occlusion_culled;
        rep->draw_commands = rs.last_draw_commands;
        rep->triangles = rs.last_triangles;
        rep->vulkan_host_bytes = rs.host_bytes;
        rep->vulkan_host_bytes_peak = rs.host_bytes_peak;
        rep->vulkan_host_allocations = rs.host_allocations;
        rep->vulkan_internal_bytes = rs.host_internal_bytes;
        rep->validation_enabled = rs.validation_enabled;
        snprintf(rep->backend, sizeof rep->backend, "%s", ze_render_backend_name(e->backend));
        snprintf(rep->device, sizeof rep->device, "%s", ze_render_backend_device(e->backend));
    }
    if (e->mailbox) {
        ze_mailbox_stats_t ms = ze_mailbox_stats(e->mailbox);
        rep->snapshots_published = ms.published;
        rep->snapshots_replaced = ms.replaced;
    }
    if (e->world)
        rep->world_hash = ze_world_hash(e->world);
}

/* ---------------------------------------------------------------- JSON */

static int put(json_t *o, const char *key, json_t *v)
{
    return v ? json_object_set_new(o, key, v) : -1;
}

ze_result ze_run_report_write_json(const ze_run_report_t *r, const char *path)
{
    ZE_CHECK(r && path, ZE_ERR_INVALID_ARG);
    json_t *o = json_object();
    if (!o)
        return ZE_ERR_OUT_OF_MEMORY;
    int bad = 0;
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->world_hash);
    json_t *stages = json_array();
    for (uint32_t i = 0; stages && i < r->stages_completed && i < ZE_ENGINE_MAX_STAGES; i++)
        bad |= json_array_append_new(stages, json_string(r->stages[i]));
    bad |= put(o, "result", json_string(ze_result_str(r->result)));
    bad |= put(o, "ok", json_boolean(r->result == ZE_OK));
    bad |= put(o, "warnings", json_integer(r->warnings));
    bad |= put(o, "errors", json_integer(r->errors));
    bad |= put(o, "unresolved_assets", json_integer(r->unresolved_assets));
    bad |= put(o, "failed_assets", json_integer(r->failed_assets));
    bad |= put(o, "error", json_string(r->error));
    bad |= put(o, "failed_stage", json_string(r->failed_stage));
    bad |= put(o, "stages_completed", json_integer(r->stages_completed));
    bad |= put(o, "stages", stages);
    bad |= put(o, "stages_unwound", json_integer(r->stages_unwound));
    bad |= put(o, "frames", json_integer((json_int_t)r->frames));
    bad |= put(o, "sim_steps", json_integer((json_int_t)r->sim_steps));
    bad |= put(o, "avg_frame_ms", json_real(r->avg_frame_ms));
    bad |= put(o, "p99_frame_ms", json_real(r->p99_frame_ms));
    bad |= put(o, "instances", json_integer(r->instances));
    bad |= put(o, "lights", json_integer(r->lights));
    bad |= put(o, "instance_records", json_integer((json_int_t)r->instance_records));
    bad |= put(o, "instance_records_last", json_integer(r->instance_records_last));
    bad |= put(o, "allocations_per_frame", json_real(r->allocations_per_frame));
    bad |= put(o, "vulkan_allocations_per_frame", json_real(r->vulkan_allocations_per_frame));
    bad |= put(o, "third_party_bytes_peak", json_integer((json_int_t)r->third_party_bytes_peak));
    bad |= put(o, "unrouted_heap_bytes", json_integer((json_int_t)r->unrouted_heap_bytes));
    bad |= put(o, "vulkan_host_bytes", json_integer((json_int_t)r->vulkan_host_bytes));
    bad |= put(o, "vulkan_host_bytes_peak", json_integer((json_int_t)r->vulkan_host_bytes_peak));
    bad |= put(o, "vulkan_host_allocations", json_integer((json_int_t)r->vulkan_host_allocations));
    bad |= put(o, "vulkan_internal_bytes", json_integer((json_int_t)r->vulkan_internal_bytes));
    bad |= put(o, "validation_messages", json_integer((json_int_t)r->validation_messages));
    bad |= put(o, "frames_rendered", json_integer((json_int_t)r->frames_rendered));
    bad |= put(o, "frames_drawn", json_integer((json_int_t)r->frames_drawn));
    bad |= put(o, "meshes_resident", json_integer((json_int_t)r->meshes_resident));
    bad |= put(o, "materials_resident", json_integer((json_int_t)r->materials_resident));
    bad |= put(o, "textures_resident", json_integer((json_int_t)r->textures_resident));
    bad |= put(o, "render_cpu_ms", json_real(r->render_cpu_ms));
    bad |= put(o, "render_thread_cpu_ms", json_real(r->render_thread_cpu_ms));
    bad |= put(o, "render_thread_cpu_steady_ms", json_real(r->render_thread_cpu_steady_ms));
    /* [{"name": pass, "gpu_ms": time}] in the order the passes ran */
    json_t *passes = json_array();
    for (uint32_t i = 0; passes && i < r->gpu_pass_count && i < ZE_RENDER_MAX_PASS_TIMES; i++) {
        json_t *p = json_object();
        bad |= !p || put(p, "name", json_string(r->gpu_passes[i].name)) ||
               put(p, "gpu_ms", json_real(r->gpu_passes[i].gpu_ms));
        bad |= json_array_append_new(passes, p);
    }
    bad |= put(o, "gpu_passes", passes);
    bad |= put(o, "gpu_memory_bytes", json_integer((json_int_t)r->gpu_memory_bytes));
    bad |= put(o, "assets_released", json_integer((json_int_t)r->assets_released));
    bad |= put(o, "bindless_slots_used", json_integer((json_int_t)r->bindless_slots_used));
    bad |= put(o, "vertex_bytes_used", json_integer((json_int_t)r->vertex_bytes_used));
    bad |= put(o, "index_bytes_used", json_integer((json_int_t)r->index_bytes_used));
    bad |= put(o, "budget_rejections", json_integer((json_int_t)r->budget_rejections));
    bad |= put(o, "draws", json_integer((json_int_t)r->draws));
    bad |= put(o, "draws_visible", json_integer((json_int_t)r->draws_visible));
    bad |= put(o, "draws_frustum_culled", json_integer((json_int_t)r->draws_frustum_culled));
    bad |= put(o, "draws_occlusion_culled", json_integer((json_int_t)r->draws_occlusion_culled));
    bad |= put(o, "draw_commands", json_integer((json_int_t)r->draw_commands));
    bad |= put(o, "triangles", json_integer((json_int_t)r->triangles));
    bad |= put(o, "validation_enabled", json_boolean(r->validation_enabled));
    bad |= put(o, "snapshots_published", json_integer((json_int_t)r->snapshots_published));
    bad |= put(o, "snapshots_replaced", json_integer((json_int_t)r->snapshots_replaced));
    /* 64-bit hashes do not survive JSON's doubles: a hex string. */
    bad |= put(o, "world_hash", json_string(hash));
    bad |= put(o, "backend", json_string(r->backend));
    bad |= put(o, "device", json_string(r->device));
    bad |= put(o, "shutdown_complete", json_boolean(r->shutdown_complete));
    ze_result res = ZE_OK;
    if (bad)
        res = ZE_ERR_OUT_OF_MEMORY;
    else if (json_dump_file(o, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        res = ZE_ERR_IO;
    json_decref(o);
    return res;
}
