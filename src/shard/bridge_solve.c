/* bridge_solve.c: plans through the IOPDDL bridge: the plan a solution
 * stands for (its layout priced by the cost model, its IOPDDL cost), and in
 * one call the problem built, solved by paper 000's solver and priced.
 * `parplan shard` runs the second beside the MCTS and the first for
 * --apply-iopddl. */
#include <stdlib.h>
#include <string.h>
#include "shard/bridge_internal.h"
#include "shard/shard_internal.h"

pp_status pp_shard_bridge_plan_of(const pp_shard_bridge *bridge, const pp_iopddl_problem *p, const pp_shard_flat *flat,
                                  const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint32_t *strategies,
                                  pp_shard_bridge_plan *out, pp_error *err)
{
    pp_iopddl_evaluation ev;
    memset(out, 0, sizeof *out);
    out->nodes = p->node_count;
    out->edges = p->edge_count;
    out->axes = malloc((size_t)nda->n_names + 1);
    if (!out->axes)
        return pp_error_set(err, PP_ENOMEM, "bridge: out of memory");
    pp_status st = pp_shard_bridge_layout(bridge, strategies, out->axes, err);
    if (st == PP_OK)
        st = pp_shard_cost_eval_layout(flat, nda, mesh, out->axes, &out->cost, err);
    if (st == PP_OK)
        st = pp_iopddl_evaluate(p, strategies, &ev, err);
    if (st == PP_OK) {
        out->iopddl_cost = (int64_t)ev.cost;
        out->feasible = ev.feasible;
    }
    if (st != PP_OK)
        pp_shard_bridge_plan_free(out);
    return st;
}

pp_status pp_shard_bridge_plan_solve(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                     double memory_bytes, const pp_iopddl_options *o, pp_shard_bridge_plan *out,
                                     pp_error *err)
{
    double t0 = pp_now();
    memset(out, 0, sizeof *out);
    pp_shard_bridge *bridge = NULL;
    pp_iopddl_result answer;
    memset(&answer, 0, sizeof answer);
    pp_status st = shard_bridge_build(flat, nda, mesh, memory_bytes, true, &bridge, err);
    if (st == PP_OK)
        st = pp_iopddl_solve(pp_shard_bridge_problem(bridge), o, &answer, err);
    if (st == PP_INFEASIBLE) { /* the least-usage answer, over the limit: still a plan to show */
        pp_error_clear(err);
        st = PP_OK;
    }
    if (st == PP_OK)
        st = pp_shard_bridge_plan_of(bridge, pp_shard_bridge_problem(bridge), flat, nda, mesh, answer.strategies, out,
                                     err);
    if (st == PP_OK)
        out->proven_optimal = answer.proven_optimal;
    pp_iopddl_result_free(&answer);
    pp_shard_bridge_free(bridge);
    out->seconds = pp_now() - t0;
    if (st != PP_OK)
        pp_shard_bridge_plan_free(out);
    return st;
}

void pp_shard_bridge_plan_free(pp_shard_bridge_plan *plan)
{
    free(plan->axes);
    plan->axes = NULL;
}
