/* test_workload.c: the transformer as a list of layers (hand-checked on a
 * tiny model; Narayanan et al. SC'21 table 1 rows summed back to eq. 3 and
 * eq. 2), the transformer workload file and its errors (with the line and
 * column of the value, counted by hand), and every example
 * workload in examples/cluster/. */
#include <dirent.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "cluster/optime.h"
#include "cluster/workload_internal.h"
#include "parplan/cluster.h"
#include "cluster/transformer.h"

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static pp_transformer tiny(void)
{
    pp_transformer t = {.layers = 2, .hidden = 8, .heads = 2, .sequence = 4, .vocabulary = 16,
                        .global_batch = 3};
    return t;
}

/* s = 4, h = 8, a = 2, V = 16, f = 32, worked by hand:
 *   layer parameters 12h^2 + 13h = 872; embeddings (V + s) h = 160; tied
 *     copy V h = 128
 *   forward 8sh^2 + 4s^2h + 4shf = 2048 + 512 + 4096 = 6656; logits 2shV = 1024
 *   activations split 8sh + 4sf + 5as^2 = 256 + 512 + 160 = 928, replicated
 *     10sh = 320, logits 2sV = 128; checkpoint and output 2sh = 64; TP 4sh = 128
 *   traffic as the activations (928 split, 320 replicated); the column-
 *     parallel products 2sh (h + 2h) + 2shf = 1536 + 2048 = 3584 FLOPs. */
static void check_tiny(const pp_cluster_workload *w)
{
    CHECK_EQ_INT(w->layer_count, 2);
    CHECK_EQ_INT(w->global_batch, 3);
    CHECK_EQ_INT(w->tp_divisor, 2);
    CHECK(!w->recompute);
    const pp_cluster_layer *first = &w->layers[0], *last = &w->layers[1];
    CHECK(first->forward_flops == 6656 && first->backward_flops == 13312);
    CHECK(first->recompute_flops == 6656);
    CHECK(last->forward_flops == 7680 && last->backward_flops == 15360);
    CHECK(last->recompute_flops == 6656);
    CHECK(first->weight_bytes == 2 * 1032 && first->state_bytes == 16 * 1032);
    CHECK(first->gradient_bytes == 2 * 1032);
    CHECK(last->weight_bytes == 2 * 1000 && last->state_bytes == 16 * 1000);
    CHECK(last->gradient_bytes == 2 * 1000);
    CHECK(first->activation_bytes == 928 && last->activation_bytes == 928 + 128);
    CHECK(first->activation_replicated_bytes == 320 && last->activation_replicated_bytes == 320);
    CHECK(first->traffic_bytes == 928 && first->traffic_replicated_bytes == 320);
    CHECK(first->overlap_flops == 3584 && last->overlap_flops == 3584);
    CHECK(first->checkpoint_bytes == 64 && first->output_bytes == 64);
    CHECK(first->tp_forward_bytes == 128 && last->tp_backward_bytes == 128);
}

static void test_tiny(void)
{
    pp_transformer t = tiny();
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(&t, false, &w, &err), PP_OK);
    if (w)
        check_tiny(w);
    pp_cluster_workload_free(w);

    w = NULL;
    CHECK_EQ_INT(pp_cluster_workload_load(PP_DATA_DIR "/workload-tiny.json", NULL, &w, &err), PP_OK);
    if (w) {
        check_tiny(w);
        CHECK(strcmp(w->name, "tiny") == 0);
        CHECK(strcmp(w->layers[1].name, "layer1") == 0);
    }
    pp_cluster_workload_free(w);
}

static double layer_work(const pp_cluster_layer *l, bool recompute)
{
    return l->forward_flops + l->backward_flops + (recompute ? l->recompute_flops : 0);
}

/* Table 1 rows: the layers add up to eq. 3 (and its no-recompute form) and
 * to eq. 2's parameters plus the tied copy of the word embedding. */
