/* branch.c: the exact stage in integers (exact.h, iopddl_branch): a
 * depth-first branch and bound over the problem's own nodes and edges,
 * costs and usage levels summed in 128 bits. It answers where the MIP
 * cannot: costs or usages that doubles do not hold (9e17 + 2 and 9e17 + 4
 * are one double), and problems whose every feasible answer pays a
 * forbidden entry (the MIP leaves those out, and the heuristics rank in
 * doubles). It reads the problem, not the model, whose merged and folded
 * entries saturate at INT64_MAX: two answers the model prices alike may
 * differ in the contest's sum. */
#include <string.h>
#include "iopddl/exact.h"

/* How many search nodes pass between looks at the clock. */
enum { VISITS_PER_CLOCK = 1024 };

typedef struct {
    const pp_iopddl_problem *p;
    const pp_deadline *deadline;
    uint32_t n;
    uint32_t *order;               /* position -> node: each next node the most joined to those before */
    uint32_t *done_start, *done_edge; /* edges whose last node is at position k */
    pp_int128 *rest;               /* least cost of positions k.. (n + 1 entries) */
    uint32_t *seg_lo, *seg_hi;     /* node i is live in segments [seg_lo, seg_hi) */
    int64_t *usage_min;
    pp_int128 *level;              /* per segment: usage of the nodes placed, least usage of the others */
    pp_int128 *inc;                /* per strategy index: what placing it adds */
    uint32_t *rank;                /* per strategy index: a node's strategies, cheapest first */
    uint32_t *x, *best_x;
    pp_int128 best;                /* the cost to beat: IOPDDL_NO_COST while none */
    bool free_only;                /* forbidden entries are not taken */
    bool found, stopped;
    uint64_t visits;
} branch;

static bool is_forbidden(int64_t c) { return c >= PP_IOPDDL_FORBIDDEN; }

static int64_t edge_entry(const pp_iopddl_problem *p, uint32_t e, const uint32_t *x)
{
    uint64_t index = 0;
    for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++)
        index = index * pp_iopddl_strategy_count(p, p->edge_nodes[k]) + x[p->edge_nodes[k]];
    return p->edge_cost[p->edge_cost_start[e] + index];
}

/* The least of count entries (of those not forbidden, with free_only);
 * false when there is none. */
static bool least_entry(const int64_t *v, uint64_t count, bool free_only, int64_t *least)
{
    bool any = false;
    for (uint64_t k = 0; k < count; k++)
        if (!(free_only && is_forbidden(v[k])) && (!any || v[k] < *least)) {
            *least = v[k];
            any = true;
        }
    return any;
}

/* The largest of count entries below PP_IOPDDL_FORBIDDEN; false when none is. */
static bool most_allowed(const int64_t *v, uint64_t count, int64_t *most)
{
    bool any = false;
    for (uint64_t k = 0; k < count; k++)
        if (!is_forbidden(v[k]) && (!any || v[k] > *most)) {
            *most = v[k];
            any = true;
        }
    return any;
}

/* rest[] for the phase; false when some node or edge has nothing to take. */
static bool plan_rest(branch *b)
{
    const pp_iopddl_problem *p = b->p;
    b->rest[b->n] = 0;
    for (uint32_t k = b->n; k-- > 0;) {
        uint32_t v = b->order[k];
        int64_t least = 0;
        if (!least_entry(p->node_cost + p->strategy_start[v], pp_iopddl_strategy_count(p, v), b->free_only, &least))
            return false;
        pp_int128 sum = least;
        for (uint32_t j = b->done_start[k]; j < b->done_start[k + 1]; j++) {
            uint32_t e = b->done_edge[j];
            if (!least_entry(p->edge_cost + p->edge_cost_start[e], p->edge_cost_start[e + 1] - p->edge_cost_start[e],
                             b->free_only, &least))
                return false;
            sum += least;
        }
        b->rest[k] = b->rest[k + 1] + sum;
    }
    return true;
}

/* Each next node the one with the most edges to the nodes placed (then the
 * most edges): an edge's cost is known once its last node is placed, and
 * the sooner it is known the sooner a branch is cut. */
static void plan_order(branch *b, uint32_t *degree, uint32_t *joined, uint8_t *placed)
{
    const pp_iopddl_problem *p = b->p;
    for (uint64_t k = 0; k < p->edge_node_start[p->edge_count]; k++)
        degree[p->edge_nodes[k]]++;
    for (uint32_t k = 0; k < b->n; k++) {
        uint32_t pick = UINT32_MAX;
        for (uint32_t v = 0; v < b->n; v++)
            if (!placed[v] && (pick == UINT32_MAX || joined[v] > joined[pick] ||
                               (joined[v] == joined[pick] && degree[v] > degree[pick])))
                pick = v;
        placed[pick] = 1;
        b->order[k] = pick;
        for (uint32_t e = 0; e < p->edge_count; e++) {
            bool touches = false;
            for (uint64_t j = p->edge_node_start[e]; j < p->edge_node_start[e + 1]; j++)
                touches |= p->edge_nodes[j] == pick;
            for (uint64_t j = p->edge_node_start[e]; touches && j < p->edge_node_start[e + 1]; j++)
                joined[p->edge_nodes[j]]++;
        }
    }
}

