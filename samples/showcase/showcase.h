/* The showcase's parts, one file each. */
#ifndef SHOWCASE_H
#define SHOWCASE_H

#include <zengine/zengine.h>

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js);
bool showcase_assets(ze_mem_t *mm, ze_job_system_t *js);
int showcase_tour(int argc, char **argv);
int showcase_game(int argc, char **argv);

/* hud.c: the heads-up display. _frame from on_update (the frame time,
 * the log ring's new records, F1 toggling the console), _build from
 * on_render_ui; it returns true when the pause button was clicked. */
enum { SHOWCASE_HUD_GRAPH = 64, SHOWCASE_HUD_LINES = 64, SHOWCASE_HUD_LINE = 120 };
typedef struct showcase_hud_t {
    double frame_time;               /* seconds, smoothed */
    float graph[SHOWCASE_HUD_GRAPH]; /* the last frame times, seconds (a ring) */
    uint32_t graph_at;
    bool console;                                      /* the log console shows (F1) */
    uint64_t log_cursor;                               /* ze_log_ring_read's */
    char lines[SHOWCASE_HUD_LINES][SHOWCASE_HUD_LINE]; /* the last log lines (a ring) */
    uint32_t line_count;                               /* lines seen in all */
} showcase_hud_t;
void showcase_hud_frame(showcase_hud_t *h, ze_engine_t *e, double dt);
bool showcase_hud_build(showcase_hud_t *h, ze_engine_t *e, ze_ui_t *ui, bool paused);

#endif
