/* schema_check.c — bench_schema_check SCHEMA JSON...
 *
 * Validates benchmark result files against bench/schema.json by interpreting
 * the subset of JSON Schema (draft 2020-12) that the schema uses: type, enum,
 * const, required, properties, additionalProperties, items, minItems,
 * maxItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
 * maxLength, $ref (local JSON pointers) and the local keyword x-unique-keys
 * (no two array items may agree on all the listed properties). Annotations
 * ($schema, $id, $defs, title, description, $comment) are ignored. Any other
 * keyword is refused, so a schema edit can never be silently unchecked.
 * Exit codes: 0 all valid, 1 a violation (each printed with its JSON path),
 * 2 usage, unreadable schema or unsupported keyword.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

enum {
    PATH_MAX_LEN = 512,
    DEPTH_MAX = 64, /* $ref chains and nesting; deeper is a schema error */
};

typedef struct checker_t {
    json_t *root; /* the schema document, for $ref */
    const char *file;
    unsigned violations;
    bool schema_error;
} checker_t;

static const char *const annotation_keywords[] = {
    "$schema", "$id", "$defs", "title", "description", "$comment", "default", "examples",
};
static const char *const assertion_keywords[] = {
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "$ref",
    "x-unique-keys",
};

static bool in_list(const char *key, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

static void violation(checker_t *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void violation(checker_t *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: %s: ", c->file, path);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    c->violations++;
}

/* snprintf for paths; a path cut at PATH_MAX_LEN is still a useful message
 * (vsnprintf also keeps gcc's truncation analysis quiet about it). */
static void path_fmt(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void path_fmt(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
}

static void schema_problem(checker_t *c, const char *where, const char *what)
{
    fprintf(stderr, "schema: %s: %s\n", where, what);
    c->schema_error = true;
}

/* ------------------------------------------------------------ the schema */

/* Walk every subschema once and refuse keywords this checker does not
 * implement (and malformed values of those it does). */
static void lint_schema(checker_t *c, json_t *s, const char *path, int depth)
{
    if (json_is_boolean(s))
        return;
    if (!json_is_object(s)) {
        schema_problem(c, path, "a schema must be an object or a boolean");
        return;
    }
    if (depth > DEPTH_MAX) {
        schema_problem(c, path, "nested too deeply");
        return;
    }
    const char *key;
    json_t *v;
    char sub[PATH_MAX_LEN];
    json_object_foreach(s, key, v)
    {
        if (in_list(key, annotation_keywords, sizeof(annotation_keywords) / sizeof(char *))) {
            if (strcmp(key, "$defs") == 0 && json_is_object(v)) {
                const char *dk;
                json_t *dv;
                json_object_foreach(v, dk, dv)
                {
                    path_fmt(sub, sizeof(sub), "%s/$defs/%s", path, dk);
                    lint_schema(c, dv, sub, depth + 1);
                }
            }
            continue;
        }
        path_fmt(sub, sizeof(sub), "%s/%s", path, key);
        if (!in_list(key, assertion_keywords, sizeof(assertion_keywords) / sizeof(char *))) {
            schema_problem(c, sub, "keyword not supported by bench_schema_check");
            continue;
        }
        if (strcmp(key, "properties") == 0) {
            if (!json_is_object(v)) {
                schema_problem(c, sub, "must be an object");
                continue;
            }
            const char *pk;
            json_t *pv;
            json_object_foreach(v, pk, pv)
            {
                char psub[PATH_MAX_LEN];
                path_fmt(psub, sizeof(psub), "%s/%s", sub, pk);
                lint_schema(c, pv, psub, depth + 1);
            }
        } else if (strcmp(key, "additionalProperties") == 0 || strcmp(key, "items") == 0) {
            lint_schema(c, v, sub, depth + 1);
        } else if (strcmp(key, "type") == 0) {
            if (!json_is_string(v) && !json_is_array(v))
                schema_problem(c, sub, "must be a string or an array of strings");
        } else if (strcmp(key, "enum") == 0 || strcmp(key, "required") == 0 ||
                   strcmp(key, "x-unique-keys") == 0) {
            if (!json_is_array(v))
                schema_problem(c, sub, "must be an array");
        } else if (strcmp(key, "$ref") == 0) {
            if (!json_is_string(v) || json_string_value(v)[0] != '#')
                schema_problem(c, sub, "only local references (#/...) are supported");
        } else if (strcmp(key, "const") != 0) {
            if (!json_is_number(v))
                schema_problem(c, sub, "must be a number");
        }
    }
}

/* "#/$defs/result" → the node; JSON pointer escapes ~0 and ~1 handled. */
static json_t *resolve_ref(json_t *root, const char *ref)
{
    json_t *node = root;
    const char *p = ref + 1; /* skip '#' */
    while (*p == '/') {
        char token[256];
        size_t n = 0;
        p++;
        while (*p && *p != '/' && n + 1 < sizeof(token)) {
            if (p[0] == '~' && p[1] == '0') {
                token[n++] = '~';
                p += 2;
            } else if (p[0] == '~' && p[1] == '1') {
                token[n++] = '/';
                p += 2;
            } else {
                token[n++] = *p++;
            }
        }
        token[n] = '\0';
        if (json_is_object(node)) {
            node = json_object_get(node, token);
        } else if (json_is_array(node)) {
            char *end = NULL;
            unsigned long idx = strtoul(token, &end, 10);
            node = (end && *end == '\0') ? json_array_get(node, idx) : NULL;
        } else {
            node = NULL;
        }
        if (!node)
            return NULL;
    }
    return *p == '\0' ? node : NULL;
}

/* ------------------------------------------------------------- validation */

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

static bool has_type(const json_t *v, const char *t)
{
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "integer") == 0) {
        if (json_is_integer(v))
            return true;
        double d = json_is_real(v) ? json_real_value(v) : NAN;
        return isfinite(d) && d == floor(d);
    }
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(t, "null") == 0)
        return json_is_null(v);
    return false;
}

