/* Randomized trees (seeded, so a failure names its seed) against the
 * layout's invariants: sizes are never negative; a child lies inside its
 * parent on every axis the parent does not scroll (children that may
 * shrink always fit: strictness is random only under a scrolling axis);
 * siblings in the flow never overlap along their parent's axis, scrolled
 * or not; clip rectangles nest. Then random scroll offsets, and the same
 * tree in a second context gives a byte-identical draw list, and the
 * sizes the build computes as boxes close are those a whole solve of the
 * finished tree computes. */
#include <stdio.h>

#include "ui/ui_internal.h"
#include "ui_test_util.h"

enum { MAX_NODES = 400, TREES = 300, MAX_DEPTH = 6 };

typedef struct rnode {
    ze_ui_box_t *box;
    int parent; /* -1: the root */
    int axis;   /* of its children: 0 = x (row), 1 = y (column) */
    bool scroll[2], floating;
} rnode;

typedef struct rtree {
    uint64_t seed;
    ze_rng_t rng;
    rnode nodes[MAX_NODES];
    int n;
} rtree;

static float unit(rtree *t)
{
    return (float)ze_rng_unit(&t->rng);
}

static ze_ui_size_t rand_size(rtree *t, bool any_strictness)
{
    float strict = any_strictness ? unit(t) : 0.0f;
    switch (ze_rng_below(&t->rng, 4)) {
    case 0:
        return ze_ui_px((float)ze_rng_below(&t->rng, 300), strict);
    case 1:
        return ze_ui_text_size(strict);
    case 2:
        return ze_ui_pct(unit(t) * 1.2f, strict);
    default:
        return ze_ui_children(strict);
    }
}

static void gen(ze_ui_t *ui, rtree *t, int parent, int depth)
{
    int kids = depth < MAX_DEPTH ? (int)ze_rng_below(&t->rng, depth == 0 ? 6 : 5) : 0;
    const bool *pscroll = parent >= 0 ? t->nodes[parent].scroll : (const bool[2]){false, false};
    for (int k = 0; k < kids && t->n < MAX_NODES; k++) {
        int i = t->n++;
        rnode *nd = &t->nodes[i];
        nd->parent = parent;
        nd->axis = (int)ze_rng_below(&t->rng, 2);
        nd->scroll[0] = ze_rng_below(&t->rng, 8) == 0;
        nd->scroll[1] = ze_rng_below(&t->rng, 6) == 0;
        nd->floating = ze_rng_below(&t->rng, 20) == 0;
        static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
        char text[16];
        int len = (int)ze_rng_below(&t->rng, 12);
        for (int c = 0; c < len; c++)
            text[c] = letters[ze_rng_below(&t->rng, 26)];
        text[len] = 0;
        char label[24];
        snprintf(label, sizeof label, "n%d", i);
        ze_ui_box_desc_t d = {
            .flags = (nd->scroll[0] ? ZE_UI_BOX_SCROLL_X : 0u) |
                     (nd->scroll[1] ? ZE_UI_BOX_SCROLL_Y : 0u) |
                     (nd->floating ? ZE_UI_BOX_FLOATING : 0u) | ZE_UI_BOX_BACKGROUND,
            .width = rand_size(t, pscroll[0]),
            .height = rand_size(t, pscroll[1]),
            .layout = nd->axis == 0 ? ZE_UI_LAYOUT_ROW : ZE_UI_LAYOUT_COLUMN,
            .align_x = (ze_ui_align)ze_rng_below(&t->rng, 3),
            .align_y = (ze_ui_align)ze_rng_below(&t->rng, 3),
            .padding_x = (float)ze_rng_below(&t->rng, 13),
            .padding_y = (float)ze_rng_below(&t->rng, 13),
            .spacing = (float)ze_rng_below(&t->rng, 11),
            .x = (float)ze_rng_below(&t->rng, 100),
            .y = (float)ze_rng_below(&t->rng, 100),
            .text = len ? text : NULL,
            .background = 0x102030ffu + (uint32_t)i,
        };
        nd->box = ze_ui_push_box(ui, label, &d);
        gen(ui, t, i, depth + 1);
        ze_ui_pop_box(ui);
    }
}

static void build_random(ze_ui_t *ui, void *user)
{
    rtree *t = user;
    ze_rng_seed(&t->rng, t->seed);
    t->n = 0;
    gen(ui, t, -1, 0);
}

static float lo(ze_ui_rect_t r, int a)
{
    return a ? r.y0 : r.x0;
}

static float hi(ze_ui_rect_t r, int a)
{
    return a ? r.y1 : r.x1;
}

#define EPS 0.01f

static void fail_at(const rtree *t, int i, const char *what)
{
    print_error("seed %llu: box n%d (parent %d): %s\n", (unsigned long long)t->seed, i,
                t->nodes[i].parent, what);
    fail();
}

