/* test_gen_refs.c: the references of the deeper schemes, each checked by the
 * checker on its own problem, with its makespan and span against values
 * derived by hand from the scheme's definition at unit op times, its peak
 * against the paper's memory, and refused one micro-batch below it.
 *
 * ZB-H2 (Qi et al., arXiv 2401.10241, section 2.2): device s runs
 * 2(P - s) - 1 warm-up forwards, so the first device holds 2P - 1
 * micro-batches, and with T_F = T_B = T_W no device idles between its first
 * op and its last once M >= 2P (Sea AI's comparison of their schedules at
 * equal times: ZB2P's bubble rate 0, twice 1F1B's activations). Each
 * device's span is then its work, 3M; the last device cannot start before
 * the first forward crossed the P - 1 before it, so the makespan is
 * P - 1 + 3M.
 *
 * Interleaved 1F1B (Narayanan et al., SC'21, section 2.2.2): V stages per
 * device cut the bubble to (P-1)/V of 1F1B's; 1F1B's is P - 1 fused
 * passes of a whole device's layers, so at unit per-stage times (a fused
 * backward 2) each device idles 3(P-1), and the makespan is 3MV + 3(P-1).
 * By hand at P = 2, V = 2, M = 2 (stages 0 and 2 on dev0, 1 and 3 on dev1):
 * dev0 F0.0 0-1, F1.0 1-2, F0.2 2-3, F1.2 3-4; dev1 F0.1 1-2, F1.1 2-3,
 * F0.3 3-4, B0.3 4-6, F1.3 6-7, B1.3 7-9; dev0 B0.2 6-8, B1.2 9-11; dev1
 * B0.1 9-11, B1.1 11-13; dev0 B0.0 11-13, B1.0 13-15: 15 = 3*4 + 3. Device
 * 0 runs (V-1)P + 2(P-1) warm-up forwards and one more before its first
 * backward frees one: it peaks at (V+1)P - 1 stage activations.
 *
 * ZB-V (Qi et al. section 6): 2P stages, device d holding d and 2P - 1 - d,
 * at most 2P stage activations per device (1F1B's memory, a stage being
 * half of 1F1B's). The last device receives its first forward at P - 1 and
 * then has 6M unit ops of work, so no schedule ends before 6M + P - 1, and
 * the reference ends there at every size tried; every device peaks at 2P. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "sched/sched_internal.h"

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

static void interleaved(void)
{
    static const int cases[][3] = {{2, 2, 2}, {2, 2, 4}, {3, 2, 6}, {4, 2, 8}, {4, 3, 8}, {4, 2, 16}};
    for (int c = 0; c < 6; c++) {
        int P = cases[c][0], V = cases[c][1], M = cases[c][2];
        int peak = M * V > (V + 1) * P - 1 ? (V + 1) * P - 1 : M * V;
        pp_pipe_spec spec = {.stages = P, .chunks = V, .microbatches = M, .scheme = PP_PIPE_INTERLEAVED,
                             .mem_act = peak};
        pp_sched_report r;
        if (!run(spec, &r))
            continue;
        fprintf(stderr, "interleaved P=%d V=%d M=%2d: makespan %g (3MV+3(P-1): %d), peak %g (%d)\n", P, V, M,
                r.makespan, 3 * M * V + 3 * (P - 1), r.peak_memory[0] - V, peak);
        CHECK(r.makespan == 3 * M * V + 3 * (P - 1));
        for (int d = 0; d < P; d++)
            CHECK(r.bubble[d] == 3 * (P - 1));
        CHECK(r.peak_memory[0] - V == peak);
        pp_sched_report_free(&r);
        spec.comm = 0.5;
        if (run(spec, &r))
            pp_sched_report_free(&r);
        spec.comm = 0;
        spec.mem_act = peak - 1;
        refused(spec);
    }
}

static void zb_v(void)
{
    static const int cases[][2] = {{2, 4}, {3, 6}, {4, 8}, {4, 12}, {6, 12}, {8, 16}};
    for (int c = 0; c < 6; c++) {
        int P = cases[c][0], M = cases[c][1];
        pp_pipe_spec spec = {.stages = P, .microbatches = M, .scheme = PP_PIPE_ZBV, .mem_act = 2 * P};
        pp_sched_report r;
        if (!run(spec, &r))
            continue;
        fprintf(stderr, "ZB-V P=%d M=%2d: makespan %g (6M+P-1: %d), span %g\n", P, M, r.makespan,
                6 * M + P - 1, r.max_span);
        CHECK(r.makespan == 6 * M + P - 1);
        for (int d = 0; d < P; d++)
            CHECK(r.peak_memory[d] - 2 == 2 * P);
        pp_sched_report_free(&r);
        /* The V: stage 2P - 1 on device 0, stage P on device P - 1. */
        pp_sched_problem *p = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, NULL, &err), PP_OK);
        char last[32], turn[32];
        snprintf(last, sizeof last, "F0.%d", 2 * P - 1);
        snprintf(turn, sizeof turn, "B0.%d", P);
        CHECK(p && pp_sched_op_allowed(p, pp_sched_find_op(p, last), 0));
        CHECK(p && pp_sched_op_allowed(p, pp_sched_find_op(p, turn), P - 1));
        CHECK(p && !pp_sched_op_allowed(p, pp_sched_find_op(p, turn), 0));
        pp_sched_problem_free(p);
        spec.comm = 0.5;
        spec.w_mem = 0.28;
        spec.t_f = 1.5;
        if (run(spec, &r))
            pp_sched_report_free(&r);
        spec.mem_act = 0.5;
        refused(spec);
    }
}

/* Chunks belong to interleaved 1F1B, which needs at least two and groups of
 * P micro-batches. */
static void interleaved_refusals(void)
{
    static const struct {
        pp_pipe_scheme scheme;
        int chunks, microbatches;
        const char *needle;
    } bad[] = {{PP_PIPE_INTERLEAVED, 1, 8, "chunks"},
               {PP_PIPE_INTERLEAVED, 65, 8, "chunks"},
               {PP_PIPE_1F1B, 2, 8, "chunks"},
               {PP_PIPE_ZBV, 3, 8, "chunks"},
               {PP_PIPE_INTERLEAVED, 2, 6, "multiple"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pp_pipe_spec spec = {.stages = 4, .chunks = bad[i].chunks, .microbatches = bad[i].microbatches,
                             .scheme = bad[i].scheme, .mem_act = 100};
        pp_sched_problem *p = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, NULL, &err), PP_EARG);
        CHECK(p == NULL && strstr(err.message, bad[i].needle) != NULL);
    }
}

int main(void)
{
    zb_h2();
    interleaved();
    zb_v();
    interleaved_refusals();
    return CHECK_DONE();
}
