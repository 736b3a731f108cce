/* test_greedy.c: the memory-aware constructive start (src/sched/greedy.c).
 * On zero-bubble pipelines as practitioners time them (Qi et al.'s T_F 5478,
 * T_B 5806, T_W 3534, comm 200 us), stated only as ops, dependencies and
 * memory effects, the start alone is as short as gen_zb.c's pipeline greedy
 * (`gen pipeline --scheme zb`, which knows the stages) and passes the
 * independent checker; on a random graph whose ops may run anywhere it is
 * valid and no better than the lower bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "qi_pipeline.h"
#include "sched/sched_internal.h"
#include "sched/solver.h"

/* The greedy's start for p, checked; its makespan (NAN when it fails). */
static double greedy_start(const pp_sched_problem *p)
{
    size_t n = (size_t)p->op_count + 1;
    double *head = malloc(n * sizeof(double)), *tail = malloc(n * sizeof(double));
    sc_solution out = {0}, scratch = {0};
    sc_decoder dec = {0};
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    double makespan = NAN;
    if (!head || !tail || !s || !sc_solution_alloc(&out, p->op_count) ||
        !sc_solution_alloc(&scratch, p->op_count) || !sc_decoder_init(&dec, p)) {
        CHECK(!"out of memory");
        goto done;
    }
    sc_heads_tails(p, head, tail);
    pp_deadline none = {0};
    sc_cost cost;
    CHECK(sc_construct_greedy(p, head, tail, pp_sched_lower_bound(p), &none, &dec, &out, &scratch, &cost));
    sc_decode(&dec, &out);
    sc_decoder_export(&dec, &out, s);
    pp_sched_report rep;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &rep, &err), PP_OK);
    CHECK(rep.makespan == cost.makespan);
    CHECK(rep.makespan >= pp_sched_lower_bound(p) * (1 - 1e-12));
    makespan = rep.makespan;
    pp_sched_report_free(&rep);
done:
    sc_decoder_free(&dec);
    sc_solution_free(&out);
    sc_solution_free(&scratch);
    pp_sched_schedule_free(s);
    free(head);
    free(tail);
    return makespan;
}

/* P stages, M micro-batches, an activation limit of `limit` micro-batches,
 * W keeping w_mem of them: the start is no longer than the pipeline
 * greedy's reference. */
static void pipeline(int P, int M, double limit, double w_mem)
{
    pp_sched_schedule *ref = NULL;
    pp_sched_problem *p = qi_pipeline(P, M, PP_PIPE_ZB, limit, w_mem, &ref);
    if (!p)
        return;
    double mine = greedy_start(p), theirs = pp_sched_makespan(ref);
    double work = M * (5478.0 + 5806 + 3534);
    fprintf(stderr, "P=%d M=%d limit %g w-mem %g: pipeline greedy %.2f%%, start %.2f%%, bound %.2f%%\n", P, M,
            limit, w_mem, 100 * (1 - work / theirs), 100 * (1 - work / mine),
            100 * (1 - work / pp_sched_lower_bound(p)));
    CHECK(mine <= theirs * (1 + 1e-12));
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

/* The span start (sc_construct_greedy_span) on the span setting:
 * 3P micro-batches, 2P activations, Qi et al.'s times. Its FILL_RESERVE
 * policies defer to each device's drain only the W's that fit there before
 * the device's first op plus the span bound; re-timed (span.c), the start
 * alone is valid by the checker and its longest span at most `figure` (at
 * P = 16 with W keeping 0.28, and at P = 32, the span bound itself: the
 * makespan grid's best span there was 1,516,310, 6.19%). */
static void span_start(int P, double w_mem, double figure)
{
    pp_sched_schedule *ref = NULL;
    pp_error err = {0};
    pp_sched_problem *p = qi_pipeline(P, 3 * P, PP_PIPE_ZB, 2 * P, w_mem, &ref);
    if (!p)
        return;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    bool found = false;
    pp_deadline none = {0};
    CHECK(s && sc_construct_greedy_span(p, &none, s, &found));
    CHECK(found);
    if (s && found) {
        CHECK_EQ_INT(sc_compact_spans(p, s, &err), PP_OK);
        pp_sched_report rep;
        CHECK_EQ_INT(pp_sched_check(p, s, &rep, &err), PP_OK);
        double work = 3 * P * (5478.0 + 5806 + 3534);
        fprintf(stderr, "span start P=%d w-mem %g: span bubble %.2f%%, bound %.2f%%\n", P, w_mem,
                100 * (1 - work / rep.max_span), 100 * (1 - work / pp_sched_span_lower_bound(p)));
        CHECK(rep.max_span <= figure * (1 + 1e-12));
        CHECK(rep.max_span >= pp_sched_span_lower_bound(p) * (1 - 1e-12));
        pp_sched_report_free(&rep);
    }
    pp_sched_schedule_free(s);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

static void random_graph(void)
{
    pp_random_spec spec = {.ops = 300, .max_degree = 3, .devices = 4, .seed = 7};
    pp_sched_problem *p;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_random(&spec, &p, &err), PP_OK);
    if (!p)
        return;
    CHECK(isfinite(greedy_start(p)));
    pp_sched_problem_free(p);
}

int main(void)
{
    pipeline(4, 12, 4, 0.28);
    pipeline(4, 12, 8, 0);
    pipeline(8, 24, 16, 0.28);
    pipeline(8, 64, 8, 0.28);
    pipeline(8, 64, 8, 0);
    pipeline(16, 48, 16, 0.28);
    pipeline(16, 48, 32, 0.28);
    pipeline(32, 96, 32, 0.28);
    span_start(8, 0, 362498);
    span_start(8, 0.28, 361790);
    span_start(16, 0, 722898);
    span_start(16, 0.28, 720426);
    span_start(32, 0.28, 1449002);
    random_graph();
    return CHECK_DONE();
}