static size_t utf8_length(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* A short rendering of a value for messages (json_dumpb: no allocation). */
static void show(const json_t *v, char *buf, size_t size)
{
    size_t n = json_dumpb(v, buf, size - 1, JSON_ENCODE_ANY | JSON_COMPACT);
    if (n == 0 || n >= size) {
        snprintf(buf, size, "%s", n == 0 ? "?" : "(long value)");
        return;
    }
    buf[n] = '\0';
}

static void validate(checker_t *c, json_t *s, json_t *v, const char *path, int depth);

static void check_type(checker_t *c, json_t *t, json_t *v, const char *path)
{
    if (json_is_string(t)) {
        if (!has_type(v, json_string_value(t)))
            violation(c, path, "expected %s, got %s", json_string_value(t), type_name(v));
        return;
    }
    size_t i;
    json_t *e;
    json_array_foreach(t, i, e)
    {
        if (json_is_string(e) && has_type(v, json_string_value(e)))
            return;
    }
    char want[128];
    show(t, want, sizeof(want));
    violation(c, path, "expected one of the types %s, got %s", want, type_name(v));
}

static void check_object(checker_t *c, json_t *s, json_t *v, const char *path, int depth)
{
    json_t *required = json_object_get(s, "required");
    json_t *props = json_object_get(s, "properties");
    json_t *additional = json_object_get(s, "additionalProperties");
    char sub[PATH_MAX_LEN];
    size_t i;
    json_t *e;
    json_array_foreach(required, i, e)
    {
        if (json_is_string(e) && !json_object_get(v, json_string_value(e)))
            violation(c, path, "missing required property \"%s\"", json_string_value(e));
    }
    const char *key;
    json_t *pv;
    json_object_foreach(v, key, pv)
    {
        path_fmt(sub, sizeof(sub), "%s.%s", path, key);
        json_t *ps = json_is_object(props) ? json_object_get(props, key) : NULL;
        if (ps)
            validate(c, ps, pv, sub, depth + 1);
        else if (json_is_false(additional))
            violation(c, sub, "property \"%s\" is not allowed", key);
        else if (additional && !json_is_true(additional))
            validate(c, additional, pv, sub, depth + 1);
    }
}

/* x-unique-keys: items that agree on every listed property are duplicates
 * (an item missing one of them never collides; `required` reports that). */
static void check_unique_keys(checker_t *c, json_t *keys, json_t *v, const char *path)
{
    size_t count = json_array_size(v), nkeys = json_array_size(keys);
    for (size_t i = 0; i < count; i++) {
        json_t *a = json_array_get(v, i);
        for (size_t j = 0; j < i; j++) {
            json_t *b = json_array_get(v, j);
            bool same = json_is_object(a) && json_is_object(b);
            for (size_t k = 0; same && k < nkeys; k++) {
                const char *name = json_string_value(json_array_get(keys, k));
                json_t *x = name ? json_object_get(a, name) : NULL;
                json_t *y = name ? json_object_get(b, name) : NULL;
                same = x && y && json_equal(x, y);
            }
            if (same) {
                char list[128];
                show(keys, list, sizeof(list));
                violation(c, path, "items [%zu] and [%zu] have the same %s", j, i, list);
                break;
            }
        }
    }
}

static void check_array(checker_t *c, json_t *s, json_t *v, const char *path, int depth)
{
    json_t *items = json_object_get(s, "items");
    json_t *min = json_object_get(s, "minItems");
    json_t *max = json_object_get(s, "maxItems");
    json_t *unique = json_object_get(s, "x-unique-keys");
    size_t count = json_array_size(v);
    if (min && (double)count < json_number_value(min))
        violation(c, path, "%zu items, fewer than minItems %g", count, json_number_value(min));
    if (max && (double)count > json_number_value(max))
        violation(c, path, "%zu items, more than maxItems %g", count, json_number_value(max));
    if (items) {
        char sub[PATH_MAX_LEN];
        for (size_t i = 0; i < count; i++) {
            path_fmt(sub, sizeof(sub), "%s[%zu]", path, i);
            validate(c, items, json_array_get(v, i), sub, depth + 1);
        }
    }
    if (unique)
        check_unique_keys(c, unique, v, path);
}

static void check_number(checker_t *c, json_t *s, json_t *v, const char *path)
{
    double x = json_number_value(v);
    json_t *k;
    if ((k = json_object_get(s, "minimum")) && !(x >= json_number_value(k)))
        violation(c, path, "%g is below the minimum %g", x, json_number_value(k));
    if ((k = json_object_get(s, "maximum")) && !(x <= json_number_value(k)))
        violation(c, path, "%g is above the maximum %g", x, json_number_value(k));
    if ((k = json_object_get(s, "exclusiveMinimum")) && !(x > json_number_value(k)))
        violation(c, path, "%g is not above the exclusive minimum %g", x, json_number_value(k));
    if ((k = json_object_get(s, "exclusiveMaximum")) && !(x < json_number_value(k)))
        violation(c, path, "%g is not below the exclusive maximum %g", x, json_number_value(k));
}

static void check_string(checker_t *c, json_t *s, json_t *v, const char *path)
{
    size_t len = utf8_length(json_string_value(v), json_string_length(v));
    json_t *k;
    if ((k = json_object_get(s, "minLength")) && (double)len < json_number_value(k))
        violation(c, path, "string of %zu characters, shorter than minLength %g", len,
                  json_number_value(k));
    if ((k = json_object_get(s, "maxLength")) && (double)len > json_number_value(k))
        violation(c, path, "string of %zu characters, longer than maxLength %g", len,
                  json_number_value(k));
}

static void validate(checker_t *c, json_t *s, json_t *v, const char *path, int depth)
{
    if (json_is_true(s))
        return;
    if (json_is_false(s)) {
        violation(c, path, "no value is allowed here");
        return;
    }
    if (depth > DEPTH_MAX) {
        schema_problem(c, path, "$ref chain or nesting too deep");
        return;
    }
    json_t *k;
    if ((k = json_object_get(s, "$ref"))) {
        json_t *target = resolve_ref(c->root, json_string_value(k));
        if (!target)
            schema_problem(c, json_string_value(k), "unresolvable $ref");
        else
            validate(c, target, v, path, depth + 1);
    }
    if ((k = json_object_get(s, "type")))
        check_type(c, k, v, path);
    if ((k = json_object_get(s, "enum"))) {
        bool found = false;
        size_t i;
        json_t *e;
        json_array_foreach(k, i, e)
        {
            if (json_equal(e, v)) {
                found = true;
                break;
            }
        }
        if (!found) {
            char got[128], allowed[256];
            show(v, got, sizeof(got));
            show(k, allowed, sizeof(allowed));
            violation(c, path, "%s is not one of %s", got, allowed);
        }
    }
    if ((k = json_object_get(s, "const")) && !json_equal(k, v)) {
        char got[128], want[128];
        show(v, got, sizeof(got));
        show(k, want, sizeof(want));
        violation(c, path, "%s is not %s", got, want);
    }
    /* The remaining keywords apply only to instances of their type. */
    if (json_is_object(v))
        check_object(c, s, v, path, depth);
    else if (json_is_array(v))
        check_array(c, s, v, path, depth);
    else if (json_is_number(v))
        check_number(c, s, v, path);
    else if (json_is_string(v))
        check_string(c, s, v, path);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SCHEMA JSON...\n", argv[0]);
        return 2;
    }
    checker_t c = {0};
    json_error_t err;
    c.root = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &err);
    if (!c.root) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[1], err.line, err.column, err.text);
        return 2;
    }
    lint_schema(&c, c.root, "#", 0);
    if (c.schema_error) {
        json_decref(c.root);
        return 2;
    }
    unsigned bad_files = 0;
    for (int i = 2; i < argc; i++) {
        c.file = argv[i];
        c.violations = 0;
        json_t *doc = json_load_file(argv[i], JSON_REJECT_DUPLICATES, &err);
        if (!doc) {
            fprintf(stderr, "%s:%d:%d: not valid JSON: %s\n", argv[i], err.line, err.column,
                    err.text);
            bad_files++;
            continue;
        }
        validate(&c, c.root, doc, "$", 0);
        json_decref(doc);
        if (c.schema_error)
            break;
        if (c.violations) {
            fprintf(stderr, "%s: %u violation(s)\n", argv[i], c.violations);
            bad_files++;
        } else {
            printf("%s: ok\n", argv[i]);
        }
    }
    json_decref(c.root);
    if (c.schema_error)
        return 2;
    return bad_files ? 1 : 0;
}
