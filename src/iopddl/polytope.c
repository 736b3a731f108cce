/* polytope.c: owns the local polytope's marginal rows of a pair and the
 * columns of its entries (polytope.h), one writing for the exact solver's
 * MIP and the bound's peak. The order of rows, columns and entries is the
 * one both have always used: CBC's answers depend on it. */
#include "iopddl/polytope.h"

void iopddl_polytope_rows(pp_lp *lp, const int *col_a, uint32_t da, const int *col_b, uint32_t db, int *row_a,
                          int *row_b)
{
    for (uint32_t i = 0; i < da; i++)
        if ((row_a[i] = col_a[i] >= 0 ? pp_lp_row(lp, 0, 0) : -1) >= 0)
            pp_lp_entry(lp, row_a[i], col_a[i], -1);
    uint32_t last = 0;
    for (uint32_t j = 0; j < db; j++)
        last = col_b[j] >= 0 ? j : last;
    for (uint32_t j = 0; j < db; j++)
        if ((row_b[j] = col_b[j] >= 0 && j != last ? pp_lp_row(lp, 0, 0) : -1) >= 0)
            pp_lp_entry(lp, row_b[j], col_b[j], -1);
}

int iopddl_polytope_entry(pp_lp *lp, const int *row_a, const int *row_b, uint32_t i, uint32_t j, double cost,
                          double hi)
{
    int col = pp_lp_col(lp, 0, hi, cost, false);
    pp_lp_entry(lp, row_a[i], col, 1);
    if (row_b[j] >= 0)
        pp_lp_entry(lp, row_b[j], col, 1);
    return col;
}
