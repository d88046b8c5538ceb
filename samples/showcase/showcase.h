/* The showcase's parts, one file each. */
#ifndef SHOWCASE_H
#define SHOWCASE_H

#include <zengine/zengine.h>

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js);
bool showcase_assets(ze_mem_t *mm, ze_job_system_t *js);

#endif