/* Edges grouped by the position of their last node (position[] per node;
 * last[] scratch, one per edge). */
static void plan_edges(branch *b, const uint32_t *position, uint32_t *last)
{
    const pp_iopddl_problem *p = b->p;
    for (uint32_t e = 0; e < p->edge_count; e++) {
        uint32_t at = 0;
        for (uint64_t j = p->edge_node_start[e]; j < p->edge_node_start[e + 1]; j++)
            at = position[p->edge_nodes[j]] > at ? position[p->edge_nodes[j]] : at;
        last[e] = at;
        b->done_start[at]++;
    }
    /* done_start[k]: the end of group k, then (filled from the ends down) its start. */
    for (uint32_t k = 1; k < b->n; k++)
        b->done_start[k] += b->done_start[k - 1];
    b->done_start[b->n] = p->edge_count;
    for (uint32_t e = p->edge_count; e-- > 0;)
        b->done_edge[--b->done_start[last[e]]] = e;
}

/* Time cut as the model cuts it; each segment's level starts at the least
 * usage of the nodes live in it (usage_min). */
static void plan_segments(branch *b, int64_t *points)
{
    const pp_iopddl_problem *p = b->p;
    iopddl_time_segments(p, points, b->seg_lo, b->seg_hi);
    for (uint32_t v = 0; v < b->n; v++) {
        int64_t least = 0;
        least_entry(p->node_usage + p->strategy_start[v], pp_iopddl_strategy_count(p, v), false, &least);
        b->usage_min[v] = least;
        for (uint32_t t = b->seg_lo[v]; t < b->seg_hi[v]; t++)
            b->level[t] += least;
    }
}

static void shift_level(branch *b, uint32_t v, pp_int128 delta)
{
    for (uint32_t t = b->seg_lo[v]; t < b->seg_hi[v]; t++)
        b->level[t] += delta;
}

/* How much more usage node v may take over its least (limit: the problem's). */
static pp_int128 room(const branch *b, uint32_t v)
{
    pp_int128 top = 0;
    for (uint32_t t = b->seg_lo[v]; t < b->seg_hi[v]; t++)
        top = b->level[t] > top ? b->level[t] : top;
    return (pp_int128)b->p->usage_limit - top;
}

static void descend(branch *b, uint32_t k, pp_int128 partial)
{
    if (b->stopped || (++b->visits % VISITS_PER_CLOCK == 0 && pp_deadline_passed(b->deadline))) {
        b->stopped = true;
        return;
    }
    if (k == b->n) {
        b->best = partial;
        b->found = true;
        memcpy(b->best_x, b->x, (size_t)b->n * sizeof *b->x);
        return;
    }
    const pp_iopddl_problem *p = b->p;
    uint32_t v = b->order[k], d = pp_iopddl_strategy_count(p, v), count = 0;
    uint64_t first = p->strategy_start[v];
    pp_int128 *inc = b->inc + first;
    uint32_t *rank = b->rank + first;
    pp_int128 free_room = p->has_usage_limit ? room(b, v) : 0;
    for (uint32_t s = 0; s < d; s++) {
        int64_t c = p->node_cost[first + s];
        if ((p->has_usage_limit && (pp_int128)p->node_usage[first + s] - b->usage_min[v] > free_room) ||
            (b->free_only && is_forbidden(c)))
            continue;
        b->x[v] = s;
        pp_int128 sum = c;
        bool allowed = true;
        for (uint32_t j = b->done_start[k]; j < b->done_start[k + 1] && allowed; j++) {
            int64_t entry = edge_entry(p, b->done_edge[j], b->x);
            allowed = !(b->free_only && is_forbidden(entry));
            sum += entry;
        }
        if (!allowed || partial + sum + b->rest[k + 1] >= b->best)
            continue;
        inc[s] = sum;
        uint32_t at = count++;
        for (; at > 0 && inc[rank[at - 1]] > sum; at--)
            rank[at] = rank[at - 1];
        rank[at] = s;
    }
    for (uint32_t i = 0; i < count && !b->stopped; i++) {
        uint32_t s = rank[i];
        if (partial + inc[s] + b->rest[k + 1] >= b->best)
            break; /* cheapest first: the others cannot do better either */
        pp_int128 delta = (pp_int128)p->node_usage[first + s] - b->usage_min[v];
        b->x[v] = s;
        shift_level(b, v, delta);
        descend(b, k + 1, partial + inc[s]);
        shift_level(b, v, -delta);
    }
}

