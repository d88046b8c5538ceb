/* The scene reader's first pass: the structure of a whole document
 * without building it. One string-aware walk checks the brackets, commas,
 * colons and that keys are strings, decodes the top-level keys, and
 * records the byte span of every top-level value and of every element of
 * the "entities" array; the loader then hands each span to the JSON
 * library alone, so the library's tree never holds more than one entity
 * (a 1,000,000-entity file of ~300 MB would need ~1.8 GB as one tree).
 *
 * What this walk does not check, the library does when it parses a span:
 * the tokens (numbers, literals), string escapes and UTF-8 inside values,
 * duplicate keys inside a span. The loader parses every span it keeps
 * (top-level values and entities) before anything is applied, so a
 * document the library rejects as a whole is rejected here too, and one it
 * accepts is accepted (fuzz_scene_scan checks both ways).
 *
 * Stricter than the library in one way: a NUL byte is malformed anywhere
 * (the library drops some between tokens).
 *
 * Limits, enforced here: nesting deeper than ZE__SCAN_MAX_DEPTH (the
 * library's own maximum, counted from the document's root) is malformed;
 * entity spans beyond `keep` are counted, not stored. */
#include <string.h>

#include "ecs_internal.h"

typedef struct scan_t {
    const unsigned char *s;
    size_t n, i;
    const char *err;
    size_t err_at;
} scan_t;

static bool fail(scan_t *c, const char *what)
{
    if (!c->err) {
        c->err = what;
        c->err_at = c->i;
    }
    return false;
}

static void ws(scan_t *c)
{
    while (c->i < c->n) {
        unsigned char ch = c->s[c->i];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
            return;
        c->i++;
    }
}

/* At '"': past the closing quote. Escapes are skipped, not checked. */
static bool skip_string(scan_t *c)
{
    c->i++;
    for (;;) {
        const unsigned char *q = memchr(c->s + c->i, '"', c->n - c->i);
        if (!q) {
            c->i = c->n;
            return fail(c, "premature end of input in a string");
        }
        /* A quote preceded by an odd number of backslashes is escaped. */
        size_t at = (size_t)(q - c->s), bs = 0;
        while (at - bs > c->i && c->s[at - bs - 1] == '\\')
            bs++;
        c->i = at + 1;
        if (bs % 2 == 0)
            return true;
    }
}

static bool token_char(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '-' || ch == '+' || ch == '.';
}

static bool skip_value(scan_t *c, uint32_t depth);

static bool skip_container(scan_t *c, uint32_t depth)
{
    bool object = c->s[c->i] == '{';
    unsigned char close = object ? '}' : ']';
    c->i++;
    ws(c);
    if (c->i < c->n && c->s[c->i] == close) {
        c->i++;
        return true;
    }
    for (;;) {
        if (object) {
            ws(c);
            if (c->i >= c->n || c->s[c->i] != '"')
                return fail(c, "string or '}' expected");
            if (!skip_string(c))
                return false;
            ws(c);
            if (c->i >= c->n || c->s[c->i] != ':')
                return fail(c, "':' expected");
            c->i++;
        }
        if (!skip_value(c, depth))
            return false;
        ws(c);
        if (c->i >= c->n)
            return fail(c, "premature end of input");
        if (c->s[c->i] == close) {
            c->i++;
            return true;
        }
        if (c->s[c->i] != ',')
            return fail(c, object ? "'}' expected" : "']' expected");
        c->i++;
    }
}

/* One value, leading whitespace included; depth: of its container. Every
 * value counts as a level, scalars too (as the library counts). */
static bool skip_value(scan_t *c, uint32_t depth)
{
    ws(c);
    if (c->i >= c->n)
        return fail(c, "premature end of input");
    if (depth + 1 > ZE__SCAN_MAX_DEPTH)
        return fail(c, "maximum parsing depth reached");
    unsigned char ch = c->s[c->i];
    if (ch == '{' || ch == '[')
        return skip_container(c, depth + 1);
    if (ch == '"')
        return skip_string(c);
    size_t start = c->i;
    while (c->i < c->n && token_char(c->s[c->i]))
        c->i++;
    return c->i > start || fail(c, "invalid token");
}

