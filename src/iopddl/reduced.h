/* reduced.h: the exact solver's working copy of an IOPDDL model, which the
 * presolve shrinks while keeping an optimal answer: nodes merged into
 * representatives, strategies removed, pair tables over representatives,
 * and the record of steps that carries a warm start in and an answer out.
 * The state and its operations are owned by reduced.c, the reductions by
 * presolve.c; exact.c and exact_mip.c read it. */
#ifndef PP_IOPDDL_REDUCED_H
#define PP_IOPDDL_REDUCED_H

#include <limits.h>
#include "core/grow.h"
#include "iopddl/exact.h"

#define FORBID PP_IOPDDL_FORBIDDEN
#define NONE UINT32_MAX

enum { ST_MEMBER, ST_FREE, ST_FIXED, ST_ELIM };
enum { STEP_MERGE, STEP_DOMINATE };

typedef struct {
    uint32_t *ids;
    size_t len;
    int cap;
} idlist;

/* A pair table between two representatives over their full domains. */
typedef struct {
    uint32_t a, b;
    int64_t *cost; /* [sa * dom(b) + sb] */
    bool dead;
} xpair;

/* MERGE: node `node` merged into `to`. DOMINATE: strategy `from` of `node`
 * removed because `to` is never worse. Replayed in order on a warm start. */
typedef struct {
    uint8_t kind;
    uint32_t node, from, to;
} xstep;

/* An eliminated node: its best strategy per strategy of n1 (and n2). */
typedef struct {
    uint32_t node, n1, n2;
    uint32_t *choice; /* [s1] or [s1 * dom(n2) + s2] */
} xelim;

typedef struct {
    uint32_t at, node;
    int sign;
} xevent;

typedef struct iopddl_reduced {
    const iopddl_model *m;
    uint32_t n, segments;
    pp_arena *arena;

    /* Every node belongs to one representative; rep's members are linked
     * rep -> next_member -> ...; map[v][s] is v's strategy when its
     * representative plays s (over the representative's full domain). */
    uint32_t *rep, **map, *next_member, *last_member;
    uint8_t *state;
    int64_t *unary;   /* per strategy index, meaningful for representatives */
    uint8_t *alive;   /* per strategy index */
    uint32_t *alive_count;
    bool *relevant;   /* usage can matter: varies on some constrained segment */

    xpair *pairs;
    size_t pair_count;
    int pair_cap;
    idlist *adj;

    xstep *steps;
    size_t step_count;
    int step_cap;
    xelim *elims;
    size_t elim_count;
    int elim_cap;

    /* Latest usage scan: sums of least and greatest usage per segment. */
    pp_int128 *smin, *smax;
    bool *constrained;
    uint32_t *constrained_prefix;

    /* Pieces of one representative (see rep_pieces). */
    uint32_t *pc_lo, *pc_hi;
    pp_int128 *pc_vec;
    size_t pc_count;
    int pc_cap, pc_hi_cap, vec_cap;
    xevent *events;
    int event_cap;
    uint32_t max_domain;
    int64_t *tmp_a, *tmp_b;
    uint32_t *tmp_f;

    bool infeasible, oom;
    /* The presolve is abandoned once `deadline` (NULL: none) has passed:
     * `stopped` says so; `ticks` spaces its looks at the clock. */
    const pp_deadline *deadline;
    unsigned ticks;
    bool stopped;
    unsigned off; /* IOPDDL_EXACT_NO_* */
    iopddl_exact_stats *st;
} iopddl_reduced;

static inline uint32_t dom(const iopddl_reduced *c, uint32_t v) { return iopddl_domain(c->m, v); }
static inline uint32_t base(const iopddl_reduced *c, uint32_t v) { return c->m->dom_start[v]; }

/* The presolve's sums: at FORBID or more an entry is left out, whatever its
 * amount, so sums stop there (the presolved problem hands FORBID on as the
 * mark of a forbidden entry; answers are priced by the model, cost.h). */
static inline int64_t sat(int64_t a, int64_t b)
{
    int64_t s = iopddl_saturating_add(a, b);
    return s >= FORBID ? FORBID : s;
}

