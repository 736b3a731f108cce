/* layers.c: repeated layers found by structure (paper 004 sections 3.6 and
 * 4.4). Layers written inline (no function per layer) are still equal
 * stretches of flat ops, so the search is over op sequences: an op
 * signature that occurs c times at a constant gap L, with the c stretches
 * of L ops equal op by op (kind, types, attributes, and where each operand
 * comes from inside the stretch), is a group of c layers. The colors,
 * compatibility sets and entry arguments local to each copy then
 * correspond by position: isomorphic by construction. */
#include "core/core_internal.h"
#include "shard/nda_internal.h"
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"

typedef struct {
    pp_shard_nda *nda;
    pp_error *err;
    uint64_t *sig;   /* per flat op */
    int32_t *order;  /* ops sorted by signature */
    int32_t *owner;  /* per flat op, the group it was given to, or -1 */
    int cap;         /* of nda->layer_groups, malloc'd until the arena adopts it */
} layer_ctx;

static uint64_t mix(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 1099511628211ULL;
    return h;
}

static uint64_t mix_type(uint64_t h, const pp_shard_type *t)
{
    h = mix(h, &t->rank, sizeof t->rank);
    if (t->rank > 0)
        h = mix(h, t->dims, (size_t)t->rank * sizeof *t->dims);
    return mix(h, t->elem, strlen(t->elem));
}

static uint64_t op_signature(const pp_shard_flat *flat, int32_t i)
{
    const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
    uint64_t h = 1469598103934665603ULL;
    h = mix(h, op->name, strlen(op->name));
    if (op->kind == PP_SHARD_OP_CONSTANT && op->attrs)
        h = mix(h, op->attrs, strlen(op->attrs));
    const pp_shard_ints *lists[] = {&op->dims, &op->strides, &op->start, &op->limit, &op->dot.lhs_batch,
                                    &op->dot.rhs_batch, &op->dot.lhs_contract, &op->dot.rhs_contract,
                                    &op->gather.offset_dims, &op->gather.collapsed_slice_dims,
                                    &op->gather.start_index_map, &op->gather.slice_sizes};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
        h = mix(h, &lists[k]->n, sizeof lists[k]->n);
        if (lists[k]->n)
            h = mix(h, lists[k]->v, (size_t)lists[k]->n * sizeof(int64_t));
    }
    int64_t scalars[] = {op->dim, op->reducer, op->compare, op->conv.in_batch, op->conv.in_feature,
                         op->conv.kernel_in, op->conv.kernel_out, op->conv.feature_group_count};
    h = mix(h, scalars, sizeof scalars);
    for (int32_t k = 0; k < op->n_operands; k++)
        h = mix_type(h, &flat->values[flat->ops[i].operands[k]].type);
    for (int32_t k = 0; k < op->n_results; k++)
        h = mix_type(h, &flat->values[flat->ops[i].results[k]].type);
    return h;
}

typedef struct {
    uint64_t sig;
    int32_t op;
} keyed_op;

