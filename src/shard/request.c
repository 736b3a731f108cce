/* request.c: a front door's sharding request, its one check and the
 * planner's options it stands for (see parplan/shard_request.h). */
#include "parplan/shard_request.h"
#include "core/options_internal.h"
#include "shard/request_internal.h"

void pp_shard_request_default(pp_shard_request *r)
{
    *r = (pp_shard_request){.timeout = 60, .seed = 1, .search = "both", .precision = "typed", .format = "gspmd"};
}

pp_status pp_shard_request_check(const pp_shard_request *r, pp_error *err)
{
    pp_status st = r->memory == 0 ? PP_OK : pp_option_check(&pp_option_memory, r->memory, err);
    if (st == PP_OK)
        st = pp_option_check_solver(r->timeout, r->threads, err);
    if (st == PP_OK)
        st = pp_option_check_choice("search", r->search, PP_SHARD_SEARCHES, err);
    if (st == PP_OK)
        st = pp_option_check_choice("precision", r->precision, PP_SHARD_PRECISIONS, err);
    if (st == PP_OK)
        st = pp_option_check_choice("format", r->format, PP_SHARD_FORMATS, err);
    return st;
}

void pp_shard_request_options(const pp_shard_request *r, double budget, pp_shard_plan_options *o)
{
    pp_shard_plan_options_default(o);
    o->memory = r->memory;
    o->time_limit = budget;
    o->threads = (int32_t)r->threads;
    o->seed = r->seed;
    pp_shard_searches_parse(r->search, &o->searches, NULL);
}
