/* check_run.c: `check-schedule` as one library call (pp_sched_check_run):
 * both documents read, the schedule checked, and its repetition when a
 * period is given or stated. The CLI and Python render the same verdict. */
#include <math.h>
#include <string.h>
#include "parplan/sched_request.h"
#include "sched/sched_internal.h"

static pp_status load_schedule(const pp_source *s, const pp_sched_problem *p, pp_sched_schedule **out,
                               pp_error *err)
{
    if (s->path)
        return pp_sched_load_schedule(s->path, p, out, err);
    return pp_sched_load_schedule_buffer(s->name, s->text, s->size, p, out, err);
}

pp_status pp_sched_check_run(const pp_sched_check_job *job, pp_sched_verdict *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    const pp_source *p = &job->problem, *s = &job->schedule;
    out->failed = p->path ? p->path : p->name;
    pp_status st = p->path ? pp_sched_load(p->path, &out->problem, err)
                           : pp_sched_load_buffer(p->name, p->text, p->size, &out->problem, err);
    if (st == PP_OK) {
        out->failed = s->path ? s->path : s->name;
        st = load_schedule(s, out->problem, &out->schedule, err);
    }
    if (st != PP_OK)
        return st;
    out->failed = NULL;
    pp_status verdict = pp_sched_check(out->problem, out->schedule, &out->report, &out->why);
    out->period = job->period > 0 ? job->period : out->schedule->period;
    if (verdict == PP_OK && isfinite(out->period))
        verdict = pp_sched_check_cyclic(out->problem, out->schedule, out->period, job->async, &out->cyclic_report,
                                        &out->why);
    if (verdict != PP_OK && verdict != PP_INFEASIBLE)
        return pp_error_set(err, verdict, "%s", out->why.message);
    out->valid = verdict == PP_OK;
    out->cyclic = isfinite(out->period) && out->cyclic_report.peak_memory;
    out->violations = out->report.violations + out->cyclic_report.violations;
    return PP_OK;
}

void pp_sched_verdict_free(pp_sched_verdict *out)
{
    pp_sched_cyclic_report_free(&out->cyclic_report);
    pp_sched_report_free(&out->report);
    pp_sched_schedule_free(out->schedule);
    pp_sched_problem_free(out->problem);
    memset(out, 0, sizeof *out);
}
