/* cost.c: the analytical cost model of paper 004 section 4.5. A state's
 * actions become, per dimension name of the NDA, a set of mesh axes; from it
 * each op gets its local shapes, its roofline time (dot_general and
 * convolution by FLOPs and bytes, every other op by its bytes alone), the
 * collectives its sharding implies, and each value its live range.
 *
 * Choices of this first version, and why:
 * - one stream per device and no overlap of communication with compute, so
 *   the critical path is the sum of every op's and collective's time in the
 *   flattened topological order;
 * - a resharding is priced per axis on the definition's local size (an
 *   all_gather per axis the definition has and the use lacks, an all_to_all
 *   per axis on different dimensions); an axis the use has and the
 *   definition lacks is a local slice, free;
 * - a partial sum (a contracted or reduced dimension sharded on an axis,
 *   or a gathered table's indexed rows: each device looks up its own) costs
 *   an all_reduce of the local result, or a reduce_scatter when the
 *   result, or its only use, is sharded on that axis (only one use, so that
 *   the cost stays a sum of per-op and per-edge terms: see cost_internal.h);
 * - an operand dimension sharded on an axis that the result dimension the
 *   op rules identify it with does not carry (and not summed over) is
 *   gathered before the op, which then reads it whole along that axis; a
 *   matrix product's FLOPs follow its result's local shape and the longer
 *   side of each contracted pair;
 * - a window (convolution, reduce_window) whose input and output spatial
 *   dimensions are sharded on the same axis is spatial partitioning: each
 *   device also needs window - 1 border rows of its neighbours' input, a
 *   halo exchange priced as one point-to-point transfer of them;
 * - peak memory counts the local definitions only (arguments live
 *   throughout, a value from its op to its last use, outputs to the end);
 *   resharding buffers are transient and left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hw/hw_internal.h"
#include "hw/net_internal.h"
#include "shard/cost_internal.h"
#include "core/grow.h"

typedef shard_cost_model model;

static const pp_shard_type *tensor_type(const model *M, int32_t t)
{
    return &M->flat->values[M->nda->tensors[t].value].type;
}

static int64_t local_dim(const model *M, int32_t t, int32_t d)
{
    int64_t size = tensor_type(M, t)->dims[d];
    return size < 0 ? 0 : size / shard_axes_devices(M->mesh, M->axes[M->nda->tensors[t].first + d]);
}

/* Bits per element as run: f32 cast to bf16 under --precision bf16. */
static double tensor_bits(const model *M, const pp_shard_type *ty)
{
    if (M->mesh->precision == PP_SHARD_PRECISION_BF16 && strcmp(ty->elem, "f32") == 0)
        return 16;
    return ty->bits > 0 ? ty->bits : 32;
}

double shard_cost_local_bytes(const model *M, int32_t t)
{
    const pp_shard_type *ty = tensor_type(M, t);
    if (ty->rank < 0)
        return 0;
    double n = 1;
    for (int32_t d = 0; d < ty->rank; d++)
        n *= (double)local_dim(M, t, d);
    return n * tensor_bits(M, ty) / 8.0;
}

static pp_status apply_action(const pp_shard_nda *nda, const pp_shard_mesh *mesh, uint8_t *axes,
                              const pp_shard_action *act, pp_error *err)
{
    if (act->color < 0 || act->color >= nda->n_colors || act->axis < 0 || act->axis >= mesh->n_axes)
        return pp_error_set(err, PP_EINPUT, "action (color %d, axis %d): no such color or mesh axis",
                            (int)act->color, (int)act->axis);
    uint8_t bit = (uint8_t)(1u << act->axis);
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        int32_t d = pp_shard_nda_sharded_dim(nda, act->color, act->bits, t);
        if (d < 0)
            continue;
        const pp_shard_nda_tensor *T = &nda->tensors[t];
        for (int32_t e = 0; e < T->rank; e++)
            if (axes[T->first + e] & bit) {
                char buf[160];
                return pp_error_set(err, PP_EINPUT, "action (color %d, axis '%s'): %s already uses axis '%s'",
                                    (int)act->color, mesh->names[act->axis],
                                    pp_shard_value_label(nda->flat, T->value, buf, sizeof buf),
                                    mesh->names[act->axis]);
            }
        axes[T->first + d] |= bit;
    }
    return PP_OK;
}

