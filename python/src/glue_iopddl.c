/* glue_iopddl.c: parplan.iopddl's solve and evaluate over the C library. The
 * problem comes as a path (the library reads it, gzip too) or as JSON text
 * the Python side made from a dict; both are read on the work thread. */
#include <math.h>
#include "glue.h"
#include "parplan/iopddl.h"
#include "parplan/iopddl_request.h"

typedef struct {
    glue_job job;
    const char *source;      /* a path, or the text itself */
    Py_ssize_t size;
    const char *name;
    pp_iopddl_request request; /* solve's: one pp_iopddl_run, as the CLI's */
    pp_iopddl_job run;
    pp_iopddl_outcome out;
    pp_iopddl_eval_job judge; /* evaluate's: one pp_iopddl_eval_run, as the CLI's eval */
    pp_iopddl_eval_outcome judged;
    pp_status status;
    pp_error err;
} iopddl_call;

static const char *const progress_names[] = {"elapsed", "best_cost", "rounds", NULL};

static void on_progress(void *ctx, const pp_iopddl_progress *p)
{
    double values[GLUE_PROGRESS_VALUES] = {p->elapsed, (double)p->best_cost, (double)p->rounds, 0};
    glue_progress(ctx, values, p->stage);
}

/* Each source is a path or text, with the name messages give it. */
static pp_source source_of(const char *text, Py_ssize_t size, int is_path, const char *name)
{
    return is_path ? (pp_source){.path = text, .name = name} : (pp_source){.text = text, .size = (size_t)size, .name = name};
}

static void solve_work(glue_job *job)
{
    iopddl_call *c = (iopddl_call *)job;
    /* the timeout counts from the call, reading included, as the CLI's does */
    c->run.started = pp_now();
    c->status = pp_iopddl_run(&c->request, &c->run, &c->out, &c->err);
}

static void evaluate_work(glue_job *job)
{
    iopddl_call *c = (iopddl_call *)job;
    c->status = pp_iopddl_eval_run(&c->judge, &c->judged, &c->err);
}

static PyObject *int128(pp_int128 v)
{
    char digits[48], *at = digits + sizeof digits - 1;
    bool negative = v < 0;
    unsigned __int128 u = negative ? -(unsigned __int128)v : (unsigned __int128)v;
    *at = '\0';
    do {
        *--at = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (negative)
        *--at = '-';
    return PyLong_FromString(at, NULL, 10);
}

static int put_evaluation(PyObject *d, const pp_iopddl_evaluation *e)
{
    return glue_put(d, "evaluated_cost", int128(e->cost)) | glue_put(d, "peak_usage", int128(e->peak_usage)) |
           glue_put(d, "peak_time", PyLong_FromLongLong(e->peak_time)) |
           glue_put(d, "feasible", PyBool_FromLong(e->feasible)) |
           glue_put(d, "uses_forbidden", PyBool_FromLong(e->uses_forbidden));
}

static PyObject *assignment(const uint32_t *x, uint32_t n)
{
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list && i < n; i++) {
        PyObject *v = PyLong_FromUnsignedLong(x[i]);
        if (!v)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *bound(double b) { return isfinite(b) ? PyFloat_FromDouble(b) : Py_NewRef(Py_None); }

static PyObject *solve_answer(const iopddl_call *c)
{
    const pp_iopddl_result *r = &c->out.result;
    PyObject *d = PyDict_New();
    if (d && (glue_put(d, "assignment", assignment(r->strategies, c->out.problem->node_count)) |
              glue_put(d, "cost", int128(r->cost)) | put_evaluation(d, &c->out.evaluation) |
              glue_put(d, "lower_bound", bound(r->lower_bound)) |
              glue_put(d, "proven_optimal", PyBool_FromLong(r->proven_optimal)) |
              glue_put(d, "time_first_feasible", PyFloat_FromDouble(r->time_first_feasible)) |
              glue_put(d, "time_best", PyFloat_FromDouble(r->time_best)) |
              glue_put(d, "time_total", PyFloat_FromDouble(r->time_total)) |
              glue_put(d, "rounds", PyLong_FromLongLong(r->rounds)) |
              glue_put(d, "neighbourhood_rounds", PyLong_FromLongLong(r->neighbourhood_rounds)) |
              glue_put(d, "library_seconds", PyFloat_FromDouble(c->job.seconds))))
        Py_CLEAR(d);
    return d;
}

static PyObject *finish(iopddl_call *c, PyObject *answer)
{
    pp_iopddl_outcome_free(&c->out);
    pp_iopddl_eval_outcome_free(&c->judged);
    return answer;
}

PyObject *glue_iopddl_solve(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"source", "is_path", "name", "timeout", "threads", "seed", "rounds",
                           "no_exact", "progress", "no_bound", NULL};
    /* best_cost and rounds are counts. */
    iopddl_call c = {.job = {.work = solve_work, .progress_names = progress_names, .integer_values = 6}};
    pp_iopddl_request request;
    pp_iopddl_request_default(&request);
    long long threads = 0, rounds = 0;
    PyObject *seed = NULL, *progress = Py_None;
    int is_path = 0, no_exact = 0, no_bound = 0;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#ps|dLOLpOp", keys, &c.source, &c.size, &is_path, &c.name,
                                     &request.timeout, &threads, &seed, &rounds, &no_exact, &progress, &no_bound))
        return NULL;
    if (seed && glue_seed(seed, &request.seed) < 0)
        return NULL;
    request.threads = threads;
    request.rounds = rounds;
    request.no_exact = no_exact;
    request.no_bound = no_bound;
    if (pp_iopddl_request_check(&request, &c.err) != PP_OK)
        return glue_raise(&c.err, NULL);
    c.request = request;
    c.run = (pp_iopddl_job){.on_progress = on_progress, .progress_ctx = &c.job, .stop = &c.job.stop};
    c.run.problem = source_of(c.source, c.size, is_path, c.name);
    if (glue_run(&c.job, progress) < 0)
        return finish(&c, NULL);
    if (c.status != PP_OK)
        return finish(&c, glue_raise(&c.err, c.name));
    return finish(&c, solve_answer(&c));
}

PyObject *glue_iopddl_evaluate(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keys[] = {"source", "is_path", "name", "answer", "answer_is_path", "answer_name", NULL};
    iopddl_call c = {.job = {.work = evaluate_work}};
    const char *answer, *answer_name;
    Py_ssize_t answer_size;
    int is_path = 0, answer_is_path = 0;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#pss#ps", keys, &c.source, &c.size, &is_path, &c.name, &answer,
                                     &answer_size, &answer_is_path, &answer_name))
        return NULL;
    c.judge.problem = source_of(c.source, c.size, is_path, c.name);
    c.judge.answer = source_of(answer, answer_size, answer_is_path, answer_name);
    PyObject *d = NULL;
    if (glue_run(&c.job, NULL) == 0) {
        if (c.status != PP_OK)
            glue_raise(&c.err, c.judged.problem ? answer_name : c.name); /* past the problem: the answer's */
        else if ((d = PyDict_New()) && put_evaluation(d, &c.judged.evaluation))
            Py_CLEAR(d);
    }
    return finish(&c, d);
}
