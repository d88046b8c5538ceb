/* The showcase's tour (`showcase --tour`): each runtime piece on its own,
 * printed as it happens: memory owners, the job system, the main-thread
 * scheduler, the latest-state mailbox, the ECS (ecs_demo.c) and the asset
 * runtime (asset_demo.c).
 *
 *   showcase --tour [--memory-profile default|editor|server] [--trace FILE.json]
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <zengine/zengine.h>

#include "showcase.h"

/* ---- job system: a CPU-bound parallel_for ---------------------------- */

typedef struct sum_job_t {
    const uint32_t *values;
    atomic_uint_fast64_t total;
} sum_job_t;

static void sum_range(void *ctx, uint32_t begin, uint32_t end)
{
    ZE_ZONE_BEGIN("sum_range");
    sum_job_t *job = ctx;
    uint64_t s = 0;
    for (uint32_t i = begin; i < end; i++)
        s += job->values[i];
    atomic_fetch_add(&job->total, s);
    ZE_ZONE_END();
}

/* ---- workers -> main: MainThreadScheduler ----------------------------- */

typedef struct loader_t {
    ze_main_scheduler_t *sched;
    uint32_t id;
    uint32_t *completed_on_main; /* only touched on the main thread */
    uint32_t rejected;
} loader_t;

static void on_main_thread(void *ctx)
{
    loader_t *l = ctx;
    (*l->completed_on_main)++;
}

static void loader_job(void *ctx)
{
    loader_t *l = ctx;
    /* A real loader would decode a file here; then hand the result back. */
    /* A full ring is an error the poster handles: here, wait a little (the
     * main thread drains once per frame) and try again. */
    while (ze_main_scheduler_post(l->sched, on_main_thread, l) == ZE_ERR_FULL) {
        l->rejected++;
        ze_time_sleep_ns(20000);
    }
}

/* ---- main -> render: latest-state mailbox ----------------------------- */

typedef struct frame_state_t {
    uint64_t frame;
    uint32_t instance_count;
    float positions[]; /* instance_count * 3 */
} frame_state_t;

typedef struct render_thread_t {
    ze_mailbox_t *mailbox;
    atomic_bool stop;
    uint64_t frames_seen, last_frame;
    uint64_t instances_drawn;
} render_thread_t;

static void *render_main(void *arg)
{
    render_thread_t *rt = arg;
    for (;;) {
        bool stopping = atomic_load(&rt->stop);
        uint64_t seq = 0;
        const frame_state_t *fs = ze_mailbox_take(rt->mailbox, NULL, &seq);
        if (fs && fs->frame != rt->last_frame) {
            ZE_VERIFY(fs->frame > rt->last_frame); /* never goes back */
            rt->last_frame = fs->frame;
            rt->frames_seen++;
            rt->instances_drawn += fs->instance_count;
        }
        if (stopping)
            break;
        ze_time_sleep_ns(200000); /* a "GPU" slower than the simulation */
    }
    return NULL;
}

