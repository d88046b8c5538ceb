/* A HUD with ZUI, the engine's immediate-mode UI: every frame the game
 * builds its boxes again in on_render_ui (a score, a health bar, a
 * button); the UI keeps what must survive frames (hover, presses) by each
 * box's key, lays the boxes out and writes a draw list, which the render
 * thread draws over the scene. Headless here, on the null backend, so we
 * read the layout back instead of looking at it.
 *
 * Run it in a project folder (project.json: the window is 640 x 360).
 */
#include <stdio.h>

#include <zengine/zengine.h>

typedef struct hud_t {
    int score;
    float health; /* 0..1 */
    int pauses;
    /* read back at the end */
    ze_ui_rect_t bar, fill, button;
    uint32_t instances;
    uint64_t frames;
} hud_t;

/* The game's state changes in on_update (here: points per frame, damage). */
static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)e, (void)dt;
    hud_t *h = user;
    h->score += 10;
    h->health = h->health > 0.75f ? h->health - 0.01f : 0.75f;
}

/* The HUD, built from scratch every frame. Boxes with a label are keyed
 * ("HUD/health/fill"); sizes are logical pixels (ze_ui_px), the second
 * number how strictly a box keeps its size when space runs out. */
static void on_render_ui(ze_engine_t *e, ze_ui_t *ui, void *user)
{
    (void)e;
    hud_t *h = user;
    ze_ui_push_box(ui, "HUD",
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_BACKGROUND,
                                       .x = 16,
                                       .y = 16,
                                       .padding_x = 8,
                                       .padding_y = 8,
                                       .spacing = 6,
                                       .background = 0x10141cc0,
                                       .corner_radius = 4});
    ze_ui_labelf(ui, "Score: %d", h->score);

    /* A bar: a dark track 200 px wide, a red fill as wide as the health. */
    ze_ui_push_box(ui, "health",
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_BACKGROUND,
                                       .layout = ZE_UI_LAYOUT_ROW,
                                       .width = ze_ui_px(200, 1),
                                       .height = ze_ui_px(12, 1),
                                       .background = 0x303030ff});
    ze_ui_box(ui, "fill",
              &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_BACKGROUND,
                                  .width = ze_ui_px(200 * h->health, 1),
                                  .height = ze_ui_pct(1, 1),
                                  .background = 0xd03030ff});
    ze_ui_pop_box(ui);

    /* A widget: true on the frame it was clicked (the mouse, or Enter
     * while it has the focus). */
    if (ze_ui_button(ui, "Pause"))
        h->pauses++;
    ze_ui_pop_box(ui);
}

/* After the last frame: where the layout put things, and what it drew. */
static void on_closing(ze_engine_t *e, void *user)
{
    hud_t *h = user;
    ze_ui_t *ui = ze_engine_ui(e);
    h->frames = ze_engine_frame_index(e);
    ze_ui_key_rect(ui, ze_ui_key_path("HUD/health"), &h->bar);
    ze_ui_key_rect(ui, ze_ui_key_path("HUD/health/fill"), &h->fill);
    ze_ui_key_rect(ui, ze_ui_key_path("HUD/Pause"), &h->button);
    h->instances = ze_ui_stats(ui).instances;
}

int main(void)
{
    hud_t hud = {.health = 1};
    ze_app_desc_t app = {.name = "zui_hud",
                         .user = &hud,
                         .on_update = on_update,
                         .on_render_ui = on_render_ui,
                         .on_closing = on_closing};
    ze_run_desc_t run = {
        .project = "project.json", .headless = true, .frames = 30, .fixed_dt = 1.0 / 60};
    ze_run_report_t rep;
    if (ze_app_run(&app, &run, &rep) != ZE_OK) {
        printf("zui_hud: the run failed: %s\n", rep.error);
        return 1;
    }
    float bar = hud.bar.x1 - hud.bar.x0, fill = hud.fill.x1 - hud.fill.x0;
    if (bar <= 0 || hud.button.x1 <= hud.button.x0) {
        printf("zui_hud: the HUD was not laid out\n");
        return 1;
    }
    printf("zui_hud: %llu frames, score %d, health bar %.0f of %.0f px, 'Pause' button %.0fx%.0f "
           "at (%.0f, %.0f), %u instances\n",
           (unsigned long long)hud.frames, hud.score, fill, bar, hud.button.x1 - hud.button.x0,
           hud.button.y1 - hud.button.y0, hud.button.x0, hud.button.y0, hud.instances);
    return 0;
}
