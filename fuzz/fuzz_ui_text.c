/* ZUI's UTF-8 on arbitrary bytes: ze_ui_utf8_decode agrees with a strict
 * reference decoder (RFC 3629: no overlongs, no surrogates, nothing past
 * U+10FFFF; an invalid or truncated sequence is U+FFFD for one byte) and
 * never reads past `size` (the input is an exact-size heap block: ASan
 * sees a byte too far); the text measured and drawn as a box's text gives
 * glyphs whose codepoints are the decoded ones, in order, with U+FFFD for
 * the invalid bytes. */
#include <string.h>

#include "ui/ui_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One codepoint at s[0..n): bytes used (1 for invalid input). */
static size_t ref_decode(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t b = s[0];
    size_t len = b < 0x80             ? 1
                 : (b & 0xe0) == 0xc0 ? 2
                 : (b & 0xf0) == 0xe0 ? 3
                 : (b & 0xf8) == 0xf0 ? 4
                                      : 0;
    *cp = 0xfffd;
    if (!len || len > n)
        return 1;
    uint32_t v = len == 1 ? b : len == 2 ? (b & 0x1fu) : len == 3 ? (b & 0x0fu) : (b & 0x07u);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 1;
        v = (v << 6) | (s[i] & 0x3fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 1;
    *cp = v;
    return len;
}

static ze_mem_t *g_mm;
static ze_ui_t *g_ui;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_ui) {
        ze_log_configure(&(ze_log_desc_t){.quiet = true});
        ZE_VERIFY(ze_mem_create(&(ze_mem_desc_t){0}, &g_mm) == ZE_OK);
        ZE_VERIFY(ze_ui_create(&(ze_ui_desc_t){.mem = g_mm, .font = {.fixed = true}}, &g_ui) ==
                  ZE_OK);
    }
    if (size > 4096)
        size = 4096; /* the box is one line: keep every glyph on the target */
    const char *s = (const char *)data;
    size_t count = 0;
    for (size_t i = 0; i < size;) {
        uint32_t cp, ref;
        size_t used = ze_ui_utf8_decode(s + i, size - i, &cp);
        size_t ref_used = ref_decode(data + i, size - i, &ref);
        ZE_VERIFY(used >= 1 && used <= size - i);
        ZE_VERIFY(used == ref_used && cp == ref);
        i += used;
        count++;
    }
    ZE_VERIFY(ze_ui_utf8_decode(s, 0, &(uint32_t){0}) == 0);
    float w = ze_ui_text_width(g_ui, s, size);
    ZE_VERIFY(w == 8.0f * (float)count); /* the fixed font: 8 pixels a character */

    ZE_VERIFY(ze_ui_begin_frame(g_ui, 8 * 4096 + 16, 64, 0.0f, NULL, 0) == ZE_OK);
    ze__ui_push(g_ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)}, s,
                size);
    ze_ui_pop_box(g_ui);
    ZE_VERIFY(ze_ui_end_frame(g_ui) == ZE_OK);
    ze_ui_draw_list_t dl = ze_ui_draw_list(g_ui);
    /* glyph codepoints: the decoded sequence, blanks (no bitmap) left out */
    size_t at = 0;
    for (uint32_t k = 0; k < dl.count; k++) {
        if (dl.instances[k].kind != ZE_UI_INSTANCE_GLYPH)
            continue;
        uint32_t want = dl.instances[k].codepoint;
        bool found = false;
        while (at < size && !found) {
            uint32_t ref;
            at += ref_decode(data + at, size - at, &ref);
            found = ref == want;
        }
        ZE_VERIFY(found);
    }
    return 0;
}
