/* test_deep.c: plans of many units.
 * - A pipeline deeper than the stage search once allowed (32 stages): 64
 *   equal blocks whose every dimension is odd (a batch of one, widths of
 *   999), which no power-of-two mesh splits, on one node of 64 devices,
 *   each device's memory set so that it holds one block's training state
 *   (and 1F1B's in-flight activations) and not two: a mesh of more devices
 *   holds a block replicated, as much a device, so every stage that fits
 *   holds one block and the only plans that fit have 64 stages. The plan
 *   must fit with 64 stages of one block each, pass the independent check,
 *   agree with the simulator within 2% and beat every baseline that
 *   applies.
 * - 32 residual MLP blocks of GPT-3 6.7B's widths (as bench/plan-gen-mlp
 *   writes them) on 32 A100s: the joint plan pipelines and beats both the
 *   sharder alone and pipeline only, and Megatron's uniform split.
 * - 48 blocks on 64 A100s plan within their limit (+10%). */
#include "fixture.h"
#include "plan/plan_internal.h"

#define BLOCKS 64
#define CLUSTERS PP_SOURCE_DIR "/examples/cluster/"

static void sixty_four_stages(void)
{
    size_t ms, cs;
    char *module = chain_module(BLOCKS, 1, 999, 999, 0, &ms), *cluster = one_node("a100", 64, 12.9e9, 15e-6, &cs);
    pp_plan_request req = request(module, ms, cluster, cs);
    pp_error err = {0};
    /* a block's figures, with room to spare, then the limit from them */
    req.memory = 1e12;
    plan_ctx X;
    CHECK(plan_prepare(&X, &req, &err) == PP_OK);
    int32_t one = 0;
    while (one < X.n_meshes && X.meshes[one].devices != 1)
        one++;
    CHECK(X.n_units == BLOCKS && X.n_kinds == 1 && one < X.n_meshes);
    double state = X.cost[one].state;
    req.memory = 1.5 * state;
    /* the premise: on every mesh it is sharded on, one block fits with
     * every micro-batch of a 64-stage pipeline in flight, two blocks never */
    for (int32_t k = 0; k < X.n_meshes; k++)
        if (X.cost_ok[k]) {
            CHECK(X.cost[k].state + BLOCKS * X.cost[k].activations <= req.memory);
            CHECK(2 * X.cost[k].state > req.memory);
        }
    plan_release(&X);
    pp_plan_report r;
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    if (r.n_stages > 0) {
        check_plan("deep", &r, &req);
        CHECK(r.fits && r.n_stages == BLOCKS && r.replicas == 1);
        for (int32_t s = 0; s < r.n_stages; s++)
            CHECK(r.stages[s].units == 1 && r.stages[s].first_unit == s);
    } else
        fprintf(stderr, "deep: %s\n", err.message);
    pp_plan_report_free(&r);
    free(module);
    free(cluster);
}

static void joint_beats_baselines(void)
{
    size_t ms;
    char *module = chain_module(32, 2048, 4096, 16384, 0, &ms);
    pp_plan_request req = text_request("mlp-32.mlir", module, ms, CLUSTERS "dgx-a100-4.json", 30);
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    if (r.n_stages > 0) {
        check_plan("mlp-32 on dgx-a100-4", &r, &req);
        CHECK(r.n_stages >= 2);
        for (int k = PP_PLAN_SHARDER_ALONE; k <= PP_PLAN_PIPELINE_ONLY; k++)
            CHECK(r.baselines[k].applies && r.step_time < r.baselines[k].step_time);
        /* Megatron's uniform split is one of the plans the search could pick: never faster */
        CHECK(r.baselines[PP_PLAN_MEGATRON].applies && r.step_time <= r.baselines[PP_PLAN_MEGATRON].step_time);
    } else
        fprintf(stderr, "mlp-32: %s\n", err.message);
    pp_plan_report_free(&r);
    free(module);
}

/* Many units on many devices: 48 blocks on 64 A100s, whose DP for one
 * replica alone took longer than the whole limit, within its limit (+10%). */
static void many_units_within_limit(void)
{
    size_t ms;
    char *module = chain_module(48, 512, 1024, 4096, 0, &ms);
    pp_plan_request req = text_request("mlp-48.mlir", module, ms, CLUSTERS "dgx-a100-8.json", 20);
    pp_plan_report r;
    pp_error err = {0};
    double start = pp_now();
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    check_in_time("mlp-48 on dgx-a100-8", pp_now() - start, &req);
    if (r.n_stages > 0)
        check_plan("mlp-48 on dgx-a100-8", &r, &req);
    pp_plan_report_free(&r);
    free(module);
}

int main(void)
{
    sixty_four_stages();
    joint_beats_baselines();
    many_units_within_limit();
    return CHECK_DONE();
}
