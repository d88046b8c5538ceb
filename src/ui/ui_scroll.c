/* Scroll regions: a keyed, clipped column whose vertical offset (per-key
 * state) the wheel changes while the mouse is over it, or
 * ze_ui_set_scroll; layout clamps it to [0, content - view]. A bar on the
 * right shows the visible part. */
#include "ui/ui_internal.h"

void ze_ui_scroll_begin(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_push_widget(ui, label,
                       &(ze_ui_box_desc_t){
                           .flags = ZE_UI_BOX_SCROLL_Y,
                           .width = width,
                           .height = height,
                           .spacing = ui->style.spacing,
                       },
                       false);
}

void ze_ui_scroll_end(ze_ui_t *ui)
{
    ze_ui_pop_box(ui);
}
