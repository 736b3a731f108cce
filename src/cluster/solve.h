/* solve.h: the planner as one call (solve.c: the plan space, the
 * incumbents, the branch-and-bound, the answer) and its Megatron-uniform
 * baseline (uniform.c). */
#ifndef PP_CLUSTER_SOLVE_H
#define PP_CLUSTER_SOLVE_H

#include "parplan/cluster.h"

/* What the search is given besides the cluster and the workload. */
typedef struct {
    double time_limit;       /* s; 0 = run to the end of the search. A first
                              * plan still being simulated at the limit may
                              * run past it by a quarter of it, at most
                              * 0.4 s + 1%; then the search ends with what
                              * it holds (best NULL, complete false, if
                              * nothing) */
    int threads;             /* 0 = the machine's cores */
    uint64_t seed;
    double start_time;       /* plan for the conditions at this time */
    const pp_cluster_plan *warm_start; /* an earlier plan (re-planning), or NULL */
    /* The largest context parallelism degree the search opens (powers of
     * two, with micro-batch 1); 0 or 1: none. Off by default: its branches
     * multiply the space by up to log2(dp), and only long sequences gain. */
    int max_context_parallel;
    /* Stop early enough to leave time, within the timeout, for this many
     * more simulations as long as the longest the search ran: the caller's
     * report of its answer. */
    int reserve_simulations;
    /* On every better plan and every 1024 nodes a worker explores; NULL: none. */
    void (*on_progress)(void *ctx, const pp_cluster_progress *progress);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_cluster_plan_options;

/* Parallel branch-and-bound (paper 003 Alg. 1) over data, tensor and
 * pipeline degrees, the devices of each stage, uneven layers per stage,
 * uneven splits over unlike devices, micro-batch size and count, and
 * recomputation per stage (off only where the activations fit). */
pp_status pp_cluster_plan_search(const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan_options *o, pp_cluster_plan_result *out,
                                 pp_error *err);
/* Every valid Megatron-uniform (tp, pp, dp, micro_batch) simulated, each
 * with recomputation on and off in all stages (Megatron has one flag); the
 * best that fits in *out (NULL if none), its time in *time. */
pp_status pp_cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w,
                                  double start_time, pp_cluster_plan **out, double *time,
                                  pp_error *err);
void pp_cluster_plan_result_free(pp_cluster_plan_result *r);

#endif
