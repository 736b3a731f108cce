/* test_transformer.c: the transformer workload arithmetic against the
 * published figures: Narayanan et al. (SC'21) table 1 parameter counts and
 * eq. 3, Korthikanti et al. (2022) activation memory, worked by hand, and
 * Llama-2-70B's parameter count (grouped-query attention, SwiGLU). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"
#include "cluster/transformer.h"

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static pp_transformer gpt(int64_t heads, int64_t hidden, int64_t layers)
{
    pp_transformer t = {.layers = layers, .hidden = hidden, .heads = heads, .sequence = 2048,
                        .vocabulary = 51200, .global_batch = 512};
    return t;
}

/* Table 1 of Narayanan et al., parameters in billions to one decimal. */
static void test_table1_parameters(void)
{
    static const struct {
        double billions;
        int64_t heads, hidden, layers;
    } rows[] = {
        {1.7, 24, 2304, 24},      {3.6, 32, 3072, 30},      {7.5, 32, 4096, 36},
        {18.4, 48, 6144, 40},     {39.1, 64, 8192, 48},     {76.1, 80, 10240, 60},
        {145.6, 96, 12288, 80},   {310.1, 128, 16384, 96},  {529.6, 128, 20480, 105},
        {1008.0, 160, 25600, 128},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pp_transformer t = gpt(rows[i].heads, rows[i].hidden, rows[i].layers);
        pp_error err = {0};
        CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_OK);
        int64_t p = pp_cluster_parameters(&t);
        CHECK_EQ_INT(llround((double)p / 1e8), llround(rows[i].billions * 10));
        double l = (double)t.layers, h = (double)t.hidden;
        double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (51200.0 + 2048.0) / (12 * l * h));
        CHECK(fabs((double)p - eq2) < 1e-6 * eq2);
    }
    /* 1.7B by hand: 12 2304^2 + 13 2304 = 63730944 per layer, and
     * 24 x 63730944 + (51200 + 2048) 2304 = 1652226048 in all. */
    pp_transformer small = gpt(24, 2304, 24);
    CHECK_EQ_INT(pp_cluster_layer_parameters(&small), 63730944);
    CHECK_EQ_INT(pp_cluster_parameters(&small), 1652226048LL);
}

static double eq3(const pp_transformer *t)
{
    double B = (double)t->global_batch, s = (double)t->sequence, l = (double)t->layers;
    double h = (double)t->hidden, V = (double)t->vocabulary;
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

static void test_step_flops(void)
{
    pp_transformer t = gpt(32, 4096, 36);
    CHECK(close_to(pp_cluster_step_flops(&t, true), eq3(&t)));

    /* Per micro-batch of b: the step is B/b micro-batches of l layers and a
     * logit layer; recomputation runs the layers' forward once more. */
    int64_t b = 4;
    double micro = (double)t.global_batch / (double)b;
    double layers = (double)t.layers * pp_cluster_layer_forward_flops(&t, b);
    double logit = pp_cluster_logit_forward_flops(&t, b);
    CHECK(close_to(micro * (4 * layers + 3 * logit), eq3(&t)));
    CHECK(close_to(micro * (3 * layers + 3 * logit), pp_cluster_step_flops(&t, false)));
    double no_recompute_layers = pp_cluster_step_flops(&t, false) - micro * 3 * logit;
    double recompute_layers = pp_cluster_step_flops(&t, true) - micro * 3 * logit;
    CHECK(close_to(recompute_layers, no_recompute_layers * 4 / 3));

    double s = 2048, h = 4096, V = 51200, B = 512, l = 36;
    CHECK(close_to(pp_cluster_step_flops(&t, false),
                   72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))));
    CHECK(close_to(pp_cluster_layer_forward_flops(&t, 1), 24 * s * h * h * (1 + s / (6 * h))));
    CHECK(close_to(pp_cluster_logit_forward_flops(&t, 1), 2 * s * h * V));
}

