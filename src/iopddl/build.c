/* build.c: owns the IOPDDL problem builder (parplan/iopddl.h): a problem
 * assembled in memory by another planner, checked as the loader checks a
 * file, so that what it builds the loader would read back unchanged. Node
 * arrays live in the problem's arena from the start; edges grow by
 * core/grow.h until finish copies them in. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "iopddl/problem_io.h"

struct pp_iopddl_builder {
    pp_iopddl_problem *p;
    uint32_t *ends; /* two per edge */
    int64_t *costs;
    uint64_t *cost_start;
    int edges, ends_cap, costs_cap, start_cap;
    char mistake[200]; /* the first value out of range; "" while there is none */
    bool oom;
};

/* Records the first mistake; returns false for the setter to return. */
static bool refuse(pp_iopddl_builder *b, const char *what, uint32_t node, int64_t x, int64_t y)
{
    if (!b->mistake[0])
        snprintf(b->mistake, sizeof b->mistake, what, node, (long long)x, (long long)y);
    return false;
}

pp_status pp_iopddl_builder_new(uint32_t node_count, const uint32_t *strategy_counts, pp_iopddl_builder **out,
                                pp_error *err)
{
    *out = NULL;
    if (node_count == 0)
        return pp_error_set(err, PP_EARG, "IOPDDL builder: a problem needs at least one node");
    for (uint32_t i = 0; i < node_count; i++)
        if (strategy_counts[i] == 0)
            return pp_error_set(err, PP_EARG, "IOPDDL builder: node %u has no strategies", i);
    pp_iopddl_builder *b = calloc(1, sizeof *b);
    pp_arena *arena = b ? pp_arena_new(1 << 16) : NULL;
    pp_iopddl_problem *p = arena ? pp_arena_calloc(arena, 1, sizeof *p) : NULL;
    if (p) {
        p->arena = arena;
        p->node_count = node_count;
        p->strategy_start = pp_arena_alloc(arena, sizeof(uint64_t) * ((size_t)node_count + 1));
    }
    if (p && p->strategy_start) {
        p->strategy_start[0] = 0;
        for (uint32_t i = 0; i < node_count; i++)
            p->strategy_start[i + 1] = p->strategy_start[i] + strategy_counts[i];
        size_t total = p->strategy_start[node_count];
        p->interval_start = pp_arena_calloc(arena, (size_t)node_count + 1, sizeof(int64_t));
        p->interval_end = pp_arena_calloc(arena, (size_t)node_count + 1, sizeof(int64_t));
        p->node_cost = pp_arena_calloc(arena, total + 1, sizeof(int64_t));
        p->node_usage = pp_arena_calloc(arena, total + 1, sizeof(int64_t));
    }
    if (!p || !p->strategy_start || !p->interval_start || !p->interval_end || !p->node_cost || !p->node_usage) {
        pp_arena_free(arena);
        free(b);
        return pp_error_set(err, PP_ENOMEM, "IOPDDL builder: out of memory");
    }
    b->p = p;
    *out = b;
    return PP_OK;
}

bool pp_iopddl_builder_interval(pp_iopddl_builder *b, uint32_t node, int64_t start, int64_t end)
{
    if (node >= b->p->node_count)
        return refuse(b, "no node %u for an interval (there are %lld)", node, b->p->node_count, 0);
    if (start < 0 || end < start)
        return refuse(b, "node %u: interval [%lld, %lld] is not 0 <= start <= end", node, start, end);
    b->p->interval_start[node] = start;
    b->p->interval_end[node] = end;
    return true;
}

bool pp_iopddl_builder_strategy(pp_iopddl_builder *b, uint32_t node, uint32_t s, int64_t cost, int64_t usage)
{
    pp_iopddl_problem *p = b->p;
    if (node >= p->node_count || s >= pp_iopddl_strategy_count(p, node))
        return refuse(b, "node %u: no strategy %lld (it has %lld)", node, s,
                      node < p->node_count ? pp_iopddl_strategy_count(p, node) : 0);
    if (cost < 0 || usage < 0)
        return refuse(b, "node %u: negative cost %lld or usage %lld", node, cost, usage);
    p->node_cost[p->strategy_start[node] + s] = cost;
    p->node_usage[p->strategy_start[node] + s] = usage;
    return true;
}