static void test_table1_sums(void)
{
    static const int64_t rows[][4] = {{24, 2304, 24, 512},   {32, 3072, 30, 512},
                                      {32, 4096, 36, 512},   {48, 6144, 40, 1024},
                                      {64, 8192, 48, 1536},  {80, 10240, 60, 1792},
                                      {96, 12288, 80, 2304}, {128, 16384, 96, 2160}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pp_transformer t = {.heads = rows[i][0], .hidden = rows[i][1], .layers = rows[i][2],
                            .global_batch = rows[i][3], .sequence = 2048, .vocabulary = 51200};
        for (int recompute = 0; recompute < 2; recompute++) {
            pp_cluster_workload *w = NULL;
            pp_error err = {0};
            CHECK_EQ_INT(pp_cluster_workload_transformer(&t, recompute, &w, &err), PP_OK);
            if (!w)
                continue;
            double flops = 0, params = 0, state = 0;
            for (int k = 0; k < w->layer_count; k++) {
                flops += layer_work(&w->layers[k], recompute) * (double)w->global_batch;
                params += w->layers[k].gradient_bytes / PP_CLUSTER_GRAD_BYTES;
                state += w->layers[k].state_bytes;
            }
            CHECK(close_to(flops, pp_cluster_step_flops(&t, recompute)));
            double tied = (double)(pp_cluster_parameters(&t) + t.vocabulary * t.hidden);
            CHECK(close_to(params, tied));
            CHECK(close_to(state, PP_CLUSTER_STATE_BYTES_PER_PARAM * tied));
            CHECK_EQ_INT(w->layer_count, t.layers);
            CHECK_EQ_INT(w->tp_divisor, t.heads);
            CHECK(w->recompute == (recompute != 0));
            pp_cluster_workload_free(w);
        }
    }
}

/* A middle layer's split and replicated parts give Korthikanti et al.'s
 * activation bytes at every TP degree. */
static void test_activation_split(void)
{
    pp_transformer t = {.layers = 36, .hidden = 4096, .heads = 32, .sequence = 2048,
                        .vocabulary = 51200, .global_batch = 512};
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(&t, true, &w, &err), PP_OK);
    if (!w)
        return;
    const pp_cluster_layer *l = &w->layers[5];
    for (int64_t tp = 1; tp <= 32; tp *= 2)
        CHECK(close_to(l->activation_replicated_bytes + l->activation_bytes / (double)tp,
                       pp_cluster_layer_activation_bytes(&t, 1, tp, false)));
    CHECK(l->checkpoint_bytes == pp_cluster_layer_activation_bytes(&t, 1, 1, true));
    pp_cluster_workload_free(w);
}

static void expect_error(const char *file, pp_status status, const char *a, const char *b)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_load(file, NULL, &w, &err), status);
    CHECK(w == NULL);
    CHECK(strstr(err.message, file) != NULL);
    CHECK(strstr(err.message, a) != NULL);
    CHECK(!b || strstr(err.message, b) != NULL);
    if (!strstr(err.message, a))
        fprintf(stderr, "message: %s\n", err.message);
}

static void test_errors(void)
{
    expect_error(PP_DATA_DIR "/workload-bad-key.json", PP_EINPUT, "workload-bad-key.json:2:41: transformer.hiden",
                 "unknown key");
    expect_error(PP_DATA_DIR "/workload-bad-heads.json", PP_EINPUT, "workload-bad-heads.json:1:17: transformer: heads 3 does not divide", NULL);
    expect_error(PP_DATA_DIR "/workload-real-layers.json", PP_EINPUT, "workload-real-layers.json:1:28: transformer.layers",
                 "integer");
    expect_error(PP_DATA_DIR "/workload-neither.json", PP_EINPUT, "workload-neither.json: not a workload", "Piper");
    expect_error(PP_DATA_DIR "/workload-syntax.json", PP_EINPUT, "workload-syntax.json:2:", NULL);
    expect_error(PP_DATA_DIR "/no-such-workload.json", PP_EIO, "no-such-workload", NULL);

    pp_transformer t = tiny();
    t.hidden = 0;
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(&t, false, &w, &err), PP_EARG);
    CHECK(w == NULL && strstr(err.message, "hidden") != NULL);
}

static void expect_text_error(const char *text, const char *want)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(cluster_workload_load_buffer("mem", text, strlen(text), NULL, &w, &err),
                 PP_EINPUT);
    CHECK(w == NULL);
    CHECK(strncmp(err.message, want, strlen(want)) == 0);
    if (strncmp(err.message, want, strlen(want)) != 0)
        fprintf(stderr, "message: %s\nwanted:  %s\n", err.message, want);
}

/* Errors in text held in memory: a missing key is placed at its object, a
 * wrong value at the value. */
static void test_text_errors(void)
{
    expect_text_error("{\n  \"name\": \"x\",\n  \"transformer\": {\"layers\": 2, \"hidden\": 8}\n}",
                      "mem:3:18: transformer.heads: required");
    expect_text_error("{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 2, \"sequence\": 4,\n"
                      "  \"vocabulary\": 16, \"global_batch\": 3},\n \"recompute\": \"yes\"}",
                      "mem:3:15: recompute: must be true or false");
    expect_text_error("{\"name\": 7, \"transformer\": {}}", "mem:1:10: name: expected a string, got 7");
    /* Columns count characters: the two bytes of the e-acute are one. */
    expect_text_error("{\"transformer\": {\"comment\": \"\xc3\xa9\", \"layers\": \"2\"}}",
                      "mem:1:44: transformer.layers: must be an integer");
}

