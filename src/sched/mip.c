/* mip.c: owns the exact scheduling MIP (paper 002, section III) and its run
 * through CBC. The paper's model, linearised and cut down to what can matter:
 *  - x[i][j] binary, only for devices op i may use (eq. 6), equal within a
 *    colocated group;
 *  - a start time per op, its end being start + duration (eq. 3); the
 *    makespan z above every end (eqs. 1-2) and above each device's work;
 *  - one order binary y per unordered pair of ops that can share a device
 *    (eqs. 7-8); a pair joined by a path in the DAG is ordered already;
 *  - per dependency a transfer start, and per channel (a, b) the product
 *    t = x[u][a] * x[v][b] (eqs. 9-10, linearised; pairs of devices with no
 *    channel are forbidden), with precedence through the transfer (eqs.
 *    11-13); one order binary per pair of transfers that can meet on a
 *    channel and are not ordered by the DAG (eqs. 14-15);
 *  - memory as the checker defines it instead of eqs. 16-19: the weights on
 *    a device fit its capacity, and at the end of each op i with A_i > 0 the
 *    weights plus the A of every op that ended no later on i's device fit
 *    (levels only rise at such ends). "k ended no later than i on i's
 *    device" is a continuous p[k][i] bounded by y and x only from the side
 *    the solver would push it: from below when A_k > 0, from above when
 *    A_k < 0; either sign is then exact.
 * Zero-length ops and transfers collide with nothing (as in the checker):
 * pairs of ops with a zero-length member get only an end-order binary, and
 * only when memory needs it; zero-length transfers get no order at all.
 * One corner stays stricter than the checker: a zero-length op that ends at
 * the same instant as one of its own DAG ancestors on its device is counted
 * after it, where the checker applies both adjustments at once.
 * Big-M values come from a horizon (the warm start's makespan, or the sum of
 * all durations and transfers) and each op's earliest start (head) and least
 * time after its end (tail). Interchangeable devices are told apart by
 * pinning the first op that may use them to the first of them.
 *
 * CBC runs in a child process (src/core/cbc.h), and the schedule is rebuilt
 * from its answer: devices from x, then the earliest times for the device
 * and channel orders of the MIP's times, so that solver tolerances cannot
 * leave overlaps or early starts; pp_sched_check confirms the result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/cbc.h"
#include "core/grow.h"
#include "sched/mip.h"
#include "sched/sched_internal.h"
#include "sched/solver.h"

/* What a column stands for: X(i, j), S(i), Z, Y(i, k) = i before k (i < k),
 * C(e) transfer start, T(e, a * D + b), W(e, f) = e before f (e < f),
 * P(k, i) = k ended no later than i on i's device. */
enum { COL_X, COL_S, COL_Z, COL_Y, COL_C, COL_T, COL_W, COL_P };

/* What column c stands for: its kind and the two indices above. */
typedef struct {
    unsigned char kind;
    int a, b;
} colinfo;

typedef struct {
    const pp_sched_problem *p;
    int n, m, D;
    double horizon, lower;      /* z lies in [lower, horizon] */
    bool integral;              /* durations and comms are integers: so is the optimum */
    unsigned char *allow;       /* n * D, after symmetry breaking */
    unsigned char *reach;       /* n * n: a path leads from i to k */
    int *pin;                   /* D: per class's first device, the op pinned there, or -1 */
    int *perm;                  /* D: warm start device -> model device */
    double *head, *tail;
    int *xcol, *scol, *ccol, *tcol, *ycol, *pcol;
    int zcol;
    pp_lp lp;
    colinfo *info; /* per column */
    int info_cap;
} model;

static int lp_col(model *m, int kind, int a, int b, double lo, double hi, bool integer)
{
    int c = pp_lp_col(&m->lp, lo, hi, 0, integer);
    if (c < 0 || !pp_grow((void **)&m->info, &m->info_cap, c + 1, sizeof *m->info)) {
        m->lp.oom = true;
        return -1;
    }
    m->info[c] = (colinfo){(unsigned char)kind, a, b};
    return c;
}

/* Adds a term to the row being built (the next pp_lp_row call closes it). */
static void lp_term(pp_lp *l, int col, double value)
{
    if (col >= 0 && value != 0)
        pp_lp_entry(l, l->rows, col, value);
}

/* ---- The model's scaffolding: symmetry, reachability, heads and tails. ---- */

static bool allowed(const model *m, int i, int j) { return m->allow[i * m->D + j] != 0; }

static bool share_device(const model *m, int i, int k, bool finite_only)
{
    for (int j = 0; j < m->D; j++)
        if (allowed(m, i, j) && allowed(m, k, j) && (!finite_only || isfinite(m->p->capacity[j])))
            return true;
    return false;
}

/* Swapping the names of a and b maps every schedule to a valid one of the
 * same makespan. The relation is an equivalence, so its classes can each
 * pin an op of their own. */