static int hex_digit(unsigned char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch |= 0x20;
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

static bool read_u16(const unsigned char *p, size_t left, uint32_t *out)
{
    if (left < 4)
        return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_digit(p[k]);
        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return true;
}

/* A key's bytes between its quotes, decoded to UTF-8 into dst (at most
 * len bytes: decoding never grows); false when the library would reject
 * it: a control character, a bad escape, a lone surrogate, NUL, invalid
 * UTF-8. */
static bool decode_key(const unsigned char *s, size_t len, char *dst, size_t *out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        unsigned char ch = s[i];
        if (ch < 0x20)
            return false;
        if (ch >= 0x80) {
            size_t l = ze_utf8_valid_len(s + i, len - i);
            if (!l)
                return false;
            memcpy(dst + o, s + i, l);
            o += l;
            i += l;
            continue;
        }
        if (ch != '\\') {
            dst[o++] = (char)ch;
            i++;
            continue;
        }
        if (i + 1 >= len)
            return false;
        ch = s[i + 1];
        i += 2;
        static const char plain[] = "\"\\/bfnrt", value[] = "\"\\/\b\f\n\r\t";
        const char *hit = ch ? strchr(plain, ch) : NULL;
        if (hit) {
            dst[o++] = value[hit - plain];
            continue;
        }
        if (ch != 'u')
            return false;
        uint32_t cp;
        if (!read_u16(s + i, len - i, &cp))
            return false;
        i += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return false;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t lo;
            if (i + 6 > len || s[i] != '\\' || s[i + 1] != 'u' || !read_u16(s + i + 2, 4, &lo) ||
                lo < 0xdc00 || lo > 0xdfff)
                return false;
            i += 6;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        if (cp == 0)
            return false; /* the library refuses NUL in keys */
        /* \uXXXX takes 6 bytes (12 for a pair): its UTF-8 is never longer */
        if (cp < 0x80) {
            dst[o++] = (char)cp;
        } else if (cp < 0x800) {
            dst[o++] = (char)(0xc0 | cp >> 6);
            dst[o++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            dst[o++] = (char)(0xe0 | cp >> 12);
            dst[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
            dst[o++] = (char)(0x80 | (cp & 0x3f));
        } else {
            dst[o++] = (char)(0xf0 | cp >> 18);
            dst[o++] = (char)(0x80 | (cp >> 12 & 0x3f));
            dst[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
            dst[o++] = (char)(0x80 | (cp & 0x3f));
        }
    }
    *out_len = o;
    return true;
}

/* The elements of the entities array (at '['). */
static bool scan_entities(scan_t *c, ze__scene_scan_t *out, size_t keep, ze_result *oom)
{
    c->i++;
    ws(c);
    if (c->i < c->n && c->s[c->i] == ']') {
        c->i++;
        return true;
    }
    for (;;) {
        ws(c);
        size_t start = c->i;
        if (!skip_value(c, 2))
            return false;
        if (out->entity_count < keep) {
            ze__json_span_t sp = {start, c->i - start};
            if (ze_array_push(&out->entities, &sp) != ZE_OK) {
                *oom = ZE_ERR_OUT_OF_MEMORY;
                return false;
            }
        }
        out->entity_count++;
        ws(c);
        if (c->i >= c->n)
            return fail(c, "premature end of input");
        if (c->s[c->i] == ']') {
            c->i++;
            return true;
        }
        if (c->s[c->i] != ',')
            return fail(c, "']' expected");
        c->i++;
    }
}

ze_result ze__scene_scan(const char *text, size_t n, size_t keep, ze_allocator_t a,
                         ze__scene_scan_t *out)
{
    memset(out, 0, sizeof *out);
    ZE_ARRAY_INIT(&out->entities, a, ze__json_span_t);
    ZE_ARRAY_INIT(&out->others, a, ze__scene_key_t);
    ze_hashmap_init(&out->keys, a, sizeof(uint64_t), sizeof(uint32_t));
    out->alloc = a;
    scan_t c = {.s = (const unsigned char *)text, .n = n};
    ze_result oom = ZE_OK;
    ws(&c);
    if (c.i < c.n && c.s[c.i] != '{') {
        /* Not an object: only whether it is JSON matters to the caller. */
        out->root = (ze__json_span_t){c.i, 0};
        if (skip_value(&c, 0)) {
            ws(&c);
            if (c.i != c.n)
                fail(&c, "end of file expected");
        }
        out->root.len = c.i - out->root.off;
        goto done;
    }
    if (c.i >= c.n) {
        fail(&c, "'[' or '{' expected");
        goto done;
    }
    out->root_object = true;
    c.i++;
    ws(&c);
    bool empty = c.i < c.n && c.s[c.i] == '}';
    if (empty)
        c.i++;
    while (!empty) {
        ws(&c);
        if (c.i >= c.n || c.s[c.i] != '"') {
            fail(&c, "string or '}' expected");
            goto done;
        }
        size_t key_start = c.i + 1;
        if (!skip_string(&c))
            goto done;
        size_t raw_len = c.i - 1 - key_start;
        char small[64];
        char *key = raw_len < sizeof small ? small : ze_alloc(a, raw_len + 1, 1);
        size_t key_len = 0;
        if (!key) {
            oom = ZE_ERR_OUT_OF_MEMORY;
            goto done;
        }
        bool ok = decode_key(c.s + key_start, raw_len, key, &key_len);
        uint64_t h = ok ? ze_hash64(key, key_len, 0) : 0;
        bool is_entities = ok && key_len == 8 && !memcmp(key, "entities", 8);
        if (key != small)
            ze_free(a, key, raw_len + 1);
        if (!ok) {
            c.i = key_start;
            fail(&c, "invalid object key");
            goto done;
        }
        uint32_t pos = out->others.count;
        /* Repeated key (JSON_REJECT_DUPLICATES): one hash per key. A hash
         * collision of two different keys would be reported as a repeat;
         * with 64 bits, only a crafted file gets one. */
        if (ze_hashmap_get(&out->keys, &h)) {
            c.i = key_start;
            fail(&c, "duplicate object key");
            goto done;
        }
        if (ze_hashmap_put(&out->keys, &h, &pos) != ZE_OK) {
            oom = ZE_ERR_OUT_OF_MEMORY;
            goto done;
        }
        ws(&c);
        if (c.i >= c.n || c.s[c.i] != ':') {
            fail(&c, "':' expected");
            goto done;
        }
        c.i++;
        ws(&c);
        ze__scene_key_t k = {.key = {key_start, raw_len}, .value = {c.i, 0}};
        if (is_entities && c.i < c.n && c.s[c.i] == '[') {
            out->entities_array = true;
            if (!scan_entities(&c, out, keep, &oom))
                goto done;
            out->entities_span = (ze__json_span_t){k.value.off, c.i - k.value.off};
        } else {
            if (!skip_value(&c, 1))
                goto done;
        }
        k.value.len = c.i - k.value.off;
        k.entities = is_entities;
        if (ze_array_push(&out->others, &k) != ZE_OK) {
            oom = ZE_ERR_OUT_OF_MEMORY;
            goto done;
        }
        ws(&c);
        if (c.i >= c.n) {
            fail(&c, "premature end of input");
            goto done;
        }
        if (c.s[c.i] == '}') {
            c.i++;
            break;
        }
        if (c.s[c.i] != ',') {
            fail(&c, "'}' expected");
            goto done;
        }
        c.i++;
    }
    ws(&c);
    if (c.i != c.n)
        fail(&c, "end of file expected");
done:
    if (oom != ZE_OK)
        return oom;
    if (c.err) {
        out->err = c.err;
        out->err_at = c.err_at;
        return ZE_ERR_PARSE;
    }
    return ZE_OK;
}

void ze__scene_scan_free(ze__scene_scan_t *s)
{
    ze_array_free(&s->entities);
    ze_array_free(&s->others);
    ze_hashmap_free(&s->keys);
}

void ze__scene_scan_position(const char *text, size_t at, int *line, int *column)
{
    int l = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n')
            l++, line_start = i + 1;
    *line = l;
    *column = (int)ZE_MIN(at - line_start + 1, (size_t)INT32_MAX);
}
