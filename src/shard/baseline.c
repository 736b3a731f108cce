/* baseline.c: the expert shardings the search is compared with, written as
 * states of the cost model (paper 004 section 5's baselines).
 *
 * How the colors are picked, as a user would:
 * - batch: roles.c's batch color, the color of the leading dimension of the
 *   entry's first result. Not the first argument's: JAX flattens the
 *   parameters' pytree first, so in searchless_chess_9m argument 0 is the
 *   embedding table;
 * - Megatron: the colors that one dot_general has as a free dimension of a
 *   parameter (column-parallel: w1's hidden, the heads of q/k/v) and another
 *   contracts on a parameter (row-parallel: w2's hidden, the heads of the
 *   output projection), never contracted between two activations (that is
 *   attention's head_dim in q.k) and not the batch. A parameter is an entry
 *   argument, possibly through convert, reshape, transpose or
 *   broadcast_in_dim. When the model has repeated layers, only colors local
 *   to one copy count: the residual width d_model passes the same test but
 *   is one color through every layer, and Megatron keeps it replicated.
 *   Two such colors on one weight (a lone MoE layer's d_model and MLP
 *   width) cannot share the axis: the wider is taken; a color on the
 *   entry's output (the residual width) is never taken. Colors a reshape
 *   splits or merges (a projection's output and the heads it is reshaped
 *   into, as PyTorch exports attention) count as one, the group qualifying
 *   on the marks of all its colors. The embedding table is split along
 *   the vocabulary it is indexed by (the gathered dimension of a parameter)
 *   as Megatron-LM section 3 does, when the axis divides it (Megatron pads
 *   the vocabulary to a multiple instead; a model's own size is kept here):
 *   each device looks up its rows and the results are all-reduced; a head
 *   tied to the table then computes its logits split by vocabulary, as
 *   Megatron's parallel output GEMM. Layer norms and the residual width stay
 *   replicated, as the paper duplicates them;
 * - expert parallelism: the expert color, a batching dimension of a matmul
 *   with a parameter (MoE weights [E, d, h]), over the first axis;
 * - FSDP: data parallelism over every axis, and each parameter stored
 *   sharded over them (its widest dividing dimension per axis) while its
 *   uses stay whole, so the cost model gathers it where it is used.
 * Parameters are told from activations and token ids by roles.c's rule. */
#include <stdlib.h>
#include <string.h>
#include "parplan/shard.h"
#include "shard/shard_internal.h"

static bool push(pp_shard_state *s, int32_t color, int32_t axis)
{
    return pp_shard_state_push(s, (pp_shard_action){color, axis, NULL}, NULL) == PP_OK;
}

static pp_status out_of_memory(const char *name, pp_error *err)
{
    return pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
}

pp_status pp_shard_baseline_data_parallel(const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                          pp_shard_state *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t b = pp_shard_batch_color(nda);
    if (b < 0)
        return pp_error_set(err, PP_EINPUT, "data parallel: the entry has no result with a leading (batch) dimension");
    for (int32_t a = 0; a < mesh->n_axes; a++)
        if (!push(out, b, a))
            return out_of_memory("data parallel", err);
    return PP_OK;
}

/* A parameter of the entry (roles.c's rule), possibly through convert,
 * reshape, transpose or broadcast_in_dim. */
static bool is_param(const pp_shard_nda *nda, int32_t v)
{
    const pp_shard_flat *flat = nda->flat;
    while (flat->values[v].op >= 0) {
        int32_t i = flat->values[v].op;
        pp_shard_op_kind k = pp_shard_flat_op_of(flat, i)->kind;
        if (k != PP_SHARD_OP_CONVERT && k != PP_SHARD_OP_RESHAPE && k != PP_SHARD_OP_TRANSPOSE &&
            k != PP_SHARD_OP_BROADCAST_IN_DIM)
            return false;
        v = flat->ops[i].operands[0];
    }
    return pp_shard_arg_role(nda, v) == PP_SHARD_ROLE_PARAMETER;
}

