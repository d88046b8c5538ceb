#include "inspect_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool fixture_project(char *dir, const char *name, char *project, size_t cap)
{
    if (!mkdtemp(dir))
        return false;
    int n = snprintf(project, cap, "%s/project.json", dir);
    FILE *f = n > 0 && (size_t)n < cap ? fopen(project, "w") : NULL;
    if (!f)
        return false;
    fprintf(f, "{\"name\": \"%s\"}\n", name);
    return fclose(f) == 0;
}

void fixture_project_remove(const char *dir, const char *project)
{
    unlink(project);
    rmdir(dir);
}

ze_result fixture_run(const ze_app_desc_t *app, const char *project, uint64_t frames,
                      double fixed_dt, bool writes)
{
    ze_run_desc_t run = {.project = project,
                         .headless = true,
                         .frames = frames,
                         .fixed_dt = fixed_dt,
                         .max_fps = 240,
                         .no_cache = true,
                         .inspect = true,
                         .inspect_write = writes};
    ze_run_report_t rep;
    return ze_app_run(app, &run, &rep);
}

ze_result fixture_named_entities(ze_world_t *w, const char *prefix, int n, uint64_t *ids)
{
    for (int i = 0; i < n; i++) {
        ze_entity_t en = ze_entity_create(w);
        ze_name_t name = {{0}};
        snprintf(name.value, sizeof name.value, "%s %d", prefix, i);
        if (ze_component_set(w, en, ZE_ID(ze_name_t), &name) != ZE_OK)
            return ZE_ERR_INTERNAL;
        if (ids)
            ids[i] = en.id;
    }
    return ZE_OK;
}
