/* bound_peak.c: owns the bound's last stage: the Lagrangian at the best
 * multipliers with the usage rows of its peak kept whole, handed to CBC as
 * a MIP over the nodes whose usage varies there.
 *
 * Why: where memory binds hard (S), nearly all of the bound comes from the
 * multipliers of a few hundred segments, and the subgradient steps zig-zag
 * between them far below the dual's optimum (S: 1.4424e9 after 1,000
 * steps, where the LP of the peak with its rows exact gives 1.5029e9). A
 * MIP of the whole model is far too large for CBC; the peak's part of it
 * is not (S: 2,208 nodes, 2.3M nonzeros), and its LP alone is the gain
 * (CBC did not get past its root there).
 *
 * Why it is a bound. With E(x) the model's costs at lambda and `constant`
 * as bound.c's set_penalties leaves them, every x that keeps the limit has
 *   cost(x) >= E(x) + constant - sum_{t kept} lambda_t (usage_t(x) - limit),
 * the kept segments' terms being <= 0 for it. TRW-S's last forward pass
 * splits E exactly (trws.c): each folded leaf into its least cost, which
 * its messages sum, plus a remainder >= 0 over the leaf and its
 * neighbour; each other node v into unary_share[v] of its belief for
 * itself and, for each pair to a later node u, gamma[v] of it less the
 * messages along the pair, plus the pair's table. Nodes whose usage varies
 * on a kept segment (the peak's) take their parts, the kept penalties
 * subtracted, the parts of the pairs among them, and of each pair to the
 * rest its least over the other end; the kept rows hold over them, the
 * other nodes' usage there being fixed. Everything else counts with its
 * least. The least over the peak's answers that meet the rows (CBC's best
 * bound, valid whenever it stops) plus those leasts is then below every
 * feasible answer's cost. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/cbc.h"
#include "core/lp.h"
#include "iopddl/bound.h"
#include "iopddl/polytope.h"

/* Segments whose rows are kept: those with the largest multipliers, at
 * most this many. On S after 400 steps (1.4388e9), CBC at 12 s: 30 rows
 * 1.4635e9, 60 1.4810e9, 96 1.4939e9, 256 (192 distinct, 99.8% of the
 * multipliers) 1.5029e9, its root LP in 10.8 s wall (BENCHMARKS.md). */
enum { PEAK_ROWS = 256 };
/* Past this many nonzeros the MIP is not tried (S's: 2.3M). */
#define PEAK_NONZEROS 4000000
/* Objective entries past this (penalties that saturated a cost) would
 * swamp CBC's tolerances: no MIP then. */
#define PEAK_LARGEST 1e14
/* CBC's bound holds within its tolerances: this much of the magnitudes
 * summed is taken off. */
#define PEAK_ALLOWANCE 1e-6

typedef struct {
    const iopddl_bound_model *b;
    iopddl_trws *t;
    const double *lambda;
    uint32_t rows[PEAK_ROWS]; /* kept segments */
    uint32_t row_count;
    double rest[PEAK_ROWS];   /* the other nodes' usage on each kept row */
    uint8_t *in_peak;         /* per node */
    double *part;             /* per strategy: the node's part, kept penalties out, folds in */
    double *belief;           /* per strategy */
    double *gamma;            /* per node */
    double *table, *scratch;  /* a pair's parts; a leaf's message or a node's usage */
    int *column;              /* per strategy: x column or -1 */
    int *row_a, *row_b;       /* per strategy of a pair's ends: marginal rows */
    double constant, shift;
} peak;

static uint32_t domain(const peak *pk, uint32_t v) { return iopddl_domain(&pk->b->model, v); }

static bool allowed(const peak *pk, uint32_t v, uint32_t k)
{
    return pk->b->cost[pk->b->model.dom_start[v] + k] < PP_IOPDDL_FORBIDDEN;
}

