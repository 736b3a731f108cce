/* bound.h: the certified lower bound (bound.c). */
#ifndef PP_IOPDDL_BOUND_H
#define PP_IOPDDL_BOUND_H

#include "iopddl/solver.h"

/* A bound below the cost of every assignment that uses no forbidden cost
 * and keeps the usage limit; -INFINITY if out of memory. TRW-S runs at no
 * limit until its bound stalls (with `steps`: only until it slows, to warm
 * its messages), then up to `steps` subgradient steps on the multipliers of
 * the usage rows (bound.c), all within `seconds` (and never past deadline). `upper`, when finite, is the cost of a known answer: the
 * steps aim at it (it only steers them; any value keeps the bound valid). */
double iopddl_bound(const iopddl_model *m, double upper, int steps, double seconds, const pp_deadline *deadline);

#endif
