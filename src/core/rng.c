/* rng.c: xoshiro256** (Blackman and Vigna), small and fast, one per worker. */
#include "core/core_internal.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void pp_rng_seed(pp_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t pp_rng_next(pp_rng *rng)
{
    uint64_t *s = rng->s;
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

uint32_t pp_rng_below(pp_rng *rng, uint32_t bound)
{
    return (uint32_t)(((pp_rng_next(rng) >> 32) * (uint64_t)bound) >> 32);
}

double pp_rng_unit(pp_rng *rng)
{
    return (double)(pp_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}
