/* bound.h: the certified lower bound (bound.c) and the problem it prices
 * (bound_model.c). */
#ifndef PP_IOPDDL_BOUND_H
#define PP_IOPDDL_BOUND_H

#include "iopddl/solver.h"

/* The presolved model (reduced.h). */
typedef struct iopddl_reduced iopddl_reduced;

/* A pairwise model whose costs the bound rewrites at each step (model.unary,
 * from `cost` plus each strategy's penalty; model.usage is zero), and per
 * node v its pieces piece_start[v] .. piece_start[v+1]-1: piece p spans the
 * segments [piece_lo[p], piece_hi[p]) and uses piece_usage[piece_usage_start[p]
 * + k] there with v at its k-th strategy. The least cost of the model plus
 * the usage rows' Lagrangian is below every feasible answer's cost. */
typedef struct {
    iopddl_model model;
    int64_t *cost;
    uint32_t *piece_start, *piece_lo, *piece_hi;
    uint64_t *piece_usage_start;
    double *piece_usage;
    uint32_t segment_count;
    bool has_limit;
    int64_t limit;
    uint32_t free_nodes; /* nodes with a choice (reduced) */
    /* Reduced: each node's representative and each strategy the
     * representative's (to expand an answer, reduced.h); NULL when plain. */
    uint32_t *rep, *rep_strategy;
} iopddl_bound_model;

/* The solver's model as it is, each node one piece. False when out of memory. */
bool iopddl_bound_model_plain(iopddl_bound_model *b, const iopddl_model *m, pp_arena *arena);
/* The model as presolved into c (iopddl_presolve_model; bound_model.c says
 * why it is a relaxation). Reads c (and its scratch); false when out of
 * memory (the caller falls back to the plain model). */
bool iopddl_bound_model_reduced(iopddl_bound_model *b, iopddl_reduced *c, pp_arena *arena);

/* An answer the bound decoded, expanded to the model's nodes, repaired and
 * polished (x: node_count entries, read during the call only); it keeps
 * the limit and costs `cost` (iopddl_model_cost). */
typedef void iopddl_bound_answer(void *ctx, const uint32_t *x, iopddl_cost cost);

/* A bound below the cost of every assignment that uses no forbidden cost
 * and keeps the usage limit; -INFINITY if out of memory. On the model as
 * `presolved` (iopddl_presolve_model; NULL, or should that model not be
 * built, the plain one),
 * TRW-S runs at no limit until its bound stalls (with `steps`: only until
 * it slows, to warm its messages), then up to `steps` subgradient steps on
 * the multipliers of the usage rows (bound.c), all within `seconds` of the
 * calling thread's CPU time once its model is built (and never past
 * deadline). `upper`, when finite, is the cost of a known answer: the
 * steps aim at it (it only steers them; any value keeps the bound valid).
 * on_built (NULL: none) is called with ctx once the bound's model is
 * built, whether the build succeeded or not; from then on `presolved` is
 * only read again with on_answer (no scratch written, so others may read it
 * too), and not at all without; m is read to the end. on_answer (NULL:
 * none) gets, on the presolved model after the steps, each answer decoded
 * along the ray of the best multipliers that can be made to fit and is
 * cheaper than the ones before it (bound.c, offer_ray). */
double iopddl_bound(const iopddl_model *m, iopddl_reduced *presolved, double upper, int steps, double seconds,
                    const pp_deadline *deadline, void (*on_built)(void *ctx), iopddl_bound_answer *on_answer,
                    void *ctx);

/* The bound's last stage (bound_peak.c): b's model priced at multipliers
 * lambda (model.unary as bound.c's set_penalties leaves it, `constant`
 * what it returned), t's messages from a forward pass on those costs.
 * Keeps the usage rows of the segments with the largest multipliers
 * whole (their multipliers taken back out) over the nodes whose usage
 * varies there, and hands that part to CBC (one thread, `seconds` of wall
 * time, never past deadline); the rest stays TRW-S's split. Returns
 * CBC's best bound plus the rest: below every feasible answer's cost,
 * whatever lambda and the messages (-INFINITY when it has none). */
double iopddl_bound_peak(const iopddl_bound_model *b, iopddl_trws *t, const double *lambda, double constant,
                         double seconds, const pp_deadline *deadline);

/* The bound at the multipliers `lambda` (one per segment of the model
 * bound_model.c builds from m, or from `presolved`): the Lagrangian of
 * TRW-S after `iterations` (multipliers taken as zero where there is no
 * limit), then, with keep_peak, the larger of it and
 * iopddl_bound_peak's within `seconds`; -INFINITY when out of memory or
 * when lambda's length is not the model's segment count. */
double iopddl_bound_at(const iopddl_model *m, iopddl_reduced *presolved, const double *lambda, uint32_t segments,
                       int iterations, bool keep_peak, double seconds);

/* trws.c's split of its last forward pass's bound, for bound_peak.c:
 * whether v is a folded leaf; the leaves' least costs summed; a leaf's
 * least cost with its neighbour at each strategy (into out); a node's
 * belief (into out), returning its own share, its pairs' in *gamma; the
 * message into v along pair q; a table entry as the messages read it. */
bool iopddl_trws_is_leaf(const iopddl_trws *t, uint32_t v);
double iopddl_trws_leaf_shed(const iopddl_trws *t);
void iopddl_trws_leaf_message(iopddl_trws *t, uint32_t v, double *out);
double iopddl_trws_belief(iopddl_trws *t, uint32_t v, double *out, double *gamma);
const double *iopddl_trws_message(iopddl_trws *t, uint32_t q, uint32_t v);
double iopddl_trws_entry(int64_t cost);

#endif
