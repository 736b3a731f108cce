/* relax.c: one worker's usage-constrained relaxation (paper 000, Alg. 1).
 *
 * Node costs get a penalty weight[v] * (usage - least usage). Each round
 * solves that relaxed problem from the previous answer, then: if the answer
 * fits the limit, it is polished and kept when best, and every weight is
 * lowered; if not, the weights of the nodes live in overflowing segments are
 * raised, and the answer is repaired to fit and offered all the same. Nodes
 * that can never be live in a segment able to overflow keep weight zero.
 * The relaxed problem is solved twice a round (descent from the last answer,
 * and TRW-S's decoding refined by descent) and the cheaper answer goes on.
 * A worker that finds nothing better for STALL_ROUNDS rounds goes back to
 * its best answer and the weights that found it, shaken; when it has a
 * neighbourhood search (lns.c), one region around that best answer is
 * solved exactly first. Why there: a stalled worker sits in a basin that
 * single-tree moves cannot leave (C), and the restart is where it would
 * leave it anyway, so the region costs the relaxation no round that was
 * still paying, and the restarts' late jumps (M, A) stay (DESIGN.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "iopddl/relax.h"

/* Rounds without a better answer before going back to the best; changes a
 * round's repair may make (more means the answer was far from fitting, and
 * repair's cost grows with each change). */
enum { STALL_ROUNDS = 25, REPAIR_CHANGES = 1000 };

/* Probing regions: the first after PROBE_FIRST rounds; the gap doubles
 * after each probe that gains nothing (up to PROBE_MAX) and halves after
 * one that gains. A probe's MIP gets PROBE_ROUNDS rounds' worth of time
 * (at least a second), and a probe runs only while the probes that gained
 * nothing, with this one's limit and the slowest region build seen, stay
 * within PROBE_SHARE of the time the rounds took: a region's build and
 * presolve are not bounded by its MIP's limit (L: 4-6 s a region, where a
 * round takes 0.5 s). */
enum { PROBE_FIRST = 8, PROBE_MAX = 128, PROBE_ROUNDS = 2 };
#define PROBE_SHARE 0.1

/* Overflow (fullest segment over the limit) from which weights grow by it
 * too, and the most it multiplies them by in one round. */
#define OVERFLOW_FAR 1.5
#define OVERFLOW_GROW_MAX 8.0

/* Message passes in a round after one whose answer was OVERFLOW_FAR over
 * (see iopddl_worker_trws_iterations). */
enum { FAR_TRWS_ITERATIONS = 10 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The spreads are of non-forbidden node costs. */
double iopddl_usage_scale(const iopddl_model *m)
{
    if (m->usage_scale > 0)
        return m->usage_scale;
    double *ratios = malloc(((size_t)m->node_count + 1) * sizeof *ratios);
    if (!ratios)
        return 1;
    uint32_t count = 0;
    for (uint32_t v = 0; v < m->node_count; v++) {
        int64_t cmin = INT64_MAX, cmax = INT64_MIN, umax = m->usage_min[v];
        for (uint32_t k = m->dom_start[v]; k < m->dom_start[v + 1]; k++) {
            umax = m->usage[k] > umax ? m->usage[k] : umax;
            if (m->unary[k] >= PP_IOPDDL_FORBIDDEN)
                continue;
            cmin = m->unary[k] < cmin ? m->unary[k] : cmin;
            cmax = m->unary[k] > cmax ? m->unary[k] : cmax;
        }
        if (umax > m->usage_min[v] && cmax > cmin)
            ratios[count++] = (double)(cmax - cmin) / (double)(umax - m->usage_min[v]);
    }
    double scale = 1;
    if (count > 0) {
        qsort(ratios, count, sizeof *ratios, by_value);
        scale = ratios[count / 2];
    }
    free(ratios);
    return scale > 0 ? scale : 1;
}

bool iopddl_relevant_nodes(const iopddl_model *m, pp_arena *arena, uint8_t *relevant)
{
    if (!m->has_limit) {
        memset(relevant, 0, m->node_count);
        return true;
    }
    /* With every node at its largest usage, which segments can overflow? */
    iopddl_profile most;
    uint32_t *largest = malloc(((size_t)m->node_count + 1) * sizeof *largest);
    if (!largest || !iopddl_profile_init(&most, m, arena)) {
        free(largest);
        return false;
    }
    for (uint32_t v = 0; v < m->node_count; v++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < iopddl_domain(m, v); s++)
            if (m->usage[m->dom_start[v] + s] > m->usage[m->dom_start[v] + best])
                best = s;
        largest[v] = best;
    }
    iopddl_profile_load(&most, m, largest);
    for (uint32_t v = 0; v < m->node_count; v++) {
        bool spread = m->usage[m->dom_start[v] + largest[v]] > m->usage_min[v];
        relevant[v] = spread && iopddl_profile_max(&most, m->seg_lo[v], m->seg_hi[v]) > m->limit;
    }
    free(largest);
    return true;
}

