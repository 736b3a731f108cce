/* glue_sched.c: parplan.schedule, check_schedule and gen.pipeline over the C
 * library. Problems and schedules travel as JSON text in the README's
 * formats, read and written by the library's own readers and writers, so a
 * dict from Python means exactly what the same file means to the CLI. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "glue.h"
#include "parplan/sched.h"
#include "parplan/sched_request.h"

typedef struct {
    glue_job job;
    const char *source, *name, *schedule_source, *schedule_name;
    Py_ssize_t size, schedule_size;
    pp_sched_request request; /* schedule's: one pp_sched_run, as the CLI's */
    pp_sched_job run;
    pp_sched_outcome out;
    pp_sched_check_job check; /* check_schedule's: one pp_sched_check_run, as the CLI's */
    pp_sched_verdict verdict;
    pp_sched_problem *problem; /* gen.pipeline's problem and reference */
    pp_sched_schedule *start;
    char *schedule_text;
    size_t schedule_text_size;
    pp_status status;
    pp_error err;
} sched_call;

static const char *const progress_names[] = {"makespan", "lower_bound", "elapsed", NULL};

static void on_progress(void *ctx, double makespan, double lower_bound, double elapsed)
{
    double values[GLUE_PROGRESS_VALUES] = {makespan, lower_bound, elapsed, 0};
    glue_progress(ctx, values, NULL);
}

/* The schedule in its JSON format, written by the library's writer. */
static pp_status write_schedule(sched_call *c, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    FILE *f = open_memstream(&c->schedule_text, &c->schedule_text_size);
    if (!f)
        return pp_error_set(&c->err, PP_ENOMEM, "out of memory");
    pp_status st = pp_sched_write_schedule(p, s, f, &c->err);
    if (fclose(f) != 0 && st == PP_OK)
        st = pp_error_set(&c->err, PP_ENOMEM, "out of memory");
    return st;
}

static void solve_work(glue_job *job)
{
    sched_call *c = (sched_call *)job;
    /* the timeout counts from the call, reading included, as the CLI's does */
    c->run.started = pp_now();
    c->status = pp_sched_run(&c->request, &c->run, &c->out, &c->err);
    if (c->status == PP_OK)
        c->status = write_schedule(c, c->out.problem, c->out.result.schedule);
}

static PyObject *number(double v) { return isnan(v) ? Py_NewRef(Py_None) : PyFloat_FromDouble(v); }

