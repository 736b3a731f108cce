/* test_nda.c: the named-dimension analysis (src/shard/nda.c, conflicts.c,
 * layers.c, explain.c) on paper 004's worked examples: the MLP of figures 2
 * and 4 (its colors and the identities the paper lists), the transpose-matmul
 * conflict of section 3.3, the attention of figure 5 (five conflicts in one
 * compatibility set, two resolutions, the resharding each implies counted
 * here independently), single op rules on small modules, a constant two
 * matmuls' outputs share (a copy per use), and the shared
 * models (searchless_chess_9m's eight inline layers as one group). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/shard.h"
#include "shard/shard_internal.h"

#define SHARED PP_SOURCE_DIR "/examples/shard/"

typedef struct {
    pp_shard_module *m;
    pp_shard_flat *flat;
    pp_shard_nda *nda;
} analysed;

static bool finish(analysed *A, pp_status st, const pp_error *err)
{
    if (st == PP_OK)
        st = pp_shard_module_flatten(A->m, 0, &A->flat, (pp_error *)err);
    if (st == PP_OK)
        st = pp_shard_nda_run(A->flat, &A->nda, (pp_error *)err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err->message);
    CHECK(st == PP_OK);
    return st == PP_OK;
}

static bool analyse(analysed *A, const char *path)
{
    pp_error err = {0};
    memset(A, 0, sizeof *A);
    return finish(A, pp_shard_module_load(path, &A->m, &err), &err);
}

static bool analyse_text(analysed *A, const char *text)
{
    pp_error err = {0};
    memset(A, 0, sizeof *A);
    return finish(A, pp_shard_module_parse("inline.mlir", text, strlen(text), &A->m, &err), &err);
}

static void release(analysed *A)
{
    pp_shard_nda_free(A->nda);
    pp_shard_flat_free(A->flat);
    pp_shard_module_free(A->m);
}

/* The flat value of the entry named `name` (the definition tensor has the same index). */
static int32_t val(const analysed *A, const char *name)
{
    for (int32_t v = 0; v < A->flat->n_values; v++) {
        const pp_shard_flat_value *fv = &A->flat->values[v];
        if (fv->path == 0 && strcmp(A->m->funcs[fv->func].values[fv->value].name, name) == 0)
            return v;
    }
    fprintf(stderr, "no value %%%s\n", name);
    CHECK(0);
    return 0;
}

/* The use tensor of operand k of the op defining `result`. */
static int32_t use(const analysed *A, const char *result, int32_t k)
{
    return A->nda->op_use[A->flat->values[val(A, result)].op] + k;
}

static int32_t name_of(const analysed *A, int32_t tensor, int32_t d)
{
    return A->nda->tensors[tensor].first + d;
}

static int32_t color(const analysed *A, int32_t tensor, int32_t d)
{
    return A->nda->color[name_of(A, tensor, d)];
}

static bool same_i(const analysed *A, int32_t t1, int32_t d1, int32_t t2, int32_t d2)
{
    return A->nda->iclass[name_of(A, t1, d1)] == A->nda->iclass[name_of(A, t2, d2)];
}

/* Figure 4: with I and M the MLP's names are B, X, U, W:
 * mlp(x:[B,X], w1:[X,U], w2:[U,W]), y,z:[B,U], w:[B,W]. The paper's
 * identities from I (figure 4a): A1=B1, A2=U1, X1=T1 for the first matmul;
 * C1=D1, C2=D2 for ReLU; E1=F1, E2=W1, F2=V1 for the second. */
