/* nda.c: the named-dimension analysis of paper 004 section 3 on the
 * flattened module: a fresh name per dimension of every definition and use,
 * the op rules I (which names of an op's uses and results shard together),
 * the definition-to-use map M, and the colors (classes of I and M). */
#include "shard/nda_internal.h"
#include "shard/shard_internal.h"
#include <stdlib.h>
#include <string.h>

/* The names of one op: its uses' and its results' first names. */
typedef struct {
    pp_shard_nda *nda;
    int32_t *parent;
    const pp_shard_op *op;
    const pp_shard_flat_op *fo;
    int32_t use0;
} rule_ctx;

static const pp_shard_type *use_type(const rule_ctx *R, int32_t k)
{
    return &R->nda->flat->values[R->fo->operands[k]].type;
}

static const pp_shard_type *res_type(const rule_ctx *R, int32_t j)
{
    return &R->nda->flat->values[R->fo->results[j]].type;
}

static int32_t use_name(const rule_ctx *R, int32_t k, int64_t d)
{
    return R->nda->tensors[R->use0 + k].first + (int32_t)d;
}

static int32_t res_name(const rule_ctx *R, int32_t j, int64_t d)
{
    return R->nda->tensors[R->fo->results[j]].first + (int32_t)d;
}

static bool in_rank(const pp_shard_type *t, int64_t d)
{
    return d >= 0 && d < t->rank;
}

/* Identifies use dim (k, dk) with result dim (j, dj) when both exist and
 * have the same size: a rule never joins dimensions of different sizes. */
static void same_ur(rule_ctx *R, int32_t k, int64_t dk, int32_t j, int64_t dj)
{
    const pp_shard_type *a = use_type(R, k), *b = res_type(R, j);
    if (in_rank(a, dk) && in_rank(b, dj) && a->dims[dk] == b->dims[dj])
        shard_uf_union(R->parent, use_name(R, k, dk), res_name(R, j, dj));
}

static void same_uu(rule_ctx *R, int32_t k1, int64_t d1, int32_t k2, int64_t d2)
{
    const pp_shard_type *a = use_type(R, k1), *b = use_type(R, k2);
    if (in_rank(a, d1) && in_rank(b, d2) && a->dims[d1] == b->dims[d2])
        shard_uf_union(R->parent, use_name(R, k1, d1), use_name(R, k2, d2));
}

static void rule_elementwise(rule_ctx *R)
{
    const pp_shard_type *r = res_type(R, 0);
    for (int32_t k = 0; k < R->op->n_operands; k++)
        if (use_type(R, k)->rank == r->rank)
            for (int32_t d = 0; d < r->rank; d++)
                same_ur(R, k, d, 0, d);
}

static void rule_broadcast(rule_ctx *R)
{
    for (int32_t i = 0; i < R->op->dims.n; i++)
        same_ur(R, 0, i, 0, R->op->dims.v[i]);
}

static void rule_transpose(rule_ctx *R)
{
    for (int32_t i = 0; i < R->op->dims.n; i++)
        same_ur(R, 0, R->op->dims.v[i], 0, i);
}

/* reduce: each input's kept dims in order are its result's; the results
 * of a variadic reduce (argmax) share their dims. */
static void rule_reduce(rule_ctx *R)
{
    int32_t n = R->op->n_results;
    for (int32_t k = 0; k < n && k < R->op->n_operands; k++) {
        int32_t j = 0;
        for (int32_t d = 0; d < use_type(R, k)->rank; d++)
            if (!shard_ints_has(&R->op->dims, d))
                same_ur(R, k, d, k, j++);
        if (k > 0)
            for (int32_t d = 0; d < res_type(R, k)->rank; d++)
                same_ur(R, k, d, 0, d);
    }
}

