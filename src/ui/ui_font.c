/* Fonts: a glyph atlas (8-bit coverage) filled on demand, either from a
 * TrueType font through stb_truetype (Debian's libstb-dev, compiled in this
 * one file; STBTT_malloc/STBTT_free go to the context's owner allocator
 * through the functions below, which prefix each block with its size since
 * stb frees without one) or from the fixed-metric font (every glyph the
 * same solid cell: exact rectangles for layout tests). A glyph the font
 * lacks, or one that finds no room once the atlas is at its largest, draws
 * as the replacement box. The atlas grows by doubling its height up to
 * 4096 texels; glyphs keep texel coordinates, so growth moves nothing.
 * stb_truetype trusts its input: the font must come from the packaged
 * assets, never from untrusted data. */
#include <math.h>
#include <string.h>

#include "ui/ui_internal.h"

struct ze__ui_font;
static void *font_stb_malloc(size_t size, void *user);
static void font_stb_free(void *ptr, void *user);

#define STBTT_malloc(x, u) font_stb_malloc((size_t)(x), (u))
#define STBTT_free(x, u)   font_stb_free((x), (u))
#define STBTT_assert(x)    ZE_ASSERT(x)
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#elif defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmissing-prototypes"
#pragma clang diagnostic ignored "-Wunused-function"
#pragma clang diagnostic ignored "-Wshadow"
#pragma clang diagnostic ignored "-Wstrict-prototypes"
#endif
#include <stb/stb_truetype.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#elif defined(__clang__)
#pragma clang diagnostic pop
#endif

enum {
    ATLAS_WIDTH = 512,
    ATLAS_START_HEIGHT = 256,
    ATLAS_MAX_HEIGHT = 4096,
    STB_HEADER = 16,
    KERN_FIRST = 32, /* the printable ASCII pairs have a table */
    KERN_COUNT = 96,
};

struct ze__ui_font {
    ze_ui_t *ui;
    ze_allocator_t alloc;
    bool ttf;
    bool has_kern;
    bool alloc_failed; /* set by the stb allocator: the bake in progress failed */
    bool full_reported;
    stbtt_fontinfo info;
    float stb_scale;
    float ascent, line_h; /* pixels */
    float fixed_w, fixed_h;
    uint8_t *pixels;
    uint32_t aw, ah;
    uint64_t revision;
    uint32_t shelf_x, shelf_y, shelf_h;
    uint16_t white_x, white_y; /* a 4x4 solid block */
    ze__ui_glyph replacement;
    ze__ui_glyph ascii[128];
    bool ascii_have[128];
    float ascii_advance[128]; /* ascii[c].advance, packed for ascii_run */
    ze_hashmap_t glyphs;      /* codepoint -> ze__ui_glyph, beyond ASCII */
    uint32_t glyph_count;
    float kern_ascii[KERN_COUNT][KERN_COUNT]; /* NaN: not looked up yet */
    ze_hashmap_t kerns;                       /* (a << 32 | b) -> float, the other pairs */
};

static void *font_stb_malloc(size_t size, void *user)
{
    ze__ui_font *f = user;
    if (!f)
        return NULL;
    uint8_t *p = ze_alloc(f->alloc, size + STB_HEADER, 16);
    if (!p) {
        f->alloc_failed = true;
        return NULL;
    }
    memcpy(p, &size, sizeof size);
    return p + STB_HEADER;
}

static void font_stb_free(void *ptr, void *user)
{
    ze__ui_font *f = user;
    if (!ptr || !f)
        return;
    uint8_t *p = (uint8_t *)ptr - STB_HEADER;
    size_t size;
    memcpy(&size, p, sizeof size);
    ze_free(f->alloc, p, size + STB_HEADER);
}

/* ------------------------------------------------------------------ atlas */

static bool atlas_grow(ze__ui_font *f, uint32_t need_h)
{
    uint32_t h = f->ah;
    while (h < need_h && h < ATLAS_MAX_HEIGHT)
        h *= 2;
    if (h < need_h)
        return false;
    uint8_t *n = ze_realloc(f->alloc, f->pixels, (size_t)f->aw * f->ah, (size_t)f->aw * h, 16);
    if (!n)
        return false;
    memset(n + (size_t)f->aw * f->ah, 0, (size_t)f->aw * (h - f->ah));
    f->pixels = n;
    f->ah = h;
    f->revision++;
    return true;
}

