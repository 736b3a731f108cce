/* test_write_plan.c: the whole plan in the written module
 * (src/shard/write_plan.c, check.c, issue 15). A hand layout on the
 * two-layer model that differs between the layers: the layer function is
 * copied once, each call calls its own copy, every tensor is annotated and
 * the text reads as worked out by hand. A tampered annotation is refused by
 * the check, naming the tensor. Ops with several results: each result
 * constrained under a name of its own, which its uses read (or, written
 * one name each, renamed and constrained one by one). Then the IOPDDL bridge's plan (the one that
 * shards intermediate tensors op by op) on every model of the repository,
 * in both formats: the module read back annotates every tensor
 * the plan fixes, counted independently here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fixture.h"
#include "parplan/shard_bridge.h"
#include "parplan/shard_write.h"
#include "shard/bridge_internal.h"
#include "shard/write_internal.h"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

/* The file's text (core's reader), or NULL and a failed check. */
static char *read_text(const char *path, size_t *size)
{
    char *text = NULL;
    pp_error err = {0};
    CHECK(pp_read_text_file(path, &text, size, &err) == PP_OK);
    return text;
}

/* Tensors the plan fixes, counted from the flat module: the entry's tensor
 * arguments and results and every tensor an op defines. */
static int32_t plan_tensors(const analysed *A)
{
    int32_t n = 0;
    for (int32_t v = 0; v < A->flat->n_values; v++)
        n += A->flat->values[v].type.rank >= 0;
    for (int32_t k = 0; k < A->flat->n_outputs; k++)
        n += A->flat->values[A->flat->outputs[k]].type.rank >= 0;
    return n;
}

static char *write_plan(const analysed *A, const pp_shard_mesh *mesh, const uint8_t *axes, pp_shard_format format,
                        const char *text, size_t size, pp_shard_write_stats *stats)
{
    pp_error err = {0};
    char *out = NULL;
    size_t out_size = 0;
    pp_status st = pp_shard_write_plan(A->nda, mesh, axes, format, text, size, &out, &out_size, stats, &err);
    if (st != PP_OK)
        fprintf(stderr, "write_plan: %s\n", err.message);
    CHECK(st == PP_OK);
    CHECK(st != PP_OK || out_size == strlen(out));
    return out;
}

/* The first layer's matmul result split over 'b' along its columns, the rest
 * replicated: the two calls of @layer need different texts, @act does not. */
static void test_layers(void)
{
    analysed A;
    size_t size = 0;
    char *text = read_text(PP_DATA_DIR "/layers.mlir", &size);
    if (!text || !open_model(&A, PP_DATA_DIR "/layers.mlir")) {
        free(text);
        return;
    }
    pp_shard_mesh mesh = mesh_on("b=2", &dev, pp_shard_default_link());
    uint8_t *axes = calloc((size_t)A.nda->n_names, 1);
    CHECK(A.flat->n_ops == 4 && A.flat->n_paths == 5);
    int32_t dot0 = A.flat->ops[0].results[0];
    axes[A.nda->tensors[dot0].first + 1] = 1;
    pp_shard_write_stats stats = {0};
    char *out = write_plan(&A, &mesh, axes, PP_SHARD_FORMAT_GSPMD, text, size, &stats);
    CHECK(stats.tensors == plan_tensors(&A) && stats.tensors == 3 + 1 + 4);
    CHECK(stats.annotated == stats.tensors);
    CHECK(stats.copies == 1);
    /* the first call keeps @layer, the second calls the copy, and both
     * copies call the one @act */
    CHECK(out && strstr(out, "%0 = call @layer(%x, %w0)") != NULL);
    CHECK(out && strstr(out, "%1 = func.call @layer_sharded_1(%0, %w1)") != NULL);
    const char *copy = out ? strstr(out, "func.func private @layer_sharded_1(") : NULL;
    CHECK(copy != NULL);
    CHECK(copy && strstr(copy, "    %ppw_0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
                               "(tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
                               "    %0 = stablehlo.custom_call @Sharding(%ppw_0) {mhlo.sharding = "
                               "\"{replicated}\"} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
                               "    %1 = call @act(%0)") != NULL);
    CHECK(out && strstr(out, "%0 = stablehlo.custom_call @Sharding(%ppw_0) {mhlo.sharding = \"{devices=[1,2]0,1}\"} : "
                             "(tensor<4x8xf32>) -> tensor<4x8xf32>\n    %1 = call @act(%0)") != NULL);
    /* the check catches an annotation that is not the plan's */
    char *bad = out ? strstr(out, "{devices=[1,2]0,1}\"} :") : NULL;
    CHECK(bad != NULL);
    if (bad) {
        memcpy(bad, "{devices=[2,1]0,1}", 18);
        pp_error err = {0};
        pp_status st = pp_shard_write_check(A.nda, &mesh, axes, PP_SHARD_FORMAT_GSPMD, out, strlen(out), NULL, &err);
        CHECK(st == PP_EINPUT);
        CHECK(strstr(err.message, "layers.mlir, as written:11:10: %0@layer#1: dimension 0 is sharded over axes 0x1 "
                                  "where the plan has 0x0") != NULL);
    }
    free(out);
    /* Shardy: the same copy, its constraint naming the axis */
    out = write_plan(&A, &mesh, axes, PP_SHARD_FORMAT_SDY, text, size, &stats);
    CHECK(stats.annotated == stats.tensors && stats.copies == 1);
    CHECK(out && strstr(out, "%0 = sdy.sharding_constraint %ppw_0 <@mesh, [{}, {\"b\"}]> : tensor<4x8xf32>") != NULL);
    free(out);
    free(axes);
    free(text);
    release(&A);
}