/* reduce_window: only dims whose window and stride are 1 map straight through. */
static void rule_reduce_window(rule_ctx *R)
{
    int32_t n = R->op->n_results;
    for (int32_t k = 0; k < n && k < R->op->n_operands; k++)
        for (int32_t d = 0; d < use_type(R, k)->rank; d++) {
            bool unit = d < R->op->dims.n && R->op->dims.v[d] == 1;
            bool stride1 = R->op->strides.n == 0 || (d < R->op->strides.n && R->op->strides.v[d] == 1);
            if (unit && stride1)
                same_ur(R, k, d, k, d);
        }
}

static void rule_dot(rule_ctx *R)
{
    const pp_shard_dot_dims *D = &R->op->dot;
    int32_t out = 0;
    for (int32_t i = 0; i < D->lhs_batch.n && i < D->rhs_batch.n; i++) {
        same_ur(R, 0, D->lhs_batch.v[i], 0, out);
        same_ur(R, 1, D->rhs_batch.v[i], 0, out++);
    }
    for (int32_t side = 0; side < 2; side++) {
        const pp_shard_ints *b = side ? &D->rhs_batch : &D->lhs_batch;
        const pp_shard_ints *c = side ? &D->rhs_contract : &D->lhs_contract;
        for (int32_t d = 0; d < use_type(R, side)->rank; d++)
            if (!shard_ints_has(b, d) && !shard_ints_has(c, d))
                same_ur(R, side, d, 0, out++);
    }
    for (int32_t i = 0; i < D->lhs_contract.n && i < D->rhs_contract.n; i++)
        same_uu(R, 0, D->lhs_contract.v[i], 1, D->rhs_contract.v[i]);
}

static void rule_conv(rule_ctx *R)
{
    const pp_shard_conv_dims *C = &R->op->conv;
    if (C->batch_group_count <= 1)
        same_ur(R, 0, C->in_batch, 0, C->out_batch);
    same_ur(R, 1, C->kernel_out, 0, C->out_feature);
    if (C->feature_group_count <= 1 && C->batch_group_count <= 1)
        same_uu(R, 0, C->in_feature, 1, C->kernel_in);
}

/* reshape: an operand dim and a result dim of equal size that start at the
 * same point of the cumulative product of sizes are the same dimension. */
static void rule_reshape(rule_ctx *R)
{
    const pp_shard_type *a = use_type(R, 0), *b = res_type(R, 0);
    int64_t pa = 1, pb = 1;
    int32_t i = 0, j = 0;
    while (i < a->rank && j < b->rank) {
        if (a->dims[i] < 0 || b->dims[j] < 0)
            return;
        if (pa == pb && a->dims[i] == b->dims[j] && a->dims[i] != 1)
            same_ur(R, 0, i, 0, j);
        if (pa * a->dims[i] <= pb * b->dims[j])
            pa *= a->dims[i++];
        else
            pb *= b->dims[j++];
    }
}

static void rule_slice(rule_ctx *R)
{
    for (int32_t d = 0; d < res_type(R, 0)->rank; d++)
        same_ur(R, 0, d, 0, d); /* same_ur keeps only dims whose size is unchanged */
}

static void rule_concatenate(rule_ctx *R)
{
    for (int32_t k = 0; k < R->op->n_operands; k++)
        for (int32_t d = 0; d < res_type(R, 0)->rank; d++)
            if (d != R->op->dim)
                same_ur(R, k, d, 0, d);
}

/* gather: offset dims of the result taken whole from an operand dim, and
 * the batch dims of the result from the start indices' dims, in order. */
static void rule_gather(rule_ctx *R)
{
    const pp_shard_gather_dims *G = &R->op->gather;
    const pp_shard_type *operand = use_type(R, 0), *res = res_type(R, 0);
    int32_t o = 0;
    for (int32_t d = 0; d < operand->rank && o < G->offset_dims.n; d++) {
        if (shard_ints_has(&G->collapsed_slice_dims, d) || shard_ints_has(&G->operand_batching_dims, d))
            continue;
        if (d < G->slice_sizes.n && G->slice_sizes.v[d] == operand->dims[d])
            same_ur(R, 0, d, 0, G->offset_dims.v[o]);
        o++;
    }
    if (R->op->n_operands < 2)
        return;
    int32_t idx = 0;
    for (int32_t d = 0; d < res->rank; d++) {
        if (shard_ints_has(&G->offset_dims, d))
            continue;
        if (idx == G->index_vector_dim)
            idx++;
        same_ur(R, 1, idx++, 0, d);
    }
}

