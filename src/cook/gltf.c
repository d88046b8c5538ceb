/* glTF 2.0 importer: entry points, the GLB container, JSON helpers with
 * JSON-pointer error paths, URI resolution (external files and data: URIs)
 * and the order in which the parts run. The parts live in gltf_data.c
 * (buffers, views, accessors), gltf_mesh.c, gltf_material.c and
 * gltf_scene.c.
 *
 * Validation is strict: what the glTF 2.0 specification forbids is an
 * error, the first one found ends the import, and its message names the
 * JSON pointer of the property ("/meshes/0/primitives/0/indices: ...").
 *
 * Limits (enforced here): any file read and the model's memory are capped
 * by desc.max_bytes (default 1 GiB); counts are 32-bit; a URI is at most
 * PATH_MAX bytes once resolved.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"

enum {
    GLB_MAGIC = 0x46546c67, /* "glTF" */
    GLB_CHUNK_JSON = 0x4e4f534a,
    GLB_CHUNK_BIN = 0x004e4942,
    GLB_HEADER = 12,
};

#define DEFAULT_MAX_BYTES ZE_GIB(1)

/* ------------------------------------------------------------ errors, path */

ze_result ze__gl_fail(ze__gl_ctx_t *c, ze_result code, const char *fmt, ...)
{
    char msg[ZE__ASSET_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->path_len)
        ze__asset_error_set(c->err, "%s: %s", c->path, msg);
    else
        ze__asset_error_set(c->err, "%s", msg);
    return code;
}

static size_t path_append(ze__gl_ctx_t *c, const char *seg)
{
    size_t mark = c->path_len;
    int n = snprintf(c->path + c->path_len, sizeof c->path - c->path_len, "/%s", seg);
    if (n < 0 || (size_t)n >= sizeof c->path - c->path_len)
        c->path_len = sizeof c->path - 1; /* truncated, still terminated */
    else
        c->path_len += (size_t)n;
    return mark;
}

size_t ze__gl_push_key(ze__gl_ctx_t *c, const char *key)
{
    /* JSON pointer escapes: ~ as ~0 and / as ~1. Keys are short; longer
       ones are cut (the message stays one line). */
    char buf[96];
    size_t o = 0;
    for (const char *p = key; *p && o + 3 < sizeof buf; p++) {
        if (*p == '~' || *p == '/') {
            buf[o++] = '~';
            buf[o++] = *p == '~' ? '0' : '1';
        } else if ((unsigned char)*p < 0x20) {
            buf[o++] = '?';
        } else {
            buf[o++] = *p;
        }
    }
    buf[o] = 0;
    return path_append(c, buf);
}

size_t ze__gl_push_index(ze__gl_ctx_t *c, size_t index)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%zu", index);
    return path_append(c, buf);
}

void ze__gl_pop(ze__gl_ctx_t *c, size_t mark)
{
    c->path_len = mark;
    c->path[mark] = 0;
}

/* ------------------------------------------------------------ JSON getters */

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* Fetch `key`; a missing required property is an error naming it. */
static ze_result get_raw(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required, json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out && required) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "required property is missing");
    }
    return ZE_OK;
}

ze_result ze__gl_get_object(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            json_t **out)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    *out = NULL;
    if (!v)
        return ZE_OK;
    if (!json_is_object(v)) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "must be an object, not %s", json_kind(v));
    }
    *out = v;
    return ZE_OK;
}

ze_result ze__gl_get_array(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                           json_t **out, uint32_t *count)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    *out = NULL;
    *count = 0;
    if (!v)
        return ZE_OK;
    if (!json_is_array(v)) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "must be an array, not %s", json_kind(v));
    }
    size_t n = json_array_size(v);
    if (n == 0) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "array must not be empty");
    }
    if (n > UINT32_MAX - 1) {
        ze__gl_push_key(c, key);
        return ze__gl_fail(c, ZE_ERR_LIMIT, "array has too many elements");
    }
    *out = v;
    *count = (uint32_t)n;
    return ZE_OK;
}

static ze_result check_uint(ze__gl_ctx_t *c, json_t *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!json_is_integer(v))
        return ZE__GL_FAIL(c, "must be an integer, not %s%s", json_kind(v),
                           json_is_real(v) ? " with a fraction or exponent" : "");
    json_int_t i = json_integer_value(v);
    if (i < 0 || (uint64_t)i < lo || (uint64_t)i > hi) {
        if (hi == UINT64_MAX || hi >= (uint64_t)INT64_MAX)
            return ZE__GL_FAIL(c, "value %lld is out of range (at least %llu)", (long long)i,
                               (unsigned long long)lo);
        return ZE__GL_FAIL(c, "value %lld is out of range [%llu, %llu]", (long long)i,
                           (unsigned long long)lo, (unsigned long long)hi);
    }
    *out = (uint64_t)i;
    return ZE_OK;
}

