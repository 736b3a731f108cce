/* sched_request.h: what a front door asks of the operator scheduler (the
 * CLI's `schedule`, Python's parplan.schedule), checked once here for
 * both: the same bad value gets the same words from either. */
#ifndef PARPLAN_SCHED_REQUEST_H
#define PARPLAN_SCHED_REQUEST_H

#include "parplan/options.h"
#include "parplan/sched.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Above N ops, also start from the graph coarsened to N: 0 (never) or more. */
extern const pp_option_range pp_sched_option_coarsen;
/* The period a schedule is checked repeated at: > 0. */
extern const pp_option_range pp_sched_option_period;
/* The objectives' names (docs/sched.md). */
#define PP_SCHED_OBJECTIVES "makespan|span|cyclic|cyclic-async"

typedef struct {
    double timeout;        /* seconds for the whole job (pp_option_timeout): 10 */
    int64_t threads;       /* pp_option_threads; 0: one per core */
    uint64_t seed;         /* 1 */
    int64_t rounds;        /* moves per worker (pp_option_rounds); 0: until the timeout */
    int64_t coarsen;       /* pp_sched_option_coarsen */
    bool no_mip;
    const char *objective; /* one of PP_SCHED_OBJECTIVES: "makespan" */
} pp_sched_request;

void pp_sched_request_default(pp_sched_request *r);
/* PP_EARG naming the first option out of its range or not known. */
pp_status pp_sched_request_check(const pp_sched_request *r, pp_error *err);

/* `schedule` as one library call, beside the request: where the problem
 * and the start come from, the time the solve has, how it reports. */
typedef struct {
    pp_source problem;
    pp_source start; /* a schedule to start from; path and text NULL: none */
    double started;        /* pp_now() when the job began: the timeout counts from it, reading
                              included, less the margin kept for writing (pp_job_solve_budget) */
    bool process_stop;     /* a program's own run: reading stops by the process-wide flag
                              (pp_stop_at) where its margin begins; never in a library user's thread */
    void (*on_progress)(void *ctx, double makespan, double lower_bound, double elapsed);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_sched_job;

typedef struct {
    pp_sched_problem *problem;
    pp_sched_result result;
    pp_sched_report check;   /* the independent checker's figures of result.schedule */
    const char *failed;      /* the name of the document that could not be read, or NULL */
} pp_sched_outcome;

/* Reads the problem and the start, solves with r's options, and checks the
 * schedule with the checker that shares no code with the solver. Free out
 * with pp_sched_outcome_free whatever the status. */
pp_status pp_sched_run(const pp_sched_request *r, const pp_sched_job *job, pp_sched_outcome *out, pp_error *err);
void pp_sched_outcome_free(pp_sched_outcome *out);

/* `check-schedule` as one library call: what to check. */
typedef struct {
    pp_source problem, schedule;
    double period;  /* > 0: check the schedule repeated every period; 0: by the schedule's own
                       "period" when it states one */
    bool async;     /* with a period: without the optimizer step between a device's iterations */
} pp_sched_check_job;

typedef struct {
    pp_sched_problem *problem;
    pp_sched_schedule *schedule;
    bool valid;
    pp_error why;                  /* the first violation when not valid */
    int violations;                /* the schedule's and its repetition's */
    pp_sched_report report;
    bool cyclic;                   /* the repetition was checked */
    double period;
    pp_sched_cyclic_report cyclic_report;
    const char *failed;            /* the name of the document that could not be read, or NULL */
} pp_sched_verdict;

/* Reads both documents and checks the schedule with the independent
 * checker, and its repetition when a period is given or stated. An
 * invalid schedule is a verdict (PP_OK, valid false), not an error. Free out
 * with pp_sched_verdict_free whatever the status. */
pp_status pp_sched_check_run(const pp_sched_check_job *job, pp_sched_verdict *out, pp_error *err);
void pp_sched_verdict_free(pp_sched_verdict *out);

#pragma GCC visibility pop

#endif
