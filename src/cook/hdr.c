/* Radiance RGBE (.hdr) decoding, our own: the reader is fed untrusted bytes
 * and fuzzed, so every length is checked before it is used.
 *
 *   "#?RADIANCE" or "#?RGBE" line, then header lines up to an empty line
 *   (FORMAT=32-bit_rle_rgbe required when present; 32-bit_rle_xyze is
 *   refused; EXPOSURE and other variables are ignored, as most tools do),
 *   then the resolution line "-Y H +X W" (top row first) or "+Y H +X W"
 *   (bottom row first; rows are flipped so the output is top row first),
 *   then H scanlines, each either
 *     - new-style RLE: 2, 2, W >> 8, W & 0xff (8 <= W < 32768), then the four
 *       channels one after the other, each as runs (count > 128: the next
 *       byte repeated count - 128 times) and literals (count 1..128 bytes);
 *       a run or literal past the scanline's end is an error; or
 *     - flat: W pixels of 4 bytes (R, G, B, shared exponent).
 *   Old-style RLE (1, 1, 1, n repeat markers) is not supported: such pixels
 *   are read as flat, as stb_image does.
 * A pixel (r, g, b, e) is (r, g, b) * 2^(e - 136), 0 when e is 0.
 * Limits: header lines at most 4 KiB each and 64 KiB in all; dimensions
 * 1..desc.max_dimension (default ZE_IMAGE_MAX_DIMENSION); the float pixels
 * within desc.max_bytes (default 1 GiB). Bytes after the last scanline are
 * ignored.
 */
#include <math.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"

enum { LINE_MAX_BYTES = 4096, HEADER_MAX_BYTES = 64 * 1024, DEFAULT_MAX_BYTES = 1 << 30 };

/* The next line ("\n"-terminated) at *pos: its start and length without the
 * newline. false when no newline comes within `max` bytes. */
static bool next_line(const uint8_t *b, size_t size, size_t *pos, const char **line, size_t *len,
                      size_t max)
{
    size_t start = *pos, lim = ZE_MIN(size - start, max + 1);
    for (size_t i = 0; i < lim; i++)
        if (b[start + i] == '\n') {
            *line = (const char *)b + start;
            *len = i;
            *pos = start + i + 1;
            return true;
        }
    return false;
}

static bool line_is(const char *line, size_t len, const char *s)
{
    size_t n = strlen(s);
    return len == n && memcmp(line, s, n) == 0;
}

static bool line_starts(const char *line, size_t len, const char *s)
{
    size_t n = strlen(s);
    return len >= n && memcmp(line, s, n) == 0;
}

/* An unsigned decimal of at most 9 digits at line[*i]. */
static bool parse_uint(const char *line, size_t len, size_t *i, uint32_t *out)
{
    uint32_t v = 0;
    size_t digits = 0;
    while (*i < len && line[*i] >= '0' && line[*i] <= '9') {
        if (++digits > 9)
            return false;
        v = v * 10u + (uint32_t)(line[*i] - '0');
        (*i)++;
    }
    *out = v;
    return digits > 0;
}

static bool expect(const char *line, size_t len, size_t *i, const char *s)
{
    size_t n = strlen(s);
    if (len - *i < n || memcmp(line + *i, s, n) != 0)
        return false;
    *i += n;
    return true;
}

#define FAIL(code, ...)                                \
    do {                                               \
        ze__asset_error_set(err, "hdr: " __VA_ARGS__); \
        return (code);                                 \
    } while (0)

static ze_result read_header(const uint8_t *b, size_t size, size_t *pos, ze__asset_error_t *err)
{
    const char *line;
    size_t len;
    if (!next_line(b, size, pos, &line, &len, LINE_MAX_BYTES) ||
        !(line_is(line, len, "#?RADIANCE") || line_is(line, len, "#?RGBE")))
        FAIL(ZE_ERR_PARSE, "not a Radiance file (no #?RADIANCE or #?RGBE first line)");
    for (;;) {
        if (*pos > HEADER_MAX_BYTES)
            FAIL(ZE_ERR_LIMIT, "header longer than %d bytes", HEADER_MAX_BYTES);
        if (!next_line(b, size, pos, &line, &len, LINE_MAX_BYTES))
            FAIL(ZE_ERR_PARSE, "header is truncated or has a line over %d bytes", LINE_MAX_BYTES);
        if (len == 0)
            return ZE_OK;
        if (line_starts(line, len, "FORMAT=")) {
            if (line_is(line, len, "FORMAT=32-bit_rle_xyze"))
                FAIL(ZE_ERR_UNSUPPORTED, "XYZE pixels are not supported (only RGBE)");
            if (!line_is(line, len, "FORMAT=32-bit_rle_rgbe"))
                FAIL(ZE_ERR_PARSE, "unknown FORMAT line");
        }
        for (size_t i = 0; i < len; i++)
            if (line[i] == 0)
                FAIL(ZE_ERR_PARSE, "NUL byte in the header");
    }
}

static void rgbe_to_float(const uint8_t *p, float *o)
{
    if (p[3] == 0) {
        o[0] = o[1] = o[2] = 0.0f;
        return;
    }
    float f = ldexpf(1.0f, (int)p[3] - 136);
    o[0] = (float)p[0] * f;
    o[1] = (float)p[1] * f;
    o[2] = (float)p[2] * f;
}

