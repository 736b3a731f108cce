/* test_cost.c: the cost model of paper 004 section 4.5 (src/shard/cost.c,
 * mesh.c, baseline.c) against hand-computed figures: the MLP of figure 2
 * (x[256,32] . w1[32,64] -> max(.,0) -> . w2[64,16], f32) unsharded, batch
 * sharded and Megatron-sharded on 1-D and 2x2 meshes, on a test device with
 * round figures; a chain's peak memory; refusals; the chess model's
 * baselines on A100s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "hw/hw_internal.h"
#include "hw/net_internal.h"

#define SHARED PP_SOURCE_DIR "/examples/shard/"

/* 1e11 FLOP/s and 1e11 bytes/s: the MLP's dots are compute-bound, the rest memory-bound. */
static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
static const pp_hw_link link1 = {1e9, 1e-6};

static pp_shard_mesh mesh_of(const char *text, const pp_hw_device_type *d)
{
    return mesh_on(text, d, link1);
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b) + 1e-18;
}

#define CHECK_NEAR(a, b)                                                                         \
    do {                                                                                         \
        double a__ = (a), b__ = (b);                                                             \
        if (!near(a__, b__)) {                                                                   \
            fprintf(stderr, "%s:%d: %s == %.12g, expected %.12g\n", __FILE__, __LINE__, #a, a__, b__); \
            check_failures++;                                                                    \
        }                                                                                        \
    } while (0)

static pp_shard_cost eval(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_state *s)
{
    pp_shard_cost c;
    pp_error err = {0};
    memset(&c, 0, sizeof c);
    pp_status st = pp_shard_cost_eval(A->flat, A->nda, mesh, s, &c, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(st == PP_OK);
    return c;
}

static int32_t total_collectives(const pp_shard_cost *c)
{
    int32_t n = 0;
    for (int k = 0; k < PP_SHARD_COLLECTIVE_KINDS; k++)
        n += c->collectives[k];
    return n;
}

static void test_mesh_parse(void)
{
    pp_shard_mesh m;
    pp_error err = {0};
    CHECK(pp_shard_mesh_parse("b=2,m=4", &dev, link1, &m, &err) == PP_OK);
    CHECK_EQ_INT(m.n_axes, 2);
    CHECK(strcmp(m.names[0], "b") == 0 && strcmp(m.names[1], "m") == 0);
    CHECK_EQ_INT(m.sizes[0], 2);
    CHECK_EQ_INT(m.sizes[1], 4);
    CHECK_EQ_INT(pp_shard_mesh_devices(&m), 8);
    CHECK(m.links[1].bandwidth == 1e9 && m.device == &dev);
    const char *bad[] = {"", "b", "b=0", "b=x", "b=2,b=2", "b=2,", "=2", "b-1=2"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        pp_error_clear(&err);
        CHECK(pp_shard_mesh_parse(bad[k], &dev, link1, &m, &err) == PP_EINPUT);
        char quoted[32];
        snprintf(quoted, sizeof quoted, "'%s'", bad[k]);
        CHECK(strstr(err.message, quoted) != NULL);
    }
    CHECK(strstr(err.message, "'b-1'") != NULL);
    CHECK(pp_shard_default_link().bandwidth == 300e9);
}

/* Unsharded MLP, ops in order y, zero, zeros, z, w (bytes f32):
 * y: 2*256*64*32 FLOPs; zero: 4 bytes; zeros: 4 + 65536 bytes;
 * z: 3 * 65536 bytes; w: 2*256*16*64 FLOPs. Peak: the arguments
 * (32768 + 8192 + 4096) and, at z, y + zeros + z live (3 * 65536). */
static void test_mlp_unsharded(const analysed *A, const pp_shard_mesh *mesh, pp_shard_cost *base)
{
    pp_shard_state none = {0};
    pp_shard_cost c = eval(A, mesh, &none);
    double rt = 2.0 * 256 * 64 * 32 / 1e11 + 4 / 1e11 + 65540 / 1e11 + 3 * 65536 / 1e11 + 2.0 * 256 * 16 * 64 / 1e11;
    CHECK_NEAR(c.runtime, rt);
    CHECK_NEAR(c.flops, 2.0 * 256 * 64 * 32 + 2.0 * 256 * 16 * 64);
    CHECK_NEAR(c.peak_memory, 45056 + 3 * 65536);
    CHECK_EQ_INT(total_collectives(&c), 0);
    CHECK(c.collective_time == 0);
    *base = c;
}

/* Batch on the axis of 2: activations (x too) and compute halved, weights whole, no collective. */
static void test_mlp_batch(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_cost *base)
{
    pp_shard_state s = {0};
    pp_error err = {0};
    CHECK(pp_shard_baseline_data_parallel(A->nda, mesh, &s, &err) == PP_OK);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_INT(s.actions[0].color, pp_shard_batch_color(A->nda));
    CHECK_EQ_INT(A->nda->colors[s.actions[0].color].size, 256);
    pp_shard_cost c = eval(A, mesh, &s);
    double rt = 2.0 * 128 * 64 * 32 / 1e11 + 4 / 1e11 + 32772 / 1e11 + 3 * 32768 / 1e11 + 2.0 * 128 * 16 * 64 / 1e11;
    CHECK_NEAR(c.runtime, rt);
    CHECK_NEAR(c.flops, base->flops / 2);
    CHECK_NEAR(c.peak_memory, 16384 + 8192 + 4096 + 3 * 32768); /* x is batch-sharded too */
    CHECK_EQ_INT(total_collectives(&c), 0);
    /* C(s): relative runtime, no penalty under the memory, penalty above */
    CHECK_NEAR(pp_shard_cost_relative(&c, base, 1e9, 10), rt / base->runtime);
    CHECK_NEAR(pp_shard_cost_relative(&c, base, 100000, PP_SHARD_MEMORY_PENALTY),
               rt / base->runtime + 10 * (c.peak_memory - 100000) / base->peak_memory);
    CHECK_NEAR(pp_shard_cost_relative(base, base, 1e9, 10), 1);
    pp_shard_state_free(&s);
}

/* Megatron on the hidden color (64): w1[32,32], w2[32,16], y/zeros/z
 * [256,32] local; w's contraction is split, so one all_reduce of w
 * (256*16*4 = 16384 bytes) over the axis. */
static void test_mlp_megatron(const analysed *A, const pp_shard_mesh *mesh)
{
    pp_shard_state s = {0};
    pp_error err = {0};
    CHECK(pp_shard_baseline_megatron(A->nda, mesh, &s, &err) == PP_OK);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_INT(A->nda->colors[s.actions[0].color].size, 64);
    CHECK_EQ_INT(s.actions[0].axis, mesh->n_axes - 1);
    pp_shard_cost c = eval(A, mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 1);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_REDUCE], 16384);
    double ar = pp_hw_allreduce_time(link1, 2, 16384);
    CHECK_NEAR(c.collective_time, ar);
    double compute = 2.0 * 256 * 32 * 32 / 1e11 + 4 / 1e11 + 32772 / 1e11 + 3 * 32768 / 1e11 + 2.0 * 256 * 16 * 32 / 1e11;
    CHECK_NEAR(c.runtime, compute + ar);
    CHECK_NEAR(c.peak_memory, 32768 + 4096 + 2048 + 3 * 32768);
    pp_shard_state_free(&s);
}

