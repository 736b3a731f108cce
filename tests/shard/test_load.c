/* test_load.c: the StableHLO reader and the flattened view (src/shard/load.c,
 * flatten.c): the two bundled models read with op counts checked against a
 * line scan of the text, hand-checked shapes and attributes, the paper's
 * small examples, Shardy mesh declarations and bounds encodings, malformed
 * inputs with their positions, opaque ops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/shard.h"
#include "shard/shard_internal.h"

#define SHARED PP_SOURCE_DIR "/examples/shard/"

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text)
        text[n] = '\0';
    *size = (size_t)n;
    return text;
}

static pp_shard_module *load(const char *path)
{
    pp_shard_module *m = NULL;
    pp_error err = {0};
    if (pp_shard_module_load(path, &m, &err) != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(m != NULL);
    return m;
}

/* The op name a line starts (after "%x = " when there is one), quotes
 * removed; "" for lines that start no op. Independent of the reader. */
static void line_op(const char *line, char *name, size_t size)
{
    name[0] = '\0';
    while (*line == ' ')
        line++;
    if (*line == '%') {
        const char *eq = strstr(line, " = ");
        if (!eq)
            return;
        line = eq + 3;
    }
    if (*line == '"')
        line++;
    size_t n = 0;
    while (line[n] && (line[n] == '.' || line[n] == '_' || (line[n] >= 'a' && line[n] <= 'z')) && n + 1 < size)
        n++;
    memcpy(name, line, n);
    name[n] = '\0';
    if (!strchr(name, '.') && strcmp(name, "call") && strcmp(name, "return"))
        name[0] = '\0';
}

/* Occurrences of op `op` (e.g. "stablehlo.dot_general") per function in the
 * text, in the order the functions appear; returns the number of functions. */
static int scan_counts(const char *text, const char *op, int *per_func, int max)
{
    int f = -1;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[4096], name[64];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        if (strstr(line, "func.func ") && f + 1 < max)
            per_func[++f] = 0;
        line_op(line, name, sizeof name);
        if (f >= 0 && strcmp(name, op) == 0)
            per_func[f]++;
        p = end ? end + 1 : p + len;
    }
    return f + 1;
}

static int count_kind(const pp_shard_func *f, pp_shard_op_kind kind)
{
    int n = 0;
    for (int32_t k = 0; k < f->n_ops; k++)
        n += f->ops[k].kind == kind;
    for (int32_t k = 0; k < f->n_body_ops; k++)
        n += f->body_ops[k].kind == kind;
    return n;
}

static const pp_shard_value *value(const pp_shard_func *f, const char *name)
{
    for (int32_t k = 0; k < f->n_values; k++)
        if (strcmp(f->values[k].name, name) == 0)
            return &f->values[k];
    return NULL;
}

static const pp_shard_op *def_op(const pp_shard_func *f, const char *name)
{
    const pp_shard_value *v = value(f, name);
    if (!v || v->op < 0)
        return NULL;
    return v->in_body ? &f->body_ops[v->op] : &f->ops[v->op];
}

static bool dims_are(const pp_shard_type *t, int rank, const int64_t *dims)
{
    if (t->rank != rank)
        return false;
    for (int k = 0; k < rank; k++)
        if (t->dims[k] != dims[k])
            return false;
    return true;
}

static bool ints_are(const pp_shard_ints *l, int n, const int64_t *v)
{
    if (l->n != n)
        return false;
    for (int k = 0; k < n; k++)
        if (l->v[k] != v[k])
            return false;
    return true;
}

#define DIMS(t, ...) dims_are((t), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
#define INTS(l, ...) ints_are((l), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})

/* Every kind's count per function equals the line scan's count of its name. */
static void check_counts(const pp_shard_module *m, const char *text)
{
    static const char *const names[] = {"constant", "broadcast_in_dim", "dot_general", "convolution", "reduce",
                                        "reduce_window", "transpose", "reshape", "gather", "slice", "concatenate",
                                        "iota", "compare", "select", "convert", "add", "subtract", "multiply",
                                        "divide", "maximum", "rsqrt", "sqrt", "exponential", "log", "negate"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char op[64];
        snprintf(op, sizeof op, "stablehlo.%s", names[n]);
        int per[64];
        int nf = scan_counts(text, op, per, 64);
        CHECK_EQ_INT(nf, m->n_funcs);
        pp_shard_op_kind kind = PP_SHARD_OP_OPAQUE;
        for (int k = 0; k < PP_SHARD_OP_KIND_COUNT; k++)
            if (strcmp(pp_shard_op_kind_name((pp_shard_op_kind)k), names[n]) == 0)
                kind = (pp_shard_op_kind)k;
        CHECK(kind != PP_SHARD_OP_OPAQUE);
        for (int f = 0; f < nf && f < m->n_funcs; f++)
            if (count_kind(&m->funcs[f], kind) != per[f]) {
                fprintf(stderr, "%s in @%s: reader %d, scan %d\n", names[n], m->funcs[f].name,
                        count_kind(&m->funcs[f], kind), per[f]);
                check_failures++;
            }
    }
    int calls[64];
    int nf = scan_counts(text, "call", calls, 64);
    for (int f = 0; f < nf && f < m->n_funcs; f++)
        CHECK_EQ_INT(count_kind(&m->funcs[f], PP_SHARD_OP_CALL), calls[f]);
    CHECK_EQ_INT(m->n_warnings, 0);
}

