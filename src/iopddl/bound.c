/* bound.c: a certified lower bound on every answer's cost: the Lagrangian
 * relaxation of the usage rows, each evaluated by TRW-S's dual bound
 * (trws.c), on the problem bound_model.c builds (the presolved model, or
 * the solver's own).
 *
 * For multipliers lambda_t >= 0 per time segment (one row per segment: its
 * steps share one live set), every assignment x that keeps the limit has
 *   cost(x) >= cost(x) + sum_t lambda_t (usage_t(x) - limit)
 *            = cost(x) + sum_v pen_v(x_v) - limit sum_t lambda_t,
 * pen_v(s) being, over v's pieces, the sum of lambda over the piece's
 * segments times v's usage there at s. TRW-S's bound on the costs
 * cost + pen_v - min pen_v (rounded down) is below their least over all
 * assignments whatever its messages, so that bound plus sum_v min pen_v
 * - limit sum_t lambda_t is below every feasible answer's cost, for every
 * lambda >= 0 (lambda = 0: the problem without the limit). The multipliers
 * only decide how high it is: projected subgradient steps (the decoded
 * answer's usage minus the limit per segment), Polyak's step from the best
 * value towards a known answer's cost, the best value and its multipliers
 * kept. Costs are integers, so the bound is rounded up after the allowance
 * for rounding. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "iopddl/bound.h"
#include "iopddl/reduced.h"

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
 * S). The step's scale grows 10% with every new best (the runs that
 * still rose steadily after 300 steps wanted longer steps; at 5% S took
 * 200 steps to 1.380e9, at 10% 1.406e9, at 20% 1.396e9, A C L M the same
 * within 0.08% at the end and M in two thirds of the CPU) and halves, back
 * at the best multipliers, after PATIENCE steps without one; the steps end
 * once the distance they aim to close, scale times (target - best), is
 * below LEAST_STEP of the best (the bound then no longer rises: A, C and L
 * end within 1-5 CPU s on the presolved model), whatever the target.
 * Measured in bench/iopddl-bound, BENCHMARKS.md. */
enum { ITERATIONS_PER_STEP = 2, PATIENCE = 8 };
#define GROWTH 1.1
#define LEAST_STEP 1e-6
/* The steps aim at most this far above the best value (relative): aimed at
 * 2.5x M's best known, a first step sized for the whole distance sent the
 * multipliers so far that 2 TRW-S iterations a step never brought the
 * messages back, and the bound ended 14% short; capped, 0.03% above the
 * best known (BENCHMARKS.md). With no known answer, the steps aim there. */
#define REACH 0.1
/* Each step goes along the subgradient plus this much of the last step's
 * direction (a heavy-ball deflection): S's decoded answers overflow a
 * different few of the peak's 144 segments from step to step, and the bare
 * subgradient zig-zags between them. 1000 steps aimed at no answer: S
 * 1.4232e9 -> 1.4424e9, M 4.9873e10 -> 4.9895e10, A C L within 0.02%
 * (0.3 to 0.7 all end above the bare steps on S at 400; BENCHMARKS.md). */
#define MOMENTUM 0.5

/* The peak's stage (bound_peak.c): TRW-S iterations at the best
 * multipliers first (S: 30 take the bound from 1.442396e9 to 1.442439e9),
 * and the least share it runs on, and at least runs for. */
enum { PEAK_ITERATIONS = 16 };
#define PEAK_LEAST 1.0
#define PEAK_LEAST_SHARE 0.05

/* When a stage ends: at a wall-clock deadline, or once the calling thread
 * has used `cpu_at` CPU seconds. The solver runs the bound beside its
 * search, which takes CPU from it; its share counts in its own thread's
 * CPU so that it does as many steps as when it ran alone. */
typedef struct {
    pp_deadline wall;
    double cpu_at;
} budget;

/* seconds <= 0: the deadline alone, as pp_deadline_within. */
static budget budget_within(const pp_deadline *deadline, double seconds)
{
    return (budget){*deadline, seconds > 0 ? pp_thread_seconds() + seconds : INFINITY};
}

static bool budget_spent(const budget *b)
{
    return pp_deadline_passed(&b->wall) || pp_thread_seconds() >= b->cpu_at;
}