static void test_mlp(void)
{
    analysed A;
    if (!analyse(&A, PP_DATA_DIR "/mlp.mlir"))
        return;
    int32_t x = val(&A, "x"), w1 = val(&A, "w1"), w2 = val(&A, "w2"), y = val(&A, "y"), z = val(&A, "z"),
            w = val(&A, "w");
    int32_t B = color(&A, x, 0), X = color(&A, x, 1), U = color(&A, w1, 1), W = color(&A, w2, 1);
    CHECK_EQ_INT(A.nda->n_colors, 4);
    CHECK(B != X && B != U && B != W && X != U && X != W && U != W);
    CHECK_EQ_INT(A.nda->colors[B].size, 256);
    CHECK_EQ_INT(A.nda->colors[X].size, 32);
    CHECK_EQ_INT(A.nda->colors[U].size, 64);
    CHECK_EQ_INT(A.nda->colors[W].size, 16);
    CHECK(color(&A, y, 0) == B && color(&A, z, 0) == B && color(&A, w, 0) == B);
    CHECK(color(&A, w1, 0) == X);
    CHECK(color(&A, y, 1) == U && color(&A, z, 1) == U && color(&A, w2, 0) == U);
    CHECK(color(&A, w, 1) == W);
    /* the batch color touches x, y, zeros, z, w; the hidden one w1, w2, y, zeros, z */
    CHECK_EQ_INT(A.nda->colors[B].n_values, 5);
    CHECK_EQ_INT(A.nda->colors[U].n_values, 5);
    CHECK_EQ_INT(A.nda->colors[X].n_values, 2);
    CHECK_EQ_INT(A.nda->colors[W].n_values, 2);
    int32_t ux = use(&A, "y", 0), uw1 = use(&A, "y", 1), uy = use(&A, "z", 0), uz = use(&A, "w", 0),
            uw2 = use(&A, "w", 1);
    CHECK(same_i(&A, y, 0, ux, 0) && same_i(&A, y, 1, uw1, 1) && same_i(&A, ux, 1, uw1, 0));
    CHECK(same_i(&A, z, 0, uy, 0) && same_i(&A, z, 1, uy, 1));
    CHECK(same_i(&A, w, 0, uz, 0) && same_i(&A, w, 1, uw2, 1) && same_i(&A, uz, 1, uw2, 0));
    /* I alone keeps definitions apart from their uses (figure 4b: B -> A1 is an M entry) */
    CHECK(!same_i(&A, x, 0, ux, 0) && !same_i(&A, y, 0, uy, 0) && !same_i(&A, w1, 0, uw1, 0));
    CHECK(!same_i(&A, ux, 0, ux, 1));
    CHECK_EQ_INT(A.nda->n_conflicts, 0);
    CHECK_EQ_INT(A.nda->n_sets, 0);
    /* names: 2 per rank-2 definition (x w1 w2 y zeros z w) or use (x w1 y
     * zeros z w2, and w by return); the scalar zero has none */
    CHECK_EQ_INT(A.nda->n_names, 2 * (7 + 7));
    /* sharding the hidden color shards dim 1 of w1 and dim 0 of w2 */
    CHECK_EQ_INT(pp_shard_nda_sharded_dim(A.nda, U, NULL, w1), 1);
    CHECK_EQ_INT(pp_shard_nda_sharded_dim(A.nda, U, NULL, w2), 0);
    CHECK_EQ_INT(pp_shard_nda_sharded_dim(A.nda, U, NULL, x), -1);
    release(&A);
}

/* Section 3.3: z = x . x^T has S on both dims, a conflict on y (and on its
 * use by return); resolving it shards one dim of y, never both. */
static void test_transpose_matmul(void)
{
    analysed A;
    if (!analyse(&A, PP_DATA_DIR "/transpose_matmul.mlir"))
        return;
    int32_t x = val(&A, "x"), xt = val(&A, "xt"), y = val(&A, "y");
    int32_t S = color(&A, x, 0), T = color(&A, x, 1);
    CHECK_EQ_INT(A.nda->n_colors, 2);
    CHECK(S != T && color(&A, xt, 1) == S && color(&A, xt, 0) == T);
    CHECK(color(&A, y, 0) == S && color(&A, y, 1) == S);
    CHECK(A.nda->n_conflicts >= 1);
    bool on_y = false;
    for (int32_t k = 0; k < A.nda->n_conflicts; k++) {
        CHECK_EQ_INT(A.nda->conflicts[k].color, S);
        on_y |= A.nda->conflicts[k].tensor == y;
    }
    CHECK(on_y);
    CHECK_EQ_INT(A.nda->colors[S].n_conflicts, A.nda->n_conflicts);
    CHECK_EQ_INT(A.nda->colors[S].n_twice, 1); /* y */
    CHECK_EQ_INT(A.nda->colors[T].n_conflicts, 0);
    uint8_t bits[8] = {0};
    int32_t d0 = pp_shard_nda_sharded_dim(A.nda, S, bits, y);
    memset(bits, 1, sizeof bits);
    int32_t d1 = pp_shard_nda_sharded_dim(A.nda, S, bits, y);
    CHECK(d0 >= 0 && d1 >= 0 && d0 != d1);
    CHECK_EQ_INT(pp_shard_nda_sharded_dim(A.nda, S, bits, x), 0);
    release(&A);
}

