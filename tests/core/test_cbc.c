/* test_cbc.c: the neutral MIP and its CBC driver (src/core/lp.c, cbc.c).
 * Owns the evidence that the builder's column-compressed matrix holds every
 * entry once, by column, in the order added; that the nonzero cap refuses
 * the entry past it; and that CBC, run through the driver, returns on small
 * random binary programs (with one continuous column) the optimum that
 * enumerating every assignment finds, a solution that satisfies every row,
 * proves infeasibility where enumeration finds none, and keeps its answer
 * with a warm start. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "core/cbc.h"
#include "core/core_internal.h"

static void test_csc(void)
{
    pp_lp l;
    pp_lp_init(&l, 0);
    for (int c = 0; c < 3; c++)
        CHECK_EQ_INT(pp_lp_col(&l, 0, 1, c, c == 0), c);
    CHECK_EQ_INT(pp_lp_row(&l, 1, 1), 0);
    /* entries of later columns first, and a row named before it exists */
    CHECK(pp_lp_entry(&l, 0, 2, 5.0));
    CHECK(pp_lp_entry(&l, 1, 0, -1.0));
    CHECK(pp_lp_entry(&l, 0, 0, 2.0));
    CHECK(pp_lp_entry(&l, 1, 2, 7.0));
    CHECK_EQ_INT(pp_lp_row(&l, -INFINITY, 3), 1);
    CHECK(pp_lp_ok(&l));
    pp_lp_csc a;
    CHECK(pp_lp_csc_build(&l, &a));
    int start[] = {0, 2, 2, 4}, index[] = {1, 0, 0, 1};
    double value[] = {-1, 2, 5, 7};
    for (int c = 0; c <= 3; c++)
        CHECK_EQ_INT(a.start[c], start[c]);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_INT(a.index[k], index[k]);
        CHECK(a.value[k] == value[k]);
    }
    CHECK(l.integer[0] && !l.integer[1] && l.obj[2] == 2);
    pp_lp_csc_free(&a);
    pp_lp_free(&l);

    pp_lp_init(&l, 2);
    pp_lp_col(&l, 0, 1, 0, true);
    CHECK(pp_lp_entry(&l, 0, 0, 1) && pp_lp_entry(&l, 0, 0, 1));
    CHECK(!pp_lp_entry(&l, 0, 0, 1));
    CHECK(l.too_large && !l.oom && l.nz == 2);
    CHECK_EQ_INT(pp_lp_col(&l, 0, 1, 0, true), -1);
    pp_lp_free(&l);
}

enum { BINS = 7, ROWS = 3 };

/* A random program: minimise c.x + y over binary x and y >= 0 with
 * y >= sum x - 3 (so y is the excess over 3), rows sum a.x <= b. */
typedef struct {
    int c[BINS], a[ROWS][BINS], b[ROWS];
} program;

static void build(const program *p, pp_lp *l)
{
    pp_lp_init(l, 0);
    for (int j = 0; j < BINS; j++)
        pp_lp_col(l, 0, 1, p->c[j], true);
    int y = pp_lp_col(l, 0, INFINITY, 10, false);
    for (int r = 0; r < ROWS; r++) {
        for (int j = 0; j < BINS; j++)
            pp_lp_entry(l, l->rows, j, p->a[r][j]);
        pp_lp_row(l, -INFINITY, p->b[r]);
    }
    for (int j = 0; j < BINS; j++)
        pp_lp_entry(l, l->rows, j, 1);
    pp_lp_entry(l, l->rows, y, -1);
    pp_lp_row(l, -INFINITY, 3);
}

static double value_of(const program *p, unsigned mask, bool *feasible)
{
    int count = 0;
    double v = 0;
    *feasible = true;
    for (int r = 0; r < ROWS; r++) {
        int s = 0;
        for (int j = 0; j < BINS; j++)
            s += (mask >> j & 1) ? p->a[r][j] : 0;
        *feasible = *feasible && s <= p->b[r];
    }
    for (int j = 0; j < BINS; j++)
        if (mask >> j & 1) {
            v += p->c[j];
            count++;
        }
    return v + 10.0 * (count > 3 ? count - 3 : 0);
}

/* The best value over all 2^BINS assignments; NAN when none is feasible. */
static double enumerate(const program *p, unsigned *best_mask)
{
    double best = NAN;
    for (unsigned mask = 0; mask < 1u << BINS; mask++) {
        bool feasible;
        double v = value_of(p, mask, &feasible);
        if (feasible && (isnan(best) || v < best)) {
            best = v;
            *best_mask = mask;
        }
    }
    return best;
}

static void check_solution(const pp_lp *l, const double *x)
{
    for (int c = 0; c < l->cols; c++) {
        CHECK(x[c] >= l->col_lo[c] - 1e-6 && x[c] <= l->col_hi[c] + 1e-6);
        CHECK(!l->integer[c] || fabs(x[c] - round(x[c])) < 1e-6);
    }
    for (int r = 0; r < l->rows; r++) {
        double s = 0;
        for (int k = 0; k < l->nz; k++)
            s += l->nz_row[k] == r ? l->nz_val[k] * x[l->nz_col[k]] : 0;
        CHECK(s >= l->row_lo[r] - 1e-6 && s <= l->row_hi[r] + 1e-6);
    }
}

static void solve_one(const program *p, bool warm)
{
    unsigned mask = 0;
    double best = enumerate(p, &mask);
    pp_lp l;
    build(p, &l);
    CHECK(pp_lp_ok(&l));
    int idx[BINS];
    double val[BINS], x[BINS + 1];
    for (int j = 0; j < BINS; j++) {
        idx[j] = j;
        val[j] = mask >> j & 1;
    }
    pp_cbc_options o = {.deadline = pp_now() + 30, .grace = 0.5, .threads = 1, .gap = 0.5};
    if (warm && !isnan(best)) {
        o.warm_count = BINS;
        o.warm_index = idx;
        o.warm_value = val;
    }
    pp_cbc_outcome out;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cbc_solve(&l, &o, x, &out, &err), PP_OK);
    CHECK_EQ_INT(out.crashes, 0);
    CHECK(!out.killed);
    if (isnan(best)) {
        CHECK(!out.found && out.infeasible);
    } else {
        CHECK(out.found && out.proven && !out.infeasible);
        if (out.found) {
            check_solution(&l, x);
            double obj = 0;
            for (int c = 0; c < l.cols; c++)
                obj += l.obj[c] * x[c];
            CHECK(fabs(obj - best) < 1e-6);
            CHECK(out.bound <= best + 1e-6 && out.bound > best - 1);
        }
    }
    pp_lp_free(&l);
}

static void test_random_programs(void)
{
    pp_rng rng;
    pp_rng_seed(&rng, 18, 0);
    int infeasible = 0;
    for (int t = 0; t < 30; t++) {
        program p;
        for (int j = 0; j < BINS; j++) {
            p.c[j] = (int)pp_rng_below(&rng, 21) - 15;
            for (int r = 0; r < ROWS; r++)
                p.a[r][j] = (int)pp_rng_below(&rng, 9) - 2;
        }
        for (int r = 0; r < ROWS; r++)
            p.b[r] = (int)pp_rng_below(&rng, 12) - 3;
        unsigned ignored;
        infeasible += isnan(enumerate(&p, &ignored));
        solve_one(&p, t % 2 == 1);
    }
    CHECK(infeasible > 0 && infeasible < 30); /* both kinds were tried */
}

int main(void)
{
    test_csc();
    test_random_programs();
    return CHECK_DONE();
}
