/* The streaming scene reader's structural pass (ze__scene_scan) against
 * the JSON library on arbitrary bytes. The reader accepts a document when
 * the scan succeeds and the library parses every span it found (each
 * top-level key and value, each entity; the whole value when the root is
 * not an object): that must be exactly when the library parses the whole
 * document, and then every span must parse to the same value as the
 * corresponding part of the whole tree. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ecs/ecs_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FLAGS = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY };

static json_t *parse(const char *text, ze__json_span_t sp)
{
    json_error_t e;
    return json_loadb(text + sp.off, sp.len, FLAGS, &e);
}

static void check(bool cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_error_t e;
    json_t *whole = json_loadb(text, size, FLAGS, &e);
    ze__scene_scan_t sc;
    ze_result r = ze__scene_scan(text, size, SIZE_MAX, ze_mem_system_allocator(), &sc);
    check(r == ZE_OK || r == ZE_ERR_PARSE);
    bool ours = r == ZE_OK;
    if (ours && !sc.root_object) {
        json_t *v = parse(text, sc.root);
        ours = v != NULL;
        if (v && whole)
            check(json_equal(v, whole));
        json_decref(v);
    }
    uint32_t keys = ours && sc.root_object ? sc.others.count : 0;
    for (uint32_t i = 0; i < keys && ours; i++) {
        const ze__scene_key_t *k = ze_array_at(&sc.others, i);
        json_t *key = parse(text, (ze__json_span_t){k->key.off - 1, k->key.len + 2});
        ours = json_is_string(key);
        if (ours && k->entities != !strcmp(json_string_value(key), "entities"))
            abort();
        json_t *in_whole = ours && whole ? json_object_get(whole, json_string_value(key)) : NULL;
        if (k->entities && sc.entities_array) {
            check(sc.entity_count == sc.entities.count);
            for (uint32_t j = 0; j < sc.entities.count && ours; j++) {
                json_t *v = parse(text, *(const ze__json_span_t *)ze_array_at(&sc.entities, j));
                ours = v != NULL;
                if (v && whole)
                    check(json_equal(v, json_array_get(in_whole, j)));
                json_decref(v);
            }
            if (ours && whole)
                check(json_array_size(in_whole) == sc.entity_count);
        } else if (ours) {
            json_t *v = parse(text, k->value);
            ours = v != NULL;
            if (v && whole)
                check(json_equal(v, in_whole));
            json_decref(v);
        }
        json_decref(key);
    }
    if (ours && whole && sc.root_object)
        check(json_object_size(whole) == keys);
    /* A NUL byte is malformed anywhere for the reader; the library skips
     * some between tokens ("[1\0,2]" parses). A root that is not an object
     * is not a scene whatever the library says. */
    if (memchr(data, 0, size))
        check(!ours);
    else if (whole ? json_is_object(whole) : sc.root_object)
        check(ours == (whole != NULL));
    ze__scene_scan_free(&sc);
    json_decref(whole);
    return 0;
}