enum { FREE_PARAM = 1, CONTRACT_PARAM = 2, CONTRACT_ACT = 4, LOCAL = 8 };

static void mark_side(const pp_shard_nda *nda, int32_t t, const pp_shard_ints *batch, const pp_shard_ints *contract,
                      bool param, bool other_param, uint8_t *marks)
{
    for (int32_t d = 0; d < nda->tensors[t].rank; d++) {
        int32_t c = nda->color[nda->tensors[t].first + d];
        if (shard_ints_has(contract, d))
            marks[c] |= param || other_param ? CONTRACT_PARAM : CONTRACT_ACT;
        else if (param && !shard_ints_has(batch, d))
            marks[c] |= FREE_PARAM;
    }
}

static void mark_dots(const pp_shard_nda *nda, uint8_t *marks)
{
    const pp_shard_flat *flat = nda->flat;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        if (op->kind != PP_SHARD_OP_DOT_GENERAL || op->n_operands != 2)
            continue;
        bool pl = is_param(nda, flat->ops[i].operands[0]), pr = is_param(nda, flat->ops[i].operands[1]);
        mark_side(nda, nda->op_use[i], &op->dot.lhs_batch, &op->dot.lhs_contract, pl, pr, marks);
        mark_side(nda, nda->op_use[i] + 1, &op->dot.rhs_batch, &op->dot.rhs_contract, pr, pl, marks);
    }
}

/* Local to a layer: a color within one copy of the first layer group, or
 * one whose parameters all belong to one layer: first used in the same copy
 * of the same group (a training step's MLP width, which its layer's
 * backward pass and weight update reach too, far from the forward copy). */
static bool mark_local(const pp_shard_nda *nda, uint8_t *marks)
{
    if (nda->n_layer_groups == 0) {
        for (int32_t c = 0; c < nda->n_colors; c++)
            marks[c] |= LOCAL;
        return true;
    }
    const pp_shard_nda_layers *g = &nda->layer_groups[0];
    for (int32_t k = 0; k < g->copies * g->n_copy_colors; k++)
        if (g->color_map[k] >= 0)
            marks[g->color_map[k]] |= LOCAL;
    const pp_shard_flat *flat = nda->flat;
    int64_t *layer = malloc(sizeof *layer * ((size_t)flat->n_inputs + 1)); /* per argument, group * 2^32 + copy */
    int64_t *home = malloc(sizeof *home * ((size_t)nda->n_colors + 1));
    if (!layer || !home) {
        free(layer);
        free(home);
        return false;
    }
    enum { NONE = -1, SEVERAL = -2, OUTSIDE = -3 };
    for (int32_t a = 0; a < flat->n_inputs; a++)
        layer[a] = NONE;
    for (int32_t gi = 0; gi < nda->n_layer_groups; gi++) {
        const pp_shard_nda_layers *G = &nda->layer_groups[gi];
        for (int32_t i = G->starts[0]; i < G->starts[0] + G->copies * G->length; i++)
            for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
                int32_t v = flat->ops[i].operands[k];
                if (v < flat->n_inputs && (layer[v] == NONE || i < (int32_t)(layer[v] >> 40)))
                    layer[v] = ((int64_t)i << 40) | ((int64_t)gi << 20) | ((i - G->starts[0]) / G->length);
            }
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        home[c] = NONE;
    for (int32_t a = 0; a < flat->n_inputs; a++) {
        if (pp_shard_arg_role(nda, a) != PP_SHARD_ROLE_PARAMETER)
            continue;
        int64_t at = layer[a] == NONE ? OUTSIDE : layer[a] & ((INT64_C(1) << 40) - 1); /* its first use's copy */
        for (int32_t d = 0; d < nda->tensors[a].rank; d++) {
            int64_t *h = &home[nda->color[nda->tensors[a].first + d]];
            *h = *h == NONE || *h == at ? at : SEVERAL;
        }
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        if (home[c] >= 0)
            marks[c] |= LOCAL;
    free(layer);
    free(home);
    return true;
}

/* Colors joined across reshapes (find with the path halved). */
static int32_t group_of(int32_t *group, int32_t c)
{
    while (group[c] != c)
        c = group[c] = group[group[c]];
    return c;
}

/* A reshape that splits a dimension (32 -> 4 x 8) or merges dimensions
 * (4 x 8 -> 32) starting at the same point: the whole and its major factor
 * shard alike (the cost model keeps the axis there), so for Megatron they
 * are one group: the heads of a PyTorch export, which appear only after a
 * projection's output is reshaped, go with that output and with the input
 * of the output projection. */
static void join_reshapes(const pp_shard_nda *nda, int32_t *group)
{
    const pp_shard_flat *flat = nda->flat;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        if (pp_shard_flat_op_of(flat, i)->kind != PP_SHARD_OP_RESHAPE)
            continue;
        int32_t use = nda->op_use[i], def = flat->ops[i].results[0];
        const pp_shard_type *a = &flat->values[flat->ops[i].operands[0]].type, *b = &flat->values[def].type;
        int64_t pa = 1, pb = 1;
        for (int32_t x = 0, y = 0; x < a->rank && y < b->rank;) {
            int64_t sa = a->dims[x], sb = b->dims[y];
            if (pa == pb && sa > 1 && sb > 1 && sa != sb && (sa % sb == 0 || sb % sa == 0)) {
                int32_t ca = group_of(group, nda->color[nda->tensors[use].first + x]);
                int32_t cb = group_of(group, nda->color[nda->tensors[def].first + y]);
                group[ca > cb ? ca : cb] = ca > cb ? cb : ca;
            }
            if (pa * sa <= pb * sb)
                pa *= a->dims[x++];
            else
                pb *= b->dims[y++];
        }
    }
}

