/* request.c: the one check of a plan request (pp_plan_request_check), the
 * ranges the CLI's flags point at and Python's keywords meet: the same bad
 * value gets the same words from either front door. */
#include "core/options_internal.h"
#include "plan/plan_internal.h"

const pp_option_range pp_plan_option_batch = {"batch", 0, 1e15, false, true, NULL};
const pp_option_range pp_plan_option_microbatches = {"microbatches", 0, 1 << 20, false, true, NULL};

pp_status pp_plan_request_check(const pp_plan_request *r, pp_error *err)
{
    pp_status st = pp_option_check_solver(r->time_limit, r->threads, err);
    if (st == PP_OK && r->memory != 0)
        st = pp_option_check(&pp_option_memory, r->memory, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_plan_option_batch, (double)r->batch, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_plan_option_microbatches, (double)r->microbatches, err);
    return st;
}
