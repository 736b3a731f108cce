/* exact.c: owns the exact solver for small IOPDDL instances. A presolve
 * shrinks the model while keeping an optimal answer (forbidden, unreachable
 * and over-the-limit strategies removed; nodes tied to a neighbour by an edge
 * that allows one strategy per row merged into it; dominated strategies
 * removed; nodes with one strategy folded away; usage-free nodes of degree
 * one or two eliminated by minimisation), then CBC solves a MIP over what is
 * left: binary x per strategy, continuous y per pair entry with the
 * local-polytope marginal rows, one usage row per segment that can overflow
 * and is not implied by a neighbouring segment. Steps are logged so that a
 * warm start can be carried into the reduced model and the answer back out. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/cbc.h"
#include "iopddl/exact.h"

#define FORBID PP_IOPDDL_FORBIDDEN
#define NONE UINT32_MAX
/* Degree-two elimination makes a table over the two neighbours: cap its size. */
#define ELIM2_MAX_CELLS 4096
#define MAX_ROUNDS 100

enum { ST_MEMBER, ST_FREE, ST_FIXED, ST_ELIM };
enum { STEP_MERGE, STEP_DOMINATE };

typedef struct {
    uint32_t *ids;
    size_t len, cap;
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

typedef struct {
    const iop_model *m;
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
    size_t pair_count, pair_cap;
    idlist *adj;

    xstep *steps;
    size_t step_count, step_cap;
    xelim *elims;
    size_t elim_count, elim_cap;

    /* Latest usage scan: sums of least and greatest usage per segment. */
    pp_int128 *smin, *smax;
    bool *constrained;
    uint32_t *constrained_prefix;

    /* Pieces of one representative (see rep_pieces). */
    uint32_t *pc_lo, *pc_hi;
    pp_int128 *pc_vec;
    size_t pc_count, pc_cap, pc_hi_cap, vec_cap;
    xevent *events;
    size_t event_cap;
    uint32_t max_domain;
    int64_t *tmp_a, *tmp_b;
    uint32_t *tmp_f;

    bool infeasible, oom;
    unsigned off; /* IOP_EXACT_NO_* */
    iop_exact_stats *st;
} xctx;

static inline uint32_t dom(const xctx *c, uint32_t v) { return iop_domain(c->m, v); }
static inline uint32_t base(const xctx *c, uint32_t v) { return c->m->dom_start[v]; }

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t next = *cap ? *cap : 16;
    while (next < need)
        next *= 2;
    void *q = realloc(*p, next * size);
    if (!q)
        return false;
    *p = q;
    *cap = next;
    return true;
}

static inline int64_t sat(int64_t a, int64_t b) { return iop_saturating_add(a, b); }

static inline uint32_t other(const xpair *q, uint32_t r) { return q->a == r ? q->b : q->a; }

static inline int64_t *cell(const xctx *c, const xpair *q, uint32_t r, uint32_t sr, uint32_t so)
{
    uint32_t db = dom(c, q->b);
    return q->a == r ? &q->cost[(size_t)sr * db + so] : &q->cost[(size_t)so * db + sr];
}

static void drop(xctx *c, uint32_t r, uint32_t s)
{
    uint32_t k = base(c, r) + s;
    if (!c->alive[k])
        return;
    c->alive[k] = 0;
    if (--c->alive_count[r] == 0)
        c->infeasible = true;
}

static bool adj_push(xctx *c, uint32_t r, uint32_t id)
{
    idlist *l = &c->adj[r];
    if (!grow((void **)&l->ids, &l->cap, l->len + 1, sizeof *l->ids)) {
        c->oom = true;
        return false;
    }
    l->ids[l->len++] = id;
    return true;
}

/* Drops dead pairs from r's list and returns its live length. */
static size_t adj_live(xctx *c, uint32_t r)
{
    idlist *l = &c->adj[r];
    size_t k = 0;
    for (size_t i = 0; i < l->len; i++)
        if (!c->pairs[l->ids[i]].dead)
            l->ids[k++] = l->ids[i];
    l->len = k;
    return k;
}

static uint32_t add_pair(xctx *c, uint32_t a, uint32_t b, int64_t *cost)
{
    if (!grow((void **)&c->pairs, &c->pair_cap, c->pair_count + 1, sizeof *c->pairs)) {
        c->oom = true;
        return NONE;
    }
    uint32_t id = (uint32_t)c->pair_count++;
    c->pairs[id] = (xpair){a, b, cost, false};
    if (!adj_push(c, a, id) || !adj_push(c, b, id))
        return NONE;
    return id;
}

static uint32_t find_pair(xctx *c, uint32_t a, uint32_t w)
{
    size_t len = adj_live(c, a);
    for (size_t i = 0; i < len; i++) {
        uint32_t id = c->adj[a].ids[i];
        if (other(&c->pairs[id], a) == w)
            return id;
    }
    return NONE;
}

static bool log_step(xctx *c, uint8_t kind, uint32_t node, uint32_t from, uint32_t to)
{
    if (!grow((void **)&c->steps, &c->step_cap, c->step_count + 1, sizeof *c->steps)) {
        c->oom = true;
        return false;
    }
    c->steps[c->step_count++] = (xstep){kind, node, from, to};
    return true;
}

static int by_event(const void *x, const void *y)
{
    const xevent *p = x, *q = y;
    return (p->at > q->at) - (p->at < q->at);
}

/* Representative r's pieces: maximal runs of segments over which the same
 * members of r are live, each with its usage per strategy of r summed over
 * those members (a sweep over the members' interval ends). */
static bool rep_pieces(xctx *c, uint32_t r)
{
    const iop_model *m = c->m;
    size_t ev = 0;
    for (uint32_t v = r; v != NONE; v = c->next_member[v]) {
        if (m->seg_lo[v] >= m->seg_hi[v])
            continue;
        if (!grow((void **)&c->events, &c->event_cap, ev + 2, sizeof *c->events))
            return !(c->oom = true);
        c->events[ev++] = (xevent){m->seg_lo[v], v, 1};
        c->events[ev++] = (xevent){m->seg_hi[v], v, -1};
    }
    if (ev > 0)
        qsort(c->events, ev, sizeof *c->events, by_event);
    uint32_t d = dom(c, r);
    if (!grow((void **)&c->pc_lo, &c->pc_cap, ev + 1, sizeof *c->pc_lo) ||
        !grow((void **)&c->pc_hi, &c->pc_hi_cap, ev + 1, sizeof *c->pc_hi) ||
        !grow((void **)&c->pc_vec, &c->vec_cap, (ev + 2) * (size_t)d, sizeof *c->pc_vec))
        return !(c->oom = true);
    /* The last slot of pc_vec is the running sum. */
    pp_int128 *run = c->pc_vec + (ev + 1) * (size_t)d;
    memset(run, 0, d * sizeof *run);
    const uint8_t *alive = c->alive + base(c, r);
    c->pc_count = 0;
    int live = 0;
    for (size_t i = 0; i < ev;) {
        uint32_t at = c->events[i].at;
        for (; i < ev && c->events[i].at == at; i++) {
            uint32_t v = c->events[i].node;
            const int64_t *u = m->usage + base(c, v);
            const uint32_t *map = c->map[v];
            live += c->events[i].sign;
            for (uint32_t s = 0; s < d; s++)
                if (alive[s])
                    run[s] += c->events[i].sign * (pp_int128)u[map[s]];
        }
        if (live > 0 && i < ev) {
            size_t p = c->pc_count++;
            c->pc_lo[p] = at;
            c->pc_hi[p] = c->events[i].at;
            memcpy(c->pc_vec + p * d, run, d * sizeof *run);
        }
    }
    return true;
}

