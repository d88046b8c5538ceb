/* Third-party allocations inside the budgets, where the library allows:
 * jansson's allocation hooks (json_set_alloc_funcs) routed to the
 * ThirdParty owner. The hooks are process-global (a global on STYLE.md's
 * list: allocation hooks), so only the process entry point routes them
 * (ze_app_main, around the run: after the memory manager exists, undone
 * before it goes), never ze_app_run: a test process may hold JSON trees
 * made with the C library's allocator, and a block must be freed by the
 * allocator that made it. Every block carries its size (jansson frees
 * without one). */
#include <jansson.h>
#include <string.h>

#include "engine/engine_internal.h"

enum { HDR = 16 };

static struct {
    bool routed;
    ze_allocator_t alloc;
    json_malloc_t prev_malloc;
    json_free_t prev_free;
} g_json;

static void *json_alloc_hook(size_t size)
{
    uint8_t *p = ze_alloc(g_json.alloc, size + HDR, 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    return p + HDR;
}

static void json_free_hook(void *ptr)
{
    if (!ptr)
        return;
    uint8_t *p = (uint8_t *)ptr - HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    ze_free(g_json.alloc, p, size + HDR);
}

void ze__third_party_route(ze_mem_t *mm)
{
    if (g_json.routed || !mm)
        return;
    json_get_alloc_funcs(&g_json.prev_malloc, &g_json.prev_free);
    g_json.alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_THIRD_PARTY);
    json_set_alloc_funcs(json_alloc_hook, json_free_hook);
    g_json.routed = true;
}

void ze__third_party_unroute(void)
{
    if (!g_json.routed)
        return;
    json_set_alloc_funcs(g_json.prev_malloc, g_json.prev_free);
    g_json.routed = false;
    g_json.alloc = (ze_allocator_t){0};
}
