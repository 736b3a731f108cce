/* run.c: `schedule` as one library call (pp_sched_run): the problem and
 * the start read within the job's time, the search given what is left
 * after the margin, and its schedule checked apart from it. The
 * CLI and Python hand over the same request and job, and render what
 * comes back: the same schedule, the same check, the same errors. */
#include <string.h>
#include "parplan/deadline.h"
#include "parplan/sched_request.h"
#include "core/deadline_internal.h"
#include "sched/load.h"
#include "sched/sched_internal.h"

/* Reads the problem and the start. A program's own run stops reading where
 * the margin of its time limit begins (iopddl/run.c's way): reading a 7 MB
 * problem at P = 64 takes a second, and then there is no schedule, never a
 * late one. */
static pp_status read_documents(const pp_sched_request *r, const pp_sched_job *job, pp_sched_outcome *out,
                                pp_sched_schedule **start, pp_error *err)
{
    const pp_source *problem = &job->problem, *given = &job->start;
    double bytes = (problem->path ? pp_file_text_bytes(problem->path) : 0) +
                   (given->path ? pp_file_text_bytes(given->path) : 0);
    double margin = pp_job_margin(r->timeout, bytes, 1), stop_at = job->started + r->timeout - margin;
    if (job->process_stop)
        pp_stop_at(stop_at);
    pp_status st = sc_load_stop(problem, job->stop, &out->problem, err);
    if (st == PP_OK && (given->path || given->text)) {
        out->failed = given->path ? given->path : given->name;
        st = sc_load_schedule_stop(given, out->problem, job->stop, start, err);
    }
    if (job->process_stop)
        pp_stop_cancel();
    /* The alarm may also come as the last entry is read: the flag it raised
     * would stop the search at once. */
    if ((st == PP_OK || st == PP_EIO) && job->process_stop && pp_stop_requested() && pp_now() >= stop_at) {
        pp_sched_schedule_free(*start);
        *start = NULL;
        pp_error_clear(err);
        return pp_error_set(err, PP_INFEASIBLE,
                            "no schedule within the time limit: the time limit (%g s, less %.3g s kept for "
                            "stopping) was reached while reading %s", r->timeout, margin, out->failed);
    }
    return st;
}

pp_status pp_sched_run(const pp_sched_request *r, const pp_sched_job *job, pp_sched_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    pp_sched_schedule *start = NULL;
    out->failed = job->problem.path ? job->problem.path : job->problem.name;
    pp_status st = pp_sched_request_check(r, err);
    if (st == PP_OK)
        st = read_documents(r, job, out, &start, err);
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