/* One search: free_only or not, to beat `best`. */
static void run_phase(branch *b, bool free_only, pp_int128 best)
{
    b->free_only = free_only;
    b->best = best;
    b->found = false;
    if (plan_rest(b) && b->rest[0] < best)
        descend(b, 0, 0);
}

bool iopddl_sums_reach_forbidden(const pp_iopddl_problem *p)
{
    pp_int128 reach = 0;
    int64_t most = 0;
    for (uint32_t v = 0; v < p->node_count; v++)
        if (most_allowed(p->node_cost + p->strategy_start[v], pp_iopddl_strategy_count(p, v), &most))
            reach += most;
    for (uint32_t e = 0; e < p->edge_count; e++)
        if (most_allowed(p->edge_cost + p->edge_cost_start[e], p->edge_cost_start[e + 1] - p->edge_cost_start[e],
                         &most))
            reach += most;
    return reach >= PP_IOPDDL_FORBIDDEN;
}

bool iopddl_branch(const pp_iopddl_problem *p, uint32_t *x, const pp_deadline *deadline, bool *proven)
{
    *proven = false;
    uint32_t n = p->node_count;
    uint64_t strategies = p->strategy_start[n];
    pp_arena *arena = pp_arena_new(0);
    branch b = {.p = p, .deadline = deadline, .n = n};
    size_t words = (size_t)n + 1;
    if (arena) {
        b.order = pp_arena_calloc(arena, words, sizeof *b.order);
        b.done_start = pp_arena_calloc(arena, words + 1, sizeof *b.done_start);
        b.done_edge = pp_arena_calloc(arena, (size_t)p->edge_count + 1, sizeof *b.done_edge);
        b.rest = pp_arena_calloc(arena, words, sizeof *b.rest);
        b.seg_lo = pp_arena_calloc(arena, words, sizeof *b.seg_lo);
        b.seg_hi = pp_arena_calloc(arena, words, sizeof *b.seg_hi);
        b.usage_min = pp_arena_calloc(arena, words, sizeof *b.usage_min);
        b.level = pp_arena_calloc(arena, 2 * words, sizeof *b.level);
        b.inc = pp_arena_calloc(arena, strategies + 1, sizeof *b.inc);
        b.rank = pp_arena_calloc(arena, strategies + 1, sizeof *b.rank);
        b.x = pp_arena_calloc(arena, words, sizeof *b.x);
        b.best_x = pp_arena_calloc(arena, words, sizeof *b.best_x);
    }
    uint32_t *degree = arena ? pp_arena_calloc(arena, words, sizeof *degree) : NULL;
    uint32_t *joined = arena ? pp_arena_calloc(arena, words, sizeof *joined) : NULL;
    uint8_t *placed = arena ? pp_arena_calloc(arena, words, 1) : NULL;
    int64_t *points = arena ? pp_arena_calloc(arena, 2 * words, sizeof *points) : NULL;
    uint32_t *last = arena ? pp_arena_calloc(arena, (size_t)p->edge_count + 1, sizeof *last) : NULL;
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    if (!b.order || !b.done_start || !b.done_edge || !b.rest || !b.seg_lo || !b.seg_hi || !b.usage_min || !b.level ||
        !b.inc || !b.rank || !b.x || !b.best_x || !degree || !joined || !placed || !points || !last ||
        pp_iopddl_evaluate(p, x, &ev, &err) != PP_OK) {
        pp_arena_free(arena);
        return false;
    }
    plan_order(&b, degree, joined, placed);
    for (uint32_t k = 0; k < n; k++)
        degree[b.order[k]] = k; /* the position of each node, in degree's place */
    plan_edges(&b, degree, last);
    plan_segments(&b, points);
    /* The contest's peak is never below zero. */
    bool can_fit = !p->has_usage_limit || p->usage_limit >= 0;
    for (uint32_t t = 0; p->has_usage_limit && t < 2 * n; t++)
        can_fit = can_fit && b.level[t] <= p->usage_limit;
    /* Answers free of forbidden entries first, as everywhere in the solver;
     * only when none is feasible, the cheapest of the others. */
    bool incumbent = ev.feasible, incumbent_free = ev.feasible && !ev.uses_forbidden;
    if (can_fit) {
        run_phase(&b, true, incumbent_free ? ev.cost : IOPDDL_NO_COST);
        bool settled = b.found || incumbent_free || b.stopped;
        if (!settled)
            run_phase(&b, false, incumbent ? ev.cost : IOPDDL_NO_COST);
    }
    if (b.found)
        memcpy(x, b.best_x, (size_t)n * sizeof *x);
    *proven = !b.stopped && (b.found || incumbent);
    pp_arena_free(arena);
    return true;
}
