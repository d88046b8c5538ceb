/* ze_path_t: normalization, join, parts, comparison, hashing. No heap.
 *
 * Two normalizers with one meaning. The forward pass (normalize_forward)
 * serves ordinary paths. The reference, `normalize`, walks the components from right to left,
 * counting pending
 * `..`: a name is kept when no `..` is pending, else it cancels one. A `..`
 * still pending at the left end climbed above the root (an error). Kept
 * components are written from the end of a buffer of ZE_PATH_CAPACITY bytes,
 * so the result is built in one pass, and because a kept component is never
 * removed later, running out of room during the pass means the result is
 * too long (no intermediate state can be longer than the result, unlike a
 * left-to-right walk where "long/.." would overflow first). Input may be any
 * length; only the result is limited.
 */
#include <string.h>

#include "vfs_internal.h"

static inline bool is_sep(char c)
{
    return c == '/' || c == '\\';
}

/* Up to two input segments (join = base + rel) treated as if joined by a
 * separator; a component never spans the two. */
typedef struct seg_t {
    const char *s;
    size_t len;
} seg_t;

static ze_result normalize(const seg_t *segs, int nseg, ze_path_t *out)
{
    /* Limit enforced here: the result, including its NUL, fits in
     * ZE_PATH_CAPACITY bytes (ZE_PATH_MAX_LEN characters), and no component
     * is longer than ZE_PATH_NAME_MAX bytes. */
    char buf[ZE_PATH_CAPACITY];
    size_t w = sizeof(buf) - 1; /* write position, moving left; buf[w..] is the result */
    buf[w] = '\0';
    size_t pending = 0;
    for (int si = nseg - 1; si >= 0; si--) {
        const char *s = segs[si].s;
        size_t i = segs[si].len;
        while (i > 0) {
            while (i > 0 && is_sep(s[i - 1]))
                i--;
            size_t end = i;
            while (i > 0 && !is_sep(s[i - 1]))
                i--;
            size_t n = end - i;
            if (n == 0)
                continue;
            const char *c = s + i;
            if (n == 1 && c[0] == '.')
                continue;
            if (n == 2 && c[0] == '.' && c[1] == '.') {
                pending++;
                continue;
            }
            if (pending) {
                pending--;
                continue;
            }
            if (n > ZE_PATH_NAME_MAX)
                return ZE_ERR_TOO_LONG;
            if (n + 1 > w)
                return ZE_ERR_TOO_LONG;
            w -= n;
            memcpy(buf + w, c, n);
            buf[--w] = '/';
        }
    }
    if (pending)
        return ZE_ERR_PATH_ESCAPE;
    size_t len = sizeof(buf) - 1 - w;
    if (len == 0) {
        out->len = 1;
        out->str[0] = '/';
        out->str[1] = '\0';
        return ZE_OK;
    }
    memcpy(out->str, buf + w, len + 1);
    out->len = (uint32_t)len;
    return ZE_OK;
}

/* Byte classes for the forward pass: names, separators, NUL. */
enum { C_NAME = 0, C_SEP = 1, C_NUL = 2 };
static const uint8_t g_class[256] = {['\0'] = C_NUL, ['/'] = C_SEP, ['\\'] = C_SEP};

/* The common case in one forward pass: components are appended to a local
 * buffer used as the stack (`..` truncates to the previous slash). It gives
 * the same result as `normalize` whenever no intermediate state exceeds the
 * limits; when one would (a long name that a later `..` may cancel), it
 * hands over to `normalize`, which decides on the result alone. */
static ze_result normalize_forward(const char *s, size_t len, ze_path_t *out)
{
    char buf[ZE_PATH_CAPACITY];
    size_t w = 0, i = 0;
    while (i < len) {
        while (i < len && g_class[(uint8_t)s[i]] == C_SEP)
            i++;
        size_t b = i;
        while (i < len && g_class[(uint8_t)s[i]] == C_NAME)
            i++;
        if (i < len && g_class[(uint8_t)s[i]] == C_NUL)
            return ZE_ERR_INVALID_ARG;
        size_t n = i - b;
        if (n == 0 || (n == 1 && s[b] == '.'))
            continue;
        if (n == 2 && s[b] == '.' && s[b + 1] == '.') {
            if (w == 0) /* above the root; a NUL further on still wins */
                return memchr(s + i, '\0', len - i) ? ZE_ERR_INVALID_ARG : ZE_ERR_PATH_ESCAPE;
            while (buf[--w] != '/') {
            }
            continue;
        }
        if (n > ZE_PATH_NAME_MAX || w + 1 + n > ZE_PATH_MAX_LEN) {
            if (memchr(s + i, '\0', len - i))
                return ZE_ERR_INVALID_ARG;
            seg_t seg = {s, len};
            return normalize(&seg, 1, out);
        }
        buf[w++] = '/';
        memcpy(buf + w, s + b, n);
        w += n;
    }
    if (w == 0)
        buf[w++] = '/';
    buf[w] = '\0';
    memcpy(out->str, buf, w + 1);
    out->len = (uint32_t)w;
    return ZE_OK;
}