/* Ops with several results (data/multi_result.mlir): a sort of two operands
 * and a while. The while's tensor result split over 'b', the rest
 * replicated: each op's group is renamed, each result gets a constraint and
 * a name of its own, and the uses (%2#1, %5#1) read those names. */
static void test_multi_result(void)
{
    analysed A;
    size_t size = 0;
    char *text = read_text(PP_DATA_DIR "/multi_result.mlir", &size);
    if (!text || !open_model(&A, PP_DATA_DIR "/multi_result.mlir")) {
        free(text);
        return;
    }
    pp_shard_mesh mesh = mesh_on("b=2,m=2", &dev, pp_shard_default_link());
    uint8_t *axes = calloc((size_t)A.nda->n_names, 1);
    CHECK(strcmp(pp_shard_flat_op_of(A.flat, 6)->name, "stablehlo.while") == 0);
    axes[A.nda->tensors[A.flat->ops[6].results[1]].first] = 1;
    pp_shard_write_stats stats = {0};
    char *out = write_plan(&A, &mesh, axes, PP_SHARD_FORMAT_GSPMD, text, size, &stats);
    CHECK(stats.annotated == stats.tensors && stats.tensors == plan_tensors(&A));
    const char *want[] = {
        "%ppw_2:2 = \"stablehlo.sort\"(%0, %1) ({",
        "%ppw_2_1 = stablehlo.custom_call @Sharding(%ppw_2#1) {mhlo.sharding = \"{replicated}\"} : "
        "(tensor<8x128xi32>) -> tensor<8x128xi32>",
        "%ppw_3 = stablehlo.convert %ppw_2_1 : ",
        "%ppw_4 = stablehlo.add %ppw_2_0, %3 : ",
        "%ppw_5:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %4)",
        "%ppw_5_1 = stablehlo.custom_call @Sharding(%ppw_5#1) {mhlo.sharding = \"{devices=[2,1,2]0,1,2,3 "
        "last_tile_dim_replicate}\"} : (tensor<8x128xf32>) -> tensor<8x128xf32>",
        "%ppw_7 = stablehlo.multiply %ppw_5_1, %4 : "};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        CHECK(out && strstr(out, want[k]) != NULL);
    free(out);
    out = write_plan(&A, &mesh, axes, PP_SHARD_FORMAT_SDY, text, size, &stats);
    CHECK(stats.annotated == stats.tensors);
    CHECK(out && strstr(out, "%ppw_5_1 = sdy.sharding_constraint %ppw_5#1 <@mesh, [{\"b\"}, {}]> : "
                             "tensor<8x128xf32>") != NULL);
    free(out);
    free(axes);
    free(text);
    release(&A);
}

/* Results written one name each ("%s0, %s1 = ..."): renamed and
 * constrained one by one, with no use to rewrite. */
