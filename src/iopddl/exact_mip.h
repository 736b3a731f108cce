/* exact_mip.h: the exact solver's MIP over the reduced model (owned by
 * exact_mip.c): binary x per strategy of a free representative, continuous
 * y per pair entry with the local-polytope marginal rows, one usage row per
 * segment that can overflow and is not implied by a neighbouring segment. */
#ifndef PP_IOPDDL_EXACT_MIP_H
#define PP_IOPDDL_EXACT_MIP_H

#include "core/lp.h"
#include "iopddl/reduced.h"

typedef struct {
    pp_lp lp;
    int *xcol; /* per strategy index: x column or -1 */
    /* What the objective leaves out: where a node's or a pair's costs pass
     * 2^53, its least, taken off every column of theirs (one x per node and
     * one y per pair is 1 in every answer). CBC works in doubles, and costs
     * of 9e17 +- 8 differ in their last bits: what remains is small and
     * exact. */
    pp_int128 shift;
    /* Every objective value and usage row sum the MIP can reach is below
     * 2^53 (cost.h), so CBC's doubles hold them exactly: only then does its
     * proof of optimality hold (its answers are checked in 128 bits anyway). */
    bool doubles_exact;
    pp_int128 reach; /* the objective's largest value */
} iopddl_exact_mip;

/* The sizes of the plain formulation into c->st, for comparison. */
void iopddl_exact_raw_size(iopddl_reduced *c);

/* Builds the MIP of c. PP_EARG past max_nonzeros, PP_ENOMEM; c->infeasible
 * when a usage row cannot be met. */
pp_status iopddl_exact_mip_build(iopddl_reduced *c, iopddl_exact_mip *p, uint64_t max_nonzeros, pp_error *err);
void iopddl_exact_mip_free(iopddl_exact_mip *p);

/* The strategy of every free representative in the column values x (the x
 * column above one half); false when some representative has none. */
bool iopddl_exact_mip_strategies(const iopddl_reduced *c, const iopddl_exact_mip *p, const double *x, uint32_t *sr);

#endif
