/* test_stack.c: the software stacks (issue 30). pp_cluster_stack_runs
 * against a list, written here, of what each stack supports (the
 * interleaved schedule, ZeRO-3 beside a pipeline, optimizer-only sharding,
 * gradients reduced during the backward); plans of another stack refused
 * by validation and the checker; the planner under each stack returns
 * (best and uniform baseline) only plans on that stack which the list
 * allows; torchtitan's float32 gradient reduction doubles ZeRO-3's
 * gradient bytes and nothing else; DeepSpeed's FP32 gradient
 * accumulation adds one streaming pass over the stage's gradients per
 * micro-batch, by hand, and nothing per layer pass besides; its blocking sends and its FP32 gradient
 * reductions (the data-parallel ring and the tied embedding), by hand;
 * names round-trip. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cluster/fixture.h"
#include "cluster/check.h"
#include "cluster/plan.h"
#include "cluster/solve.h"
#include "cluster/stack.h"
#include "cluster/transformer.h"
#include "cluster/workload_internal.h"
#include "hw/hw_internal.h"

#define EXAMPLES PP_SOURCE_DIR "/examples/cluster"

enum { INTERLEAVED, ZERO3_WITH_PIPELINE, OPTIMIZER_ONLY_SHARDING, REDUCE_DURING_BACKWARD, FEATURES };

/* supports[stack][feature], from each stack's own code (src/cluster/stack.c) */
static const bool supports[PP_CLUSTER_STACK_COUNT][FEATURES] = {
    [PP_CLUSTER_STACK_MEGATRON_LM] = {true, true, true, true},
    [PP_CLUSTER_STACK_MEGATRON_DEEPSPEED] = {false, false, true, false},
    [PP_CLUSTER_STACK_TORCHTITAN] = {true, true, false, true},
};

/* A 2-replica, 2-stage plan using only the feature f. */
static pp_cluster_plan *plan_with(pp_cluster_stack stack, int f)
{
    int tp[2] = {1, 1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 2, tp);
    p->stack = stack;
    p->virtual_stages = f == INTERLEAVED ? 2 : 1;
    p->zero3 = f == ZERO3_WITH_PIPELINE;
    p->distributed_optimizer = f == OPTIMIZER_ONLY_SHARDING;
    p->reduce_after_backward = f != REDUCE_DURING_BACKWARD;
    return p;
}

static bool allowed(const pp_cluster_plan *p)
{
    bool ok = true;
    if (p->virtual_stages > 1)
        ok &= supports[p->stack][INTERLEAVED];
    if (p->zero3 && p->stage_count > 1)
        ok &= supports[p->stack][ZERO3_WITH_PIPELINE];
    if (p->distributed_optimizer && !p->zero3 && p->replica_count > 1)
        ok &= supports[p->stack][OPTIMIZER_ONLY_SHARDING];
    if (!p->reduce_after_backward && p->replica_count > 1)
        ok &= supports[p->stack][REDUCE_DURING_BACKWARD];
    return ok;
}

static void the_list(void)
{
    for (int s = 0; s < PP_CLUSTER_STACK_COUNT; s++) {
        pp_cluster_stack back;
        CHECK(pp_cluster_stack_parse(pp_cluster_stack_name((pp_cluster_stack)s), &back) && (int)back == s);
        for (int f = 0; f < FEATURES; f++) {
            pp_cluster_plan *p = plan_with((pp_cluster_stack)s, f);
            char why[256] = "";
            bool runs = pp_cluster_stack_runs(p, why, sizeof why);
            if (runs != supports[s][f])
                fprintf(stderr, "stack %s, feature %d: runs %d, the list says %d\n",
                        pp_cluster_stack_name((pp_cluster_stack)s), f, runs, supports[s][f]);
            CHECK(runs == supports[s][f]);
            CHECK(runs || strstr(why, pp_cluster_stack_name((pp_cluster_stack)s)) != NULL);
            pp_cluster_plan_free(p);
        }
    }
    pp_cluster_stack none;
    CHECK(!pp_cluster_stack_parse("deepspeed", &none) && !pp_cluster_stack_parse(NULL, &none));
    CHECK(pp_cluster_stack_name(PP_CLUSTER_STACK_COUNT) == NULL);
}

