/* bound_model.c: owns the problem the certified bound (bound.c) prices: a
 * pairwise model with no usage of its own, and per node the pieces of usage
 * (a run of time segments, a usage per strategy) that the multipliers of
 * the usage rows price.
 *
 * Two ways to build it. Plain: the solver's model itself, each node one
 * piece (its live segments, its usage). Reduced: the exact stage's presolve
 * (presolve.c) first, then one node per representative that is free, fixed
 * or eliminated, with only its strategies left alive, and the pieces
 * iopddl_reduced_pieces sums over its members. That is a valid relaxation:
 * every presolve step keeps at least one optimal answer of the problem with
 * the limit in the reduced model (forbidden, unreachable and over-the-limit
 * strategies are used by no feasible answer; merges, fixes and additive
 * folds are exact rewrites; a dominated strategy's replacement costs no
 * more and uses no more on any segment that can overflow; an eliminated
 * node's minimum is below what any answer pays for it). An eliminated node
 * stays here with no cost and no pairs, only its pieces: the bound takes
 * its least penalty, which is below what that optimal answer pays. Merged
 * groups close the cycles of tied nodes exactly, and the model is small
 * (C: 194 free representatives instead of 13,602 nodes), so the steps are
 * both tighter and cheaper. */
#include <math.h>
#include <string.h>
#include "iopddl/bound.h"
#include "iopddl/reduced.h"

static bool alloc_nodes(iopddl_bound_model *b, uint32_t n, uint64_t strategies, pp_arena *arena)
{
    iopddl_model *bm = &b->model;
    bm->node_count = bm->problem_nodes = n;
    bm->dom_start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *bm->dom_start);
    bm->unary = pp_arena_alloc(arena, (strategies + 1) * sizeof *bm->unary);
    bm->usage = pp_arena_calloc(arena, strategies + 1, sizeof *bm->usage);
    bm->usage_min = pp_arena_calloc(arena, (size_t)n + 1, sizeof *bm->usage_min);
    b->cost = pp_arena_alloc(arena, (strategies + 1) * sizeof *b->cost);
    b->piece_start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *b->piece_start);
    return bm->dom_start && bm->unary && bm->usage && bm->usage_min && b->cost && b->piece_start;
}

static bool alloc_pieces(iopddl_bound_model *b, uint64_t pieces, uint64_t cells, pp_arena *arena)
{
    b->piece_lo = pp_arena_alloc(arena, (pieces + 1) * sizeof *b->piece_lo);
    b->piece_hi = pp_arena_alloc(arena, (pieces + 1) * sizeof *b->piece_hi);
    b->piece_usage = pp_arena_alloc(arena, (cells + 1) * sizeof *b->piece_usage);
    return b->piece_lo && b->piece_hi && b->piece_usage;
}

bool iopddl_bound_model_plain(iopddl_bound_model *b, const iopddl_model *m, pp_arena *arena)
{
    memset(b, 0, sizeof *b);
    uint32_t n = m->node_count;
    uint64_t strategies = m->dom_start[n], pieces = 0;
    b->model = *m;
    b->model.arena = NULL; /* m owns its arena; the bound's is the caller's */
    b->segment_count = m->segment_count;
    b->has_limit = m->has_limit;
    b->limit = m->limit;
    if (!alloc_nodes(b, n, strategies, arena))
        return false;
    /* The graph is m's; the costs and the (zero) usage are the bound's own. */
    memcpy(b->model.dom_start, m->dom_start, ((size_t)n + 1) * sizeof *m->dom_start);
    memcpy(b->cost, m->unary, strategies * sizeof *m->unary);
    for (uint32_t v = 0; v < n; v++)
        pieces += m->seg_lo[v] < m->seg_hi[v];
    b->piece_usage_start = pp_arena_alloc(arena, (pieces + 1) * sizeof *b->piece_usage_start);
    if (!b->piece_usage_start || !alloc_pieces(b, pieces, strategies, arena))
        return false;
    uint64_t p = 0;
    for (uint32_t v = 0; v < n; v++) {
        b->piece_start[v] = (uint32_t)p;
        if (m->seg_lo[v] >= m->seg_hi[v])
            continue;
        b->piece_lo[p] = m->seg_lo[v];
        b->piece_hi[p] = m->seg_hi[v];
        b->piece_usage_start[p] = m->dom_start[v];
        for (uint32_t s = m->dom_start[v]; s < m->dom_start[v + 1]; s++)
            b->piece_usage[s] = (double)m->usage[s];
        p++;
    }
    b->piece_start[n] = (uint32_t)p;
    return true;
}

