/* presolved.c: owns the presolved problem (presolved.h).
 *
 * Why: the presolve shrinks C's 32,894 nodes to 194 free representatives
 * and 400 pair tables (A 186, L 728), merging each tied group into one
 * node and leaving usage-free nodes as best replies to their neighbours.
 * The relaxation on that problem without its usage finds C's pairwise part
 * at 8.35e10 in a second, where on the model it stalls above 1.07e11: a
 * move of one representative moves a whole group and re-optimises what
 * hangs off it. Usage comes along exactly where it matters: a
 * representative's pieces (maximal runs of segments over which the same
 * members are live) become nodes of their own, each decided by its
 * representative through a table that allows one column per row, and the
 * usage nobody's choice changes on a segment that can overflow becomes
 * nodes with one strategy. Times of the problem are the model's segment
 * indices. Segments that cannot overflow get no fixed usage: no choice
 * among the alive strategies takes them past the limit. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/presolved.h"
#include "iopddl/reduced.h"

struct iopddl_presolved {
    const iopddl_model *m;
    iopddl_reduced *c;                /* the caller's presolve */
    pp_iopddl_problem *p;
    uint32_t count;                   /* free representatives: the problem's first nodes */
    uint32_t *rep;                    /* problem node -> representative */
    uint32_t *alive_start, *strategy; /* node i's strategy k is strategy[alive_start[i] + k] */
    uint32_t pieces;                  /* piece nodes, after the representatives */
    uint32_t *piece_owner;            /* piece -> its representative's problem node */
    uint64_t *choice_start;           /* piece's strategy per owner strategy k: choice[choice_start + k] */
    uint32_t *choice;
    uint32_t *sr;                     /* scratch, per model node */
    int64_t constant;
};

/* What the problem holds, counted before it is filled. */
typedef struct {
    uint32_t nodes, pieces, runs;
    uint64_t strategies, edges, cells, choices;
} sizes;

/* Does piece p of r (just computed) vary where the limit can be exceeded? */
static bool piece_counts(const iopddl_reduced *c, uint32_t r, size_t p)
{
    if (c->constrained_prefix[c->pc_hi[p]] == c->constrained_prefix[c->pc_lo[p]])
        return false;
    pp_int128 lo, hi;
    iopddl_reduced_range(c, r, c->pc_vec + p * dom(c, r), &lo, &hi);
    return hi > lo;
}

/* The distinct usages of piece p of r over its alive strategies: their
 * count, and for each alive k the index of its usage in `values` (sorted
 * by first appearance). */
static uint32_t piece_values(const iopddl_reduced *c, uint32_t r, size_t p, pp_int128 *values, uint32_t *of)
{
    const pp_int128 *vec = c->pc_vec + p * dom(c, r);
    const uint8_t *alive = c->alive + base(c, r);
    uint32_t count = 0, k = 0;
    for (uint32_t s = 0; s < dom(c, r); s++) {
        if (!alive[s])
            continue;
        uint32_t v = 0;
        while (v < count && values[v] != vec[s])
            v++;
        if (v == count)
            values[count++] = vec[s];
        of[k++] = v;
    }
    return count;
}

/* The usage no choice changes, on segments that can overflow: the
 * profile of one expansion less its varying pieces. */
static int64_t *fixed_usage(iopddl_presolved *s, const uint32_t *index, pp_int128 *values, uint32_t *of)
{
    iopddl_reduced *c = s->c;
    const iopddl_model *m = s->m;
    uint32_t T = m->segment_count;
    pp_int128 *diff = calloc((size_t)T + 1, sizeof *diff);
    int64_t *fixed = malloc(((size_t)T + 1) * sizeof *fixed);
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    if (!diff || !fixed || !x) {
        free(diff);
        free(x);
        free(fixed);
        return NULL;
    }
    for (uint32_t i = 0; i < s->count; i++)
        s->sr[s->rep[i]] = s->strategy[s->alive_start[i]];
    iopddl_reduced_expand(c, s->sr, x);
    for (uint32_t v = 0; v < m->node_count; v++)
        if (m->seg_lo[v] < m->seg_hi[v]) {
            diff[m->seg_lo[v]] += m->usage[m->dom_start[v] + x[v]];
            diff[m->seg_hi[v]] -= m->usage[m->dom_start[v] + x[v]];
        }
    bool ok = true;
    for (uint32_t r = 0; r < c->n && ok; r++) {
        if (index[r] == NONE || !c->relevant[r])
            continue;
        ok = iopddl_reduced_pieces(c, r);
        for (size_t p = 0; ok && p < c->pc_count; p++)
            if (piece_counts(c, r, p)) {
                piece_values(c, r, p, values, of);
                pp_int128 u = values[of[0]]; /* alive index 0: the expansion's strategy */
                diff[c->pc_lo[p]] -= u;
                diff[c->pc_hi[p]] += u;
            }
    }
    pp_int128 run = 0;
    for (uint32_t t = 0; t < T; t++) {
        run += diff[t];
        fixed[t] = c->constrained[t] ? (int64_t)run : 0;
    }
    free(diff);
    free(x);
    if (!ok) {
        free(fixed);
        return NULL;
    }
    return fixed;
}

