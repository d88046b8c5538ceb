/* .meta sidecars: the JSON format, and where a sidecar lives.
 *
 * Format (version 1), keys in this order when written:
 *   {"format": "zengine.meta", "version": 1,
 *    "uuid": "<36 chars>", "importer": "gltf",
 *    "source_hash": "<16 hex digits>", "import_time": <seconds since epoch>,
 *    "artifacts": ["/cache/..."], "sub_assets": ["<uuid>", ...],
 *    "dependencies": [{"path": "/models/x.bin", "hash": "<16 hex>"}, ...],
 *    "settings_hash": "<16 hex digits>", "settings": {...}}
 * Required: format, version, uuid (not nil). The rest default to empty.
 * "dependencies" and "settings_hash" came later within version 1: a file
 * without them still reads (dependencies_known false, hash 0), so the asset
 * module can tell "no dependencies" from "not recorded".
 * Unknown keys are ignored (a newer minor writer), a newer version is
 * refused (ZE_ERR_UNSUPPORTED). Duplicate keys, invalid UTF-8, NUL in
 * strings, integers beyond 64 bits are rejected. The settings object is kept
 * verbatim as compact JSON text: the VFS never interprets it.
 *
 * Memory: jansson allocates internally (its own malloc); every json_t is
 * released with json_decref, and text is produced through
 * json_dump_callback into buffers from the meta's allocator, so nothing
 * jansson returns needs free().
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "vfs_internal.h"

#define META_FORMAT    "zengine.meta"
#define META_SUFFIX    ".meta"
#define CACHE_META_DIR "/cache/meta"

/* ---------------------------------------------------------------- values */

static ze_allocator_t or_system(ze_allocator_t a)
{
    return a.fn ? a : ze_mem_system_allocator();
}

void ze_vfs_meta_init(ze_vfs_meta_t *m, ze_allocator_t alloc)
{
    memset(m, 0, sizeof *m);
    m->alloc = or_system(alloc);
    ZE_ARRAY_INIT(&m->artifacts, m->alloc, ze_path_t);
    ZE_ARRAY_INIT(&m->sub_assets, m->alloc, ze_uuid_t);
    ZE_ARRAY_INIT(&m->dependencies, m->alloc, ze_vfs_meta_dep_t);
}

void ze_vfs_meta_free(ze_vfs_meta_t *m)
{
    if (!m)
        return;
    ze_allocator_t a = m->alloc;
    ze_array_free(&m->artifacts);
    ze_array_free(&m->sub_assets);
    ze_array_free(&m->dependencies);
    if (m->settings)
        ze_free(a, m->settings, m->settings_len + 1);
    ze_vfs_meta_init(m, a);
}

