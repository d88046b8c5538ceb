/* ui_format.c: labelf's own integer and string formatting writes what
 * vsnprintf writes, byte for byte, and hands everything else back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

static int g_dummy;

static size_t fast_only(size_t cap, const char *fmt, ...)
{
    char out[8];
    va_list ap;
    va_start(ap, fmt);
    size_t n = ze__ui_format(out, cap, fmt, &ap);
    va_end(ap);
    return n;
}

/* Formats with both and compares; returns whether the fast path took it. */
static bool __attribute__((format(printf, 2, 3))) same(size_t cap, const char *fmt, ...)
{
    char fast[512], ref[512];
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    size_t n = ze__ui_format(fast, cap, fmt, &ap);
    va_end(ap);
    int m = vsnprintf(ref, sizeof ref, fmt, copy);
    va_end(copy);
    if (n == SIZE_MAX)
        return false;
    assert_true(m >= 0 && (size_t)m < cap);
    if (n != (size_t)m || strcmp(fast, ref) != 0)
        fail_msg("'%s': fast '%s' (%zu), vsnprintf '%s' (%d)", fmt, fast, n, ref, m);
    return true;
}

static void test_integers(void **state)
{
    (void)state;
    static const int ints[] = {0, 1, -1, 7, 42, -42, 1234, 99999, -100000, INT_MAX, INT_MIN};
    static const char *const fmts[] = {
        "%d",      "%i",    "%5d",   "%-5d|",  "%05d", "%+d", "% d",  "%.3d", "%.0d", "%8.3d",
        "%-8.3d|", "%+05d", "% 05d", "%0-5d|", "%x",   "%X",  "%08x", "%u",   "%.0u"};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat"
            assert_true(same(512, fmts[f], ints[i]));
#pragma GCC diagnostic pop
        }
    assert_true(same(512, "row %d of %u", 12, 5000u));
    /* ints past the length's range: both truncate them the same way */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
    assert_true(same(512, "%hhd %hhu %hd %hu", 300, 300, 70000, 70000));
#pragma GCC diagnostic pop
    assert_true(same(512, "%ld %lu %lx", LONG_MIN, ULONG_MAX, 0xdeadbeefUL));
    assert_true(same(512, "%lld %llu %llX", LLONG_MIN, ULLONG_MAX, 0xabcdefULL));
    assert_true(same(512, "%zu %zd %zx", SIZE_MAX, (ptrdiff_t)-5, (size_t)255));
    assert_true(same(512, "%jd %ju %td %tu", INTMAX_MIN, UINTMAX_MAX, (ptrdiff_t)-9, (size_t)9));
    assert_true(same(512, "%*d|%-*d|%*d", 6, 12, 6, 12, -6, 12));
    assert_true(same(512, "%.*d|%.*d", 4, 7, -1, 7));
    assert_true(same(512, "100%% done %d%%", 100));
    assert_true(same(512, "no conversions at all"));
    assert_true(same(512, "%s", ""));
}

static void test_strings(void **state)
{
    (void)state;
    assert_true(same(512, "%s", "hello"));
    assert_true(
        same(512, "[%8s] [%-8s] [%.3s] [%8.2s] [%-8.2s]", "abc", "abc", "abcdef", "xyz", "xyz"));
    assert_true(same(512, "%.*s|", 3, "abcdef"));
    assert_true(same(512, "%.*s|", -1, "abcdef"));
    assert_true(same(512, "%c%c%3c%-3c|", 'a', 'b', 'c', 'd'));
    assert_true(same(512, "%s: %d (%s)", "fps", 60, "ok"));
    assert_true(same(512, "caf\xc3\xa9 %s", "\xe2\x82\xac")); /* UTF-8 passes through */
    /* %.Ns does not read past N bytes of an unterminated array */
    char raw[3] = {'x', 'y', 'z'};
    assert_true(same(512, "%.3s", raw));
}

static void test_handed_back(void **state)
{
    (void)state;
    /* what vsnprintf does better: floats, pointers, '#', wide, NULL */
    assert_false(same(512, "%f", 1.5));
    assert_false(same(512, "fps %.0f", 59.94));
    assert_false(same(512, "%g", 0.1));
    assert_false(same(512, "%p", (void *)&g_dummy));
    assert_false(same(512, "%#x", 255));
    assert_false(same(512, "%o", 8));
    assert_false(same(512, "%ls", L"w"));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
    assert_false(same(512, "%05s", "a"));
#pragma GCC diagnostic pop
    const char *volatile null_str = NULL;
    assert_false(same(512, "%s", null_str));
    /* output that does not fit is handed back whole, never cut */
    assert_false(same(4, "%d", 12345));
    assert_false(same(4, "abcd"));
    assert_false(same(4, "%s", "abcd"));
    assert_true(same(4, "%s", "abc"));
    assert_false(same(8, "%10d", 1));
    assert_int_equal(fast_only(0, "x"), SIZE_MAX);
    assert_int_equal(fast_only(1, "x"), SIZE_MAX);
    assert_int_equal(fast_only(2, "x"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_handed_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
