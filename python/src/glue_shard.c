/* glue_shard.c: parplan.shard (and its explain and iopddl_problem) over the
 * C library: the whole job (the text analysed, the mesh opened, both
 * searches or an applied solution, the report, the module written again
 * with the plan; or the analysis alone; or the sharding problem) is
 * pp_shard_run, the call `parplan shard` makes; the answer is written as
 * the CLI writes it. */
#include <stdio.h>
#include <string.h>
#include "glue.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"
#include "parplan/shard_report.h"
#include "parplan/shard_request.h"

typedef struct {
    glue_job job;
    const char *text, *name;
    Py_ssize_t size;
    pp_shard_request request;
    pp_shard_job run;        /* the CLI's one library call, as it makes it */
    pp_shard_outcome out;
    char *report_text;
    size_t report_size;
    pp_status status;
    pp_error err;
} shard_call;

/* What the task answers, as the CLI writes it: the report as `--json`
 * writes it (the sharded module standing in for --out's file), the text
 * of --explain, or the problem --emit-iopddl writes. */
static pp_status write_answer(shard_call *c)
{
    c->out.report.out = "<module>";
    FILE *f = open_memstream(&c->report_text, &c->report_size);
    if (!f)
        return pp_error_set(&c->err, PP_ENOMEM, "report: out of memory");
    pp_status st = PP_OK;
    if (c->run.task == PP_SHARD_TASK_EXPLAIN)
        pp_shard_write_explain(c->out.analysis.nda, f);
    else if (c->run.task == PP_SHARD_TASK_EMIT_IOPDDL)
        st = pp_shard_bridge_write(c->out.bridge, c->out.problem_name, f, &c->err);
    else
        st = pp_shard_report_write_json(&c->out.report, f, &c->err);
    if (fclose(f) != 0 && st == PP_OK)
        st = pp_error_set(&c->err, PP_ENOMEM, "report: out of memory");
    return st;
}

static void shard_work(glue_job *job)
{
    shard_call *c = (shard_call *)job;
    /* the timeout counts from the call, reading included, as the CLI's does */
    c->run.started = pp_now();
    c->status = pp_shard_run(&c->request, &c->run, &c->out, &c->err);
    if (c->status == PP_OK)
        c->status = write_answer(c);
}

static PyObject *warnings(const pp_shard_module *m)
{
    PyObject *list = PyList_New(0);
    for (int32_t k = 0; list && m && k < m->n_warnings; k++) {
        PyObject *s = PyUnicode_FromString(m->warnings[k].message);
        if (!s || PyList_Append(list, s) < 0)
            Py_CLEAR(list);
        Py_XDECREF(s);
    }
    return list;
}

static PyObject *answer(shard_call *c)
{
    PyObject *d = PyDict_New();
    PyObject *report = glue_text(c->report_text, c->report_size);
    PyObject *module = c->out.module ? glue_text(c->out.module, c->out.module_size) : Py_NewRef(Py_None);
    c->report_text = c->out.module = NULL;
    if (d && (glue_put(d, "report", report) | glue_put(d, "module", module) |
              glue_put(d, "warnings", warnings(c->out.analysis.module)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(shard_call *c, PyObject *result)
{
    free(c->report_text);
    pp_shard_outcome_free(&c->out);
    return result;
}

static const char *const progress_names[] = {"elapsed", "best_runtime", "rounds", NULL};

static void on_progress(void *ctx, const pp_shard_progress *p)
{
    double values[GLUE_PROGRESS_VALUES] = {p->elapsed, p->best_runtime, (double)p->rounds, 0};
    glue_progress(ctx, values, p->stage);
}

PyObject *glue_shard(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"text", "name", "mesh", "device", "precision", "memory", "timeout", "threads", "seed",
                           "search", "format", "progress", "task", "apply_problem", "apply_solution", NULL};
    shard_call c = {.job = {.work = shard_work, .progress_names = progress_names, .integer_values = 4}};
    pp_shard_request request;
    pp_shard_request_default(&request);
    long long threads = 0;
    PyObject *memory, *seed, *progress = Py_None;
    (void)self;
    const char *mesh, *device, *apply_problem = NULL, *apply_solution = NULL;
    int task = PP_SHARD_TASK_PLAN;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#ssssOdLOss|Oizz", keys, &c.text, &c.size, &c.name, &mesh,
                                     &device, &request.precision, &memory, &request.timeout, &threads, &seed,
                                     &request.search, &request.format, &progress, &task, &apply_problem,
                                     &apply_solution))
        return NULL;
    if (glue_memory(memory, &request.memory) < 0 || glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    if (pp_shard_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request = request;
    c.run = (pp_shard_job){.task = (pp_shard_task)task,
                           .model = {.text = c.text, .size = (size_t)c.size, .name = c.name},
                           .mesh = {mesh, device, "device", request.precision},
                           .apply = {apply_problem, apply_solution},
                           .module = task == PP_SHARD_TASK_PLAN,
                           .on_progress = on_progress,
                           .progress_ctx = &c.job,
                           .stop = &c.job.stop};
    if (glue_run(&c.job, progress) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK)
        return finish(&c, glue_raise(&c.err, c.name));
    return finish(&c, answer(&c));
}
