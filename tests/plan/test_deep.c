/* test_deep.c: a pipeline deeper than the stage search once allowed (32
 * stages). 64 equal blocks whose every dimension is odd (a batch of one,
 * widths of 999), which no power-of-two mesh splits, on one node of 64
 * devices, each device's memory set so that it holds one block's training
 * state (and 1F1B's in-flight activations) and not two: a mesh of more
 * devices holds a block replicated, as much a device, so every stage that
 * fits holds one block and the only plans that fit have 64 stages. The
 * plan must fit with 64 stages of one block each, pass the independent
 * check, agree with the simulator within 2% and beat every baseline that
 * applies. */
#include "fixture.h"
#include "plan/plan_internal.h"

#define BLOCKS 64

int main(void)
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
    return CHECK_DONE();
}
