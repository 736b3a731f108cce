/* cbc.c: pp_cbc_solve, CBC over a neutral MIP in a forked child with a firm
 * deadline and one safe retry after a crash (see cbc.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Cbc_C_Interface.h>
#include "core/cbc.h"
#include "core/child.h"
#include "core/core_internal.h"

/* One CBC run: what it solves, how, and where the column values go. */
typedef struct {
    const pp_lp *l;
    const pp_lp_csc *a;
    const pp_cbc_options *o;
    double seconds; /* CBC's own limit; 0: none */
    bool safe;      /* preprocessing and cuts off (the retry after a crash) */
    double *x;
} cbc_job;

static void param_double(Cbc_Model *cbc, const char *name, double value)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6f", value);
    Cbc_setParameter(cbc, name, buf);
}

static void set_parameters(Cbc_Model *cbc, const cbc_job *j)
{
    Cbc_setParameter(cbc, "logLevel", j->o->log ? "1" : "0");
    Cbc_setParameter(cbc, "slogLevel", "0");
    Cbc_setParameter(cbc, "timeMode", "elapsed");
    if (j->seconds > 0)
        param_double(cbc, "seconds", j->seconds);
    /* One thread: CBC's serial code. Its threaded mode with a single worker
     * was seen to stall for seconds on tiny MIPs when the cores are busy.
     * More: 100 + n, CBC's convention for n threads with the same search on
     * every run (the house rule: a finished search repeats). */
    int threads = j->o->threads > 0 ? j->o->threads : pp_cpu_count();
    if (threads >= 2) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", 100 + threads);
        Cbc_setParameter(cbc, "threads", buf);
    }
    if (j->o->gap > 0)
        param_double(cbc, "allowableGap", j->o->gap);
    if (j->safe) {
        Cbc_setParameter(cbc, "preprocess", "off");
        Cbc_setParameter(cbc, "cuts", "off");
    }
}

/* Runs CBC in this process. */
static void solve_here(const cbc_job *j, pp_cbc_outcome *out)
{
    const pp_lp *l = j->l;
    memset(out, 0, sizeof *out);
    out->bound = -INFINITY;
    Cbc_Model *cbc = Cbc_newModel();
    Cbc_loadProblem(cbc, l->cols, l->rows, j->a->start, j->a->index, j->a->value, l->col_lo, l->col_hi, l->obj,
                    l->row_lo, l->row_hi);
    for (int c = 0; c < l->cols; c++)
        if (l->integer[c])
            Cbc_setInteger(cbc, c);
    set_parameters(cbc, j);
    if (j->o->warm_count > 0)
        Cbc_setMIPStartI(cbc, j->o->warm_count, j->o->warm_index, j->o->warm_value);
    Cbc_solve(cbc);
    const double *x = Cbc_bestSolution(cbc);
    if (x) {
        out->found = true;
        memcpy(j->x, x, (size_t)l->cols * sizeof *j->x);
    }
    out->proven = Cbc_isProvenOptimal(cbc) != 0;
    out->infeasible = Cbc_isProvenInfeasible(cbc) != 0;
    double bound = Cbc_getBestPossibleObjValue(cbc);
    if (isfinite(bound) && fabs(bound) < 1e300)
        out->bound = bound;
    out->nodes = Cbc_getNodeCount(cbc);
    Cbc_deleteModel(cbc);
}

/* In the child: the answer is the outcome, then the column values. */
static void child_work(void *ctx, void *buf, size_t size)
{
    const cbc_job *j = ctx;
    pp_cbc_outcome mine;
    solve_here(j, &mine);
    memcpy(buf, &mine, sizeof mine);
    memcpy((unsigned char *)buf + sizeof mine, j->x, size - sizeof mine);
}

/* One run in a child; returns what the child did. */
static pp_child_status run(const cbc_job *j, pp_cbc_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->bound = -INFINITY;
    size_t cols = (size_t)j->l->cols * sizeof *j->x;
    unsigned char *buf = malloc(sizeof *out + cols);
    if (!buf) {
        solve_here(j, out); /* no child to be had */
        return PP_CHILD_DONE;
    }
    pp_child_options co = {j->seconds, j->o->grace + j->o->grace_rate * j->seconds, j->o->log, j->o->stop};
    pp_child_status status = pp_child_run(child_work, (void *)j, buf, sizeof *out + cols, &co);
    if (status == PP_CHILD_DONE) {
        memcpy(out, buf, sizeof *out);
        memcpy(j->x, buf + sizeof *out, cols);
    }
    out->killed = status == PP_CHILD_KILLED;
    free(buf);
    return status;
}

pp_status pp_cbc_solve(const pp_lp *l, const pp_cbc_options *o, double *x, pp_cbc_outcome *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->bound = -INFINITY;
    pp_lp_csc a;
    if (!pp_lp_csc_build(l, &a)) {
        pp_lp_csc_free(&a);
        return pp_error_set(err, PP_ENOMEM, "out of memory handing the MIP to CBC");
    }
    cbc_job j = {l, &a, o, o->deadline > 0 ? fmax(0.05, o->deadline - pp_now()) : 0, false, x};
    int crashes = run(&j, out) == PP_CHILD_FAILED;
    if (crashes) {
        j.seconds = o->deadline > 0 ? o->deadline - pp_now() : 0;
        j.safe = true;
        if (o->deadline <= 0 || j.seconds > 0.1)
            crashes += run(&j, out) == PP_CHILD_FAILED;
    }
    out->crashes = crashes;
    pp_lp_csc_free(&a);
    return PP_OK;
}