static bool interchangeable(const pp_sched_problem *p, int a, int b)
{
    if (!sc_devices_alike(p, a, b))
        return false;
    for (int i = 0; i < p->op_count; i++)
        if (pp_sched_op_allowed(p, i, a) != pp_sched_op_allowed(p, i, b))
            return false;
    return true;
}

/* Within each class of interchangeable devices, the first op that may use
 * them is pinned to the class's first device (pin[first] = that op). */
static void break_symmetry(model *m)
{
    const pp_sched_problem *p = m->p;
    for (int first = 0; first < m->D; first++) {
        m->pin[first] = -1;
        bool leader = true;
        for (int c = 0; c < first && leader; c++)
            leader = !interchangeable(p, c, first);
        int i0 = 0;
        while (i0 < m->n && !allowed(m, i0, first))
            i0++;
        if (!leader || i0 == m->n)
            continue;
        for (int b = first + 1; b < m->D; b++)
            if (interchangeable(p, first, b)) {
                m->allow[i0 * m->D + b] = 0;
                m->pin[first] = i0;
            }
    }
}

/* perm renames the warm start's devices to respect break_symmetry: within
 * a class, the pinned op's device swaps names with the class's first. */
static void warm_permutation(model *m, const pp_sched_schedule *w)
{
    for (int j = 0; j < m->D; j++)
        m->perm[j] = j;
    if (!w)
        return;
    for (int first = 0; first < m->D; first++) {
        int i0 = m->pin[first];
        int b = i0 >= 0 ? w->device[i0] : first;
        if (b != first && interchangeable(m->p, first, b)) {
            m->perm[first] = b;
            m->perm[b] = first;
        }
    }
}

static void build_reach(model *m)
{
    const pp_sched_problem *p = m->p;
    for (int t = m->n - 1; t >= 0; t--) {
        int u = p->topo_order[t];
        unsigned char *row = m->reach + (size_t)u * m->n;
        for (int k = p->succ_start[u]; k < p->succ_start[u + 1]; k++) {
            int v = p->dep_to[p->succ_dep[k]];
            const unsigned char *below = m->reach + (size_t)v * m->n;
            row[v] = 1;
            for (int x = 0; x < m->n; x++)
                row[x] |= below[x];
        }
    }
}

static bool reaches(const model *m, int i, int k) { return m->reach[(size_t)i * m->n + k] != 0; }

/* A dependency costs its comm time on every path only if its ends can
 * never share a device. */
static double least_comm(const model *m, int e)
{
    const pp_sched_problem *p = m->p;
    return share_device(m, p->dep_from[e], p->dep_to[e], false) ? 0 : p->dep_comm[e];
}

static void heads_and_tails(model *m)
{
    const pp_sched_problem *p = m->p;
    for (int t = 0; t < m->n; t++) {
        int v = p->topo_order[t];
        m->head[v] = 0;
        for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
            int e = p->pred_dep[k], u = p->dep_from[e];
            m->head[v] = fmax(m->head[v], m->head[u] + p->duration[u] + least_comm(m, e));
        }
    }
    for (int t = m->n - 1; t >= 0; t--) {
        int u = p->topo_order[t];
        m->tail[u] = 0;
        for (int k = p->succ_start[u]; k < p->succ_start[u + 1]; k++) {
            int e = p->succ_dep[k], v = p->dep_to[e];
            m->tail[u] = fmax(m->tail[u], least_comm(m, e) + p->duration[v] + m->tail[v]);
        }
    }
}

static bool is_integer(double x) { return x == floor(x); }

static void set_horizon(model *m, const pp_sched_schedule *warm)
{
    const pp_sched_problem *p = m->p;
    double total = 0;
    m->integral = true;
    m->lower = 0;
    for (int i = 0; i < m->n; i++) {
        total += p->duration[i];
        m->integral &= is_integer(p->duration[i]);
        m->lower = fmax(m->lower, m->head[i] + p->duration[i] + m->tail[i]);
    }
    for (int e = 0; e < m->m; e++) {
        total += p->dep_comm[e];
        m->integral &= is_integer(p->dep_comm[e]);
    }
    /* Any feasible set of orders, run one task at a time, ends by `total`. */
    m->horizon = total;
    if (warm) {
        double w = pp_sched_makespan(warm);
        w = m->integral ? ceil(w - 1e-6) : w + 1e-9 * fmax(1, w);
        m->horizon = fmin(m->horizon, w);
    }
    m->lower = fmax(m->lower, pp_sched_lower_bound(p));
    if (m->integral)
        m->lower = ceil(m->lower - 1e-6);
    m->horizon = fmax(m->horizon, m->lower);
}

static double start_lo(const model *m, int i) { return m->head[i]; }
static double end_hi(const model *m, int i) { return m->horizon - m->tail[i]; }
static double start_hi(const model *m, int i) { return end_hi(m, i) - m->p->duration[i]; }
static double transfer_lo(const model *m, int e)
{
    int u = m->p->dep_from[e];
    return m->head[u] + m->p->duration[u];
}

