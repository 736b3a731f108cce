/* search.h: the branch-and-bound's shared state (search.c) as the
 * pipeline (solve.c) sets it up, offers it incumbents, runs it and reads
 * its answer. */
#ifndef PP_CLUSTER_SEARCH_H
#define PP_CLUSTER_SEARCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "cluster/planner.h"

/* The keys of incumbents from outside the branches: they lose ties to
 * nothing but each other, uniform first. */
#define CLUSTER_KEY_UNIFORM (-2)
#define CLUSTER_KEY_WARM (-1)

typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    const pp_cluster_plan_options *o;
    const cluster_space *space;
    cluster_branch *branches; /* sorted by root bound */
    int branch_count;
    pthread_mutex_t lock;
    int next;
    bool *done;               /* [sorted branch] searched to its end */
    double best_time;
    /* best_time for the prune tests, read without the lock: every node
     * reads it, and two workers taking turns at the lock left one idle */
    _Atomic double best_seen;
    int best_branch;
    int *best_layers;         /* [layers]: at most one stage per layer */
    bool *best_replay;        /* [layers] */
    pp_cluster_plan *best;
    pp_cluster_report best_report; /* best's simulation */
    cluster_clock clock;
    bool stop;
    long nodes, simulations;
    double started;           /* pp_now() at the start, for progress */
    long nodes_seen;          /* nodes explored so far, in the workers' steps of 1024 */
    pp_status status;
    pp_error err;
} cluster_search;

/* Offers a simulated plan (of `branch` with these layers per stage and
 * recomputation, or a CLUSTER_KEY_ incumbent with none); takes ownership
 * of plan and report. */
void cluster_search_offer(cluster_search *sh, pp_cluster_plan *plan, pp_cluster_report *report,
                          double time, int branch, const int *layers, const bool *replay, int count);
/* Whether every device of p holds its peak memory (into peak). */
bool cluster_search_fits(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                         double *peak);
/* Simulates a plan that fits; its step time, or INFINITY when it needs a
 * link that is down or certainly takes longer than cutoff. Without any
 * plan in hand the simulation runs to its end, time limit or not: the
 * search must return a plan when one fits. */
pp_status cluster_search_simulate(cluster_search *sh, const pp_cluster_plan *p, double cutoff,
                                  double *time, pp_cluster_report *report, pp_error *err);
/* Root bounds for every branch on `threads` threads, then best first;
 * false when out of memory. */
bool cluster_search_rank(cluster_search *sh, int threads);
/* The two passes over the branches on `threads` threads. */
pp_status cluster_search_run(cluster_search *sh, int threads, pp_error *err);

#endif
