/* bridge_solve.c: a plan through the IOPDDL bridge in one call: build the
 * problem, solve it with paper 000's solver, price the answer's layout with
 * the cost model. `parplan shard` runs it beside the MCTS. */
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_bridge.h"

static pp_status price_answer(const pp_shard_bridge *bridge, const pp_shard_flat *flat, const pp_shard_nda *nda,
                              const pp_shard_mesh *mesh, const pp_iopddl_result *answer, pp_shard_bridge_plan *out,
                              pp_error *err)
{
    out->axes = malloc((size_t)nda->n_names + 1);
    if (!out->axes)
        return pp_error_set(err, PP_ENOMEM, "bridge: out of memory");
    pp_status st = pp_shard_bridge_layout(bridge, answer->strategies, out->axes, err);
    if (st == PP_OK)
        st = pp_shard_cost_eval_layout(flat, nda, mesh, out->axes, &out->cost, err);
    out->iopddl_cost = answer->cost;
    out->feasible = answer->feasible;
    out->proven_optimal = answer->proven_optimal;
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
    pp_status st = pp_shard_bridge_build(flat, nda, mesh, memory_bytes, &bridge, err);
    if (st == PP_OK) {
        const pp_iopddl_problem *p = pp_shard_bridge_problem(bridge);
        out->nodes = p->node_count;
        out->edges = p->edge_count;
        st = pp_iopddl_solve(p, o, &answer, err);
    }
    if (st == PP_INFEASIBLE) { /* the least-usage answer, over the limit: still a plan to show */
        pp_error_clear(err);
        st = PP_OK;
    }
    if (st == PP_OK)
        st = price_answer(bridge, flat, nda, mesh, &answer, out, err);
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