/* "kv_heads" and "swiglu" reach the layers: a gated MLP and 2 key/value
 * heads of 4, as pp_cluster_layer_forward_flops prices them, and TP must
 * divide the key/value heads. "untied_embeddings" leaves no tied gradient
 * (tied: 2 V h = 256 bytes) and adds V h = 128 parameters. */
static void test_grouped_query_file(void)
{
    const char *text = "{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, \"kv_heads\": 2, "
                       "\"swiglu\": true, \"sequence\": 4, \"vocabulary\": 16, \"global_batch\": 3}}";
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(cluster_workload_load_buffer("mem", text, strlen(text), NULL, &w, &err), PP_OK);
    pp_transformer t = {.layers = 2, .hidden = 8, .heads = 4, .kv_heads = 2, .swiglu = true, .sequence = 4,
                        .vocabulary = 16, .global_batch = 3};
    if (w) {
        CHECK(w->layers[0].forward_flops == pp_cluster_layer_forward_flops(&t, 1));
        CHECK(w->layers[0].activation_bytes == pp_cluster_layer_split_activation(&t));
        CHECK_EQ_INT(w->tp_divisor, 2);
        CHECK(w->tied_bytes == 256);
    }
    pp_cluster_workload_free(w);
    const char *untied = "{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, "
                         "\"untied_embeddings\": true, \"sequence\": 4, \"vocabulary\": 16, \"global_batch\": 3}}";
    w = NULL;
    CHECK_EQ_INT(cluster_workload_load_buffer("mem", untied, strlen(untied), NULL, &w, &err), PP_OK);
    if (w)
        CHECK(w->tied_bytes == 0);
    pp_cluster_workload_free(w);
    pp_transformer tied = {.layers = 2, .hidden = 8, .heads = 4, .sequence = 4, .vocabulary = 16, .global_batch = 3};
    pp_transformer own = tied;
    own.untied_embeddings = true;
    CHECK(pp_cluster_parameters(&own) == pp_cluster_parameters(&tied) + 16 * 8);
    expect_text_error("{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, \"untied_embeddings\": 0, "
                      "\"sequence\": 4, \"vocabulary\": 16, \"global_batch\": 3}}",
                      "mem:1:77: transformer.untied_embeddings: must be true or false");
    expect_text_error("{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, \"swiglu\": 1, "
                      "\"sequence\": 4, \"vocabulary\": 16, \"global_batch\": 3}}",
                      "mem:1:");
}

/* "experts", "top_k" and "capacity_factor" reach the layers: the experts'
 * weights apart, the all-to-all's 2 s h k c bytes, the workload's expert
 * count; a capacity factor that is not a number is refused. */
static void test_experts_file(void)
{
    const char *text = "{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, \"experts\": 4, "
                       "\"top_k\": 2, \"capacity_factor\": 1.5, \"sequence\": 4, \"vocabulary\": 16, "
                       "\"global_batch\": 3}}";
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(cluster_workload_load_buffer("mem", text, strlen(text), NULL, &w, &err), PP_OK);
    pp_transformer t = {.layers = 2,  .hidden = 8,   .heads = 4,      .experts = 4,
                        .top_k = 2,   .sequence = 4, .vocabulary = 16, .global_batch = 3,
                        .capacity_factor = 1.5};
    if (w) {
        CHECK(w->layers[0].forward_flops == pp_cluster_layer_forward_flops(&t, 1));
        /* 4 experts of 2 x 8 x 32 + 32 + 8 parameters, 2 bytes each */
        CHECK(w->layers[1].expert_weight_bytes == 2 * 4 * (2 * 8 * 32 + 32 + 8));
        CHECK(w->layers[1].alltoall_bytes == 2 * 4 * 8 * 2 * 1.5);
        CHECK_EQ_INT(w->experts, 4);
    }
    pp_cluster_workload_free(w);
    expect_text_error("{\"transformer\": {\"layers\": 2, \"hidden\": 8, \"heads\": 4, \"experts\": 4, "
                      "\"top_k\": 1, \"capacity_factor\": \"1\", \"sequence\": 4, \"vocabulary\": 16, "
                      "\"global_batch\": 3}}",
                      "mem:1:101: transformer.capacity_factor: must be a number");
}