/* The problem's arrays, sized. */
static bool allocate(pp_iopddl_problem *p, const sizes *z)
{
    pp_arena *A = p->arena;
    size_t n = z->nodes;
    p->node_count = z->nodes;
    p->edge_count = (uint32_t)z->edges;
    p->interval_start = pp_arena_calloc(A, n + 1, sizeof *p->interval_start);
    p->interval_end = pp_arena_calloc(A, n + 1, sizeof *p->interval_end);
    p->strategy_start = pp_arena_alloc(A, (n + 1) * sizeof *p->strategy_start);
    p->node_cost = pp_arena_calloc(A, z->strategies + 1, sizeof *p->node_cost);
    p->node_usage = pp_arena_calloc(A, z->strategies + 1, sizeof *p->node_usage);
    p->edge_node_start = pp_arena_alloc(A, (z->edges + 1) * sizeof *p->edge_node_start);
    p->edge_nodes = pp_arena_alloc(A, (2 * z->edges + 1) * sizeof *p->edge_nodes);
    p->edge_cost_start = pp_arena_alloc(A, (z->edges + 1) * sizeof *p->edge_cost_start);
    p->edge_cost = pp_arena_alloc(A, (z->cells + 1) * sizeof *p->edge_cost);
    return p->interval_start && p->interval_end && p->strategy_start && p->node_cost && p->node_usage &&
           p->edge_node_start && p->edge_nodes && p->edge_cost_start && p->edge_cost;
}

/* Representatives' nodes: strategies, unary costs and the pair tables. */
static void fill_representatives(iopddl_presolved *s, const uint32_t *index, uint64_t *strategies, uint64_t *edges,
                                 uint64_t *cells)
{
    iopddl_reduced *c = s->c;
    pp_iopddl_problem *p = s->p;
    for (uint32_t i = 0; i < s->count; i++) {
        uint32_t r = s->rep[i];
        p->strategy_start[i] = *strategies;
        for (uint32_t k = s->alive_start[i]; k < s->alive_start[i + 1]; k++)
            p->node_cost[(*strategies)++] = c->unary[base(c, r) + s->strategy[k]];
    }
    for (size_t id = 0; id < c->pair_count; id++) {
        const xpair *q = &c->pairs[id];
        if (q->dead)
            continue;
        uint32_t ia = index[q->a], ib = index[q->b], db = dom(c, q->b);
        p->edge_node_start[*edges] = 2 * *edges;
        p->edge_nodes[2 * *edges] = ia;
        p->edge_nodes[2 * *edges + 1] = ib;
        p->edge_cost_start[(*edges)++] = *cells;
        for (uint32_t ka = s->alive_start[ia]; ka < s->alive_start[ia + 1]; ka++)
            for (uint32_t kb = s->alive_start[ib]; kb < s->alive_start[ib + 1]; kb++)
                p->edge_cost[(*cells)++] = q->cost[(size_t)s->strategy[ka] * db + s->strategy[kb]];
    }
}

/* Piece nodes, each tied to its representative. */
static bool fill_pieces(iopddl_presolved *s, const uint32_t *index, pp_int128 *values, uint32_t *of,
                        uint64_t *strategies, uint64_t *edges, uint64_t *cells)
{
    iopddl_reduced *c = s->c;
    pp_iopddl_problem *p = s->p;
    uint32_t node = s->count, piece = 0;
    uint64_t choices = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        if (index[r] == NONE || !c->relevant[r])
            continue;
        if (!iopddl_reduced_pieces(c, r))
            return false;
        uint32_t i = index[r], d = s->alive_start[i + 1] - s->alive_start[i];
        for (size_t pc = 0; pc < c->pc_count; pc++) {
            if (!piece_counts(c, r, pc))
                continue;
            uint32_t u = piece_values(c, r, pc, values, of);
            p->interval_start[node] = c->pc_lo[pc];
            p->interval_end[node] = c->pc_hi[pc];
            p->strategy_start[node] = *strategies;
            for (uint32_t v = 0; v < u; v++)
                p->node_usage[(*strategies)++] = (int64_t)values[v];
            s->piece_owner[piece] = i;
            s->choice_start[piece] = choices;
            memcpy(s->choice + choices, of, d * sizeof *of);
            choices += d;
            p->edge_node_start[*edges] = 2 * *edges;
            p->edge_nodes[2 * *edges] = i;
            p->edge_nodes[2 * *edges + 1] = node;
            p->edge_cost_start[(*edges)++] = *cells;
            for (uint32_t k = 0; k < d; k++)
                for (uint32_t v = 0; v < u; v++)
                    p->edge_cost[(*cells)++] = of[k] == v ? 0 : FORBID;
            node++;
            piece++;
        }
    }
    return true;
}

