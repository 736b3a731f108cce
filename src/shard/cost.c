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
 * - a partial sum (a contracted or reduced dimension sharded on an axis)
 *   costs an all_reduce of the local result, or a reduce_scatter when the
 *   result, or every use of it, is sharded on that axis;
 * - an operand sharded on an axis that none of the op's results keeps (and
 *   not summed over) is gathered before the op; compute is then still
 *   priced on the local shapes, an underestimate of that op alone;
 * - peak memory counts the local definitions only (arguments live
 *   throughout, a value from its op to its last use, outputs to the end);
 *   resharding buffers are transient and left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard.h"

typedef struct {
    const pp_shard_flat *flat;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    uint8_t *axes; /* per name: the mesh axes sharding it, one bit each */
    pp_shard_cost *cost;
    int32_t *use_first; /* per value, its use tensors: use_list[use_first[v] .. use_first[v + 1]) */
    int32_t *use_list;
} model;

static const pp_shard_type *tensor_type(const model *M, int32_t t)
{
    return &M->flat->values[M->nda->tensors[t].value].type;
}

static int64_t axes_product(const pp_shard_mesh *mesh, uint8_t mask)
{
    int64_t n = 1;
    for (int32_t a = 0; a < mesh->n_axes; a++)
        if (mask & (1u << a))
            n *= mesh->sizes[a];
    return n;
}

static int64_t local_dim(const model *M, int32_t t, int32_t d)
{
    int64_t size = tensor_type(M, t)->dims[d];
    return size < 0 ? 0 : size / axes_product(M->mesh, M->axes[M->nda->tensors[t].first + d]);
}

static double local_bytes(const model *M, int32_t t)
{
    const pp_shard_type *ty = tensor_type(M, t);
    if (ty->rank < 0)
        return 0;
    double n = 1;
    for (int32_t d = 0; d < ty->rank; d++)
        n *= (double)local_dim(M, t, d);
    return n * (ty->bits > 0 ? ty->bits : 32) / 8.0;
}

static uint8_t tensor_axes(const model *M, int32_t t)
{
    const pp_shard_nda_tensor *T = &M->nda->tensors[t];
    uint8_t all = 0;
    for (int32_t d = 0; d < T->rank; d++)
        all |= M->axes[T->first + d];
    return all;
}

static pp_status apply_action(model *M, const pp_shard_action *act, pp_error *err)
{
    const pp_shard_nda *nda = M->nda;
    if (act->color < 0 || act->color >= nda->n_colors || act->axis < 0 || act->axis >= M->mesh->n_axes)
        return pp_error_set(err, PP_EINPUT, "action (color %d, axis %d): no such color or mesh axis",
                            (int)act->color, (int)act->axis);
    uint8_t bit = (uint8_t)(1u << act->axis);
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        int32_t d = pp_shard_nda_sharded_dim(nda, act->color, act->bits, t);
        if (d < 0)
            continue;
        if (tensor_axes(M, t) & bit) {
            char buf[160];
            return pp_error_set(err, PP_EINPUT, "action (color %d, axis '%s'): %s already uses axis '%s'",
                                (int)act->color, M->mesh->names[act->axis],
                                pp_shard_value_label(M->flat, nda->tensors[t].value, buf, sizeof buf),
                                M->mesh->names[act->axis]);
        }
        M->axes[nda->tensors[t].first + d] |= bit;
    }
    return PP_OK;
}

static pp_status check_divisible(const model *M, pp_error *err)
{
    const pp_shard_nda *nda = M->nda;
    for (int32_t x = 0; x < nda->n_names; x++) {
        int64_t n = axes_product(M->mesh, M->axes[x]);
        const pp_shard_type *ty = tensor_type(M, nda->name_tensor[x]);
        int64_t size = ty->dims[nda->name_dim[x]];
        if (n > 1 && (size < 0 || size % n != 0)) {
            char buf[160];
            return pp_error_set(err, PP_EINPUT, "dimension %d of %s has size %lld, not divisible by the %lld devices sharding it",
                                (int)nda->name_dim[x],
                                pp_shard_value_label(M->flat, nda->tensors[nda->name_tensor[x]].value, buf, sizeof buf),
                                (long long)size, (long long)n);
        }
    }
    return PP_OK;
}

