/* The screenshot PNG writer (src/gfx/png_write.c), without a GPU: images
 * with noise, gradients, flat areas and alpha are written and decoded back
 * by the cooker's image path (stb_image behind our checks, through
 * png_pixels.h): every byte equal. Odd and one-pixel sizes, the widest
 * rows the decoder takes, an image whose compressed data spans several
 * IDAT chunks, determinism (same pixels, same bytes), and
 * errors: a folder that does not exist is ZE_ERR_IO and leaves no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "gfx/png_write.h"
#include "png_pixels.h"

static uint8_t *make_image(uint32_t w, uint32_t h, uint32_t seed)
{
    uint8_t *px = ze_mem_sys_alloc((size_t)w * h * 4);
    uint32_t s = seed * 2654435761u + 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = px + ((size_t)y * w + x) * 4;
            s = s * 1103515245u + 12345u;
            bool noisy = (x / 16 + y / 16) % 3 == 0;
            p[0] = noisy ? (uint8_t)(s >> 16) : (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            p[1] = noisy ? (uint8_t)(s >> 8) : (uint8_t)(y * 255 / (h > 1 ? h - 1 : 1));
            p[2] = (uint8_t)((x ^ y) & 0xff);
            p[3] = (x + y) % 7 == 0 ? 128 : 255;
        }
    return px;
}

static size_t file_bytes(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void round_trip(uint32_t w, uint32_t h)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ze_png_%ux%u_%d.png", w, h, (int)getpid());
    uint8_t *px = make_image(w, h, w * 31 + h);
    assert_int_equal(ze__png_write(path, w, h, px, ze_mem_system_allocator()), ZE_OK);
    png_pixels_t back;
    assert_true(png_pixels_load(path, &back));
    assert_int_equal(back.width, w);
    assert_int_equal(back.height, h);
    assert_memory_equal(back.rgba, px, (size_t)w * h * 4);
    png_pixels_release(&back);
    ze_mem_sys_free(px);
    remove(path);
}

static void test_round_trips(void **state)
{
    (void)state;
    round_trip(1, 1);
    round_trip(3, 5);
    round_trip(256, 256);
    round_trip(1280, 720); /* over 1 MB compressed: several IDAT chunks */
    round_trip(16384, 2);  /* the decoder's widest rows */
}

static void test_deterministic(void **state)
{
    (void)state;
    uint8_t *px = make_image(200, 100, 7);
    const char *a = "/tmp/ze_png_det_a.png", *b = "/tmp/ze_png_det_b.png";
    assert_int_equal(ze__png_write(a, 200, 100, px, ze_mem_system_allocator()), ZE_OK);
    assert_int_equal(ze__png_write(b, 200, 100, px, ze_mem_system_allocator()), ZE_OK);
    static uint8_t fa[1 << 20], fb[1 << 20];
    size_t na = file_bytes(a, fa, sizeof fa), nb = file_bytes(b, fb, sizeof fb);
    assert_true(na > 0 && na == nb);
    assert_memory_equal(fa, fb, na);
    remove(a);
    remove(b);
    ze_mem_sys_free(px);
}

static void test_errors(void **state)
{
    (void)state;
    uint8_t px[4] = {1, 2, 3, 4};
    const char *bad = "/tmp/ze-no-such-folder-for-png/x.png";
    assert_int_equal(ze__png_write(bad, 1, 1, px, ze_mem_system_allocator()), ZE_ERR_IO);
    struct stat st;
    assert_int_not_equal(stat(bad, &st), 0);
    assert_int_equal(ze__png_write("/tmp/x.png", 0, 1, px, ze_mem_system_allocator()),
                     ZE_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
