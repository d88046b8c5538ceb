/* The Worker: systems schedule jobs on the kernel's pool. 1,000 jobs
 * scheduled by a system finish before the next wave (so before the group's
 * barrier) and their spawns apply in schedule order whatever order the pool
 * ran them in; two systems of one wave schedule at once and their jobs'
 * commands apply by system, then schedule order, the same on every run;
 * jobs write values; structural calls are refused while jobs run; and
 * scheduling outside a system's run is an error. Runs under
 * ThreadSanitizer (label concurrency). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "ecs/ecs_internal.h"
#include "ecs_log_capture.h"

typedef struct Spawned {
    uint32_t system, job;
} Spawned;
typedef struct Counter {
    uint32_t v;
} Counter;
typedef struct Other {
    uint32_t v;
} Other;

static ZE_COMPONENT_DECLARE(Spawned);
static ZE_COMPONENT_DECLARE(Counter);
static ZE_COMPONENT_DECLARE(Other);

enum { JOBS = 1000, WORKERS = 3 };

typedef struct fx_t {
    ze_mem_t *mem;
    ze_job_system_t *js;
    ze_kernel_t *k;
    ze_world_t *w;
} fx_t;

static int setup(void **state)
{
    static fx_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &f.mem), ZE_OK);
    /* More workers than cores: jobs really run concurrently and finish out
     * of order. */
    assert_int_equal(
        ze_job_system_create(&(ze_job_system_desc_t){.mem = f.mem, .worker_count = WORKERS}, &f.js),
        ZE_OK);
    f.k = ze_kernel_create(&(ze_kernel_desc_t){.mem = f.mem, .jobs = f.js});
    assert_non_null(f.k);
    ZE_COMPONENT_DEFINE(f.k, Spawned);
    ZE_COMPONENT_DEFINE(f.k, Counter);
    ZE_COMPONENT_DEFINE(f.k, Other);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.capacity = 1 << 16});
    assert_non_null(f.w);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_job_system_destroy(f->js);
    ze_mem_destroy(f->mem);
    ze_log_reset();
    return 0;
}

/* What the jobs of one scheduling system share. */
typedef struct batch_t {
    uint32_t system; /* tag in Spawned */
    uint32_t jobs;
    atomic_uint done;
    atomic_uint running, overlapped; /* jobs seen running at once */
    atomic_uint not_refused;         /* direct structural calls that went through */
    atomic_uint checksum;
    struct job_arg_t *args;
    ze_entity_t target; /* a Counter the jobs bump (values, not structure) */
    uint32_t frames;
} batch_t;

typedef struct job_arg_t {
    batch_t *batch;
    uint32_t index;
} job_arg_t;

static void job_body(ze_world_t *w, ze_commands_t *cmds, void *user)
{
    job_arg_t *a = user;
    batch_t *b = a->batch;
    if (atomic_fetch_add(&b->running, 1) > 0)
        atomic_fetch_add(&b->overlapped, 1);
    /* Uneven work: later jobs often finish first. */
    uint32_t spin = a->index;
    for (uint32_t i = 0; i < ((JOBS - a->index) % 97) * 200; i++)
        spin = spin * 1664525u + 1013904223u;
    atomic_fetch_add(&b->checksum, spin); /* keeps the work */
    ze_entity_t e = ze_cmd_spawn(cmds, NULL, NULL);
    ze_cmd_set_t(cmds, e, Spawned, {b->system, a->index});
    /* Structure directly: refused while jobs run (counted: no cmocka
     * assert off the test's thread). */
    if (!ze_entity_is_null(ze_entity_create(w)))
        atomic_fetch_add(&b->not_refused, 1);
    atomic_fetch_sub(&b->running, 1);
    atomic_fetch_add(&b->done, 1);
}

static void schedule_all(ze_world_t *w, const ze_tick_t *t)
{
    batch_t *b = t->user;
    b->frames++;
    for (uint32_t i = 0; i < b->jobs; i++) {
        b->args[i] = (job_arg_t){b, i};
        assert_int_equal(ze_system_schedule(w, t, job_body, &b->args[i]), ZE_OK);
    }
    /* The system itself: structural calls refused from its first job on;
     * its own commands are fine (they apply before its jobs'). */
    if (!ze_entity_is_null(ze_entity_create(w)))
        atomic_fetch_add(&b->not_refused, 1);
    if (t->cmds) {
        ze_entity_t e = ze_cmd_spawn(t->cmds, NULL, NULL);
        ze_cmd_set_t(t->cmds, e, Spawned, {b->system, UINT32_MAX});
    }
}

typedef struct check_t {
    batch_t *batch;
    uint32_t done_seen;
    uint32_t spawned_seen; /* entities with Spawned when it ran */
} check_t;

static void check_done(ze_world_t *w, const ze_tick_t *t)
{
    check_t *c = t->user;
    c->done_seen = atomic_load(&c->batch->done);
    ze_query_t q = t->query;
    c->spawned_seen = ze_query_count(w, q);
}

/* The entities with Spawned in slot order (creation order: nothing was
 * destroyed): their (system, job) pairs into out. */
static uint32_t spawned_in_order(ze_world_t *w, Spawned *out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ze_world_capacity(w); i++) {
        ze_entity_t e = ze_entity_from_index(w, i);
        if (ze_entity_is_null(e))
            continue;
        const Spawned *s = ze_get(w, e, Spawned);
        if (s && n < max)
            out[n++] = *s;
        if (n == ze_world_entity_count(w))
            break;
    }
    return n;
}