/* The kept segments: the largest positive multipliers, largest first. */
static void choose_rows(peak *pk)
{
    const double *lambda = pk->lambda;
    pk->row_count = 0;
    for (uint32_t s = 0; s < pk->b->segment_count; s++) {
        uint32_t at;
        if (lambda[s] <= 0)
            continue;
        if (pk->row_count < PEAK_ROWS)
            at = pk->row_count++;
        else if (lambda[pk->rows[PEAK_ROWS - 1]] >= lambda[s])
            continue;
        else
            at = PEAK_ROWS - 1;
        for (; at > 0 && lambda[pk->rows[at - 1]] < lambda[s]; at--)
            pk->rows[at] = pk->rows[at - 1];
        pk->rows[at] = s;
    }
}

/* Node v's usage on kept row r at each strategy, into out. */
static void row_usage(const peak *pk, uint32_t v, uint32_t r, double *out)
{
    const iopddl_bound_model *b = pk->b;
    uint32_t d = domain(pk, v), s = pk->rows[r];
    for (uint32_t k = 0; k < d; k++)
        out[k] = 0;
    for (uint32_t p = b->piece_start[v]; p < b->piece_start[v + 1]; p++)
        if (b->piece_lo[p] <= s && s < b->piece_hi[p])
            for (uint32_t k = 0; k < d; k++)
                out[k] += b->piece_usage[b->piece_usage_start[p] + k];
}

/* The peak's nodes (usage varying on a kept row) and each node's part:
 * a leaf's own costs (its least is in the leaves' shed), another node's
 * share of its belief; the peak's less the kept rows' penalties, the
 * rest's usage there into `rest`. */
static void split_nodes(peak *pk)
{
    const iopddl_model *bm = &pk->b->model;
    double *usage = pk->scratch;
    for (uint32_t v = 0; v < bm->node_count; v++) {
        uint32_t d = domain(pk, v), first = bm->dom_start[v];
        double *part = pk->part + first;
        pk->in_peak[v] = 0;
        for (uint32_t r = 0; r < pk->row_count && d > 1; r++) {
            row_usage(pk, v, r, usage);
            for (uint32_t k = 1; k < d; k++)
                pk->in_peak[v] |= usage[k] != usage[0];
        }
        if (iopddl_trws_is_leaf(pk->t, v)) {
            for (uint32_t k = 0; k < d; k++)
                part[k] = iopddl_trws_entry(bm->unary[first + k]);
        } else {
            double share = iopddl_trws_belief(pk->t, v, pk->belief + first, &pk->gamma[v]);
            for (uint32_t k = 0; k < d; k++)
                part[k] = share * pk->belief[first + k];
        }
        for (uint32_t r = 0; r < pk->row_count && d > 0; r++) {
            row_usage(pk, v, r, usage);
            if (!pk->in_peak[v])
                pk->rest[r] += usage[0];
            for (uint32_t k = 0; k < d && pk->in_peak[v]; k++)
                part[k] -= pk->lambda[pk->rows[r]] * usage[k];
        }
    }
}

/* Pair q's part per entry into pk->table (a's strategy major): a folded
 * leaf's remainder (its own costs are its node's part), else the earlier
 * node's gamma share of its belief plus the table less both messages. */
