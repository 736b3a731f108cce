/* relax.h: one worker of the usage-constrained relaxation (relax.c). */
#ifndef PP_IOPDDL_RELAX_H
#define PP_IOPDDL_RELAX_H

#include "iopddl/solver.h"

typedef struct {
    const iop_model *m;
    int id;
    pp_rng rng;
    const uint8_t *relevant; /* node can be live where the limit can be exceeded */
    double scale;            /* typical cost per unit of usage */
    double *weight;          /* penalty per unit of usage above the node's least */
    uint32_t *x;             /* the relaxed problem's current answer */
    uint32_t *trial;         /* scratch: a feasible answer being polished */
    uint32_t *decoded;       /* scratch: TRW-S's answer, refined */
    uint32_t *best;
    int64_t best_cost;       /* INT64_MAX until a feasible answer is offered */
    double time_first_feasible, time_best;
    int64_t rounds;
    iop_forest *forest;
    iop_trws *trws;
    iop_polish *polish;
    iop_profile profile;
    pp_arena *arena;
} iop_worker;

/* Which nodes can be live in a segment that can overflow (weight matters). */
bool iop_relevant_nodes(const iop_model *m, pp_arena *arena, uint8_t *relevant);

bool iop_worker_init(iop_worker *w, const iop_model *m, const uint8_t *relevant, int id,
                     uint64_t seed, const uint32_t *start);
void iop_worker_free(iop_worker *w);

/* One round: solve the relaxed problem, then adapt the weights. */
void iop_worker_round(iop_worker *w, const pp_deadline *deadline, double started);

/* Polishes x if it fits and keeps it when best; false if it does not fit. */
bool iop_worker_offer(iop_worker *w, const uint32_t *x, double now);

#endif
