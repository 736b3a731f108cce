/* conflicts.c: sharding conflicts (paper 004 sections 3.3-3.4) between the
 * iclasses of one color on the same definition or use, the dimension graph
 * over iclasses, compatible conflicts by the box rule and their closure into
 * compatibility sets (section 3.5), and which dimension a resolution shards. */
#include "shard/nda_internal.h"
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "shard/shard_internal.h"

typedef struct {
    pp_shard_nda *nda;
    pp_error *err;
    pp_shard_nda_conflict *found; /* every occurrence, before dedup */
    int32_t n_found, cap_found;
    int32_t *adj_first, *adj; /* dimension graph over iclasses (CSR) */
    int32_t *mark;            /* BFS visit stamps */
    int32_t stamp;
    int32_t *queue;
    int32_t *links; /* compatible pairs: (c1, c2, parity) triples */
    int32_t n_links, cap_links;
} conflict_ctx;

static bool oom(conflict_ctx *X)
{
    pp_error_set(X->err, PP_ENOMEM, "out of memory in the conflict analysis");
    return false;
}

/* pp_grow, with the conflict analysis's out-of-memory message. */
static bool grow(conflict_ctx *X, void **data, int32_t need, int32_t *cap, size_t size)
{
    return pp_grow(data, cap, need, size) || oom(X);
}

static bool note_occurrence(conflict_ctx *X, int32_t t, int32_t d, int32_t e)
{
    const pp_shard_nda *nda = X->nda;
    int32_t x = nda->tensors[t].first + d, y = nda->tensors[t].first + e;
    int32_t a = nda->iclass[x], b = nda->iclass[y];
    if (nda->color[x] != nda->color[y] || a == b)
        return true;
    if (!grow(X, (void **)&X->found, X->n_found + 1, &X->cap_found, sizeof *X->found))
        return false;
    X->found[X->n_found++] = a < b ? (pp_shard_nda_conflict){a, b, nda->color[x], -1, t, d, e}
                                   : (pp_shard_nda_conflict){b, a, nda->color[x], -1, t, e, d};
    return true;
}

static int by_pair_then_tensor(const void *p, const void *q)
{
    const pp_shard_nda_conflict *a = p, *b = q;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return (a->tensor > b->tensor) - (a->tensor < b->tensor);
}

static int by_tensor(const void *p, const void *q)
{
    const pp_shard_nda_conflict *a = p, *b = q;
    if (a->tensor != b->tensor)
        return a->tensor < b->tensor ? -1 : 1;
    return (a->dim_a > b->dim_a) - (a->dim_a < b->dim_a);
}

/* Section 3.3's view, with I and M applied: definitions whose names repeat a color. */
static void count_twice(pp_shard_nda *nda)
{
    for (int32_t t = 0; t < nda->flat->n_values; t++)
        for (int32_t d = 0; d < nda->tensors[t].rank; d++) {
            int32_t c = nda->color[nda->tensors[t].first + d], before = 0, after = 0;
            for (int32_t e = 0; e < nda->tensors[t].rank; e++)
                if (nda->color[nda->tensors[t].first + e] == c) {
                    before += e < d;
                    after += e > d;
                }
            nda->colors[c].n_twice += before == 0 && after > 0;
        }
}

/* Every pair of iclasses of one color on one tensor occurrence, kept once,
 * numbered in the order of the first tensor they appear on. */
static bool find_conflicts(conflict_ctx *X)
{
    pp_shard_nda *nda = X->nda;
    for (int32_t t = 0; t < nda->n_tensors; t++)
        for (int32_t d = 0; d < nda->tensors[t].rank; d++)
            for (int32_t e = d + 1; e < nda->tensors[t].rank; e++)
                if (!note_occurrence(X, t, d, e))
                    return false;
    if (X->n_found)
        qsort(X->found, (size_t)X->n_found, sizeof *X->found, by_pair_then_tensor);
    int32_t n = 0;
    for (int32_t k = 0; k < X->n_found; k++)
        if (n == 0 || X->found[n - 1].a != X->found[k].a || X->found[n - 1].b != X->found[k].b)
            X->found[n++] = X->found[k];
    if (n)
        qsort(X->found, (size_t)n, sizeof *X->found, by_tensor);
    nda->n_conflicts = n;
    nda->conflicts = shard_nda_alloc(nda, (size_t)n, sizeof *nda->conflicts, X->err);
    if (!nda->conflicts)
        return false;
    if (n)
        memcpy(nda->conflicts, X->found, (size_t)n * sizeof *X->found);
    return true;
}

