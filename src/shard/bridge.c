/* bridge.c: builds the IOPDDL problem of a model on a mesh (issue 8's
 * bridge, parplan/shard_bridge.h); bridge_write.c writes it as JSON and
 * checks a file read back against it.
 *
 * The names a node owns: an argument's definition, an op's operand uses and
 * result definitions, and the entry outputs returning any of those values
 * (they copy their definition's layout: no resharding at the return). Every
 * iclass lies within one node's names (nda.c), so a strategy fixes the
 * layout of its node's names and of nothing else.
 *
 * Strategies: the candidate iclasses of an op are those of its results'
 * names and of the operand names it sums over (contracted, reduced); those
 * of an argument are its own. Several axes may shard one iclass. A strategy
 * putting one axis on two dimensions of one tensor, or a dimension not
 * divisible by its axes' devices, is not listed. At most STRATEGIES_PER_NODE
 * are listed, the fewest sharded axes first (then in axis and candidate
 * order), which keeps the unsharded strategy 0. That bounds one op's
 * choices, which grow with its rank and the mesh's axes (with two axes it
 * never binds below seven candidate iclasses per op), not the model: the
 * problem has a node per op and arguments however deep the model is.
 *
 * Costs, in picoseconds rounded to nearest: a node pays shard_cost_op of its
 * op plus shard_cost_use of its outputs; the edge (producer, consumer op)
 * pays shard_cost_use of every use of the producer's values by the consumer.
 * These are the terms pp_shard_cost_eval_layout sums, each depending on the
 * two nodes' layouts only (cost_internal.h), so the objective is the
 * runtime. Edges whose costs are all zero are left out.
 *
 * Usage: the local bytes of the node's results (rounded up), live as
 * shard_cost_peak_memory counts them: arguments throughout [0, n_ops + 1),
 * op i from i to its last use, n_ops for an entry output. An op with several
 * results is live over the union of their ranges, an over-estimate when
 * they die at different ops; otherwise the peak usage is the peak memory.
 *
 * Folded (the plan's bridge, bridge_internal.h): the ops and arguments of
 * every copy of a repeated layer (nda.c's layer groups, found by structure)
 * become the node of copy 0 at the same place, when their strategies are
 * the same layouts position by position, so the solver decides a layer once
 * for all its copies, as the MCTS's mirrored actions do, and its problem
 * keeps the size of one layer however deep the model. A folded node's costs
 * are its members' sums, its usage a member's times the most members live
 * at one time (all of a layer's weights, one or two copies of a forward
 * activation) and its interval their union, so the peak usage is close to
 * the peak memory, not bound by it (the cost model prices the plan); an edge
 * between two copies' nodes folds onto the two copy-0 nodes (their matrices
 * summed), or onto the node's own costs where both ends fold to one node.
 * The runtime of the expanded layout is still the objective. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_bridge.h"
#include "core/grow.h"
#include "shard/cost_internal.h"

#define STRATEGIES_PER_NODE 64
#include "shard/bridge_internal.h"
#include "iopddl/problem_io.h"

struct pp_shard_bridge {
    const pp_shard_flat *flat;
    const pp_shard_nda *nda;
    pp_shard_mesh mesh;
    int32_t n_nodes;
    int32_t *owned_first; /* per node its tensors owned[owned_first[n] .. owned_first[n + 1]), outputs last */
    int32_t *owned;
    int32_t *first;  /* per node, its first strategy's index in choice (n_nodes + 1 entries) */
    int32_t *choice; /* strategy s of node n, axis a: choice[(first[n] + s) * n_axes + a], an iclass or -1 */
    int32_t *fold;   /* per node, its node in the problem */
    int32_t *member; /* per problem node, the node whose choices its strategies are */
    uint32_t n_problem;
    pp_iopddl_problem *problem;
};

typedef struct {
    pp_shard_bridge *b;
    shard_cost_model M;
    uint8_t *axes; /* scratch layout */
    int32_t *cand; /* candidate iclasses of the node being enumerated */
    uint8_t *cand_axes; /* per candidate, the axes it takes alone (a product only divides less) */
    int32_t n_cand;
    int32_t *found;  /* the strategies of the node being enumerated, STRATEGIES_PER_NODE of them at most */
    uint32_t n_found;
    int cap;         /* of b->choice */
    pp_iopddl_builder *out; /* the problem being built */
    uint32_t *ends;  /* the candidate edges, (producer, consumer) each */
    int64_t *costs;  /* one edge's costs as they are priced */
    int64_t *sum;    /* one folded edge's costs */
    int64_t *node_cost, *node_usage; /* per problem node and strategy (at first[member]) */
    int64_t *start, *end;            /* per problem node, its interval */
    int64_t *lo, *hi;                /* per node, its own interval */
} builder;

