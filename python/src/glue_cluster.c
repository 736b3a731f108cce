/* glue_cluster.c: parplan.cluster's plan, replan and simulate over the C
 * library. Cluster, workload, events and plan documents arrive as a path
 * or as JSON text (from a dict), each with the name messages use; the
 * device catalog is the built-in one plus an optional file. */
#include <math.h>
#include <stdio.h>
#include "glue.h"
#include "parplan/cluster.h"
#include "parplan/cluster_request.h"

typedef struct {
    const char *source, *name;
    Py_ssize_t size;
    int is_path;
} document;

typedef struct {
    glue_job job;
    document cluster_doc, workload_doc, events_doc, plan_doc;
    pp_cluster_request request;
    pp_cluster_job run;        /* the CLI's one library call per command, as it makes it */
    pp_cluster_outcome out;
    bool simulate;
    pp_status status;
    pp_error err;
} cluster_call;

static pp_source source_of(const document *d)
{
    if (d->is_path)
        return (pp_source){.path = d->source, .name = d->name};
    return (pp_source){.text = d->source, .size = (size_t)d->size, .name = d->name};
}

static void work(glue_job *job)
{
    cluster_call *c = (cluster_call *)job;
    c->run.cluster = source_of(&c->cluster_doc);
    c->run.workload = source_of(&c->workload_doc);
    c->run.events = source_of(&c->events_doc);
    c->run.plan = source_of(&c->plan_doc);
    /* the timeout counts from the call, reading included, as the CLI's does */
    c->run.started = pp_now();
    c->status = c->simulate ? pp_cluster_simulate_run(&c->request, &c->run, &c->out, &c->err)
                            : pp_cluster_plan_run(&c->request, &c->run, &c->out, &c->err);
}

static PyObject *plan_text(const pp_cluster_plan *p)
{
    if (!p)
        Py_RETURN_NONE;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return PyErr_NoMemory();
    pp_error err = {0};
    pp_status st = pp_cluster_plan_write(p, f, &err);
    fclose(f);
    if (st != PP_OK) {
        free(text);
        return glue_raise(&err, NULL);
    }
    return glue_text(text, size);
}

static PyObject *number(double v) { return isfinite(v) ? PyFloat_FromDouble(v) : Py_NewRef(Py_None); }

static PyObject *device_rows(const pp_cluster *cl, const pp_cluster_report *r)
{
    PyObject *rows = PyList_New(0);
    for (int d = 0; rows && d < r->device_count; d++) {
        const pp_cluster_node *n = &cl->nodes[cl->device_node[d]];
        PyObject *row = Py_BuildValue("{s:i, s:s, s:s, s:d, s:d, s:d, s:d, s:d}", "device", d, "node", n->name,
                                      "type", n->type->name, "compute", r->compute[d], "communication",
                                      r->communication[d], "idle", r->idle[d], "peak_memory", r->peak_memory[d],
                                      "capacity", (double)n->type->memory_bytes);
        if (!row || PyList_Append(rows, row) < 0)
            Py_CLEAR(rows);
        Py_XDECREF(row);
    }
    return rows;
}

static PyObject *report_dict(const pp_cluster *cl, const pp_cluster_report *r)
{
    PyObject *d = PyDict_New();
    if (d && (glue_put(d, "step_time", number(r->step_time)) |
              glue_put(d, "samples_per_second", PyFloat_FromDouble(r->samples_per_second)) |
              glue_put(d, "tflops_per_device", PyFloat_FromDouble(r->tflops_per_device)) |
              glue_put(d, "fits", PyBool_FromLong(r->fits)) | glue_put(d, "devices", device_rows(cl, r))))
        Py_CLEAR(d);
    return d;
}

