/* rows_check.c — bench_rows_check: the rows each benchmark suite must write.
 *
 *   bench_rows_check [OPTIONS] EXPECTED SUITE FILE   check one suite's output
 *   bench_rows_check --list EXPECTED                 print the suites EXPECTED lists
 *
 * EXPECTED is bench/expected_rows.json; its "$comment" and bench/README.md
 * describe the format. An expected row matches the output rows of the same
 * name (and the same n when the expectation gives one). Everything here is
 * decided by the files, never by a speed, unless --targets is given:
 *
 * Failures (exit 1), each printed as "bench SUITE: ...": an expected row is
 * missing; a row has another unit than expected; a target the program wrote
 * disagrees with EXPECTED's, or EXPECTED gives that row none; a target's
 * direction contradicts the row's "better"; FILE is missing, not JSON or
 * another suite's; SUITE is not listed in EXPECTED.
 * Exit 2: usage, or EXPECTED unreadable or malformed (unknown keys included,
 * so a misspelt target is never silently unchecked).
 *
 * Options:
 *   --targets       a full run: also print every target against the matching
 *                   row with the largest n, PASS or MISS. A MISS is reported
 *                   (a "target MISSED" line) and does not fail: the machines
 *                   are shared and noisy.
 *   --fail-on-miss  with --targets: a MISS fails too.
 *   --filtered      the run used --filter: missing rows are counted, not failures.
 *   --without TAG   rows that require TAG (e.g. "testdata") may be missing.
 *
 * Memory: jansson owns the two documents; nothing else is allocated
 * (malloc and friends live in src/mem/ only, scripts/check_alloc_symbols.sh).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

enum {
    WITHOUT_MAX = 8,
    TABLE_MAX = 128, /* target rows printed per suite; more are counted, not shown */
    COLS = 6,
    CELL = 72,
};

/* The target keys of an expected row: at most one per row. */
static const struct {
    const char *key;
    bool upper; /* the measure must be <= the limit (else >=) */
    bool ratio; /* the measure is value / baseline (else value) */
} target_keys[] = {
    {"max", true, false},
    {"min", false, false},
    {"ratio_max", true, true},
    {"ratio_min", false, true},
};
enum { TARGET_KEYS = sizeof(target_keys) / sizeof(target_keys[0]) };

static const char *const row_keys[] = {
    "name", "unit", "n", "requires", "max", "min", "ratio_max", "ratio_min", "$comment",
};

typedef struct expect_t {
    const char *name;
    const char *unit;     /* NULL: any */
    json_int_t n;         /* 0: any */
    const char *requires; /* NULL: always required */
    int target;           /* index into target_keys; -1: none */
    double limit;
} expect_t;

typedef struct opts_t {
    const char *expected_path;
    bool targets, fail_on_miss, filtered;
    const char *without[WITHOUT_MAX];
    int without_count;
} opts_t;

/* ------------------------------------------------------- the expectations */

typedef struct loader_t {
    const char *path;
    unsigned errors;
} loader_t;

static void file_error(loader_t *l, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void file_error(loader_t *l, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: %s: ", l->path, where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    l->errors++;
}

static bool is_comment(const json_t *v)
{
    if (json_is_string(v))
        return true;
    if (!json_is_array(v))
        return false;
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e))
            return false;
    }
    return true;
}

static bool non_empty_string(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0;
}

