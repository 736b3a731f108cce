/* roles.c: the batch color (which the baselines shard as the batch): the
 * leading dimension of the first entry result whose leading dimension an
 * integer argument (the token ids) also holds; else, when no result has one
 * (a training step returns its updated weights), the token ids' leading
 * dimension; else (an image model, floating inputs only) the first result's
 * leading dimension. And what each argument
 * of the entry is to the model, by one stated rule, never by position (JAX
 * flattens the parameters' pytree first, but exporters differ, and
 * Mixtral's token ids come among its weights):
 *   token ids:  an argument of integer (or boolean) element type: indices
 *               and masks, never weights;
 *   activation: a floating argument with a dimension of the batch color;
 *   parameter:  every other floating argument.
 * The baselines shard parameters only as parameters; --explain prints the
 * roles. */
#include <string.h>
#include "parplan/shard.h"
#include "shard/shard_internal.h"

static bool is_float(const char *elem)
{
    return elem[0] == 'f' || strcmp(elem, "bf16") == 0 || strncmp(elem, "complex", 7) == 0;
}

static bool is_ids(const pp_shard_flat *flat, int32_t arg)
{
    const pp_shard_type *t = &flat->values[arg].type;
    return t->rank >= 1 && !is_float(t->elem);
}

/* Color c is a dimension of some token-id argument. */
static bool on_ids(const pp_shard_nda *nda, int32_t c)
{
    for (int32_t a = 0; a < nda->flat->n_inputs; a++)
        for (int32_t d = 0; is_ids(nda->flat, a) && d < nda->tensors[a].rank; d++)
            if (nda->color[nda->tensors[a].first + d] == c)
                return true;
    return false;
}

int32_t pp_shard_batch_color(const pp_shard_nda *nda)
{
    const pp_shard_flat *flat = nda->flat;
    for (int32_t k = 0; k < flat->n_outputs; k++) {
        const pp_shard_nda_tensor *T = &nda->tensors[flat->outputs[k]];
        if (T->rank >= 1 && on_ids(nda, nda->color[T->first]))
            return nda->color[T->first];
    }
    for (int32_t a = 0; a < flat->n_inputs; a++)
        if (is_ids(flat, a))
            return nda->color[nda->tensors[a].first];
    if (flat->n_outputs < 1 || nda->tensors[flat->outputs[0]].rank < 1)
        return -1;
    return nda->color[nda->tensors[flat->outputs[0]].first];
}

pp_shard_role pp_shard_arg_role(const pp_shard_nda *nda, int32_t arg)
{
    const pp_shard_type *t = &nda->flat->values[arg].type;
    if (t->rank < 0 || !is_float(t->elem))
        return PP_SHARD_ROLE_TOKENS;
    int32_t batch = pp_shard_batch_color(nda);
    const pp_shard_nda_tensor *T = &nda->tensors[arg];
    for (int32_t d = 0; batch >= 0 && d < T->rank; d++)
        if (nda->color[T->first + d] == batch)
            return PP_SHARD_ROLE_ACTIVATION;
    return PP_SHARD_ROLE_PARAMETER;
}

const char *pp_shard_role_name(pp_shard_role role)
{
    switch (role) {
    case PP_SHARD_ROLE_PARAMETER: return "parameter";
    case PP_SHARD_ROLE_ACTIVATION: return "activation";
    default: return "token ids";
    }
}
