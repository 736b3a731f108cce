/* test_memory.c: peak memory per device (pp_cluster_plan_memory) on a
 * two-stage, two-replica plan with an uneven split, worked by hand with and
 * without recomputation, 1F1B's in-flight count when a replica runs fewer
 * micro-batches than it has stages, and the plan switches (sequence
 * parallelism, selective recomputation, distributed optimizer) against
 * Korthikanti et al.'s and ZeRO's formulas; interleaved chunks of two sizes. */
#include <math.h>

#include "check.h"
#include "fixture.h"
#include "cluster/plan.h"
#include "cluster/transformer.h"

static const pp_hw_device_type types[2] = {
    {"big", 100e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
    {"small", 50e12, 1e18, 40e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
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

/* Peak memory of device 0 under the uniform plan tp 4, pp 1, dp 2,
 * micro-batch 1 of a small GPT with the given switches. */
static double switched_peak(const pp_transformer *t, bool recompute, int switches)
{
    pp_cluster *c = fixture_cluster(2, per_node, types, 100e9, 10e9);
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(t, recompute, &w, &err), PP_OK);
    pp_cluster_plan *p = NULL;
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, 4, 1, 2, 1, &p, &err), PP_OK);
    for (int s = 0; s < p->stage_count; s++)
        p->stage_recompute[s] = recompute;
    p->sequence_parallel = switches & 1;
    p->selective_recompute = switches & 2;
    p->distributed_optimizer = switches & 4;
    double peak[8];
    pp_cluster_plan_memory(c, w, p, peak);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    return peak[0];
}

/* Korthikanti et al. (2022) per layer at t = 4, one micro-batch of one
 * sequence: no switch sbh (10 + 24/t + 5as/(ht)); sequence parallel
 * sbh (34 + 5as/h)/t; selective sbh (10 + 24/t); both sbh 34/t; full
 * recomputation keeps 2sbh, 2sbh/t with sequence parallelism (and rebuilds
 * one layer, whose replicated 10sbh is split too). ZeRO-1 over 2 replicas
 * saves 12 (1 - 1/2) bytes of each parameter the device holds. */
static void test_switches_against_korthikanti(void)
{
    pp_transformer t = {.layers = 2, .hidden = 64, .heads = 4, .sequence = 32, .vocabulary = 128,
                        .global_batch = 4};
    double L = 2, s = 32, h = 64, a = 4, tp = 4, sbh = s * h;
    double plain = switched_peak(&t, false, 0);
    CHECK(fabs(plain - switched_peak(&t, false, 1) - L * sbh * 10 * (1 - 1 / tp)) < 1e-6);
    CHECK(fabs(plain - switched_peak(&t, false, 2) - L * sbh * 5 * a * s / (h * tp)) < 1e-6);
    CHECK(fabs(plain - switched_peak(&t, false, 3) - L * sbh * (10 + 24 / tp + 5 * a * s / (h * tp) - 34 / tp)) <
          1e-6);
    double full = switched_peak(&t, true, 0), full_sp = switched_peak(&t, true, 1);
    CHECK(fabs(full - full_sp - (L * 2 * sbh + 10 * sbh) * (1 - 1 / tp)) < 1e-6);
    /* Selective recomputation changes nothing where every layer is rebuilt anyway. */
    CHECK(fabs(full - switched_peak(&t, true, 2)) < 1e-6);
    double params = (double)pp_cluster_parameters(&t) + (double)(t.vocabulary * t.hidden);
    CHECK(fabs(plain - switched_peak(&t, false, 4) - params / tp * 12 * (1 - 1 / 2.0)) < 1e-6);
}

/* Interleaved, 3 stages of 3, 4 and 3 layers in 2 chunks each: the short
 * chunks at the model's ends (stage 0: 1 + 2 layers, stage 1: 2 + 2,
 * stage 2: 2 + 1), so virtual stages 0..5 hold layers 0 | 1-2 | 3-4 |
 * 5-6 | 7-8 | 9. Layer k keeps 10 (k + 1) bytes per sample and holds
 * 1000 (k + 1) of state. With 3 micro-batches of 2 samples, stage 0's
 * warm-up is min(2 (3 - 1) + 3 + 1, 6) = 6 chunk forwards, 3 of each
 * chunk: 1000 + 6000 + 7000 + 2 x 3 x (10 + 60 + 70) = 14840. Stage 2:
 * min(0 + 3 + 1, 6) = 4 forwards, 3 of chunk 0 and 1 of chunk 1:
 * 4000 + 5000 + 10000 + 2 x (3 x (40 + 50) + 100) = 19740. */
static void test_uneven_chunks(void)
{
    static const int one[3] = {1, 1, 1};
    static const pp_hw_device_type type3[3] = {types[0], types[0], types[0]};
    pp_cluster *c = fixture_cluster(3, one, type3, 100e9, 10e9);
    pp_cluster_workload *w = fixture_workload(10, 1e9, 0, 0, 0, 6);
    for (int k = 0; k < 10; k++) {
        w->layers[k].state_bytes = 1000.0 * (k + 1);
        w->layers[k].activation_bytes = 10.0 * (k + 1);
    }
    static const int tp[3] = {1, 1, 1};
    pp_cluster_plan *p = pp_cluster_plan_new(1, 3, tp);
    p->micro_batch = 2;
    p->micro_batches[0] = 3;
    p->virtual_stages = 2;
    static const int layers[3] = {3, 4, 3};
    for (int s = 0; s < 3; s++) {
        p->stage_layers[s] = layers[s];
        p->devices[s] = s;
    }
    static const int want_chunks[3][2] = {{1, 2}, {2, 2}, {2, 1}};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 2; k++)
            CHECK_EQ_INT(pp_cluster_plan_chunk_layers(p, s, k), want_chunks[s][k]);
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    double peak[3];
    pp_cluster_plan_memory(c, w, p, peak);
    CHECK(fabs(peak[0] - 14840) < 1e-9);
    CHECK(fabs(peak[2] - 19740) < 1e-9);
    p->virtual_stages = 4; /* stage 0's 3 layers cannot make 4 chunks */
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    test_uneven_chunks();
    test_switches_against_korthikanti();
    test_without_recompute();
    test_with_recompute();
    test_uniform_against_formula();
    return CHECK_DONE();
}