typedef struct {
    iopddl_bound_model *b;
    iopddl_trws *trws;
    double *lambda;  /* per segment */
    double *prefix;  /* segment_count + 1: running sums of lambda */
    double *usage;   /* segment_count + 1: the decoded answer's, by differences */
    double *best_lambda;
    double *direction; /* per segment: the last step's */
    double *penalty; /* per strategy, scratch */
    double *widest;  /* per node: its largest usage summed over its pieces */
    uint32_t *x;
} lagrange;

static bool lagrange_init(lagrange *l, iopddl_bound_model *b, pp_arena *arena)
{
    uint32_t n = b->model.node_count, segments = b->segment_count;
    l->b = b;
    l->lambda = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->prefix = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->usage = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->best_lambda = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->direction = pp_arena_alloc(arena, ((size_t)segments + 1) * sizeof(double));
    l->penalty = pp_arena_alloc(arena, ((size_t)iopddl_widest_domain(&b->model) + 1) * sizeof(double));
    l->widest = pp_arena_calloc(arena, (size_t)n + 1, sizeof(double));
    l->x = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    if (!l->lambda || !l->prefix || !l->usage || !l->best_lambda || !l->direction || !l->penalty || !l->widest ||
        !l->x)
        return false;
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t k = 0; k < iopddl_domain(&b->model, v); k++) {
            double sum = 0;
            for (uint32_t p = b->piece_start[v]; p < b->piece_start[v + 1]; p++)
                sum += fabs(b->piece_usage[b->piece_usage_start[p] + k]);
            l->widest[v] = fmax(l->widest[v], sum);
        }
    memcpy(b->model.unary, b->cost, (size_t)b->model.dom_start[n] * sizeof *b->cost);
    l->trws = iopddl_trws_new(&b->model, arena);
    if (!l->trws || !iopddl_trws_keep_bound(l->trws, arena))
        return false;
    for (uint32_t s = 0; s <= segments; s++)
        l->lambda[s] = l->best_lambda[s] = l->direction[s] = 0;
    /* A valid answer to start the steps from, should the deadline cut the
     * first run before it decodes one. */
    for (uint32_t v = 0; v <= n; v++)
        l->x[v] = 0;
    return true;
}

/* Node v's penalty per strategy into l->penalty: the multipliers' sums
 * over its pieces times its usage there. */
static void node_penalty(lagrange *l, uint32_t v)
{
    const iopddl_bound_model *b = l->b;
    uint32_t d = iopddl_domain(&b->model, v);
    for (uint32_t k = 0; k < d; k++)
        l->penalty[k] = 0;
    for (uint32_t p = b->piece_start[v]; p < b->piece_start[v + 1]; p++) {
        double price = l->prefix[b->piece_hi[p]] - l->prefix[b->piece_lo[p]];
        const double *u = b->piece_usage + b->piece_usage_start[p];
        for (uint32_t k = 0; k < d; k++)
            l->penalty[k] += price * u[k];
    }
}

/* Writes every node's costs plus its penalty less its least penalty into
 * the model (rounded down to integers, an allowance for the rounding
 * taken off first, so each is at most the exact figure); returns what the
 * Lagrangian adds to TRW-S's bound: the least penalties, less their own
 * allowance, minus the limit times the multipliers' sum. */