/* A w x h region with a one-texel gap to its neighbours. */
static bool atlas_alloc(ze__ui_font *f, uint32_t w, uint32_t h, uint16_t *x, uint16_t *y)
{
    w += 1;
    h += 1;
    if (w > f->aw || h > ATLAS_MAX_HEIGHT)
        return false;
    if (f->shelf_x + w > f->aw) {
        f->shelf_y += f->shelf_h;
        f->shelf_x = 0;
        f->shelf_h = 0;
    }
    if (f->shelf_y + h > f->ah && !atlas_grow(f, f->shelf_y + h))
        return false;
    *x = (uint16_t)f->shelf_x;
    *y = (uint16_t)f->shelf_y;
    f->shelf_x += w;
    f->shelf_h = ZE_MAX(f->shelf_h, h);
    return true;
}

static void fill(ze__ui_font *f, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t v)
{
    for (uint32_t j = 0; j < h; j++)
        memset(f->pixels + (size_t)(y + j) * f->aw + x, v, w);
}

/* The replacement box: an outline cell of w x h. */
static bool bake_replacement(ze__ui_font *f, uint32_t w, uint32_t h, float advance, float y0)
{
    ze__ui_glyph *g = &f->replacement;
    *g = (ze__ui_glyph){.cp = ZE__UI_REPLACEMENT, .advance = advance, .x0 = 0.0f, .y0 = y0};
    if (!atlas_alloc(f, w, h, &g->ax, &g->ay))
        return false;
    uint32_t t = ZE_MAX(1u, (uint32_t)lroundf((float)h / 16.0f));
    fill(f, g->ax, g->ay, w, t, 255);
    fill(f, g->ax, g->ay + h - t, w, t, 255);
    fill(f, g->ax, g->ay, t, h, 255);
    fill(f, g->ax + w - t, g->ay, t, h, 255);
    g->w = g->tw = (uint16_t)w;
    g->h = g->th = (uint16_t)h;
    return true;
}

/* ----------------------------------------------------------------- create */

static ze_result load_ttf(ze__ui_font *f, const ze_ui_font_desc_t *d, float px)
{
    const unsigned char *data = d->ttf_data;
    if (d->ttf_size < 12 || d->ttf_size > INT32_MAX) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: font data of %zu bytes is not a TrueType font", d->ttf_size);
        return ZE_ERR_PARSE;
    }
    int offset = stbtt_GetFontOffsetForIndex(data, 0);
    if (offset < 0 || !stbtt_InitFont(&f->info, data, offset)) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: font data is not a TrueType font stb_truetype can read");
        return ZE_ERR_PARSE;
    }
    f->info.userdata = f;
    f->stb_scale = stbtt_ScaleForPixelHeight(&f->info, px);
    int asc, desc, gap;
    stbtt_GetFontVMetrics(&f->info, &asc, &desc, &gap);
    f->ascent = roundf((float)asc * f->stb_scale);
    f->line_h = ceilf((float)(asc - desc) * f->stb_scale);
    f->has_kern = f->info.kern || f->info.gpos;
    f->ttf = true;
    return ZE_OK;
}