static int total(const pp_shard_module *m, pp_shard_op_kind kind)
{
    int n = 0;
    for (int32_t f = 0; f < m->n_funcs; f++)
        n += count_kind(&m->funcs[f], kind);
    return n;
}

static int paths_of(const pp_shard_flat *flat, const char *func)
{
    int n = 0;
    for (int32_t p = 0; p < flat->n_paths; p++)
        n += strcmp(flat->module->funcs[flat->paths[p].func].name, func) == 0;
    return n;
}

static int flat_kind(const pp_shard_flat *flat, pp_shard_op_kind kind)
{
    int n = 0;
    for (int32_t k = 0; k < flat->n_ops; k++)
        n += pp_shard_flat_op_of(flat, k)->kind == kind;
    return n;
}

/* Flat values are defined before use, and each op's flat operands are the
 * values its function-level operands stood for. */
static void check_topological(const pp_shard_flat *flat)
{
    for (int32_t k = 0; k < flat->n_ops; k++) {
        const pp_shard_flat_op *o = &flat->ops[k];
        const pp_shard_op *op = &flat->module->funcs[o->func].ops[o->op];
        for (int32_t j = 0; j < op->n_operands; j++) {
            const pp_shard_flat_value *v = &flat->values[o->operands[j]];
            CHECK(v->op < k);
            CHECK(pp_shard_type_equal(&v->type, &flat->module->funcs[o->func].values[op->operands[j]].type));
        }
        for (int32_t j = 0; j < op->n_results; j++)
            CHECK_EQ_INT(flat->values[o->results[j]].op, k);
    }
}

/* The eight layers are written out inline in apply_fn; each calls @silu
 * once, so the stretches of ops from one silu call to the next are whole
 * layers: the seven stretches must hold the same sequence of kinds (with the
 * same attributes' sizes), 9 dot_generals each (q, k, v, two attention
 * products, output projection, three of the gated MLP). */
static void check_layer_windows(const pp_shard_module *m, const pp_shard_func *f)
{
    int32_t silu = pp_shard_module_find_func(m, "silu"), at[8], n = 0;
    for (int32_t k = 0; k < f->n_ops && n < 8; k++)
        if (f->ops[k].kind == PP_SHARD_OP_CALL && f->ops[k].callee == silu)
            at[n++] = k;
    CHECK_EQ_INT(n, 8);
    if (n != 8)
        return;
    int32_t len = at[1] - at[0];
    for (int w = 1; w < 7; w++) {
        CHECK_EQ_INT(at[w + 1] - at[w], len);
        for (int32_t j = 0; j < len && at[w + 1] - at[w] == len; j++) {
            const pp_shard_op *a = &f->ops[at[0] + j], *b = &f->ops[at[w] + j];
            CHECK(a->kind == b->kind && a->n_operands == b->n_operands && a->dims.n == b->dims.n);
        }
    }
    int dots = 0;
    for (int32_t j = at[0]; j < at[1]; j++)
        dots += f->ops[j].kind == PP_SHARD_OP_DOT_GENERAL;
    CHECK_EQ_INT(dots, 9);
}

