/* Internals shared by the asset runtime (registry, coordinator, manager). */
#ifndef ZE_ASSET_RUNTIME_INTERNAL_H
#define ZE_ASSET_RUNTIME_INTERNAL_H
#include "zengine/asset.h"

/* Sources registered at or below `dir`, appended to `out` (of ze_uuid_t). */
void ze__registry_sources_within(const ze_asset_registry_t *reg, const ze_path_t *dir,
                                 ze_array_t *out);
/* +1 on the entry's generation (a reload, which ends STALE -> LOADED). */
void ze__registry_bump_generation(ze_asset_registry_t *reg, ze_uuid_t uuid);

#endif