static void pair_part(peak *pk, uint32_t q)
{
    const iopddl_model *bm = &pk->b->model;
    uint32_t a = bm->pair_a[q], b = bm->pair_b[q], da = domain(pk, a), db = domain(pk, b);
    const int64_t *table = bm->pair_cost + bm->pair_start[q];
    bool leaf_a = iopddl_trws_is_leaf(pk->t, a), leaf_b = iopddl_trws_is_leaf(pk->t, b);
    if (leaf_a || leaf_b) {
        double *message = pk->scratch;
        iopddl_trws_leaf_message(pk->t, leaf_a ? a : b, message);
        for (uint32_t i = 0; i < da; i++)
            for (uint32_t j = 0; j < db; j++)
                pk->table[i * db + j] = iopddl_trws_entry(table[(uint64_t)i * db + j]) - message[leaf_a ? j : i];
        return;
    }
    /* The forward pass runs in node order: a < b is the earlier. */
    const double *to_a = iopddl_trws_message(pk->t, q, a), *to_b = iopddl_trws_message(pk->t, q, b);
    const double *belief = pk->belief + bm->dom_start[a];
    for (uint32_t i = 0; i < da; i++)
        for (uint32_t j = 0; j < db; j++)
            pk->table[i * db + j] =
                pk->gamma[a] * belief[i] - to_a[i] + iopddl_trws_entry(table[(uint64_t)i * db + j]) - to_b[j];
}

/* Does pair q count: not a folded leaf's outside the peak (its remainder
 * is >= 0 and its least 0)? */
static bool counted(const peak *pk, uint32_t q)
{
    const iopddl_model *bm = &pk->b->model;
    uint32_t a = bm->pair_a[q], b = bm->pair_b[q];
    if (iopddl_trws_is_leaf(pk->t, a))
        return pk->in_peak[a];
    return !iopddl_trws_is_leaf(pk->t, b) || pk->in_peak[b];
}

/* Pairs not inside the peak: their least into the constant, or, across
 * its edge, their least over the other end into the peak node's part;
 * then the other nodes' leasts. */
static void fold_outside(peak *pk)
{
    const iopddl_model *bm = &pk->b->model;
    for (uint32_t q = 0; q < bm->pair_count; q++) {
        uint32_t a = bm->pair_a[q], b = bm->pair_b[q], da = domain(pk, a), db = domain(pk, b);
        if (!counted(pk, q) || (pk->in_peak[a] && pk->in_peak[b]))
            continue;
        pair_part(pk, q);
        if (!pk->in_peak[a] && !pk->in_peak[b]) {
            double least = INFINITY;
            for (uint64_t k = 0; k < (uint64_t)da * db; k++)
                least = fmin(least, pk->table[k]);
            pk->constant += least;
            continue;
        }
        bool keep_a = pk->in_peak[a];
        uint32_t kept = keep_a ? da : db, other = keep_a ? db : da;
        double *part = pk->part + bm->dom_start[keep_a ? a : b];
        for (uint32_t i = 0; i < kept; i++) {
            double least = INFINITY;
            for (uint32_t j = 0; j < other; j++)
                least = fmin(least, pk->table[keep_a ? i * db + j : j * db + i]);
            part[i] += least;
        }
    }
    for (uint32_t v = 0; v < bm->node_count; v++) {
        if (pk->in_peak[v] || iopddl_trws_is_leaf(pk->t, v) || domain(pk, v) == 0)
            continue;
        double least = INFINITY;
        for (uint32_t k = 0; k < domain(pk, v); k++)
            least = fmin(least, pk->part[bm->dom_start[v] + k]);
        pk->constant += least;
    }
}

/* One binary column per allowed strategy of a peak node, one row each
 * node; objectives less their least (into shift). False when a node has
 * no allowed strategy or an objective is too large. */
static bool x_columns(peak *pk, pp_lp *lp)
{
    const iopddl_model *bm = &pk->b->model;
    for (uint32_t v = 0; v < bm->node_count; v++) {
        const double *part = pk->part + bm->dom_start[v];
        for (uint32_t k = 0; k < domain(pk, v); k++)
            pk->column[bm->dom_start[v] + k] = -1;
        if (!pk->in_peak[v])
            continue;
        double least = INFINITY;
        for (uint32_t k = 0; k < domain(pk, v); k++)
            if (allowed(pk, v, k))
                least = fmin(least, part[k]);
        if (!(least < INFINITY))
            return false;
        pk->shift += least;
        int row = pp_lp_row(lp, 1, 1);
        for (uint32_t k = 0; k < domain(pk, v); k++) {
            if (!allowed(pk, v, k))
                continue;
            if (part[k] - least > PEAK_LARGEST)
                return false;
            int col = pp_lp_col(lp, 0, 1, part[k] - least, true);
            pk->column[bm->dom_start[v] + k] = col;
            pp_lp_entry(lp, row, col, 1);
        }
    }
    return pp_lp_ok(lp);
}