static int by_sig(const void *p, const void *q)
{
    const keyed_op *a = p, *b = q;
    if (a->sig != b->sig)
        return a->sig < b->sig ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

/* order: the ops sorted by signature, then position. */
static bool sort_ops(layer_ctx *X)
{
    int32_t n = X->nda->flat->n_ops;
    keyed_op *k = malloc(((size_t)n + 1) * sizeof *k);
    if (!k)
        return pp_error_set(X->err, PP_ENOMEM, "out of memory"), false;
    for (int32_t i = 0; i < n; i++)
        k[i] = (keyed_op){X->sig[i], i};
    if (n > 1)
        qsort(k, (size_t)n, sizeof *k, by_sig);
    for (int32_t i = 0; i < n; i++)
        X->order[i] = k[i].op;
    free(k);
    return true;
}

/* Where operand k of op i comes from, relative to a stretch starting at
 * `start` of `len` ops: the op offset * 64 + result number inside it, or -1
 * from outside. */
static int64_t source(const pp_shard_flat *flat, int32_t i, int32_t k, int32_t start, int32_t len)
{
    const pp_shard_flat_value *v = &flat->values[flat->ops[i].operands[k]];
    if (v->op < start || v->op >= start + len)
        return -1;
    return (int64_t)(v->op - start) * 64 + v->index;
}

static bool stretches_equal(const layer_ctx *X, int32_t s0, int32_t s1, int32_t len)
{
    const pp_shard_flat *flat = X->nda->flat;
    for (int32_t t = 0; t < len; t++) {
        int32_t i = s0 + t, j = s1 + t;
        if (X->sig[i] != X->sig[j] || X->owner[i] >= 0 || X->owner[j] >= 0)
            return false;
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        for (int32_t k = 0; k < op->n_operands; k++)
            if (source(flat, i, k, s0, len) != source(flat, j, k, s1, len))
                return false;
    }
    return true;
}

/* The occurrences order[lo..hi) of one signature: a group when their gaps
 * are one constant L and the stretches of L ops ending with them, or
 * starting up to L-1 ops before them, are equal. The phase matters: a
 * stretch that cuts a layer in two sees the first copy's inputs come from
 * outside and the others' from the copy before. */
static bool candidate(const layer_ctx *X, int32_t lo, int32_t hi, int32_t *len, int32_t *first)
{
    const int32_t *o = X->order;
    int32_t L = o[lo + 1] - o[lo];
    if (L < 2)
        return false;
    for (int32_t k = lo + 1; k < hi; k++)
        if (o[k] - o[k - 1] != L)
            return false;
    for (int32_t shift = 0; shift < L && shift <= o[lo]; shift++) {
        if (o[hi - 1] - shift + L > X->nda->flat->n_ops)
            continue;
        bool equal = true;
        for (int32_t k = lo + 1; k < hi && equal; k++)
            equal = stretches_equal(X, o[lo] - shift, o[k] - shift, L);
        if (equal) {
            *len = L;
            *first = o[lo] - shift;
            return true;
        }
    }
    return false;
}

/* Best group (most ops covered, then most copies, then earliest) among the ops not yet owned. */
static bool best_group(const layer_ctx *X, int32_t *copies, int32_t *len, int32_t *first)
{
    int32_t n = X->nda->flat->n_ops;
    int64_t best = 0;
    for (int32_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && X->sig[X->order[hi]] == X->sig[X->order[lo]];)
            hi++;
        if (hi - lo < 2)
            continue;
        /* the checks are the costly part: skip signatures that cannot beat the best */
        int32_t L = X->order[lo + 1] - X->order[lo], start;
        int64_t cover = (int64_t)(hi - lo) * L * 1024 + (hi - lo);
        if (cover < best || (cover == best && X->order[lo] - L >= *first))
            continue;
        if (!candidate(X, lo, hi, &L, &start))
            continue;
        if (cover > best || start < *first) {
            best = cover;
            *copies = hi - lo;
            *len = L;
            *first = start;
        }
    }
    return best > 0;
}

/* The copy (0 .. copies-1) whose stretch holds op i, or -1. */
static int32_t copy_of(const pp_shard_nda_layers *G, int32_t i)
{
    if (i < G->starts[0] || i >= G->starts[0] + G->copies * G->length)
        return -1;
    return (i - G->starts[0]) / G->length;
}

/* Per color: the single copy it appears in, -2 when several or outside. */
static void color_homes(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t *home)
{
    for (int32_t c = 0; c < nda->n_colors; c++)
        home[c] = -1;
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        const pp_shard_nda_tensor *T = &nda->tensors[t];
        int32_t op = T->op >= 0 ? T->op : nda->flat->values[T->value].op;
        int32_t c = op >= 0 && op < nda->flat->n_ops ? copy_of(G, op) : -1;
        bool entry_arg = T->op < 0 && op < 0;
        for (int32_t d = 0; d < T->rank && !entry_arg; d++) {
            int32_t *h = &home[nda->color[T->first + d]];
            *h = (c < 0 || (*h >= 0 && *h != c)) ? -2 : (*h == -1 ? c : *h);
        }
    }
}

/* Tensor r of op i: its uses, then its results' definitions; r = -1 - k
 * is the definition of operand k (an entry argument, a layer's weight). */
static int32_t tensor_at(const pp_shard_nda *nda, int32_t i, int32_t r)
{
    if (r < 0)
        return nda->flat->ops[i].operands[-1 - r];
    int32_t last = i + 1 < nda->flat->n_ops ? nda->op_use[i + 1] : nda->out_use;
    int32_t n_uses = last - nda->op_use[i];
    return r < n_uses ? nda->op_use[i] + r : nda->flat->ops[i].results[r - n_uses];
}

