/* lns.h: large-neighbourhood search over exact regions (lns.c). */
#ifndef PP_IOPDDL_LNS_H
#define PP_IOPDDL_LNS_H

#include "iopddl/solver.h"

typedef struct {
    const iop_model *m;
    int threads;          /* regions solved side by side per round */
    pp_rng rng;
    uint32_t region;      /* nodes freed per region, adapted each round */
    uint32_t *best;       /* feasible; only ever replaced by a cheaper feasible answer */
    int64_t best_cost;
    uint32_t *trial;
    iop_profile profile;
    void *jobs;           /* lns.c's per-thread scratch */
    int64_t rounds;
    double overhead;      /* the longest wall time a region took outside CBC's search */
    bool proven_optimal;  /* a region held the whole model and its MIP proved best optimal */
    pp_arena *arena;
} iop_lns;

/* start must be feasible, start_cost its exact cost. */
bool iop_lns_init(iop_lns *s, const iop_model *m, int threads, uint64_t seed, const uint32_t *start,
                  int64_t start_cost);
void iop_lns_free(iop_lns *s);

/* One round: `threads` regions, each MIP given `seconds`. True if best got
 * cheaper. */
bool iop_lns_round(iop_lns *s, double seconds);

/* Goes on from start (feasible, start_cost its exact cost) instead of best;
 * the region size learnt so far stays. */
void iop_lns_reset(iop_lns *s, const uint32_t *start, int64_t start_cost);

/* A region MIP's limit with this deadline (none: the largest), leaving
 * room for the slowest region build seen; below half a second, not worth a
 * round. */
double iop_lns_seconds(const iop_lns *s, const pp_deadline *deadline);

#endif
