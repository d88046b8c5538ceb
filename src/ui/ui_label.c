/* Labels: one anonymous box sized by its text (no state, so two equal
 * labels never collide). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

static void label_box(ze_ui_t *ui, const char *text, size_t len)
{
    static const ze_ui_box_desc_t desc = {
        .width = {ZE_UI_SIZE_TEXT, 0.0f, 1.0f},
        .height = {ZE_UI_SIZE_TEXT, 0.0f, 1.0f},
    };
    ze__ui_push(ui, 0, NULL, 0, &desc, text, len);
    ze_ui_pop_box(ui);
}

void ze_ui_label(ze_ui_t *ui, const char *text)
{
    ZE_CHECK(ui && ui->in_frame, );
    text = text ? text : "";
    label_box(ui, text, strlen(text));
}

void ze_ui_labelf(ze_ui_t *ui, const char *fmt, ...)
{
    ZE_CHECK(ui && ui->in_frame && fmt, );
    /* the usual short label is formatted on the stack (integers and
       strings without vsnprintf): the box copies it */
    char small[256];
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    size_t fast = ze__ui_format(small, sizeof small, fmt, &ap);
    va_end(ap);
    if (fast != SIZE_MAX) {
        va_end(copy);
        label_box(ui, small, fast);
        return;
    }
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n >= 0 && (size_t)n < sizeof small) {
        label_box(ui, small, (size_t)n);
        return;
    }
    va_start(ap, fmt);
    size_t len = 0;
    char *s = ze__ui_vformat(ui, &len, fmt, ap);
    va_end(ap);
    if (!s) {
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: frame arena exhausted formatting a label");
        return;
    }
    label_box(ui, s, len);
}