ze_result ze__gl_get_uint(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required, uint64_t lo,
                          uint64_t hi, uint64_t *out, bool *present)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    if (present)
        *present = v != NULL;
    if (!v)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, key);
    ZE__TRY(check_uint(c, v, lo, hi, out));
    ze__gl_pop(c, mark);
    return ZE_OK;
}

static ze_result check_number(ze__gl_ctx_t *c, json_t *v, double *out)
{
    if (!json_is_number(v))
        return ZE__GL_FAIL(c, "must be a number, not %s", json_kind(v));
    double d = json_number_value(v);
    /* jansson parses overflowing reals as errors and integers exactly;
       what reaches here is finite. */
    *out = d;
    return ZE_OK;
}

ze_result ze__gl_get_number(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            double *out, bool *present)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    if (present)
        *present = v != NULL;
    if (!v)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, key);
    ZE__TRY(check_number(c, v, out));
    ze__gl_pop(c, mark);
    return ZE_OK;
}

ze_result ze__gl_get_bool(ze__gl_ctx_t *c, json_t *obj, const char *key, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return ZE_OK;
    if (!json_is_boolean(v)) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "must be a boolean, not %s", json_kind(v));
    }
    *out = json_is_true(v);
    return ZE_OK;
}

ze_result ze__gl_get_string(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            const char **out)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    *out = NULL;
    if (!v)
        return ZE_OK;
    if (!json_is_string(v)) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "must be a string, not %s", json_kind(v));
    }
    *out = json_string_value(v);
    return ZE_OK;
}

ze_result ze__gl_get_numbers(ze__gl_ctx_t *c, json_t *obj, const char *key, size_t n, double *out,
                             bool *present)
{
    json_t *v = json_object_get(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, key);
    if (!json_is_array(v))
        return ZE__GL_FAIL(c, "must be an array of %zu numbers, not %s", n, json_kind(v));
    if (json_array_size(v) != n)
        return ZE__GL_FAIL(c, "must have exactly %zu elements, not %zu", n, json_array_size(v));
    for (size_t i = 0; i < n; i++) {
        size_t m2 = ze__gl_push_index(c, i);
        ZE__TRY(check_number(c, json_array_get(v, i), &out[i]));
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    return ZE_OK;
}

static ze_result check_ref(ze__gl_ctx_t *c, json_t *v, uint32_t limit, const char *what,
                           int64_t *out)
{
    *out = -1;
    if (!json_is_integer(v))
        return ZE__GL_FAIL(c, "must be an index (an integer), not %s", json_kind(v));
    json_int_t i = json_integer_value(v);
    if (i < 0 || (uint64_t)i >= limit) {
        if (limit == 0)
            return ZE__GL_FAIL(c, "unresolved reference: %s %lld does not exist (there are none)",
                               what, (long long)i);
        return ZE__GL_FAIL(c, "unresolved reference: %s %lld does not exist (there are %u)", what,
                           (long long)i, limit);
    }
    *out = (int64_t)i;
    return ZE_OK;
}

ze_result ze__gl_get_ref(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                         uint32_t limit, const char *what, int64_t *out)
{
    json_t *v;
    ZE__TRY(get_raw(c, obj, key, required, &v));
    *out = -1;
    if (!v)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, key);
    ZE__TRY(check_ref(c, v, limit, what, out));
    ze__gl_pop(c, mark);
    return ZE_OK;
}

ze_result ze__gl_get_refs(ze__gl_ctx_t *c, json_t *obj, const char *key, uint32_t limit,
                          const char *what, uint32_t **out, uint32_t *count)
{
    json_t *arr;
    uint32_t n;
    *out = NULL;
    *count = 0;
    ZE__TRY(ze__gl_get_array(c, obj, key, false, &arr, &n));
    if (!arr)
        return ZE_OK;
    uint32_t *refs = ze__astore_array(c->store, n, sizeof(uint32_t), 4, false);
    /* Uniqueness with one bitmap over the largest target array so far,
       cleared after each use (so N arrays cost O(total length), not
       O(N * limit)). */
    if (!c->seen || c->seen_bits < limit) {
        c->seen = ze__astore_zero(c->store, limit / 8 + 1, 1);
        c->seen_bits = c->seen ? limit : 0;
    }
    uint8_t *seen = c->seen;
    if (!refs || !seen)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t mark = ze__gl_push_key(c, key);
    for (uint32_t i = 0; i < n; i++) {
        size_t m2 = ze__gl_push_index(c, i);
        int64_t r;
        ZE__TRY(check_ref(c, json_array_get(arr, i), limit, what, &r));
        if (seen[r / 8] & (1u << (r % 8)))
            return ZE__GL_FAIL(c, "%s %lld is listed twice (elements must be unique)", what,
                               (long long)r);
        seen[r / 8] |= (uint8_t)(1u << (r % 8));
        refs[i] = (uint32_t)r;
        ze__gl_pop(c, m2);
    }
    for (uint32_t i = 0; i < n; i++)
        seen[refs[i] / 8] = 0;
    ze__gl_pop(c, mark);
    *out = refs;
    *count = n;
    return ZE_OK;
}