/* A tensor holding a color of group g and a taken color. */
static bool meets_taken(const pp_shard_nda *nda, int32_t *group, int32_t g, const uint8_t *taken)
{
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        bool has_g = false, has_taken = false;
        for (int32_t d = 0; d < nda->tensors[t].rank; d++) {
            int32_t x = nda->color[nda->tensors[t].first + d];
            has_g |= group_of(group, x) == g;
            has_taken |= taken[x] != 0;
        }
        if (has_g && has_taken)
            return true;
    }
    return false;
}

/* The candidate groups (marks[g] on a group's root) on one axis, the group
 * with the widest color first, skipping any that shares a tensor with one
 * taken: one axis cannot shard two dimensions of a tensor, and when a weight
 * holds two candidates Megatron shards the wider, the MLP's. False when out
 * of memory. */
static bool pick_apart(const pp_shard_nda *nda, int32_t *group, const uint8_t *marks, int32_t axis,
                       pp_shard_state *out)
{
    uint8_t *taken = calloc((size_t)nda->n_colors + 1, 1), *seen = calloc((size_t)nda->n_colors + 1, 1);
    bool room = taken && seen;
    for (bool more = room; more;) {
        int32_t best = -1;
        for (int32_t c = 0; c < nda->n_colors; c++) {
            int32_t g = group_of(group, c);
            if (marks[g] && !seen[g] && (best < 0 || nda->colors[c].size > nda->colors[best].size))
                best = c;
        }
        more = best >= 0;
        int32_t g = more ? group_of(group, best) : -1;
        bool apart = more && !meets_taken(nda, group, g, taken);
        for (int32_t c = 0; apart && c < nda->n_colors; c++)
            if (group_of(group, c) == g) {
                room = room && push(out, c, axis);
                taken[c] = 1;
            }
        if (more)
            seen[g] = 1;
    }
    free(taken);
    free(seen);
    return room;
}

/* The vocabulary of each embedding table (the indexed, collapsed dimension
 * of a gather from a parameter) that the axis divides, onto the axis. */
