/* test_h100.c: the H100 calibration (examples/cluster/calibration-h100.json)
 * loads with its figures, and a one-layer model on one H100 of
 * dgx-h100-1.json (micro-batch 4) simulates to the step time worked out here
 * from those figures alone, in BF16 and in FP8 (the four linear products
 * 1.83 times as fast, nothing else changed), and so does its ideal step;
 * the DGX H100 files load; a bad "precision" is refused by name; the
 * bundled FP8 example marks the right products; FlashAttention moves the
 * scores' bytes and FLOPs as stated.
 *
 * The model's shapes make almost every product fill whole waves of 132 SMs
 * in 128 x 128 tiles: sequence 1408 (11 tiles), hidden 1536 (12 tiles),
 * 12 heads of 128, MLP 6144, vocabulary 1536. Forward products and input
 * gradients all come to multiples of 132 tiles; only the weight gradients
 * over hidden x something do not (see weight_waves). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "parplan/cluster.h"
#include "cluster/moment.h"
#include "cluster/plan.h"
#include "cluster/transformer.h"
#include "cluster/workload_internal.h"
#include "hw/hw_internal.h"

#define EXAMPLES PP_SOURCE_DIR "/examples/cluster"

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static const double S = 1408, H = 1536, A = 12, D = 128, F = 6144, V = 1536;
static const double B = 4; /* one micro-batch of 4: compute-bound in FP8 too */

/* The calibration's figures, as the file states them. */
static const double PEAK = 989.4e12, PEAK_FP8 = 1978.9e12, HBM = 3.35e12;
static const double COMPUTE = 0.64, MEMORY = 0.17, STREAMING = 0.88, FP8_FIGURE = 0.914;

static void test_calibration(const pp_hw_catalog *cat)
{
    const pp_hw_device_type *t = pp_hw_find(cat, "h100");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(t->peak_flops == PEAK && t->memory_bandwidth == HBM);
    CHECK(t->efficiency_compute == COMPUTE && t->efficiency_memory == MEMORY);
    CHECK(t->gemm_sms == 132 && t->gemm_tile_rows == 256 && t->gemm_tile_cols == 128);
    CHECK(t->streaming_efficiency == STREAMING);
    CHECK(t->fp8_flops == PEAK_FP8 && t->fp8_relative == FP8_FIGURE);
}

/* The DGX H100 files: 8 H100s a node, NVLink at NCCL's 370 GB/s each way,
 * 8 NDR ports of 50 GB/s. */
static void test_clusters(const pp_hw_catalog *cat)
{
    static const int nodes[] = {1, 8, 64};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/dgx-h100-%d.json", EXAMPLES, nodes[i]);
        pp_cluster *c = NULL;
        pp_error err = {0};
        CHECK(pp_cluster_load(path, cat, &c, &err) == PP_OK);
        if (!c)
            continue;
        CHECK_EQ_INT(c->device_count, 8 * nodes[i]);
        CHECK(c->nodes[0].type == pp_hw_find(cat, "H100-SXM"));
        for (int k = 0; k < c->link_count; k++) {
            const pp_cluster_link *l = &c->links[k];
            CHECK(l->inter_node ? l->ports == 8 && l->bandwidth == 50e9 : l->bandwidth == 370e9);
        }
        pp_cluster_free(c);
    }
}

/* Weight-gradient products (inner x cols), their best wave efficiency:
 * 1536 x 4608 is 432 tiles of 128 x 128 in 4 waves of 132 (or 216 of
 * 256 x 128 in 2): 9/11; 1536 x 1536 is 144 in 2 (or 72 in 1): 6/11;
 * 1536 x 6144 and 6144 x 1536 are 576 in 5 (288 of 256 x 128 in 3 is
 * worse, 8/11): 48/55; the per-head ones 128 x 1408 x 12 and
 * 1408 x 128 x 12 are 132: 1. */
typedef struct {
    double work, weight_waves;
    bool linear;
} product;

/* 12h^2 + 13h in the layer, (V + s) h of embeddings, the tied copy V h */
static double parameters(void)
{
    return 12 * H * H + 13 * H + (V + S) * H + V * H;
}

/* Each pass is the roofline of its products and the weights (2 bytes a
 * parameter) plus its element-wise traffic, 18sh + 4sf + 5as^2 a sample;
 * then the optimizer reads and writes 16 bytes a parameter. */
