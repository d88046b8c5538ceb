/* WorldTick: systems with read/write masks run in dependency waves.
 *
 * Conflicts. Two systems conflict when one writes a component the other
 * reads or writes. The masks compared are the declared ones widened by the
 * system's query (its with/optional sets are read, its write set written),
 * so a custom query cannot race unnoticed. Every conflicting pair must be
 * ordered, directly or through other systems (ze_worldtick_order); commit
 * reports the first unordered pair in registration order, or a cycle.
 *
 * Plan. Kahn's algorithm by layers: wave k holds the systems whose
 * predecessors all lie in waves < k, in registration order. Systems of one
 * wave are pairwise unordered and therefore never conflict.
 *
 * Run. A wave of one system runs inline with the tick's main command
 * buffer. A larger wave runs on the kernel's job system (all but the first
 * submitted, the first run by the calling thread, then a wait), bracketed by
 * ze__world_parallel_begin/end so structural world calls are refused; each of
 * its systems records into its own staging buffer, merged into the main
 * buffer after the wave in registration order. The main buffer is flushed
 * once, after the last wave. So commands apply in wave order, then
 * registration order, whatever the thread timing: ticks are deterministic.
 * A system that does not declare uses_commands gets t->cmds = NULL, in
 * serial and parallel waves alike, so a missing flag shows at once.
 *
 * Limits: none on the number of systems or edges (growable arrays); commit
 * costs O(n^2) mask tests plus one bounded graph walk per system that has a
 * conflicting partner in a later wave. The error message is truncated at
 * ZE__WT_ERROR_MAX bytes.
 *
 * Threads: the world's thread. Memory: the world's allocator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ecs/ecs_internal.h"

enum { ZE__WT_ERROR_MAX = 1024 };

typedef struct wt_system_t {
    char *name;
    size_t name_size;
    ze_system_fn fn;
    void *user;
    ze_mask_t reads, writes; /* widened by the query (see above) */
    bool uses_commands;
    bool disabled; /* kept in the plan (ordering), skipped when running */
    ze_query_t query;
    ze_commands_t *staging; /* uses_commands and in a wave of several */
    uint32_t wave;
    uint32_t last_version; /* the world version it last ran at (ze_tick_t.since) */
} wt_system_t;

typedef struct wt_edge_t {
    uint32_t before, after; /* system indices */
} wt_edge_t;

typedef struct wt_job_t {
    ze_world_t *world;
    ze_system_fn fn;
    ze_tick_t tick;
} wt_job_t;

struct ze_worldtick_t {
    ze_world_t *world;
    ze_allocator_t alloc;
    ze_array_t systems; /* wt_system_t */
    ze_array_t edges;   /* wt_edge_t */
    ze_hashmap_t names; /* xxHash of the name -> first system index with it */
    bool dirty;
    ze_result status; /* of the last commit */
    /* The plan. */
    ze_array_t order;    /* uint32_t system indices, wave by wave */
    ze_array_t wave_end; /* uint32_t: end of each wave in `order` */
    ze_array_t jobs;     /* wt_job_t, one per system */
    ze_commands_t *main;
    float alpha; /* context copied into every ze_tick_t (framework) */
    uint32_t group;
    uint64_t frame;
    char error[ZE__WT_ERROR_MAX];
    size_t error_len;
};

static inline wt_system_t *sys_at(const ze_worldtick_t *t, uint32_t i)
{
    return &ZE_ARRAY_AT(&t->systems, wt_system_t, i);
}

/* ------------------------------------------------------------ lifecycle */

ze_worldtick_t *ze_worldtick_create(ze_world_t *w)
{
    ZE_CHECK(w, NULL);
    ze_worldtick_t *t = ZE_NEW(w->alloc, ze_worldtick_t);
    if (!t) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "worldtick: out of memory");
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->world = w;
    t->alloc = w->alloc;
    ZE_ARRAY_INIT(&t->systems, t->alloc, wt_system_t);
    ZE_ARRAY_INIT(&t->edges, t->alloc, wt_edge_t);
    ZE_ARRAY_INIT(&t->order, t->alloc, uint32_t);
    ZE_ARRAY_INIT(&t->wave_end, t->alloc, uint32_t);
    ZE_ARRAY_INIT(&t->jobs, t->alloc, wt_job_t);
    ze_hashmap_init(&t->names, t->alloc, sizeof(uint64_t), sizeof(uint32_t));
    t->main = ze_commands_create(w);
    if (!t->main) {
        ze_worldtick_destroy(t);
        return NULL;
    }
    t->dirty = true;
    return t;
}

