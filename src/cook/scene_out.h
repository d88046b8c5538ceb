/* The cooker's scene file: a model's node hierarchy as an ECS scene file
 * (src/asset/scene_out.c). Not a public header. */
#ifndef ZE_ASSET_SCENE_OUT_H
#define ZE_ASSET_SCENE_OUT_H

#include "asset/asset_internal.h"
#include "zengine/ecs.h"

/* The nodes of the model's default scene (else scene 0, else every root
 * node), depth-first from the roots in order, as a "zengine.scene" version
 * 1 document in the exact bytes ze_scene_save_json writes for the same
 * entities: entity uuids v5(source_uuid, "node/N"); Transform (the node's
 * TRS), Parent, Mesh (mesh_uuids[node mesh] unless nil), Camera and Name.
 * `out` grows from its own allocator; *entities gets the entity count. */
ze_result ze__scene_write(const ze_model_t *model, ze_uuid_t source_uuid,
                          const ze_uuid_t *mesh_uuids, ze_allocator_t alloc, ze_byte_writer_t *out,
                          uint32_t *entities, ze__asset_error_t *err);

#endif /* ZE_ASSET_SCENE_OUT_H */
