/* test_baseline.c: argument roles and the baselines added in issue 15, on
 * models of our own making. The MoE layer (data/moe.mlir): its weights are
 * parameters and its tokens an activation; expert parallelism shards the
 * expert dimension (4) of both expert weights over the first axis; FSDP
 * stores each weight sharded (the widest dividing dimension per axis) and
 * gathers it where it is used; the plan on 2 x 4 is no slower than any
 * baseline that applies. A residual MLP, whose weights each hold two
 * Megatron colors (d_model and the hidden width): Megatron takes the wider
 * only, where it used to ask one axis for both. A BERT-like layer whose
 * heads appear only after reshapes: Megatron applies; two such layers
 * sharing constants, as PyTorch exports them: Megatron per layer. The chess model: integer
 * token ids are not a parameter, and expert parallelism says why it does
 * not apply. */
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "parplan/shard_plan.h"
#include "shard/shard_plan_internal.h"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

static pp_shard_mesh mesh_of(const char *text)
{
    return mesh_on(text, &dev, pp_shard_default_link());
}

static int32_t color_of(const analysed *A, int32_t tensor, int32_t dim)
{
    return A->nda->color[A->nda->tensors[tensor].first + dim];
}

static void test_moe_roles_and_expert(const analysed *A)
{
    /* %router, %w1, %w2, %x */
    CHECK(pp_shard_arg_role(A->nda, 0) == PP_SHARD_ROLE_PARAMETER);
    CHECK(pp_shard_arg_role(A->nda, 1) == PP_SHARD_ROLE_PARAMETER);
    CHECK(pp_shard_arg_role(A->nda, 2) == PP_SHARD_ROLE_PARAMETER);
    CHECK(pp_shard_arg_role(A->nda, 3) == PP_SHARD_ROLE_ACTIVATION);
    pp_shard_mesh mesh = mesh_of("e=2,m=2");
    pp_shard_state s;
    pp_error err = {0};
    CHECK(pp_shard_baseline_expert(A->nda, &mesh, &s, &err) == PP_OK);
    CHECK(s.n == 1 && s.actions[0].axis == 0 && s.actions[0].color == color_of(A, 1, 0));
    CHECK(color_of(A, 1, 0) == color_of(A, 2, 0) && A->nda->colors[s.actions[0].color].size == 4);
    uint8_t *axes = calloc((size_t)A->nda->n_names, 1);
    CHECK(pp_shard_state_layout(A->nda, &mesh, &s, axes, &err) == PP_OK);
    CHECK(axes[A->nda->tensors[1].first] == 1 && axes[A->nda->tensors[2].first] == 1);
    free(axes);
    pp_shard_cost c;
    CHECK(pp_shard_cost_eval(A->flat, A->nda, &mesh, &s, &c, &err) == PP_OK);
    pp_shard_state_free(&s);
}

static void test_moe_fsdp(const analysed *A)
{
    pp_shard_mesh mesh = mesh_of("b=2,m=2");
    uint8_t *axes = calloc((size_t)A->nda->n_names, 1);
    pp_error err = {0};
    CHECK(pp_shard_baseline_fsdp(A->nda, &mesh, axes, &err) == PP_OK);
    /* %w1 [4,16,32]: b on the 32 (16 left), then m on the 16 (the first of the two 8s) */
    const uint8_t *w1 = axes + A->nda->tensors[1].first;
    CHECK(w1[0] == 0 && w1[1] == 2 && w1[2] == 1);
    /* its use by the first expert matmul stays whole */
    int32_t use = -1;
    for (int32_t t = A->flat->n_values; t < A->nda->n_tensors; t++)
        if (A->nda->tensors[t].value == 1)
            use = t;
    CHECK(use >= 0 && axes[A->nda->tensors[use].first + 1] == 0 && axes[A->nda->tensors[use].first + 2] == 0);
    pp_shard_cost c, dp_cost;
    pp_shard_state dp;
    CHECK(pp_shard_cost_eval_layout(A->flat, A->nda, &mesh, axes, &c, &err) == PP_OK);
    CHECK(pp_shard_baseline_data_parallel(A->nda, &mesh, &dp, &err) == PP_OK);
    CHECK(pp_shard_cost_eval(A->flat, A->nda, &mesh, &dp, &dp_cost, &err) == PP_OK);
    CHECK(c.collectives[PP_SHARD_ALL_GATHER] > 0 && c.peak_memory < dp_cost.peak_memory);
    pp_shard_state_free(&dp);
    free(axes);
}

