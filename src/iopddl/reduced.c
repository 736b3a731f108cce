/* reduced.c: owns the exact solver's reduced model (reduced.h): its state,
 * the operations the presolve's reductions are made of, and the mapping of
 * answers into it (a warm start) and out of it (the MIP's answer). */
#include <stdlib.h>
#include <string.h>
#include "iopddl/reduced.h"

void iopddl_reduced_drop(iopddl_reduced *c, uint32_t r, uint32_t s)
{
    uint32_t k = base(c, r) + s;
    if (!c->alive[k])
        return;
    c->alive[k] = 0;
    if (--c->alive_count[r] == 0)
        c->infeasible = true;
}

static bool adj_push(iopddl_reduced *c, uint32_t r, uint32_t id)
{
    idlist *l = &c->adj[r];
    if (!iopddl_grow((void **)&l->ids, &l->cap, l->len + 1, sizeof *l->ids)) {
        c->oom = true;
        return false;
    }
    l->ids[l->len++] = id;
    return true;
}

/* Drops dead pairs from r's list and returns its live length. */
size_t iopddl_reduced_live_pairs(iopddl_reduced *c, uint32_t r)
{
    idlist *l = &c->adj[r];
    size_t k = 0;
    for (size_t i = 0; i < l->len; i++)
        if (!c->pairs[l->ids[i]].dead)
            l->ids[k++] = l->ids[i];
    l->len = k;
    return k;
}

uint32_t iopddl_reduced_add_pair(iopddl_reduced *c, uint32_t a, uint32_t b, int64_t *cost)
{
    if (!iopddl_grow((void **)&c->pairs, &c->pair_cap, c->pair_count + 1, sizeof *c->pairs)) {
        c->oom = true;
        return NONE;
    }
    uint32_t id = (uint32_t)c->pair_count++;
    c->pairs[id] = (xpair){a, b, cost, false};
    if (!adj_push(c, a, id) || !adj_push(c, b, id))
        return NONE;
    return id;
}

uint32_t iopddl_reduced_find_pair(iopddl_reduced *c, uint32_t a, uint32_t w)
{
    size_t len = iopddl_reduced_live_pairs(c, a);
    for (size_t i = 0; i < len; i++) {
        uint32_t id = c->adj[a].ids[i];
        if (other(&c->pairs[id], a) == w)
            return id;
    }
    return NONE;
}

bool iopddl_reduced_log(iopddl_reduced *c, uint8_t kind, uint32_t node, uint32_t from, uint32_t to)
{
    if (!iopddl_grow((void **)&c->steps, &c->step_cap, c->step_count + 1, sizeof *c->steps)) {
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
bool iopddl_reduced_pieces(iopddl_reduced *c, uint32_t r)
{
    const iopddl_model *m = c->m;
    size_t ev = 0;
    for (uint32_t v = r; v != NONE; v = c->next_member[v]) {
        if (m->seg_lo[v] >= m->seg_hi[v])
            continue;
        if (!iopddl_grow((void **)&c->events, &c->event_cap, ev + 2, sizeof *c->events))
            return !(c->oom = true);
        c->events[ev++] = (xevent){m->seg_lo[v], v, 1};
        c->events[ev++] = (xevent){m->seg_hi[v], v, -1};
    }
    if (ev > 0)
        qsort(c->events, ev, sizeof *c->events, by_event);
    uint32_t d = dom(c, r);
    if (!iopddl_grow((void **)&c->pc_lo, &c->pc_cap, ev + 1, sizeof *c->pc_lo) ||
        !iopddl_grow((void **)&c->pc_hi, &c->pc_hi_cap, ev + 1, sizeof *c->pc_hi) ||
        !iopddl_grow((void **)&c->pc_vec, &c->vec_cap, (ev + 2) * (size_t)d, sizeof *c->pc_vec))
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

void iopddl_reduced_range(const iopddl_reduced *c, uint32_t r, const pp_int128 *vec, pp_int128 *lo, pp_int128 *hi)
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

uint32_t iopddl_reduced_first_alive(const iopddl_reduced *c, uint32_t r)
{
    for (uint32_t s = 0; s < dom(c, r); s++)
        if (c->alive[base(c, r) + s])
            return s;
    return 0;
}

void iopddl_reduced_free(iopddl_reduced *c)
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

bool iopddl_reduced_out_of_time(iopddl_reduced *c)
{
    if (!c->stopped && c->deadline && (c->ticks++ & 15) == 0)
        c->stopped = pp_deadline_passed(c->deadline);
    return c->stopped;
}

bool iopddl_reduced_init_until(iopddl_reduced *c, const iopddl_model *m, const pp_deadline *deadline,
                               iopddl_exact_stats *st)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->st = st;
    c->deadline = deadline;
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
        if (iopddl_reduced_out_of_time(c))
            return false;
        size_t cells = m->pair_start[q + 1] - m->pair_start[q];
        int64_t *table = pp_arena_alloc(A, (cells + 1) * sizeof *table);
        if (!table)
            return false;
        memcpy(table, m->pair_cost + m->pair_start[q], cells * sizeof *table);
        if (iopddl_reduced_add_pair(c, m->pair_a[q], m->pair_b[q], table) == NONE)
            return false;
    }
    return true;
}

/* The warm start carried through the presolve's merges and dominance steps
 * onto the representatives (sr holds one strategy per node id). */
bool iopddl_reduced_warm(const iopddl_reduced *c, const uint32_t *warm, uint32_t *sr)
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
void iopddl_reduced_expand(const iopddl_reduced *c, uint32_t *sr, uint32_t *x)
{
    for (uint32_t r = 0; r < c->n; r++)
        if (c->state[r] == ST_FIXED)
            sr[r] = iopddl_reduced_first_alive(c, r);
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

pp_int128 iopddl_reduced_fixed_cost(const iopddl_reduced *c)
{
    pp_int128 total = 0;
    for (uint32_t r = 0; r < c->n; r++)
        if (c->state[r] == ST_FIXED)
            total += c->unary[base(c, r) + iopddl_reduced_first_alive(c, r)];
    return total;
}
