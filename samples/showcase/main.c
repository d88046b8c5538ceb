/* ZEngine showcase: a small game on the engine (game.c), and a tour of the
 * runtime's pieces one by one (tour.c). Links libzengine and includes only
 * <zengine/zengine.h>.
 *
 *   showcase [zengine run options]     the game (default project: the
 *                                      build tree's copy of project/)
 *   showcase --tour [--memory-profile P] [--trace FILE.json]
 */
#include <string.h>

#include "showcase.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--tour") == 0)
        return showcase_tour(argc - 1, argv + 1);
    return showcase_game(argc, argv);
}
