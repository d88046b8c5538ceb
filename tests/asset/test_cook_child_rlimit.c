/* Resource limits on child cookers (src/asset/child.h): RLIMIT_AS turns a
 * runaway allocation into a failed child whose reason names the memory limit,
 * RLIMIT_CPU ends a spinning one with the CPU limit named, and the real
 * `zengine cook` on a PNG whose pixels decode to 256 MiB fails under a
 * 128 MiB limit instead of taking the memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asset/child.h"
#define ATU_CHILD_GIVE_UP_S 60
#include "asset_test_util.h"
#include "zengine/base.h"
#include "zengine/mem.h"

#define FAKE ZE_FAKE_COOKER_PATH

/* The big PNG cooks uncompressed: the test is about the memory limit,
   and block-compressing 8192x8192 texels in a debug build under CI's load
   takes longer than its deadline. */
static const char *const UNCOMPRESSED = "{\"compression\": \"none\"}";
static void test_memory_hog_hits_the_limit(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c =
        atu_run_child((const char *const[]){FAKE, "hog", NULL}, 256ull << 20, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_SIGNALED);
    assert_int_equal(r.signal, SIGABRT);
    assert_non_null(strstr(r.reason, "killed by SIGABRT: "));
    assert_non_null(strstr(r.reason, "bad_alloc"));
    if (!strstr(r.reason, "(memory limit 256 MiB)"))
        fail_msg("reason: %s", r.reason);
    ze__child_destroy(c);
}

static void test_cpu_spin_hits_the_limit(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "cpu", NULL}, 0, 1, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_SIGNALED);
    assert_true(r.signal == SIGXCPU || r.signal == SIGKILL);
    if (!strstr(r.reason, "(CPU limit 1 s)"))
        fail_msg("reason: %s", r.reason);
    ze__child_destroy(c);
}

/* --------------------------------------------- a PNG that decodes big */

typedef struct bits_t {
    uint8_t *p;
    size_t len, cap;
    uint32_t acc, n;
} bits_t;

static void put_bits(bits_t *b, uint32_t v, uint32_t n) /* LSB first */
{
    b->acc |= v << b->n;
    b->n += n;
    while (b->n >= 8) {
        assert_true(b->len < b->cap);
        b->p[b->len++] = (uint8_t)b->acc;
        b->acc >>= 8;
        b->n -= 8;
    }
}

static void put_code(bits_t *b, uint32_t code, uint32_t n) /* Huffman codes: MSB first */
{
    for (uint32_t i = n; i-- > 0;)
        put_bits(b, (code >> i) & 1, 1);
}

static uint32_t crc_table[256];

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void write_chunk(FILE *fp, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t head[8];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_update(crc32_update(0, head + 4, 4), data, len);
    uint8_t tail[4];
    put_be32(tail, crc);
    assert_int_equal(fwrite(head, 1, 8, fp), 8);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fwrite(tail, 1, 4, fp), 4);
}

/* A transparent-black side x side RGBA PNG: one fixed-Huffman deflate block of
 * a literal 0 and then <length 258, distance 1> copies, so a 256 MiB image is
 * a ~1.7 MB file (our own encoder: no third-party code, no zlib). */