static int32_t node_of_value(const pp_shard_flat *flat, int32_t v)
{
    return v < flat->n_inputs ? v : flat->n_inputs + flat->values[v].op;
}

static bool is_output(const pp_shard_nda *nda, int32_t t)
{
    return t >= nda->out_use;
}

/* The owned tensors: definitions, operand uses, then outputs. */
static bool index_owned(builder *B)
{
    pp_shard_bridge *b = B->b;
    const pp_shard_flat *flat = b->flat;
    const pp_shard_nda *nda = b->nda;
    b->owned_first = calloc((size_t)b->n_nodes + 1, sizeof *b->owned_first);
    b->owned = malloc(sizeof *b->owned * ((size_t)nda->n_tensors + 1));
    if (!b->owned_first || !b->owned)
        return false;
    int32_t k = 0;
    for (int32_t n = 0; n < b->n_nodes; n++) {
        b->owned_first[n] = k;
        int32_t i = n - flat->n_inputs, n_res = i < 0 ? 1 : pp_shard_flat_op_of(flat, i)->n_results;
        const int32_t *res = i < 0 ? &n : flat->ops[i].results;
        for (int32_t r = 0; r < n_res; r++)
            b->owned[k++] = res[r];
        for (int32_t u = 0; i >= 0 && u < pp_shard_flat_op_of(flat, i)->n_operands; u++)
            b->owned[k++] = nda->op_use[i] + u;
        for (int32_t r = 0; r < n_res; r++)
            for (int32_t j = B->M.use_first[res[r]]; j < B->M.use_first[res[r] + 1]; j++)
                if (is_output(nda, B->M.use_list[j]))
                    b->owned[k++] = B->M.use_list[j];
    }
    b->owned_first[b->n_nodes] = k;
    return true;
}

static uint32_t n_strategies(const pp_shard_bridge *b, int32_t node)
{
    return (uint32_t)(b->first[node + 1] - b->first[node]);
}

static const int32_t *choice_of(const pp_shard_bridge *b, int32_t node, uint32_t s)
{
    return &b->choice[((size_t)b->first[node] + s) * (size_t)b->mesh.n_axes];
}

/* Lays out node's names in axes under the choice ch (one iclass or -1 per axis). */
static void set_layout(const pp_shard_bridge *b, uint8_t *axes, int32_t node, const int32_t *ch)
{
    const pp_shard_nda *nda = b->nda;
    for (int32_t k = b->owned_first[node]; k < b->owned_first[node + 1]; k++) {
        const pp_shard_nda_tensor *T = &nda->tensors[b->owned[k]];
        if (is_output(nda, b->owned[k])) {
            memcpy(&axes[T->first], &axes[nda->tensors[T->value].first], (size_t)T->rank);
            continue;
        }
        for (int32_t d = 0; d < T->rank; d++) {
            uint8_t mask = 0;
            for (int32_t a = 0; a < b->mesh.n_axes; a++)
                if (ch[a] == nda->iclass[T->first + d])
                    mask |= (uint8_t)(1u << a);
            axes[T->first + d] = mask;
        }
    }
}

/* The rules of shard_cost_check_layout, on the node's own tensors only. */
static bool valid_layout(const builder *B, int32_t node)
{
    const pp_shard_bridge *b = B->b;
    int32_t d;
    for (int32_t k = b->owned_first[node]; k < b->owned_first[node + 1]; k++)
        if (shard_tensor_fit(b->nda, &b->mesh, B->axes, b->owned[k], &d) != SHARD_FITS)
            return false;
    return true;
}

static void add_candidate(builder *B, int32_t iclass)
{
    for (int32_t k = 0; k < B->n_cand; k++)
        if (B->cand[k] == iclass)
            return;
    B->cand[B->n_cand++] = iclass;
}

