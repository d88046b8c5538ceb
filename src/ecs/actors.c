/* Actors (tier 1): C "classes" over the world's entities.
 *
 * The manager is created on a world's first ze_actor_create. Instances come
 * from a chain of arenas (owner ECS) and are recycled through free lists by
 * size class, so a world that creates and destroys actors all game long stops
 * growing once it has seen its peak. Handles are slot index + generation;
 * a slot whose generation would wrap is retired (like entity slots), so a
 * stale handle never resolves to another actor.
 *
 * Tick order is creation order: `order` lists slot indices as they were
 * created. A destroyed actor leaves a hole (ORDER_HOLE) that is compacted
 * away after the tick (or when the list must grow), never during one, so an
 * on_tick that creates or destroys actors cannot disturb the walk.
 *
 * The actor owns its entity: ze_actor_destroy destroys it. An entity
 * destroyed behind the actor's back leaves the actor alive with a dead
 * handle in base.entity until the actor itself is destroyed.
 */
#include <string.h>

#include "ecs_internal.h"

#if defined(ZE_SANITIZER_ADDRESS)
#include <sanitizer/asan_interface.h>
#define ACTOR_POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define ACTOR_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ACTOR_POISON(p, n)   ((void)(p), (void)(n))
#define ACTOR_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Limits, enforced below. Handles are 32 bits: the index takes just the bits
 * the capacity needs, the generation the rest, so the default capacity of
 * 1,024 leaves 22 bits (4 M reuses of a slot before it is retired). */
enum {
    ACTOR_MAX_CAPACITY = 1u << 20,     /* leaves at least 12 generation bits */
    ACTOR_ALIGN = 16,                  /* instances are aligned like heap blocks */
    SMALL_CLASSES = 64,                /* sizes 16..1024 in steps of 16 */
    SIZE_CLASSES = SMALL_CLASSES + 40, /* then powers of two 2 KiB..2^50 */
    MAX_ARENAS = 24,                   /* each one twice the previous */
    FIRST_ARENA_MIN = 64 << 10,
    FIRST_ARENA_MAX = 16 << 20,
};
#define ACTOR_MAX_SIZE ((size_t)1 << 30) /* one instance; keeps size classes finite */

#define ORDER_HOLE UINT32_MAX
#define NO_SLOT    UINT32_MAX

typedef enum slot_state {
    SLOT_FREE = 0,
    SLOT_ALIVE,
    SLOT_DYING, /* inside on_destroy */
    SLOT_RETIRED,
} slot_state;

typedef struct actor_slot_t {
    void *instance;
    const ze_actor_class_t *cls;
    uint32_t gen;       /* 1..gen_max; the handle's generation when alive */
    uint32_t order_pos; /* position in `order` while alive */
    uint32_t next_free; /* free-list link while free */
    uint32_t state;     /* slot_state */
} actor_slot_t;

struct ze__actor_manager_t {
    ze_world_t *world;
    uint32_t capacity;
    uint32_t index_bits;
    uint32_t gen_max;

    actor_slot_t *slots; /* [slot_cap], grown by doubling up to capacity */
    uint32_t slot_cap, slot_used;
    uint32_t free_head;
    uint32_t alive;

    uint32_t *order; /* slot indices in creation order, holes = ORDER_HOLE */
    uint32_t order_count, order_cap, holes;

    ze_arena_t arenas[MAX_ARENAS];
    uint32_t arena_count;
    void *free_blocks[SIZE_CLASSES]; /* intrusive lists of freed instances */

    uint32_t ticking; /* > 0 while ze_actors_tick walks `order` */
    bool finalizing;
};

/* ------------------------------------------------------------ helpers */

static uint32_t size_class(size_t size, size_t *block)
{
    if (size <= (size_t)SMALL_CLASSES * 16) {
        size_t c = (size + 15) / 16;
        *block = c * 16;
        return (uint32_t)(c - 1);
    }
    uint32_t bits = 11; /* 2 KiB */
    while (((size_t)1 << bits) < size)
        bits++;
    *block = (size_t)1 << bits;
    return SMALL_CLASSES + (bits - 11);
}

static uint32_t handle_index(const ze__actor_manager_t *m, ze_actor_t a)
{
    return a.id & ((1u << m->index_bits) - 1);
}