/* Every baseline that applies on the mesh, priced; the plan is no slower
 * than any of them. Returns how many applied. */
static int plan_beats_baselines(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_plan_result *r)
{
    pp_status (*states[])(const pp_shard_nda *, const pp_shard_mesh *, pp_shard_state *, pp_error *) = {
        pp_shard_baseline_data_parallel, pp_shard_baseline_megatron, pp_shard_baseline_combined,
        pp_shard_baseline_expert};
    int applied = 0;
    for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) {
        pp_shard_state s;
        pp_shard_cost c;
        pp_error e = {0};
        bool ok = states[k](A->nda, mesh, &s, &e) == PP_OK && pp_shard_cost_eval(A->flat, A->nda, mesh, &s, &c, &e) == PP_OK;
        pp_shard_state_free(&s);
        if (!ok)
            continue;
        applied++;
        CHECK(r->cost.runtime <= c.runtime);
    }
    uint8_t *axes = calloc((size_t)A->nda->n_names, 1);
    pp_shard_cost c;
    pp_error e = {0};
    if (pp_shard_baseline_fsdp(A->nda, mesh, axes, &e) == PP_OK &&
        pp_shard_cost_eval_layout(A->flat, A->nda, mesh, axes, &c, &e) == PP_OK) {
        applied++;
        CHECK(r->cost.runtime <= c.runtime);
    }
    free(axes);
    return applied;
}

/* The plan on 2 x 4 against every baseline that applies. */
static void test_moe_plan(const analysed *A)
{
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    o.time_limit = 10;
    pp_shard_plan_result r;
    pp_error err = {0};
    CHECK(pp_shard_plan(A->flat, A->nda, &mesh, &o, NULL, &r, &err) == PP_OK);
    CHECK(r.fits);
    CHECK(plan_beats_baselines(A, &mesh, &r) == 5);
    pp_shard_plan_free(&r);
}

static const char residual_mlp[] =
    "func.func @main(%w1: tensor<16x64xf32>, %w2: tensor<64x16xf32>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
    "  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>\n"
    "  %a = stablehlo.tanh %h : tensor<8x64xf32>\n"
    "  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>\n"
    "  %z = stablehlo.add %y, %x : tensor<8x16xf32>\n"
    "  return %z : tensor<8x16xf32>\n"
    "}\n";

static void test_megatron_apart(void)
{
    analysed A;
    if (!open_text(&A, residual_mlp))
        return;
    pp_shard_mesh mesh = mesh_of("m=4");
    pp_shard_state s;
    pp_shard_cost c;
    pp_error err = {0};
    CHECK(pp_shard_baseline_megatron(A.nda, &mesh, &s, &err) == PP_OK);
    CHECK(s.n == 1 && s.actions[0].color == color_of(&A, 0, 1)); /* the 64, not the 16 */
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &s, &c, &err) == PP_OK);
    pp_shard_state_free(&s);
    release(&A);
}

/* The BERT-like layer (data/bert_layer.mlir): the heads appear only after
 * reshapes, yet Megatron shards them with the projections around them, and
 * the MLP; never d_model, the residual width on the output. The reshapes
 * keep the axis, so the only collectives are the two all_reduces after the
 * output projection and the MLP. The plan on 2 x 4 is no slower. */
static void test_bert(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/bert_layer.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_state s;
    pp_shard_cost c;
    pp_error err = {0};
    CHECK(pp_shard_baseline_megatron(A.nda, &mesh, &s, &err) == PP_OK);
    int32_t q4 = A.flat->ops[3].results[0]; /* %q4 = reshape %q */
    int32_t want[6] = {color_of(&A, 0, 1), color_of(&A, 1, 1), color_of(&A, 2, 1), color_of(&A, 3, 0),
                       color_of(&A, q4, 2), color_of(&A, 4, 1)};
    CHECK(s.n == 6);
    for (int k = 0; k < 6; k++) {
        bool found = false;
        for (int32_t j = 0; j < s.n; j++)
            found |= s.actions[j].color == want[k] && s.actions[j].axis == 1;
        CHECK(found);
    }
    for (int32_t j = 0; j < s.n; j++)
        CHECK(s.actions[j].color != color_of(&A, 0, 0));
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &s, &c, &err) == PP_OK);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 2);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 0);
    pp_shard_state_free(&s);
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    o.time_limit = 10;
    pp_shard_plan_result r;
    CHECK(pp_shard_plan(A.flat, A.nda, &mesh, &o, NULL, &r, &err) == PP_OK);
    CHECK(r.fits && r.cost.runtime <= c.runtime);
    pp_shard_plan_free(&r);
    release(&A);
}