bool pp_iopddl_builder_edge(pp_iopddl_builder *b, uint32_t a, uint32_t c, const int64_t *costs)
{
    const pp_iopddl_problem *p = b->p;
    if (a >= p->node_count || c >= p->node_count || a == c)
        return refuse(b, "edge between node %u and node %lld: not two different nodes of the %lld", a, c,
                      p->node_count);
    uint64_t cells = (uint64_t)pp_iopddl_strategy_count(p, a) * pp_iopddl_strategy_count(p, c);
    for (uint64_t k = 0; k < cells; k++)
        if (costs[k] < 0)
            return refuse(b, "edge from node %u: negative cost %lld at entry %lld", a, costs[k], (int64_t)k);
    uint64_t at = b->edges ? b->cost_start[b->edges] : 0;
    int c1 = b->start_cap;
    if (b->oom || !pp_grow((void **)&b->ends, &b->ends_cap, 2 * b->edges + 2, sizeof *b->ends) ||
        !pp_grow((void **)&b->cost_start, &c1, b->edges + 2, sizeof *b->cost_start) || at + cells > INT_MAX ||
        !pp_grow((void **)&b->costs, &b->costs_cap, (int)(at + cells), sizeof *b->costs)) {
        b->oom = true;
        return false;
    }
    b->start_cap = c1;
    b->cost_start[0] = 0;
    b->ends[2 * b->edges] = a;
    b->ends[2 * b->edges + 1] = c;
    memcpy(b->costs + at, costs, cells * sizeof *costs);
    b->cost_start[++b->edges] = at + cells;
    return true;
}

bool pp_iopddl_builder_limit(pp_iopddl_builder *b, int64_t usage_limit)
{
    if (usage_limit < 0)
        return refuse(b, "usage limit %.0u%lld is negative", 0, usage_limit, 0);
    b->p->has_usage_limit = true;
    b->p->usage_limit = usage_limit;
    return true;
}

/* The edges copied into the problem's arena. */
static bool move_edges(pp_iopddl_builder *b)
{
    pp_iopddl_problem *p = b->p;
    size_t m = (size_t)b->edges, cells = m ? b->cost_start[m] : 0;
    p->edge_count = (uint32_t)m;
    p->edge_nodes = pp_arena_alloc(p->arena, sizeof(uint32_t) * (2 * m + 1));
    p->edge_node_start = pp_arena_alloc(p->arena, sizeof(uint64_t) * (m + 1));
    p->edge_cost_start = pp_arena_alloc(p->arena, sizeof(uint64_t) * (m + 1));
    p->edge_cost = pp_arena_alloc(p->arena, sizeof(int64_t) * (cells + 1));
    if (!p->edge_nodes || !p->edge_node_start || !p->edge_cost_start || !p->edge_cost)
        return false;
    for (size_t e = 0; e <= m; e++) {
        p->edge_node_start[e] = 2 * e;
        p->edge_cost_start[e] = m ? b->cost_start[e] : 0;
    }
    if (m) {
        memcpy(p->edge_nodes, b->ends, 2 * m * sizeof *b->ends);
        memcpy(p->edge_cost, b->costs, cells * sizeof *b->costs);
    }
    return true;
}

pp_status pp_iopddl_builder_finish(pp_iopddl_builder *b, pp_iopddl_problem **out, pp_error *err)
{
    *out = NULL;
    pp_status st = PP_OK;
    if (b->mistake[0])
        st = pp_error_set(err, PP_EARG, "IOPDDL builder: %s", b->mistake);
    else if (b->oom || !move_edges(b))
        st = pp_error_set(err, PP_ENOMEM, "IOPDDL builder: out of memory");
    if (st == PP_OK) {
        *out = b->p;
        b->p = NULL;
    }
    pp_iopddl_builder_free(b);
    return st;
}

void pp_iopddl_builder_free(pp_iopddl_builder *b)
{
    if (!b)
        return;
    if (b->p)
        pp_iopddl_free(b->p);
    free(b->ends);
    free(b->costs);
    free(b->cost_start);
    free(b);
}
