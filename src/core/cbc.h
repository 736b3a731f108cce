/* cbc.h: solving a neutral MIP (core/lp.h) with CBC, for every solver that
 * has an exact stage (IOPDDL's exact solver, the scheduling MIP). CBC runs
 * in a forked child (core/child.h): Debian's CBC is built with assertions,
 * and one inside CLP was seen to abort on a 67-column MIP, which must cost
 * one answer, not the caller's process; CBC's first LP and preprocessing
 * cannot be interrupted, so only killing the child keeps a time limit firm
 * and answers a stop request at once; CBC's log and process-wide state stay
 * away from the caller's stdout, which carries answers; and several solves
 * can run side by side. A crash is followed by one more run without CBC's
 * preprocessing and cuts while time is left. Owned by cbc.c. */
#ifndef PP_CORE_CBC_H
#define PP_CORE_CBC_H

#include <stdint.h>
#include "core/lp.h"
#include "parplan/core.h"

typedef struct {
    double deadline;   /* pp_now() value CBC stops by; 0: none */
    const pp_stop_flag *stop; /* the solve's flag, answered as a stop request; NULL: none */
    double grace, grace_rate; /* the child is killed grace + grace_rate x CBC's
                                 limit past that limit (its last step overruns) */
    int threads;       /* 1: serial CBC; n >= 2: CBC's deterministic parallel
                          search on n threads; <= 0: one per online core */
    double gap;        /* allowableGap: an incumbent this close to the bound is
                          optimal (under 1 for integer objectives); <= 0: CBC's own */
    bool log;          /* CBC's log on stderr (else silent) */
    int warm_count;    /* a MIP start: warm_value[k] for column warm_index[k] */
    const int *warm_index;
    const double *warm_value;
} pp_cbc_options;

typedef struct {
    bool found;      /* x holds CBC's best solution */
    bool proven;     /* the search finished with it optimal */
    bool infeasible; /* the search proved that no solution exists */
    bool killed;     /* the last run stopped at the deadline or on a stop request */
    int crashes;     /* CBC process deaths */
    double bound;    /* CBC's lower bound (-INFINITY: none) */
    int64_t nodes;   /* branch-and-bound nodes */
} pp_cbc_outcome;

/* Minimises l's objective. x (l->cols values) receives the best solution
 * when out->found. PP_ENOMEM when the matrix cannot be built; PP_OK
 * otherwise, whatever CBC found (see out). */
pp_status pp_cbc_solve(const pp_lp *l, const pp_cbc_options *o, double *x, pp_cbc_outcome *out, pp_error *err);

#endif
