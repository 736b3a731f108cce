/* request.c: a front door's scheduling request, its one check and the
 * solver's options it stands for (see parplan/sched_request.h). */
#include <stdint.h>
#include <string.h>
#include "parplan/sched_request.h"
#include "core/options_internal.h"
#include "sched/sched_internal.h"

const pp_option_range pp_sched_option_coarsen = {"coarsen", 0, INT32_MAX, false, true, NULL};
const pp_option_range pp_sched_option_period = {"period", 0, 1e300, true, false, NULL};

static const struct {
    const char *name;
    pp_sched_objective objective;
} objectives[] = {{"makespan", PP_SCHED_MAKESPAN},
                  {"span", PP_SCHED_SPAN},
                  {"cyclic", PP_SCHED_CYCLIC},
                  {"cyclic-async", PP_SCHED_CYCLIC_ASYNC}};

static bool objective_of(const char *name, pp_sched_objective *out)
{
    for (size_t k = 0; k < sizeof objectives / sizeof objectives[0]; k++)
        if (strcmp(objectives[k].name, name) == 0) {
            *out = objectives[k].objective;
            return true;
        }
    return false;
}

void pp_sched_request_default(pp_sched_request *r)
{
    *r = (pp_sched_request){.timeout = 10, .seed = 1, .objective = "makespan"};
}

pp_status pp_sched_request_check(const pp_sched_request *r, pp_error *err)
{
    pp_status st = pp_option_check_solver(r->timeout, r->threads, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_option_rounds, (double)r->rounds, err);
    if (st == PP_OK)
        st = pp_option_check(&pp_sched_option_coarsen, (double)r->coarsen, err);
    if (st == PP_OK)
        st = pp_option_check_choice("objective", r->objective, PP_SCHED_OBJECTIVES, err);
    return st;
}

void pp_sched_request_options(const pp_sched_request *r, double budget, pp_sched_options *o)
{
    pp_sched_options_default(o);
    o->time_limit = budget;
    o->threads = (int)r->threads;
    o->seed = r->seed;
    o->max_rounds = (long)r->rounds;
    o->no_mip = r->no_mip;
    o->coarsen_to = (int)r->coarsen;
    objective_of(r->objective, &o->objective);
}
