/* Radio buttons: one of a group of options sharing an int; a click (or
 * Enter/Space/activate while focused) selects this one's option. A round
 * frame with a dot when selected, the label beside it. */
#include "ui/ui_internal.h"

bool ze_ui_radio(ze_ui_t *ui, const char *label, int *value, int option)
{
    ZE_CHECK(ui && ui->in_frame && value, false);
    uint64_t key = ze__ui_widget_key(ui, label);
    bool changed = false;
    if (ze__ui_signal_key(ui, key).clicked && *value != option) {
        *value = option;
        changed = true;
    }
    /* round: the frame's corners half its side, the dot's a quarter */
    ze__ui_mark_widget(ui, key, label, *value == option, 0.5f, 0.5f, 0.25f);
    return changed;
}
