/* request.c: a front door's cluster-planning request and its one check
 * (see parplan/cluster_request.h). */
#include "parplan/cluster_request.h"
#include "core/options_internal.h"

const pp_option_range pp_cluster_option_at = {"at", 0, 1e300, false, false, NULL};
const pp_option_range pp_cluster_option_context_parallel = {"context_parallel", 1, 1 << 20, false, true, NULL};

void pp_cluster_request_default(pp_cluster_request *r)
{
    *r = (pp_cluster_request){.timeout = 60, .seed = 1, .context_parallel = 1};
}

pp_status pp_cluster_request_check(const pp_cluster_request *r, pp_error *err)
{
    pp_status st = pp_option_check_solver(r->timeout, r->threads, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_cluster_option_at, r->at, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_cluster_option_context_parallel, (double)r->context_parallel, err);
    if (st == PP_OK && r->stack)
        st = pp_option_check_choice("stack", r->stack, PP_CLUSTER_STACKS, err);
    return st;
}
