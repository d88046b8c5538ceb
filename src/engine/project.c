/* project.json: the project's name, start scene, asset folders, memory
 * profile and window settings.
 *
 *   {"name": "Showcase", "start_scene": "scenes/main.zescene",
 *    "asset_folders": ["models", "textures"], "memory_profile": "default",
 *    "window": {"width": 1280, "height": 720, "title": "Showcase", "vsync": true},
 *    "renderer": {"vertex_budget_bytes": 268435456, "index_budget_bytes": 134217728,
 *                 "instance_budget": 1000000, "culling": "occlusion", "depth_prepass": false}}
 *
 * Rules: the top level is an object; `name` is required and non-empty; every
 * other key is optional. Wrong types or values fail with the value's JSON
 * path in the message ("/window/width: expected an integer 1..16384").
 * Strings longer than their fixed buffers fail (never truncated). Paths are
 * normalized as VFS paths ("models" -> "/models"); one that escapes the root
 * fails. Unknown keys are reported with their path and skipped. Duplicate
 * keys, NUL in strings and invalid UTF-8 are rejected by the JSON reader.
 * Defaults: window 1280 x 720, title = name (also for an empty title), vsync
 * on, no start scene, no asset folders, memory profile "" (the default).
 *
 * Memory: jansson allocates internally and every json_t is released with
 * json_decref; the file text is read into a buffer from the system allocator
 * (files are capped at 1 MiB).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/engine.h"

enum {
    PROJECT_FILE_MAX = 1 << 20, /* bytes of project.json */
    PROJECT_DIM_MAX = 16384,    /* window width and height */
    PROJECT_PATH_MAX = 128,     /* a JSON path in a message (": unknown key" must fit) */
};

typedef struct ctx_t {
    const ze_diag_sink_t *diag;
    const char *subject; /* the file, for the reports */
    uint32_t warnings;
} ctx_t;

/* The failure: reported once (the parse stops there). */
static void set_err(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ze_diagv(c->diag, ZE_LOG_ERROR, ZE_ERR_PARSE, "engine", c->subject, fmt, ap);
    va_end(ap);
}

