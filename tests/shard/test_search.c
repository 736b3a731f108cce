/* test_search.c: the MCTS of src/shard/search.c. On a wide MLP (figure 2's) its
 * plan is the optimum of an exhaustive enumeration of every state, with
 * and without a memory limit that binds; its layout costs what it reports;
 * on the chess model it beats or equals every expert baseline that applies,
 * fits a memory limit that data parallelism does not, and gives the same
 * plan on one thread and two; so it does on a small training step, whose
 * tree outgrows its first table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "hw/hw_internal.h"

#define SHARED PP_SOURCE_DIR "/examples/shard/"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
static const pp_hw_link link1 = {1e9, 1e-6};

static pp_shard_mesh mesh_of(const char *text, const pp_hw_device_type *d)
{
    return mesh_on(text, d, link1);
}

/* The A100 meshes use the CLI's default link (NVLink). */
static pp_shard_mesh a100_mesh(const char *text, const pp_hw_device_type *a100)
{
    return mesh_on(text, a100, pp_shard_default_link());
}

static bool search(const analysed *A, const pp_shard_mesh *mesh, pp_shard_search_options *o,
                   pp_shard_search_result *r)
{
    pp_error err = {0};
    pp_status st = pp_shard_search(A->flat, A->nda, mesh, o, r, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(st == PP_OK);
    return st == PP_OK;
}

/* The reported cost is the cost of the reported layout, evaluated afresh. */
static void check_layout_cost(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_search_result *r)
{
    pp_shard_cost c;
    pp_error err = {0};
    CHECK(pp_shard_cost_eval_layout(A->flat, A->nda, mesh, r->axes, &c, &err) == PP_OK);
    CHECK(c.runtime == r->cost.runtime && c.peak_memory == r->cost.peak_memory);
}

/* Every subset of (color, axis) pairs, as states; the least C(s), and the
 * least peak memory of any state in *min_peak. */
static double brute_force(const analysed *A, const pp_shard_mesh *mesh, double memory, const pp_shard_cost *initial,
                          double *min_peak)
{
    *min_peak = INFINITY;
    int32_t n = A->nda->n_colors * mesh->n_axes;
    double best = INFINITY;
    for (uint32_t mask = 0; mask < (1u << n); mask++) {
        pp_shard_action actions[32];
        pp_shard_state s = {0, 0, actions};
        for (int32_t k = 0; k < n && k < 32; k++)
            if (mask & (1u << k))
                s.actions[s.n++] = (pp_shard_action){k / mesh->n_axes, k % mesh->n_axes, NULL};
        pp_shard_cost c;
        pp_error err = {0};
        if (pp_shard_cost_eval(A->flat, A->nda, mesh, &s, &c, &err) != PP_OK)
            continue;
        double rel = pp_shard_cost_relative(&c, initial, memory, PP_SHARD_MEMORY_PENALTY);
        if (c.peak_memory < *min_peak)
            *min_peak = c.peak_memory;
        if (rel < best)
            best = rel;
    }
    return best;
}

static bool search_mlp(const analysed *A, const pp_shard_mesh *mesh, double memory, pp_shard_search_result *r)
{
    pp_shard_search_options o;
    pp_shard_search_options_default(&o);
    o.min_dims = 0;
    o.memory = memory;
    o.patience = 20;
    o.threads = 2;
    return search(A, mesh, &o, r);
}

/* Without a limit, then with one halfway between the least peak any state
 * reaches and the unconstrained optimum's peak, so that it binds and a
 * state fits. */
static void test_mlp_optimum(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/wide_mlp.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("a=2,b=2", &dev);
    pp_shard_search_result r;
    double min_peak, free_peak = 0;
    if (search_mlp(&A, &mesh, 1e9, &r)) {
        double best = brute_force(&A, &mesh, 1e9, &r.initial, &min_peak);
        CHECK(fabs(r.relative - best) <= 1e-12 * best);
        CHECK(r.relative < r.initial_relative);
        check_layout_cost(&A, &mesh, &r);
        free_peak = r.cost.peak_memory;
        pp_shard_search_result_free(&r);
    }
    CHECK(min_peak < free_peak);
    double limit = (min_peak + free_peak) / 2;
    if (search_mlp(&A, &mesh, limit, &r)) {
        double best = brute_force(&A, &mesh, limit, &r.initial, &min_peak);
        CHECK(fabs(r.relative - best) <= 1e-12 * best);
        CHECK(r.cost.peak_memory <= limit);
        check_layout_cost(&A, &mesh, &r);
        pp_shard_search_result_free(&r);
    }
    release(&A);
}

static void test_nothing_to_shard(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/mlp.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("a=7", &dev);
    pp_shard_search_options o;
    pp_shard_search_options_default(&o);
    o.min_dims = 0;
    pp_shard_search_result r;
    pp_error err = {0};
    CHECK(pp_shard_search(A.flat, A.nda, &mesh, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "a=7 shards nothing") != NULL);
    release(&A);
}

static double baseline_time(const analysed *A, const pp_shard_mesh *mesh,
                            pp_status (*make)(const pp_shard_nda *, const pp_shard_mesh *, pp_shard_state *, pp_error *))
{
    pp_shard_state s;
    pp_shard_cost c;
    pp_error err = {0};
    bool ok = make(A->nda, mesh, &s, &err) == PP_OK && pp_shard_cost_eval(A->flat, A->nda, mesh, &s, &c, &err) == PP_OK;
    pp_shard_state_free(&s);
    return ok ? c.runtime : INFINITY;
}

static bool same_plan(const pp_shard_search_result *a, const pp_shard_search_result *b, int32_t n_names)
{
    return a->n_steps == b->n_steps && a->cost.runtime == b->cost.runtime && a->evaluations == b->evaluations &&
           memcmp(a->axes, b->axes, (size_t)n_names) == 0;
}

/* The search with o on two threads finds the plan `one` found on one. */
static void check_two_threads(const analysed *A, const pp_shard_mesh *mesh, pp_shard_search_options o,
                              const pp_shard_search_result *one)
{
    o.threads = 2;
    pp_shard_search_result two;
    if (search(A, mesh, &o, &two)) {
        CHECK(same_plan(one, &two, A->nda->n_names));
        pp_shard_search_result_free(&two);
    }
}

/* Issue 8's meshes on the chess model: 2x4 (batch 33 does not divide, so
 * the data-parallel baselines do not apply) and 3x4 (the combined one does). */
static void test_chess_baselines(const pp_hw_device_type *a100)
{
    analysed A;
    if (!open_model(&A, SHARED "searchless_chess_9m.mlir"))
        return;
    const char *meshes[2] = {"b=2,m=4", "b=3,m=4"};
    for (int k = 0; k < 2; k++) {
        pp_shard_mesh mesh = a100_mesh(meshes[k], a100);
        pp_shard_search_options o;
        pp_shard_search_options_default(&o);
        o.threads = 1;
        pp_shard_search_result one;
        if (!search(&A, &mesh, &o, &one))
            break;
        check_two_threads(&A, &mesh, o, &one);
        double mega = baseline_time(&A, &mesh, pp_shard_baseline_megatron);
        double combined = baseline_time(&A, &mesh, pp_shard_baseline_combined);
        CHECK(isfinite(mega));
        CHECK(k == 0 ? !isfinite(combined) : isfinite(combined));
        CHECK(one.cost.runtime <= mega && one.cost.runtime <= combined);
        CHECK(one.cost.peak_memory <= one.memory);
        check_layout_cost(&A, &mesh, &one);
        pp_shard_search_result_free(&one);
    }
    release(&A);
}

/* Batch 33 divides over 3 devices only: pure data parallelism there, and
 * a limit 20% below its peak on the 3x4 mesh, which the plan must meet. */
static void test_chess_memory(const pp_hw_device_type *a100)
{
    analysed A;
    if (!open_model(&A, SHARED "searchless_chess_9m.mlir"))
        return;
    pp_shard_mesh three = a100_mesh("b=3", a100), mesh = a100_mesh("b=3,m=4", a100);
    pp_shard_state dp;
    pp_shard_cost dp_cost;
    pp_error err = {0};
    CHECK(pp_shard_baseline_data_parallel(A.nda, &three, &dp, &err) == PP_OK);
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &three, &dp, &dp_cost, &err) == PP_OK);
    pp_shard_state_free(&dp);
    pp_shard_search_options o;
    pp_shard_search_options_default(&o);
    o.memory = dp_cost.peak_memory * 0.8;
    pp_shard_search_result r;
    if (search(&A, &mesh, &o, &r)) {
        CHECK(r.cost.peak_memory <= o.memory);
        CHECK(r.cost.runtime < r.initial.runtime);
        pp_shard_search_result_free(&r);
    }
    release(&A);
}

