/* bridge_write.c: the IOPDDL bridge's problem as a file: written by the
 * IOPDDL writer (pp_iopddl_write), and a file read back checked against the
 * bridge number for number. */
#include "parplan/shard_bridge.h"
#include "shard/bridge_internal.h"
#include "iopddl/problem_io.h"

pp_status pp_shard_bridge_write(const pp_shard_bridge *bridge, const char *name, FILE *out, pp_error *err)
{
    return pp_iopddl_write(pp_shard_bridge_problem(bridge), name, out, err);
}

/* The first index where two int64 lists differ, or -1. */
static int64_t first_difference(const int64_t *a, const int64_t *b, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return (int64_t)k;
    return -1;
}

/* what: a printf format with one %llu, the place of the difference. */
static pp_status differs(const pp_iopddl_problem *problem, pp_error *err, const char *what, uint64_t at,
                         int64_t file, int64_t ours)
{
    char place[160];
    snprintf(place, sizeof place, what, (unsigned long long)at);
    return pp_error_set(err, PP_EINPUT,
                        "IOPDDL problem '%s': %s is %lld, this model and mesh give %lld: it was built for "
                        "another model, mesh or --memory, or edited",
                        problem->name, place, (long long)file, (long long)ours);
}

/* Node by node: intervals, then each strategy's cost and usage. */
static pp_status check_nodes(const pp_iopddl_problem *p, const pp_iopddl_problem *problem, pp_error *err)
{
    for (uint32_t n = 0; n < p->node_count; n++) {
        if (pp_iopddl_strategy_count(problem, n) != pp_iopddl_strategy_count(p, n))
            return differs(problem, err, "the strategy count of node %llu", n, pp_iopddl_strategy_count(problem, n),
                           pp_iopddl_strategy_count(p, n));
        if (problem->interval_start[n] != p->interval_start[n] || problem->interval_end[n] != p->interval_end[n])
            return differs(problem, err, "the interval start of node %llu", n, problem->interval_start[n],
                           p->interval_start[n]);
    }
    uint64_t strategies = p->strategy_start[p->node_count];
    int64_t k = first_difference(problem->node_cost, p->node_cost, strategies);
    if (k >= 0)
        return differs(problem, err, "the cost of strategy %llu (counted over all nodes)", (uint64_t)k,
                       problem->node_cost[k], p->node_cost[k]);
    k = first_difference(problem->node_usage, p->node_usage, strategies);
    if (k >= 0)
        return differs(problem, err, "the usage of strategy %llu (counted over all nodes)", (uint64_t)k,
                       problem->node_usage[k], p->node_usage[k]);
    return PP_OK;
}

static pp_status check_edges(const pp_iopddl_problem *p, const pp_iopddl_problem *problem, pp_error *err)
{
    if (problem->edge_count != p->edge_count)
        return differs(problem, err, "the edge count%.0llu", 0, problem->edge_count, p->edge_count);
    for (uint32_t e = 0; e <= p->edge_count; e++)
        if (problem->edge_node_start[e] != p->edge_node_start[e] ||
            problem->edge_cost_start[e] != p->edge_cost_start[e])
            return differs(problem, err, "the cost offset of edge %llu", e, (int64_t)problem->edge_cost_start[e],
                           (int64_t)p->edge_cost_start[e]);
    for (uint64_t k = 0; k < p->edge_node_start[p->edge_count]; k++)
        if (problem->edge_nodes[k] != p->edge_nodes[k])
            return differs(problem, err, "node entry %llu of the edges", k, problem->edge_nodes[k], p->edge_nodes[k]);
    int64_t k = first_difference(problem->edge_cost, p->edge_cost, p->edge_cost_start[p->edge_count]);
    if (k >= 0)
        return differs(problem, err, "edge cost %llu (counted over all edges)", (uint64_t)k, problem->edge_cost[k],
                       p->edge_cost[k]);
    return PP_OK;
}

/* The problem read must be the one this model, mesh and memory limit build,
 * number for number: counts alone let a problem of another mesh with the
 * same shape, or one with edited costs, through. */
pp_status pp_shard_bridge_check(const pp_shard_bridge *bridge, const pp_iopddl_problem *problem, pp_error *err)
{
    const pp_iopddl_problem *p = pp_shard_bridge_problem(bridge);
    if (problem->node_count != p->node_count)
        return pp_error_set(err, PP_EINPUT,
                            "IOPDDL problem '%s' has %u nodes, this model and mesh give %u: "
                            "it was built for another model or mesh",
                            problem->name, problem->node_count, p->node_count);
    pp_status st = check_nodes(p, problem, err);
    if (st == PP_OK)
        st = check_edges(p, problem, err);
    if (st == PP_OK && (problem->has_usage_limit != p->has_usage_limit || problem->usage_limit != p->usage_limit))
        st = differs(problem, err, "the usage limit (bytes per device)%.0llu", 0, problem->usage_limit,
                     p->usage_limit);
    return st;
}