ze_result ze__gl_common(ze__gl_ctx_t *c, json_t *obj, const char **name)
{
    json_t *ext;
    ZE__TRY(ze__gl_get_object(c, obj, "extensions", false, &ext));
    if (ext) {
        /* Every extension used must be declared, and its value is an
           object. */
        const char *key;
        json_t *val;
        json_object_foreach(ext, key, val)
        {
            bool declared = false;
            for (size_t i = 0; i < json_array_size(c->j_used); i++)
                if (strcmp(json_string_value(json_array_get(c->j_used, i)), key) == 0)
                    declared = true;
            size_t mark = ze__gl_push_key(c, "extensions");
            ze__gl_push_key(c, key);
            if (!declared)
                return ZE__GL_FAIL(c, "extension '%.80s' is not listed in extensionsUsed", key);
            if (!json_is_object(val))
                return ZE__GL_FAIL(c, "must be an object, not %s", json_kind(val));
            ze__gl_pop(c, mark);
        }
    }
    if (name) {
        const char *s;
        ZE__TRY(ze__gl_get_string(c, obj, "name", false, &s));
        *name = ze__astore_strdup(c->store, s ? s : "");
        if (!*name)
            return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return ZE_OK;
}

ze_result ze__gl_element(ze__gl_ctx_t *c, json_t *arr, uint32_t i, json_t **out)
{
    *out = json_array_get(arr, i);
    if (!json_is_object(*out))
        return ZE__GL_FAIL(c, "must be an object, not %s", json_kind(*out));
    return ZE_OK;
}

ze_result ze__gl_extension(ze__gl_ctx_t *c, json_t *obj, const char *name, json_t **out)
{
    json_t *exts;
    *out = NULL;
    ZE__TRY(ze__gl_get_object(c, obj, "extensions", false, &exts));
    if (!exts)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, "extensions");
    ZE__TRY(ze__gl_get_object(c, exts, name, false, out));
    ze__gl_pop(c, mark);
    return ZE_OK;
}

/* --------------------------------------------------------------- files */

static ze_result add_dependency(ze__gl_ctx_t *c, const char *rel)
{
    if (c->ndeps == c->deps_cap) {
        uint32_t cap = c->deps_cap ? c->deps_cap * 2 : 8;
        const char **d = ze__astore_array(c->store, cap, sizeof(char *), 8, false);
        if (!d)
            return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
        if (c->ndeps)
            memcpy(d, c->deps, c->ndeps * sizeof(char *));
        c->deps = d;
        c->deps_cap = cap;
    }
    c->deps[c->ndeps++] = rel;
    return ZE_OK;
}

/* Read a whole regular file into the store. Messages name the file as
 * `what` says, or "the source file" when `what` is NULL (the caller knows
 * its path). */
