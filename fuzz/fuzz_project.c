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
    return ze_path_make(s, &p) == ZE_VFS_OK && strcmp(p.str, s) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ze_project_t p;
    ze_project_report_t rep;
    char err[160];
    ze_result r = ze_project_parse((const char *)data, size, &p, &rep, err);
    if (r != ZE_OK) {
        ZE_VERIFY(r == ZE_ERR_PARSE);
        ZE_VERIFY(err[0] != '\0' && terminated(err, sizeof err));
        ZE_VERIFY(p.name[0] == '\0' && p.asset_folder_count == 0);
        return 0;
    }
    ZE_VERIFY(err[0] == '\0');
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
    for (uint32_t i = 0; i < rep.count && i < 8; i++)
        ZE_VERIFY(rep.messages[i][0] == '/' && strstr(rep.messages[i], ": unknown key"));
    return 0;
}
