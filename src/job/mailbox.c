/* Latest-state mailbox: three slots, one writer thread, one reader thread.
 *
 * Each slot's state (Free/Writing/Ready/Reading) and the sequence number of
 * the payload it holds live in ONE atomic word (seq << 2 | state), so every
 * transition is a compare-and-swap on both at once. With two separate atomics
 * the reader's "release older Ready slots" step has an ABA hole: between its
 * read of (Ready, seq 4) and its CAS Ready->Free, the writer can replace that
 * slot and publish seq 9 into it; the CAS still sees Ready and silently
 * discards the newest payload (possibly the last one, which would then never
 * be taken). Comparing the whole word makes that CAS fail instead.
 *
 * Why three slots suffice for "never block": the writer holds at most one
 * slot, the reader at most two (only for the instant between taking a new one
 * and releasing the old), so when the writer looks for a slot at least one is
 * Free or Ready. A failed CAS means the other side just moved; retry.
 *
 * Ownership of the non-atomic fields (payload, size, arena): the writer
 * touches them only while the slot is Writing (it got there by an acquire CAS
 * and leaves by a release store to Ready); the reader reads payload/size only
 * after its acquire CAS Ready->Reading and gives them up with a release store
 * to Free. So each payload is written, then read, then reused, in that order.
 */
#include <stdalign.h>
#include <string.h>

#include "zengine/job.h"

enum {
    MB_FREE = 0,
    MB_WRITING = 1,
    MB_READY = 2,
    MB_READING = 3,
    MB_SLOTS = 3,
};

#define MB_DEFAULT_ARENA ((size_t)4 << 20)

static inline unsigned word_state(uint64_t w)
{
    return (unsigned)(w & 3u);
}
static inline uint64_t word_seq(uint64_t w)
{
    return w >> 2;
}
static inline uint64_t make_word(uint64_t seq, unsigned state)
{
    return seq << 2 | state;
}

/* What a slot carries besides its state word. The writer fills it while it
 * holds the slot Writing; the reader reads payload/size while it holds it
 * Reading. One cache line (or more) per slot, apart from the state words. */
typedef struct mb_slot_t {
    alignas(64) const void *payload;
    size_t size;
    ze_arena_t arena;
} mb_slot_t;

/* Laid out by who writes what: the reader polls the three state words on
 * every take, so they share one line and nothing else lives there (the
 * writer's arena bookkeeping next to them made each write a miss for the
 * reader); each side's private fields and counters have their own line, and
 * `replaced` is kept as two single-writer halves instead of one RMW counter
 * both threads bounce. */
struct ze_mailbox_t {
    ze_allocator_t alloc;
    alignas(64) atomic_uint_least64_t words[MB_SLOTS]; /* seq << 2 | state */
    mb_slot_t slots[MB_SLOTS];
    /* Writer thread only. */
    alignas(64) int writing; /* claimed slot, -1 = none */
    uint64_t last_seq;
    atomic_uint_least64_t published;  /* single writer: the stats read it */
    atomic_uint_least64_t replaced_w; /* Ready slots the writer overwrote */
    /* Reader thread only. */
    alignas(64) int reading; /* held slot, -1 = none */
    atomic_uint_least64_t taken;
    atomic_uint_least64_t replaced_r; /* Ready slots the reader freed unread */
};

/* Single-writer counter: a plain load+store is enough and cheaper than an
 * RMW; atomics only because the stats are read from any thread. */
static inline void bump(atomic_uint_least64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

ze_result ze_mailbox_create(const ze_mailbox_desc_t *desc, ze_mailbox_t **out)
{
    ZE_CHECK(desc && out && desc->mem, ZE_ERR_INVALID_ARG);
    ZE_CHECK((unsigned)desc->owner < ZE_MEM_OWNER_COUNT, ZE_ERR_INVALID_ARG);
    *out = NULL;
    size_t arena_size = desc->slot_arena_size ? desc->slot_arena_size : MB_DEFAULT_ARENA;
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, desc->owner);
    ze_mailbox_t *mb = ze_alloc(alloc, sizeof *mb, _Alignof(ze_mailbox_t));
    if (!mb)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(mb, 0, sizeof *mb);
    mb->alloc = alloc;
    mb->writing = -1;
    mb->reading = -1;
    atomic_init(&mb->published, 0);
    atomic_init(&mb->taken, 0);
    atomic_init(&mb->replaced_w, 0);
    atomic_init(&mb->replaced_r, 0);
    for (int i = 0; i < MB_SLOTS; i++) {
        atomic_init(&mb->words[i], make_word(0, MB_FREE));
        ze_result r = ze_arena_init(&mb->slots[i].arena, desc->mem, desc->owner, arena_size);
        if (r != ZE_OK) {
            ZE_LOG_ERROR("job", "mailbox: slot arena of %zu bytes for owner %s: %s", arena_size,
                         ze_mem_owner_name(desc->owner), ze_result_str(r));
            while (i-- > 0)
                ze_arena_release(&mb->slots[i].arena);
            ze_free(alloc, mb, sizeof *mb);
            return r;
        }
    }
    *out = mb;
    return ZE_OK;
}

void ze_mailbox_destroy(ze_mailbox_t *mb)
{
    if (!mb)
        return;
    for (int i = 0; i < MB_SLOTS; i++)
        ze_arena_release(&mb->slots[i].arena);
    ze_free(mb->alloc, mb, sizeof *mb);
}