/* ---- Columns and rows. ---- */

static void add_placement(model *m)
{
    pp_lp *l = &m->lp;
    for (int i = 0; i < m->n; i++) {
        int count = 0;
        for (int j = 0; j < m->D; j++)
            count += allowed(m, i, j);
        for (int j = 0; j < m->D; j++)
            if (allowed(m, i, j)) {
                m->xcol[i * m->D + j] = lp_col(m, COL_X, i, j, count == 1 ? 1 : 0, 1, true);
                lp_term(l, m->xcol[i * m->D + j], 1);
            }
        pp_lp_row(l, 1, 1);
    }
}

static int xcol(const model *m, int i, int j) { return m->xcol[i * m->D + j]; }

/* A colocated op's placement equals its group's first op's (either may be
 * pinned by the symmetry breaking: a device one lacks is then closed to both). */
static void add_groups(model *m)
{
    pp_lp *l = &m->lp;
    for (int i = 0; i < m->n; i++) {
        int g = m->p->group[i];
        for (int j = 0; j < m->D && g != i; j++)
            if (allowed(m, i, j) || allowed(m, g, j)) {
                lp_term(l, allowed(m, i, j) ? xcol(m, i, j) : -1, 1);
                lp_term(l, allowed(m, g, j) ? xcol(m, g, j) : -1, -1);
                pp_lp_row(l, 0, 0);
            }
    }
}

static void add_times(model *m)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    for (int i = 0; i < m->n; i++)
        m->scol[i] = lp_col(m, COL_S, i, 0, start_lo(m, i), start_hi(m, i), false);
    m->zcol = lp_col(m, COL_Z, 0, 0, m->lower, m->horizon, m->integral);
    if (m->zcol >= 0)
        l->obj[m->zcol] = 1;
    for (int i = 0; i < m->n; i++)
        if (p->succ_start[i] == p->succ_start[i + 1]) {
            lp_term(l, m->zcol, 1);
            lp_term(l, m->scol[i], -1);
            pp_lp_row(l, p->duration[i], INFINITY);
        }
    for (int j = 0; j < m->D; j++) {
        lp_term(l, m->zcol, 1);
        for (int i = 0; i < m->n; i++)
            lp_term(l, xcol(m, i, j), -p->duration[i]);
        pp_lp_row(l, 0, INFINITY);
    }
}

static bool memory_pair(const model *m, int i, int k)
{
    const double *A = m->p->adjust;
    return ((A[i] > 0 && A[k] != 0) || (A[k] > 0 && A[i] != 0)) && share_device(m, i, k, true);
}

/* On device j, when y says a goes first (y_sign +1: y = 1; -1: y = 0), a
 * must end before b starts (both have length) or no later than b ends. */
static void order_row(model *m, int a, int b, int y, int y_sign, int j)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    bool sequence = p->duration[a] > 0 && p->duration[b] > 0;
    double gap = sequence ? p->duration[a] : p->duration[a] - p->duration[b];
    double b_lo = sequence ? start_lo(m, b) : start_lo(m, b) + p->duration[b];
    double M = fmax(0, end_hi(m, a) - b_lo);
    lp_term(l, m->scol[a], 1);
    lp_term(l, m->scol[b], -1);
    lp_term(l, y, y_sign * M);
    lp_term(l, xcol(m, a, j), M);
    lp_term(l, xcol(m, b, j), M);
    pp_lp_row(l, -INFINITY, (y_sign > 0 ? 3 : 2) * M - gap);
}

/* The time windows may leave room for one order only (y fixed to it; with
 * no room either way y = 1 and its rows keep the two ops apart). */
static void order_window(const model *m, int i, int k, bool sequence, double *lo, double *hi)
{
    if (!sequence)
        return;
    const double *D = m->p->duration;
    double slack = 1e-9 * fmax(1, m->horizon);
    if (start_lo(m, k) + D[k] > start_hi(m, i) + slack)
        *lo = 1;
    else if (start_lo(m, i) + D[i] > start_hi(m, k) + slack)
        *hi = 0;
}

static void add_op_pairs(model *m)
{
    const pp_sched_problem *p = m->p;
    for (int i = 0; i < m->n; i++)
        for (int k = i + 1; k < m->n; k++) {
            if (reaches(m, i, k) || reaches(m, k, i) || !share_device(m, i, k, false))
                continue;
            bool sequence = p->duration[i] > 0 && p->duration[k] > 0;
            if (!sequence && !memory_pair(m, i, k))
                continue;
            double lo = 0, hi = 1;
            order_window(m, i, k, sequence, &lo, &hi);
            int y = lp_col(m, COL_Y, i, k, lo, hi, true);
            m->ycol[(size_t)i * m->n + k] = y;
            for (int j = 0; j < m->D; j++)
                if (allowed(m, i, j) && allowed(m, k, j)) {
                    order_row(m, i, k, y, 1, j);
                    order_row(m, k, i, y, -1, j);
                }
        }
}