/* Pair q inside the peak: its marginal rows and a column per allowed
 * entry (polytope.h). */
static bool y_columns(peak *pk, pp_lp *lp, uint32_t q)
{
    const iopddl_model *bm = &pk->b->model;
    uint32_t a = bm->pair_a[q], b = bm->pair_b[q], da = domain(pk, a), db = domain(pk, b);
    const int *col_a = pk->column + bm->dom_start[a], *col_b = pk->column + bm->dom_start[b];
    const int64_t *table = bm->pair_cost + bm->pair_start[q];
    pair_part(pk, q);
    double least = INFINITY;
    for (uint32_t i = 0; i < da; i++)
        for (uint32_t j = 0; j < db; j++)
            if (col_a[i] >= 0 && col_b[j] >= 0 && table[(uint64_t)i * db + j] < PP_IOPDDL_FORBIDDEN)
                least = fmin(least, pk->table[i * db + j]);
    if (!(least < INFINITY))
        return false;
    pk->shift += least;
    iopddl_polytope_rows(lp, col_a, da, col_b, db, pk->row_a, pk->row_b);
    for (uint32_t i = 0; i < da; i++)
        for (uint32_t j = 0; j < db; j++) {
            if (col_a[i] < 0 || col_b[j] < 0 || table[(uint64_t)i * db + j] >= PP_IOPDDL_FORBIDDEN)
                continue;
            double cost = pk->table[i * db + j] - least;
            if (cost > PEAK_LARGEST)
                return false;
            iopddl_polytope_entry(lp, pk->row_a, pk->row_b, i, j, cost, 1);
        }
    return pp_lp_ok(lp);
}

/* The kept rows over the peak's columns, each node's least usage moved to
 * the right side. False when even the least usage overflows one. */
static bool kept_rows(peak *pk, pp_lp *lp)
{
    const iopddl_bound_model *b = pk->b;
    double *usage = pk->scratch;
    for (uint32_t r = 0; r < pk->row_count; r++) {
        double room = (double)b->limit - pk->rest[r];
        int row = pp_lp_row(lp, -DBL_MAX, 0);
        for (uint32_t v = 0; v < b->model.node_count; v++) {
            if (!pk->in_peak[v])
                continue;
            const int *col = pk->column + b->model.dom_start[v];
            double least = INFINITY;
            row_usage(pk, v, r, usage);
            for (uint32_t k = 0; k < domain(pk, v); k++)
                least = col[k] >= 0 ? fmin(least, usage[k]) : least;
            room -= least;
            for (uint32_t k = 0; k < domain(pk, v); k++)
                if (col[k] >= 0 && usage[k] != least)
                    pp_lp_entry(lp, row, col[k], usage[k] - least);
        }
        if (room < 0 || row < 0)
            return false;
        lp->row_hi[row] = room;
    }
    return pp_lp_ok(lp);
}

static bool build(peak *pk, pp_lp *lp)
{
    const iopddl_model *bm = &pk->b->model;
    split_nodes(pk);
    for (uint32_t r = 0; r < pk->row_count; r++)
        pk->constant -= pk->lambda[pk->rows[r]] * pk->rest[r];
    fold_outside(pk);
    if (!x_columns(pk, lp))
        return false;
    for (uint32_t q = 0; q < bm->pair_count; q++)
        if (pk->in_peak[bm->pair_a[q]] && pk->in_peak[bm->pair_b[q]] && counted(pk, q) && !y_columns(pk, lp, q))
            return false;
    return kept_rows(pk, lp);
}