/* The presolved representatives, in node order: free, fixed and eliminated
 * ones become the bound's nodes (new[r]); members and the rest none. */
static uint32_t number_nodes(const iopddl_reduced *c, uint32_t *id, uint64_t *strategies)
{
    uint32_t count = 0;
    *strategies = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        id[r] = NONE;
        if (c->state[r] == ST_FREE || c->state[r] == ST_FIXED || c->state[r] == ST_ELIM) {
            id[r] = count++;
            *strategies += c->alive_count[r];
        }
    }
    return count;
}

/* Each bound node's alive strategies (`alive_index`: the representative's
 * strategy of each), costs and pieces. */
static bool copy_nodes(iopddl_bound_model *b, iopddl_reduced *c, const uint32_t *id, uint32_t *alive_index,
                       pp_arena *arena)
{
    iopddl_model *bm = &b->model;
    uint64_t k = 0, pieces = 0, cells = 0;
    /* First pass: sizes of the pieces. */
    for (uint32_t r = 0; r < c->n; r++) {
        if (id[r] == NONE)
            continue;
        if (!iopddl_reduced_pieces(c, r))
            return false;
        pieces += c->pc_count;
        cells += (uint64_t)c->pc_count * c->alive_count[r];
    }
    b->piece_usage_start = pp_arena_alloc(arena, (pieces + 1) * sizeof *b->piece_usage_start);
    if (!b->piece_usage_start || !alloc_pieces(b, pieces, cells, arena))
        return false;
    uint64_t p = 0, cell = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        if (id[r] == NONE)
            continue;
        uint32_t v = id[r];
        bm->dom_start[v] = (uint32_t)k;
        for (uint32_t s = 0; s < dom(c, r); s++) {
            if (!c->alive[base(c, r) + s])
                continue;
            alive_index[k] = s;
            /* An eliminated node's costs went to its neighbours. */
            (b->cost)[k] = c->state[r] == ST_ELIM ? 0 : c->unary[base(c, r) + s];
            k++;
        }
        if (!iopddl_reduced_pieces(c, r))
            return false;
        b->piece_start[v] = (uint32_t)p;
        for (size_t i = 0; i < c->pc_count; i++, p++) {
            b->piece_lo[p] = c->pc_lo[i];
            b->piece_hi[p] = c->pc_hi[i];
            b->piece_usage_start[p] = cell;
            const pp_int128 *vec = c->pc_vec + i * dom(c, r);
            for (uint32_t j = bm->dom_start[v]; j < k; j++)
                b->piece_usage[cell++] = (double)vec[alive_index[j]];
        }
    }
    bm->dom_start[bm->node_count] = (uint32_t)k;
    b->piece_start[bm->node_count] = (uint32_t)p;
    return true;
}

/* The live pairs between free representatives, over alive strategies,
 * a < b in the bound's numbering, with their incidence. */
