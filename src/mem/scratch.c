/* Per-thread scratch arenas. A thread-local cache remembers the arena of the
 * manager it was made for by the manager's process-unique id, so a new
 * manager (tests create many) never sees a stale arena. Arenas are kept on the
 * manager's list until it is destroyed: a thread that exits leaves its arena
 * there (8 MiB of address space, pages given back by ze_scratch_end). */
#include <stdlib.h>

#include "mem_internal.h"

enum {
    SCRATCH_SIZE = 8 << 20,
    SCRATCH_KEEP = 256 << 10, /* always kept committed */
    SCRATCH_WINDOW = 64,      /* outermost ends between trims */
};

/* Trimming: an outermost end remembers how much the scope used; every
 * SCRATCH_WINDOW outermost ends the arena keeps what the busiest of them
 * needed (at least SCRATCH_KEEP) and gives the rest back. A system that
 * needs 2 MiB every fixed step keeps its 2 MiB (trimming after each use
 * faulted the pages in again every step); a one-off burst is returned
 * within SCRATCH_WINDOW uses. */
static _Thread_local struct {
    uint64_t mm_id;
    ze_arena_t *arena;
    size_t window_high;
    uint32_t window_ends;
} t_scratch;

ze_scratch_t ze_scratch_begin(ze_mem_t *mm)
{
    if (t_scratch.mm_id != mm->id || !t_scratch.arena) {
        ze__scratch_slot_t *slot = calloc(1, sizeof *slot);
        if (!slot)
            return (ze_scratch_t){0};
        if (ze_arena_init(&slot->arena, mm, ZE_MEM_OWNER_SCRATCH, SCRATCH_SIZE) != ZE_OK) {
            free(slot);
            return (ze_scratch_t){0};
        }
        pthread_mutex_lock(&mm->scratch_lock);
        slot->next = mm->scratch;
        mm->scratch = slot;
        pthread_mutex_unlock(&mm->scratch_lock);
        t_scratch.mm_id = mm->id;
        t_scratch.arena = &slot->arena;
        t_scratch.window_high = 0;
        t_scratch.window_ends = 0;
    }
    return (ze_scratch_t){t_scratch.arena, ze_arena_marker(t_scratch.arena)};
}

void ze_scratch_end(ze_scratch_t s)
{
    if (!s.arena)
        return;
    size_t used = ze_arena_marker(s.arena);
    ze_arena_pop_to(s.arena, s.marker);
    if (s.marker != 0)
        return;
    bool ours = s.arena == t_scratch.arena;
    if (ours) {
        t_scratch.window_high = used > t_scratch.window_high ? used : t_scratch.window_high;
        if (++t_scratch.window_ends < SCRATCH_WINDOW)
            return;
    }
    size_t keep =
        ours && t_scratch.window_high > SCRATCH_KEEP ? t_scratch.window_high : (size_t)SCRATCH_KEEP;
    if (s.arena->region.committed > keep)
        ze_arena_trim(s.arena, keep); /* a burst does not pin memory for long */
    if (ours) {
        t_scratch.window_high = 0;
        t_scratch.window_ends = 0;
    }
}

void ze__scratch_release_all(ze_mem_t *mm)
{
    pthread_mutex_lock(&mm->scratch_lock);
    ze__scratch_slot_t *s = mm->scratch;
    mm->scratch = NULL;
    pthread_mutex_unlock(&mm->scratch_lock);
    while (s) {
        ze__scratch_slot_t *next = s->next;
        ze_arena_release(&s->arena);
        free(s);
        s = next;
    }
}