/* ResNet-50 as exported has batch 1, so no data parallelism: the plan
 * shards convolutions' spatial and channel dimensions, and is faster than
 * the unsharded model by the cost model, paying for halos it exchanges. */
static void test_resnet(const pp_hw_device_type *a100)
{
    analysed A;
    if (!open_model(&A, SHARED "jax_resnet_50.mlir"))
        return;
    pp_shard_mesh mesh = a100_mesh("b=2,m=4", a100);
    pp_shard_search_options o;
    pp_shard_search_options_default(&o);
    pp_shard_search_result r;
    if (search(&A, &mesh, &o, &r)) {
        CHECK(r.cost.runtime < r.initial.runtime);
        CHECK(r.cost.peak_memory <= r.memory);
        check_layout_cost(&A, &mesh, &r);
        int32_t convs = 0;
        for (int32_t i = 0; i < A.flat->n_ops; i++) {
            const pp_shard_op *op = pp_shard_flat_op_of(A.flat, i);
            const pp_shard_nda_tensor *T = &A.nda->tensors[A.flat->ops[i].results[0]];
            bool sharded = false;
            for (int32_t d = 0; op->kind == PP_SHARD_OP_CONVOLUTION && d < T->rank; d++)
                sharded |= r.axes[T->first + d] != 0;
            convs += sharded;
        }
        CHECK(convs > 0);
        pp_shard_search_result_free(&r);
    }
    release(&A);
}