/* The example workloads load; those named here with the figures they state. */
static void test_examples(void)
{
    static const struct {
        const char *file;
        int64_t layers, heads, batch, hidden, vocabulary;
        double billions; /* eq. 2's parameters, rounded as table 1 rounds them */
    } named[] = {
        {"llama-7b.json", 32, 32, 64, 4096, 32000, 6.6},
        {"gpt-13b.json", 40, 40, 64, 5120, 51200, 12.9},
        {"gpt-1.7b.json", 24, 24, 512, 2304, 51200, 1.7},
        {"gpt-3.6b.json", 30, 32, 512, 3072, 51200, 3.6},
        {"gpt-7.5b.json", 36, 32, 512, 4096, 51200, 7.5},
        {"gpt-18.4b.json", 40, 48, 1024, 6144, 51200, 18.4},
        {"gpt-39.1b.json", 48, 64, 1536, 8192, 51200, 39.1},
    };
    char path[512];
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        snprintf(path, sizeof path, "%s/examples/cluster/%s", PP_SOURCE_DIR, named[i].file);
        pp_cluster_workload *w = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_cluster_workload_load(path, NULL, &w, &err), PP_OK);
        if (!w) {
            fprintf(stderr, "%s\n", err.message);
            continue;
        }
        CHECK_EQ_INT(w->layer_count, named[i].layers);
        CHECK_EQ_INT(w->tp_divisor, named[i].heads);
        CHECK_EQ_INT(w->global_batch, named[i].batch);
        CHECK(w->recompute);
        CHECK(w->layers[0].output_bytes == 2.0 * 2048 * (double)named[i].hidden);
        double params = -(double)(named[i].vocabulary * named[i].hidden);
        for (int k = 0; k < w->layer_count; k++)
            params += w->layers[k].gradient_bytes / PP_CLUSTER_GRAD_BYTES;
        CHECK_EQ_INT(llround(params / 1e8), llround(named[i].billions * 10));
        pp_cluster_workload_free(w);
    }
}

/* Every JSON file in examples/cluster/ is a workload or says it is not one
 * (cluster and plan files live there too). */
static void test_every_example(void)
{
    DIR *d = opendir(PP_SOURCE_DIR "/examples/cluster");
    CHECK(d != NULL);
    int workloads = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/examples/cluster/%s", PP_SOURCE_DIR, e->d_name);
        pp_hw_catalog *cat = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_hw_catalog_builtin(&cat, &err), PP_OK);
        pp_cluster_workload *w = NULL;
        pp_status st = pp_cluster_workload_load(path, cat, &w, &err);
        CHECK(st == PP_OK || strstr(err.message, "not a workload") != NULL);
        if (st != PP_OK && !strstr(err.message, "not a workload"))
            fprintf(stderr, "%s\n", err.message);
        workloads += st == PP_OK;
        pp_cluster_workload_free(w);
        pp_hw_catalog_free(cat);
    }
    if (d)
        closedir(d);
    CHECK(workloads >= 7);
}

/* The products add up to the forward FLOPs; a 2048 x 3072 output is 192
 * tiles of 256 x 128 (or 384 of 128 x 128): two waves (four) on 108 SMs,
 * 8/9 of them busy; the backward's input gradient (2048 x 8192: 512
 * tiles, 5 waves) and weight gradient (8192 x 3072: 768 tiles in 8 waves,
 * better 1536 half tiles in 15) both 512/540 busy. */
static void test_gemm_efficiency(void)
{
    pp_transformer t = tiny();
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_workload_transformer(&t, false, &w, &err) == PP_OK);
    for (int k = 0; k < w->layer_count; k++) {
        const pp_cluster_layer *l = &w->layers[k];
        double sum = 0;
        for (int i = 0; i < l->gemm_count; i++)
            sum += 2 * l->gemm[i].rows * l->gemm[i].inner * l->gemm[i].cols * l->gemm[i].count;
        CHECK(close_to(sum, l->forward_flops));
    }
    pp_cluster_workload_free(w);
    pp_hw_device_type a100 = {"a100", 312e12, 2e12, 80e9, 1.0, 1.0, 108, 256, 128, 0, 0, 0};
    pp_cluster_layer one = {.gemm_count = 1};
    one.gemm[0] = (pp_cluster_gemm){2048, 8192, 3072, 1, PP_CLUSTER_SPLIT_COLS, false};
    CHECK(close_to(cluster_gemm_efficiency(&a100, &one, 1, 1, false), 8.0 / 9));
    CHECK(close_to(cluster_gemm_efficiency(&a100, &one, 1, 1, true), 512.0 / 540));
    a100.gemm_sms = 0;
    CHECK(cluster_gemm_efficiency(&a100, &one, 1, 1, false) == 1.0);
    CHECK(cluster_optimizer_time(&a100, 1e12) == 2e12 / 2e12);
}

int main(void)
{
    test_tiny();
    test_table1_sums();
    test_activation_split();
    test_errors();
    test_grouped_query_file();
    test_experts_file();
    test_text_errors();
    test_examples();
    test_every_example();
    test_gemm_efficiency();
    return CHECK_DONE();
}