static PyObject *solve_answer(sched_call *c)
{
    const pp_sched_result *r = &c->out.result;
    PyObject *d = PyDict_New();
    PyObject *text = glue_text(c->schedule_text, c->schedule_text_size);
    c->schedule_text = NULL;
    if (d && (glue_put(d, "schedule", text) | glue_put(d, "makespan", PyFloat_FromDouble(r->makespan)) |
              glue_put(d, "lower_bound", PyFloat_FromDouble(r->lower_bound)) |
              glue_put(d, "mip_bound", number(r->mip_bound)) |
              glue_put(d, "proven_optimal", PyBool_FromLong(r->proven_optimal)) |
              glue_put(d, "time_to_first", PyFloat_FromDouble(r->time_to_first)) |
              glue_put(d, "time_to_best", PyFloat_FromDouble(r->time_to_best)) |
              glue_put(d, "elapsed", PyFloat_FromDouble(r->elapsed)) | glue_put(d, "rounds", PyLong_FromLong(r->rounds)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(sched_call *c, PyObject *answer)
{
    free(c->schedule_text);
    pp_sched_outcome_free(&c->out);
    pp_sched_verdict_free(&c->verdict);
    pp_sched_schedule_free(c->start);
    pp_sched_problem_free(c->problem);
    return answer;
}

PyObject *glue_sched_solve(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"source", "is_path", "name", "timeout", "threads", "seed", "rounds", "no_mip",
                           "coarsen", "objective", "start", "progress", NULL};
    sched_call c = {.job = {.work = solve_work, .progress_names = progress_names}, .schedule_name = "start"};
    pp_sched_request request;
    pp_sched_request_default(&request);
    long long threads = 0, rounds = 0, coarsen = 0;
    PyObject *seed = NULL, *progress = Py_None;
    int is_path = 0, no_mip = 0;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#ps|dLOLpLsz#O", keys, &c.source, &c.size, &is_path,
                                     &c.name, &request.timeout, &threads, &seed, &rounds, &no_mip, &coarsen,
                                     &request.objective, &c.schedule_source, &c.schedule_size, &progress))
        return NULL;
    if (seed && glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    request.rounds = rounds;
    request.coarsen = coarsen;
    request.no_mip = no_mip;
    if (pp_sched_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request = request;
    c.run = (pp_sched_job){.problem = {.text = c.source, .size = (size_t)c.size, .name = c.name},
                           .start = {.text = c.schedule_source, .size = (size_t)c.schedule_size,
                                     .name = c.schedule_name},
                           .on_progress = on_progress, .progress_ctx = &c.job, .stop = &c.job.stop};
    if (is_path)
        c.run.problem.path = c.source;
    if (glue_run(&c.job, progress) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK)
        return finish(&c, glue_raise(&c.err, c.out.failed));
    return finish(&c, solve_answer(&c));
}

static void check_work(glue_job *job)
{
    sched_call *c = (sched_call *)job;
    c->status = pp_sched_check_run(&c->check, &c->verdict, &c->err);
}

static PyObject *per_device(const double *v, int n)
{
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *x = PyFloat_FromDouble(v[i]);
        if (!x)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static PyObject *check_answer(const sched_call *c)
{
    const pp_sched_verdict *v = &c->verdict;
    const pp_sched_report *r = &v->report;
    int n = v->problem->device_count;
    PyObject *devices = PyList_New(n);
    for (int i = 0; devices && i < n; i++) {
        PyObject *s = PyUnicode_FromString(v->problem->device_name[i]);
        if (!s)
            Py_CLEAR(devices);
        else
            PyList_SET_ITEM(devices, i, s);
    }
    PyObject *d = PyDict_New();
    if (d && (glue_put(d, "valid", PyBool_FromLong(v->valid)) |
              glue_put(d, "violation", v->valid ? Py_NewRef(Py_None) : PyUnicode_FromString(v->why.message)) |
              glue_put(d, "violations", PyLong_FromLong(v->violations)) |
              glue_put(d, "makespan", PyFloat_FromDouble(r->makespan)) |
              glue_put(d, "max_span", PyFloat_FromDouble(r->max_span)) |
              glue_put(d, "max_bubble", PyFloat_FromDouble(r->max_bubble)) | glue_put(d, "devices", devices) |
              glue_put(d, "span", per_device(r->span, n)) | glue_put(d, "busy", per_device(r->busy, n)) |
              glue_put(d, "bubble", per_device(r->bubble, n)) | glue_put(d, "peak_memory", per_device(r->peak_memory, n)) |
              glue_put(d, "period", v->cyclic ? PyFloat_FromDouble(v->period) : Py_NewRef(Py_None)) |
              glue_put(d, "period_bubble",
                       v->cyclic ? PyFloat_FromDouble(v->cyclic_report.bubble) : Py_NewRef(Py_None))))
        Py_CLEAR(d);
    else if (!d)
        Py_XDECREF(devices);
    return d;
}

PyObject *glue_sched_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"source", "is_path", "name", "schedule", "schedule_name", "period", "asynchronous", NULL};
    sched_call c = {.job = {.work = check_work}, .schedule_name = "schedule"};
    int is_path = 0, async = 0;
    PyObject *given = Py_None;
    double period = 0;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#pss#|sOp", keys, &c.source, &c.size, &is_path, &c.name,
                                     &c.schedule_source, &c.schedule_size, &c.schedule_name, &given, &async))
        return NULL;
    if (given != Py_None && (period = PyFloat_AsDouble(given)) == -1 && PyErr_Occurred())
        return NULL;
    if (given != Py_None && pp_option_check(&pp_sched_option_period, period, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.check = (pp_sched_check_job){.problem = {.text = c.source, .size = (size_t)c.size, .name = c.name},
                                   .schedule = {.text = c.schedule_source, .size = (size_t)c.schedule_size,
                                                .name = c.schedule_name},
                                   .period = period, .async = async};
    if (is_path)
        c.check.problem.path = c.source;
    if (glue_run(&c.job, NULL) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK)
        return finish(&c, glue_raise(&c.err, c.verdict.failed));
    return finish(&c, check_answer(&c));
}

static PyObject *written(pp_status (*write)(sched_call *c, FILE *f), sched_call *c)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return PyErr_NoMemory();
    pp_status st = write(c, f);
    fclose(f);
    if (st != PP_OK) {
        free(text);
        return glue_raise(&c->err, "pipeline");
    }
    return glue_text(text, size);
}

static pp_status write_problem(sched_call *c, FILE *f) { return pp_sched_write_problem(c->problem, f, &c->err); }
static pp_status write_reference(sched_call *c, FILE *f)
{
    return pp_sched_write_schedule(c->problem, c->start, f, &c->err);
}

PyObject *glue_sched_gen_pipeline(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"stages", "microbatches", "scheme", "mem_act", "param_mem", "comm",
                           "t_f", "t_b", "t_w", "w_mem", "in_order", "chunks", NULL};
    pp_pipe_spec spec = {.param_mem = 1, .t_f = 1, .t_b = 1, .t_w = 1};
    const char *scheme;
    int in_order = 0;
    pp_error bad = {0};
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iisd|ddddddpi", keys, &spec.stages, &spec.microbatches, &scheme,
                                     &spec.mem_act, &spec.param_mem, &spec.comm, &spec.t_f, &spec.t_b, &spec.t_w,
                                     &spec.w_mem, &in_order, &spec.chunks))
        return NULL;
    if (pp_pipe_scheme_parse(scheme, &spec.scheme, &bad) != PP_OK)
        return PyErr_Format(PyExc_ValueError, "%s", bad.message);
    spec.in_order = in_order;
    sched_call c = {.name = "pipeline"};
    pp_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pp_sched_gen_pipeline(&spec, &c.problem, &c.start, &c.err);
    Py_END_ALLOW_THREADS
    if (st != PP_OK)
        return finish(&c, glue_raise(&c.err, "pipeline"));
    PyObject *problem = written(write_problem, &c);
    PyObject *reference = problem && c.start ? written(write_reference, &c) : Py_NewRef(Py_None);
    PyObject *pair = problem && reference ? PyTuple_Pack(2, problem, reference) : NULL;
    Py_XDECREF(problem);
    Py_XDECREF(reference);
    return finish(&c, pair);
}
