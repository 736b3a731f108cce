/* presolve.c: owns the exact solver's presolve, which shrinks the reduced
 * model (reduced.h) while keeping an optimal answer: forbidden, unreachable
 * and over-the-limit strategies removed; nodes tied to a neighbour by an
 * edge that allows one strategy per row merged into it; dominated
 * strategies removed; nodes with one strategy folded away; usage-free nodes
 * of degree one or two eliminated by minimisation. Merges and dominance
 * steps are logged so that a warm start can be carried in. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/reduced.h"

/* Degree-two elimination makes a table over the two neighbours: cap its size. */
#define ELIM2_MAX_CELLS 4096
#define MAX_ROUNDS 100

/* Sums of least and greatest usage per segment; removes strategies that
 * cannot fit even with every other node at its least usage; marks
 * representatives whose usage varies on a segment that can overflow. */
static bool usage_scan(iopddl_reduced *c, bool *changed)
{
    const iopddl_model *m = c->m;
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
        if (iopddl_reduced_out_of_time(c))
            return true; /* the presolve stops: the sums are not read */
        if (c->state[r] == ST_MEMBER)
            continue;
        if (!iopddl_reduced_pieces(c, r))
            return false;
        for (size_t p = 0; p < c->pc_count; p++) {
            pp_int128 lo, hi;
            iopddl_reduced_range(c, r, c->pc_vec + p * dom(c, r), &lo, &hi);
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
    for (uint32_t r = 0; r < c->n && !iopddl_reduced_out_of_time(c); r++) {
        if (c->state[r] != ST_FREE)
            continue;
        if (!iopddl_reduced_pieces(c, r))
            return false;
        uint32_t d = dom(c, r);
        for (size_t p = 0; p < c->pc_count; p++) {
            uint32_t lo_t = c->pc_lo[p], hi_t = c->pc_hi[p];
            if (c->constrained_prefix[hi_t] == c->constrained_prefix[lo_t])
                continue; /* no segment here can overflow: nothing to remove or mark */
            const pp_int128 *vec = c->pc_vec + p * d;
            pp_int128 lo, hi, worst = c->smin[lo_t];
            iopddl_reduced_range(c, r, vec, &lo, &hi);
            if (hi > lo)
                c->relevant[r] = true;
            for (uint32_t t = lo_t + 1; t < hi_t; t++)
                worst = c->smin[t] > worst ? c->smin[t] : worst;
            for (uint32_t s = 0; s < d; s++)
                if (c->alive[base(c, r) + s] && vec[s] - lo > (pp_int128)m->limit - worst) {
                    iopddl_reduced_drop(c, r, s);
                    c->st->strategies_removed++;
                    *changed = true;
                }
        }
    }
    return true;
}

/* Fixed representatives are checked too: fixing two neighbours in one pass
 * folds the pair into the second one's unary cost after it was checked. */
static void kill_forbidden(iopddl_reduced *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n && !iopddl_reduced_out_of_time(c); r++) {
        if (c->state[r] != ST_FREE && c->state[r] != ST_FIXED)
            continue;
        for (uint32_t s = 0; s < dom(c, r); s++)
            if (c->alive[base(c, r) + s] && c->unary[base(c, r) + s] >= FORBID) {
                iopddl_reduced_drop(c, r, s);
                c->st->strategies_removed++;
                *changed = true;
            }
    }
}

/* A strategy whose every allowed partner across some pair is gone cannot be used. */
static void arc_consistency(iopddl_reduced *c, bool *changed)
{
    for (size_t id = 0; id < c->pair_count && !iopddl_reduced_out_of_time(c); id++) {
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
                    iopddl_reduced_drop(c, r, s);
                    c->st->strategies_removed++;
                    *changed = true;
                }
            }
        }
    }
}

