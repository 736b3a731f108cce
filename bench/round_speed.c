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
 * own process. */
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

int main(int argc, char **argv)
{
    bool regions = argc == 4 && strcmp(argv[3], "regions") == 0;
    if (argc != 3 && !regions) {
        fprintf(stderr, "usage: round_speed FILE ROUNDS [regions]\n");
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
    if (!relevant || !x || !iopddl_relevant_nodes(m, m->arena, relevant))
        return 2;
    iopddl_min_usage_assignment(m, x);
    iopddl_lns lns = {0};
    if (!iopddl_worker_init(&w, m, relevant, iopddl_groups_new(m, m->arena), 0, 1, x))
        return 2;
    if (regions) {
        /* As the solver starts it: from a feasible answer, best known. */
        if (!iopddl_lns_init(&lns, m, 1, 1, x, iopddl_model_cost(m, x)))
            return 2;
        w.lns = &lns;
    }
    pp_deadline none = {0};
    int rounds = atoi(argv[2]);
    double t0 = cpu_now();
    for (int i = 0; i < rounds; i++)
        iopddl_worker_round(&w, &none, 0);
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
