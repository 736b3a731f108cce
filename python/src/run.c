/* run.c: one library call on a thread of its own. The caller's thread
 * releases the GIL and waits; every 50 ms, or when the solver reports
 * progress, it takes the GIL back for a moment to run Python's signal
 * handlers (so Ctrl-C raises KeyboardInterrupt) and the progress callback.
 * Either raising stops the call through its own stop flag. The work
 * cannot take the GIL itself, so a callback never runs on a solver's
 * thread and never while a solver holds its locks. */
#include <time.h>
#include "glue.h"

enum { POLL_NANOSECONDS = 50 * 1000 * 1000 };

static void *work_thread(void *arg)
{
    glue_job *job = arg;
    double started = pp_now();
    job->work(job);
    job->seconds = pp_now() - started;
    pthread_mutex_lock(&job->lock);
    job->done = true;
    pthread_cond_signal(&job->changed);
    pthread_mutex_unlock(&job->lock);
    return NULL;
}

void glue_progress(glue_job *job, const double *values, const char *stage)
{
    pthread_mutex_lock(&job->lock);
    for (int k = 0; k < GLUE_PROGRESS_VALUES; k++)
        job->progress[k] = values[k];
    job->stage = stage;
    job->fresh = true;
    pthread_cond_signal(&job->changed);
    pthread_mutex_unlock(&job->lock);
}

static PyObject *progress_dict(const glue_job *job, const double *values, const char *stage)
{
    PyObject *d = PyDict_New();
    for (int k = 0; d && job->progress_names[k]; k++) {
        PyObject *v = job->integer_values >> k & 1 ? PyLong_FromDouble(values[k]) : PyFloat_FromDouble(values[k]);
        if (!v || PyDict_SetItemString(d, job->progress_names[k], v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    if (d && stage) {
        PyObject *v = PyUnicode_FromString(stage);
        if (!v || PyDict_SetItemString(d, "stage", v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* With the GIL: Python's signal handlers, then the callback. -1: stop. */
static int attend(const glue_job *job, PyObject *callback, bool fresh, const double *values, const char *stage)
{
    if (PyErr_CheckSignals() < 0)
        return -1;
    if (!fresh || !callback || callback == Py_None || !job->progress_names)
        return 0;
    PyObject *d = progress_dict(job, values, stage);
    PyObject *r = d ? PyObject_CallOneArg(callback, d) : NULL;
    Py_XDECREF(d);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static void wait_a_moment(glue_job *job)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += POLL_NANOSECONDS;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&job->changed, &job->lock, &until);
}

int glue_run(glue_job *job, PyObject *callback)
{
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->changed, NULL);
    job->done = job->fresh = false;
    pthread_t thread;
    if (pthread_create(&thread, NULL, work_thread, job) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "parplan: cannot start a thread");
        return -1;
    }
    bool stopping = false;
    PyThreadState *state = PyEval_SaveThread();
    pthread_mutex_lock(&job->lock);
    while (!job->done) {
        wait_a_moment(job);
        if (job->done || stopping)
            continue;
        double values[GLUE_PROGRESS_VALUES];
        memcpy(values, job->progress, sizeof values);
        const char *stage = job->stage;
        bool fresh = job->fresh;
        job->fresh = false;
        pthread_mutex_unlock(&job->lock);
        PyEval_RestoreThread(state);
        if (attend(job, callback, fresh, values, stage) < 0) {
            stopping = true;
            atomic_store(&job->stop, 1);
        }
        state = PyEval_SaveThread();
        pthread_mutex_lock(&job->lock);
    }
    pthread_mutex_unlock(&job->lock);
    pthread_join(thread, NULL);
    PyEval_RestoreThread(state);
    /* Progress told just before the work ended (a schedule found on its
     * bound in a millisecond) still reaches the callback. */
    if (!stopping && job->fresh && attend(job, callback, true, job->progress, job->stage) < 0)
        stopping = true;
    pthread_cond_destroy(&job->changed);
    pthread_mutex_destroy(&job->lock);
    return stopping ? -1 : 0;
}