/* A set ffn_hidden changes only the MLP: 4 b s h f in place of 16 b s h^2. */
static void test_ffn_hidden(void)
{
    pp_transformer t = gpt(32, 4096, 32);
    CHECK_EQ_INT(pp_cluster_ffn_hidden(&t), 16384);
    double four_h = pp_cluster_layer_forward_flops(&t, 1);
    int64_t four_h_params = pp_cluster_layer_parameters(&t);
    t.ffn_hidden = 11008;
    CHECK_EQ_INT(pp_cluster_ffn_hidden(&t), 11008);
    CHECK(close_to(four_h - pp_cluster_layer_forward_flops(&t, 1),
                   4.0 * 2048 * 4096 * (16384 - 11008)));
    CHECK_EQ_INT(four_h_params - pp_cluster_layer_parameters(&t), (2 * 4096 + 1) * (16384 - 11008));
}

/* Korthikanti et al. with small numbers: s = 8, b = 2, h = 16, a = 4. */
static void test_activation_bytes(void)
{
    pp_transformer t = {.layers = 2, .hidden = 16, .heads = 4, .sequence = 8, .vocabulary = 100,
                        .global_batch = 8};
    /* s b h (34 + 5 a s / h) = 256 (34 + 10) = 11264. */
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 2, 1, false), 11264));
    /* t = 2: 256 (10 + 12 + 5) = 6912; t = 4: 256 (10 + 6 + 2.5) = 4736. */
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 2, 2, false), 6912));
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 2, 4, false), 4736));
    /* Full recomputation keeps the layer input: 2 s b h = 512, whatever t. */
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 2, 1, true), 512));
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 2, 4, true), 512));

    /* GPT-3 175B at s = 2048, b = 1, t = 8 (Korthikanti et al. table 2
     * setting): 2048 * 12288 * (10 + 3 + 5 * 96 * 2048 / (12288 * 8)). */
    pp_transformer g = gpt(96, 12288, 96);
    double want = 2048.0 * 12288 * (13 + 5.0 * 96 * 2048 / (12288.0 * 8));
    CHECK(close_to(pp_cluster_layer_activation_bytes(&g, 1, 8, false), want));
    CHECK_EQ_INT(PP_CLUSTER_STATE_BYTES_PER_PARAM, 16);
}

static void expect_error(pp_transformer t, const char *needle)
{
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_EARG);
    CHECK_EQ_INT(err.status, PP_EARG);
    if (!strstr(err.message, needle)) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.message, needle);
        check_failures++;
    }
}

static void test_bad_input(void)
{
    pp_transformer good = gpt(24, 2304, 24);
    pp_transformer t = good;
    t.layers = 0;
    expect_error(t, "layers must be a positive integer, got 0");
    t = good;
    t.hidden = -5;
    expect_error(t, "hidden must be a positive integer, got -5");
    t = good;
    t.heads = 0;
    expect_error(t, "heads must be a positive integer");
    t = good;
    t.sequence = 0;
    expect_error(t, "sequence");
    t = good;
    t.vocabulary = -1;
    expect_error(t, "vocabulary");
    t = good;
    t.global_batch = 0;
    expect_error(t, "global_batch");
    t = good;
    t.ffn_hidden = -1;
    expect_error(t, "ffn_hidden");
    t = good;
    t.heads = 7;
    expect_error(t, "heads 7 does not divide hidden 2304");
    t = good;
    t.hidden = 1LL << 40;
    t.heads = 1;
    expect_error(t, "parameters is beyond");
}

/* Llama-2-70B's shape (Touvron et al. 2023: 80 layers, hidden 8192, 64
 * heads, 8 key/value heads, SwiGLU of width 28672, vocabulary 32000):
 * - its published parameter count, 68,976,648,192, once our layer's biases
 *   and layer norms' biases are taken out (it has none; RMSNorm has one
 *   vector) and its untied output matrix and final norm put in;
 * - forward FLOPs: 2 per weight per token (Kaplan et al. 2020) for the
 *   projections and the three MLP matrices, plus attention's 4 s^2 h;
 * - activations: K and V are 1024 wide, the gated MLP keeps 3 tensors of f;
 * - tensor parallelism must divide the 8 key/value heads. */
