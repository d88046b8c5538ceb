/* ui_bench.c — bench_ui: ZUI frames against Dear ImGui in the same process.
 *
 * The work of issue ZUI's targets: 5k rows of (row + label) = 10k boxes in
 * a scroll region over a 1280 x 720 target, each frame begin (a mouse move:
 * the interaction pass over the previous frame's boxes) + build + layout +
 * draw list; the same rows built and rendered to draw data by Dear ImGui
 * 1.86 (ui_imgui_ref.cpp; Debian's libimgui-dev) as the baseline, in
 * interleaved rounds. Without libimgui-dev the baseline is the same work
 * done the plain-C way (format each row, place it, one quad per glyph into
 * an array; see bench/README.md). Rows: frame time at 10k and 1k boxes
 * (median, and the 10k p95 over single frames), layout alone per box at
 * 10k and 1k and their ratio, a 10^6-row virtual list against a 10^3-row
 * one (the same view), heap allocations per frame after two warm-up frames
 * (ze_mem_allocation_count), draw calls at 10k boxes (the ui pass draws
 * the instance stream in one instanced draw, images included: bindless
 * textures; ImGui's ImDrawCmd count as the baseline). The font is DejaVu Sans (the engine's).
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_internal.h"
#include "zengine/ui.h"
#ifdef ZE_BENCH_HAVE_IMGUI
#include "ui_imgui_ref.h"
#endif

enum { W = 1280, H = 720 };

typedef struct env_t {
    ze_mem_t *mm;
    ze_ui_t *ui;
    void *font;
    size_t font_size;
    int rows;        /* rows of row + label */
    uint32_t frames; /* per round */
    uint64_t frame;  /* mouse wiggle */
    uint64_t list_rows;
#ifdef ZE_BENCH_HAVE_IMGUI
    ze_bench_imgui_t *gui;
#endif
    /* the plain-C baseline's output */
    ze_ui_instance_t *quads;
    size_t quad_cap;
} env_t;

static bool load_font(env_t *e)
{
    FILE *f = fopen(ZE_BENCH_FONT, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n <= 0) {
        fclose(f);
        return false;
    }
    e->font = ze_bench_table_alloc((size_t)n);
    e->font_size = fread(e->font, 1, (size_t)n, f);
    fclose(f);
    return e->font_size == (size_t)n;
}

static ze_ui_event_t mouse(env_t *e)
{
    e->frame++;
    return (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_MOVE,
                           .x = 300.0f + (float)(e->frame & 7),
                           .y = 200.0f + (float)(e->frame & 3)};
}

static void build_rows(ze_ui_t *ui, int rows)
{
    ze_ui_scroll_begin(ui, "rows", ze_ui_pct(1, 1), ze_ui_pct(1, 1));
    for (int i = 0; i < rows; i++) {
        ze_ui_row_begin(ui);
        ze_ui_labelf(ui, "row %d", i);
        ze_ui_row_end(ui);
    }
    ze_ui_scroll_end(ui);
}

static void zui_frame(env_t *e)
{
    ze_ui_event_t ev = mouse(e);
    ZE_VERIFY(ze_ui_begin_frame(e->ui, W, H, 1.0f / 60.0f, &ev, 1) == ZE_OK);
    build_rows(e->ui, e->rows);
    ZE_VERIFY(ze_ui_end_frame(e->ui) == ZE_OK);
    ze_bench_do_not_optimize(ze_ui_draw_list(e->ui).instances);
}

static double zui_round(void *ctx)
{
    env_t *e = ctx;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < e->frames; i++)
        zui_frame(e);
    return (double)(ze_bench_now_ns() - t0) * 1e-6 / e->frames;
}