/* Elementwise StableHLO ops the reader keeps opaque (it has no kind for
 * them) but whose rule is plain: position by position; and CHLO's
 * elementwise unary ops, which exporters leave in StableHLO text (PyTorch's
 * GELU as chlo.erf). Any other opaque op identifies nothing. */
static bool elementwise_by_name(const char *name)
{
    static const char *const NAMES[] = {"stablehlo.clamp", "stablehlo.round_nearest_even",
                                        "stablehlo.round_nearest_afz", "stablehlo.cbrt", "stablehlo.is_finite",
                                        "stablehlo.exponential_minus_one", "stablehlo.log_plus_one",
                                        "stablehlo.shift_left", "stablehlo.shift_right_logical",
                                        "stablehlo.shift_right_arithmetic", "stablehlo.popcnt", "stablehlo.tan",
                                        "stablehlo.bitcast_convert", "stablehlo.reduce_precision", "chlo.erf",
                                        "chlo.erfc", "chlo.erf_inv", "chlo.tan", "chlo.sinh", "chlo.cosh"};
    for (size_t k = 0; name && k < sizeof NAMES / sizeof *NAMES; k++)
        if (strcmp(name, NAMES[k]) == 0)
            return true;
    return false;
}

static void apply_rule(rule_ctx *R)
{
    pp_shard_op_kind k = R->op->kind;
    if (R->op->n_results < 1)
        return;
    if (pp_shard_op_is_unary(k) || pp_shard_op_is_binary(k) || k == PP_SHARD_OP_CONVERT ||
        k == PP_SHARD_OP_SELECT || k == PP_SHARD_OP_COMPARE ||
        (k == PP_SHARD_OP_OPAQUE && elementwise_by_name(R->op->name)))
        rule_elementwise(R);
    else if (k == PP_SHARD_OP_BROADCAST_IN_DIM)
        rule_broadcast(R);
    else if (k == PP_SHARD_OP_TRANSPOSE)
        rule_transpose(R);
    else if (k == PP_SHARD_OP_REDUCE)
        rule_reduce(R);
    else if (k == PP_SHARD_OP_REDUCE_WINDOW)
        rule_reduce_window(R);
    else if (k == PP_SHARD_OP_DOT_GENERAL)
        rule_dot(R);
    else if (k == PP_SHARD_OP_CONVOLUTION)
        rule_conv(R);
    else if (k == PP_SHARD_OP_RESHAPE)
        rule_reshape(R);
    else if (k == PP_SHARD_OP_SLICE)
        rule_slice(R);
    else if (k == PP_SHARD_OP_CONCATENATE)
        rule_concatenate(R);
    else if (k == PP_SHARD_OP_GATHER)
        rule_gather(R);
}

static int32_t rank_of(const pp_shard_type *t)
{
    return t->rank > 0 ? t->rank : 0;
}

static bool add_tensor(pp_shard_nda *nda, int32_t value, int32_t op, int32_t operand, int64_t *names,
                       pp_error *err)
{
    int32_t r = rank_of(&nda->flat->values[value].type);
    if (*names + r > INT32_MAX / 2)
        return pp_error_set(err, PP_EINPUT, "the module has too many tensor dimensions to analyse"), false;
    nda->tensors[nda->n_tensors++] = (pp_shard_nda_tensor){value, op, operand, r, (int32_t)*names};
    *names += r;
    return true;
}