static void vec_range(const xctx *c, uint32_t r, const pp_int128 *vec, pp_int128 *lo, pp_int128 *hi)
{
    const uint8_t *alive = c->alive + base(c, r);
    bool first = true;
    for (uint32_t s = 0; s < dom(c, r); s++)
        if (alive[s]) {
            if (first || vec[s] < *lo)
                *lo = vec[s];
            if (first || vec[s] > *hi)
                *hi = vec[s];
            first = false;
        }
    if (first)
        *lo = *hi = 0;
}

/* Sums of least and greatest usage per segment; removes strategies that
 * cannot fit even with every other node at its least usage; marks
 * representatives whose usage varies on a segment that can overflow. */
static bool usage_scan(xctx *c, bool *changed)
{
    const iop_model *m = c->m;
    uint32_t T = c->segments;
    memset(c->constrained, 0, (T + 1) * sizeof *c->constrained);
    memset(c->relevant, 0, c->n * sizeof *c->relevant);
    c->constrained_prefix[0] = 0;
    if (!m->has_limit || T == 0) {
        memset(c->constrained_prefix, 0, (T + 1) * sizeof *c->constrained_prefix);
        c->st->overflow_segments = 0;
        return true;
    }
    memset(c->smin, 0, (T + 1) * sizeof *c->smin);
    memset(c->smax, 0, (T + 1) * sizeof *c->smax);
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->state[r] == ST_MEMBER)
            continue;
        if (!rep_pieces(c, r))
            return false;
        for (size_t p = 0; p < c->pc_count; p++) {
            pp_int128 lo, hi;
            vec_range(c, r, c->pc_vec + p * dom(c, r), &lo, &hi);
            c->smin[c->pc_lo[p]] += lo;
            c->smin[c->pc_hi[p]] -= lo;
            c->smax[c->pc_lo[p]] += hi;
            c->smax[c->pc_hi[p]] -= hi;
        }
    }
    uint32_t over = 0;
    for (uint32_t t = 0; t < T; t++) {
        if (t > 0) {
            c->smin[t] += c->smin[t - 1];
            c->smax[t] += c->smax[t - 1];
        }
        if (c->smin[t] > m->limit)
            c->infeasible = true;
        c->constrained[t] = c->smax[t] > m->limit;
        over += c->constrained[t];
        c->constrained_prefix[t + 1] = c->constrained_prefix[t] + c->constrained[t];
    }
    c->st->overflow_segments = over;
    if (c->infeasible || over == 0)
        return true;
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->state[r] != ST_FREE)
            continue;
        if (!rep_pieces(c, r))
            return false;
        uint32_t d = dom(c, r);
        for (size_t p = 0; p < c->pc_count; p++) {
            uint32_t lo_t = c->pc_lo[p], hi_t = c->pc_hi[p];
            if (c->constrained_prefix[hi_t] == c->constrained_prefix[lo_t])
                continue; /* no segment here can overflow: nothing to remove or mark */
            const pp_int128 *vec = c->pc_vec + p * d;
            pp_int128 lo, hi, worst = c->smin[lo_t];
            vec_range(c, r, vec, &lo, &hi);
            if (hi > lo)
                c->relevant[r] = true;
            for (uint32_t t = lo_t + 1; t < hi_t; t++)
                worst = c->smin[t] > worst ? c->smin[t] : worst;
            for (uint32_t s = 0; s < d; s++)
                if (c->alive[base(c, r) + s] && vec[s] - lo > (pp_int128)m->limit - worst) {
                    drop(c, r, s);
                    c->st->strategies_removed++;
                    *changed = true;
                }
        }
    }
    return true;
}

/* Fixed representatives are checked too: fixing two neighbours in one pass
 * folds the pair into the second one's unary cost after it was checked. */
static void kill_forbidden(xctx *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->state[r] != ST_FREE && c->state[r] != ST_FIXED)
            continue;
        for (uint32_t s = 0; s < dom(c, r); s++)
            if (c->alive[base(c, r) + s] && c->unary[base(c, r) + s] >= FORBID) {
                drop(c, r, s);
                c->st->strategies_removed++;
                *changed = true;
            }
    }
}

/* A strategy whose every allowed partner across some pair is gone cannot be used. */
static void arc_consistency(xctx *c, bool *changed)
{
    for (size_t id = 0; id < c->pair_count; id++) {
        xpair *q = &c->pairs[id];
        if (q->dead)
            continue;
        for (int side = 0; side < 2; side++) {
            uint32_t r = side ? q->b : q->a, w = other(q, r);
            for (uint32_t s = 0; s < dom(c, r); s++) {
                if (!c->alive[base(c, r) + s])
                    continue;
                bool ok = false;
                for (uint32_t t = 0; t < dom(c, w) && !ok; t++)
                    ok = c->alive[base(c, w) + t] && *cell(c, q, r, s, t) < FORBID;
                if (!ok) {
                    drop(c, r, s);
                    c->st->strategies_removed++;
                    *changed = true;
                }
            }
        }
    }
}

static uint32_t first_alive(const xctx *c, uint32_t r)
{
    for (uint32_t s = 0; s < dom(c, r); s++)
        if (c->alive[base(c, r) + s])
            return s;
    return 0;
}

/* A node with one strategy left leaves the MIP: its pairs become unary costs. */
static void fix_singletons(xctx *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->state[r] != ST_FREE || c->alive_count[r] != 1)
            continue;
        uint32_t s0 = first_alive(c, r);
        size_t len = adj_live(c, r);
        for (size_t i = 0; i < len; i++) {
            xpair *q = &c->pairs[c->adj[r].ids[i]];
            uint32_t w = other(q, r);
            for (uint32_t t = 0; t < dom(c, w); t++)
                c->unary[base(c, w) + t] = sat(c->unary[base(c, w) + t], *cell(c, q, r, s0, t));
            q->dead = true;
        }
        c->adj[r].len = 0;
        c->state[r] = ST_FIXED;
        c->st->fixed++;
        *changed = true;
    }
}

/* Does every alive strategy of r allow exactly one alive strategy of the
 * other end of q? If so f holds it. */
static bool functional(const xctx *c, const xpair *q, uint32_t r, uint32_t *f)
{
    uint32_t w = other(q, r);
    for (uint32_t s = 0; s < dom(c, r); s++) {
        f[s] = 0;
        if (!c->alive[base(c, r) + s])
            continue;
        uint32_t count = 0;
        for (uint32_t t = 0; t < dom(c, w) && count < 2; t++)
            if (c->alive[base(c, w) + t] && *cell(c, q, r, s, t) < FORBID) {
                f[s] = t;
                count++;
            }
        if (count != 1)
            return false;
    }
    return true;
}

/* b's strategy is f(a's): b and its members join a; b's unary cost, the pair
 * itself and b's other pairs are rewritten over a's strategies. */