static void test_chess(void)
{
    size_t size;
    char *text = slurp(SHARED "searchless_chess_9m.mlir", &size);
    CHECK(text != NULL);
    pp_shard_module *m = load(SHARED "searchless_chess_9m.mlir");
    if (!m || !text) {
        free(text);
        return;
    }
    check_counts(m, text);
    /* the README's figures (its "4 gather" counts the '#stablehlo.gather' attributes too) */
    CHECK_EQ_INT(total(m, PP_SHARD_OP_DOT_GENERAL), 73);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_BROADCAST_IN_DIM), 225);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_REDUCE), 37);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_TRANSPOSE), 8);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_GATHER), 2);
    CHECK_EQ_INT(m->n_funcs, 6);
    CHECK(strcmp(m->name, "jit_predict_sequence") == 0);
    CHECK(strcmp(m->funcs[m->entry].name, "main") == 0);
    const pp_shard_func *main_fn = &m->funcs[m->entry];
    CHECK_EQ_INT(main_fn->n_args, 95);
    CHECK(DIMS(&main_fn->args[94].type, 33, 79) && strcmp(main_fn->args[94].type.elem, "i32") == 0);
    CHECK(main_fn->args[0].sharding && strcmp(main_fn->args[0].sharding, "{replicated}") == 0);
    CHECK(main_fn->args[94].sharding == NULL);
    CHECK_EQ_INT(main_fn->n_results, 1);
    CHECK(DIMS(&main_fn->results[0].type, 33, 79, 128));

    int32_t fi = pp_shard_module_find_func(m, "apply_fn");
    CHECK(fi >= 0 && !m->funcs[fi].is_public);
    const pp_shard_func *f = &m->funcs[fi];
    const pp_shard_op *qk = def_op(f, "50");
    CHECK(qk && qk->kind == PP_SHARD_OP_DOT_GENERAL);
    if (qk) {
        CHECK(DIMS(&f->values[qk->results[0]].type, 33, 8, 79, 79));
        CHECK(INTS(&qk->dot.lhs_batch, 0, 2) && INTS(&qk->dot.rhs_batch, 0, 2));
        CHECK(INTS(&qk->dot.lhs_contract, 3) && INTS(&qk->dot.rhs_contract, 3));
    }
    const pp_shard_op *g = def_op(f, "10");
    CHECK(g && g->kind == PP_SHARD_OP_GATHER);
    if (g) {
        CHECK(INTS(&g->gather.offset_dims, 2) && INTS(&g->gather.collapsed_slice_dims, 0));
        CHECK(INTS(&g->gather.start_index_map, 0) && g->gather.index_vector_dim == 2);
        CHECK(INTS(&g->gather.slice_sizes, 1, 256) && g->gather.operand_batching_dims.n == 0);
        CHECK(DIMS(&f->values[g->results[0]].type, 33, 79, 256));
    }
    const pp_shard_op *t = def_op(f, "68");
    CHECK(t && t->kind == PP_SHARD_OP_TRANSPOSE && INTS(&t->dims, 0, 3, 1, 2));
    const pp_shard_op *cat = def_op(f, "2");
    CHECK(cat && cat->kind == PP_SHARD_OP_CONCATENATE && cat->dim == 1 && cat->n_operands == 2);
    const pp_shard_op *sl = def_op(f, "3");
    CHECK(sl && sl->kind == PP_SHARD_OP_SLICE && INTS(&sl->start, 0, 0) && INTS(&sl->limit, 33, 79) &&
          INTS(&sl->strides, 1, 1));
    const pp_shard_op *cmp = def_op(f, "5");
    CHECK(cmp && cmp->kind == PP_SHARD_OP_COMPARE && cmp->compare == PP_SHARD_CMP_LT &&
          strcmp(cmp->compare_type, "SIGNED") == 0);
    const pp_shard_op *io = def_op(f, "15");
    CHECK(io && io->kind == PP_SHARD_OP_IOTA && io->dim == 0);
    const pp_shard_op *r = def_op(f, "26");
    CHECK(r && r->kind == PP_SHARD_OP_REDUCE && r->reducer == PP_SHARD_OP_ADD && INTS(&r->dims, 2));
    CHECK(r && r->n_operands == 2 && DIMS(&f->values[r->results[0]].type, 33, 79));
    const pp_shard_op *rmax = def_op(f, "56");
    CHECK(rmax && rmax->reducer == PP_SHARD_OP_MAXIMUM && INTS(&rmax->dims, 3));
    const pp_shard_op *b = def_op(f, "34");
    CHECK(b && b->kind == PP_SHARD_OP_BROADCAST_IN_DIM && INTS(&b->dims, 2));
    const pp_shard_op *sel = def_op(f, "8");
    CHECK(sel && sel->kind == PP_SHARD_OP_SELECT && sel->n_operands == 3);
    const pp_shard_op *cst = def_op(f, "cst");
    CHECK(cst && cst->kind == PP_SHARD_OP_CONSTANT && strcmp(cst->attrs, "dense<0xFF800000>") == 0);

    check_layer_windows(m, f);

    pp_shard_flat *flat = NULL;
    pp_error err = {0};
    CHECK(pp_shard_module_flatten(m, 0, &flat, &err) == PP_OK);
    if (flat) {
        /* eight layers, each calling silu once and _var twice; _var calls _where */
        CHECK_EQ_INT(paths_of(flat, "silu"), 8);
        CHECK_EQ_INT(paths_of(flat, "_var"), 17);
        CHECK_EQ_INT(paths_of(flat, "_where"), 17);
        CHECK_EQ_INT(paths_of(flat, "log_softmax"), 1);
        CHECK_EQ_INT(paths_of(flat, "apply_fn"), 1);
        CHECK_EQ_INT(flat->n_paths, 1 + 1 + 8 + 17 + 17 + 1);
        int per[64];
        scan_counts(text, "stablehlo.reduce", per, 64); /* main, apply_fn, _var, _where, silu, log_softmax */
        CHECK_EQ_INT(flat_kind(flat, PP_SHARD_OP_REDUCE), per[1] + 17 * per[2] + per[5]);
        CHECK_EQ_INT(flat_kind(flat, PP_SHARD_OP_DOT_GENERAL), 73);
        CHECK_EQ_INT(flat_kind(flat, PP_SHARD_OP_CALL) + flat_kind(flat, PP_SHARD_OP_RETURN), 0);
        CHECK_EQ_INT(flat->n_inputs, 95);
        CHECK_EQ_INT(flat->n_outputs, 1);
        CHECK(DIMS(&flat->values[flat->outputs[0]].type, 33, 79, 128));
        /* every silu path runs the same 8 ops of @silu, called from 8 distinct ops of apply_fn, in order */
        int32_t silu = pp_shard_module_find_func(m, "silu"), last_call = -1, seen = 0;
        for (int32_t p = 0; p < flat->n_paths; p++) {
            if (flat->paths[p].func != silu)
                continue;
            CHECK_EQ_INT(flat->paths[p].caller_func, fi);
            CHECK(flat->paths[p].call_op > last_call);
            CHECK_EQ_INT(flat->paths[p].depth, 2);
            last_call = flat->paths[p].call_op;
            int32_t next = 0;
            for (int32_t k = 0; k < flat->n_ops; k++)
                if (flat->ops[k].path == p) {
                    CHECK_EQ_INT(flat->ops[k].func, silu);
                    CHECK_EQ_INT(flat->ops[k].op, next);
                    next++;
                }
            CHECK_EQ_INT(next, 8);
            seen++;
        }
        CHECK_EQ_INT(seen, 8);
        check_topological(flat);
        pp_shard_flat_free(flat);
    }
    pp_shard_module_free(m);
    free(text);
}