static void tensor_candidates(builder *B, int32_t t)
{
    const pp_shard_nda_tensor *T = &B->b->nda->tensors[t];
    for (int32_t d = 0; d < T->rank; d++)
        add_candidate(B, B->b->nda->iclass[T->first + d]);
}

static void collect_candidates(builder *B, int32_t node)
{
    const pp_shard_flat *flat = B->b->flat;
    B->n_cand = 0;
    int32_t i = node - flat->n_inputs;
    if (i < 0) {
        tensor_candidates(B, node);
        return;
    }
    const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
    for (int32_t r = 0; r < op->n_results; r++)
        tensor_candidates(B, flat->ops[i].results[r]);
    for (int32_t k = 0; k < op->n_operands; k++) {
        const pp_shard_nda_tensor *T = &B->b->nda->tensors[B->b->nda->op_use[i] + k];
        for (int32_t d = 0; d < T->rank; d++)
            if (shard_op_sums(op, k, d))
                add_candidate(B, B->b->nda->iclass[T->first + d]);
    }
}

/* Keeps the candidates some axis can shard alone, with those axes. */
static void filter_candidates(builder *B, int32_t node)
{
    int32_t ch[PP_SHARD_MAX_AXES], kept = 0, n_axes = B->b->mesh.n_axes;
    for (int32_t a = 0; a < n_axes; a++)
        ch[a] = -1;
    for (int32_t k = 0; k < B->n_cand; k++) {
        uint8_t mask = 0;
        for (int32_t a = 0; a < n_axes; a++) {
            ch[a] = B->cand[k];
            set_layout(B->b, B->axes, node, ch);
            if (valid_layout(B, node))
                mask |= (uint8_t)(1u << a);
            ch[a] = -1;
        }
        if (mask) {
            B->cand[kept] = B->cand[k];
            B->cand_axes[kept++] = mask;
        }
    }
    B->n_cand = kept;
}

/* Lists the valid choices for axes a.. with exactly `left` of them sharded. */
static void enumerate(builder *B, int32_t node, int32_t *ch, int32_t a, int32_t left)
{
    pp_shard_bridge *b = B->b;
    if (B->n_found >= STRATEGIES_PER_NODE || b->mesh.n_axes - a < left)
        return;
    if (a == b->mesh.n_axes) {
        set_layout(b, B->axes, node, ch);
        if (valid_layout(B, node))
            memcpy(&B->found[B->n_found++ * (uint32_t)b->mesh.n_axes], ch, sizeof *ch * (size_t)b->mesh.n_axes);
        return;
    }
    ch[a] = -1;
    enumerate(B, node, ch, a + 1, left);
    for (int32_t k = 0; left > 0 && k < B->n_cand; k++) {
        if (!(B->cand_axes[k] & (1u << a)))
            continue;
        ch[a] = B->cand[k];
        enumerate(B, node, ch, a + 1, left - 1);
    }
}

/* Appends node's strategies to b->choice. */
static bool keep_strategies(builder *B, int32_t node)
{
    pp_shard_bridge *b = B->b;
    int32_t n_axes = b->mesh.n_axes;
    int64_t end = (int64_t)b->first[node] + B->n_found;
    if (end * n_axes >= INT32_MAX ||
        !pp_grow((void **)&b->choice, &B->cap, (int)(end * n_axes) + 1, sizeof *b->choice))
        return false;
    memcpy(&b->choice[(size_t)b->first[node] * (size_t)n_axes], B->found,
           sizeof *b->choice * B->n_found * (size_t)n_axes);
    b->first[node + 1] = (int32_t)end;
    return true;
}

static bool list_strategies(builder *B)
{
    pp_shard_bridge *b = B->b;
    b->first = calloc((size_t)b->n_nodes + 1, sizeof *b->first);
    B->found = malloc(sizeof *B->found * STRATEGIES_PER_NODE * PP_SHARD_MAX_AXES);
    B->cand = malloc(sizeof *B->cand * ((size_t)b->nda->n_names + 1));
    B->cand_axes = malloc((size_t)b->nda->n_names + 1);
    if (!b->first || !B->found || !B->cand || !B->cand_axes)
        return false;
    int32_t ch[PP_SHARD_MAX_AXES];
    for (int32_t n = 0; n < b->n_nodes; n++) {
        collect_candidates(B, n);
        filter_candidates(B, n);
        B->n_found = 0;
        for (int32_t left = 0; left <= b->mesh.n_axes; left++)
            enumerate(B, n, ch, 0, left);
        if (!keep_strategies(B, n))
            return false;
    }
    return true;
}