/* 2x2 mesh: data parallel over both axes (batch 64 per device, no
 * collective); combined: batch on b, hidden on m, one all_reduce of the
 * local w [128,16] over m. */
static void test_mlp_2d(const analysed *A)
{
    pp_shard_mesh mesh = mesh_of("b=2,m=2", &dev);
    pp_shard_state s = {0};
    pp_error err = {0};
    CHECK(pp_shard_baseline_data_parallel(A->nda, &mesh, &s, &err) == PP_OK);
    CHECK_EQ_INT(s.n, 2);
    pp_shard_cost c = eval(A, &mesh, &s);
    CHECK_EQ_INT(total_collectives(&c), 0);
    CHECK_NEAR(c.flops, (2.0 * 64 * 64 * 32 + 2.0 * 64 * 16 * 64));
    CHECK_NEAR(c.peak_memory, 8192 + 8192 + 4096 + 3 * 16384);
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_combined(A->nda, &mesh, &s, &err) == PP_OK);
    CHECK_EQ_INT(s.n, 2);
    c = eval(A, &mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 1);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_REDUCE], 8192);
    CHECK_NEAR(c.flops, 2.0 * 128 * 32 * 32 + 2.0 * 128 * 16 * 32);
    CHECK_NEAR(c.peak_memory, 32768 / 2 + 4096 + 2048 + 3 * 16384);
    pp_shard_state_free(&s);
    pp_shard_mesh line = mesh_of("m=2", &dev);
    CHECK(pp_shard_baseline_combined(A->nda, &line, &s, &err) == PP_EINPUT);
    pp_shard_state_free(&s);
}

