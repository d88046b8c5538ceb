/* What every inspector test sets up: a project folder for one headless
 * run and a few named entities. */
#ifndef ZE_TEST_INSPECT_FIXTURE_H
#define ZE_TEST_INSPECT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zengine/engine.h"

/* dir: a mkdtemp template ("/tmp/zengine-x-XXXXXX"), made into a folder
 * holding project.json {"name": name}; its path into project. */
bool fixture_project(char *dir, const char *name, char *project, size_t cap);
/* Removes project.json and the folder (empty otherwise). */
void fixture_project_remove(const char *dir, const char *project);
/* One headless run of app on project hosting the inspector (a free port),
 * uncached, at most 240 iterations a second: frames iterations (0 = until
 * closed), fixed_dt its virtual clock (0 = the wall clock), writes
 * --inspect-write. */
ze_result fixture_run(const ze_app_desc_t *app, const char *project, uint64_t frames,
                      double fixed_dt, bool writes);
/* n entities with a Name "<prefix> <i>"; their ids into ids (may be NULL). */
ze_result fixture_named_entities(ze_world_t *w, const char *prefix, int n, uint64_t *ids);

#endif
