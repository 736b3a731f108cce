/* load_plan.h: the plan reader for text already in memory (the fuzzer feeds
 * it without a file). Same format and errors as pp_cluster_plan_load, with
 * `name` standing for the file in messages. */
#ifndef PP_CLUSTER_LOAD_PLAN_H
#define PP_CLUSTER_LOAD_PLAN_H

#include <stddef.h>
#include "parplan/cluster.h"

pp_status cluster_plan_load_buffer(const char *name, const void *data, size_t size,
                                   const pp_cluster *c, const pp_cluster_workload *w,
                                   pp_cluster_plan **out, pp_error *err);

#endif
