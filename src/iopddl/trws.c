/* trws.c: sequential tree-reweighted message passing (TRW-S, Kolmogorov
 * 2006) on the pairwise part of the relaxed problem, with an answer decoded
 * on every forward pass.
 *
 * Why: descent over induced forests cannot switch all nodes of a cycle at
 * once, and these graphs are full of cycles whose edges price any mismatch
 * (resharding) heavily, so descent alone stops far from good answers. The
 * messages carry the whole graph's preferences to every node; the forest
 * descent then finishes the decoded answer. Messages persist between calls,
 * so when only the usage penalties change the next call starts warm.
 *
 * Leaves (one neighbour, which has others; two thirds of the nodes of the
 * contest instances) take no part in the passes: a leaf's message to its
 * neighbour depends only on its own costs and the penalties, so each call
 * works it out once and folds it into the neighbour's costs (an exact
 * minimisation over the leaf, so the bound stays valid: the constants taken
 * out of those messages are added to it). A leaf is then decoded as its best
 * reply to its neighbour's decoded strategy. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "iopddl/bound.h" /* its accessors for bound_peak.c */

/* Forbidden entries enter the messages as this instead of 1e18: it still
 * dwarfs any sum of real costs, and keeps doubles precise for the rest. */
#define TRWS_FORBIDDEN 1e15

struct iopddl_trws {
    const iopddl_model *m;
    uint64_t *msg_start; /* pair q: message to b (d_b entries), then to a (d_a) */
    double *msg;
    double *gamma;       /* per node: 1 / max(#earlier, #later neighbours) */
    double *belief;      /* scratch, widest domain */
    double *theta;       /* scratch, widest domain */
    double *unary_share; /* per node: 1 - gamma * #later neighbours */
    double *table_most;  /* per pair: its largest entry (table_magnitude); NULL: no bound kept */
    uint8_t *is_leaf;
    uint32_t *leaf_pair; /* a leaf's one pair */
    double *fold;        /* per strategy of a node that is not a leaf: its leaves' messages */
    double fold_shed;    /* the constants taken out of the leaves' messages */
    double fold_magnitude; /* the largest numbers the leaves' messages summed, for the allowance */
    double bound;        /* dual bound of the last forward pass */
    double bound_error;  /* what rounding may have taken from it */
};

static inline double table_entry(int64_t c) { return c >= PP_IOPDDL_FORBIDDEN ? TRWS_FORBIDDEN : (double)c; }

/* The largest entry of pair q's table in magnitude, forbidden entries as
 * TRWS_FORBIDDEN: how large the numbers a message sums can be, for the
 * bound's rounding allowance. */
static double table_magnitude(const iopddl_model *m, uint32_t q)
{
    uint64_t size = (uint64_t)iopddl_domain(m, m->pair_a[q]) * iopddl_domain(m, m->pair_b[q]);
    const int64_t *table = m->pair_cost + m->pair_start[q];
    double most = 0;
    for (uint64_t k = 0; k < size; k++)
        most = fmax(most, fabs(table_entry(table[k])));
    return most;
}

bool iopddl_trws_keep_bound(iopddl_trws *t, pp_arena *arena)
{
    const iopddl_model *m = t->m;
    t->table_most = pp_arena_alloc(arena, ((size_t)m->pair_count + 1) * sizeof(double));
    if (!t->table_most)
        return false;
    for (uint32_t q = 0; q < m->pair_count; q++)
        t->table_most[q] = table_magnitude(m, q);
    return true;
}

static inline uint32_t degree(const iopddl_model *m, uint32_t v) { return m->adj_start[v + 1] - m->adj_start[v]; }

static inline uint32_t other_end(const iopddl_model *m, uint32_t q, uint32_t v)
{
    return m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
}

/* The same leaves as forest.c's: one neighbour, which has others (a
 * two-node component stays in the passes). */
static bool find_leaves(iopddl_trws *t, pp_arena *arena)
{
    const iopddl_model *m = t->m;
    t->is_leaf = pp_arena_calloc(arena, (size_t)m->node_count + 1, 1);
    t->leaf_pair = pp_arena_alloc(arena, ((size_t)m->node_count + 1) * sizeof(uint32_t));
    if (!t->is_leaf || !t->leaf_pair)
        return false;
    for (uint32_t v = 0; v < m->node_count; v++) {
        if (degree(m, v) != 1)
            continue;
        uint32_t q = m->adj_pair[m->adj_start[v]];
        if (degree(m, other_end(m, q, v)) < 2)
            continue;
        t->is_leaf[v] = 1;
        t->leaf_pair[v] = q;
    }
    return true;
}

