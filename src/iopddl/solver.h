/* solver.h: the IOPDDL solver's internal pieces, in pipeline order:
 * model (problem -> merged graph and time segments), profile (usage over
 * time, with "does this change overflow" queries), forest (the relaxed
 * problem's solver), polish (feasible local moves), relax (one worker's
 * adaptive-weight loop), and solve.c tying them to threads. */
#ifndef PP_IOPDDL_SOLVER_H
#define PP_IOPDDL_SOLVER_H

#include "core/core_internal.h"
#include "iopddl/cost.h"

/* Costs as the search sees them: forbidden entries keep their value, which
 * dwarfs every real cost, so no search step ever prefers one, and among
 * forbidden entries the cheaper still compares as cheaper (cost.h). */
typedef struct {
    uint32_t node_count;       /* the problem's nodes, then one per edge over 3+ nodes */
    uint32_t problem_nodes;
    uint32_t *dom_start;       /* node i's strategies: dom_start[i] .. dom_start[i+1]-1 */
    int64_t *unary;            /* node costs plus folded one-node edges, saturated at INT64_MAX */
    int64_t *usage;            /* zero for auxiliary nodes */
    int64_t *usage_min;        /* per node */

    /* Pairwise edges, duplicates merged, a < b; table[sa * d_b + sb]. */
    uint32_t pair_count;
    uint32_t *pair_a, *pair_b;
    uint64_t *pair_start;
    int64_t *pair_cost;

    /* Incidence: node v's pairs are adj_pair[adj_start[v] .. adj_start[v+1]-1]. */
    uint32_t *adj_start, *adj_pair;

    /* Time, compressed to segments between distinct interval ends; node i is
     * live in segments [seg_lo[i], seg_hi[i]). */
    uint32_t segment_count;
    uint32_t *seg_lo, *seg_hi;
    bool has_limit;
    int64_t limit;

    /* Cost per unit of usage the relaxation's weights start from; 0: worked
     * out from the model (iopddl_usage_scale). */
    double usage_scale;

    pp_arena *arena;
} iopddl_model;

static inline uint32_t iopddl_domain(const iopddl_model *m, uint32_t v) { return m->dom_start[v + 1] - m->dom_start[v]; }

/* The most strategies any node has (at least 1): the size of per-node scratch. */
static inline uint32_t iopddl_widest_domain(const iopddl_model *m)
{
    uint32_t widest = 1;
    for (uint32_t v = 0; v < m->node_count; v++)
        widest = iopddl_domain(m, v) > widest ? iopddl_domain(m, v) : widest;
    return widest;
}

pp_status iopddl_model_build(const pp_iopddl_problem *p, iopddl_model **out, pp_error *err);
/* The same, given up (PP_INFEASIBLE: no answer within the time limit) once
 * `deadline` (NULL: none) has passed: copying the pair tables of a 1 GB
 * problem takes seconds. */
pp_status iopddl_model_build_until(const pp_iopddl_problem *p, const pp_deadline *deadline, iopddl_model **out,
                                   pp_error *err);
void iopddl_model_free(iopddl_model *m);

/* x with only the nodes where is_free is set left to choose (restrict.c):
 * the others hold x's strategy as their only one. Shares m's graph and
 * segments, so m must outlive it; free it with iopddl_model_free. NULL when out
 * of memory. unrestrict copies a restricted answer's free nodes into x. */
iopddl_model *iopddl_model_restrict(const iopddl_model *m, const uint8_t *is_free, const uint32_t *x);
void iopddl_model_unrestrict(const iopddl_model *m, const uint8_t *is_free, const uint32_t *restricted,
                          uint32_t *x);

/* Time cut at every end of p's live intervals ([start, end), start < end):
 * node i is live in segments [seg_lo[i], seg_hi[i]) (0, 0 when never);
 * returns how many segments. times: scratch of 2 * node_count + 1. */
uint32_t iopddl_time_segments(const pp_iopddl_problem *p, int64_t *times, uint32_t *seg_lo, uint32_t *seg_hi);

/* Exact objective of an assignment (128-bit sums). */
iopddl_cost iopddl_model_cost(const iopddl_model *m, const uint32_t *x);
/* True when no term of x's objective is a forbidden entry. */
bool iopddl_model_forbidden_free(const iopddl_model *m, const uint32_t *x);

/* out[s] = node v's terms with v at strategy s and the others as in x: its
 * node cost and every edge it touches. Exact 128-bit sums: a choice
 * with fewer forbidden terms always compares as cheaper, and comparing two
 * entries never suffers rounding, so greedy moves cannot cycle. */
void iopddl_node_costs(const iopddl_model *m, const uint32_t *x, uint32_t v, pp_int128 *out);

/* The usage penalty of a node never outweighs a forbidden cost: weights are
 * capped so that weight * (largest - least usage) stays below this. */
