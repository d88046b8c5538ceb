/* Helpers of the asset tests that work on files and child processes: a
 * temporary folder and its removal, the shared corpus's manifest, a child
 * cooker run to its end, the `zengine` that cooks. The folder and the
 * manifest are the program's (g_tmp, g_manifest), with cmocka group setups
 * and teardowns. Header-only static functions, each program using what it
 * needs; include it after cmocka.h. */
#ifndef ZE_TEST_ASSET_TEST_UTIL_H
#define ZE_TEST_ASSET_TEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "asset/child.h"
#include "zengine/base.h"
#include "cook/cook_internal.h"

#define ATU_UNUSED __attribute__((unused))

/* The shared corpus, read in place (never written). */
#define ATU_ASSETS ZE_TESTDATA_DIR "/assets"

/* A fresh folder "/tmp/<prefix>_XXXXXX" into tmp[64]; false when mkdtemp
 * fails. */
ATU_UNUSED static bool atu_make_tmp(char tmp[64], const char *prefix)
{
    snprintf(tmp, 64, "/tmp/%s_XXXXXX", prefix);
    return mkdtemp(tmp) != NULL;
}

/* rm -r, without following links. */
ATU_UNUSED static void atu_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            atu_remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The program's temporary folder: atu_tmp_setup makes it, atu_tmp_teardown
 * removes it with what the tests left there (cmocka group fixtures). */
ATU_UNUSED static char g_tmp[64];

ATU_UNUSED static int atu_tmp_setup(void **state)
{
    (void)state;
    return atu_make_tmp(g_tmp, "ze_asset_test") ? 0 : -1;
}

ATU_UNUSED static int atu_tmp_teardown(void **state)
{
    (void)state;
    atu_remove_tree(g_tmp);
    return 0;
}

/* The corpus's manifest.json, NULL when the corpus is absent: loaded by
 * atu_manifest_setup, freed by atu_manifest_teardown (group fixtures). */
ATU_UNUSED static json_t *g_manifest;

ATU_UNUSED static int atu_manifest_setup(void **state)
{
    (void)state;
    g_manifest = json_load_file(ATU_ASSETS "/manifest.json", 0, NULL);
    return 0;
}

ATU_UNUSED static int atu_manifest_teardown(void **state)
{
    (void)state;
    json_decref(g_manifest);
    g_manifest = NULL;
    return 0;
}

/* True with a manifest; else prints why the test skips and returns false. */
ATU_UNUSED static bool atu_corpus_present(void)
{
    if (g_manifest)
        return true;
    print_message("[  SKIPPED ] %s/manifest.json not found: the shared test corpus is absent\n",
                  ATU_ASSETS);
    return false;
}

ATU_UNUSED static void atu_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A poll does a few reads and a wait4 (well under a millisecond); a poll
 * that blocked on the child would take its whole 1 s timeout. */
#define ATU_POLL_BOUND_NS (500ull * 1000 * 1000)
/* How long a child may run before the test gives up on it (a program may
 * define another before including this). */
#ifndef ATU_CHILD_GIVE_UP_S
#define ATU_CHILD_GIVE_UP_S 20
#endif

/* Spawns, polls every 5 ms until the child is reaped (each poll must return
 * within ATU_POLL_BOUND_NS), fails the test when it still runs after
 * ATU_CHILD_GIVE_UP_S, fills *res (one-line reason). The caller destroys the
 * returned child. */
ATU_UNUSED static ze__child_t *atu_run_child(const char *const *argv, uint64_t memory_limit,
                                             uint32_t cpu_seconds, uint32_t timeout_ms,
                                             ze__child_result_t *res)
{
    const uint32_t give_up_s = ATU_CHILD_GIVE_UP_S;
    ze__child_desc_t d = {.argv = argv,
                          .memory_limit = memory_limit,
                          .cpu_seconds = cpu_seconds,
                          .timeout_ms = timeout_ms};
    ze__child_t *c = NULL;
    ze__asset_error_t err = {{0}};
    if (ze__child_spawn(&d, &c, &err) != ZE_OK)
        fail_msg("spawn %s: %s", argv[0], err.message);
    uint64_t t0 = ze_time_now_ns();
    for (;;) {
        uint64_t a = ze_time_now_ns();
        ze__child_outcome o = ze__child_poll(c, a);
        uint64_t b = ze_time_now_ns();
        if (b - a > ATU_POLL_BOUND_NS)
            fail_msg("ze__child_poll blocked for %llu ms", (unsigned long long)((b - a) / 1000000));
        if (o != ZE__CHILD_RUNNING)
            break;
        if (b - t0 > (uint64_t)give_up_s * 1000000000u) {
            ze__child_destroy(c);
            fail_msg("%s %s still running after %u s", argv[0], argv[1] ? argv[1] : "", give_up_s);
        }
        atu_sleep_ms(5);
    }
    ze__child_result(c, res);
    assert_non_null(res->out);
    assert_non_null(res->err_tail);
    assert_null(strchr(res->reason, '\n'));
    return c;
}

#ifdef ZE_COOKER_PATH
/* The `zengine` that cooks in a child: a missing one fails the test (a
 * sanitizer build runs the dev tree's, which must be built first). */
ATU_UNUSED static bool atu_cooker_present(void)
{
    if (access(ZE_COOKER_PATH, X_OK) == 0)
        return true;
#ifdef ZE_COOKER_FROM_DEV_TREE
    fail_msg("%s is missing: a sanitizer build runs the dev tree's zengine under RLIMIT_AS; "
             "build the dev preset first (cmake --preset dev && cmake --build --preset dev)",
             ZE_COOKER_PATH);
#else
    fail_msg("%s is missing", ZE_COOKER_PATH);
#endif
    return false;
}
#endif

#endif /* ZE_TEST_ASSET_TEST_UTIL_H */