static uint32_t handle_gen(const ze__actor_manager_t *m, ze_actor_t a)
{
    return a.id >> m->index_bits;
}

/* The slot of an alive (or dying) actor, NULL when `a` is stale. */
static actor_slot_t *resolve(const ze_world_t *w, ze_actor_t a)
{
    const ze__actor_manager_t *m = w ? w->actors : NULL;
    if (!m || a.id == 0)
        return NULL;
    uint32_t idx = handle_index(m, a);
    if (idx >= m->slot_used)
        return NULL;
    actor_slot_t *s = &m->slots[idx];
    if ((s->state != SLOT_ALIVE && s->state != SLOT_DYING) || s->gen != handle_gen(m, a))
        return NULL;
    return s;
}

static ze__actor_manager_t *manager_create(ze_world_t *w)
{
    ze__actor_manager_t *m = ZE_NEW(w->alloc, ze__actor_manager_t);
    if (!m) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory for the actor manager");
        return NULL;
    }
    memset(m, 0, sizeof *m);
    m->world = w;
    uint32_t cap = w->actor_capacity ? w->actor_capacity : ZE_DEFAULT_ACTOR_CAPACITY;
    if (cap > ACTOR_MAX_CAPACITY) {
        ze_world_report(w, ZE_LOG_WARN, ZE_OK, "actor capacity %u above the limit of %u; using %u",
                        cap, (unsigned)ACTOR_MAX_CAPACITY, (unsigned)ACTOR_MAX_CAPACITY);
        cap = ACTOR_MAX_CAPACITY;
    }
    m->capacity = cap;
    m->index_bits = 1;
    while ((1u << m->index_bits) < cap) /* indices 0..cap-1 */
        m->index_bits++;
    m->gen_max = (uint32_t)(UINT32_MAX >> m->index_bits);
    m->free_head = NO_SLOT;
    return m;
}

/* A zeroed block of at least `size` bytes from the free list of its class or
 * a new push on the arena chain. */
static void *instance_alloc(ze__actor_manager_t *m, size_t size)
{
    size_t block;
    uint32_t c = size_class(size, &block);
    void *p = m->free_blocks[c];
    if (p) {
        ACTOR_UNPOISON(p, block);
        memcpy(&m->free_blocks[c], p, sizeof(void *));
        memset(p, 0, block);
        return p;
    }
    if (m->arena_count)
        p = ze_arena_push_zero(&m->arenas[m->arena_count - 1], block, ACTOR_ALIGN);
    if (p)
        return p;
    if (m->arena_count == MAX_ARENAS)
        return NULL;
    /* A new arena, twice the last one, sized for the first so the default
     * capacity of small actors fits in one. */
    size_t want;
    if (m->arena_count) {
        want = m->arenas[m->arena_count - 1].region.reserved * 2;
    } else {
        want = (size_t)m->capacity * 256;
        want = ZE_MAX(want, (size_t)FIRST_ARENA_MIN);
        want = ZE_MIN(want, (size_t)FIRST_ARENA_MAX);
    }
    while (want < block * 2)
        want *= 2;
    ze_mem_t *mm = ze_kernel_mem(ze_world_kernel(m->world));
    if (ze_arena_init(&m->arenas[m->arena_count], mm, ZE_MEM_OWNER_ECS, want) != ZE_OK)
        return NULL;
    m->arena_count++;
    return ze_arena_push_zero(&m->arenas[m->arena_count - 1], block, ACTOR_ALIGN);
}

static void instance_free(ze__actor_manager_t *m, void *p, size_t size)
{
    size_t block;
    uint32_t c = size_class(size, &block);
    memcpy(p, &m->free_blocks[c], sizeof(void *));
    m->free_blocks[c] = p;
    /* Keep the link readable; the rest reads as freed under ASan. */
    ACTOR_POISON((char *)p + sizeof(void *), block - sizeof(void *));
}

/* Squeeze the holes out of `order`, keeping creation order. Not while a tick
 * walks it. */
static void order_compact(ze__actor_manager_t *m)
{
    if (m->ticking || !m->holes)
        return;
    uint32_t out = 0;
    for (uint32_t i = 0; i < m->order_count; i++) {
        uint32_t s = m->order[i];
        if (s == ORDER_HOLE)
            continue;
        m->order[out] = s;
        m->slots[s].order_pos = out;
        out++;
    }
    m->order_count = out;
    m->holes = 0;
}

