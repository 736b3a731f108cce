/* test_pipe_optimum.c: the exact optima of small zero-bubble pipelines at
 * Qi et al.'s times (tests/qi_pipeline.h), found by trying every device
 * order (exhaustive.h), with the lower bound and the zero-bubble heuristic
 * beside each (issue 29). The bound must not pass the optimum, the
 * heuristic and the solver must not beat it, the optimum's schedule must
 * pass the checker (so channels did not bind it and it is the optimum), and
 * the MIP (mip.c), where it proves its answer, must agree. The table it
 * prints is BENCHMARKS.md's. At an activation budget of P micro-batches
 * with W keeping 0.28 of them (1p, the setting), the heuristic is
 * optimal at every size here, and the bound reaches the optimum at every
 * size here (checked): the bound over copies' ranks (rank_bound.c) counts
 * the round trips that memory forces; before it, the bound fell
 * (P - 1) x 2,344 us short from M = P + 1 on at P = 2. */
#include <math.h>
#include <stdio.h>
#include "check.h"
#include "exhaustive.h"
#include "qi_pipeline.h"
#include "sched_solved.h"
#include "sched/mip.h"

typedef struct {
    int P, M, k;    /* k: budget of k x P micro-batches */
    double w_mem;
    bool mip;       /* small enough for the MIP to prove within its limit */
} setting;

static void one(const setting *c)
{
    pp_sched_schedule *ref = NULL;
    pp_sched_problem *p = qi_pipeline(c->P, c->M, PP_PIPE_ZB, c->k * c->P, c->w_mem, &ref);
    if (!p)
        return;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    long combinations = 0;
    double optimum = exhaustive_makespan(p, true, s, &combinations);
    pp_sched_report rep;
    pp_error err = {0};
    CHECK(isfinite(optimum));
    CHECK_EQ_INT(pp_sched_check(p, s, &rep, &err), PP_OK);
    CHECK(fabs(rep.makespan - optimum) <= 1e-9 * optimum);
    pp_sched_report_free(&rep);
    double bound = pp_sched_lower_bound(p), heuristic = pp_sched_makespan(ref);
    CHECK(bound <= optimum + 1e-9);
    CHECK(bound >= optimum - 1e-9);
    CHECK(heuristic >= optimum - 1e-9);

    pp_sched_options o;
    pp_sched_options_default(&o);
    o.threads = 1;
    o.max_rounds = 20000;
    double solved = solve_checked(p, &o, NULL);
    CHECK(solved >= optimum - 1e-9);
    CHECK(solved <= heuristic + 1e-9);

    double mip = NAN;
    if (c->mip) {
        sc_mip_options mo = {60, 1, ref, NULL};
        sc_mip_result mr;
        pp_sched_schedule *m = pp_sched_schedule_new(p);
        CHECK_EQ_INT(sc_mip_solve(p, &mo, m, &mr, &err), PP_OK);
        CHECK(mr.bound <= optimum + 1e-6);
        if (mr.optimal) {
            mip = mr.makespan;
            CHECK(fabs(mr.makespan - optimum) <= 1e-6 * optimum);
        }
        pp_sched_schedule_free(m);
    }
    printf("| %d | %d | %d | %g | %.0f | %.0f | %.0f | %.2f%% | %.0f | %s | %ld |\n", c->P, c->M, c->k * c->P,
           c->w_mem, optimum, heuristic, bound, 100 * (optimum - bound) / optimum, solved,
           isnan(mip) ? "-" : "same", combinations);
    pp_sched_schedule_free(s);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

int main(void)
{
    static const setting settings[] = {
        {2, 2, 1, 0.28, true}, {2, 3, 1, 0.28, false}, {2, 4, 1, 0.28, false}, {2, 5, 1, 0.28, false},
        {3, 3, 1, 0.28, false}, {2, 4, 1, 0, false},   {2, 4, 2, 0.28, false}, {3, 3, 2, 0.28, false},
    };
    printf("| P | M | limit | W keeps | optimum | heuristic | bound | bound's gap | solver | MIP | "
           "combinations |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++)
        one(&settings[k]);
    return CHECK_DONE();
}
