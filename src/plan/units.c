/* units.c: the module's layer graph for the stage search. The sharder's
 * repeated-layer detection (nda->layer_groups, the group covering most ops
 * first) gives the layers; each copy is a unit, and so is each stretch of
 * ops before, between and after the copies. Cut points lie between units
 * only. A module with no repeated layers is one unit, and the report says
 * why; so is a module that holds its backward pass (backward.c).
 *
 * A unit, or a run of them (a stage), also becomes a module of its own
 * (plan_units_part), built
 * on the public flat view: its ops with operands and results renumbered,
 * the values it reads from outside as its inputs, those read after it or
 * returned as its outputs. The sharder analyses and plans it as it would
 * a file. (This belongs in src/shard, as a sub-module call; it is here
 * until the sharder has one.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan_internal.h"

static double value_bytes(const plan_ctx *X, int32_t v)
{
    const pp_shard_type *t = &X->a.flat->values[v].type;
    double bits = t->bits > 0 ? t->bits : 32;
    if (X->req->precision == PP_SHARD_PRECISION_BF16 && strcmp(t->elem, "f32") == 0)
        bits = 16;
    return (double)pp_shard_type_elements(t) * bits / 8;
}

static bool add_unit(plan_ctx *X, int32_t *cap, int32_t first, int32_t end, int32_t kind)
{
    if (end <= first)
        return true;
    if (X->n_units == *cap) {
        *cap *= 2;
        plan_unit *u = pp_arena_alloc(X->arena, (size_t)*cap * sizeof *u);
        if (!u)
            return false;
        memcpy(u, X->units, (size_t)X->n_units * sizeof *u);
        X->units = u;
    }
    X->units[X->n_units++] = (plan_unit){first, end - first, kind};
    return true;
}

/* A stretch before, between or after the layer copies: a kind of its own
 * when it holds ops (kinds are numbered densely: cost.c prices each). */
static bool add_stretch(plan_ctx *X, int32_t *cap, int32_t first, int32_t end, int32_t *kinds)
{
    return end <= first || add_unit(X, cap, first, end, (*kinds)++);
}

/* Bytes crossing each cut: a value defined in a unit up to u and read by
 * an op of a later unit crosses the cut after u. */
static void measure_sends(plan_ctx *X, const int32_t *unit_of)
{
    const pp_shard_flat *flat = X->a.flat;
    int32_t *last = calloc((size_t)flat->n_values, sizeof *last);
    if (!last)
        return;
    for (int32_t i = 0; i < flat->n_ops; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
            int32_t v = flat->ops[i].operands[k];
            if (unit_of[i] > last[v])
                last[v] = unit_of[i];
        }
    for (int32_t v = flat->n_inputs; v < flat->n_values; v++) {
        int32_t from = unit_of[flat->values[v].op];
        for (int32_t u = from; u < last[v]; u++)
            X->send[u] += value_bytes(X, v);
    }
    free(last);
}

pp_status plan_units(plan_ctx *X, pp_error *err)
{
    const pp_shard_flat *flat = X->a.flat;
    const pp_shard_nda *nda = X->a.nda;
    int32_t cap = 16;
    X->units = pp_arena_alloc(X->arena, (size_t)cap * sizeof *X->units);
    int32_t *unit_of = malloc((size_t)(flat->n_ops ? flat->n_ops : 1) * sizeof *unit_of);
    bool ok = X->units && unit_of;
    int32_t matched, parameters;
    X->holds_backward = plan_holds_backward(X, &matched, &parameters);
    if (ok && X->holds_backward) {
        char *why = pp_arena_alloc(X->arena, 200);
        ok = why != NULL;
        if (ok)
            snprintf(why, 200, "it holds its backward pass (%d of its %d parameters have a result of their type): "
                     "cut points would part a layer's forward from its backward", matched, parameters);
        X->why_one_stage = why;
        ok = ok && add_unit(X, &cap, 0, flat->n_ops, 0);
    } else if (ok && nda->n_layer_groups == 0) {
        X->why_one_stage = "the sharder finds no repeated layers in it, so it has no cut points";
        ok = add_unit(X, &cap, 0, flat->n_ops, 0);
    } else if (ok) {
        const pp_shard_nda_layers *g = &nda->layer_groups[0];
        int32_t kinds = 1;
        ok = add_stretch(X, &cap, 0, g->starts[0], &kinds);
        for (int32_t c = 0; ok && c < g->copies; c++) {
            int32_t end = g->starts[c] + g->length;
            ok = add_unit(X, &cap, g->starts[c], end, 0);
            int32_t next = c + 1 < g->copies ? g->starts[c + 1] : flat->n_ops;
            if (ok)
                ok = add_stretch(X, &cap, end, next, &kinds);
        }
    }
    if (ok) {
        for (int32_t u = 0; u < X->n_units; u++) {
            for (int32_t i = X->units[u].first; i < X->units[u].first + X->units[u].count; i++)
                unit_of[i] = u;
            if (X->units[u].kind + 1 > X->n_kinds)
                X->n_kinds = X->units[u].kind + 1;
        }
        X->send = pp_arena_calloc(X->arena, (size_t)X->n_units, sizeof *X->send);
        ok = X->send != NULL;
    }
    if (ok)
        measure_sends(X, unit_of);
    free(unit_of);
    return ok ? PP_OK : pp_error_set(err, PP_ENOMEM, "out of memory listing the module's layers");
}

pp_status plan_units_part(const plan_ctx *X, int32_t first, int32_t end, shard_part *out, pp_error *err)
{
    const plan_unit *a = &X->units[first], *b = &X->units[end - 1];
    return shard_part_build(X->a.flat, X->a.nda, a->first, b->first + b->count, out, err);
}