static void write_zero_png(const char *path, uint32_t side)
{
    const uint64_t raw = (uint64_t)side * (1 + (uint64_t)side * 4);
    const uint64_t copies = (raw - 1) / 258, tail = (raw - 1) % 258;
    ze_allocator_t a = ze_mem_system_allocator();
    bits_t b = {.cap = (size_t)((copies * 13 + tail * 8 + 64) / 8 + 16)};
    b.p = ze_alloc(a, b.cap, 16);
    assert_non_null(b.p);
    b.p[b.len++] = 0x78; /* zlib: deflate, 32 KiB window, no dictionary */
    b.p[b.len++] = 0x01;
    put_bits(&b, 1, 1);        /* BFINAL */
    put_bits(&b, 1, 2);        /* BTYPE fixed Huffman */
    put_code(&b, 0x30 + 0, 8); /* literal 0 */
    for (uint64_t i = 0; i < copies; i++) {
        put_code(&b, 0xc0 + 5, 8); /* length symbol 285 = 258 */
        put_code(&b, 0, 5);        /* distance symbol 0 = 1 */
    }
    for (uint64_t i = 0; i < tail; i++)
        put_code(&b, 0x30, 8);
    put_code(&b, 0, 7); /* end of block (256) */
    if (b.n)
        put_bits(&b, 0, 8 - b.n);
    /* Adler-32 of all zeros: s1 = 1, s2 = raw mod 65521. */
    uint32_t adler = (uint32_t)(raw % 65521) << 16 | 1u;
    assert_true(b.len + 4 <= b.cap);
    put_be32(b.p + b.len, adler);
    b.len += 4;

    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_int_equal(fwrite(sig, 1, 8, fp), 8);
    uint8_t ihdr[13];
    put_be32(ihdr, side);
    put_be32(ihdr + 4, side);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 6;  /* RGBA */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* no interlace */
    write_chunk(fp, "IHDR", ihdr, sizeof ihdr);
    write_chunk(fp, "IDAT", b.p, (uint32_t)b.len);
    write_chunk(fp, "IEND", NULL, 0);
    assert_int_equal(fclose(fp), 0);
    ze_free(a, b.p, b.cap);
}

static void test_real_cook_big_png(void **state)
{
    (void)state;
    if (!atu_cooker_present())
        return;
    char png[128], small[128], out[128];
    snprintf(png, sizeof png, "%s/big.png", g_tmp);
    snprintf(small, sizeof small, "%s/small.png", g_tmp);
    snprintf(out, sizeof out, "%s/out", g_tmp);
    write_zero_png(png, 8192);
    write_zero_png(small, 64);

    /* The encoder and the cooker agree on a small one, under the same limit:
       the cooker starts and works in 128 MiB. */
    ze__child_result_t r;
    ze__child_t *c = atu_run_child(
        (const char *const[]){ZE_COOKER_PATH, "cook", small, "--out", out, "--json", NULL},
        128ull << 20, 0, 20000, &r);
    if (r.outcome != ZE__CHILD_EXITED || r.exit_code != 0)
        fail_msg("small PNG: %s", r.reason);
    ze__child_destroy(c);

    c = atu_run_child((const char *const[]){ZE_COOKER_PATH, "cook", png, "--out", out, "--json",
                                            "--settings", UNCOMPRESSED, NULL},
                      128ull << 20, 0, 20000, &r);
    assert_true(r.outcome == ZE__CHILD_SIGNALED ||
                (r.outcome == ZE__CHILD_EXITED && r.exit_code != 0));
    /* the reason says it was memory, and which limit */
    if (!strstr(r.reason, "out of memory") || !strstr(r.reason, "(memory limit 128 MiB)"))
        fail_msg("reason: %s", r.reason);
    ze__child_destroy(c);

    /* Without the limit the same file cooks (about 3 s, 600 MB): the failure
       above was the limit's doing, not the file's. */
    c = atu_run_child((const char *const[]){ZE_COOKER_PATH, "cook", png, "--out", out, "--json",
                                            "--settings", UNCOMPRESSED, NULL},
                      0, 0, 30000, &r);
    if (r.outcome != ZE__CHILD_EXITED || r.exit_code != 0)
        fail_msg("8192x8192 PNG without a limit: %s", r.reason);
    assert_non_null(strstr(r.out, "\"artifacts\""));
    ze__child_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_hog_hits_the_limit),
        cmocka_unit_test(test_cpu_spin_hits_the_limit),
        cmocka_unit_test(test_real_cook_big_png),
    };
    return cmocka_run_group_tests(tests, atu_tmp_setup, atu_tmp_teardown);
}