static bool order_push(ze__actor_manager_t *m, uint32_t slot)
{
    if (m->order_count == m->order_cap)
        order_compact(m);
    if (m->order_count == m->order_cap) {
        uint32_t cap = m->order_cap ? m->order_cap * 2 : 64;
        uint32_t *o = ze_realloc(m->world->alloc, m->order, (size_t)m->order_cap * sizeof *o,
                                 (size_t)cap * sizeof *o, _Alignof(uint32_t));
        if (!o)
            return false;
        m->order = o;
        m->order_cap = cap;
    }
    m->slots[slot].order_pos = m->order_count;
    m->order[m->order_count++] = slot;
    return true;
}

static uint32_t slot_take(ze__actor_manager_t *m)
{
    if (m->free_head != NO_SLOT) {
        uint32_t s = m->free_head;
        m->free_head = m->slots[s].next_free;
        return s;
    }
    if (m->slot_used == m->capacity)
        return NO_SLOT;
    if (m->slot_used == m->slot_cap) {
        uint32_t cap =
            m->slot_cap ? ZE_MIN(m->slot_cap * 2, m->capacity) : ZE_MIN(64u, m->capacity);
        actor_slot_t *s = ze_realloc(m->world->alloc, m->slots, (size_t)m->slot_cap * sizeof *s,
                                     (size_t)cap * sizeof *s, _Alignof(actor_slot_t));
        if (!s)
            return NO_SLOT;
        m->slots = s;
        m->slot_cap = cap;
    }
    uint32_t idx = m->slot_used++;
    m->slots[idx] = (actor_slot_t){.gen = 1};
    return idx;
}

static void slot_release(ze__actor_manager_t *m, uint32_t idx)
{
    actor_slot_t *s = &m->slots[idx];
    s->instance = NULL;
    s->cls = NULL;
    if (s->gen >= m->gen_max) {
        /* The next generation would not fit the handle: retire the slot. */
        s->state = SLOT_RETIRED;
        return;
    }
    s->gen++;
    s->state = SLOT_FREE;
    s->next_free = m->free_head;
    m->free_head = idx;
}

/* -------------------------------------------------------------- public */

ze_actor_t ze_actor_create(ze_world_t *w, const ze_actor_class_t *cls)
{
    ZE_CHECK(w && cls, (ze_actor_t){0});
    if (!cls->name || !cls->name[0] || cls->size < sizeof(ze_actor_base_t) ||
        cls->size > ACTOR_MAX_SIZE) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "actor class '%s': needs a name and a size from %zu "
                        "(ze_actor_base_t first) to %zu bytes, has %zu",
                        cls->name ? cls->name : "(null)", sizeof(ze_actor_base_t), ACTOR_MAX_SIZE,
                        cls->size);
        return (ze_actor_t){0};
    }
    if (ze__write_denied(w, true)) {
        ze__write_refused(w, "ze_actor_create of '%s'", cls->name);
        return (ze_actor_t){0};
    }
    if (ze__world_gate(w) == ZE__GATE_REFUSE) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE, "actor '%s' created inside a parallel wave",
                        cls->name);
        return (ze_actor_t){0};
    }
    if (!w->actors && !(w->actors = manager_create(w)))
        return (ze_actor_t){0};
    ze__actor_manager_t *m = w->actors;
    if (m->finalizing) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "actor '%s' created while the world is destroyed", cls->name);
        return (ze_actor_t){0};
    }
    if (m->alive >= m->capacity) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                        "actor capacity of %u reached (creating '%s')", m->capacity, cls->name);
        return (ze_actor_t){0};
    }
    uint32_t idx = slot_take(m);
    if (idx == NO_SLOT) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                        "no actor slot left for '%s' (%u alive, %u retired)", cls->name, m->alive,
                        m->slot_used - m->alive);
        return (ze_actor_t){0};
    }
    ze_entity_t e = ze_entity_create(w);
    void *inst = ze_entity_is_null(e) ? NULL : instance_alloc(m, cls->size);
    if (!inst || !order_push(m, idx)) {
        if (!ze_entity_is_null(e)) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                            "out of ECS memory for actor '%s' (%zu bytes)", cls->name, cls->size);
            ze_entity_destroy(w, e);
        }
        if (inst)
            instance_free(m, inst, cls->size);
        /* Back on the free list with the same generation: never handed out. */
        m->slots[idx].state = SLOT_FREE;
        m->slots[idx].next_free = m->free_head;
        m->free_head = idx;
        return (ze_actor_t){0};
    }
    actor_slot_t *s = &m->slots[idx];
    s->instance = inst;
    s->cls = cls;
    s->state = SLOT_ALIVE;
    ze_actor_t h = {s->gen << m->index_bits | idx};
    ze_actor_base_t *base = inst;
    base->world = w;
    base->entity = e;
    base->handle = h.id;
    m->alive++;
    if (cls->on_create)
        cls->on_create(inst);
    return h;
}

