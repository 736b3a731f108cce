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
    const char *devices;       /* a catalog file, or NULL */
    bool replan;               /* plan for the moment the events have all happened */
    double at;
    pp_cluster_plan_options options;
    pp_hw_catalog *catalog;
    pp_cluster *cluster;
    pp_cluster_workload *workload;
    pp_cluster_plan *plan;
    pp_cluster_plan_result result;
    pp_cluster_plan_summary summary;
    pp_cluster_report report;
    double ideal;
    const char *failed;        /* the name of the document that failed to read */
    pp_status status;
    pp_error err;
} cluster_call;

static pp_status read_cluster(cluster_call *c)
{
    document *d = &c->cluster_doc;
    c->failed = d->name;
    if (d->is_path)
        return pp_cluster_load(d->source, c->catalog, &c->cluster, &c->err);
    return pp_cluster_load_buffer(d->name, d->source, (size_t)d->size, c->catalog, &c->cluster, &c->err);
}

static pp_status read_events(cluster_call *c)
{
    document *d = &c->events_doc;
    c->failed = d->name;
    if (!d->source)
        return PP_OK;
    if (d->is_path)
        return pp_cluster_add_events_file(c->cluster, d->source, &c->err);
    return pp_cluster_add_events_buffer(c->cluster, d->name, d->source, (size_t)d->size, &c->err);
}

static pp_status read_workload(cluster_call *c)
{
    document *d = &c->workload_doc;
    c->failed = d->name;
    if (d->is_path)
        return pp_cluster_workload_load(d->source, c->catalog, &c->workload, &c->err);
    return pp_cluster_workload_load_buffer(d->name, d->source, (size_t)d->size, c->catalog, &c->workload, &c->err);
}

static pp_status read_plan(cluster_call *c)
{
    document *d = &c->plan_doc;
    c->failed = d->name;
    if (!d->source)
        return PP_OK;
    if (d->is_path)
        return pp_cluster_plan_load(d->source, c->cluster, c->workload, &c->plan, &c->err);
    return pp_cluster_plan_load_buffer(d->name, d->source, (size_t)d->size, c->cluster, c->workload, &c->plan,
                                       &c->err);
}

static pp_status read_inputs(cluster_call *c)
{
    pp_status st = pp_hw_catalog_builtin(&c->catalog, &c->err);
    c->failed = c->devices;
    if (st == PP_OK && c->devices)
        st = pp_hw_catalog_add_file(c->catalog, c->devices, &c->err);
    if (st == PP_OK)
        st = read_cluster(c);
    if (st == PP_OK)
        st = read_events(c);
    if (st == PP_OK)
        st = read_workload(c);
    if (st == PP_OK)
        st = read_plan(c);
    if (st == PP_OK)
        c->failed = NULL;
    return st;
}

/* The moment every event has happened: what a re-plan plans for. */
static double last_event_time(const pp_cluster *cl)
{
    double t = 0;
    for (int k = 0; k < cl->event_count; k++)
        t = fmax(t, cl->events[k].time);
    return t;
}

static void plan_work(glue_job *job)
{
    cluster_call *c = (cluster_call *)job;
    if ((c->status = read_inputs(c)) != PP_OK)
        return;
    if (c->replan)
        c->at = last_event_time(c->cluster);
    c->options.start_time = c->at;
    c->options.warm_start = c->plan;
    c->status = pp_cluster_plan_search(c->cluster, c->workload, &c->options, &c->result, &c->err);
    /* judged, simulated and summed up as the CLI's are */
    if (c->status == PP_OK)
        c->status = pp_cluster_plan_summarize(c->cluster, c->workload, &c->result, c->at, NULL, &c->summary, &c->err);
    c->ideal = c->summary.ideal;
}