/* Sizes that do not divide, and an axis used twice on one tensor. */
static void test_mlp_refused(const analysed *A)
{
    pp_shard_mesh m3 = mesh_of("b=3", &dev);
    pp_shard_state s = {0};
    pp_shard_cost c;
    pp_error err = {0};
    CHECK(pp_shard_baseline_data_parallel(A->nda, &m3, &s, &err) == PP_OK);
    CHECK(pp_shard_cost_eval(A->flat, A->nda, &m3, &s, &c, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "256") && strstr(err.message, "not divisible"));
    pp_shard_state_free(&s);
    pp_shard_mesh m2 = mesh_of("b=2", &dev);
    pp_shard_action twice[2] = {{pp_shard_batch_color(A->nda), 0, NULL}, {pp_shard_batch_color(A->nda), 0, NULL}};
    s = (pp_shard_state){2, 0, twice};
    pp_error_clear(&err);
    CHECK(pp_shard_cost_eval(A->flat, A->nda, &m2, &s, &c, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "already uses axis 'b'") != NULL);
    s.n = 1;
    s.actions[0].axis = 1;
    CHECK(pp_shard_cost_eval(A->flat, A->nda, &m2, &s, &c, &err) == PP_EINPUT);
}

static void test_mlp(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/mlp.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("b=2", &dev);
    pp_shard_cost base;
    test_mlp_unsharded(&A, &mesh, &base);
    test_mlp_batch(&A, &mesh, &base);
    test_mlp_megatron(&A, &mesh);
    test_mlp_2d(&A);
    test_mlp_refused(&A);
    release(&A);
}

/* x[4,4]f32 -> a = exp x -> b = exp a -> c = a + b: at c, x (an argument),
 * a, b and c are live: 4 * 64 bytes; batch-sharded on 2, half. */
static void test_chain_peak(void)
{
    static const char text[] =
        "func.func public @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
        "  %a = stablehlo.exponential %x : tensor<4x4xf32>\n"
        "  %b = stablehlo.exponential %a : tensor<4x4xf32>\n"
        "  %c = stablehlo.add %a, %b : tensor<4x4xf32>\n"
        "  return %c : tensor<4x4xf32>\n"
        "}\n";
    analysed A;
    if (!open_text(&A, text))
        return;
    pp_shard_mesh mesh = mesh_of("b=2", &dev);
    pp_shard_state s = {0};
    CHECK_NEAR(eval(&A, &mesh, &s).peak_memory, 256);
    pp_error err = {0};
    CHECK(pp_shard_baseline_data_parallel(A.nda, &mesh, &s, &err) == PP_OK);
    pp_shard_cost c = eval(&A, &mesh, &s);
    CHECK_NEAR(c.peak_memory, 128);
    CHECK_NEAR(c.runtime, (64 + 64 + 96) / 1e11); /* bytes moved by exp, exp, add on [2,4] */
    pp_shard_state_free(&s);
    release(&A);
}

/* Figure 5's attention, sequence color S (128) on an axis of 2 with the
 * resolution that shards a's second dimension: k is gathered for a = k.qt
 * (its full [128,32] f32: 16384 bytes); b sums a over its sharded
 * dimension (an all_reduce of b[128]: 512 bytes, b's use by c being
 * unsharded); z = d.v contracts the sharded dimension and its use by return
 * is sharded, so z [128,48] (24576 bytes) is reduce-scattered. */