static void add_collective(model *M, pp_shard_collective kind, int32_t axis, double bytes)
{
    pp_hw_link link = M->mesh->links[axis];
    int n = M->mesh->sizes[axis];
    if (n <= 1)
        return;
    double t = kind == PP_SHARD_ALL_REDUCE       ? pp_hw_allreduce_time(link, n, bytes)
               : kind == PP_SHARD_REDUCE_SCATTER ? pp_hw_reduce_scatter_time(link, n, bytes)
               : kind == PP_SHARD_ALL_GATHER     ? pp_hw_allgather_time(link, n, bytes)
                                                 : pp_hw_alltoall_time(link, n, bytes);
    M->cost->collectives[kind]++;
    M->cost->collective_bytes[kind] += bytes;
    M->cost->collective_time += t;
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

/* Bringing definition `def` to the layout of its use `use`. */
static void reshard(model *M, int32_t def, int32_t use)
{
    double bytes = local_bytes(M, def);
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        int32_t dd = dim_on_axis(M, def, a), du = dim_on_axis(M, use, a);
        if (dd >= 0 && du < 0)
            add_collective(M, PP_SHARD_ALL_GATHER, a, bytes * M->mesh->sizes[a]);
        else if (dd >= 0 && du != dd)
            add_collective(M, PP_SHARD_ALL_TO_ALL, a, bytes);
    }
}

/* Every use of value v has a dimension on axis a (and there is one). */
static bool uses_sharded(const model *M, int32_t v, int32_t a)
{
    int32_t first = M->use_first[v], end = M->use_first[v + 1];
    for (int32_t k = first; k < end; k++)
        if (dim_on_axis(M, M->use_list[k], a) < 0)
            return false;
    return end > first;
}

/* A partial sum over axis a of the op's result `res`: scattered when the
 * result, or every use of it, is sharded on a (the uses would slice it). */
static void partial_sum(model *M, int32_t res, int32_t a)
{
    if (dim_on_axis(M, res, a) >= 0)
        add_collective(M, PP_SHARD_REDUCE_SCATTER, a, local_bytes(M, res) * M->mesh->sizes[a]);
    else if (uses_sharded(M, res, a))
        add_collective(M, PP_SHARD_REDUCE_SCATTER, a, local_bytes(M, res));
    else
        add_collective(M, PP_SHARD_ALL_REDUCE, a, local_bytes(M, res));
}

static bool in_list(const pp_shard_ints *l, int64_t d)
{
    for (int32_t k = 0; k < l->n; k++)
        if (l->v[k] == d)
            return true;
    return false;
}

/* Contracted dimension pairs (lhs dim, rhs dim) sharded on axis a on both
 * sides make a partial sum; on one side only, that operand is gathered. */
static void contracted(model *M, int32_t lhs, int32_t rhs, int32_t res, const int64_t *ld, const int64_t *rd,
                       int32_t n)
{
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        bool both = false;
        for (int32_t k = 0; k < n; k++) {
            bool l = M->axes[M->nda->tensors[lhs].first + ld[k]] & (1u << a);
            bool r = M->axes[M->nda->tensors[rhs].first + rd[k]] & (1u << a);
            both |= l && r;
            if (l != r)
                add_collective(M, PP_SHARD_ALL_GATHER, a, local_bytes(M, l ? lhs : rhs) * M->mesh->sizes[a]);
        }
        if (both)
            partial_sum(M, res, a);
    }
}