/* One scanline of w pixels into rgbe[w * 4]. */
static ze_result read_scanline(const uint8_t *b, size_t size, size_t *pos, uint32_t w, uint32_t y,
                               uint8_t *rgbe, ze__asset_error_t *err)
{
    size_t p = *pos;
    if (size - p < 4)
        FAIL(ZE_ERR_PARSE, "truncated at scanline %u", y);
    bool rle = w >= 8 && w < 32768 && b[p] == 2 && b[p + 1] == 2 && !(b[p + 2] & 0x80);
    if (!rle) {
        size_t n = (size_t)w * 4;
        if (size - p < n)
            FAIL(ZE_ERR_PARSE, "truncated at scanline %u", y);
        memcpy(rgbe, b + p, n);
        *pos = p + n;
        return ZE_OK;
    }
    uint32_t lw = ((uint32_t)b[p + 2] << 8) | b[p + 3];
    if (lw != w)
        FAIL(ZE_ERR_PARSE, "scanline %u: RLE width %u does not match the image width %u", y, lw, w);
    p += 4;
    for (int c = 0; c < 4; c++) {
        uint32_t x = 0;
        while (x < w) {
            if (p >= size)
                FAIL(ZE_ERR_PARSE, "truncated inside scanline %u", y);
            uint32_t count = b[p++];
            if (count > 128) {
                count -= 128;
                if (count > w - x)
                    FAIL(ZE_ERR_PARSE, "scanline %u: a run goes past the end of the line", y);
                if (p >= size)
                    FAIL(ZE_ERR_PARSE, "truncated inside scanline %u", y);
                uint8_t v = b[p++];
                for (uint32_t k = 0; k < count; k++)
                    rgbe[(size_t)(x + k) * 4 + (size_t)c] = v;
            } else {
                if (count == 0)
                    FAIL(ZE_ERR_PARSE, "scanline %u: a zero-length literal", y);
                if (count > w - x)
                    FAIL(ZE_ERR_PARSE, "scanline %u: a literal goes past the end of the line", y);
                if (size - p < count)
                    FAIL(ZE_ERR_PARSE, "truncated inside scanline %u", y);
                for (uint32_t k = 0; k < count; k++)
                    rgbe[(size_t)(x + k) * 4 + (size_t)c] = b[p + k];
                p += count;
            }
            x += count;
        }
    }
    *pos = p;
    return ZE_OK;
}

ze_result ze__asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                               ze_hdr_image_t *out, ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(out != NULL && (data != NULL || size == 0), ZE_ERR_INVALID_ARG);
    memset(out, 0, sizeof *out);
    ze_allocator_t alloc = ze__asset_alloc_or_default(desc ? desc->alloc : (ze_allocator_t){0});
    uint32_t max_dim = desc && desc->max_dimension ? desc->max_dimension : ZE_IMAGE_MAX_DIMENSION;
    max_dim = ZE_MIN(max_dim, (uint32_t)ZE_IMAGE_MAX_DIMENSION);
    uint64_t max_bytes = desc && desc->max_bytes ? desc->max_bytes : DEFAULT_MAX_BYTES;
    const uint8_t *b = data;
    size_t pos = 0;
    ZE__TRY(read_header(b, size, &pos, err));

    const char *line;
    size_t len, i = 0;
    uint32_t w = 0, h = 0;
    if (!next_line(b, size, &pos, &line, &len, LINE_MAX_BYTES))
        FAIL(ZE_ERR_PARSE, "no resolution line");
    bool flip;
    if (expect(line, len, &i, "-Y "))
        flip = false;
    else if (expect(line, len, &i, "+Y "))
        flip = true;
    else
        FAIL(ZE_ERR_UNSUPPORTED, "resolution line is not \"-Y H +X W\" or \"+Y H +X W\"");
    if (!parse_uint(line, len, &i, &h) || !expect(line, len, &i, " +X ") ||
        !parse_uint(line, len, &i, &w) || i != len)
        FAIL(ZE_ERR_PARSE, "malformed resolution line");
    if (w == 0 || h == 0 || w > max_dim || h > max_dim)
        FAIL(ZE_ERR_LIMIT, "dimensions %ux%u outside 1..%u", w, h, max_dim);
    size_t floats = (size_t)w * h * 3, bytes = floats * sizeof(float);
    if (bytes > max_bytes)
        FAIL(ZE_ERR_LIMIT, "%ux%u pixels: %zu bytes exceed the %llu byte cap", w, h, bytes,
             (unsigned long long)max_bytes);
    float *rgb = ze_alloc(alloc, bytes, 16);
    uint8_t *row = ze_alloc(alloc, (size_t)w * 4, 16);
    if (!rgb || !row) {
        if (rgb)
            ze_free(alloc, rgb, bytes);
        if (row)
            ze_free(alloc, row, (size_t)w * 4);
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory for %ux%u pixels", w, h);
    }
    ze_result r = ZE_OK;
    for (uint32_t y = 0; y < h && r == ZE_OK; y++) {
        r = read_scanline(b, size, &pos, w, y, row, err);
        if (r != ZE_OK)
            break;
        float *o = rgb + (size_t)(flip ? h - 1 - y : y) * w * 3;
        for (uint32_t x = 0; x < w; x++)
            rgbe_to_float(row + (size_t)x * 4, o + (size_t)x * 3);
    }
    ze_free(alloc, row, (size_t)w * 4);
    if (r != ZE_OK) {
        ze_free(alloc, rgb, bytes);
        return r;
    }
    out->width = w;
    out->height = h;
    out->rgb = rgb;
    out->alloc_ = alloc;
    out->size_ = bytes;
    return ZE_OK;
}

void ze_asset_hdr_release(ze_hdr_image_t *img)
{
    if (!img || !img->rgb)
        return;
    ze_free(img->alloc_, img->rgb, img->size_);
    img->rgb = NULL;
}
