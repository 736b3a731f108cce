/* lp.c: the neutral MIP's one builder (columns, rows and entries appended,
 * arrays grown by pp_grow) and its column-compressed form (see lp.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "core/lp.h"

void pp_lp_init(pp_lp *l, int nz_limit)
{
    memset(l, 0, sizeof *l);
    l->nz_limit = nz_limit > 0 ? nz_limit : INT_MAX / 2;
}

void pp_lp_free(pp_lp *l)
{
    free(l->col_lo);
    free(l->col_hi);
    free(l->obj);
    free(l->integer);
    free(l->row_lo);
    free(l->row_hi);
    free(l->nz_row);
    free(l->nz_col);
    free(l->nz_val);
    memset(l, 0, sizeof *l);
}

int pp_lp_col(pp_lp *l, double lo, double hi, double obj, bool integer)
{
    int c = l->cols, cap = l->col_cap, c1 = cap, c2 = cap, c3 = cap;
    if (!pp_lp_ok(l) || !pp_grow((void **)&l->col_lo, &c1, c + 1, sizeof(double)) ||
        !pp_grow((void **)&l->col_hi, &c2, c + 1, sizeof(double)) ||
        !pp_grow((void **)&l->obj, &c3, c + 1, sizeof(double)) ||
        !pp_grow((void **)&l->integer, &l->col_cap, c + 1, 1)) {
        l->oom |= !l->too_large;
        return -1;
    }
    l->col_lo[c] = lo;
    l->col_hi[c] = hi;
    l->obj[c] = obj;
    l->integer[c] = integer;
    return l->cols++;
}

int pp_lp_row(pp_lp *l, double lo, double hi)
{
    int r = l->rows, cap = l->row_cap;
    if (!pp_lp_ok(l) || !pp_grow((void **)&l->row_lo, &cap, r + 1, sizeof(double)) ||
        !pp_grow((void **)&l->row_hi, &l->row_cap, r + 1, sizeof(double))) {
        l->oom |= !l->too_large;
        return -1;
    }
    l->row_lo[r] = lo;
    l->row_hi[r] = hi;
    return l->rows++;
}

bool pp_lp_entry(pp_lp *l, int row, int col, double value)
{
    int k = l->nz, cap = l->nz_cap, c1 = cap, c2 = cap;
    if (pp_lp_ok(l) && k >= l->nz_limit)
        l->too_large = true;
    if (!pp_lp_ok(l) || !pp_grow((void **)&l->nz_row, &c1, k + 1, sizeof(int)) ||
        !pp_grow((void **)&l->nz_col, &c2, k + 1, sizeof(int)) ||
        !pp_grow((void **)&l->nz_val, &l->nz_cap, k + 1, sizeof(double))) {
        l->oom |= !l->too_large;
        return false;
    }
    l->nz_row[k] = row;
    l->nz_col[k] = col;
    l->nz_val[k] = value;
    l->nz++;
    return true;
}

/* A counting sort by column: stable, so each column keeps the order in
 * which its entries were added. */
bool pp_lp_csc_build(const pp_lp *l, pp_lp_csc *out)
{
    out->start = calloc((size_t)l->cols + 2, sizeof(int));
    out->index = malloc(((size_t)l->nz + 1) * sizeof(int));
    out->value = malloc(((size_t)l->nz + 1) * sizeof(double));
    if (!out->start || !out->index || !out->value)
        return false;
    for (int k = 0; k < l->nz; k++)
        out->start[l->nz_col[k] + 2]++;
    for (int c = 0; c < l->cols; c++)
        out->start[c + 2] += out->start[c + 1];
    for (int k = 0; k < l->nz; k++) {
        int at = out->start[l->nz_col[k] + 1]++;
        out->index[at] = l->nz_row[k];
        out->value[at] = l->nz_val[k];
    }
    return true;
}

void pp_lp_csc_free(pp_lp_csc *c)
{
    free(c->start);
    free(c->index);
    free(c->value);
}
