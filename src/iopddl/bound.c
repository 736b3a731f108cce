/* bound.c: a certified lower bound on every answer's cost: the Lagrangian
 * relaxation of the usage rows, each evaluated by TRW-S's dual bound
 * (trws.c).
 *
 * For multipliers lambda_t >= 0 per time segment (one row per segment: its
 * steps share one live set), every assignment x that keeps the limit has
 *   cost(x) >= cost(x) + sum_t lambda_t (usage_t(x) - limit)
 *            = cost(x) + sum_v pen_v usage_v(x_v) - limit sum_t lambda_t,
 * pen_v being the sum of lambda over v's live segments. TRW-S's bound is
 * below the least of cost + sum_v pen_v (usage_v - usage_min_v) over all
 * assignments whatever its messages, so that bound plus
 * sum_v pen_v usage_min_v - limit sum_t lambda_t is below every feasible
 * answer's cost, for every lambda >= 0 (lambda = 0: the problem without the
 * limit). The multipliers only decide how high it is: projected subgradient
 * steps (the decoded answer's usage minus the limit per segment), Polyak's
 * step from the best value towards a known answer's cost, the best value
 * and its multipliers kept. Costs are integers, so the bound is rounded up
 * after the allowance for rounding. */
#include <float.h>
#include <math.h>
#include "iopddl/bound.h"

/* Iterations per check at no limit, and the least relative rise over one
 * check that is worth another. */
enum { ITERATIONS_PER_CHECK = 4 };
#define LEAST_RISE 1e-5
/* With a limit to price, the no-limit stage only warms the messages and
 * decodes a first answer: it stops at this rise per check, or at its share
 * of the time. On A, run to LEAST_RISE it took 121 s for a bound 28% below
 * the best known, which the first priced steps pass. */
#define WARM_RISE 1e-2
#define WARM_SHARE 0.2
/* Per subgradient step: TRW-S iterations (messages stay warm, so a few
 * follow the changed penalties; one forward pass alone lost 40% on L and
 * S). The step's scale grows a little with every new best (the runs that
 * still rose steadily after 300 steps wanted longer steps) and halves, back
 * at the best multipliers, after PATIENCE steps without one; the steps end
 * once it is LEAST_SCALE. Measured in bench/iopddl-bound, BENCHMARKS.md. */
enum { ITERATIONS_PER_STEP = 2, PATIENCE = 8 };
#define GROWTH 1.05
#define LEAST_SCALE 1e-4

typedef struct {
    const iopddl_model *m;
    iopddl_trws *trws;
    double *lambda;  /* per segment */
    double *prefix;  /* segment_count + 1: running sums of lambda */
    double *usage;   /* segment_count + 1: the decoded answer's, by differences */
    double *best_lambda;
    double *penalty; /* per node */
    uint32_t *x;
    double usage_max_sum; /* sum over nodes of their largest usage */
} lagrange;

static bool lagrange_init(lagrange *l, const iopddl_model *m, pp_arena *arena)
{
    uint32_t n = m->node_count, segments = m->segment_count;
    l->m = m;
    l->trws = iopddl_trws_new(m, arena);
    l->lambda = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->prefix = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->usage = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->best_lambda = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->penalty = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(double));
    l->x = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    if (!l->trws || !l->lambda || !l->prefix || !l->usage || !l->best_lambda || !l->penalty || !l->x ||
        !iopddl_trws_keep_bound(l->trws, arena))
        return false;
    l->usage_max_sum = 0;
    for (uint32_t v = 0; v < n; v++) {
        int64_t most = 0;
        for (uint32_t k = m->dom_start[v]; k < m->dom_start[v + 1]; k++)
            most = m->usage[k] > most ? m->usage[k] : most;
        l->usage_max_sum += (double)most;
    }
    for (uint32_t s = 0; s <= segments; s++)
        l->lambda[s] = l->best_lambda[s] = 0;
    /* A valid answer to start the steps from, should the deadline cut the
     * first run before it decodes one. */
    for (uint32_t v = 0; v <= n; v++)
        l->x[v] = 0;
    return true;
}

/* Sets every node's penalty from the multipliers; returns what the
 * Lagrangian adds to TRW-S's bound, less the allowance for rounding. */
static double set_penalties(lagrange *l)
{
    const iopddl_model *m = l->m;
    uint32_t segments = m->segment_count;
    l->prefix[0] = 0;
    for (uint32_t s = 0; s < segments; s++)
        l->prefix[s + 1] = l->prefix[s] + l->lambda[s];
    double total = l->prefix[segments], constant = -(double)m->limit * total;
    double magnitude = fabs(constant);
    for (uint32_t v = 0; v < m->node_count; v++) {
        l->penalty[v] = m->seg_hi[v] > m->seg_lo[v] ? l->prefix[m->seg_hi[v]] - l->prefix[m->seg_lo[v]] : 0;
        constant += l->penalty[v] * (double)m->usage_min[v];
        magnitude += fabs(l->penalty[v] * (double)m->usage_min[v]);
    }
    /* A node's penalty differs from the exact sum of its multipliers by at
     * most a few roundings of the running total (at most `total` each), and
     * it multiplies at most the node's largest usage; the sums above are
     * each within (count) roundings of their terms' magnitudes. */
    double error = 4 * DBL_EPSILON * ((double)segments + 2) * total * l->usage_max_sum +
                   4 * DBL_EPSILON * ((double)m->node_count + 2) * magnitude;
    return constant - error;
}

