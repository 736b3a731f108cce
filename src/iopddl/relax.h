/* relax.h: one worker of the usage-constrained relaxation (relax.c). */
#ifndef PP_IOPDDL_RELAX_H
#define PP_IOPDDL_RELAX_H

#include "iopddl/lns.h"

typedef struct {
    const iopddl_model *m;
    int id;
    pp_rng rng;
    const uint8_t *relevant; /* node can be live where the limit can be exceeded */
    double scale;            /* typical cost per unit of usage */
    int trws_iterations;     /* message passes per round (more after a far one) */
    bool far;                /* the last relaxed answer was far over the limit (relax.c) */
    double *weight;          /* penalty per unit of usage above the node's least */
    double *best_weight;     /* the weights of the round that found best */
    double *weight_cap;      /* per node, see IOPDDL_PENALTY_CAP */
    int64_t best_round, last_restart;
    uint32_t *x;             /* the relaxed problem's current answer */
    uint32_t *trial;         /* scratch: a feasible answer being polished */
    uint32_t *decoded;       /* scratch: TRW-S's answer, refined */
    uint32_t *best;
    iopddl_cost best_cost;   /* IOPDDL_NO_COST until a feasible answer is offered */
    int64_t shown_cost;      /* best_cost clamped, read racily for progress reports */
    double time_first_feasible, time_best;
    int64_t rounds;
    int64_t regions, region_gains; /* regions tried, and those that paid */
    int64_t region_every, last_region; /* rounds between probing regions; the last one's round */
    double round_seconds;    /* wall time of the rounds so far, for a probe's limit */
    double probe_seconds;    /* wall time of the probes that gained nothing */
    bool finished;           /* its thread has returned (read by the progress loop) */
    iopddl_forest *forest;
    iopddl_trws *trws;
    const iopddl_groups *groups; /* tied groups, moved whole after each descent */
    iopddl_polish *polish;
    iopddl_repair *repair;
    iopddl_lns *lns;         /* NULL, or regions tried on best now and then and before each restart */
    iopddl_profile profile;
    pp_arena *arena;
} iopddl_worker;

/* Typical cost per unit of usage: m->usage_scale when set, else the median
 * over nodes of their cost spread over their usage spread (1 when no node
 * has both). */
double iopddl_usage_scale(const iopddl_model *m);

/* Which nodes can be live in a segment that can overflow (weight matters). */
bool iopddl_relevant_nodes(const iopddl_model *m, pp_arena *arena, uint8_t *relevant);

/* groups may be NULL (no group moves); it is shared, never written. */
bool iopddl_worker_init(iopddl_worker *w, const iopddl_model *m, const uint8_t *relevant,
                        const iopddl_groups *groups, int id, uint64_t seed, const uint32_t *start);
void iopddl_worker_free(iopddl_worker *w);

/* Message passes the next round gives TRW-S. */
int iopddl_worker_trws_iterations(const iopddl_worker *w);

/* One round: solve the relaxed problem, then adapt the weights. */
void iopddl_worker_round(iopddl_worker *w, const pp_deadline *deadline, double started);

/* Repairs x if it overflows (at most max_repairs changes), then polishes it
 * and keeps it when best; false if it could not be made to fit. */
bool iopddl_worker_offer(iopddl_worker *w, const uint32_t *x, int64_t max_repairs, double now,
                      const pp_deadline *deadline);

#endif