static double dot_flops(model *M, const pp_shard_op *op, int32_t lhs, int32_t rhs, int32_t res)
{
    const pp_shard_dot_dims *dd = &op->dot;
    double f = 2;
    for (int32_t d = 0; d < M->nda->tensors[lhs].rank; d++)
        f *= (double)local_dim(M, lhs, d);
    for (int32_t d = 0; d < M->nda->tensors[rhs].rank; d++)
        if (!in_list(&dd->rhs_batch, d) && !in_list(&dd->rhs_contract, d))
            f *= (double)local_dim(M, rhs, d);
    for (int32_t k = 0; k < dd->lhs_contract.n; k++) {
        int64_t l = local_dim(M, lhs, (int32_t)dd->lhs_contract.v[k]);
        int64_t r = local_dim(M, rhs, (int32_t)dd->rhs_contract.v[k]);
        if (r > l) /* the lhs was gathered to match */
            f = f / (double)(l ? l : 1) * (double)r;
    }
    contracted(M, lhs, rhs, res, dd->lhs_contract.v, dd->rhs_contract.v, dd->lhs_contract.n);
    return f;
}

static double conv_flops(model *M, const pp_shard_op *op, int32_t lhs, int32_t rhs, int32_t res)
{
    const pp_shard_conv_dims *c = &op->conv;
    double out = 1, kernel = 1;
    for (int32_t d = 0; d < M->nda->tensors[res].rank; d++)
        out *= (double)local_dim(M, res, d);
    for (int32_t d = 0; d < M->nda->tensors[rhs].rank; d++)
        if (d != c->kernel_out)
            kernel *= (double)local_dim(M, rhs, d);
    contracted(M, lhs, rhs, res, &c->in_feature, &c->kernel_in, 1);
    return 2 * out * kernel;
}

static void reduced(model *M, const pp_shard_op *op, int32_t in, int32_t res)
{
    for (int32_t a = 0; a < M->mesh->n_axes; a++) {
        int32_t d = dim_on_axis(M, in, a);
        if (d >= 0 && in_list(&op->dims, d))
            partial_sum(M, res, a);
    }
}

/* Dimension d of operand k is summed over by the op (contracted or reduced). */
static bool summed(const pp_shard_op *op, int32_t k, int32_t d)
{
    switch (op->kind) {
    case PP_SHARD_OP_DOT_GENERAL:
        return in_list(k == 0 ? &op->dot.lhs_contract : &op->dot.rhs_contract, d);
    case PP_SHARD_OP_CONVOLUTION:
        return d == (k == 0 ? op->conv.in_feature : op->conv.kernel_in);
    case PP_SHARD_OP_REDUCE:
        return k < op->n_results && in_list(&op->dims, d);
    default:
        return false;
    }
}

/* An operand sharded on an axis that no result of the op is sharded on
 * (a reshape that merges a sharded dimension, an opaque op): the op needs
 * the whole operand along that axis, so it is gathered first. */
static void gather_lost_axes(model *M, const pp_shard_op *op, const pp_shard_flat_op *fo, int32_t use)
{
    uint8_t kept = 0;
    for (int32_t k = 0; k < op->n_results; k++)
        kept |= tensor_axes(M, fo->results[k]);
    for (int32_t k = 0; k < op->n_operands; k++)
        for (int32_t a = 0; a < M->mesh->n_axes; a++) {
            int32_t d = dim_on_axis(M, use + k, a);
            if (d >= 0 && !(kept & (1u << a)) && !summed(op, k, d))
                add_collective(M, PP_SHARD_ALL_GATHER, a, local_bytes(M, use + k) * M->mesh->sizes[a]);
        }
}

static void cost_op(model *M, int32_t i)
{
    const pp_shard_flat_op *fo = &M->flat->ops[i];
    const pp_shard_op *op = &M->flat->module->funcs[fo->func].ops[fo->op];
    int32_t use = M->nda->op_use[i];
    double bytes = 0, flops = 0;
    for (int32_t k = 0; k < op->n_operands; k++) {
        reshard(M, fo->operands[k], use + k);
        bytes += local_bytes(M, use + k);
    }
    for (int32_t k = 0; k < op->n_results; k++)
        bytes += local_bytes(M, fo->results[k]);
    if (op->kind == PP_SHARD_OP_DOT_GENERAL && op->n_operands == 2)
        flops = dot_flops(M, op, use, use + 1, fo->results[0]);
    else if (op->kind == PP_SHARD_OP_CONVOLUTION && op->n_operands == 2)
        flops = conv_flops(M, op, use, use + 1, fo->results[0]);
    else if (op->kind == PP_SHARD_OP_REDUCE && op->n_operands >= 2)
        for (int32_t k = 0; k < op->n_results && k < op->n_operands; k++)
            reduced(M, op, use + k, fo->results[k]);
    gather_lost_axes(M, op, fo, use);
    double t = pp_hw_op_time(M->mesh->device, flops, bytes);
    M->cost->flops += flops;
    M->cost->compute_time += t;
}