#ifndef ZE_BENCH_HAVE_IMGUI
/* The plain-C baseline: what the frame produces, the obvious way. */
static void plain_frame(env_t *e, int rows)
{
    float line = ze_ui_line_height(e->ui), y = 0.0f;
    size_t n = 0;
    char buf[32];
    for (int i = 0; i < rows; i++, y += line + 4.0f) {
        int len = snprintf(buf, sizeof buf, "row %d", i);
        if (y > (float)H)
            continue; /* off the target: measured, not drawn */
        float x = 0.0f;
        for (int k = 0; k < len; k++) {
            ze_ui_glyph_info_t g;
            ze_ui_glyph_info(e->ui, (unsigned char)buf[k], &g);
            if (n == e->quad_cap)
                break;
            e->quads[n++] = (ze_ui_instance_t){.rect = {x, y, x + g.width, y + g.height},
                                               .uv = g.uv,
                                               .color = 0xffffffffu,
                                               .kind = ZE_UI_INSTANCE_GLYPH};
            x += g.advance;
        }
    }
    ze_bench_do_not_optimize(e->quads);
}
#endif

static double base_round(void *ctx)
{
    env_t *e = ctx;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < e->frames; i++) {
#ifdef ZE_BENCH_HAVE_IMGUI
        ze_bench_imgui_frame(e->gui, e->rows, 300.0f + (float)(i & 7), 200.0f, NULL);
#else
        plain_frame(e, e->rows);
#endif
    }
    return (double)(ze_bench_now_ns() - t0) * 1e-6 / e->frames;
}

static const char *baseline_name(void)
{
#ifdef ZE_BENCH_HAVE_IMGUI
    return "Dear ImGui 1.86";
#else
    return "plain C (libimgui-dev absent)";
#endif
}

/* -------------------------------------------------------- frame rows */

/* name: value against the baseline (the ratio target is expected_rows.json's);
 * abs_name (optional): the same value against an absolute target;
 * ratio_name (optional): the median ratio of the rounds against ratio_target
 * (the "<= 1.0x ImGui" as a row with its own target). */
static void bench_frames(ze_bench_t *b, env_t *e, int rows, const char *name, double target,
                         const char *abs_name, double abs_target, const char *ratio_name,
                         double ratio_target)
{
    if (!ze_bench_enabled(b, name))
        return;
    e->rows = rows;
    e->frames = (uint32_t)ze_bench_size(b, 20, 2);
    ze_bench_pair_t p = ze_bench_compare(ze_bench_rounds(b, 9), zui_round, e, base_round, e);
    uint64_t boxes = (uint64_t)rows * 2;
    ze_bench_add(b, name, boxes, "ms/frame", ZE_BENCH_LOWER, p.value, p.baseline, target);
    if (abs_name)
        ze_bench_add(b, abs_name, boxes, "ms/frame", ZE_BENCH_LOWER, p.value, ZE_BENCH_NONE,
                     abs_target);
    if (ratio_name)
        ze_bench_add(b, ratio_name, boxes, "ratio", ZE_BENCH_LOWER, p.ratio, ZE_BENCH_NONE,
                     ratio_target);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench_p95(ze_bench_t *b, env_t *e)
{
    const char *name = "frame_10k_boxes_p95";
    if (!ze_bench_enabled(b, name))
        return;
    e->rows = (int)ze_bench_size(b, 5000, 500);
    uint32_t n = (uint32_t)ze_bench_size(b, 200, 10);
    double *t = ze_bench_table_alloc(sizeof *t * n);
    zui_frame(e);
    zui_frame(e);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t0 = ze_bench_now_ns();
        zui_frame(e);
        t[i] = (double)(ze_bench_now_ns() - t0) * 1e-6;
    }
    qsort(t, n, sizeof *t, cmp_double);
    double p95 = t[(size_t)((double)(n - 1) * 0.95)];
    ze_bench_table_free(t);
    ze_bench_add(b, name, (uint64_t)e->rows * 2, "ms/frame", ZE_BENCH_LOWER, p95, ZE_BENCH_NONE,
                 3.0);
}

/* ----------------------------------------------------------- layout */

/* Layout alone, ns per box: the tree of one frame laid out `reps` times,
 * the whole solve each time (sizes from the descs and the children, as a
 * frame whose tree changed after it was built does; a frame otherwise
 * sizes boxes as they close, during the build), conflicts, positions. */