void ze_worldtick_destroy(ze_worldtick_t *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->systems.count; i++) {
        wt_system_t *s = sys_at(t, i);
        ze_free(t->alloc, s->name, s->name_size);
        ze_commands_destroy(s->staging);
    }
    ze_commands_destroy(t->main);
    ze_array_free(&t->systems);
    ze_array_free(&t->edges);
    ze_array_free(&t->order);
    ze_array_free(&t->wave_end);
    ze_array_free(&t->jobs);
    ze_hashmap_free(&t->names);
    ze_free(t->alloc, t, sizeof *t);
}

/* -------------------------------------------------------------- systems */

static uint64_t name_hash(const char *name, size_t len)
{
    uint64_t h = ze_hash64(name, len, 0x5157u);
    return h ? h : 1;
}

static bool name_taken(const ze_worldtick_t *t, const char *name, uint64_t h)
{
    const uint32_t *first = ze_hashmap_get(&t->names, &h);
    if (!first)
        return false;
    if (strcmp(sys_at(t, *first)->name, name) == 0)
        return true;
    /* Two names with one hash: rare enough for a linear scan. */
    for (uint32_t i = 0; i < t->systems.count; i++)
        if (strcmp(sys_at(t, i)->name, name) == 0)
            return true;
    return false;
}

ze_system_t ze_worldtick_add(ze_worldtick_t *t, const ze_system_desc_t *desc)
{
    ZE_CHECK(t && desc, (ze_system_t){0});
    if (!desc->name || !desc->name[0] || !desc->fn) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "worldtick: a system needs a name and a function (%s)",
                        desc->name ? desc->name : "unnamed");
        return (ze_system_t){0};
    }
    if (t->systems.count >= UINT32_MAX - 1) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_LIMIT, "worldtick: too many systems");
        return (ze_system_t){0};
    }
    size_t len = strlen(desc->name);
    uint64_t h = name_hash(desc->name, len);
    if (name_taken(t, desc->name, h)) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "worldtick: a system named \"%s\" already exists", desc->name);
        return (ze_system_t){0};
    }

    ze_query_desc_t q = desc->query;
    if (ze_mask_empty(q.with))
        q = (ze_query_desc_t){.with = ze_mask_or(desc->reads, desc->writes), .write = desc->writes};
    wt_system_t s = {
        .name_size = len + 1,
        .fn = desc->fn,
        .user = desc->user,
        .reads = ze_mask_or(ze_mask_or(desc->reads, q.with), q.optional),
        .writes = ze_mask_or(desc->writes, q.write),
        .uses_commands = desc->uses_commands,
    };
    if (ze__mask_check(t->world, s.reads, desc->name) != ZE_OK ||
        ze__mask_check(t->world, s.writes, desc->name) != ZE_OK) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                        "worldtick: system \"%s\": its reads or writes (with its query's) "
                        "do not fit one ze_mask_t (%d types)",
                        desc->name, ZE_MASK_MAX);
        return (ze_system_t){0};
    }
    if (!ze_mask_empty(q.with)) {
        s.query = ze_query_create(t->world, &q);
        if (s.query.id == 0) {
            ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                            "worldtick: system \"%s\": its query was refused", desc->name);
            return (ze_system_t){0};
        }
    }
    s.name = ze_alloc(t->alloc, s.name_size, 1);
    if (!s.name)
        goto oom;
    memcpy(s.name, desc->name, s.name_size);
    uint32_t index = t->systems.count;
    if (ze_array_push(&t->systems, &s) != ZE_OK) {
        ze_free(t->alloc, s.name, s.name_size);
        goto oom;
    }
    if (!ze_hashmap_get(&t->names, &h) && ze_hashmap_put(&t->names, &h, &index) != ZE_OK) {
        t->systems.count--;
        ze_free(t->alloc, s.name, s.name_size);
        goto oom;
    }
    t->dirty = true;
    return (ze_system_t){index + 1};