/* iclass -> the conflicts it is a side of. */
static bool index_conflicts(conflict_ctx *X)
{
    pp_shard_nda *nda = X->nda;
    nda->iclass_conflict_first = shard_nda_alloc(nda, (size_t)nda->n_iclasses + 1, sizeof(int32_t), X->err);
    nda->iclass_conflicts = shard_nda_alloc(nda, (size_t)nda->n_conflicts * 2, sizeof(int32_t), X->err);
    if (!nda->iclass_conflict_first || !nda->iclass_conflicts)
        return false;
    int32_t *first = nda->iclass_conflict_first;
    for (int32_t c = 0; c < nda->n_conflicts; c++) {
        first[nda->conflicts[c].a + 1]++;
        first[nda->conflicts[c].b + 1]++;
        nda->colors[nda->conflicts[c].color].n_conflicts++;
    }
    for (int32_t i = 0; i < nda->n_iclasses; i++)
        first[i + 1] += first[i];
    int32_t *fill = calloc((size_t)nda->n_iclasses + 1, sizeof *fill);
    if (!fill)
        return oom(X);
    for (int32_t c = 0; c < nda->n_conflicts; c++) {
        int32_t a = nda->conflicts[c].a, b = nda->conflicts[c].b;
        nda->iclass_conflicts[first[a] + fill[a]++] = c;
        nda->iclass_conflicts[first[b] + fill[b]++] = c;
    }
    free(fill);
    return true;
}

int32_t shard_nda_conflict_of(const pp_shard_nda *nda, int32_t a, int32_t b)
{
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    for (int32_t k = nda->iclass_conflict_first[a]; k < nda->iclass_conflict_first[a + 1]; k++) {
        const pp_shard_nda_conflict *c = &nda->conflicts[nda->iclass_conflicts[k]];
        if (c->a == a && c->b == b)
            return nda->iclass_conflicts[k];
    }
    return -1;
}

/* The dimension graph: M's edges between iclasses, directed definition to use. */
static bool build_graph(conflict_ctx *X)
{
    const pp_shard_nda *nda = X->nda;
    int32_t n = nda->n_iclasses;
    X->adj_first = calloc((size_t)n + 2, sizeof *X->adj_first);
    X->adj = malloc(((size_t)nda->n_edges + 1) * sizeof *X->adj);
    X->mark = calloc((size_t)n + 1, sizeof *X->mark);
    X->queue = malloc(((size_t)n + 1) * sizeof *X->queue);
    int32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    bool ok = X->adj_first && X->adj && X->mark && X->queue && fill;
    for (int32_t e = 0; ok && e < nda->n_edges; e++)
        X->adj_first[nda->iclass[nda->edge_def[e]] + 1]++;
    for (int32_t i = 0; ok && i < n; i++)
        X->adj_first[i + 1] += X->adj_first[i];
    for (int32_t e = 0; ok && e < nda->n_edges; e++) {
        int32_t from = nda->iclass[nda->edge_def[e]];
        X->adj[X->adj_first[from] + fill[from]++] = nda->iclass[nda->edge_use[e]];
    }
    free(fill);
    return ok ? true : oom(X);
}

static bool reaches(conflict_ctx *X, int32_t from, int32_t to)
{
    int32_t head = 0, tail = 0;
    X->stamp++;
    X->queue[tail++] = from;
    X->mark[from] = X->stamp;
    while (head < tail) {
        int32_t v = X->queue[head++];
        if (v == to)
            return true;
        for (int32_t k = X->adj_first[v]; k < X->adj_first[v + 1]; k++)
            if (X->mark[X->adj[k]] != X->stamp) {
                X->mark[X->adj[k]] = X->stamp;
                X->queue[tail++] = X->adj[k];
            }
    }
    return false;
}

/* The box of figure 6: definition names N, O in conflict c1, the names L, R
 * of a use of the same value in conflict c2, with M edges N->L and O->R.
 * The conflicts are compatible unless a path crosses the box (N reaches R
 * or O reaches L in the dimension graph). */
static bool try_box(conflict_ctx *X, int32_t def, int32_t use, int32_t d, int32_t e)
{
    const pp_shard_nda *nda = X->nda;
    int32_t N = nda->iclass[nda->tensors[def].first + d], O = nda->iclass[nda->tensors[def].first + e];
    int32_t L = nda->iclass[nda->tensors[use].first + d], R = nda->iclass[nda->tensors[use].first + e];
    int32_t c1 = shard_nda_conflict_of(nda, N, O), c2 = shard_nda_conflict_of(nda, L, R);
    if (c1 < 0 || c2 < 0 || c1 == c2 || reaches(X, N, R) || reaches(X, O, L))
        return true;
    if (!grow(X, (void **)&X->links, X->n_links * 3 + 3, &X->cap_links, sizeof *X->links))
        return false;
    int32_t parity = (nda->conflicts[c1].a == N) ^ (nda->conflicts[c2].a == L);
    X->links[X->n_links * 3] = c1;
    X->links[X->n_links * 3 + 1] = c2;
    X->links[X->n_links * 3 + 2] = parity;
    X->n_links++;
    return true;
}

