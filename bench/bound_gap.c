/* bound_gap.c: bench/iopddl-bound's program: the certified lower bound of
 * one instance (bound.c) after STEPS subgradient steps (0: without the
 * usage limit) within SECONDS of wall time (0: none, so the figure is the
 * same on every run of one build). Prints the bound and its CPU seconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "iopddl/bound.h"

static double cpu_seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bound_gap FILE UPPER STEPS SECONDS\n");
        return 2;
    }
    pp_iopddl_problem *p;
    iopddl_model *m;
    pp_error err = {0};
    if (pp_iopddl_load(argv[1], &p, &err) != PP_OK || iopddl_model_build(p, &m, &err) != PP_OK) {
        fprintf(stderr, "bound_gap: %s\n", err.message);
        return 1;
    }
    pp_deadline none = pp_deadline_in(0);
    double t0 = cpu_seconds();
    double bound = iopddl_bound(m, strtod(argv[2], NULL), atoi(argv[3]), strtod(argv[4], NULL), &none);
    printf("%.0f %.2f\n", bound, cpu_seconds() - t0);
    iopddl_model_free(m);
    pp_iopddl_free(p);
    return 0;
}
