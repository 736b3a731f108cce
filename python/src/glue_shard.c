/* glue_shard.c: parplan.shard over the C library: StableHLO text analysed,
 * planned on a mesh by both searches (pp_shard_plan), the report built and
 * written as JSON by the library's pp_shard_report, as `parplan shard --json`
 * writes it, and the module written again with the plan. The mesh is
 * opened by the library's pp_shard_mesh_open, as the CLI opens it. */
#include <stdio.h>
#include <string.h>
#include "glue.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"
#include "parplan/shard_report.h"
#include "parplan/shard_request.h"

typedef struct {
    glue_job job;
    const char *text, *name, *mesh_text, *device, *precision, *format_text;
    Py_ssize_t size;
    pp_shard_plan_options options;
    pp_shard_analysis analysis;
    pp_hw_catalog *catalog;
    pp_shard_mesh mesh;
    pp_shard_format format;
    pp_shard_plan_result plan;
    bool planned;
    char *report_text, *sharded;
    size_t report_size, sharded_size;
    pp_status status;
    pp_error err;
} shard_call;

static pp_status open_mesh(shard_call *c)
{
    pp_shard_mesh_spec spec = {c->mesh_text, c->device, "device", c->precision};
    pp_status st = pp_shard_mesh_open(&spec, &c->catalog, &c->mesh, &c->err);
    if (st == PP_OK)
        st = pp_shard_format_parse(c->format_text, &c->format, &c->err);
    return st;
}

/* The report as `parplan shard --json` writes it, the sharded module
 * standing in for --out's file. */
static pp_status write_report(shard_call *c)
{
    pp_shard_report report;
    pp_status st = pp_shard_report_build(&report, c->name, c->mesh_text, c->analysis.nda, &c->mesh, &c->plan, &c->err);
    if (st == PP_OK)
        st = pp_shard_write_plan(c->analysis.nda, &c->mesh, c->plan.axes, c->format, c->text, (size_t)c->size,
                                 &c->sharded, &c->sharded_size, &report.written, &c->err);
    report.out = "<module>";
    FILE *f = st == PP_OK ? open_memstream(&c->report_text, &c->report_size) : NULL;
    if (st == PP_OK && !f)
        return pp_error_set(&c->err, PP_ENOMEM, "report: out of memory");
    if (f) {
        st = pp_shard_report_write_json(&report, f, &c->err);
        fclose(f);
    }
    return st;
}

static void shard_work(glue_job *job)
{
    shard_call *c = (shard_call *)job;
    c->status = pp_shard_analysis_parse(c->name, c->text, (size_t)c->size, &c->analysis, &c->err);
    if (c->status == PP_OK)
        c->status = open_mesh(c);
    if (c->status == PP_OK) {
        c->status = pp_shard_plan(c->analysis.flat, c->analysis.nda, &c->mesh, &c->options, NULL, &c->plan, &c->err);
        c->planned = c->status == PP_OK;
    }
    if (c->status == PP_OK)
        c->status = write_report(c);
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
    PyObject *module = glue_text(c->sharded, c->sharded_size);
    c->report_text = c->sharded = NULL;
    if (d && (glue_put(d, "report", report) | glue_put(d, "module", module) |
              glue_put(d, "warnings", warnings(c->analysis.module)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(shard_call *c, PyObject *result)
{
    free(c->report_text);
    free(c->sharded);
    if (c->planned)
        pp_shard_plan_free(&c->plan);
    pp_hw_catalog_free(c->catalog);
    pp_shard_analysis_free(&c->analysis);
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
                           "search", "format", "progress", NULL};
    shard_call c = {.job = {.work = shard_work, .progress_names = progress_names, .integer_values = 4}};
    pp_shard_request request;
    pp_shard_request_default(&request);
    long long threads = 0;
    PyObject *memory, *seed, *progress = Py_None;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#ssssOdLOss|O", keys, &c.text, &c.size, &c.name, &c.mesh_text,
                                     &c.device, &request.precision, &memory, &request.timeout, &threads, &seed,
                                     &request.search, &request.format, &progress))
        return NULL;
    if (glue_memory(memory, &request.memory) < 0 || glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    if (pp_shard_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    pp_shard_request_options(&request, request.timeout, &c.options);
    c.precision = request.precision;
    c.format_text = request.format;
    c.options.on_progress = on_progress;
    c.options.progress_ctx = &c.job;
    c.options.stop = &c.job.stop;
    if (glue_run(&c.job, progress) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK)
        return finish(&c, glue_raise(&c.err, c.name));
    return finish(&c, answer(&c));
}
