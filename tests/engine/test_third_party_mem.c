/* Third-party allocations inside the budgets: with jansson routed to the
 * ThirdParty owner (what ze_app_main does for its run), parsing a 1 MB
 * JSON text raises the owner's committed bytes by at least the text's size;
 * the freed tree's blocks go back to the owner's heap (a second parse
 * commits almost nothing more: the heap keeps committed pages, so the
 * owner's figure does not fall); after unrouting jansson allocates from
 * the C library again (the owner no longer moves). The C library heap figure
 * the report shows (ze_mem_unrouted_heap_bytes) follows a large
 * ze_mem_sys_alloc block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"

enum { TEXT_BYTES = 1 << 20 };

static char *make_json(size_t *len)
{
    char *t = ze_mem_sys_alloc(TEXT_BYTES + 64);
    size_t n = 0;
    t[n++] = '[';
    for (int i = 0; n < TEXT_BYTES - 64; i++)
        n +=
            (size_t)snprintf(t + n, 64, "%s{\"id\":%d,\"name\":\"entity-%d\"}", i ? "," : "", i, i);
    t[n++] = ']';
    t[n] = '\0';
    *len = n;
    return t;
}

static uint64_t third_party_bytes(ze_mem_t *mm)
{
    return ze_mem_owner_stats(mm, ZE_MEM_OWNER_THIRD_PARTY).current;
}

static void test_json_parse_counts_in_its_owner(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    size_t len = 0;
    char *text = make_json(&len);
    assert_true(len >= TEXT_BYTES - 128);

    ze__third_party_route(mm);
    uint64_t before = third_party_bytes(mm);
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    assert_non_null(root);
    uint64_t during = third_party_bytes(mm);
    print_message("ThirdParty owner: %llu bytes before, %llu with the parsed %zu-byte text\n",
                  (unsigned long long)before, (unsigned long long)during, len);
    assert_true(during >= before + len);
    assert_true(json_array_size(root) > 10000);
    json_decref(root);
    json_t *second = json_loadb(text, len, 0, &je); /* from the freed blocks */
    assert_non_null(second);
    uint64_t reparsed = third_party_bytes(mm);
    print_message("ThirdParty owner after freeing and parsing again: %llu bytes\n",
                  (unsigned long long)reparsed);
    assert_true(reparsed <= during + during / 8);
    json_decref(second);
    ze__third_party_unroute();

    uint64_t unrouted = third_party_bytes(mm);
    json_t *again = json_loadb(text, len, 0, &je); /* the C library's again */
    assert_non_null(again);
    assert_int_equal(third_party_bytes(mm), unrouted);
    json_decref(again);

    ze_mem_sys_free(text);
    ze_mem_destroy(mm);
}

static void test_unrouted_heap_bytes(void **state)
{
    (void)state;
    uint64_t before = ze_mem_unrouted_heap_bytes();
    void *block = ze_mem_sys_alloc(8 << 20);
    assert_non_null(block);
    memset(block, 1, 8 << 20);
    uint64_t with = ze_mem_unrouted_heap_bytes();
    ze_mem_sys_free(block);
    print_message("C library heap: %llu bytes, %llu with an 8 MiB block\n",
                  (unsigned long long)before, (unsigned long long)with);
    assert_true(with >= before + (8u << 20));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_parse_counts_in_its_owner),
        cmocka_unit_test(test_unrouted_heap_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