pp_status pp_shard_state_push(pp_shard_state *state, pp_shard_action action, pp_error *err)
{
    int cap = state->cap;
    if (cap == 0 && state->actions) /* the caller's own array (cap 0): not realloc's to move */
        return pp_error_set(err, PP_EARG, "sharding state: cannot grow an array the caller owns");
    if (!pp_grow((void **)&state->actions, &cap, state->n + 1, sizeof *state->actions))
        return pp_error_set(err, PP_ENOMEM, "sharding state: out of memory");
    state->cap = cap;
    state->actions[state->n++] = action;
    return PP_OK;
}

void pp_shard_state_free(pp_shard_state *state)
{
    if (state->cap > 0)
        free(state->actions);
    memset(state, 0, sizeof *state);
}

pp_status pp_shard_state_layout(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const pp_shard_state *state,
                                uint8_t *axes, pp_error *err)
{
    memset(axes, 0, (size_t)nda->n_names);
    for (int32_t k = 0; k < state->n; k++) {
        pp_status st = apply_action(nda, mesh, axes, &state->actions[k], err);
        if (st != PP_OK)
            return st;
    }
    return PP_OK;
}

shard_fit shard_tensor_fit(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes, int32_t t,
                           int32_t *dim)
{
    const pp_shard_nda_tensor *T = &nda->tensors[t];
    const pp_shard_type *ty = &nda->flat->values[T->value].type;
    uint8_t seen = 0;
    for (int32_t d = 0; d < T->rank; d++) {
        uint8_t mask = axes[T->first + d];
        *dim = d;
        if (mask >> mesh->n_axes)
            return SHARD_NO_SUCH_AXIS;
        if (seen & mask)
            return SHARD_AXIS_TWICE;
        seen |= mask;
        int64_t n = shard_axes_devices(mesh, mask);
        if (n > 1 && (ty->dims[d] < 0 || ty->dims[d] % n != 0))
            return SHARD_NOT_DIVISIBLE;
    }
    return SHARD_FITS;
}

pp_status shard_cost_check_layout(const model *M, pp_error *err)
{
    const pp_shard_nda *nda = M->nda;
    char buf[160];
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        int32_t d = 0;
        shard_fit fit = shard_tensor_fit(nda, M->mesh, M->axes, t, &d);
        const char *label = fit == SHARD_FITS ? NULL : pp_shard_value_label(M->flat, nda->tensors[t].value, buf, sizeof buf);
        if (fit == SHARD_NO_SUCH_AXIS)
            return pp_error_set(err, PP_EINPUT, "dimension %d of %s: no such mesh axis", (int)d, label);
        if (fit == SHARD_AXIS_TWICE)
            return pp_error_set(err, PP_EINPUT, "%s has one mesh axis on two of its dimensions", label);
        if (fit == SHARD_NOT_DIVISIBLE)
            return pp_error_set(err, PP_EINPUT,
                                "dimension %d of %s has size %lld, not divisible by the %lld devices sharding it",
                                (int)d, label, (long long)tensor_type(M, t)->dims[d],
                                (long long)shard_axes_devices(M->mesh, M->axes[nda->tensors[t].first + d]));
    }
    return PP_OK;
}