static void merge(xctx *c, uint32_t qid, uint32_t a, const uint32_t *f)
{
    uint32_t b = other(&c->pairs[qid], a), da = dom(c, a);
    for (uint32_t s = 0; s < da; s++)
        if (c->alive[base(c, a) + s])
            c->unary[base(c, a) + s] = sat(sat(c->unary[base(c, a) + s], c->unary[base(c, b) + f[s]]),
                                           *cell(c, &c->pairs[qid], a, s, f[s]));
    c->pairs[qid].dead = true;
    c->relevant[a] = c->relevant[a] || c->relevant[b];
    size_t len = adj_live(c, b);
    for (size_t i = 0; i < len && !c->oom; i++) {
        uint32_t pid = c->adj[b].ids[i];
        uint32_t w = other(&c->pairs[pid], b), dw = dom(c, w);
        uint32_t existing = find_pair(c, a, w);
        if (existing == NONE) {
            int64_t *table = pp_arena_alloc(c->arena, ((size_t)da * dw + 1) * sizeof *table);
            if (!table) {
                c->oom = true;
                return;
            }
            for (uint32_t s = 0; s < da; s++)
                for (uint32_t t = 0; t < dw; t++)
                    table[(size_t)s * dw + t] =
                        c->alive[base(c, a) + s] ? *cell(c, &c->pairs[pid], b, f[s], t) : FORBID;
            c->pairs[pid].dead = true;
            if (add_pair(c, a, w, table) == NONE)
                return;
        } else {
            for (uint32_t s = 0; s < da; s++)
                if (c->alive[base(c, a) + s])
                    for (uint32_t t = 0; t < dw; t++) {
                        int64_t *x = cell(c, &c->pairs[existing], a, s, t);
                        *x = sat(*x, *cell(c, &c->pairs[pid], b, f[s], t));
                    }
            c->pairs[pid].dead = true;
        }
    }
    c->adj[b].len = 0;
    for (uint32_t v = b; v != NONE; v = c->next_member[v]) {
        uint32_t *map = pp_arena_alloc(c->arena, ((size_t)da + 1) * sizeof *map);
        if (!map) {
            c->oom = true;
            return;
        }
        for (uint32_t s = 0; s < da; s++)
            map[s] = c->alive[base(c, a) + s] ? c->map[v][f[s]] : 0;
        c->map[v] = map;
        c->rep[v] = a;
    }
    c->next_member[c->last_member[a]] = b;
    c->last_member[a] = c->last_member[b];
    c->state[b] = ST_MEMBER;
    memset(c->alive + base(c, b), 0, dom(c, b));
    c->alive_count[b] = 0;
    c->st->merged++;
    log_step(c, STEP_MERGE, b, 0, a);
}

static void merge_functional(xctx *c, bool *changed)
{
    uint32_t *fa = c->tmp_f, *fb = c->tmp_f + c->max_domain;
    for (size_t id = 0; id < c->pair_count && !c->oom; id++) {
        if (c->pairs[id].dead)
            continue;
        uint32_t a = c->pairs[id].a, b = c->pairs[id].b;
        bool a_decides = functional(c, &c->pairs[id], a, fa);
        bool b_decides = functional(c, &c->pairs[id], b, fb);
        if (!a_decides && !b_decides)
            continue;
        /* One-to-one: keep the node with the smaller table width. */
        if (a_decides && (!b_decides || dom(c, a) <= dom(c, b)))
            merge(c, (uint32_t)id, a, fa);
        else
            merge(c, (uint32_t)id, b, fb);
        *changed = true;
    }
}

/* A table that is a sum of a row and a column term is two unary terms. */
static void fold_additive(xctx *c, bool *changed)
{
    int64_t *row = c->tmp_a, *col = c->tmp_b;
    for (size_t id = 0; id < c->pair_count; id++) {
        xpair *q = &c->pairs[id];
        if (q->dead)
            continue;
        uint32_t a = q->a, b = q->b, da = dom(c, a), db = dom(c, b);
        const uint8_t *la = c->alive + base(c, a), *lb = c->alive + base(c, b);
        bool additive = true;
        for (uint32_t s = 0; s < da && additive; s++) {
            row[s] = INT64_MAX;
            if (la[s])
                for (uint32_t t = 0; t < db; t++)
                    if (lb[t]) {
                        int64_t x = q->cost[(size_t)s * db + t];
                        additive = additive && x < FORBID;
                        row[s] = x < row[s] ? x : row[s];
                    }
        }
        if (!additive)
            continue;
        for (uint32_t t = 0; t < db; t++) {
            col[t] = INT64_MAX;
            if (lb[t])
                for (uint32_t s = 0; s < da; s++)
                    if (la[s] && q->cost[(size_t)s * db + t] - row[s] < col[t])
                        col[t] = q->cost[(size_t)s * db + t] - row[s];
        }
        for (uint32_t s = 0; s < da && additive; s++)
            for (uint32_t t = 0; t < db && additive; t++)
                if (la[s] && lb[t])
                    additive = q->cost[(size_t)s * db + t] == row[s] + col[t];
        if (!additive)
            continue;
        for (uint32_t s = 0; s < da; s++)
            if (la[s])
                c->unary[base(c, a) + s] = sat(c->unary[base(c, a) + s], row[s]);
        for (uint32_t t = 0; t < db; t++)
            if (lb[t])
                c->unary[base(c, b) + t] = sat(c->unary[base(c, b) + t], col[t]);
        q->dead = true;
        *changed = true;
    }
}

/* Is s2 never worse than s at r: unary cost, usage on every piece that can
 * overflow, and every pair entry against every alive partner? Exact ties go
 * to the lower index so that only one of two equal strategies is removed. */
static bool dominates(xctx *c, uint32_t r, uint32_t s2, uint32_t s, const bool *piece_on)
{
    bool strict = false;
    int64_t u2 = c->unary[base(c, r) + s2], u = c->unary[base(c, r) + s];
    if (u2 > u)
        return false;
    strict = u2 < u;
    uint32_t d = dom(c, r);
    for (size_t p = 0; p < c->pc_count; p++) {
        if (!piece_on[p])
            continue;
        const pp_int128 *vec = c->pc_vec + p * d;
        if (vec[s2] > vec[s])
            return false;
        strict = strict || vec[s2] < vec[s];
    }
    const idlist *l = &c->adj[r];
    for (size_t i = 0; i < l->len; i++) {
        const xpair *q = &c->pairs[l->ids[i]];
        uint32_t w = other(q, r);
        const uint8_t *lw = c->alive + base(c, w);
        for (uint32_t t = 0; t < dom(c, w); t++) {
            if (!lw[t])
                continue;
            int64_t x2 = *cell(c, q, r, s2, t), x = *cell(c, q, r, s, t);
            if (x2 > x)
                return false;
            strict = strict || x2 < x;
        }
    }
    return strict || s2 < s;
}

static bool dominance(xctx *c, bool *changed)
{
    bool *piece_on = NULL;
    size_t piece_cap = 0;
    for (uint32_t r = 0; r < c->n && !c->oom; r++) {
        if (c->state[r] != ST_FREE || c->alive_count[r] < 2)
            continue;
        adj_live(c, r);
        c->pc_count = 0;
        if (c->relevant[r]) {
            if (!rep_pieces(c, r))
                break;
            if (!grow((void **)&piece_on, &piece_cap, c->pc_count + 1, sizeof *piece_on)) {
                c->oom = true;
                break;
            }
            for (size_t p = 0; p < c->pc_count; p++)
                piece_on[p] = c->constrained_prefix[c->pc_hi[p]] > c->constrained_prefix[c->pc_lo[p]];
        }
        uint32_t d = dom(c, r);
        for (uint32_t s = 0; s < d && c->alive_count[r] > 1; s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            for (uint32_t s2 = 0; s2 < d; s2++) {
                if (s2 == s || !c->alive[base(c, r) + s2] || !dominates(c, r, s2, s, piece_on))
                    continue;
                drop(c, r, s);
                c->st->strategies_dominated++;
                log_step(c, STEP_DOMINATE, r, s, s2);
                *changed = true;
                break;
            }
        }
    }
    free(piece_on);
    return !c->oom;
}