bool iopddl_worker_init(iopddl_worker *w, const iopddl_model *m, const uint8_t *relevant,
                        const iopddl_groups *groups, int id, uint64_t seed, const uint32_t *start)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->id = id;
    w->relevant = relevant;
    w->arena = pp_arena_new(1 << 20);
    if (!w->arena)
        return false;
    uint32_t n = m->node_count;
    pp_rng_seed(&w->rng, seed, (uint64_t)id + 1);
    w->weight = pp_arena_calloc(w->arena, n + 1, sizeof(double));
    w->best_weight = pp_arena_calloc(w->arena, n + 1, sizeof(double));
    w->weight_cap = pp_arena_calloc(w->arena, n + 1, sizeof(double));
    w->x = pp_arena_alloc(w->arena, ((size_t)n + 1) * sizeof(uint32_t));
    w->trial = pp_arena_alloc(w->arena, ((size_t)n + 1) * sizeof(uint32_t));
    w->best = pp_arena_alloc(w->arena, ((size_t)n + 1) * sizeof(uint32_t));
    w->decoded = pp_arena_alloc(w->arena, ((size_t)n + 1) * sizeof(uint32_t));
    w->forest = iopddl_forest_new(m, w->arena);
    w->trws = iopddl_trws_new(m, w->arena);
    w->groups = groups;
    w->polish = iopddl_polish_new(m, w->arena);
    w->repair = iopddl_repair_new(m, w->arena);
    if (!w->weight || !w->best_weight || !w->weight_cap || !w->x || !w->trial || !w->best || !w->decoded || !w->forest || !w->trws || !w->polish || !w->repair ||
        !iopddl_profile_init(&w->profile, m, w->arena))
        return false;
    memcpy(w->x, start, n * sizeof(uint32_t));
    memcpy(w->best, start, n * sizeof(uint32_t));
    w->best_cost = IOPDDL_NO_COST;
    w->shown_cost = INT64_MAX;
    w->scale = iopddl_usage_scale(m);
    /* A portfolio: few message passes per round suit instances where many
     * rounds pay (A, M: 6.57e9 and 5.00e10 with 3 vs 6.90e9 and 5.02e10 with
     * 10 at 45 s); more suit tight knapsack-like ones (S: 1.549e9 with 3 vs
     * 1.527e9 with 10 at 90 s). */
    w->trws_iterations = id % 2 == 0 ? 3 : 10;
    w->region_every = PROBE_FIRST;
    /* Workers start on a logarithmic ladder of uniform weights (paper 000:
     * 0.1, 1, 10, 100, ... of the typical cost per usage), from feasible
     * heavy weights down, with a small per-node jitter for diversity. */
    double start_weight = w->scale * pow(10.0, 2.0 - (double)(id % 5));
    for (uint32_t v = 0; v < n; v++) {
        int64_t spread = 1;
        for (uint32_t k = m->dom_start[v]; k < m->dom_start[v + 1]; k++)
            spread = m->usage[k] - m->usage_min[v] > spread ? m->usage[k] - m->usage_min[v] : spread;
        w->weight_cap[v] = IOPDDL_PENALTY_CAP / (double)spread;
        w->weight[v] = relevant[v] ? start_weight * (0.9 + 0.2 * pp_rng_unit(&w->rng)) : 0;
        w->weight[v] = fmin(w->weight[v], w->weight_cap[v]);
    }
    return true;
}

void iopddl_worker_free(iopddl_worker *w) { pp_arena_free(w->arena); }