static void add_collective(const model *M, pp_shard_collective kind, int32_t axis, double bytes, pp_shard_cost *acc)
{
    pp_hw_link link = M->mesh->links[axis];
    int n = M->mesh->sizes[axis];
    if (n <= 1)
        return;
    double t = kind == PP_SHARD_ALL_REDUCE       ? pp_hw_allreduce_time(link, n, bytes)
               : kind == PP_SHARD_REDUCE_SCATTER ? pp_hw_reduce_scatter_time(link, n, bytes)
               : kind == PP_SHARD_ALL_GATHER     ? pp_hw_allgather_time(link, n, bytes)
               : kind == PP_SHARD_ALL_TO_ALL     ? pp_hw_alltoall_time(link, n, bytes)
                                                 : pp_hw_p2p_time(link, bytes);
    acc->collectives[kind]++;
    acc->collective_bytes[kind] += bytes;
    acc->collective_time += t;
    acc->runtime += t;
}

/* The dimension of tensor t sharded on axis a, -1 when none. */
static int32_t dim_on_axis(const model *M, int32_t t, int32_t a)
{
    const pp_shard_nda_tensor *T = &M->nda->tensors[t];
    for (int32_t d = 0; d < T->rank; d++)
        if (M->axes[T->first + d] & (1u << a))
            return d;
    return -1;
}

static int32_t use_count(const model *M, int32_t v)
{
    return M->use_first[v + 1] - M->use_first[v];
}

static const pp_shard_op *op_of(const model *M, int32_t i)
{
    return pp_shard_flat_op_of(M->flat, i);
}

static bool both_on(const model *M, int32_t lhs, int64_t ld, int32_t rhs, int64_t rd, uint8_t bit)
{
    return (M->axes[M->nda->tensors[lhs].first + ld] & bit) && (M->axes[M->nda->tensors[rhs].first + rd] & bit);
}

/* The axes over which result k of flat op i is a partial sum: a contracted
 * pair sharded on both sides, or a reduced dimension of its input. */
static uint8_t partial_axes(const model *M, int32_t i, int32_t k)
{
    const pp_shard_op *op = op_of(M, i);
    int32_t use = M->nda->op_use[i];
    uint8_t mask = 0;
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        uint8_t bit = (uint8_t)(1u << a);
        if (op->kind == PP_SHARD_OP_DOT_GENERAL && op->n_operands == 2 && k == 0) {
            for (int32_t c = 0; c < op->dot.lhs_contract.n; c++)
                if (both_on(M, use, op->dot.lhs_contract.v[c], use + 1, op->dot.rhs_contract.v[c], bit))
                    mask |= bit;
        } else if (op->kind == PP_SHARD_OP_CONVOLUTION && op->n_operands == 2 && k == 0) {
            if (both_on(M, use, op->conv.in_feature, use + 1, op->conv.kernel_in, bit))
                mask |= bit;
        } else if (op->kind == PP_SHARD_OP_REDUCE && op->n_operands >= 2 && k < op->n_operands) {
            int32_t d = dim_on_axis(M, use + k, a);
            if (d >= 0 && shard_ints_has(&op->dims, d))
                mask |= bit;
        } else if (op->kind == PP_SHARD_OP_GATHER && k == 0) {
            int32_t d = dim_on_axis(M, use, a);
            if (d >= 0 && shard_op_sums(op, 0, d))
                mask |= bit;
        }
    }
    return mask;
}

/* Bringing definition `def` to the layout of its use `use`: an all_gather
 * per axis the definition has and the use lacks, an all_to_all per axis on
 * different dimensions; an axis only the use has is a local slice. */
static void reshard(const model *M, int32_t def, int32_t use, pp_shard_cost *acc)
{
    double bytes = shard_cost_local_bytes(M, def);
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        int32_t dd = dim_on_axis(M, def, a), du = dim_on_axis(M, use, a);
        if (dd >= 0 && du < 0)
            add_collective(M, PP_SHARD_ALL_GATHER, a, bytes * M->mesh->sizes[a], acc);
        else if (dd >= 0 && du != dd)
            add_collective(M, PP_SHARD_ALL_TO_ALL, a, bytes, acc);
    }
}