static bool push_elim(xctx *c, uint32_t r, uint32_t n1, uint32_t n2, uint32_t *choice)
{
    if (!grow((void **)&c->elims, &c->elim_cap, c->elim_count + 1, sizeof *c->elims)) {
        c->oom = true;
        return false;
    }
    c->elims[c->elim_count++] = (xelim){r, n1, n2, choice};
    c->state[r] = ST_ELIM;
    c->adj[r].len = 0;
    c->st->eliminated++;
    return true;
}

/* A node whose usage never matters and that touches one or two pairs is
 * replaced by its best response: min over its strategies, as a unary cost
 * of its neighbour or as a table between its two neighbours. */
static void eliminate(xctx *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n && !c->oom; r++) {
        if (c->state[r] != ST_FREE || c->relevant[r])
            continue;
        size_t deg = adj_live(c, r);
        if (deg == 0 || deg > 2)
            continue;
        const int64_t *ur = c->unary + base(c, r);
        const uint8_t *lr = c->alive + base(c, r);
        uint32_t dr = dom(c, r);
        if (deg == 1) {
            uint32_t qid = c->adj[r].ids[0];
            uint32_t w = other(&c->pairs[qid], r), dw = dom(c, w);
            uint32_t *choice = pp_arena_alloc(c->arena, ((size_t)dw + 1) * sizeof *choice);
            if (!choice) {
                c->oom = true;
                return;
            }
            for (uint32_t t = 0; t < dw; t++) {
                int64_t best = FORBID;
                choice[t] = first_alive(c, r);
                if (c->alive[base(c, w) + t])
                    for (uint32_t s = 0; s < dr; s++)
                        if (lr[s]) {
                            int64_t x = sat(ur[s], *cell(c, &c->pairs[qid], r, s, t));
                            if (x < best) {
                                best = x;
                                choice[t] = s;
                            }
                        }
                c->unary[base(c, w) + t] = sat(c->unary[base(c, w) + t], best);
            }
            c->pairs[qid].dead = true;
            push_elim(c, r, w, NONE, choice);
            *changed = true;
            continue;
        }
        uint32_t q1 = c->adj[r].ids[0], q2 = c->adj[r].ids[1];
        uint32_t w1 = other(&c->pairs[q1], r), w2 = other(&c->pairs[q2], r);
        uint32_t d1 = dom(c, w1), d2 = dom(c, w2);
        if ((size_t)d1 * d2 > ELIM2_MAX_CELLS)
            continue;
        uint32_t *choice = pp_arena_alloc(c->arena, ((size_t)d1 * d2 + 1) * sizeof *choice);
        int64_t *table = pp_arena_alloc(c->arena, ((size_t)d1 * d2 + 1) * sizeof *table);
        if (!choice || !table) {
            c->oom = true;
            return;
        }
        for (uint32_t t1 = 0; t1 < d1; t1++)
            for (uint32_t t2 = 0; t2 < d2; t2++) {
                int64_t best = FORBID;
                uint32_t arg = first_alive(c, r);
                if (c->alive[base(c, w1) + t1] && c->alive[base(c, w2) + t2])
                    for (uint32_t s = 0; s < dr; s++)
                        if (lr[s]) {
                            int64_t x = sat(sat(ur[s], *cell(c, &c->pairs[q1], r, s, t1)),
                                            *cell(c, &c->pairs[q2], r, s, t2));
                            if (x < best) {
                                best = x;
                                arg = s;
                            }
                        }
                table[(size_t)t1 * d2 + t2] = best;
                choice[(size_t)t1 * d2 + t2] = arg;
            }
        c->pairs[q1].dead = c->pairs[q2].dead = true;
        uint32_t existing = find_pair(c, w1, w2);
        if (existing == NONE) {
            if (add_pair(c, w1, w2, table) == NONE)
                return;
        } else {
            for (uint32_t t1 = 0; t1 < d1; t1++)
                for (uint32_t t2 = 0; t2 < d2; t2++) {
                    int64_t *x = cell(c, &c->pairs[existing], w1, t1, t2);
                    *x = sat(*x, table[(size_t)t1 * d2 + t2]);
                }
        }
        push_elim(c, r, w1, w2, choice);
        *changed = true;
    }
}

static bool presolve(xctx *c)
{
    bool changed = true;
    int rounds = 0;
    if (c->m->has_limit && c->m->limit < 0)
        c->infeasible = true; /* the contest's peak is never below zero */
    while (changed && !c->infeasible && !c->oom && rounds < MAX_ROUNDS) {
        changed = false;
        rounds++;
        kill_forbidden(c, &changed);
        if (c->infeasible)
            break;
        arc_consistency(c, &changed);
        if (c->infeasible || !usage_scan(c, &changed) || c->infeasible)
            break;
        fix_singletons(c, &changed);
        if (!(c->off & IOP_EXACT_NO_MERGE))
            merge_functional(c, &changed);
        if (c->oom || c->infeasible)
            break;
        fold_additive(c, &changed);
        if (!(c->off & IOP_EXACT_NO_DOMINANCE) && !dominance(c, &changed))
            break;
        if (!(c->off & IOP_EXACT_NO_ELIMINATION))
            eliminate(c, &changed);
    }
    /* If the round limit cut the loop short, forbidden unary costs may be
     * left: no MIP column may carry one. */
    if (!c->infeasible && !c->oom) {
        bool ignored = false;
        kill_forbidden(c, &ignored);
    }
    c->st->presolve_rounds = rounds;
    return !c->oom;
}

/* ---------------------------------------------------------------------------
 * Sizes of the plain formulation, for comparison. */

static void raw_size(xctx *c)
{
    const iop_model *m = c->m;
    iop_exact_stats *st = c->st;
    uint64_t cols = 0, rows = m->node_count, nz = 0;
    uint32_t T = m->segment_count;
    pp_int128 *most = calloc((size_t)T + 1, sizeof *most);
    uint32_t *prefix = calloc((size_t)T + 1, sizeof *prefix);
    for (uint32_t v = 0; v < m->node_count; v++) {
        int64_t hi = 0;
        for (uint32_t s = 0; s < dom(c, v); s++)
            if (m->unary[base(c, v) + s] < FORBID && m->usage[base(c, v) + s] > hi)
                hi = m->usage[base(c, v) + s];
        if (most && m->seg_lo[v] < m->seg_hi[v]) {
            most[m->seg_lo[v]] += hi;
            most[m->seg_hi[v]] -= hi;
        }
    }
    if (most && prefix && m->has_limit)
        for (uint32_t t = 0; t < T; t++) {
            if (t > 0)
                most[t] += most[t - 1];
            prefix[t + 1] = prefix[t] + (most[t] > m->limit);
        }
    for (uint32_t v = 0; v < m->node_count; v++) {
        uint64_t allowed = 0;
        for (uint32_t s = 0; s < dom(c, v); s++)
            allowed += m->unary[base(c, v) + s] < FORBID;
        uint32_t segs = prefix ? prefix[m->seg_hi[v]] - prefix[m->seg_lo[v]] : 0;
        cols += allowed;
        nz += allowed * (1 + (m->adj_start[v + 1] - m->adj_start[v]) + segs);
    }
    for (uint32_t q = 0; q < m->pair_count; q++) {
        uint32_t a = m->pair_a[q], b = m->pair_b[q], db = dom(c, b);
        for (uint32_t s = 0; s < dom(c, a); s++) {
            if (m->unary[base(c, a) + s] >= FORBID)
                continue;
            rows++;
            for (uint32_t t = 0; t < db; t++)
                if (m->unary[base(c, b) + t] < FORBID && m->pair_cost[m->pair_start[q] + (size_t)s * db + t] < FORBID) {
                    cols++;
                    nz += 2;
                }
        }
        for (uint32_t t = 0; t < db; t++)
            rows += m->unary[base(c, b) + t] < FORBID;
    }
    rows += prefix ? prefix[T] : 0;
    st->raw_columns = cols;
    st->raw_rows = rows;
    st->raw_nonzeros = nz;
    free(most);
    free(prefix);
}