static ze_result read_file(ze__astore_t *store, const char *path, uint64_t max_bytes,
                           uint8_t **data, size_t *size, ze__asset_error_t *err, const char *what)
{
    char label[PATH_MAX + 64];
    if (what)
        snprintf(label, sizeof label, "%s%s", what, path);
    else
        snprintf(label, sizeof label, "the source file");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ze__asset_error_set(err, "cannot open %s: %s", label, strerror(errno));
        return errno == ENOENT ? ZE_ERR_NOT_FOUND : ZE_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        ze__asset_error_set(err, "%s: not a regular file", label);
        return ZE_ERR_IO;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        ze__asset_error_set(err, "%s: %lld bytes is over the limit of %llu", label,
                            (long long)st.st_size, (unsigned long long)max_bytes);
        return ZE_ERR_LIMIT;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = ze__astore_push(store, n ? n : 1, 16);
    if (!buf) {
        close(fd);
        ze__asset_error_set(err, "%s: out of memory (%zu bytes)", label, n);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            ze__asset_error_set(err, "%s: read failed", label);
            return ZE_ERR_IO;
        }
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *size = n;
    return ZE_OK;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* A relative URI reference to a normalized relative path: percent-decoded,
 * "." dropped, ".." resolved but never above the folder. */
static ze_result resolve_relative(ze__gl_ctx_t *c, const char *uri, char **out)
{
    *out = NULL;
    size_t len = strlen(uri);
    if (len == 0)
        return ZE__GL_FAIL(c, "URI is empty");
    if (uri[0] == '/')
        return ZE__GL_FAIL(c, "absolute paths are refused: '%.200s'", uri);
    for (size_t i = 0; i < len; i++) {
        char ch = uri[i];
        if (ch == ':') {
            /* A scheme ("http:", "file:", "C:") before any '/'. */
            if (memchr(uri, '/', i) == NULL)
                return ZE__GL_FAIL(c,
                                   "URI scheme is not supported (only relative paths and "
                                   "data: URIs): '%.200s'",
                                   uri);
        }
        if (ch == '\\' || ch == '?' || ch == '#')
            return ZE__GL_FAIL(c, "URI contains '%c', which is refused: '%.200s'", ch, uri);
    }
    char *dec = ze__astore_push(c->store, len + 1, 1);
    if (!dec)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (uri[i] == '%') {
            if (i + 2 >= len)
                return ZE__GL_FAIL(c, "URI has a truncated percent escape: '%.200s'", uri);
            int h = hex_value(uri[i + 1]), l = hex_value(uri[i + 2]);
            if (h < 0 || l < 0)
                return ZE__GL_FAIL(c, "URI has an invalid percent escape: '%.200s'", uri);
            char ch = (char)(h * 16 + l);
            if (ch == 0 || ch == '\\')
                return ZE__GL_FAIL(c, "URI decodes to a forbidden character: '%.200s'", uri);
            dec[o++] = ch;
            i += 2;
        } else {
            dec[o++] = uri[i];
        }
    }
    dec[o] = 0;
    /* Normalize segments in place. */
    char *res = ze__astore_push(c->store, o + 1, 1);
    if (!res)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t r = 0;
    const char *p = dec;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t seg = slash ? (size_t)(slash - p) : strlen(p);
        if (seg == 0 || (seg == 1 && p[0] == '.')) {
            /* empty or "." */
        } else if (seg == 2 && p[0] == '.' && p[1] == '.') {
            if (r == 0)
                return ZE__GL_FAIL(c, "URI escapes the source's folder: '%.200s'", uri);
            while (r > 0 && res[r - 1] != '/')
                r--;
            if (r > 0)
                r--; /* the separator */
        } else {
            if (r)
                res[r++] = '/';
            memcpy(res + r, p, seg);
            r += seg;
        }
        p += seg;
        if (*p == '/')
            p++;
    }
    res[r] = 0;
    if (r == 0)
        return ZE__GL_FAIL(c, "URI names no file: '%.200s'", uri);
    *out = res;
    return ZE_OK;
}

/* "data:<type>/<subtype>[;param=value]*;base64,<payload>" */
static ze_result load_data_uri(ze__gl_ctx_t *c, const char *uri, bool image, const uint8_t **data,
                               size_t *size, const char **mime)
{
    const char *p = uri + 5;
    const char *comma = strchr(p, ',');
    if (!comma)
        return ZE__GL_FAIL(c, "invalid data URI: no ',' before the payload");
    /* media type */
    const char *q = p;
    while (q < comma && *q != ';')
        q++;
    size_t tlen = (size_t)(q - p);
    static const char *const buffer_types[] = {"application/octet-stream",
                                               "application/gltf-buffer"};
    static const char *const image_types[] = {"image/png", "image/jpeg"};
    const char *const *types = image ? image_types : buffer_types;
    const char *matched = NULL;
    for (int k = 0; k < 2; k++)
        if (strlen(types[k]) == tlen && strncmp(types[k], p, tlen) == 0)
            matched = types[k];
    if (!matched) {
        if (tlen == 0)
            return ZE__GL_FAIL(c, "invalid data URI: the media type is missing");
        return ZE__GL_FAIL(c, "invalid data URI: media type '%.*s' is not allowed for %s",
                           (int)ZE_MIN(tlen, 64), p, image ? "an image" : "a buffer");
    }
    /* parameters; the last one must be "base64" */
    bool base64 = false;
    while (q < comma) {
        q++; /* ';' */
        const char *e = q;
        while (e < comma && *e != ';')
            e++;
        size_t plen = (size_t)(e - q);
        if (plen == 0)
            return ZE__GL_FAIL(c, "invalid data URI: empty media-type parameter");
        if (plen == 6 && strncmp(q, "base64", 6) == 0 && e == comma) {
            base64 = true;
        } else {
            const char *eq = memchr(q, '=', plen);
            if (!eq || eq == q || eq == e - 1)
                return ZE__GL_FAIL(c, "invalid data URI: parameter '%.*s' is not name=value",
                                   (int)ZE_MIN(plen, 64), q);
        }
        q = e;
    }
    if (!base64)
        return ZE__GL_FAIL(c, "invalid data URI: only base64 payloads are supported");
    const char *payload = comma + 1;
    size_t plen = strlen(payload);
    uint8_t *buf = ze__astore_push(c->store, ze__base64_max(plen) + 1, 16);
    if (!buf)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t n;
    if (!ze__base64_decode(payload, plen, buf, &n))
        return ZE__GL_FAIL(c, "invalid data URI: malformed base64 payload");
    *data = buf;
    *size = n;
    *mime = matched;
    return ZE_OK;
}

