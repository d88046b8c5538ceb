/* A first look at the engine's foundation: one memory manager, one job
 * system, and a result handed back to the main thread.
 *
 * Build: part of the tree (`make test` builds and runs it).
 */
#include <stdio.h>

#include <zengine/zengine.h>

typedef struct squares_t {
    float *out;
} squares_t;

/* Runs on pool threads: each call fills one chunk of the array. */
static void fill_squares(void *ctx, uint32_t begin, uint32_t end)
{
    squares_t *s = ctx;
    for (uint32_t i = begin; i < end; i++)
        s->out[i] = (float)i * (float)i;
}

/* Runs on the main thread when it drains the scheduler. */
static void report(void *ctx)
{
    const float *out = ctx;
    printf("on the main thread: out[1000] = %.0f\n", out[1000]);
}

int main(void)
{
    /* 1. The memory manager: every allocation of the engine comes from a
     * named owner with a budget. */
    ze_mem_t *mm;
    if (ze_mem_create(&(ze_mem_desc_t){.profile = ZE_MEM_PROFILE_DEFAULT}, &mm) != ZE_OK)
        return 1;
    ze_arena_t arena;
    if (ze_arena_init(&arena, mm, ZE_MEM_OWNER_GAME, ZE_MIB(4)) != ZE_OK)
        return 1;
    float *out = ZE_ARENA_NEW_ARRAY(&arena, float, 100000);

    /* 2. The job system: hw-1 workers; the calling thread helps. */
    ze_job_system_t *js;
    if (ze_job_system_create(&(ze_job_system_desc_t){.mem = mm}, &js) != ZE_OK)
        return 1;
    squares_t job = {out};
    ze_job_parallel_for(js, 100000, 0, fill_squares, &job);

    /* 3. Hand a result back to the main thread (in the engine, workers do
     * this and the main loop drains once per frame). */
    ze_main_scheduler_t *sched;
    if (ze_main_scheduler_create(&(ze_main_scheduler_desc_t){.mem = mm}, &sched) != ZE_OK)
        return 1;
    ze_main_scheduler_post(sched, report, out);
    ze_main_scheduler_drain(sched);

    ze_mem_owner_stats_t game = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    printf("Game owner: %llu KiB committed of a %llu MiB budget\n",
           (unsigned long long)(game.current >> 10), (unsigned long long)(game.budget >> 20));

    /* The result line (its test asserts it), only when the work was right:
     * read before the arena goes. */
    int status = out[1000] == 1000000.0f && out[99999] == 99999.0f * 99999.0f ? 0 : 1;
    if (status == 0)
        printf("memory_and_jobs: 100000 squares, out[1000] = %.0f read on the main thread\n",
               out[1000]);
    ze_main_scheduler_destroy(sched);
    ze_job_system_destroy(js);
    ze_arena_release(&arena);
    ze_mem_destroy(mm);
    return status;
}
