/* shard_request.h: what a front door asks of the auto-sharder (the CLI's
 * `shard`, Python's parplan.shard), checked once here for both: the same
 * bad value gets the same words from either. */
#ifndef PARPLAN_SHARD_REQUEST_H
#define PARPLAN_SHARD_REQUEST_H

#include "parplan/options.h"
#include "parplan/shard_plan.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct {
    double memory;  /* bytes per device (pp_option_memory); 0: the device's */
    double timeout; /* seconds for the whole job (pp_option_timeout): 60 */
    int64_t threads; /* pp_option_threads; 0: the machine's cores */
    uint64_t seed;  /* 1 */
    const char *search; /* "mcts", "iopddl" or "both" (pp_shard_searches_parse) */
} pp_shard_request;

void pp_shard_request_default(pp_shard_request *r);
/* PP_EARG naming the first option out of its range or not known. */
pp_status pp_shard_request_check(const pp_shard_request *r, pp_error *err);
/* The planner's options for a checked r, planning for `budget` seconds. */
void pp_shard_request_options(const pp_shard_request *r, double budget, pp_shard_plan_options *o);

#pragma GCC visibility pop

#endif
