/* groups.c: tied groups, and the descent that moves a whole group at once.
 *
 * A pair ties its two nodes when its table is a one-to-one map between
 * their strategies with every other combination forbidden: one node's
 * strategy fixes the other's. Ties chain: on the contest instances most
 * nodes sit in groups of tens to thousands (C: 32,894 nodes in 451 groups),
 * each of which has only as many answers as its root has strategies. No
 * move of the forest descent changes a whole group (a change of one member
 * breaks a tie and pays a forbidden cost, and a group with a cycle is no
 * forest), so without these moves a group keeps the strategy TRW-S's
 * decoding last gave it. The group descent prices every strategy of each
 * group against the rest of the answer, on the relaxed objective, and takes
 * the best. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

#define NO_GROUP UINT32_MAX
#define NO_STRATEGY UINT32_MAX

struct iopddl_groups {
    const iopddl_model *m;
    uint32_t count;         /* groups of two nodes or more */
    uint32_t *start;        /* group g's members: member[start[g] .. start[g+1]-1], root first */
    uint32_t *member;
    uint32_t *map;          /* member k's strategy when the root plays s: map[k * d + s] */
    uint64_t *map_start;    /* k's map's offset (d: the group's domain) */
    uint32_t *group_of;     /* per node, or NO_GROUP */
    uint32_t *slot;         /* per member node: its index k in member */
};

/* perm[a] = b and inverse[b] = a when pair q ties a to b (row a's only
 * allowed column). */
static bool tie_map(const iopddl_model *m, uint32_t q, uint32_t *perm, uint32_t *inverse)
{
    uint32_t da = iopddl_domain(m, m->pair_a[q]), db = iopddl_domain(m, m->pair_b[q]);
    if (da != db || da < 2)
        return false;
    const int64_t *t = m->pair_cost + m->pair_start[q];
    for (uint32_t b = 0; b < db; b++)
        inverse[b] = NO_STRATEGY;
    for (uint32_t a = 0; a < da; a++) {
        uint32_t allowed = 0;
        for (uint32_t b = 0; b < db; b++)
            if (t[(size_t)a * db + b] < PP_IOPDDL_FORBIDDEN) {
                allowed++;
                perm[a] = b;
            }
        if (allowed != 1 || inverse[perm[a]] != NO_STRATEGY)
            return false;
        inverse[perm[a]] = a;
    }
    return true;
}

/* Which pairs tie their nodes; NULL when out of memory. */
static uint8_t *find_ties(const iopddl_model *m, uint32_t *perm, uint32_t *inverse)
{
    uint8_t *is_tie = calloc((size_t)m->pair_count + 1, 1);
    for (uint32_t q = 0; is_tie && q < m->pair_count; q++)
        is_tie[q] = tie_map(m, q, perm, inverse);
    return is_tie;
}

/* Breadth-first from root over ties, appending members and their maps;
 * a member reached twice keeps its first map (a tie closing a cycle that
 * disagrees makes some root strategies pay a forbidden cost, priced as
 * such). Returns the new member count. */
static uint32_t collect(iopddl_groups *g, const uint8_t *is_tie, uint32_t root, uint32_t group, uint32_t k,
                        uint32_t *perm, uint32_t *inverse)
{
    const iopddl_model *m = g->m;
    uint32_t d = iopddl_domain(m, root), head = k;
    g->group_of[root] = group;
    g->slot[root] = k;
    g->member[k] = root;
    g->map_start[k] = k == 0 ? 0 : g->map_start[k - 1] + iopddl_domain(m, g->member[k - 1]);
    for (uint32_t s = 0; s < d; s++)
        g->map[g->map_start[k] + s] = s;
    k++;
    for (; head < k; head++) {
        uint32_t v = g->member[head];
        for (uint32_t i = m->adj_start[v]; i < m->adj_start[v + 1]; i++) {
            uint32_t q = m->adj_pair[i], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            if (!is_tie[q] || g->group_of[u] != NO_GROUP)
                continue;
            tie_map(m, q, perm, inverse);
            const uint32_t *step = m->pair_a[q] == v ? perm : inverse;
            g->group_of[u] = group;
            g->slot[u] = k;
            g->member[k] = u;
            g->map_start[k] = g->map_start[k - 1] + d;
            const uint32_t *from = g->map + g->map_start[head];
            uint32_t *to = g->map + g->map_start[k];
            for (uint32_t s = 0; s < d; s++)
                to[s] = step[from[s]];
            k++;
        }
    }
    return k;
}

static bool build(iopddl_groups *g, const uint8_t *is_tie, uint32_t *perm, uint32_t *inverse, pp_arena *arena)
{
    const iopddl_model *m = g->m;
    uint32_t n = m->node_count;
    uint64_t map_size = 0;
    for (uint32_t v = 0; v < n; v++)
        map_size += iopddl_domain(m, v);
    g->start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *g->start);
    g->member = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *g->member);
    g->map_start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *g->map_start);
    g->map = pp_arena_alloc(arena, (map_size + 1) * sizeof *g->map);
    g->group_of = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *g->group_of);
    g->slot = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *g->slot);
    bool ok = g->start && g->member && g->map_start && g->map && g->group_of && g->slot;
    if (ok) {
        for (uint32_t v = 0; v < n; v++)
            g->group_of[v] = NO_GROUP;
        uint32_t k = 0;
        for (uint32_t v = 0; v < n; v++) {
            bool tied = false;
            for (uint32_t i = m->adj_start[v]; i < m->adj_start[v + 1] && !tied; i++)
                tied = is_tie[m->adj_pair[i]];
            if (!tied || g->group_of[v] != NO_GROUP)
                continue;
            g->start[g->count] = k;
            k = collect(g, is_tie, v, g->count, k, perm, inverse);
            g->count++;
        }
        g->start[g->count] = k;
    }
    return ok;
}