static void test_attention(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/attention.mlir"))
        return;
    int32_t x = 0, a = -1;
    for (int32_t v = 0; v < A.flat->n_values; v++)
        if (A.flat->values[v].op >= 0 && A.flat->values[v].type.rank == 2 && A.flat->values[v].type.dims[0] == 128 &&
            A.flat->values[v].type.dims[1] == 128 && a < 0)
            a = v;
    int32_t S = A.nda->color[A.nda->tensors[x].first];
    uint8_t seq = pp_shard_nda_sharded_dim(A.nda, S, &(uint8_t){0}, a) == 1 ? 0 : 1;
    pp_shard_mesh mesh = mesh_of("s=2", &dev);
    pp_shard_state s = {1, 0, (pp_shard_action[]){{S, 0, &seq}}};
    pp_shard_cost c = eval(&A, &mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_GATHER], 16384);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_REDUCE], 512);
    CHECK_EQ_INT(c.collectives[PP_SHARD_REDUCE_SCATTER], 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_REDUCE_SCATTER], 24576);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_TO_ALL], 0);
    CHECK_NEAR(c.collective_time, pp_hw_allgather_time(link1, 2, 16384) + pp_hw_allreduce_time(link1, 2, 512) +
                                      pp_hw_reduce_scatter_time(link1, 2, 24576));
    /* k, v, q on 64 rows; a = k.qt on [128,64]; z = d.v contracting 64 */
    CHECK_NEAR(c.flops, 2.0 * 64 * 32 * 64 * 2 + 2.0 * 64 * 48 * 64 + 2.0 * 128 * 64 * 32 + 2.0 * 128 * 48 * 64);
    /* the other resolution: two all_gathers (section 3.5), of qt [32,128]
     * and v [128,48]: 16384 + 24576 bytes, and no reduction */
    uint8_t other = (uint8_t)!seq;
    s.actions[0].bits = &other;
    c = eval(&A, &mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 2);
    CHECK_EQ_INT(total_collectives(&c), 2);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_GATHER], 16384 + 24576);
    release(&A);
}

/* An embedding table [16,4] f32 split along its 16 rows over 2 devices:
 * each looks up the rows it holds (zeros for the others) and the lookups
 * [2,3,4] (96 bytes) are all-reduced, as Megatron's vocabulary-parallel
 * embedding; the table is never gathered. */
static void test_vocabulary_parallel_lookup(void)
{
    static const char text[] =
        "func.func public @main(%t: tensor<16x4xf32>, %ids: tensor<2x3xi32>) -> tensor<2x3x4xf32> {\n"
        "  %i = stablehlo.broadcast_in_dim %ids, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>\n"
        "  %e = \"stablehlo.gather\"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], "
        "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4>}> "
        ": (tensor<16x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3x4xf32>\n"
        "  %y = stablehlo.exponential %e : tensor<2x3x4xf32>\n"
        "  return %y : tensor<2x3x4xf32>\n"
        "}\n";
    analysed A;
    if (!open_text(&A, text))
        return;
    pp_shard_mesh mesh = mesh_of("m=2", &dev);
    int32_t vocab = A.nda->color[A.nda->tensors[0].first];
    CHECK_EQ_INT(A.nda->colors[vocab].size, 16);
    pp_shard_state s = {1, 0, (pp_shard_action[]){{vocab, 0, NULL}}};
    pp_shard_cost c = eval(&A, &mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 0);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 1);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_REDUCE], 96);
    CHECK_NEAR(c.peak_memory, 128 + 24 + 96 + 96); /* at y: half the table, the ids, e and y */
    release(&A);
}

/* An opaque op keeps no identity: sharding x's rows (through exp) leaves the
 * custom_call's result whole, so its operand a [4,8] f32 is gathered over the
 * axis first: one all_gather of 128 bytes. */
static void test_opaque_gather(void)
{
    static const char text[] =
        "func.func public @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
        "  %a = stablehlo.exponential %x : tensor<4x8xf32>\n"
        "  %b = stablehlo.custom_call @k(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
        "  return %b : tensor<4x8xf32>\n"
        "}\n";
    analysed A;
    if (!open_text(&A, text))
        return;
    pp_shard_mesh mesh = mesh_of("b=2", &dev);
    pp_shard_state s = {1, 0, (pp_shard_action[]){{A.nda->color[A.nda->tensors[0].first], 0, NULL}}};
    CHECK(s.actions[0].color != pp_shard_batch_color(A.nda));
    pp_shard_cost c = eval(&A, &mesh, &s);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 1);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_GATHER], 128);
    CHECK_NEAR(c.collective_time, pp_hw_allgather_time(link1, 2, 128));
    release(&A);
}

