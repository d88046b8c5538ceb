/* ze_path_t: every normalization rule, the limits, join, parent, name,
 * extension, stem, comparison and hashing; the regressions found by
 * fuzz_vfs_path live here too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/vfs.h"

static void expect_norm(const char *in, const char *want)
{
    ze_path_t p;
    ze_result e = ze_path_make(in, &p);
    if (e != ZE_OK)
        fail_msg("'%s': %s, expected '%s'", in, ze_result_str(e), want);
    assert_string_equal(p.str, want);
    assert_int_equal(p.len, strlen(want));
}

static void expect_err(const char *in, ze_result want)
{
    ze_path_t p;
    memset(&p, 0x5a, sizeof p);
    ze_result e = ze_path_make(in, &p);
    if (e != want)
        fail_msg("'%s': got %s, expected %s", in, ze_result_str(e), ze_result_str(want));
    assert_int_equal((unsigned char)p.str[0], 0x5a); /* untouched on error */
}

static void test_dot_removed(void **state)
{
    (void)state;
    expect_norm("/a/./b", "/a/b");
    expect_norm("./a", "/a");
    expect_norm("/.", "/");
    expect_norm(".", "/");
    expect_norm("/a/.", "/a");
    expect_norm("/a/././././b/.", "/a/b");
    /* Only exactly "." and ".." are special. */
    expect_norm("/.a/a./.../..b", "/.a/a./.../..b");
}

static void test_dotdot_resolved(void **state)
{
    (void)state;
    expect_norm("/a/b/../c", "/a/c");
    expect_norm("/a/b/..", "/a");
    expect_norm("/a/..", "/");
    expect_norm("a/b/c/../../d", "/a/d");
    expect_norm("/a/b/../../c/./d/..", "/c");
    expect_norm("/a/../b/../c", "/c");
}

static void test_dotdot_above_root_is_an_error(void **state)
{
    (void)state;
    expect_err("..", ZE_ERR_PATH_ESCAPE);
    expect_err("/..", ZE_ERR_PATH_ESCAPE);
    expect_err("/../a", ZE_ERR_PATH_ESCAPE);
    expect_err("/a/../..", ZE_ERR_PATH_ESCAPE);
    expect_err("/a/../../b", ZE_ERR_PATH_ESCAPE);
    expect_err("a/b/../../../etc/passwd", ZE_ERR_PATH_ESCAPE);
    expect_err("\\..\\..\\windows", ZE_ERR_PATH_ESCAPE);
    /* Climbing out and back in is still out: the walk is left to right. */
    expect_err("/../a/..", ZE_ERR_PATH_ESCAPE);
}

static void test_slashes_folded(void **state)
{
    (void)state;
    expect_norm("//a///b////c", "/a/b/c");
    expect_norm("\\a\\b", "/a/b");
    expect_norm("a\\\\b//\\c", "/a/b/c");
    expect_norm("/a/b/", "/a/b");
    expect_norm("/a/b///", "/a/b");
    expect_norm("a/b\\", "/a/b");
    expect_norm("/", "/");
    expect_norm("////", "/");
    expect_norm("\\", "/");
    expect_norm("textures/sky.hdr", "/textures/sky.hdr");
}

static void test_nul_and_empty_rejected(void **state)
{
    (void)state;
    ze_path_t p;
    assert_int_equal(ze_path_from("/a\0b", 4, &p), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_from("\0", 1, &p), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_from("/ab", 3, &p), ZE_OK);
    assert_string_equal(p.str, "/ab");
    assert_int_equal(ze_path_from("/abc", 2, &p), ZE_OK); /* only len bytes */
    assert_string_equal(p.str, "/a");
    expect_err("", ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_from("x", 0, &p), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_make(NULL, &p), ZE_ERR_INVALID_ARG);
}

