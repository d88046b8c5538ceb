/* Structure checks of the images a glTF references, without decoding them
 * (decoding belongs to the texture cooker): a PNG's chunk walk with lengths
 * and CRCs from IHDR to IEND, a JPEG's marker walk from SOI through the
 * scans to EOI. Enough to reject truncated and garbled files at import and
 * to report dimensions. */
#include "cook/cook_internal.h"
#include "zengine/cook.h"

static uint32_t rd_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint32_t rd_u16be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 8) | p[1];
}

static const uint8_t g_png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

ze_image_format ze__image_sniff(const uint8_t *data, size_t size)
{
    if (size >= 8 && memcmp(data, g_png_sig, 8) == 0)
        return ZE_IMAGE_FORMAT_PNG;
    if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
        return ZE_IMAGE_FORMAT_JPEG;
    return ZE_IMAGE_FORMAT_UNKNOWN;
}

/* CRC-32 (ISO-HDLC, as PNG uses it), four bits at a time. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    static const uint32_t t[16] = {
        0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
        0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
        0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
    };
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return crc;
}

static bool png_depth_ok(uint8_t color, uint8_t depth)
{
    switch (color) {
    case 0:
        return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3:
        return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2:
    case 4:
    case 6:
        return depth == 8 || depth == 16;
    default:
        return false;
    }
}

bool ze__png_check(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h, const char **why)
{
    if (size < 8 || memcmp(data, g_png_sig, 8) != 0) {
        *why = "not a PNG signature";
        return false;
    }
    size_t pos = 8;
    bool seen_ihdr = false, seen_idat = false;
    for (;;) {
        if (size - pos < 12) {
            *why = "PNG is truncated (ends before IEND)";
            return false;
        }
        uint32_t len = rd_u32be(data + pos);
        const uint8_t *type = data + pos + 4;
        if (len > 0x7fffffffu || len > size - pos - 12) {
            *why = "PNG is truncated (a chunk runs past the end of the file)";
            return false;
        }
        for (int k = 0; k < 4; k++) {
            uint8_t ch = type[k];
            if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))) {
                *why = "PNG chunk type is not four letters";
                return false;
            }
        }
        uint32_t crc = ~crc32_update(0xffffffffu, type, (size_t)len + 4);
        if (crc != rd_u32be(data + pos + 8 + len)) {
            *why = "PNG chunk CRC mismatch";
            return false;
        }
        const uint8_t *body = data + pos + 8;
        if (!seen_ihdr) {
            if (memcmp(type, "IHDR", 4) != 0 || len != 13) {
                *why = "PNG does not start with a 13-byte IHDR chunk";
                return false;
            }
            uint32_t iw = rd_u32be(body), ih = rd_u32be(body + 4);
            if (iw == 0 || ih == 0 || iw > 0x7fffffffu || ih > 0x7fffffffu) {
                *why = "PNG dimensions out of range";
                return false;
            }
            if (!png_depth_ok(body[9], body[8]) || body[10] != 0 || body[11] != 0 || body[12] > 1) {
                *why = "PNG IHDR has invalid bit depth, colour type or methods";
                return false;
            }
            *w = iw;
            *h = ih;
            seen_ihdr = true;
        } else if (memcmp(type, "IHDR", 4) == 0) {
            *why = "PNG has a second IHDR chunk";
            return false;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            seen_idat = true;
        } else if (memcmp(type, "IEND", 4) == 0) {
            if (!seen_idat) {
                *why = "PNG has no IDAT chunk";
                return false;
            }
            return true; /* bytes after IEND are ignored, as decoders do */
        }
        pos += (size_t)len + 12;
    }
}

static bool jpeg_is_sof(uint8_t m)
{
    return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
}

bool ze__jpeg_check(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h, const char **why)
{
    if (size < 4 || data[0] != 0xff || data[1] != 0xd8) {
        *why = "not a JPEG (no SOI marker)";
        return false;
    }
    size_t pos = 2;
    bool seen_sof = false, seen_sos = false;
    for (;;) {
        /* A marker: 0xff, optional 0xff fill bytes, the code. */
        if (pos >= size || data[pos] != 0xff) {
            *why = pos >= size ? "JPEG is truncated (no EOI marker)" : "JPEG marker expected";
            return false;
        }
        while (pos < size && data[pos] == 0xff)
            pos++;
        if (pos >= size) {
            *why = "JPEG is truncated (no EOI marker)";
            return false;
        }
        uint8_t m = data[pos++];
        if (m == 0xd9) {
            if (!seen_sof || !seen_sos) {
                *why = "JPEG ends before a frame and a scan";
                return false;
            }
            return true;
        }
        if (m == 0x00 || m == 0xd8) {
            *why = "JPEG has an invalid marker";
            return false;
        }
        if ((m >= 0xd0 && m <= 0xd7) || m == 0x01)
            continue; /* standalone */
        if (size - pos < 2) {
            *why = "JPEG is truncated (inside a segment header)";
            return false;
        }
        uint32_t len = rd_u16be(data + pos);
        if (len < 2 || len > size - pos) {
            *why = len < 2 ? "JPEG segment length is invalid"
                           : "JPEG is truncated (a segment runs past the end of the file)";
            return false;
        }
        const uint8_t *body = data + pos + 2;
        if (jpeg_is_sof(m)) {
            if (len < 8) {
                *why = "JPEG frame header is too short";
                return false;
            }
            uint32_t fh = rd_u16be(body + 1), fw = rd_u16be(body + 3);
            if (fw == 0 || fh == 0) {
                *why = "JPEG dimensions are zero";
                return false;
            }
            *w = fw;
            *h = fh;
            seen_sof = true;
        }
        pos += len;
        if (m == 0xda) {
            if (!seen_sof) {
                *why = "JPEG scan before its frame header";
                return false;
            }
            seen_sos = true;
            /* Entropy-coded data: up to the next marker that is neither a
               stuffed 0xff00 nor a restart marker. */
            for (;;) {
                if (size - pos < 2) {
                    *why = "JPEG is truncated (inside scan data, no EOI marker)";
                    return false;
                }
                if (data[pos] == 0xff && data[pos + 1] != 0x00 &&
                    !(data[pos + 1] >= 0xd0 && data[pos + 1] <= 0xd7) && data[pos + 1] != 0xff)
                    break;
                pos++;
            }
        }
    }
}
