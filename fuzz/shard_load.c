/* shard_load.c: libFuzzer target for the StableHLO reader of the auto-sharder
 * (pp_shard_module_parse, the same code as pp_shard_module_load after the
 * file is read) and the flattened view (pp_shard_module_flatten). Checks: a
 * failed read returns no module and says why, as "NAME:LINE:COLUMN: " with the
 * position inside the text; a module read is consistent (value and op indices
 * in range and pointing at each other, known ops passing their type checks
 * again, callees resolved with matching arity, one warning per opaque op
 * name); its flattened view is in topological order with valid call paths.
 * Any breach aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard/shard_internal.h"
#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_op(const pp_shard_module *m, const pp_shard_func *f, const pp_shard_op *op, int32_t index,
                     int in_body)
{
    char why[300];
    for (int32_t k = 0; k < op->n_operands; k++)
        if (op->operands[k] < 0 || op->operands[k] >= f->n_values)
            abort();
    for (int32_t k = 0; k < op->n_results; k++) {
        if (op->results[k] < 0 || op->results[k] >= f->n_values)
            abort();
        const pp_shard_value *v = &f->values[op->results[k]];
        if (v->op != index || v->index != k || v->in_body != in_body)
            abort();
    }
    if (op->body_first < 0 || op->body_count < 0 || op->body_first + op->body_count > f->n_body_ops)
        abort();
    if (!shard_check_op(f->values, op, why, sizeof why))
        abort();
    if (op->kind == PP_SHARD_OP_CALL) {
        if (op->callee < 0 || op->callee >= m->n_funcs || m->funcs[op->callee].n_args != op->n_operands ||
            m->funcs[op->callee].n_results != op->n_results)
            abort();
    }
    if (op->kind == PP_SHARD_OP_OPAQUE) {
        int found = 0;
        for (int32_t w = 0; w < m->n_warnings; w++)
            found += strcmp(m->warnings[w].op_name, op->name) == 0;
        if (found != 1)
            abort();
    }
}

static void check_module(const pp_shard_module *m)
{
    if (m->n_funcs < 1 || m->entry < 0 || m->entry >= m->n_funcs)
        abort();
    for (int32_t fi = 0; fi < m->n_funcs; fi++) {
        const pp_shard_func *f = &m->funcs[fi];
        if (f->n_ops < 1 || f->ops[f->n_ops - 1].kind != PP_SHARD_OP_RETURN || f->n_args > f->n_values)
            abort();
        for (int32_t k = 0; k < f->n_args; k++)
            if (f->values[k].op != -1 || f->values[k].index != k)
                abort();
        for (int32_t k = 0; k < f->n_ops; k++)
            check_op(m, f, &f->ops[k], k, 0);
        for (int32_t k = 0; k < f->n_body_ops; k++)
            check_op(m, f, &f->body_ops[k], k, 1);
        if (pp_shard_module_find_func(m, f->name) != fi)
            abort();
    }
}

static void check_flat(const pp_shard_module *m, const pp_shard_flat *flat)
{
    if (flat->n_paths < 1 || flat->paths[0].parent != -1 || flat->paths[0].func != m->entry)
        abort();
    for (int32_t p = 1; p < flat->n_paths; p++) {
        const pp_shard_path *path = &flat->paths[p];
        if (path->parent < 0 || path->parent >= p || path->depth != flat->paths[path->parent].depth + 1 ||
            path->caller_func != flat->paths[path->parent].func ||
            m->funcs[path->caller_func].ops[path->call_op].callee != path->func)
            abort();
    }
    for (int32_t k = 0; k < flat->n_ops; k++) {
        const pp_shard_flat_op *o = &flat->ops[k];
        const pp_shard_op *op = &m->funcs[o->func].ops[o->op];
        if (o->path < 0 || o->path >= flat->n_paths || flat->paths[o->path].func != o->func ||
            op->kind == PP_SHARD_OP_CALL || op->kind == PP_SHARD_OP_RETURN)
            abort();
        for (int32_t j = 0; j < op->n_operands; j++)
            if (o->operands[j] < 0 || o->operands[j] >= flat->n_values || flat->values[o->operands[j]].op >= k)
                abort();
        for (int32_t j = 0; j < op->n_results; j++)
            if (flat->values[o->results[j]].op != k)
                abort();
    }
    for (int32_t k = 0; k < flat->n_outputs; k++)
        if (flat->outputs[k] < 0 || flat->outputs[k] >= flat->n_values)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_shard_module *m = NULL;
    pp_error err = {0};
    pp_status st = pp_shard_module_parse(NAME, (const char *)data, size, &m, &err);
    if (st != PP_OK) {
        if (m)
            abort();
        check_message(&err, st, data, size);
        if (strncmp(err.message + strlen(NAME), ": ", 2) == 0 && st != PP_ENOMEM)
            abort(); /* an input error always has a position */
        return 0;
    }
    check_module(m);
    pp_shard_flat *flat = NULL;
    pp_error ferr = {0};
    st = pp_shard_module_flatten(m, 20000, &flat, &ferr);
    if (st == PP_OK)
        check_flat(m, flat);
    else if (flat || (st != PP_EINPUT && st != PP_ENOMEM))
        abort();
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
    return 0;
}
