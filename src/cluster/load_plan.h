/* load_plan.h: the plan readers (load_plan.c), of a file and of text
 * already in memory (as the jobs and the fuzzer feed it). */
#ifndef PP_CLUSTER_LOAD_PLAN_H
#define PP_CLUSTER_LOAD_PLAN_H

#include <stddef.h>
#include "parplan/cluster.h"

/* Plan files: pp_cluster_plan's full form as JSON, or Megatron's shorthand
 * {"tp": 8, "pp": 4, "dp": 2, "micro_batch": 1}. The reader validates. */
pp_status pp_cluster_plan_load(const char *path, const pp_cluster *c,
                               const pp_cluster_workload *w, pp_cluster_plan **out,
                               pp_error *err);
/* The same for size bytes of text at data, `name` standing for the file in
 * messages. */
pp_status cluster_plan_load_buffer(const char *name, const void *data, size_t size,
                                   const pp_cluster *c, const pp_cluster_workload *w,
                                   pp_cluster_plan **out, pp_error *err);

#endif
