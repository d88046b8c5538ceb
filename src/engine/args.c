/* The one command-line grammar of a run (engine.h, ze_run_parse_args).
 * Options take their value as the next argument or after '='
 * ("--frames 30", "--frames=30"). Every error is one line reported to the
 * caller's diagnostics sink (subject "command line"). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/engine.h"

static ze_result usage_error(const ze_diag_sink_t *diag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ze_result usage_error(const ze_diag_sink_t *diag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ze_diagv(diag, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "engine", "command line", fmt, ap);
    va_end(ap);
    return ZE_ERR_INVALID_ARG;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool parse_f64(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

typedef enum opt_kind {
    OPT_FLAG,
    OPT_STRING,
} opt_kind;

typedef struct opt_t {
    const char *name;
    opt_kind kind;
} opt_t;

static const opt_t g_opts[] = {
    {"--project", OPT_STRING},      {"--projectConfigFile", OPT_STRING},
    {"--headless", OPT_FLAG},       {"--frames", OPT_STRING},
    {"--fixed-dt", OPT_STRING},     {"--screenshot", OPT_STRING},
    {"--dump-graph", OPT_STRING},   {"--stats", OPT_STRING},
    {"--log-level", OPT_STRING},    {"--memory-profile", OPT_STRING},
    {"--input", OPT_STRING},        {"--backend", OPT_STRING},
    {"--max-fps", OPT_STRING},      {"--launchEditor", OPT_FLAG},
    {"--strict", OPT_FLAG},         {"--trace", OPT_STRING},
    {"--trace-frames", OPT_STRING}, {"--inspect", OPT_STRING},
    {"--inspect-write", OPT_FLAG},
};

ze_result ze_run_parse_args(int argc, char **argv, ze_run_desc_t *out, ze_log_level *log_level,
                            bool *log_level_set, const ze_diag_sink_t *diag)
{
    if (!out)
        return usage_error(diag, "internal: no output for the arguments");
    memset(out, 0, sizeof *out);
    if (log_level_set)
        *log_level_set = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!arg || strncmp(arg, "--", 2) != 0)
            return usage_error(diag, "unexpected argument '%s' (options start with --)",
                               arg ? arg : "(null)");
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const opt_t *opt = NULL;
        for (size_t k = 0; k < ZE_COUNTOF(g_opts); k++)
            if (strlen(g_opts[k].name) == name_len && strncmp(g_opts[k].name, arg, name_len) == 0)
                opt = &g_opts[k];
        if (!opt)
            return usage_error(diag, "unknown option '%.*s'", (int)ZE_MIN(name_len, 100), arg);
        const char *name = opt->name;
        if (strcmp(name, "--launchEditor") == 0)
            return usage_error(diag, "--launchEditor: the editor is not part of this build yet; "
                                     "run the project with --project FILE");
        const char *val = NULL;
        if (opt->kind == OPT_FLAG) {
            if (eq)
                return usage_error(diag, "%s takes no value", name);
        } else if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            return usage_error(diag, "%s needs a value", name);
        }
        if (opt->kind == OPT_STRING && (!val || !val[0]))
            return usage_error(diag, "%s needs a value", name);

        if (strcmp(name, "--project") == 0 || strcmp(name, "--projectConfigFile") == 0) {
            out->project = val;
        } else if (strcmp(name, "--headless") == 0) {
            out->headless = true;
        } else if (strcmp(name, "--strict") == 0) {
            out->strict = true;
        } else if (strcmp(name, "--frames") == 0) {
            if (!parse_u64(val, &out->frames))
                return usage_error(diag, "--frames: '%.60s' is not a whole number of frames", val);
        } else if (strcmp(name, "--fixed-dt") == 0) {
            if (!parse_f64(val, &out->fixed_dt) || out->fixed_dt <= 0.0 || out->fixed_dt > 1.0)
                return usage_error(diag, "--fixed-dt: '%.60s' is not a step in (0, 1] seconds",
                                   val);
        } else if (strcmp(name, "--screenshot") == 0) {
            out->screenshot = val;
        } else if (strcmp(name, "--dump-graph") == 0) {
            out->dump_graph = val;
        } else if (strcmp(name, "--stats") == 0) {
            out->stats = val;
        } else if (strcmp(name, "--inspect") == 0) {
            uint64_t port = 0;
            if (!parse_u64(val, &port) || port > 65535)
                return usage_error(
                    diag, "--inspect: '%.60s' is not a port (0-65535; 0 = a free one)", val);
            out->inspect = true;
            out->inspect_port = (uint16_t)port;
        } else if (strcmp(name, "--inspect-write") == 0) {
            out->inspect_write = true;
        } else if (strcmp(name, "--trace") == 0) {
            out->trace = val;
        } else if (strcmp(name, "--trace-frames") == 0) {
            if (!parse_u64(val, &out->trace_frames) || out->trace_frames == 0)
                return usage_error(diag, "--trace-frames: '%.60s' is not a whole number of frames",
                                   val);
        } else if (strcmp(name, "--log-level") == 0) {
            ze_log_level l;
            if (ze_log_level_parse(val, &l) != ZE_OK)
                return usage_error(diag,
                                   "--log-level: '%.60s' is not trace, debug, info, warn, error, "
                                   "fatal or off",
                                   val);
            if (log_level)
                *log_level = l;
            if (log_level_set)
                *log_level_set = true;
        } else if (strcmp(name, "--memory-profile") == 0) {
            ze_mem_profile p;
            if (ze_mem_profile_parse(val, &p) != ZE_OK)
                return usage_error(
                    diag, "--memory-profile: '%.60s' is not default, editor or server", val);
            out->memory_profile = val;
        } else if (strcmp(name, "--input") == 0) {
            out->input_script = val;
        } else if (strcmp(name, "--backend") == 0) {
            out->backend = val;
        } else if (strcmp(name, "--max-fps") == 0) {
            if (!parse_f64(val, &out->max_fps) || out->max_fps < 0.0)
                return usage_error(diag, "--max-fps: '%.60s' is not a rate >= 0", val);
        }
    }
    if (!out->project)
        return usage_error(diag, "missing --project FILE (the project.json to run)");
    return ZE_OK;
}
