/* solve.h: the planner as one call (solve.c: the plan space, the
 * incumbents, the branch-and-bound, the answer). */
#ifndef PP_CLUSTER_SOLVE_H
#define PP_CLUSTER_SOLVE_H

#include "cluster/planner.h"

/* Parallel branch-and-bound (paper 003 Alg. 1) over data, tensor and
 * pipeline degrees, the devices of each stage, uneven layers per stage,
 * uneven splits over unlike devices, micro-batch size and count, and
 * recomputation per stage (off only where the activations fit). */
pp_status pp_cluster_plan_search(const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan_options *o, pp_cluster_plan_result *out,
                                 pp_error *err);
void pp_cluster_plan_result_free(pp_cluster_plan_result *r);

#endif
