/* zengine: the engine's command-line program. Subcommands: run, cook,
 * render, compare (more — bench, inspect — arrive with their issues). */
#include <stdio.h>
#include <string.h>

#include "zengine/base.h"

#include "cli.h"

static void usage(FILE *out)
{
    fputs("usage: zengine <command> [arguments]\n"
          "\n"
          "commands:\n"
          "  run --project FILE [--headless] [--frames N] [--fixed-dt S] [--stats JSON] ...\n"
          "                 run a project (zengine run --help for every option)\n"
          "  cook SOURCE --out DIR [--json] [--uuid UUID] [--importer NAME]\n"
          "                 import one source file and write its cooked artifacts\n"
          "  render MODEL --out PNG [--size WxH] [--stats JSON]\n"
          "                 render a model with the Vulkan backend (framed, lit)\n"
          "  compare IMAGE REFERENCE [--tolerance N] [--max-differing PERCENT]\n"
          "                 compare two images pixel by pixel (exit 0 when they match)\n"
          "  help           this text\n",
          out);
}

int main(int argc, char **argv)
{
    /* Errors are reported by the commands themselves, one line each. */
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_ERROR});
    if (argc < 2) {
        usage(stderr);
        return ZE_CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return ze_cli_run(argc - 1, argv + 1); /* configures the logger itself */
    if (strcmp(cmd, "cook") == 0)
        return ze_cli_cook(argc - 1, argv + 1);
    if (strcmp(cmd, "render") == 0)
        return ze_cli_render(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return ze_cli_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return ZE_CLI_OK;
    }
    fprintf(stderr, "zengine: unknown command '%s' (try 'zengine help')\n", cmd);
    return ZE_CLI_USAGE;
}
