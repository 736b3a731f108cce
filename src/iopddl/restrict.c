/* restrict.c: a model in which only some nodes keep their choice: every
 * other node is held at its strategy in x (a domain of one). The graph, the
 * segments and the limit stay those of the whole model (shared, not copied),
 * so an exact solver given the restricted model re-optimises a neighbourhood
 * against the true usage profile and the true costs around it. */
#include <string.h>
#include "iopddl/solver.h"

/* The whole model's index of v's first strategy in the restricted one: a
 * free node keeps all its strategies, a held node only x[v]. */
static uint32_t first_kept(const uint8_t *is_free, const uint32_t *x, uint32_t v)
{
    return is_free[v] ? 0 : x[v];
}

static uint32_t kept_count(const iopddl_model *m, const uint8_t *is_free, uint32_t v)
{
    return is_free[v] ? iopddl_domain(m, v) : 1;
}

static bool restrict_nodes(iopddl_model *r, const iopddl_model *m, const uint8_t *is_free, const uint32_t *x)
{
    uint32_t n = m->node_count;
    uint32_t *dom_start = pp_arena_alloc(r->arena, ((size_t)n + 1) * sizeof(uint32_t));
    if (!dom_start)
        return false;
    dom_start[0] = 0;
    for (uint32_t v = 0; v < n; v++)
        dom_start[v + 1] = dom_start[v] + kept_count(m, is_free, v);
    int64_t *unary = pp_arena_alloc(r->arena, ((size_t)dom_start[n] + 1) * sizeof(int64_t));
    int64_t *usage = pp_arena_alloc(r->arena, ((size_t)dom_start[n] + 1) * sizeof(int64_t));
    int64_t *usage_min = pp_arena_alloc(r->arena, ((size_t)n + 1) * sizeof(int64_t));
    if (!unary || !usage || !usage_min)
        return false;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t from = m->dom_start[v] + first_kept(is_free, x, v), count = kept_count(m, is_free, v);
        memcpy(unary + dom_start[v], m->unary + from, count * sizeof(int64_t));
        memcpy(usage + dom_start[v], m->usage + from, count * sizeof(int64_t));
        usage_min[v] = is_free[v] ? m->usage_min[v] : m->usage[from];
    }
    r->dom_start = dom_start;
    r->unary = unary;
    r->usage = usage;
    r->usage_min = usage_min;
    return true;
}

static bool restrict_pairs(iopddl_model *r, const iopddl_model *m, const uint8_t *is_free, const uint32_t *x)
{
    uint64_t *pair_start = pp_arena_alloc(r->arena, ((size_t)m->pair_count + 1) * sizeof(uint64_t));
    if (!pair_start)
        return false;
    pair_start[0] = 0;
    for (uint32_t q = 0; q < m->pair_count; q++)
        pair_start[q + 1] = pair_start[q] + (uint64_t)kept_count(m, is_free, m->pair_a[q]) *
                                                kept_count(m, is_free, m->pair_b[q]);
    int64_t *cost = pp_arena_alloc(r->arena, (pair_start[m->pair_count] + 1) * sizeof(int64_t));
    if (!cost)
        return false;
    for (uint32_t q = 0; q < m->pair_count; q++) {
        uint32_t a = m->pair_a[q], b = m->pair_b[q], db = iopddl_domain(m, b);
        uint32_t ka = kept_count(m, is_free, a), kb = kept_count(m, is_free, b);
        uint32_t fa = first_kept(is_free, x, a), fb = first_kept(is_free, x, b);
        const int64_t *table = m->pair_cost + m->pair_start[q];
        int64_t *out = cost + pair_start[q];
        for (uint32_t sa = 0; sa < ka; sa++)
            for (uint32_t sb = 0; sb < kb; sb++)
                out[(uint64_t)sa * kb + sb] = table[(uint64_t)(fa + sa) * db + fb + sb];
    }
    r->pair_start = pair_start;
    r->pair_cost = cost;
    return true;
}

iopddl_model *iopddl_model_restrict(const iopddl_model *m, const uint8_t *is_free, const uint32_t *x)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    iopddl_model *r = arena ? pp_arena_calloc(arena, 1, sizeof *r) : NULL;
    if (!r) {
        pp_arena_free(arena);
        return NULL;
    }
    *r = *m;
    r->arena = arena;
    if (!restrict_nodes(r, m, is_free, x) || !restrict_pairs(r, m, is_free, x)) {
        pp_arena_free(arena);
        return NULL;
    }
    return r;
}

void iopddl_model_unrestrict(const iopddl_model *m, const uint8_t *is_free, const uint32_t *restricted,
                          uint32_t *x)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        if (is_free[v])
            x[v] = restricted[v];
}