/* ---------------------------------------------------------------------------
 * The MIP. */

/* One candidate usage row: usage per strategy of every free representative
 * live in the segment (sorted by strategy index) plus the usage of the rest. */
typedef struct {
    bool present;
    uint32_t segment;
    pp_int128 rest;
    uint32_t *key, *owner;
    pp_int128 *val;
    size_t len, cap;
} urow;

/* Is every entry of a at most b's (absent entries are zero)? */
static bool urow_leq(const urow *a, const urow *b, bool *equal)
{
    *equal = a->rest == b->rest;
    if (a->rest > b->rest)
        return false;
    size_t i = 0, j = 0;
    while (i < a->len || j < b->len) {
        pp_int128 x = 0, y = 0;
        if (j >= b->len || (i < a->len && a->key[i] < b->key[j]))
            x = a->val[i++];
        else if (i >= a->len || b->key[j] < a->key[i])
            y = b->val[j++];
        else {
            x = a->val[i++];
            y = b->val[j++];
        }
        if (x > y)
            return false;
        *equal = *equal && x == y;
    }
    return true;
}

typedef struct {
    xctx *c;
    pp_lp *lp;
    const int *xcol;
} emitter;

/* Adds row u as "sum of (usage - least usage) x <= limit - least total",
 * unless it can no longer overflow. Strategies of one owner are adjacent. */
static void emit_urow(emitter *e, const urow *u)
{
    xctx *c = e->c;
    pp_int128 least = u->rest, spread = 0;
    for (size_t i = 0, j; i < u->len; i = j) {
        pp_int128 lo = u->val[i], hi = u->val[i];
        for (j = i; j < u->len && u->owner[j] == u->owner[i]; j++) {
            lo = u->val[j] < lo ? u->val[j] : lo;
            hi = u->val[j] > hi ? u->val[j] : hi;
        }
        least += lo;
        spread += hi - lo;
    }
    pp_int128 room = (pp_int128)c->m->limit - least;
    if (room < 0)
        c->infeasible = true;
    if (spread <= room)
        return; /* cannot overflow any more */
    int row = pp_lp_row(e->lp, -DBL_MAX, (double)room);
    for (size_t i = 0, j; i < u->len; i = j) {
        pp_int128 lo = u->val[i];
        for (j = i; j < u->len && u->owner[j] == u->owner[i]; j++)
            lo = u->val[j] < lo ? u->val[j] : lo;
        for (size_t k = i; k < j; k++)
            if (u->val[k] != lo)
                pp_lp_entry(e->lp, row, e->xcol[u->key[k]], (double)(u->val[k] - lo));
    }
    c->st->usage_rows++;
}

static int by_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Row of segment t from the nodes live in it. A representative that is not
 * free counts with its largest usage: fixed ones have one strategy, and an
 * eliminated one has the same usage for all its strategies on every segment
 * that can overflow (that is why it could be eliminated). */
static bool urow_build(xctx *c, urow *u, uint32_t t, const uint32_t *live, size_t live_count,
                       pp_int128 *acc, uint32_t *stamp, uint32_t *touched)
{
    const iop_model *m = c->m;
    size_t nt = 0;
    for (size_t i = 0; i < live_count; i++) {
        uint32_t v = live[i], r = c->rep[v];
        if (stamp[r] != t + 1) {
            stamp[r] = t + 1;
            touched[nt++] = r;
            for (uint32_t s = 0; s < dom(c, r); s++)
                acc[base(c, r) + s] = 0;
        }
        for (uint32_t s = 0; s < dom(c, r); s++)
            if (c->alive[base(c, r) + s])
                acc[base(c, r) + s] += m->usage[base(c, v) + c->map[v][s]];
    }
    /* Representatives in id order give keys in increasing order (urow_leq merges by key). */
    if (nt > 1)
        qsort(touched, nt, sizeof *touched, by_u32);
    u->present = true;
    u->segment = t;
    u->rest = 0;
    u->len = 0;
    for (size_t i = 0; i < nt; i++) {
        uint32_t r = touched[i];
        if (c->state[r] != ST_FREE) {
            pp_int128 lo, hi;
            vec_range(c, r, acc + base(c, r), &lo, &hi);
            u->rest += hi;
            continue;
        }
        for (uint32_t s = 0; s < dom(c, r); s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            if (u->len == u->cap) {
                size_t cap = u->cap ? 2 * u->cap : 256;
                uint32_t *k = realloc(u->key, cap * sizeof *k);
                if (k)
                    u->key = k;
                pp_int128 *val = realloc(u->val, cap * sizeof *val);
                if (val)
                    u->val = val;
                uint32_t *o = realloc(u->owner, cap * sizeof *o);
                if (o)
                    u->owner = o;
                if (!k || !val || !o)
                    return false;
                u->cap = cap;
            }
            u->key[u->len] = base(c, r) + s;
            u->owner[u->len] = r;
            u->val[u->len] = acc[base(c, r) + s];
            u->len++;
        }
    }
    return true;
}

/* Usage rows for the segments that can overflow, skipping any row implied
 * by the row of a neighbouring segment (entry-wise no larger; of equal rows
 * the later one is kept). Segments are swept in time order with three rows
 * in hand: the one being decided and its two neighbours. */
