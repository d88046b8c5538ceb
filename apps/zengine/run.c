/* zengine run: a data-only project with the built-in systems (hierarchy,
 * transform and light sync): the same bootstrap a game's main() gets from
 * ze_app_main, with an application that has no hooks. */
#include <stdio.h>
#include <string.h>

#include "zengine/engine.h"
#include "zengine/inspect.h"

#include "cli.h"

void ze_cli_run_usage(FILE *out)
{
    fputs("usage: zengine run --project FILE [--headless] [--frames N] [--fixed-dt S]\n"
          "                   [--screenshot PNG] [--dump-graph JSON] [--stats JSON]\n"
          "                   [--log-level L] [--memory-profile P] [--input FILE]\n"
          "                   [--backend NAME] [--max-fps F] [--trace JSON]\n"
          "                   [--trace-frames N] [--inspect PORT [--inspect-write]]\n"
          "  --project FILE       the project.json to run (also --projectConfigFile)\n"
          "  --headless           no window\n"
          "  --frames N           stop after N main-loop iterations (0: until closed)\n"
          "  --fixed-dt S         a virtual clock advancing S seconds per iteration\n"
          "                       (deterministic: iteration N is the same on every run)\n"
          "  --screenshot PNG     the last frame as PNG (backends with images)\n"
          "  --dump-graph JSON    the compiled render graph after the last frame: passes,\n"
          "                       resources, barriers, layouts, aliasing (vulkan)\n"
          "  --stats JSON         write the run's figures at exit\n"
          "  --trace JSON         Chrome trace of every thread's zones and the GPU passes\n"
          "                       (open in Perfetto or chrome://tracing), written at exit\n"
          "  --trace-frames N     trace only the first N iterations\n"
          "  --inspect PORT       serve the running world on http://127.0.0.1:PORT/ (0: a free\n"
          "                       port, logged): JSON under /api/, a page at /\n"
          "  --inspect-write      allow writes (set a field, pause) with the logged token\n"
          "  --log-level L        trace, debug, info, warn, error, fatal or off\n"
          "  --memory-profile P   default, editor or server (else the project's)\n"
          "  --input FILE         replay scripted input\n"
          "  --backend NAME       render backend (null)\n"
          "  --max-fps F          frame-rate cap (default 60; none with --fixed-dt)\n"
          "SIGINT or SIGTERM ends the run cleanly (exit status 0).\n",
          out);
}

int ze_cli_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ze_cli_run_usage(stdout);
            return ZE_CLI_OK;
        }
    }
    ze_app_desc_t app = {.name = "zengine run", .inspector = ze_inspector_tool()};
    return ze_app_main(&app, argc, argv);
}
