/* check.h: the independent checker of a plan (check.c). */
#ifndef PP_CLUSTER_CHECK_H
#define PP_CLUSTER_CHECK_H

#include "parplan/cluster.h"

/* The independent check of a plan the planner returns (src/cluster/
 * check.c), from its fields alone: every device exists, is alive at time
 * `at` and serves one slot; the stages' TP degrees and layers add up to
 * the devices per replica and the workload's layers; the micro-batches to
 * the global batch; each group's shares to 1; and no device holds more
 * than its memory (pp_cluster_plan_memory). PP_EINPUT or PP_INFEASIBLE
 * naming the first failure. */
pp_status pp_cluster_plan_check(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                double at, pp_error *err);

#endif
