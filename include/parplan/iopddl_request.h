/* iopddl_request.h: what a front door asks of the IOPDDL solver (the CLI's
 * `solve` and `iopddl`, Python's parplan.iopddl.solve), checked once here
 * for both: the same bad value gets the same words from either. */
#ifndef PARPLAN_IOPDDL_REQUEST_H
#define PARPLAN_IOPDDL_REQUEST_H

#include "parplan/iopddl.h"
#include "parplan/options.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct {
    double timeout;   /* seconds for the whole job, reading included (pp_option_timeout): 60 */
    int64_t threads;  /* pp_option_threads; 0: one per core */
    uint64_t seed;    /* 1 */
    int64_t rounds;   /* relaxation rounds per worker (pp_option_rounds); 0: until the timeout */
    bool no_exact;    /* heuristics only, even where the exact solver would run */
    bool no_bound;    /* no stage for the certified bound (its time goes to the search) */
} pp_iopddl_request;

void pp_iopddl_request_default(pp_iopddl_request *r);
/* PP_EARG naming the first option out of its range. */
pp_status pp_iopddl_request_check(const pp_iopddl_request *r, pp_error *err);
/* The solver's options for r, solving for `budget` seconds. */
void pp_iopddl_request_options(const pp_iopddl_request *r, double budget, pp_iopddl_options *o);

#pragma GCC visibility pop

#endif
