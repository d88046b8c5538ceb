/* The start-up check's job (see import_check.h). Why streamed hashing: a
 * project of large sources must not need their size in memory at once, and
 * XXH3's streaming digest equals the one-shot ze_hash64 with seed 0 that
 * the cooker records. */
#include <stdio.h>
#include <string.h>
/* the state's size, so it lives on the stack (no allocation inside xxhash) */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "asset/import_check.h"

enum { CHUNK = 256 << 10 };

static ze_result hash_stream(ze_vfs_t *vfs, const char *path, uint8_t *buf, size_t cap,
                             uint64_t *out)
{
    ze_vfs_file_t *f;
    ze_result e = ze_vfs_open(vfs, path, &f);
    if (e != ZE_OK)
        return e;
    XXH3_state_t st;
    XXH3_64bits_reset_withSeed(&st, 0);
    for (;;) {
        size_t got = 0;
        e = ze_vfs_file_read(f, buf, cap, &got);
        if (e != ZE_OK || got == 0)
            break;
        XXH3_64bits_update(&st, buf, got);
    }
    ze_vfs_file_close(f);
    if (e == ZE_OK)
        *out = XXH3_64bits_digest(&st) | 1u;
    return e;
}

ze_result ze__check_hash_file(ze_vfs_t *vfs, const char *path, uint64_t *out)
{
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *buf = ze_alloc(a, CHUNK, 64);
    if (!buf)
        return ZE_ERR_OUT_OF_MEMORY;
    ze_result e = hash_stream(vfs, path, buf, CHUNK, out);
    ze_free(a, buf, CHUNK);
    return e;
}

static void check_one(ze_vfs_t *vfs, ze__check_item_t *it, uint8_t *buf)
{
    const ze_vfs_meta_t *m = &it->meta;
    it->current = false;
    if (it->discover) {
        it->meta_ok = ze_vfs_meta_read(vfs, it->path.str, &it->meta) == ZE_OK;
        if (!it->meta_ok) {
            snprintf(it->why, sizeof it->why, "no usable sidecar");
            return;
        }
        if (!m->source_hash || !m->artifacts.count || m->artifacts.count != m->sub_assets.count) {
            snprintf(it->why, sizeof it->why, "not cooked yet");
            return;
        }
    }
    for (uint32_t i = 0; i < m->artifacts.count; i++) {
        const ze_path_t *p = ze_array_at(&m->artifacts, i);
        if (!ze_vfs_exists(vfs, p->str)) {
            snprintf(it->why, sizeof it->why, "artifact %.200s is missing", p->str);
            return;
        }
    }
    if (!m->dependencies_known) {
        snprintf(it->why, sizeof it->why, "its sidecar predates dependency records");
        return;
    }
    ze_import_settings_t s;
    ze_diag_capture_t quiet = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&quiet);
    if (ze_import_settings_parse(m->settings, m->settings_len, it->importer, &s, it->path.str,
                                 &sink) != ZE_OK) {
        /* the import that follows reports it, naming the key */
        snprintf(it->why, sizeof it->why, "invalid settings");
        return;
    }
    if (ze_import_settings_hash(&s) != m->settings_hash) {
        snprintf(it->why, sizeof it->why, "its importer settings changed");
        return;
    }
    uint64_t h = 0;
    if (hash_stream(vfs, it->path.str, buf, CHUNK, &h) != ZE_OK) {
        snprintf(it->why, sizeof it->why, "the source cannot be read");
        return;
    }
    if (h != m->source_hash) {
        snprintf(it->why, sizeof it->why, "the source changed");
        return;
    }
    for (uint32_t i = 0; i < m->dependencies.count; i++) {
        const ze_vfs_meta_dep_t *d = ze_array_at(&m->dependencies, i);
        if (hash_stream(vfs, d->path.str, buf, CHUNK, &h) != ZE_OK) {
            snprintf(it->why, sizeof it->why, "dependency %.200s is missing", d->path.str);
            return;
        }
        if (d->hash && h != d->hash) {
            snprintf(it->why, sizeof it->why, "dependency %.200s changed", d->path.str);
            return;
        }
    }
    it->current = true;
    it->why[0] = '\0';
}

void ze__check_run(ze__check_batch_t *b)
{
    uint8_t *buf = ze_alloc(b->alloc, CHUNK, 64);
    for (uint32_t i = 0; i < b->count; i++) {
        if (buf) {
            check_one(b->vfs, &b->items[i], buf);
        } else {
            b->items[i].current = false;
            snprintf(b->items[i].why, sizeof b->items[i].why, "out of memory while checking");
        }
    }
    if (buf)
        ze_free(b->alloc, buf, CHUNK);
}
