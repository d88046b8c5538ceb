/* The overlay's texture handles: ZUI's image widget carries a 32-bit
 * texture id in its draw-list instances; this table gives a cooked
 * texture's uuid such an id (ze_render_backend_ui_texture, main thread)
 * and the backend's UI pass turns ids back into uuids (render thread),
 * then into its own texture (vk_pass_ui.c: the bindless slot). The same
 * uuid always gets the same id; ids are never reused, so a handle names
 * one texture for the backend's lifetime, resident or not. Backend-neutral:
 * the null backend hands out ids too (and draws nothing). */
#include <string.h>

#include "gfx/backend.h"

#define LOG_CH "gfx"

/* Handles a backend hands out at most (one per distinct texture shown). */
enum { UI_TEXTURES_MAX = 1u << 20 };

void ze__render_textures_init(ze_render_backend_t *b, ze_mem_t *mem)
{
    ze__render_textures_t *t = &b->ui_textures;
    *t = (ze__render_textures_t){.alloc = ze_mem_owner_allocator(mem, ZE_MEM_OWNER_RENDER)};
    pthread_mutex_init(&t->lock, NULL);
    ze_hashmap_init(&t->ids, t->alloc, sizeof(ze_uuid_t), sizeof(uint32_t));
}

void ze__render_textures_fini(ze_render_backend_t *b)
{
    ze__render_textures_t *t = &b->ui_textures;
    ze_hashmap_free(&t->ids);
    ze_free(t->alloc, t->uuids, sizeof *t->uuids * t->cap);
    pthread_mutex_destroy(&t->lock);
    t->uuids = NULL;
    t->count = t->cap = 0;
}

ze_render_texture_t ze_render_backend_ui_texture(ze_render_backend_t *b, ze_uuid_t texture)
{
    ZE_CHECK(b, (ze_render_texture_t){0});
    if (ze_uuid_is_nil(texture))
        return (ze_render_texture_t){0};
    ze__render_textures_t *t = &b->ui_textures;
    pthread_mutex_lock(&t->lock);
    uint32_t id = 0;
    const uint32_t *have = ze_hashmap_get(&t->ids, &texture);
    if (have) {
        id = *have;
    } else if (t->count >= UI_TEXTURES_MAX) {
        ZE_LOG_ERROR(LOG_CH, "ui textures: more than %u distinct textures",
                     (unsigned)UI_TEXTURES_MAX);
    } else {
        if (t->count == t->cap) {
            uint32_t cap = t->cap ? t->cap * 2 : 16;
            ze_uuid_t *n = ze_realloc(t->alloc, t->uuids, sizeof *n * t->cap, sizeof *n * cap, 16);
            if (n) {
                t->uuids = n;
                t->cap = cap;
            }
        }
        uint32_t next = t->count + 1;
        if (t->count < t->cap && ze_hashmap_put(&t->ids, &texture, &next) == ZE_OK) {
            t->uuids[t->count++] = texture;
            id = next;
        } else {
            ZE_LOG_ERROR(LOG_CH, "ui textures: the Render owner refused the handle table");
        }
    }
    pthread_mutex_unlock(&t->lock);
    return (ze_render_texture_t){id};
}

void ze__render_textures_resolve(ze_render_backend_t *b, const uint32_t *ids, ze_uuid_t *out,
                                 uint32_t n)
{
    ze__render_textures_t *t = &b->ui_textures;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < n; i++)
        out[i] = ids[i] && ids[i] <= t->count ? t->uuids[ids[i] - 1] : (ze_uuid_t){0};
    pthread_mutex_unlock(&t->lock);
}