static int32_t tensors_of(const pp_shard_nda *nda, int32_t i)
{
    const pp_shard_flat *flat = nda->flat;
    const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
    return op->n_operands + op->n_results;
}

typedef struct {
    pp_shard_nda_layers *G;
    const int32_t *home;
    int32_t *slot; /* per color, its position in its copy's list */
    int32_t count; /* local colors of copy 0 so far */
    int32_t stride;
    bool same;
} color_walk;

/* One dimension position of the stretch, seen in every copy: local in all
 * copies or in none, and mapping to the same slot. */
static void walk_position(const pp_shard_nda *nda, color_walk *W, int32_t off, int32_t r, int32_t d)
{
    pp_shard_nda_layers *G = W->G;
    int32_t col0 = nda->color[nda->tensors[tensor_at(nda, G->starts[0] + off, r)].first + d];
    bool local0 = W->home[col0] == 0;
    if (local0 && W->slot[col0] < 0) {
        W->slot[col0] = W->count++;
        G->color_map[W->slot[col0]] = col0;
    }
    for (int32_t c = 1; c < G->copies; c++) {
        int32_t col = nda->color[nda->tensors[tensor_at(nda, G->starts[c] + off, r)].first + d];
        if ((W->home[col] == c) != local0) {
            W->same = false;
        } else if (local0 && W->slot[col] < 0) {
            W->slot[col] = W->slot[col0];
            G->color_map[(size_t)c * (size_t)W->stride + (size_t)W->slot[col]] = col;
        } else if (local0 && W->slot[col] != W->slot[col0]) {
            W->same = false;
        }
    }
}

/* Local colors of each copy in the order its ops first touch them, checked
 * position by position across the copies. */