static void test_chess(void)
{
    analysed A;
    if (!open_model(&A, SHARED "searchless_chess_9m.mlir"))
        return;
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    const pp_hw_device_type *a100 = cat ? pp_hw_find(cat, "a100-80gb") : NULL;
    CHECK(a100 != NULL);
    if (!a100) {
        pp_hw_catalog_free(cat);
        release(&A);
        return;
    }
    pp_shard_mesh mesh = mesh_of("b=2,m=4", a100);
    for (int32_t a = 0; a < mesh.n_axes; a++)
        mesh.links[a] = pp_shard_default_link();
    pp_shard_state s = {0};
    pp_shard_cost base = eval(&A, &mesh, &s), c;
    CHECK(isfinite(base.runtime) && base.runtime > 0 && base.peak_memory > 0);
    /* the batch is 33: 8 devices do not divide it, 3 do */
    CHECK_EQ_INT(A.nda->colors[pp_shard_batch_color(A.nda)].size, 33);
    CHECK(pp_shard_baseline_data_parallel(A.nda, &mesh, &s, &err) == PP_OK);
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &s, &c, &err) == PP_EINPUT);
    pp_shard_mesh m3 = mesh_of("b=3", a100);
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_data_parallel(A.nda, &m3, &s, &err) == PP_OK);
    c = eval(&A, &m3, &s);
    CHECK_EQ_INT(total_collectives(&c), 0);
    CHECK(c.runtime < base.runtime && c.peak_memory < base.peak_memory);
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_megatron(A.nda, &mesh, &s, &err) == PP_OK);
    c = eval(&A, &mesh, &s);
    CHECK(isfinite(c.runtime) && c.runtime > 0 && c.peak_memory < base.peak_memory);
    CHECK(c.collectives[PP_SHARD_ALL_REDUCE] > 0);
    fprintf(stderr, "chess megatron: %d actions, %.3g s (unsharded %.3g s), %d collectives\n", (int)s.n,
            c.runtime, base.runtime, (int)total_collectives(&c));
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_combined(A.nda, &mesh, &s, &err) == PP_OK);
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &s, &c, &err) == PP_EINPUT); /* 33 again */
    pp_shard_mesh m34 = mesh_of("b=3,m=4", a100);
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_megatron(A.nda, &m34, &s, &err) == PP_OK);
    pp_shard_cost mega = eval(&A, &m34, &s);
    pp_shard_state_free(&s);
    CHECK(pp_shard_baseline_combined(A.nda, &m34, &s, &err) == PP_OK);
    /* per layer on m: the MLP hidden color and the attention group (the q, k
     * and v projections' outputs, the heads they are reshaped into, the
     * output projection's input): 1 + 5; the embedding table's 1968 rows on
     * m too (vocabulary-parallel, Megatron-LM section 3); the batch on b */
    CHECK_EQ_INT(s.n, 8 * 6 + 1 + 1);
    c = eval(&A, &m34, &s);
    CHECK(isfinite(c.runtime) && c.runtime > 0);
    CHECK_NEAR(c.flops, mega.flops / 3);
    CHECK(c.peak_memory < mega.peak_memory);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], mega.collectives[PP_SHARD_ALL_REDUCE]);
    pp_shard_state_free(&s);
    pp_hw_catalog_free(cat);
    release(&A);
}

/* A 3x3 convolution on an 8x8 image (f32, 4 channels) with its rows split
 * over 2 devices: input rows only, the op gathers the input [1,8,8,4]
 * (1024 bytes); input and output rows, spatial partitioning, each device
 * fetches 2 border rows of [8,4] (256 bytes) from its neighbours; output
 * rows only, each device computes its half from the whole input, no
 * collective. Local FLOPs: 2 x 128 outputs x 36 kernel weights. */
