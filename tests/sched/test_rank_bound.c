/* test_rank_bound.c: the bound over copies' ranks (src/sched/rank_bound.c)
 * is a lower bound. Against brute force: random graphs made of 2 or 3
 * copies of a random job (2 to 4 ops on 1 or 2 devices, memory raised and
 * given back, tight capacities), each optimum found by trying every device
 * order (exhaustive.h, no symmetry assumed). Against schedules: every small
 * zero-bubble pipeline (P <= 4, M <= 8) at Qi et al.'s times, at P and 2P
 * micro-batches of memory and W keeping 0, 0.28 or 0.5, where the bound
 * must not pass the heuristic's schedule nor the solver's, both checked.
 * And it adds nothing where no two components are alike. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "exhaustive.h"
#include "qi_pipeline.h"
#include "sched_solved.h"
#include "sched/solver.h"

static unsigned long rng = 88172645463325252UL;

static int draw(int n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (int)(rng % (unsigned long)n);
}

/* Copies of one random job; NULL when the builder refuses it. */
static pp_sched_problem *random_copies(int *tries)
{
    int ops = 2 + draw(3), devices = 1 + draw(2), copies = 2 + draw(2);
    double duration[4], adjust[4], comm[4][4];
    int device[4];
    bool edge[4][4] = {{false}};
    for (int i = 0; i < ops; i++) {
        static const double adjusts[] = {1, 1, -1, -0.5, 0};
        duration[i] = 1 + draw(5), adjust[i] = adjusts[draw(5)], device[i] = draw(devices);
        for (int j = 0; j < i; j++)
            edge[j][i] = draw(2), comm[j][i] = draw(3);
    }
    pp_sched_problem *p = pp_sched_problem_new();
    for (int d = 0; d < devices; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", d);
        pp_sched_add_device(p, name, 1 + draw(3));
    }
    for (int m = 0; m < copies; m++)
        for (int i = 0; i < ops; i++) {
            char name[32];
            snprintf(name, sizeof name, "o%d.%d", m, i);
            int op = pp_sched_add_op(p, name, "op", duration[i], 0, adjust[i]);
            pp_sched_allow(p, op, device[i]);
            for (int j = 0; j < i; j++)
                if (edge[j][i])
                    pp_sched_add_dep(p, m * ops + j, op, comm[j][i]);
        }
    pp_error err = {0};
    (*tries)++;
    if (pp_sched_problem_finish(p, "random", &err) != PP_OK) {
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

static void against_brute_force(void)
{
    int tries = 0, solved = 0, raised = 0;
    while (solved < CHECK_ROUNDS(150) && tries < 2000) {
        pp_sched_problem *p = random_copies(&tries);
        if (!p)
            continue;
        pp_sched_schedule *s = pp_sched_schedule_new(p);
        double optimum = exhaustive_makespan(p, false, s, NULL);
        if (isfinite(optimum)) {
            double *head = malloc((size_t)p->op_count * sizeof(double));
            double *tail = malloc((size_t)p->op_count * sizeof(double));
            sc_heads_tails(p, head, tail);
            bool stopped;
            double rank = sc_rank_bound(p, tail, NULL, &stopped), bound = pp_sched_lower_bound(p);
            CHECK(!stopped);
            if (rank > optimum + 1e-9 || bound > optimum + 1e-9)
                fprintf(stderr, "try %d: optimum %g, rank bound %g, bound %g\n", tries, optimum, rank, bound);
            CHECK(rank <= optimum + 1e-9);
            CHECK(bound <= optimum + 1e-9);
            raised += rank > 0;
            solved++;
            free(head), free(tail);
        }
        pp_sched_schedule_free(s);
        pp_sched_problem_free(p);
    }
    printf("random copies: %d solved by brute force, the rank bound positive on %d\n", solved, raised);
    CHECK_AT_LEAST(solved, 100);
    CHECK(raised >= solved / 2);
}

static void against_schedules(void)
{
    static const double keeps[] = {0, 0.28, 0.5};
    for (int P = 2; P <= 4; P++)
        for (int M = 1; M <= 8; M++)
            for (int k = 1; k <= 2; k++)
                for (int w = 0; w < 3; w++) {
                    pp_sched_schedule *ref = NULL;
                    pp_sched_problem *p = qi_pipeline(P, M, PP_PIPE_ZB, k * P, keeps[w], &ref);
                    if (!p)
                        continue;
                    double bound = pp_sched_lower_bound(p);
                    pp_sched_report rep;
                    pp_error err = {0};
                    CHECK_EQ_INT(pp_sched_check(p, ref, &rep, &err), PP_OK);
                    CHECK(bound <= rep.makespan + 1e-9);
                    pp_sched_report_free(&rep);
                    pp_sched_options o;
                    pp_sched_options_default(&o);
                    o.threads = 1;
                    o.max_rounds = 200;
                    double solved = solve_checked(p, &o, NULL);
                    CHECK(bound <= solved + 1e-9);
                    pp_sched_schedule_free(ref);
                    pp_sched_problem_free(p);
                }
}

/* One component, or none alike: the rank bound has nothing to say. */
static void nothing_alike(void)
{
    pp_sched_problem *p = qi_pipeline(3, 1, PP_PIPE_ZB, 3, 0.28, NULL);
    REQUIRE(p);
    double *tail = malloc((size_t)p->op_count * sizeof(double)), *head = malloc((size_t)p->op_count * sizeof(double));
    sc_heads_tails(p, head, tail);
    bool stopped;
    CHECK(sc_rank_bound(p, tail, NULL, &stopped) == 0);
    free(head), free(tail);
    pp_sched_problem_free(p);
}

/* Stopped, the bounds say what they have before the stop: the rank bound
 * nothing, the lower bound its first arguments, still no more than the
 * whole bound (which rises here through the ranks) and the reference's
 * makespan, and each says it was cut. */
static void stopped_early(void)
{
    pp_sched_schedule *ref = NULL;
    pp_sched_problem *p = qi_pipeline(8, 24, PP_PIPE_ZB, 8, 0.28, &ref);
    REQUIRE(p && ref);
    double *tail = malloc((size_t)p->op_count * sizeof(double)), *head = malloc((size_t)p->op_count * sizeof(double));
    sc_heads_tails(p, head, tail);
    pp_stop_flag stop = 1;
    pp_deadline now = {.stop = &stop};
    bool stopped = false;
    CHECK(sc_rank_bound(p, tail, &now, &stopped) == 0);
    CHECK(stopped);
    const char *kind, *whole_kind;
    bool whole_stopped = true;
    double cut = sc_lower_bound_named(p, &now, &kind, &stopped);
    double whole = sc_lower_bound_named(p, NULL, &whole_kind, &whole_stopped);
    CHECK(stopped && !whole_stopped);
    CHECK(whole == pp_sched_lower_bound(p));
    CHECK(strcmp(whole_kind, "copies' ranks: each device's round trips and memory per micro-batch") == 0);
    CHECK(cut > 0 && cut < whole);
    pp_sched_report rep;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, ref, &rep, &err), PP_OK);
    CHECK(cut <= whole && whole <= rep.makespan + 1e-9);
    pp_sched_report_free(&rep);
    free(head), free(tail);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
}

int main(void)
{
    against_brute_force();
    against_schedules();
    nothing_alike();
    stopped_early();
    return CHECK_DONE();
}
