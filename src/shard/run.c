/* run.c: `shard` as one library call (pp_shard_run): the model read and
 * analysed (all `--explain` asks), the mesh opened, then the plan searched
 * (or applied from an IOPDDL solution), the report built and the module
 * written again with the plan; or, for `--emit-iopddl`, the sharding
 * problem built. The CLI and Python hand over a request and a job and
 * render what comes back: the same plan, report and errors. */
#include <stdlib.h>
#include <string.h>
#include "parplan/deadline.h"
#include "parplan/shard_request.h"
#include "core/core_internal.h"
#include "shard/bridge_internal.h"
#include "shard/request_internal.h"
#include "shard/write_internal.h"

static pp_status read_model(const pp_source *s, pp_shard_outcome *out, pp_error *err)
{
    if (s->path)
        return pp_read_text_file(s->path, &out->text, &out->size, err);
    out->text = malloc(s->size + 1);
    if (!out->text)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory for the text", s->name);
    memcpy(out->text, s->text, s->size);
    out->text[s->size] = '\0';
    out->size = s->size;
    return PP_OK;
}

static pp_status plan(const pp_shard_request *r, const pp_shard_job *job, pp_shard_outcome *out, pp_error *err)
{
    const pp_shard_analysis *a = &out->analysis;
    if (job->apply[0])
        return pp_shard_plan_apply(a->flat, a->nda, &out->mesh, r->memory, job->apply[0], job->apply[1], &out->plan,
                                   err);
    double left = pp_job_solve_budget(r->timeout, job->started);
    pp_deadline deadline = pp_deadline_in(left);
    deadline.stop = job->stop;
    pp_shard_plan_options o;
    pp_shard_request_options(r, left, &o);
    o.on_progress = job->on_progress;
    o.progress_ctx = job->progress_ctx;
    o.stop = job->stop;
    return pp_shard_plan(a->flat, a->nda, &out->mesh, &o, &deadline, &out->plan, err);
}

/* EMIT_IOPDDL: the sharding problem at the request's memory limit. */
static pp_status emit(const pp_shard_request *r, pp_shard_outcome *out, pp_error *err)
{
    const pp_shard_analysis *a = &out->analysis;
    out->problem_name = a->module->name[0] ? a->module->name : "model";
    return pp_shard_bridge_build(a->flat, a->nda, &out->mesh, pp_shard_memory_limit(&out->mesh, r->memory),
                                 &out->bridge, err);
}

pp_status pp_shard_run(const pp_shard_request *r, const pp_shard_job *job, pp_shard_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = job->model.path ? job->model.path : job->model.name;
    pp_shard_format format;
    pp_status st = pp_shard_request_check(r, err);
    if (st == PP_OK)
        st = pp_shard_format_parse(r->format, &format, err);
    if (st == PP_OK)
        st = read_model(&job->model, out, err);
    if (st == PP_OK)
        st = pp_shard_analysis_parse(name, out->text, out->size, &out->analysis, err);
    if (st != PP_OK || job->task == PP_SHARD_TASK_EXPLAIN)
        return st;
    st = pp_shard_mesh_open(&job->mesh, &out->catalog, &out->mesh, err);
    if (st == PP_OK && job->task == PP_SHARD_TASK_EMIT_IOPDDL)
        return emit(r, out, err);
    if (st == PP_OK)
        st = plan(r, job, out, err);
    if (st == PP_OK)
        st = pp_shard_report_build(&out->report, name, job->mesh.mesh, out->analysis.nda, &out->mesh, &out->plan,
                                   err);
    out->report.solution = job->apply[1];
    if (st == PP_OK && job->module)
        st = pp_shard_write_plan(out->analysis.nda, &out->mesh, out->plan.axes, format, out->text, out->size,
                                 &out->module, &out->module_size, &out->report.written, err);
    return st;
}

void pp_shard_outcome_free(pp_shard_outcome *out)
{
    free(out->module);
    free(out->text);
    pp_shard_bridge_free(out->bridge);
    pp_shard_plan_free(&out->plan);
    pp_hw_catalog_free(out->catalog);
    pp_shard_analysis_free(&out->analysis);
    memset(out, 0, sizeof *out);
}