static void test_conv_halo(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/conv.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("s=2", &dev);
    int32_t y = A.flat->ops[0].results[0];
    int32_t h_in = A.nda->color[A.nda->tensors[0].first + 1], h_out = A.nda->color[A.nda->tensors[y].first + 1];
    CHECK(h_in != h_out);
    pp_shard_state in_only = {1, 0, (pp_shard_action[]){{h_in, 0, NULL}}};
    pp_shard_cost c = eval(&A, &mesh, &in_only);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_GATHER], 1024);
    pp_shard_state both = {2, 0, (pp_shard_action[]){{h_in, 0, NULL}, {h_out, 0, NULL}}};
    c = eval(&A, &mesh, &both);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_EQ_INT(c.collectives[PP_SHARD_HALO_EXCHANGE], 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_HALO_EXCHANGE], 256);
    CHECK_NEAR(c.collective_time, pp_hw_p2p_time(link1, 256));
    CHECK_NEAR(c.flops, 2.0 * 128 * 36);
    pp_shard_state out_only = {1, 0, (pp_shard_action[]){{h_out, 0, NULL}}};
    c = eval(&A, &mesh, &out_only);
    CHECK_EQ_INT(total_collectives(&c), 0);
    CHECK_NEAR(c.flops, 2.0 * 128 * 36);
    release(&A);
}

/* A 1x1 convolution (memory-bound on the test device: 2048 FLOPs against
 * 2112 bytes) whose input rows are split but its output's are not: the
 * input is gathered (512 bytes a device, 1024 gathered) and the op then
 * reads all of it, 1024 + 64 (kernel) + 1024 (output) bytes. */
static void test_gathered_operand_read_whole(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/conv1x1.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("s=2", &dev);
    pp_shard_state in_only = {1, 0, (pp_shard_action[]){{A.nda->color[A.nda->tensors[0].first + 1], 0, NULL}}};
    pp_shard_cost c = eval(&A, &mesh, &in_only);
    CHECK_EQ_INT(total_collectives(&c), 1);
    CHECK_NEAR(c.collective_bytes[PP_SHARD_ALL_GATHER], 1024);
    CHECK_NEAR(c.flops, 2.0 * 256 * 4);
    CHECK_NEAR(c.compute_time, (1024 + 64 + 1024) / 1e11);
    release(&A);
}

/* Ranking plans: fitting first; times within 0.5% tie and the smaller peak
 * wins; outside the tie the faster wins whatever its peak. */
static void test_ranking(void)
{
    pp_shard_cost fast = {.runtime = 1.000, .peak_memory = 10}, tied = {.runtime = 1.004, .peak_memory = 5};
    pp_shard_cost slow = {.runtime = 1.006, .peak_memory = 5}, big = {.runtime = 0.5, .peak_memory = 20};
    CHECK(pp_shard_cost_tied(&fast, &tied) && !pp_shard_cost_tied(&fast, &slow));
    CHECK(pp_shard_cost_better(&tied, &fast, 100) && !pp_shard_cost_better(&fast, &tied, 100));
    CHECK(pp_shard_cost_better(&fast, &slow, 100) && !pp_shard_cost_better(&slow, &fast, 100));
    CHECK(pp_shard_cost_better(&big, &fast, 100));
    CHECK(pp_shard_cost_better(&fast, &big, 15) && !pp_shard_cost_better(&big, &fast, 15)); /* only fast fits */
    pp_shard_cost same = fast;
    CHECK(!pp_shard_cost_better(&same, &fast, 100) && !pp_shard_cost_better(&fast, &same, 100));
}

/* One 4096^3 product on an A100 of the built-in catalog, worked by hand:
 * 2 * 4096^3 = 137438953472 FLOP, 3 x 64 MiB = 201326592 bytes moved.
 * f32 as typed runs at FP32, 19.5 TFLOP/s: 7.048 ms (memory would take
 * 98.7 us); on TF32 tensor cores at 156: 881 us; cast to bf16 at 312 with
 * half the bytes: 440.5 us. A bf16 product as typed is at 312 too. f32 is
 * never priced at the BF16 rate unless the user says it is cast. */