ze_result ze__gl_load_uri(ze__gl_ctx_t *c, const char *uri, bool image, const uint8_t **data,
                          size_t *size, const char **rel_path, const char **mime)
{
    *rel_path = NULL;
    *mime = NULL;
    if (strncmp(uri, "data:", 5) == 0)
        return load_data_uri(c, uri, image, data, size, mime);
    char *rel;
    ZE__TRY(resolve_relative(c, uri, &rel));
    if (!c->base_dir)
        return ZE__GL_FAIL(c,
                           "external file '%.200s' cannot be resolved (imported from memory "
                           "without a base folder)",
                           rel);
    size_t blen = strlen(c->base_dir), rlen = strlen(rel), full_len;
    if (!ze_size_add(blen, rlen + 2, &full_len) || full_len > PATH_MAX)
        return ze__gl_fail(c, ZE_ERR_LIMIT, "path of '%.200s' is too long", rel);
    char *full = ze__astore_push(c->store, full_len, 1);
    if (!full)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(full, full_len, "%s%s%s", c->base_dir, blen && c->base_dir[blen - 1] != '/' ? "/" : "",
             rel);
    uint64_t left = c->max_bytes > c->file_bytes ? c->max_bytes - c->file_bytes : 0;
    uint8_t *buf;
    size_t n;
    ze__asset_error_t ferr;
    ze_result r = read_file(c->store, full, left, &buf, &n, &ferr, "");
    if (r != ZE_OK) {
        /* A missing image the import keeps going without is still a
           dependency: the source cooks again when the file appears. */
        if (r == ZE_ERR_NOT_FOUND && image && c->keep_bad_images)
            ZE__TRY(add_dependency(c, rel));
        if (r == ZE_ERR_NOT_FOUND)
            return ze__gl_fail(c, r, "file '%.200s' not found", rel);
        return ze__gl_fail(c, r, "cannot read '%.200s' (%s)", rel, ferr.message);
    }
    c->file_bytes += n;
    ZE__TRY(add_dependency(c, rel));
    *data = buf;
    *size = n;
    *rel_path = rel;
    return ZE_OK;
}

/* --------------------------------------------------------------- GLB */

static ze_result parse_glb(ze__gl_ctx_t *c, const uint8_t *data, size_t size, const uint8_t **json,
                           size_t *json_size)
{
    if (size < GLB_HEADER)
        return ZE__GL_FAIL(c, "GLB: the file is %zu bytes, shorter than the 12-byte header", size);
    uint32_t magic = ze__rd_u32le(data), version = ze__rd_u32le(data + 4);
    uint32_t length = ze__rd_u32le(data + 8);
    if (magic != GLB_MAGIC)
        return ZE__GL_FAIL(c, "GLB: invalid magic 0x%08x (expected 'glTF')", magic);
    if (version != 2)
        return ze__gl_fail(c, ZE_ERR_UNSUPPORTED,
                           "GLB: container version %u is not supported (only 2)", version);
    if (length != size)
        return ZE__GL_FAIL(c, "GLB: the header's length %u does not match the file size %zu",
                           length, size);
    size_t pos = GLB_HEADER;
    uint32_t index = 0;
    bool have_json = false;
    while (pos < size) {
        if (size - pos < 8)
            return ZE__GL_FAIL(c, "GLB: chunk %u at byte %zu: truncated chunk header", index, pos);
        uint32_t clen = ze__rd_u32le(data + pos), ctype = ze__rd_u32le(data + pos + 4);
        if (clen > size - pos - 8)
            return ZE__GL_FAIL(c,
                               "GLB: chunk %u at byte %zu: its length %u runs past the end of "
                               "the file",
                               index, pos, clen);
        if (clen % 4 != 0)
            return ZE__GL_FAIL(c, "GLB: chunk %u at byte %zu: length %u is not a multiple of 4",
                               index, pos, clen);
        const uint8_t *body = data + pos + 8;
        if (index == 0) {
            if (ctype != GLB_CHUNK_JSON)
                return ZE__GL_FAIL(c, "GLB: the first chunk must be JSON, found type 0x%08x",
                                   ctype);
            if (clen == 0)
                return ZE__GL_FAIL(c, "GLB: the JSON chunk is empty");
            *json = body;
            *json_size = clen;
            have_json = true;
        } else if (ctype == GLB_CHUNK_JSON) {
            return ZE__GL_FAIL(c, "GLB: chunk %u is a second JSON chunk", index);
        } else if (ctype == GLB_CHUNK_BIN) {
            if (index != 1)
                return ZE__GL_FAIL(c,
                                   "GLB: chunk %u is a BIN chunk; only the second chunk may "
                                   "be BIN",
                                   index);
            c->glb_bin = body;
            c->glb_bin_size = clen;
        }
        /* Chunks of other types are ignored, as the specification asks. */
        pos += 8 + (size_t)clen;
        index++;
    }
    if (!have_json)
        return ZE__GL_FAIL(c, "GLB: no JSON chunk");
    c->glb = true;
    return ZE_OK;
}

/* ----------------------------------------------------------- asset, exts */

