/* PNG encoding (png_write.h): signature, IHDR, one zlib-compressed IDAT of
 * filtered scanlines, IEND; chunk CRCs by zlib's crc32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gfx/png_write.h"

enum { ZHDR = 16 }; /* zlib frees without a size: each block starts with it */

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    ze_allocator_t *a = opaque;
    size_t n = (size_t)items * size;
    uint8_t *p = ze_alloc(*a, n + ZHDR, 16);
    if (!p)
        return Z_NULL;
    memcpy(p, &n, sizeof n);
    return p + ZHDR;
}

static void z_free(voidpf opaque, voidpf ptr)
{
    if (!ptr)
        return;
    ze_allocator_t *a = opaque;
    uint8_t *p = (uint8_t *)ptr - ZHDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    ze_free(*a, p, n + ZHDR);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool write_chunk(FILE *f, const char type[4], const uint8_t *data, size_t len)
{
    uint8_t head[8], tail[4];
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, (uInt)len);
    put_be32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) &&
           fwrite(tail, 1, 4, f) == 4;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c)
{
    int p = (int)a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

/* One filtered row (filter byte first) into out[1 + stride]: the filter
   with the smallest sum of |signed residual| (the PNG specification's
   suggested heuristic). */
static void filter_row(const uint8_t *row, const uint8_t *prev, size_t stride, uint8_t *out,
                       uint8_t *scratch)
{
    uint64_t best = UINT64_MAX;
    for (uint8_t ft = 0; ft < 5; ft++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < stride; i++) {
            uint8_t a = i >= 4 ? row[i - 4] : 0, b = prev ? prev[i] : 0,
                    c = (prev && i >= 4) ? prev[i - 4] : 0, pred = 0;
            switch (ft) {
            case 1:
                pred = a;
                break;
            case 2:
                pred = b;
                break;
            case 3:
                pred = (uint8_t)(((unsigned)a + b) / 2);
                break;
            case 4:
                pred = paeth(a, b, c);
                break;
            default:
                break;
            }
            uint8_t v = (uint8_t)(row[i] - pred);
            scratch[i] = v;
            sum += v < 128 ? v : 256u - v;
        }
        if (sum < best) {
            best = sum;
            out[0] = ft;
            memcpy(out + 1, scratch, stride);
        }
    }
}

ze_result ze__png_write(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba,
                        ze_allocator_t alloc)
{
    ZE_CHECK(path && rgba && width > 0 && height > 0, ZE_ERR_INVALID_ARG);
    if (width > 0x7fffffffu / 4 || height > 0x7fffffffu)
        return ZE_ERR_INVALID_ARG;
    size_t stride = (size_t)width * 4, filtered = stride + 1;
    uint8_t *line = ze_alloc(alloc, filtered, 16), *scratch = ze_alloc(alloc, stride, 16);
    size_t out_cap = 1 << 20;
    uint8_t *out = ze_alloc(alloc, out_cap, 16);
    z_stream z = {.zalloc = z_alloc, .zfree = z_free, .opaque = &alloc};
    bool z_open = false;
    ze_result r = ZE_ERR_OUT_OF_MEMORY;
    FILE *f = NULL;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        r = ZE_ERR_INVALID_ARG;
        goto done;
    }
    if (!line || !scratch || !out || deflateInit(&z, 6) != Z_OK)
        goto done;
    z_open = true;
    f = fopen(tmp, "wb");
    if (!f) {
        r = ZE_ERR_IO;
        goto done;
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 6;  /* RGBA */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* no interlace */
    r = ZE_ERR_IO;
    if (fwrite(sig, 1, 8, f) != 8 || !write_chunk(f, "IHDR", ihdr, sizeof ihdr))
        goto done;
    /* IDAT chunks of at most out_cap bytes as deflate fills the buffer */
    z.next_out = out;
    z.avail_out = (uInt)out_cap;
    for (uint32_t y = 0; y <= height; y++) {
        int flush = Z_NO_FLUSH;
        if (y < height) {
            const uint8_t *row = rgba + (size_t)y * stride;
            filter_row(row, y ? row - stride : NULL, stride, line, scratch);
            z.next_in = line;
            z.avail_in = (uInt)filtered;
        } else {
            z.next_in = NULL;
            z.avail_in = 0;
            flush = Z_FINISH;
        }
        for (;;) {
            int zr = deflate(&z, flush);
            if (zr == Z_STREAM_ERROR)
                goto done;
            if (z.avail_out == 0 || (flush == Z_FINISH && zr == Z_STREAM_END)) {
                size_t n = out_cap - z.avail_out;
                if (n && !write_chunk(f, "IDAT", out, n))
                    goto done;
                z.next_out = out;
                z.avail_out = (uInt)out_cap;
            }
            if (flush == Z_FINISH ? zr == Z_STREAM_END : (z.avail_in == 0 && z.avail_out > 0))
                break;
        }
    }
    if (!write_chunk(f, "IEND", NULL, 0))
        goto done;
    if (fflush(f) != 0)
        goto done;
    int fc = fclose(f);
    f = NULL;
    if (fc != 0 || rename(tmp, path) != 0)
        goto done;
    r = ZE_OK;
done:
    if (f)
        fclose(f);
    if (r != ZE_OK)
        remove(tmp);
    if (z_open)
        deflateEnd(&z);
    if (line)
        ze_free(alloc, line, filtered);
    if (scratch)
        ze_free(alloc, scratch, stride);
    if (out)
        ze_free(alloc, out, out_cap);
    return r;
}