static double set_penalties(lagrange *l)
{
    iopddl_bound_model *b = l->b;
    iopddl_model *bm = &b->model;
    uint32_t segments = b->segment_count;
    l->prefix[0] = 0;
    for (uint32_t s = 0; s < segments; s++)
        l->prefix[s + 1] = l->prefix[s] + l->lambda[s];
    double total = l->prefix[segments], constant = -(double)b->limit * total;
    double magnitude = fabs(constant);
    for (uint32_t v = 0; v < bm->node_count; v++) {
        uint32_t first = bm->dom_start[v], d = iopddl_domain(bm, v);
        double least = INFINITY;
        node_penalty(l, v);
        for (uint32_t k = 0; k < d; k++)
            least = fmin(least, l->penalty[k]);
        /* Each running total is within `segments` roundings of `total`,
         * a price within twice that, each product and the sum over the
         * pieces a few roundings more: all within this of the exact
         * penalty, and the same for the difference to the least. */
        uint32_t pieces = b->piece_start[v + 1] - b->piece_start[v];
        double error = 8 * DBL_EPSILON * (2.0 * segments + pieces + 8) * total * l->widest[v];
        for (uint32_t k = 0; k < d; k++) {
            double add = floor(l->penalty[k] - least - 3 * error);
            int64_t c = b->cost[first + k];
            bm->unary[first + k] = c >= PP_IOPDDL_FORBIDDEN || add <= 0 ? c
                                   : add >= (double)(PP_IOPDDL_FORBIDDEN - c) ? PP_IOPDDL_FORBIDDEN
                                                                              : c + (int64_t)add;
        }
        if (d > 0 && pieces > 0) {
            constant += least - error;
            magnitude += fabs(least) + error;
        }
    }
    return constant - 4 * DBL_EPSILON * ((double)bm->node_count + 2) * magnitude;
}

/* The projected subgradient at the decoded answer, into l->usage: its
 * usage minus the limit per segment, left out where the multiplier is zero
 * and the row has slack. */
static void subgradient(lagrange *l)
{
    const iopddl_bound_model *b = l->b;
    uint32_t segments = b->segment_count;
    for (uint32_t s = 0; s <= segments; s++)
        l->usage[s] = 0;
    for (uint32_t v = 0; v < b->model.node_count; v++)
        for (uint32_t p = b->piece_start[v]; p < b->piece_start[v + 1]; p++) {
            double u = b->piece_usage[b->piece_usage_start[p] + l->x[v]];
            l->usage[b->piece_lo[p]] += u;
            l->usage[b->piece_hi[p]] -= u;
        }
    double running = 0;
    for (uint32_t s = 0; s < segments; s++) {
        running += l->usage[s];
        double g = running - (double)b->limit;
        l->usage[s] = l->lambda[s] > 0 || g > 0 ? g : 0;
    }
}

/* The step's direction from the subgradient in l->usage: plus MOMENTUM
 * times the last direction, left out where the multiplier is zero and the
 * sum points down; into l->usage and l->direction. Returns its squared
 * length. */
static double deflect(lagrange *l)
{
    double length = 0;
    for (uint32_t s = 0; s < l->b->segment_count; s++) {
        double d = l->usage[s] + MOMENTUM * l->direction[s];
        if (l->lambda[s] <= 0 && d < 0)
            d = 0;
        l->direction[s] = l->usage[s] = d;
        length += d * d;
    }
    return length;
}

/* TRW-S at no limit until its bound rises by less than `least_rise` over a
 * check, or `until`. */