oom:
    ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                    "worldtick: out of memory adding system \"%s\"", desc->name);
    return (ze_system_t){0};
}

ze_result ze_worldtick_order(ze_worldtick_t *t, ze_system_t before, ze_system_t after)
{
    ZE_CHECK(t, ZE_ERR_INVALID_ARG);
    uint32_t n = t->systems.count;
    if (before.id == 0 || before.id > n || after.id == 0 || after.id > n) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "worldtick: order(%u, %u): no such system", before.id, after.id);
        return ZE_ERR_INVALID_ARG;
    }
    if (before.id == after.id) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "worldtick: system \"%s\" cannot be ordered before itself",
                        sys_at(t, before.id - 1)->name);
        return ZE_ERR_INVALID_ARG;
    }
    wt_edge_t e = {before.id - 1, after.id - 1};
    if (ze_array_push(&t->edges, &e) != ZE_OK)
        return ZE_ERR_OUT_OF_MEMORY;
    t->dirty = true;
    return ZE_OK;
}

/* --------------------------------------------------------------- commit */

static void err_reset(ze_worldtick_t *t)
{
    t->error[0] = '\0';
    t->error_len = 0;
}

static void err_append(ze_worldtick_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void err_append(ze_worldtick_t *t, const char *fmt, ...)
{
    size_t room = sizeof t->error - t->error_len;
    if (room <= 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->error + t->error_len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        t->error_len = sizeof t->error - 1;
        memcpy(t->error + sizeof t->error - 4, "...", 4);
    } else {
        t->error_len += (size_t)n;
    }
}

static const char *component_name(const ze_worldtick_t *t, uint32_t id)
{
    const ze_component_info_t *info =
        ze_component_info(ze_world_kernel(t->world), (ze_component_t){id});
    return info ? info->name : "?";
}

/* The types over which a and b conflict. */
static inline ze_mask_t conflict_mask(const wt_system_t *a, const wt_system_t *b)
{
    return ze_mask_or(ze_mask_and(a->writes, ze_mask_or(b->reads, b->writes)),
                      ze_mask_and(a->reads, b->writes));
}

static inline bool conflict(const wt_system_t *a, const wt_system_t *b)
{
    return ze__mask_meets(a->writes, b->reads, NULL) ||
           ze__mask_meets(a->writes, b->writes, NULL) || ze__mask_meets(a->reads, b->writes, NULL);
}

/* Scratch of one commit, freed at its end. */
typedef struct wt_graph_t {
    uint32_t *succ_off, *succ; /* CSR successors: [n + 1], [edges] */
    uint32_t *pred_off, *pred; /* CSR predecessors */
    uint32_t *indeg;           /* [n] predecessors not yet placed */
    uint32_t *queue;           /* [n] Kahn's queue; later walk queue, cycle path */
    uint32_t *stamp;           /* [n] walk marks; path positions in the cycle walk */
    size_t bytes;
    void *block;
} wt_graph_t;

static bool graph_build(ze_worldtick_t *t, wt_graph_t *g)
{
    size_t n = t->systems.count, m = t->edges.count;
    size_t words = 2 * (n + 1) + 2 * m + 3 * n;
    memset(g, 0, sizeof *g);
    g->bytes = words * sizeof(uint32_t);
    if (g->bytes == 0)
        return true;
    g->block = ze_alloc(t->alloc, g->bytes, _Alignof(uint32_t));
    if (!g->block)
        return false;
    memset(g->block, 0, g->bytes);
    uint32_t *p = g->block;
    g->succ_off = p, p += n + 1;
    g->pred_off = p, p += n + 1;
    g->succ = p, p += m;
    g->pred = p, p += m;
    g->indeg = p, p += n;
    g->queue = p, p += n;
    g->stamp = p;

    const wt_edge_t *edges = t->edges.data;
    for (size_t i = 0; i < m; i++) {
        g->succ_off[edges[i].before + 1]++;
        g->pred_off[edges[i].after + 1]++;
    }
    for (size_t v = 0; v < n; v++) {
        g->succ_off[v + 1] += g->succ_off[v];
        g->pred_off[v + 1] += g->pred_off[v];
    }
    /* Fill with indeg/queue as temporary cursors (both zero, reset after). */
    for (size_t i = 0; i < m; i++) {
        uint32_t a = edges[i].before, b = edges[i].after;
        g->succ[g->succ_off[a] + g->indeg[a]++] = b;
        g->pred[g->pred_off[b] + g->queue[b]++] = a;
    }
    for (size_t v = 0; v < n; v++) {
        g->indeg[v] = g->pred_off[v + 1] - g->pred_off[v];
        g->queue[v] = 0;
    }
    return true;
}

static void graph_free(ze_worldtick_t *t, wt_graph_t *g)
{
    ze_free(t->alloc, g->block, g->bytes);
}

/* Kahn by layers: sets each system's wave; returns how many were placed
 * (fewer than n when a cycle remains). */
static uint32_t plan_waves(ze_worldtick_t *t, wt_graph_t *g, uint32_t *wave_count)
{
    uint32_t n = t->systems.count, head = 0, tail = 0, waves = 0;
    for (uint32_t v = 0; v < n; v++) {
        sys_at(t, v)->wave = 0;
        if (g->indeg[v] == 0)
            g->queue[tail++] = v;
    }
    /* A system is queued once all its predecessors are placed, so its wave
     * (one past the latest predecessor's: the longest path to it) is final. */
    while (head < tail) {
        uint32_t v = g->queue[head++];
        uint32_t wv = sys_at(t, v)->wave;
        if (wv + 1 > waves)
            waves = wv + 1;
        for (uint32_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
            uint32_t s = g->succ[i];
            wt_system_t *ss = sys_at(t, s);
            if (ss->wave < wv + 1)
                ss->wave = wv + 1;
            if (--g->indeg[s] == 0)
                g->queue[tail++] = s;
        }
    }
    *wave_count = waves;
    return tail;
}

/* A cycle among the systems Kahn could not place: each of them still has an
 * unplaced predecessor, so walking predecessors must come back to a system
 * already on the path. Writes "a -> b -> ... -> a" into the error. */
static void report_cycle(ze_worldtick_t *t, wt_graph_t *g)
{
    uint32_t n = t->systems.count;
    uint32_t *path_pos = g->stamp; /* 0 = not on the path, else position + 1 */
    uint32_t *path = g->queue;
    memset(path_pos, 0, (size_t)n * sizeof *path_pos);
    uint32_t v = 0;
    while (v < n && g->indeg[v] == 0)
        v++;
    ZE_VERIFY(v < n);
    uint32_t len = 0;
    while (path_pos[v] == 0) {
        path_pos[v] = ++len;
        path[len - 1] = v;
        uint32_t next = UINT32_MAX;
        for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
            if (g->indeg[g->pred[i]] != 0) {
                next = g->pred[i];
                break;
            }
        }
        ZE_VERIFY(next != UINT32_MAX);
        v = next;
    }
    /* path[start..len) walks edges backwards: print it reversed. */
    uint32_t start = path_pos[v] - 1;
    err_append(t, "systems are ordered in a cycle (ze_system_order): ");
    for (uint32_t i = len; i-- > start;)
        err_append(t, "\"%s\" -> ", sys_at(t, path[i])->name);
    err_append(t, "\"%s\"", sys_at(t, path[len - 1])->name);
}