/* Contracted dimension pairs sharded on an axis on one side only: that
 * operand is gathered along it, and the op reads it that much larger
 * (factor[side]). */
static void gather_one_sided(const model *M, int32_t lhs, int32_t rhs, const int64_t *ld, const int64_t *rd,
                             int32_t n, double *factor, pp_shard_cost *acc)
{
    for (int32_t a = 0; a < M->mesh->n_axes; a++)
        for (int32_t k = 0; k < n; k++) {
            bool l = M->axes[M->nda->tensors[lhs].first + ld[k]] & (1u << a);
            bool r = M->axes[M->nda->tensors[rhs].first + rd[k]] & (1u << a);
            if (l != r) {
                add_collective(M, PP_SHARD_ALL_GATHER, a, shard_cost_local_bytes(M, l ? lhs : rhs) * M->mesh->sizes[a],
                               acc);
                factor[l ? 0 : 1] *= M->mesh->sizes[a];
            }
        }
}

/* 2 x the result's local elements x the contracted length each device
 * runs over: the longer side of each contracted pair, since a pair sharded
 * on one side only is gathered first. */
static double dot_flops(const model *M, const pp_shard_op *op, int32_t lhs, int32_t rhs, int32_t res,
                        double *factor, pp_shard_cost *acc)
{
    const pp_shard_dot_dims *dd = &op->dot;
    double f = 2;
    for (int32_t d = 0; d < M->nda->tensors[res].rank; d++)
        f *= (double)local_dim(M, res, d);
    for (int32_t k = 0; k < dd->lhs_contract.n && k < dd->rhs_contract.n; k++) {
        int64_t l = local_dim(M, lhs, (int32_t)dd->lhs_contract.v[k]);
        int64_t r = local_dim(M, rhs, (int32_t)dd->rhs_contract.v[k]);
        f *= (double)(l > r ? l : r);
    }
    gather_one_sided(M, lhs, rhs, dd->lhs_contract.v, dd->rhs_contract.v, dd->lhs_contract.n, factor, acc);
    return f;
}

/* 2 x the result's local elements x the kernel's window and input
 * features (the longer of the kernel's and the input's local feature
 * count, as for a contracted pair). */
static double conv_flops(const model *M, const pp_shard_op *op, int32_t lhs, int32_t rhs, int32_t res,
                         double *factor, pp_shard_cost *acc)
{
    const pp_shard_conv_dims *c = &op->conv;
    double out = 1, kernel = 1;
    for (int32_t d = 0; d < M->nda->tensors[res].rank; d++)
        out *= (double)local_dim(M, res, d);
    for (int32_t d = 0; d < M->nda->tensors[rhs].rank; d++)
        if (d != c->kernel_out && d != c->kernel_in)
            kernel *= (double)local_dim(M, rhs, d);
    int64_t features = local_dim(M, rhs, (int32_t)c->kernel_in);
    if (c->feature_group_count <= 1 && c->batch_group_count <= 1 && local_dim(M, lhs, (int32_t)c->in_feature) > features)
        features = local_dim(M, lhs, (int32_t)c->in_feature);
    gather_one_sided(M, lhs, rhs, &c->in_feature, &c->kernel_in, 1, factor, acc);
    return 2 * out * kernel * (double)features;
}

bool shard_op_sums(const pp_shard_op *op, int32_t k, int32_t d)
{
    switch (op->kind) {
    case PP_SHARD_OP_DOT_GENERAL:
        return shard_ints_has(k == 0 ? &op->dot.lhs_contract : &op->dot.rhs_contract, d);
    case PP_SHARD_OP_CONVOLUTION:
        return d == (k == 0 ? op->conv.in_feature : op->conv.kernel_in);
    case PP_SHARD_OP_REDUCE:
        return k < op->n_results && shard_ints_has(&op->dims, d);
    case PP_SHARD_OP_GATHER: /* a table split along the rows it is indexed by: each device looks up the
                                rows it holds, zeros for the others, and the results are summed
                                (Megatron-LM's vocabulary-parallel embedding, section 3) */
        return k == 0 && shard_ints_has(&op->gather.collapsed_slice_dims, d) &&
               shard_ints_has(&op->gather.start_index_map, d) && !shard_ints_has(&op->gather.operand_batching_dims, d);
    default:
        return false;
    }
}

