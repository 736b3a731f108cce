/* exact_mip.c: owns the exact solver's MIP (exact_mip.h): its columns and
 * rows built over the reduced model as a neutral MIP (core/lp.h), the
 * usage rows filtered by their neighbours, the plain formulation's size for
 * comparison, and the strategies read back from CBC's column values. */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "iopddl/exact_mip.h"
#include "iopddl/polytope.h"

void iopddl_exact_raw_size(iopddl_reduced *c)
{
    const iopddl_model *m = c->m;
    iopddl_exact_stats *st = c->st;
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

/* One candidate usage row: usage per strategy of every free representative
 * live in the segment (sorted by strategy index) plus the usage of the rest. */
typedef struct {
    bool present;
    uint32_t segment;
    pp_int128 rest;
    uint32_t *key, *owner;
    pp_int128 *val;
    size_t len;
    int cap;
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
    iopddl_reduced *c;
    pp_lp *lp;
    const int *xcol;
    bool *doubles_exact;
} emitter;

/* Adds row u as "sum of (usage - least usage) x <= limit - least total",
 * unless it can no longer overflow. Strategies of one owner are adjacent. */
static void emit_urow(emitter *e, const urow *u)
{
    iopddl_reduced *c = e->c;
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
    if (spread >= IOPDDL_EXACT_DOUBLE || room >= IOPDDL_EXACT_DOUBLE)
        *e->doubles_exact = false;
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
static bool urow_build(iopddl_reduced *c, urow *u, uint32_t t, const uint32_t *live, size_t live_count,
                       pp_int128 *acc, uint32_t *stamp, uint32_t *touched)
{
    const iopddl_model *m = c->m;
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
            iopddl_reduced_range(c, r, acc + base(c, r), &lo, &hi);
            u->rest += hi;
            continue;
        }
        for (uint32_t s = 0; s < dom(c, r); s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            int c1 = u->cap, c2 = u->cap;
            if (!iopddl_grow((void **)&u->key, &c1, u->len + 1, sizeof *u->key) ||
                !iopddl_grow((void **)&u->val, &c2, u->len + 1, sizeof *u->val) ||
                !iopddl_grow((void **)&u->owner, &u->cap, u->len + 1, sizeof *u->owner))
                return false;
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
static bool usage_rows(iopddl_reduced *c, emitter *e)
{
    const iopddl_model *m = c->m;
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
        if (c->off & IOPDDL_EXACT_NO_ROW_FILTER)
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

void iopddl_exact_mip_free(iopddl_exact_mip *p)
{
    pp_lp_free(&p->lp);
    free(p->xcol);
}

/* What to take off every column of a table whose allowed entries run from
 * least to most (exact_mip.h): its least, where its entries pass 2^53;
 * elsewhere nothing, so that CBC sees (and searches) what it did before. */
static int64_t table_shift(iopddl_exact_mip *p, int64_t least, int64_t most)
{
    int64_t off = most >= IOPDDL_EXACT_DOUBLE ? least : 0;
    p->shift += off;
    p->reach += (pp_int128)most - off;
    return off;
}

/* x columns and the assignment rows. */
static void x_columns(iopddl_reduced *c, iopddl_exact_mip *p)
{
    for (uint32_t r = 0; r < c->n && pp_lp_ok(&p->lp); r++) {
        if (c->state[r] != ST_FREE)
            continue;
        int row = pp_lp_row(&p->lp, 1.0, 1.0);
        int64_t least = INT64_MAX;
        for (uint32_t s = 0; s < dom(c, r); s++)
            if (c->alive[base(c, r) + s] && c->unary[base(c, r) + s] < least)
                least = c->unary[base(c, r) + s];
        least = least == INT64_MAX ? 0 : least; /* nothing alive: the presolve said infeasible */
        int64_t most = least;
        for (uint32_t s = 0; s < dom(c, r); s++)
            if (c->alive[base(c, r) + s] && c->unary[base(c, r) + s] > most)
                most = c->unary[base(c, r) + s];
        least = table_shift(p, least, most);
        for (uint32_t s = 0; s < dom(c, r); s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            int col = pp_lp_col(&p->lp, 0.0, 1.0, (double)(c->unary[base(c, r) + s] - least), true);
            pp_lp_entry(&p->lp, row, col, 1.0);
            p->xcol[base(c, r) + s] = col;
        }
    }
}

/* Pair q's marginal rows and its y columns (polytope.h). The ends are free
 * representatives (a pair to a fixed or eliminated node is dead), so
 * their x columns are there exactly where a strategy is alive. */
static void y_columns(iopddl_reduced *c, iopddl_exact_mip *p, const xpair *q, int *row_a, int *row_b)
{
    pp_lp *l = &p->lp;
    uint32_t a = q->a, b = q->b, da = dom(c, a), db = dom(c, b);
    iopddl_polytope_rows(l, p->xcol + base(c, a), da, p->xcol + base(c, b), db, row_a, row_b);
    int64_t least = INT64_MAX;
    for (uint32_t s = 0; s < da; s++)
        for (uint32_t t = 0; t < db && c->alive[base(c, a) + s]; t++)
            if (c->alive[base(c, b) + t] && q->cost[(size_t)s * db + t] < least)
                least = q->cost[(size_t)s * db + t];
    int64_t most = 0;
    for (uint32_t s = 0; s < da; s++)
        for (uint32_t t = 0; t < db && c->alive[base(c, a) + s]; t++)
            if (c->alive[base(c, b) + t] && q->cost[(size_t)s * db + t] < FORBID && q->cost[(size_t)s * db + t] > most)
                most = q->cost[(size_t)s * db + t];
    /* No allowed entry: no column, and the MIP is infeasible. */
    least = least < FORBID ? table_shift(p, least, most) : 0;
    for (uint32_t s = 0; s < da && pp_lp_ok(l); s++) {
        if (!c->alive[base(c, a) + s])
            continue;
        for (uint32_t t = 0; t < db; t++) {
            int64_t x = q->cost[(size_t)s * db + t];
            if (!c->alive[base(c, b) + t] || x >= FORBID)
                continue;
            iopddl_polytope_entry(l, row_a, row_b, s, t, (double)(x - least), DBL_MAX);
        }
    }
}

static bool pair_columns(iopddl_reduced *c, iopddl_exact_mip *p)
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

pp_status iopddl_exact_mip_build(iopddl_reduced *c, iopddl_exact_mip *p, uint64_t max_nonzeros, pp_error *err)
{
    uint32_t n = c->n;
    size_t strategies = c->m->dom_start[n];
    /* CBC indexes with int: the cap also keeps every count in range. */
    pp_lp_init(&p->lp, max_nonzeros < (uint64_t)INT_MAX / 2 ? (int)max_nonzeros : INT_MAX / 2);
    p->shift = p->reach = 0;
    p->doubles_exact = true;
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
    emitter e = {.c = c, .lp = &p->lp, .xcol = p->xcol, .doubles_exact = &p->doubles_exact};
    ok = ok && pp_lp_ok(&p->lp) && pair_columns(c, p) && pp_lp_ok(&p->lp) && usage_rows(c, &e);
    if (p->reach >= IOPDDL_EXACT_DOUBLE)
        p->doubles_exact = false;
    if (ok && pp_lp_ok(&p->lp)) {
        c->st->columns = (uint64_t)p->lp.cols;
        c->st->rows = (uint64_t)p->lp.rows;
        c->st->nonzeros = (uint64_t)p->lp.nz;
        c->st->integer_columns = (uint64_t)integers;
        return PP_OK;
    }
    bool too_large = p->lp.too_large;
    int limit = p->lp.nz_limit;
    iopddl_exact_mip_free(p);
    if (too_large)
        return pp_error_set(err, PP_EARG,
                            "exact solver: the reduced MIP has more than %d nonzeros (%u free nodes, %u pairs); "
                            "raise max_nonzeros to try CBC on it",
                            limit, c->st->free_nodes, c->st->pairs);
    return pp_error_set(err, PP_ENOMEM, "out of memory building the exact model");
}

/* The strategy of every free representative in CBC's column values (the x
 * column above one half); false when some representative has none. */
bool iopddl_exact_mip_strategies(const iopddl_reduced *c, const iopddl_exact_mip *p, const double *x, uint32_t *sr)
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