/* Resharding a sharding of `color` implies, counted from the definition
 * and use tensors: a use not sharded while its definition is (all_gather),
 * and a dot_general whose contracting pair is sharded (a reduction across
 * devices: reduce_scatter when the result's consumer is sharded). */
static void count_collectives(const analysed *A, int32_t color, const uint8_t *bits, int *gathers, int *reductions)
{
    const pp_shard_nda *nda = A->nda;
    *gathers = *reductions = 0;
    for (int32_t t = A->flat->n_values; t < nda->n_tensors; t++)
        *gathers += pp_shard_nda_sharded_dim(nda, color, bits, nda->tensors[t].value) >= 0 &&
                    pp_shard_nda_sharded_dim(nda, color, bits, t) < 0;
    for (int32_t i = 0; i < A->flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(A->flat, i);
        if (op->kind != PP_SHARD_OP_DOT_GENERAL)
            continue;
        int32_t d = pp_shard_nda_sharded_dim(nda, color, bits, nda->op_use[i]);
        *reductions += d >= 0 && d == op->dot.lhs_contract.v[0];
    }
}

/* Figure 5: the five conflicts (a, c, d and the uses of a by reduce and of
 * d by the last matmul, as this analysis' iclasses give them) form one
 * compatibility set; of its two resolutions the one sharding the last dims
 * of a, c and d is sequence sharding (figure 5b): one all_gather (k) and
 * one reduce_scatter (z); the other needs two all_gathers (qt and v). */
static void test_attention(void)
{
    analysed A;
    if (!analyse(&A, PP_DATA_DIR "/attention.mlir"))
        return;
    const pp_shard_nda *nda = A.nda;
    int32_t x = val(&A, "x"), a = val(&A, "a"), c = val(&A, "c"), d = val(&A, "d"), z = val(&A, "z");
    int32_t S = color(&A, x, 0);
    CHECK_EQ_INT(nda->n_colors, 4); /* S, D, H1, H2 */
    CHECK_EQ_INT(nda->n_conflicts, 5);
    CHECK_EQ_INT(nda->n_sets, 1);
    CHECK_EQ_INT(nda->sets[0].n_conflicts, 5);
    CHECK_EQ_INT(nda->sets[0].color, S);
    CHECK(nda->sets[0].consistent);
    CHECK_EQ_INT(nda->colors[S].n_twice, 3); /* a, c, d as figure 5a shows them */
    int32_t want[5] = {a, c, d, use(&A, "b", 0), use(&A, "z", 0)}, found = 0;
    for (int32_t k = 0; k < 5; k++)
        for (int32_t j = 0; j < nda->n_conflicts; j++)
            found += nda->conflicts[j].tensor == want[k];
    CHECK_EQ_INT(found, 5);
    uint8_t seq = 2;
    for (uint8_t r = 0; r < 2; r++)
        if (pp_shard_nda_sharded_dim(nda, S, &r, a) == 1)
            seq = r;
    CHECK(seq < 2);
    if (seq < 2) {
        uint8_t other = (uint8_t)!seq;
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, c), 1);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, d), 1);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &other, a), 0);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &other, d), 0);
        int g, red;
        count_collectives(&A, S, &seq, &g, &red);
        CHECK_EQ_INT(g, 1);
        CHECK_EQ_INT(red, 1);
        /* the gather is of k, the reduction's result z is unsharded but its use by return is sharded */
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, use(&A, "a", 0)), -1);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, val(&A, "k")), 0);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, z), -1);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &seq, nda->out_use), 0);
        count_collectives(&A, S, &other, &g, &red);
        CHECK_EQ_INT(g, 2);
        CHECK_EQ_INT(red, 0);
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &other, use(&A, "a", 1)), -1); /* qt */
        CHECK_EQ_INT(pp_shard_nda_sharded_dim(nda, S, &other, use(&A, "z", 1)), -1); /* v */
    }
    release(&A);
}

