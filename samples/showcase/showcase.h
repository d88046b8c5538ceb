/* The showcase's parts, one file each. */
#ifndef SHOWCASE_H
#define SHOWCASE_H

#include <zengine/zengine.h>

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js);
bool showcase_assets(ze_mem_t *mm, ze_job_system_t *js);
int showcase_tour(int argc, char **argv);
int showcase_game(int argc, char **argv);

/* hud.c: the heads-up display. _frame from on_update (the frame time),
 * _build from on_render_ui; it returns true when the pause button was
 * clicked. */
typedef struct showcase_hud_t {
    double frame_time; /* seconds, smoothed */
} showcase_hud_t;
void showcase_hud_frame(showcase_hud_t *h, double dt);
bool showcase_hud_build(showcase_hud_t *h, ze_engine_t *e, ze_ui_t *ui, bool paused);

#endif