/* The planner under each stack: the best plan and the uniform baseline are
 * on that stack and the list allows them; validation and the independent
 * checker agree. */
static void planner_keeps_to_the_stack(const char *cluster_file, const char *workload_file,
                                       bool expect_interleaving)
{
    pp_hw_catalog *cat = NULL;
    pp_cluster *c = NULL;
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    CHECK(pp_hw_catalog_add_file(cat, EXAMPLES "/calibration-a100.json", &err) == PP_OK);
    CHECK(pp_cluster_load(cluster_file, cat, &c, &err) == PP_OK);
    CHECK(pp_cluster_workload_load(workload_file, cat, &w, &err) == PP_OK);
    if (!c || !w) {
        pp_cluster_workload_free(w);
        pp_cluster_free(c);
        pp_hw_catalog_free(cat);
        return;
    }
    bool interleaved[PP_CLUSTER_STACK_COUNT] = {false};
    for (int s = 0; s < PP_CLUSTER_STACK_COUNT; s++) {
        w->stack = (pp_cluster_stack)s;
        pp_cluster_plan_options o = {.time_limit = 60, .threads = 2};
        pp_cluster_plan_result r;
        CHECK(pp_cluster_plan_search(c, w, &o, &r, &err) == PP_OK);
        CHECK(r.best != NULL && r.uniform != NULL);
        const pp_cluster_plan *plans[2] = {r.best, r.uniform};
        for (int k = 0; k < 2 && r.best && r.uniform; k++) {
            CHECK((int)plans[k]->stack == s);
            CHECK(allowed(plans[k]));
            CHECK(pp_cluster_plan_validate(c, w, plans[k], &err) == PP_OK);
            CHECK(pp_cluster_plan_check(c, w, plans[k], 0, &err) == PP_OK);
            /* the same plan on a stack that cannot run it is refused */
            pp_cluster_plan *other = pp_cluster_plan_copy(plans[k]);
            other->stack = PP_CLUSTER_STACK_MEGATRON_DEEPSPEED;
            other->reduce_after_backward = false;
            CHECK(!allowed(other) == (pp_cluster_plan_validate(c, w, other, &err) == PP_EINPUT));
            CHECK(!allowed(other) == (pp_cluster_plan_check(c, w, other, 0, &err) == PP_EINPUT));
            interleaved[s] |= plans[k]->virtual_stages > 1;
            pp_cluster_plan_free(other);
        }
        pp_cluster_plan_result_free(&r);
    }
    /* where Megatron-LM interleaves, torchtitan may too, DeepSpeed's engine never */
    CHECK(!interleaved[PP_CLUSTER_STACK_MEGATRON_DEEPSPEED]);
    if (expect_interleaving)
        CHECK(interleaved[PP_CLUSTER_STACK_MEGATRON_LM]);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    pp_hw_catalog_free(cat);
}

/* FSDP in torchtitan reduces in float32: twice ZeRO-3's gradient bytes,
 * the weights and state as on the other stacks. */
