/* errors.c: the library's errors as Python exceptions, and the two small
 * builders of answers every system's glue uses. The exception classes live
 * in parplan/errors.py, which registers a factory here when the package is
 * imported; the factory parses the message's file and position, so the
 * C side only hands over the status, the message and the input's name. */
#include "glue.h"

static PyObject *factory;

PyObject *glue_set_error_factory(PyObject *self, PyObject *f)
{
    (void)self;
    if (!PyCallable_Check(f))
        return PyErr_Format(PyExc_TypeError, "the error factory must be callable");
    Py_INCREF(f);
    Py_XSETREF(factory, f);
    Py_RETURN_NONE;
}

PyObject *glue_raise(const pp_error *err, const char *name)
{
    if (!factory) {
        PyErr_SetString(PyExc_RuntimeError, err->message);
        return NULL;
    }
    /* Quoted input that is not UTF-8 still reaches the user, replaced. */
    PyObject *message = PyUnicode_DecodeUTF8(err->message, (Py_ssize_t)strlen(err->message), "replace");
    PyObject *e = message ? PyObject_CallFunction(factory, "sOs", pp_status_name(err->status), message,
                                                  name ? name : "")
                          : NULL;
    Py_XDECREF(message);
    if (e) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
}

/* "NAME VALUE: allowed: WHAT" for a value the C types cannot hold. */
static int refuse(const pp_option_range *r, PyObject *v)
{
    PyObject *shown = PyObject_Str(v);
    const char *text = shown ? PyUnicode_AsUTF8(shown) : NULL;
    char allowed[160];
    pp_option_range_text(r, allowed, sizeof allowed);
    pp_error err = {0};
    pp_error_set(&err, PP_EARG, "%s %s: allowed: %s", r->name, text ? text : "?", allowed);
    PyErr_Clear();
    Py_XDECREF(shown);
    glue_raise(&err, NULL);
    return -1;
}

int glue_seed(PyObject *v, uint64_t *out)
{
    if (!PyLong_Check(v))
        return refuse(&pp_option_seed, v);
    int overflow;
    long long negative = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (!overflow && negative < 0) {
        *out = (uint64_t)negative;
        return 0;
    }
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred())
        return refuse(&pp_option_seed, v);
    *out = u;
    return 0;
}

int glue_memory(PyObject *v, double *out)
{
    *out = 0;
    if (v == Py_None)
        return 0;
    if (PyUnicode_Check(v)) {
        const char *text = PyUnicode_AsUTF8(v);
        return text && pp_bytes_parse(text, out) ? 0 : refuse(&pp_option_memory, v);
    }
    double bytes = PyFloat_AsDouble(v);
    if (bytes == -1 && PyErr_Occurred())
        return refuse(&pp_option_memory, v);
    pp_error err = {0};
    if (pp_option_check(&pp_option_memory, bytes, &err) != PP_OK) {
        glue_raise(&err, NULL);
        return -1;
    }
    *out = bytes;
    return 0;
}

PyObject *glue_text(char *text, size_t size)
{
    PyObject *s = text ? PyUnicode_DecodeUTF8(text, (Py_ssize_t)size, "strict") : PyErr_NoMemory();
    free(text);
    return s;
}

int glue_put(PyObject *d, const char *key, PyObject *v)
{
    /* Callers chain several puts: after one fails, the rest only let go. */
    int rc = v && !PyErr_Occurred() ? PyDict_SetItemString(d, key, v) : -1;
    Py_XDECREF(v);
    return rc;
}