/* Raises the weight of every node live where x overflows the limit, by a
 * random factor, times how many limits its fullest segment holds: on wide
 * instances (16-28 strategies a node) the usage scale misjudges the weights
 * by orders of magnitude, and the relaxed answer sits at 3-7 times the
 * limit, out of repair's reach, for 10-18 rounds of 2-5 CPU s at 1.5x a
 * round (DESIGN.md). Near the limit the factor is about 1. */
static void raise_weights(iopddl_worker *w)
{
    const iopddl_model *m = w->m;
    double floor_weight = w->scale * 1e-3;
    for (uint32_t v = 0; v < m->node_count; v++) {
        if (!w->relevant[v])
            continue;
        pp_int128 top = iopddl_profile_max(&w->profile, m->seg_lo[v], m->seg_hi[v]);
        if (top > m->limit) {
            double over = fmin((double)top / (double)m->limit, OVERFLOW_GROW_MAX);
            double grow = (1.2 + 0.6 * pp_rng_unit(&w->rng)) * (over >= OVERFLOW_FAR ? sqrt(over) : 1);
            w->weight[v] = fmin(fmax(w->weight[v] * grow, floor_weight), w->weight_cap[v]);
        }
    }
}

static void lower_weights(iopddl_worker *w)
{
    double keep = 0.7 + 0.2 * pp_rng_unit(&w->rng);
    for (uint32_t v = 0; v < w->m->node_count; v++)
        w->weight[v] *= keep;
}

bool iopddl_worker_offer(iopddl_worker *w, const uint32_t *x, int64_t max_repairs, double now,
                      const pp_deadline *deadline)
{
    const iopddl_model *m = w->m;
    memcpy(w->trial, x, m->node_count * sizeof(uint32_t));
    iopddl_profile_load(&w->profile, m, w->trial);
    if (!iopddl_repair_run(w->repair, w->trial, &w->profile, max_repairs, deadline))
        return false;
    iopddl_polish_run(w->polish, w->trial, &w->profile, deadline);
    iopddl_cost cost = iopddl_model_cost(m, w->trial);
    if (cost < w->best_cost) {
        w->best_cost = cost;
        __atomic_store_n(&w->shown_cost, iopddl_cost_shown(cost), __ATOMIC_RELAXED);
        memcpy(w->best, w->trial, m->node_count * sizeof(uint32_t));
        memcpy(w->best_weight, w->weight, m->node_count * sizeof(double));
        w->best_round = w->rounds;
        w->time_best = now;
        if (w->time_first_feasible <= 0 && iopddl_model_forbidden_free(m, w->trial))
            w->time_first_feasible = now;
    }
    return true;
}

/* After a long stretch without a better answer, go back to the best one and
 * the weights that found it, each shaken by a random factor in [1/2, 2]. */
static void restart_from_best(iopddl_worker *w)
{
    const iopddl_model *m = w->m;
    memcpy(w->x, w->best, m->node_count * sizeof(uint32_t));
    for (uint32_t v = 0; v < m->node_count; v++)
        w->weight[v] = fmin(w->best_weight[v] * exp2(2 * pp_rng_unit(&w->rng) - 1), w->weight_cap[v]);
    w->last_restart = w->rounds;
    w->far = false;
}

/* One region of the neighbourhood search around best, its MIP given at
 * most `seconds`; a cheaper answer becomes best (it is feasible: lns.c
 * keeps only those). True when it gained. */
static bool region_on_best(iopddl_worker *w, double seconds, const pp_deadline *deadline, double started)
{
    seconds = fmin(seconds, iopddl_lns_seconds(w->lns, deadline));
    if (seconds < 0.5 || w->best_cost == IOPDDL_NO_COST)
        return false;
    w->regions++;
    w->last_region = w->rounds;
    iopddl_lns_reset(w->lns, w->best, w->best_cost);
    if (!iopddl_lns_round(w->lns, seconds))
        return false;
    memcpy(w->best, w->lns->best, w->m->node_count * sizeof(uint32_t));
    w->best_cost = w->lns->best_cost;
    __atomic_store_n(&w->shown_cost, iopddl_cost_shown(w->best_cost), __ATOMIC_RELAXED);
    w->best_round = w->rounds;
    w->time_best = pp_now() - started;
    w->region_gains++;
    return true;
}

