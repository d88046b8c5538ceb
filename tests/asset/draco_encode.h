/* The Draco encoder of test_gltf_draco (draco_encode.cpp: libdraco, test
 * only): a triangle mesh of float attributes into one Draco stream. */
#ifndef ZE_TESTS_DRACO_ENCODE_H
#define ZE_TESTS_DRACO_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum atu_draco_kind {
    ATU_DRACO_POSITION,
    ATU_DRACO_NORMAL,
    ATU_DRACO_TEXCOORD,
    ATU_DRACO_COLOR,
    ATU_DRACO_GENERIC,
} atu_draco_kind;

enum { ATU_DRACO_QUANTIZE = 1, ATU_DRACO_EDGEBREAKER = 2 };

typedef struct atu_draco_attr_t {
    atu_draco_kind kind;
    uint32_t ncomp;
    const float *values; /* points * ncomp */
    uint32_t id;         /* out: the stream's unique id of the attribute */
} atu_draco_attr_t;

/* Points in order (the sequential method keeps them), faces from `indices`
 * (3 a face); flags ATU_DRACO_QUANTIZE: position 14, normal 10, texcoord
 * 12 bits, else every value exact; ATU_DRACO_EDGEBREAKER: libdraco's
 * default method, which may reorder and split points, else the sequential
 * one, which keeps them. The stream goes to out (cap bytes; the raw data plus
 * 4 KiB always suffice); returns its size, 0 on an encoder error or when
 * it does not fit. */
size_t atu_draco_encode(uint32_t points, atu_draco_attr_t *attrs, uint32_t nattrs,
                        const uint32_t *indices, uint32_t nindices, int flags, uint8_t *out,
                        size_t cap);
/* The room atu_draco_encode may need. */
size_t atu_draco_bound(uint32_t points, const atu_draco_attr_t *attrs, uint32_t nattrs,
                       uint32_t nindices);

#ifdef __cplusplus
}
#endif

#endif
