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
    PyObject *e = PyObject_CallFunction(factory, "sss", pp_status_name(err->status), err->message,
                                        name ? name : "");
    if (e) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
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
