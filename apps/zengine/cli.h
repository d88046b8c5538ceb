/* The zengine command-line program: one function per subcommand. */
#ifndef ZE_CLI_H
#define ZE_CLI_H

#include <stdio.h>

/* Exit statuses of every subcommand. */
enum {
    ZE_CLI_OK = 0,
    ZE_CLI_FAILED = 1, /* the work failed: invalid input, I/O */
    ZE_CLI_USAGE = 2,  /* bad arguments */
};

/* argv[0] is the subcommand's name. */
int ze_cli_cook(int argc, char **argv);
void ze_cli_cook_usage(FILE *out);
/* Runs a project (ze_app_main with a built-in application). */
int ze_cli_run(int argc, char **argv);
void ze_cli_run_usage(FILE *out);

/* Renders one model with the Vulkan backend into a PNG (render.c). */
int ze_cli_render(int argc, char **argv);
void ze_cli_render_usage(FILE *out);

/* Compares two images within a tolerance (compare.c). */
int ze_cli_compare(int argc, char **argv);
void ze_cli_compare_usage(FILE *out);

#endif /* ZE_CLI_H */
