/* request.c: a front door's IOPDDL request, its one check and the
 * solver's options it stands for (see parplan/iopddl_request.h). */
#include "parplan/iopddl_request.h"
#include "core/options_internal.h"
#include "iopddl/request_internal.h"

void pp_iopddl_request_default(pp_iopddl_request *r)
{
    *r = (pp_iopddl_request){.timeout = 60, .seed = 1};
}

pp_status pp_iopddl_request_check(const pp_iopddl_request *r, pp_error *err)
{
    pp_status st = pp_option_check_solver(r->timeout, r->threads, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_option_rounds, (double)r->rounds, err);
    return st;
}

void pp_iopddl_request_options(const pp_iopddl_request *r, double budget, pp_iopddl_options *o)
{
    pp_iopddl_options_default(o);
    o->time_limit = budget;
    o->threads = (int)r->threads;
    o->seed = r->seed;
    o->max_rounds = r->rounds;
    o->no_exact = r->no_exact;
    if (r->no_bound)
        o->bound_share = 0;
}
