/* model.c: turns a loaded problem into the shape the search works on: one
 * table per connected node pair (duplicate edges summed, one-node edges and
 * self-loops folded into node costs), incidence lists, and time compressed to
 * the segments between distinct interval ends.
 *
 * An edge over three or more nodes becomes an auxiliary node (the standard
 * hidden-variable encoding): its strategies are the rows of the edge's table,
 * its node cost is the table entry, its usage zero, and it is joined to each
 * of its nodes by a pair that is free when the row agrees with that node's
 * strategy and forbidden otherwise. Every stage of the search then handles
 * any arity through pairs alone. Auxiliary nodes come after the problem's. */
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

/* A pair table to build: from a problem edge, or between an auxiliary node
 * and one of the nodes of its edge. */
typedef struct {
    uint32_t a, b;    /* a < b */
    uint32_t edge;    /* the problem edge it comes from */
    uint32_t node;    /* UINT32_MAX for a two-node edge, else the edge's node it binds */
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

static bool is_wide(const pp_iopddl_problem *p, uint32_t e) { return edge_arity(p, e) >= 3; }

/* Strategy ranges, costs and usages of problem nodes, then auxiliary nodes. */
static bool build_nodes(iopddl_model *m, const pp_iopddl_problem *p)
{
    uint32_t n = p->node_count, total = m->node_count;
    m->dom_start = pp_arena_alloc(m->arena, ((size_t)total + 1) * sizeof(uint32_t));
    m->usage_min = pp_arena_calloc(m->arena, (size_t)total + 1, sizeof(int64_t));
    if (!m->dom_start || !m->usage_min)
        return false;
    uint64_t next = p->strategy_start[n];
    for (uint32_t i = 0; i <= n; i++)
        m->dom_start[i] = (uint32_t)p->strategy_start[i];
    for (uint32_t e = 0, aux = n; e < p->edge_count; e++)
        if (is_wide(p, e)) {
            next += p->edge_cost_start[e + 1] - p->edge_cost_start[e];
            if (next >= UINT32_MAX)
                return false;
            m->dom_start[++aux] = (uint32_t)next;
        }
    m->unary = pp_arena_alloc(m->arena, (next + 1) * sizeof(int64_t));
    int64_t *usage = pp_arena_calloc(m->arena, next + 1, sizeof(int64_t));
    if (!m->unary || !usage)
        return false;
    memcpy(usage, p->node_usage, p->strategy_start[n] * sizeof(int64_t));
    m->usage = usage;
    for (uint64_t k = 0; k < p->strategy_start[n]; k++)
        m->unary[k] = p->node_cost[k];
    for (uint32_t e = 0, aux = n; e < p->edge_count; e++)
        if (is_wide(p, e)) {
            const int64_t *cost = p->edge_cost + p->edge_cost_start[e];
            for (uint32_t s = 0; s < iopddl_domain(m, aux); s++)
                m->unary[m->dom_start[aux] + s] = cost[s];
            aux++;
        }
    for (uint32_t i = 0; i < n; i++) {
        int64_t least = INT64_MAX;
        for (uint32_t k = m->dom_start[i]; k < m->dom_start[i + 1]; k++)
            least = m->usage[k] < least ? m->usage[k] : least;
        m->usage_min[i] = least;
    }
    return true;
}

/* One-node edges and the diagonal of self-loop edges go into node costs. */
static void fold_unary(iopddl_model *m, const pp_iopddl_problem *p)
{
    for (uint32_t e = 0; e < p->edge_count; e++) {
        const uint32_t *nodes = p->edge_nodes + p->edge_node_start[e];
        const int64_t *cost = p->edge_cost + p->edge_cost_start[e];
        uint32_t arity = edge_arity(p, e), v = nodes[0], d = iopddl_domain(m, v);
        int64_t *unary = m->unary + m->dom_start[v];
        if (arity == 1)
            for (uint32_t s = 0; s < d; s++)
                unary[s] = iopddl_saturating_add(unary[s], cost[s]);
        else if (arity == 2 && nodes[1] == v)
            for (uint32_t s = 0; s < d; s++)
                unary[s] = iopddl_saturating_add(unary[s], cost[(uint64_t)s * d + s]);
    }
}

/* Entry (sa, sb) of the table ref describes, a being ref->a. */
static int64_t ref_entry(const iopddl_model *m, const pp_iopddl_problem *p, const pair_ref *ref,
                         uint32_t sa, uint32_t sb)
{
    const uint32_t *nodes = p->edge_nodes + p->edge_node_start[ref->edge];
    if (ref->node == UINT32_MAX) {
        const int64_t *cost = p->edge_cost + p->edge_cost_start[ref->edge];
        return nodes[0] == ref->a ? cost[(uint64_t)sa * iopddl_domain(m, ref->b) + sb]
                                  : cost[(uint64_t)sb * iopddl_domain(m, ref->a) + sa];
    }
    /* The auxiliary node is b (it comes after every problem node): row sb of
     * the edge's table agrees with node a at sa when every position of a in
     * the edge holds sa. Rows are row-major, the last node varying fastest.
     * A row that disagrees is no answer at all: dearer than any real entry,
     * forbidden ones included. */
    uint64_t row = sb;
    for (uint32_t k = edge_arity(p, ref->edge); k-- > 0;) {
        uint32_t d = iopddl_domain(m, nodes[k]);
        if (nodes[k] == ref->a && row % d != sa)
            return INT64_MAX;
        row /= d;
    }
    return 0;
}

static size_t collect_refs(const pp_iopddl_problem *p, pair_ref *refs)
{
    size_t count = 0;
    for (uint32_t e = 0, aux = p->node_count; e < p->edge_count; e++) {
        const uint32_t *nodes = p->edge_nodes + p->edge_node_start[e];
        if (is_wide(p, e)) {
            for (uint32_t k = 0; k < edge_arity(p, e); k++) {
                bool repeated = false;
                for (uint32_t j = 0; j < k; j++)
                    repeated |= nodes[j] == nodes[k];
                if (!repeated)
                    refs[count++] = (pair_ref){nodes[k], aux, e, nodes[k]};
            }
            aux++;
        } else if (edge_arity(p, e) == 2 && nodes[0] != nodes[1]) {
            uint32_t a = nodes[0] < nodes[1] ? nodes[0] : nodes[1];
            uint32_t b = nodes[0] < nodes[1] ? nodes[1] : nodes[0];
            refs[count++] = (pair_ref){a, b, e, UINT32_MAX};
        }
    }
    return count;
}

/* Adds the table ref describes into `table` (writes it when `first`). A
 * two-node edge's table is read in its own order or transposed, without
 * ref_entry's tests per entry: the copy is most of the build (97M entries
 * on the widest proxy). */
static void fill_table(int64_t *table, const iopddl_model *m, const pp_iopddl_problem *p, const pair_ref *ref,
                       bool first)
{
    uint32_t da = iopddl_domain(m, ref->a), db = iopddl_domain(m, ref->b);
    uint64_t cells = (uint64_t)da * db;
    if (ref->node == UINT32_MAX) {
        const int64_t *cost = p->edge_cost + p->edge_cost_start[ref->edge];
        if (p->edge_nodes[p->edge_node_start[ref->edge]] == ref->a) {
            for (uint64_t c = 0; c < cells; c++)
                table[c] = first ? cost[c] : iopddl_saturating_add(table[c], cost[c]);
        } else {
            for (uint32_t sa = 0; sa < da; sa++)
                for (uint32_t sb = 0; sb < db; sb++) {
                    int64_t entry = cost[(uint64_t)sb * da + sa], *t = table + (uint64_t)sa * db + sb;
                    *t = first ? entry : iopddl_saturating_add(*t, entry);
                }
        }
        return;
    }
    for (uint32_t sa = 0; sa < da; sa++)
        for (uint32_t sb = 0; sb < db; sb++) {
            int64_t entry = ref_entry(m, p, ref, sa, sb), *t = table + (uint64_t)sa * db + sb;
            *t = first ? entry : iopddl_saturating_add(*t, entry);
        }
}

/* How many pair references build_pairs fills between looks at the clock:
 * a reference copies up to a few thousand entries (48 x 48 on the widest
 * proxy), so 64 of them take well under a millisecond, and a model of
 * fewer is always built. */
enum { REFS_PER_CLOCK = 64 };

/* False when out of memory, or (*stopped) when the deadline passed first. */
static bool build_pairs(iopddl_model *m, const pp_iopddl_problem *p, const pp_deadline *deadline, bool *stopped)
{
    size_t most = 1;
    for (uint32_t e = 0; e < p->edge_count; e++)
        most += edge_arity(p, e);
    pair_ref *refs = malloc(most * sizeof *refs);
    if (!refs)
        return false;
    size_t count = collect_refs(p, refs);
    qsort(refs, count, sizeof *refs, by_pair);
    uint32_t pairs = 0;
    uint64_t entries = 0;
    for (size_t k = 0; k < count; k++)
        if (k == 0 || refs[k].a != refs[k - 1].a || refs[k].b != refs[k - 1].b) {
            pairs++;
            entries += (uint64_t)iopddl_domain(m, refs[k].a) * iopddl_domain(m, refs[k].b);
        }
    m->pair_count = pairs;
    m->pair_a = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint32_t));
    m->pair_b = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint32_t));
    m->pair_start = pp_arena_alloc(m->arena, (pairs + 1) * sizeof(uint64_t));
    /* Not zeroed: each table's first reference writes it whole. Zeroing
     * L2w48's 775 MB took 0.5-1 s before the first look at the clock; the
     * build is 10% cheaper without it (0.70-0.75 CPU s against 0.78-0.86).
     * Huge pages (pp_advise_huge_pages) would make freeing the tables ten
     * times cheaper (0.005 s against 0.05-0.1) but the build twice as dear
     * on this VM (the kernel compacting memory for them). */
    m->pair_cost = pp_arena_alloc(m->arena, (entries + 1) * sizeof(int64_t));
    if (!m->pair_a || !m->pair_b || !m->pair_start || !m->pair_cost) {
        free(refs);
        return false;
    }
    int64_t pair = -1;
    uint64_t next = 0;
    for (size_t k = 0; k < count; k++) {
        if (deadline && k > 0 && k % REFS_PER_CLOCK == 0 && pp_deadline_passed(deadline)) {
            *stopped = true;
            free(refs);
            return false;
        }
        uint32_t a = refs[k].a, b = refs[k].b, da = iopddl_domain(m, a), db = iopddl_domain(m, b);
        bool first = k == 0 || a != refs[k - 1].a || b != refs[k - 1].b;
        if (first) {
            pair++;
            m->pair_a[pair] = a;
            m->pair_b[pair] = b;
            m->pair_start[pair] = next;
            next += (uint64_t)da * db;
        }
        fill_table(m->pair_cost + m->pair_start[pair], m, p, &refs[k], first);
    }
    m->pair_start[pairs] = next;
    m->pair_cost[next] = 0;
    free(refs);
    return true;
}

