/* stb_image (Debian's libstb-dev, /usr/include/stb/stb_image.h) compiled in
 * this one file, restricted to PNG, JPEG and TGA decoding from memory, with
 * its allocations routed through a ze_allocator_t: the decoder's
 * STBI_MALLOC/STBI_REALLOC/STBI_FREE are mapped to the functions below,
 * which prefix each block with its size and allocator (stb frees without a
 * size) and charge a per-decode budget, so a hostile image cannot make the
 * decoder allocate past the caller's cap.
 *
 * The budget and allocator of the decode in progress live in a thread-local
 * (one of the documented globals: decoder allocation hooks), set and
 * cleared around each stb call by ze__image_decode; stb keeps its failure
 * reason thread-local too (STBI_THREAD_LOCAL under C11), so decodes on
 * different threads do not interfere. */
#include "cook/cook_internal.h"
#include "zengine/cook.h"

typedef struct stbi_ctx_t {
    ze_allocator_t alloc;
    uint64_t used, limit;
    /* Why the last refused allocation was refused: stb reports some failed
       allocations as a format error (a failed zlib buffer shows as the
       previous probe's "no SOI"), so the decode checks these itself. */
    bool over_cap, no_memory;
} stbi_ctx_t;

static _Thread_local stbi_ctx_t *t_stbi;

/* Header before each block: its payload size and allocator; 32 bytes keep
 * the payload 16-byte aligned. */
typedef struct stbi_hdr_t {
    size_t size;
    ze_allocator_t alloc;
    stbi_ctx_t *ctx;
} stbi_hdr_t;
enum { STBI_HDR = 32 };
_Static_assert(sizeof(stbi_hdr_t) <= STBI_HDR, "stb block header fits its slot");

static void *ze__stbi_malloc(size_t size);
static void *ze__stbi_realloc(void *p, size_t size);
static void ze__stbi_free(void *p);

static void *ze__stbi_malloc(size_t size)
{
    stbi_ctx_t *c = t_stbi;
    size_t total;
    if (!c)
        return NULL;
    if (!ze_size_add(size, STBI_HDR, &total) || total > c->limit || c->used > c->limit - total) {
        c->over_cap = true;
        return NULL;
    }
    uint8_t *b = ze_alloc(c->alloc, total, 16);
    if (!b) {
        c->no_memory = true;
        return NULL;
    }
    /* Zeroed: stb 2.27 reads some state it never wrote on hostile input
       (e.g. a Huffman table a scan names but no DHT defined); zeros make
       such reads fail its lookups instead of following garbage. */
    memset(b, 0, total);
    stbi_hdr_t h = {size, c->alloc, c};
    memcpy(b, &h, sizeof h);
    c->used += total;
    return b + STBI_HDR;
}

static void ze__stbi_free(void *p)
{
    if (!p)
        return;
    uint8_t *b = (uint8_t *)p - STBI_HDR;
    stbi_hdr_t h;
    memcpy(&h, b, sizeof h);
    /* Blocks handed to the caller outlive the decode: only the decode in
       progress is charged. */
    if (t_stbi && t_stbi == h.ctx && t_stbi->used >= h.size + STBI_HDR)
        t_stbi->used -= h.size + STBI_HDR;
    ze_free(h.alloc, b, h.size + STBI_HDR);
}

static void *ze__stbi_realloc(void *p, size_t size)
{
    if (!p)
        return ze__stbi_malloc(size);
    uint8_t *b = (uint8_t *)p - STBI_HDR;
    stbi_hdr_t h;
    memcpy(&h, b, sizeof h);
    void *n = ze__stbi_malloc(size);
    if (!n)
        return NULL; /* p stays valid, as realloc promises */
    memcpy(n, p, ZE_MIN(size, h.size));
    ze__stbi_free(p);
    return n;
}

#define STBI_MALLOC(sz)    ze__stbi_malloc(sz)
#define STBI_REALLOC(p, n) ze__stbi_realloc((p), (n))
#define STBI_FREE(p)       ze__stbi_free(p)
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_MAX_DIMENSIONS ZE_IMAGE_MAX_DIMENSION
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
/* stb declares every entry point static (STB_IMAGE_STATIC, so no stbi_
   symbol leaves libzengine); the compilers report the unused ones at the
   end of the file, past any push/pop, so that one warning is off for this
   whole file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

/* stb reads past the end of a TGA as zeros; we want truncation reported.
 * Walks the header and (for RLE types) the packets, every length checked. */