static const char RULES[] =
    "func.func @main(%a: tensor<4x6x8xf32>, %b: tensor<4x6xf32>, %c: tensor<1x6xf32>, %e: tensor<4x6xf32>,\n"
    "                %img: tensor<2x9x9x3xf32>, %k: tensor<3x3x3x5xf32>) -> (tensor<24x8xf32>, tensor<4x2x3xf32>) {\n"
    "  %r1 = stablehlo.reshape %a : (tensor<4x6x8xf32>) -> tensor<24x8xf32>\n"
    "  %r2 = stablehlo.reshape %b : (tensor<4x6xf32>) -> tensor<4x2x3xf32>\n"
    "  %bc = stablehlo.broadcast_in_dim %c, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<4x6xf32>\n"
    "  %cat = stablehlo.concatenate %b, %e, dim = 0 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %red = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6x8xf32>, tensor<f32>) -> tensor<4x8xf32>\n"
    "  %cv = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} "
    "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x9x3xf32>, tensor<3x3x3x5xf32>) -> tensor<2x7x7x5xf32>\n"
    "  %cl = stablehlo.clamp %z, %b, %z : (tensor<f32>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>\n"
    "  %op = \"foo.bar\"(%b) : (tensor<4x6xf32>) -> tensor<4x6xf32>\n"
    "  return %r1, %r2 : tensor<24x8xf32>, tensor<4x2x3xf32>\n"
    "}\n";

/* One rule at a time: reshape identifies only dims whose sizes factor at
 * the same point, broadcast_in_dim not a size-1 dim, concatenate all but
 * its dim, reduce the kept dims, convolution batch/feature but not spatial,
 * clamp position by position, an unknown op nothing. */
static void test_rules(void)
{
    analysed A;
    if (!analyse_text(&A, RULES))
        return;
    int32_t a = val(&A, "a"), b = val(&A, "b"), c = val(&A, "c"), e = val(&A, "e"), img = val(&A, "img"),
            k = val(&A, "k");
    int32_t r1 = val(&A, "r1"), r2 = val(&A, "r2"), bc = val(&A, "bc"), cat = val(&A, "cat"), red = val(&A, "red"),
            cv = val(&A, "cv");
    CHECK(color(&A, a, 2) == color(&A, r1, 1));
    CHECK(color(&A, a, 0) != color(&A, r1, 0) && color(&A, a, 1) != color(&A, r1, 0));
    CHECK(color(&A, b, 0) == color(&A, r2, 0));
    CHECK(color(&A, b, 1) != color(&A, r2, 1) && color(&A, b, 1) != color(&A, r2, 2));
    CHECK(color(&A, c, 1) == color(&A, bc, 1) && color(&A, c, 0) != color(&A, bc, 0));
    CHECK(color(&A, b, 1) == color(&A, cat, 1) && color(&A, e, 1) == color(&A, cat, 1));
    CHECK(color(&A, b, 0) != color(&A, cat, 0) && color(&A, e, 0) != color(&A, cat, 0));
    CHECK(color(&A, a, 0) == color(&A, red, 0) && color(&A, a, 2) == color(&A, red, 1));
    CHECK(color(&A, img, 0) == color(&A, cv, 0) && color(&A, k, 3) == color(&A, cv, 3));
    CHECK(color(&A, img, 3) == color(&A, k, 2));
    CHECK(color(&A, img, 1) != color(&A, cv, 1) && color(&A, k, 0) != color(&A, cv, 1));
    /* clamp (opaque to the reader) is elementwise; an unknown op identifies nothing */
    int32_t cl = val(&A, "cl"), op = val(&A, "op");
    CHECK(color(&A, b, 0) == color(&A, cl, 0) && color(&A, b, 1) == color(&A, cl, 1));
    CHECK(color(&A, b, 0) != color(&A, op, 0) && color(&A, b, 1) != color(&A, op, 1));
    CHECK(color(&A, op, 0) != color(&A, op, 1));
    release(&A);
}

static int32_t batched_dots(const analysed *A, int32_t from, int32_t to)
{
    int32_t n = 0;
    for (int32_t i = from; i < to; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(A->flat, i);
        n += op->kind == PP_SHARD_OP_DOT_GENERAL && op->dot.lhs_batch.n > 0;
    }
    return n;
}

static bool explain_has(const analysed *A, const char *needle)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return false;
    pp_shard_write_explain(A->nda, f);
    fclose(f);
    bool has = strstr(text, needle) != NULL;
    free(text);
    return has;
}

/* The chess transformer's eight layers are written inline in apply_fn: one
 * group of 8 equal stretches, each holding 2 of the model's 16 attention
 * dot_generals, with 8 isomorphic compatibility sets (the sequence
 * conflicts of each attention) and each layer's own weights grouped. */
