/* The scene reader's per-entity JSON tree: one entity's span (scene_scan.c)
 * parsed into a flat array of nodes and a buffer of decoded strings, both
 * reused from one entity to the next, so reading an entity allocates
 * nothing once the buffers have grown to the largest entity. It replaces
 * the JSON library's tree for entities (a tree of malloc'd nodes, built
 * and freed twice per entity: the reader's main cost).
 *
 * It accepts exactly what the library (jansson 2.14, with
 * JSON_REJECT_DUPLICATES) accepts and reads the same values
 * (fuzz_scene_dom checks both on arbitrary bytes): numbers are integers
 * (signed 64-bit; beyond is an error) unless they have a fraction or an
 * exponent; a real that overflows is an error, one that underflows is 0 or
 * subnormal (strtod in the "C" locale, which the caller sets); strings are
 * valid UTF-8 without raw control characters, escapes are the eight JSON
 * ones and \uXXXX with paired surrogates, \u0000 is refused; a key may
 * appear once per object; nesting counts every value, scalars too, up to
 * ZE__SCAN_MAX_DEPTH from the document's root (base_depth: the span's
 * level in the document). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ecs_internal.h"

typedef struct parser_t {
    ze__jdoc_t *d;
    const unsigned char *s;
    size_t n, i;
    bool oom;
} parser_t;

static bool fail(parser_t *p, const char *what)
{
    if (!p->d->err) {
        p->d->err = what;
        p->d->err_at = p->i;
    }
    return false;
}

static void ws(parser_t *p)
{
    while (p->i < p->n) {
        unsigned char c = p->s[p->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->i++;
    }
}

static uint32_t new_node(parser_t *p, uint8_t type)
{
    ze__jdoc_t *d = p->d;
    if (d->count == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 64;
        ze__jnode_t *nn = ze_realloc(d->alloc, d->nodes, sizeof(*nn) * d->cap, sizeof(*nn) * cap,
                                     _Alignof(ze__jnode_t));
        if (!nn) {
            p->oom = true;
            return UINT32_MAX;
        }
        d->nodes = nn;
        d->cap = cap;
    }
    uint32_t at = d->count++;
    d->nodes[at] = (ze__jnode_t){.type = type, .key = UINT32_MAX};
    return at;
}

/* Room for `extra` more decoded bytes. */
static bool chars_reserve(parser_t *p, size_t extra)
{
    ze__jdoc_t *d = p->d;
    if (d->used + extra <= d->chars_cap)
        return true;
    size_t cap = ZE_MAX(d->chars_cap * 2, d->used + extra + 256);
    char *nc = ze_realloc(d->alloc, d->chars, d->chars_cap, cap, 1);
    if (!nc) {
        p->oom = true;
        return false;
    }
    d->chars = nc;
    d->chars_cap = cap;
    return true;
}