static bool tga_check(const uint8_t *b, size_t size, const char **why)
{
    if (size < 18) {
        *why = "TGA is shorter than its header";
        return false;
    }
    uint32_t type = b[2], bpp = b[16];
    uint32_t w = (uint32_t)b[12] | ((uint32_t)b[13] << 8),
             h = (uint32_t)b[14] | ((uint32_t)b[15] << 8);
    if (!(type == 1 || type == 2 || type == 3 || type == 9 || type == 10 || type == 11)) {
        *why = "TGA image type is not colour-mapped, true-colour or grey";
        return false;
    }
    if (w == 0 || h == 0 || !(bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 || bpp == 32)) {
        *why = "TGA dimensions or pixel depth invalid";
        return false;
    }
    size_t pos = 18 + (size_t)b[0];
    if (b[1]) { /* a colour map */
        uint32_t len = (uint32_t)b[5] | ((uint32_t)b[6] << 8), bits = b[7];
        pos += (size_t)len * ((bits + 7u) / 8u);
    }
    size_t px = (bpp + 7u) / 8u, count = (size_t)w * h;
    if (pos > size) {
        *why = "TGA is truncated (inside its header or colour map)";
        return false;
    }
    if (type < 9) {
        if ((size - pos) / px < count) {
            *why = "TGA is truncated (fewer pixels than its dimensions)";
            return false;
        }
        return true;
    }
    for (size_t done = 0; done < count;) {
        if (pos >= size) {
            *why = "TGA is truncated (inside RLE data)";
            return false;
        }
        uint8_t hd = b[pos++];
        size_t n = (size_t)(hd & 0x7f) + 1, bytes = hd & 0x80 ? px : n * px;
        if (size - pos < bytes) {
            *why = "TGA is truncated (inside RLE data)";
            return false;
        }
        pos += bytes;
        done += n;
    }
    return true;
}

/* stb_image 2.27 trusts a DHT segment's code counts: more than 256 codes
 * in one table write past its 257-entry size array (found by fuzz_zetex).
 * Every Huffman table is checked here, in every DHT segment of the file
 * (progressive JPEGs define tables between scans), before stb sees it. The
 * marker walk repeats ze__jpeg_check's, which has already passed. */
static bool jpeg_tables_check(const uint8_t *b, size_t size, const char **why)
{
    size_t pos = 2;
    uint32_t defined = 0; /* bits 0-3: DC tables, 4-7: AC tables */
    for (;;) {
        if (pos >= size || b[pos] != 0xff)
            return true; /* ze__jpeg_check reported structure problems */
        while (pos < size && b[pos] == 0xff)
            pos++;
        if (pos >= size)
            return true;
        uint8_t m = b[pos++];
        if (m == 0xd9)
            return true;
        if ((m >= 0xd0 && m <= 0xd7) || m == 0x01)
            continue;
        if (size - pos < 2)
            return true;
        size_t len = ((size_t)b[pos] << 8) | b[pos + 1];
        if (len < 2 || len > size - pos)
            return true;
        if (m == 0xc4) {
            size_t p = pos + 2, end = pos + len;
            while (p < end) {
                if (end - p < 17 || (b[p] >> 4) > 1 || (b[p] & 15) > 3) {
                    *why = "JPEG Huffman table header is invalid";
                    return false;
                }
                size_t total = 0;
                for (int i = 1; i <= 16; i++)
                    total += b[p + (size_t)i];
                if (total > 256 || total > end - p - 17) {
                    *why = "JPEG Huffman table has more than 256 codes or runs past its segment";
                    return false;
                }
                defined |= (b[p] >> 4 ? 16u : 1u) << (b[p] & 15);
                p += 17 + total;
            }
        }
        if (m == 0xda) {
            /* A scan may only name tables defined before it: stb 2.27 would
               decode with whatever its table memory holds. Refinement DC
               scans (Ss = 0, Ah > 0) read raw bits and name none. */
            const uint8_t *q = b + pos + 2;
            size_t body = len - 2;
            if (body < 1 || body < 1 + (size_t)q[0] * 2 + 3) {
                *why = "JPEG scan header is too short";
                return false;
            }
            uint32_t ns = q[0], ss = q[1 + ns * 2], se = q[2 + ns * 2], ah = q[3 + ns * 2] >> 4;
            for (uint32_t i = 0; i < ns; i++) {
                uint32_t td = q[2 + i * 2] >> 4, ta = q[2 + i * 2] & 15;
                bool need_dc = ss == 0 && ah == 0, need_ac = se > 0;
                if ((need_dc && (td > 3 || !(defined & (1u << td)))) ||
                    (need_ac && (ta > 3 || !(defined & (16u << ta))))) {
                    *why = "JPEG scan uses a Huffman table that was never defined";
                    return false;
                }
            }
        }
        pos += len;
        if (m == 0xda) {
            while (size - pos >= 2 &&
                   !(b[pos] == 0xff && b[pos + 1] != 0x00 &&
                     !(b[pos + 1] >= 0xd0 && b[pos + 1] <= 0xd7) && b[pos + 1] != 0xff))
                pos++;
            if (size - pos < 2)
                return true;
        }
    }
}

