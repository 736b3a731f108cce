/* backward.c: whether the module already holds its backward pass (issue
 * 31 item 8). The rule: a training step, as jax.grad or an optimizer step
 * exports it, returns for each parameter a tensor of that parameter's type
 * (its gradient, or its updated value), computed by the module, not the
 * argument handed back. When such results match parameters holding at least
 * half of the parameters' bytes (each result matched to one parameter), the
 * module holds its backward: no second backward is added, and the module is
 * one stage (its cut points would part a layer's forward from its
 * backward, which runs at the module's other end). A forward pass returns
 * activations and logits, which are not of its weights' types; a few small
 * parameter-shaped results (a batch norm's running statistics, of its
 * scale's shape) stay under half the bytes. */
#include <stdlib.h>
#include <string.h>
#include "plan/plan_internal.h"
#include "shard/shard_internal.h"

bool plan_holds_backward(const plan_ctx *X, int32_t *matched, int32_t *parameters)
{
    const pp_shard_flat *flat = X->a.flat;
    bool *taken = calloc((size_t)flat->n_outputs + 1, sizeof *taken);
    double bytes = 0, matched_bytes = 0;
    *matched = *parameters = 0;
    if (!taken)
        return false;
    for (int32_t v = 0; v < flat->n_inputs; v++) {
        const pp_shard_type *t = &flat->values[v].type;
        if (t->rank < 0 || pp_shard_arg_role(X->a.nda, v) != PP_SHARD_ROLE_PARAMETER)
            continue;
        double b = (double)pp_shard_type_elements(t) * (t->bits > 0 ? t->bits : 32) / 8;
        bytes += b;
        (*parameters)++;
        for (int32_t k = 0; k < flat->n_outputs; k++) {
            int32_t o = flat->outputs[k];
            if (!taken[k] && o >= flat->n_inputs && pp_shard_type_equal(&flat->values[o].type, t)) {
                taken[k] = true;
                matched_bytes += b;
                (*matched)++;
                break;
            }
        }
    }
    free(taken);
    return *parameters > 0 && matched_bytes >= 0.5 * bytes;
}