static int64_t picoseconds(double seconds)
{
    return (int64_t)llround(seconds * 1e12);
}

static bool finite_cost(double seconds)
{
    return isfinite(seconds) && seconds >= 0 && seconds * 1e12 < (double)PP_IOPDDL_FORBIDDEN;
}

/* Half-open, as the cost model's live ranges: from the op (or 0 for an
 * argument) to the last op using a result (n_ops for an output) + 1;
 * widened to cover it on its problem node. */
static void set_interval(builder *B, int32_t node)
{
    const pp_shard_flat *flat = B->b->flat;
    int32_t i = node - flat->n_inputs, end = i < 0 ? flat->n_ops : i;
    for (int32_t r = 0; i >= 0 && r < pp_shard_flat_op_of(flat, i)->n_results; r++) {
        int32_t last = B->M.last_use[flat->ops[i].results[r]];
        end = last > end ? last : end;
    }
    int32_t p = B->b->fold[node];
    int64_t lo = i < 0 ? 0 : i, hi = (int64_t)end + 1;
    B->lo[node] = lo;
    B->hi[node] = hi;
    B->start[p] = lo < B->start[p] ? lo : B->start[p];
    B->end[p] = hi > B->end[p] ? hi : B->end[p];
}

/* Per problem node, the most of its nodes live at one time: all of a
 * layer's weights (live throughout), one or two copies of a forward pass's
 * activation, every copy of one kept for a backward pass. Members are in
 * node order, so their intervals start in order within each kind. */
static bool live_at_once(builder *B, int32_t *depth)
{
    const pp_shard_bridge *b = B->b;
    int32_t *first = calloc((size_t)b->n_problem + 1, sizeof *first), *list = malloc(sizeof *list * ((size_t)b->n_nodes + 1));
    if (!first || !list) {
        free(first);
        free(list);
        return false;
    }
    for (int32_t n = 0; n < b->n_nodes; n++)
        first[b->fold[n] + 1]++;
    for (uint32_t p = 0; p < b->n_problem; p++)
        first[p + 1] += first[p];
    for (int32_t n = 0; n < b->n_nodes; n++)
        list[first[b->fold[n]]++] = n;
    for (uint32_t p = b->n_problem; p > 0; p--) /* back to the starts */
        first[p] = first[p - 1];
    first[0] = 0;
    for (uint32_t p = 0; p < b->n_problem; p++) {
        depth[p] = 1;
        for (int32_t j = first[p]; j < first[p + 1]; j++) {
            int32_t live = 0;
            for (int32_t k = first[p]; k < first[p + 1]; k++)
                live += B->lo[list[k]] <= B->lo[list[j]] && B->lo[list[j]] < B->hi[list[k]];
            depth[p] = live > depth[p] ? live : depth[p];
        }
    }
    free(first);
    free(list);
    return true;
}

/* Every node's costs and usages, summed on its problem node. */
static pp_status price_nodes(builder *B, pp_error *err)
{
    pp_shard_bridge *b = B->b;
    for (int32_t n = 0; n < b->n_nodes; n++) {
        set_interval(B, n);
        int32_t i = n - b->flat->n_inputs, at = b->first[b->member[b->fold[n]]];
        for (uint32_t s = 0; s < n_strategies(b, n); s++) {
            set_layout(b, B->axes, n, choice_of(b, n, s));
            pp_shard_cost acc = {0};
            double bytes = 0;
            if (i >= 0)
                shard_cost_op(&B->M, i, &acc);
            for (int32_t k = b->owned_first[n]; k < b->owned_first[n + 1]; k++) {
                int32_t t = b->owned[k];
                if (is_output(b->nda, t))
                    shard_cost_use(&B->M, t, &acc);
                else if (t < b->flat->n_values)
                    bytes += shard_cost_local_bytes(&B->M, t);
            }
            if (!finite_cost(acc.runtime))
                return pp_error_set(err, PP_EINPUT, "IOPDDL bridge: node %d prices as %g s", (int)n, acc.runtime);
            B->node_cost[at + (int32_t)s] += picoseconds(acc.runtime);
            int64_t usage = (int64_t)ceil(bytes); /* a copy's: the same in every copy, as its layouts */
            B->node_usage[at + (int32_t)s] = usage > B->node_usage[at + (int32_t)s] ? usage : B->node_usage[at + (int32_t)s];
        }
    }
    return PP_OK;
}