iopddl_trws *iopddl_trws_new(const iopddl_model *m, pp_arena *arena)
{
    iopddl_trws *t = pp_arena_calloc(arena, 1, sizeof *t);
    if (!t)
        return NULL;
    t->m = m;
    uint32_t n = m->node_count, widest = iopddl_widest_domain(m);
    t->msg_start = pp_arena_alloc(arena, ((size_t)m->pair_count + 1) * sizeof(uint64_t));
    t->gamma = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(double));
    t->unary_share = pp_arena_alloc(arena, ((size_t)n + 1) * sizeof(double));
    if (!t->msg_start || !t->gamma || !t->unary_share)
        return NULL;
    uint64_t total = 0;
    for (uint32_t q = 0; q < m->pair_count; q++) {
        t->msg_start[q] = total;
        total += iopddl_domain(m, m->pair_a[q]) + iopddl_domain(m, m->pair_b[q]);
    }
    t->msg = pp_arena_calloc(arena, total + 1, sizeof(double));
    t->fold = pp_arena_alloc(arena, ((size_t)m->dom_start[n] + 1) * sizeof(double));
    if (!t->msg || !t->fold || !find_leaves(t, arena))
        return NULL;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t earlier = 0, later = 0;
        for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
            uint32_t q = m->adj_pair[k];
            uint32_t w = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            if (t->is_leaf[w] || t->is_leaf[v])
                continue;
            if (w < v)
                earlier++;
            else
                later++;
        }
        uint32_t most = earlier > later ? earlier : later;
        t->gamma[v] = most ? 1.0 / most : 1.0;
        t->unary_share[v] = 1.0 - t->gamma[v] * later;
    }
    t->bound = -INFINITY;
    t->belief = pp_arena_alloc(arena, widest * sizeof(double));
    t->theta = pp_arena_alloc(arena, widest * sizeof(double));
    return t->belief && t->theta ? t : NULL;
}


/* Message into v along pair q (entries indexed by v's strategies). */
static inline double *incoming(iopddl_trws *t, uint32_t q, uint32_t v)
{
    const iopddl_model *m = t->m;
    double *to_b = t->msg + t->msg_start[q];
    return m->pair_b[q] == v ? to_b : to_b + iopddl_domain(m, m->pair_b[q]);
}

/* v's own cost per strategy with its penalty (no folded leaves). */
static void own_cost(iopddl_trws *t, uint32_t v, const double *penalty, double *out)
{
    const iopddl_model *m = t->m;
    uint32_t base = m->dom_start[v];
    double w = penalty ? penalty[v] : 0;
    for (uint32_t s = 0; s < iopddl_domain(m, v); s++)
        out[s] = table_entry(m->unary[base + s]) + w * (double)(m->usage[base + s] - m->usage_min[v]);
}

/* The same plus the messages of v's leaves. */
static void unary_with_penalty(iopddl_trws *t, uint32_t v, const double *penalty, double *out)
{
    own_cost(t, v, penalty, out);
    const double *fold = t->fold + t->m->dom_start[v];
    for (uint32_t s = 0; s < iopddl_domain(t->m, v); s++)
        out[s] += fold[s];
}

/* For each strategy of leaf v's neighbour, v's least cost (own plus the
 * pair's); returns the largest of v's own costs in magnitude. */
static double leaf_message(iopddl_trws *t, uint32_t v, const double *penalty, double *to_neighbour)
{
    const iopddl_model *m = t->m;
    uint32_t q = t->leaf_pair[v], u = other_end(m, q, v);
    uint32_t dv = iopddl_domain(m, v), du = iopddl_domain(m, u);
    double *own = t->theta, widest = 0;
    own_cost(t, v, penalty, own);
    const int64_t *table = m->pair_cost + m->pair_start[q];
    bool v_is_a = m->pair_a[q] == v;
    for (uint32_t su = 0; su < du; su++) {
        double best = INFINITY;
        for (uint32_t sv = 0; sv < dv; sv++) {
            double c = own[sv] + table_entry(table[v_is_a ? (uint64_t)sv * du + su : (uint64_t)su * dv + sv]);
            best = c < best ? c : best;
        }
        to_neighbour[su] = best;
    }
    for (uint32_t sv = 0; sv < dv; sv++)
        widest = fmax(widest, fabs(own[sv]));
    return widest;
}

/* Folds every leaf's message into its neighbour's costs, least entry
 * taken out into fold_shed. */
