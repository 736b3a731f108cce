/* flatten.c: the flattened view of a StableHLO module: the entry function
 * with every call inlined in place, each op and value tagged with the call
 * path it came from, so repeated layers show as repeated paths; and the
 * label that names a flat value by its name and path wherever one is shown. */
#include "parplan/shard.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "shard/shard_internal.h"

typedef struct {
    const pp_shard_module *m;
    pp_shard_flat *flat;
    pp_error *err;
    int32_t max_ops;
    int32_t cap_ops, cap_values, cap_paths;
} flattener;

/* Room for element n (pp_grow), with the flattener's out-of-memory message. */
static bool grow(flattener *F, void **data, int32_t n, int32_t *cap, size_t size)
{
    if (pp_grow(data, cap, n + 1, size))
        return true;
    pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", F->m->file);
    return false;
}

static bool too_big(flattener *F)
{
    pp_error_set(F->err, PP_EINPUT, "%s: the inlined module would have more than %d ops or call paths",
                 F->m->file, (int)F->max_ops);
    return false;
}

static bool new_value(flattener *F, const pp_shard_func *f, int32_t fi, int32_t v, int32_t op, int32_t index,
                      int32_t path, int32_t *out)
{
    pp_shard_flat *flat = F->flat;
    if (flat->n_values >= (int64_t)F->max_ops * 8 || flat->n_values == INT32_MAX)
        return too_big(F);
    if (!grow(F, (void **)&flat->values, flat->n_values, &F->cap_values, sizeof *flat->values))
        return false;
    flat->values[flat->n_values] =
        (pp_shard_flat_value){.type = f->values[v].type, .op = op, .index = index, .func = fi, .value = v, .path = path};
    *out = flat->n_values++;
    return true;
}

static int32_t *map_ids(flattener *F, const int32_t *map, const int32_t *ids, int32_t n)
{
    if (n == 0)
        return NULL;
    int32_t *out = pp_arena_alloc(F->flat->arena, (size_t)n * sizeof *out);
    if (!out) {
        pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", F->m->file);
        return NULL;
    }
    for (int32_t k = 0; k < n; k++)
        out[k] = map[ids[k]];
    return out;
}

static bool expand(flattener *F, int32_t fi, int32_t path, const int32_t *args, int32_t *returned);

static bool add_path(flattener *F, int32_t parent, int32_t caller, int32_t call_op, int32_t fi, int32_t *out)
{
    pp_shard_flat *flat = F->flat;
    if (flat->n_paths >= F->max_ops)
        return too_big(F);
    if (!grow(F, (void **)&flat->paths, flat->n_paths, &F->cap_paths, sizeof *flat->paths))
        return false;
    int32_t depth = parent < 0 ? 0 : flat->paths[parent].depth + 1;
    flat->paths[flat->n_paths] = (pp_shard_path){parent, caller, call_op, fi, depth};
    *out = flat->n_paths++;
    return true;
}

static bool expand_call(flattener *F, int32_t fi, int32_t path, int32_t k, int32_t *map)
{
    const pp_shard_op *op = &F->m->funcs[fi].ops[k];
    int32_t *args = malloc(((size_t)op->n_operands + 1) * sizeof *args);
    int32_t *rets = malloc(((size_t)op->n_results + 1) * sizeof *rets);
    int32_t sub;
    bool ok = args && rets;
    if (!ok)
        pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", F->m->file);
    for (int32_t j = 0; ok && j < op->n_operands; j++)
        args[j] = map[op->operands[j]];
    ok = ok && add_path(F, path, fi, k, op->callee, &sub) && expand(F, op->callee, sub, args, rets);
    for (int32_t j = 0; ok && j < op->n_results; j++)
        map[op->results[j]] = rets[j];
    free(args);
    free(rets);
    return ok;
}

static bool expand_op(flattener *F, int32_t fi, int32_t path, int32_t k, int32_t *map)
{
    const pp_shard_func *f = &F->m->funcs[fi];
    const pp_shard_op *op = &f->ops[k];
    pp_shard_flat *flat = F->flat;
    if (flat->n_ops >= F->max_ops)
        return too_big(F);
    if (!grow(F, (void **)&flat->ops, flat->n_ops, &F->cap_ops, sizeof *flat->ops))
        return false;
    int32_t id = flat->n_ops;
    for (int32_t j = 0; j < op->n_results; j++)
        if (!new_value(F, f, fi, op->results[j], id, j, path, &map[op->results[j]]))
            return false;
    pp_shard_flat_op *fo = &flat->ops[id];
    *fo = (pp_shard_flat_op){.func = fi, .op = k, .path = path};
    fo->operands = map_ids(F, map, op->operands, op->n_operands);
    fo->results = map_ids(F, map, op->results, op->n_results);
    if ((op->n_operands && !fo->operands) || (op->n_results && !fo->results))
        return false;
    flat->n_ops++;
    return true;
}

