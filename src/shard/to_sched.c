/* to_sched.c: a flattened StableHLO module as an operator-scheduling problem
 * (parplan/shard_sched.h): the model graphs paper 002 schedules.
 *
 * Coarse ops. Scheduling every StableHLO op would give a graph of thousands
 * of broadcasts and reshapes, each far shorter than a transfer. Ops are
 * grouped as a compiler fuses them, in one pass in topological order:
 *  - a matrix product or convolution starts a scheduling op of its own;
 *  - an op computed from constants and arguments alone (constants, iotas,
 *    broadcasts of biases) is folded: its time goes to its first consumer's
 *    op, and it makes no dependency, since every consumer can compute it;
 *  - any other op joins the scheduling op all its inputs come from, and
 *    starts one of its own where inputs of two or more meet.
 * So the branches of the module stay branches: an MoE layer's experts read
 * the same input and meet only in the combine, so each expert is its own
 * chain of ops with no path to another. Edges run from ops started earlier
 * to ops started later (only a starting op reads from other ops), so the
 * grouping cannot make a cycle.
 *
 * Times. A scheduling op lasts the sum of its StableHLO ops' roofline times
 * as the sharder's cost model prices them on one device (shard_cost_op: a
 * product at the peak of its element type's math mode, everything else by
 * its bytes), so the forward ops add up to the sharder's unsharded compute
 * time. The backward op of each lasts twice as long, from twice the FLOPs
 * and twice the bytes: for Y = XW the backward pass computes dX = dY W^T and
 * dW = X^T dY, two products of Y's size (Kaplan et al. 2020, "Scaling Laws
 * for Neural Language Models", section 2.1: backward about twice the
 * forward; Narayanan et al., SC'21, count 3x the forward for a step).
 *
 * Dependencies and transfers. Op g reading a tensor of op h depends on h;
 * the backward op of h then depends on g's, since the tensor's gradient
 * flows back. Each lasts, across devices, the point-to-point time
 * (pp_hw_p2p_time) of the tensors it carries over the options' link; a
 * tensor's gradient has the tensor's size. A backward op also depends on
 * its forward op, with which it is colocated (pp_sched_colocate).
 *
 * Memory. A forward op's weight is the entry arguments it reads (the
 * parameters it holds for the step; their gradients and optimizer state are
 * not counted); its results read by other ops (or returned) are its
 * activations: added to its device's level when it ends, given back when its
 * backward op ends, on the same device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_sched.h"
#include "hw/net_internal.h"
#include "sched/sched_internal.h"
#include "shard/cost_internal.h"
#include "shard/request_internal.h"

typedef struct {
    const pp_shard_flat *flat;
    const pp_shard_sched_options *o;
    shard_cost_model M;
    pp_shard_mesh mesh;
    int32_t *group;      /* per flat op: its scheduling op, -1 when folded */
    int32_t *charged;    /* per flat op: the scheduling op its time goes to, -1 for none */
    int32_t n_groups;
    int32_t *starter;    /* per group: its first flat op */
    double *seconds;     /* per group: forward time */
    double *activation;  /* per group: bytes of results read outside it */
    double *parameters;  /* per group: bytes of entry arguments it reads */
} builder;

/* A read of value `value` by scheduling op `group`, or a dependency between
 * two scheduling ops: sorted to count each once. */
typedef struct {
    int32_t a, b;
    double bytes;
} pair;

static int by_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static double value_bytes(const builder *b, int32_t v)
{
    const pp_shard_type *ty = &b->flat->values[v].type;
    double bits = ty->bits > 0 ? ty->bits : 32;
    if (b->o->precision == PP_SHARD_PRECISION_BF16 && strcmp(ty->elem, "f32") == 0)
        bits = 16;
    return (double)pp_shard_type_elements(ty) * bits / 8;
}

static int32_t producer_group(const builder *b, int32_t v)
{
    int32_t op = b->flat->values[v].op;
    return op < 0 ? -1 : b->group[op];
}

