/* baseline.c: the expert shardings the search is compared with, written as
 * states of the cost model (paper 004 section 5's baselines).
 *
 * How the colors are picked, as a user would:
 * - batch: the color of the leading dimension of the entry's first result.
 *   Not the first argument's: JAX flattens the parameters' pytree first, so
 *   in searchless_chess_9m argument 0 is the embedding table;
 * - Megatron: the colors that one dot_general has as a free dimension of a
 *   parameter (column-parallel: w1's hidden, the heads of q/k/v) and another
 *   contracts on a parameter (row-parallel: w2's hidden, the heads of the
 *   output projection), never contracted between two activations (that is
 *   attention's head_dim in q.k) and not the batch. A parameter is an entry
 *   argument, possibly through convert, reshape, transpose or
 *   broadcast_in_dim. When the model has repeated layers, only colors local
 *   to one copy count: the residual width d_model passes the same test but
 *   is one color through every layer, and Megatron keeps it replicated. */
#include <stdlib.h>
#include <string.h>
#include "parplan/shard.h"
#include "shard_internal.h"

int32_t pp_shard_batch_color(const pp_shard_nda *nda)
{
    const pp_shard_flat *flat = nda->flat;
    if (flat->n_outputs < 1 || nda->tensors[flat->outputs[0]].rank < 1)
        return -1;
    return nda->color[nda->tensors[flat->outputs[0]].first];
}

static void push(pp_shard_state *s, int32_t color, int32_t axis)
{
    if (s->n < PP_SHARD_MAX_ACTIONS)
        s->actions[s->n++] = (pp_shard_action){color, axis, NULL};
}

pp_status pp_shard_baseline_data_parallel(const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                          pp_shard_state *out, pp_error *err)
{
    int32_t b = pp_shard_batch_color(nda);
    if (b < 0)
        return pp_error_set(err, PP_EINPUT, "data parallel: the entry has no result with a leading (batch) dimension");
    memset(out, 0, sizeof *out);
    for (int32_t a = 0; a < mesh->n_axes; a++)
        push(out, b, a);
    return PP_OK;
}

static bool is_param(const pp_shard_flat *flat, int32_t v)
{
    while (flat->values[v].op >= 0) {
        int32_t i = flat->values[v].op;
        pp_shard_op_kind k = pp_shard_flat_op_of(flat, i)->kind;
        if (k != PP_SHARD_OP_CONVERT && k != PP_SHARD_OP_RESHAPE && k != PP_SHARD_OP_TRANSPOSE &&
            k != PP_SHARD_OP_BROADCAST_IN_DIM)
            return false;
        v = flat->ops[i].operands[0];
    }
    return true;
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
        bool pl = is_param(flat, flat->ops[i].operands[0]), pr = is_param(flat, flat->ops[i].operands[1]);
        mark_side(nda, nda->op_use[i], &op->dot.lhs_batch, &op->dot.lhs_contract, pl, pr, marks);
        mark_side(nda, nda->op_use[i] + 1, &op->dot.rhs_batch, &op->dot.rhs_contract, pr, pl, marks);
    }
}

static void mark_local(const pp_shard_nda *nda, uint8_t *marks)
{
    if (nda->n_layer_groups == 0) {
        for (int32_t c = 0; c < nda->n_colors; c++)
            marks[c] |= LOCAL;
        return;
    }
    const pp_shard_nda_layers *g = &nda->layer_groups[0];
    for (int32_t k = 0; k < g->copies * g->n_copy_colors; k++)
        if (g->color_map[k] >= 0)
            marks[g->color_map[k]] |= LOCAL;
}

pp_status pp_shard_baseline_megatron(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err)
{
    uint8_t *marks = calloc((size_t)nda->n_colors + 1, 1);
    if (!marks)
        return pp_error_set(err, PP_ENOMEM, "megatron: out of memory");
    mark_dots(nda, marks);
    mark_local(nda, marks);
    int32_t batch = pp_shard_batch_color(nda);
    memset(out, 0, sizeof *out);
    for (int32_t c = 0; c < nda->n_colors; c++)
        if (c != batch && marks[c] == (FREE_PARAM | CONTRACT_PARAM | LOCAL))
            push(out, c, mesh->n_axes - 1);
    free(marks);
    if (out->n == 0)
        return pp_error_set(err, PP_EINPUT, "megatron: no MLP hidden or attention heads color (free in one parameter's matmul, contracted in another's)");
    return PP_OK;
}

pp_status pp_shard_baseline_combined(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err)
{
    if (mesh->n_axes < 2)
        return pp_error_set(err, PP_EINPUT, "data parallel + megatron needs a 2-D mesh, got %d axis", (int)mesh->n_axes);
    pp_status st = pp_shard_baseline_megatron(nda, mesh, out, err);
    int32_t b = pp_shard_batch_color(nda);
    if (st == PP_OK && b < 0)
        return pp_error_set(err, PP_EINPUT, "data parallel: the entry has no result with a leading (batch) dimension");
    if (st == PP_OK)
        push(out, b, 0);
    return st;
}
