/* zengine compare IMAGE REFERENCE [--tolerance N] [--max-differing PERCENT]
 *
 * Compares two images pixel by pixel (PNG/JPEG/TGA, decoded by the
 * cooker's image path: the raw stored bytes, no colour conversion). A pixel
 * differs when any of its R, G, B channels differs by more than the
 * tolerance (default 8 of 255); the images match when they have the same
 * size and at most PERCENT of the pixels differ (default 0.5 %). Prints one
 * line with the figures (size, differing pixels, largest channel difference,
 * mean absolute difference). Used by the demo gate
 * (scripts/check_demo.sh) against the committed reference picture.
 * Exit status: 0 match, 1 differ or unreadable, 2 usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"

#include "cli.h"

enum { COMPARE_MAX_FILE = 64 << 20 };

typedef struct image_t {
    uint32_t width, height;
    const uint8_t *rgba; /* width * height * 4 */
    uint8_t *zetex;      /* owns rgba */
    size_t zetex_size;
} image_t;

void ze_cli_compare_usage(FILE *out)
{
    fputs("usage: zengine compare IMAGE REFERENCE [--tolerance N] [--max-differing PERCENT]\n"
          "  --tolerance N            largest R/G/B difference a pixel may have and still\n"
          "                           match (0-255, default 8)\n"
          "  --max-differing PERCENT  share of pixels allowed to differ (default 0.5)\n"
          "Exit status 0 when the images match, 1 when they differ or cannot be read.\n",
          out);
}

static void image_release(image_t *im)
{
    if (im->zetex)
        ze_free(ze_mem_system_allocator(), im->zetex, im->zetex_size);
    memset(im, 0, sizeof *im);
}

/* false with one line on stderr naming the file and the cause. */
static bool image_load(const char *path, image_t *out)
{
    memset(out, 0, sizeof *out);
    ze_allocator_t a = ze_mem_system_allocator();
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "zengine compare: %s: %s\n", path, strerror(errno));
        return false;
    }
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n <= 0 || n > COMPARE_MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "zengine compare: %s: %s\n", path,
                n == 0 ? "empty file" : "unreadable or larger than 64 MiB");
        fclose(f);
        return false;
    }
    uint8_t *file = ze_alloc(a, (size_t)n, 16);
    bool ok = file && fread(file, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok) {
        fprintf(stderr, "zengine compare: %s: cannot read\n", path);
        if (file)
            ze_free(a, file, (size_t)n);
        return false;
    }
    ze_diag_capture_t err = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&err);
    ze_image_desc_t desc = {.alloc = a, .linear = true};
    ze_tex_view_t v;
    ze_result r = ze_asset_zetex_cook(file, (size_t)n, (ze_uuid_t){{1}}, &desc, &out->zetex,
                                      &out->zetex_size, &sink);
    ze_free(a, file, (size_t)n);
    if (r == ZE_OK)
        r = ze_asset_zetex_read(out->zetex, out->zetex_size, &v, &sink);
    if (r != ZE_OK) {
        fprintf(stderr, "zengine compare: %s: %s\n", path, err.last_message);
        image_release(out);
        return false;
    }
    out->width = v.width;
    out->height = v.height;
    out->rgba = v.mips[0].data;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

typedef struct diff_t {
    uint64_t differing;
    int max_channel;
    double mean_abs; /* over every channel of every pixel */
} diff_t;

static diff_t diff_images(const image_t *a, const image_t *b, int tolerance)
{
    diff_t d = {0};
    uint64_t sum = 0, count = (uint64_t)a->width * a->height;
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *pa = a->rgba + i * 4, *pb = b->rgba + i * 4;
        int worst = 0;
        for (int c = 0; c < 3; c++) {
            int delta = abs((int)pa[c] - (int)pb[c]);
            sum += (uint64_t)delta;
            worst = delta > worst ? delta : worst;
        }
        d.max_channel = worst > d.max_channel ? worst : d.max_channel;
        bool differs = worst > tolerance;
        d.differing += differs;
    }
    d.mean_abs = count ? (double)sum / (double)(count * 3) : 0.0;
    return d;
}

int ze_cli_compare(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    double tolerance = 8, max_percent = 0.5;
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            ze_cli_compare_usage(stdout);
            return ZE_CLI_OK;
        } else if (strcmp(a, "--tolerance") == 0 && v) {
            if (!parse_double(v, 0, 255, &tolerance)) {
                fprintf(stderr, "zengine compare: --tolerance wants 0-255, not '%s'\n", v);
                return ZE_CLI_USAGE;
            }
            i++;
        } else if (strcmp(a, "--max-differing") == 0 && v) {
            if (!parse_double(v, 0, 100, &max_percent)) {
                fprintf(stderr, "zengine compare: --max-differing wants 0-100, not '%s'\n", v);
                return ZE_CLI_USAGE;
            }
            i++;
        } else if (a[0] == '-' || npaths == 2) {
            fprintf(stderr, "zengine compare: unexpected argument '%s'\n", a);
            ze_cli_compare_usage(stderr);
            return ZE_CLI_USAGE;
        } else {
            paths[npaths++] = a;
        }
    }
    if (npaths != 2) {
        ze_cli_compare_usage(stderr);
        return ZE_CLI_USAGE;
    }
    image_t img, ref;
    if (!image_load(paths[0], &img))
        return ZE_CLI_FAILED;
    if (!image_load(paths[1], &ref)) {
        image_release(&img);
        return ZE_CLI_FAILED;
    }
    int status = ZE_CLI_FAILED;
    if (img.width != ref.width || img.height != ref.height) {
        fprintf(stderr, "zengine compare: %s is %ux%u, %s is %ux%u\n", paths[0], img.width,
                img.height, paths[1], ref.width, ref.height);
        goto done;
    }
    diff_t d = diff_images(&img, &ref, (int)tolerance);
    double percent = 100.0 * (double)d.differing / ((double)img.width * img.height);
    bool match = percent <= max_percent;
    printf("compare: %ux%u, %llu pixels (%.3f %%) differ by more than %d, largest difference "
           "%d, mean %.3f: %s (limit %.3f %%)\n",
           img.width, img.height, (unsigned long long)d.differing, percent, (int)tolerance,
           d.max_channel, d.mean_abs, match ? "match" : "DIFFERENT", max_percent);
    status = match ? ZE_CLI_OK : ZE_CLI_FAILED;
done:
    image_release(&img);
    image_release(&ref);
    return status;
}
