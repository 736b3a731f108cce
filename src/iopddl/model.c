/* model.c: turns a loaded problem into the shape the search works on: one
 * table per connected node pair (duplicate edges summed, one-node edges and
 * self-loops folded into node costs), incidence lists, and time compressed to
 * the segments between distinct interval ends. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

typedef struct {
    uint32_t a, b, edge;
} pair_ref;

static int by_pair(const void *x, const void *y)
{
    const pair_ref *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->edge > q->edge) - (p->edge < q->edge);
}

static int by_value(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static uint32_t edge_arity(const pp_iopddl_problem *p, uint32_t e)
{
    return (uint32_t)(p->edge_node_start[e + 1] - p->edge_node_start[e]);
}

/* Node costs, with one-node edges and the diagonal of self-loop edges added. */
static void fold_unary(iop_model *m, const pp_iopddl_problem *p)
{
    for (uint64_t k = 0; k < m->dom_start[m->node_count]; k++)
        m->unary[k] = p->node_cost[k] >= PP_IOPDDL_FORBIDDEN ? PP_IOPDDL_FORBIDDEN : p->node_cost[k];
    for (uint32_t e = 0; e < p->edge_count; e++) {
        const uint32_t *nodes = p->edge_nodes + p->edge_node_start[e];
        const int64_t *cost = p->edge_cost + p->edge_cost_start[e];
        uint32_t arity = edge_arity(p, e);
        if (arity == 1) {
            for (uint32_t s = 0; s < iop_domain(m, nodes[0]); s++)
                m->unary[m->dom_start[nodes[0]] + s] =
                    iop_saturating_add(m->unary[m->dom_start[nodes[0]] + s], cost[s]);
        } else if (arity == 2 && nodes[0] == nodes[1]) {
            uint32_t d = iop_domain(m, nodes[0]);
            for (uint32_t s = 0; s < d; s++)
                m->unary[m->dom_start[nodes[0]] + s] =
                    iop_saturating_add(m->unary[m->dom_start[nodes[0]] + s], cost[s * d + s]);
        }
    }
}

static bool build_pairs(iop_model *m, const pp_iopddl_problem *p)
{
    pair_ref *refs = malloc(((size_t)p->edge_count + 1) * sizeof *refs);
    if (!refs)
        return false;
    size_t count = 0;
    for (uint32_t e = 0; e < p->edge_count; e++) {
        const uint32_t *nodes = p->edge_nodes + p->edge_node_start[e];
        if (edge_arity(p, e) != 2 || nodes[0] == nodes[1])
            continue;
        uint32_t a = nodes[0] < nodes[1] ? nodes[0] : nodes[1];
        uint32_t b = nodes[0] < nodes[1] ? nodes[1] : nodes[0];
        refs[count++] = (pair_ref){a, b, e};
    }
    qsort(refs, count, sizeof *refs, by_pair);
    uint32_t pairs = 0;
    uint64_t entries = 0;
    for (size_t k = 0; k < count; k++)
        if (k == 0 || refs[k].a != refs[k - 1].a || refs[k].b != refs[k - 1].b) {
            pairs++;
            entries += (uint64_t)iop_domain(m, refs[k].a) * iop_domain(m, refs[k].b);
        }
    m->pair_count = pairs;
    m->pair_a = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint32_t));
    m->pair_b = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint32_t));
    m->pair_start = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint64_t));
    m->pair_cost = pp_arena_calloc(m->arena, entries + 1, sizeof(int64_t));
    if (!m->pair_a || !m->pair_b || !m->pair_start || !m->pair_cost) {
        free(refs);
        return false;
    }
    int64_t pair = -1;
    uint64_t next = 0;
    for (size_t k = 0; k < count; k++) {
        uint32_t a = refs[k].a, b = refs[k].b, db = iop_domain(m, b), da = iop_domain(m, a);
        if (k == 0 || a != refs[k - 1].a || b != refs[k - 1].b) {
            pair++;
            m->pair_a[pair] = a;
            m->pair_b[pair] = b;
            m->pair_start[pair] = next;
            next += (uint64_t)da * db;
        }
        int64_t *table = m->pair_cost + m->pair_start[pair];
        const int64_t *cost = p->edge_cost + p->edge_cost_start[refs[k].edge];
        bool transposed = p->edge_nodes[p->edge_node_start[refs[k].edge]] != a;
        for (uint32_t sa = 0; sa < da; sa++)
            for (uint32_t sb = 0; sb < db; sb++) {
                int64_t c = transposed ? cost[(uint64_t)sb * da + sa] : cost[(uint64_t)sa * db + sb];
                table[(uint64_t)sa * db + sb] = iop_saturating_add(table[(uint64_t)sa * db + sb], c);
            }
    }
    m->pair_start[pairs] = next;
    free(refs);
    return true;
}

