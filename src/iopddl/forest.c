/* forest.c: the solver of the relaxed problem (node costs plus usage
 * penalties, edge costs, no usage limit).
 *
 * Block coordinate descent over induced forests: pick a random set of nodes
 * whose induced subgraph has no cycle, hold every other node fixed, and
 * solve the block exactly by dynamic programming on its trees. The graphs
 * are sparse and nearly tree-like, so a block covers most nodes, and each
 * pass costs about one sweep over the edge tables. A pass never makes the
 * relaxed cost worse; different random blocks escape each other's minima.
 *
 * Leaves (one neighbour, which has others) are two thirds of the nodes of
 * the contest instances. A leaf's best answer for each strategy of its
 * neighbour does not change while the penalties stay, so a descent works
 * it out once (leaf_reply), folds it into the neighbour's costs, and the
 * passes run over the other nodes only; the leaf itself is set from its
 * neighbour at the end. Every block would hold every leaf anyway, so the
 * answers are those of passes over all nodes, in a third of the work on C
 * and M (BENCHMARKS.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "iopddl/solver.h"

struct iopddl_forest {
    const iopddl_model *m;
    uint32_t *order;       /* random node order for picking a block */
    uint32_t *uf;          /* union-find parent, valid for block nodes */
    uint32_t *block;       /* == epoch: node is in the block */
    uint32_t *seen;        /* == stamp: root already met while testing a node */
    uint32_t *visited;     /* == epoch: placed in a tree */
    uint32_t epoch, stamp;
    uint32_t *tree_order;  /* block nodes, parents before children */
    uint32_t *parent_pair; /* pair to the parent, UINT32_MAX at roots */
    uint32_t *choice_start;/* where node v's argmin table (indexed by parent strategy) starts */
    uint32_t *choice;
    double *h;             /* conditioned cost per strategy, then plus children's messages */
    uint32_t block_size;
    uint32_t core_count;   /* order[0 .. core_count-1]: the nodes that are not leaves */
    uint8_t *is_leaf;
    uint32_t *leaf_pair;   /* a leaf's one pair */
    uint32_t *reply_start; /* where a leaf's replies (one per neighbour strategy) start */
    double *reply_cost;    /* the leaf's least cost given its neighbour's strategy */
    uint32_t *reply;       /* and the strategy that reaches it */
    double *scratch;       /* one value per strategy of the widest node */
};

static inline uint32_t degree(const iopddl_model *m, uint32_t v) { return m->adj_start[v + 1] - m->adj_start[v]; }

static inline uint32_t neighbour_of(const iopddl_model *m, uint32_t q, uint32_t v)
{
    return m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
}

/* Marks the leaves, lists the other nodes first in order, and sizes the
 * replies. */
static bool find_leaves(iopddl_forest *f, pp_arena *arena)
{
    const iopddl_model *m = f->m;
    uint32_t n = m->node_count, core = 0;
    size_t replies = 1;
    f->is_leaf = pp_arena_calloc(arena, (size_t)n + 1, 1);
    f->leaf_pair = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    f->reply_start = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    if (!f->is_leaf || !f->leaf_pair || !f->reply_start)
        return false;
    for (uint32_t v = 0; v < n; v++) {
        if (degree(m, v) != 1)
            continue;
        uint32_t q = m->adj_pair[m->adj_start[v]];
        if (degree(m, neighbour_of(m, q, v)) < 2)
            continue; /* a two-node component: both stay in the passes */
        f->is_leaf[v] = 1;
        f->leaf_pair[v] = q;
        f->reply_start[v] = (uint32_t)replies;
        replies += iopddl_domain(m, neighbour_of(m, q, v));
    }
    for (uint32_t v = 0; v < n; v++)
        if (!f->is_leaf[v])
            f->order[core++] = v;
    f->core_count = core;
    f->reply_cost = pp_arena_alloc(arena, replies * sizeof(double));
    f->reply = pp_arena_alloc(arena, replies * sizeof(uint32_t));
    return f->reply_cost && f->reply;
}

