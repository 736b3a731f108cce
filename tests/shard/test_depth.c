/* test_depth.c: the sharder at the depth of real models (issue 28), on
 * transformers written by bench/shard-gen-transformer (skipped, by name,
 * without python3):
 * - a 12-layer BERT in a PyTorch exporter's shape, batch 8: Megatron
 *   applies (more actions than the 64 a state used to hold), with exactly
 *   two all_reduces a layer (after the attention's output projection and
 *   after the MLP, Megatron-LM section 3), and the plan is no slower than
 *   any baseline that applies;
 * - its training step (forward, backward, SGD update, the new weights
 *   returned): the batch is the token ids', data parallelism all-reduces
 *   the gradients, Megatron applies per layer (the MLP width at least),
 *   the plan beats them;
 * - a 12-layer GPT in JAX's shape, batch 1: data parallelism cannot apply,
 *   Megatron does, and the plan is no slower than it;
 * - the bridge folded over the repeated layers of a 12-layer GPT: a problem
 *   the size of one layer (plus the embedding and head) whose objective, for
 *   random strategies and for the solver's answer, is the cost model's
 *   runtime of the expanded layout to rounding, whose peak usage is within
 *   a factor 2 of its peak memory, and whose layout is the same in every copy;
 * - a 48-layer GPT whose weights alone exceed the memory limit: only a plan
 *   that shards the weights fits, and the plan found does (its peak
 *   recomputed from its layout); under a limit no plan meets, the report
 *   says by how much the best one is over. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_report.h"
#include "shard/bridge_internal.h"
#include "shard/request_internal.h"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

static bool baseline_cost(const analysed *A, const pp_shard_mesh *mesh,
                          pp_status (*make)(const pp_shard_nda *, const pp_shard_mesh *, pp_shard_state *, pp_error *),
                          pp_shard_cost *c, int32_t *actions)
{
    pp_shard_state s;
    pp_error e = {0};
    bool ok = make(A->nda, mesh, &s, &e) == PP_OK && pp_shard_cost_eval(A->flat, A->nda, mesh, &s, c, &e) == PP_OK;
    if (actions)
        *actions = s.n;
    pp_shard_state_free(&s);
    return ok;
}

/* The plan on mesh under `memory` (<= 0: the device's), both searches. */
static bool plan(const analysed *A, const pp_shard_mesh *mesh, double memory, pp_shard_plan_result *r)
{
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    /* The MCTS stops on its own in seconds, the bridge at a proven optimum:
     * the bound's (the training step), or CBC's from the bound's answer,
     * which takes 12 s on the 48-layer GPT under its memory limit; room for
     * a loaded machine. Below that, CBC is killed and the search
     * runs to the limit. */
    o.time_limit = 60;
    o.memory = memory;
    pp_error err = {0};
    pp_status st = pp_shard_plan(A->flat, A->nda, mesh, &o, NULL, r, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(st == PP_OK);
    return st == PP_OK;
}

/* The plan is no slower than any baseline that applies; how many applied. */
static int beats_baselines(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_plan_result *r)
{
    pp_status (*make[])(const pp_shard_nda *, const pp_shard_mesh *, pp_shard_state *, pp_error *) = {
        pp_shard_baseline_data_parallel, pp_shard_baseline_megatron, pp_shard_baseline_combined,
        pp_shard_baseline_expert};
    int applied = 0;
    pp_shard_cost c;
    for (size_t k = 0; k < sizeof make / sizeof make[0]; k++)
        if (baseline_cost(A, mesh, make[k], &c, NULL)) {
            applied++;
            CHECK(r->cost.runtime <= c.runtime);
        }
    uint8_t *axes = calloc((size_t)A->nda->n_names + 1, 1);
    pp_error e = {0};
    if (axes && pp_shard_baseline_fsdp(A->nda, mesh, axes, &e) == PP_OK &&
        pp_shard_cost_eval_layout(A->flat, A->nda, mesh, axes, &c, &e) == PP_OK) {
        applied++;
        CHECK(r->cost.runtime <= c.runtime);
    }
    free(axes);
    return applied;
}

static void test_bert12_torch(void)
{
    analysed A;
    if (!open_generated(&A, "bert12_torch.mlir",
                        "--arch bert --style torch --layers 12 --hidden 64 --heads 4 --seq 16 --batch 8 --vocab 512"))
        return;
    pp_shard_mesh mesh = mesh_on("b=2,m=4", &dev, pp_shard_default_link());
    pp_shard_cost mega;
    int32_t actions = 0;
    CHECK(baseline_cost(&A, &mesh, pp_shard_baseline_megatron, &mega, &actions));
    CHECK(actions > 64);
    CHECK_EQ_INT(mega.collectives[PP_SHARD_ALL_REDUCE], 2 * 12 + 1); /* and the embedding's lookup */
    pp_shard_plan_result r;
    if (plan(&A, &mesh, 0, &r)) {
        CHECK(r.fits);
        CHECK(beats_baselines(&A, &mesh, &r) >= 3); /* data parallel, Megatron, both, FSDP */
        pp_shard_plan_free(&r);
    }
    release(&A);
}

/* A training step returns its updated weights: the batch is still the
 * token ids' (data parallelism then all-reduces the weights' gradients),
 * and Megatron still finds each layer's MLP width and heads, which the
 * backward pass and the update reach too. */
static void test_bert12_training(void)
{
    analysed A;
    int L = 12;
    char args[160];
    snprintf(args, sizeof args, "--arch bert --style torch --layers %d --hidden 64 --heads 4 --seq 16 --batch 8 --vocab 512 "
             "--train", L);
    if (!open_generated(&A, "bert12_train.mlir", args))
        return;
    pp_shard_mesh mesh = mesh_on("b=2,m=4", &dev, pp_shard_default_link());
    int32_t ids = A.flat->n_inputs - 1;
    CHECK_EQ_INT(pp_shard_batch_color(A.nda), A.nda->color[A.nda->tensors[ids].first]);
    pp_shard_cost c;
    int32_t actions = 0;
    CHECK(baseline_cost(&A, &mesh, pp_shard_baseline_data_parallel, &c, NULL));
    CHECK(c.collectives[PP_SHARD_ALL_REDUCE] >= L * 6); /* at least a layer's six weights' gradients, per layer */
    CHECK(baseline_cost(&A, &mesh, pp_shard_baseline_megatron, &c, &actions));
    /* at least a color per layer (the MLP width: its forward and backward all_reduces) */
    CHECK(actions >= L && c.collectives[PP_SHARD_ALL_REDUCE] >= 2 * L);
    pp_shard_plan_result r;
    if (plan(&A, &mesh, 0, &r)) {
        CHECK(beats_baselines(&A, &mesh, &r) >= 3);
        pp_shard_plan_free(&r);
    }
    release(&A);
}

static void test_gpt12_jax_batch1(void)
{
    analysed A;
    if (!open_generated(&A, "gpt12_jax.mlir",
                        "--arch gpt --style jax --layers 12 --hidden 64 --heads 4 --seq 16 --batch 1 --vocab 512"))
        return;
    pp_shard_mesh mesh = mesh_on("b=2,m=4", &dev, pp_shard_default_link());
    pp_shard_cost c;
    int32_t actions = 0;
    CHECK(baseline_cost(&A, &mesh, pp_shard_baseline_megatron, &c, &actions));
    CHECK(actions > 12); /* per layer: the MLP width and the heads */
    CHECK_EQ_INT(c.collectives[PP_SHARD_ALL_REDUCE], 2 * 12 + 1);
    CHECK(!baseline_cost(&A, &mesh, pp_shard_baseline_data_parallel, &c, NULL)); /* a batch of 1 */
    pp_shard_plan_result r;
    if (plan(&A, &mesh, 0, &r)) {
        CHECK(beats_baselines(&A, &mesh, &r) >= 1);
        pp_shard_plan_free(&r);
    }
    release(&A);
}

/* The objective and peak usage of strategies in the folded problem, and
 * the expanded layout as the cost model prices it. */
static void check_folded(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_bridge *F, const uint32_t *s,
                         double rounding)
{
    pp_iopddl_evaluation ev;
    pp_shard_cost c;
    pp_error err = {0};
    uint8_t *axes = calloc((size_t)A->nda->n_names + 1, 1);
    CHECK(axes && pp_shard_bridge_layout(F, s, axes, &err) == PP_OK);
    CHECK(pp_shard_cost_eval_layout(A->flat, A->nda, mesh, axes, &c, &err) == PP_OK);
    CHECK(pp_iopddl_evaluate(pp_shard_bridge_problem(F), s, &ev, &err) == PP_OK);
    CHECK(fabs((double)ev.cost - c.runtime * 1e12) <= rounding);
    /* the usage folds a copy's times the copies live at once: near the peak, not a bound on it */
    CHECK((double)ev.peak_usage >= c.peak_memory / 2 && (double)ev.peak_usage <= c.peak_memory * 2);
    /* every copy of the layer group laid out as copy 0 */
    const pp_shard_nda_layers *L = &A->nda->layer_groups[0];
    for (int32_t j = 0; j < L->n_copy_args; j++)
        for (int32_t k = 1; k < L->copies; k++) {
            const pp_shard_nda_tensor *T0 = &A->nda->tensors[L->arg_map[j]];
            const pp_shard_nda_tensor *Tk = &A->nda->tensors[L->arg_map[k * L->n_copy_args + j]];
            CHECK(memcmp(axes + T0->first, axes + Tk->first, (size_t)T0->rank) == 0);
        }
    free(axes);
}

static void test_folded_bridge(void)
{
    analysed A;
    if (!open_generated(&A, "gpt12_fold.mlir",
                        "--arch gpt --style jax --layers 12 --hidden 64 --heads 4 --seq 16 --batch 8 --vocab 512"))
        return;
    pp_shard_mesh mesh = mesh_on("b=2,m=4", &dev, pp_shard_default_link());
    pp_shard_bridge *U = NULL, *F = NULL;
    pp_error err = {0};
    CHECK(A.nda->n_layer_groups >= 1 && A.nda->layer_groups[0].copies == 12);
    CHECK(pp_shard_bridge_build(A.flat, A.nda, &mesh, 0, &U, &err) == PP_OK);
    CHECK(shard_bridge_build(A.flat, A.nda, &mesh, 0, true, &F, &err) == PP_OK);
    if (U && F) {
        const pp_iopddl_problem *u = pp_shard_bridge_problem(U), *f = pp_shard_bridge_problem(F);
        fprintf(stderr, "gpt12: bridge %u nodes, %u edges; folded %u nodes, %u edges\n", u->node_count,
                u->edge_count, f->node_count, f->edge_count);
        CHECK(f->node_count * 6 < u->node_count);
        double rounding = 0.5 * (double)(u->node_count + u->edge_count) + 1;
        uint32_t *s = calloc(f->node_count, sizeof *s);
        uint64_t seed = 7;
        for (int round = 0; s && round < 20; round++) {
            for (uint32_t n = 0; n < f->node_count; n++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                s[n] = round ? (uint32_t)(seed >> 33) % pp_iopddl_strategy_count(f, n) : 0;
            }
            check_folded(&A, &mesh, F, s, rounding);
        }
        pp_iopddl_options o;
        pp_iopddl_options_default(&o);
        o.threads = 1;
        o.time_limit = 10;
        pp_iopddl_result r;
        if (pp_iopddl_solve(f, &o, &r, &err) == PP_OK) {
            check_folded(&A, &mesh, F, r.strategies, rounding);
            pp_iopddl_result_free(&r);
        }
        free(s);
    }
    pp_shard_bridge_free(U);
    pp_shard_bridge_free(F);
    release(&A);
}

/* Bytes of the entry's parameters (the weights). */
static double weight_bytes(const analysed *A)
{
    double bytes = 0;
    for (int32_t k = 0; k < A->flat->n_inputs; k++)
        if (pp_shard_arg_role(A->nda, k) == PP_SHARD_ROLE_PARAMETER)
            bytes += (double)pp_shard_type_elements(&A->flat->values[k].type) * A->flat->values[k].type.bits / 8;
    return bytes;
}

static void test_gpt48_memory(void)
{
    analysed A;
    if (!open_generated(&A, "gpt48_jax.mlir",
                        "--arch gpt --style jax --layers 48 --hidden 128 --heads 4 --seq 8 --batch 2 --vocab 256"))
        return;
    pp_shard_mesh mesh = mesh_on("b=2,m=4", &dev, pp_shard_default_link());
    double weights = weight_bytes(&A), limit = weights / 2;
    pp_shard_state none = {0};
    pp_shard_cost whole;
    pp_error e = {0};
    CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &none, &whole, &e) == PP_OK);
    CHECK(whole.peak_memory > weights); /* and a plan keeping the weights whole needs more than the limit */
    pp_shard_plan_result r;
    if (plan(&A, &mesh, limit, &r)) {
        CHECK(r.fits);
        pp_shard_cost again;
        pp_error err = {0};
        CHECK(pp_shard_cost_eval_layout(A.flat, A.nda, &mesh, r.axes, &again, &err) == PP_OK);
        CHECK(again.peak_memory <= limit && again.peak_memory == r.cost.peak_memory);
        fprintf(stderr, "gpt48: weights %.3g MB, limit %.3g MB, plan peak %.3g MB, %.3g s (unsharded %.3g MB)\n",
                weights / 1e6, limit / 1e6, r.cost.peak_memory / 1e6, r.cost.runtime, whole.peak_memory / 1e6);
        pp_shard_plan_free(&r);
    }
    /* a limit below a device's share of the weights: nothing fits, and the
     * report says by how much the best plan is over */
    limit = weights / 64;
    if (plan(&A, &mesh, limit, &r)) {
        CHECK(!r.fits && r.cost.peak_memory > limit);
        pp_shard_report report;
        pp_error err = {0};
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        CHECK(pp_shard_report_build(&report, "gpt48_jax.mlir", "b=2,m=4", A.nda, &mesh, &r, &err) == PP_OK);
        CHECK(f && pp_shard_report_write_text(&report, f, &err) == PP_OK);
        if (f)
            fclose(f);
        char need[32], over[32], want[160];
        snprintf(want, sizeof want, "no plan found fits: the best needs %s per device, %s (",
                 pp_shard_bytes_text(r.cost.peak_memory, need, sizeof need),
                 pp_shard_bytes_text(r.cost.peak_memory - limit, over, sizeof over));
        CHECK(text && strstr(text, want) != NULL);
        free(text);
        pp_shard_plan_free(&r);
    }
    release(&A);
}

int main(void)
{
    test_bert12_torch();
    test_gpt12_jax_batch1();
    test_bert12_training();
    test_folded_bridge();
    test_gpt48_memory();
    return CHECK_DONE();
}