/* Marks in g->stamp (with `mark`) every system reachable from `from` whose
 * wave is at most `max_wave` (nothing further can lead to a target). */
static void walk_from(ze_worldtick_t *t, wt_graph_t *g, uint32_t from, uint32_t max_wave,
                      uint32_t mark)
{
    uint32_t head = 0, tail = 0;
    g->queue[tail++] = from;
    g->stamp[from] = mark;
    while (head < tail) {
        uint32_t v = g->queue[head++];
        for (uint32_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
            uint32_t s = g->succ[i];
            if (g->stamp[s] != mark && sys_at(t, s)->wave <= max_wave) {
                g->stamp[s] = mark;
                g->queue[tail++] = s;
            }
        }
    }
}

static void describe_conflict(ze_worldtick_t *t, uint32_t i, uint32_t j)
{
    const wt_system_t *a = sys_at(t, i), *b = sys_at(t, j);
    ze_mask_t m = conflict_mask(a, b);
    uint32_t c = m.count ? m.ids[0] : 0;
    ze_component_t cc = {c};
    err_append(t, "systems \"%s\" and \"%s\" conflict and are not ordered: ", a->name, b->name);
    if (ze_mask_has(a->writes, cc) && ze_mask_has(b->writes, cc))
        err_append(t, "both write %s", component_name(t, c));
    else if (ze_mask_has(a->writes, cc))
        err_append(t, "\"%s\" writes %s, which \"%s\" reads", a->name, component_name(t, c),
                   b->name);
    else
        err_append(t, "\"%s\" writes %s, which \"%s\" reads", b->name, component_name(t, c),
                   a->name);
    if (m.count > 1 && !ze_mask_overflowed(m))
        err_append(t, " (and %d more components)", m.count - 1);
    err_append(t, "; order them with ze_system_order(world, before, after)");
}

