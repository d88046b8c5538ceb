/* Images: a box drawn with a texture (ZE_UI_INSTANCE_IMAGE carrying the
 * gfx texture id; the overlay pass samples it), at a size in logical
 * pixels. With a label it is keyed and clickable (signals, tooltips, drag
 * and drop); without one it is anonymous. */
#include <string.h>

#include "ui/ui_internal.h"

ze_ui_box_t *ze_ui_image(ze_ui_t *ui, const char *label, uint32_t texture, float width,
                         float height)
{
    ZE_CHECK(ui && ui->in_frame, ui ? &ui->standin : NULL);
    size_t n = label ? strlen(label) : 0;
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_box_t *b = ze__ui_push(ui, key, label, n,
                                 &(ze_ui_box_desc_t){
                                     .flags = key ? ZE_UI_BOX_CLICKABLE : 0,
                                     .width = ze_ui_px(width > 0.0f ? width : 0.0f, 1),
                                     .height = ze_ui_px(height > 0.0f ? height : 0.0f, 1),
                                     .texture = texture,
                                 },
                                 NULL, 0);
    ze_ui_pop_box(ui);
    return b;
}