static void test_chess(void)
{
    analysed A;
    if (!analyse(&A, SHARED "searchless_chess_9m.mlir"))
        return;
    const pp_shard_nda *nda = A.nda;
    CHECK_EQ_INT(batched_dots(&A, 0, A.flat->n_ops), 16);
    CHECK(nda->n_layer_groups >= 1);
    if (nda->n_layer_groups < 1) {
        release(&A);
        return;
    }
    const pp_shard_nda_layers *G = &nda->layer_groups[0];
    CHECK_EQ_INT(G->copies, 8);
    for (int32_t c = 0; c < G->copies; c++) {
        CHECK_EQ_INT(G->starts[c], G->starts[0] + c * G->length);
        CHECK_EQ_INT(batched_dots(&A, G->starts[c], G->starts[c] + G->length), 2);
    }
    CHECK_EQ_INT(nda->n_sets, 8);
    CHECK_EQ_INT(G->n_copy_sets, 1);
    uint8_t seen[64] = {0};
    for (int32_t c = 0; c < G->copies && G->n_copy_sets == 1; c++) {
        int32_t s = G->set_map[c];
        CHECK(s >= 0 && s < 8 && !seen[s]);
        seen[s & 63] = 1;
        CHECK_EQ_INT(nda->sets[s].n_conflicts, nda->sets[G->set_map[0]].n_conflicts);
        /* oriented alike: resolution r of one layer's set is resolution r of the others' */
        const pp_shard_nda_set *S0 = &nda->sets[G->set_map[0]], *S = &nda->sets[s];
        for (int32_t k = 0; k < S->n_conflicts && k < S0->n_conflicts; k++) {
            CHECK_EQ_INT(nda->conflicts[S->conflicts[k]].dim_a, nda->conflicts[S0->conflicts[k]].dim_a);
            CHECK_EQ_INT(nda->conflicts[S->conflicts[k]].dim_b, nda->conflicts[S0->conflicts[k]].dim_b);
        }
    }
    /* the weights: per layer q, k, v, o (256x256) and the MLP's, each used by one layer only */
    CHECK(G->n_copy_args >= 4);
    uint8_t arg_seen[128] = {0};
    for (int32_t j = 0; j < G->copies * G->n_copy_args; j++) {
        int32_t v = G->arg_map[j];
        CHECK(v >= 0 && v < A.flat->n_inputs && v < 128 && !arg_seen[v]);
        arg_seen[v & 127] = 1;
    }
    CHECK(G->n_copy_colors > 0);
    CHECK(explain_has(&A, "repeated-layer groups: 1\n  group 0: 8 layers of "));
    release(&A);
}

/* ResNet-50: no sequence-like conflicts; the image batch reaches the
 * output, convolutions identify channels with their kernels. */
static void test_resnet(void)
{
    analysed A;
    if (!analyse(&A, SHARED "jax_resnet_50.mlir"))
        return;
    CHECK(A.nda->n_colors > 0);
    CHECK_EQ_INT(A.nda->n_conflicts, 0);
    int32_t first_conv = -1;
    for (int32_t i = 0; i < A.flat->n_ops && first_conv < 0; i++)
        if (pp_shard_flat_op_of(A.flat, i)->kind == PP_SHARD_OP_CONVOLUTION)
            first_conv = i;
    CHECK(first_conv >= 0);
    if (first_conv >= 0) {
        int32_t u = A.nda->op_use[first_conv], r = A.flat->ops[first_conv].results[0];
        CHECK(color(&A, u, 0) == color(&A, r, 0));     /* batch */
        CHECK(color(&A, u + 1, 3) == color(&A, r, 3)); /* kernel out = output feature */
        CHECK(color(&A, u, 3) == color(&A, u + 1, 2)); /* input feature = kernel in */
        CHECK(color(&A, u, 1) != color(&A, r, 1));     /* spatial */
    }
    CHECK(explain_has(&A, "colors (dimensions sharded together): "));
    release(&A);
}

/* Four inline residual layers d = x.w, t = tanh d, o = (t.t^T).t, x' = x + o
 * with square weights: every 64-wide dim is one color, so each weight and
 * each t.t^T carries a conflict; each layer's two compatibility sets (one
 * through its weight, one through t.t^T) correspond across the layers. */