ze_result ze_path_from(const char *s, size_t len, ze_path_t *out)
{
    ZE_CHECK(out, ZE_ERR_INVALID_ARG);
    if (!s || len == 0)
        return ZE_ERR_INVALID_ARG;
    return normalize_forward(s, len, out);
}

ze_result ze_path_make(const char *s, ze_path_t *out)
{
    ZE_CHECK(out, ZE_ERR_INVALID_ARG);
    if (!s || !s[0])
        return ZE_ERR_INVALID_ARG;
    return normalize_forward(s, strlen(s), out);
}

ze_result ze_path_join(const ze_path_t *base, const char *rel, ze_path_t *out)
{
    ZE_CHECK(base && rel && out, ZE_ERR_INVALID_ARG);
    if (base->len == 0)
        return ZE_ERR_INVALID_ARG;
    seg_t segs[2] = {{base->str, base->len}, {rel, strlen(rel)}};
    /* normalize reads the inputs before it writes out, so out may be base. */
    return normalize(segs, 2, out);
}

ze_result ze_path_add_suffix(const ze_path_t *p, const char *suffix, ze_path_t *out)
{
    ZE_CHECK(p && suffix && out, ZE_ERR_INVALID_ARG);
    size_t n = strlen(suffix);
    if (p->len <= 1 || n == 0 || strpbrk(suffix, "/\\"))
        return ZE_ERR_INVALID_ARG;
    ze_path_part_t name = ze_path_name(p);
    if (name.len + n > ZE_PATH_NAME_MAX || p->len + n > ZE_PATH_MAX_LEN)
        return ZE_ERR_TOO_LONG;
    if (out != p)
        memcpy(out->str, p->str, p->len);
    memcpy(out->str + p->len, suffix, n + 1);
    out->len = p->len + (uint32_t)n;
    return ZE_OK;
}

ze_path_t ze_path_root(void)
{
    ze_path_t r;
    r.len = 1;
    r.str[0] = '/';
    r.str[1] = '\0';
    return r;
}

ze_path_t ze_path_parent(const ze_path_t *p)
{
    ze_path_t r = ze_path_root();
    if (!p || p->len <= 1)
        return r;
    uint32_t i = p->len;
    while (i > 0 && p->str[i - 1] != '/')
        i--;
    /* i is just past the last slash; the parent ends before it. */
    if (i <= 1)
        return r;
    memcpy(r.str, p->str, i - 1);
    r.str[i - 1] = '\0';
    r.len = i - 1;
    return r;
}

ze_path_part_t ze_path_name(const ze_path_t *p)
{
    if (!p || p->len <= 1)
        return (ze_path_part_t){p ? p->str + p->len : "", 0};
    uint32_t i = p->len;
    while (i > 0 && p->str[i - 1] != '/')
        i--;
    return (ze_path_part_t){p->str + i, p->len - i};
}

ze_path_part_t ze_path_extension(const ze_path_t *p)
{
    ze_path_part_t n = ze_path_name(p);
    for (uint32_t i = n.len; i > 1; i--)
        if (n.ptr[i - 1] == '.')
            return (ze_path_part_t){n.ptr + i - 1, n.len - (i - 1)};
    /* No dot, or only a leading one (".gitignore"). */
    return (ze_path_part_t){n.ptr + n.len, 0};
}

ze_path_part_t ze_path_stem(const ze_path_t *p)
{
    ze_path_part_t n = ze_path_name(p);
    ze_path_part_t e = ze_path_extension(p);
    return (ze_path_part_t){n.ptr, n.len - e.len};
}

bool ze_path_is_root(const ze_path_t *p)
{
    return p && p->len == 1;
}

bool ze_path_is_within(const ze_path_t *p, const ze_path_t *dir)
{
    if (!p || !dir || p->len == 0 || dir->len == 0)
        return false;
    if (dir->len == 1)
        return true;
    if (p->len < dir->len || memcmp(p->str, dir->str, dir->len) != 0)
        return false;
    return p->len == dir->len || p->str[dir->len] == '/';
}

int ze_path_compare(const ze_path_t *a, const ze_path_t *b)
{
    /* The strings hold no NUL before their end, so strcmp orders them. */
    int c = strcmp(a->str, b->str);
    return c < 0 ? -1 : c > 0;
}

bool ze_path_eq(const ze_path_t *a, const ze_path_t *b)
{
    return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
}

uint64_t ze_path_hash(const ze_path_t *p)
{
    return ze_hash64(p->str, p->len, 0);
}

/* ------------------------------------------------------------ internal */

const char *ze__path_rel(const ze_path_t *p, const ze_path_t *point)
{
    if (point->len == 1)
        return p->str + 1;
    if (p->len == point->len)
        return p->str + p->len; /* "" */
    return p->str + point->len + 1;
}

bool ze__path_name_is_temp(const char *name, size_t len)
{
    return len >= sizeof(ZE__VFS_TMP_PREFIX) - 1 &&
           memcmp(name, ZE__VFS_TMP_PREFIX, sizeof(ZE__VFS_TMP_PREFIX) - 1) == 0;
}
