/* apply_iopddl.c: the plan an IOPDDL solution of the emitted sharding
 * problem stands for (pp_shard_plan_apply), as one library call: the front
 * doors name the two files and render the result as any plan's. */
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_request.h"
#include "shard/bridge_internal.h"
#include "shard/request_internal.h"
#include "iopddl/problem_io.h"

/* The solution read against the problem file it was solved from, once the
 * file is known to be this bridge's problem. */
static pp_status plan_of(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                         const pp_shard_bridge *bridge, const pp_iopddl_problem *problem, const char *solution_path,
                         pp_shard_bridge_plan *plan, pp_error *err)
{
    uint32_t *strategies = NULL;
    pp_status st = pp_shard_bridge_check(bridge, problem, err);
    if (st == PP_OK)
        st = pp_iopddl_load_solution(solution_path, problem, &strategies, err);
    if (st == PP_OK)
        st = pp_shard_bridge_plan_of(bridge, problem, flat, nda, mesh, strategies, plan, err);
    free(strategies);
    return st;
}

pp_status pp_shard_plan_apply(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                              double memory, const char *problem_path, const char *solution_path,
                              pp_shard_plan_result *out, pp_error *err)
{
    pp_shard_bridge *bridge = NULL;
    pp_iopddl_problem *problem = NULL;
    memset(out, 0, sizeof *out);
    out->memory = pp_shard_memory_limit(mesh, memory);
    pp_status st = pp_shard_bridge_build(flat, nda, mesh, out->memory, &bridge, err);
    if (st == PP_OK)
        st = pp_iopddl_load(problem_path, &problem, err);
    if (st == PP_OK)
        st = plan_of(flat, nda, mesh, bridge, problem, solution_path, &out->bridge, err);
    out->has_bridge = st == PP_OK;
    if (out->has_bridge)
        pp_shard_plan_choose(out);
    else
        pp_shard_bridge_plan_free(&out->bridge); /* what a failed apply left */
    pp_iopddl_free(problem);
    pp_shard_bridge_free(bridge);
    return st;
}
