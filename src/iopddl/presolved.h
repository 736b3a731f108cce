/* presolved.h: the presolved problem (presolved.c): the exact stage's
 * presolve (presolve.c) run once on the whole model, written out as an
 * IOPDDL problem of its own that the solver can search, with the maps that
 * carry answers between it and the model. */
#ifndef PP_IOPDDL_PRESOLVED_H
#define PP_IOPDDL_PRESOLVED_H

#include "iopddl/solver.h"

typedef struct iopddl_reduced iopddl_reduced;

typedef struct iopddl_presolved iopddl_presolved;

/* The problem of a model presolved into c (iopddl_presolve_model, which is
 * not interruptible: C takes about a second); c stays the caller's and must
 * outlive the result, which uses its scratch. NULL when out of memory, when
 * the presolve leaves nothing to choose, when it leaves more than
 * max_free_share of the model's nodes free, or when the problem would hold
 * more than max_cells table entries. */
iopddl_presolved *iopddl_presolved_new(iopddl_reduced *c, double max_free_share, uint64_t max_cells);
void iopddl_presolved_free(iopddl_presolved *s);

/* The problem: one node per free representative (its alive strategies,
 * its unary cost; the pair tables between them), one per piece of a
 * representative whose usage varies where the limit can be exceeded (the
 * piece's distinct usages over its segments, decided by its
 * representative), and one per run of segments of the usage that no choice
 * changes there. An answer's cost is the model's cost of its expansion
 * less a constant (iopddl_presolved_constant), and it fits the limit
 * wherever the expansion can exceed it. */
const pp_iopddl_problem *iopddl_presolved_problem(const iopddl_presolved *s);
int64_t iopddl_presolved_constant(const iopddl_presolved *s);

/* x (an answer of m) carried into the problem; false when x uses a
 * strategy the presolve removed (it then is no feasible answer). */
bool iopddl_presolved_enter(iopddl_presolved *s, const uint32_t *x, uint32_t *answer);
/* The problem's answer carried out to every node of m (x: node_count). */
void iopddl_presolved_expand(iopddl_presolved *s, const uint32_t *answer, uint32_t *x);

#endif