static int32_t new_group(builder *b, int32_t i)
{
    b->starter[b->n_groups] = i;
    return b->n_groups++;
}

/* The pass of the top comment: starts, joins and folds. */
static void group_ops(builder *b)
{
    const pp_shard_flat *flat = b->flat;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        int32_t from = -1;
        bool meet = false;
        for (int32_t k = 0; k < op->n_operands; k++) {
            int32_t g = producer_group(b, flat->ops[i].operands[k]);
            if (g >= 0 && from >= 0 && g != from)
                meet = true;
            if (g >= 0)
                from = g;
        }
        if (op->kind == PP_SHARD_OP_DOT_GENERAL || op->kind == PP_SHARD_OP_CONVOLUTION || meet)
            b->group[i] = new_group(b, i);
        else
            b->group[i] = from;
    }
}

/* A folded op's time goes where its first consumer's goes; consumers come
 * later in the order, so one backward pass settles chains of folded ops. */
static void charge_folded(builder *b)
{
    const pp_shard_flat *flat = b->flat;
    const pp_shard_nda *nda = b->M.nda;
    for (int32_t i = flat->n_ops - 1; i >= 0; i--) {
        b->charged[i] = b->group[i];
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        for (int32_t r = 0; r < op->n_results && b->charged[i] < 0; r++) {
            int32_t v = flat->ops[i].results[r];
            for (int32_t u = b->M.use_first[v]; u < b->M.use_first[v + 1] && b->charged[i] < 0; u++) {
                int32_t user = nda->tensors[b->M.use_list[u]].op;
                if (user < flat->n_ops)
                    b->charged[i] = b->charged[user];
            }
        }
    }
    for (int32_t i = 0; i < flat->n_ops; i++)
        if (b->charged[i] >= 0) {
            pp_shard_cost acc = {0};
            shard_cost_op(&b->M, i, &acc);
            b->seconds[b->charged[i]] += acc.compute_time;
        }
}

/* Bytes of the results of each op that some other op (or the return) reads. */
static void measure_activations(builder *b)
{
    const pp_shard_flat *flat = b->flat;
    const pp_shard_nda *nda = b->M.nda;
    for (int32_t v = flat->n_inputs; v < flat->n_values; v++) {
        int32_t g = producer_group(b, v);
        bool outside = false;
        for (int32_t u = b->M.use_first[v]; g >= 0 && u < b->M.use_first[v + 1]; u++) {
            int32_t user = nda->tensors[b->M.use_list[u]].op;
            outside |= user == flat->n_ops || b->group[user] != g;
        }
        if (outside)
            b->activation[g] += value_bytes(b, v);
    }
}

/* Every (group, value) read across a group's border, each once. */
static pair *border_reads(const builder *b, int32_t *count)
{
    const pp_shard_flat *flat = b->flat;
    int32_t n = 0;
    for (int32_t i = 0; i < flat->n_ops; i++)
        n += pp_shard_flat_op_of(flat, i)->n_operands;
    pair *reads = malloc(((size_t)n + 1) * sizeof *reads);
    if (!reads)
        return NULL;
    n = 0;
    for (int32_t i = 0; i < flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
        for (int32_t k = 0; k < op->n_operands && b->group[i] >= 0; k++) {
            int32_t v = flat->ops[i].operands[k], h = producer_group(b, v);
            bool argument = flat->values[v].op < 0 && v < flat->n_inputs;
            if (argument || (h >= 0 && h != b->group[i]))
                reads[n++] = (pair){b->group[i], v, 0};
        }
    }
    qsort(reads, (size_t)n, sizeof *reads, by_pair);
    int32_t kept = 0;
    for (int32_t k = 0; k < n; k++)
        if (kept == 0 || by_pair(&reads[kept - 1], &reads[k]) != 0)
            reads[kept++] = reads[k];
    *count = kept;
    return reads;
}