static int tcol(const model *m, int e, int a, int b) { return m->tcol[((size_t)e * m->D + a) * m->D + b]; }

/* t[a][b] = x[u][a] * x[v][b]: at least their sum less one, and per device
 * of each end, the t leaving it at most its x. */
static void link_transfer(model *m, int e)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    int u = p->dep_from[e], v = p->dep_to[e], D = m->D;
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) {
            if (a == b || !allowed(m, u, a) || !allowed(m, v, b))
                continue;
            if (!pp_sched_has_channel(p, a, b)) {
                lp_term(l, xcol(m, u, a), 1);
                lp_term(l, xcol(m, v, b), 1);
                pp_lp_row(l, -INFINITY, 1);
                continue;
            }
            int t = lp_col(m, COL_T, e, a * D + b, 0, 1, false);
            m->tcol[((size_t)e * D + a) * D + b] = t;
            lp_term(l, t, 1);
            lp_term(l, xcol(m, u, a), -1);
            lp_term(l, xcol(m, v, b), -1);
            pp_lp_row(l, -1, INFINITY);
        }
    for (int side = 0; side < 2; side++)
        for (int a = 0; a < D; a++) {
            int op = side ? v : u, terms = 0;
            for (int b = 0; b < D; b++)
                terms += (side ? tcol(m, e, b, a) : tcol(m, e, a, b)) >= 0;
            if (!allowed(m, op, a) || terms == 0)
                continue;
            for (int b = 0; b < D; b++)
                lp_term(l, side ? tcol(m, e, b, a) : tcol(m, e, a, b), 1);
            lp_term(l, xcol(m, op, a), -1);
            pp_lp_row(l, -INFINITY, 0);
        }
}

static void add_transfers(model *m)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    for (int e = 0; e < m->m; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        m->ccol[e] = lp_col(m, COL_C, e, 0, transfer_lo(m, e), start_hi(m, v), false);
        link_transfer(m, e);
        lp_term(l, m->ccol[e], 1);
        lp_term(l, m->scol[u], -1);
        pp_lp_row(l, p->duration[u], INFINITY);
        lp_term(l, m->scol[v], 1);
        lp_term(l, m->ccol[e], -1);
        for (int t = 0; t < m->D * m->D; t++)
            lp_term(l, m->tcol[(size_t)e * m->D * m->D + t], -p->dep_comm[e]);
        pp_lp_row(l, 0, INFINITY);
    }
}

/* Transfer e surely ends before f starts when e's destination is, or leads
 * to, f's source. */
static bool transfer_before(const model *m, int e, int f)
{
    int v = m->p->dep_to[e], u = m->p->dep_from[f];
    return v == u || reaches(m, v, u);
}

/* When w says e goes first on channel slot ab (w_sign as in order_row). */
static void channel_row(model *m, int e, int f, int w, int w_sign, int ab)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    double M = fmax(0, start_hi(m, p->dep_to[e]) + p->dep_comm[e] - transfer_lo(m, f));
    lp_term(l, m->ccol[e], 1);
    lp_term(l, m->ccol[f], -1);
    lp_term(l, w, w_sign * M);
    lp_term(l, m->tcol[(size_t)e * m->D * m->D + ab], M);
    lp_term(l, m->tcol[(size_t)f * m->D * m->D + ab], M);
    pp_lp_row(l, -INFINITY, (w_sign > 0 ? 3 : 2) * M - p->dep_comm[e]);
}

/* As order_window, for two transfers that both have length. */
static int channel_order_col(model *m, int e, int f)
{
    const pp_sched_problem *p = m->p;
    double slack = 1e-9 * fmax(1, m->horizon), lo = 0, hi = 1;
    double e_last = start_hi(m, p->dep_to[e]) - p->dep_comm[e], f_last = start_hi(m, p->dep_to[f]) - p->dep_comm[f];
    if (transfer_lo(m, f) + p->dep_comm[f] > e_last + slack)
        lo = 1;
    else if (transfer_lo(m, e) + p->dep_comm[e] > f_last + slack)
        hi = 0;
    return lp_col(m, COL_W, e, f, lo, hi, true);
}

static void add_channel_pairs(model *m)
{
    const pp_sched_problem *p = m->p;
    int DD = m->D * m->D;
    for (int e = 0; e < m->m; e++)
        for (int f = e + 1; f < m->m; f++) {
            if (p->dep_comm[e] <= 0 || p->dep_comm[f] <= 0 || transfer_before(m, e, f) || transfer_before(m, f, e))
                continue;
            int w = -1;
            for (int ab = 0; ab < DD; ab++) {
                if (m->tcol[(size_t)e * DD + ab] < 0 || m->tcol[(size_t)f * DD + ab] < 0)
                    continue;
                if (w < 0)
                    w = channel_order_col(m, e, f);
                channel_row(m, e, f, w, 1, ab);
                channel_row(m, f, e, w, -1, ab);
            }
        }
}

