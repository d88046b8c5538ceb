/* Cooking and loading a model, the way the running engine does it, with
 * the three runtime parts of the asset pipeline on their own:
 *   the registry    what assets exist, their uuids and states;
 *   the importer    runs the cooker (the `zengine` program, as a child
 *                   process with limits) to turn a glTF into cooked files;
 *   the manager     loads cooked files, checked, and counts references.
 *
 * Run it in a project folder holding models/crate.gltf (its test copies the
 * showcase's crate into a fresh one). It writes .zengine/ (the cache) and
 * models/crate.gltf.meta (the model's identity) there. The cooker is found
 * beside this program, else through ZENGINE_COOKER (docs/using.md).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <zengine/zengine.h>

int main(void)
{
    /* 1. Memory, jobs (loads run on the pool) and the VFS: the project at
     * "/", its cache at /cache (.zengine/, where cooked files go). */
    ze_mem_t *mm;
    ze_job_system_t *js;
    ze_vfs_t *vfs;
    mkdir(".zengine", 0755); /* the VFS mounts /cache only where it exists */
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK ||
        ze_job_system_create(&(ze_job_system_desc_t){.mem = mm}, &js) != ZE_OK ||
        ze_vfs_create(&(ze_vfs_desc_t){.mem = mm, .jobs = js, .project_root = "."}, &vfs) != ZE_OK)
        return 1; /* each failure was reported */

    /* 2. The registry and the import coordinator. */
    ze_asset_registry_t *reg;
    ze_import_coordinator_t *imports;
    if (ze_asset_registry_create(&(ze_asset_registry_desc_t){0}, &reg) != ZE_OK ||
        ze_import_coordinator_create(
            &(ze_import_coordinator_desc_t){.mem = mm, .vfs = vfs, .registry = reg, .jobs = js},
            &imports) != ZE_OK)
        return 1;

    /* 3. Cook: ask for the model (Immediate: before any background work)
     * and wait. A game never waits: it ticks the coordinator once a frame
     * and uses the model when it is there. */
    const char *model = "/models/crate.gltf";
    ze_uuid_t source;
    if (ze_import_request(imports, model, ZE_IMPORT_IMMEDIATE, false, &source) != ZE_OK ||
        ze_import_coordinator_wait(imports, 60000) != ZE_OK)
        return 1;
    ze_asset_info_t info;
    if (!ze_asset_registry_get(reg, source, &info) || info.state != ZE_ASSET_STATE_LOADED) {
        printf("cook_and_load: the import failed: %s\n", info.reason);
        return 1;
    }
    /* The cook made sub-assets: meshes, materials, textures, the node
     * hierarchy; each has a uuid derived from the source's and a name. */
    uint32_t subs = ze_asset_registry_sub_assets(reg, source, NULL, 0);

    /* 4. Load one of them by its reference ("path#name"): acquire takes a
     * reference and starts the load on the pool; the manager validates the
     * file before anyone sees it. */
    ze_asset_manager_t *am;
    if (ze_asset_manager_create(
            &(ze_asset_manager_desc_t){
                .mem = mm, .vfs = vfs, .registry = reg, .imports = imports, .jobs = js},
            &am) != ZE_OK)
        return 1;
    const char *ref = "/models/crate.gltf#mesh/0";
    ze_uuid_t mesh;
    if (ze_asset_registry_resolve(reg, ref, strlen(ref), &mesh) != ZE_OK ||
        ze_asset_acquire(am, mesh) != ZE_OK || ze_asset_manager_wait(am, 30000) != ZE_OK)
        return 1;
    const ze_asset_data_t *data = ze_asset_get(am, mesh);
    if (!data || data->type != ZE_ASSET_TYPE_MESH) {
        printf("cook_and_load: %s did not load\n", ref);
        return 1;
    }
    /* A borrowed view into the cooked bytes: valid until a reload or an
     * eviction, so copy what you keep. */
    ze_zemesh_view_t m = data->as.mesh;
    printf("cook_and_load: %s cooked into %u sub-assets, mesh/0 loaded: %u vertices, %u indices, "
           "%u submesh%s\n",
           model, subs, m.vertex_count, m.index_count, m.submesh_count,
           m.submesh_count == 1 ? "" : "es");

    /* 5. Release the reference, then tear down in reverse. */
    ze_asset_release(am, mesh);
    ze_asset_manager_destroy(am);
    ze_import_coordinator_destroy(imports);
    ze_asset_registry_destroy(reg);
    ze_vfs_destroy(vfs);
    ze_job_system_destroy(js);
    ze_mem_destroy(mm);
    return 0;
}