/* Parses one expected row; with a loader, reports every problem in it. */
static bool parse_row(loader_t *l, const char *where, json_t *row, expect_t *e)
{
    memset(e, 0, sizeof(*e));
    e->target = -1;
    if (!json_is_object(row)) {
        if (l)
            file_error(l, where, "a row must be an object");
        return false;
    }
    bool ok = true;
    const char *key;
    json_t *v;
    json_object_foreach(row, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < sizeof(row_keys) / sizeof(row_keys[0]); i++)
            known = known || strcmp(key, row_keys[i]) == 0;
        if (!known) {
            if (l)
                file_error(l, where,
                           "unknown key \"%s\" (a row has name, unit, n, requires, one of max, "
                           "min, ratio_max, ratio_min, and $comment)",
                           key);
            ok = false;
        }
    }
    v = json_object_get(row, "name");
    if (non_empty_string(v)) {
        e->name = json_string_value(v);
    } else {
        if (l)
            file_error(l, where, "\"name\" must be a non-empty string");
        ok = false;
    }
    if ((v = json_object_get(row, "unit"))) {
        if (non_empty_string(v)) {
            e->unit = json_string_value(v);
        } else {
            if (l)
                file_error(l, where, "\"unit\" must be a non-empty string");
            ok = false;
        }
    }
    if ((v = json_object_get(row, "n"))) {
        if (json_is_integer(v) && json_integer_value(v) >= 1) {
            e->n = json_integer_value(v);
        } else {
            if (l)
                file_error(l, where, "\"n\" must be an integer >= 1");
            ok = false;
        }
    }
    if ((v = json_object_get(row, "requires"))) {
        if (non_empty_string(v)) {
            e->requires = json_string_value(v);
        } else {
            if (l)
                file_error(l, where, "\"requires\" must be a non-empty string");
            ok = false;
        }
    }
    if ((v = json_object_get(row, "$comment")) && !is_comment(v)) {
        if (l)
            file_error(l, where, "\"$comment\" must be a string or an array of strings");
        ok = false;
    }
    for (int t = 0; t < (int)TARGET_KEYS; t++) {
        if (!(v = json_object_get(row, target_keys[t].key)))
            continue;
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0) {
            if (l)
                file_error(l, where, "\"%s\" must be a number >= 0", target_keys[t].key);
            ok = false;
        } else if (e->target >= 0) {
            if (l)
                file_error(l, where, "more than one target (\"%s\" and \"%s\")",
                           target_keys[e->target].key, target_keys[t].key);
            ok = false;
        } else {
            e->target = t;
            e->limit = json_number_value(v);
        }
    }
    return ok;
}

/* Two expectations that could match the same output row. */
static bool overlap(const expect_t *a, const expect_t *b)
{
    return strcmp(a->name, b->name) == 0 && (a->n == 0 || b->n == 0 || a->n == b->n);
}

static void check_suite_entry(loader_t *l, const char *suite, json_t *rows)
{
    char where[256];
    snprintf(where, sizeof(where), "suites.%s", suite);
    if (suite[0] == '\0') {
        file_error(l, where, "a suite name must not be empty");
        return;
    }
    if (!json_is_array(rows) || json_array_size(rows) == 0) {
        file_error(l, where, "must be a non-empty array of rows");
        return;
    }
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        snprintf(where, sizeof(where), "suites.%s[%zu]", suite, i);
        expect_t e;
        if (!parse_row(l, where, row, &e))
            continue;
        for (size_t j = 0; j < i; j++) {
            expect_t p;
            if (parse_row(NULL, NULL, json_array_get(rows, j), &p) && overlap(&p, &e)) {
                file_error(l, where, "row \"%s\" is listed twice ([%zu] and [%zu])", e.name, j, i);
                break;
            }
        }
    }
}

/* EXPECTED's "suites" object, with the document in *doc; NULL (reported)
 * when the file is unreadable or malformed. */
static json_t *load_expected(const char *path, json_t **doc)
{
    json_error_t err;
    *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!*doc) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return NULL;
    }
    loader_t l = {path, 0};
    json_t *suites = json_object_get(*doc, "suites");
    if (!json_is_object(*doc)) {
        file_error(&l, "$", "must be an object");
    } else {
        const char *key;
        json_t *v;
        json_object_foreach(*doc, key, v)
        {
            if (strcmp(key, "$comment") == 0) {
                if (!is_comment(v))
                    file_error(&l, "$comment", "must be a string or an array of strings");
            } else if (strcmp(key, "suites") != 0) {
                file_error(&l, key, "unknown key (the file has \"suites\" and \"$comment\")");
            }
        }
        if (!json_is_object(suites) || json_object_size(suites) == 0) {
            file_error(&l, "suites", "must be an object naming at least one suite");
        } else {
            json_object_foreach(suites, key, v)
            {
                check_suite_entry(&l, key, v);
            }
        }
    }
    if (l.errors) {
        fprintf(stderr, "%s: %u problem(s); its \"$comment\" describes the format\n", path,
                l.errors);
        json_decref(*doc);
        *doc = NULL;
        return NULL;
    }
    return suites;
}