#define IOPDDL_PENALTY_CAP 1e13

/* Sets each auxiliary node to the row of its edge that agrees with x's
 * strategies for the edge's nodes. */
void iopddl_model_sync_auxiliary(const iopddl_model *m, uint32_t *x);

/* Cost of one hyperedge with v at s and the other nodes as in x. */
int64_t iopddl_hyper_cost(const iopddl_model *m, const uint32_t *x, uint32_t edge, uint32_t v, uint32_t s);

/* Usage over time segments, with range add and range max in O(log T). */
typedef struct {
    uint32_t size;       /* leaves, a power of two >= segment_count */
    pp_int128 *max, *add; /* 2 * size entries: exact sums (cost.h) */
} iopddl_profile;

bool iopddl_profile_init(iopddl_profile *pr, const iopddl_model *m, pp_arena *arena);
void iopddl_profile_load(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x);
void iopddl_profile_add(iopddl_profile *pr, uint32_t lo, uint32_t hi, int64_t delta);
pp_int128 iopddl_profile_max(const iopddl_profile *pr, uint32_t lo, uint32_t hi);
static inline pp_int128 iopddl_profile_peak(const iopddl_profile *pr) { return pr->max[1]; }
/* Loads x's profile into pr; true when it stays within the limit. */
bool iopddl_profile_fits(iopddl_profile *pr, const iopddl_model *m, const uint32_t *x);

/* Solves the relaxed problem "unary + penalty, edges" by descent over
 * induced forests, each solved exactly by dynamic programming, starting from
 * x and never making it worse. penalty[v] multiplies usage - usage_min. */
typedef struct iopddl_forest iopddl_forest;
iopddl_forest *iopddl_forest_new(const iopddl_model *m, pp_arena *arena);
/* Runs up to max_passes forest passes; stops early after `patience` passes
 * without improvement. Returns the relaxed cost of x afterwards. */
double iopddl_forest_descend(iopddl_forest *f, uint32_t *x, const double *penalty, pp_rng *rng,
                          int max_passes, int patience, const pp_deadline *deadline);
double iopddl_relaxed_cost(const iopddl_model *m, const uint32_t *x, const double *penalty);

/* Tied groups (groups.c): nodes joined by pairs that map their strategies
 * one to one, each group moved as one by a descent on the relaxed problem
 * (penalty as for the forest). Returns the relaxed cost saved. */
typedef struct iopddl_groups iopddl_groups;
iopddl_groups *iopddl_groups_new(const iopddl_model *m, pp_arena *arena);
double iopddl_groups_descend(const iopddl_groups *g, uint32_t *x, const double *penalty, const pp_deadline *deadline);

/* TRW-S message passing on the pairwise part of the relaxed problem. Each
 * iteration is a forward and a backward pass; the last forward pass decodes
 * an answer into x. Messages persist between runs (warm start). */
typedef struct iopddl_trws iopddl_trws;
iopddl_trws *iopddl_trws_new(const iopddl_model *m, pp_arena *arena);
void iopddl_trws_run(iopddl_trws *t, const double *penalty, int iterations, uint32_t *x,
                  const pp_deadline *deadline);
/* From now on each forward pass also keeps the dual bound (a pass over
 * every pair table first, for the rounding allowance); false when out of
 * memory. iopddl_trws_bound: a lower bound on the relaxed cost of every
 * assignment (penalties as in the last run), rounding allowed for;
 * -INFINITY before the first forward pass that kept it. */
bool iopddl_trws_keep_bound(iopddl_trws *t, pp_arena *arena);
double iopddl_trws_bound(const iopddl_trws *t);

/* Greedy feasible improvement: single-node changes that lower the exact cost
 * and keep every segment within the limit. pr must hold x's profile. */
typedef struct iopddl_polish iopddl_polish;
iopddl_polish *iopddl_polish_new(const iopddl_model *m, pp_arena *arena);
void iopddl_polish_run(iopddl_polish *pl, uint32_t *x, iopddl_profile *pr, const pp_deadline *deadline);

/* Makes x fit the limit by changes that free usage at the fullest segment,
 * cheapest per unit freed first. pr must hold x's profile. False when it
 * cannot (or max_changes cannot free enough, or the deadline runs out);
 * x may then be changed, and is still over the limit. */
typedef struct iopddl_repair iopddl_repair;
iopddl_repair *iopddl_repair_new(const iopddl_model *m, pp_arena *arena);
bool iopddl_repair_run(iopddl_repair *rp, uint32_t *x, iopddl_profile *pr, int64_t max_changes,
                    const pp_deadline *deadline);

/* Least-usage assignment, ties broken by unary cost. */
void iopddl_min_usage_assignment(const iopddl_model *m, uint32_t *x);

#endif