ze_result ze_vfs_meta_add_artifact(ze_vfs_meta_t *m, const char *path)
{
    ZE_CHECK(m && path, ZE_ERR_INVALID_ARG);
    if (m->artifacts.count >= ZE_VFS_META_MAX_ARTIFACTS)
        return ZE_ERR_LIMIT;
    ze_path_t p;
    ze_result e = ze_path_make(path, &p);
    if (e)
        return e;
    return ze_array_push(&m->artifacts, &p) == ZE_OK ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

ze_result ze_vfs_meta_add_sub_asset(ze_vfs_meta_t *m, ze_uuid_t uuid)
{
    ZE_CHECK(m, ZE_ERR_INVALID_ARG);
    if (m->sub_assets.count >= ZE_VFS_META_MAX_SUB_ASSETS)
        return ZE_ERR_LIMIT;
    return ze_array_push(&m->sub_assets, &uuid) == ZE_OK ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

ze_result ze_vfs_meta_add_dependency(ze_vfs_meta_t *m, const char *path, uint64_t hash)
{
    ZE_CHECK(m && path, ZE_ERR_INVALID_ARG);
    m->dependencies_known = true;
    if (m->dependencies.count >= ZE_VFS_META_MAX_DEPENDENCIES)
        return ZE_ERR_LIMIT;
    ze_vfs_meta_dep_t d = {.hash = hash};
    ze_result e = ze_path_make(path, &d.path);
    if (e)
        return e;
    return ze_array_push(&m->dependencies, &d) == ZE_OK ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

/* A growable text buffer for json_dump_callback. */
typedef struct text_buf {
    ze_allocator_t alloc;
    char *data;
    size_t len, cap;
    size_t limit;
    bool failed;
} text_buf;

static int text_append(const char *s, size_t n, void *user)
{
    text_buf *t = user;
    if (t->failed || t->len + n + 2 > t->limit) {
        t->failed = true;
        return -1;
    }
    if (t->len + n + 2 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 2)
            cap *= 2;
        char *d = ze_realloc(t->alloc, t->data, t->cap, cap, 16);
        if (!d) {
            t->failed = true;
            return -1;
        }
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    return 0;
}

/* Shrink to len + 1 (the NUL) so the block's size is known from len. */
static bool text_finish(text_buf *t)
{
    if (t->failed)
        return false;
    if (!t->data && text_append("", 0, t) != 0)
        return false;
    t->data[t->len] = '\0';
    char *d = ze_realloc(t->alloc, t->data, t->cap, t->len + 1, 16);
    if (!d)
        return false;
    t->data = d;
    t->cap = t->len + 1;
    return true;
}

static void text_drop(text_buf *t)
{
    if (t->data)
        ze_free(t->alloc, t->data, t->cap);
    t->data = NULL;
}

/* Store a settings object as compact text. */
static ze_result set_settings_json(ze_vfs_meta_t *m, const json_t *obj)
{
    text_buf t = {.alloc = m->alloc, .limit = (size_t)ZE_VFS_META_MAX_SETTINGS + 2};
    if (json_dump_callback(obj, text_append, &t, JSON_COMPACT) != 0 || !text_finish(&t)) {
        bool too_big = t.len + 2 > t.limit;
        text_drop(&t);
        return too_big ? ZE_ERR_LIMIT : ZE_ERR_OUT_OF_MEMORY;
    }
    if (m->settings)
        ze_free(m->alloc, m->settings, m->settings_len + 1);
    m->settings = t.data;
    m->settings_len = t.len;
    return ZE_OK;
}

ze_result ze_vfs_meta_set_settings(ze_vfs_meta_t *m, const char *json, size_t len)
{
    ZE_CHECK(m, ZE_ERR_INVALID_ARG);
    if (!json) {
        if (m->settings)
            ze_free(m->alloc, m->settings, m->settings_len + 1);
        m->settings = NULL;
        m->settings_len = 0;
        return ZE_OK;
    }
    if (len > ZE_VFS_META_MAX_SETTINGS)
        return ZE_ERR_LIMIT;
    json_error_t err;
    json_t *obj = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
    if (!obj)
        return ZE_ERR_PARSE;
    ze_result e = json_is_object(obj) ? set_settings_json(m, obj) : ZE_ERR_PARSE;
    json_decref(obj);
    return e;
}

/* ----------------------------------------------------------------- parse */

/* Why a sidecar was rejected, until it is reported. */
typedef struct meta_diag {
    char reason[ZE_LOG_MESSAGE_MAX - 64];
} meta_diag;

static void diag_set(meta_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag_set(meta_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->reason, sizeof d->reason, fmt, ap);
    va_end(ap);
}

/* The uuid of a sidecar whose JSON does not parse: the first
 * "uuid" : "<36 chars>" in the text. */
static bool salvage_uuid(const char *text, size_t len, ze_uuid_t *out)
{
    static const char key[] = "\"uuid\"";
    for (size_t i = 0; i + sizeof(key) - 1 <= len; i++) {
        if (memcmp(text + i, key, sizeof(key) - 1) != 0)
            continue;
        size_t j = i + sizeof(key) - 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n'))
            j++;
        if (j >= len || text[j] != ':')
            continue;
        j++;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n'))
            j++;
        if (j + ZE_UUID_STRING_LEN + 2 > len || text[j] != '"' ||
            text[j + 1 + ZE_UUID_STRING_LEN] != '"')
            continue;
        ze_uuid_t u;
        if (ze_uuid_parse(text + j + 1, ZE_UUID_STRING_LEN, &u) == ZE_OK && !ze_uuid_is_nil(u)) {
            *out = u;
            return true;
        }
    }
    return false;
}

static bool parse_uuid(const json_t *v, ze_uuid_t *out)
{
    return json_is_string(v) &&
           ze_uuid_parse(json_string_value(v), json_string_length(v), out) == ZE_OK &&
           !ze_uuid_is_nil(*out);
}

static bool parse_hex64(const json_t *v, uint64_t *out)
{
    if (!json_is_string(v) || json_string_length(v) != 16)
        return false;
    const char *s = json_string_value(v);
    uint64_t x = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    *out = x;
    return true;
}

static ze_result parse_fields(const json_t *root, ze_vfs_meta_t *m, meta_diag *diag)
{
    const json_t *v = json_object_get(root, "format");
    if (!json_is_string(v) || strcmp(json_string_value(v), META_FORMAT) != 0) {
        diag_set(diag, "\"format\" is not \"" META_FORMAT "\"");
        return ZE_ERR_PARSE;
    }
    v = json_object_get(root, "version");
    if (!json_is_integer(v) || json_integer_value(v) < 1) {
        diag_set(diag, "\"version\" missing or not a positive integer");
        return ZE_ERR_PARSE;
    }
    if (json_integer_value(v) > ZE_VFS_META_VERSION) {
        diag_set(diag, "version %lld is newer than this build reads (%d)",
                 (long long)json_integer_value(v), ZE_VFS_META_VERSION);
        return ZE_ERR_UNSUPPORTED;
    }
    m->version = (uint32_t)json_integer_value(v);
    if (ze_uuid_is_nil(m->uuid)) {
        diag_set(diag, "\"uuid\" missing, nil or not a UUID");
        return ZE_ERR_PARSE;
    }
    if ((v = json_object_get(root, "importer"))) {
        if (!json_is_string(v) || json_string_length(v) >= ZE_VFS_META_IMPORTER_MAX) {
            diag_set(diag, "\"importer\" is not a string of at most %d bytes",
                     ZE_VFS_META_IMPORTER_MAX - 1);
            return ZE_ERR_PARSE;
        }
        memcpy(m->importer, json_string_value(v), json_string_length(v) + 1);
    }
    if ((v = json_object_get(root, "source_hash")) && !parse_hex64(v, &m->source_hash)) {
        diag_set(diag, "\"source_hash\" is not 16 hexadecimal digits");
        return ZE_ERR_PARSE;
    }
    if ((v = json_object_get(root, "import_time"))) {
        if (!json_is_integer(v)) {
            diag_set(diag, "\"import_time\" is not an integer");
            return ZE_ERR_PARSE;
        }
        m->import_time = (int64_t)json_integer_value(v);
    }
    if ((v = json_object_get(root, "artifacts"))) {
        if (!json_is_array(v) || json_array_size(v) > ZE_VFS_META_MAX_ARTIFACTS) {
            diag_set(diag, "\"artifacts\" is not an array of at most %d paths",
                     ZE_VFS_META_MAX_ARTIFACTS);
            return ZE_ERR_PARSE;
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *s = json_array_get(v, i);
            ze_path_t p;
            if (!json_is_string(s) ||
                ze_path_from(json_string_value(s), json_string_length(s), &p) != ZE_OK) {
                diag_set(diag, "\"artifacts\"[%zu] is not a valid VFS path", i);
                return ZE_ERR_PARSE;
            }
            if (ze_array_push(&m->artifacts, &p) != ZE_OK)
                return ZE_ERR_OUT_OF_MEMORY;
        }
    }
    if ((v = json_object_get(root, "sub_assets"))) {
        if (!json_is_array(v) || json_array_size(v) > ZE_VFS_META_MAX_SUB_ASSETS) {
            diag_set(diag, "\"sub_assets\" is not an array of at most %d uuids",
                     ZE_VFS_META_MAX_SUB_ASSETS);
            return ZE_ERR_PARSE;
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
            ze_uuid_t u;
            if (!parse_uuid(json_array_get(v, i), &u)) {
                diag_set(diag, "\"sub_assets\"[%zu] is not a UUID", i);
                return ZE_ERR_PARSE;
            }
            if (ze_array_push(&m->sub_assets, &u) != ZE_OK)
                return ZE_ERR_OUT_OF_MEMORY;
        }
    }
    if ((v = json_object_get(root, "dependencies"))) {
        if (!json_is_array(v) || json_array_size(v) > ZE_VFS_META_MAX_DEPENDENCIES) {
            diag_set(diag, "\"dependencies\" is not an array of at most %d entries",
                     ZE_VFS_META_MAX_DEPENDENCIES);
            return ZE_ERR_PARSE;
        }
        m->dependencies_known = true;
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *d = json_array_get(v, i), *dp = json_object_get(d, "path");
            ze_vfs_meta_dep_t dep = {0};
            if (!json_is_object(d) || !json_is_string(dp) ||
                ze_path_from(json_string_value(dp), json_string_length(dp), &dep.path) != ZE_OK ||
                !parse_hex64(json_object_get(d, "hash"), &dep.hash)) {
                diag_set(diag,
                         "\"dependencies\"[%zu] is not {\"path\": VFS path, \"hash\": 16 "
                         "hexadecimal digits}",
                         i);
                return ZE_ERR_PARSE;
            }
            if (ze_array_push(&m->dependencies, &dep) != ZE_OK)
                return ZE_ERR_OUT_OF_MEMORY;
        }
    }
    if ((v = json_object_get(root, "settings_hash")) && !parse_hex64(v, &m->settings_hash)) {
        diag_set(diag, "\"settings_hash\" is not 16 hexadecimal digits");
        return ZE_ERR_PARSE;
    }
    if ((v = json_object_get(root, "settings"))) {
        if (!json_is_object(v)) {
            diag_set(diag, "\"settings\" is not an object");
            return ZE_ERR_PARSE;
        }
        ze_result e = set_settings_json(m, v);
        if (e) {
            diag_set(diag, "\"settings\" %s", e == ZE_ERR_LIMIT ? "over 1 MiB" : "too large");
            return e == ZE_ERR_LIMIT ? ZE_ERR_PARSE : e;
        }
    }
    return ZE_OK;
}

/* The parse; a rejection's reason in *diag. */
static ze_result meta_parse(const char *text, size_t len, ze_vfs_meta_t *m, meta_diag *diag)
{
    ZE_CHECK(m && (text || len == 0), ZE_ERR_INVALID_ARG);
    ze_vfs_meta_free(m);
    diag->reason[0] = '\0';
    if (len > ZE_VFS_META_MAX_FILE) {
        diag_set(diag, "larger than %d bytes", ZE_VFS_META_MAX_FILE);
        return ZE_ERR_PARSE;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        diag_set(diag, "JSON error at line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
        ze_uuid_t u;
        if (salvage_uuid(text ? text : "", len, &u)) {
            m->uuid = u;
            m->uuid_recovered = true;
        }
        return ZE_ERR_PARSE;
    }
    ze_result e;
    if (!json_is_object(root)) {
        diag_set(diag, "not a JSON object");
        e = ZE_ERR_PARSE;
    } else {
        ze_uuid_t u;
        if (parse_uuid(json_object_get(root, "uuid"), &u))
            m->uuid = u;
        e = parse_fields(root, m, diag);
    }
    json_decref(root);
    if (e) {
        /* Keep only what regeneration needs: the identity. */
        ze_uuid_t keep = m->uuid;
        ze_vfs_meta_free(m);
        m->uuid = keep;
        m->uuid_recovered = !ze_uuid_is_nil(keep);
    }
    return e;
}

static void report_rejection(const ze_diag_sink_t *sink, const char *path, ze_result e,
                             const ze_vfs_meta_t *m, const meta_diag *d)
{
    ze_diag(sink, ZE_LOG_WARN, e, ZE__VFS_CH, path, "sidecar rejected: %s%s",
            d->reason[0] ? d->reason : ze_result_str(e),
            m->uuid_recovered ? " (uuid recovered: regenerate it keeping the uuid)" : "");
}

ze_result ze_vfs_meta_parse(const char *text, size_t len, ze_vfs_meta_t *m,
                            const ze_diag_sink_t *diag)
{
    meta_diag d;
    ze_result e = meta_parse(text, len, m, &d);
    if (e == ZE_ERR_PARSE || e == ZE_ERR_UNSUPPORTED)
        report_rejection(diag, "", e, m, &d);
    return e;
}

/* ---------------------------------------------------------------- format */

static json_t *uuid_json(ze_uuid_t u)
{
    char s[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(u, s);
    return json_string(s);
}

ze_result ze_vfs_meta_format(const ze_vfs_meta_t *m, ze_allocator_t alloc, ze_vfs_buffer_t *out)
{
    ZE_CHECK(m && out, ZE_ERR_INVALID_ARG);
    memset(out, 0, sizeof *out);
    if (ze_uuid_is_nil(m->uuid))
        return ZE_ERR_INVALID_ARG;
    json_t *o = json_object();
    json_t *arts = json_array(), *subs = json_array(), *deps = json_array();
    json_t *settings =
        m->settings ? json_loadb(m->settings, m->settings_len, 0, NULL) : json_object();
    char hash[17], shash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)m->source_hash);
    snprintf(shash, sizeof shash, "%016llx", (unsigned long long)m->settings_hash);
    bool ok = o && arts && subs && deps && settings &&
              json_object_set_new(o, "format", json_string(META_FORMAT)) == 0 &&
              json_object_set_new(o, "version", json_integer(ZE_VFS_META_VERSION)) == 0 &&
              json_object_set_new(o, "uuid", uuid_json(m->uuid)) == 0 &&
              json_object_set_new(
                  o, "importer",
                  json_stringn(m->importer, strnlen(m->importer, sizeof m->importer))) == 0 &&
              json_object_set_new(o, "source_hash", json_string(hash)) == 0 &&
              json_object_set_new(o, "import_time", json_integer((json_int_t)m->import_time)) == 0;
    for (uint32_t i = 0; ok && i < m->artifacts.count; i++) {
        const ze_path_t *p = &ZE_ARRAY_AT(&m->artifacts, ze_path_t, i);
        ok = json_array_append_new(arts, json_stringn(p->str, p->len)) == 0;
    }
    for (uint32_t i = 0; ok && i < m->sub_assets.count; i++)
        ok = json_array_append_new(subs, uuid_json(ZE_ARRAY_AT(&m->sub_assets, ze_uuid_t, i))) == 0;
    for (uint32_t i = 0; ok && i < m->dependencies.count; i++) {
        const ze_vfs_meta_dep_t *d = &ZE_ARRAY_AT(&m->dependencies, ze_vfs_meta_dep_t, i);
        char dh[17];
        snprintf(dh, sizeof dh, "%016llx", (unsigned long long)d->hash);
        ok = json_array_append_new(deps, json_pack("{s:s#,s:s}", "path", d->path.str,
                                                   (int)d->path.len, "hash", dh)) == 0;
    }
    ok = ok && json_is_object(settings);
    if (ok) {
        ok = json_object_set_new(o, "artifacts", arts) == 0;
        arts = NULL;
        ok = ok && json_object_set_new(o, "sub_assets", subs) == 0;
        subs = NULL;
        /* a sidecar that never recorded them keeps saying so */
        if (m->dependencies_known || m->dependencies.count)
            ok = ok && json_object_set_new(o, "dependencies", deps) == 0;
        else
            json_decref(deps);
        deps = NULL;
        ok = ok && json_object_set_new(o, "settings_hash", json_string(shash)) == 0;
        ok = ok && json_object_set_new(o, "settings", settings) == 0;
        settings = NULL;
    }
    text_buf t = {.alloc = or_system(alloc), .limit = (size_t)-1};
    if (ok)
        ok = json_dump_callback(o, text_append, &t, JSON_INDENT(2)) == 0 &&
             text_append("\n", 1, &t) == 0 && text_finish(&t);
    json_decref(o);
    json_decref(arts);
    json_decref(subs);
    json_decref(deps);
    json_decref(settings);
    if (!ok) {
        text_drop(&t);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    out->data = (uint8_t *)t.data;
    out->size = t.len;
    out->alloc = t.alloc;
    return ZE_OK;
}

/* ---------------------------------------------------------------- placing */

bool ze__vfs_is_meta_name(const ze_path_t *p)
{
    ze_path_part_t e = ze_path_extension(p);
    return e.len == sizeof(META_SUFFIX) - 1 && memcmp(e.ptr, META_SUFFIX, e.len) == 0;
}

/* Where the sidecar of `src` (provided by mount `slot`) lives: beside it on
 * that mount (*on_slot = slot, rel set) or under /cache (*on_slot = -1). */
typedef struct meta_place {
    int slot;
    char rel[ZE_PATH_CAPACITY];
    ze_path_t path;
} meta_place;

static ze_result place(ze_vfs_t *vfs, const ze_path_t *src, int slot, meta_place *out)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    const ze__vfs_mount *m = &vfs->mounts[slot];
    bool writable = m->used && !m->read_only;
    ze_result e = ZE_OK;
    if (writable) {
        out->slot = slot;
        int n = snprintf(out->rel, sizeof out->rel, "%s" META_SUFFIX, ze__path_rel(src, &m->point));
        if (n < 0 || (size_t)n >= sizeof out->rel)
            e = ZE_ERR_TOO_LONG;
        if (!e)
            e = ze_path_add_suffix(src, META_SUFFIX, &out->path);
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    if (writable)
        return e;
    out->slot = -1;
    out->rel[0] = '\0';
    if (src->len <= 1)
        return ZE_ERR_INVALID_ARG; /* the root has no name to hang a sidecar on */
    char buf[ZE_PATH_CAPACITY * 2];
    int n = snprintf(buf, sizeof buf, CACHE_META_DIR "%s" META_SUFFIX, src->str);
    if (n < 0 || (size_t)n >= sizeof buf)
        return ZE_ERR_TOO_LONG;
    return ze_path_from(buf, (size_t)n, &out->path);
}

static ze_result locate(ze_vfs_t *vfs, const char *op, const char *source, ze_path_t *src,
                        meta_place *pl)
{
    ze_result e = ze__vfs_path_arg(source, src);
    if (e) {
        ze__vfs_log_failure(vfs, op, source ? source : "(null)", e);
        return e;
    }
    ze_vfs_stat_t st;
    int slot = ze__vfs_find_existing(vfs, src, &st);
    if (slot < 0)
        return ZE_ERR_NOT_FOUND;
    e = place(vfs, src, slot, pl);
    if (e)
        ze__vfs_log_failure(vfs, op, src->str, e);
    return e;
}

ze_result ze_vfs_meta_path(ze_vfs_t *vfs, const char *source, ze_path_t *out)
{
    ZE_CHECK(vfs && out, ZE_ERR_INVALID_ARG);
    ze_path_t src;
    meta_place pl;
    ze_result e = locate(vfs, "meta path", source, &src, &pl);
    if (!e)
        *out = pl.path;
    return e;
}

ze_result ze_vfs_meta_read(ze_vfs_t *vfs, const char *source, ze_vfs_meta_t *m)
{
    ZE_CHECK(vfs && m, ZE_ERR_INVALID_ARG);
    m->uuid_recovered = false;
    ze_path_t src;
    meta_place pl;
    ze_result e = locate(vfs, "meta read", source, &src, &pl);
    if (e)
        return e;
    ze_vfs_buffer_t buf;
    memset(&buf, 0, sizeof buf);
    if (pl.slot >= 0)
        e = ze__vfs_read_on(vfs, (uint32_t)pl.slot, pl.rel, vfs->alloc, &buf);
    else
        e = ze_vfs_read_file(vfs, pl.path.str, vfs->alloc, &buf);
    if (e) {
        ze__vfs_log_failure(vfs, "meta read", pl.path.str, e);
        return e;
    }
    meta_diag d;
    e = meta_parse((const char *)buf.data, buf.size, m, &d);
    ze_vfs_buffer_free(&buf);
    if (e == ZE_ERR_PARSE || e == ZE_ERR_UNSUPPORTED)
        report_rejection(&vfs->diag, pl.path.str, e, m, &d);
    return e;
}

ze_result ze_vfs_meta_write(ze_vfs_t *vfs, const char *source, const ze_vfs_meta_t *m)
{
    ZE_CHECK(vfs && m, ZE_ERR_INVALID_ARG);
    ze_path_t src;
    meta_place pl;
    ze_result e = locate(vfs, "meta write", source, &src, &pl);
    if (e)
        return e;
    ze_vfs_buffer_t text;
    e = ze_vfs_meta_format(m, vfs->alloc, &text);
    if (e) {
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK, "sidecar '%s': cannot format: %s", pl.path.str,
                       ze_result_str(e));
        return e;
    }
    if (pl.slot >= 0) {
        e = ze__vfs_write_on(vfs, (uint32_t)pl.slot, pl.rel, text.data, text.size);
        ze__vfs_log_failure(vfs, "meta write", pl.path.str, e);
    } else {
        ze_path_t dir = ze_path_parent(&pl.path);
        e = ze_vfs_mkdirs(vfs, dir.str);
        if (!e)
            e = ze_vfs_write_file(vfs, pl.path.str, text.data, text.size);
    }
    ze_vfs_buffer_free(&text);
    return e;
}

void ze__vfs_meta_follow(ze_vfs_t *vfs, const ze_path_t *from, const ze_path_t *to)
{
    ze_vfs_stat_t st;
    int slot = ze__vfs_find_existing(vfs, to, &st);
    if (slot < 0)
        return;
    /* `from` must lie on the same mount for its sidecar to be beside it. */
    pthread_rwlock_rdlock(&vfs->mount_lock);
    bool same = vfs->mounts[slot].used && ze_path_is_within(from, &vfs->mounts[slot].point);
    pthread_rwlock_unlock(&vfs->mount_lock);
    meta_place dst, srcp;
    if (!same || place(vfs, to, slot, &dst) != ZE_OK || place(vfs, from, slot, &srcp) != ZE_OK)
        return;
    ze_result e;
    if (dst.slot >= 0) {
        if (ze__vfs_stat_on(vfs, (uint32_t)slot, srcp.rel, &st) != ZE_OK)
            return;
        e = ze__vfs_rename_on(vfs, (uint32_t)slot, srcp.rel, dst.rel);
    } else {
        if (!ze_vfs_exists(vfs, srcp.path.str))
            return;
        ze_path_t dir = ze_path_parent(&dst.path);
        e = ze_vfs_mkdirs(vfs, dir.str);
        if (!e)
            e = ze_vfs_rename(vfs, srcp.path.str, dst.path.str);
    }
    if (e)
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK, "sidecar of '%s' did not follow it to '%s': %s",
                       from->str, to->str, ze_result_str(e));
    else
        ZE_LOG_DEBUG(ZE__VFS_CH, "sidecar '%s' -> '%s'", srcp.path.str, dst.path.str);
}