/* The slot of color c in copy 0 of the first layer group, or -1. */
static int32_t layer_slot(const analysed *A, int32_t c)
{
    const pp_shard_nda_layers *g = &A->nda->layer_groups[0];
    for (int32_t j = 0; j < g->n_copy_colors; j++)
        if (g->color_map[j] == c)
            return j;
    return -1;
}

/* Two BERT-like layers sharing constants (data/bert_layers.mlir): the
 * GELU's 0.5 at the MLP's shape and the scores' scale, written once and
 * used by both layers as PyTorch exports write them. Each layer's MLP width
 * is its own color all the same, mirrored by the layer group, and Megatron
 * shards the MLP and the heads of each layer over m: 6 actions a layer. The
 * plan on 2 x 4 fits the device and is no slower than the baselines. */
static void test_bert_shared_constants(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/bert_layers.mlir"))
        return;
    int32_t mlp0 = color_of(&A, 4, 1), mlp1 = color_of(&A, 10, 1); /* %w10, %w11: [32, 64] */
    CHECK(mlp0 != mlp1 && A.nda->colors[mlp0].size == 64);
    CHECK(A.nda->n_layer_groups == 1 && A.nda->layer_groups[0].copies == 2);
    int32_t slot = layer_slot(&A, mlp0);
    CHECK(slot >= 0 && A.nda->layer_groups[0].color_map[A.nda->layer_groups[0].n_copy_colors + slot] == mlp1);
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_state s;
    pp_error err = {0};
    CHECK(pp_shard_baseline_megatron(A.nda, &mesh, &s, &err) == PP_OK);
    CHECK(s.n == 12);
    int32_t q4_0 = A.flat->ops[6].results[0], q4_1 = A.flat->ops[28].results[0]; /* reshapes of %q0, %q1 */
    int32_t want[4] = {mlp0, mlp1, color_of(&A, q4_0, 2), color_of(&A, q4_1, 2)};
    CHECK(want[2] != want[3] && A.nda->colors[want[2]].size == 4);
    for (int k = 0; k < 4; k++) {
        bool found = false;
        for (int32_t j = 0; j < s.n; j++)
            found |= s.actions[j].color == want[k] && s.actions[j].axis == 1;
        CHECK(found);
    }
    pp_shard_state_free(&s);
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    o.time_limit = 10;
    pp_shard_plan_result r;
    CHECK(pp_shard_plan(A.flat, A.nda, &mesh, &o, NULL, &r, &err) == PP_OK);
    CHECK(r.fits);
    CHECK(plan_beats_baselines(&A, &mesh, &r) >= 2); /* Megatron, and data parallel + Megatron */
    pp_shard_plan_free(&r);
    release(&A);
}

static void test_chess(void)
{
    analysed A;
    if (!open_model(&A, PP_SOURCE_DIR "/examples/shard/searchless_chess_9m.mlir"))
        return;
    int32_t tokens = 0, params = 0;
    for (int32_t k = 0; k < A.flat->n_inputs; k++) {
        tokens += pp_shard_arg_role(A.nda, k) == PP_SHARD_ROLE_TOKENS;
        params += pp_shard_arg_role(A.nda, k) == PP_SHARD_ROLE_PARAMETER;
    }
    CHECK(tokens == 1 && pp_shard_arg_role(A.nda, 94) == PP_SHARD_ROLE_TOKENS && params == 94);
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_state s;
    pp_error err = {0};
    CHECK(pp_shard_baseline_expert(A.nda, &mesh, &s, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "no expert dimension") != NULL);
    pp_shard_state_free(&s);
    release(&A);
}

int main(void)
{
    analysed A;
    if (open_model(&A, PP_DATA_DIR "/moe.mlir")) {
        test_moe_roles_and_expert(&A);
        test_moe_fsdp(&A);
        test_moe_plan(&A);
        release(&A);
    }
    test_megatron_apart();
    test_bert();
    test_bert_shared_constants();
    test_chess();
    return CHECK_DONE();
}