/* A 3-layer BERT training step in PyTorch's shape (bench/shard-gen-
 * transformer --train; skipped by name without python3): the tree grows
 * past the 512 states its first table holds, so the table is rebuilt with
 * every node in it; the plan is the same on one thread and two, costs what
 * it reports, fits, and is no slower than data parallelism. */
static void test_training_step(const pp_hw_device_type *a100)
{
    analysed A;
    if (!open_generated(&A, "bert3_train.mlir", "--arch bert --style torch --layers 3 --hidden 64 --heads 4 "
                        "--seq 16 --batch 8 --vocab 512 --train"))
        return;
    pp_shard_mesh mesh = a100_mesh("b=2,m=4", a100);
    pp_shard_search_options o;
    pp_shard_search_options_default(&o);
    o.threads = 1;
    pp_shard_search_result one;
    if (search(&A, &mesh, &o, &one)) {
        CHECK(one.tree_nodes > 512);
        CHECK(one.cost.runtime <= baseline_time(&A, &mesh, pp_shard_baseline_data_parallel));
        CHECK(one.cost.peak_memory <= one.memory);
        check_layout_cost(&A, &mesh, &one);
        check_two_threads(&A, &mesh, o, &one);
        pp_shard_search_result_free(&one);
    }
    release(&A);
}

int main(void)
{
    test_mlp_optimum();
    test_nothing_to_shard();
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    const pp_hw_device_type *a100 = cat ? pp_hw_find(cat, "a100-80gb") : NULL;
    CHECK(a100 != NULL);
    if (a100) {
        test_chess_baselines(a100);
        test_chess_memory(a100);
        test_resnet(a100);
        test_training_step(a100);
    }
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