static PyObject *plan_answer(const cluster_call *c)
{
    const pp_cluster_plan_result *r = &c->out.result;
    PyObject *d = PyDict_New();
    if (d && (glue_put(d, "plan", plan_text(r->best)) | glue_put(d, "step_time", PyFloat_FromDouble(r->best_time)) |
              glue_put(d, "report", report_dict(c->out.cluster, &c->out.summary.best)) |
              glue_put(d, "uniform", plan_text(r->uniform)) |
              glue_put(d, "uniform_step_time", r->uniform ? number(r->uniform_time) : Py_NewRef(Py_None)) |
              glue_put(d, "old_step_time", c->out.plan ? number(r->warm_time) : Py_NewRef(Py_None)) |
              glue_put(d, "lower_bound", number(r->lower_bound)) |
              glue_put(d, "ideal_step_time", PyFloat_FromDouble(c->out.summary.ideal)) |
              glue_put(d, "complete", PyBool_FromLong(r->complete)) |
              glue_put(d, "nodes", PyLong_FromLong(r->nodes)) |
              glue_put(d, "simulations", PyLong_FromLong(r->simulations)) |
              glue_put(d, "seconds", PyFloat_FromDouble(r->seconds)) | glue_put(d, "at", PyFloat_FromDouble(c->out.at)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(cluster_call *c, PyObject *answer)
{
    pp_cluster_outcome_free(&c->out);
    return answer;
}

#define DOCUMENT "(z#pz)"
#define DOC(d) &(d).source, &(d).size, &(d).is_path, &(d).name

static const char *const progress_names[] = {"elapsed", "best_time", "nodes", NULL};

static void on_progress(void *ctx, const pp_cluster_progress *p)
{
    double values[GLUE_PROGRESS_VALUES] = {p->elapsed, p->best_time, (double)p->nodes, 0};
    glue_progress(ctx, values, "search");
}

static PyObject *run(cluster_call *c, PyObject *(*answer)(const cluster_call *), PyObject *progress)
{
    if (glue_run(&c->job, progress) < 0)
        return finish(c, NULL);
    if (c->status != PP_OK)
        return finish(c, glue_raise(&c->err, c->out.failed));
    return finish(c, answer(c));
}

PyObject *glue_cluster_plan(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"cluster", "workload", "events", "old_plan", "devices", "replan", "at", "timeout",
                           "threads", "seed", "progress", "stack", NULL};
    cluster_call c = {.job = {.work = work, .progress_names = progress_names, .integer_values = 4}};
    pp_cluster_request request;
    pp_cluster_request_default(&request);
    long long threads = 0;
    PyObject *seed = NULL;
    int replan = 0;
    PyObject *progress = Py_None;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, DOCUMENT DOCUMENT DOCUMENT DOCUMENT "zpddLO|Oz", keys,
                                     DOC(c.cluster_doc), DOC(c.workload_doc), DOC(c.events_doc), DOC(c.plan_doc),
                                     &c.run.devices, &replan, &request.at, &request.timeout, &threads, &seed,
                                     &progress, &request.stack))
        return NULL;
    if (glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    if (pp_cluster_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request = request;
    c.run.replan = replan;
    c.run.on_progress = on_progress;
    c.run.progress_ctx = &c.job;
    c.run.stop = &c.job.stop;
    return run(&c, plan_answer, progress);
}

static PyObject *simulate_answer(const cluster_call *c)
{
    PyObject *d = report_dict(c->out.cluster, &c->out.step);
    if (d && glue_put(d, "ideal_step_time", PyFloat_FromDouble(c->out.summary.ideal)) < 0)
        Py_CLEAR(d);
    return d;
}

PyObject *glue_cluster_simulate(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"cluster", "workload", "plan", "devices", "at", "stack", NULL};
    cluster_call c = {.job = {.work = work}, .simulate = true};
    pp_cluster_request request;
    pp_cluster_request_default(&request);
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, DOCUMENT DOCUMENT DOCUMENT "zd|z", keys, DOC(c.cluster_doc),
                                     DOC(c.workload_doc), DOC(c.plan_doc), &c.run.devices, &request.at,
                                     &request.stack))
        return NULL;
    if (pp_cluster_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request = request;
    return run(&c, simulate_answer, NULL);
}
