/* run.c: `schedule` as one library call (pp_sched_run): the problem and
 * the start read within the job's time, the search given what is left
 * after the margin, and its schedule checked apart from it. The
 * CLI and Python hand over the same request and job, and render what
 * comes back: the same schedule, the same check, the same errors. */
#include <string.h>
#include "parplan/deadline.h"
#include "parplan/sched_request.h"
#include "core/deadline_internal.h"

static pp_status load_problem(const pp_source *s, pp_sched_problem **out, pp_error *err)
{
    if (s->path)
        return pp_sched_load(s->path, out, err);
    return pp_sched_load_buffer(s->name, s->text, s->size, out, err);
}

static pp_status load_start(const pp_source *s, const pp_sched_problem *p, pp_sched_schedule **out,
                            pp_error *err)
{
    if (s->path)
        return pp_sched_load_schedule(s->path, p, out, err);
    if (s->text)
        return pp_sched_load_schedule_buffer(s->name, s->text, s->size, p, out, err);
    return PP_OK;
}

pp_status pp_sched_run(const pp_sched_request *r, const pp_sched_job *job, pp_sched_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    pp_sched_schedule *start = NULL;
    pp_status st = pp_sched_request_check(r, err);
    out->failed = job->problem.path ? job->problem.path : job->problem.name;
    if (st == PP_OK)
        st = load_problem(&job->problem, &out->problem, err);
    if (st == PP_OK) {
        out->failed = job->start.path ? job->start.path : job->start.name;
        st = load_start(&job->start, out->problem, &start, err);
    }
    if (st != PP_OK)
        return st;
    out->failed = NULL;
    /* Reading took the time (a 7 MB problem at P = 64 takes a second):
     * nothing found now could come out in time, so none is sought. */
    double read = pp_now() - job->started;
    if (read >= r->timeout - pp_job_margin(r->timeout, 0, 1)) {
        pp_sched_schedule_free(start);
        return pp_error_set(err, PP_INFEASIBLE, "no schedule within the time limit: reading %s took %.2f s of %g s",
                            job->problem.path ? job->problem.path : job->problem.name, read, r->timeout);
    }
    pp_sched_options o;
    double left = pp_job_solve_budget(r->timeout, job->started);
    pp_sched_request_options(r, left, &o);
    o.start = start;
    o.on_progress = job->on_progress;
    o.progress_ctx = job->progress_ctx;
    o.stop = job->stop;
    st = pp_sched_solve(out->problem, &o, &out->result, err);
    if (st == PP_OK)
        st = pp_sched_check(out->problem, out->result.schedule, &out->check, err);
    pp_sched_schedule_free(start);
    return st;
}

void pp_sched_outcome_free(pp_sched_outcome *out)
{
    pp_sched_report_free(&out->check);
    pp_sched_result_free(&out->result);
    pp_sched_problem_free(out->problem);
    memset(out, 0, sizeof *out);
}
