/* glue_plan.c: parplan.plan over the C library: one plan of a StableHLO
 * module on a cluster (pp_plan), its report written as JSON by the
 * library's pp_plan_write_json, as `parplan plan --json` prints it. A plan
 * that does not fit memory is still a report (fits false), as the CLI
 * prints it before its exit status 1. */
#include <stdio.h>
#include <string.h>
#include "glue.h"
#include "parplan/plan.h"

typedef struct {
    glue_job job;
    const char *precision;
    pp_plan_request request;
    pp_plan_report report;
    char *text;
    size_t size;
    pp_status status;
    pp_error err;
} plan_call;

static void plan_work(glue_job *job)
{
    plan_call *c = (plan_call *)job;
    c->status = pp_shard_precision_parse(c->precision, &c->request.precision, &c->err);
    if (c->status == PP_OK)
        c->status = pp_plan(&c->request, &c->report, &c->err);
    if (c->report.n_stages == 0)
        return;
    pp_error werr = {0};
    FILE *f = open_memstream(&c->text, &c->size);
    pp_status w = f ? pp_plan_write_json(&c->report, f, &werr) : pp_error_set(&werr, PP_ENOMEM, "report: out of memory");
    if (f)
        fclose(f);
    if (w != PP_OK) {
        c->status = w;
        c->err = werr;
    }
}

static PyObject *finish(plan_call *c, PyObject *result)
{
    free(c->text);
    pp_plan_report_free(&c->report);
    return result;
}

PyObject *glue_plan(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"text", "name", "cluster", "cluster_name", "batch", "microbatches", "precision",
                           "memory", "timeout", "threads", "seed", NULL};
    plan_call c = {.job = {.work = plan_work}};
    pp_plan_request_default(&c.request);
    long long batch = 0, microbatches = 0, threads = 0;
    PyObject *memory, *seed;
    Py_ssize_t module_size, cluster_size;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#ss#sLLsOdLO", keys, &c.request.module_text, &module_size,
                                     &c.request.module_name, &c.request.cluster_text, &cluster_size,
                                     &c.request.cluster_name, &batch, &microbatches, &c.precision, &memory,
                                     &c.request.time_limit, &threads, &seed))
        return NULL;
    if (glue_memory(memory, &c.request.memory) < 0 || glue_seed(seed, &c.request.seed) < 0)
        return NULL;
    /* The request holds them in 32 bits: their ranges are met before, not
     * after a wrap (2^32 micro-batches would pass as 0). */
    if (pp_option_check(&pp_plan_option_microbatches, (double)microbatches, &c.err) != PP_OK ||
        pp_option_check(&pp_option_threads, (double)threads, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request.module_size = (size_t)module_size;
    c.request.cluster_size = (size_t)cluster_size;
    c.request.batch = batch;
    c.request.microbatches = (int32_t)microbatches;
    c.request.threads = (int32_t)threads;
    c.request.stop = &c.job.stop;
    if (glue_run(&c.job, Py_None) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK && !(c.status == PP_INFEASIBLE && c.text))
        return finish(&c, glue_raise(&c.err, c.request.module_name));
    PyObject *d = PyDict_New();
    PyObject *text = glue_text(c.text, c.size);
    c.text = NULL;
    if (d && (glue_put(d, "report", text) | glue_put(d, "library_seconds", PyFloat_FromDouble(c.job.seconds))))
        Py_CLEAR(d);
    return finish(&c, d);
}
