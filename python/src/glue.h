/* glue.h: what the extension module's files share: running a library call
 * on a thread of its own while the caller's thread keeps the GIL free,
 * answers Ctrl-C and hands progress to a Python callback; raising the
 * library's errors as parplan's exceptions; and the module's functions. */
#ifndef PARPLAN_PY_GLUE_H
#define PARPLAN_PY_GLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdbool.h>
#include "parplan/core.h"
#include "parplan/options.h"

enum { GLUE_PROGRESS_VALUES = 4 };

/* One call into the library. `work` runs on its own thread, without the
 * GIL, and must not touch Python objects; the solver's progress reaches the
 * caller's thread through glue_progress. */
typedef struct glue_job {
    void (*work)(struct glue_job *job);
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool done;
    bool fresh;                                  /* progress not yet handed to Python */
    double progress[GLUE_PROGRESS_VALUES];
    const char *stage;
    double seconds;                              /* the work's own wall time: what the glue adds is the rest */
    const char *const *progress_names;           /* NULL-ended keys of the callback's dict */
    unsigned integer_values;                     /* bit k: value k is a count (an int in Python) */
    pp_stop_flag stop;                           /* this call's flag, in its options: calls on
                                                    other threads go on when it is raised */
} glue_job;

/* Runs job->work and waits for it, calling `callback` (may be NULL or None)
 * with each new progress as a dict. Ctrl-C or an exception from the
 * callback stops the call (job->stop, the call's own flag) and, once it has
 * returned, leaves that exception set: returns -1. Else 0. */
int glue_run(glue_job *job, PyObject *callback);
/* From the work thread (any thread): records the latest progress. */
void glue_progress(glue_job *job, const double *values, const char *stage);

/* Sets the Python exception for err (status and message) about input
 * `name`, built by the factory parplan/errors.py registered. Returns NULL. */
PyObject *glue_raise(const pp_error *err, const char *name);
/* A seed as the CLI takes it (pp_option_seed: 64 bits, a negative one its
 * two's complement); -1 with parplan.ArgumentError set when v is none. */
int glue_seed(PyObject *v, uint64_t *out);
/* Bytes per device from None (0: the device's), a number or a string with
 * a unit ("16GiB"), as the CLI's --memory; -1 with ArgumentError set. */
int glue_memory(PyObject *v, double *out);
PyObject *glue_set_error_factory(PyObject *self, PyObject *factory);

/* d[key] = v, taking v's reference; -1 (exception set) when v is NULL, an
 * earlier put failed, or the dict refuses. */
int glue_put(PyObject *d, const char *key, PyObject *v);

/* A str from a memory stream's text written by one of the library's
 * writers (malloc'd, freed here), or NULL with an exception set. */
PyObject *glue_text(char *text, size_t size);

/* The module's functions, one file per system. */
PyObject *glue_iopddl_solve(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_iopddl_evaluate(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_sched_solve(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_sched_check(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_sched_gen_pipeline(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_cluster_plan(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_cluster_simulate(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_shard(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *glue_plan(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
