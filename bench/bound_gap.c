/* bound_gap.c: bench/iopddl-bound's program: the certified lower bound of
 * one instance (bound.c) after STEPS subgradient steps (0: without the
 * usage limit) within SECONDS of its thread's CPU time (0: none, so the
 * figure is the same on every run of one build), on the plain or the reduced model
 * (bound_model.c). Prints the bound, its CPU and wall seconds; with MODEL "size",
 * the reduced model's size and the CPU seconds its presolve took. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iopddl/bound.h"
#include "iopddl/reduced.h"

static double cpu_seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* "nodes free pairs strategies pieces seconds" of the reduced model. */
static int print_size(const iopddl_model *m)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    iopddl_bound_model b;
    iopddl_reduced c;
    iopddl_exact_stats stats;
    double t0 = cpu_seconds();
    bool built = iopddl_presolve_model(&c, m, NULL, &stats) && arena && iopddl_bound_model_reduced(&b, &c, arena);
    iopddl_reduced_free(&c);
    if (!built) {
        fprintf(stderr, "bound_gap: no reduced model\n");
        pp_arena_free(arena);
        return 1;
    }
    double seconds = cpu_seconds() - t0;
    printf("%u %u %u %u %u %.2f\n", b.model.node_count, b.free_nodes, b.model.pair_count,
           b.model.dom_start[b.model.node_count], b.piece_start[b.model.node_count], seconds);
    pp_arena_free(arena);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[5], "plain") && strcmp(argv[5], "reduced") && strcmp(argv[5], "size"))) {
        fprintf(stderr, "usage: bound_gap FILE UPPER STEPS SECONDS plain|reduced|size\n");
        return 2;
    }
    pp_iopddl_problem *p;
    iopddl_model *m;
    pp_error err = {0};
    if (pp_iopddl_load(argv[1], &p, &err) != PP_OK || iopddl_model_build(p, &m, &err) != PP_OK) {
        fprintf(stderr, "bound_gap: %s\n", err.message);
        return 1;
    }
    int status = 0;
    if (!strcmp(argv[5], "size")) {
        status = print_size(m);
    } else {
        pp_deadline none = pp_deadline_in(0);
        double t0 = cpu_seconds(), w0 = pp_now();
        /* The presolve's time counts as the bound's, as in the solver. */
        iopddl_reduced c;
        iopddl_exact_stats stats;
        bool reduced = !strcmp(argv[5], "reduced") && iopddl_presolve_model(&c, m, NULL, &stats);
        double bound = iopddl_bound(m, reduced ? &c : NULL, strtod(argv[2], NULL), atoi(argv[3]),
                                    strtod(argv[4], NULL), &none, NULL, NULL, NULL);
        if (!strcmp(argv[5], "reduced"))
            iopddl_reduced_free(&c);
        printf("%.0f %.2f %.2f\n", bound, cpu_seconds() - t0, pp_now() - w0);
    }
    iopddl_model_free(m);
    pp_iopddl_free(p);
    return status;
}