/* The distinct (producer, consumer) pairs, consumers in flat order. */
static uint32_t list_edges(builder *B)
{
    const pp_shard_flat *flat = B->b->flat;
    uint32_t m = 0;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        uint32_t first = m, c = (uint32_t)(flat->n_inputs + i);
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
            uint32_t prod = (uint32_t)node_of_value(flat, flat->ops[i].operands[k]), e = first;
            while (e < m && B->ends[2 * e] != prod)
                e++;
            if (e == m) {
                B->ends[2 * m] = prod;
                B->ends[2 * m++ + 1] = c;
            }
        }
    }
    return m;
}

static pp_status price_edge(builder *B, uint32_t e, int64_t *cost, pp_error *err)
{
    pp_shard_bridge *b = B->b;
    uint32_t prod = B->ends[2 * e], c = B->ends[2 * e + 1];
    int32_t i = (int32_t)c - b->flat->n_inputs, use = b->nda->op_use[i];
    const int32_t *operands = b->flat->ops[i].operands;
    for (uint32_t sp = 0; sp < n_strategies(b, (int32_t)prod); sp++) {
        set_layout(b, B->axes, (int32_t)prod, choice_of(b, (int32_t)prod, sp));
        for (uint32_t sc = 0; sc < n_strategies(b, (int32_t)c); sc++) {
            set_layout(b, B->axes, (int32_t)c, choice_of(b, (int32_t)c, sc));
            pp_shard_cost acc = {0};
            for (int32_t k = 0; k < pp_shard_flat_op_of(b->flat, i)->n_operands; k++)
                if ((uint32_t)node_of_value(b->flat, operands[k]) == prod)
                    shard_cost_use(&B->M, use + k, &acc);
            if (!finite_cost(acc.runtime))
                return pp_error_set(err, PP_EINPUT, "IOPDDL bridge: edge %u -> %u prices as %g s", prod, c,
                                    acc.runtime);
            *cost++ = picoseconds(acc.runtime);
        }
    }
    return PP_OK;
}

static bool all_zero(const int64_t *v, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++)
        if (v[k])
            return false;
    return true;
}

/* Entries of listed edge e's cost matrix. */
static uint64_t edge_size(const builder *B, uint32_t e)
{
    return (uint64_t)n_strategies(B->b, (int32_t)B->ends[2 * e]) * n_strategies(B->b, (int32_t)B->ends[2 * e + 1]);
}

/* A listed edge with the problem nodes its ends fold to, the lower first. */
typedef struct {
    uint32_t lo, hi, e;
} folded_edge;