static bool usage_rows(xctx *c, emitter *e)
{
    const iop_model *m = c->m;
    uint32_t T = c->segments, n = c->n;
    if (!m->has_limit || T == 0 || c->st->overflow_segments == 0)
        return true;
    uint32_t *start_count = calloc((size_t)T + 2, sizeof *start_count);
    uint32_t *by_start = malloc(((size_t)n + 1) * sizeof *by_start);
    uint32_t *live = malloc(((size_t)n + 1) * sizeof *live);
    uint32_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    uint32_t *stamp = calloc((size_t)n + 1, sizeof *stamp);
    uint32_t *touched = malloc(((size_t)n + 1) * sizeof *touched);
    pp_int128 *acc = malloc(((size_t)m->dom_start[n] + 1) * sizeof *acc);
    uint32_t *end_count = calloc((size_t)T + 2, sizeof *end_count);
    uint32_t *by_end = malloc(((size_t)n + 1) * sizeof *by_end);
    urow rows[3] = {{0}};
    bool ok = start_count && by_start && live && pos && stamp && touched && acc && end_count && by_end;
    if (ok) {
        for (uint32_t v = 0; v < n; v++)
            if (m->seg_lo[v] < m->seg_hi[v]) {
                start_count[m->seg_lo[v] + 1]++;
                end_count[m->seg_hi[v] + 1]++;
            }
        for (uint32_t t = 0; t <= T; t++) {
            start_count[t + 1] += start_count[t];
            end_count[t + 1] += end_count[t];
        }
        uint32_t *fs = calloc((size_t)T + 2, sizeof *fs), *fe = calloc((size_t)T + 2, sizeof *fe);
        ok = fs && fe;
        if (ok) {
            memcpy(fs, start_count, ((size_t)T + 1) * sizeof *fs);
            memcpy(fe, end_count, ((size_t)T + 1) * sizeof *fe);
            for (uint32_t v = 0; v < n; v++)
                if (m->seg_lo[v] < m->seg_hi[v]) {
                    by_start[fs[m->seg_lo[v]]++] = v;
                    by_end[fe[m->seg_hi[v]]++] = v;
                }
        }
        free(fs);
        free(fe);
    }
    size_t live_count = 0;
    /* rows[0]: segment t-2, rows[1]: t-1, rows[2]: t */
    for (uint32_t t = 0; ok && t <= T; t++) {
        if (t < T) {
            for (uint32_t k = end_count[t]; k < end_count[t + 1]; k++) {
                uint32_t v = by_end[k], p = pos[v];
                live[p] = live[--live_count];
                pos[live[p]] = p;
            }
            for (uint32_t k = start_count[t]; k < start_count[t + 1]; k++) {
                uint32_t v = by_start[k];
                pos[v] = (uint32_t)live_count;
                live[live_count++] = v;
            }
        }
        urow spare = rows[0];
        rows[0] = rows[1];
        rows[1] = rows[2];
        rows[2] = spare;
        rows[2].present = false;
        if (t < T && c->constrained[t] && !urow_build(c, &rows[2], t, live, live_count, acc, stamp, touched)) {
            ok = false;
            break;
        }
        /* Decide segment t-1 now that both its neighbours are known. */
        urow *mid = &rows[1];
        if (!mid->present)
            continue;
        bool equal, implied = false;
        if (rows[2].present && rows[2].segment == mid->segment + 1 && urow_leq(mid, &rows[2], &equal))
            implied = true;
        if (!implied && rows[0].present && rows[0].segment + 1 == mid->segment &&
            urow_leq(mid, &rows[0], &equal) && !equal)
            implied = true;
        if (c->off & IOP_EXACT_NO_ROW_FILTER)
            implied = false;
        if (!implied)
            emit_urow(e, mid);
        if (!pp_lp_ok(e->lp))
            ok = false;
    }
    for (int i = 0; i < 3; i++) {
        free(rows[i].key);
        free(rows[i].owner);
        free(rows[i].val);
    }
    free(start_count);
    free(by_start);
    free(live);
    free(pos);
    free(stamp);
    free(touched);
    free(acc);
    free(end_count);
    free(by_end);
    return ok;
}

typedef struct {
    pp_lp lp;
    int *xcol; /* per strategy index: x column or -1 */
} mip;

static void mip_free(mip *p)
{
    pp_lp_free(&p->lp);
    free(p->xcol);
}

/* x columns and the assignment rows. */
static void x_columns(xctx *c, mip *p)
{
    for (uint32_t r = 0; r < c->n && pp_lp_ok(&p->lp); r++) {
        if (c->state[r] != ST_FREE)
            continue;
        int row = pp_lp_row(&p->lp, 1.0, 1.0);
        for (uint32_t s = 0; s < dom(c, r); s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            int col = pp_lp_col(&p->lp, 0.0, 1.0, (double)c->unary[base(c, r) + s], true);
            pp_lp_entry(&p->lp, row, col, 1.0);
            p->xcol[base(c, r) + s] = col;
        }
    }
}

/* y columns of pair q and its marginal rows; the last marginal row of b is
 * implied by the others and the assignment rows. */
static void y_columns(xctx *c, mip *p, const xpair *q, int *row_a, int *row_b)
{
    pp_lp *l = &p->lp;
    uint32_t a = q->a, b = q->b, da = dom(c, a), db = dom(c, b);
    for (uint32_t s = 0; s < da; s++)
        if (c->alive[base(c, a) + s]) {
            row_a[s] = pp_lp_row(l, 0.0, 0.0);
            pp_lp_entry(l, row_a[s], p->xcol[base(c, a) + s], -1.0);
        }
    uint32_t last = 0;
    for (uint32_t t = 0; t < db; t++)
        if (c->alive[base(c, b) + t])
            last = t;
    for (uint32_t t = 0; t < db; t++) {
        row_b[t] = -1;
        if (c->alive[base(c, b) + t] && t != last) {
            row_b[t] = pp_lp_row(l, 0.0, 0.0);
            pp_lp_entry(l, row_b[t], p->xcol[base(c, b) + t], -1.0);
        }
    }
    for (uint32_t s = 0; s < da && pp_lp_ok(l); s++) {
        if (!c->alive[base(c, a) + s])
            continue;
        for (uint32_t t = 0; t < db; t++) {
            int64_t x = q->cost[(size_t)s * db + t];
            if (!c->alive[base(c, b) + t] || x >= FORBID)
                continue;
            int col = pp_lp_col(l, 0.0, DBL_MAX, (double)x, false);
            pp_lp_entry(l, row_a[s], col, 1.0);
            if (row_b[t] >= 0)
                pp_lp_entry(l, row_b[t], col, 1.0);
        }
    }
}

static bool pair_columns(xctx *c, mip *p)
{
    int *row_a = malloc(((size_t)c->max_domain + 1) * sizeof *row_a);
    int *row_b = malloc(((size_t)c->max_domain + 1) * sizeof *row_b);
    bool ok = row_a && row_b;
    for (size_t id = 0; ok && id < c->pair_count && pp_lp_ok(&p->lp); id++)
        if (!c->pairs[id].dead)
            y_columns(c, p, &c->pairs[id], row_a, row_b);
    free(row_a);
    free(row_b);
    return ok;
}

static pp_status mip_build(xctx *c, mip *p, uint64_t max_nonzeros, pp_error *err)
{
    uint32_t n = c->n;
    size_t strategies = c->m->dom_start[n];
    /* CBC indexes with int: the cap also keeps every count in range. */
    pp_lp_init(&p->lp, max_nonzeros < (uint64_t)INT_MAX / 2 ? (int)max_nonzeros : INT_MAX / 2);
    p->xcol = malloc((strategies + 1) * sizeof *p->xcol);
    for (size_t k = 0; p->xcol && k < strategies; k++)
        p->xcol[k] = -1;
    for (uint32_t r = 0; r < n; r++)
        c->st->free_nodes += c->state[r] == ST_FREE;
    for (size_t id = 0; id < c->pair_count; id++)
        c->st->pairs += !c->pairs[id].dead;
    bool ok = p->xcol != NULL;
    if (ok)
        x_columns(c, p);
    int integers = p->lp.cols;
    emitter e = {.c = c, .lp = &p->lp, .xcol = p->xcol};
    ok = ok && pp_lp_ok(&p->lp) && pair_columns(c, p) && pp_lp_ok(&p->lp) && usage_rows(c, &e);
    if (ok && pp_lp_ok(&p->lp)) {
        c->st->columns = (uint64_t)p->lp.cols;
        c->st->rows = (uint64_t)p->lp.rows;
        c->st->nonzeros = (uint64_t)p->lp.nz;
        c->st->integer_columns = (uint64_t)integers;
        return PP_OK;
    }
    bool too_large = p->lp.too_large;
    int limit = p->lp.nz_limit;
    mip_free(p);
    if (too_large)
        return pp_error_set(err, PP_EARG,
                            "exact solver: the reduced MIP has more than %d nonzeros (%u free nodes, %u pairs); "
                            "raise max_nonzeros to try CBC on it",
                            limit, c->st->free_nodes, c->st->pairs);
    return pp_error_set(err, PP_ENOMEM, "out of memory building the exact model");
}

/* ---------------------------------------------------------------------------
 * Context, answers and the entry points. */

