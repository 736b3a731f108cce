/* test_lag_search.c: the lag search (src/sched/lag_search.c) on Qi et al.'s
 * zero-bubble pipelines at an activation budget of P micro-batches (1p, W
 * keeping 0.28: issue 29's setting), from the zero-bubble heuristic's
 * schedule: below it at P = 5, M = 9 (to the exact optimum, which
 * test_pipe_branch proves) and at P = 16, M = 48, never below the lower
 * bound, every answer through the checker; and problems it does not
 * recognise as such a pipeline left as they are. No deadline: the search
 * runs to its end, so its answers do not depend on the machine. */
#include <math.h>
#include <stdio.h>
#include "check.h"
#include "qi_pipeline.h"
#include "sched/sched_internal.h"
#include "sched/solver.h"

/* The heuristic's schedule searched: the makespan it ends at (checked
 * valid, never under the bound), or NAN. */
static double searched(pp_sched_problem *p, const pp_sched_schedule *ref, bool *improved)
{
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    pp_error err = {0};
    pp_sched_schedule_copy(s, ref);
    CHECK_EQ_INT(sc_lag_search(p, s, NULL, improved, &err), PP_OK);
    pp_sched_report rep;
    CHECK_EQ_INT(pp_sched_check(p, s, &rep, &err), PP_OK);
    double makespan = rep.makespan;
    pp_sched_report_free(&rep);
    CHECK(makespan >= pp_sched_lower_bound(p) * (1 - 1e-12));
    CHECK(makespan <= pp_sched_makespan(ref));
    pp_sched_schedule_free(s);
    return makespan;
}

static void below_heuristic(int P, int M, double expected)
{
    pp_sched_schedule *ref = NULL;
    pp_sched_problem *p = qi_pipeline(P, M, PP_PIPE_ZB, P, 0.28, &ref);
    REQUIRE(p && ref);
    bool improved = false;
    double makespan = searched(p, ref, &improved);
    printf("P = %d, M = %d: heuristic %.0f, lag search %.0f, bound %.0f\n", P, M, pp_sched_makespan(ref), makespan,
           pp_sched_lower_bound(p));
    CHECK(improved);
    CHECK(makespan < pp_sched_makespan(ref));
    CHECK(fabs(makespan - expected) <= 1e-9 * expected);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

/* Interleaved 1F1B puts two stages on each device, and a single
 * micro-batch has no copies: neither is a pipeline the search knows. */
static void left_alone(pp_pipe_scheme scheme, int M)
{
    pp_sched_schedule *ref = NULL;
    pp_sched_problem *p = qi_pipeline(4, M, scheme, 8, 0.28, &ref);
    REQUIRE(p && ref);
    bool improved = true;
    double makespan = searched(p, ref, &improved);
    CHECK(!improved);
    CHECK(makespan == pp_sched_makespan(ref));
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

int main(void)
{
    below_heuristic(5, 9, 166300);
    below_heuristic(6, 10, 189668);
    below_heuristic(16, 48, 838652);
    left_alone(PP_PIPE_ZBV, 8);
    left_alone(PP_PIPE_ZB, 1);
    return CHECK_DONE();
}