/* Fixed usage: one node with one strategy per run of equal nonzero usage. */
static void fill_fixed(iopddl_presolved *s, const int64_t *fixed, uint32_t node, uint64_t strategies)
{
    pp_iopddl_problem *p = s->p;
    uint32_t T = s->m->segment_count;
    for (uint32_t t = 0; t < T;) {
        uint32_t end = t + 1;
        while (end < T && fixed[end] == fixed[t])
            end++;
        if (fixed[t] != 0) {
            p->interval_start[node] = t;
            p->interval_end[node] = end;
            p->strategy_start[node++] = strategies;
            p->node_usage[strategies++] = fixed[t];
        }
        t = end;
    }
    p->strategy_start[node] = strategies;
}

/* Counts the problem's nodes, strategies, edges and cells. */
static bool count_sizes(iopddl_presolved *s, const uint32_t *index, const int64_t *fixed, pp_int128 *values,
                        uint32_t *of, sizes *z)
{
    iopddl_reduced *c = s->c;
    memset(z, 0, sizeof *z);
    z->nodes = s->count;
    z->strategies = s->alive_start[s->count];
    for (size_t id = 0; id < c->pair_count; id++)
        if (!c->pairs[id].dead) {
            const xpair *q = &c->pairs[id];
            z->edges++;
            z->cells += (uint64_t)c->alive_count[q->a] * c->alive_count[q->b];
        }
    for (uint32_t r = 0; r < c->n; r++) {
        if (index[r] == NONE || !c->relevant[r])
            continue;
        if (!iopddl_reduced_pieces(c, r))
            return false;
        for (size_t p = 0; p < c->pc_count; p++)
            if (piece_counts(c, r, p)) {
                uint32_t u = piece_values(c, r, p, values, of);
                z->pieces++;
                z->strategies += u;
                z->edges++;
                z->cells += (uint64_t)u * c->alive_count[r];
                z->choices += c->alive_count[r];
            }
    }
    uint32_t T = s->m->segment_count;
    for (uint32_t t = 0; t < T; t++)
        z->runs += fixed[t] != 0 && (t == 0 || fixed[t] != fixed[t - 1]);
    z->nodes += z->pieces + z->runs;
    z->strategies += z->runs;
    return true;
}

/* The free representatives and their alive strategies; index[r] their
 * problem node (NONE for the others). */
static bool list_representatives(iopddl_presolved *s, uint32_t *index)
{
    iopddl_reduced *c = s->c;
    pp_arena *A = s->p->arena;
    size_t alive = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        index[r] = NONE;
        if (c->state[r] == ST_FREE) {
            index[r] = s->count++;
            alive += c->alive_count[r];
        }
    }
    s->rep = pp_arena_alloc(A, ((size_t)s->count + 1) * sizeof *s->rep);
    s->alive_start = pp_arena_alloc(A, ((size_t)s->count + 1) * sizeof *s->alive_start);
    s->strategy = pp_arena_alloc(A, (alive + 1) * sizeof *s->strategy);
    if (!s->rep || !s->alive_start || !s->strategy)
        return false;
    uint32_t k = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        if (index[r] == NONE)
            continue;
        s->rep[index[r]] = r;
        s->alive_start[index[r]] = k;
        for (uint32_t t = 0; t < dom(c, r); t++)
            if (c->alive[base(c, r) + t])
                s->strategy[k++] = t;
        /* Every live pair joins free representatives: fixed and eliminated
         * ones were folded into their neighbours. */
        size_t len = iopddl_reduced_live_pairs(c, r);
        for (size_t e = 0; e < len; e++)
            if (c->state[other(&c->pairs[c->adj[r].ids[e]], r)] != ST_FREE)
                return false;
    }
    s->alive_start[s->count] = k;
    return s->count > 0;
}

