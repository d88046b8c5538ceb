/* The glTF importer on arbitrary JSON text (imported from memory, no folder
 * for external files, a 64 MiB memory cap). Whatever imports must cook:
 * every mesh with triangles writes a .zemesh that our reader accepts, and
 * every material writes a .zematerial that reads back. Leaks, overreads
 * and undefined behaviour are the sanitizers' to catch. */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"

#include "gltf_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    gltf_oracle_check(data, size);
    return 0;
}
