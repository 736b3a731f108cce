/* budget.c: a stage's share of the plan's time limit (plan_share; the
 * shares are PLAN_SHARE_* in plan_internal.h): the sharder's, the
 * baselines' and the scheduler's calls each take theirs from here. */
#include <math.h>
#include "plan/plan_internal.h"

double plan_share(const plan_ctx *X, double share)
{
    double limit = X->req->time_limit > 0 ? X->req->time_limit : 60;
    return fmin(share * limit, 0.5 * pp_deadline_left(&X->deadline));
}