/* "k ended no later than i" as a column (y or its complement), or the
 * constant 1 (ycol -1) when a path leads from k to i. */
static void before_term(model *m, int k, int i, double coef, double *constant)
{
    if (reaches(m, k, i)) {
        *constant += coef;
        return;
    }
    if (k < i) {
        lp_term(&m->lp, m->ycol[(size_t)k * m->n + i], coef);
    } else {
        *constant += coef;
        lp_term(&m->lp, m->ycol[(size_t)i * m->n + k], -coef);
    }
}

/* p[k][i] pinned from the side that A_k's sign makes the solver push it. */
static void add_p_bounds(model *m, int k, int i, int pc)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    for (int j = 0; j < m->D; j++) {
        if (!allowed(m, i, j) || !isfinite(p->capacity[j]))
            continue;
        double constant = 0;
        if (p->adjust[k] > 0 && allowed(m, k, j)) {
            /* p >= before + x[k][j] + x[i][j] - 2 */
            lp_term(l, pc, 1);
            before_term(m, k, i, -1, &constant);
            lp_term(l, xcol(m, k, j), -1);
            lp_term(l, xcol(m, i, j), -1);
            pp_lp_row(l, -2 - constant, INFINITY);
        } else if (p->adjust[k] < 0) {
            /* p <= 1 - x[i][j] + x[k][j] */
            lp_term(l, pc, 1);
            lp_term(l, xcol(m, i, j), 1);
            lp_term(l, allowed(m, k, j) ? xcol(m, k, j) : -1, -1);
            pp_lp_row(l, -INFINITY, 1);
        }
    }
    if (p->adjust[k] < 0 && !reaches(m, k, i)) {
        /* p <= before */
        double constant = 0;
        lp_term(l, pc, 1);
        before_term(m, k, i, -1, &constant);
        pp_lp_row(l, -INFINITY, -constant);
    }
}

static void memory_row(model *m, int i, int j)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    double most = p->adjust[i];
    for (int k = 0; k < m->n; k++)
        if (allowed(m, k, j)) {
            most += p->weight[k];
            if (m->pcol[k] >= 0)
                most += fmax(0, p->adjust[k]);
        }
    double M = most - p->capacity[j];
    if (M <= 0)
        return;
    for (int k = 0; k < m->n; k++)
        if (allowed(m, k, j)) {
            lp_term(l, xcol(m, k, j), p->weight[k] + (k == i ? p->adjust[i] + M : 0));
            if (m->pcol[k] >= 0)
                lp_term(l, m->pcol[k], p->adjust[k]);
        }
    pp_lp_row(l, -INFINITY, p->capacity[j] + M);
}

static void add_memory(model *m)
{
    const pp_sched_problem *p = m->p;
    pp_lp *l = &m->lp;
    for (int j = 0; j < m->D; j++) {
        double all = 0;
        for (int k = 0; k < m->n; k++)
            all += allowed(m, k, j) ? p->weight[k] : 0;
        if (!isfinite(p->capacity[j]) || all <= p->capacity[j])
            continue;
        for (int k = 0; k < m->n; k++)
            if (allowed(m, k, j))
                lp_term(l, xcol(m, k, j), p->weight[k]);
        pp_lp_row(l, -INFINITY, p->capacity[j]);
    }
    for (int i = 0; i < m->n; i++) {
        if (p->adjust[i] <= 0)
            continue;
        for (int k = 0; k < m->n; k++) {
            m->pcol[k] = -1;
            if (k == i || p->adjust[k] == 0 || reaches(m, i, k) || !share_device(m, i, k, true))
                continue;
            m->pcol[k] = lp_col(m, COL_P, k, i, 0, 1, false);
            add_p_bounds(m, k, i, m->pcol[k]);
        }
        for (int j = 0; j < m->D; j++)
            if (allowed(m, i, j) && isfinite(p->capacity[j]))
                memory_row(m, i, j);
    }
}

/* ---- The model as a whole. ---- */

static void model_free(model *m)
{
    free(m->allow);
    free(m->reach);
    free(m->pin);
    free(m->perm);
    free(m->head);
    free(m->tail);
    free(m->xcol);
    free(m->scol);
    free(m->ccol);
    free(m->tcol);
    free(m->ycol);
    free(m->pcol);
    pp_lp_free(&m->lp);
    free(m->info);
}

static int *minus_ones(size_t count)
{
    int *a = malloc((count + 1) * sizeof *a);
    for (size_t k = 0; a && k < count; k++)
        a[k] = -1;
    return a;
}

