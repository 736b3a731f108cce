/* bound.h: the certified lower bound (bound.c). */
#ifndef PP_IOPDDL_BOUND_H
#define PP_IOPDDL_BOUND_H

#include "iopddl/solver.h"

/* A bound below the cost of every assignment that uses no forbidden cost,
 * feasible or not, from at most `seconds` of TRW-S (and never past
 * deadline); -INFINITY if out of memory. */
double iop_bound_unlimited(const iop_model *m, double seconds, const pp_deadline *deadline);

#endif