static bool map_colors(pp_shard_nda *nda, pp_shard_nda_layers *G, const int32_t *home, pp_error *err)
{
    color_walk W = {.G = G, .home = home, .stride = nda->n_colors, .same = true};
    W.slot = malloc(((size_t)nda->n_colors + 1) * sizeof *W.slot);
    G->color_map = shard_nda_alloc(nda, (size_t)G->copies * (size_t)nda->n_colors, sizeof(int32_t), err);
    if (!W.slot || !G->color_map) {
        free(W.slot);
        return G->color_map ? (pp_error_set(err, PP_ENOMEM, "out of memory"), false) : false;
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        W.slot[c] = -1;
    for (int32_t off = 0; off < G->length; off++)
        for (int32_t r = 0; r < tensors_of(nda, G->starts[0] + off); r++)
            for (int32_t d = 0; d < nda->tensors[tensor_at(nda, G->starts[0] + off, r)].rank; d++)
                walk_position(nda, &W, off, r, d);
    G->n_copy_colors = W.same ? W.count : 0;
    for (int32_t c = 1; W.same && c < G->copies; c++)
        memmove(G->color_map + (size_t)c * (size_t)W.count, G->color_map + (size_t)c * (size_t)nda->n_colors,
                (size_t)W.count * sizeof(int32_t));
    free(W.slot);
    return true;
}

/* An entry argument belongs to the copy that alone uses it, placed as the
 * definition of the operand at its first use. */
static int32_t arg_place(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t v, int32_t *off, int32_t *r)
{
    int32_t home = -1;
    for (int32_t t = nda->flat->n_values; t < nda->n_tensors; t++) {
        const pp_shard_nda_tensor *U = &nda->tensors[t];
        if (U->value != v)
            continue;
        int32_t c = U->op < nda->flat->n_ops ? copy_of(G, U->op) : -1;
        if (c < 0 || (home >= 0 && c != home))
            return -1;
        if (home < 0) {
            *off = U->op - G->starts[c];
            *r = -1 - U->operand;
        }
        home = c;
    }
    return home;
}

/* The copy holding tensor t (a use by one of its ops or the definition of
 * one of its ops' results) and t's position there, or -1. */
static int32_t tensor_place(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t t, int32_t *off,
                            int32_t *r)
{
    const pp_shard_nda_tensor *T = &nda->tensors[t];
    int32_t op = T->op >= 0 ? T->op : nda->flat->values[T->value].op;
    if (op < 0 && T->op < 0 && T->value < nda->flat->n_inputs)
        return arg_place(nda, G, T->value, off, r);
    if (op < 0 || op >= nda->flat->n_ops)
        return -1;
    int32_t c = copy_of(G, op);
    if (c < 0)
        return -1;
    *off = op - G->starts[c];
    if (T->op >= 0) {
        *r = T->operand;
    } else {
        int32_t last = op + 1 < nda->flat->n_ops ? nda->op_use[op + 1] : nda->out_use;
        *r = last - nda->op_use[op] + nda->flat->values[T->value].index;
    }
    return c;
}

/* The copy all conflicts of set s were found in, or -1. */
static int32_t set_home(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t s)
{
    int32_t home = -1, off, r;
    for (int32_t k = 0; k < nda->sets[s].n_conflicts; k++) {
        int32_t c = tensor_place(nda, G, nda->conflicts[nda->sets[s].conflicts[k]].tensor, &off, &r);
        if (c < 0 || (home >= 0 && c != home))
            return -1;
        home = c;
    }
    return home;
}

/* The set of copy c at the position where set s0 of copy 0 was first found. */
static int32_t set_in_copy(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t s0, int32_t c)
{
    const pp_shard_nda_conflict *k0 = &nda->conflicts[nda->sets[s0].conflicts[0]];
    int32_t off, r;
    tensor_place(nda, G, k0->tensor, &off, &r);
    const pp_shard_nda_tensor *T = &nda->tensors[tensor_at(nda, G->starts[c] + off, r)];
    int32_t k = shard_nda_conflict_of(nda, nda->iclass[T->first + k0->dim_a], nda->iclass[T->first + k0->dim_b]);
    if (k < 0)
        return -1;
    int32_t s = nda->conflicts[k].set;
    bool same = set_home(nda, G, s) == c && nda->sets[s].n_conflicts == nda->sets[s0].n_conflicts;
    return same ? s : -1;
}

/* Sets of copy 0 paired with the sets found at the same place in each
 * other copy, with as many conflicts (section 3.6's isomorphic sets). */
static bool map_sets(pp_shard_nda *nda, pp_shard_nda_layers *G, pp_error *err)
{
    size_t stride = (size_t)nda->n_sets + 1;
    G->set_map = shard_nda_alloc(nda, (size_t)G->copies * stride, sizeof(int32_t), err);
    if (!G->set_map)
        return false;
    int32_t n = 0;
    for (int32_t s0 = 0; s0 < nda->n_sets; s0++) {
        if (set_home(nda, G, s0) != 0)
            continue;
        bool all = true;
        for (int32_t c = 0; c < G->copies && all; c++) {
            G->set_map[(size_t)c * stride + (size_t)n] = c ? set_in_copy(nda, G, s0, c) : s0;
            all = G->set_map[(size_t)c * stride + (size_t)n] >= 0;
        }
        n += all;
    }
    G->n_copy_sets = n;
    for (int32_t c = 1; c < G->copies; c++)
        memmove(G->set_map + (size_t)c * (size_t)n, G->set_map + (size_t)c * stride, (size_t)n * sizeof(int32_t));
    return true;
}

/* Per entry argument, the single copy using it, -2 when used by several or
 * outside, -1 when unused. */
static void arg_homes(const pp_shard_nda *nda, const pp_shard_nda_layers *G, int32_t *home)
{
    const pp_shard_flat *flat = nda->flat;
    for (int32_t a = 0; a < flat->n_inputs; a++)
        home[a] = -1;
    for (int32_t t = flat->n_values; t < nda->n_tensors; t++) {
        const pp_shard_nda_tensor *T = &nda->tensors[t];
        if (T->value >= flat->n_inputs)
            continue;
        int32_t c = T->op < flat->n_ops ? copy_of(G, T->op) : -1;
        home[T->value] = (c < 0 || (home[T->value] >= 0 && home[T->value] != c)) ? -2
                         : (home[T->value] == -1 ? c : home[T->value]);
    }
}

static int32_t operand_at(const pp_shard_nda *nda, int32_t op, int32_t k)
{
    return nda->flat->ops[op].operands[k];
}

/* Argument grouping (section 4.4): entry arguments used only inside one
 * copy, paired across copies by the place (op offset, operand) where copy
 * 0 uses them. */
static bool map_args(pp_shard_nda *nda, pp_shard_nda_layers *G, pp_error *err)
{
    const pp_shard_flat *flat = nda->flat;
    size_t stride = (size_t)flat->n_inputs + 1;
    int32_t *home = malloc(stride * sizeof *home);
    uint8_t *done = calloc(stride, 1);
    G->arg_map = shard_nda_alloc(nda, (size_t)G->copies * stride, sizeof(int32_t), err);
    if (!home || !done || !G->arg_map) {
        free(home);
        free(done);
        return G->arg_map ? (pp_error_set(err, PP_ENOMEM, "out of memory"), false) : false;
    }
    arg_homes(nda, G, home);
    int32_t n = 0;
    for (int32_t off = 0; off < G->length; off++) {
        const pp_shard_flat_op *fo = &flat->ops[G->starts[0] + off];
        int32_t n_operands = pp_shard_flat_op_of(flat, G->starts[0] + off)->n_operands;
        for (int32_t k = 0; k < n_operands; k++) {
            int32_t a0 = fo->operands[k];
            if (a0 >= flat->n_inputs || home[a0] != 0 || done[a0])
                continue;
            bool all = true;
            for (int32_t c = 0; c < G->copies && all; c++) {
                int32_t a = operand_at(nda, G->starts[c] + off, k);
                all = a < flat->n_inputs && home[a] == c;
                G->arg_map[(size_t)c * stride + (size_t)n] = a;
            }
            done[a0] = 1;
            n += all;
        }
    }
    G->n_copy_args = n;
    for (int32_t c = 1; c < G->copies; c++)
        memmove(G->arg_map + (size_t)c * (size_t)n, G->arg_map + (size_t)c * stride, (size_t)n * sizeof(int32_t));
    free(home);
    free(done);
    return true;
}

static bool add_group(layer_ctx *X, int32_t copies, int32_t len, int32_t first)
{
    pp_shard_nda *nda = X->nda;
    if (!pp_grow((void **)&nda->layer_groups, &X->cap, nda->n_layer_groups + 1, sizeof *nda->layer_groups))
        return pp_error_set(X->err, PP_ENOMEM, "out of memory"), false;
    pp_shard_nda_layers *G = &nda->layer_groups[nda->n_layer_groups];
    *G = (pp_shard_nda_layers){.copies = copies, .length = len};
    G->starts = shard_nda_alloc(nda, (size_t)copies, sizeof *G->starts, X->err);
    int32_t *home = malloc(((size_t)nda->n_colors + 1) * sizeof *home);
    if (!G->starts || !home) {
        free(home);
        return G->starts ? (pp_error_set(X->err, PP_ENOMEM, "out of memory"), false) : false;
    }
    for (int32_t c = 0; c < copies; c++)
        G->starts[c] = first + c * len;
    for (int32_t i = first; i < first + copies * len; i++)
        X->owner[i] = nda->n_layer_groups;
    color_homes(nda, G, home);
    bool ok = map_colors(nda, G, home, X->err) && map_sets(nda, G, X->err) && map_args(nda, G, X->err);
    free(home);
    nda->n_layer_groups++;
    return ok;
}

bool shard_nda_layers(pp_shard_nda *nda, pp_error *err)
{
    int32_t n = nda->flat->n_ops;
    layer_ctx X = {.nda = nda, .err = err};
    X.sig = malloc(((size_t)n + 1) * sizeof *X.sig);
    X.order = malloc(((size_t)n + 1) * sizeof *X.order);
    X.owner = malloc(((size_t)n + 1) * sizeof *X.owner);
    nda->layer_groups = NULL;
    bool ok = X.sig && X.order && X.owner;
    if (!ok)
        pp_error_set(err, PP_ENOMEM, "out of memory");
    for (int32_t i = 0; ok && i < n; i++) {
        X.sig[i] = op_signature(nda->flat, i);
        X.owner[i] = -1;
    }
    ok = ok && sort_ops(&X);
    int32_t copies = 0, len = 0, first = INT32_MAX;
    while (ok && best_group(&X, &copies, &len, &first)) {
        ok = add_group(&X, copies, len, first);
        first = INT32_MAX;
    }
    if (nda->layer_groups && !pp_arena_adopt(nda->arena, nda->layer_groups)) {
        nda->layer_groups = NULL;
        nda->n_layer_groups = 0;
        if (ok)
            pp_error_set(err, PP_ENOMEM, "out of memory");
        ok = false;
    }
    free(X.sig);
    free(X.order);
    free(X.owner);
    return ok;
}