static double unlimited(lagrange *l, double least_rise, const budget *until)
{
    double best = -INFINITY;
    for (;;) {
        iopddl_trws_run(l->trws, NULL, ITERATIONS_PER_CHECK, l->x, &until->wall);
        double bound = iopddl_trws_bound(l->trws);
        bool rose = bound > best + least_rise * fabs(bound);
        best = fmax(best, bound);
        if (!rose || budget_spent(until))
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
static double subgradient_steps(lagrange *l, double best, double upper, int steps, const budget *until)
{
    uint32_t segments = l->b->segment_count;
    double scale = 1;
    int idle = 0;
    for (int step = 0; step < steps && !budget_spent(until); step++) {
        /* Polyak's step towards the known answer, or REACH above the best
         * when there is none or it is further. From the best value, not the last: the
         * last lags its multipliers (the messages have not caught up), and
         * after a fall the long step it asked for threw the multipliers
         * away (at scale 4, C stuck 11% below the best known). Where the decoded
         * answer keeps the limit with no slack priced there is no step: the
         * messages only converge further at these multipliers. */
        subgradient(l);
        double length = deflect(l);
        double reach = fmax(1, REACH * fabs(best));
        double target = isfinite(upper) && upper > best ? fmin(upper, best + reach) : best + reach;
        if (scale * (target - best) < LEAST_STEP * fabs(best))
            break;
        double size = length > 0 ? scale * (target - best) / length : 0;
        for (uint32_t s = 0; s < segments; s++)
            l->lambda[s] = fmax(0, l->lambda[s] + size * l->usage[s]);
        double constant = set_penalties(l);
        iopddl_trws_run(l->trws, NULL, ITERATIONS_PER_STEP, l->x, &until->wall);
        double value = iopddl_trws_bound(l->trws) + constant;
        if (value > best) {
            best = value;
            copy(l->best_lambda, l->lambda, segments);
            scale *= GROWTH;
            idle = 0;
        } else if (++idle >= PATIENCE) {
            copy(l->lambda, l->best_lambda, segments);
            scale /= 2;
            idle = 0;
        }
    }
    return best;
}

/* The best multipliers again, TRW-S warmed to them (`iterations`), and
 * with `seconds` > 0 their bound with the peak's rows kept whole as well
 * (bound_peak.c): the larger, at least `best`. */
static double peak_stage(lagrange *l, double best, int iterations, double seconds, const pp_deadline *deadline)
{
    copy(l->lambda, l->best_lambda, l->b->segment_count);
    double constant = set_penalties(l);
    iopddl_trws_run(l->trws, NULL, iterations, l->x, deadline);
    best = fmax(best, iopddl_trws_bound(l->trws) + constant);
    if (seconds > 0)
        best = fmax(best, iopddl_bound_peak(l->b, l->trws, l->lambda, constant, seconds, deadline));
    return best;
}

/* The share rule of the peak's MIP: the steps' CPU time again (CBC runs
 * in a child while this thread waits) in proportion to twice the part of
 * the bound the multipliers carry (`carried`, over the bound without the
 * limit), at most once; at least PEAK_LEAST of the bound's share (CBC's
 * start and first LP); never past the deadline. Where memory binds hard
 * the MIP gets the steps' time (S: the multipliers carry half the bound,
 * and CBC's root LP, 10-20 s of wall time, adds 4.5%), elsewhere little
 * (M: 6%, nothing gained in 9.6 s). */
static double peak_seconds(double steps_cpu, double seconds, double carried)
{
    return fmax(steps_cpu * fmin(1, 2 * fmax(0, carried)), fmin(seconds > 0 ? seconds : INFINITY, PEAK_LEAST));
}

double iopddl_bound_at(const iopddl_model *m, iopddl_reduced *presolved, const double *lambda, uint32_t segments,
                       int iterations, bool keep_peak, double seconds)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    iopddl_bound_model b;
    lagrange l;
    bool built = arena && ((presolved && iopddl_bound_model_reduced(&b, presolved, arena)) ||
                           iopddl_bound_model_plain(&b, m, arena));
    double best = -INFINITY;
    if (built && b.segment_count == segments && lagrange_init(&l, &b, arena)) {
        pp_deadline none = pp_deadline_in(0);
        for (uint32_t s = 0; s < segments; s++)
            l.best_lambda[s] = b.has_limit ? fmax(0, lambda[s]) : 0; /* no rows to price without a limit */
        best = peak_stage(&l, best, iterations, keep_peak ? seconds : 0, &none);
    }
    pp_arena_free(arena);
    return best > -INFINITY ? ceil(best) : best;
}

static void offer_ray(lagrange *l, const iopddl_model *m, const iopddl_reduced *c, iopddl_bound_answer *on_answer,
                      void *ctx, const pp_deadline *deadline, pp_arena *arena);

double iopddl_bound(const iopddl_model *m, iopddl_reduced *presolved, double upper, int steps, double seconds,
                    const pp_deadline *deadline, void (*on_built)(void *ctx), iopddl_bound_answer *on_answer,
                    void *ctx)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    iopddl_bound_model b;
    lagrange l;
    bool built = arena && ((presolved && iopddl_bound_model_reduced(&b, presolved, arena)) ||
                           iopddl_bound_model_plain(&b, m, arena));
    if (on_built)
        on_built(ctx);
    if (!built || !lagrange_init(&l, &b, arena)) {
        pp_arena_free(arena);
        return -INFINITY;
    }
    bool priced = b.has_limit && steps > 0 && b.segment_count > 0;
    double started = pp_thread_seconds();
    budget until = budget_within(deadline, seconds);
    budget first = budget_within(deadline, priced ? WARM_SHARE * seconds : seconds);
    double best = unlimited(&l, priced ? WARM_RISE : LEAST_RISE, &first), free_of_limit = best;
    if (priced && best > -INFINITY)
        best = subgradient_steps(&l, best, upper, steps, &until);
    double steps_cpu = pp_thread_seconds() - started;
    /* The answers first: a few CPU seconds at most, where the peak's MIP
     * takes 10-20 s of wall time on S, and the search can use them sooner. */
    if (priced && on_answer && b.rep)
        offer_ray(&l, m, presolved, on_answer, ctx, deadline, arena);
    if (priced && best > -INFINITY && (seconds <= 0 || seconds > PEAK_LEAST_SHARE)) {
        double carried = (best - free_of_limit) / fmax(1, fabs(best));
        best = peak_stage(&l, best, PEAK_ITERATIONS, peak_seconds(steps_cpu, seconds, carried), deadline);
    }
    pp_arena_free(arena);
    return best > -INFINITY ? ceil(best) : best;
}

