/* test_gen_refs.c: the references of the deeper schemes, each checked by the
 * checker on its own problem, with its makespan and span against values
 * derived by hand from the scheme's definition at unit op times, its peak
 * against the paper's memory, and refused one micro-batch below it.
 *
 * ZB-H2 (Qi et al., arXiv 2401.10241, section 2.2): device s runs
 * 2(P - s) - 1 warm-up forwards, so the first device holds 2P - 1
 * micro-batches, and with T_F = T_B = T_W no device idles between its first
 * op and its last once M >= 2P (their table: bubble (p-1)(T_F+T_B-2T_W) =
 * 0). Each device's span is then its work, 3M; the last device cannot start
 * before the first forward crossed the P - 1 before it, so the makespan is
 * P - 1 + 3M. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "parplan/sched.h"

/* Generates and checks one reference; fills the report (freed by the caller). */
static bool run(pp_pipe_spec spec, pp_sched_report *r)
{
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
    bool ok = p && s;
    if (ok)
        CHECK_EQ_INT(pp_sched_check(p, s, r, &err), PP_OK);
    else
        fprintf(stderr, "scheme %d P=%d M=%d: %s\n", (int)spec.scheme, spec.stages, spec.microbatches,
                err.message);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return ok;
}

static void refused(pp_pipe_spec spec)
{
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_EARG);
    CHECK(p == NULL && s == NULL && strstr(err.message, "does not fit") != NULL);
}

static void zb_h2(void)
{
    static const int cases[][2] = {{2, 4}, {3, 6}, {4, 8}, {4, 12}, {6, 16}};
    for (int c = 0; c < 5; c++) {
        int P = cases[c][0], M = cases[c][1];
        pp_pipe_spec spec = {.stages = P, .microbatches = M, .scheme = PP_PIPE_ZB2P, .mem_act = 2 * P - 1};
        pp_sched_report r;
        if (!run(spec, &r))
            continue;
        fprintf(stderr, "ZB2P P=%d M=%2d: makespan %g (P-1+3M: %d), span %g (3M: %d), peak %g (2P-1: %d)\n", P,
                M, r.makespan, P - 1 + 3 * M, r.max_span, 3 * M, r.peak_memory[0] - 1, 2 * P - 1);
        CHECK(r.makespan == P - 1 + 3 * M);
        CHECK(r.max_span == 3 * M);
        CHECK(r.peak_memory[0] - 1 == 2 * P - 1);
        pp_sched_report_free(&r);
        spec.comm = 0.5;
        if (run(spec, &r))
            pp_sched_report_free(&r);
        spec.comm = 0;
        spec.mem_act = 2 * P - 2;
        refused(spec);
    }
}

int main(void)
{
    zb_h2();
    return CHECK_DONE();
}