/* -------------------------------------------------------------- one suite */

typedef struct report_t {
    const opts_t *o;
    const char *suite;
    unsigned failures;
} report_t;

static void fail(report_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(report_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout); /* keep the lines in order when both go to one place */
    fprintf(stderr, "bench %s: ", r->suite);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    r->failures++;
}

static json_int_t row_n(const json_t *row)
{
    const json_t *n = json_object_get(row, "n");
    if (json_is_integer(n))
        return json_integer_value(n);
    return json_is_real(n) ? (json_int_t)json_real_value(n) : 0;
}

static const char *row_name(const json_t *row)
{
    return json_string_value(json_object_get(row, "name"));
}

static bool row_matches(const json_t *row, const expect_t *e)
{
    const char *name = row_name(row);
    return name && strcmp(name, e->name) == 0 && (e->n == 0 || row_n(row) == e->n);
}

static bool without(const opts_t *o, const char *tag)
{
    for (int i = 0; i < o->without_count; i++)
        if (strcmp(o->without[i], tag) == 0)
            return true;
    return false;
}

/* Equal up to the 6 significant digits the programs write. */
static bool close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-4 * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* snprintf for table cells and lines; a cut cell is still readable (and
 * vsnprintf keeps gcc's truncation analysis quiet about it). */
static void text_fmt(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void text_fmt(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
}

static void format_num(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (isnan(v))
        snprintf(buf, size, "-");
    else if (a == 0)
        snprintf(buf, size, "0");
    else if (a >= 1e9)
        snprintf(buf, size, "%.4g", v);
    else if (a >= 1000)
        snprintf(buf, size, "%.0f", v);
    else if (a >= 10)
        snprintf(buf, size, "%.1f", v);
    else if (a >= 1)
        snprintf(buf, size, "%.2f", v);
    else
        snprintf(buf, size, "%.3g", v);
}

/* What the output row itself says against the expectation: unit, the
 * direction of the target, and the target the program wrote. */
static void check_row(report_t *r, const expect_t *e, const json_t *row)
{
    const char *path = r->o->expected_path;
    const char *unit = json_string_value(json_object_get(row, "unit"));
    if (e->unit && (!unit || strcmp(unit, e->unit) != 0))
        fail(r, "row '%s' has unit '%s', %s expects '%s'", e->name, unit ? unit : "(none)", path,
             e->unit);
    const char *better = json_string_value(json_object_get(row, "better"));
    if (e->target >= 0 && better && target_keys[e->target].upper != (strcmp(better, "lower") == 0))
        fail(r, "row '%s' is better '%s' but %s gives it a \"%s\" target", e->name, better, path,
             target_keys[e->target].key);
    const json_t *t = json_object_get(row, "target");
    if (!json_is_number(t))
        return;
    double written = json_number_value(t);
    if (e->target < 0) {
        fail(r, "row '%s' carries target %g but %s gives it none", e->name, written, path);
        return;
    }
    double want = e->limit;
    if (target_keys[e->target].ratio) {
        double base = json_number_value(json_object_get(row, "baseline"));
        if (!(base > 0)) {
            fail(r, "row '%s' carries target %g but no baseline for its \"%s\" target", e->name,
                 written, target_keys[e->target].key);
            return;
        }
        want = e->limit * base;
        if (!close_enough(written, want))
            fail(r, "row '%s' carries target %g (%.3g x baseline) but %s says \"%s\": %g", e->name,
                 written, written / base, path, target_keys[e->target].key, e->limit);
    } else if (!close_enough(written, want)) {
        fail(r, "row '%s' carries target %g but %s says \"%s\": %g", e->name, written, path,
             target_keys[e->target].key, e->limit);
    }
}

typedef struct table_t {
    char cells[TABLE_MAX][COLS][CELL];
    unsigned count, pass, miss;
    char missed[TABLE_MAX][2 * CELL];
    unsigned missed_count;
} table_t;

/* A target against the matching row with the largest n (the size targets
 * are set for): one line of the table, PASS or MISS. */
static void evaluate(report_t *r, table_t *tab, const expect_t *e, const json_t *row)
{
    double v = json_number_value(json_object_get(row, "value"));
    const char *unit = json_string_value(json_object_get(row, "unit"));
    if (target_keys[e->target].ratio) {
        double base = json_number_value(json_object_get(row, "baseline"));
        if (!(base > 0)) {
            fail(r, "row '%s' has no baseline, so its \"%s\" target cannot be checked", e->name,
                 target_keys[e->target].key);
            return;
        }
        v /= base;
        unit = "x baseline";
    }
    bool upper = target_keys[e->target].upper;
    bool ok = upper ? v <= e->limit : v >= e->limit;
    char value[CELL], limit[CELL];
    format_num(value, sizeof(value), v);
    format_num(limit, sizeof(limit), e->limit);
    if (ok)
        tab->pass++;
    else
        tab->miss++;
    if (!ok && tab->missed_count < TABLE_MAX)
        text_fmt(tab->missed[tab->missed_count++], sizeof(tab->missed[0]),
                 "%s %s %s (target %s %s)", e->name, value, unit ? unit : "",
                 upper ? "<=" : ">=", limit);
    if (tab->count >= TABLE_MAX)
        return;
    char(*c)[CELL] = tab->cells[tab->count++];
    text_fmt(c[0], CELL, "%s", e->name);
    text_fmt(c[1], CELL, "%lld", (long long)row_n(row));
    text_fmt(c[2], CELL, "%s", value);
    text_fmt(c[3], CELL, "%s", unit ? unit : "");
    text_fmt(c[4], CELL, "%s %s", upper ? "<=" : ">=", limit);
    text_fmt(c[5], CELL, "%s", ok ? "PASS" : "MISS");
}

static void print_table(const report_t *r, const table_t *tab)
{
    static const char *const head[COLS] = {"row", "n", "value", "unit", "target", "mark"};
    static const bool right[COLS] = {false, true, true, false, false, false};
    size_t width[COLS];
    for (int c = 0; c < COLS; c++) {
        width[c] = strlen(head[c]);
        for (unsigned i = 0; i < tab->count; i++)
            width[c] = width[c] > strlen(tab->cells[i][c]) ? width[c] : strlen(tab->cells[i][c]);
    }
    printf("\ntargets of %s (%s, full run):\n", r->suite, r->o->expected_path);
    for (int c = 0; c < COLS; c++)
        printf(right[c] ? "%*s  " : "%-*s  ", (int)width[c], head[c]);
    printf("\n");
    for (unsigned i = 0; i < tab->count; i++) {
        for (int c = 0; c < COLS; c++)
            printf(right[c] ? "%*s  " : "%-*s  ", (int)width[c], tab->cells[i][c]);
        printf("\n");
    }
}

static int check_suite(const opts_t *o, json_t *suites, const char *suite, const char *file)
{
    report_t r = {o, suite, 0};
    const char *path = o->expected_path;
    json_t *rows = json_object_get(suites, suite);
    if (!rows) {
        fail(&r,
             "suite not listed in %s (every suite lists the rows it must write there, see "
             "bench/README.md)",
             path);
        return 1;
    }
    if (access(file, F_OK) != 0) {
        fail(&r, "output %s missing (the suite is listed in %s: did bench_%s run?)", file, path,
             suite);
        return 1;
    }
    json_error_t err;
    json_t *doc = json_load_file(file, JSON_REJECT_DUPLICATES, &err);
    if (!doc) {
        fail(&r, "%s:%d:%d: not valid JSON: %s", file, err.line, err.column, err.text);
        return 1;
    }
    json_t *results = json_object_get(doc, "results");
    const char *written_suite = json_string_value(json_object_get(doc, "suite"));
    if (!json_is_array(results)) {
        fail(&r, "%s has no \"results\" array", file);
        json_decref(doc);
        return 1;
    }
    if (written_suite && strcmp(written_suite, suite) != 0)
        fail(&r, "%s holds the results of suite '%s'", file, written_suite);

    /* Large (two fixed-size arrays of cells): static, not on the stack. */
    static table_t tab;
    memset(&tab, 0, sizeof(tab));
    unsigned expected = 0, present = 0, filtered = 0, excused = 0;
    size_t i, k;
    json_t *ej, *row;
    json_array_foreach(rows, i, ej)
    {
        expect_t e;
        if (!parse_row(NULL, NULL, ej, &e))
            continue; /* load_expected reported it */
        expected++;
        const json_t *best = NULL;
        json_array_foreach(results, k, row)
        {
            if (!row_matches(row, &e))
                continue;
            check_row(&r, &e, row);
            if (!best || row_n(row) > row_n(best))
                best = row;
        }
        if (!best) {
            char size[48] = "", why[96] = "";
            if (e.n)
                snprintf(size, sizeof(size), " (n = %lld)", (long long)e.n);
            if (e.requires && without(o, e.requires)) {
                printf("bench %s: row '%s'%s not written; not required without %s\n", suite, e.name,
                       size, e.requires);
                excused++;
            } else if (o->filtered) {
                filtered++;
            } else {
                if (e.requires)
                    snprintf(why, sizeof(why), "; it requires %s", e.requires);
                fail(&r, "row '%s'%s missing (expected by %s%s)", e.name, size, path, why);
            }
            continue;
        }
        present++;
        if (o->targets && e.target >= 0)
            evaluate(&r, &tab, &e, best);
    }
    /* A target the program writes is one an issue asked for: it is listed. */
    json_array_foreach(results, k, row)
    {
        if (!json_object_get(row, "target") || !row_name(row))
            continue;
        bool listed = false;
        json_array_foreach(rows, i, ej)
        {
            expect_t e;
            listed = listed || (parse_row(NULL, NULL, ej, &e) && row_matches(row, &e));
        }
        if (!listed)
            fail(&r, "row '%s' (n = %lld) carries a target but %s does not list it", row_name(row),
                 (long long)row_n(row), path);
    }

    if (o->targets && tab.count)
        print_table(&r, &tab);
    for (unsigned m = 0; m < tab.missed_count; m++)
        printf("bench %s: target MISSED: %s\n", suite, tab.missed[m]);
    printf("bench %s: %u of %u expected row(s) present", suite, present, expected);
    if (filtered)
        printf(", %u not run (--filter)", filtered);
    if (excused)
        printf(", %u not required (--without)", excused);
    if (o->targets)
        printf("; targets: %u PASS, %u MISS%s", tab.pass, tab.miss,
               tab.miss && !o->fail_on_miss ? " (reported, not a failure)" : "");
    printf("%s\n", r.failures ? "" : "; ok");
    json_decref(doc);
    fflush(stdout);
    if (r.failures)
        fprintf(stderr, "bench %s: %u problem(s) with the rows %s expects\n", suite, r.failures,
                path);
    return r.failures || (o->fail_on_miss && tab.miss) ? 1 : 0;
}

static int usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--targets [--fail-on-miss]] [--filtered] [--without TAG]... "
            "EXPECTED SUITE FILE\n"
            "       %s --list EXPECTED\n",
            prog, prog);
    return 2;
}

