/* sched_solved.h: a scheduling problem solved in a test, its answer held to
 * the independent checker (pp_sched_check) and to its colocated groups
 * (every op on its group's first op's device). */
#ifndef PP_TESTS_SCHED_SOLVED_H
#define PP_TESTS_SCHED_SOLVED_H

#include <math.h>
#include "check.h"
#include "sched/sched_internal.h"

/* The makespan (NAN, a failed check, when the solver fails); the schedule
 * goes to *keep when keep is given, and is freed otherwise. */
static inline double solve_checked(const pp_sched_problem *p, const pp_sched_options *o, pp_sched_schedule **keep)
{
    pp_sched_result r;
    pp_error err = {0};
    if (pp_sched_solve(p, o, &r, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        return NAN;
    }
    pp_sched_report report;
    CHECK_EQ_INT(pp_sched_check(p, r.schedule, &report, &err), PP_OK);
    pp_sched_report_free(&report);
    for (int i = 0; i < p->op_count; i++)
        CHECK_EQ_INT(r.schedule->device[i], r.schedule->device[p->group[i]]);
    double makespan = r.makespan;
    if (keep) {
        *keep = r.schedule;
        r.schedule = NULL;
    }
    pp_sched_result_free(&r);
    return makespan;
}

#endif