iopddl_forest *iopddl_forest_new(const iopddl_model *m, pp_arena *arena)
{
    uint32_t n = m->node_count;
    iopddl_forest *f = pp_arena_calloc(arena, 1, sizeof *f);
    if (!f)
        return NULL;
    f->m = m;
    size_t words = (size_t)n + 1;
    f->order = pp_arena_alloc(arena, words * sizeof(uint32_t));
    f->uf = pp_arena_alloc(arena, words * sizeof(uint32_t));
    f->block = pp_arena_calloc(arena, words, sizeof(uint32_t));
    f->seen = pp_arena_calloc(arena, words, sizeof(uint32_t));
    f->visited = pp_arena_calloc(arena, words, sizeof(uint32_t));
    f->tree_order = pp_arena_alloc(arena, words * sizeof(uint32_t));
    f->parent_pair = pp_arena_alloc(arena, words * sizeof(uint32_t));
    f->choice_start = pp_arena_alloc(arena, words * sizeof(uint32_t));
    f->h = pp_arena_alloc(arena, ((size_t)m->dom_start[n] + 1) * sizeof(double));
    /* A node's argmin table has one entry per strategy of its parent. */
    size_t choices = 1;

    for (uint32_t v = 0; v < n; v++) {
        uint32_t widest = 0;
        for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
            uint32_t q = m->adj_pair[k];
            uint32_t w = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            widest = iopddl_domain(m, w) > widest ? iopddl_domain(m, w) : widest;
        }
        choices += widest;
    }
    f->choice = pp_arena_alloc(arena, choices * sizeof(uint32_t));
    f->scratch = pp_arena_alloc(arena, ((size_t)iopddl_widest_domain(m) + 1) * sizeof(double));
    if (!f->order || !f->uf || !f->block || !f->seen || !f->visited ||
        !f->tree_order || !f->parent_pair || !f->choice_start || !f->h || !f->choice || !f->scratch)
        return NULL;
    return find_leaves(f, arena) ? f : NULL;
}

static uint32_t uf_find(uint32_t *uf, uint32_t v)
{
    while (uf[v] != v) {
        uf[v] = uf[uf[v]];
        v = uf[v];
    }
    return v;
}

static inline uint32_t other_end(const iopddl_model *m, uint32_t q, uint32_t v)
{
    return m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
}

static void shuffle(uint32_t *a, uint32_t n, pp_rng *rng)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = pp_rng_below(rng, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* Adds v to the block unless that would close a cycle (two neighbours in one
 * tree). */
static void try_add(iopddl_forest *f, uint32_t v)
{
    const iopddl_model *m = f->m;
    f->stamp++;
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t w = other_end(m, m->adj_pair[k], v);
        if (f->block[w] != f->epoch)
            continue;
        uint32_t r = uf_find(f->uf, w);
        if (f->seen[r] == f->stamp)
            return;
        f->seen[r] = f->stamp;
    }
    f->block[v] = f->epoch;
    f->uf[v] = v;
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t w = other_end(m, m->adj_pair[k], v);
        if (f->block[w] == f->epoch)
            f->uf[uf_find(f->uf, w)] = v;
    }
}

static void pick_block(iopddl_forest *f, pp_rng *rng)
{
    f->epoch++;
    shuffle(f->order, f->core_count, rng);
    for (uint32_t i = 0; i < f->core_count; i++)
        try_add(f, f->order[i]);
}

/* Lists each tree of the block breadth-first, so parents precede children. */
static void order_trees(iopddl_forest *f)
{
    const iopddl_model *m = f->m;
    uint32_t count = 0;
    for (uint32_t i = 0; i < f->core_count; i++) {
        uint32_t root = f->order[i];
        if (f->block[root] != f->epoch || f->visited[root] == f->epoch)
            continue;
        f->visited[root] = f->epoch;
        f->parent_pair[root] = UINT32_MAX;
        f->tree_order[count++] = root;
        for (uint32_t head = count - 1; head < count; head++) {
            uint32_t v = f->tree_order[head];
            for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
                uint32_t q = m->adj_pair[k], w = other_end(m, q, v);
                if (f->block[w] != f->epoch || f->visited[w] == f->epoch)
                    continue;
                f->visited[w] = f->epoch;
                f->parent_pair[w] = q;
                f->tree_order[count++] = w;
            }
        }
    }
    f->block_size = count;
}

/* h = v's cost per strategy with the nodes outside the block held fixed,
 * plus its usage penalty. In doubles, unlike iopddl_node_costs: this is the
 * hot loop, and the exact DP below is in doubles anyway. */