static void test_resnet(void)
{
    size_t size;
    char *text = slurp(SHARED "jax_resnet_50.mlir", &size);
    pp_shard_module *m = load(SHARED "jax_resnet_50.mlir");
    if (!m || !text) {
        free(text);
        pp_shard_module_free(m);
        return;
    }
    check_counts(m, text);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_CONVOLUTION), 53);
    CHECK_EQ_INT(total(m, PP_SHARD_OP_REDUCE_WINDOW), 2);
    const pp_shard_func *f = &m->funcs[m->entry];
    CHECK_EQ_INT(f->n_results, 2);
    CHECK(f->results[1].attrs && strstr(f->results[1].attrs, ".pooler_output"));
    int convs = 0;
    for (int32_t k = 0; k < f->n_ops; k++) {
        const pp_shard_op *op = &f->ops[k];
        if (op->kind != PP_SHARD_OP_CONVOLUTION)
            continue;
        const pp_shard_conv_dims *c = &op->conv;
        convs += c->in_batch == 0 && c->in_feature == 3 && INTS(&c->in_spatial, 1, 2) && c->kernel_in == 2 &&
                 c->kernel_out == 3 && INTS(&c->kernel_spatial, 0, 1) && c->out_batch == 0 && c->out_feature == 3 &&
                 INTS(&c->out_spatial, 1, 2) && c->feature_group_count == 1 && c->batch_group_count == 1;
    }
    CHECK_EQ_INT(convs, 53);
    const pp_shard_op *c1 = def_op(f, "1");
    CHECK(c1 && DIMS(&f->values[c1->results[0]].type, 1, 112, 112, 64));
    CHECK(c1 && strstr(c1->attrs, "stride = [2, 2]"));
    const pp_shard_op *pool = def_op(f, "18");
    CHECK(pool && pool->kind == PP_SHARD_OP_REDUCE_WINDOW && pool->reducer == PP_SHARD_OP_MAXIMUM);
    CHECK(pool && INTS(&pool->dims, 1, 3, 3, 1) && INTS(&pool->strides, 1, 2, 2, 1));
    CHECK(pool && pool->body_count == 2 && f->body_ops[pool->body_first].kind == PP_SHARD_OP_MAXIMUM);
    const pp_shard_op *avg = def_op(f, "864");
    CHECK(avg && avg->reducer == PP_SHARD_OP_ADD && INTS(&avg->dims, 1, 7, 7, 1));
    CHECK(avg && DIMS(&f->values[avg->results[0]].type, 1, 1, 1, 2048));
    pp_shard_flat *flat = NULL;
    pp_error err = {0};
    CHECK(pp_shard_module_flatten(m, 0, &flat, &err) == PP_OK);
    if (flat) {
        int calls[64];
        scan_counts(text, "call", calls, 64);
        CHECK_EQ_INT(flat->n_paths, 1 + calls[0]);
        CHECK_EQ_INT(flat_kind(flat, PP_SHARD_OP_CONVOLUTION), 53);
        CHECK_EQ_INT(flat->n_outputs, 2);
        check_topological(flat);
        pp_shard_flat_free(flat);
    }
    pp_shard_module_free(m);
    free(text);
}

static const pp_shard_op_kind *kinds_of(const pp_shard_func *f, pp_shard_op_kind *out)
{
    for (int32_t k = 0; k < f->n_ops; k++)
        out[k] = f->ops[k].kind;
    return out;
}

static void test_mlp(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/mlp.mlir");
    if (!m)
        return;
    const pp_shard_func *f = &m->funcs[0];
    pp_shard_op_kind k[16];
    kinds_of(f, k);
    CHECK_EQ_INT(f->n_ops, 6);
    CHECK(k[0] == PP_SHARD_OP_DOT_GENERAL && k[1] == PP_SHARD_OP_CONSTANT && k[2] == PP_SHARD_OP_BROADCAST_IN_DIM &&
          k[3] == PP_SHARD_OP_MAXIMUM && k[4] == PP_SHARD_OP_DOT_GENERAL && k[5] == PP_SHARD_OP_RETURN);
    CHECK(DIMS(&value(f, "y")->type, 256, 64));
    CHECK(DIMS(&value(f, "w")->type, 256, 16));
    CHECK(INTS(&f->ops[0].dot.lhs_contract, 1) && INTS(&f->ops[0].dot.rhs_contract, 0) &&
          f->ops[0].dot.lhs_batch.n == 0);
    CHECK(f->ops[3].operands[0] == f->ops[0].results[0]);
    CHECK(f->args[1].sharding && strcmp(f->args[1].sharding, "{replicated}") == 0);
    CHECK(strcmp(f->values[1].name, "w1") == 0 && f->values[1].op == -1 && f->values[1].index == 1);
    pp_shard_module_free(m);
}

static void test_transpose_matmul(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/transpose_matmul.mlir");
    if (!m)
        return;
    const pp_shard_func *f = &m->funcs[0];
    CHECK_EQ_INT(f->n_ops, 3);
    CHECK(f->ops[0].kind == PP_SHARD_OP_TRANSPOSE && INTS(&f->ops[0].dims, 1, 0));
    CHECK(f->ops[1].kind == PP_SHARD_OP_DOT_GENERAL && f->ops[1].operands[0] == 0 &&
          f->ops[1].operands[1] == f->ops[0].results[0]);
    CHECK(DIMS(&value(f, "y")->type, 8, 8));
    pp_shard_module_free(m);
}