/* Arguments become weights; values of other groups, (producer, reader)
 * dependencies with their bytes summed, sorted. */
static pair *dependencies(builder *b, int32_t *count)
{
    int32_t n = 0, m = 0;
    pair *reads = border_reads(b, &n);
    if (!reads)
        return NULL;
    for (int32_t k = 0; k < n; k++) {
        int32_t g = reads[k].a, v = reads[k].b, h = producer_group(b, v);
        if (h < 0)
            b->parameters[g] += value_bytes(b, v);
        else
            reads[m++] = (pair){h, g, value_bytes(b, v)};
    }
    qsort(reads, (size_t)m, sizeof *reads, by_pair);
    int32_t kept = 0;
    for (int32_t k = 0; k < m; k++) {
        if (kept > 0 && reads[kept - 1].a == reads[k].a && reads[kept - 1].b == reads[k].b)
            reads[kept - 1].bytes += reads[k].bytes;
        else
            reads[kept++] = reads[k];
    }
    *count = kept;
    return reads;
}

/* "forward" or "backward", and the function the op's first StableHLO op is
 * in when that is not the entry (a layer, an expert): the pictures' colours. */
static void op_kind(const builder *b, int32_t g, const char *direction, char *buf, size_t size)
{
    const pp_shard_flat *flat = b->flat;
    int32_t func = flat->ops[b->starter[g]].func;
    if (func == flat->module->entry)
        snprintf(buf, size, "%s", direction);
    else
        snprintf(buf, size, "%s %s", direction, flat->module->funcs[func].name);
}

/* "F12 dot_general %3@expert#2": the direction and number, the first op's
 * kind and its first result as the shard reader labels values. */
static void op_name(const builder *b, int32_t g, char direction, char *buf, size_t size)
{
    const pp_shard_flat *flat = b->flat;
    int32_t i = b->starter[g];
    const pp_shard_op *op = pp_shard_flat_op_of(flat, i);
    char label[160] = "";
    if (op->n_results > 0)
        pp_shard_value_label(flat, flat->ops[i].results[0], label, sizeof label);
    snprintf(buf, size, "%c%d %s %s", direction, g, pp_shard_op_kind_name(op->kind), label);
}

static double micros(double seconds) { return seconds * 1e6; }

static pp_status emit(builder *b, const pair *deps, int32_t n_deps, pp_sched_problem *p, pp_error *err)
{
    const pp_shard_sched_options *o = b->o;
    double memory = o->memory > 0 ? o->memory : o->device->memory_bytes;
    char name[256], kind[160];
    for (int32_t d = 0; d < o->devices; d++) {
        snprintf(name, sizeof name, "d%d", d);
        pp_sched_add_device(p, name, memory);
    }
    int32_t G = b->n_groups;
    for (int32_t g = 0; g < G; g++) {
        op_name(b, g, 'F', name, sizeof name);
        op_kind(b, g, "forward", kind, sizeof kind);
        pp_sched_add_op(p, name, kind, micros(b->seconds[g]), b->parameters[g], b->activation[g]);
    }
    for (int32_t g = 0; g < G; g++) {
        op_name(b, g, 'B', name, sizeof name);
        op_kind(b, g, "backward", kind, sizeof kind);
        pp_sched_add_op(p, name, kind, micros(2 * b->seconds[g]), 0, -b->activation[g]);
        pp_sched_colocate(p, g, G + g);
        pp_sched_add_dep(p, g, G + g, 0);
    }
    for (int32_t k = 0; k < n_deps; k++) {
        double comm = micros(pp_hw_p2p_time(o->link, deps[k].bytes));
        pp_sched_add_dep(p, deps[k].a, deps[k].b, comm);
        pp_sched_add_dep(p, G + deps[k].b, G + deps[k].a, comm);
    }
    return pp_sched_problem_finish(p, b->flat->module->file, err);
}