static bool split_vocabulary(const pp_shard_nda *nda, const pp_shard_mesh *mesh, int32_t axis, pp_shard_state *out)
{
    const pp_shard_flat *flat = nda->flat;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        if (op->kind != PP_SHARD_OP_GATHER || op->n_operands < 2 || !is_param(nda, flat->ops[i].operands[0]))
            continue;
        const pp_shard_nda_tensor *T = &nda->tensors[nda->op_use[i]];
        for (int32_t d = 0; d < T->rank; d++) {
            int32_t c = nda->color[T->first + d];
            bool have = false;
            for (int32_t k = 0; k < out->n; k++)
                have |= out->actions[k].color == c && out->actions[k].axis == axis;
            if (!have && shard_ints_has(&op->gather.collapsed_slice_dims, d) &&
                shard_ints_has(&op->gather.start_index_map, d) && nda->colors[c].size % mesh->sizes[axis] == 0 &&
                !push(out, c, axis))
                return false;
        }
    }
    return true;
}

/* NOT_MEGATRON: a color on an entry output holding the batch (the residual
 * width reaches it; Megatron keeps it whole; a training step's updated
 * weights are outputs too, without the batch), not local to a layer, or
 * the batch. */
enum { NOT_MEGATRON = 16 };

static void mark_excluded(const pp_shard_nda *nda, uint8_t *marks)
{
    int32_t batch = pp_shard_batch_color(nda);
    for (int32_t k = 0; k < nda->flat->n_outputs; k++) {
        const pp_shard_nda_tensor *T = &nda->tensors[nda->out_use + k];
        bool activation = batch < 0;
        for (int32_t d = 0; d < T->rank; d++)
            activation |= nda->color[T->first + d] == batch;
        for (int32_t d = 0; activation && d < T->rank; d++)
            marks[nda->color[T->first + d]] |= NOT_MEGATRON;
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        if (c == batch || !(marks[c] & LOCAL))
            marks[c] |= NOT_MEGATRON;
}

pp_status pp_shard_baseline_megatron(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *marks = calloc((size_t)nda->n_colors + 1, 1), *joined = calloc((size_t)nda->n_colors + 1, 1);
    int32_t *group = malloc(((size_t)nda->n_colors + 1) * sizeof *group);
    bool room = marks && joined && group;
    for (int32_t c = 0; room && c < nda->n_colors; c++)
        group[c] = c;
    if (room) {
        join_reshapes(nda, group);
        mark_dots(nda, marks);
        room = mark_local(nda, marks);
        mark_excluded(nda, marks);
        for (int32_t c = 0; c < nda->n_colors; c++)
            joined[group_of(group, c)] |= marks[c];
        for (int32_t c = 0; c < nda->n_colors; c++)
            joined[c] = group_of(group, c) == c && (joined[c] & ~LOCAL) == (FREE_PARAM | CONTRACT_PARAM);
        room = room && pick_apart(nda, group, joined, mesh->n_axes - 1, out) && (out->n == 0 ||
               split_vocabulary(nda, mesh, mesh->n_axes - 1, out));
    }
    free(marks);
    free(joined);
    free(group);
    if (!room)
        return out_of_memory("megatron", err);
    if (out->n == 0)
        return pp_error_set(err, PP_EINPUT, "megatron: no MLP hidden or attention heads color (free in one parameter's matmul, contracted in another's)");
    return PP_OK;
}

pp_status pp_shard_baseline_combined(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err)
{
    memset(out, 0, sizeof *out);
    if (mesh->n_axes < 2)
        return pp_error_set(err, PP_EINPUT, "data parallel + megatron needs a 2-D mesh, got %d axis", (int)mesh->n_axes);
    pp_status st = pp_shard_baseline_megatron(nda, mesh, out, err);
    int32_t b = pp_shard_batch_color(nda);
    if (st == PP_OK && b < 0)
        return pp_error_set(err, PP_EINPUT, "data parallel: the entry has no result with a leading (batch) dimension");
    if (st == PP_OK && !push(out, b, 0))
        return out_of_memory("data parallel + megatron", err);
    return st;
}

/* The expert color: a batching dimension of a dot_general one of whose
 * operands is a parameter (the expert weights [E, d, h]); the widest such. */
static int32_t expert_color(const pp_shard_nda *nda)
{
    const pp_shard_flat *flat = nda->flat;
    int32_t best = -1;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        if (op->kind != PP_SHARD_OP_DOT_GENERAL || op->n_operands != 2)
            continue;
        for (int32_t side = 0; side < 2; side++) {
            const pp_shard_ints *batch = side ? &op->dot.rhs_batch : &op->dot.lhs_batch;
            if (!is_param(nda, flat->ops[i].operands[side]))
                continue;
            for (int32_t k = 0; k < batch->n; k++) {
                int32_t c = nda->color[nda->tensors[nda->op_use[i] + side].first + batch->v[k]];
                if (nda->colors[c].size > 1 && (best < 0 || nda->colors[c].size > nda->colors[best].size))
                    best = c;
            }
        }
    }
    return best;
}