int main(int argc, char **argv)
{
    opts_t o = {0};
    bool list = false;
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--targets") == 0) {
            o.targets = true;
        } else if (strcmp(a, "--fail-on-miss") == 0) {
            o.fail_on_miss = true;
        } else if (strcmp(a, "--filtered") == 0) {
            o.filtered = true;
        } else if (strcmp(a, "--list") == 0) {
            list = true;
        } else if (strcmp(a, "--without") == 0) {
            if (i + 1 >= argc || o.without_count == WITHOUT_MAX)
                return usage(argv[0]);
            o.without[o.without_count++] = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
            return usage(argv[0]);
        } else if (npos < 3) {
            pos[npos++] = a;
        } else {
            return usage(argv[0]);
        }
    }
    if (npos != (list ? 1 : 3) || (o.fail_on_miss && !o.targets))
        return usage(argv[0]);
    o.expected_path = pos[0];
    json_t *doc = NULL;
    json_t *suites = load_expected(o.expected_path, &doc);
    if (!suites)
        return 2;
    int rc = 0;
    if (list) {
        const char *key;
        json_t *v;
        json_object_foreach(suites, key, v)
        {
            printf("%s\n", key);
        }
    } else {
        rc = check_suite(&o, suites, pos[1], pos[2]);
    }
    json_decref(doc);
    return rc;
}