static void test_named_results(void)
{
    analysed A;
    size_t size = 0;
    char *text = read_text(PP_DATA_DIR "/named_results.mlir", &size);
    if (!text || !open_model(&A, PP_DATA_DIR "/named_results.mlir")) {
        free(text);
        return;
    }
    pp_shard_mesh mesh = mesh_on("b=2,m=2", &dev, pp_shard_default_link());
    uint8_t *axes = calloc((size_t)A.nda->n_names, 1);
    axes[A.nda->tensors[A.flat->ops[2].results[0]].first] = 1; /* %s0 split over 'b' along its rows */
    pp_shard_write_stats stats = {0};
    char *out = write_plan(&A, &mesh, axes, PP_SHARD_FORMAT_GSPMD, text, size, &stats);
    CHECK(stats.annotated == stats.tensors && stats.tensors == plan_tensors(&A));
    const char *want[] = {"%ppw_s0, %ppw_s1 = \"stablehlo.sort\"(%0, %1) ({",
                          "%s0 = stablehlo.custom_call @Sharding(%ppw_s0) {mhlo.sharding = \"{devices=[2,1,2]0,1,2,3 "
                          "last_tile_dim_replicate}\"} : (tensor<8x128xf32>) -> tensor<8x128xf32>",
                          "%s1 = stablehlo.custom_call @Sharding(%ppw_s1) {mhlo.sharding = \"{replicated}\"} : ",
                          "%ppw_3 = stablehlo.convert %s1 : "};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        CHECK(out && strstr(out, want[k]) != NULL);
    free(out);
    free(axes);
    free(text);
    release(&A);
}

/* A group %c:2 beside a value already named %c_0: the names the writer
 * would give the results are taken, and it says so instead of writing a
 * module that defines a name twice. */
static void test_multi_result_taken(void)
{
    static const char text[] =
        "func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
        "  %c:2 = \"foo.pair\"(%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)\n"
        "  %c_0 = stablehlo.add %c#0, %c#1 : tensor<4x8xf32>\n"
        "  return %c_0 : tensor<4x8xf32>\n"
        "}\n";
    analysed A;
    if (!open_text(&A, text))
        return;
    pp_shard_mesh mesh = mesh_on("b=2", &dev, pp_shard_default_link());
    uint8_t *axes = calloc((size_t)A.nda->n_names, 1);
    pp_error err = {0};
    char *out = NULL;
    size_t out_size = 0;
    CHECK(pp_shard_write_plan(A.nda, &mesh, axes, PP_SHARD_FORMAT_GSPMD, text, sizeof text - 1, &out, &out_size, NULL,
                              &err) == PP_EINPUT);
    CHECK(out == NULL && strstr(err.message, ":2:3: cannot name this op's results apart") != NULL);
    free(axes);
    release(&A);
}

/* The bridge's plan on a model, written in both formats and read back. */
static void check_model(const char *path, const char *mesh_text)
{
    analysed A;
    size_t size = 0;
    char *text = read_text(path, &size);
    if (!text || !open_model(&A, path)) {
        free(text);
        return;
    }
    pp_shard_mesh mesh = mesh_on(mesh_text, &dev, pp_shard_default_link());
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.threads = 1;
    o.max_rounds = 20;
    o.time_limit = 20;
    pp_shard_bridge_plan plan;
    memset(&plan, 0, sizeof plan);
    pp_error err = {0};
    pp_status st = pp_shard_bridge_plan_solve(A.flat, A.nda, &mesh, 1e12, &o, &plan, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s: %s\n", path, err.message);
    CHECK(st == PP_OK);
    int32_t want = plan_tensors(&A);
    for (int f = 0; st == PP_OK && f < 2; f++) {
        pp_shard_write_stats stats = {0};
        char *out = write_plan(&A, &mesh, plan.axes, f ? PP_SHARD_FORMAT_SDY : PP_SHARD_FORMAT_GSPMD, text, size,
                               &stats);
        fprintf(stderr, "%s %s on %s: %d of %d tensors annotated, %d copies\n", path, f ? "sdy" : "gspmd",
                mesh_text, (int)stats.annotated, (int)want, (int)stats.copies);
        CHECK(stats.tensors == want);
        CHECK(stats.annotated == want);
        free(out);
    }
    pp_shard_bridge_plan_free(&plan);
    free(text);
    release(&A);
}

static void test_models(void)
{
    static const char *const data[] = {"mlp", "attention", "conv", "conv1x1", "layers", "transpose_matmul",
                                       "wide_mlp", "generic", "unknown_op", "moe", "bert_layer", "bert_layers", "multi_result",
                                       "named_results"};
    for (size_t k = 0; k < sizeof data / sizeof data[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.mlir", PP_DATA_DIR, data[k]);
        check_model(path, "b=2,m=2");
    }
    check_model(PP_SOURCE_DIR "/examples/shard/searchless_chess_9m.mlir", "b=2,m=4");
    check_model(PP_SOURCE_DIR "/examples/shard/jax_resnet_50.mlir", "b=2,m=4");
    check_model(PP_SOURCE_DIR "/examples/shard/jax_resnet_50.mlir", "d=8");
}

int main(void)
{
    test_layers();
    test_multi_result();
    test_multi_result_taken();
    test_named_results();
    test_models();
    return CHECK_DONE();
}