static double layout_ns_per_box(env_t *e, int rows, uint32_t reps)
{
    ze_ui_event_t ev = mouse(e);
    ZE_VERIFY(ze_ui_begin_frame(e->ui, W, H, 1.0f / 60.0f, &ev, 1) == ZE_OK);
    build_rows(e->ui, rows);
    uint32_t boxes = e->ui->box_count;
    ze__ui_layout(e->ui, true, NULL); /* warm */
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < reps; i++)
        ze__ui_layout(e->ui, true, NULL);
    double ns = (double)(ze_bench_now_ns() - t0) / reps / boxes;
    ZE_VERIFY(ze_ui_end_frame(e->ui) == ZE_OK);
    return ns;
}

static void bench_layout(ze_bench_t *b, env_t *e)
{
    if (!ze_bench_enabled(b, "layout"))
        return;
    int big = (int)ze_bench_size(b, 5000, 500), small = big / 10;
    uint32_t rounds = ze_bench_rounds(b, 9), reps = (uint32_t)ze_bench_size(b, 20, 2);
    double vb[64], vs[64];
    rounds = rounds > 64 ? 64 : rounds;
    for (uint32_t r = 0; r < rounds; r++) {
        vb[r] = layout_ns_per_box(e, big, reps);
        vs[r] = layout_ns_per_box(e, small, reps * 10);
    }
    double nb = ze_bench_median(vb, rounds), ns = ze_bench_median(vs, rounds);
    ze_bench_add(b, "layout_ns_per_box", (uint64_t)big * 2, "ns/op", ZE_BENCH_LOWER, nb,
                 ZE_BENCH_NONE, 80.0);
    ze_bench_add(b, "layout_ns_per_box", (uint64_t)small * 2, "ns/op", ZE_BENCH_LOWER, ns,
                 ZE_BENCH_NONE, 80.0);
    ze_bench_add(b, "layout_per_box_10k_vs_1k", (uint64_t)big * 2, "ratio", ZE_BENCH_LOWER,
                 ns > 0.0 ? nb / ns : 0.0, ZE_BENCH_NONE, 1.5);
}

/* ----------------------------------------------------- virtual list */

static void list_frame(env_t *e)
{
    ze_ui_event_t ev = mouse(e);
    ZE_VERIFY(ze_ui_begin_frame(e->ui, W, H, 1.0f / 60.0f, &ev, 1) == ZE_OK);
    ze_ui_list_range_t r =
        ze_ui_list_begin(e->ui, "list", e->list_rows, 18.0f, ze_ui_pct(1, 1), ze_ui_pct(1, 1));
    for (uint64_t i = r.first; i < r.first + r.count; i++) {
        ze_ui_list_row_begin(e->ui, i);
        /* zero-padded: both lists draw the same glyphs (row 0000500 and
           row 0500000), so the ratio is what the row count costs, not
           three more digits a row */
        ze_ui_labelf(e->ui, "row %07llu", (unsigned long long)i);
        ze_ui_list_row_end(e->ui);
    }
    ze_ui_list_end(e->ui);
    ZE_VERIFY(ze_ui_end_frame(e->ui) == ZE_OK);
}

typedef struct list_ctx {
    env_t *e;
    uint64_t rows;
} list_ctx;

static double list_round(void *ctx)
{
    list_ctx *l = ctx;
    env_t *e = l->e;
    e->list_rows = l->rows;
    list_frame(e); /* settle the scroll position for this list */
    ze_ui_list_scroll_to(e->ui, ze_ui_key_path("list"), l->rows / 2);
    list_frame(e);
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < e->frames; i++)
        list_frame(e);
    return (double)(ze_bench_now_ns() - t0) * 1e-6 / e->frames;
}

static void bench_list(ze_bench_t *b, env_t *e)
{
    if (!ze_bench_enabled(b, "virtual_list"))
        return;
    e->frames = (uint32_t)ze_bench_size(b, 50, 2);
    list_ctx big = {e, 1000000}, small = {e, 1000};
    ze_bench_pair_t p =
        ze_bench_compare(ze_bench_rounds(b, 9), list_round, &big, list_round, &small);
    ze_bench_add(b, "virtual_list_1m", big.rows, "ms/frame", ZE_BENCH_LOWER, p.value, p.baseline,
                 0.1);
    ze_bench_add(b, "virtual_list_1m_vs_1k", big.rows, "ratio", ZE_BENCH_LOWER, p.ratio,
                 ZE_BENCH_NONE, 1.2);
#ifdef ZE_BENCH_HAVE_IMGUI
    /* for the reader: ImGui's clipper on the same list (not a target) */
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < e->frames; i++)
        ze_bench_imgui_list_frame(e->gui, 1000000, 500000, 300.0f, 200.0f);
    double ms = (double)(ze_bench_now_ns() - t0) * 1e-6 / e->frames;
    ze_bench_add(b, "virtual_list_1m_imgui", big.rows, "ms/frame", ZE_BENCH_LOWER, ms,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
#endif
}