static double step_by_hand(bool fp8)
{
    double qkv = 2 * S * H * 3 * H, scores = 2 * S * D * S * A, context = 2 * S * S * D * A;
    double out = 2 * S * H * H, up = 2 * S * H * F, down = 2 * S * F * H, logits = 2 * S * H * V;
    const product products[] = {
        {qkv, 9.0 / 11, true},   {scores, 1, false},       {context, 1, false}, {out, 6.0 / 11, true},
        {up, 48.0 / 55, true},   {down, 48.0 / 55, true},  {logits, 6.0 / 11, false},
    };
    double speed = PEAK_FP8 * FP8_FIGURE / PEAK; /* 1.828 */
    double forward = 0, backward = 0;
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++) {
        double s = fp8 && products[i].linear ? speed : 1;
        forward += products[i].work / s;
        backward += products[i].work / s + products[i].work / (products[i].weight_waves * s);
    }
    double rate = PEAK * COMPUTE, weights = 2 * parameters() / (HBM * MEMORY);
    double traffic = B * (18 * S * H + 4 * S * F + 5 * A * S * S) / (HBM * MEMORY);
    double optimizer = 2 * 16 * parameters() / (HBM * STREAMING);
    return fmax(B * forward / rate, weights) + traffic + fmax(B * backward / rate, weights) + traffic +
           optimizer;
}

/* The simulated step of the model on one H100, micro-batch 4. */
static double one_h100(const pp_hw_catalog *cat, bool fp8)
{
    pp_transformer t = {.layers = 1, .hidden = (int64_t)H, .heads = (int64_t)A, .sequence = (int64_t)S,
                        .vocabulary = (int64_t)V, .global_batch = (int64_t)B, .fp8 = fp8};
    pp_cluster *c = NULL;
    pp_cluster_workload *w = NULL;
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_load(EXAMPLES "/dgx-h100-1.json", cat, &c, &err) == PP_OK);
    CHECK(pp_cluster_workload_transformer(&t, false, &w, &err) == PP_OK);
    if (c && w)
        CHECK(pp_cluster_plan_uniform(c, w, 1, 1, 1, (int)B, &p, &err) == PP_OK);
    double step = NAN;
    pp_cluster_sim_options o = {.start_time = 0};
    pp_cluster_report r;
    if (p && pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK) {
        step = r.step_time;
        CHECK(r.fits);
        pp_cluster_report_free(&r);
    } else
        fprintf(stderr, "%s\n", err.message);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    return step;
}

static void test_one_h100(const pp_hw_catalog *cat, bool fp8)
{
    double simulated = one_h100(cat, fp8), expected = step_by_hand(fp8);
    CHECK(near(simulated, expected));
    if (!near(simulated, expected))
        fprintf(stderr, "fp8 %d: simulated %.9g s, by hand %.9g s\n", fp8, simulated, expected);
}

/* The ideal step on the node's 8 H100s: every FLOP of forward and
 * backward at the calibrated rate, the linear products' 1.83 times faster. */
static void test_ideal(const pp_hw_catalog *cat)
{
    pp_transformer t = {.layers = 1, .hidden = (int64_t)H, .heads = (int64_t)A, .sequence = (int64_t)S,
                        .vocabulary = (int64_t)V, .global_batch = (int64_t)B, .fp8 = true};
    pp_cluster *c = NULL;
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_load(EXAMPLES "/dgx-h100-1.json", cat, &c, &err) == PP_OK);
    CHECK(pp_cluster_workload_transformer(&t, false, &w, &err) == PP_OK);
    if (c && w) {
        double linear = 2 * S * H * 3 * H + 2 * S * H * H + 2 * S * H * F + 2 * S * F * H;
        double other = 2 * S * D * S * A + 2 * S * S * D * A + 2 * S * H * V;
        double speed = PEAK_FP8 * FP8_FIGURE / PEAK;
        double ideal = 3 * B * (linear / speed + other) / (8 * PEAK * COMPUTE);
        CHECK(near(pp_cluster_ideal_step_time(c, w, 0), ideal));
    }
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* FP8 moves exactly the linear products' time: the simulated step shrinks
 * by their BF16 time (forward, input and weight gradients at their waves)
 * times 1 - 1/1.828, the attention core, logits, element-wise kernels and
 * optimizer unchanged. */