static pp_status build(builder *b, pp_sched_problem **out, pp_error *err)
{
    size_t n = (size_t)b->flat->n_ops + 1;
    b->group = malloc(n * sizeof *b->group);
    b->charged = malloc(n * sizeof *b->charged);
    b->starter = malloc(n * sizeof *b->starter);
    b->seconds = calloc(n, sizeof *b->seconds);
    b->activation = calloc(n, sizeof *b->activation);
    b->parameters = calloc(n, sizeof *b->parameters);
    if (!b->group || !b->charged || !b->starter || !b->seconds || !b->activation || !b->parameters)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", b->flat->module->file);
    group_ops(b);
    charge_folded(b);
    measure_activations(b);
    int32_t n_deps = 0;
    pair *deps = dependencies(b, &n_deps);
    pp_sched_problem *p = pp_sched_problem_new();
    pp_status st = PP_OK;
    if (!deps || !p || !pp_sched_set_time_unit(p, "us"))
        st = pp_error_set(err, PP_ENOMEM, "%s: out of memory", b->flat->module->file);
    else
        st = emit(b, deps, n_deps, p, err);
    free(deps);
    if (st != PP_OK)
        pp_sched_problem_free(p);
    else
        *out = p;
    return st;
}

void pp_shard_sched_options_default(pp_shard_sched_options *o)
{
    memset(o, 0, sizeof *o);
    o->devices = 1;
    o->precision = PP_SHARD_PRECISION_TYPED;
    o->link = pp_shard_default_link();
}

pp_status pp_shard_to_sched(const pp_shard_flat *flat, const pp_shard_sched_options *o, pp_sched_problem **out,
                            pp_error *err)
{
    *out = NULL;
    if (o->devices < 1)
        return pp_error_set(err, PP_EARG, "devices: %d, a problem needs at least one", o->devices);
    if (!o->device)
        return pp_error_set(err, PP_EARG, "no device type given");
    if (!(o->link.bandwidth > 0) || !(o->link.latency >= 0) || !isfinite(o->link.latency))
        return pp_error_set(err, PP_EARG, "link: bandwidth %g bytes/s and latency %g s: a bandwidth > 0 and a "
                            "finite latency >= 0 are needed", o->link.bandwidth, o->link.latency);
    builder b = {.flat = flat, .o = o};
    pp_status st = pp_shard_mesh_parse("x=1", o->device, o->link, &b.mesh, err);
    if (st != PP_OK)
        return st;
    b.mesh.precision = o->precision;
    if (o->catalog)
        pp_shard_mesh_set_peaks(&b.mesh, o->catalog);
    pp_shard_nda *nda = NULL;
    if ((st = pp_shard_nda_run(flat, &nda, err)) != PP_OK)
        return st;
    uint8_t *axes = calloc((size_t)nda->n_names + 1, 1);
    if (!axes || !shard_cost_model_init(&b.M, flat, nda, &b.mesh))
        st = pp_error_set(err, PP_ENOMEM, "%s: out of memory", flat->module->file);
    else {
        b.M.axes = axes;
        st = build(&b, out, err);
    }
    shard_cost_model_free(&b.M);
    free(axes);
    free(b.group), free(b.charged), free(b.starter);
    free(b.seconds), free(b.activation), free(b.parameters);
    pp_shard_nda_free(nda);
    return st;
}

pp_status pp_shard_sched_from_file(const char *path, const pp_shard_sched_options *o, pp_sched_problem **out,
                                   pp_error *err)
{
    *out = NULL;
    pp_shard_module *module = NULL;
    pp_shard_flat *flat = NULL;
    pp_status st = pp_shard_module_load(path, &module, err);
    if (st == PP_OK)
        st = pp_shard_module_flatten(module, 0, &flat, err);
    if (st == PP_OK)
        st = pp_shard_to_sched(flat, o, out, err);
    pp_shard_flat_free(flat);
    pp_shard_module_free(module);
    return st;
}
