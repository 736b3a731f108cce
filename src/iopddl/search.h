/* search.h: the relaxation workers, then the neighbourhood search
 * (search.c). */
#ifndef PP_IOPDDL_SEARCH_H
#define PP_IOPDDL_SEARCH_H

#include "iopddl/relax.h"

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
} iopddl_search;

/* Improves r (feasible on entry: strategies and cost) until the deadline or
 * max_rounds relaxation rounds per worker (<= 0: no round limit). */
pp_status iopddl_search_run(iopddl_search *s, uint64_t seed, int64_t max_rounds, const pp_deadline *deadline,
                         pp_iopddl_result *r, pp_error *err);

#endif