/* Every conflicting pair must be ordered. Systems of one wave are never
 * ordered; across waves, the earlier one must reach the later one. Finds
 * the first unordered pair in registration order (i, then j). */
static bool check_conflicts(ze_worldtick_t *t, wt_graph_t *g)
{
    uint32_t n = t->systems.count;
    uint32_t bad_i = UINT32_MAX, bad_j = UINT32_MAX, bad = 0;
    memset(g->stamp, 0, (size_t)n * sizeof *g->stamp);
    for (uint32_t i = 0; i < n; i++) {
        const wt_system_t *a = sys_at(t, i);
        if (ze_mask_empty(a->reads) && ze_mask_empty(a->writes))
            continue;
        /* Pairs in one wave are unordered. Across waves, a pair is checked
         * from its earlier system: walk from i when some conflicting j lies
         * in a later wave. */
        uint32_t max_wave = 0;
        bool need_walk = false;
        for (uint32_t j = 0; j < n; j++) {
            const wt_system_t *b = sys_at(t, j);
            if (j == i || !conflict(a, b))
                continue;
            if (b->wave == a->wave) {
                if (j > i) {
                    bad++;
                    if (i < bad_i || (i == bad_i && j < bad_j))
                        bad_i = i, bad_j = j;
                }
            } else if (b->wave > a->wave) {
                need_walk = true;
                if (b->wave > max_wave)
                    max_wave = b->wave;
            }
        }
        if (!need_walk)
            continue;
        walk_from(t, g, i, max_wave, i + 1);
        for (uint32_t j = 0; j < n; j++) {
            const wt_system_t *b = sys_at(t, j);
            if (b->wave > a->wave && g->stamp[j] != i + 1 && conflict(a, b)) {
                bad++;
                uint32_t lo = ZE_MIN(i, j), hi = ZE_MAX(i, j);
                if (lo < bad_i || (lo == bad_i && hi < bad_j))
                    bad_i = lo, bad_j = hi;
            }
        }
    }
    if (!bad)
        return true;
    describe_conflict(t, bad_i, bad_j);
    if (bad > 1)
        err_append(t, " (%u unordered conflicting pairs in all)", bad);
    return false;
}

