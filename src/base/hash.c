/* xxHash3 behind ze_hash64, and a small deterministic PRNG. */
#include <xxhash.h>

#include "zengine/base.h"

uint64_t ze_hash64(const void *data, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(data, len, seed);
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ze_rng_seed(ze_rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ze_rng_next(ze_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t ze_rng_below(ze_rng_t *r, uint64_t bound)
{
    ZE_ASSERT(bound > 0);
    /* Lemire's multiply-shift with rejection: unbiased. */
    unsigned __int128 m = (unsigned __int128)ze_rng_next(r) * bound;
    uint64_t lo = (uint64_t)m;
    if (lo < bound) {
        uint64_t threshold = -bound % bound;
        while (lo < threshold) {
            m = (unsigned __int128)ze_rng_next(r) * bound;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double ze_rng_unit(ze_rng_t *r)
{
    return (double)(ze_rng_next(r) >> 11) * 0x1.0p-53;
}
