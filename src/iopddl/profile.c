/* profile.c: usage per time segment in a segment tree with range add and
 * range max, so "would this strategy change overflow the limit anywhere in
 * the node's interval" costs O(log T). Adds are kept at the nodes they cover
 * (never pushed down): max[k] = add[k] + max(max[2k], max[2k+1]).
 *
 * Sums saturate at the int64 range: the contest allows usages whose sums
 * need more bits, and a saturated level still compares as over any limit.
 * The answer's feasibility is decided by the evaluator's 128-bit sums. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

static inline int64_t sum(int64_t a, int64_t b)
{
    int64_t s;
    if (!__builtin_add_overflow(a, b, &s))
        return s;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

bool iopddl_profile_init(iopddl_profile *pr, const iopddl_model *m, pp_arena *arena)
{
    uint32_t size = 1;
    while (size < m->segment_count)
        size *= 2;
    pr->size = size;
    pr->max = pp_arena_calloc(arena, 2 * (size_t)size, sizeof(int64_t));
    pr->add = pp_arena_calloc(arena, 2 * (size_t)size, sizeof(int64_t));
    return pr->max && pr->add;
}

void iopddl_profile_load(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x)
{
    uint32_t size = pr->size;
    memset(pr->max, 0, 2 * (size_t)size * sizeof(int64_t));
    memset(pr->add, 0, 2 * (size_t)size * sizeof(int64_t));
    /* A difference array over segments, then a prefix sum into the leaves. */
    int64_t *leaf = pr->add + size;
    for (uint32_t v = 0; v < m->node_count; v++) {
        if (m->seg_lo[v] == m->seg_hi[v])
            continue;
        int64_t u = m->usage[m->dom_start[v] + x[v]];
        leaf[m->seg_lo[v]] = sum(leaf[m->seg_lo[v]], u);
        if (m->seg_hi[v] < size)
            leaf[m->seg_hi[v]] = sum(leaf[m->seg_hi[v]], u == INT64_MIN ? INT64_MAX : -u);
    }
    int64_t level = 0;
    for (uint32_t k = 0; k < size; k++) {
        level = sum(level, leaf[k]);
        leaf[k] = k < m->segment_count ? level : 0;
        pr->max[size + k] = leaf[k];
    }
    memset(leaf, 0, (size_t)size * sizeof(int64_t));
    for (uint32_t k = size - 1; k >= 1; k--)
        pr->max[k] = pr->max[2 * k] > pr->max[2 * k + 1] ? pr->max[2 * k] : pr->max[2 * k + 1];
}

static void add_range(iopddl_profile *pr, uint32_t k, uint32_t k_lo, uint32_t k_hi, uint32_t lo,
                      uint32_t hi, int64_t delta)
{
    if (hi <= k_lo || k_hi <= lo)
        return;
    if (lo <= k_lo && k_hi <= hi) {
        pr->add[k] = sum(pr->add[k], delta);
        pr->max[k] = sum(pr->max[k], delta);
        return;
    }
    uint32_t mid = k_lo + (k_hi - k_lo) / 2;
    add_range(pr, 2 * k, k_lo, mid, lo, hi, delta);
    add_range(pr, 2 * k + 1, mid, k_hi, lo, hi, delta);
    int64_t child = pr->max[2 * k] > pr->max[2 * k + 1] ? pr->max[2 * k] : pr->max[2 * k + 1];
    pr->max[k] = sum(child, pr->add[k]);
}

void iopddl_profile_add(iopddl_profile *pr, uint32_t lo, uint32_t hi, int64_t delta)
{
    if (lo < hi && delta != 0)
        add_range(pr, 1, 0, pr->size, lo, hi, delta);
}

static int64_t max_range(const iopddl_profile *pr, uint32_t k, uint32_t k_lo, uint32_t k_hi,
                         uint32_t lo, uint32_t hi)
{
    if (hi <= k_lo || k_hi <= lo)
        return INT64_MIN;
    if (lo <= k_lo && k_hi <= hi)
        return pr->max[k];
    uint32_t mid = k_lo + (k_hi - k_lo) / 2;
    int64_t a = max_range(pr, 2 * k, k_lo, mid, lo, hi);
    int64_t b = max_range(pr, 2 * k + 1, mid, k_hi, lo, hi);
    int64_t most = a > b ? a : b;
    return most == INT64_MIN ? INT64_MIN : sum(most, pr->add[k]);
}

int64_t iopddl_profile_max(const iopddl_profile *pr, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return INT64_MIN;
    return max_range(pr, 1, 0, pr->size, lo, hi);
}

bool iopddl_profile_fits(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x)
{
    iopddl_profile_load(pr, m, x);
    return !m->has_limit || iopddl_profile_peak(pr) <= m->limit;
}