/* A warning (an unknown key): the first 8, then a count. */
static void report(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(ctx_t *c, const char *fmt, ...)
{
    uint32_t i = c->warnings++;
    if (i == 8)
        ze_diag(c->diag, ZE_LOG_WARN, ZE_OK, "engine", c->subject, "more unknown keys skipped");
    if (i >= 8)
        return;
    va_list ap;
    va_start(ap, fmt);
    ze_diagv(c->diag, ZE_LOG_WARN, ZE_OK, "engine", c->subject, fmt, ap);
    va_end(ap);
}

/* parent + "/" + key as a JSON pointer (RFC 6901: '~' -> "~0", '/' -> "~1");
 * control bytes become '?' so messages stay one printable line. Long paths
 * are cut with "...": they are only for messages. */
static void path_child(char out[PROJECT_PATH_MAX], const char *parent, const char *key)
{
    size_t o = strlen(parent);
    memcpy(out, parent, o);
    out[o++] = '/';
    for (const char *k = key; *k; k++) {
        if (o + 6 >= PROJECT_PATH_MAX) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char ch = (unsigned char)*k;
        if (ch == '~' || ch == '/') {
            out[o++] = '~';
            out[o++] = ch == '~' ? '0' : '1';
        } else {
            out[o++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
        }
    }
    out[o] = '\0';
}

static bool get_string(ctx_t *c, const char *path, json_t *v, char *dst, size_t cap)
{
    if (!json_is_string(v)) {
        set_err(c, "%s: expected a string", path);
        return false;
    }
    size_t n = json_string_length(v);
    if (n >= cap) {
        set_err(c, "%s: longer than %zu bytes", path, cap - 1);
        return false;
    }
    memcpy(dst, json_string_value(v), n);
    dst[n] = '\0';
    return true;
}

/* A VFS path of at most ZE_PROJECT_STRING_MAX - 1 bytes once normalized. */
static bool get_vfs_path(ctx_t *c, const char *path, json_t *v, char dst[ZE_PROJECT_STRING_MAX],
                         bool allow_root)
{
    if (!json_is_string(v)) {
        set_err(c, "%s: expected a string", path);
        return false;
    }
    ze_path_t p;
    ze_result e = ze_path_from(json_string_value(v), json_string_length(v), &p);
    switch (e) {
    case ZE_OK:
        break;
    case ZE_ERR_PATH_ESCAPE:
        set_err(c, "%s: the path leaves the project root", path);
        return false;
    case ZE_ERR_TOO_LONG:
        set_err(c, "%s: path too long", path);
        return false;
    default:
        set_err(c, "%s: expected a non-empty path", path);
        return false;
    }
    if (p.len >= ZE_PROJECT_STRING_MAX) {
        set_err(c, "%s: path longer than %d bytes", path, ZE_PROJECT_STRING_MAX - 1);
        return false;
    }
    if (!allow_root && p.len == 1) {
        set_err(c, "%s: expected a file path, not the root", path);
        return false;
    }
    memcpy(dst, p.str, p.len + 1);
    return true;
}

static bool parse_window(ctx_t *c, json_t *win, ze_window_config_t *w)
{
    if (!json_is_object(win)) {
        set_err(c, "/window: expected an object");
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach(win, key, v)
    {
        char path[PROJECT_PATH_MAX];
        path_child(path, "/window", key);
        if (strcmp(key, "width") == 0 || strcmp(key, "height") == 0) {
            json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
            if (n < 1 || n > PROJECT_DIM_MAX) {
                set_err(c, "%s: expected an integer 1..%d", path, PROJECT_DIM_MAX);
                return false;
            }
            *(key[0] == 'w' ? &w->width : &w->height) = (uint32_t)n;
        } else if (strcmp(key, "title") == 0) {
            if (!get_string(c, path, v, w->title, sizeof w->title))
                return false;
        } else if (strcmp(key, "vsync") == 0) {
            if (!json_is_boolean(v)) {
                set_err(c, "%s: expected true or false", path);
                return false;
            }
            w->vsync = json_is_true(v);
        } else {
            report(c, "%s: unknown key", path);
        }
    }
    return true;
}

static bool parse_renderer(ctx_t *c, json_t *obj, ze_renderer_config_t *out)
{
    if (!json_is_object(obj)) {
        set_err(c, "/renderer: expected an object");
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        char path[PROJECT_PATH_MAX];
        path_child(path, "/renderer", key);
        json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
        if (strcmp(key, "vertex_budget_bytes") == 0 || strcmp(key, "index_budget_bytes") == 0) {
            if (n < (json_int_t)1 << 20 || n > (json_int_t)64 << 30) {
                set_err(c,
                        "%s: expected an integer of bytes, 1048576 (1 MiB)..68719476736 (64 GiB)",
                        path);
                return false;
            }
            *(key[0] == 'v' ? &out->vertex_budget_bytes : &out->index_budget_bytes) = (uint64_t)n;
        } else if (strcmp(key, "instance_budget") == 0) {
            if (n < 1 || n > (json_int_t)1 << 26) {
                set_err(c, "%s: expected an integer 1..67108864", path);
                return false;
            }
            out->instance_budget = (uint32_t)n;
        } else if (strcmp(key, "culling") == 0) {
            static const char *const modes[] = {"occlusion", "none", "frustum"};
            const char *m = json_is_string(v) ? json_string_value(v) : "";
            size_t i = 0;
            while (i < 3 && strcmp(m, modes[i]) != 0)
                i++;
            if (i == 3) {
                set_err(c, "%s: expected \"occlusion\", \"frustum\" or \"none\"", path);
                return false;
            }
            /* the strings in ze_render_cull_mode's order */
            _Static_assert(ZE_RENDER_CULL_DEFAULT == 0 && ZE_RENDER_CULL_NONE == 1 &&
                               ZE_RENDER_CULL_FRUSTUM == 2,
                           "modes[] follows ze_render_cull_mode");
            out->culling = (ze_render_cull_mode)i;
        } else if (strcmp(key, "depth_prepass") == 0) {
            if (!json_is_boolean(v)) {
                set_err(c, "%s: expected true or false", path);
                return false;
            }
            out->depth_prepass = json_is_true(v);
        } else {
            report(c, "%s: unknown key", path);
        }
    }
    return true;
}

static bool parse_folders(ctx_t *c, json_t *arr, ze_project_t *out)
{
    if (!json_is_array(arr)) {
        set_err(c, "/asset_folders: expected an array of strings");
        return false;
    }
    size_t n = json_array_size(arr);
    if (n > ZE_PROJECT_MAX_FOLDERS) {
        set_err(c, "/asset_folders: more than %d folders", ZE_PROJECT_MAX_FOLDERS);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char path[PROJECT_PATH_MAX];
        snprintf(path, sizeof path, "/asset_folders/%zu", i);
        if (!get_vfs_path(c, path, json_array_get(arr, i), out->asset_folders[i], true))
            return false;
    }
    out->asset_folder_count = (uint32_t)n;
    return true;
}

static bool parse_root(ctx_t *c, json_t *root, ze_project_t *out)
{
    if (!json_is_object(root)) {
        set_err(c, "/: expected an object");
        return false;
    }
    bool have_name = false;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        char path[PROJECT_PATH_MAX];
        path_child(path, "", key);
        if (strcmp(key, "name") == 0) {
            if (!get_string(c, path, v, out->name, sizeof out->name))
                return false;
            have_name = true;
        } else if (strcmp(key, "start_scene") == 0) {
            if (json_is_string(v) && json_string_length(v) == 0)
                out->start_scene[0] = '\0'; /* "" = none */
            else if (!get_vfs_path(c, path, v, out->start_scene, false))
                return false;
        } else if (strcmp(key, "asset_folders") == 0) {
            if (!parse_folders(c, v, out))
                return false;
        } else if (strcmp(key, "memory_profile") == 0) {
            const char *s = json_is_string(v) ? json_string_value(v) : "";
            if (strcmp(s, "default") != 0 && strcmp(s, "editor") != 0 && strcmp(s, "server") != 0) {
                set_err(c, "%s: expected \"default\", \"editor\" or \"server\"", path);
                return false;
            }
            snprintf(out->memory_profile, sizeof out->memory_profile, "%s", s);
        } else if (strcmp(key, "window") == 0) {
            if (!parse_window(c, v, &out->window))
                return false;
        } else if (strcmp(key, "renderer") == 0) {
            if (!parse_renderer(c, v, &out->renderer))
                return false;
        } else {
            report(c, "%s: unknown key", path);
        }
    }
    if (!have_name || out->name[0] == '\0') {
        set_err(c, "/name: required, a non-empty string");
        return false;
    }
    if (out->window.title[0] == '\0')
        memcpy(out->window.title, out->name, sizeof out->window.title);
    return true;
}

static ze_result project_parse(const char *text, size_t len, ze_project_t *out,
                               const ze_diag_sink_t *diag, const char *subject)
{
    if (!out || (!text && len))
        return ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "engine", subject,
                       "invalid argument");
    memset(out, 0, sizeof *out);
    out->window.width = 1280;
    out->window.height = 720;
    out->window.vsync = true;

    ctx_t c = {.diag = diag, .subject = subject};
    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        set_err(&c, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        memset(out, 0, sizeof *out);
        return ZE_ERR_PARSE;
    }
    bool ok = parse_root(&c, root, out);
    json_decref(root);
    if (!ok) {
        memset(out, 0, sizeof *out);
        return ZE_ERR_PARSE;
    }
    return ZE_OK;
}

ze_result ze_project_parse(const char *text, size_t len, ze_project_t *out,
                           const ze_diag_sink_t *diag)
{
    return project_parse(text, len, out, diag, "project.json");
}

ze_result ze_project_load(const char *path, ze_project_t *out, const ze_diag_sink_t *diag)
{
    if (!path || !out)
        return ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "engine", "project",
                       "no project file given");
    char real[PATH_MAX];
    FILE *f = fopen(path, "rb");
    if (!f || !realpath(path, real)) {
        int e = errno;
        if (f)
            fclose(f);
        char why[96];
        if (strerror_r(e, why, sizeof why) != 0)
            snprintf(why, sizeof why, "error %d", e);
        return ze_diag(diag, ZE_LOG_ERROR, e == ENOENT ? ZE_ERR_NOT_FOUND : ZE_ERR_IO, "engine",
                       path, "cannot open the project file: %s", why);
    }
    /* Read one byte past the cap to tell "exactly 1 MiB" from "larger". */
    ze_allocator_t a = ze_mem_system_allocator();
    char *buf = ze_alloc(a, PROJECT_FILE_MAX + 1, 16);
    if (!buf) {
        fclose(f);
        return ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "engine", path, "out of memory");
    }
    size_t n = fread(buf, 1, PROJECT_FILE_MAX + 1, f);
    bool read_error = ferror(f) != 0;
    fclose(f);
    ze_result r;
    if (read_error)
        r = ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_IO, "engine", path, "read error");
    else if (n > PROJECT_FILE_MAX)
        r = ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_LIMIT, "engine", path, "larger than %d bytes",
                    PROJECT_FILE_MAX);
    else
        r = project_parse(buf, n, out, diag, path);
    ze_free(a, buf, PROJECT_FILE_MAX + 1);
    if (r != ZE_OK)
        return r;
    /* The file's folder: cut at the last slash (realpath is absolute). */
    char *slash = strrchr(real, '/');
    if (slash == real)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    size_t rl = strlen(real);
    if (rl >= sizeof out->root) {
        memset(out, 0, sizeof *out);
        return ze_diag(diag, ZE_LOG_ERROR, ZE_ERR_LIMIT, "engine", path,
                       "project folder path too long");
    }
    memcpy(out->root, real, rl + 1);
    return ZE_OK;
}