/* Why probe at all: where the pairwise part is full of cycles (C), the
 * relaxation crawls through small gains, never stalls for STALL_ROUNDS,
 * and a region MIP would take the answer 10% further in a second; where
 * regions gain nothing (A, L, M, S), the doubling gap keeps their cost to
 * a few percent of the rounds. A gain moves the relaxation to the new
 * best, so it goes on from there. */
static void probe_region(iopddl_worker *w, const pp_deadline *deadline, double started)
{
    double seconds = fmax(PROBE_ROUNDS * w->round_seconds / (double)w->rounds, 1.0);
    if (w->probe_seconds + seconds + w->lns->overhead > PROBE_SHARE * w->round_seconds)
        return;
    double start = pp_now();
    if (region_on_best(w, seconds, deadline, started)) {
        memcpy(w->x, w->best, w->m->node_count * sizeof(uint32_t));
        w->region_every = w->region_every / 2 > PROBE_FIRST / 2 ? w->region_every / 2 : PROBE_FIRST / 2;
        return;
    }
    w->probe_seconds += pp_now() - start;
    if (w->region_every < PROBE_MAX)
        w->region_every *= 2;
}

/* Why more passes after a far round: on the wide proxy a far relaxed
 * answer (3-7 limits over) stays far for 2-5 rounds while its weights grow
 * 25-fold, and it stays as long whether they grow by the overflow's root
 * or by all of it (seed 2: fits first at round 7 either way). What moves
 * it is the decoded candidate: with warm messages and 3 passes a round it
 * needs about 6 rounds; with 10 passes after each far round, one worker
 * fitted at round 4 instead of 7 on seed 2 and got to 4.19e9 by round 16
 * instead of 28 on seed 1 (DESIGN.md). */
int iopddl_worker_trws_iterations(const iopddl_worker *w)
{
    return w->far && w->trws_iterations < FAR_TRWS_ITERATIONS ? FAR_TRWS_ITERATIONS : w->trws_iterations;
}

void iopddl_worker_round(iopddl_worker *w, const pp_deadline *deadline, double started)
{
    const iopddl_model *m = w->m;
    int64_t since = w->rounds - (w->best_round > w->last_restart ? w->best_round : w->last_restart);
    if (w->rounds > 0 && since >= STALL_ROUNDS) {
        if (w->lns)
            region_on_best(w, INFINITY, deadline, started);
        restart_from_best(w);
    } else if (w->lns && w->rounds - w->last_region >= w->region_every) {
        probe_region(w, deadline, started);
    }
    double round_start = pp_now();
    /* Two candidates for the relaxed answer: descent from the last one, and
     * TRW-S's (warm messages) refined by descent. The cheaper one goes on. */
    double kept = iopddl_forest_descend(w->forest, w->x, w->weight, &w->rng, 60, 3, deadline);
    memcpy(w->decoded, w->x, m->node_count * sizeof(uint32_t));
    iopddl_trws_run(w->trws, w->weight, iopddl_worker_trws_iterations(w), w->decoded, deadline);
    double fresh = iopddl_forest_descend(w->forest, w->decoded, w->weight, &w->rng, 60, 3, deadline);
    if (pp_deadline_passed(deadline) && w->rounds > 0)
        return;
    if (fresh < kept)
        memcpy(w->x, w->decoded, m->node_count * sizeof(uint32_t));
    if (w->groups && iopddl_groups_descend(w->groups, w->x, w->weight, deadline) > 0)
        iopddl_forest_descend(w->forest, w->x, w->weight, &w->rng, 60, 3, deadline);
    w->rounds++;
    w->round_seconds += pp_now() - round_start;
    bool fits = iopddl_profile_fits(&w->profile, m, w->x);
    w->far = !fits && (double)iopddl_profile_peak(&w->profile) >= OVERFLOW_FAR * (double)m->limit;
    if (fits) {
        iopddl_worker_offer(w, w->x, 0, pp_now() - started, deadline);
        lower_weights(w);
    } else {
        raise_weights(w);
        iopddl_worker_offer(w, w->x, REPAIR_CHANGES, pp_now() - started, deadline);
    }
}