static void test_inline_layers(void)
{
    enum { N = 4 };
    char *text = malloc(16384);
    if (!text)
        return;
    int n = snprintf(text, 16384, "func.func @main(%%x: tensor<32x64xf32>");
    for (int i = 0; i < N; i++)
        n += snprintf(text + n, 16384 - (size_t)n, ", %%w%d: tensor<64x64xf32>", i);
    n += snprintf(text + n, 16384 - (size_t)n, ") -> tensor<32x64xf32> {\n");
    for (int i = 0; i < N; i++) {
        char prev[16];
        snprintf(prev, sizeof prev, i ? "%%r%d" : "%%x", i - 1);
        n += snprintf(text + n, 16384 - (size_t)n,
                      "  %%d%d = stablehlo.dot_general %s, %%w%d, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>\n"
                      "  %%t%d = stablehlo.tanh %%d%d : tensor<32x64xf32>\n"
                      "  %%u%d = stablehlo.transpose %%t%d, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>\n"
                      "  %%a%d = stablehlo.dot_general %%t%d, %%u%d, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>\n"
                      "  %%o%d = stablehlo.dot_general %%a%d, %%t%d, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>\n"
                      "  %%r%d = stablehlo.add %s, %%o%d : tensor<32x64xf32>\n",
                      i, prev, i, i, i, i, i, i, i, i, i, i, i, i, prev, i);
    }
    snprintf(text + n, 16384 - (size_t)n, "  return %%r%d : tensor<32x64xf32>\n}\n", N - 1);
    analysed A;
    bool ok = analyse_text(&A, text);
    free(text);
    if (!ok)
        return;
    const pp_shard_nda *nda = A.nda;
    CHECK_EQ_INT(nda->n_layer_groups, 1);
    CHECK_EQ_INT(nda->n_sets, 2 * N);
    if (nda->n_layer_groups == 1) {
        const pp_shard_nda_layers *G = &nda->layer_groups[0];
        CHECK_EQ_INT(G->copies, N);
        CHECK_EQ_INT(G->length, 6);
        CHECK_EQ_INT(G->n_copy_sets, 2);
        CHECK_EQ_INT(G->n_copy_args, 1);
        uint8_t seen[2 * N] = {0};
        for (int32_t c = 0; c < G->copies * G->n_copy_sets && G->n_copy_sets == 2; c++) {
            int32_t s = G->set_map[c];
            CHECK(s >= 0 && s < 2 * N && !seen[s]);
            seen[s % (2 * N)] = 1;
        }
        for (int32_t c = 0; c < G->copies && G->n_copy_args == 1; c++) {
            char w[16];
            snprintf(w, sizeof w, "w%d", (int)c);
            CHECK_EQ_INT(G->arg_map[c], val(&A, w));
        }
    }
    release(&A);
}

/* Values holding no data from the arguments: one used once keeps its
 * definition joined to its use (%c with %x's dims); one used by two matmuls'
 * outputs (%s, the broadcast of a scalar, as PyTorch exports share a
 * constant among layers) is a copy per use, so the two widths it meets stay
 * two colors and its definition is a color of its own. */
static const char SHARED_CONSTANT[] =
    "func.func @main(%x: tensor<8x16xf32>, %w1: tensor<16x64xf32>, %w2: tensor<16x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x16xf32>) {\n"
    "  %c = stablehlo.constant dense<1.0> : tensor<8x16xf32>\n"
    "  %x1 = stablehlo.add %x, %c : tensor<8x16xf32>\n"
    "  %h = stablehlo.constant dense<0.5> : tensor<f32>\n"
    "  %s = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<8x64xf32>\n"
    "  %a = stablehlo.dot_general %x1, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>\n"
    "  %b = stablehlo.dot_general %x, %w2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>\n"
    "  %a2 = stablehlo.multiply %a, %s : tensor<8x64xf32>\n"
    "  %b2 = stablehlo.multiply %b, %s : tensor<8x64xf32>\n"
    "  return %a2, %b2, %x1 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x16xf32>\n"
    "}\n";

static void test_shared_constant(void)
{
    analysed A;
    if (!analyse_text(&A, SHARED_CONSTANT))
        return;
    int32_t x = val(&A, "x"), c = val(&A, "c"), s = val(&A, "s"), w1 = val(&A, "w1"), w2 = val(&A, "w2");
    CHECK(color(&A, c, 0) == color(&A, x, 0) && color(&A, c, 1) == color(&A, x, 1));
    CHECK(color(&A, w1, 1) != color(&A, w2, 1));
    CHECK(color(&A, use(&A, "a2", 1), 1) == color(&A, w1, 1));
    CHECK(color(&A, use(&A, "b2", 1), 1) == color(&A, w2, 1));
    CHECK(color(&A, s, 1) != color(&A, w1, 1) && color(&A, s, 1) != color(&A, w2, 1));
    release(&A);
}

int main(void)
{
    test_mlp();
    test_transpose_matmul();
    test_attention();
    test_rules();
    test_shared_constant();
    test_inline_layers();
    test_chess();
    test_resnet();
    return CHECK_DONE();
}