static bool find_boxes(conflict_ctx *X)
{
    const pp_shard_nda *nda = X->nda;
    for (int32_t u = nda->flat->n_values; u < nda->n_tensors; u++) {
        int32_t def = nda->tensors[u].value;
        for (int32_t d = 0; d < nda->tensors[u].rank; d++)
            for (int32_t e = d + 1; e < nda->tensors[u].rank; e++)
                if (!try_box(X, def, u, d, e))
                    return false;
    }
    return true;
}

static void swap_sides(pp_shard_nda_conflict *c)
{
    int32_t t = c->a;
    c->a = c->b;
    c->b = t;
    t = c->dim_a;
    c->dim_a = c->dim_b;
    c->dim_b = t;
}

/* Closure of the compatibility relation: components of the links, each
 * conflict oriented so resolution 0 picks the corresponding side of all. */
static bool close_sets(conflict_ctx *X)
{
    pp_shard_nda *nda = X->nda;
    int32_t n = nda->n_conflicts;
    int32_t *flip = calloc((size_t)n + 1, sizeof *flip), *stack = malloc(((size_t)n + 1) * sizeof *stack);
    nda->sets = shard_nda_alloc(nda, (size_t)n, sizeof *nda->sets, X->err);
    int32_t *members = shard_nda_alloc(nda, (size_t)n, sizeof *members, X->err);
    if (!flip || !stack || !nda->sets || !members) {
        free(flip);
        free(stack);
        return nda->sets && members ? oom(X) : false;
    }
    for (int32_t c = 0; c < n; c++)
        nda->conflicts[c].set = -1;
    int32_t used = 0;
    for (int32_t c0 = 0; c0 < n; c0++) {
        if (nda->conflicts[c0].set >= 0)
            continue;
        pp_shard_nda_set *S = &nda->sets[nda->n_sets];
        *S = (pp_shard_nda_set){.color = nda->conflicts[c0].color, .conflicts = members + used, .consistent = 1};
        int32_t top = 0;
        stack[top++] = c0;
        nda->conflicts[c0].set = nda->n_sets;
        while (top) {
            int32_t c = stack[--top];
            S->conflicts[S->n_conflicts++] = c;
            for (int32_t l = 0; l < X->n_links; l++) {
                int32_t *L = &X->links[l * 3], other;
                if (L[0] == c)
                    other = L[1];
                else if (L[1] == c)
                    other = L[0];
                else
                    continue;
                int32_t want = flip[c] ^ L[2];
                if (nda->conflicts[other].set < 0) {
                    nda->conflicts[other].set = nda->n_sets;
                    flip[other] = want;
                    stack[top++] = other;
                } else if (flip[other] != want) {
                    S->consistent = 0;
                }
            }
        }
        used += S->n_conflicts;
        nda->n_sets++;
    }
    for (int32_t c = 0; c < n; c++)
        if (flip[c])
            swap_sides(&nda->conflicts[c]);
    free(flip);
    free(stack);
    return true;
}

bool shard_nda_conflicts(pp_shard_nda *nda, pp_error *err)
{
    conflict_ctx X = {.nda = nda, .err = err};
    count_twice(nda);
    bool ok = find_conflicts(&X) && index_conflicts(&X) && build_graph(&X) && find_boxes(&X) && close_sets(&X);
    free(X.found);
    free(X.adj_first);
    free(X.adj);
    free(X.mark);
    free(X.queue);
    free(X.links);
    return ok;
}

static bool loses(const pp_shard_nda *nda, int32_t ic, const uint8_t *bits)
{
    for (int32_t k = nda->iclass_conflict_first[ic]; k < nda->iclass_conflict_first[ic + 1]; k++) {
        const pp_shard_nda_conflict *c = &nda->conflicts[nda->iclass_conflicts[k]];
        int bit = bits ? bits[c->set] != 0 : 0;
        if ((bit ? c->a : c->b) == ic)
            return true;
    }
    return false;
}

int32_t pp_shard_nda_sharded_dim(const pp_shard_nda *nda, int32_t color, const uint8_t *bits, int32_t tensor)
{
    const pp_shard_nda_tensor *t = &nda->tensors[tensor];
    for (int32_t d = 0; d < t->rank; d++) {
        int32_t x = t->first + d;
        if (nda->color[x] == color && !loses(nda, nda->iclass[x], bits))
            return d;
    }
    return -1;
}
