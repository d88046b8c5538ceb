/* The showcase's parts, one file each. */
#ifndef SHOWCASE_H
#define SHOWCASE_H

#include <zengine/zengine.h>

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js);
bool showcase_assets(ze_mem_t *mm, ze_job_system_t *js);
int showcase_tour(int argc, char **argv);
int showcase_game(int argc, char **argv);

#endif
