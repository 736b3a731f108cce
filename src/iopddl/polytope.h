/* polytope.h: the local polytope's marginal rows of one pair, as both MIPs
 * over an IOPDDL model write them (owned by polytope.c): the exact
 * solver's (exact_mip.c) and the bound's peak (bound_peak.c). */
#ifndef PP_IOPDDL_POLYTOPE_H
#define PP_IOPDDL_POLYTOPE_H

#include <stdint.h>
#include "core/lp.h"

/* The marginal rows of a pair whose ends' x columns are col_a[0..da) and
 * col_b[0..db) (-1: a strategy not in the MIP): "sum over j of y(i, j) =
 * x(a, i)" for each of a's strategies, then the same for each of b's but
 * its last, which the others and the assignment rows imply. Their indices
 * go into row_a and row_b (-1 where there is none). */
void iopddl_polytope_rows(pp_lp *lp, const int *col_a, uint32_t da, const int *col_b, uint32_t db, int *row_a,
                          int *row_b);

/* Adds y(i, j) of objective `cost` and upper bound `hi` to those rows;
 * returns its column, or -1 once the program has failed. */
int iopddl_polytope_entry(pp_lp *lp, const int *row_a, const int *row_b, uint32_t i, uint32_t j, double cost,
                          double hi);

#endif
