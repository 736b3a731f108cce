/* repair.c: makes an answer that overflows the usage limit fit, cheaply.
 *
 * While some segment overflows, take the fullest one and, among the nodes
 * live there, make the strategy change that frees usage at the least cost
 * increase per unit freed (a gain counts as free). Relaxed answers that miss
 * the limit by a little become feasible candidates instead of being thrown
 * away, and the least-usage start loses its forbidden costs: the relaxation
 * at capped weights removes them, repair brings usage back under the limit.
 *
 * A node's best move depends only on its own strategy and its neighbours',
 * so it is kept between changes and worked out again only for the node
 * that moved and its neighbours. Worked out afresh for every live node at
 * every change, repair took 48% of a round's CPU on a 57k-node model of 20
 * strategies a node, where thousands of changes are needed (BENCHMARKS.md). */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

typedef struct {
    uint32_t node, strategy;
    double price; /* cost increase per unit of usage freed */
} repair_move;

struct iopddl_repair {
    const iopddl_model *m;
    pp_int128 *costs;
    repair_move *move; /* per node: its best move, when known[node] */
    uint8_t *known;
    int64_t *saving; /* scratch: usage each live node could free (within_reach) */
};

iopddl_repair *iopddl_repair_new(const iopddl_model *m, pp_arena *arena)
{
    iopddl_repair *rp = pp_arena_calloc(arena, 1, sizeof *rp);
    if (rp) {
        rp->m = m;
        rp->costs = pp_arena_alloc(arena, iopddl_widest_domain(m) * sizeof(pp_int128));
        rp->move = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof *rp->move);
        rp->known = pp_arena_alloc(arena, (size_t)m->node_count + 1);
        rp->saving = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof *rp->saving);
    }
    return rp && rp->costs && rp->move && rp->known && rp->saving ? rp : NULL;
}

/* Segment holding the profile's peak. */
static uint32_t fullest_segment(const iopddl_profile *pr)
{
    uint32_t k = 1;
    while (k < pr->size) {
        pp_int128 left = pr->max[2 * k], right = pr->max[2 * k + 1];
        k = left >= right ? 2 * k : 2 * k + 1;
    }
    return k - pr->size;
}

/* v's cheapest change per unit of usage freed (first strategy on ties);
 * node UINT32_MAX when it frees none. */
static repair_move best_move(iopddl_repair *rp, const uint32_t *x, uint32_t v)
{
    const iopddl_model *m = rp->m;
    const int64_t *usage = m->usage + m->dom_start[v];
    uint32_t cur = x[v];
    repair_move best = {UINT32_MAX, 0, 1e300};
    if (usage[cur] == m->usage_min[v])
        return best;
    iopddl_node_costs(m, x, v, rp->costs);
    for (uint32_t s = 0; s < iopddl_domain(m, v); s++) {
        if (usage[s] >= usage[cur])
            continue;
        double price = (double)(rp->costs[s] - rp->costs[cur]) / (double)(usage[cur] - usage[s]);
        if (price < best.price)
            best = (repair_move){v, s, price};
    }
    return best;
}

static void consider_node(iopddl_repair *rp, const uint32_t *x, uint32_t v, repair_move *best)
{
    if (!rp->known[v]) {
        rp->move[v] = best_move(rp, x, v);
        rp->known[v] = 1;
    }
    if (rp->move[v].price < best->price)
        *best = rp->move[v];
}

/* v changed strategy: its best move and its neighbours' are out of date. */
static void forget_around(iopddl_repair *rp, uint32_t v)
{
    const iopddl_model *m = rp->m;
    rp->known[v] = 0;
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t q = m->adj_pair[k];
        rp->known[m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q]] = 0;
    }
}

static int by_saving_down(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Whether max_changes changes could free the overflow at the fullest
 * segment t: each change frees at most what is left of its node's usage
 * above the node's least, so the most they free is the largest
 * max_changes of those. When not even that covers the overflow, repair
 * would give up after max_changes changes anyway, so the answers are the
 * same. Why check: on wide instances the relaxed answers fall 5-7 limits
 * over, thousands of changes short, and such a round spent its repair on
 * an answer it then threw away (L2w32: 1.9-2.1 CPU s a far round instead
 * of 2.2, one trace under load; BENCHMARKS.md). */
static bool within_reach(iopddl_repair *rp, const uint32_t *x, const iopddl_profile *pr, int64_t max_changes)
{
    const iopddl_model *m = rp->m;
    uint32_t t = fullest_segment(pr), count = 0;
    pp_int128 over = iopddl_profile_peak(pr) - m->limit, total = 0;
    for (uint32_t v = 0; v < m->node_count; v++)
        if (m->seg_lo[v] <= t && t < m->seg_hi[v] && m->usage[m->dom_start[v] + x[v]] > m->usage_min[v]) {
            rp->saving[count] = m->usage[m->dom_start[v] + x[v]] - m->usage_min[v];
            total += rp->saving[count++];
        }
    if ((int64_t)count <= max_changes || total < over)
        return total >= over;
    qsort(rp->saving, count, sizeof *rp->saving, by_saving_down);
    total = 0;
    for (int64_t k = 0; k < max_changes && total < over; k++)
        total += rp->saving[k];
    return total >= over;
}

bool iopddl_repair_run(iopddl_repair *rp, uint32_t *x, iopddl_profile *pr, int64_t max_changes,
                    const pp_deadline *deadline)
{
    const iopddl_model *m = rp->m;
    if (!m->has_limit)
        return true;
    if (iopddl_profile_peak(pr) > m->limit && !within_reach(rp, x, pr, max_changes))
        return false;
    memset(rp->known, 0, m->node_count);
    for (int64_t changes = 0; iopddl_profile_peak(pr) > m->limit; changes++) {
        if (changes >= max_changes || pp_deadline_passed(deadline))
            return false;
        uint32_t t = fullest_segment(pr);
        repair_move best = {UINT32_MAX, 0, 1e300};
        for (uint32_t v = 0; v < m->node_count; v++)
            if (m->seg_lo[v] <= t && t < m->seg_hi[v])
                consider_node(rp, x, v, &best);
        if (best.node == UINT32_MAX)
            return false; /* every live node is at its least usage: cannot fit */
        uint32_t v = best.node;
        int64_t delta = m->usage[m->dom_start[v] + best.strategy] - m->usage[m->dom_start[v] + x[v]];
        iopddl_profile_add(pr, m->seg_lo[v], m->seg_hi[v], delta);
        x[v] = best.strategy;
        forget_around(rp, v);
    }
    return true;
}