static void float32_reduction(void)
{
    pp_transformer t = {.layers = 4, .hidden = 1024, .heads = 16, .sequence = 512, .vocabulary = 32000,
                        .global_batch = 8};
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK(pp_cluster_workload_transformer(&t, false, &w, &err) == PP_OK);
    if (!w)
        return;
    pp_cluster_plan like = {.replica_count = 4, .zero3 = true};
    pp_cluster_layer lm = pp_cluster_layer_under(&w->layers[1], &like, false, 1);
    like.stack = PP_CLUSTER_STACK_TORCHTITAN;
    pp_cluster_layer tt = pp_cluster_layer_under(&w->layers[1], &like, false, 1);
    CHECK(tt.gradient_bytes == 2 * lm.gradient_bytes && tt.gradient_bytes > 0);
    CHECK(tt.weight_bytes == lm.weight_bytes && tt.state_bytes == lm.state_bytes);
    like.zero3 = false;
    CHECK(pp_cluster_layer_under(&w->layers[1], &like, false, 1).gradient_bytes == w->layers[1].gradient_bytes);
    pp_cluster_workload_free(w);
}

/* The steps on megatron-lm and on megatron-deepspeed of the uniform plan
 * of pp stages, one replica, one device a stage, micro-batches of one
 * sample. */
static void steps_on_both(pp_cluster *c, pp_cluster_workload *w, int pp, double step[2])
{
    for (int k = 0; k < 2; k++) {
        w->stack = k ? PP_CLUSTER_STACK_MEGATRON_DEEPSPEED : PP_CLUSTER_STACK_MEGATRON_LM;
        pp_cluster_plan *p = NULL;
        pp_error err = {0};
        step[k] = NAN;
        CHECK(pp_cluster_plan_uniform(c, w, 1, pp, 1, 1, &p, &err) == PP_OK);
        if (!p)
            continue;
        pp_cluster_sim_options o = {.start_time = 0};
        pp_cluster_report r;
        CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
        step[k] = r.step_time;
        pp_cluster_report_free(&r);
        pp_cluster_plan_free(p);
    }
}

/* One device, no communication: megatron-deepspeed's step is megatron-lm's
 * plus, for each of the m micro-batches, 9 bytes per 16-bit weight byte
 * (the cast: the gradient read, its FP32 copy written; the add: the FP32
 * sum and the copy read, the sum written) at the streaming rate. */
