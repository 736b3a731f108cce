/* test_memory.c: peak memory per device (pp_cluster_plan_memory) on a
 * two-stage, two-replica plan with an uneven split, worked by hand with and
 * without recomputation, and 1F1B's in-flight count when a replica runs
 * fewer micro-batches than it has stages. */
#include <math.h>

#include "check.h"
#include "fixture.h"

static const pp_hw_device_type types[2] = {
    {"big", 100e12, 1e18, 80e9, 1.0, 1.0},
    {"small", 50e12, 1e18, 40e9, 1.0, 1.0},
};
static const int per_node[2] = {4, 4};

/* Layer k (0..3) has state 100 (k+1), activations 40 (k+1) split and
 * 4 (k+1) replicated, checkpoint 8 (k+1) bytes per sample. */
static pp_cluster_workload *workload(void)
{
    pp_cluster_workload *w = fixture_workload(4, 1e9, 0, 0, 0, 8);
    for (int k = 0; k < 4; k++) {
        w->layers[k].state_bytes = 100.0 * (k + 1);
        w->layers[k].activation_bytes = 40.0 * (k + 1);
        w->layers[k].activation_replicated_bytes = 4.0 * (k + 1);
        w->layers[k].checkpoint_bytes = 8.0 * (k + 1);
    }
    return w;
}

/* Replica 0 runs 3 micro-batches: stage 0 (layer 0) on devices 0 and 1 split
 * 3:1, stage 1 (layers 1-3) on device 4. Replica 1 runs 1: stage 0 on 2 and
 * 3 split evenly, stage 1 on 5. Micro-batches of 2 samples; 6 and 7 idle. */
static pp_cluster_plan *plan(bool recompute)
{
    static const int tp[2] = {2, 1};
    static const int devices[6] = {0, 1, 4, 2, 3, 5};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 2, tp);
    for (int i = 0; i < 6; i++)
        p->devices[i] = devices[i];
    p->split[0] = 0.75;
    p->split[1] = 0.25;
    p->micro_batch = 2;
    p->micro_batches[0] = 3;
    p->micro_batches[1] = 1;
    p->stage_layers[0] = 1;
    p->stage_layers[1] = 3;
    p->stage_recompute[0] = p->stage_recompute[1] = recompute;
    return p;
}

static void check_peaks(bool recompute, const double *want)
{
    pp_cluster *c = fixture_cluster(2, per_node, types, 100e9, 10e9);
    pp_cluster_workload *w = workload();
    pp_cluster_plan *p = plan(recompute);
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    double peak[8];
    for (int d = 0; d < 8; d++)
        peak[d] = -1;
    pp_cluster_plan_memory(c, w, p, peak);
    for (int d = 0; d < 8; d++)
        if (fabs(peak[d] - want[d]) > 1e-9) {
            fprintf(stderr, "recompute %d device %d: %g bytes, expected %g\n", recompute, d,
                    peak[d], want[d]);
            CHECK(0);
        }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Without recomputation, kept per sample = f * activations + replicated.
 * Device 0: 0.75 * 100 + min(2, 3) in flight * 2 samples * (30 + 4) = 211.
 * Device 1: 25 + 2 * 2 * (10 + 4) = 81.
 * Device 4: 900 + min(1, 3) * 2 * (88 + 132 + 176) = 1692.
 * Devices 2 and 3: 50 + min(2, 1) * 2 * (20 + 4) = 98. Device 5 as 4. */
static void test_without_recompute(void)
{
    static const double want[8] = {211, 81, 98, 98, 1692, 1692, 0, 0};
    check_peaks(false, want);
}

/* With it, kept per sample = checkpoints, plus b times the largest layer's
 * full activations. Device 0: 75 + 2 * 2 * 8 + 2 * 34 = 175. Device 1:
 * 25 + 32 + 2 * 14 = 85. Device 4: 900 + 1 * 2 * (16 + 24 + 32) + 2 * 176 =
 * 1396. Devices 2 and 3: 50 + 1 * 2 * 8 + 2 * 24 = 114. */
static void test_with_recompute(void)
{
    static const double want[8] = {175, 85, 114, 114, 1396, 1396, 0, 0};
    check_peaks(true, want);
}

/* A uniform plan through the same model: every member of stage s holds
 * state / tp of its layers and min(pp - s, m) micro-batches. */
static void test_uniform_against_formula(void)
{
    pp_cluster *c = fixture_cluster(2, per_node, types, 100e9, 10e9);
    pp_cluster_workload *w = fixture_workload(8, 1e9, 1000, 64, 16, 32);
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, 2, 4, 1, 4, &p, &err), PP_OK);
    double peak[8];
    pp_cluster_plan_memory(c, w, p, peak);
    /* m = 32 / 4 = 8 micro-batches; stage s = devices 2 s and 2 s + 1 */
    for (int d = 0; d < 8; d++) {
        int s = d / 2;
        double want = 2 * 1000 / 2.0 + (4 - s) * 4 * 2 * (64 / 2.0);
        CHECK(fabs(peak[d] - want) < 1e-9);
    }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    test_without_recompute();
    test_with_recompute();
    test_uniform_against_formula();
    return CHECK_DONE();
}