static bool parse_version(const char *s, unsigned *major, unsigned *minor)
{
    /* ^[0-9]+\.[0-9]+$ */
    unsigned v[2] = {0, 0};
    const char *p = s;
    for (int k = 0; k < 2; k++) {
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9') {
            if (v[k] > 100000)
                return false;
            v[k] = v[k] * 10 + (unsigned)(*p - '0');
            p++;
        }
        if (k == 0) {
            if (*p != '.')
                return false;
            p++;
        }
    }
    if (*p)
        return false;
    *major = v[0];
    *minor = v[1];
    return true;
}

static ze_result parse_asset(ze__gl_ctx_t *c)
{
    json_t *asset;
    ZE__TRY(ze__gl_get_object(c, c->root, "asset", true, &asset));
    size_t mark = ze__gl_push_key(c, "asset");
    const char *version, *min_version, *s;
    ZE__TRY(ze__gl_get_string(c, asset, "version", true, &version));
    ZE__TRY(ze__gl_get_string(c, asset, "minVersion", false, &min_version));
    ZE__TRY(ze__gl_get_string(c, asset, "generator", false, &s));
    ZE__TRY(ze__gl_get_string(c, asset, "copyright", false, &s));
    unsigned major, minor;
    ze__gl_push_key(c, "version");
    if (!parse_version(version, &major, &minor))
        return ZE__GL_FAIL(c, "'%.40s' is not a version of the form <major>.<minor>", version);
    if (major != 2)
        return ze__gl_fail(c, ZE_ERR_UNSUPPORTED, "glTF version %.40s is not supported (only 2.x)",
                           version);
    ze__gl_pop(c, mark);
    if (min_version) {
        ze__gl_push_key(c, "asset");
        ze__gl_push_key(c, "minVersion");
        if (!parse_version(min_version, &major, &minor))
            return ZE__GL_FAIL(c, "'%.40s' is not a version of the form <major>.<minor>",
                               min_version);
        if (major != 2 || minor > 0)
            return ze__gl_fail(c, ZE_ERR_UNSUPPORTED,
                               "the asset needs glTF %.40s; this importer implements 2.0",
                               min_version);
        ze__gl_pop(c, mark);
    }
    return ZE_OK;
}

/* Extensions whose meaning this importer implements. */
static const char *const g_supported_ext[] = {
    "KHR_texture_transform",   "KHR_materials_emissive_strength", "KHR_mesh_quantization",
    "EXT_meshopt_compression", "KHR_draco_mesh_compression",
};

/* Extensions that may supply images in other formats (their images are
 * kept as UNKNOWN instead of rejected). */
static const char *const g_image_ext[] = {
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "MSFT_texture_dds",
};

static ze_result parse_extensions(ze__gl_ctx_t *c)
{
    json_t *used, *required;
    uint32_t nused, nreq;
    ZE__TRY(ze__gl_get_array(c, c->root, "extensionsUsed", false, &used, &nused));
    ZE__TRY(ze__gl_get_array(c, c->root, "extensionsRequired", false, &required, &nreq));
    size_t mark = ze__gl_push_key(c, "extensionsUsed");
    for (uint32_t i = 0; i < nused; i++) {
        json_t *v = json_array_get(used, i);
        size_t m2 = ze__gl_push_index(c, i);
        if (!json_is_string(v))
            return ZE__GL_FAIL(c, "must be a string, not %s", json_kind(v));
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_array_get(used, k)), json_string_value(v)) == 0)
                return ZE__GL_FAIL(c, "extension '%.80s' is listed twice", json_string_value(v));
        const char *name = json_string_value(v);
        if (strcmp(name, "KHR_mesh_quantization") == 0)
            c->ext_quantization = true;
        else if (strcmp(name, "KHR_texture_transform") == 0)
            c->ext_texture_transform = true;
        else if (strcmp(name, "KHR_materials_emissive_strength") == 0)
            c->ext_emissive_strength = true;
        else if (strcmp(name, "EXT_meshopt_compression") == 0)
            c->ext_meshopt = true;
        else if (strcmp(name, "KHR_draco_mesh_compression") == 0)
            c->ext_draco = true;
        for (size_t k = 0; k < ZE_COUNTOF(g_image_ext); k++)
            if (strcmp(name, g_image_ext[k]) == 0)
                c->ext_other_images = true;
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    c->j_used = used;
    mark = ze__gl_push_key(c, "extensionsRequired");
    for (uint32_t i = 0; i < nreq; i++) {
        json_t *v = json_array_get(required, i);
        size_t m2 = ze__gl_push_index(c, i);
        if (!json_is_string(v))
            return ZE__GL_FAIL(c, "must be a string, not %s", json_kind(v));
        const char *name = json_string_value(v);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_array_get(required, k)), name) == 0)
                return ZE__GL_FAIL(c, "extension '%.80s' is listed twice", name);
        bool in_used = false;
        for (uint32_t k = 0; k < nused; k++)
            if (strcmp(json_string_value(json_array_get(used, k)), name) == 0)
                in_used = true;
        if (!in_used)
            return ZE__GL_FAIL(c, "required extension '%.80s' is not in extensionsUsed", name);
        bool supported = false;
        for (size_t k = 0; k < ZE_COUNTOF(g_supported_ext); k++)
            if (strcmp(name, g_supported_ext[k]) == 0)
                supported = true;
        if (!supported)
            return ze__gl_fail(c, ZE_ERR_UNSUPPORTED, "required extension '%.80s' is not supported",
                               name);
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    return ZE_OK;
}