static void fold_leaves(iopddl_trws *t, const double *penalty)
{
    const iopddl_model *m = t->m;
    memset(t->fold, 0, (size_t)m->dom_start[m->node_count] * sizeof(double));
    t->fold_shed = 0;
    t->fold_magnitude = 0;
    for (uint32_t v = 0; v < m->node_count; v++) {
        if (!t->is_leaf[v])
            continue;
        uint32_t q = t->leaf_pair[v], u = other_end(m, q, v), du = iopddl_domain(m, u);
        double *message = t->belief, least = INFINITY, widest = leaf_message(t, v, penalty, message);
        for (uint32_t su = 0; su < du; su++)
            least = fmin(least, message[su]);
        double *fold = t->fold + m->dom_start[u];
        for (uint32_t su = 0; su < du; su++)
            fold[su] += message[su] - least;
        t->fold_shed += least;
        t->fold_magnitude += widest + (t->table_most ? t->table_most[q] : 0) + 2 * fabs(least);
    }
}

/* Leaf v's best strategy given its neighbour's in x. */
static uint32_t best_reply(iopddl_trws *t, uint32_t v, const double *penalty, const uint32_t *x)
{
    const iopddl_model *m = t->m;
    uint32_t q = t->leaf_pair[v], u = other_end(m, q, v);
    uint32_t dv = iopddl_domain(m, v), du = iopddl_domain(m, u);
    double *own = t->theta;
    own_cost(t, v, penalty, own);
    const int64_t *table = m->pair_cost + m->pair_start[q];
    bool v_is_a = m->pair_a[q] == v;
    uint32_t best = 0;
    double least = INFINITY;
    for (uint32_t sv = 0; sv < dv; sv++) {
        double c = own[sv] + table_entry(table[v_is_a ? (uint64_t)sv * du + x[u] : (uint64_t)x[u] * dv + sv]);
        if (c < least) {
            least = c;
            best = sv;
        }
    }
    return best;
}

/* Sends v's message along q to u = other end: for each strategy of u, the
 * least over v of gamma * belief - (u's message to v) + edge cost. Returns
 * the constant taken out to keep the message's least entry at zero. */
static double send(iopddl_trws *t, uint32_t v, uint32_t q, const double *belief)
{
    const iopddl_model *m = t->m;
    uint32_t u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
    uint32_t dv = iopddl_domain(m, v), du = iopddl_domain(m, u);
    const double *back = incoming(t, q, v);
    double *out = incoming(t, q, u);
    double *base = t->theta;
    double g = t->gamma[v];
    for (uint32_t s = 0; s < dv; s++)
        base[s] = g * belief[s] - back[s];
    const int64_t *table = m->pair_cost + m->pair_start[q];
    double least = INFINITY;
    if (m->pair_a[q] == v) {
        for (uint32_t su = 0; su < du; su++)
            out[su] = INFINITY;
        for (uint32_t sv = 0; sv < dv; sv++) {
            const int64_t *row = table + (uint64_t)sv * du;
            for (uint32_t su = 0; su < du; su++) {
                double c = base[sv] + table_entry(row[su]);
                out[su] = c < out[su] ? c : out[su];
            }
        }
    } else {
        for (uint32_t su = 0; su < du; su++) {
            const int64_t *row = table + (uint64_t)su * dv;
            double best = INFINITY;
            for (uint32_t sv = 0; sv < dv; sv++) {
                double c = base[sv] + table_entry(row[sv]);
                best = c < best ? c : best;
            }
            out[su] = best;
        }
    }
    for (uint32_t su = 0; su < du; su++)
        least = out[su] < least ? out[su] : least;
    for (uint32_t su = 0; su < du; su++)
        out[su] -= least;
    return least;
}

/* The answer for v given its earlier neighbours' decided strategies and its
 * later neighbours' messages. */
static uint32_t decode(iopddl_trws *t, uint32_t v, const double *penalty, const uint32_t *x)
{
    const iopddl_model *m = t->m;
    uint32_t d = iopddl_domain(m, v);
    double *score = t->theta;
    unary_with_penalty(t, v, penalty, score);
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        uint32_t q = m->adj_pair[k];
        uint32_t u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
        if (t->is_leaf[u])
            continue;
        if (u > v) {
            const double *in = incoming(t, q, v);
            for (uint32_t s = 0; s < d; s++)
                score[s] += in[s];
            continue;
        }
        const int64_t *table = m->pair_cost + m->pair_start[q];
        if (m->pair_a[q] == v) {
            uint32_t du = iopddl_domain(m, u);
            for (uint32_t s = 0; s < d; s++)
                score[s] += table_entry(table[(uint64_t)s * du + x[u]]);
        } else {
            const int64_t *row = table + (uint64_t)x[u] * d;
            for (uint32_t s = 0; s < d; s++)
                score[s] += table_entry(row[s]);
        }
    }
    uint32_t best = 0;
    for (uint32_t s = 1; s < d; s++)
        if (score[s] < score[best])
            best = s;
    return best;
}

