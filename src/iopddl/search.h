/* search.h: the relaxation workers, then the neighbourhood search
 * (search.c). */
#ifndef PP_IOPDDL_SEARCH_H
#define PP_IOPDDL_SEARCH_H

#include <pthread.h>
#include "iopddl/relax.h"

/* Answers another thread hands the search while it runs (solve.c: those
 * the bound decodes, bound.c): the cheapest one yet, which each worker
 * takes at its next round (iopddl_worker_offer). */
typedef struct {
    pthread_mutex_t lock;
    uint32_t *x;        /* node_count entries */
    iopddl_cost cost;   /* IOPDDL_NO_COST: none yet */
    uint64_t version;   /* raised with each cheaper one (read atomically) */
} iopddl_handover;

/* False when out of memory (nothing to free then). */
bool iopddl_handover_init(iopddl_handover *h, const iopddl_model *m);
void iopddl_handover_free(iopddl_handover *h);
/* Keeps x, which keeps the limit and costs `cost`, when it is cheaper than
 * the one kept; any thread. */
void iopddl_handover_put(iopddl_handover *h, const iopddl_model *m, const uint32_t *x, iopddl_cost cost);

typedef struct {
    const iopddl_model *m;
    const uint8_t *relevant;   /* see iopddl_relevant_nodes */
    const iopddl_groups *groups;
    int threads;
    double started;            /* pp_now() at the start of the solve */
    /* Called about every 200 ms while workers run, with the best so far. */
    void (*on_progress)(void *ctx, double started, int64_t best, int64_t rounds);
    void *ctx;
    double lower_bound;        /* certified; an answer this cheap ends the search */
    /* NULL, or a certified bound another thread may raise while the search
     * runs (read with __atomic_load): reaching it ends the search too. */
    const double *rising_bound;
    /* NULL, or answers to take while the search runs; only without a round
     * budget, whose runs give the same answer every time. */
    iopddl_handover *handover;
    int64_t handovers_taken;   /* out: answers the workers took that were cheaper than theirs */
} iopddl_search;

/* Improves r (feasible on entry: strategies and cost) until the deadline or
 * max_rounds relaxation rounds per worker (<= 0: no round limit). */
pp_status iopddl_search_run(iopddl_search *s, uint64_t seed, int64_t max_rounds, const pp_deadline *deadline,
                         pp_iopddl_result *r, pp_error *err);

#endif