static void test_length_limits(void **state)
{
    (void)state;
    char buf[4096];
    ze_path_t p;
    /* Exactly ZE_PATH_MAX_LEN characters: "/" + 255 + "/" + 254. */
    memset(buf, 0, sizeof buf);
    buf[0] = '/';
    memset(buf + 1, 'a', 255);
    buf[256] = '/';
    memset(buf + 257, 'b', 254);
    assert_int_equal(strlen(buf), ZE_PATH_MAX_LEN);
    assert_int_equal(ze_path_make(buf, &p), ZE_OK);
    assert_int_equal(p.len, ZE_PATH_MAX_LEN);
    assert_int_equal(p.str[ZE_PATH_MAX_LEN], '\0');
    buf[511] = 'b'; /* one more */
    expect_err(buf, ZE_ERR_TOO_LONG);
    /* A component over ZE_PATH_NAME_MAX. */
    memset(buf, 0, sizeof buf);
    buf[0] = '/';
    memset(buf + 1, 'n', ZE_PATH_NAME_MAX);
    assert_int_equal(ze_path_make(buf, &p), ZE_OK);
    buf[1 + ZE_PATH_NAME_MAX] = 'n';
    expect_err(buf, ZE_ERR_TOO_LONG);
    /* The input may be long; only the result counts. */
    memset(buf, 0, sizeof buf);
    size_t n = 0;
    for (int i = 0; i < 300; i++) {
        memcpy(buf + n, "/abcdefgh/..", 12);
        n += 12;
    }
    memcpy(buf + n, "/end", 5);
    assert_true(strlen(buf) > ZE_PATH_CAPACITY);
    expect_norm(buf, "/end");
    /* Long names that are cancelled by `..` do not count either. */
    memset(buf, 0, sizeof buf);
    buf[0] = '/';
    memset(buf + 1, 'z', 600);
    memcpy(buf + 601, "/../ok", 7);
    expect_norm(buf, "/ok");
}

static void test_join(void **state)
{
    (void)state;
    ze_path_t base, out;
    assert_int_equal(ze_path_make("/assets/models", &base), ZE_OK);
    assert_int_equal(ze_path_join(&base, "hero.gltf", &out), ZE_OK);
    assert_string_equal(out.str, "/assets/models/hero.gltf");
    assert_int_equal(ze_path_join(&base, "../textures/./a.png", &out), ZE_OK);
    assert_string_equal(out.str, "/assets/textures/a.png");
    assert_int_equal(ze_path_join(&base, "/x", &out), ZE_OK); /* still below base */
    assert_string_equal(out.str, "/assets/models/x");
    assert_int_equal(ze_path_join(&base, "", &out), ZE_OK);
    assert_string_equal(out.str, "/assets/models");
    assert_int_equal(ze_path_join(&base, "../../..", &out), ZE_ERR_PATH_ESCAPE);
    assert_int_equal(ze_path_join(&base, "../..", &out), ZE_OK);
    assert_string_equal(out.str, "/");
    /* out may be base. */
    assert_int_equal(ze_path_join(&base, "a\\b", &base), ZE_OK);
    assert_string_equal(base.str, "/assets/models/a/b");
    ze_path_t root = ze_path_root();
    assert_int_equal(ze_path_join(&root, "x/y", &out), ZE_OK);
    assert_string_equal(out.str, "/x/y");
    ze_path_t none = {0};
    assert_int_equal(ze_path_join(&none, "x", &out), ZE_ERR_INVALID_ARG);
}

static void expect_part(ze_path_part_t part, const char *want)
{
    assert_int_equal(part.len, strlen(want));
    assert_memory_equal(part.ptr, want, part.len);
}