static double product_time(const char *elem, pp_shard_precision precision, double *peak)
{
    char text[600];
    snprintf(text, sizeof text,
             "func.func @main(%%x: tensor<4096x4096x%s>, %%w: tensor<4096x4096x%s>) -> tensor<4096x4096x%s> {\n"
             "  %%0 = stablehlo.dot_general %%x, %%w, contracting_dims = [1] x [0] : (tensor<4096x4096x%s>, "
             "tensor<4096x4096x%s>) -> tensor<4096x4096x%s>\n  return %%0 : tensor<4096x4096x%s>\n}\n",
             elem, elem, elem, elem, elem, elem, elem);
    analysed A;
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    double t = -1;
    if (!open_text(&A, text))
        return t;
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    const pp_hw_device_type *a100 = cat ? pp_hw_find(cat, "a100") : NULL;
    CHECK(a100 != NULL);
    if (a100) {
        pp_shard_mesh mesh = mesh_of("b=2", a100);
        mesh.precision = precision;
        pp_shard_mesh_set_peaks(&mesh, cat);
        uint8_t *none = calloc((size_t)A.nda->n_names, 1);
        pp_shard_cost c;
        CHECK(pp_shard_cost_eval_layout(A.flat, A.nda, &mesh, none, &c, &err) == PP_OK);
        t = c.runtime;
        *peak = c.peak_memory;
        free(none);
    }
    pp_hw_catalog_free(cat);
    release(&A);
    return t;
}

static void test_precision(void)
{
    const double flops = 2.0 * 4096 * 4096 * 4096, mib64 = 4096.0 * 4096 * 4;
    double peak32 = 0, peak16 = 0, peak = 0;
    CHECK(near(product_time("f32", PP_SHARD_PRECISION_TYPED, &peak32), flops / 19.5e12));
    CHECK(fabs(flops / 19.5e12 - 7.0481e-3) < 1e-7); /* the figure in the comment */
    CHECK(near(product_time("f32", PP_SHARD_PRECISION_TF32, &peak), flops / 156e12));
    CHECK(near(product_time("f32", PP_SHARD_PRECISION_BF16, &peak16), flops / 312e12));
    CHECK(near(product_time("bf16", PP_SHARD_PRECISION_TYPED, &peak), flops / 312e12));
    CHECK(near(peak32, 3 * mib64) && near(peak16, 1.5 * mib64)); /* cast: 2 bytes per element */
    pp_shard_precision p;
    pp_error err = {0};
    CHECK(pp_shard_precision_parse("tf32", &p, &err) == PP_OK && p == PP_SHARD_PRECISION_TF32);
    CHECK(pp_shard_precision_parse("fp16", &p, &err) == PP_EARG && strstr(err.message, "typed, tf32 or bf16"));
    CHECK(pp_shard_math_of(PP_SHARD_PRECISION_TYPED, "f8E4M3FN") == PP_HW_FP8);
    CHECK(pp_shard_math_of(PP_SHARD_PRECISION_TF32, "bf16") == PP_HW_BF16);
}

/* A reshape splitting a sharded width into heads (32 -> 4 x 8): kept
 * local when the heads carry the axis (each device holds whole heads), a
 * gather when the result keeps it elsewhere or drops it. */
static void test_reshape_split(void)
{
    analysed A;
    if (!open_text(&A, "func.func @main(%x: tensor<8x32xf32>) -> tensor<8x4x8xf32> {\n"
                       "  %0 = stablehlo.reshape %x : (tensor<8x32xf32>) -> tensor<8x4x8xf32>\n"
                       "  return %0 : tensor<8x4x8xf32>\n}\n"))
        return;
    pp_shard_mesh mesh = mesh_of("m=4", &dev);
    int32_t x = 0, res = A.flat->ops[0].results[0], use = A.nda->op_use[0], out = A.nda->out_use;
    int32_t result_dim[3] = {1, 2, -1}, gathers[3] = {0, 1, 1};
    for (int k = 0; k < 3; k++) {
        uint8_t *axes = calloc((size_t)A.nda->n_names, 1);
        axes[A.nda->tensors[x].first + 1] = axes[A.nda->tensors[use].first + 1] = 1;
        if (result_dim[k] >= 0)
            axes[A.nda->tensors[res].first + result_dim[k]] = axes[A.nda->tensors[out].first + result_dim[k]] = 1;
        pp_shard_cost c;
        pp_error err = {0};
        CHECK(pp_shard_cost_eval_layout(A.flat, A.nda, &mesh, axes, &c, &err) == PP_OK);
        CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_GATHER], gathers[k]);
        free(axes);
    }
    release(&A);
}

int main(void)
{
    test_ranking();
    test_reshape_split();
    test_precision();
    test_mesh_parse();
    test_mlp();
    test_chain_peak();
    test_attention();
    test_opaque_gather();
    test_vocabulary_parallel_lookup();
    test_chess();
    test_conv_halo();
    test_gathered_operand_read_whole();
    return CHECK_DONE();
}
