/* The showcase's heads-up display, built with the engine's ZUI context from
 * the game's on_render_ui: a window (moved by its title) with the frame
 * rate from the smoothed frame time, the render instances and lights in the
 * world, a pause button, and a small panel with the keys. The engine draws
 * it over the frame (the UI overlay pass), so `make demo`'s picture shows
 * it. In a run on the virtual clock (the demo) every value is the same on
 * every run, so the picture is too. */
#include <stdio.h>

#include "showcase.h"

void showcase_hud_frame(showcase_hud_t *h, double dt)
{
    /* an exponential average: steady on a steady clock, quick to follow */
    h->frame_time = h->frame_time > 0.0 ? h->frame_time * 0.9 + dt * 0.1 : dt;
}

bool showcase_hud_build(showcase_hud_t *h, ze_engine_t *e, ze_ui_t *ui, bool paused)
{
    ze_world_t *w = ze_engine_world(e);
    bool toggle = false;
    if (ze_ui_window_begin(ui, "ZEngine showcase",
                           &(ze_ui_window_desc_t){.x = 16, .y = 16, .width = 250, .height = 146})) {
        double ms = h->frame_time * 1000.0;
        ze_ui_labelf(ui, "%.0f FPS (%.1f ms a frame)", ms > 0.0 ? 1000.0 / ms : 0.0, ms);
        ze_ui_labelf(ui, "%u instances, %u lights", ze_component_population(w, ZE_ID(ze_mesh_t)),
                     ze_component_population(w, ZE_ID(ze_light_t)));
        ze_ui_row_begin(ui);
        toggle = ze_ui_button(ui, paused ? "Resume###pause" : "Pause###pause");
        ze_ui_label(ui, paused ? "spinning paused" : "spinning");
        ze_ui_row_end(ui);
        ze_ui_panel_begin(ui, "keys", ze_ui_pct(1, 0), ze_ui_children(1));
        ze_ui_label(ui, "SPACE  pause / resume");
        ze_ui_label(ui, "ESC    quit");
        ze_ui_panel_end(ui);
        ze_ui_window_end(ui);
    }
    return toggle;
}
