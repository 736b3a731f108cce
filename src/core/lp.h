/* lp.h: a mixed-integer linear program in neutral form, as the solvers above
 * core build it and the CBC driver (core/cbc.h) reads it: columns with
 * bounds, objective and integrality; rows with bounds; the matrix as
 * entries (row, column, value) in the order they were added, turned into
 * the column-compressed form CBC loads. Owned by lp.c. */
#ifndef PP_CORE_LP_H
#define PP_CORE_LP_H

#include <stdbool.h>

typedef struct {
    int cols, rows, nz;
    double *col_lo, *col_hi, *obj;
    unsigned char *integer;
    double *row_lo, *row_hi;
    int *nz_row, *nz_col;
    double *nz_val;
    int nz_limit; /* adding an entry past it fails and sets too_large */
    int col_cap, row_cap, nz_cap;
    bool oom, too_large; /* once set, every later addition fails */
} pp_lp;

/* The matrix by columns: column j's entries are index/value[start[j] ..
 * start[j + 1]), in the order they were added. */
typedef struct {
    int *start, *index;
    double *value;
} pp_lp_csc;

/* An empty program; nz_limit <= 0 means INT_MAX / 2 (CBC counts in int). */
void pp_lp_init(pp_lp *l, int nz_limit);
void pp_lp_free(pp_lp *l);

/* Adds a column; returns its index, or -1 once the program has failed. */
int pp_lp_col(pp_lp *l, double lo, double hi, double obj, bool integer);

/* Adds a row lo <= activity <= hi; returns its index, or -1. Entries may
 * name it before or after it is added. */
int pp_lp_row(pp_lp *l, double lo, double hi);

/* Adds value at (row, col); false once the program has failed. */
bool pp_lp_entry(pp_lp *l, int row, int col, double value);

/* Did every addition succeed? */
static inline bool pp_lp_ok(const pp_lp *l) { return !l->oom && !l->too_large; }

/* The column-compressed matrix (false when out of memory; free it either way). */
bool pp_lp_csc_build(const pp_lp *l, pp_lp_csc *out);
void pp_lp_csc_free(pp_lp_csc *c);

#endif