/* A node with one strategy left leaves the MIP: its pairs become unary costs. */
static void fix_singletons(iopddl_reduced *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n && !iopddl_reduced_out_of_time(c); r++) {
        if (c->state[r] != ST_FREE || c->alive_count[r] != 1)
            continue;
        uint32_t s0 = iopddl_reduced_first_alive(c, r);
        size_t len = iopddl_reduced_live_pairs(c, r);
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
static bool functional(const iopddl_reduced *c, const xpair *q, uint32_t r, uint32_t *f)
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
static void merge(iopddl_reduced *c, uint32_t qid, uint32_t a, const uint32_t *f)
{
    uint32_t b = other(&c->pairs[qid], a), da = dom(c, a);
    for (uint32_t s = 0; s < da; s++)
        if (c->alive[base(c, a) + s])
            c->unary[base(c, a) + s] = sat(sat(c->unary[base(c, a) + s], c->unary[base(c, b) + f[s]]),
                                           *cell(c, &c->pairs[qid], a, s, f[s]));
    c->pairs[qid].dead = true;
    c->relevant[a] = c->relevant[a] || c->relevant[b];
    size_t len = iopddl_reduced_live_pairs(c, b);
    for (size_t i = 0; i < len && !c->oom; i++) {
        uint32_t pid = c->adj[b].ids[i];
        uint32_t w = other(&c->pairs[pid], b), dw = dom(c, w);
        uint32_t existing = iopddl_reduced_find_pair(c, a, w);
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
            if (iopddl_reduced_add_pair(c, a, w, table) == NONE)
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
    iopddl_reduced_log(c, STEP_MERGE, b, 0, a);
}

static void merge_functional(iopddl_reduced *c, bool *changed)
{
    uint32_t *fa = c->tmp_f, *fb = c->tmp_f + c->max_domain;
    for (size_t id = 0; id < c->pair_count && !c->oom && !iopddl_reduced_out_of_time(c); id++) {
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
static void fold_additive(iopddl_reduced *c, bool *changed)
{
    int64_t *row = c->tmp_a, *col = c->tmp_b;
    for (size_t id = 0; id < c->pair_count && !iopddl_reduced_out_of_time(c); id++) {
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
static bool dominates(iopddl_reduced *c, uint32_t r, uint32_t s2, uint32_t s, const bool *piece_on)
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

static bool dominance(iopddl_reduced *c, bool *changed)
{
    bool *piece_on = NULL;
    int piece_cap = 0;
    for (uint32_t r = 0; r < c->n && !c->oom && !iopddl_reduced_out_of_time(c); r++) {
        if (c->state[r] != ST_FREE || c->alive_count[r] < 2)
            continue;
        iopddl_reduced_live_pairs(c, r);
        c->pc_count = 0;
        if (c->relevant[r]) {
            if (!iopddl_reduced_pieces(c, r))
                break;
            if (!iopddl_grow((void **)&piece_on, &piece_cap, c->pc_count + 1, sizeof *piece_on)) {
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
                iopddl_reduced_drop(c, r, s);
                c->st->strategies_dominated++;
                iopddl_reduced_log(c, STEP_DOMINATE, r, s, s2);
                *changed = true;
                break;
            }
        }
    }
    free(piece_on);
    return !c->oom;
}

static bool push_elim(iopddl_reduced *c, uint32_t r, uint32_t n1, uint32_t n2, uint32_t *choice)
{
    if (!iopddl_grow((void **)&c->elims, &c->elim_cap, c->elim_count + 1, sizeof *c->elims)) {
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
static void eliminate(iopddl_reduced *c, bool *changed)
{
    for (uint32_t r = 0; r < c->n && !c->oom && !iopddl_reduced_out_of_time(c); r++) {
        if (c->state[r] != ST_FREE || c->relevant[r])
            continue;
        size_t deg = iopddl_reduced_live_pairs(c, r);
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
                choice[t] = iopddl_reduced_first_alive(c, r);
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
                uint32_t arg = iopddl_reduced_first_alive(c, r);
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
        uint32_t existing = iopddl_reduced_find_pair(c, w1, w2);
        if (existing == NONE) {
            if (iopddl_reduced_add_pair(c, w1, w2, table) == NONE)
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

bool iopddl_presolve(iopddl_reduced *c)
{
    bool changed = true;
    int rounds = 0;
    if (c->m->has_limit && c->m->limit < 0)
        c->infeasible = true; /* the contest's peak is never below zero */
    while (changed && !c->infeasible && !c->oom && !c->stopped && rounds < MAX_ROUNDS) {
        changed = false;
        rounds++;
        kill_forbidden(c, &changed);
        if (c->infeasible)
            break;
        arc_consistency(c, &changed);
        if (c->infeasible || !usage_scan(c, &changed) || c->infeasible)
            break;
        fix_singletons(c, &changed);
        if (!(c->off & IOPDDL_EXACT_NO_MERGE))
            merge_functional(c, &changed);
        if (c->oom || c->infeasible)
            break;
        fold_additive(c, &changed);
        if (!(c->off & IOPDDL_EXACT_NO_DOMINANCE) && !dominance(c, &changed))
            break;
        if (!(c->off & IOPDDL_EXACT_NO_ELIMINATION))
            eliminate(c, &changed);
    }
    /* If the round limit cut the loop short, forbidden unary costs may be
     * left: no MIP column may carry one. */
    if (!c->infeasible && !c->oom) {
        bool ignored = false;
        kill_forbidden(c, &ignored);
    }
    c->st->presolve_rounds = rounds;
    return !c->oom && !c->stopped;
}

bool iopddl_presolve_model(iopddl_reduced *c, const iopddl_model *m, const pp_deadline *deadline,
                           iopddl_exact_stats *st)
{
    memset(st, 0, sizeof *st);
    return iopddl_reduced_init_until(c, m, deadline, st) && iopddl_presolve(c) && !c->infeasible;
}