static int hex(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool read_hex4(parser_t *p, uint32_t *out)
{
    if (p->n - p->i < 4)
        return fail(p, "invalid escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hex(p->s[p->i + (size_t)k]);
        if (h < 0)
            return fail(p, "invalid escape");
        v = v << 4 | (uint32_t)h;
    }
    p->i += 4;
    *out = v;
    return true;
}

/* At '"': the decoded string, NUL-terminated, at *off (length *len). */
static bool parse_string(parser_t *p, uint32_t *off, uint32_t *len)
{
    p->i++;
    size_t start = p->d->used;
    /* Decoding never grows the text: reserve the rest of the span once. */
    const unsigned char *q = memchr(p->s + p->i, '"', p->n - p->i);
    size_t guess = q ? (size_t)(q - (p->s + p->i)) : p->n - p->i;
    if (!chars_reserve(p, guess + 1))
        return false;
    for (;;) {
        if (p->i >= p->n)
            return fail(p, "premature end of input");
        unsigned char c = p->s[p->i];
        if (c == '"') {
            p->i++;
            break;
        }
        if (!chars_reserve(p, 5))
            return false;
        char *dst = p->d->chars + p->d->used;
        if (c < 0x20)
            return fail(p, "control character");
        if (c >= 0x80) {
            size_t l = ze_utf8_valid_len(p->s + p->i, p->n - p->i);
            if (!l)
                return fail(p, "unable to decode byte");
            if (!chars_reserve(p, l + 1))
                return false;
            memcpy(p->d->chars + p->d->used, p->s + p->i, l);
            p->d->used += l;
            p->i += l;
            continue;
        }
        if (c != '\\') {
            *dst = (char)c;
            p->d->used++;
            p->i++;
            continue;
        }
        p->i++;
        if (p->i >= p->n)
            return fail(p, "premature end of input");
        c = p->s[p->i++];
        static const char plain[] = "\"\\/bfnrt", value[] = "\"\\/\b\f\n\r\t";
        const char *hit = c ? strchr(plain, c) : NULL;
        if (hit) {
            *dst = value[hit - plain];
            p->d->used++;
            continue;
        }
        if (c != 'u')
            return fail(p, "invalid escape");
        uint32_t cp;
        if (!read_hex4(p, &cp))
            return false;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail(p, "invalid Unicode");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t lo;
            if (p->n - p->i < 2 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
                return fail(p, "invalid Unicode");
            p->i += 2;
            if (!read_hex4(p, &lo))
                return false;
            if (lo < 0xdc00 || lo > 0xdfff)
                return fail(p, "invalid Unicode");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        if (cp == 0)
            return fail(p, "\\u0000 is not allowed");
        if (cp < 0x80) {
            dst[0] = (char)cp;
            p->d->used += 1;
        } else if (cp < 0x800) {
            dst[0] = (char)(0xc0 | cp >> 6);
            dst[1] = (char)(0x80 | (cp & 0x3f));
            p->d->used += 2;
        } else if (cp < 0x10000) {
            dst[0] = (char)(0xe0 | cp >> 12);
            dst[1] = (char)(0x80 | (cp >> 6 & 0x3f));
            dst[2] = (char)(0x80 | (cp & 0x3f));
            p->d->used += 3;
        } else {
            dst[0] = (char)(0xf0 | cp >> 18);
            dst[1] = (char)(0x80 | (cp >> 12 & 0x3f));
            dst[2] = (char)(0x80 | (cp >> 6 & 0x3f));
            dst[3] = (char)(0x80 | (cp & 0x3f));
            p->d->used += 4;
        }
    }
    if (!chars_reserve(p, 1))
        return false;
    p->d->chars[p->d->used++] = 0;
    size_t l = p->d->used - 1 - start;
    if (l > UINT32_MAX || start > UINT32_MAX)
        return fail(p, "string too long");
    *off = (uint32_t)start;
    *len = (uint32_t)l;
    return true;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}
static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The library's number grammar and ranges. */
static bool parse_number(parser_t *p, uint32_t at)
{
    size_t start = p->i;
    if (p->s[p->i] == '-')
        p->i++;
    if (p->i < p->n && p->s[p->i] == '0') {
        p->i++;
        if (p->i < p->n && is_digit(p->s[p->i]))
            return fail(p, "invalid token");
    } else if (p->i < p->n && is_digit(p->s[p->i])) {
        while (p->i < p->n && is_digit(p->s[p->i]))
            p->i++;
    } else {
        return fail(p, "invalid token");
    }
    bool real = false;
    if (p->i < p->n && p->s[p->i] == '.') {
        real = true;
        p->i++;
        if (p->i >= p->n || !is_digit(p->s[p->i]))
            return fail(p, "invalid token");
        while (p->i < p->n && is_digit(p->s[p->i]))
            p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        real = true;
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            p->i++;
        if (p->i >= p->n || !is_digit(p->s[p->i]))
            return fail(p, "invalid token");
        while (p->i < p->n && is_digit(p->s[p->i]))
            p->i++;
    }
    /* A copy with a terminator for strtoll/strtod (numbers are short; a
     * long one goes through the strings buffer). */
    size_t len = p->i - start;
    char small[64];
    char *buf = small;
    if (len >= sizeof small) {
        if (!chars_reserve(p, len + 1))
            return false;
        buf = p->d->chars + p->d->used;
    }
    memcpy(buf, p->s + start, len);
    buf[len] = 0;
    ze__jnode_t *nd = &p->d->nodes[at];
    errno = 0;
    if (!real) {
        long long v = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            return fail(p, v < 0 ? "too big negative integer" : "too big integer");
        nd->type = ZE__J_INT;
        nd->v.i = v;
    } else {
        double v = strtod(buf, NULL);
        if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
            return fail(p, "real number overflow");
        nd->type = ZE__J_REAL;
        nd->v.d = v;
    }
    return true;
}

static bool parse_value(parser_t *p, uint32_t depth);

/* A repeated key among the members of the object at `obj` (children
 * before the newest one). Linear: scene objects have a few members; a
 * document with very wide objects pays for it, bounded by its size. */
static bool key_repeats(const parser_t *p, uint32_t obj, uint32_t newest)
{
    const ze__jdoc_t *d = p->d;
    const ze__jnode_t *nw = &d->nodes[newest];
    const char *k = d->chars + nw->key;
    for (uint32_t c = obj + 1; c < newest; c = d->nodes[c].end)
        if (d->nodes[c].key_len == nw->key_len &&
            !memcmp(d->chars + d->nodes[c].key, k, nw->key_len))
            return true;
    return false;
}

static bool parse_container(parser_t *p, uint32_t depth, bool object)
{
    uint32_t at = new_node(p, object ? ZE__J_OBJECT : ZE__J_ARRAY);
    if (at == UINT32_MAX)
        return false;
    unsigned char close = object ? '}' : ']';
    p->i++;
    ws(p);
    uint32_t count = 0;
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
    } else {
        for (;;) {
            uint32_t key = UINT32_MAX, key_len = 0;
            if (object) {
                ws(p);
                if (p->i >= p->n || p->s[p->i] != '"')
                    return fail(p, "string or '}' expected");
                if (!parse_string(p, &key, &key_len))
                    return false;
                ws(p);
                if (p->i >= p->n || p->s[p->i] != ':')
                    return fail(p, "':' expected");
                p->i++;
            }
            uint32_t child = p->d->count;
            size_t key_at = p->i;
            if (!parse_value(p, depth))
                return false;
            if (object) {
                p->d->nodes[child].key = key;
                p->d->nodes[child].key_len = key_len;
                if (key_repeats(p, at, child)) {
                    p->i = key_at;
                    return fail(p, "duplicate object key");
                }
            }
            count++;
            ws(p);
            if (p->i >= p->n)
                return fail(p, "premature end of input");
            if (p->s[p->i] == close) {
                p->i++;
                break;
            }
            if (p->s[p->i] != ',')
                return fail(p, object ? "'}' expected" : "']' expected");
            p->i++;
        }
    }
    p->d->nodes[at].count = count;
    p->d->nodes[at].end = p->d->count;
    return true;
}

/* depth: the level of the value's container. */
static bool parse_value(parser_t *p, uint32_t depth)
{
    ws(p);
    if (p->i >= p->n)
        return fail(p, "premature end of input");
    if (depth + 1 > ZE__SCAN_MAX_DEPTH)
        return fail(p, "maximum parsing depth reached");
    unsigned char c = p->s[p->i];
    if (c == '{' || c == '[')
        return parse_container(p, depth + 1, c == '{');
    uint32_t at = new_node(p, ZE__J_NULL);
    if (at == UINT32_MAX)
        return false;
    bool ok;
    if (c == '"') {
        uint32_t off, len;
        ok = parse_string(p, &off, &len);
        if (ok) {
            p->d->nodes[at].type = ZE__J_STRING;
            p->d->nodes[at].v.str = off;
            p->d->nodes[at].count = len;
        }
    } else if (c == '-' || is_digit(c)) {
        ok = parse_number(p, at);
    } else if (is_alpha(c)) {
        size_t start = p->i;
        while (p->i < p->n && is_alpha(p->s[p->i]))
            p->i++;
        size_t len = p->i - start;
        const char *w = (const char *)p->s + start;
        ok = true;
        if (len == 4 && !memcmp(w, "true", 4))
            p->d->nodes[at].type = ZE__J_TRUE;
        else if (len == 5 && !memcmp(w, "false", 5))
            p->d->nodes[at].type = ZE__J_FALSE;
        else if (len == 4 && !memcmp(w, "null", 4))
            p->d->nodes[at].type = ZE__J_NULL;
        else
            ok = (p->i = start, fail(p, "invalid token"));
    } else {
        ok = fail(p, "invalid token");
    }
    p->d->nodes[at].end = p->d->count;
    return ok;
}

ze_result ze__jdoc_parse(ze__jdoc_t *d, const char *text, size_t n, uint32_t base_depth)
{
    d->count = 0;
    d->used = 0;
    d->err = NULL;
    d->err_at = 0;
    parser_t p = {.d = d, .s = (const unsigned char *)text, .n = n};
    bool ok = parse_value(&p, base_depth);
    if (ok) {
        ws(&p);
        if (p.i != p.n)
            ok = fail(&p, "end of file expected");
    }
    if (p.oom)
        return ZE_ERR_OUT_OF_MEMORY;
    return ok ? ZE_OK : ZE_ERR_PARSE;
}

void ze__jdoc_free(ze__jdoc_t *d)
{
    if (d->nodes)
        ze_free(d->alloc, d->nodes, sizeof(*d->nodes) * d->cap);
    if (d->chars)
        ze_free(d->alloc, d->chars, d->chars_cap);
    d->nodes = NULL;
    d->chars = NULL;
    d->cap = d->count = 0;
    d->chars_cap = d->used = 0;
}

const ze__jnode_t *ze__jn_get(const ze__jdoc_t *d, const ze__jnode_t *obj, const char *key)
{
    if (!obj || obj->type != ZE__J_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (const ze__jnode_t *c = ze__jn_first(d, obj); c; c = ze__jn_next(d, obj, c))
        if (c->key_len == kl && !memcmp(d->chars + c->key, key, kl))
            return c;
    return NULL;
}