static ze_result build_plan(ze_worldtick_t *t, uint32_t waves)
{
    uint32_t n = t->systems.count;
    if (ze_array_resize(&t->order, n) != ZE_OK || ze_array_resize(&t->wave_end, waves) != ZE_OK ||
        ze_array_resize(&t->jobs, n) != ZE_OK)
        return ZE_ERR_OUT_OF_MEMORY;
    /* Counting sort by wave, stable (registration order within a wave):
     * end[k] starts as wave k's start and ends as its end. */
    uint32_t *end = t->wave_end.data;
    uint32_t *order = t->order.data;
    if (waves) /* no systems: no array (memset of NULL is undefined) */
        memset(end, 0, (size_t)waves * sizeof *end);
    for (uint32_t v = 0; v < n; v++)
        if (sys_at(t, v)->wave + 1 < waves)
            end[sys_at(t, v)->wave + 1]++;
    for (uint32_t k = 1; k < waves; k++)
        end[k] += end[k - 1];
    for (uint32_t v = 0; v < n; v++)
        order[end[sys_at(t, v)->wave]++] = v;

    /* Staging buffers for systems that record in a wave of several. */
    for (uint32_t k = 0; k < waves; k++) {
        uint32_t begin = k ? end[k - 1] : 0;
        if (end[k] - begin < 2)
            continue;
        for (uint32_t i = begin; i < end[k]; i++) {
            wt_system_t *s = sys_at(t, order[i]);
            if (s->uses_commands && !s->staging) {
                s->staging = ze_commands_create(t->world);
                if (!s->staging)
                    return ZE_ERR_OUT_OF_MEMORY;
            }
        }
    }
    return ZE_OK;
}

ze_result ze_worldtick_commit(ze_worldtick_t *t)
{
    ZE_CHECK(t, ZE_ERR_INVALID_ARG);
    if (!t->dirty)
        return t->status;
    t->dirty = false;
    err_reset(t);
    ze_array_clear(&t->order);
    ze_array_clear(&t->wave_end);

    wt_graph_t g;
    ze_result r = ZE_OK;
    uint32_t waves = 0;
    if (!graph_build(t, &g)) {
        r = ZE_ERR_OUT_OF_MEMORY;
        err_append(t, "out of memory building the system plan");
    } else {
        if (plan_waves(t, &g, &waves) < t->systems.count) {
            r = ZE_ERR_CYCLE;
            report_cycle(t, &g);
        } else if (!check_conflicts(t, &g)) {
            r = ZE_ERR_CONFLICT;
        } else if ((r = build_plan(t, waves)) != ZE_OK) {
            err_append(t, "out of memory building the system plan");
        }
        graph_free(t, &g);
    }
    if (r != ZE_OK) {
        ze_array_clear(&t->order);
        ze_array_clear(&t->wave_end);
        /* not logged: the framework reports it through the kernel's sink */
    }
    t->status = r;
    return r;
}

const char *ze_worldtick_error(const ze_worldtick_t *t)
{
    return t ? t->error : "";
}

uint32_t ze_worldtick_wave_count(const ze_worldtick_t *t)
{
    return t && t->status == ZE_OK ? t->wave_end.count : 0;
}

/* ------------------------------------------------------------------ run */

static void run_job(void *ctx)
{
    wt_job_t *j = ctx;
    j->fn(j->world, &j->tick);
}

static wt_job_t *prepare(ze_worldtick_t *t, uint32_t index, float dt, ze_commands_t *cmds,
                         uint32_t version)
{
    wt_system_t *s = sys_at(t, index);
    uint32_t since = s->last_version;
    s->last_version = version;
    wt_job_t *j = &ZE_ARRAY_AT(&t->jobs, wt_job_t, index);
    j->world = t->world;
    j->fn = s->fn;
    j->tick = (ze_tick_t){
        .dt = dt,
        .cmds = s->uses_commands ? cmds : NULL,
        .query = s->query,
        .user = s->user,
        .system = index,
        .name = s->name,
        .alpha = t->alpha,
        .group = t->group,
        .frame = t->frame,
        .since = since,
    };
    return j;
}