static const char *format_name(ze_image_format f)
{
    switch (f) {
    case ZE_IMAGE_FORMAT_PNG:
        return "PNG";
    case ZE_IMAGE_FORMAT_JPEG:
        return "JPEG";
    case ZE_IMAGE_FORMAT_TGA:
        return "TGA";
    default:
        return "image";
    }
}

ze_result ze__image_decode(const uint8_t *data, size_t size, ze_image_format format,
                           uint32_t max_dim, uint64_t max_bytes, ze_allocator_t alloc,
                           ze__pixels_t *out, ze__asset_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (format == ZE_IMAGE_FORMAT_UNKNOWN)
        format = ze__image_sniff(data, size);
    const char *why = NULL;
    uint32_t w = 0, h = 0;
    /* Our own structure walk first: clear messages for truncated and
       garbled files, and stb only ever sees well-formed containers. */
    switch (format) {
    case ZE_IMAGE_FORMAT_PNG:
        if (!ze__png_check(data, size, &w, &h, &why)) {
            ze__asset_error_set(err, "%s", why);
            return ZE_ERR_PARSE;
        }
        break;
    case ZE_IMAGE_FORMAT_JPEG:
        if (!ze__jpeg_check(data, size, &w, &h, &why) || !jpeg_tables_check(data, size, &why)) {
            ze__asset_error_set(err, "%s", why);
            return ZE_ERR_PARSE;
        }
        break;
    case ZE_IMAGE_FORMAT_TGA:
        if (!tga_check(data, size, &why)) {
            ze__asset_error_set(err, "%s", why);
            return ZE_ERR_PARSE;
        }
        break;
    default:
        ze__asset_error_set(err, "not a PNG or JPEG image (unknown signature)");
        return ZE_ERR_PARSE;
    }
    if (size > INT32_MAX) {
        ze__asset_error_set(err, "%s is larger than 2 GiB", format_name(format));
        return ZE_ERR_LIMIT;
    }
    stbi_ctx_t ctx = {ze__asset_alloc_or_default(alloc), 0, max_bytes, false, false};
    t_stbi = &ctx;
    /* Dimensions before decoding: the caps apply before any pixel memory. */
    int iw = 0, ih = 0, comp = 0;
    int ok = stbi_info_from_memory(data, (int)size, &iw, &ih, &comp);
    if (!ok || iw <= 0 || ih <= 0) {
        t_stbi = NULL;
        ze__asset_error_set(err, "%s header is not readable (%s)", format_name(format),
                            stbi_failure_reason() ? stbi_failure_reason() : "unknown");
        return ZE_ERR_PARSE;
    }
    if ((uint32_t)iw > max_dim || (uint32_t)ih > max_dim) {
        t_stbi = NULL;
        ze__asset_error_set(err, "%s is %dx%d, larger than the %u pixel limit", format_name(format),
                            iw, ih, max_dim);
        return ZE_ERR_LIMIT;
    }
    uint64_t px = (uint64_t)iw * (uint64_t)ih * 4u;
    if (px > max_bytes) {
        t_stbi = NULL;
        ze__asset_error_set(err, "%s is %dx%d: %llu bytes of pixels exceed the %llu byte cap",
                            format_name(format), iw, ih, (unsigned long long)px,
                            (unsigned long long)max_bytes);
        return ZE_ERR_LIMIT;
    }
    int dw = 0, dh = 0, dc = 0;
    uint8_t *pixels = stbi_load_from_memory(data, (int)size, &dw, &dh, &dc, 4);
    t_stbi = NULL;
    if (!pixels) {
        const char *reason = stbi_failure_reason();
        bool oom = ctx.no_memory || ctx.over_cap || (reason && strcmp(reason, "outofmem") == 0);
        ze__asset_error_set(err, "%s cannot be decoded (%s)", format_name(format),
                            ctx.no_memory ? "out of memory: the system refused the decoder"
                            : oom         ? "decoder memory exceeds the cap"
                            : reason      ? reason
                                          : "unknown");
        return oom ? (ctx.no_memory ? ZE_ERR_OUT_OF_MEMORY : ZE_ERR_LIMIT) : ZE_ERR_PARSE;
    }
    if (dw != iw || dh != ih) {
        ze__stbi_free(pixels);
        ze__asset_error_set(err, "%s decoded to other dimensions than its header",
                            format_name(format));
        return ZE_ERR_PARSE;
    }
    out->rgba = pixels;
    out->width = (uint32_t)dw;
    out->height = (uint32_t)dh;
    out->channels = (uint32_t)comp;
    return ZE_OK;
}

void ze__pixels_release(ze__pixels_t *p)
{
    if (p && p->rgba)
        ze__stbi_free(p->rgba);
    if (p)
        p->rgba = NULL;
}