/* The projected subgradient at the decoded answer: its usage minus the
 * limit per segment, left out where the multiplier is zero and the row has
 * slack. Returns its squared length. */
static double subgradient(lagrange *l)
{
    const iopddl_model *m = l->m;
    uint32_t segments = m->segment_count;
    for (uint32_t s = 0; s <= segments; s++)
        l->usage[s] = 0;
    for (uint32_t v = 0; v < m->node_count; v++) {
        double u = (double)m->usage[m->dom_start[v] + l->x[v]];
        l->usage[m->seg_lo[v]] += u;
        l->usage[m->seg_hi[v]] -= u;
    }
    double running = 0, length = 0;
    for (uint32_t s = 0; s < segments; s++) {
        running += l->usage[s];
        double g = running - (double)m->limit;
        l->usage[s] = l->lambda[s] > 0 || g > 0 ? g : 0;
        length += l->usage[s] * l->usage[s];
    }
    return length;
}

/* TRW-S at no limit until its bound rises by less than `least_rise` over a
 * check, or `until`. */
static double unlimited(lagrange *l, double least_rise, const pp_deadline *until)
{
    double best = -INFINITY;
    for (;;) {
        iopddl_trws_run(l->trws, NULL, ITERATIONS_PER_CHECK, l->x, until);
        double bound = iopddl_trws_bound(l->trws);
        bool rose = bound > best + least_rise * fabs(bound);
        best = fmax(best, bound);
        if (!rose || pp_deadline_passed(until))
            return best;
    }
}

static void copy(double *to, const double *from, uint32_t count)
{
    for (uint32_t s = 0; s < count; s++)
        to[s] = from[s];
}

/* Up to `steps` subgradient steps from lambda = 0, whose decoded answer is
 * in l->x; returns the best Lagrangian value, at least `best`. */
static double subgradient_steps(lagrange *l, double best, double upper, int steps, const pp_deadline *until)
{
    const iopddl_model *m = l->m;
    double scale = 1;
    int idle = 0;
    for (int step = 0; step < steps && scale >= LEAST_SCALE && !pp_deadline_passed(until); step++) {
        /* Polyak's step towards the known answer, or a little above the
         * best when there is none. From the best value, not the last: the
         * last lags its multipliers (the messages have not caught up), and
         * after a fall the long step it asked for threw the multipliers
         * away (at scale 4, C stuck 11% below the best known). Where the decoded
         * answer keeps the limit with no slack priced there is no step: the
         * messages only converge further at these multipliers. */
        double length = subgradient(l);
        double target = isfinite(upper) && upper > best ? upper : best + fmax(1, 0.05 * fabs(best));
        double size = length > 0 ? scale * (target - best) / length : 0;
        for (uint32_t s = 0; s < m->segment_count; s++)
            l->lambda[s] = fmax(0, l->lambda[s] + size * l->usage[s]);
        double constant = set_penalties(l);
        iopddl_trws_run(l->trws, l->penalty, ITERATIONS_PER_STEP, l->x, until);
        double value = iopddl_trws_bound(l->trws) + constant;
        if (value > best) {
            best = value;
            copy(l->best_lambda, l->lambda, m->segment_count);
            scale *= GROWTH;
            idle = 0;
        } else if (++idle >= PATIENCE) {
            copy(l->lambda, l->best_lambda, m->segment_count);
            scale /= 2;
            idle = 0;
        }
    }
    return best;
}

double iopddl_bound(const iopddl_model *m, double upper, int steps, double seconds, const pp_deadline *deadline)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    lagrange l;
    if (!arena || !lagrange_init(&l, m, arena)) {
        pp_arena_free(arena);
        return -INFINITY;
    }
    bool priced = m->has_limit && steps > 0 && m->segment_count > 0;
    pp_deadline until = pp_deadline_within(deadline, seconds);
    pp_deadline first = pp_deadline_within(deadline, priced ? WARM_SHARE * seconds : seconds);
    double best = unlimited(&l, priced ? WARM_RISE : LEAST_RISE, &first);
    if (priced && best > -INFINITY)
        best = subgradient_steps(&l, best, upper, steps, &until);
    pp_arena_free(arena);
    return best > -INFINITY ? ceil(best) : best;
}
