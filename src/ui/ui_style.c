/* The default style: one table of colours by role and the metrics widgets
 * read. A dark theme with enough contrast to read over a 3D scene. */
#include "ui/ui_internal.h"

static const uint32_t g_colors[ZE_UI_COLOR_COUNT] = {
    [ZE_UI_COLOR_TEXT] = 0xe6e6e6ff,       [ZE_UI_COLOR_WINDOW] = 0x1c1f24f0,
    [ZE_UI_COLOR_TITLE] = 0x2b3038ff,      [ZE_UI_COLOR_TITLE_ACTIVE] = 0x35507aff,
    [ZE_UI_COLOR_PANEL] = 0x24282ee0,      [ZE_UI_COLOR_BUTTON] = 0x3a4250ff,
    [ZE_UI_COLOR_BUTTON_HOT] = 0x4a5568ff, [ZE_UI_COLOR_BUTTON_ACTIVE] = 0x2f6fb5ff,
    [ZE_UI_COLOR_FRAME] = 0x15171bff,      [ZE_UI_COLOR_FRAME_HOT] = 0x20242aff,
    [ZE_UI_COLOR_CHECK] = 0x5fa8ffff,      [ZE_UI_COLOR_GRAB] = 0x6b7686ff,
    [ZE_UI_COLOR_SELECTION] = 0x2f6fb580,  [ZE_UI_COLOR_CARET] = 0xffffffff,
    [ZE_UI_COLOR_BORDER] = 0x4a5260ff,     [ZE_UI_COLOR_FOCUS] = 0x5fa8ffff,
};

ze_ui_style_t ze_ui_style_default(void)
{
    ze_ui_style_t s = {
        .padding = 4.0f,
        .spacing = 4.0f,
        .corner_radius = 3.0f,
        .border_width = 1.0f,
        .slider_width = 160.0f,
        .text_field_width = 200.0f,
        .indent = 16.0f,
        .scrollbar_width = 6.0f,
        .wheel_step = 40.0f,
        .tooltip_frames = 30,
        .column_min_width = 16.0f,
    };
    for (int i = 0; i < ZE_UI_COLOR_COUNT; i++)
        s.colors[i] = g_colors[i];
    return s;
}

ze_ui_style_t *ze_ui_style(ze_ui_t *ui)
{
    return &ui->style;
}
