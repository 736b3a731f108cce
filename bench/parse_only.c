/* parse_only.c: loads one IOPDDL file with pp_iopddl_load and nothing else,
 * so bench/iopddl-parse can time the loader apart from the solver. Built by
 * that script against build/libparplan.a, not by CMake. Prints
 * "SECONDS CPU_SECONDS PEAK_RSS_KB ARRAY_BYTES": the load's wall time, the
 * process's CPU time (user + system) and peak resident memory, and the bytes
 * of the loaded problem's arrays. */
#include <stdio.h>
#include <sys/resource.h>
#include "parplan/iopddl.h"

static double cpu_seconds(const struct rusage *u)
{
    return (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) +
           1e-6 * (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parse_only FILE\n");
        return 2;
    }
    pp_error err = {0};
    pp_iopddl_problem *p;
    double start = pp_now();
    if (pp_iopddl_load(argv[1], &p, &err) != PP_OK) {
        fprintf(stderr, "parse_only: %s\n", err.message);
        return 2;
    }
    double seconds = pp_now() - start;
    uint64_t n = p->node_count, m = p->edge_count;
    uint64_t bytes = 16 * n + 8 * (n + 1) + 16 * p->strategy_start[n] + 16 * (m + 1) +
                     4 * p->edge_node_start[m] + 8 * p->edge_cost_start[m];
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%.6f %.6f %ld %llu\n", seconds, cpu_seconds(&usage), usage.ru_maxrss, (unsigned long long)bytes);
    pp_iopddl_free(p);
    return 0;
}