static bool model_build(model *m, const pp_sched_problem *p, const pp_sched_schedule *warm)
{
    memset(m, 0, sizeof *m);
    pp_lp_init(&m->lp, 0);
    m->p = p;
    m->n = p->op_count;
    m->m = p->dep_count;
    m->D = p->device_count;
    size_t n = (size_t)m->n, D = (size_t)m->D;
    m->allow = malloc(n * D + 1);
    m->reach = calloc(n * n + 1, 1);
    m->pin = malloc((D + 1) * sizeof *m->pin);
    m->perm = malloc((D + 1) * sizeof *m->perm);
    m->head = malloc((n + 1) * sizeof(double));
    m->tail = malloc((n + 1) * sizeof(double));
    m->xcol = minus_ones(n * D);
    m->scol = minus_ones(n);
    m->ccol = minus_ones((size_t)m->m);
    m->tcol = minus_ones((size_t)m->m * D * D);
    m->ycol = minus_ones(n * n);
    m->pcol = minus_ones(n);
    if (!m->allow || !m->reach || !m->pin || !m->perm || !m->head || !m->tail || !m->xcol || !m->scol || !m->ccol ||
        !m->tcol || !m->ycol || !m->pcol)
        return false;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->D; j++)
            m->allow[i * m->D + j] = pp_sched_op_allowed(p, i, j);
    break_symmetry(m);
    warm_permutation(m, warm);
    build_reach(m);
    heads_and_tails(m);
    set_horizon(m, warm);
    add_placement(m);
    add_groups(m);
    add_times(m);
    add_op_pairs(m);
    add_transfers(m);
    add_channel_pairs(m);
    add_memory(m);
    return pp_lp_ok(&m->lp);
}

/* ---- The warm start as a full assignment of the columns. ---- */

/* i before k in a schedule: by end, simultaneous ends with the lower A
 * first (so no level between them is higher than both around them). */
static bool ends_before(const model *m, const pp_sched_schedule *w, int i, int k)
{
    if (w->end[i] != w->end[k])
        return w->end[i] < w->end[k];
    const double *A = m->p->adjust;
    return A[i] != A[k] ? A[i] < A[k] : i < k;
}

static bool crossing(const pp_sched_problem *p, const int *device, int e)
{
    return device[p->dep_from[e]] != device[p->dep_to[e]];
}

static bool same_channel(const pp_sched_problem *p, const int *device, int e, int f)
{
    return crossing(p, device, e) && device[p->dep_from[e]] == device[p->dep_from[f]] &&
           device[p->dep_to[e]] == device[p->dep_to[f]];
}

static double warm_value(const model *m, const pp_sched_schedule *w, const int *dev, int c)
{
    const pp_sched_problem *p = m->p;
    int a = m->info[c].a, b = m->info[c].b;
    switch (m->info[c].kind) {
    case COL_X:
        return dev[a] == b;
    case COL_S:
        return w->start[a];
    case COL_Z:
        return m->integral ? ceil(pp_sched_makespan(w) - 1e-6) : pp_sched_makespan(w);
    case COL_Y: /* free (or fixed by the windows) unless both share a device */
        return dev[a] == dev[b] ? ends_before(m, w, a, b) : m->lp.col_lo[c];
    case COL_C:
        return crossing(p, dev, a) ? w->transfer_start[a] : w->end[p->dep_from[a]];
    case COL_T:
        return dev[p->dep_from[a]] * m->D + dev[p->dep_to[a]] == b;
    case COL_W:
        if (!same_channel(p, dev, a, b))
            return m->lp.col_lo[c];
        return w->transfer_start[a] < w->transfer_start[b];
    case COL_P:
        return dev[a] == dev[b] && (reaches(m, a, b) || ends_before(m, w, a, b));
    }
    return 0;
}

/* Does the assignment satisfy every bound and row (CBC's tolerance, a
 * little wider)? A schedule the checker passes always should, within the
 * horizon: the rows are the checker's rules. */
static bool fits(const pp_lp *l, const double *x)
{
    bool ok = true;
    for (int c = 0; c < l->cols && ok; c++) {
        double tol = 1e-6 * fmax(1, fabs(x[c]));
        ok = x[c] >= l->col_lo[c] - tol && x[c] <= l->col_hi[c] + tol && (!l->integer[c] || x[c] == floor(x[c]));
    }
    double *activity = calloc((size_t)l->rows + 1, sizeof *activity);
    if (!activity)
        return false;
    for (int k = 0; k < l->nz; k++)
        activity[l->nz_row[k]] += l->nz_val[k] * x[l->nz_col[k]];
    for (int r = 0; r < l->rows && ok; r++) {
        double tol = 1e-6 * fmax(1, fabs(activity[r]));
        ok = activity[r] >= l->row_lo[r] - tol && activity[r] <= l->row_hi[r] + tol;
    }
    free(activity);
    return ok;
}