/* --------------------------------------------- allocations, draw calls */

static void bench_counts(ze_bench_t *b, env_t *e)
{
    if (!ze_bench_enabled(b, "per_frame"))
        return;
    e->rows = (int)ze_bench_size(b, 5000, 500);
    zui_frame(e);
    zui_frame(e); /* two warm-up frames */
    uint32_t n = (uint32_t)ze_bench_size(b, 100, 5);
    uint64_t a0 = ze_mem_allocation_count(e->mm);
    for (uint32_t i = 0; i < n; i++)
        zui_frame(e);
    double per = (double)(ze_mem_allocation_count(e->mm) - a0) / n;
    ze_bench_add(b, "per_frame_allocations", (uint64_t)e->rows * 2, "count", ZE_BENCH_LOWER, per,
                 ZE_BENCH_NONE, 0.0);
    /* draw calls: the ui pass draws the whole list in one instanced draw
       (rects, glyphs from the atlas, images from the bindless textures) */
    ze_ui_draw_list_t dl = ze_ui_draw_list(e->ui);
    uint32_t calls = dl.count ? 1 : 0;
    double base = ZE_BENCH_NONE;
#ifdef ZE_BENCH_HAVE_IMGUI
    ze_bench_imgui_stats_t st;
    ze_bench_imgui_frame(e->gui, e->rows, 300.0f, 200.0f, &st);
    base = st.draw_calls;
#endif
    ze_bench_add(b, "per_frame_draw_calls", (uint64_t)e->rows * 2, "count", ZE_BENCH_LOWER, calls,
                 base, 8.0);
    ze_bench_add(b, "per_frame_instances", (uint64_t)e->rows * 2, "count", ZE_BENCH_LOWER, dl.count,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "ui", argc, argv);
    env_t e = {0};
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    if (!load_font(&e)) {
        ze_bench_fail(&b, "setup", "cannot read the font %s", ZE_BENCH_FONT);
        return ze_bench_finish(&b);
    }
    if (ze_mem_create(&(ze_mem_desc_t){0}, &e.mm) != ZE_OK ||
        ze_ui_create(
            &(ze_ui_desc_t){.mem = e.mm, .font = {.ttf_data = e.font, .ttf_size = e.font_size}},
            &e.ui) != ZE_OK) {
        ze_bench_fail(&b, "setup", "no ZUI context");
        return ze_bench_finish(&b);
    }
    e.quad_cap = 1 << 16;
    e.quads = ze_bench_table_alloc(sizeof *e.quads * e.quad_cap);
#ifdef ZE_BENCH_HAVE_IMGUI
    e.gui = ze_bench_imgui_create(W, H);
#endif
    printf("bench_ui: baseline %s\n", baseline_name());
    int big = (int)ze_bench_size(&b, 5000, 500);
    bench_frames(&b, &e, big, "frame_10k_boxes", ZE_BENCH_NONE, "frame_10k_boxes_abs", 2.0,
                 "frame_10k_boxes_vs_baseline", 1.0);
    bench_p95(&b, &e);
    bench_frames(&b, &e, big / 10, "frame_1k_boxes", 0.25, NULL, 0.0, NULL, 0.0);
    bench_layout(&b, &e);
    bench_list(&b, &e);
    bench_counts(&b, &e);
#ifdef ZE_BENCH_HAVE_IMGUI
    ze_bench_imgui_destroy(e.gui);
#endif
    ze_bench_table_free(e.quads);
    ze_ui_destroy(e.ui);
    ze_mem_destroy(e.mm);
    ze_bench_table_free(e.font);
    return ze_bench_finish(&b);
}
