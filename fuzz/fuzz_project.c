/* The project.json parser on arbitrary bytes: never crashes or leaks; a
 * rejection leaves a message and a cleared project; an accepted project
 * keeps every documented invariant (non-empty name, window 1..16384, paths
 * normalized and absolute, a known memory profile, NUL-terminated strings). */
#include <string.h>

#include "zengine/engine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ze_log_set_level(ZE_LOG_OFF);
    return 0;
}

static bool terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static bool vfs_path(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || s[0] != '/')
        return false;
    if (n > 1 && s[n - 1] == '/')
        return false;
    ze_path_t p;
    return ze_path_make(s, &p) == ZE_OK && strcmp(p.str, s) == 0;
}

/* Every report: a failure once, warnings name a JSON path. */
typedef struct seen_t {
    uint32_t errors, warnings;
    bool bad_warning;
} seen_t;

static void seen_fn(void *user, const ze_diag_t *d)
{
    seen_t *s = user;
    if (d->level >= ZE_LOG_ERROR) {
        s->errors++;
        return;
    }
    if (s->warnings++ < 8 && !(d->message[0] == '/' && strstr(d->message, ": unknown key")))
        s->bad_warning = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ze_project_t p;
    seen_t seen = {0};
    ze_diag_sink_t sink = {seen_fn, &seen};
    ze_result r = ze_project_parse((const char *)data, size, &p, &sink);
    if (r != ZE_OK) {
        ZE_VERIFY(r == ZE_ERR_PARSE);
        ZE_VERIFY(seen.errors == 1);
        ZE_VERIFY(p.name[0] == '\0' && p.asset_folder_count == 0);
        return 0;
    }
    ZE_VERIFY(seen.errors == 0 && !seen.bad_warning);
    ZE_VERIFY(terminated(p.name, sizeof p.name) && p.name[0] != '\0');
    ZE_VERIFY(terminated(p.window.title, sizeof p.window.title) && p.window.title[0] != '\0');
    ZE_VERIFY(p.window.width >= 1 && p.window.width <= 16384);
    ZE_VERIFY(p.window.height >= 1 && p.window.height <= 16384);
    ZE_VERIFY(!p.window.headless);
    ZE_VERIFY(p.root[0] == '\0');
    ZE_VERIFY(terminated(p.start_scene, sizeof p.start_scene));
    ZE_VERIFY(p.start_scene[0] == '\0' || (vfs_path(p.start_scene) && strcmp(p.start_scene, "/")));
    ZE_VERIFY(p.asset_folder_count <= ZE_PROJECT_MAX_FOLDERS);
    for (uint32_t i = 0; i < p.asset_folder_count; i++)
        ZE_VERIFY(terminated(p.asset_folders[i], ZE_PROJECT_STRING_MAX) &&
                  vfs_path(p.asset_folders[i]));
    ZE_VERIFY(p.memory_profile[0] == '\0' || strcmp(p.memory_profile, "default") == 0 ||
              strcmp(p.memory_profile, "editor") == 0 || strcmp(p.memory_profile, "server") == 0);
    return 0;
}