/* CSR lists from (node, item) incidences given by a counting callback pair. */
static bool build_incidence(iop_model *m)
{
    uint32_t n = m->node_count;
    m->adj_start = pp_arena_calloc(m->arena, n + 1, sizeof(uint32_t));
    m->adj_pair = pp_arena_alloc(m->arena, (2 * (size_t)m->pair_count + 1) * sizeof(uint32_t));
    if (!m->adj_start || !m->adj_pair)
        return false;
    for (uint32_t q = 0; q < m->pair_count; q++) {
        m->adj_start[m->pair_a[q] + 1]++;
        m->adj_start[m->pair_b[q] + 1]++;
    }
    for (uint32_t v = 0; v < n; v++)
        m->adj_start[v + 1] += m->adj_start[v];
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill)
        return false;
    memcpy(fill, m->adj_start, (size_t)n * sizeof *fill);
    for (uint32_t q = 0; q < m->pair_count; q++) {
        m->adj_pair[fill[m->pair_a[q]]++] = q;
        m->adj_pair[fill[m->pair_b[q]]++] = q;
    }

    const pp_iopddl_problem *p = m->problem;
    m->hyper_start = pp_arena_calloc(m->arena, n + 1, sizeof(uint32_t));
    if (!m->hyper_start) {
        free(fill);
        return false;
    }
    /* A node listed twice in one edge is counted once: dedupe by last-seen edge. */
    uint32_t *last = fill;
    for (uint32_t v = 0; v < n; v++)
        last[v] = UINT32_MAX;
    size_t total = 0;
    for (uint32_t e = 0; e < p->edge_count; e++) {
        if (edge_arity(p, e) < 3)
            continue;
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++) {
            uint32_t v = p->edge_nodes[k];
            if (last[v] != e) {
                last[v] = e;
                m->hyper_start[v + 1]++;
                total++;
            }
        }
    }
    for (uint32_t v = 0; v < n; v++)
        m->hyper_start[v + 1] += m->hyper_start[v];
    m->hyper_edge = pp_arena_alloc(m->arena, (total + 1) * sizeof(uint32_t));
    uint32_t *hfill = malloc(((size_t)n + 1) * sizeof *hfill);
    if (!m->hyper_edge || !hfill) {
        free(fill);
        free(hfill);
        return false;
    }
    memcpy(hfill, m->hyper_start, (size_t)n * sizeof *hfill);
    for (uint32_t v = 0; v < n; v++)
        last[v] = UINT32_MAX;
    for (uint32_t e = 0; e < p->edge_count; e++) {
        if (edge_arity(p, e) < 3)
            continue;
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++) {
            uint32_t v = p->edge_nodes[k];
            if (last[v] != e) {
                last[v] = e;
                m->hyper_edge[hfill[v]++] = e;
            }
        }
    }
    free(hfill);
    free(fill);
    return true;
}

static uint32_t lower_index(const int64_t *times, uint32_t count, int64_t t)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool build_segments(iop_model *m, const pp_iopddl_problem *p)
{
    uint32_t n = m->node_count;
    int64_t *times = malloc((2 * (size_t)n + 1) * sizeof *times);
    m->seg_lo = pp_arena_alloc(m->arena, (size_t)n * sizeof(uint32_t));
    m->seg_hi = pp_arena_alloc(m->arena, (size_t)n * sizeof(uint32_t));
    if (!times || !m->seg_lo || !m->seg_hi) {
        free(times);
        return false;
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (p->interval_start[i] < p->interval_end[i]) {
            times[count++] = p->interval_start[i];
            times[count++] = p->interval_end[i];
        }
    qsort(times, count, sizeof *times, by_value);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < count; k++)
        if (unique == 0 || times[k] != times[unique - 1])
            times[unique++] = times[k];
    m->segment_count = unique > 0 ? unique - 1 : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (p->interval_start[i] < p->interval_end[i]) {
            m->seg_lo[i] = lower_index(times, unique, p->interval_start[i]);
            m->seg_hi[i] = lower_index(times, unique, p->interval_end[i]);
        } else {
            m->seg_lo[i] = m->seg_hi[i] = 0;
        }
    }
    free(times);
    return true;
}

