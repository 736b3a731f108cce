/* lns.h: large-neighbourhood search over exact regions (lns.c). */
#ifndef PP_IOPDDL_LNS_H
#define PP_IOPDDL_LNS_H

#include "iopddl/solver.h"

typedef struct {
    const iopddl_model *m;
    int threads;          /* regions solved side by side per round */
    pp_rng rng;
    uint32_t region;      /* nodes freed per region, adapted each round */
    uint32_t *best;       /* feasible; only ever replaced by a cheaper feasible answer */
    iopddl_cost best_cost;
    uint32_t *trial;
    iopddl_profile profile;
    void *jobs;           /* lns.c's per-thread scratch */
    int64_t rounds;
    double overhead;      /* the longest wall time a region took outside CBC's search */
    bool proven_optimal;  /* a region held the whole model and its MIP proved best optimal */
    const pp_stop_flag *stop; /* the solve's flag, which the regions' MIPs answer; NULL: none */
    pp_arena *arena;
} iopddl_lns;

/* start must be feasible, start_cost its exact cost. */
bool iopddl_lns_init(iopddl_lns *s, const iopddl_model *m, int threads, uint64_t seed, const uint32_t *start,
                  iopddl_cost start_cost);
void iopddl_lns_free(iopddl_lns *s);

/* One round: `threads` regions, each MIP given `seconds`. True if best got
 * cheaper. */
bool iopddl_lns_round(iopddl_lns *s, double seconds);

/* Goes on from start (feasible, start_cost its exact cost) instead of best;
 * the region size learnt so far stays. */
void iopddl_lns_reset(iopddl_lns *s, const uint32_t *start, iopddl_cost start_cost);

/* A region MIP's limit with this deadline (none: the largest), leaving
 * room for the slowest region build seen; below half a second, not worth a
 * round. */
double iopddl_lns_seconds(const iopddl_lns *s, const pp_deadline *deadline);

#endif