static void condition(iopddl_forest *f, uint32_t v, const uint32_t *x, const double *penalty)
{
    const iopddl_model *m = f->m;
    uint32_t d = iopddl_domain(m, v), base = m->dom_start[v];
    double *h = f->h + base;
    double w = penalty ? penalty[v] : 0;
    for (uint32_t s = 0; s < d; s++)
        h[s] = (double)m->unary[base + s] + w * (double)(m->usage[base + s] - m->usage_min[v]);
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t q = m->adj_pair[k], u = other_end(m, q, v);
        if (f->block[u] == f->epoch)
            continue;
        if (f->is_leaf[u]) {
            const double *cost = f->reply_cost + f->reply_start[u];
            for (uint32_t s = 0; s < d; s++)
                h[s] += cost[s];
            continue;
        }
        const int64_t *t = m->pair_cost + m->pair_start[q];
        if (m->pair_a[q] == v) {
            uint32_t du = iopddl_domain(m, u);
            for (uint32_t s = 0; s < d; s++)
                h[s] += (double)t[(uint64_t)s * du + x[u]];
        } else {
            const int64_t *row = t + (uint64_t)x[u] * d;
            for (uint32_t s = 0; s < d; s++)
                h[s] += (double)row[s];
        }
    }
}

/* For each column sp of the dr x dc table t (row-major), the least of
 * add[sr] + t[sr][sp] into best[sp] and its row into arg[sp], first row on
 * ties. Row by row, so the table is read in order: a column at a time, a
 * table of 1,060 x 32 strategies is read one cache line per entry. */
static void min_over_rows(const int64_t *t, uint32_t dr, uint32_t dc, const double *add, double *best,
                          uint32_t *arg)
{
    for (uint32_t sp = 0; sp < dc; sp++) {
        best[sp] = INFINITY;
        arg[sp] = 0;
    }
    for (uint32_t sr = 0; sr < dr; sr++) {
        const int64_t *row = t + (uint64_t)sr * dc;
        double a = add[sr];
        for (uint32_t sp = 0; sp < dc; sp++) {
            double c = a + (double)row[sp];
            if (c < best[sp]) {
                best[sp] = c;
                arg[sp] = sr;
            }
        }
    }
}

/* For each row sr of the table, the least of add[sc] + t[sr][sc] and its
 * column, first column on ties. */
static void min_over_columns(const int64_t *t, uint32_t dr, uint32_t dc, const double *add, double *best,
                             uint32_t *arg)
{
    for (uint32_t sr = 0; sr < dr; sr++) {
        const int64_t *row = t + (uint64_t)sr * dc;
        double least = INFINITY;
        uint32_t at = 0;
        for (uint32_t sc = 0; sc < dc; sc++) {
            double c = add[sc] + (double)row[sc];
            if (c < least) {
                least = c;
                at = sc;
            }
        }
        best[sr] = least;
        arg[sr] = at;
    }
}

/* For each strategy of v's neighbour across pair q, v's least cost (own[]
 * plus the pair's) into best and the strategy reaching it into arg. */
static void best_replies(const iopddl_model *m, uint32_t q, uint32_t v, const double *own, double *best,
                         uint32_t *arg)
{
    uint32_t p = other_end(m, q, v);
    const int64_t *t = m->pair_cost + m->pair_start[q];
    if (m->pair_a[q] == v)
        min_over_rows(t, iopddl_domain(m, v), iopddl_domain(m, p), own, best, arg);
    else
        min_over_columns(t, iopddl_domain(m, p), iopddl_domain(m, v), own, best, arg);
}

/* Folds child v into its parent: for each parent strategy, v's best answer. */
static void send_to_parent(iopddl_forest *f, uint32_t v, uint32_t *next_choice)
{
    const iopddl_model *m = f->m;
    uint32_t q = f->parent_pair[v], p = other_end(m, q, v);
    uint32_t dp = iopddl_domain(m, p);
    double *hp = f->h + m->dom_start[p];
    f->choice_start[v] = *next_choice;
    best_replies(m, q, v, f->h + m->dom_start[v], f->scratch, f->choice + *next_choice);
    *next_choice += dp;
    for (uint32_t sp = 0; sp < dp; sp++)
        hp[sp] += f->scratch[sp];
}

static double pair_value(const iopddl_model *m, uint32_t q, const uint32_t *x)
{
    uint32_t a = m->pair_a[q], b = m->pair_b[q];
    return (double)m->pair_cost[m->pair_start[q] + (uint64_t)x[a] * iopddl_domain(m, b) + x[b]];
}