static void check_invariants(const rtree *t)
{
    const ze_ui_rect_t root = {0, 0, UT_W, UT_H};
    for (int i = 0; i < t->n; i++) {
        const rnode *nd = &t->nodes[i];
        ze_ui_rect_t r = ze_ui_box_rect(nd->box), c = ze_ui_box_clip(nd->box);
        const rnode *p = nd->parent >= 0 ? &t->nodes[nd->parent] : NULL;
        ze_ui_rect_t pr = p ? ze_ui_box_rect(p->box) : root;
        ze_ui_rect_t pc = p ? ze_ui_box_clip(p->box) : root;
        /* an empty clip (the parent's clip misses the box) shows nothing */
        bool clip_empty = c.x1 - c.x0 <= EPS || c.y1 - c.y0 <= EPS;
        for (int a = 0; a < 2; a++) {
            if (hi(r, a) < lo(r, a) - EPS)
                fail_at(t, i, "negative size");
            if (!nd->floating && !(p && p->scroll[a]) &&
                (lo(r, a) < lo(pr, a) - EPS || hi(r, a) > hi(pr, a) + EPS))
                fail_at(t, i, a ? "outside its parent (y)" : "outside its parent (x)");
            /* Clips nest: inside the parent's clip, and inside the parent
             * when the parent clips (every scrolling box does). */
            if (clip_empty)
                continue;
            if (lo(c, a) < lo(pc, a) - EPS || hi(c, a) > hi(pc, a) + EPS)
                fail_at(t, i, "clip outside the parent's clip");
            if (p && (p->scroll[0] || p->scroll[1]) &&
                (lo(c, a) < lo(pr, a) - EPS || hi(c, a) > hi(pr, a) + EPS))
                fail_at(t, i, "clip outside a clipping parent");
        }
    }
    /* Siblings in the flow, in build order, along the parent's axis. */
    for (int i = 0; i < t->n; i++) {
        const rnode *nd = &t->nodes[i];
        if (nd->floating)
            continue;
        int axis = nd->parent >= 0 ? t->nodes[nd->parent].axis : 1;
        for (int j = i + 1; j < t->n; j++) {
            const rnode *sib = &t->nodes[j];
            if (sib->parent != nd->parent || sib->floating)
                continue;
            if (lo(ze_ui_box_rect(sib->box), axis) < hi(ze_ui_box_rect(nd->box), axis) - EPS)
                fail_at(t, j, "overlaps its previous sibling");
            break; /* the next sibling in the flow */
        }
    }
}

static void test_random_trees(void **state)
{
    (void)state;
    static rtree tree;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_random, &tree);
    int nodes = 0, scrolled = 0;
    for (int k = 0; k < TREES; k++) {
        tree.seed = 0x5eed0000u + (uint64_t)k;
        assert_int_equal(ut_frame(&t), ZE_OK);
        check_invariants(&tree);
        nodes += tree.n;
        /* Random offsets in every scrolling box, then again. */
        ze_rng_t r;
        ze_rng_seed(&r, tree.seed ^ 0xabcdu);
        for (int i = 0; i < tree.n; i++) {
            rnode *nd = &tree.nodes[i];
            if (nd->scroll[0] || nd->scroll[1]) {
                ze_ui_set_scroll(t.ui, ze_ui_box_key(nd->box), (float)ze_rng_below(&r, 400),
                                 (float)ze_rng_below(&r, 400));
                scrolled++;
            }
        }
        assert_int_equal(ut_frame(&t), ZE_OK);
        check_invariants(&tree);
        for (int i = 0; i < tree.n; i++) {
            ze_vec2_t s = ze_ui_scroll(t.ui, ze_ui_box_key(tree.nodes[i].box));
            assert_true(s.x >= 0.0f && s.y >= 0.0f);
        }
    }
    assert_true(nodes > TREES * 10); /* the generator makes real trees */
    assert_true(scrolled > TREES / 4);
    ut_fini(&t);
}

/* Boxes are sized as they close; a tree changed after that is sized again
 * as a whole (ze__ui_layout(ui, true)). Both give the same floats. */
static void test_sizes_as_built_equal_a_whole_solve(void **state)
{
    (void)state;
    static rtree tree;
    static ze_ui_rect_t rects[MAX_NODES];
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_random, &tree);
    for (int k = 0; k < TREES; k++) {
        tree.seed = 0xb0170000u + (uint64_t)k;
        assert_int_equal(ut_frame(&t), ZE_OK);
        for (int i = 0; i < tree.n; i++)
            rects[i] = ze_ui_box_rect(tree.nodes[i].box);
        ze__ui_layout(t.ui, true, NULL);
        for (int i = 0; i < tree.n; i++) {
            ze_ui_rect_t r = ze_ui_box_rect(tree.nodes[i].box);
            if (memcmp(&r, &rects[i], sizeof r) != 0)
                fail_at(&tree, i, "a whole solve moves it");
        }
    }
    ut_fini(&t);
}

static void test_draw_list_is_deterministic(void **state)
{
    (void)state;
    static rtree a, b;
    ut_t ta, tb;
    ut_init(&ta, (ze_ui_desc_t){0}, build_random, &a);
    ze_ui_t *ui_b = NULL;
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){.mem = ta.mm, .font = {.fixed = true}}, &ui_b),
                     ZE_OK);
    tb = ta;
    tb.ui = ui_b;
    tb.user = &b;
    for (int k = 0; k < 20; k++) {
        a.seed = b.seed = 0xd1ce0000u + (uint64_t)k;
        assert_int_equal(ut_frame(&ta), ZE_OK);
        assert_int_equal(ut_frame(&tb), ZE_OK);
        ze_ui_draw_list_t da = ze_ui_draw_list(ta.ui), db = ze_ui_draw_list(ui_b);
        assert_int_equal(da.count, db.count);
        assert_memory_equal(da.instances, db.instances, sizeof *da.instances * da.count);
    }
    ze_ui_destroy(ui_b);
    ut_fini(&ta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_sizes_as_built_equal_a_whole_solve),
        cmocka_unit_test(test_draw_list_is_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