static void test_attention(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/attention.mlir");
    if (!m)
        return;
    const pp_shard_func *f = &m->funcs[0];
    CHECK_EQ_INT(f->n_ops, 11);
    CHECK_EQ_INT(count_kind(f, PP_SHARD_OP_DOT_GENERAL), 5);
    const pp_shard_op *q = def_op(f, "q");
    CHECK(q && q->kind == PP_SHARD_OP_DOT_GENERAL && INTS(&q->dot.lhs_contract, 1) && INTS(&q->dot.rhs_contract, 0));
    CHECK(q && strcmp(q->name, "stablehlo.dot_general") == 0 && q->line == 7);
    const pp_shard_op *b = def_op(f, "b");
    CHECK(b && b->kind == PP_SHARD_OP_REDUCE && INTS(&b->dims, 1) && b->reducer == PP_SHARD_OP_ADD);
    CHECK(DIMS(&value(f, "b")->type, 128));
    const pp_shard_op *c = def_op(f, "c");
    CHECK(c && INTS(&c->dims, 0));
    CHECK(DIMS(&value(f, "z")->type, 128, 48));
    CHECK(m->attrs && strstr(m->attrs, "mhlo.num_partitions"));
    pp_shard_module_free(m);
}

static void test_layers(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/layers.mlir");
    pp_shard_flat *flat = NULL;
    pp_error err = {0};
    if (!m || pp_shard_module_flatten(m, 0, &flat, &err) != PP_OK) {
        CHECK(0);
        pp_shard_module_free(m);
        return;
    }
    /* paths: 0 main, 1 layer, 2 act (in layer 1), 3 layer, 4 act (in layer 2) */
    CHECK_EQ_INT(flat->n_paths, 5);
    int32_t layer = pp_shard_module_find_func(m, "layer"), act = pp_shard_module_find_func(m, "act");
    CHECK(flat->paths[1].func == layer && flat->paths[1].parent == 0 && flat->paths[1].call_op == 0);
    CHECK(flat->paths[2].func == act && flat->paths[2].parent == 1 && flat->paths[2].depth == 2);
    CHECK(flat->paths[3].func == layer && flat->paths[3].call_op == 1);
    CHECK(flat->paths[4].func == act && flat->paths[4].parent == 3);
    CHECK_EQ_INT(flat->n_ops, 4); /* dot, tanh, dot, tanh */
    CHECK(flat->ops[0].path == 1 && flat->ops[1].path == 2 && flat->ops[2].path == 3 && flat->ops[3].path == 4);
    CHECK_EQ_INT(flat->ops[0].operands[0], 0);  /* x */
    CHECK_EQ_INT(flat->ops[0].operands[1], 1);  /* w0 */
    CHECK_EQ_INT(flat->ops[2].operands[1], 2);  /* w1 */
    CHECK_EQ_INT(flat->ops[2].operands[0], flat->ops[1].results[0]);
    CHECK_EQ_INT(flat->outputs[0], flat->ops[3].results[0]);
    check_topological(flat);
    pp_error big = {0};
    pp_shard_flat *none = NULL;
    CHECK(pp_shard_module_flatten(m, 3, &none, &big) == PP_EINPUT && none == NULL);
    CHECK(strstr(big.message, "more than 3 ops"));
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
}

static void test_unknown(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/unknown_op.mlir");
    if (!m)
        return;
    const pp_shard_func *f = &m->funcs[0];
    CHECK_EQ_INT(m->n_warnings, 4);
    if (m->n_warnings == 4) {
        CHECK(strcmp(m->warnings[0].op_name, "stablehlo.custom_call") == 0 && m->warnings[0].count == 2);
        CHECK(strstr(m->warnings[0].message, "unknown_op.mlir:4:10: stablehlo.custom_call @my_kernel kept as opaque"));
        CHECK(strcmp(m->warnings[1].op_name, "mydialect.split") == 0 && m->warnings[1].count == 1);
        CHECK(strcmp(m->warnings[2].op_name, "stablehlo.while") == 0 && m->warnings[2].count == 1);
        CHECK(strcmp(m->warnings[3].op_name, "stablehlo.clamp") == 0 && m->warnings[3].count == 1);
    }
    CHECK_EQ_INT(f->n_ops, 8);
    /* the while: its two initial values as operands, its regions skipped, two results */
    const pp_shard_op *w = def_op(f, "4#0");
    CHECK(w && w->kind == PP_SHARD_OP_OPAQUE && w->n_operands == 2 && w->n_results == 2 && w->body_count == 0);
    CHECK(w && w->operands[0] == value(f, "c") - f->values && w->operands[1] == f->ops[3].results[0]);
    CHECK(w && DIMS(&f->values[w->results[1]].type, 4, 8) && f->values[w->results[0]].type.rank == 0);
    const pp_shard_op *cl = def_op(f, "6");
    CHECK(cl && cl->kind == PP_SHARD_OP_OPAQUE && cl->n_operands == 3 && cl->operands[1] == w->results[1]);
    CHECK(f->ops[0].kind == PP_SHARD_OP_OPAQUE && f->ops[0].n_operands == 1 && f->ops[0].operands[0] == 0);
    CHECK(f->ops[1].kind == PP_SHARD_OP_OPAQUE && f->ops[1].operands[0] == f->ops[0].results[0]);
    CHECK(f->ops[2].kind == PP_SHARD_OP_OPAQUE && f->ops[2].n_operands == 2 && f->ops[2].n_results == 2);
    CHECK(f->ops[3].operands[0] == f->ops[2].results[0] && f->ops[3].operands[1] == f->ops[2].results[1]);
    CHECK(DIMS(&f->values[f->ops[2].results[1]].type, 4, 8));
    pp_shard_module_free(m);
}

