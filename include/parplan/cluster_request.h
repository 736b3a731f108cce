/* cluster_request.h: what a front door asks of the cluster planner (the
 * CLI's `cluster plan|replan|simulate`, Python's parplan.cluster), checked
 * once here for both: the same bad value gets the same words from either. */
#ifndef PARPLAN_CLUSTER_REQUEST_H
#define PARPLAN_CLUSTER_REQUEST_H

#include "parplan/cluster.h"
#include "parplan/options.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Seconds into the run whose conditions are planned for: >= 0. */
extern const pp_option_range pp_cluster_option_at;
/* The largest context parallelism searched: 1 (none) to 2^20. */
extern const pp_option_range pp_cluster_option_context_parallel;

typedef struct {
    double timeout;           /* seconds for the whole job (pp_option_timeout): 60 */
    int64_t threads;          /* pp_option_threads; 0: the machine's cores */
    uint64_t seed;            /* 1 */
    double at;                /* pp_cluster_option_at: 0 */
    int64_t context_parallel; /* pp_cluster_option_context_parallel: 1 */
} pp_cluster_request;

void pp_cluster_request_default(pp_cluster_request *r);
/* PP_EARG naming the first option out of its range. */
pp_status pp_cluster_request_check(const pp_cluster_request *r, pp_error *err);

#pragma GCC visibility pop

#endif
