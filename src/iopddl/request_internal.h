/* request_internal.h: what run.c's job needs of the request and the problem
 * beside pp_iopddl_run itself (request.c, run.c): the solver's options, the
 * problem's size in memory, and the time left for solving it. */
#ifndef PP_IOPDDL_REQUEST_INTERNAL_H
#define PP_IOPDDL_REQUEST_INTERNAL_H

#include "parplan/iopddl_request.h"

/* The solver's options for r, solving for `budget` seconds. */
void pp_iopddl_request_options(const pp_iopddl_request *r, double budget, pp_iopddl_options *o);

/* Bytes p takes in memory, as the loader holds it. */
double pp_iopddl_problem_bytes(const pp_iopddl_problem *p);

/* Seconds left of a job of `timeout` seconds started at `started` for
 * solving p, keeping the margin its size needs (pp_job_margin, with the
 * slowdown measured while reading); 0 or less when reading took it all. */
double pp_iopddl_budget(double timeout, double started, const pp_iopddl_problem *p, double slowdown);

#endif