ze_result ze__ui_font_create(ze_ui_t *ui, const ze_ui_font_desc_t *d, float scale,
                             ze__ui_font **out)
{
    float size = d->size > 0.0f ? d->size : 16.0f;
    float fw = d->fixed_width > 0.0f ? d->fixed_width : 8.0f;
    float fh = d->fixed_height > 0.0f ? d->fixed_height : 16.0f;
    if (size * scale > 512.0f || fw * scale > 256.0f || fh * scale > 256.0f) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: font size out of range (%g px, fixed %g x %g)",
                     (double)(size * scale), (double)(fw * scale), (double)(fh * scale));
        return ZE_ERR_INVALID_ARG;
    }
    ze__ui_font *f = ZE_NEW(ui->alloc, ze__ui_font);
    if (!f)
        return ZE_ERR_BUDGET;
    memset(f, 0, sizeof *f);
    f->ui = ui;
    f->alloc = ui->alloc;
    for (int i = 0; i < KERN_COUNT; i++)
        for (int j = 0; j < KERN_COUNT; j++)
            f->kern_ascii[i][j] = NAN;
    ze_hashmap_init(&f->glyphs, ui->alloc, sizeof(uint32_t), sizeof(ze__ui_glyph));
    ze_hashmap_init(&f->kerns, ui->alloc, sizeof(uint64_t), sizeof(float));
    ze_result r = ZE_OK;
    if (d->ttf_data && !d->fixed) {
        r = load_ttf(f, d, size * scale);
    } else {
        f->fixed_w = roundf(fw * scale);
        f->fixed_h = roundf(fh * scale);
        f->ascent = f->fixed_h;
        f->line_h = f->fixed_h;
    }
    if (r == ZE_OK) {
        f->aw = ATLAS_WIDTH;
        f->ah = ATLAS_START_HEIGHT;
        f->pixels = ze_alloc(f->alloc, (size_t)f->aw * f->ah, 16);
        if (!f->pixels)
            r = ZE_ERR_BUDGET;
    }
    if (r == ZE_OK) {
        memset(f->pixels, 0, (size_t)f->aw * f->ah);
        bool ok = atlas_alloc(f, 4, 4, &f->white_x, &f->white_y);
        if (ok)
            fill(f, f->white_x, f->white_y, 4, 4, 255);
        if (ok && f->ttf) {
            uint32_t w = (uint32_t)ZE_MAX(3.0f, roundf(size * scale * 0.5f));
            uint32_t h = (uint32_t)ZE_MAX(4.0f, f->ascent * 0.8f);
            ok = bake_replacement(f, w, h, (float)w + ZE_MAX(1.0f, roundf(size * scale / 8.0f)),
                                  -(float)h);
        } else if (ok) {
            ok = bake_replacement(f, (uint32_t)f->fixed_w, (uint32_t)f->fixed_h, f->fixed_w,
                                  -f->fixed_h);
        }
        if (!ok)
            r = ZE_ERR_BUDGET;
        f->revision = 1;
    }
    if (r != ZE_OK) {
        if (r == ZE_ERR_BUDGET)
            ZE_LOG_ERROR(ZE__UI_CH, "ui: the font atlas does not fit the owner's budget");
        ze__ui_font_destroy(f);
        return r;
    }
    *out = f;
    return ZE_OK;
}

void ze__ui_font_destroy(ze__ui_font *f)
{
    if (!f)
        return;
    ze_hashmap_free(&f->glyphs);
    ze_hashmap_free(&f->kerns);
    ze_free(f->alloc, f->pixels, (size_t)f->aw * f->ah);
    ze_allocator_t a = f->alloc;
    ze_free(a, f, sizeof *f);
}

/* ----------------------------------------------------------------- glyphs */

static ze__ui_glyph missing(const ze__ui_font *f, uint32_t cp)
{
    ze__ui_glyph g = f->replacement;
    g.cp = cp;
    g.present = false;
    return g;
}

/* Fills *g; false when it must not be cached (a failure to retry). */
static bool bake(ze__ui_font *f, uint32_t cp, ze__ui_glyph *g)
{
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        cp = ZE__UI_REPLACEMENT;
    if (!f->ttf) {
        if (cp == ZE__UI_REPLACEMENT) {
            *g = f->replacement;
            g->present = true;
            return true;
        }
        if (cp == ' ') { /* blank, like a TTF space */
            *g = (ze__ui_glyph){.cp = cp, .present = true, .advance = f->fixed_w};
            return true;
        }
        *g = (ze__ui_glyph){
            .cp = cp,
            .present = true,
            .advance = f->fixed_w,
            .y0 = -f->fixed_h,
            .w = (uint16_t)f->fixed_w,
            .h = (uint16_t)f->fixed_h,
            .ax = (uint16_t)(f->white_x + 1),
            .ay = (uint16_t)(f->white_y + 1),
            .tw = 2,
            .th = 2,
        };
        return true;
    }
    int gi = stbtt_FindGlyphIndex(&f->info, (int)cp);
    if (!gi) {
        *g = missing(f, cp);
        return true;
    }
    int adv, lsb, x0, y0, x1, y1;
    stbtt_GetGlyphHMetrics(&f->info, gi, &adv, &lsb);
    stbtt_GetGlyphBitmapBox(&f->info, gi, f->stb_scale, f->stb_scale, &x0, &y0, &x1, &y1);
    *g = (ze__ui_glyph){
        .cp = cp,
        .index = gi,
        .present = true,
        .advance = (float)adv * f->stb_scale,
        .x0 = (float)x0,
        .y0 = (float)y0,
    };
    int w = x1 - x0, h = y1 - y0;
    if (w <= 0 || h <= 0)
        return true; /* blank (a space): advance only */
    if (!atlas_alloc(f, (uint32_t)w, (uint32_t)h, &g->ax, &g->ay)) {
        if (!f->full_reported) {
            f->full_reported = true;
            ZE_LOG_ERROR(ZE__UI_CH,
                         "ui: the glyph atlas is full (%u x %u): U+%04X and later "
                         "glyphs draw as the replacement box",
                         f->aw, f->ah, cp);
        }
        *g = missing(f, cp);
        return false;
    }
    f->alloc_failed = false;
    stbtt_MakeGlyphBitmap(&f->info, f->pixels + (size_t)g->ay * f->aw + g->ax, w, h, (int)f->aw,
                          f->stb_scale, f->stb_scale, gi);
    if (f->alloc_failed) {
        if (f->ui->in_frame)
            ze__ui_error(f->ui, ZE_ERR_BUDGET, "ui: no memory to rasterize U+%04X", cp);
        *g = missing(f, cp);
        return false;
    }
    g->w = g->tw = (uint16_t)w;
    g->h = g->th = (uint16_t)h;
    f->revision++;
    return true;
}