/* v's belief: its unary cost with penalty, plus the messages into it
 * from every neighbour that is not a folded leaf. */
static void gather_belief(iopddl_trws *t, uint32_t v, const double *penalty, double *out)
{
    const iopddl_model *m = t->m;
    uint32_t d = iopddl_domain(m, v);
    unary_with_penalty(t, v, penalty, out);
    for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
        if (t->is_leaf[other_end(m, m->adj_pair[k], v)])
            continue;
        const double *in = incoming(t, m->adj_pair[k], v);
        for (uint32_t s = 0; s < d; s++)
            out[s] += in[s];
    }
}

/* A forward pass is also a dual bound: split each node's reparameterized
 * cost into gamma for each later neighbour's edge and the rest for itself.
 * The edge's share then has least exactly the constant its message shed
 * (the message is that least taken over the node's strategies), and the
 * node keeps its least. Any messages give a valid reparameterization, so
 * the sum of those leasts is below every assignment's relaxed cost. */
static void pass(iopddl_trws *t, const double *penalty, bool forward, uint32_t *x)
{
    const iopddl_model *m = t->m;
    uint32_t n = m->node_count;
    bool tracking = forward && t->table_most; /* the workers never ask for the bound */
    double bound = t->fold_shed, magnitude = t->fold_magnitude;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = forward ? i : n - 1 - i;
        if (t->is_leaf[v])
            continue;
        double *belief = t->belief;
        gather_belief(t, v, penalty, belief);
        uint32_t d = iopddl_domain(m, v);
        if (forward && x)
            x[v] = decode(t, v, penalty, x);
        double least = INFINITY, widest = 0;
        for (uint32_t s = 0; tracking && s < d; s++) {
            least = fmin(least, belief[s]);
            widest = fmax(widest, fabs(belief[s]));
        }
        if (tracking) {
            bound += t->unary_share[v] * least;
            magnitude += widest;
        }
        for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
            uint32_t q = m->adj_pair[k];
            uint32_t u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            if (!t->is_leaf[u] && (forward ? u > v : u < v)) {
                double shed = send(t, v, q, belief);
                if (tracking) {
                    bound += shed;
                    magnitude += widest + t->table_most[q] + fabs(shed);
                }
            }
        }
    }
    if (tracking) {
        t->bound = bound;
        /* Each term above is a few roundings off its exact value, and each
         * is below the magnitudes it was computed from: 8 roundings' worth
         * of relative error on all of them covers it, and the sum's own. */
        t->bound_error = 8 * DBL_EPSILON * (magnitude + (double)(n + m->pair_count) * fabs(bound));
    }
}

void iopddl_trws_run(iopddl_trws *t, const double *penalty, int iterations, uint32_t *x,
                  const pp_deadline *deadline)
{
    /* The bound kept so far was for the last run's penalties: a run the
     * deadline cuts before its first forward pass must not pass it off as
     * one for these. */
    t->bound = -INFINITY;
    t->bound_error = 0;
    fold_leaves(t, penalty);
    for (int it = 0; it < iterations && !pp_deadline_passed(deadline); it++) {
        bool last = it == iterations - 1;
        pass(t, penalty, true, last ? x : NULL);
        for (uint32_t v = 0; last && x && v < t->m->node_count; v++)
            if (t->is_leaf[v])
                x[v] = best_reply(t, v, penalty, x);
        if (!last)
            pass(t, penalty, false, NULL);
    }
}

double iopddl_trws_bound(const iopddl_trws *t)
{
    return t->bound - t->bound_error;
}

/* The split the last forward pass's bound sums (bound_peak.c keeps part of
 * it exact): leaves folded (their least costs summed in fold_shed), each
 * other node's belief, shared as unary_share for itself and gamma for each
 * later neighbour's pair; the pair's part then has the message the pass
 * sent taken out. Penalties as bound.c's runs: none (in the costs). */
bool iopddl_trws_is_leaf(const iopddl_trws *t, uint32_t v) { return t->is_leaf[v] != 0; }

double iopddl_trws_leaf_shed(const iopddl_trws *t) { return t->fold_shed; }

void iopddl_trws_leaf_message(iopddl_trws *t, uint32_t v, double *out) { leaf_message(t, v, NULL, out); }

double iopddl_trws_belief(iopddl_trws *t, uint32_t v, double *out, double *gamma)
{
    gather_belief(t, v, NULL, out);
    *gamma = t->gamma[v];
    return t->unary_share[v];
}

const double *iopddl_trws_message(iopddl_trws *t, uint32_t q, uint32_t v) { return incoming(t, q, v); }

double iopddl_trws_entry(int64_t cost) { return table_entry(cost); }
