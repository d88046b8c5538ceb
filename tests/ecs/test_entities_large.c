/* 16 million entities in one world (label `large`: dev builds only). The
 * ECS budget is raised for the test: 16 M entities with a Position each
 * take about 400 MiB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "zengine/ecs.h"

typedef struct Position {
    float x, y;
} Position;

static void test_sixteen_million(void **state)
{
    (void)state;
    enum { N = 16u << 20 };
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    cfg.budget[ZE_MEM_OWNER_ECS] = ZE_GIB(2);
    ze_mem_t *mm;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &cfg}, &mm), ZE_OK);
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.mem = mm});
    assert_non_null(k);
    ZE_COMPONENT(k, Position);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = N});
    assert_non_null(w);
    ze_entity_t first = ZE_ENTITY_NULL, last = ZE_ENTITY_NULL;
    for (uint32_t i = 0; i < N; i++) {
        ze_entity_t e = ze_entity_create(w);
        assert_false(ze_entity_is_null(e));
        assert_int_equal(ze_set(w, e, Position, {(float)i, 1}), ZE_OK);
        if (i == 0)
            first = e;
        last = e;
    }
    assert_int_equal(ze_world_entity_count(w), N);
    assert_true(ze_entity_is_null(ze_entity_create(w))); /* capacity reached */
    assert_true(ze_get(w, first, Position)->x == 0.0f);
    assert_true(ze_get(w, last, Position)->x == (float)(N - 1));
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    double sum = 0;
    uint32_t n = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++)
            sum += p[i].y;
        n += it.count;
    }
    assert_int_equal(n, N);
    assert_true(sum == (double)N);
    ze_kernel_destroy(k);
    ze_mem_destroy(mm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sixteen_million)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