static bool copy_pairs(iopddl_bound_model *b, iopddl_reduced *c, const uint32_t *id, const uint32_t *alive_index,
                       pp_arena *arena)
{
    iopddl_model *bm = &b->model;
    uint32_t count = 0, n = bm->node_count;
    uint64_t cells = 0;
    for (size_t q = 0; q < c->pair_count; q++)
        if (!c->pairs[q].dead) {
            count++;
            cells += (uint64_t)iopddl_domain(bm, id[c->pairs[q].a]) * iopddl_domain(bm, id[c->pairs[q].b]);
        }
    bm->pair_count = count;
    bm->pair_a = pp_arena_alloc(arena, ((size_t)count + 1) * sizeof *bm->pair_a);
    bm->pair_b = pp_arena_alloc(arena, ((size_t)count + 1) * sizeof *bm->pair_b);
    bm->pair_start = pp_arena_alloc(arena, ((size_t)count + 1) * sizeof *bm->pair_start);
    bm->pair_cost = pp_arena_alloc(arena, (cells + 1) * sizeof *bm->pair_cost);
    bm->adj_start = pp_arena_calloc(arena, (size_t)n + 2, sizeof *bm->adj_start);
    bm->adj_pair = pp_arena_alloc(arena, (2 * (size_t)count + 1) * sizeof *bm->adj_pair);
    if (!bm->pair_a || !bm->pair_b || !bm->pair_start || !bm->pair_cost || !bm->adj_start || !bm->adj_pair)
        return false;
    uint32_t q = 0;
    uint64_t at = 0;
    for (size_t i = 0; i < c->pair_count; i++) {
        const xpair *x = &c->pairs[i];
        if (x->dead)
            continue;
        uint32_t ra = id[x->a] < id[x->b] ? x->a : x->b, rb = other(x, ra);
        uint32_t va = id[ra], vb = id[rb];
        bm->pair_a[q] = va;
        bm->pair_b[q] = vb;
        bm->pair_start[q] = at;
        for (uint32_t j = bm->dom_start[va]; j < bm->dom_start[va + 1]; j++)
            for (uint32_t l = bm->dom_start[vb]; l < bm->dom_start[vb + 1]; l++)
                bm->pair_cost[at++] = *cell(c, x, ra, alive_index[j], alive_index[l]);
        bm->adj_start[va + 1]++;
        bm->adj_start[vb + 1]++;
        q++;
    }
    for (uint32_t v = 0; v < n; v++)
        bm->adj_start[v + 1] += bm->adj_start[v];
    uint32_t *fill = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *fill);
    if (!fill)
        return false;
    memcpy(fill, bm->adj_start, (size_t)n * sizeof *fill);
    for (uint32_t p = 0; p < count; p++) {
        bm->adj_pair[fill[bm->pair_a[p]]++] = p;
        bm->adj_pair[fill[bm->pair_b[p]]++] = p;
    }
    return true;
}

bool iopddl_bound_model_reduced(iopddl_bound_model *b, iopddl_reduced *c, pp_arena *arena)
{
    memset(b, 0, sizeof *b);
    const iopddl_model *m = c->m;
    uint32_t *id = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof *id);
    uint32_t *alive_index = NULL;
    bool ok = id != NULL;
    if (id) {
        uint64_t strategies;
        uint32_t n = number_nodes(c, id, &strategies);
        alive_index = pp_arena_alloc(arena, (strategies + 1) * sizeof *alive_index);
        b->rep = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof *b->rep);
        b->rep_strategy = alive_index;
        ok = alive_index && b->rep && alloc_nodes(b, n, strategies, arena) &&
             copy_nodes(b, c, id, alive_index, arena) && copy_pairs(b, c, id, alive_index, arena);
        for (uint32_t r = 0; ok && r < c->n; r++)
            if (id[r] != NONE)
                b->rep[id[r]] = r;
        for (uint32_t r = 0; r < c->n; r++)
            b->free_nodes += c->state[r] == ST_FREE;
    }
    if (!ok || c->oom)
        return false;
    b->model.segment_count = 0;
    b->model.has_limit = false;
    b->segment_count = m->segment_count;
    b->has_limit = m->has_limit;
    b->limit = m->limit;
    return true;
}