static void ctx_free(xctx *c)
{
    if (c->adj)
        for (uint32_t v = 0; v < c->n; v++)
            free(c->adj[v].ids);
    free(c->adj);
    free(c->pairs);
    free(c->steps);
    free(c->elims);
    free(c->pc_lo);
    free(c->pc_hi);
    free(c->pc_vec);
    free(c->events);
    pp_arena_free(c->arena);
}

static bool ctx_init(xctx *c, const iop_model *m, iop_exact_stats *st)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->st = st;
    c->n = m->node_count;
    c->segments = m->segment_count;
    uint32_t n = c->n, T = c->segments;
    size_t strategies = m->dom_start[n];
    c->arena = pp_arena_new(1 << 20);
    if (!c->arena)
        return false;
    pp_arena *A = c->arena;
    c->rep = pp_arena_alloc(A, ((size_t)n + 1) * sizeof *c->rep);
    c->map = pp_arena_alloc(A, ((size_t)n + 1) * sizeof *c->map);
    c->next_member = pp_arena_alloc(A, ((size_t)n + 1) * sizeof *c->next_member);
    c->last_member = pp_arena_alloc(A, ((size_t)n + 1) * sizeof *c->last_member);
    c->state = pp_arena_alloc(A, (size_t)n + 1);
    c->unary = pp_arena_alloc(A, (strategies + 1) * sizeof *c->unary);
    c->alive = pp_arena_alloc(A, strategies + 1);
    c->alive_count = pp_arena_alloc(A, ((size_t)n + 1) * sizeof *c->alive_count);
    c->relevant = pp_arena_calloc(A, (size_t)n + 1, sizeof *c->relevant);
    c->smin = pp_arena_alloc(A, ((size_t)T + 1) * sizeof *c->smin);
    c->smax = pp_arena_alloc(A, ((size_t)T + 1) * sizeof *c->smax);
    c->constrained = pp_arena_calloc(A, (size_t)T + 1, sizeof *c->constrained);
    c->constrained_prefix = pp_arena_calloc(A, (size_t)T + 2, sizeof *c->constrained_prefix);
    c->adj = calloc((size_t)n + 1, sizeof *c->adj);
    if (!c->rep || !c->map || !c->next_member || !c->last_member || !c->state || !c->unary || !c->alive ||
        !c->alive_count || !c->relevant || !c->smin || !c->smax || !c->constrained || !c->constrained_prefix ||
        !c->adj)
        return false;
    for (uint32_t v = 0; v < n; v++)
        c->max_domain = dom(c, v) > c->max_domain ? dom(c, v) : c->max_domain;
    c->tmp_a = pp_arena_alloc(A, ((size_t)c->max_domain + 1) * sizeof *c->tmp_a);
    c->tmp_b = pp_arena_alloc(A, ((size_t)c->max_domain + 1) * sizeof *c->tmp_b);
    c->tmp_f = pp_arena_alloc(A, (2 * (size_t)c->max_domain + 1) * sizeof *c->tmp_f);
    if (!c->tmp_a || !c->tmp_b || !c->tmp_f)
        return false;
    memcpy(c->unary, m->unary, strategies * sizeof *c->unary);
    memset(c->alive, 1, strategies);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t d = dom(c, v);
        c->rep[v] = v;
        c->next_member[v] = NONE;
        c->last_member[v] = v;
        c->state[v] = ST_FREE;
        c->alive_count[v] = d;
        if (d == 0)
            c->infeasible = true;
        c->map[v] = pp_arena_alloc(A, ((size_t)d + 1) * sizeof **c->map);
        if (!c->map[v])
            return false;
        for (uint32_t s = 0; s < d; s++)
            c->map[v][s] = s;
    }
    for (uint32_t q = 0; q < m->pair_count; q++) {
        size_t cells = m->pair_start[q + 1] - m->pair_start[q];
        int64_t *table = pp_arena_alloc(A, (cells + 1) * sizeof *table);
        if (!table)
            return false;
        memcpy(table, m->pair_cost + m->pair_start[q], cells * sizeof *table);
        if (add_pair(c, m->pair_a[q], m->pair_b[q], table) == NONE)
            return false;
    }
    return true;
}

/* Does x keep every segment within the limit? (128-bit sums) */
static bool fits(const iop_model *m, const uint32_t *x)
{
    if (!m->has_limit)
        return true;
    if (m->limit < 0)
        return false; /* the contest's peak is never below zero */
    uint32_t T = m->segment_count;
    pp_int128 *diff = calloc((size_t)T + 1, sizeof *diff);
    if (!diff)
        return false;
    for (uint32_t v = 0; v < m->node_count; v++)
        if (m->seg_lo[v] < m->seg_hi[v]) {
            int64_t u = m->usage[m->dom_start[v] + x[v]];
            diff[m->seg_lo[v]] += u;
            diff[m->seg_hi[v]] -= u;
        }
    bool ok = true;
    pp_int128 run = 0;
    for (uint32_t t = 0; t < T && ok; t++) {
        run += diff[t];
        ok = run <= m->limit;
    }
    free(diff);
    return ok;
}

static bool usable(const iop_model *m, const uint32_t *x, int64_t *cost)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        if (x[v] >= iop_domain(m, v))
            return false;
    *cost = iop_model_cost(m, x);
    return *cost < FORBID && fits(m, x);
}

/* The warm start carried through the presolve's merges and dominance steps
 * onto the representatives (sr holds one strategy per node id). */
static bool warm_to_reduced(const xctx *c, const uint32_t *warm, uint32_t *sr)
{
    memcpy(sr, warm, c->n * sizeof *sr);
    for (size_t i = 0; i < c->step_count; i++) {
        const xstep *st = &c->steps[i];
        if (st->kind == STEP_DOMINATE && sr[st->node] == st->from)
            sr[st->node] = st->to;
    }
    for (uint32_t r = 0; r < c->n; r++)
        if (c->state[r] == ST_FREE && !c->alive[base(c, r) + sr[r]])
            return false;
    return true;
}

/* From a strategy per free representative (sr) to one per node: fixed
 * representatives play their last strategy, eliminated ones their best
 * response (last eliminated first), members follow their maps. */
static void expand(const xctx *c, uint32_t *sr, uint32_t *x)
{
    for (uint32_t r = 0; r < c->n; r++)
        if (c->state[r] == ST_FIXED)
            sr[r] = first_alive(c, r);
    for (size_t i = c->elim_count; i-- > 0;) {
        const xelim *e = &c->elims[i];
        uint32_t s1 = c->map[e->n1][sr[c->rep[e->n1]]];
        if (e->n2 == NONE) {
            sr[e->node] = e->choice[s1];
        } else {
            uint32_t s2 = c->map[e->n2][sr[c->rep[e->n2]]];
            sr[e->node] = e->choice[(size_t)s1 * dom(c, e->n2) + s2];
        }
    }
    for (uint32_t v = 0; v < c->n; v++)
        x[v] = c->map[v][sr[c->rep[v]]];
}

static pp_int128 fixed_cost(const xctx *c)
{
    pp_int128 total = 0;
    for (uint32_t r = 0; r < c->n; r++)
        if (c->state[r] == ST_FIXED)
            total += c->unary[base(c, r) + first_alive(c, r)];
    return total;
}

/* The strategy of every free representative in CBC's column values (the x
 * column above one half); false when some representative has none. */
static bool read_strategies(const xctx *c, const mip *p, const double *x, uint32_t *sr)
{
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->state[r] != ST_FREE)
            continue;
        uint32_t pick = NONE;
        double best = 0.5;
        for (uint32_t s = 0; s < dom(c, r); s++) {
            int j = p->xcol[base(c, r) + s];
            if (j >= 0 && x[j] > best) {
                best = x[j];
                pick = s;
            }
        }
        if (pick == NONE)
            return false;
        sr[r] = pick;
    }
    return true;
}

