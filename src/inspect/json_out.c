/* The inspector's JSON writer: answers are built into one growing buffer of
 * the Inspect heap, with the commas and nesting tracked here. Strings are
 * escaped as JSON requires; bytes that start no valid UTF-8 sequence come
 * out as U+FFFD so a browser's JSON.parse never fails on a name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect/inspect_internal.h"

void ze__jw_init(ze__jw_t *w, ze_heap_t *heap)
{
    memset(w, 0, sizeof *w);
    w->heap = heap;
}

bool ze__jw_failed(const ze__jw_t *w)
{
    return !w->buf || w->buf->failed;
}

static bool reserve(ze__jw_t *w, size_t n)
{
    ze__insp_buf_t *b = w->buf;
    if (b && b->failed)
        return false;
    size_t need = (b ? b->len : 0) + n + 1;
    if (b && need <= b->cap)
        return true;
    if (need > ZE__INSPECT_ANSWER_MAX) {
        if (b)
            b->failed = true;
        return false;
    }
    size_t cap = b ? b->cap * 2 : 4096;
    while (cap < need)
        cap *= 2;
    ze__insp_buf_t *nb = ze_heap_realloc(w->heap, b, sizeof *nb + cap, 16);
    if (!nb) {
        if (b)
            b->failed = true;
        return false;
    }
    if (!b) {
        nb->heap = w->heap;
        nb->len = 0;
        nb->failed = false;
    }
    nb->cap = cap;
    w->buf = nb;
    return true;
}

void ze__jw_raw(ze__jw_t *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->buf->data + w->buf->len, s, n);
    w->buf->len += n;
    w->buf->data[w->buf->len] = '\0';
}

/* Before a value or a key: the comma that separates it from the previous
 * member (not after a key: the value belongs to it). */
static void sep(ze__jw_t *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0 && w->count[w->depth - 1]++ > 0)
        ze__jw_raw(w, ",", 1);
}

static void open(ze__jw_t *w, char c)
{
    sep(w);
    ze__jw_raw(w, &c, 1);
    if (w->depth < ZE_COUNTOF(w->count))
        w->count[w->depth] = 0;
    w->depth++;
}

static void close_(ze__jw_t *w, char c)
{
    if (w->depth > 0)
        w->depth--;
    ze__jw_raw(w, &c, 1);
}

void ze__jw_obj(ze__jw_t *w)
{
    open(w, '{');
}
void ze__jw_obj_end(ze__jw_t *w)
{
    close_(w, '}');
}
void ze__jw_arr(ze__jw_t *w)
{
    open(w, '[');
}
void ze__jw_arr_end(ze__jw_t *w)
{
    close_(w, ']');
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0; /* overlong, surrogate, above U+10FFFF */
    return len;
}

static void string_body(ze__jw_t *w, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    ze__jw_raw(w, "\"", 1);
    size_t run = 0; /* bytes copied as they are, flushed in one go */
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        const char *esc = NULL;
        char tmp[8];
        size_t len = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\r')
            esc = "\\r";
        else if (c < 0x20) {
            snprintf(tmp, sizeof tmp, "\\u%04x", c);
            esc = tmp;
        } else if (c >= 0x80 && (len = utf8_len(s + i, n - i)) == 0) {
            esc = "\xEF\xBF\xBD";
            len = 1;
        }
        if (!esc) {
            i += len;
            run += len;
            continue;
        }
        ze__jw_raw(w, (const char *)s + i - run, run);
        run = 0;
        ze__jw_raw(w, esc, strlen(esc));
        i += len;
    }
    ze__jw_raw(w, (const char *)s + n - run, run);
    ze__jw_raw(w, "\"", 1);
}

void ze__jw_key(ze__jw_t *w, const char *key)
{
    sep(w);
    string_body(w, key, strlen(key));
    ze__jw_raw(w, ":", 1);
    w->after_key = true;
}

void ze__jw_strn(ze__jw_t *w, const char *s, size_t n)
{
    sep(w);
    string_body(w, s ? s : "", s ? n : 0);
}

void ze__jw_str(ze__jw_t *w, const char *s)
{
    ze__jw_strn(w, s, s ? strlen(s) : 0);
}

void ze__jw_u64(ze__jw_t *w, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    sep(w);
    ze__jw_raw(w, tmp, (size_t)n);
}

void ze__jw_i64(ze__jw_t *w, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    sep(w);
    ze__jw_raw(w, tmp, (size_t)n);
}

void ze__jw_f64(ze__jw_t *w, double v)
{
    if (!isfinite(v)) {
        ze__jw_null(w);
        return;
    }
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    /* the shortest of 9 (a float's round trip) .. 17 digits that reads back */
    for (int p = 9; p < 17; p++) {
        char t2[40];
        int m = snprintf(t2, sizeof t2, "%.*g", p, v);
        if (strtod(t2, NULL) == v) {
            memcpy(tmp, t2, (size_t)m + 1);
            n = m;
            break;
        }
    }
    sep(w);
    ze__jw_raw(w, tmp, (size_t)n);
}

void ze__jw_bool(ze__jw_t *w, bool v)
{
    sep(w);
    ze__jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void ze__jw_null(ze__jw_t *w)
{
    sep(w);
    ze__jw_raw(w, "null", 4);
}

ze__insp_buf_t *ze__jw_take(ze__jw_t *w)
{
    ze__insp_buf_t *b = w->buf;
    w->buf = NULL;
    if (b && b->failed) {
        ze__insp_buf_free(b);
        return NULL;
    }
    return b;
}

void ze__insp_buf_free(ze__insp_buf_t *b)
{
    if (b)
        ze_heap_free(b->heap, b);
}
