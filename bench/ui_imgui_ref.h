/* ui_imgui_ref.h — the Dear ImGui reference of bench_ui (ui_imgui_ref.cpp,
 * the one C++ file of the tree, built only when Debian's libimgui-dev is
 * present): the same rows built, laid out and turned into draw data by
 * Dear ImGui 1.86 in the same process. */
#ifndef ZE_BENCH_UI_IMGUI_REF_H
#define ZE_BENCH_UI_IMGUI_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ze_bench_imgui_t ze_bench_imgui_t;

typedef struct ze_bench_imgui_stats_t {
    uint32_t draw_calls; /* ImDrawCmd count over every draw list */
    uint32_t vertices;
} ze_bench_imgui_stats_t;

ze_bench_imgui_t *ze_bench_imgui_create(int width, int height);
void ze_bench_imgui_destroy(ze_bench_imgui_t *g);
/* One frame: NewFrame, a full-target window of `rows` groups of one text
 * line ("row <i>"), Render; the mouse at (mx, my). */
void ze_bench_imgui_frame(ze_bench_imgui_t *g, int rows, float mx, float my,
                          ze_bench_imgui_stats_t *out);
/* A 10^3 or 10^6-row list through ImGuiListClipper (only visible rows). */
void ze_bench_imgui_list_frame(ze_bench_imgui_t *g, int rows, int first, float mx, float my);

#ifdef __cplusplus
}
#endif
#endif
