/* iopddl_request.h: what a front door asks of the IOPDDL solver (the CLI's
 * `solve`, `eval` and `iopddl`, Python's parplan.iopddl.solve and
 * evaluate), checked once here for both: the same bad value gets the same
 * words from either. */
#ifndef PARPLAN_IOPDDL_REQUEST_H
#define PARPLAN_IOPDDL_REQUEST_H

#include "parplan/deadline.h"
#include "parplan/iopddl.h"
#include "parplan/options.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct {
    double timeout;   /* seconds for the whole job, reading included (pp_option_timeout): 60 */
    int64_t threads;  /* pp_option_threads; 0: one per core */
    uint64_t seed;    /* 1 */
    int64_t rounds;   /* relaxation rounds per worker (pp_option_rounds); 0: until the timeout */
    bool no_exact;    /* heuristics only, even where the exact solver would run */
    bool no_bound;    /* no stage for the certified bound (its time goes to the search) */
} pp_iopddl_request;

void pp_iopddl_request_default(pp_iopddl_request *r);
/* PP_EARG naming the first option out of its range. */
pp_status pp_iopddl_request_check(const pp_iopddl_request *r, pp_error *err);

/* `solve` as one library call, beside the request: the problem, when the
 * job began, how it reports. */
typedef struct {
    pp_source problem;  /* JSON or JSON.gz: a file, or bytes in memory */
    double started;     /* pp_now() when the job began: the timeout counts from it, reading included */
    bool process_stop;  /* a program's own run: reading a file stops by the process-wide flag
                           (pp_stop_at) where its margin begins; never in a library user's thread */
    void (*on_progress)(void *ctx, const pp_iopddl_progress *progress);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_iopddl_job;

typedef struct {
    pp_iopddl_problem *problem;
    pp_iopddl_result result;
    pp_iopddl_evaluation evaluation; /* the contest's evaluation of the answer */
    double read_seconds;             /* from the job's start to the problem in memory */
} pp_iopddl_outcome;

/* Reads the problem, solves it with what the timeout leaves after reading
 * and the margin, and evaluates the answer. PP_INFEASIBLE "no answer within
 * the time limit: ..." when reading took the time. Free out with
 * pp_iopddl_outcome_free whatever the status. */
pp_status pp_iopddl_run(const pp_iopddl_request *r, const pp_iopddl_job *job, pp_iopddl_outcome *out, pp_error *err);
void pp_iopddl_outcome_free(pp_iopddl_outcome *out);

/* `eval` as one library call: the problem and the answer to judge, each a
 * file or text in memory (the answer "[s0, s1, ...]", one strategy index
 * per node). */
typedef struct {
    pp_source problem;
    pp_source answer;
} pp_iopddl_eval_job;

typedef struct {
    pp_iopddl_problem *problem;
    uint32_t *strategies;            /* the answer as read */
    pp_iopddl_evaluation evaluation; /* the contest's evaluation of it */
} pp_iopddl_eval_outcome;

/* Reads both and evaluates the answer. PP_EINPUT "name: byte N: why" for
 * either read badly (an answer of another length included). Free out with
 * pp_iopddl_eval_outcome_free whatever the status. */
pp_status pp_iopddl_eval_run(const pp_iopddl_eval_job *job, pp_iopddl_eval_outcome *out, pp_error *err);
void pp_iopddl_eval_outcome_free(pp_iopddl_eval_outcome *out);

#pragma GCC visibility pop

#endif
