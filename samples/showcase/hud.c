/* The showcase's heads-up display, built with the engine's ZUI context from
 * the game's on_render_ui: a window (moved by its title) with the frame
 * rate from the smoothed frame time, the render instances and lights in the
 * world, a pause button, and a small panel with the keys; a second window
 * with a graph of the last 64 frame times and the memory owners using the
 * most (the memory manager's snapshot); and the log console (the log ring
 * buffer's last lines in a virtual list), toggled by F1. The engine draws
 * it over the frame (the UI overlay pass), so `make demo`'s picture shows
 * it. In a run on the virtual clock (the demo) every value is the same on
 * every run, so the picture is too. */
#include <stdio.h>
#include <string.h>

#include "showcase.h"

enum { GRAPH_H = 40, BAR_W = 3, OWNERS_SHOWN = 5 };

void showcase_hud_frame(showcase_hud_t *h, ze_engine_t *e, double dt)
{
    /* an exponential average: steady on a steady clock, quick to follow */
    h->frame_time = h->frame_time > 0.0 ? h->frame_time * 0.9 + dt * 0.1 : dt;
    h->graph[h->graph_at++ % SHOWCASE_HUD_GRAPH] = (float)dt;
    if (ze_input_key_pressed(ze_engine_input(e), ZE_KEY_F1))
        h->console = !h->console;
    ze_log_record_t rec[8];
    uint32_t n;
    while ((n = ze_log_ring_read(&h->log_cursor, rec, 8, NULL)) > 0) {
        for (uint32_t i = 0; i < n; i++) {
            char *line = h->lines[h->line_count++ % SHOWCASE_HUD_LINES];
            snprintf(line, SHOWCASE_HUD_LINE, "[%-5.5s] %.15s: %.90s",
                     ze_log_level_name(rec[i].level), rec[i].channel, rec[i].message);
        }
    }
}

static void graph(showcase_hud_t *h, ze_ui_t *ui)
{
    float most = 1.0f / 30.0f; /* the scale: at least 33 ms */
    for (int i = 0; i < SHOWCASE_HUD_GRAPH; i++)
        most = h->graph[i] > most ? h->graph[i] : most;
    ze_ui_labelf(ui, "frame time (full scale %.0f ms)", (double)most * 1000.0);
    ze_ui_push_box(ui, NULL,
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_BACKGROUND,
                                       .layout = ZE_UI_LAYOUT_ROW,
                                       .align_y = ZE_UI_ALIGN_END,
                                       .width = ze_ui_children(1),
                                       .height = ze_ui_px(GRAPH_H, 1),
                                       .background = 0x101216ff});
    uint32_t start = h->graph_at; /* oldest first */
    for (uint32_t i = 0; i < SHOWCASE_HUD_GRAPH; i++) {
        float t = h->graph[(start + i) % SHOWCASE_HUD_GRAPH];
        float bar = t > 0.0f ? t / most * GRAPH_H : 0.0f;
        ze_ui_box(ui, NULL,
                  &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_BACKGROUND,
                                      .width = ze_ui_px(BAR_W, 1),
                                      .height = ze_ui_px(bar < 1.0f ? 1.0f : bar, 1),
                                      .background = t > 1.0f / 50.0f ? 0xe0604cffu : 0x5fa8ffffu});
    }
    ze_ui_pop_box(ui);
}

static void memory(ze_engine_t *e, ze_ui_t *ui)
{
    ze_mem_t *mm = ze_engine_mem(e);
    if (!mm)
        return;
    ze_mem_owner_stats_t st[ZE_MEM_OWNER_COUNT];
    ze_mem_snapshot(mm, st);
    bool shown[ZE_MEM_OWNER_COUNT] = {0};
    static const char *const heads[] = {"memory owner", "in use"};
    ze_ui_table_begin(
        ui, "owners",
        &(ze_ui_table_desc_t){.columns = 2, .headers = heads, .widths = (const float[]){120, 90}});
    for (int k = 0; k < OWNERS_SHOWN; k++) {
        int best = -1; /* the next largest */
        for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
            if (!shown[i] && st[i].current && (best < 0 || st[i].current > st[best].current))
                best = i;
        if (best < 0)
            break;
        shown[best] = true;
        ze_ui_table_row_begin(ui);
        ze_ui_table_cell(ui);
        ze_ui_label(ui, ze_mem_owner_name((ze_mem_owner)best));
        ze_ui_table_cell(ui);
        ze_ui_labelf(ui, "%.1f MiB", (double)st[best].current / (1024.0 * 1024.0));
        ze_ui_table_row_end(ui);
    }
    ze_ui_table_end(ui);
}

static void console(showcase_hud_t *h, ze_ui_t *ui)
{
    if (!ze_ui_window_begin(ui, "Console",
                            &(ze_ui_window_desc_t){.x = 290, .y = 16, .width = 620, .height = 240}))
        return;
    uint32_t kept = h->line_count < SHOWCASE_HUD_LINES ? h->line_count : SHOWCASE_HUD_LINES;
    uint32_t first_line = h->line_count - kept;
    ze_ui_list_range_t r =
        ze_ui_list_begin(ui, "log", kept, 18.0f, ze_ui_pct(1, 0), ze_ui_pct(1, 0));
    for (uint64_t i = r.first; i < r.first + r.count; i++) {
        ze_ui_list_row_begin(ui, first_line + i);
        ze_ui_label(ui, h->lines[(first_line + i) % SHOWCASE_HUD_LINES]);
        ze_ui_list_row_end(ui);
    }
    ze_ui_list_end(ui);
    ze_ui_list_scroll_to(ui, ze_ui_key_path("Console/log"), kept); /* follow the tail */
    ze_ui_window_end(ui);
}

bool showcase_hud_build(showcase_hud_t *h, ze_engine_t *e, ze_ui_t *ui, bool paused)
{
    ze_world_t *w = ze_engine_world(e);
    bool toggle = false;
    if (ze_ui_window_begin(ui, "ZEngine showcase",
                           &(ze_ui_window_desc_t){.x = 16, .y = 16, .width = 250, .height = 166})) {
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
        ze_ui_label(ui, "F1     log console");
        ze_ui_label(ui, "ESC    quit");
        ze_ui_panel_end(ui);
        ze_ui_window_end(ui);
    }
    if (ze_ui_window_begin(
            ui, "Frame and memory",
            &(ze_ui_window_desc_t){.x = 16, .y = 190, .width = 250, .height = 236})) {
        graph(h, ui);
        memory(e, ui);
        ze_ui_window_end(ui);
    }
    if (h->console)
        console(h, ui);
    return toggle;
}
