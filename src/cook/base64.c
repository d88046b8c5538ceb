/* Our own base64 decoder for data: URIs (RFC 4648, standard alphabet).
 * Strict: the length is a multiple of 4, '=' appears only as one or two
 * final padding characters, and nothing outside the alphabet is accepted
 * (no whitespace, no URL-safe alphabet). */
#include "cook/cook_internal.h"
#include "zengine/cook.h"

size_t ze__base64_max(size_t len)
{
    return len / 4 * 3;
}

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

bool ze__base64_decode(const char *src, size_t len, uint8_t *out, size_t *out_size)
{
    if (len % 4 != 0)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            unsigned char ch = (unsigned char)src[i + (size_t)k];
            if (ch == '=') {
                /* Padding: only in the last quantum, only its last 1 or 2. */
                if (i + 4 != len || k < 2)
                    return false;
                pad++;
                v[k] = 0;
                continue;
            }
            if (pad)
                return false; /* data after padding */
            v[k] = b64_value(ch);
            if (v[k] < 0)
                return false;
        }
        uint32_t triple = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) |
                          (uint32_t)v[3];
        out[o++] = (uint8_t)(triple >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(triple >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)triple;
    }
    *out_size = o;
    return true;
}