static void fp32_accumulation(void)
{
    pp_hw_device_type type = {"t", 1e12, 2e12, 80e9, 1.0, 0.5, 0, 0, 0, 0.8, 0, 0};
    int one = 1;
    pp_cluster *c = fixture_cluster(1, &one, &type, 1e11, 1e10);
    pp_cluster_workload *w = fixture_workload(2, 1e9, 8e9, 1e6, 1e6, 4);
    for (int k = 0; k < 2; k++)
        w->layers[k].weight_bytes = 1e9;
    double step[2];
    steps_on_both(c, w, 1, step);
    double accumulate = 9 * 2e9 / (2e12 * 0.8);
    if (!(fabs(step[1] - step[0] - 4 * accumulate) < 1e-9 * step[1]))
        fprintf(stderr, "steps %.12g and %.12g, 4 passes of %.12g\n", step[0], step[1], accumulate);
    CHECK(fabs(step[1] - step[0] - 4 * accumulate) < 1e-9 * step[1]);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* No cost per layer pass that no source sizes (BENCHMARKS.md, issue 30):
 * with weightless layers there is nothing to accumulate, so on one device
 * megatron-deepspeed's step is megatron-lm's, 24 layers x 4 micro-batches
 * x (forward 1 ms + backward 2 ms) = 0.288 s, by hand. */
static void no_cost_per_layer_pass(void)
{
    pp_hw_device_type type = fixture_type("t", 1e12, 80e9);
    int one = 1;
    pp_cluster *c = fixture_cluster(1, &one, &type, 1e11, 1e10);
    pp_cluster_workload *w = fixture_workload(24, 1e9, 0, 1e6, 1e6, 4);
    double step[2];
    steps_on_both(c, w, 1, step);
    if (!(fabs(step[0] - 0.288) < 1e-9 && step[1] == step[0]))
        fprintf(stderr, "megatron-lm %.12g, megatron-deepspeed %.12g, 0.288 by hand\n", step[0], step[1]);
    CHECK(fabs(step[0] - 0.288) < 1e-9 && step[1] == step[0]);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Checks the steps of w's uniform plan of two stages on two nodes (one
 * device each: 1e12 FLOP/s, NICs of 1e10 B/s) against those worked out by
 * hand for megatron-lm and megatron-deepspeed. */
static void two_stages_by_hand(pp_cluster_workload *w, double lm, double ds)
{
    pp_hw_device_type types[2] = {fixture_type("t", 1e12, 80e9), fixture_type("t", 1e12, 80e9)};
    int one[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, one, types, 1e11, 1e10);
    double step[2];
    steps_on_both(c, w, 2, step);
    if (!(fabs(step[0] - lm) < 1e-9 && fabs(step[1] - ds) < 1e-9))
        fprintf(stderr, "megatron-lm %.12g (%g by hand), megatron-deepspeed %.12g (%g)\n", step[0], lm, step[1], ds);
    CHECK(fabs(step[0] - lm) < 1e-9 && fabs(step[1] - ds) < 1e-9);
    pp_cluster_free(c);
}

/* DeepSpeed's blocking p2p.send, by hand: two stages, two micro-batches,
 * forward 1 s, backward 2 s, a transfer x = 0.5 s. Megatron-LM's order
 * (non-blocking sends): stage 1 runs F0 [1.5, 2.5], B0 [2.5, 4.5], F1 at
 * once [4.5, 5.5] (its input arrived at 3), B1 [5.5, 7.5]; stage 0's B1
 * gets its gradient at 8 and ends at 10. DeepSpeed's: stage 1 waits for
 * its B0 gradient to be delivered before F1, [5, 6], B1 [6, 8], stage 0's
 * B1 [8.5, 10.5]: one x longer. */
static void blocking_send(void)
{
    pp_cluster_workload *w = fixture_workload(2, 1e12, 0, 1e6, 5e9, 2);
    two_stages_by_hand(w, 10, 10.5);
    pp_cluster_workload_free(w);
}

/* megatron-deepspeed's BF16 optimizer reduces FP32 gradients: the data-
 * parallel ring's bytes 2.5 times (2 x 4 + 2 against 2 x 2 a parameter),
 * ZeRO-3's untouched; and the tied embedding's all-reduce twice the
 * bytes, by hand: one micro-batch through two stages (forward 1 s,
 * backward 2 s, transfers 0.1 s: 6.2 s), then each end sends its 1e10
 * bytes (2e10 on DeepSpeed) to the other at 1e10 B/s. */
static void fp32_reduction(void)
{
    pp_cluster_workload *w = fixture_workload(2, 1e12, 0, 1e6, 1e9, 1);
    w->layers[1].gradient_bytes = 4e9;
    pp_cluster_plan like = {.replica_count = 4, .distributed_optimizer = true};
    double lm = pp_cluster_layer_under(&w->layers[1], &like, false, 1).gradient_bytes;
    like.stack = PP_CLUSTER_STACK_MEGATRON_DEEPSPEED;
    CHECK(pp_cluster_layer_under(&w->layers[1], &like, false, 1).gradient_bytes == 2.5 * lm && lm == 4e9);
    like.zero3 = true;
    CHECK(pp_cluster_layer_under(&w->layers[1], &like, false, 1).gradient_bytes == lm);
    w->tied_bytes = 1e10;
    two_stages_by_hand(w, 7.2, 8.2);
    pp_cluster_workload_free(w);
}

int main(void)
{
    blocking_send();
    fp32_reduction();
    fp32_accumulation();
    no_cost_per_layer_pass();
    the_list();
    float32_reduction();
    planner_keeps_to_the_stack(EXAMPLES "/dgx-a100-4.json", EXAMPLES "/gpt-7.5b.json", false);
    planner_keeps_to_the_stack(EXAMPLES "/hetero-v100-8.json", EXAMPLES "/llama-7b.json", true);
    return CHECK_DONE();
}
