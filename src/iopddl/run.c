/* run.c: `solve` as one library call (pp_iopddl_run): the problem read
 * within the job's time, the solve given what is left after the margin its
 * size needs, the answer evaluated. The CLI's `solve`, the contest binary
 * and Python hand over the same request and render what comes back. */
#include <string.h>
#include <time.h>
#include "parplan/iopddl_request.h"
#include "iopddl/problem_io.h"
#include "iopddl/request_internal.h"
#include "core/deadline_internal.h"

double pp_iopddl_problem_bytes(const pp_iopddl_problem *p)
{
    double strategies = (double)p->strategy_start[p->node_count];
    double edge_ends = (double)p->edge_node_start[p->edge_count];
    double cells = (double)p->edge_cost_start[p->edge_count];
    return 8.0 * (2.0 * strategies + cells + 3.0 * p->node_count + 2.0 * p->edge_count) + 4.0 * edge_ends;
}

double pp_iopddl_budget(double timeout, double started, const pp_iopddl_problem *p, double slowdown)
{
    return timeout - pp_job_margin(timeout, pp_iopddl_problem_bytes(p), slowdown) - (pp_now() - started);
}

/* "no answer within the time limit: WHY": no answer is not a feasible one. */
static pp_status no_answer(pp_error *err)
{
    char why[sizeof err->message];
    memcpy(why, err->message, sizeof why);
    pp_error_clear(err);
    return pp_error_set(err, PP_INFEASIBLE, "no answer within the time limit: %s", why);
}

/* Reads the problem; a program's own run stops reading where the margin
 * the file's size needs begins (1.3 GB take seconds): then there is no
 * answer, never a late one. *slowdown: wall time over CPU time while
 * reading. */
static pp_status read_problem(const pp_iopddl_request *r, const pp_iopddl_job *job, pp_iopddl_outcome *out,
                              double *slowdown, pp_error *err)
{
    const pp_source *s = &job->problem;
    if (job->process_stop && s->path)
        pp_stop_at(job->started + r->timeout - pp_job_margin(r->timeout, pp_file_text_bytes(s->path), 1));
    double wall = pp_now();
    clock_t cpu = clock();
    pp_status st = s->path ? pp_iopddl_load(s->path, &out->problem, err)
                           : pp_iopddl_load_buffer(s->name, s->text, s->size, &out->problem, err);
    if (job->process_stop && s->path)
        pp_stop_cancel();
    double cpu_seconds = (double)(clock() - cpu) / CLOCKS_PER_SEC;
    *slowdown = cpu_seconds > 0 ? (pp_now() - wall) / cpu_seconds : 1;
    if (st != PP_OK && job->process_stop && pp_stop_requested())
        return no_answer(err);
    return st;
}

pp_status pp_iopddl_run(const pp_iopddl_request *r, const pp_iopddl_job *job, pp_iopddl_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    double slowdown = 1;
    pp_status st = pp_iopddl_request_check(r, err);
    if (st == PP_OK)
        st = read_problem(r, job, out, &slowdown, err);
    if (st != PP_OK)
        return st;
    out->read_seconds = pp_now() - job->started;
    double budget = pp_iopddl_budget(r->timeout, job->started, out->problem, slowdown);
    if (budget <= 0) {
        pp_error_set(err, PP_INFEASIBLE, "reading %s took %.2f s of %g s",
                     job->problem.path ? job->problem.path : job->problem.name, out->read_seconds, r->timeout);
        return no_answer(err);
    }
    pp_iopddl_options o;
    pp_iopddl_request_options(r, budget, &o);
    o.on_progress = job->on_progress;
    o.progress_ctx = job->progress_ctx;
    o.stop = job->stop;
    st = pp_iopddl_solve(out->problem, &o, &out->result, err);
    if (st == PP_OK)
        st = pp_iopddl_evaluate(out->problem, out->result.strategies, &out->evaluation, err);
    return st;
}

void pp_iopddl_outcome_free(pp_iopddl_outcome *out)
{
    pp_iopddl_result_free(&out->result);
    pp_iopddl_free(out->problem);
    memset(out, 0, sizeof *out);
}