static bool build_incidence(iopddl_model *m)
{
    uint32_t n = m->node_count;
    m->adj_start = pp_arena_calloc(m->arena, (size_t)n + 1, sizeof(uint32_t));
    m->adj_pair = pp_arena_alloc(m->arena, (2 * (size_t)m->pair_count + 1) * sizeof(uint32_t));
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!m->adj_start || !m->adj_pair || !fill) {
        free(fill);
        return false;
    }
    for (uint32_t q = 0; q < m->pair_count; q++) {
        m->adj_start[m->pair_a[q] + 1]++;
        m->adj_start[m->pair_b[q] + 1]++;
    }
    for (uint32_t v = 0; v < n; v++)
        m->adj_start[v + 1] += m->adj_start[v];
    memcpy(fill, m->adj_start, (size_t)n * sizeof *fill);
    for (uint32_t q = 0; q < m->pair_count; q++) {
        m->adj_pair[fill[m->pair_a[q]]++] = q;
        m->adj_pair[fill[m->pair_b[q]]++] = q;
    }
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

uint32_t iopddl_time_segments(const pp_iopddl_problem *p, int64_t *times, uint32_t *seg_lo, uint32_t *seg_hi)
{
    uint32_t n = p->node_count, count = 0;
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
    for (uint32_t i = 0; i < n; i++) {
        bool live = p->interval_start[i] < p->interval_end[i];
        seg_lo[i] = live ? lower_index(times, unique, p->interval_start[i]) : 0;
        seg_hi[i] = live ? lower_index(times, unique, p->interval_end[i]) : 0;
    }
    return unique > 0 ? unique - 1 : 0;
}