static int by_ends(const void *p, const void *q)
{
    const folded_edge *a = p, *b = q;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

static int by_first(const void *p, const void *q)
{
    const folded_edge *a = p, *b = q;
    return (a->e > b->e) - (a->e < b->e);
}

/* Adds listed edge e's costs (in B->costs) to the folded edge's matrix
 * between problem nodes lo and hi, or to lo's own costs when both ends fold
 * to it (one strategy list, so the diagonal). */
static void add_folded(builder *B, uint32_t e, uint32_t lo, uint32_t hi)
{
    const pp_shard_bridge *b = B->b;
    uint32_t prod = B->ends[2 * e], c = B->ends[2 * e + 1], np = n_strategies(b, (int32_t)prod);
    uint32_t nc = n_strategies(b, (int32_t)c);
    if (lo == hi) {
        int32_t at = b->first[b->member[lo]];
        for (uint32_t s = 0; s < np; s++)
            B->node_cost[at + (int32_t)s] += B->costs[s * nc + s];
        return;
    }
    bool flip = (uint32_t)b->fold[prod] != lo; /* the matrix is (lo, hi): transpose a (hi, lo) edge */
    for (uint32_t sp = 0; sp < np; sp++)
        for (uint32_t sc = 0; sc < nc; sc++)
            B->sum[flip ? sc * np + sp : sp * nc + sc] += B->costs[sp * nc + sc];
}

/* Prices every listed edge and adds it up by the problem nodes its ends
 * fold to; the folded edges, in the order their first listed edge has
 * (the listed order itself when nothing folds), leaving out the all-zero
 * ones. */
static pp_status price_edges(builder *B, uint32_t m, pp_error *err)
{
    pp_shard_bridge *b = B->b;
    uint64_t most = 1;
    for (uint32_t e = 0; e < m; e++) {
        uint64_t n = edge_size(B, e);
        most = n > most ? n : most;
    }
    folded_edge *f = malloc(sizeof *f * ((size_t)m + 1));
    B->costs = malloc(sizeof *B->costs * most);
    B->sum = malloc(sizeof *B->sum * most);
    if (!f || !B->costs || !B->sum) {
        free(f);
        return pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    }
    for (uint32_t e = 0; e < m; e++) {
        uint32_t p = (uint32_t)b->fold[B->ends[2 * e]], c = (uint32_t)b->fold[B->ends[2 * e + 1]];
        f[e] = (folded_edge){p < c ? p : c, p < c ? c : p, e};
    }
    qsort(f, m, sizeof *f, by_ends);
    folded_edge *groups = malloc(sizeof *groups * ((size_t)m + 1)); /* ranges of f, by their first edge */
    uint32_t n_groups = 0;
    for (uint32_t lo = 0, hi; groups && lo < m; lo = hi) {
        for (hi = lo + 1; hi < m && f[hi].lo == f[lo].lo && f[hi].hi == f[lo].hi;)
            hi++;
        groups[n_groups++] = (folded_edge){lo, hi, f[lo].e};
    }
    if (groups)
        qsort(groups, n_groups, sizeof *groups, by_first);
    pp_status st = groups ? PP_OK : pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    for (uint32_t g = 0; st == PP_OK && g < n_groups; g++) {
        const folded_edge *first = &f[groups[g].lo];
        uint64_t cells = (uint64_t)n_strategies(b, b->member[first->lo]) * n_strategies(b, b->member[first->hi]);
        memset(B->sum, 0, sizeof *B->sum * cells);
        for (uint32_t k = groups[g].lo; st == PP_OK && k < groups[g].hi; k++) {
            st = price_edge(B, f[k].e, B->costs, err);
            if (st == PP_OK)
                add_folded(B, f[k].e, f[k].lo, f[k].hi);
        }
        if (st == PP_OK && first->lo != first->hi && !all_zero(B->sum, cells))
            pp_iopddl_builder_edge(B->out, first->lo, first->hi, B->sum);
    }
    free(groups);
    free(f);
    return st;
}

/* Node n's strategies lay out its tensors as node r's do, position by
 * position (the same kinds, shapes and iclass pattern: a copy of r). */
static bool same_strategies(const pp_shard_bridge *b, int32_t n, int32_t r)
{
    const pp_shard_nda *nda = b->nda;
    int32_t count = b->owned_first[n + 1] - b->owned_first[n];
    if (n_strategies(b, n) != n_strategies(b, r) || count != b->owned_first[r + 1] - b->owned_first[r])
        return false;
    for (int32_t k = 0; k < count; k++) {
        const pp_shard_nda_tensor *T = &nda->tensors[b->owned[b->owned_first[n] + k]];
        const pp_shard_nda_tensor *U = &nda->tensors[b->owned[b->owned_first[r] + k]];
        if (T->rank != U->rank || is_output(nda, b->owned[b->owned_first[n] + k]) !=
                                      is_output(nda, b->owned[b->owned_first[r] + k]))
            return false;
        for (int32_t d = 0; d < T->rank; d++) {
            if (nda->flat->values[T->value].type.dims[d] != nda->flat->values[U->value].type.dims[d])
                return false;
            for (uint32_t s = 0; s < n_strategies(b, n); s++)
                for (int32_t a = 0; a < b->mesh.n_axes; a++)
                    if ((choice_of(b, n, s)[a] == nda->iclass[T->first + d]) !=
                        (choice_of(b, r, s)[a] == nda->iclass[U->first + d]))
                        return false;
        }
    }
    return true;
}

static void fold_onto(pp_shard_bridge *b, int32_t n, int32_t r)
{
    if (n != r && b->fold[r] == r && b->fold[n] == n && same_strategies(b, n, r))
        b->fold[n] = r;
}

/* fold: the node each node's problem node stands for (copy 0's at the same
 * place for the ops and arguments of later copies, else itself), then
 * numbered; member: the reverse. */
static bool fold_layers(pp_shard_bridge *b, bool fold)
{
    const pp_shard_nda *nda = b->nda;
    b->fold = malloc(sizeof *b->fold * ((size_t)b->n_nodes + 1));
    b->member = malloc(sizeof *b->member * ((size_t)b->n_nodes + 1));
    if (!b->fold || !b->member)
        return false;
    for (int32_t n = 0; n < b->n_nodes; n++)
        b->fold[n] = n;
    int32_t in = b->flat->n_inputs;
    for (int32_t g = 0; fold && g < nda->n_layer_groups; g++) {
        const pp_shard_nda_layers *L = &nda->layer_groups[g];
        for (int32_t c = 1; c < L->copies; c++) {
            for (int32_t t = 0; t < L->length; t++)
                fold_onto(b, in + L->starts[c] + t, in + L->starts[0] + t);
            for (int32_t j = 0; j < L->n_copy_args; j++)
                fold_onto(b, L->arg_map[c * L->n_copy_args + j], L->arg_map[j]);
        }
    }
    int32_t *number = malloc(sizeof *number * ((size_t)b->n_nodes + 1));
    if (!number)
        return false;
    b->n_problem = 0;
    for (int32_t n = 0; n < b->n_nodes; n++)
        if (b->fold[n] == n) {
            b->member[b->n_problem] = n;
            number[n] = (int32_t)b->n_problem++;
        }
    for (int32_t n = 0; n < b->n_nodes; n++)
        b->fold[n] = number[b->fold[n]];
    free(number);
    return true;
}

/* The problem's nodes with their strategy counts, its limit, the sums its
 * nodes' costs gather in and room for the candidate edges (one per operand
 * at most). */
static pp_status start_problem(builder *B, double memory_bytes, pp_error *err)
{
    pp_shard_bridge *b = B->b;
    size_t n = b->n_problem, operands = 0, cells = (size_t)b->first[b->n_nodes] + 1;
    uint32_t *counts = malloc(sizeof *counts * (n + 1));
    B->node_cost = calloc(cells, sizeof *B->node_cost);
    B->node_usage = calloc(cells, sizeof *B->node_usage);
    B->start = malloc(sizeof *B->start * (n + 1));
    B->end = calloc(n + 1, sizeof *B->end);
    B->lo = malloc(sizeof *B->lo * ((size_t)b->n_nodes + 1));
    B->hi = malloc(sizeof *B->hi * ((size_t)b->n_nodes + 1));
    if (!counts || !B->node_cost || !B->node_usage || !B->start || !B->end || !B->lo || !B->hi) {
        free(counts);
        return pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        counts[k] = n_strategies(b, b->member[k]);
        B->start[k] = INT64_MAX;
    }
    pp_status st = pp_iopddl_builder_new((uint32_t)n, counts, &B->out, err);
    free(counts);
    if (st != PP_OK)
        return st;
    if (memory_bytes > 0)
        pp_iopddl_builder_limit(B->out, memory_bytes >= 0x1p62 ? INT64_C(1) << 62 : (int64_t)memory_bytes);
    for (int32_t i = 0; i < b->flat->n_ops; i++)
        operands += (size_t)pp_shard_flat_op_of(b->flat, i)->n_operands;
    B->ends = malloc(sizeof *B->ends * 2 * (operands + 1));
    if (!B->ends)
        return pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    return PP_OK;
}

/* The problem nodes' summed costs, their intervals, and their usages: a
 * copy's times the most copies live at once. */
static bool finish_nodes(builder *B)
{
    const pp_shard_bridge *b = B->b;
    int32_t *depth = malloc(sizeof *depth * ((size_t)b->n_problem + 1));
    if (!depth || !live_at_once(B, depth)) {
        free(depth);
        return false;
    }
    for (uint32_t p = 0; p < b->n_problem; p++) {
        pp_iopddl_builder_interval(B->out, p, B->start[p], B->end[p]);
        int32_t at = b->first[b->member[p]];
        for (uint32_t s = 0; s < n_strategies(b, b->member[p]); s++)
            pp_iopddl_builder_strategy(B->out, p, s, B->node_cost[at + (int32_t)s],
                                       B->node_usage[at + (int32_t)s] * depth[p]);
    }
    free(depth);
    return true;
}

static pp_status build(builder *B, double memory_bytes, bool fold, pp_error *err)
{
    pp_shard_bridge *b = B->b;
    B->axes = calloc((size_t)b->nda->n_names + 1, 1);
    if (!shard_cost_model_init(&B->M, b->flat, b->nda, &b->mesh) || !B->axes || !index_owned(B) ||
        !list_strategies(B) || !fold_layers(b, fold))
        return pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    B->M.axes = B->axes;
    pp_status st = start_problem(B, memory_bytes, err);
    if (st == PP_OK)
        st = price_nodes(B, err);
    if (st == PP_OK)
        st = price_edges(B, list_edges(B), err);
    if (st == PP_OK && !finish_nodes(B))
        st = pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    if (st == PP_OK) {
        st = pp_iopddl_builder_finish(B->out, &b->problem, err);
        B->out = NULL;
    }
    return st;
}

pp_status shard_bridge_build(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                             double memory_bytes, bool fold, pp_shard_bridge **out, pp_error *err)
{
    *out = NULL;
    pp_shard_bridge *b = calloc(1, sizeof *b);
    if (!b)
        return pp_error_set(err, PP_ENOMEM, "IOPDDL bridge: out of memory");
    b->flat = flat;
    b->nda = nda;
    b->mesh = *mesh;
    b->n_nodes = flat->n_inputs + flat->n_ops;
    builder B = {.b = b};
    pp_status st = build(&B, memory_bytes, fold, err);
    shard_cost_model_free(&B.M);
    free(B.axes);
    free(B.cand);
    free(B.found);
    free(B.cand_axes);
    free(B.ends);
    free(B.costs);
    free(B.sum);
    free(B.node_cost);
    free(B.node_usage);
    free(B.start);
    free(B.end);
    free(B.lo);
    free(B.hi);
    pp_iopddl_builder_free(B.out);
    if (st != PP_OK)
        pp_shard_bridge_free(b);
    else
        *out = b;
    return st;
}

pp_status pp_shard_bridge_build(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                double memory_bytes, pp_shard_bridge **out, pp_error *err)
{
    return shard_bridge_build(flat, nda, mesh, memory_bytes, false, out, err);
}

void pp_shard_bridge_free(pp_shard_bridge *bridge)
{
    if (!bridge)
        return;
    pp_iopddl_free(bridge->problem);
    free(bridge->owned_first);
    free(bridge->owned);
    free(bridge->choice);
    free(bridge->first);
    free(bridge->fold);
    free(bridge->member);
    free(bridge);
}

const pp_iopddl_problem *pp_shard_bridge_problem(const pp_shard_bridge *bridge)
{
    return bridge->problem;
}

pp_status pp_shard_bridge_layout(const pp_shard_bridge *bridge, const uint32_t *strategies, uint8_t *axes,
                                 pp_error *err)
{
    memset(axes, 0, (size_t)bridge->nda->n_names);
    for (uint32_t p = 0; p < bridge->n_problem; p++) {
        uint32_t count = pp_iopddl_strategy_count(bridge->problem, p);
        if (strategies[p] >= count)
            return pp_error_set(err, PP_EINPUT, "IOPDDL solution: node %u: strategy %u out of range (it has %u)", p,
                                strategies[p], count);
    }
    for (int32_t n = 0; n < bridge->n_nodes; n++)
        set_layout(bridge, axes, n, choice_of(bridge, n, strategies[bridge->fold[n]]));
    return PP_OK;
}

pp_status pp_shard_bridge_strategy(const pp_shard_bridge *bridge, uint32_t node, uint32_t s, int32_t *iclass,
                                   pp_error *err)
{
    const pp_iopddl_problem *p = bridge->problem;
    if (node >= p->node_count || s >= pp_iopddl_strategy_count(p, node))
        return pp_error_set(err, PP_EINPUT, "IOPDDL bridge: no strategy %u of node %u", s, node);
    memcpy(iclass, choice_of(bridge, bridge->member[node], s), sizeof *iclass * (size_t)bridge->mesh.n_axes);
    return PP_OK;
}
