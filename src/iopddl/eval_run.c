/* eval_run.c: `eval` as one library call (pp_iopddl_eval_run): the problem
 * and the answer read, each from a file or from memory, and the answer
 * evaluated. The CLI's `eval` and Python's evaluate hand over the same job
 * and render what comes back, so a bad answer gets the same words from
 * either. */
#include <stdlib.h>
#include <string.h>
#include "parplan/iopddl_request.h"
#include "iopddl/problem_io.h"

pp_status pp_iopddl_eval_run(const pp_iopddl_eval_job *job, pp_iopddl_eval_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    const pp_source *p = &job->problem, *a = &job->answer;
    pp_status st = p->path ? pp_iopddl_load(p->path, &out->problem, err)
                           : pp_iopddl_load_buffer(p->name, p->text, p->size, &out->problem, err);
    if (st == PP_OK)
        st = a->path ? pp_iopddl_load_solution(a->path, out->problem, &out->strategies, err)
                     : pp_iopddl_parse_solution(a->name, a->text, a->size, out->problem, &out->strategies, err);
    if (st == PP_OK)
        st = pp_iopddl_evaluate(out->problem, out->strategies, &out->evaluation, err);
    return st;
}

void pp_iopddl_eval_outcome_free(pp_iopddl_eval_outcome *out)
{
    free(out->strategies);
    pp_iopddl_free(out->problem);
    memset(out, 0, sizeof *out);
}