/* The window of a convolution or reduce_window along operand k's
 * dimension d, with the result dimension it slides over (*out_dim); 0 when
 * d is not a windowed dimension. */
static int64_t window_along(const model *M, const pp_shard_op *op, int32_t use, int32_t k, int32_t d,
                            int32_t *out_dim)
{
    if (op->kind == PP_SHARD_OP_CONVOLUTION && k == 0) {
        const pp_shard_conv_dims *c = &op->conv;
        for (int32_t i = 0; i < c->in_spatial.n && i < c->kernel_spatial.n && i < c->out_spatial.n; i++)
            if (c->in_spatial.v[i] == d) {
                *out_dim = (int32_t)c->out_spatial.v[i];
                return tensor_type(M, use + 1)->dims[c->kernel_spatial.v[i]];
            }
    } else if (op->kind == PP_SHARD_OP_REDUCE_WINDOW && k < op->n_results && d < op->dims.n) {
        *out_dim = d;
        return op->dims.v[d];
    }
    return 0;
}

/* Operand name x's dimension is carried on `bit` by a result dimension the
 * op rules identify it with. */
static bool identified_result_has(const model *M, const pp_shard_op *op, const pp_shard_flat_op *fo, int32_t x,
                                  uint8_t bit)
{
    for (int32_t k = 0; k < op->n_results; k++) {
        const pp_shard_nda_tensor *T = &M->nda->tensors[fo->results[k]];
        for (int32_t d = 0; d < T->rank; d++)
            if (M->nda->iclass[T->first + d] == M->nda->iclass[x] && (M->axes[T->first + d] & bit))
                return true;
    }
    return false;
}

/* Operand k's dimension d is sharded on axis a but the op needs it whole
 * along a: a window sliding over it with its output on the same axis
 * exchanges halos, anything else gathers the operand first. */
static double operand_not_kept(const model *M, const pp_shard_op *op, const pp_shard_flat_op *fo, int32_t use,
                               int32_t k, int32_t d, int32_t a, pp_shard_cost *acc)
{
    int32_t out_dim = -1;
    int64_t window = window_along(M, op, use, k, d, &out_dim);
    double bytes = shard_cost_local_bytes(M, use + k);
    if (window > 0 && op->n_results > 0 && (M->axes[M->nda->tensors[fo->results[0]].first + out_dim] & (1u << a))) {
        int64_t rows = local_dim(M, use + k, d);
        if (window > 1 && rows > 0)
            add_collective(M, PP_SHARD_HALO_EXCHANGE, a, bytes / (double)rows * (double)(window - 1), acc);
        return 1;
    }
    add_collective(M, PP_SHARD_ALL_GATHER, a, bytes * M->mesh->sizes[a], acc);
    return M->mesh->sizes[a];
}

/* Operand k's axes the op cannot keep: gathered (or halos exchanged);
 * returns how much larger the op then reads it. */
/* The dimensions [*first, *last] of `in` that cover, in the cumulative
 * product of sizes, exactly what dimensions [from, to] of `out` cover,
 * extending [from, to] to the smallest such group; false when none. */
static bool reshape_group(const pp_shard_type *in, const pp_shard_type *out, int32_t *from, int32_t *to,
                          int32_t *first, int32_t *last)
{
    int64_t start = 1, end = 1, p = 1;
    for (int32_t y = 0; y < *from; y++)
        start *= out->dims[y];
    end = start * out->dims[*from];
    int32_t x = 0;
    for (; x < in->rank && p < start; x++)
        p *= in->dims[x];
    if (p != start)
        return false;
    *first = x;
    int64_t q = p, r = end;
    while (q != r) {
        if (q < r && x < in->rank)
            q *= in->dims[x++];
        else if (q > r && *to + 1 < out->rank)
            r *= out->dims[++*to];
        else
            return false;
    }
    *last = x - 1;
    return *last >= *first;
}