static void test_fp8_saving(const pp_hw_catalog *cat)
{
    double bf16 = one_h100(cat, false), fp8 = one_h100(cat, true);
    double qkv = 2 * S * H * 3 * H, out = 2 * S * H * H, up = 2 * S * H * F, down = 2 * S * F * H;
    double linear = B * (qkv * (2 + 11.0 / 9) + out * (2 + 11.0 / 6) + (up + down) * (2 + 55.0 / 48));
    double saved = linear / (PEAK * COMPUTE) * (1 - PEAK / (PEAK_FP8 * FP8_FIGURE));
    CHECK(near(bf16 - fp8, saved));
    CHECK(fabs(PEAK_FP8 * FP8_FIGURE / PEAK - 1.8281) < 1e-4);
}

static void test_precision_errors(const pp_hw_catalog *cat)
{
    static const char text[] = "{\"transformer\": {\"layers\": 1, \"hidden\": 64, \"heads\": 4,\n"
                               " \"sequence\": 8, \"vocabulary\": 100, \"global_batch\": 1, \"precision\": \"fp4\"}}";
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(cluster_workload_load_buffer("mem", text, sizeof text - 1, cat, &w, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "mem:2:") != NULL);
    CHECK(strstr(err.message, "transformer.precision: must be \"bf16\" or \"fp8\", got \"fp4\"") != NULL);
    if (!strstr(err.message, "transformer.precision"))
        fprintf(stderr, "%s\n", err.message);
    pp_cluster_workload_free(w);
}

/* The bundled FP8 example loads with its products marked: the four linear
 * ones in FP8, the scores, context and logits not. */
static void test_example(const pp_hw_catalog *cat)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_workload_load(EXAMPLES "/llama2-70b-fp8.json", cat, &w, &err) == PP_OK);
    if (!w)
        return;
    const pp_cluster_layer *last = &w->layers[w->layer_count - 1];
    CHECK_EQ_INT(last->gemm_count, 7);
    const bool fp8[7] = {true, false, false, true, true, true, false};
    for (int i = 0; i < last->gemm_count && i < 7; i++)
        CHECK(last->gemm[i].fp8 == fp8[i]);
    /* FlashAttention: no scores kept or moved */
    CHECK(last->selective_bytes == 0 && w->layers[0].traffic_bytes > 0);
    pp_cluster_workload_free(w);
}

/* FlashAttention takes the scores' 5as^2 out of a layer's traffic and
 * activations (so selective recomputation has nothing left) and adds the
 * backward's second Q K^T, 2 s^2 h FLOPs a sequence. */
static void test_flash_attention(void)
{
    pp_transformer t = {.layers = 2, .hidden = (int64_t)H, .heads = (int64_t)A, .sequence = (int64_t)S,
                        .vocabulary = (int64_t)V, .global_batch = 1};
    pp_transformer f = t;
    f.flash_attention = true;
    pp_cluster_workload *plain = NULL, *flash = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_workload_transformer(&t, false, &plain, &err) == PP_OK);
    CHECK(pp_cluster_workload_transformer(&f, false, &flash, &err) == PP_OK);
    if (plain && flash) {
        const pp_cluster_layer *p = &plain->layers[0], *q = &flash->layers[0];
        double scores = 5 * A * S * S;
        CHECK(p->selective_bytes == scores && q->selective_bytes == 0 && q->selective_flops == 0);
        CHECK(near(p->traffic_bytes - q->traffic_bytes, scores));
        CHECK(near(p->activation_bytes - q->activation_bytes, scores));
        CHECK(near(q->backward_flops - p->backward_flops, 2 * S * S * H));
        CHECK(q->forward_flops == p->forward_flops);
        CHECK(q->traffic_replicated_bytes == p->traffic_replicated_bytes);
    }
    pp_cluster_workload_free(plain);
    pp_cluster_workload_free(flash);
}

int main(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    CHECK(pp_hw_catalog_add_file(cat, EXAMPLES "/calibration-h100.json", &err) == PP_OK);
    test_calibration(cat);
    test_clusters(cat);
    test_one_h100(cat, false);
    test_one_h100(cat, true);
    test_fp8_saving(cat);
    test_ideal(cat);
    test_precision_errors(cat);
    test_example(cat);
    test_flash_attention();
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