static double *warm_values(const model *m, const pp_sched_schedule *w)
{
    double *values = malloc(((size_t)m->lp.cols + 1) * sizeof *values);
    int *dev = malloc(((size_t)m->n + 1) * sizeof *dev);
    if (values && dev) {
        for (int i = 0; i < m->n; i++)
            dev[i] = m->perm[w->device[i]];
        for (int c = 0; c < m->lp.cols; c++)
            values[c] = warm_value(m, w, dev, c);
    }
    free(dev);
    return values;
}

/* ---- From CBC's answer to a schedule. ---- */

typedef struct {
    int *device;          /* per op */
    double *key;          /* per task (ops, then deps): the MIP's end time */
    int *order;           /* tasks in run order */
    int *waiting;         /* per task: inputs not yet in order */
    unsigned char *done;
} decoder;

static bool crossing_dep(const model *m, const int *device, int e)
{
    return device[m->p->dep_from[e]] != device[m->p->dep_to[e]];
}

static void read_devices(const model *m, const double *x, int *device)
{
    for (int i = 0; i < m->n; i++) {
        int best = -1;
        for (int j = 0; j < m->D; j++) {
            int c = xcol(m, i, j);
            if (c >= 0 && (best < 0 || x[c] > x[xcol(m, i, best)]))
                best = j;
        }
        device[i] = best;
    }
}

/* Tasks in a run order: a topological order of ops and transfers that takes
 * the ready task that ends first in the MIP, so the device and channel
 * orders are the MIP's (ties within its tolerance go either way safely:
 * the order is still topological). */
static void run_order(const model *m, decoder *d)
{
    const pp_sched_problem *p = m->p;
    int n = m->n, tasks = m->n + m->m;
    for (int t = 0; t < tasks; t++) {
        d->done[t] = 0;
        d->waiting[t] = t < n ? p->pred_start[t + 1] - p->pred_start[t] : 1;
    }
    for (int placed = 0; placed < tasks; placed++) {
        int pick = -1;
        for (int t = 0; t < tasks; t++)
            if (!d->done[t] && d->waiting[t] == 0 && (pick < 0 || d->key[t] < d->key[pick]))
                pick = t;
        d->done[pick] = 1;
        d->order[placed] = pick;
        if (pick >= n) {
            d->waiting[p->dep_to[pick - n]]--;
            continue;
        }
        for (int k = p->succ_start[pick]; k < p->succ_start[pick + 1]; k++)
            d->waiting[n + p->succ_dep[k]]--;
    }
}

/* The earliest times for the run order's device and channel orders: ops
 * with length run one at a time per device, and every op ends no earlier
 * than the op before it on its device (the end order memory was checked
 * with); transfers with length run one at a time per channel. */
static void earliest_times(const model *m, const decoder *d, double *free_at, pp_sched_schedule *s)
{
    const pp_sched_problem *p = m->p;
    int n = m->n, D = m->D;
    double *busy_until = free_at, *last_end = free_at + D, *channel_free = free_at + 2 * D;
    for (int k = 0; k < 2 * D + D * D; k++)
        free_at[k] = 0;
    for (int e = 0; e < m->m; e++)
        s->transfer_start[e] = s->transfer_end[e] = NAN;
    for (int k = 0; k < n + m->m; k++) {
        int t = d->order[k];
        if (t >= n) {
            int e = t - n, u = p->dep_from[e], v = p->dep_to[e];
            if (!crossing_dep(m, d->device, e))
                continue;
            double *chan = &channel_free[d->device[u] * D + d->device[v]];
            double start = p->dep_comm[e] > 0 ? fmax(s->end[u], *chan) : s->end[u];
            s->transfer_start[e] = start;
            s->transfer_end[e] = start + p->dep_comm[e];
            if (p->dep_comm[e] > 0)
                *chan = s->transfer_end[e];
            continue;
        }
        int j = d->device[t];
        double ready = p->duration[t] > 0 ? busy_until[j] : 0;
        for (int q = p->pred_start[t]; q < p->pred_start[t + 1]; q++) {
            int e = p->pred_dep[q];
            ready = fmax(ready, crossing_dep(m, d->device, e) ? s->transfer_end[e] : s->end[p->dep_from[e]]);
        }
        s->device[t] = j;
        if (ready + p->duration[t] < last_end[j]) {
            s->end[t] = last_end[j];
            s->start[t] = last_end[j] - p->duration[t];
        } else {
            s->start[t] = ready;
            s->end[t] = ready + p->duration[t];
        }
        last_end[j] = s->end[t];
        if (p->duration[t] > 0)
            busy_until[j] = s->end[t];
    }
}