/* A reshape keeps operand dimension d on its axes when d is the major
 * dimension of a group the reshape splits or merges (32 -> 4 x 8, or back),
 * the result's major dimension carries the same axes, the rest of the group
 * none, and the smaller major size divides by their devices: each device
 * then holds whole rows of the major dimension on both sides. */
static bool reshape_keeps(const model *M, const pp_shard_flat_op *fo, int32_t use, int32_t d)
{
    const pp_shard_type *in = tensor_type(M, use), *out = &M->flat->values[fo->results[0]].type;
    const pp_shard_nda_tensor *U = &M->nda->tensors[use], *R = &M->nda->tensors[fo->results[0]];
    int32_t from = 0;
    int64_t before = 1;
    for (int32_t x = 0; x < d; x++)
        before *= in->dims[x];
    for (int64_t p = 1; from < out->rank && p < before; from++)
        p *= out->dims[from];
    while (from < out->rank && out->dims[from] == 1)
        from++;
    int32_t to = from, first, last;
    if (from >= out->rank || !reshape_group(in, out, &from, &to, &first, &last) || first != d)
        return false;
    uint8_t bits = M->axes[U->first + d];
    for (int32_t x = first + 1; x <= last; x++)
        if (M->axes[U->first + x])
            return false;
    for (int32_t y = from + 1; y <= to; y++)
        if (M->axes[R->first + y])
            return false;
    int64_t major = in->dims[d] < out->dims[from] ? in->dims[d] : out->dims[from];
    return M->axes[R->first + from] == bits && major % shard_axes_devices(M->mesh, bits) == 0;
}

static double gather_lost_axes(const model *M, const pp_shard_op *op, const pp_shard_flat_op *fo, int32_t use,
                               int32_t k, pp_shard_cost *acc)
{
    const pp_shard_nda_tensor *T = &M->nda->tensors[use + k];
    double factor = 1;
    for (int32_t d = 0; d < T->rank; d++)
        for (int32_t a = 0; a < M->mesh->n_axes; a++) {
            uint8_t bit = (uint8_t)(1u << a);
            if ((M->axes[T->first + d] & bit) && !shard_op_sums(op, k, d) &&
                !identified_result_has(M, op, fo, T->first + d, bit) &&
                !(op->kind == PP_SHARD_OP_RESHAPE && k == 0 && reshape_keeps(M, fo, use, d)))
                factor *= operand_not_kept(M, op, fo, use, k, d, a, acc);
        }
    return factor;
}

/* The partial sums of the op's results settled at the op: scattered when
 * the result is sharded on the axis, all-reduced when it has several uses
 * (or none); a single use settles it (shard_cost_use). */
static void settle_partial_sums(const model *M, int32_t i, pp_shard_cost *acc)
{
    const pp_shard_flat_op *fo = &M->flat->ops[i];
    for (int32_t k = 0; k < op_of(M, i)->n_results; k++) {
        int32_t res = fo->results[k];
        uint8_t mask = partial_axes(M, i, k);
        for (int32_t a = 0; a < M->mesh->n_axes; a++) {
            if (!(mask & (1u << a)))
                continue;
            if (dim_on_axis(M, res, a) >= 0)
                add_collective(M, PP_SHARD_REDUCE_SCATTER, a, shard_cost_local_bytes(M, res) * M->mesh->sizes[a], acc);
            else if (use_count(M, res) != 1)
                add_collective(M, PP_SHARD_ALL_REDUCE, a, shard_cost_local_bytes(M, res), acc);
        }
    }
}