/* CBC on the MIP (core/cbc.h), from warm_sr when given; on out->found, sr
 * holds a strategy per free representative. */
static pp_status run_cbc(const xctx *c, const mip *p, const iop_exact_options *o, double deadline,
                         const uint32_t *warm_sr, uint32_t *sr, pp_cbc_outcome *out, pp_error *err)
{
    int *idx = malloc(((size_t)c->n + 1) * sizeof *idx);
    double *val = malloc(((size_t)c->n + 1) * sizeof *val);
    double *x = malloc(((size_t)p->lp.cols + 1) * sizeof *x);
    if (!idx || !val || !x) {
        free(idx);
        free(val);
        free(x);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the exact solver");
    }
    /* The deadline: CBC's own limit plus a grace for its last step. Costs
     * are integers: a gap below one proves the incumbent optimal. */
    pp_cbc_options co = {.deadline = deadline, .grace = 0.5, .grace_rate = 0.05, .threads = o->threads,
                         .gap = 0.99, .log = o->verbose, .warm_index = idx, .warm_value = val};
    for (uint32_t r = 0; warm_sr && r < c->n; r++)
        if (c->state[r] == ST_FREE) {
            idx[co.warm_count] = p->xcol[base(c, r) + warm_sr[r]];
            val[co.warm_count++] = 1.0;
        }
    pp_status status = pp_cbc_solve(&p->lp, &co, x, out, err);
    if (status == PP_OK && out->found)
        out->found = read_strategies(c, p, x, sr);
    free(idx);
    free(val);
    free(x);
    return status;
}

pp_status iop_exact_solve_ex(const iop_model *m, const uint32_t *warm_start, int64_t warm_cost,
                             const iop_exact_options *o, uint32_t *x_out, int64_t *cost_out,
                             double *lower_bound_out, bool *proven_optimal, iop_exact_stats *stats,
                             pp_error *err)
{
    double t0 = pp_now();
    iop_exact_stats local;
    iop_exact_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    *cost_out = -1;
    *lower_bound_out = -INFINITY;
    *proven_optimal = false;
    if (!m || !o)
        return pp_error_set(err, PP_EARG, "exact solver: no model or options");
    uint32_t n = m->node_count;
    (void)warm_cost; /* recomputed below: a stale or wrong figure must not mislead the search */

    /* The answer so far: the warm start if it is usable, else nothing. */
    iop_min_usage_assignment(m, x_out);
    int64_t best = -1;
    if (warm_start && usable(m, warm_start, &best))
        memcpy(x_out, warm_start, n * sizeof *x_out);
    else
        best = -1;

    xctx c;
    memset(&c, 0, sizeof c);
    uint32_t *sr = malloc(((size_t)n + 1) * sizeof *sr);
    uint32_t *warm_sr = malloc(((size_t)n + 1) * sizeof *warm_sr);
    uint32_t *x = malloc(((size_t)n + 1) * sizeof *x);
    bool ok = sr && warm_sr && x && ctx_init(&c, m, st);
    c.off = o->off;
    if (ok) {
        raw_size(&c);
        ok = presolve(&c);
    }
    if (!ok) {
        free(sr);
        free(warm_sr);
        free(x);
        ctx_free(&c);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the exact solver");
    }
    st->presolve_seconds = pp_now() - t0;
    pp_status status = PP_OK;
    if (c.infeasible) {
        /* The presolve only removes what no feasible answer can use. */
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
        goto done;
    }
    mip p;
    status = mip_build(&c, &p, o->max_nonzeros ? o->max_nonzeros : IOP_EXACT_DEFAULT_MAX_NONZEROS, err);
    if (status != PP_OK)
        goto done;
    if (c.infeasible) {
        mip_free(&p);
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
        goto done;
    }
    if (o->verbose)
        fprintf(stderr,
                "exact: raw %llu columns, %llu rows, %llu nonzeros; reduced %llu columns (%llu binary), %llu rows, "
                "%llu nonzeros; %u free nodes, %u pairs, %u merged, %u fixed, %u eliminated, %llu strategies removed, "
                "%llu dominated, %u of %u overflow segments as %u rows, %d rounds, %.3f s\n",
                (unsigned long long)st->raw_columns, (unsigned long long)st->raw_rows,
                (unsigned long long)st->raw_nonzeros, (unsigned long long)st->columns,
                (unsigned long long)st->integer_columns, (unsigned long long)st->rows,
                (unsigned long long)st->nonzeros, st->free_nodes, st->pairs, st->merged, st->fixed, st->eliminated,
                (unsigned long long)st->strategies_removed, (unsigned long long)st->strategies_dominated,
                st->overflow_segments, c.segments, st->usage_rows, st->presolve_rounds, st->presolve_seconds);
    pp_int128 constant = fixed_cost(&c);
    if (p.lp.cols == 0) {
        /* The presolve decided every node. */
        expand(&c, sr, x);
        int64_t cost;
        if (usable(m, x, &cost) && (best < 0 || cost <= best)) {
            best = cost;
            memcpy(x_out, x, n * sizeof *x);
        }
        *proven_optimal = best >= 0;
        *lower_bound_out = best >= 0 ? (double)best : INFINITY;
        status = best >= 0 ? PP_OK : PP_INFEASIBLE;
        mip_free(&p);
        goto done;
    }
    if (pp_stop_requested()) {
        /* Stopping: not worth starting CBC. */
        *lower_bound_out = -INFINITY;
        mip_free(&p);
        goto done;
    }
    bool have_warm = best >= 0 && warm_to_reduced(&c, x_out, warm_sr);
    pp_cbc_outcome out;
    double t1 = pp_now();
    st->warm_start_used = have_warm;
    status = run_cbc(&c, &p, o, o->time_limit > 0 ? t0 + o->time_limit : 0, have_warm ? warm_sr : NULL, sr, &out,
                     err);
    st->cbc_crashes = out.crashes;
    st->cbc_killed = out.killed;
    st->mip_nodes = out.nodes;
    st->mip_seconds = pp_now() - t1;
    mip_free(&p);
    if (status != PP_OK)
        goto done;
    bool cbc_ok = false;
    if (out.found) {
        expand(&c, sr, x);
        int64_t cost;
        cbc_ok = usable(m, x, &cost);
        if (cbc_ok && (best < 0 || cost < best)) {
            best = cost;
            memcpy(x_out, x, n * sizeof *x);
        }
    }
    if (out.bound > -INFINITY)
        *lower_bound_out = out.bound + (double)constant;
    if (best >= 0) {
        *proven_optimal = out.proven && cbc_ok;
        if (*proven_optimal || *lower_bound_out > (double)best)
            *lower_bound_out = (double)best;
    } else if (out.infeasible) {
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
    }
done:
    *cost_out = status == PP_OK ? best : -1;
    free(sr);
    free(warm_sr);
    free(x);
    ctx_free(&c);
    return status;
}

pp_status iop_exact_solve(const iop_model *m, const uint32_t *warm_start, int64_t warm_cost,
                          double time_limit, int threads, uint32_t *x_out, int64_t *cost_out,
                          double *lower_bound_out, bool *proven_optimal, pp_error *err)
{
    iop_exact_options o = {.time_limit = time_limit, .threads = threads, .verbose = false};
    return iop_exact_solve_ex(m, warm_start, warm_cost, &o, x_out, cost_out, lower_bound_out, proven_optimal,
                              NULL, err);
}