static void test_parts(void **state)
{
    (void)state;
    ze_path_t p;
    assert_int_equal(ze_path_make("/a/b.tar.gz", &p), ZE_OK);
    expect_part(ze_path_name(&p), "b.tar.gz");
    expect_part(ze_path_extension(&p), ".gz");
    expect_part(ze_path_stem(&p), "b.tar");
    ze_path_t parent = ze_path_parent(&p);
    assert_string_equal(parent.str, "/a");
    parent = ze_path_parent(&parent);
    assert_string_equal(parent.str, "/");
    assert_true(ze_path_is_root(&parent));
    parent = ze_path_parent(&parent);
    assert_string_equal(parent.str, "/");

    assert_int_equal(ze_path_make("/dir/.gitignore", &p), ZE_OK);
    expect_part(ze_path_extension(&p), "");
    expect_part(ze_path_stem(&p), ".gitignore");
    assert_int_equal(ze_path_make("/dir/README", &p), ZE_OK);
    expect_part(ze_path_extension(&p), "");
    expect_part(ze_path_stem(&p), "README");
    assert_int_equal(ze_path_make("/dir/file.", &p), ZE_OK);
    expect_part(ze_path_extension(&p), ".");
    expect_part(ze_path_stem(&p), "file");
    assert_int_equal(ze_path_make("/v1.2/x", &p), ZE_OK); /* dots in dirs do not count */
    expect_part(ze_path_extension(&p), "");
    ze_path_t root = ze_path_root();
    expect_part(ze_path_name(&root), "");
    expect_part(ze_path_extension(&root), "");

    ze_path_t meta;
    assert_int_equal(ze_path_make("/t/tex.png", &p), ZE_OK);
    assert_int_equal(ze_path_add_suffix(&p, ".meta", &meta), ZE_OK);
    assert_string_equal(meta.str, "/t/tex.png.meta");
    expect_part(ze_path_extension(&meta), ".meta");
    expect_part(ze_path_stem(&meta), "tex.png");
    assert_int_equal(ze_path_add_suffix(&root, ".meta", &meta), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_add_suffix(&p, "/x", &meta), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_path_add_suffix(&p, "", &meta), ZE_ERR_INVALID_ARG);
}

static void test_within_compare_hash(void **state)
{
    (void)state;
    ze_path_t a, ab, abc, b, root = ze_path_root();
    assert_int_equal(ze_path_make("/a", &a), ZE_OK);
    assert_int_equal(ze_path_make("/ab", &ab), ZE_OK);
    assert_int_equal(ze_path_make("/a/bc", &abc), ZE_OK);
    assert_int_equal(ze_path_make("/b", &b), ZE_OK);
    assert_true(ze_path_is_within(&abc, &a));
    assert_true(ze_path_is_within(&a, &a));
    assert_false(ze_path_is_within(&ab, &a)); /* component-wise */
    assert_false(ze_path_is_within(&a, &abc));
    assert_true(ze_path_is_within(&b, &root));
    assert_true(ze_path_compare(&a, &abc) < 0); /* a directory before its entries */
    assert_true(ze_path_compare(&abc, &ab) < 0);
    assert_true(ze_path_compare(&b, &a) > 0);
    assert_int_equal(ze_path_compare(&a, &a), 0);
    ze_path_t a2;
    assert_int_equal(ze_path_make("\\a\\", &a2), ZE_OK);
    assert_true(ze_path_eq(&a, &a2));
    assert_false(ze_path_eq(&a, &ab));
    assert_true(ze_path_hash(&a) == ze_path_hash(&a2)); /* spellings of one path */
    assert_true(ze_path_hash(&a) != ze_path_hash(&ab));
}

static void test_error_strings(void **state)
{
    (void)state;
    /* Path and file failures are ze_result codes with their own names. */
    for (int e = 0; e < ZE_RESULT_COUNT; e++) {
        assert_non_null(ze_result_str((ze_result)e));
        assert_true(strlen(ze_result_str((ze_result)e)) > 1);
        assert_string_not_equal(ze_result_str((ze_result)e), "unknown result");
        for (int f = 0; f < e; f++)
            assert_string_not_equal(ze_result_str((ze_result)e), ze_result_str((ze_result)f));
    }
    assert_string_equal(ze_result_str(ZE_ERR_PATH_ESCAPE), "path escapes its root");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dot_removed),
        cmocka_unit_test(test_dotdot_resolved),
        cmocka_unit_test(test_dotdot_above_root_is_an_error),
        cmocka_unit_test(test_slashes_folded),
        cmocka_unit_test(test_nul_and_empty_rejected),
        cmocka_unit_test(test_length_limits),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_within_compare_hash),
        cmocka_unit_test(test_error_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