static inline uint32_t other(const xpair *q, uint32_t r) { return q->a == r ? q->b : q->a; }

static inline int64_t *cell(const iopddl_reduced *c, const xpair *q, uint32_t r, uint32_t sr, uint32_t so)
{
    uint32_t db = dom(c, q->b);
    return q->a == r ? &q->cost[(size_t)sr * db + so] : &q->cost[(size_t)so * db + sr];
}

/* pp_grow for arrays counted in size_t (false past INT_MAX elements). */
static inline bool iopddl_grow(void **array, int *cap, size_t need, size_t size)
{
    return need <= INT_MAX && pp_grow(array, cap, (int)need, size);
}

/* The model as it is read (every node its own representative, all
 * strategies alive); false when out of memory or when `deadline` (NULL:
 * none; kept as c->deadline) passes while the tables are copied (free it
 * either way). */
bool iopddl_reduced_init_until(iopddl_reduced *c, const iopddl_model *m, const pp_deadline *deadline,
                               iopddl_exact_stats *st);
static inline bool iopddl_reduced_init(iopddl_reduced *c, const iopddl_model *m, iopddl_exact_stats *st)
{
    return iopddl_reduced_init_until(c, m, NULL, st);
}
void iopddl_reduced_free(iopddl_reduced *c);

/* Removes strategy s of representative r (infeasible when none is left). */
void iopddl_reduced_drop(iopddl_reduced *c, uint32_t r, uint32_t s);
/* A new pair table between representatives a and b; NONE when out of memory. */
uint32_t iopddl_reduced_add_pair(iopddl_reduced *c, uint32_t a, uint32_t b, int64_t *cost);
/* Drops dead pairs from r's list and returns its live length. */
size_t iopddl_reduced_live_pairs(iopddl_reduced *c, uint32_t r);
/* The live pair between a and w, or NONE. */
uint32_t iopddl_reduced_find_pair(iopddl_reduced *c, uint32_t a, uint32_t w);
/* Records a step (STEP_*) for the warm start's replay. */
bool iopddl_reduced_log(iopddl_reduced *c, uint8_t kind, uint32_t node, uint32_t from, uint32_t to);
/* Representative r's pieces into c->pc_* (see reduced.c). */
bool iopddl_reduced_pieces(iopddl_reduced *c, uint32_t r);
/* The least and greatest of vec over r's alive strategies (0 when none). */
void iopddl_reduced_range(const iopddl_reduced *c, uint32_t r, const pp_int128 *vec, pp_int128 *lo, pp_int128 *hi);
/* r's first alive strategy (0 when none). */
uint32_t iopddl_reduced_first_alive(const iopddl_reduced *c, uint32_t r);

/* A full assignment carried onto the representatives; false when it uses
 * a strategy the presolve removed. */
bool iopddl_reduced_warm(const iopddl_reduced *c, const uint32_t *warm, uint32_t *sr);
/* A strategy per free representative back to one per node. */
void iopddl_reduced_expand(const iopddl_reduced *c, uint32_t *sr, uint32_t *x);
/* The cost the fixed representatives pay whatever the MIP chooses. */
pp_int128 iopddl_reduced_fixed_cost(const iopddl_reduced *c);

/* Whether c's deadline has passed (sets c->stopped). The passes call it
 * once per node or pair: it reads the clock every 16th call. */
bool iopddl_reduced_out_of_time(iopddl_reduced *c);

/* Shrinks c (presolve.c); false when out of memory or stopped by
 * c->deadline. c->infeasible says when no answer can be feasible. */
bool iopddl_presolve(iopddl_reduced *c);
/* m presolved into c: iopddl_reduced_init, then iopddl_presolve. False when
 * out of memory, when no answer is feasible, or when `deadline` (NULL:
 * none) passes first (abandoned within a few milliseconds of work: on a
 * model of 1e8 pair-table entries the presolve takes seconds); c is to be
 * freed either way, and st must outlive it. The presolve the bound
 * (bound_model.c) and the presolved search (presolved.c) share. */
bool iopddl_presolve_model(iopddl_reduced *c, const iopddl_model *m, const pp_deadline *deadline,
                           iopddl_exact_stats *st);

#endif