pp_status pp_shard_baseline_expert(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                   pp_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t e = expert_color(nda);
    if (e < 0)
        return pp_error_set(err, PP_EINPUT, "expert parallel: no expert dimension (no matmul batched over a "
                                            "dimension of a parameter, as an MoE layer's experts are)");
    return push(out, e, 0) ? PP_OK : out_of_memory("expert parallel", err);
}

/* One more axis on the dimension of parameter tensor t that keeps the
 * largest local size and still divides; false when none divides. */
static bool shard_param_dim(const pp_shard_nda *nda, const pp_shard_mesh *mesh, int32_t t, int32_t axis,
                            uint8_t *axes)
{
    const pp_shard_nda_tensor *T = &nda->tensors[t];
    const pp_shard_type *type = &nda->flat->values[T->value].type;
    int32_t best = -1;
    int64_t best_local = 0;
    for (int32_t d = 0; d < T->rank; d++) {
        uint8_t with = (uint8_t)(axes[T->first + d] | 1u << axis);
        int64_t devices = shard_axes_devices(mesh, with);
        if (type->dims[d] % devices == 0 && type->dims[d] / devices > best_local) {
            best = d;
            best_local = type->dims[d] / devices;
        }
    }
    if (best >= 0)
        axes[T->first + best] |= (uint8_t)(1u << axis);
    return best >= 0;
}

pp_status pp_shard_baseline_fsdp(const pp_shard_nda *nda, const pp_shard_mesh *mesh, uint8_t *axes, pp_error *err)
{
    int32_t params = 0;
    for (int32_t k = 0; k < nda->flat->n_inputs; k++)
        params += pp_shard_arg_role(nda, k) == PP_SHARD_ROLE_PARAMETER;
    if (params == 0)
        return pp_error_set(err, PP_EINPUT, "fsdp: no entry argument is a parameter (floating, without the batch "
                                            "dimension): the weights are constants of the module");
    pp_shard_state dp;
    pp_status st = pp_shard_baseline_data_parallel(nda, mesh, &dp, err);
    if (st == PP_OK)
        st = pp_shard_state_layout(nda, mesh, &dp, axes, err);
    pp_shard_state_free(&dp);
    if (st != PP_OK)
        return st;
    int32_t sharded = 0;
    for (int32_t k = 0; k < nda->flat->n_inputs; k++)
        if (pp_shard_arg_role(nda, k) == PP_SHARD_ROLE_PARAMETER)
            for (int32_t a = 0; a < mesh->n_axes; a++)
                sharded += shard_param_dim(nda, mesh, k, a, axes);
    if (sharded == 0)
        return pp_error_set(err, PP_EINPUT, "fsdp: no parameter has a dimension the mesh's axes divide");
    return PP_OK;
}
