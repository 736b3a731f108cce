/* profile.c: usage per time segment in a segment tree with range add and
 * range max, so "would this strategy change overflow the limit anywhere in
 * the node's interval" costs O(log T). Adds are kept at the nodes they cover
 * (never pushed down): max[k] = add[k] + max(max[2k], max[2k+1]).
 *
 * Levels are exact 128-bit sums (cost.h): the contest allows usages whose
 * sums need more than 64 bits, and a level saturated on the way up and then
 * lowered again would call an overflowing answer feasible. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

/* Below every level: the max of an empty range. */
#define NO_LEVEL (-((pp_int128)1 << 126))

bool iopddl_profile_init(iopddl_profile *pr, const iopddl_model *m, pp_arena *arena)
{
    uint32_t size = 1;
    while (size < m->segment_count)
        size *= 2;
    pr->size = size;
    pr->max = pp_arena_calloc(arena, 2 * (size_t)size, sizeof(pp_int128));
    pr->add = pp_arena_calloc(arena, 2 * (size_t)size, sizeof(pp_int128));
    return pr->max && pr->add;
}

void iopddl_profile_load(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x)
{
    uint32_t size = pr->size;
    memset(pr->max, 0, 2 * (size_t)size * sizeof(pp_int128));
    memset(pr->add, 0, 2 * (size_t)size * sizeof(pp_int128));
    /* A difference array over segments, then a prefix sum into the leaves. */
    pp_int128 *leaf = pr->add + size;
    for (uint32_t v = 0; v < m->node_count; v++) {
        if (m->seg_lo[v] == m->seg_hi[v])
            continue;
        int64_t u = m->usage[m->dom_start[v] + x[v]];
        leaf[m->seg_lo[v]] += u;
        if (m->seg_hi[v] < size)
            leaf[m->seg_hi[v]] -= u;
    }
    pp_int128 level = 0;
    for (uint32_t k = 0; k < size; k++) {
        level += leaf[k];
        leaf[k] = k < m->segment_count ? level : 0;
        pr->max[size + k] = leaf[k];
    }
    memset(leaf, 0, (size_t)size * sizeof(pp_int128));
    for (uint32_t k = size - 1; k >= 1; k--)
        pr->max[k] = pr->max[2 * k] > pr->max[2 * k + 1] ? pr->max[2 * k] : pr->max[2 * k + 1];
}

static void add_range(iopddl_profile *pr, uint32_t k, uint32_t k_lo, uint32_t k_hi, uint32_t lo,
                      uint32_t hi, pp_int128 delta)
{
    if (hi <= k_lo || k_hi <= lo)
        return;
    if (lo <= k_lo && k_hi <= hi) {
        pr->add[k] += delta;
        pr->max[k] += delta;
        return;
    }
    uint32_t mid = k_lo + (k_hi - k_lo) / 2;
    add_range(pr, 2 * k, k_lo, mid, lo, hi, delta);
    add_range(pr, 2 * k + 1, mid, k_hi, lo, hi, delta);
    pp_int128 child = pr->max[2 * k] > pr->max[2 * k + 1] ? pr->max[2 * k] : pr->max[2 * k + 1];
    pr->max[k] = child + pr->add[k];
}

void iopddl_profile_add(iopddl_profile *pr, uint32_t lo, uint32_t hi, int64_t delta)
{
    if (lo < hi && delta != 0)
        add_range(pr, 1, 0, pr->size, lo, hi, delta);
}

static pp_int128 max_range(const iopddl_profile *pr, uint32_t k, uint32_t k_lo, uint32_t k_hi,
                           uint32_t lo, uint32_t hi)
{
    if (hi <= k_lo || k_hi <= lo)
        return NO_LEVEL;
    if (lo <= k_lo && k_hi <= hi)
        return pr->max[k];
    uint32_t mid = k_lo + (k_hi - k_lo) / 2;
    pp_int128 a = max_range(pr, 2 * k, k_lo, mid, lo, hi);
    pp_int128 b = max_range(pr, 2 * k + 1, mid, k_hi, lo, hi);
    pp_int128 most = a > b ? a : b;
    return most == NO_LEVEL ? NO_LEVEL : most + pr->add[k];
}

pp_int128 iopddl_profile_max(const iopddl_profile *pr, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return NO_LEVEL;
    return max_range(pr, 1, 0, pr->size, lo, hi);
}

bool iopddl_profile_fits(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x)
{
    iopddl_profile_load(pr, m, x);
    return !m->has_limit || iopddl_profile_peak(pr) <= m->limit;
}