/* Definitions, then each op's uses, then the outputs, each with fresh names. */
static bool name_tensors(pp_shard_nda *nda, pp_error *err)
{
    const pp_shard_flat *flat = nda->flat;
    int64_t n_tensors = (int64_t)flat->n_values + flat->n_outputs, names = 0;
    for (int32_t i = 0; i < flat->n_ops; i++)
        n_tensors += pp_shard_flat_op_of(flat, i)->n_operands;
    if (n_tensors > INT32_MAX / 2)
        return pp_error_set(err, PP_EINPUT, "the module has too many tensor uses to analyse"), false;
    nda->tensors = shard_nda_alloc(nda, (size_t)n_tensors, sizeof *nda->tensors, err);
    nda->op_use = shard_nda_alloc(nda, (size_t)flat->n_ops, sizeof *nda->op_use, err);
    if (!nda->tensors || !nda->op_use)
        return false;
    for (int32_t v = 0; v < flat->n_values; v++)
        if (!add_tensor(nda, v, -1, -1, &names, err))
            return false;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        nda->op_use[i] = nda->n_tensors;
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        for (int32_t k = 0; k < op->n_operands; k++)
            if (!add_tensor(nda, flat->ops[i].operands[k], i, k, &names, err))
                return false;
    }
    nda->out_use = nda->n_tensors;
    for (int32_t k = 0; k < flat->n_outputs; k++)
        if (!add_tensor(nda, flat->outputs[k], flat->n_ops, k, &names, err))
            return false;
    nda->n_names = (int32_t)names;
    return true;
}

static bool index_names(pp_shard_nda *nda, pp_error *err)
{
    nda->name_tensor = shard_nda_alloc(nda, (size_t)nda->n_names, sizeof(int32_t), err);
    nda->name_dim = shard_nda_alloc(nda, (size_t)nda->n_names, sizeof(int32_t), err);
    nda->iclass = shard_nda_alloc(nda, (size_t)nda->n_names, sizeof(int32_t), err);
    nda->color = shard_nda_alloc(nda, (size_t)nda->n_names, sizeof(int32_t), err);
    if (!nda->name_tensor || !nda->name_dim || !nda->iclass || !nda->color)
        return false;
    for (int32_t t = 0; t < nda->n_tensors; t++)
        for (int32_t d = 0; d < nda->tensors[t].rank; d++) {
            nda->name_tensor[nda->tensors[t].first + d] = t;
            nda->name_dim[nda->tensors[t].first + d] = d;
        }
    return true;
}

/* Per flat value, 1 when it holds no data from the entry's arguments (a
 * constant, an iota, or computed from those alone) and is used more than
 * once. An op with a region (it may read values from above) or opaque to
 * the reader counts as data whatever its operands. Flat ops come in
 * definition order, so one pass sees every operand before its user; a
 * value not yet seen counts as data. */
static uint8_t *shared_constants(pp_shard_nda *nda, pp_error *err)
{
    const pp_shard_flat *flat = nda->flat;
    uint8_t *fixed = shard_nda_alloc(nda, (size_t)flat->n_values + 1, 1, err);
    int32_t *uses = shard_nda_alloc(nda, (size_t)flat->n_values + 1, sizeof *uses, err);
    if (!fixed || !uses)
        return NULL;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        bool plain = op->kind != PP_SHARD_OP_OPAQUE && op->body_count == 0;
        bool no_data = op->kind == PP_SHARD_OP_CONSTANT || op->kind == PP_SHARD_OP_IOTA ||
                       (plain && op->n_operands > 0);
        for (int32_t k = 0; k < op->n_operands; k++)
            no_data = no_data && fixed[flat->ops[i].operands[k]];
        for (int32_t j = 0; j < op->n_results; j++)
            fixed[flat->ops[i].results[j]] = no_data;
    }
    for (int32_t t = flat->n_values; t < nda->n_tensors; t++)
        uses[nda->tensors[t].value]++;
    for (int32_t v = 0; v < flat->n_values; v++)
        fixed[v] = fixed[v] && uses[v] > 1;
    return fixed;
}

/* M: each use's dims point back to its value's definition, except the uses
 * of a shared constant: each is its own copy. PyTorch exports write one
 * constant for every layer (a `%cst : tensor<1x7x3072xf32>` in each MLP),
 * and joining its uses would make one color of all the layers' MLP widths.
 * A constant carries no layout of its own: bringing it to a sharded use is
 * a local slice, which the cost model prices at nothing. */
