/* tiny_model.h: a tiny problem (tiny.h) written as contest JSON into json,
 * loaded, and built into the solver's model, for the tests of the solver's
 * parts (forest, groups, relaxation, repair). */
#ifndef PP_TESTS_TINY_MODEL_H
#define PP_TESTS_TINY_MODEL_H

#include "iopddl/solver.h"
#include "tiny.h"

/* The model of t and, in *problem, the loaded problem; NULL for both (and a
 * failed check) when the loader or the build rejects it. json must hold
 * 16 KB (tiny.h's largest problem). */
static iopddl_model *tiny_model(const tiny *t, char *json, pp_iopddl_problem **problem)
{
    tiny_json(t, json);
    *problem = load_text(json);
    if (!*problem)
        return NULL;
    iopddl_model *m = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(iopddl_model_build(*problem, &m, &err), PP_OK);
    if (!m) {
        pp_iopddl_free(*problem);
        *problem = NULL;
    }
    return m;
}

#endif
