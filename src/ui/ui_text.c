/* UTF-8 for the UI: decoding that never reads past the run (an invalid or
 * truncated sequence is U+FFFD for one byte), character boundaries both
 * ways, text measurement (advances plus kerning, the same arithmetic the
 * draw list uses) and hit testing; the public glyph queries. */
#include "ui/ui_internal.h"

size_t ze_ui_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
    if (!s || !len) {
        *cp = 0;
        return 0;
    }
    const unsigned char *u = (const unsigned char *)s;
    size_t n = ze_utf8_valid_len(u, len); /* reads at most len bytes */
    switch (n) {
    case 1:
        *cp = u[0];
        break;
    case 2:
        *cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
        break;
    case 3:
        *cp = (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
        break;
    case 4:
        *cp = (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3f) << 12 |
              (uint32_t)(u[2] & 0x3f) << 6 | (u[3] & 0x3f);
        break;
    default:
        *cp = ZE__UI_REPLACEMENT;
        return 1;
    }
    return n;
}

size_t ze__ui_utf8_next(const char *s, size_t len, size_t at)
{
    if (at >= len)
        return len;
    uint32_t cp;
    return at + ze_ui_utf8_decode(s + at, len - at, &cp);
}

size_t ze__ui_utf8_prev(const char *s, size_t len, size_t at)
{
    if (at == 0)
        return 0;
    if (at > len)
        return len;
    /* A valid sequence ending at `at` starts with a lead byte, which no
     * earlier sequence can contain: that start is a boundary of the
     * forward decoding. Otherwise the byte before is one U+FFFD. */
    for (size_t k = 2; k <= 4 && k <= at; k++) {
        const unsigned char *u = (const unsigned char *)s + (at - k);
        if (ze_utf8_valid_len(u, len - (at - k)) == k)
            return at - k;
    }
    return at - 1;
}

float ze__ui_text_width(ze_ui_t *ui, const char *text, size_t len)
{
    float w = 0.0f;
    uint32_t prev = 0;
    for (size_t i = 0; i < len;) {
        size_t used;
        w += ze__ui_font_ascii_run(ui->font, text + i, len - i, &used, &prev);
        i += used;
        if (i >= len)
            break;
        uint32_t cp; /* one character the fast path could not take */
        i += ze_ui_utf8_decode(text + i, len - i, &cp);
        ze__ui_glyph g = ze__ui_font_glyph(ui->font, cp);
        if (prev)
            w += ze__ui_font_kern(ui->font, prev, cp);
        w += g.advance;
        prev = cp;
    }
    return w;
}

size_t ze__ui_text_hit(ze_ui_t *ui, const char *text, size_t len, float x)
{
    float pen = 0.0f;
    uint32_t prev = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = ze_ui_utf8_decode(text + i, len - i, &cp);
        ze__ui_glyph g = ze__ui_font_glyph(ui->font, cp);
        float next = pen + (prev ? ze__ui_font_kern(ui->font, prev, cp) : 0.0f) + g.advance;
        if (x < (pen + next) * 0.5f)
            return i;
        pen = next;
        prev = cp;
        i += n;
    }
    return len;
}

/* ----------------------------------------------------------------- public */

bool ze_ui_glyph_info(ze_ui_t *ui, uint32_t codepoint, ze_ui_glyph_info_t *out)
{
    ze__ui_glyph g = ze__ui_font_glyph(ui->font, codepoint);
    ze_ui_atlas_t at = ze__ui_font_atlas(ui->font);
    if (out) {
        *out = (ze_ui_glyph_info_t){
            .present = g.present,
            .advance = g.advance,
            .width = g.w,
            .height = g.h,
            .uv = {(float)g.ax / (float)at.width, (float)g.ay / (float)at.height,
                   (float)(g.ax + g.tw) / (float)at.width, (float)(g.ay + g.th) / (float)at.height},
        };
    }
    return g.present;
}

float ze_ui_kerning(ze_ui_t *ui, uint32_t left, uint32_t right)
{
    return ze__ui_font_kern(ui->font, left, right);
}

float ze_ui_text_width(ze_ui_t *ui, const char *text, size_t len)
{
    return text ? ze__ui_text_width(ui, text, len) : 0.0f;
}

float ze_ui_line_height(const ze_ui_t *ui)
{
    return ze__ui_font_line_height(ui->font);
}