static ze_result top_array(ze__gl_ctx_t *c, const char *key, json_t **arr, uint32_t *n)
{
    return ze__gl_get_array(c, c->root, key, false, arr, n);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static ze_result import_json(ze__gl_ctx_t *c, const uint8_t *text, size_t size)
{
    json_error_t jerr;
    c->root = json_loadb((const char *)text, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!c->root)
        return ZE__GL_FAIL(c, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                           jerr.text);
    if (!json_is_object(c->root))
        return ZE__GL_FAIL(c, "the glTF JSON must be an object");
    ZE__TRY(parse_asset(c));
    ZE__TRY(parse_extensions(c));
    size_t mark = ze__gl_push_key(c, "asset");
    ZE__TRY(ze__gl_common(c, json_object_get(c->root, "asset"), NULL));
    ze__gl_pop(c, mark);
    ZE__TRY(ze__gl_common(c, c->root, NULL));
    ZE__TRY(top_array(c, "buffers", &c->j_buffers, &c->nbuffers));
    ZE__TRY(top_array(c, "bufferViews", &c->j_views, &c->nviews));
    ZE__TRY(top_array(c, "accessors", &c->j_accessors, &c->naccessors));
    ZE__TRY(top_array(c, "meshes", &c->j_meshes, &c->nmeshes));
    ZE__TRY(top_array(c, "materials", &c->j_materials, &c->nmaterials));
    ZE__TRY(top_array(c, "textures", &c->j_textures, &c->ntextures));
    ZE__TRY(top_array(c, "images", &c->j_images, &c->nimages));
    ZE__TRY(top_array(c, "samplers", &c->j_samplers, &c->nsamplers));
    ZE__TRY(top_array(c, "nodes", &c->j_nodes, &c->nnodes));
    ZE__TRY(top_array(c, "scenes", &c->j_scenes, &c->nscenes));
    ZE__TRY(top_array(c, "cameras", &c->j_cameras, &c->ncameras));
    ZE__TRY(top_array(c, "skins", &c->j_skins, &c->nskins));
    ZE__TRY(top_array(c, "animations", &c->j_animations, &c->nanimations));

    ze_model_t *m = c->model;
    ze_model_stats_t *st = &m->stats;
    st->meshes = c->nmeshes;
    st->materials = c->nmaterials;
    st->textures = c->ntextures;
    st->images = c->nimages;
    st->samplers = c->nsamplers;
    st->nodes = c->nnodes;
    st->scenes = c->nscenes;
    st->cameras = c->ncameras;
    st->skins = c->nskins;
    st->animations = c->nanimations;
    st->accessors = c->naccessors;
    st->buffer_views = c->nviews;
    st->buffers = c->nbuffers;
    m->binary = c->glb;

    ZE__TRY(ze__gl_parse_buffers(c));
    ZE__TRY(ze__gl_parse_views(c));
    ZE__TRY(ze__gl_parse_accessors(c));
    ZE__TRY(ze__gl_parse_images(c));
    ZE__TRY(ze__gl_parse_samplers(c));
    ZE__TRY(ze__gl_parse_textures(c));
    ZE__TRY(ze__gl_parse_materials(c));
    ZE__TRY(ze__gl_parse_cameras(c));
    ZE__TRY(ze__gl_parse_meshes(c));
    ZE__TRY(ze__gl_parse_nodes(c));
    ZE__TRY(ze__gl_parse_skins(c));
    ZE__TRY(ze__gl_parse_scenes(c));
    ZE__TRY(ze__gl_parse_animations(c));
    ZE__TRY(ze__gl_check_all_accessors(c));

    int64_t scene;
    ZE__TRY(ze__gl_get_ref(c, c->root, "scene", false, c->nscenes, "scene", &scene));
    m->default_scene = (int32_t)scene;

    /* Dependencies: sorted, unique. */
    if (c->ndeps) {
        qsort(c->deps, c->ndeps, sizeof(char *), cmp_str);
        uint32_t u = 0;
        for (uint32_t i = 0; i < c->ndeps; i++)
            if (u == 0 || strcmp(c->deps[u - 1], c->deps[i]) != 0)
                c->deps[u++] = c->deps[i];
        m->dependency_count = u;
        m->dependencies = c->deps;
    }
    return ZE_OK;
}

/* --------------------------------------------------------------- entries */

typedef enum { CONTAINER_AUTO, CONTAINER_GLB } container_hint;

static ze_result import_bytes(const uint8_t *data, size_t size, const ze_gltf_desc_t *desc,
                              const char *base_dir, container_hint hint, ze__astore_t *store,
                              ze_model_t **out, ze__asset_error_t *err)
{
    ze__gl_ctx_t *c = ze__astore_zero(store, sizeof *c, 16);
    ze_model_t *m = ze__astore_zero(store, sizeof *m, 16);
    if (!c || !m) {
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    c->store = store;
    c->err = err;
    c->base_dir = base_dir;
    c->max_bytes = desc && desc->max_bytes ? desc->max_bytes : DEFAULT_MAX_BYTES;
    c->keep_bad_images = desc && desc->keep_bad_images;
    c->model = m;
    m->default_scene = -1;
    m->internal_ = store;

    const uint8_t *json = data;
    size_t json_size = size;
    ze_result r = ZE_OK;
    bool glb = hint == CONTAINER_GLB || (size >= 4 && ze__rd_u32le(data) == GLB_MAGIC);
    if (glb)
        r = parse_glb(c, data, size, &json, &json_size);
    if (r == ZE_OK)
        r = import_json(c, json, json_size);
    if (c->root)
        json_decref(c->root);
    if (r != ZE_OK)
        return r;
    *out = m;
    return ZE_OK;
}

static ze__asset_error_t *err_or_scratch(ze__asset_error_t *err, ze__asset_error_t *scratch)
{
    return err ? err : scratch;
}

ze_result ze__asset_import_gltf_memory(const void *data, size_t size, const ze_gltf_desc_t *desc,
                                       ze_model_t **out, ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    err = err_or_scratch(err, &scratch);
    err->message[0] = 0;
    ZE_CHECK(out != NULL && (data != NULL || size == 0), ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_gltf_desc_t d = desc ? *desc : (ze_gltf_desc_t){0};
    ze__astore_t tmp;
    ze__astore_init(&tmp, d.alloc, 0);
    ze__astore_t *store = ze__astore_push(&tmp, sizeof *store, 16);
    if (!store) {
        ze__astore_release(&tmp);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *store = tmp; /* the store now lives inside itself */
    store->limit = d.max_bytes ? d.max_bytes : DEFAULT_MAX_BYTES;
    static const uint8_t empty = 0;
    ze_result r =
        import_bytes(size ? data : &empty, size, &d, d.base_dir, CONTAINER_AUTO, store, out, err);
    if (r != ZE_OK) {
        ze__astore_t copy = *store;
        ze__astore_release(&copy);
        *out = NULL;
    }
    return r;
}

ze_result ze__asset_import_gltf_file(const char *path, const ze_gltf_desc_t *desc, ze_model_t **out,
                                     ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    err = err_or_scratch(err, &scratch);
    err->message[0] = 0;
    ZE_CHECK(path != NULL && out != NULL, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_gltf_desc_t d = desc ? *desc : (ze_gltf_desc_t){0};
    uint64_t max_bytes = d.max_bytes ? d.max_bytes : DEFAULT_MAX_BYTES;
    ze__astore_t tmp;
    ze__astore_init(&tmp, d.alloc, 0);
    ze__astore_t *store = ze__astore_push(&tmp, sizeof *store, 16);
    if (!store) {
        ze__astore_release(&tmp);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *store = tmp;
    store->limit = max_bytes;

    /* The folder of the file resolves its relative URIs. */
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash) {
        size_t n = (size_t)(slash - path);
        dir = ze__astore_push(store, n + 2, 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = 0;
            if (n == 0)
                strcpy(dir, "/");
        }
    } else {
        dir = ze__astore_strdup(store, ".");
    }
    uint8_t *data = NULL;
    size_t size = 0;
    ze_result r = dir ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
    if (r != ZE_OK)
        ze__asset_error_set(err, "out of memory");
    if (r == ZE_OK)
        r = read_file(store, path, max_bytes, &data, &size, err, NULL);
    if (r == ZE_OK) {
        size_t len = strlen(path);
        container_hint hint =
            len >= 4 && strcmp(path + len - 4, ".glb") == 0 ? CONTAINER_GLB : CONTAINER_AUTO;
        r = import_bytes(data, size, &d, dir, hint, store, out, err);
        if (r == ZE_OK)
            (*out)->source_hash = ze_hash64(data, size, 0) | 1u;
    }
    if (r != ZE_OK) {
        ze__astore_t copy = *store;
        ze__astore_release(&copy);
        *out = NULL;
    }
    return r;
}

void ze_asset_model_destroy(ze_model_t *model)
{
    if (!model || !model->internal_)
        return;
    ze__astore_t copy = *(ze__astore_t *)model->internal_;
    ze__astore_release(&copy);
}