static bool decode(const model *m, const double *x, pp_sched_schedule *s)
{
    const pp_sched_problem *p = m->p;
    size_t tasks = (size_t)m->n + (size_t)m->m + 1;
    decoder d;
    d.device = malloc(((size_t)m->n + 1) * sizeof *d.device);
    d.key = malloc(tasks * sizeof *d.key);
    d.order = malloc(tasks * sizeof *d.order);
    d.waiting = malloc(tasks * sizeof *d.waiting);
    d.done = malloc(tasks);
    double *free_at = malloc(((size_t)(2 * m->D + m->D * m->D) + 1) * sizeof *free_at);
    bool ok = d.device && d.key && d.order && d.waiting && d.done && free_at;
    if (ok) {
        read_devices(m, x, d.device);
        for (int i = 0; i < m->n; i++)
            d.key[i] = x[m->scol[i]] + p->duration[i];
        for (int e = 0; e < m->m; e++)
            d.key[m->n + e] = x[m->ccol[e]] + (crossing_dep(m, d.device, e) ? p->dep_comm[e] : 0);
        run_order(m, &d);
        earliest_times(m, &d, free_at, s);
    }
    free(d.device);
    free(d.key);
    free(d.order);
    free(d.waiting);
    free(d.done);
    free(free_at);
    return ok;
}

static bool valid(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    pp_sched_report report;
    pp_error err;
    pp_error_clear(&err);
    pp_status st = pp_sched_check(p, s, &report, &err);
    pp_sched_report_free(&report);
    return st == PP_OK;
}

/* ---- The entry point. ---- */

/* CBC on the model (core/cbc.h), from the warm start's column values when
 * given. CBC stops itself at the deadline as a rule; the grace covers its
 * last step before the child is killed. */
static pp_status solve_model(const model *m, const sc_mip_options *o, const double *warm, double t0,
                             double *values, pp_cbc_outcome *out, pp_error *err)
{
    int *idx = warm ? malloc(((size_t)m->lp.cols + 1) * sizeof *idx) : NULL;
    if (warm && !idx)
        return pp_error_set(err, PP_ENOMEM, "MIP: out of memory building the model");
    for (int c = 0; idx && c < m->lp.cols; c++)
        idx[c] = c;
    pp_cbc_options co = {.deadline = o->time_limit > 0 ? t0 + o->time_limit : 0, .stop = o->stop, .grace = 0.25,
                         .grace_rate = 0.02, .threads = o->threads, .gap = m->integral ? 0.999 : 0,
                         .warm_count = warm ? m->lp.cols : 0, .warm_index = idx, .warm_value = warm};
    pp_status status = pp_cbc_solve(&m->lp, &co, values, out, err);
    free(idx);
    return status;
}

static void report(const model *m, const pp_cbc_outcome *c, bool found, double makespan, sc_mip_result *r)
{
    r->found = found;
    r->makespan = found ? makespan : NAN;
    r->optimal = found ? c->proven : c->infeasible;
    double bound = fmax(m->lower, c->bound);
    if (m->integral)
        bound = ceil(bound - 1e-6);
    if (found)
        bound = r->optimal ? makespan : fmin(bound, makespan);
    r->bound = !found && c->infeasible ? INFINITY : bound;
}

pp_status sc_mip_solve(const pp_sched_problem *p, const sc_mip_options *o, pp_sched_schedule *out,
                          sc_mip_result *r, pp_error *err)
{
    double t0 = pp_now();
    *r = (sc_mip_result){NAN, 0, false, false, false};
    if (!p || !o || !out || out->op_count != p->op_count || out->dep_count != p->dep_count)
        return pp_error_set(err, PP_EARG, "MIP: no problem, options or schedule of the problem's size");
    const pp_sched_schedule *warm = o->warm_start && valid(p, o->warm_start) ? o->warm_start : NULL;
    model m;
    memset(&m, 0, sizeof m);
    double *warm_x = NULL, *values = NULL;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    bool ok = s && model_build(&m, p, warm);
    if (ok && warm)
        ok = (warm_x = warm_values(&m, warm)) != NULL;
    r->warm_start_fits = warm_x && fits(&m.lp, warm_x);
    if (warm_x && !r->warm_start_fits) {
        free(warm_x);
        warm_x = NULL;
    }
    if (ok)
        ok = (values = malloc(((size_t)m.lp.cols + 1) * sizeof *values)) != NULL;
    pp_cbc_outcome c = {.bound = -INFINITY};
    pp_status status = PP_OK;
    if (ok && !pp_stop_raised(o->stop))
        status = solve_model(&m, o, warm_x, t0, values, &c, err);
    ok = ok && status == PP_OK;
    /* The warm start fits under the horizon: "infeasible" then only means
     * CBC's tolerances disagreed with the checker's about it. */
    c.infeasible &= warm == NULL;
    bool found = ok && c.found && decode(&m, values, s) && valid(p, s);
    if (found)
        pp_sched_schedule_copy(out, s);
    if (ok)
        report(&m, &c, found, found ? pp_sched_makespan(s) : NAN, r);
    pp_sched_schedule_free(s);
    model_free(&m);
    free(warm_x);
    free(values);
    if (!ok)
        return pp_error_set(err, PP_ENOMEM, "MIP: out of memory building the model");
    return !found && c.infeasible ? PP_INFEASIBLE : PP_OK;
}