/* The answers along the ray of the best multipliers, expanded to m (each
 * eliminated node at its best reply, as the presolve records it), brought
 * under the limit by repair when they overflow and polished, as the
 * search's workers treat their own; each one cheaper than those before is
 * offered to on_answer. Why: where memory binds hard (S), the steps' own
 * decoded answers overflow the peak, and scaled up the answer jumps in
 * moves of hundreds of representatives at once, which no move of the
 * search makes; repaired, S's reach 1.5205e9 after the bound's 12 CPU s,
 * below the search's answer at 240 s (DESIGN.md, "When the bound runs").
 * It leaves the multipliers scaled; the peak stage goes back to the best. The points
 * take about 0.1 CPU s each on S and M; they stop at the deadline only
 * (beside the search it is the solve's; run after the first answer, the
 * bound's own share of the wall time): capped at a quarter of the bound's
 * CPU share, S at 60 s kept main's answer (1.5630e9), uncapped 1.5383e9. */
enum { RAY_POINTS = 13, RAY_ITERATIONS = 10, RAY_REPAIRS = 1000 };
#define RAY_STRIDE 0.05
static void offer_ray(lagrange *l, const iopddl_model *m, const iopddl_reduced *c, iopddl_bound_answer *on_answer,
                      void *ctx, const pp_deadline *deadline, pp_arena *arena)
{
    const iopddl_bound_model *b = l->b;
    uint32_t *sr = pp_arena_calloc(arena, (size_t)c->n + 1, sizeof *sr);
    uint32_t *x = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof *x);
    iopddl_repair *repair = iopddl_repair_new(m, arena);
    iopddl_polish *polish = iopddl_polish_new(m, arena);
    iopddl_profile profile;
    if (!sr || !x || !repair || !polish || !iopddl_profile_init(&profile, m, arena))
        return;
    iopddl_cost least = IOPDDL_NO_COST;
    for (int k = 0; k < RAY_POINTS && !pp_deadline_passed(deadline); k++) {
        for (uint32_t s = 0; s < b->segment_count; s++)
            l->lambda[s] = (1 + RAY_STRIDE * k) * l->best_lambda[s];
        set_penalties(l);
        iopddl_trws_run(l->trws, NULL, RAY_ITERATIONS, l->x, deadline);
        for (uint32_t v = 0; v < b->model.node_count; v++)
            sr[b->rep[v]] = b->rep_strategy[b->model.dom_start[v] + l->x[v]];
        iopddl_reduced_expand(c, sr, x);
        iopddl_model_sync_auxiliary(m, x);
        iopddl_profile_load(&profile, m, x);
        if (!iopddl_repair_run(repair, x, &profile, RAY_REPAIRS, deadline))
            continue;
        iopddl_polish_run(polish, x, &profile, deadline);
        iopddl_cost cost = iopddl_model_cost(m, x);
        if (cost < least && iopddl_model_forbidden_free(m, x) && iopddl_profile_fits(&profile, m, x)) {
            least = cost;
            on_answer(ctx, x, cost);
        }
    }
}
