/* module.c: the extension module parplan._parplan. Its functions take the
 * library's inputs as text (the Python side turns dicts into JSON) and
 * return plain dicts and lists; the package parplan wraps them. */
#include "glue.h"
#include "parplan/version.h"

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef methods[] = {
    {"iopddl_solve", KW glue_iopddl_solve, METH_VARARGS | METH_KEYWORDS, "Solves an IOPDDL problem."},
    {"iopddl_evaluate", KW glue_iopddl_evaluate, METH_VARARGS | METH_KEYWORDS,
     "Evaluates an assignment with the contest's semantics."},
    {"sched_solve", KW glue_sched_solve, METH_VARARGS | METH_KEYWORDS, "Schedules a problem."},
    {"sched_check", KW glue_sched_check, METH_VARARGS | METH_KEYWORDS, "Checks a schedule."},
    {"sched_gen_pipeline", KW glue_sched_gen_pipeline, METH_VARARGS | METH_KEYWORDS,
     "Generates a pipeline-parallel problem and its reference schedule."},
    {"cluster_plan", KW glue_cluster_plan, METH_VARARGS | METH_KEYWORDS,
     "Plans a training step on a cluster (or re-plans after events)."},
    {"cluster_simulate", KW glue_cluster_simulate, METH_VARARGS | METH_KEYWORDS,
     "Simulates one training step of a plan."},
    {"shard", KW glue_shard, METH_VARARGS | METH_KEYWORDS, "Plans a StableHLO module's sharding on a mesh."},
    {"plan", KW glue_plan, METH_VARARGS | METH_KEYWORDS, "Plans a StableHLO module's training step on a cluster."},
    {"_set_error_factory", glue_set_error_factory, METH_O, "Registers parplan.errors' factory."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_parplan", "The C library parplan, as the package parplan calls it.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__parplan(void);

PyMODINIT_FUNC PyInit__parplan(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddStringConstant(m, "version", pp_version()) < 0 ||
              PyModule_AddStringConstant(m, "header_version", PP_VERSION) < 0))
        Py_CLEAR(m);
    return m;
}