static void simulate_work(glue_job *job)
{
    cluster_call *c = (cluster_call *)job;
    if ((c->status = read_inputs(c)) != PP_OK)
        return;
    c->status = pp_cluster_simulate_at(c->cluster, c->workload, c->plan, c->at, NULL, &c->report, &c->err);
    c->ideal = pp_cluster_ideal_step_time(c->cluster, c->workload, c->at);
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
    const pp_cluster_plan_result *r = &c->result;
    PyObject *d = PyDict_New();
    if (d && (glue_put(d, "plan", plan_text(r->best)) | glue_put(d, "step_time", PyFloat_FromDouble(r->best_time)) |
              glue_put(d, "report", report_dict(c->cluster, &c->summary.best)) |
              glue_put(d, "uniform", plan_text(r->uniform)) |
              glue_put(d, "uniform_step_time", r->uniform ? number(r->uniform_time) : Py_NewRef(Py_None)) |
              glue_put(d, "old_step_time", c->plan ? number(r->warm_time) : Py_NewRef(Py_None)) |
              glue_put(d, "lower_bound", number(r->lower_bound)) |
              glue_put(d, "ideal_step_time", PyFloat_FromDouble(c->ideal)) |
              glue_put(d, "complete", PyBool_FromLong(r->complete)) |
              glue_put(d, "nodes", PyLong_FromLong(r->nodes)) |
              glue_put(d, "simulations", PyLong_FromLong(r->simulations)) |
              glue_put(d, "seconds", PyFloat_FromDouble(r->seconds)) | glue_put(d, "at", PyFloat_FromDouble(c->at)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(cluster_call *c, PyObject *answer)
{
    pp_cluster_report_free(&c->report);
    pp_cluster_plan_summary_free(&c->summary);
    pp_cluster_plan_result_free(&c->result);
    pp_cluster_plan_free(c->plan);
    pp_cluster_workload_free(c->workload);
    pp_cluster_free(c->cluster);
    pp_hw_catalog_free(c->catalog);
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
        return finish(c, glue_raise(&c->err, c->failed));
    return finish(c, answer(c));
}

PyObject *glue_cluster_plan(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"cluster", "workload", "events", "old_plan", "devices", "replan", "at", "timeout",
                           "threads", "seed", "progress", NULL};
    cluster_call c = {.job = {.work = plan_work, .progress_names = progress_names, .integer_values = 4}};
    pp_cluster_request request;
    pp_cluster_request_default(&request);
    long long threads = 0;
    PyObject *seed = NULL;
    int replan = 0;
    PyObject *progress = Py_None;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, DOCUMENT DOCUMENT DOCUMENT DOCUMENT "zpddLO|O", keys,
                                     DOC(c.cluster_doc), DOC(c.workload_doc), DOC(c.events_doc), DOC(c.plan_doc),
                                     &c.devices, &replan, &request.at, &request.timeout, &threads, &seed, &progress))
        return NULL;
    if (glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    if (pp_cluster_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.replan = replan;
    c.at = request.at;
    c.options.time_limit = request.timeout;
    c.options.threads = (int)request.threads;
    c.options.seed = request.seed;
    c.options.on_progress = on_progress;
    c.options.progress_ctx = &c.job;
    c.options.stop = &c.job.stop;
    return run(&c, plan_answer, progress);
}

static PyObject *simulate_answer(const cluster_call *c)
{
    PyObject *d = report_dict(c->cluster, &c->report);
    if (d && glue_put(d, "ideal_step_time", PyFloat_FromDouble(c->ideal)) < 0)
        Py_CLEAR(d);
    return d;
}

PyObject *glue_cluster_simulate(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"cluster", "workload", "plan", "devices", "at", NULL};
    cluster_call c = {.job = {.work = simulate_work}};
    pp_cluster_request request;
    pp_cluster_request_default(&request);
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, DOCUMENT DOCUMENT DOCUMENT "zd", keys, DOC(c.cluster_doc),
                                     DOC(c.workload_doc), DOC(c.plan_doc), &c.devices, &request.at))
        return NULL;
    if (pp_cluster_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.at = request.at;
    if (!c.plan_doc.source)
        return PyErr_Format(PyExc_TypeError, "simulate needs a plan");
    return run(&c, simulate_answer, NULL);
}
