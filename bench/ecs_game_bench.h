/* ecs_game_bench.h — the game-shaped world rows of bench_ecs
 * (ecs_game_bench.c), called from ecs_bench.c's main. */
#ifndef ZE_ECS_GAME_BENCH_H
#define ZE_ECS_GAME_BENCH_H

#include "bench.h"

/* Every game_* row, then the worst game_* ratio moved to the table's top. */
void ze_bench_ecs_game(ze_bench_t *b, uint32_t rounds);

#endif
