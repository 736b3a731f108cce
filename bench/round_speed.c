/* round_speed.c: CPU time of the relaxation's pieces on one instance, for
 * bench/iopddl-round. One worker (seed 1) from the least-usage assignment
 * runs ROUNDS rounds without a deadline, so the work and the answer are the
 * same on every run and machine; only the clock differs. Then the descent
 * and TRW-S alone, REPEAT times each from the worker's last answer and
 * weights. Prints one line: "cpu_per_round descent_cpu trws_cpu best" (CPU
 * seconds; best is the worker's best cost after the rounds). With a third
 * argument "regions" the worker solves a region before each restart (as
 * in the solver), and the line ends with the regions tried and those that
 * paid; the CPU time then leaves out the region MIPs, which run in CBC's
 * own process.
 *
 * Further words, for tracing how the weights move (bench only):
 *   worker=N  the worker's id (its starting weight on the ladder; 0)
 *   seed=N    the worker's seed (1)
 *   first     start from the solver's kind of first answer: one round with
 *             every weight at its cap, repaired without a limit (as
 *             solve.c's first stage, one attempt)
 *   trace     one line a round on stderr: round, whether the relaxed answer
 *             fits, its peak over the limit, its cost, the mean log10
 *             weight of the relevant nodes, the best cost, the round's
 *             CPU seconds */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iopddl/relax.h"

enum { REPEAT = 5 };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void trace_round(const iopddl_worker *w, const uint8_t *relevant, iopddl_profile *pr, double cpu)
{
    const iopddl_model *m = w->m;
    bool fits = iopddl_profile_fits(pr, m, w->x);
    double logs = 0;
    uint32_t count = 0;
    for (uint32_t v = 0; v < m->node_count; v++)
        if (relevant[v] && w->weight[v] > 0)
            logs += log10(w->weight[v]), count++;
    fprintf(stderr, "%lld %s %.3f %lld %.2f %lld %.2f\n", (long long)w->rounds, fits ? "fits" : "over",
            m->has_limit ? (double)iopddl_profile_peak(pr) / (double)m->limit : 0.0,
            (long long)iopddl_model_cost(m, w->x), count ? logs / count : 0.0, (long long)w->best_cost, cpu);
}

int main(int argc, char **argv)
{
    bool regions = false, trace = false, first = false;
    int id = 0;
    uint64_t seed = 1;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "regions") == 0)
            regions = true;
        else if (strcmp(argv[i], "trace") == 0)
            trace = true;
        else if (strcmp(argv[i], "first") == 0)
            first = true;
        else if (strncmp(argv[i], "worker=", 7) == 0)
            id = atoi(argv[i] + 7);
        else if (strncmp(argv[i], "seed=", 5) == 0)
            seed = strtoull(argv[i] + 5, NULL, 10);
        else
            argc = 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: round_speed FILE ROUNDS [regions] [trace] [first] [worker=N] [seed=N]\n");
        return 2;
    }
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    iopddl_model *m = NULL;
    if (pp_iopddl_load(argv[1], &p, &err) != PP_OK || iopddl_model_build(p, &m, &err) != PP_OK) {
        fprintf(stderr, "round_speed: %s\n", err.message);
        return 2;
    }
    uint8_t *relevant = pp_arena_alloc(m->arena, (size_t)m->node_count + 1);
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    iopddl_worker w;
    iopddl_profile pr;
    if (!relevant || !x || !iopddl_relevant_nodes(m, m->arena, relevant) || !iopddl_profile_init(&pr, m, m->arena))
        return 2;
    iopddl_min_usage_assignment(m, x);
    iopddl_lns lns = {0};
    const iopddl_groups *groups = iopddl_groups_new(m, m->arena);
    pp_deadline none = {0};
    if (first) {
        if (!iopddl_worker_init(&w, m, relevant, groups, 0, 0, x))
            return 2;
        for (uint32_t v = 0; v < m->node_count; v++)
            w.weight[v] = w.weight_cap[v];
        iopddl_worker_round(&w, &none, 0);
        iopddl_worker_offer(&w, w.x, INT64_MAX, 0, &none);
        if (w.best_cost < INT64_MAX)
            memcpy(x, w.best, m->node_count * sizeof *x);
        if (trace)
            fprintf(stderr, "first %lld\n", (long long)w.best_cost);
        iopddl_worker_free(&w);
    }
    if (!iopddl_worker_init(&w, m, relevant, groups, id, seed, x))
        return 2;
    if (regions) {
        /* As the solver starts it: from a feasible answer, best known. */
        if (!iopddl_lns_init(&lns, m, 1, 1, x, iopddl_model_cost(m, x)))
            return 2;
        w.lns = &lns;
    }
    int rounds = atoi(argv[2]);
    double t0 = cpu_now();
    for (int i = 0; i < rounds; i++) {
        double r0 = cpu_now();
        iopddl_worker_round(&w, &none, 0);
        if (trace)
            trace_round(&w, relevant, &pr, cpu_now() - r0);
    }
    double per_round = (cpu_now() - t0) / (rounds > 0 ? rounds : 1);
    double descent = 0, trws = 0;
    for (int i = 0; i < REPEAT; i++) {
        memcpy(x, w.x, m->node_count * sizeof *x);
        t0 = cpu_now();
        iopddl_forest_descend(w.forest, x, w.weight, &w.rng, 60, 3, &none);
        descent += cpu_now() - t0;
        t0 = cpu_now();
        iopddl_trws_run(w.trws, w.weight, w.trws_iterations, x, &none);
        trws += cpu_now() - t0;
    }
    printf("%.3f %.3f %.3f %lld", per_round, descent / REPEAT, trws / REPEAT, (long long)w.best_cost);
    if (regions)
        printf(" %lld %lld", (long long)w.regions, (long long)w.region_gains);
    printf("\n");
    iopddl_lns_free(&lns);
    iopddl_worker_free(&w);
    free(x);
    iopddl_model_free(m);
    pp_iopddl_free(p);
    return 0;
}