static void test_thousand_jobs_before_the_barrier(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    static job_arg_t args[JOBS];
    batch_t b = {.system = 7, .jobs = JOBS, .args = args};
    check_t c = {.batch = &b};
    ze_system_t s = ze_system_add(w, &(ze_system_desc_t){.name = "scheduler",
                                                         .group = ZE_GROUP_FIXED_SIMULATION,
                                                         .fn = schedule_all,
                                                         .user = &b,
                                                         .writes = ZE_MASK(Counter),
                                                         .uses_commands = true});
    /* Later in the same group: it reads Counter, so it comes after. */
    ze_system_t later = ze_system_add(w, &(ze_system_desc_t){.name = "checker",
                                                             .group = ZE_GROUP_FIXED_SIMULATION,
                                                             .fn = check_done,
                                                             .user = &c,
                                                             .reads = ZE_MASK(Counter),
                                                             .query = {.with = ZE_MASK(Spawned)}});
    assert_int_equal(ze_system_order(w, s, later), ZE_OK);
    assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    assert_int_equal(b.frames, 1);
    /* Every job finished before the next wave; the spawns wait for the
     * barrier. */
    assert_int_equal(c.done_seen, JOBS);
    assert_int_equal(c.spawned_seen, 0);
    assert_int_equal(atomic_load(&b.not_refused), 0);
    /* After the barrier: the system's own spawn, then the jobs' in
     * schedule order, whatever order they ran in. */
    static Spawned got[JOBS + 8];
    assert_int_equal(spawned_in_order(w, got, JOBS + 8), JOBS + 1);
    assert_int_equal(got[0].job, UINT32_MAX);
    for (uint32_t i = 0; i < JOBS; i++) {
        assert_int_equal(got[i + 1].system, 7);
        assert_int_equal(got[i + 1].job, i);
    }
    print_message("jobs seen overlapping: %u of %u\n", atomic_load(&b.overlapped), JOBS);
}

/* Two schedulers in one wave; the world hash of a few frames. */
static uint64_t run_two_schedulers(fx_t *f, uint32_t frames)
{
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1 << 16});
    static job_arg_t args[2][JOBS / 2];
    batch_t b[2] = {{.system = 0, .jobs = JOBS / 2, .args = args[0]},
                    {.system = 1, .jobs = JOBS / 2, .args = args[1]}};
    ze_system_add(w, &(ze_system_desc_t){.name = "first",
                                         .fn = schedule_all,
                                         .user = &b[0],
                                         .writes = ZE_MASK(Counter),
                                         .uses_commands = true});
    ze_system_add(w, &(ze_system_desc_t){.name = "second",
                                         .fn = schedule_all,
                                         .user = &b[1],
                                         .writes = ZE_MASK(Other),
                                         .uses_commands = true});
    for (uint32_t i = 0; i < frames; i++)
        assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    /* Frame by frame: first's commands (its own, then its jobs'), then
     * second's. */
    static Spawned got[4 * (JOBS + 2)];
    uint32_t n = spawned_in_order(w, got, 4 * (JOBS + 2));
    assert_int_equal(n, frames * (JOBS + 2));
    for (uint32_t fr = 0; fr < frames; fr++) {
        const Spawned *g = got + fr * (JOBS + 2);
        for (uint32_t s = 0; s < 2; s++) {
            const Spawned *h = g + s * (JOBS / 2 + 1);
            assert_int_equal(h[0].system, s);
            assert_int_equal(h[0].job, UINT32_MAX);
            for (uint32_t i = 0; i < JOBS / 2; i++) {
                assert_int_equal(h[1 + i].system, s);
                assert_int_equal(h[1 + i].job, i);
            }
        }
    }
    assert_int_equal(atomic_load(&b[0].not_refused) + atomic_load(&b[1].not_refused), 0);
    uint64_t hash = ze_world_hash(w);
    ze_world_destroy(w);
    return hash;
}

static void test_parallel_schedulers_are_deterministic(void **state)
{
    fx_t *f = *state;
    ze_world_destroy(f->w); /* the kernel frame runs every world: only ours */
    f->w = NULL;
    uint64_t a = run_two_schedulers(f, 3), b = run_two_schedulers(f, 3);
    assert_true(a == b);
    f->w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1 << 16});
}

/* Jobs write values their system may write. */
static void bump_job(ze_world_t *w, ze_commands_t *cmds, void *user)
{
    (void)cmds;
    ze_entity_t *e = user;
    ze_get_mut(w, *e, Counter)->v += 1;
}

typedef struct bump_t {
    ze_entity_t targets[64];
} bump_t;

static void schedule_bumps(ze_world_t *w, const ze_tick_t *t)
{
    bump_t *b = t->user;
    for (uint32_t i = 0; i < 64; i++)
        ze_system_schedule(w, t, bump_job, &b->targets[i]);
}

static void test_jobs_write_values(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    bump_t b;
    for (uint32_t i = 0; i < 64; i++) {
        b.targets[i] = ze_entity_create(w);
        ze_set(w, b.targets[i], Counter, {i});
    }
    ze_system_add(
        w, &(ze_system_desc_t){
               .name = "bumps", .fn = schedule_bumps, .user = &b, .writes = ZE_MASK(Counter)});
    uint32_t v = ze_world_version(w);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(ze_get(w, b.targets[i], Counter)->v, i + 10);
    assert_int_equal(ze_changed_count(w, ZE_ID(Counter), v), 64); /* seen by tracking */
    /* Outside a system's run: refused, by name. */
    static log_capture_t cap;
    log_capture_begin(&cap);
    ze_tick_t fake = {.name = "impostor"};
    assert_int_equal(ze_system_schedule(w, &fake, bump_job, &b.targets[0]), ZE_ERR_STATE);
    assert_true(log_captured(&cap, "impostor", "outside", NULL));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_thousand_jobs_before_the_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parallel_schedulers_are_deterministic, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_jobs_write_values, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
