/* Drag and drop. A source (the last keyed box built) that is being
 * dragged sets a typed payload every frame of the drag (copied into a
 * buffer of the context that grows to the largest payload and is kept);
 * on the frame the press is released, a target (the last keyed box built
 * when it asks) whose rectangle of the previous frame holds the release
 * point receives it, if the types match. The payload is forgotten at the
 * end of that frame, or at the end of a frame whose source did not set
 * it. Types are compared by hash. */
#include <string.h>

#include "ui/ui_internal.h"

bool ze_ui_drag_source(ze_ui_t *ui, const char *type, const void *data, size_t size)
{
    ZE_CHECK(ui && ui->in_frame && type && (data || !size), false);
    const ze_ui_box_t *b = ui->last_keyed;
    if (!b || !b->key || ui->active != b->key || !ui->drag_started)
        return false;
    if (size > ui->dnd_cap) {
        size_t cap = ZE_MAX(size, ui->dnd_cap * 2);
        void *n = ze_realloc(ui->alloc, ui->dnd_data, ui->dnd_cap, cap, 16);
        if (!n) {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: a drag payload of %zu bytes does not fit", size);
            return false;
        }
        ui->dnd_data = n;
        ui->dnd_cap = cap;
    }
    if (size)
        memcpy(ui->dnd_data, data, size);
    ui->dnd_size = size;
    ui->dnd_type = ze_hash64(type, strlen(type), 0);
    ui->dnd_source = b->key;
    ui->dnd_frame = ui->frame;
    ui->dnd_active = true;
    return true;
}

const void *ze_ui_drop_target(ze_ui_t *ui, const char *type, size_t *size)
{
    ZE_CHECK(ui && ui->in_frame && type, NULL);
    const ze_ui_box_t *b = ui->last_keyed;
    if (!ui->dnd_dropping || !b || !b->key || b->key == ui->dnd_source)
        return NULL;
    if (ze_hash64(type, strlen(type), 0) != ui->dnd_type)
        return NULL;
    const ze__ui_state *s = b->state;
    if (!s || !(s->flags & ZE__UI_STATE_HAS_RECT) ||
        !ze__ui_rect_contains(s->rect, ui->dnd_drop[0], ui->dnd_drop[1]) ||
        !ze__ui_rect_contains(s->clip, ui->dnd_drop[0], ui->dnd_drop[1]))
        return NULL;
    if (size)
        *size = ui->dnd_size;
    return ui->dnd_data ? ui->dnd_data : (const void *)"";
}

bool ze_ui_drag_active(const ze_ui_t *ui, const char *type)
{
    return ui && ui->dnd_active && (!type || ze_hash64(type, strlen(type), 0) == ui->dnd_type);
}

void ze__ui_dnd_release(ze_ui_t *ui, float x, float y)
{
    if (!ui->dnd_active)
        return;
    ui->dnd_dropping = true;
    ui->dnd_drop[0] = x;
    ui->dnd_drop[1] = y;
}

void ze__ui_dnd_frame_end(ze_ui_t *ui)
{
    if (ui->dnd_dropping || (ui->dnd_active && ui->dnd_frame != ui->frame)) {
        ui->dnd_active = ui->dnd_dropping = false;
        ui->dnd_source = ui->dnd_type = 0;
        ui->dnd_size = 0;
    }
}

void ze__ui_dnd_free(ze_ui_t *ui)
{
    ze_free(ui->alloc, ui->dnd_data, ui->dnd_cap);
    ui->dnd_data = NULL;
    ui->dnd_cap = 0;
}