/* One pass: pick a block, solve it exactly, write the answer into x.
 * Returns how much the relaxed cost went down (never negative). */
static double forest_pass(iopddl_forest *f, uint32_t *x, const double *penalty, pp_rng *rng)
{
    const iopddl_model *m = f->m;
    pick_block(f, rng);
    order_trees(f);
    double before = 0, after = 0;
    for (uint32_t i = 0; i < f->block_size; i++) {
        uint32_t v = f->tree_order[i];
        condition(f, v, x, penalty);
        before += f->h[m->dom_start[v] + x[v]];
        if (f->parent_pair[v] != UINT32_MAX)
            before += pair_value(m, f->parent_pair[v], x);
    }
    uint32_t next_choice = 0;
    for (uint32_t i = f->block_size; i-- > 0;) {
        uint32_t v = f->tree_order[i];
        if (f->parent_pair[v] != UINT32_MAX)
            send_to_parent(f, v, &next_choice);
    }
    for (uint32_t i = 0; i < f->block_size; i++) {
        uint32_t v = f->tree_order[i];
        if (f->parent_pair[v] == UINT32_MAX) {
            const double *h = f->h + m->dom_start[v];
            uint32_t best = 0;
            for (uint32_t s = 1; s < iopddl_domain(m, v); s++)
                if (h[s] < h[best])
                    best = s;
            after += h[best];
            x[v] = best;
        } else {
            uint32_t p = other_end(m, f->parent_pair[v], v);
            x[v] = f->choice[f->choice_start[v] + x[p]];
        }
    }
    double gain = before - after;
    return gain > 0 ? gain : 0;
}

double iopddl_relaxed_cost(const iopddl_model *m, const uint32_t *x, const double *penalty)
{
    double total = 0;
    for (uint32_t v = 0; v < m->node_count; v++) {
        uint32_t k = m->dom_start[v] + x[v];
        total += (double)m->unary[k];
        if (penalty)
            total += penalty[v] * (double)(m->usage[k] - m->usage_min[v]);
    }
    for (uint32_t q = 0; q < m->pair_count; q++)
        total += pair_value(m, q, x);
    return total;
}

/* For each strategy of leaf v's neighbour, v's least cost (its own with
 * the penalty, plus the pair's) and the strategy reaching it. */
static void leaf_reply(iopddl_forest *f, uint32_t v, const double *penalty)
{
    const iopddl_model *m = f->m;
    uint32_t dv = iopddl_domain(m, v), base = m->dom_start[v];
    double w = penalty ? penalty[v] : 0;
    for (uint32_t sv = 0; sv < dv; sv++)
        f->scratch[sv] = (double)m->unary[base + sv] + w * (double)(m->usage[base + sv] - m->usage_min[v]);
    best_replies(m, f->leaf_pair[v], v, f->scratch, f->reply_cost + f->reply_start[v], f->reply + f->reply_start[v]);
}

/* Every leaf at its best answer to its neighbour's strategy in x. */
static void answer_leaves(iopddl_forest *f, uint32_t *x)
{
    const iopddl_model *m = f->m;
    for (uint32_t v = 0; v < m->node_count; v++)
        if (f->is_leaf[v])
            x[v] = f->reply[f->reply_start[v] + x[other_end(m, f->leaf_pair[v], v)]];
}

double iopddl_forest_descend(iopddl_forest *f, uint32_t *x, const double *penalty, pp_rng *rng,
                          int max_passes, int patience, const pp_deadline *deadline)
{
    for (uint32_t v = 0; v < f->m->node_count; v++)
        if (f->is_leaf[v])
            leaf_reply(f, v, penalty);
    answer_leaves(f, x);
    double cost = iopddl_relaxed_cost(f->m, x, penalty);
    int idle = 0;
    for (int pass = 0; pass < max_passes && idle < patience; pass++) {
        if (pp_deadline_passed(deadline))
            break;
        double gain = forest_pass(f, x, penalty, rng);
        /* Progress is judged against real costs: while x still pays
         * forbidden ones, its cost (~1e18 each) would dwarf every gain. */
        idle = gain > 0.5 + 1e-9 * fmin(fabs(cost), 1e15) ? 0 : idle + 1;
        cost -= gain;
    }
    answer_leaves(f, x);
    return iopddl_relaxed_cost(f->m, x, penalty);
}