static bool build_map(pp_shard_nda *nda, pp_error *err)
{
    int64_t n = 0;
    for (int32_t t = nda->flat->n_values; t < nda->n_tensors; t++)
        n += nda->tensors[t].rank;
    nda->edge_def = shard_nda_alloc(nda, (size_t)n, sizeof(int32_t), err);
    nda->edge_use = shard_nda_alloc(nda, (size_t)n, sizeof(int32_t), err);
    const uint8_t *copied = shared_constants(nda, err);
    if (!nda->edge_def || !nda->edge_use || !copied)
        return false;
    for (int32_t t = nda->flat->n_values; t < nda->n_tensors; t++) {
        const pp_shard_nda_tensor *u = &nda->tensors[t], *d = &nda->tensors[u->value];
        if (copied[u->value])
            continue;
        for (int32_t k = 0; k < u->rank; k++) {
            nda->edge_def[nda->n_edges] = d->first + k;
            nda->edge_use[nda->n_edges++] = u->first + k;
        }
    }
    return true;
}

/* Numbers the classes of parent 0.. in order of their first name. */
static int32_t number_classes(const pp_shard_nda *nda, int32_t *parent, int32_t *out)
{
    int32_t n = 0;
    for (int32_t x = 0; x < nda->n_names; x++) {
        int32_t r = shard_uf_find(parent, x);
        out[x] = r == x ? n++ : out[r];
    }
    return n;
}

static bool summarize_colors(pp_shard_nda *nda, pp_error *err)
{
    nda->colors = shard_nda_alloc(nda, (size_t)nda->n_colors, sizeof *nda->colors, err);
    nda->iclass_color = shard_nda_alloc(nda, (size_t)nda->n_iclasses, sizeof(int32_t), err);
    int32_t *last = calloc((size_t)nda->n_colors + 1, sizeof *last);
    if (!nda->colors || !nda->iclass_color || !last) {
        free(last);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the named-dimension analysis"), false;
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        nda->colors[c].first_value = -1;
    for (int32_t x = 0; x < nda->n_names; x++) {
        pp_shard_nda_color *c = &nda->colors[nda->color[x]];
        int32_t t = nda->name_tensor[x];
        nda->iclass_color[nda->iclass[x]] = nda->color[x];
        if (c->n_names++ == 0)
            c->size = nda->flat->values[nda->tensors[t].value].type.dims[nda->name_dim[x]];
        if (t < nda->flat->n_values && last[nda->color[x]] != t + 1) {
            last[nda->color[x]] = t + 1;
            if (c->n_values++ == 0)
                c->first_value = t;
        }
    }
    free(last);
    return true;
}

/* Identities I from every op's rule; iclass from I alone, color from I and M. */
static bool identify(pp_shard_nda *nda, pp_error *err)
{
    const pp_shard_flat *flat = nda->flat;
    int32_t *parent = malloc(((size_t)nda->n_names + 1) * sizeof *parent);
    if (!parent)
        return pp_error_set(err, PP_ENOMEM, "out of memory in the named-dimension analysis"), false;
    for (int32_t x = 0; x < nda->n_names; x++)
        parent[x] = x;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        rule_ctx R = {nda, parent, pp_shard_flat_op_of(flat, i), &flat->ops[i],
                      nda->op_use[i]};
        apply_rule(&R);
    }
    nda->n_iclasses = number_classes(nda, parent, nda->iclass);
    for (int32_t e = 0; e < nda->n_edges; e++)
        shard_uf_union(parent, nda->edge_def[e], nda->edge_use[e]);
    nda->n_colors = number_classes(nda, parent, nda->color);
    free(parent);
    return summarize_colors(nda, err);
}

/* The names, the op rules and the map, the iclasses and the colors. */
bool shard_nda_names(pp_shard_nda *nda, pp_error *err)
{
    return name_tensors(nda, err) && index_names(nda, err) && build_map(nda, err) && identify(nda, err);
}
