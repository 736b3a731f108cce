/* part.c: a run of an analysed module's ops as a module of its own
 * (part_internal.h), built on the public flat view: the ops with their
 * operands and results renumbered, the values read from outside the run
 * its inputs, those read after it or returned its outputs. The sharder
 * analyses and plans it as it would a file; the plan (src/plan) prices a
 * pipeline's stages so, each sharded on its own mesh. */
#include <stdlib.h>
#include <string.h>
#include "shard/part_internal.h"
#include "shard/shard_internal.h"

/* The part's inputs (values it reads that no op of it defines) first, then
 * its ops' results in order; map[v] is the new number of flat value v. */
static void number_values(const pp_shard_flat *flat, int32_t first, int32_t end, int32_t *map, int32_t *n_inputs,
                          int32_t *n_values)
{
    int32_t n = 0;
    for (int32_t i = first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
            int32_t v = flat->ops[i].operands[k];
            int32_t def = flat->values[v].op;
            if ((def < first || def >= end) && map[v] < 0)
                map[v] = n++;
        }
    *n_inputs = n;
    for (int32_t i = first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_results; k++)
            map[flat->ops[i].results[k]] = n++;
    *n_values = n;
}

static pp_status build(const pp_shard_flat *flat, const pp_shard_nda *nda, int32_t first, int32_t end, int32_t *map,
                       shard_part *m, pp_error *err)
{
    pp_shard_flat *f = &m->flat;
    number_values(flat, first, end, map, &f->n_inputs, &f->n_values);
    f->arena = m->arena;
    f->module = flat->module;
    f->n_paths = flat->n_paths;
    f->paths = flat->paths;
    f->n_ops = end - first;
    f->ops = pp_arena_alloc(m->arena, (size_t)(end > first ? end - first : 1) * sizeof *f->ops);
    f->values = pp_arena_alloc(m->arena, (size_t)(f->n_values ? f->n_values : 1) * sizeof *f->values);
    m->parameter = pp_arena_calloc(m->arena, (size_t)(f->n_inputs ? f->n_inputs : 1), sizeof *m->parameter);
    bool *read_after = calloc((size_t)flat->n_values, sizeof *read_after);
    if (!f->ops || !f->values || !m->parameter || !read_after) {
        free(read_after);
        return pp_error_set(err, PP_ENOMEM, "out of memory building a part of %s", flat->module->file);
    }
    for (int32_t v = 0; v < flat->n_values; v++)
        if (map[v] >= 0) {
            pp_shard_flat_value *nv = &f->values[map[v]];
            *nv = flat->values[v];
            if (map[v] < f->n_inputs) {
                nv->op = -1;
                nv->index = map[v];
                m->parameter[map[v]] = v < flat->n_inputs && pp_shard_arg_role(nda, v) == PP_SHARD_ROLE_PARAMETER;
            } else
                nv->op -= first;
        }
    for (int32_t i = end; i < flat->n_ops; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++)
            read_after[flat->ops[i].operands[k]] = true;
    for (int32_t k = 0; k < flat->n_outputs; k++)
        read_after[flat->outputs[k]] = true;
    int32_t n_out = 0;
    for (int32_t i = first; i < end; i++) {
        const pp_shard_flat_op *o = &flat->ops[i];
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        pp_shard_flat_op *no = &f->ops[i - first];
        *no = *o;
        no->operands = pp_arena_alloc(m->arena, (size_t)(op->n_operands + 1) * sizeof(int32_t));
        no->results = pp_arena_alloc(m->arena, (size_t)(op->n_results + 1) * sizeof(int32_t));
        if (!no->operands || !no->results) {
            free(read_after);
            return pp_error_set(err, PP_ENOMEM, "out of memory building a part of %s", flat->module->file);
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
        return pp_error_set(err, PP_ENOMEM, "out of memory building a part of %s", flat->module->file);
    }
    for (int32_t i = first; i < end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_results; k++)
            if (read_after[flat->ops[i].results[k]])
                f->outputs[f->n_outputs++] = map[flat->ops[i].results[k]];
    free(read_after);
    return pp_shard_nda_run(f, &m->nda, err);
}

pp_status shard_part_build(const pp_shard_flat *flat, const pp_shard_nda *nda, int32_t first, int32_t end,
                           shard_part *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena = pp_arena_new(1 << 16);
    int32_t *map = malloc((size_t)(flat->n_values ? flat->n_values : 1) * sizeof *map);
    if (!out->arena || !map) {
        free(map);
        return pp_error_set(err, PP_ENOMEM, "out of memory building a part of %s", flat->module->file);
    }
    for (int32_t v = 0; v < flat->n_values; v++)
        map[v] = -1;
    pp_status st = build(flat, nda, first, end, map, out, err);
    free(map);
    return st;
}

void shard_part_free(shard_part *p)
{
    pp_shard_nda_free(p->nda);
    pp_arena_free(p->arena);
    memset(p, 0, sizeof *p);
}
