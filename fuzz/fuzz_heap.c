/* The TLSF heap driven by arbitrary operation sequences, in native mode (not
 * pass-through) so the allocator's own logic is what runs. Every block is
 * filled with a tag that is checked before it is freed, and the heap's full
 * consistency check runs after the sequence. */
#include <string.h>

#include "zengine/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SLOTS = 64 };

static ze_mem_t *g_mm;
static ze_heap_t *g_heap; /* one heap for the whole run: cheaper, and state carries over */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_mm) {
        ze_log_configure(&(ze_log_desc_t){.quiet = true});
        ZE_VERIFY(ze_mem_create(&(ze_mem_desc_t){.passthrough = -1}, &g_mm) == ZE_OK);
        ZE_VERIFY(ze_heap_create(g_mm,
                                 &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME, .max_size = 8 << 20},
                                 &g_heap) == ZE_OK);
    }
    ze_heap_t *h = g_heap;
    struct {
        uint8_t *p;
        size_t n;
        uint8_t tag;
    } slot[SLOTS] = {0};
    for (size_t i = 0; i + 3 <= size; i += 3) {
        uint8_t op = data[i] >> 6, idx = data[i] & (SLOTS - 1);
        size_t n = ((size_t)data[i + 1] << 8 | data[i + 2]) & 0x3fff;
        if (slot[idx].p) {
            /* Sampled (stride and last byte): full scans made runs too slow. */
            for (size_t k = 0; k < slot[idx].n; k += 97)
                ZE_VERIFY(slot[idx].p[k] == slot[idx].tag);
            ZE_VERIFY(slot[idx].p[slot[idx].n - 1] == slot[idx].tag);
        }
        switch (op) {
        case 0:
        case 1: { /* allocate (op 1: over-aligned) */
            if (slot[idx].p)
                ze_heap_free(h, slot[idx].p);
            size_t align = op == 1 ? (size_t)16 << (data[i + 1] & 7) : 16;
            slot[idx].p = ze_heap_alloc(h, n + 1, align);
            slot[idx].n = slot[idx].p ? n + 1 : 0;
            if (slot[idx].p)
                ZE_VERIFY(((uintptr_t)slot[idx].p & (align - 1)) == 0);
            break;
        }
        case 2: /* free */
            ze_heap_free(h, slot[idx].p);
            slot[idx].p = NULL;
            slot[idx].n = 0;
            break;
        default: { /* realloc keeps the prefix */
            uint8_t *q = ze_heap_realloc(h, slot[idx].p, n + 1, 16);
            if (q) {
                size_t keep = slot[idx].n < n + 1 ? slot[idx].n : n + 1;
                for (size_t k = 0; k < keep; k += 97)
                    ZE_VERIFY(q[k] == slot[idx].tag);
                if (keep)
                    ZE_VERIFY(q[keep - 1] == slot[idx].tag);
                slot[idx].p = q;
                slot[idx].n = n + 1;
            }
            break;
        }
        }
        slot[idx].tag = (uint8_t)(i * 31 + 7);
        if (slot[idx].p)
            memset(slot[idx].p, slot[idx].tag, slot[idx].n);
    }
    ZE_VERIFY(ze_heap_check(h) == ZE_OK);
    for (int s = 0; s < SLOTS; s++)
        ze_heap_free(h, slot[s].p);
    ZE_VERIFY(ze_heap_check(h) == ZE_OK);
    ZE_VERIFY(ze_heap_stats(h).live_blocks == 0);
    return 0;
}