void shard_cost_op(const model *M, int32_t i, pp_shard_cost *acc)
{
    const pp_shard_flat_op *fo = &M->flat->ops[i];
    const pp_shard_op *op = op_of(M, i);
    int32_t use = M->nda->op_use[i];
    double bytes = 0, flops = 0, factor[2] = {1, 1};
    if (op->kind == PP_SHARD_OP_DOT_GENERAL && op->n_operands == 2)
        flops = dot_flops(M, op, use, use + 1, fo->results[0], factor, acc);
    else if (op->kind == PP_SHARD_OP_CONVOLUTION && op->n_operands == 2)
        flops = conv_flops(M, op, use, use + 1, fo->results[0], factor, acc);
    for (int32_t k = 0; k < op->n_operands; k++)
        bytes += shard_cost_local_bytes(M, use + k) * (k < 2 ? factor[k] : 1) * gather_lost_axes(M, op, fo, use, k, acc);
    for (int32_t k = 0; k < op->n_results; k++)
        bytes += shard_cost_local_bytes(M, fo->results[k]);
    settle_partial_sums(M, i, acc);
    /* the roofline at the peak of the math mode the op's element type runs in */
    pp_hw_device_type device = *M->mesh->device;
    if (flops > 0) /* a dot_general or convolution: operand 0 gives the element type */
        device.peak_flops = pp_shard_mesh_peak(M->mesh, pp_shard_math_of(M->mesh->precision, tensor_type(M, use)->elem));
    double t = pp_hw_op_time(&device, flops, bytes);
    acc->flops += flops;
    acc->compute_time += t;
    acc->runtime += t;
}

void shard_cost_use(const model *M, int32_t t, pp_shard_cost *acc)
{
    int32_t v = M->nda->tensors[t].value;
    reshard(M, v, t, acc);
    int32_t i = M->flat->values[v].op;
    if (i < 0 || use_count(M, v) != 1)
        return;
    uint8_t mask = partial_axes(M, i, M->flat->values[v].index);
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        if (!(mask & (1u << a)) || dim_on_axis(M, v, a) >= 0)
            continue;
        if (dim_on_axis(M, t, a) >= 0)
            add_collective(M, PP_SHARD_REDUCE_SCATTER, a, shard_cost_local_bytes(M, v), acc);
        else
            add_collective(M, PP_SHARD_ALL_REDUCE, a, shard_cost_local_bytes(M, v), acc);
    }
}

double shard_cost_peak_memory(const model *M)
{
    const pp_shard_flat *flat = M->flat;
    int32_t n = flat->n_ops;
    double *delta = M->live_delta;
    memset(delta, 0, sizeof *delta * ((size_t)n + 2));
    double args = 0;
    for (int32_t v = 0; v < flat->n_values; v++) {
        double b = shard_cost_local_bytes(M, v);
        if (flat->values[v].op < 0) {
            args += b;
            continue;
        }
        int32_t end = M->last_use[v] > flat->values[v].op ? M->last_use[v] : flat->values[v].op;
        delta[flat->values[v].op] += b;
        delta[end + 1] -= b;
    }
    double live = 0, peak = 0;
    for (int32_t i = 0; i <= n; i++) {
        live += delta[i];
        if (live > peak)
            peak = live;
    }
    return args + peak;
}

static void find_last_uses(model *M)
{
    const pp_shard_flat *flat = M->flat;
    for (int32_t v = 0; v < flat->n_values; v++)
        M->last_use[v] = flat->values[v].op;
    for (int32_t i = 0; i < flat->n_ops; i++)
        for (int32_t k = 0; k < op_of(M, i)->n_operands; k++)
            M->last_use[flat->ops[i].operands[k]] = i;
    for (int32_t k = 0; k < flat->n_outputs; k++)
        M->last_use[flat->outputs[k]] = flat->n_ops;
}