ze__ui_glyph ze__ui_font_glyph(ze__ui_font *f, uint32_t cp)
{
    if (cp < 128) {
        if (f->ascii_have[cp])
            return f->ascii[cp];
    } else {
        const ze__ui_glyph *cached = ze_hashmap_get(&f->glyphs, &cp);
        if (cached)
            return *cached;
    }
    ze__ui_glyph g;
    if (!bake(f, cp, &g))
        return g;
    if (cp < 128) {
        f->ascii[cp] = g;
        f->ascii_advance[cp] = g.advance;
        f->ascii_have[cp] = true;
    } else if (ze_hashmap_put(&f->glyphs, &cp, &g) != ZE_OK) {
        return g; /* baked again next time; the atlas keeps both copies */
    }
    if (g.present)
        f->glyph_count++;
    return g;
}

float ze__ui_font_ascii_run(ze__ui_font *f, const char *s, size_t len, size_t *used, uint32_t *prev)
{
    /* the cached ASCII path of ze__ui_text_width: the same sums in the same
       order, without a decode, a glyph copy or a call per character */
    float w = 0.0f;
    uint32_t p = *prev;
    size_t i = 0;
    bool kern = f->ttf && f->has_kern;
    for (; i < len; i++) {
        uint32_t c = (unsigned char)s[i];
        if (c >= 128 || !f->ascii_have[c])
            break;
        if (p && kern) {
            uint32_t pi = p - KERN_FIRST, ci = c - KERN_FIRST; /* below FIRST wraps: too big */
            if (pi >= KERN_COUNT || ci >= KERN_COUNT)
                break;
            float k = f->kern_ascii[pi][ci];
            if (isnan(k))
                break; /* not looked up yet: the slow path does it */
            w += k;
        }
        w += f->ascii_advance[c];
        p = c;
    }
    *used = i;
    *prev = p;
    return w;
}

float ze__ui_font_kern(ze__ui_font *f, uint32_t a, uint32_t b)
{
    if (!f->ttf || !f->has_kern)
        return 0.0f;
    float *slot = NULL;
    if (a >= KERN_FIRST && a < KERN_FIRST + KERN_COUNT && b >= KERN_FIRST &&
        b < KERN_FIRST + KERN_COUNT) {
        slot = &f->kern_ascii[a - KERN_FIRST][b - KERN_FIRST];
        if (!isnan(*slot))
            return *slot;
    } else {
        uint64_t key = (uint64_t)a << 32 | b;
        const float *v = ze_hashmap_get(&f->kerns, &key);
        if (v)
            return *v;
    }
    ze__ui_glyph ga = ze__ui_font_glyph(f, a), gb = ze__ui_font_glyph(f, b);
    float k = 0.0f;
    if (ga.index && gb.index)
        k = (float)stbtt_GetGlyphKernAdvance(&f->info, ga.index, gb.index) * f->stb_scale;
    if (slot) {
        *slot = k;
    } else {
        uint64_t key = (uint64_t)a << 32 | b;
        (void)ze_hashmap_put(&f->kerns, &key, &k); /* a refused put is looked up again */
    }
    return k;
}

float ze__ui_font_line_height(const ze__ui_font *f)
{
    return f->line_h;
}

float ze__ui_font_ascent(const ze__ui_font *f)
{
    return f->ascent;
}

ze_ui_atlas_t ze__ui_font_atlas(const ze__ui_font *f)
{
    return (ze_ui_atlas_t){
        .pixels = f->pixels, .width = f->aw, .height = f->ah, .revision = f->revision};
}

uint32_t ze__ui_font_glyph_count(const ze__ui_font *f)
{
    return f->glyph_count;
}