/* Auxiliary nodes are never live: their segment range stays empty. */
static bool build_segments(iopddl_model *m, const pp_iopddl_problem *p)
{
    int64_t *times = malloc((2 * (size_t)p->node_count + 1) * sizeof *times);
    m->seg_lo = pp_arena_calloc(m->arena, (size_t)m->node_count + 1, sizeof(uint32_t));
    m->seg_hi = pp_arena_calloc(m->arena, (size_t)m->node_count + 1, sizeof(uint32_t));
    if (!times || !m->seg_lo || !m->seg_hi) {
        free(times);
        return false;
    }
    m->segment_count = iopddl_time_segments(p, times, m->seg_lo, m->seg_hi);
    free(times);
    return true;
}

pp_status iopddl_model_build_until(const pp_iopddl_problem *p, const pp_deadline *deadline, iopddl_model **out,
                                   pp_error *err)
{
    *out = NULL;
    pp_arena *arena = pp_arena_new(1 << 20);
    iopddl_model *m = arena ? pp_arena_calloc(arena, 1, sizeof *m) : NULL;
    if (!m) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "out of memory building the model");
    }
    m->arena = arena;
    m->problem_nodes = p->node_count;
    uint64_t total = p->node_count;
    for (uint32_t e = 0; e < p->edge_count; e++)
        total += is_wide(p, e);
    if (total >= UINT32_MAX || p->strategy_start[p->node_count] >= UINT32_MAX) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_EARG, "problem too large for 32-bit node and strategy indices");
    }
    m->node_count = (uint32_t)total;
    m->has_limit = p->has_usage_limit;
    m->limit = p->usage_limit;
    bool stopped = false;
    bool ok = build_nodes(m, p);
    if (ok) {
        fold_unary(m, p);
        ok = build_pairs(m, p, deadline, &stopped) && build_incidence(m) && build_segments(m, p);
    }
    if (!ok) {
        pp_arena_free(arena);
        return stopped ? pp_error_set(err, PP_INFEASIBLE,
                                      "no answer within the time limit: it ran out while the model was built")
                       : pp_error_set(err, PP_ENOMEM, "out of memory building the model");
    }
    *out = m;
    return PP_OK;
}