static bool build(iopddl_presolved *s, double max_free_share, uint64_t max_cells)
{
    iopddl_reduced *c = s->c;
    uint32_t free_count = 0;
    for (uint32_t r = 0; r < c->n; r++)
        free_count += c->state[r] == ST_FREE;
    if ((double)free_count > max_free_share * (double)s->m->node_count)
        return false;
    uint32_t *index = malloc(((size_t)c->n + 1) * sizeof *index);
    pp_int128 *values = malloc(((size_t)c->max_domain + 1) * sizeof *values);
    uint32_t *of = malloc(((size_t)c->max_domain + 1) * sizeof *of);
    int64_t *fixed = NULL;
    sizes z;
    bool ok = index && values && of && list_representatives(s, index) && (fixed = fixed_usage(s, index, values, of)) &&
              count_sizes(s, index, fixed, values, of, &z) && z.cells <= max_cells && allocate(s->p, &z);
    if (ok) {
        s->pieces = z.pieces;
        s->piece_owner = pp_arena_alloc(s->p->arena, ((size_t)z.pieces + 1) * sizeof *s->piece_owner);
        s->choice_start = pp_arena_alloc(s->p->arena, ((size_t)z.pieces + 1) * sizeof *s->choice_start);
        s->choice = pp_arena_alloc(s->p->arena, (z.choices + 1) * sizeof *s->choice);
        ok = s->piece_owner && s->choice_start && s->choice;
    }
    uint64_t strategies = 0, edges = 0, cells = 0;
    if (ok) {
        fill_representatives(s, index, &strategies, &edges, &cells);
        ok = fill_pieces(s, index, values, of, &strategies, &edges, &cells);
    }
    if (ok) {
        fill_fixed(s, fixed, s->count + s->pieces, strategies);
        s->p->edge_node_start[edges] = 2 * edges;
        s->p->edge_cost_start[edges] = cells;
        s->p->has_usage_limit = s->m->has_limit;
        s->p->usage_limit = s->m->limit;
        s->constant = (int64_t)iopddl_reduced_fixed_cost(c);
    }
    free(index);
    free(values);
    free(of);
    free(fixed);
    return ok;
}

iopddl_presolved *iopddl_presolved_new(iopddl_reduced *c, double max_free_share, uint64_t max_cells)
{
    const iopddl_model *m = c->m;
    iopddl_presolved *s = calloc(1, sizeof *s);
    pp_arena *arena = pp_arena_new(1 << 16);
    pp_iopddl_problem *p = arena ? pp_arena_calloc(arena, 1, sizeof *p) : NULL;
    if (!s || !p) {
        free(s);
        pp_arena_free(arena);
        return NULL;
    }
    p->arena = arena;
    s->m = m;
    s->c = c;
    s->p = p;
    s->sr = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof *s->sr);
    bool ok = s->sr && build(s, max_free_share, max_cells);
    if (!ok) {
        iopddl_presolved_free(s);
        return NULL;
    }
    return s;
}

void iopddl_presolved_free(iopddl_presolved *s)
{
    if (!s)
        return;
    pp_iopddl_free(s->p);
    free(s);
}

const pp_iopddl_problem *iopddl_presolved_problem(const iopddl_presolved *s) { return s->p; }
int64_t iopddl_presolved_constant(const iopddl_presolved *s) { return s->constant; }

bool iopddl_presolved_enter(iopddl_presolved *s, const uint32_t *x, uint32_t *answer)
{
    if (!iopddl_reduced_warm(s->c, x, s->sr))
        return false;
    for (uint32_t i = 0; i < s->count; i++) {
        uint32_t want = s->sr[s->rep[i]], k = 0;
        while (s->strategy[s->alive_start[i] + k] != want)
            k++;
        answer[i] = k;
    }
    for (uint32_t j = 0; j < s->pieces; j++)
        answer[s->count + j] = s->choice[s->choice_start[j] + answer[s->piece_owner[j]]];
    for (uint32_t v = s->count + s->pieces; v < s->p->node_count; v++)
        answer[v] = 0;
    return true;
}

void iopddl_presolved_expand(iopddl_presolved *s, const uint32_t *answer, uint32_t *x)
{
    for (uint32_t i = 0; i < s->count; i++)
        s->sr[s->rep[i]] = s->strategy[s->alive_start[i] + answer[i]];
    iopddl_reduced_expand(s->c, s->sr, x);
}
