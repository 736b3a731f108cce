/* parplan IOPDDL: strategy assignment under a time-varying usage limit
 * (the ASPLOS/EuroSys 2025 contest problem, paper 000). Load a problem,
 * evaluate an assignment with the contest's semantics, or solve. */
#ifndef PARPLAN_IOPDDL_H
#define PARPLAN_IOPDDL_H

#include <stdio.h>
#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

__extension__ typedef __int128 pp_int128;

/* A cost of this value (or more) marks a forbidden strategy or combination. */
#define PP_IOPDDL_FORBIDDEN INT64_C(1000000000000000000)

/* The problem, stored flat: node i's strategies are indices
 * strategy_start[i] .. strategy_start[i+1]-1 of node_cost and node_usage;
 * edge e joins edge_nodes[edge_node_start[e] ..] and its costs are
 * edge_cost[edge_cost_start[e] ..], row-major over its endpoints' strategies
 * (the first endpoint varies slowest). Intervals are half-open [start, end). */
typedef struct {
    char name[128];
    uint32_t node_count;
    int64_t *interval_start, *interval_end;
    uint64_t *strategy_start;
    int64_t *node_cost, *node_usage;
    uint32_t edge_count;
    uint64_t *edge_node_start;
    uint32_t *edge_nodes;
    uint64_t *edge_cost_start;
    int64_t *edge_cost;
    bool has_usage_limit;
    int64_t usage_limit;
    pp_arena *arena; /* owns every array above */
} pp_iopddl_problem;

static inline uint32_t pp_iopddl_strategy_count(const pp_iopddl_problem *p, uint32_t node)
{
    return (uint32_t)(p->strategy_start[node + 1] - p->strategy_start[node]);
}

/* Reads the contest JSON, plain or gzip, from path. On bad input returns
 * PP_EINPUT with "path: byte N: reason" in err. */
pp_status pp_iopddl_load(const char *path, pp_iopddl_problem **out, pp_error *err);
void pp_iopddl_free(pp_iopddl_problem *p);

/* The contest's evaluation: 128-bit sums, half-open intervals, no limit if absent. */
typedef struct {
    pp_int128 cost;
    pp_int128 peak_usage;
    int64_t peak_time;     /* earliest time at which peak_usage is reached; -1 if none */
    bool feasible;         /* peak_usage <= usage_limit (always true without a limit) */
    bool uses_forbidden;   /* some chosen cost is >= PP_IOPDDL_FORBIDDEN */
} pp_iopddl_evaluation;

pp_status pp_iopddl_evaluate(const pp_iopddl_problem *p, const uint32_t *strategies,
                             pp_iopddl_evaluation *out, pp_error *err);

/* Solving. Progress reaches the caller through on_progress (never stdout). */
typedef struct {
    double elapsed;        /* seconds since pp_iopddl_solve started */
    int64_t best_cost;     /* best feasible cost so far, or -1 */
    int64_t rounds;        /* relaxation rounds done, all workers */
    const char *stage;
} pp_iopddl_progress;

typedef struct {
    double time_limit;     /* seconds from the call; <= 0 means no limit */
    int threads;           /* <= 0 means one per online core */
    uint64_t seed;
    int64_t max_rounds;    /* relaxation rounds per worker; <= 0: until time_limit */
    bool no_exact;         /* skip the exact solver even on small instances */
    double bound_share;    /* share of the time for the certified lower bound
                              (default 0.05); 0: only the exact stage's bound */
    void (*on_progress)(void *ctx, const pp_iopddl_progress *progress);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_iopddl_options;

void pp_iopddl_options_default(pp_iopddl_options *o);

typedef struct {
    uint32_t *strategies;  /* node_count entries, malloc'd; free with pp_iopddl_result_free */
    pp_int128 cost;        /* as pp_iopddl_evaluate sums it: exact */
    bool feasible;
    double time_first_feasible, time_best, time_total;
    int64_t rounds;
    int64_t neighbourhood_rounds;  /* large-neighbourhood rounds run */
    int64_t neighbourhood_gains;   /* of those, rounds that found a cheaper answer */
    double lower_bound;    /* no feasible answer costs less (certified: TRW-S's
                              dual bound without the limit, or the exact stage's
                              MIP bound); -INFINITY when unknown */
    bool proven_optimal;   /* the exact solver proved cost optimal */
} pp_iopddl_result;

/* Returns PP_OK with a feasible answer, PP_INFEASIBLE when even the least
 * usage per node exceeds the limit (result holds that assignment) or when
 * the time ran out before the model was built ("no answer within the time
 * limit": result holds strategy 0 everywhere, not feasible), or an error. */
pp_status pp_iopddl_solve(const pp_iopddl_problem *p, const pp_iopddl_options *o,
                          pp_iopddl_result *result, pp_error *err);
void pp_iopddl_result_free(pp_iopddl_result *r);

/* How far cost may be above the optimum, in percent of cost, given a lower
 * bound: 0 when the two meet (a zero cost at a zero bound too), 100 for a
 * bound at or below zero under a positive cost. */
double pp_iopddl_gap_percent(pp_int128 cost, double lower_bound);

/* Writes "[s0, s1, ...]" (the contest's answer line, no newline) to buf of
 * size >= 12 * node_count + 3; returns the length. */
size_t pp_iopddl_format_solution(const uint32_t *strategies, uint32_t n, char *buf);

#pragma GCC visibility pop

#endif