static void test_generic(void)
{
    pp_shard_module *m = load(PP_DATA_DIR "/generic.mlir");
    if (!m)
        return;
    const pp_shard_func *f = &m->funcs[0];
    const pp_shard_op *g = def_op(f, "0");
    CHECK(g && g->kind == PP_SHARD_OP_GATHER && INTS(&g->gather.offset_dims, 1) && INTS(&g->gather.slice_sizes, 1, 8));
    const pp_shard_op *r = def_op(f, "1");
    CHECK(r && r->kind == PP_SHARD_OP_REDUCE && INTS(&r->dims, 1) && r->reducer == PP_SHARD_OP_ADD);
    CHECK(r && r->body_count == 2 && f->body_ops[r->body_first + 1].kind == PP_SHARD_OP_RETURN);
    CHECK(value(f, "x") && value(f, "x")->op == -2 && value(f, "y")->index == 1);
    CHECK(value(f, "m") && value(f, "m")->in_body == 1);
    const pp_shard_op *sl = def_op(f, "2");
    CHECK(sl && INTS(&sl->start, 0, 0) && INTS(&sl->limit, 4, 8) && INTS(&sl->strides, 2, 1));
    const pp_shard_op *cmp = def_op(f, "3");
    CHECK(cmp && cmp->compare == PP_SHARD_CMP_GE && strcmp(cmp->compare_type, "") == 0);
    CHECK(DIMS(&value(f, "3")->type, 2, 8) && strcmp(value(f, "3")->type.elem, "i1") == 0 &&
          value(f, "3")->type.bits == 1);
    const pp_shard_op *io = def_op(f, "5");
    CHECK(io && io->kind == PP_SHARD_OP_IOTA && io->dim == 1);
    CHECK(value(f, "7#1") && value(f, "7#1")->index == 1);
    CHECK_EQ_INT(m->n_warnings, 2);
    CHECK_EQ_INT(count_kind(f, PP_SHARD_OP_OPAQUE), 2);
    pp_shard_module_free(m);
}

/* Shardy's output as the writer gives it: mesh declarations (one with a
 * quoted name and '>' inside a string) before the entry, and types with a
 * bounds encoding (its '?' is the encoding's, not a dimension), whose shape
 * and element type are kept. */
static const char sdy_text[] =
    "module @m attributes {mhlo.num_partitions = 8 : i32} {\n"
    "  sdy.mesh @mesh = <[\"b\"=2, \"m\"=4]>\n"
    "  sdy.mesh @\"other mesh\" = <[\"x>\"=2], device_ids=[1, 0]> loc(\"m\":1:1)\n"
    "  func.func @main(%a: tensor<8x16xf32, #stablehlo.bounds<?, 16>> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>},\n"
    "                  %b: tensor<4xbf16, \"enc>\">) -> tensor<8x16xf32, #stablehlo.bounds<?, 16>> {\n"
    "    %c = stablehlo.negate %a : tensor<8x16xf32, #stablehlo.bounds<?, 16>>\n"
    "    return %c : tensor<8x16xf32, #stablehlo.bounds<?, 16>>\n"
    "  }\n"
    "}\n";