static double peak_memory(const model *M)
{
    const pp_shard_flat *flat = M->flat;
    int32_t n = flat->n_ops;
    int32_t *last = malloc(sizeof *last * (size_t)(flat->n_values ? flat->n_values : 1));
    double *delta = calloc((size_t)n + 2, sizeof *delta);
    if (!last || !delta) {
        free(last);
        free(delta);
        return NAN;
    }
    for (int32_t v = 0; v < flat->n_values; v++)
        last[v] = flat->values[v].op;
    for (int32_t i = 0; i < n; i++) {
        int32_t n_operands = flat->module->funcs[flat->ops[i].func].ops[flat->ops[i].op].n_operands;
        for (int32_t k = 0; k < n_operands; k++)
            last[flat->ops[i].operands[k]] = i;
    }
    for (int32_t k = 0; k < flat->n_outputs; k++)
        last[flat->outputs[k]] = n;
    double args = 0;
    for (int32_t v = 0; v < flat->n_values; v++) {
        double b = local_bytes(M, v);
        if (flat->values[v].op < 0) {
            args += b;
            continue;
        }
        int32_t end = last[v] > flat->values[v].op ? last[v] : flat->values[v].op;
        delta[flat->values[v].op] += b;
        delta[end + 1] -= b;
    }
    double live = 0, peak = 0;
    for (int32_t i = 0; i <= n; i++) {
        live += delta[i];
        if (live > peak)
            peak = live;
    }
    free(last);
    free(delta);
    return args + peak;
}

static bool index_uses(model *M)
{
    const pp_shard_nda *nda = M->nda;
    int32_t nv = M->flat->n_values;
    M->use_first = calloc((size_t)nv + 1, sizeof *M->use_first);
    M->use_list = malloc(sizeof *M->use_list * (size_t)(nda->n_tensors - nv + 1));
    if (!M->use_first || !M->use_list)
        return false;
    for (int32_t t = nv; t < nda->n_tensors; t++)
        M->use_first[nda->tensors[t].value]++;
    for (int32_t v = 1; v <= nv; v++)
        M->use_first[v] += M->use_first[v - 1]; /* now the end of each value's uses */
    for (int32_t t = nda->n_tensors - 1; t >= nv; t--)
        M->use_list[--M->use_first[nda->tensors[t].value]] = t;
    return true;
}

pp_status pp_shard_cost_eval(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                             const pp_shard_state *state, pp_shard_cost *out, pp_error *err)
{
    pp_shard_cost cost;
    memset(&cost, 0, sizeof cost);
    model M = {flat, nda, mesh, calloc((size_t)nda->n_names + 1, 1), &cost, NULL, NULL};
    pp_status st = PP_OK;
    if (!M.axes || !index_uses(&M))
        st = pp_error_set(err, PP_ENOMEM, "cost model: out of memory");
    for (int32_t k = 0; st == PP_OK && k < state->n; k++)
        st = apply_action(&M, &state->actions[k], err);
    if (st == PP_OK)
        st = check_divisible(&M, err);
    if (st == PP_OK) {
        for (int32_t i = 0; i < flat->n_ops; i++)
            cost_op(&M, i);
        for (int32_t k = 0; k < flat->n_outputs; k++)
            reshard(&M, flat->outputs[k], nda->out_use + k);
        cost.peak_memory = peak_memory(&M);
        cost.runtime = cost.compute_time + cost.collective_time;
        *out = cost;
    }
    free(M.axes);
    free(M.use_first);
    free(M.use_list);
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
