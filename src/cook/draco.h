/* KHR_draco_mesh_compression's decoder: Debian's libdraco (a C++ library)
 * behind a C interface (draco_decode.cpp), used by the glTF importer
 * (gltf_draco.c) in the cooker only: the cooker's child process caps the
 * memory libdraco allocates (its rlimit), the runtime never links it.
 * Every call catches what libdraco throws (allocation failures). */
#ifndef ZE_COOK_DRACO_H
#define ZE_COOK_DRACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ze__draco_mesh_t ze__draco_mesh_t;

/* A triangle mesh from a Draco stream; NULL and a message in `err` (cap
 * bytes) when the stream is not one or does not decode. */
ze__draco_mesh_t *ze__draco_decode(const uint8_t *data, size_t size, char *err, size_t cap);
void ze__draco_free(ze__draco_mesh_t *m);
uint32_t ze__draco_points(const ze__draco_mesh_t *m);
uint32_t ze__draco_faces(const ze__draco_mesh_t *m);
/* The corners of every face, 3 point indices each, into out[3 * faces]. */
void ze__draco_indices(const ze__draco_mesh_t *m, uint32_t *out);
/* Components of the attribute with this unique id; 0 when there is none. */
uint32_t ze__draco_components(const ze__draco_mesh_t *m, uint32_t unique_id);
/* Every point's value of that attribute as `ncomp` components of glTF
 * component type `ctype` (5120..5126; normalized: integers scaled to
 * [0, 1] or [-1, 1] as glTF reads them), tightly packed in `out`
 * (points * ncomp * component size bytes). False when a value does not
 * convert (out of the type's range) or the attribute is missing. */
bool ze__draco_values(const ze__draco_mesh_t *m, uint32_t unique_id, uint32_t ctype,
                      bool normalized, uint32_t ncomp, void *out);

#ifdef __cplusplus
}
#endif

#endif /* ZE_COOK_DRACO_H */