static void test_sdy_and_bounds(void)
{
    pp_shard_module *m = NULL;
    pp_error err = {0};
    pp_status st = pp_shard_module_parse("sdy.mlir", sdy_text, strlen(sdy_text), &m, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(st == PP_OK);
    if (st != PP_OK)
        return;
    CHECK_EQ_INT(m->n_funcs, 1);
    const pp_shard_func *f = &m->funcs[m->entry];
    CHECK_EQ_INT(f->n_args, 2);
    CHECK_EQ_INT(f->n_results, 1);
    const pp_shard_type *a = &f->args[0].type, *b = &f->args[1].type, *r = &f->results[0].type;
    CHECK(a->rank == 2 && a->dims[0] == 8 && a->dims[1] == 16 && strcmp(a->elem, "f32") == 0 && a->bits == 32);
    CHECK(b->rank == 1 && b->dims[0] == 4 && strcmp(b->elem, "bf16") == 0 && b->bits == 16);
    CHECK(r->rank == 2 && r->dims[0] == 8 && r->dims[1] == 16 && strcmp(r->elem, "f32") == 0);
    CHECK(f->args[0].attrs && strcmp(f->args[0].attrs, "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}") == 0);
    CHECK_EQ_INT(f->n_ops, 2);
    CHECK(f->ops[0].kind == PP_SHARD_OP_NEGATE && f->ops[1].kind == PP_SHARD_OP_RETURN);
    CHECK_EQ_INT(f->line, 4);
    pp_shard_module_free(m);
}

/* A module around one function body, for the malformed cases. Line 1 is
 * "module {", line 2 the func header, the body starts on line 3. */
#define HEAD "module {\n  func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {\n"
#define TAIL "  }\n}\n"
#define RET "    return %d : tensor<4x2xf32>\n"
#define HEAD_FUNC "  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
#define RET_A "    return %a : tensor<4xf32>\n"

static const struct {
    const char *text;
    const char *where; /* "LINE:COL: " */
    const char *why;
} BAD[] = {
    /* A dynamic dimension is refused where it is written: no model holds
     * one (issue 32 item 11). */
    {"module {\n  func.func @main(%a: tensor<?x32xf32>) -> tensor<32xf32> {\n", "2:30: ",
     "dimension 0 of the tensor type is dynamic ('?'): the sharder needs static shapes"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.negate %a : tensor<4x?xf32>\n",
     "3:41: ", "dimension 1 of the tensor type is dynamic ('?')"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %a : tensor<4xf32>\n", "4:1: ",
     "expected '}' to close the block, got end of input"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %a : tensor<4xf32>\n  }\n", "5:1: ",
     "expected '}' to close the module, got end of input"},
    {"module {\n  func.func @main(%a: tensor<4x", "2:32: ", "expected an element type"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.add %a, %a", "3:30: ",
     "expected ':' and the op's types"},
    {HEAD "    %d = foo %a : tensor<4x8xf32>\n" TAIL, "3:10: ", "expected an op name"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x3xf32>\n" RET TAIL,
     "3:10: ", "result dimension 1 should be 2, not 3"},
    {HEAD "    %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n" RET TAIL,
     "3:10: ", "contracting dimension sizes differ: lhs 8, rhs 4"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>\n" RET TAIL,
     "3:10: ", "operand #1 %b has type tensor<8x2xf32> but the op says tensor<8x3xf32>"},
    {HEAD "    %c = stablehlo.add %a, %b : tensor<4x8xf32>\n" TAIL, "3:10: ",
     "operand #1 %b has type tensor<8x2xf32> but the op says tensor<4x8xf32>"},
    {HEAD "    %c = stablehlo.add %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x8xf32>\n" TAIL, "3:10: ",
     "operand #1 has shape tensor<8x2xf32> but the result has tensor<4x8xf32>"},
    {HEAD "    %c = stablehlo.add %a, %zz : tensor<4x8xf32>\n" TAIL, "3:28: ", "%zz is not defined"},
    {HEAD "    %a = stablehlo.negate %a : tensor<4x8xf32>\n" TAIL, "3:5: ", "%a is defined twice"},
    {HEAD "    %d = call @nowhere(%a) : (tensor<4x8xf32>) -> tensor<4x2xf32>\n" RET TAIL, "3:10: ",
     "call to an unknown function @nowhere"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x8xf33>\n" TAIL, "3:43: ", "unknown element type 'f33'"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x>\n" TAIL, "3:41: ", "expected an element type"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4;8xf32>\n" TAIL, "3:40: ", "expected 'x' after a tensor dimension"},
    {HEAD "    %d = stablehlo.negate %a : vector<4xf32>\n" TAIL, "3:32: ", "expected a tensor type, got 'vector'"},
    {HEAD "    %d = stablehlo.transpose %a, dims = [0, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>\n" TAIL, "3:10: ",
     "transpose dimension 0 is repeated"},
    {HEAD "    %d = stablehlo.reshape %a : (tensor<4x8xf32>) -> tensor<4x2xf32>\n" RET TAIL, "3:10: ",
     "reshape: 32 elements cannot become 8"},
    {HEAD "    %d = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x2xf32>\n" RET TAIL,
     "3:10: ", "operand dimension 1 (size 8) cannot become size 2"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n"
          "    return %d : tensor<4x8xf32>\n" TAIL,
     "4:5: ", "operand #0 %d has type tensor<4x2xf32> but the op says tensor<4x8xf32>"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n"
          "    return %a : tensor<4x8xf32>\n" TAIL,
     "4:5: ", "@main returns tensor<4x8xf32> as result #0, declared tensor<4x2xf32>"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n" TAIL,
     "4:3: ", "the block does not end with a return"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n"
     "  func.func private @f(%a: tensor<2xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n",
     "3:10: ", "call @f: argument #0 has type tensor<4xf32> but the function takes tensor<2xf32>"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = call @main(%a) : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n",
     "3:10: ", "recursive call to @main"},
    {HEAD "    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n" RET TAIL
     "  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %a : tensor<4xf32>\n  }\n",
     "7:13: ", "function @main is defined twice"},
    {HEAD "    %d = stablehlo.negate %a, : tensor<4x8xf32>\n" TAIL, "3:31: ", "expected a value or 'name = ...' after ','"},
    {HEAD "    %c = \"stablehlo.negate\"(%a {x} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n" TAIL, "3:32: ",
     "expected ')' after operands, got '{'"},
    {HEAD "    %c:2 = stablehlo.negate %a : tensor<4x8xf32>\n" TAIL, "3:12: ",
     "gives 1 result(s) but 2 name(s) receive them"},
    {HEAD "    %c = stablehlo.reduce(%a init: %a) applies stablehlo.add across dimensions = [5] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32>\n" TAIL,
     "3:10: ", "reduce dimension 5 is out of range for rank 2"},
    {HEAD "    %c = stablehlo.compare %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>\n" TAIL, "3:28: ",
     "expected the comparison direction"},
    {"module {\n  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.negate %a : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n} junk\n",
     "6:3: ", "expected module or func.func, got 'junk'"},
    {"", "1:1: ", "no function in the input"},
    {"module {\n  sdy.mesh @mesh = <[\"b\"=2, \"m\"=4]\n", "2:20: ", "this bracket is never closed"},
    {"module {\n  sdy.mesh @mesh = <[\"b\"=2]\n" HEAD_FUNC RET_A "  }\n}\n", "6:1: ",
     "unbalanced '}': the bracket at 2:20 is not closed"},
    {"module {\n  sdy.mesh @mesh = <[\"b>\"=2]>\n  sdy.mesh @m2 = <[\"b\"=2]>>\n" HEAD_FUNC RET_A "  }\n}\n", "3:27: ",
     "expected func.func, sdy.mesh or '}', got '>'"},
    {"module {\n  sdy.mesh @mesh = <[\"b=2]>\n}\n", "2:22: ", "unterminated string"},
    {"module {\n  sdy.mesh mesh = <[]>\n}\n", "2:12: ", "expected the mesh's name (@name) after sdy.mesh, got 'mesh'"},
    {"module {\n  sdy.mesh @mesh [\"b\"=2]\n}\n", "2:18: ", "expected '=' after the mesh's name"},
    {"module {\n  sdy.mesh @mesh = [\"b\"=2]\n}\n", "2:20: ", "expected '<' to open the mesh"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x8xf32, #stablehlo.bounds<?, 8>\n" TAIL, "3:71: ",
     "expected '>' to end the tensor type"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x8xf32, #stablehlo.bounds<?, 8)>>\n" TAIL, "3:70: ",
     "unbalanced ')' in the tensor type's encoding"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x8xf32, >\n" TAIL, "3:48: ",
     "expected an encoding after ',' in the tensor type"},
    {HEAD "    %d = stablehlo.negate %a : tensor<4x8xf32, \"enc>\n" TAIL, "3:48: ", "unterminated string"},
    {HEAD "    %d = stablehlo.slice %a [0:, 0:8] : (tensor<4x8xf32>) -> tensor<4x8xf32>\n" TAIL, "3:29: ",
     "slice: expected 'start:limit' for each dimension"},
    {HEAD "    %d = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n" RET TAIL,
     "3:40: ", "spatial dimension 0 appears twice"},
    {"module { func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> } } \"open", "1:94: ",
     "unterminated string"},
    {"module {\n  func.func @main(%a: tensor<4xf32> {mhlo.sharding = \"{replicated}\", mhlo.sharding = \"{maximal device=0}\"}) -> tensor<4xf32> {\n" RET_A TAIL,
     "2:70: ", "attribute 'mhlo.sharding' given twice (first at 2:38)"},
};

static void test_malformed(void)
{
    int n = (int)(sizeof BAD / sizeof BAD[0]);
    CHECK(n >= 20);
    for (int k = 0; k < n; k++) {
        pp_shard_module *m = NULL;
        pp_error err = {0};
        pp_status st = pp_shard_module_parse("bad.mlir", BAD[k].text, strlen(BAD[k].text), &m, &err);
        char want[128];
        snprintf(want, sizeof want, "bad.mlir:%s", BAD[k].where);
        if (st != PP_EINPUT || m || strncmp(err.message, want, strlen(want)) != 0 || !strstr(err.message, BAD[k].why)) {
            fprintf(stderr, "case %d: status %d, message \"%s\"; wanted \"%s...%s\"\n", k, (int)st, err.message, want,
                    BAD[k].why);
            check_failures++;
        }
        pp_shard_module_free(m);
    }
    pp_shard_module *m = NULL;
    pp_error err = {0};
    CHECK(pp_shard_module_load(PP_DATA_DIR "/no_such_file.mlir", &m, &err) == PP_EIO && m == NULL);
}

/* Texts the fuzzer met: a NUL byte inside a string (it would cut the
 * attribute text kept as a C string), and a buffer that ends in a result
 * count with no terminator after it (read in place, not past its end;
 * ASan checks). */
static void test_unterminated_and_nul(void)
{
    static const char with_nul[] = "module {\n  func.func @main(%a: tensor<4xf32> {x = \"a\0b\"}) -> tensor<4xf32> {\n" RET_A TAIL;
    pp_shard_module *m = NULL;
    pp_error err = {0};
    CHECK(pp_shard_module_parse("nul.mlir", with_nul, sizeof with_nul - 1, &m, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "nul.mlir:2:44: a NUL byte") != NULL);
    static const char cut[] = "func.func @main() {\n  %0:2";
    char *exact = malloc(sizeof cut - 1);
    CHECK(exact != NULL);
    if (!exact)
        return;
    memcpy(exact, cut, sizeof cut - 1);
    pp_error_clear(&err);
    CHECK(pp_shard_module_parse("cut.mlir", exact, sizeof cut - 1, &m, &err) == PP_EINPUT && m == NULL);
    CHECK(strncmp(err.message, "cut.mlir:2:", 11) == 0);
    free(exact);
}

int main(void)
{
    test_unterminated_and_nul();
    test_chess();
    test_resnet();
    test_mlp();
    test_transpose_matmul();
    test_attention();
    test_layers();
    test_unknown();
    test_generic();
    test_sdy_and_bounds();
    test_malformed();
    return CHECK_DONE();
}
