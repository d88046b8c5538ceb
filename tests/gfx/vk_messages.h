/* The Vulkan tests' check for validation messages: any message fails the
 * test, and the messages themselves are printed from the log ring first
 * (the tests log quietly, so a failure in CI would otherwise show only a
 * count). Include after cmocka.h. */
#ifndef ZE_TESTS_VK_MESSAGES_H
#define ZE_TESTS_VK_MESSAGES_H

#include <string.h>

#include "zengine/base.h"

static inline void vk_expect_no_messages(uint64_t count)
{
    if (count) {
        enum { MAX = 64 };
        static ze_log_record_t rec[MAX];
        uint64_t cursor = 0, dropped = 0, lost;
        uint32_t n, shown = 0;
        /* the whole ring, MAX records at a time: the messages may be
           anywhere in it */
        while ((n = ze_log_ring_read(&cursor, rec, MAX, &lost)) > 0) {
            dropped += lost;
            for (uint32_t i = 0; i < n; i++)
                if (strcmp(rec[i].channel, "vulkan") == 0 && strstr(rec[i].message, "validation")) {
                    print_message("%s\n", rec[i].message);
                    shown++;
                }
        }
        if (!shown)
            print_message("%llu validation messages, none left in the log ring (%llu records "
                          "overwritten): rerun with ZE_TEST_VERBOSE=1\n",
                          (unsigned long long)count, (unsigned long long)dropped);
    }
    assert_int_equal(count, 0);
}

#endif