bool shard_cost_model_init(model *M, const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh)
{
    memset(M, 0, sizeof *M);
    M->flat = flat;
    M->nda = nda;
    M->mesh = mesh;
    int32_t nv = flat->n_values;
    M->use_first = calloc((size_t)nv + 1, sizeof *M->use_first);
    M->use_list = malloc(sizeof *M->use_list * (size_t)(nda->n_tensors - nv + 1));
    M->last_use = malloc(sizeof *M->last_use * ((size_t)nv + 1));
    M->live_delta = malloc(sizeof *M->live_delta * ((size_t)flat->n_ops + 2));
    if (!M->use_first || !M->use_list || !M->last_use || !M->live_delta) {
        shard_cost_model_free(M);
        return false;
    }
    for (int32_t t = nv; t < nda->n_tensors; t++)
        M->use_first[nda->tensors[t].value]++;
    for (int32_t v = 1; v <= nv; v++)
        M->use_first[v] += M->use_first[v - 1]; /* now the end of each value's uses */
    for (int32_t t = nda->n_tensors - 1; t >= nv; t--)
        M->use_list[--M->use_first[nda->tensors[t].value]] = t;
    find_last_uses(M);
    return true;
}

void shard_cost_model_free(model *M)
{
    free(M->use_first);
    free(M->use_list);
    free(M->last_use);
    free(M->live_delta);
    M->use_first = M->use_list = M->last_use = NULL;
    M->live_delta = NULL;
}

void shard_cost_total(const model *M, pp_shard_cost *out)
{
    memset(out, 0, sizeof *out);
    for (int32_t i = 0; i < M->flat->n_ops; i++)
        shard_cost_op(M, i, out);
    for (int32_t t = M->flat->n_values; t < M->nda->n_tensors; t++)
        shard_cost_use(M, t, out);
    out->peak_memory = shard_cost_peak_memory(M);
}

pp_status pp_shard_cost_eval_layout(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                    const uint8_t *axes, pp_shard_cost *out, pp_error *err)
{
    model M;
    if (!shard_cost_model_init(&M, flat, nda, mesh))
        return pp_error_set(err, PP_ENOMEM, "cost model: out of memory");
    M.axes = axes;
    pp_status st = shard_cost_check_layout(&M, err);
    if (st == PP_OK)
        shard_cost_total(&M, out);
    shard_cost_model_free(&M);
    return st;
}

pp_status pp_shard_cost_eval(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                             const pp_shard_state *state, pp_shard_cost *out, pp_error *err)
{
    uint8_t *axes = calloc((size_t)nda->n_names + 1, 1);
    if (!axes)
        return pp_error_set(err, PP_ENOMEM, "cost model: out of memory");
    pp_status st = pp_shard_state_layout(nda, mesh, state, axes, err);
    if (st == PP_OK)
        st = pp_shard_cost_eval_layout(flat, nda, mesh, axes, out, err);
    free(axes);
    return st;
}

double pp_shard_cost_relative(const pp_shard_cost *cost, const pp_shard_cost *initial, double memory,
                              double penalty)
{
    double rt = cost->runtime / initial->runtime;
    if (cost->peak_memory <= memory)
        return rt;
    return rt + penalty * (cost->peak_memory - memory) / initial->peak_memory;
}

bool pp_shard_cost_tied(const pp_shard_cost *a, const pp_shard_cost *b)
{
    double fast = a->runtime < b->runtime ? a->runtime : b->runtime;
    return fabs(a->runtime - b->runtime) <= PP_SHARD_TIME_TIE * fast;
}

/* A time difference the cost model cannot vouch for should not cost the
 * user memory: within the tie, the smaller peak wins. */
bool pp_shard_cost_better(const pp_shard_cost *a, const pp_shard_cost *b, double memory)
{
    bool a_fits = a->peak_memory <= memory, b_fits = b->peak_memory <= memory;
    if (a_fits != b_fits)
        return a_fits;
    if (pp_shard_cost_tied(a, b) && a->peak_memory != b->peak_memory)
        return a->peak_memory < b->peak_memory;
    return a->runtime < b->runtime;
}