static bool alloc_peak(peak *pk, pp_arena *arena)
{
    const iopddl_model *bm = &pk->b->model;
    uint32_t n = bm->node_count, widest = iopddl_widest_domain(bm);
    size_t strategies = (size_t)bm->dom_start[n] + 1;
    pk->in_peak = pp_arena_alloc(arena, (size_t)n + 1);
    pk->part = pp_arena_alloc(arena, strategies * sizeof *pk->part);
    pk->belief = pp_arena_alloc(arena, strategies * sizeof *pk->belief);
    pk->gamma = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *pk->gamma);
    pk->table = pp_arena_alloc(arena, ((size_t)widest * widest + 1) * sizeof *pk->table);
    pk->scratch = pp_arena_alloc(arena, ((size_t)widest + 1) * sizeof *pk->scratch);
    pk->column = pp_arena_alloc(arena, strategies * sizeof *pk->column);
    pk->row_a = pp_arena_alloc(arena, ((size_t)widest + 1) * sizeof *pk->row_a);
    pk->row_b = pp_arena_alloc(arena, ((size_t)widest + 1) * sizeof *pk->row_b);
    return pk->in_peak && pk->part && pk->belief && pk->gamma && pk->table && pk->scratch && pk->column &&
           pk->row_a && pk->row_b;
}

/* CBC on the peak's MIP: its best bound (0 with no peak node left), or
 * -INFINITY. CBC's first LP cannot be interrupted and may run past its
 * own limit (S: 12 s asked, 16.8 s taken quiet), and a killed child gives
 * no bound at all: beside the search's two workers under load 6 a child
 * killed at twice its limit never finished that LP in a 240 s solve, so
 * it gets three times its limit more, all within the deadline. */
enum { PEAK_OVERRUN = 3 };
static double solve(const pp_lp *lp, double seconds, const pp_deadline *deadline)
{
    double left = pp_deadline_left(deadline);
    double limit = fmin(seconds, (left - 0.5) / (1 + PEAK_OVERRUN));
    if (lp->cols == 0)
        return 0;
    if (!(limit > 0.1))
        return -INFINITY;
    pp_cbc_options o = {0};
    o.deadline = pp_now() + limit;
    o.stop = deadline->stop;
    o.grace = 0.5;
    o.grace_rate = PEAK_OVERRUN;
    o.threads = 1;
    pp_cbc_outcome out;
    pp_error err = {0};
    double *x = malloc(((size_t)lp->cols + 1) * sizeof *x);
    bool ran = x && pp_cbc_solve(lp, &o, x, &out, &err) == PP_OK;
    free(x);
    return ran && !out.infeasible && isfinite(out.bound) ? out.bound : -INFINITY;
}

double iopddl_bound_peak(const iopddl_bound_model *b, iopddl_trws *t, const double *lambda, double constant,
                         double seconds, const pp_deadline *deadline)
{
    peak pk = {.b = b, .t = t, .lambda = lambda};
    choose_rows(&pk);
    if (!b->has_limit || pk.row_count == 0)
        return -INFINITY;
    pk.constant = constant + iopddl_trws_leaf_shed(t);
    for (uint32_t r = 0; r < pk.row_count; r++) {
        pk.constant += lambda[pk.rows[r]] * (double)b->limit;
        pk.rest[r] = 0;
    }
    pp_arena *arena = pp_arena_new(1 << 20);
    pp_lp lp;
    pp_lp_init(&lp, PEAK_NONZEROS);
    double bound = -INFINITY;
    if (arena && alloc_peak(&pk, arena) && build(&pk, &lp)) {
        double least = solve(&lp, seconds, deadline);
        double magnitude = fabs(pk.constant) + fabs(pk.shift) + fabs(least);
        bound = pk.constant + pk.shift + least - PEAK_ALLOWANCE * magnitude;
    }
    pp_lp_free(&lp);
    pp_arena_free(arena);
    return bound;
}