int showcase_tour(int argc, char **argv)
{
    ze_mem_profile profile = ZE_MEM_PROFILE_DEFAULT;
    const char *trace_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--memory-profile") == 0 && i + 1 < argc) {
            if (ze_mem_profile_parse(argv[++i], &profile) != ZE_OK) {
                fprintf(stderr, "showcase: unknown memory profile '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
            trace_path = argv[++i];
        } else {
            fprintf(stderr, "usage: showcase --tour [--memory-profile default|editor|server] "
                            "[--trace FILE]\n");
            return 2;
        }
    }

    printf("== ZEngine showcase: the tour\n");
    ze_mem_t *mm;
    if (ze_mem_create(&(ze_mem_desc_t){.profile = profile}, &mm) != ZE_OK)
        return 1;
    ze_mem_budget_config_t cfg = ze_mem_profile_config(profile);
    uint64_t budgets = 0;
    for (int o = 0; o < ZE_MEM_OWNER_COUNT; o++)
        budgets += cfg.budget[o];
    printf("memory: profile %s, capacity %llu MiB, owners' budgets %llu MiB (reserved, not "
           "committed)\n",
           ze_mem_profile_name(profile), (unsigned long long)(cfg.capacity >> 20),
           (unsigned long long)(budgets >> 20));
    if (trace_path)
        ze_trace_start(
            &(ze_trace_desc_t){.alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP)});

    ze_job_system_t *js;
    if (ze_job_system_create(&(ze_job_system_desc_t){.mem = mm}, &js) != ZE_OK)
        return 1;
    printf("jobs: %u worker thread(s) on %u CPU(s); the main thread helps while it waits\n",
           ze_job_worker_count(js), ze_cpu_count());

    /* 1. parallel_for over 4 M values living in an ECS-owner arena. */
    ze_arena_t arena;
    if (ze_arena_init(&arena, mm, ZE_MEM_OWNER_GAME, ZE_MIB(32)) != ZE_OK)
        return 1;
    enum { N = 4u << 20 };
    uint32_t *values = ZE_ARENA_NEW_ARRAY(&arena, uint32_t, N);
    uint64_t expect = 0;
    for (uint32_t i = 0; i < N; i++)
        expect += values[i] = i % 1000;
    sum_job_t sum = {.values = values};
    uint64_t t0 = ze_time_now_ns();
    ze_job_parallel_for(js, N, 0, sum_range, &sum);
    uint64_t t1 = ze_time_now_ns();
    printf("parallel_for: summed %u values = %llu (expected %llu) in %.2f ms\n", N,
           (unsigned long long)atomic_load(&sum.total), (unsigned long long)expect,
           (double)(t1 - t0) / 1e6);

    /* 2. 2,000 "loads" on workers each post a completion to the main thread. */
    ze_main_scheduler_t *sched;
    if (ze_main_scheduler_create(&(ze_main_scheduler_desc_t){.mem = mm}, &sched) != ZE_OK)
        return 1;
    enum { LOADS = 2000 };
    loader_t *loaders = ZE_ARENA_NEW_ARRAY(&arena, loader_t, LOADS);
    uint32_t completed = 0, drains = 0;
    ze_wait_group_t wg;
    ze_wait_group_init(&wg);
    for (uint32_t i = 0; i < LOADS; i++) {
        loaders[i] = (loader_t){.sched = sched, .id = i, .completed_on_main = &completed};
        ze_job_submit(js, loader_job, &loaders[i], &wg);
    }
    while (!ze_wait_group_done(&wg) || completed < LOADS) {
        ze_main_scheduler_drain(sched); /* once per "frame" */
        drains++;
    }
    ze_job_wait(js, &wg);
    uint32_t retries = 0;
    for (uint32_t i = 0; i < LOADS; i++)
        retries += loaders[i].rejected;
    ze_main_scheduler_stats_t ss = ze_main_scheduler_stats(sched);
    printf("scheduler: %u completions ran on the main thread over %u drains (%llu posted, %u "
           "retried after a full ring)\n",
           completed, drains, (unsigned long long)ss.posted, retries);

    /* 3. 600 simulated frames published to a render thread through the
     * latest-state mailbox; payload sizes vary frame to frame. */
    ze_mailbox_t *mb;
    if (ze_mailbox_create(&(ze_mailbox_desc_t){.mem = mm, .owner = ZE_MEM_OWNER_RENDER}, &mb) !=
        ZE_OK)
        return 1;
    render_thread_t rt = {.mailbox = mb};
    pthread_t render;
    pthread_create(&render, NULL, render_main, &rt);
    uint64_t published_instances = 0;
    for (uint64_t frame = 1; frame <= 600; frame++) {
        ze_arena_t *slot = ze_mailbox_begin_write(mb);
        uint32_t count = 100 + (uint32_t)(frame * 37 % 900);
        frame_state_t *fs = ze_arena_push(slot, sizeof *fs + sizeof(float) * 3 * count, 16);
        fs->frame = frame;
        fs->instance_count = count;
        for (uint32_t i = 0; i < count * 3; i++)
            fs->positions[i] = (float)(frame + i);
        ze_mailbox_publish(mb, fs, sizeof *fs + sizeof(float) * 3 * count);
        published_instances += count;
        ze_time_sleep_ns(50000);
    }
    atomic_store(&rt.stop, true);
    pthread_join(render, NULL);
    ze_mailbox_stats_t ms = ze_mailbox_stats(mb);
    printf("mailbox: 600 frames (%llu instances) published, render thread saw %llu frames "
           "(%llu instances, last frame %llu), %llu replaced unread; neither side ever waited\n",
           (unsigned long long)published_instances, (unsigned long long)rt.frames_seen,
           (unsigned long long)rt.instances_drawn, (unsigned long long)rt.last_frame,
           (unsigned long long)ms.replaced);

    bool ecs_ok = showcase_ecs(mm, js);
    bool assets_ok = showcase_assets(mm, js);

    ze_job_stats_t jst = ze_job_system_stats(js);
    printf("job stats: %llu submitted, %llu run by workers, %llu by waiting threads, %llu inline\n",
           (unsigned long long)jst.submitted, (unsigned long long)jst.executed_by_workers,
           (unsigned long long)jst.executed_by_waiters, (unsigned long long)jst.executed_inline);

    printf("memory owners (committed now / peak):\n");
    ze_mem_owner_stats_t snap[ZE_MEM_OWNER_COUNT];
    ze_mem_snapshot(mm, snap);
    for (int o = 0; o < ZE_MEM_OWNER_COUNT; o++) {
        if (snap[o].peak)
            printf("  %-10s %8.2f MiB / %8.2f MiB of %6llu MiB\n",
                   ze_mem_owner_name((ze_mem_owner)o), (double)snap[o].current / 1048576.0,
                   (double)snap[o].peak / 1048576.0, (unsigned long long)(snap[o].budget >> 20));
    }

    ze_mailbox_destroy(mb);
    ze_main_scheduler_destroy(sched);
    ze_job_system_destroy(js);
    ze_arena_release(&arena);
    if (trace_path) {
        FILE *f = fopen(trace_path, "w");
        if (f) {
            ze_trace_stop(f);
            fclose(f);
            printf("trace: wrote %s (open it in Perfetto)\n", trace_path);
        }
    }
    ze_mem_destroy(mm);
    bool ok = atomic_load(&sum.total) == expect && completed == LOADS && rt.last_frame == 600 &&
              ecs_ok && assets_ok;
    printf("== showcase tour %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