pp_status iopddl_model_build(const pp_iopddl_problem *p, iopddl_model **out, pp_error *err)
{
    return iopddl_model_build_until(p, NULL, out, err);
}

void iopddl_model_free(iopddl_model *m)
{
    if (m)
        pp_arena_free(m->arena);
}

static inline int64_t pair_entry(const iopddl_model *m, uint32_t q, uint32_t sa, uint32_t sb)
{
    return m->pair_cost[m->pair_start[q] + (uint64_t)sa * iopddl_domain(m, m->pair_b[q]) + sb];
}

void iopddl_node_costs(const iopddl_model *m, const uint32_t *x, uint32_t v, pp_int128 *out)
{
    uint32_t d = iopddl_domain(m, v), base = m->dom_start[v];
    for (uint32_t s = 0; s < d; s++)
        out[s] = m->unary[base + s];
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t q = m->adj_pair[k], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
        const int64_t *t = m->pair_cost + m->pair_start[q];
        if (m->pair_a[q] == v) {
            uint32_t du = iopddl_domain(m, u);
            for (uint32_t s = 0; s < d; s++)
                out[s] = out[s] + t[(uint64_t)s * du + x[u]];
        } else {
            const int64_t *row = t + (uint64_t)x[u] * d;
            for (uint32_t s = 0; s < d; s++)
                out[s] = out[s] + row[s];
        }
    }
}

iopddl_cost iopddl_model_cost(const iopddl_model *m, const uint32_t *x)
{
    iopddl_cost total = 0;
    for (uint32_t v = 0; v < m->node_count; v++)
        total += m->unary[m->dom_start[v] + x[v]];
    for (uint32_t q = 0; q < m->pair_count; q++)
        total += pair_entry(m, q, x[m->pair_a[q]], x[m->pair_b[q]]);
    return total;
}

bool iopddl_model_forbidden_free(const iopddl_model *m, const uint32_t *x)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        if (m->unary[m->dom_start[v] + x[v]] >= PP_IOPDDL_FORBIDDEN)
            return false;
    for (uint32_t q = 0; q < m->pair_count; q++)
        if (pair_entry(m, q, x[m->pair_a[q]], x[m->pair_b[q]]) >= PP_IOPDDL_FORBIDDEN)
            return false;
    return true;
}

void iopddl_model_sync_auxiliary(const iopddl_model *m, uint32_t *x)
{
    /* An auxiliary node's pairs are free only at the row that agrees with
     * all its nodes; for a consistent x that row is the only one. */
    for (uint32_t z = m->problem_nodes; z < m->node_count; z++) {
        uint32_t best = 0;
        int64_t best_cost = INT64_MAX;
        for (uint32_t s = 0; s < iopddl_domain(m, z); s++) {
            int64_t c = 0;
            for (uint32_t k = m->adj_start[z]; k < m->adj_start[z + 1] && c == 0; k++) {
                uint32_t q = m->adj_pair[k];
                c = pair_entry(m, q, x[m->pair_a[q]], s);
            }
            if (c < best_cost) {
                best_cost = c;
                best = s;
            }
        }
        x[z] = best;
    }
}

void iopddl_min_usage_assignment(const iopddl_model *m, uint32_t *x)
{
    for (uint32_t v = 0; v < m->problem_nodes; v++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < iopddl_domain(m, v); s++) {
            uint32_t k = m->dom_start[v] + s, b = m->dom_start[v] + best;
            if (m->usage[k] < m->usage[b] || (m->usage[k] == m->usage[b] && m->unary[k] < m->unary[b]))
                best = s;
        }
        x[v] = best;
    }
    iopddl_model_sync_auxiliary(m, x);
}