iopddl_groups *iopddl_groups_new(const iopddl_model *m, pp_arena *arena)
{
    iopddl_groups *g = pp_arena_calloc(arena, 1, sizeof *g);
    uint32_t *perm = malloc(iopddl_widest_domain(m) * sizeof *perm);
    uint32_t *inverse = malloc(iopddl_widest_domain(m) * sizeof *inverse);
    uint8_t *is_tie = perm && inverse ? find_ties(m, perm, inverse) : NULL;
    bool ok = g && is_tie;
    if (ok) {
        g->m = m;
        ok = build(g, is_tie, perm, inverse, arena);
    }
    free(perm);
    free(inverse);
    free(is_tie);
    return ok ? g : NULL;
}

static int64_t pair_cost(const iopddl_model *m, uint32_t q, uint32_t sa, uint32_t sb)
{
    return m->pair_cost[m->pair_start[q] + (uint64_t)sa * iopddl_domain(m, m->pair_b[q]) + sb];
}

/* The group's terms with every member at its strategy when the root plays
 * root_strategy (or, at -1, as in x): members' own costs exactly (pairs
 * inside the group once, pairs to the rest against x), and their usage
 * penalties. */
static pp_int128 group_cost(const iopddl_groups *g, uint32_t group, const uint32_t *x, int64_t root_strategy,
                            const double *penalty, double *penalty_sum)
{
    const iopddl_model *m = g->m;
    pp_int128 total = 0;
    double paid = 0;
    for (uint32_t k = g->start[group]; k < g->start[group + 1]; k++) {
        uint32_t v = g->member[k];
        uint32_t s = root_strategy < 0 ? x[v] : g->map[g->map_start[k] + (uint64_t)root_strategy];
        uint32_t at = m->dom_start[v] + s;
        total += m->unary[at];
        if (penalty)
            paid += penalty[v] * (double)(m->usage[at] - m->usage_min[v]);
        for (uint32_t i = m->adj_start[v]; i < m->adj_start[v + 1]; i++) {
            uint32_t q = m->adj_pair[i], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            bool inside = g->group_of[u] == group;
            if (inside && m->pair_a[q] != v)
                continue; /* counted from its first end */
            uint32_t su = inside && root_strategy >= 0 ? g->map[g->map_start[g->slot[u]] + (uint64_t)root_strategy]
                                                       : x[u];
            total += m->pair_a[q] == v ? pair_cost(m, q, s, su) : pair_cost(m, q, su, s);
        }
    }
    if (penalty_sum)
        *penalty_sum = paid;
    return total;
}

static void set_group(const iopddl_groups *g, uint32_t group, uint32_t *x, int64_t root_strategy)
{
    for (uint32_t k = g->start[group]; k < g->start[group + 1]; k++)
        x[g->member[k]] = g->map[g->map_start[k] + (uint64_t)root_strategy];
}

/* Marks dirty every group with a member next to one of group's. */
static void mark_neighbours(const iopddl_groups *g, uint32_t group, uint8_t *dirty)
{
    const iopddl_model *m = g->m;
    for (uint32_t k = g->start[group]; k < g->start[group + 1]; k++) {
        uint32_t v = g->member[k];
        for (uint32_t i = m->adj_start[v]; i < m->adj_start[v + 1]; i++) {
            uint32_t q = m->adj_pair[i], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            if (g->group_of[u] != NO_GROUP && g->group_of[u] != group)
                dirty[g->group_of[u]] = 1;
        }
    }
}

/* Moves group to its cheapest root strategy when that saves something;
 * returns the relaxed cost saved. */
static double move_group(const iopddl_groups *g, uint32_t group, uint32_t *x, const double *penalty)
{
    uint32_t d = iopddl_domain(g->m, g->member[g->start[group]]);
    double paid;
    double now = (double)group_cost(g, group, x, -1, penalty, &paid) + paid, best = now;
    int64_t pick = -1;
    for (uint32_t s = 0; s < d; s++) {
        double price = (double)group_cost(g, group, x, s, penalty, &paid) + paid;
        if (price < best) {
            best = price;
            pick = s;
        }
    }
    if (pick < 0 || now - best <= 1e-9 * now)
        return 0;
    set_group(g, group, x, pick);
    return now - best;
}

/* Passes over the groups whose neighbours moved (all at first) until none
 * did: a move of one group can make another's pay, and every move lowers
 * the cost, so this ends. */
double iopddl_groups_descend(const iopddl_groups *g, uint32_t *x, const double *penalty, const pp_deadline *deadline)
{
    uint8_t *dirty = malloc((size_t)g->count + 1);
    if (!dirty)
        return 0;
    memset(dirty, 1, (size_t)g->count + 1);
    double total = 0;
    for (bool moved = true; moved && !pp_deadline_passed(deadline);) {
        moved = false;
        for (uint32_t group = 0; group < g->count; group++) {
            if (!dirty[group])
                continue;
            dirty[group] = 0;
            double gain = move_group(g, group, x, penalty);
            if (gain > 0) {
                total += gain;
                moved = true;
                mark_neighbours(g, group, dirty);
            }
        }
    }
    free(dirty);
    return total;
}