ze_arena_t *ze_mailbox_begin_write(ze_mailbox_t *mb)
{
    ZE_ASSERT(mb);
    /* A second begin without publish restarts the write in the same slot. */
    if (mb->writing >= 0) {
        ze_arena_reset(&mb->slots[mb->writing].arena);
        return &mb->slots[mb->writing].arena;
    }
    for (;;) {
        int pick = -1;
        uint64_t pick_word = 0;
        for (int i = 0; i < MB_SLOTS; i++) {
            uint64_t w = atomic_load_explicit(&mb->words[i], memory_order_relaxed);
            if (word_state(w) == MB_FREE) {
                pick = i;
                pick_word = w;
                break;
            }
            if (word_state(w) == MB_READY && (pick < 0 || word_seq(w) < word_seq(pick_word))) {
                pick = i;
                pick_word = w;
            }
        }
        /* pick < 0 only when the scan raced the reader moving between slots
         * (it never holds more than two); the next scan finds one. */
        if (pick < 0)
            continue;
        /* Acquire: pairs with the reader's release to Free, so its last reads
         * of the old payload happen before we overwrite the arena. */
        if (!atomic_compare_exchange_strong_explicit(&mb->words[pick], &pick_word,
                                                     make_word(word_seq(pick_word), MB_WRITING),
                                                     memory_order_acquire, memory_order_relaxed))
            continue;
        if (word_state(pick_word) == MB_READY)
            bump(&mb->replaced_w);
        mb->writing = pick;
        ze_arena_reset(&mb->slots[pick].arena);
        return &mb->slots[pick].arena;
    }
}

uint64_t ze_mailbox_publish(ze_mailbox_t *mb, const void *payload, size_t size)
{
    ZE_CHECK(mb && mb->writing >= 0, 0);
    mb_slot_t *slot = &mb->slots[mb->writing];
    slot->payload = payload;
    slot->size = size;
    uint64_t seq = ++mb->last_seq;
    atomic_uint_least64_t *wp = &mb->words[mb->writing];
    /* Release: payload, size and the arena bytes are visible to whoever
     * acquires this state. Only we hold a Writing slot, so a store will do. */
    atomic_store_explicit(wp, make_word(seq, MB_READY), memory_order_release);
    mb->writing = -1;
    bump(&mb->published);
    return seq;
}

void ze_mailbox_cancel(ze_mailbox_t *mb)
{
    ZE_ASSERT(mb);
    if (mb->writing < 0)
        return;
    atomic_uint_least64_t *wp = &mb->words[mb->writing];
    uint64_t w = atomic_load_explicit(wp, memory_order_relaxed);
    atomic_store_explicit(wp, make_word(word_seq(w), MB_FREE), memory_order_release);
    mb->writing = -1;
}

/* Free every Ready slot older than `seq` (except `keep`): the reader has a
 * newer payload, so nobody will ever want them. */
static void release_older(ze_mailbox_t *mb, int keep, uint64_t seq)
{
    for (int j = 0; j < MB_SLOTS; j++) {
        if (j == keep || j == mb->reading)
            continue;
        uint64_t w = atomic_load_explicit(&mb->words[j], memory_order_relaxed);
        /* A failed CAS reloads w: re-judge the slot as it is now. */
        while (word_state(w) == MB_READY && word_seq(w) < seq) {
            if (atomic_compare_exchange_weak_explicit(&mb->words[j], &w,
                                                      make_word(word_seq(w), MB_FREE),
                                                      memory_order_release, memory_order_relaxed)) {
                bump(&mb->replaced_r);
                break;
            }
        }
    }
}

const void *ze_mailbox_take(ze_mailbox_t *mb, size_t *size, uint64_t *seq)
{
    ZE_ASSERT(mb);
    for (;;) {
        int best = -1;
        uint64_t best_word = 0;
        for (int i = 0; i < MB_SLOTS; i++) {
            if (i == mb->reading)
                continue;
            uint64_t w = atomic_load_explicit(&mb->words[i], memory_order_relaxed);
            if (word_state(w) == MB_READY && (best < 0 || word_seq(w) > word_seq(best_word))) {
                best = i;
                best_word = w;
            }
        }
        if (best < 0)
            break; /* nothing new: keep what we hold */
        /* Acquire: pairs with publish's release; payload/size are ours now. */
        if (!atomic_compare_exchange_strong_explicit(&mb->words[best], &best_word,
                                                     make_word(word_seq(best_word), MB_READING),
                                                     memory_order_acquire, memory_order_relaxed))
            continue; /* the writer replaced it meanwhile: look again */
        release_older(mb, best, word_seq(best_word));
        if (mb->reading >= 0) {
            atomic_uint_least64_t *old = &mb->words[mb->reading];
            uint64_t w = atomic_load_explicit(old, memory_order_relaxed);
            /* Release: our reads of the old payload come before its reuse. */
            atomic_store_explicit(old, make_word(word_seq(w), MB_FREE), memory_order_release);
        }
        mb->reading = best;
        bump(&mb->taken);
        break;
    }
    if (mb->reading < 0) {
        if (size)
            *size = 0;
        if (seq)
            *seq = 0;
        return NULL;
    }
    const mb_slot_t *held = &mb->slots[mb->reading];
    if (size)
        *size = held->size;
    if (seq)
        *seq = word_seq(atomic_load_explicit(&mb->words[mb->reading], memory_order_relaxed));
    return held->payload;
}

ze_mailbox_stats_t ze_mailbox_stats(ze_mailbox_t *mb)
{
    ze_mailbox_stats_t s;
    s.published = atomic_load_explicit(&mb->published, memory_order_relaxed);
    s.taken = atomic_load_explicit(&mb->taken, memory_order_relaxed);
    s.replaced = atomic_load_explicit(&mb->replaced_w, memory_order_relaxed) +
                 atomic_load_explicit(&mb->replaced_r, memory_order_relaxed);
    return s;
}
