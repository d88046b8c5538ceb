/* A game outside the engine's repository: built against an installed
 * ZEngine (CMake's find_package(zengine) or pkg-config, see README.md
 * here), run from anywhere. It starts the engine on its project through
 * ze_app_main, lets the engine import the project's models with the
 * installed `zengine` cooker (a child process), and waits until
 * models/crate.gltf is loaded; then it closes. Exit status 0 when the
 * model was imported, 1 when its import failed or the run ended first.
 * Built with CONSUMER_INSPECT (the CMake build links zengine::inspect), it
 * hosts the inspector: `--inspect 0` serves the world on a free port.
 *
 *   ./consumer_game --project path/to/project.json --headless --frames 600
 */
#include <stdio.h>

#include <zengine/zengine.h>
#ifdef CONSUMER_INSPECT
#include <zengine/inspect.h>
#endif

typedef struct game_t {
    bool imported;
    char failure[256];
} game_t;

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    game_t *g = user;
    ze_uuid_t crate;
    ze_asset_info_t info;
    if (!ze_asset_registry_find_path(ze_engine_registry(e), "/models/crate.gltf", &crate) ||
        !ze_asset_registry_get(ze_engine_registry(e), crate, &info))
        return; /* not registered yet */
    if (info.state == ZE_ASSET_STATE_LOADED) {
#ifdef CONSUMER_INSPECT
        ze_inspector_t *in = ze_engine_inspector(e);
        if (in)
            printf("consumer: inspector on 127.0.0.1:%u\n", (unsigned)ze_inspector_port(in));
#endif
        printf("consumer: /models/crate.gltf imported at frame %llu\n",
               (unsigned long long)ze_engine_frame_index(e));
        g->imported = true;
        ze_engine_request_close(e);
    } else if (info.state == ZE_ASSET_STATE_FAILED) {
        snprintf(g->failure, sizeof g->failure, "%s", info.reason);
        ze_engine_request_close(e);
    }
}

int main(int argc, char **argv)
{
    game_t game = {0};
    ze_app_desc_t app = {.name = "consumer", .user = &game, .on_update = on_update};
#ifdef CONSUMER_INSPECT
    app.inspector = ze_inspector_tool();
#endif
    int status = ze_app_main(&app, argc, argv);
    if (status != 0)
        return status;
    if (!game.imported) {
        fprintf(stderr, "consumer: crate.gltf was not imported: %s\n",
                game.failure[0] ? game.failure : "the run ended first");
        return 1;
    }
    return 0;
}