static void test_grouped_query_swiglu(void)
{
    pp_transformer t = {.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .sequence = 4096,
                        .vocabulary = 32000, .global_batch = 64, .ffn_hidden = 28672, .swiglu = true};
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_OK);
    double h = 8192, kv = 1024, f = 28672, s = 4096, a = 64, V = 32000;
    double biases = h + 2 * kv + h + 2 * f + h, norm_biases = 2 * h;
    double layer = (double)pp_cluster_layer_parameters(&t) - biases - norm_biases;
    CHECK(close_to(80 * layer + 2 * V * h + h, 68976648192.0));
    double weights = h * (h + 2 * kv) + h * h + 3 * h * f;
    CHECK(close_to(pp_cluster_layer_forward_flops(&t, 2), 2 * (2 * s) * weights + 2 * 4 * s * s * h));
    double split = 2 * s * h + 2 * s * kv + 2 * s * kv + 2 * s * h + 5 * a * s * s + 3 * 2 * s * f;
    CHECK(close_to(pp_cluster_layer_split_activation(&t), split));
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 1, 8, false), 10 * s * h + split / 8));
    pp_cluster_workload *w = NULL;
    t.layers = 2;
    CHECK_EQ_INT(pp_cluster_workload_transformer(&t, false, &w, &err), PP_OK);
    CHECK_EQ_INT(w->tp_divisor, 8);
    pp_cluster_workload_free(w);
    t.kv_heads = 48; /* does not divide 64 */
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_EARG);
    CHECK(strstr(err.message, "kv_heads 48") != NULL);
}

/* Mixtral 8x7B's shape (Jiang et al. 2024, "Mixtral of Experts": 32
 * layers, hidden 4096, 32 heads, 8 key/value heads, SwiGLU experts of
 * width 14336, 8 experts, top 2, vocabulary 32000):
 * - its published 46.7B parameters (46,702,792,704) once our biases and
 *   layer norms' biases are taken out and its untied output matrix and
 *   final norm put in, and the 12.9B active per token (2 experts) of
 *   Mistral AI's announcement, counted here to the parameter;
 * - forward FLOPs 2 per active weight per token plus attention's 4 s^2 h,
 *   the experts at capacity factor 1.25 computing 2 x 1.25 MLPs a token;
 * - activations: the gated MLP's 3 tensors of f per token copy, and the
 *   copies' 2sh inputs whole on every TP member. */
static void test_mixture_of_experts(void)
{
    pp_transformer t = {.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .sequence = 4096,
                        .vocabulary = 32000, .global_batch = 64, .ffn_hidden = 14336, .swiglu = true,
                        .experts = 8, .top_k = 2};
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_OK);
    double h = 4096, kv = 1024, f = 14336, s = 4096, a = 32, V = 32000, E = 8;
    double biases = h + 2 * kv + h + E * (2 * f + h), norm_biases = 2 * h;
    double layer = (double)pp_cluster_layer_parameters(&t) - biases - norm_biases;
    CHECK(close_to(32 * layer + 2 * V * h + h, 46702792704.0));
    double attention = h * (h + 2 * kv) + h * h, expert = 3 * h * f, router = h * E;
    CHECK(close_to(32 * (attention + 2 * expert + router + 2 * h) + 2 * V * h + h, 12879925248.0));
    CHECK(close_to((double)pp_cluster_layer_expert_parameters(&t), E * (expert + 2 * f + h)));
    t.capacity_factor = 1.25;
    CHECK(close_to(pp_cluster_expert_slots(&t), 2.5));
    CHECK(close_to(pp_cluster_layer_forward_flops(&t, 2),
                   2 * (2 * s) * (attention + 2.5 * expert + router) + 2 * 4 * s * s * h));
    double split = 2 * s * h + 4 * s * kv + 2 * s * h + 5 * a * s * s + 2.5 * 3 * 2 * s * f;
    CHECK(close_to(pp_cluster_layer_split_activation(&t), split));
    CHECK(close_to(pp_cluster_layer_activation_bytes(&t, 1, 8, false),
                   10 * s * h + 2.5 * 2 * s * h + split / 8));
    t.top_k = 9; /* more than the experts */
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_EARG);
    CHECK(strstr(err.message, "top_k 9") != NULL);
    t.top_k = 2;
    t.capacity_factor = -1;
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_EARG);
    t.capacity_factor = 0;
    t.experts = 0; /* dense, but top_k still set */
    CHECK_EQ_INT(pp_cluster_transformer_check(&t, &err), PP_EARG);
}

int main(void)
{
    test_mixture_of_experts();
    test_grouped_query_swiglu();
    test_table1_parameters();
    test_step_flops();
    test_ffn_hidden();
    test_activation_bytes();
    test_bad_input();
    return CHECK_DONE();
}