/* Inlines function fi with its arguments bound to flat values args; writes
 * the flat values it returns into returned. */
static bool expand(flattener *F, int32_t fi, int32_t path, const int32_t *args, int32_t *returned)
{
    const pp_shard_func *f = &F->m->funcs[fi];
    int32_t *map = malloc(((size_t)f->n_values + 1) * sizeof *map);
    if (!map)
        return pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", F->m->file), false;
    for (int32_t k = 0; k < f->n_args; k++)
        map[k] = args[k];
    bool ok = true;
    for (int32_t k = 0; ok && k < f->n_ops; k++) {
        const pp_shard_op *op = &f->ops[k];
        if (op->kind == PP_SHARD_OP_CALL)
            ok = expand_call(F, fi, path, k, map);
        else if (op->kind == PP_SHARD_OP_RETURN)
            for (int32_t j = 0; j < op->n_operands; j++)
                returned[j] = map[op->operands[j]];
        else
            ok = expand_op(F, fi, path, k, map);
    }
    free(map);
    return ok;
}

/* The arrays grown with realloc are handed to the arena at the end. */
static bool adopt_all(flattener *F)
{
    pp_shard_flat *flat = F->flat;
    void *blocks[3] = {flat->ops, flat->values, flat->paths};
    bool ok = true;
    for (int k = 0; k < 3; k++)
        if (blocks[k] && !pp_arena_adopt(flat->arena, blocks[k]))
            ok = false;
    if (!ok) {
        flat->ops = NULL;
        flat->values = NULL;
        flat->paths = NULL;
        pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", F->m->file);
    }
    return ok;
}

static bool flatten_entry(flattener *F)
{
    const pp_shard_module *m = F->m;
    const pp_shard_func *entry = &m->funcs[m->entry];
    pp_shard_flat *flat = F->flat;
    int32_t root;
    int32_t *args = pp_arena_alloc(flat->arena, ((size_t)entry->n_args + 1) * sizeof *args);
    flat->outputs = pp_arena_alloc(flat->arena, ((size_t)entry->n_results + 1) * sizeof *flat->outputs);
    if (!args || !flat->outputs)
        return pp_error_set(F->err, PP_ENOMEM, "%s: out of memory", m->file), false;
    if (!add_path(F, -1, -1, -1, m->entry, &root))
        return false;
    for (int32_t k = 0; k < entry->n_args; k++)
        if (!new_value(F, entry, m->entry, k, -1, k, root, &args[k]))
            return false;
    flat->n_inputs = entry->n_args;
    flat->n_outputs = entry->n_results;
    return expand(F, m->entry, root, args, flat->outputs);
}

pp_status pp_shard_module_flatten(const pp_shard_module *module, int32_t max_ops, pp_shard_flat **out,
                                  pp_error *err)
{
    *out = NULL;
    pp_arena *arena = pp_arena_new(1 << 16);
    pp_shard_flat *flat = arena ? pp_arena_calloc(arena, 1, sizeof *flat) : NULL;
    if (!flat) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", module->file);
    }
    flat->arena = arena;
    flat->module = module;
    flattener F = {.m = module, .flat = flat, .err = err, .max_ops = max_ops > 0 ? max_ops : 1 << 24};
    bool ok = flatten_entry(&F);
    if (!adopt_all(&F) || !ok) {
        pp_arena_free(arena);
        return err->status != PP_OK ? err->status : pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    *out = flat;
    return PP_OK;
}

void pp_shard_flat_free(pp_shard_flat *flat)
{
    if (flat)
        pp_arena_free(flat->arena);
}

const char *pp_shard_value_label(const pp_shard_flat *flat, int32_t value, char *buf, size_t size)
{
    const pp_shard_flat_value *v = &flat->values[value];
    const pp_shard_func *f = &flat->module->funcs[v->func];
    if (v->path == 0)
        snprintf(buf, size, "%%%s", f->values[v->value].name);
    else
        snprintf(buf, size, "%%%s@%s#%d", f->values[v->value].name, f->name, (int)v->path);
    return buf;
}
