/* The scene reader's per-entity tree (ze__jdoc_parse) against the JSON
 * library on arbitrary bytes: for input without NUL bytes (the reader
 * refuses them anywhere, the library skips some between tokens), one
 * parses exactly when the other does, and then both trees are equal:
 * types (integer or real), values, strings, keys and their order. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ecs/ecs_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
    if (!cond)
        abort();
}

/* The subtree at n as a jansson value. */
static json_t *to_json(const ze__jdoc_t *d, const ze__jnode_t *n)
{
    switch (n->type) {
    case ZE__J_NULL:
        return json_null();
    case ZE__J_TRUE:
        return json_true();
    case ZE__J_FALSE:
        return json_false();
    case ZE__J_INT:
        return json_integer(n->v.i);
    case ZE__J_REAL:
        return json_real(n->v.d);
    case ZE__J_STRING:
        return json_stringn(ze__jn_str(d, n), n->count);
    case ZE__J_ARRAY: {
        json_t *a = json_array();
        uint32_t count = 0;
        for (const ze__jnode_t *c = ze__jn_first(d, n); c; c = ze__jn_next(d, n, c), count++)
            json_array_append_new(a, to_json(d, c));
        check(count == n->count);
        return a;
    }
    default: {
        json_t *o = json_object();
        uint32_t count = 0;
        for (const ze__jnode_t *c = ze__jn_first(d, n); c; c = ze__jn_next(d, n, c), count++) {
            check(c->key != UINT32_MAX && strlen(ze__jn_key(d, c)) == c->key_len);
            check(!json_object_get(o, ze__jn_key(d, c))); /* repeats were refused */
            json_object_set_new(o, ze__jn_key(d, c), to_json(d, c));
        }
        check(count == n->count);
        return o;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t e;
    json_t *want =
        json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    ze__jdoc_t d = {.alloc = ze_mem_system_allocator()};
    ze_result r = ze__jdoc_parse(&d, (const char *)data, size, 0);
    check(r == ZE_OK || r == ZE_ERR_PARSE);
    if (memchr(data, 0, size)) {
        check(r != ZE_OK);
    } else {
        check((r == ZE_OK) == (want != NULL));
        if (r == ZE_OK) {
            check(d.nodes[0].end == d.count);
            json_t *got = to_json(&d, &d.nodes[0]);
            check(json_equal(got, want));
            /* member order as in the text (jansson keeps insertion order) */
            if (json_is_object(want)) {
                void *it = json_object_iter(want);
                for (const ze__jnode_t *c = ze__jn_first(&d, &d.nodes[0]); c;
                     c = ze__jn_next(&d, &d.nodes[0], c), it = json_object_iter_next(want, it))
                    check(it && !strcmp(json_object_iter_key(it), ze__jn_key(&d, c)));
            }
            json_decref(got);
        }
    }
    ze__jdoc_free(&d);
    json_decref(want);
    return 0;
}
