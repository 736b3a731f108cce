/* polish.c: greedy post-processing of feasible answers (paper 000, 4.2):
 * change one node's strategy when that lowers the exact cost and keeps the
 * usage within the limit in every segment of the node's interval, checked
 * against the profile tree in O(log T). Repeats until a pass changes nothing. */
#include "iopddl/solver.h"

struct iopddl_polish {
    const iopddl_model *m;
    pp_int128 *costs; /* one entry per strategy of the node being tried */
};

iopddl_polish *iopddl_polish_new(const iopddl_model *m, pp_arena *arena)
{
    iopddl_polish *pl = pp_arena_calloc(arena, 1, sizeof *pl);
    if (pl) {
        pl->m = m;
        pl->costs = pp_arena_alloc(arena, iopddl_widest_domain(m) * sizeof(pp_int128));
    }
    return pl && pl->costs ? pl : NULL;
}

/* Best feasible strictly improving strategy for v, or x[v] if none. */
static uint32_t best_move(iopddl_polish *pl, const uint32_t *x, const iopddl_profile *pr, uint32_t v)
{
    const iopddl_model *m = pl->m;
    uint32_t d = iopddl_domain(m, v), cur = x[v];
    if (d == 1)
        return cur;
    iopddl_node_costs(m, x, v, pl->costs);
    pp_int128 room = INT64_MAX; /* no usage change exceeds it */
    bool room_known = !m->has_limit || m->seg_lo[v] == m->seg_hi[v];
    const int64_t *usage = m->usage + m->dom_start[v];
    uint32_t best = cur;
    for (uint32_t s = 0; s < d; s++) {
        /* Strictly better, in exact integers: every move lowers the
         * objective, so the loop ends. */
        if (s == cur || pl->costs[s] >= pl->costs[best])
            continue;
        if (usage[s] > usage[cur]) {
            if (!room_known) {
                room = m->limit - iopddl_profile_max(pr, m->seg_lo[v], m->seg_hi[v]);
                room_known = true;
            }
            if (usage[s] - usage[cur] > room)
                continue;
        }
        best = s;
    }
    return best;
}

void iopddl_polish_run(iopddl_polish *pl, uint32_t *x, iopddl_profile *pr, const pp_deadline *deadline)
{
    const iopddl_model *m = pl->m;
    bool changed = true;
    while (changed && !pp_deadline_passed(deadline)) {
        changed = false;
        for (uint32_t v = 0; v < m->node_count; v++) {
            uint32_t s = best_move(pl, x, pr, v);
            if (s == x[v])
                continue;
            int64_t delta = m->usage[m->dom_start[v] + s] - m->usage[m->dom_start[v] + x[v]];
            iopddl_profile_add(pr, m->seg_lo[v], m->seg_hi[v], delta);
            x[v] = s;
            changed = true;
        }
    }
}
