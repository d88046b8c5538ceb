/* The path normalizer on arbitrary bytes, against a plain left-to-right
 * reference (a stack of components): both must agree on success and on the
 * result, every result must satisfy the ze_path_t invariants and normalize
 * to itself, and join/parent/name/extension must agree with each other. The
 * first byte also picks a split point to check ze_path_join against
 * normalizing the concatenation. */
#include <string.h>

#include "zengine/vfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ze_log_set_level(ZE_LOG_OFF);
    return 0;
}

enum { REF_MAX_INPUT = 1 << 16 };

/* Reference: split on '/' and '\\', push names, pop on "..", fail on a pop
 * at the root; limits checked on the result only. */
static bool reference(const char *s, size_t len, char *out, size_t *out_len)
{
    static uint32_t start[REF_MAX_INPUT], clen[REF_MAX_INPUT];
    uint32_t depth = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == '/' || s[i] == '\\'))
            i++;
        size_t b = i;
        while (i < len && s[i] != '/' && s[i] != '\\')
            i++;
        size_t n = i - b;
        if (n == 0 || (n == 1 && s[b] == '.'))
            continue;
        if (n == 2 && s[b] == '.' && s[b + 1] == '.') {
            if (depth == 0)
                return false;
            depth--;
            continue;
        }
        start[depth] = (uint32_t)b;
        clen[depth] = (uint32_t)n;
        depth++;
    }
    size_t w = 0;
    for (uint32_t d = 0; d < depth; d++) {
        if (clen[d] > ZE_PATH_NAME_MAX || w + 1 + clen[d] > ZE_PATH_MAX_LEN)
            return false;
        out[w++] = '/';
        memcpy(out + w, s + start[d], clen[d]);
        w += clen[d];
    }
    if (w == 0)
        out[w++] = '/';
    out[w] = '\0';
    *out_len = w;
    return true;
}

static void check_invariants(const ze_path_t *p)
{
    ZE_VERIFY(p->len >= 1 && p->len <= ZE_PATH_MAX_LEN);
    ZE_VERIFY(strlen(p->str) == p->len);
    ZE_VERIFY(p->str[0] == '/');
    ZE_VERIFY(!strchr(p->str, '\\'));
    ZE_VERIFY(p->len == 1 || p->str[p->len - 1] != '/');
    ZE_VERIFY(!strstr(p->str, "//"));
    /* No "." or ".." component, no name over the limit. */
    const char *c = p->str + 1;
    while (*c) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        ZE_VERIFY(n >= 1 && n <= ZE_PATH_NAME_MAX);
        ZE_VERIFY(!(n == 1 && c[0] == '.'));
        ZE_VERIFY(!(n == 2 && c[0] == '.' && c[1] == '.'));
        c += n + (e ? 1 : 0);
    }
    ze_path_t again;
    ZE_VERIFY(ze_path_from(p->str, p->len, &again) == ZE_OK);
    ZE_VERIFY(ze_path_eq(p, &again) && ze_path_hash(p) == ze_path_hash(&again));
    /* parent + name gives p back; the name splits into stem + extension. */
    ze_path_t parent = ze_path_parent(p);
    ze_path_part_t name = ze_path_name(p);
    ze_path_part_t ext = ze_path_extension(p), stem = ze_path_stem(p);
    ZE_VERIFY(stem.len + ext.len == name.len && stem.ptr == name.ptr);
    ZE_VERIFY(ext.len == 0 || ext.ptr[0] == '.');
    if (ze_path_is_root(p)) {
        ZE_VERIFY(name.len == 0 && ze_path_is_root(&parent));
    } else {
        ZE_VERIFY(ze_path_is_within(p, &parent) && !ze_path_eq(p, &parent));
        char n[ZE_PATH_NAME_MAX + 1];
        memcpy(n, name.ptr, name.len);
        n[name.len] = '\0';
        ze_path_t joined;
        ZE_VERIFY(ze_path_join(&parent, n, &joined) == ZE_OK);
        ZE_VERIFY(ze_path_eq(&joined, p));
        ZE_VERIFY(ze_path_compare(&parent, p) < 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    ze_path_t p;
    ze_result e = ze_path_from(s, size, &p);
    bool has_nul = size && memchr(s, '\0', size) != NULL;
    if (size == 0 || has_nul) {
        ZE_VERIFY(e == ZE_ERR_INVALID_ARG);
    } else if (size <= REF_MAX_INPUT) {
        static char ref[ZE_PATH_CAPACITY];
        size_t ref_len = 0;
        bool ok = reference(s, size, ref, &ref_len);
        ZE_VERIFY(ok == (e == ZE_OK));
        if (ok)
            ZE_VERIFY(ref_len == p.len && memcmp(ref, p.str, p.len) == 0);
        else
            ZE_VERIFY(e == ZE_ERR_PATH_ESCAPE || e == ZE_ERR_TOO_LONG);
    }
    if (e == ZE_OK)
        check_invariants(&p);
    /* join(base, rel) == normalize(base + "/" + rel). */
    if (size >= 2 && !has_nul && size < 4096) {
        size_t k = 1 + data[0] % (size - 1);
        ze_path_t base;
        if (ze_path_from(s + 1, k, &base) == ZE_OK) {
            static char rel[4096], cat[4096 + ZE_PATH_CAPACITY + 2];
            size_t rlen = size - 1 - k;
            memcpy(rel, s + 1 + k, rlen);
            rel[rlen] = '\0';
            ze_path_t j1, j2;
            ze_result e1 = ze_path_join(&base, rel, &j1);
            memcpy(cat, base.str, base.len);
            cat[base.len] = '/';
            memcpy(cat + base.len + 1, rel, rlen);
            ze_result e2 = ze_path_from(cat, base.len + 1 + rlen, &j2);
            ZE_VERIFY((e1 == ZE_OK) == (e2 == ZE_OK));
            if (e1 == ZE_OK)
                ZE_VERIFY(ze_path_eq(&j1, &j2));
        }
    }
    return 0;
}
