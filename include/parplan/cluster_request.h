/* cluster_request.h: what a front door asks of the cluster planner (the
 * CLI's `cluster plan|replan|simulate`, Python's parplan.cluster), checked
 * once here for both: the same bad value gets the same words from either. */
#ifndef PARPLAN_CLUSTER_REQUEST_H
#define PARPLAN_CLUSTER_REQUEST_H

#include "parplan/cluster.h"
#include "parplan/options.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Seconds into the run whose conditions are planned for: >= 0. */
extern const pp_option_range pp_cluster_option_at;
/* The largest context parallelism searched: 1 (none) to 2^20. */
extern const pp_option_range pp_cluster_option_context_parallel;

typedef struct {
    double timeout;           /* seconds for the whole job (pp_option_timeout): 60 */
    int64_t threads;          /* pp_option_threads; 0: the machine's cores */
    uint64_t seed;            /* 1 */
    double at;                /* pp_cluster_option_at: 0 */
    int64_t context_parallel; /* pp_cluster_option_context_parallel: 1 */
    const char *stack;        /* one of PP_CLUSTER_STACKS, or NULL: the workload's (else megatron-lm) */
} pp_cluster_request;

/* The stacks' names (pp_cluster_stack's order), as the CLI's help lists them. */
#define PP_CLUSTER_STACKS "megatron-lm|megatron-deepspeed|torchtitan"

void pp_cluster_request_default(pp_cluster_request *r);
/* PP_EARG naming the first option out of its range. */
pp_status pp_cluster_request_check(const pp_cluster_request *r, pp_error *err);

/* A search's answer as both front doors report it. */
typedef struct {
    pp_cluster_report best;    /* the best plan's step */
    pp_cluster_report uniform; /* the best uniform plan's (its figures alone when it is the best plan) */
    bool has_uniform;
    double speedup;            /* the uniform plan's step time over the best's; INFINITY without one */
    double ideal;              /* pp_cluster_ideal_step_time at `at`: no plan is faster */
} pp_cluster_plan_summary;

/* `cluster plan`, `replan` and `simulate` as one library call each, beside
 * the request: where the documents come from, the time the search has,
 * how it reports. */
typedef struct {
    pp_source cluster, workload;
    pp_source events;       /* added to the cluster's timeline; none: path and text NULL */
    pp_source plan;         /* simulate's plan, replan's old plan (the warm start); or none */
    const char *devices;    /* a device catalog file added to the built-in catalog, or NULL */
    bool replan;            /* plan for the moment every event has happened, not the request's at */
    bool draw;              /* the step of the plan (the best one) drawn on a timeline */
    double started;         /* pp_now() when the job began: the timeout counts from it, reading
                               included, less the margin kept for writing (pp_job_solve_budget) */
    void (*on_progress)(void *ctx, const pp_cluster_progress *progress);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_cluster_job;

typedef struct {
    pp_hw_catalog *catalog;
    pp_cluster *cluster;
    pp_cluster_workload *workload;
    pp_cluster_plan *plan;          /* the plan read (simulate's, replan's old one), or NULL */
    double at;                      /* the moment planned or simulated for */
    pp_cluster_plan_result result;  /* plan and replan: the search's answer */
    pp_cluster_plan_summary summary; /* plan and replan: pp_cluster_plan_summarize's; simulate: its ideal */
    pp_cluster_report step;         /* simulate: the step */
    pp_timeline *timeline;          /* with job->draw: the step drawn and titled */
    const char *failed;             /* the name of the document that could not be read, or NULL */
} pp_cluster_outcome;

/* Reads the job's documents, searches (pp_cluster_plan_search with the
 * request's options) and summarizes (pp_cluster_plan_summarize). Free out
 * with pp_cluster_outcome_free whatever the status. */
pp_status pp_cluster_plan_run(const pp_cluster_request *r, const pp_cluster_job *job, pp_cluster_outcome *out,
                              pp_error *err);
/* Reads the job's documents (a plan among them) and simulates the plan's
 * step at r->at (pp_cluster_simulate_at). */
pp_status pp_cluster_simulate_run(const pp_cluster_request *r, const pp_cluster_job *job, pp_cluster_outcome *out,
                                  pp_error *err);
void pp_cluster_outcome_free(pp_cluster_outcome *out);

#pragma GCC visibility pop

#endif
