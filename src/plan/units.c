/* units.c: the module's layer graph for the stage search. The sharder's
 * repeated-layer detection (nda->layer_groups, the group covering most ops
 * first) gives the layers; each copy is a unit, and so is each stretch of
 * ops before, between and after the copies. Cut points lie between units
 * only. A module with no repeated layers is one unit, and the report says
 * why; so is a module that holds its backward pass (backward.c).
 *
 * A unit, or a run of them (a stage), also becomes a module of its own
 * (plan_unit_module_build), built
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
        ok = add_unit(X, &cap, 0, g->starts[0], kinds++);
        for (int32_t c = 0; ok && c < g->copies; c++) {
            int32_t end = g->starts[c] + g->length;
            ok = add_unit(X, &cap, g->starts[c], end, 0);
            int32_t next = c + 1 < g->copies ? g->starts[c + 1] : flat->n_ops;
            if (ok && next > end)
                ok = add_unit(X, &cap, end, next, kinds++);
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

/* The unit's inputs (values it reads that no op of it defines) first, then
 * its ops' results in order; map[v] is the new number of flat value v. */
static bool number_values(const pp_shard_flat *flat, const plan_unit *u, int32_t *map, int32_t *n_inputs,
                          int32_t *n_values)
{
    int32_t end = u->first + u->count, n = 0;
    for (int32_t i = u->first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
            int32_t v = flat->ops[i].operands[k];
            int32_t def = flat->values[v].op;
            if ((def < u->first || def >= end) && map[v] < 0)
                map[v] = n++;
        }
    *n_inputs = n;
    for (int32_t i = u->first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_results; k++)
            map[flat->ops[i].results[k]] = n++;
    *n_values = n;
    return true;
}

static pp_status build(const plan_ctx *X, const plan_unit *u, int32_t *map, plan_unit_module *m, pp_error *err)
{
    const pp_shard_flat *flat = X->a.flat;
    pp_shard_flat *f = &m->flat;
    int32_t end = u->first + u->count;
    number_values(flat, u, map, &f->n_inputs, &f->n_values);
    f->arena = m->arena;
    f->module = flat->module;
    f->n_paths = flat->n_paths;
    f->paths = flat->paths;
    f->n_ops = u->count;
    f->ops = pp_arena_alloc(m->arena, (size_t)(u->count ? u->count : 1) * sizeof *f->ops);
    f->values = pp_arena_alloc(m->arena, (size_t)(f->n_values ? f->n_values : 1) * sizeof *f->values);
    m->parameter = pp_arena_calloc(m->arena, (size_t)(f->n_inputs ? f->n_inputs : 1), sizeof *m->parameter);
    bool *read_after = calloc((size_t)flat->n_values, sizeof *read_after);
    if (!f->ops || !f->values || !m->parameter || !read_after) {
        free(read_after);
        return pp_error_set(err, PP_ENOMEM, "out of memory building a unit of %s", flat->module->file);
    }
    for (int32_t v = 0; v < flat->n_values; v++)
        if (map[v] >= 0) {
            pp_shard_flat_value *nv = &f->values[map[v]];
            *nv = flat->values[v];
            if (map[v] < f->n_inputs) {
                nv->op = -1;
                nv->index = map[v];
                m->parameter[map[v]] = v < flat->n_inputs && pp_shard_arg_role(X->a.nda, v) == PP_SHARD_ROLE_PARAMETER;
            } else
                nv->op -= u->first;
        }
    for (int32_t i = end; i < flat->n_ops; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++)
            read_after[flat->ops[i].operands[k]] = true;
    for (int32_t k = 0; k < flat->n_outputs; k++)
        read_after[flat->outputs[k]] = true;
    int32_t n_out = 0;
    for (int32_t i = u->first; i < end; i++) {
        const pp_shard_flat_op *o = &flat->ops[i];
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        pp_shard_flat_op *no = &f->ops[i - u->first];
        *no = *o;
        no->operands = pp_arena_alloc(m->arena, (size_t)(op->n_operands + 1) * sizeof(int32_t));
        no->results = pp_arena_alloc(m->arena, (size_t)(op->n_results + 1) * sizeof(int32_t));
        if (!no->operands || !no->results) {
            free(read_after);
            return pp_error_set(err, PP_ENOMEM, "out of memory building a unit of %s", flat->module->file);
        }
        for (int32_t k = 0; k < op->n_operands; k++)
            no->operands[k] = map[o->operands[k]];
        for (int32_t k = 0; k < op->n_results; k++) {
            no->results[k] = map[o->results[k]];
            n_out += read_after[o->results[k]];
        }
    }
    f->outputs = pp_arena_alloc(m->arena, (size_t)(n_out + 1) * sizeof *f->outputs);
    if (!f->outputs) {
        free(read_after);
        return pp_error_set(err, PP_ENOMEM, "out of memory building a unit of %s", flat->module->file);
    }
    for (int32_t i = u->first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_results; k++)
            if (read_after[flat->ops[i].results[k]])
                f->outputs[f->n_outputs++] = map[flat->ops[i].results[k]];
    free(read_after);
    return pp_shard_nda_run(f, &m->nda, err);
}

pp_status plan_unit_module_build(const plan_ctx *X, int32_t first, int32_t end, plan_unit_module *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena = pp_arena_new(1 << 16);
    int32_t *map = malloc((size_t)X->a.flat->n_values * sizeof *map);
    if (!out->arena || !map) {
        free(map);
        return pp_error_set(err, PP_ENOMEM, "out of memory building a unit of %s", X->a.flat->module->file);
    }
    for (int32_t v = 0; v < X->a.flat->n_values; v++)
        map[v] = -1;
    const plan_unit *a = &X->units[first], *b = &X->units[end - 1];
    plan_unit span = {a->first, b->first + b->count - a->first, a->kind};
    pp_status st = build(X, &span, map, out, err);
    free(map);
    return st;
}

void plan_unit_module_free(plan_unit_module *m)
{
    pp_shard_nda_free(m->nda);
    pp_arena_free(m->arena);
    memset(m, 0, sizeof *m);
}
