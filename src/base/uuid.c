/* UUIDs through libuuid; parsing is strict (canonical 36 characters). */
#include <string.h>
#include <uuid/uuid.h>

#include "zengine/base.h"

/* v5 namespace of the engine's derived identities: the v5 of the URL
 * namespace with the name "https://zengine.invalid/ns" would do as well; what
 * matters is that it never changes. */
const ze_uuid_t ZE_UUID_NAMESPACE_ZENGINE = {{0x5a, 0x45, 0x6e, 0x67, 0x69, 0x6e, 0x45, 0x00, 0x8b,
                                              0x1e, 0x2a, 0x53, 0x0c, 0x7d, 0x91, 0x4f}};

ze_uuid_t ze_uuid_v4(void)
{
    ze_uuid_t u;
    uuid_generate_random(u.bytes);
    return u;
}

ze_uuid_t ze_uuid_v5(ze_uuid_t ns, const void *name, size_t len)
{
    ze_uuid_t u;
    uuid_generate_sha1(u.bytes, ns.bytes, name, len);
    return u;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Our own parser rather than uuid_parse(): it needs a NUL-terminated string
 * and we parse bytes from files that are not. */
ze_result ze_uuid_parse(const char *s, size_t len, ze_uuid_t *out)
{
    if (!s || !out || len != ZE_UUID_STRING_LEN)
        return ZE_ERR_PARSE;
    ze_uuid_t u;
    int nib = 0;
    for (size_t i = 0; i < len; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return ZE_ERR_PARSE;
            continue;
        }
        int v = hexval(s[i]);
        if (v < 0)
            return ZE_ERR_PARSE;
        if (nib & 1)
            u.bytes[nib / 2] = (uint8_t)(u.bytes[nib / 2] | v);
        else
            u.bytes[nib / 2] = (uint8_t)(v << 4);
        nib++;
    }
    *out = u;
    return ZE_OK;
}

void ze_uuid_format(ze_uuid_t u, char buf[ZE_UUID_STRING_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[o++] = '-';
        buf[o++] = hex[u.bytes[i] >> 4];
        buf[o++] = hex[u.bytes[i] & 15];
    }
    buf[o] = '\0';
}

bool ze_uuid_is_nil(ze_uuid_t u)
{
    static const ze_uuid_t nil;
    return memcmp(u.bytes, nil.bytes, 16) == 0;
}

bool ze_uuid_eq(ze_uuid_t a, ze_uuid_t b)
{
    return memcmp(a.bytes, b.bytes, 16) == 0;
}

int ze_uuid_version(ze_uuid_t u)
{
    return u.bytes[6] >> 4;
}