pp_status iop_model_build(const pp_iopddl_problem *p, iop_model **out, pp_error *err)
{
    *out = NULL;
    pp_arena *arena = pp_arena_new(1 << 20);
    iop_model *m = arena ? pp_arena_calloc(arena, 1, sizeof *m) : NULL;
    if (!m) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "out of memory building the model");
    }
    m->arena = arena;
    m->problem = p;
    m->node_count = p->node_count;
    m->has_limit = p->has_usage_limit;
    m->limit = p->usage_limit;
    uint32_t n = p->node_count;
    uint64_t strategies = p->strategy_start[n];
    bool ok = strategies < UINT32_MAX;
    m->dom_start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    m->unary = pp_arena_alloc(arena, (strategies + 1) * sizeof(int64_t));
    m->usage = p->node_usage;
    m->usage_min = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(int64_t));
    ok = ok && m->dom_start && m->unary && m->usage_min;
    if (ok) {
        for (uint32_t i = 0; i <= n; i++)
            m->dom_start[i] = (uint32_t)p->strategy_start[i];
        for (uint32_t i = 0; i < n; i++) {
            int64_t least = INT64_MAX;
            for (uint32_t k = m->dom_start[i]; k < m->dom_start[i + 1]; k++)
                least = m->usage[k] < least ? m->usage[k] : least;
            m->usage_min[i] = least;
        }
        fold_unary(m, p);
        ok = build_pairs(m, p) && build_incidence(m) && build_segments(m, p);
    }
    if (!ok) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "out of memory building the model");
    }
    *out = m;
    return PP_OK;
}

void iop_model_free(iop_model *m)
{
    if (m)
        pp_arena_free(m->arena);
}

int64_t iop_hyper_cost(const iop_model *m, const uint32_t *x, uint32_t edge, uint32_t v, uint32_t s)
{
    const pp_iopddl_problem *p = m->problem;
    uint64_t index = 0;
    for (uint64_t k = p->edge_node_start[edge]; k < p->edge_node_start[edge + 1]; k++) {
        uint32_t u = p->edge_nodes[k];
        index = index * iop_domain(m, u) + (u == v ? s : x[u]);
    }
    int64_t c = p->edge_cost[p->edge_cost_start[edge] + index];
    return c >= PP_IOPDDL_FORBIDDEN ? PP_IOPDDL_FORBIDDEN : c;
}

static inline int64_t pair_entry(const iop_model *m, uint32_t q, uint32_t sa, uint32_t sb)
{
    return m->pair_cost[m->pair_start[q] + (uint64_t)sa * iop_domain(m, m->pair_b[q]) + sb];
}

void iop_node_costs(const iop_model *m, const uint32_t *x, uint32_t v, pp_int128 *out)
{
    uint32_t d = iop_domain(m, v), base = m->dom_start[v];
    for (uint32_t s = 0; s < d; s++)
        out[s] = m->unary[base + s];
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t q = m->adj_pair[k], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
        const int64_t *t = m->pair_cost + m->pair_start[q];
        if (m->pair_a[q] == v) {
            uint32_t du = iop_domain(m, u);
            for (uint32_t s = 0; s < d; s++)
                out[s] = out[s] + t[(uint64_t)s * du + x[u]];
        } else {
            const int64_t *row = t + (uint64_t)x[u] * d;
            for (uint32_t s = 0; s < d; s++)
                out[s] = out[s] + row[s];
        }
    }
    for (uint32_t k = m->hyper_start[v]; k < m->hyper_start[v + 1]; k++)
        for (uint32_t s = 0; s < d; s++)
            out[s] = out[s] + iop_hyper_cost(m, x, m->hyper_edge[k], v, s);
}

int64_t iop_model_cost(const iop_model *m, const uint32_t *x)
{
    pp_int128 total = 0;
    for (uint32_t v = 0; v < m->node_count; v++)
        total += m->unary[m->dom_start[v] + x[v]];
    for (uint32_t q = 0; q < m->pair_count; q++)
        total += pair_entry(m, q, x[m->pair_a[q]], x[m->pair_b[q]]);
    const pp_iopddl_problem *p = m->problem;
    for (uint32_t e = 0; e < p->edge_count; e++)
        if (edge_arity(p, e) >= 3)
            total += iop_hyper_cost(m, x, e, UINT32_MAX, 0);
    return total > INT64_MAX ? INT64_MAX : (int64_t)total;
}

void iop_min_usage_assignment(const iop_model *m, uint32_t *x)
{
    for (uint32_t v = 0; v < m->node_count; v++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < iop_domain(m, v); s++) {
            uint32_t k = m->dom_start[v] + s, b = m->dom_start[v] + best;
            if (m->usage[k] < m->usage[b] || (m->usage[k] == m->usage[b] && m->unary[k] < m->unary[b]))
                best = s;
        }
        x[v] = best;
    }
}