ze_result ze_actor_destroy(ze_world_t *w, ze_actor_t a)
{
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    actor_slot_t *s = resolve(w, a);
    if (!s || s->state == SLOT_DYING) /* stale, or already on its way out */
        return ZE_ERR_NOT_FOUND;
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_actor_destroy of '%s'", s->cls->name);
    if (ze__world_gate(w) == ZE__GATE_REFUSE) /* the manager is the main thread's */
        return ZE_ERR_STATE;
    ze__actor_manager_t *m = w->actors;
    uint32_t idx = handle_index(m, a);
    s->state = SLOT_DYING;
    const ze_actor_class_t *cls = s->cls;
    void *inst = s->instance;
    if (cls->on_destroy)
        cls->on_destroy(inst); /* may create or destroy others: re-read slots after */
    s = &m->slots[idx];
    /* on_destroy may have destroyed the entity itself. */
    ze_entity_t e = ((ze_actor_base_t *)inst)->entity;
    if (ze_entity_alive(w, e))
        ze_entity_destroy(w, e);
    m->order[s->order_pos] = ORDER_HOLE;
    m->holes++;
    m->alive--;
    instance_free(m, inst, cls->size);
    slot_release(m, idx);
    return ZE_OK;
}

void *ze_actor_get(ze_world_t *w, ze_actor_t a)
{
    actor_slot_t *s = resolve(w, a);
    return s ? s->instance : NULL;
}

uint32_t ze_actor_count(const ze_world_t *w)
{
    return w && w->actors ? w->actors->alive : 0;
}

void ze_actors_tick(ze_world_t *w, float dt)
{
    ZE_CHECK(w, );
    ze__actor_manager_t *m = w->actors;
    if (!m || m->finalizing)
        return;
    if (m->ticking) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "ze_actors_tick called from inside an on_tick");
        return;
    }
    m->ticking++;
    /* Actors created during the walk are appended past `end`: they start
     * next tick. A destroyed one has its entry turned into a hole at once. */
    uint32_t end = m->order_count;
    for (uint32_t i = 0; i < end; i++) {
        uint32_t idx = m->order[i]; /* `order` may move when on_tick creates */
        if (idx == ORDER_HOLE)
            continue;
        const actor_slot_t *s = &m->slots[idx];
        if (s->state == SLOT_ALIVE && s->cls->on_tick)
            s->cls->on_tick(s->instance, dt);
    }
    m->ticking--;
    if (m->holes > m->order_count / 4)
        order_compact(m);
}

void ze__actors_fini(ze_world_t *w)
{
    ze__actor_manager_t *m = w ? w->actors : NULL;
    if (!m)
        return;
    /* Newest first, so an actor's on_destroy still sees the older actors it
     * may depend on. on_destroy may destroy others (they become holes) but
     * may not create new ones. */
    m->finalizing = true;
    for (uint32_t i = m->order_count; i-- > 0;) {
        uint32_t idx = m->order[i];
        if (idx == ORDER_HOLE || m->slots[idx].state != SLOT_ALIVE)
            continue;
        ze_actor_destroy(w, (ze_actor_t){m->slots[idx].gen << m->index_bits | idx});
    }
    for (uint32_t i = 0; i < m->arena_count; i++)
        ze_arena_release(&m->arenas[i]);
    ze_free(w->alloc, m->order, (size_t)m->order_cap * sizeof *m->order);
    ze_free(w->alloc, m->slots, (size_t)m->slot_cap * sizeof *m->slots);
    ze_free(w->alloc, m, sizeof *m);
    w->actors = NULL;
}