static ze_result run_parallel(ze_worldtick_t *t, const uint32_t *systems, uint32_t count, float dt,
                              uint32_t version)
{
    ze_world_t *w = t->world;
    ze_job_system_t *js = ze_kernel_jobs(ze_world_kernel(w));
    ze_wait_group_t wg;
    ze_wait_group_init(&wg);

    ze__world_parallel_begin(w);
    wt_job_t *first = NULL;
    for (uint32_t i = 0; i < count; i++) {
        if (sys_at(t, systems[i])->disabled)
            continue;
        wt_job_t *j = prepare(t, systems[i], dt, sys_at(t, systems[i])->staging, version);
        if (!first)
            first = j; /* run by this thread once the others are queued */
        else if (js)
            ze_job_submit(js, run_job, j, &wg);
        else
            run_job(j); /* no pool: same semantics, one thread */
    }
    if (first)
        run_job(first);
    if (js)
        ze_job_wait(js, &wg);
    ze__worker_wave_wait(w); /* the jobs the systems scheduled */
    ze__world_parallel_end(w);

    /* After the barrier, in registration order: deterministic. Each
     * system's commands, then its jobs' in the order it scheduled them. */
    ze_result r = ZE_OK;
    for (uint32_t i = 0; i < count; i++) {
        wt_system_t *s = sys_at(t, systems[i]);
        if (s->staging && ze_commands_count(s->staging) > 0) {
            ze_result m = ze_commands_merge(t->main, s->staging);
            if (m != ZE_OK && r == ZE_OK)
                r = m;
        }
        ze_result m = ze__worker_merge(w, t->main, systems[i]);
        if (m != ZE_OK && r == ZE_OK)
            r = m;
    }
    ze__worker_wave_end(w);
    return r;
}

ze_result ze__worldtick_run_ex(ze_worldtick_t *t, float dt, ze_commands_t **main)
{
    ZE_CHECK(t, ZE_ERR_INVALID_ARG);
    *main = t->main;
    ze_result r = ze_worldtick_commit(t);
    if (r != ZE_OK)
        return r;
    if (ze__world_gate(t->world) == ZE__GATE_REFUSE) {
        ze_world_report(t->world, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "worldtick: run refused inside a parallel wave");
        return ZE_ERR_STATE;
    }
    const uint32_t *order = t->order.data;
    const uint32_t *end = t->wave_end.data;
    /* Each wave writes at a version of its own (change tracking: a
     * system's `since` is the version it last ran at), and what follows the
     * last wave (the barrier's commands) at a newer one. */
    for (uint32_t k = 0, begin = 0; k < t->wave_end.count; begin = end[k++]) {
        uint32_t count = end[k] - begin;
        uint32_t version = ze__version_advance(t->world);
        atomic_store_explicit(&t->world->jobs_open, true, memory_order_release);
        if (count == 1) {
            if (!sys_at(t, order[begin])->disabled) {
                wt_job_t *j = prepare(t, order[begin], dt, t->main, version);
                run_job(j);
                /* Its jobs finish before the next wave; their commands go
                 * after the system's own. */
                ze__worker_wave_wait(t->world);
                ze_result m = ze__worker_merge(t->world, t->main, order[begin]);
                ze__worker_wave_end(t->world);
                if (m != ZE_OK && r == ZE_OK)
                    r = m;
            }
        } else {
            ze_result m = run_parallel(t, order + begin, count, dt, version);
            if (m != ZE_OK && r == ZE_OK)
                r = m;
        }
        atomic_store_explicit(&t->world->jobs_open, false, memory_order_release);
    }
    ze__version_advance(t->world);
    return r;
}

ze_result ze_worldtick_run(ze_worldtick_t *t, float dt)
{
    ze_commands_t *main = NULL;
    ze_result r = ze__worldtick_run_ex(t, dt, &main);
    if (!main)
        return r;
    ze_result f = ze_commands_flush(main);
    return r != ZE_OK ? r : f;
}

void ze__worldtick_set_context(ze_worldtick_t *t, float alpha, uint32_t group, uint64_t frame)
{
    t->alpha = alpha;
    t->group = group;
    t->frame = frame;
}

void ze__worldtick_set_enabled(ze_worldtick_t *t, ze_system_t s, bool enabled)
{
    if (s.id && s.id <= t->systems.count)
        sys_at(t, s.id - 1)->disabled = !enabled;
}

uint32_t ze__worldtick_plan(const ze_worldtick_t *t, const uint32_t **order)
{
    *order = t->order.data;
    return t->status == ZE_OK && !t->dirty ? t->order.count : 0;
}
