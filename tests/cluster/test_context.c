/* test_context.c: context parallelism (pp_cluster_plan.context_parallel).
 * Memory and the ring's time worked by hand on a small GPT; the rules
 * validation and the checker enforce; the shorthand's Megatron rank order
 * and a file round trip; and the search, given a sequence whose attention
 * scores only fit split, finding the one plan that fits: cp 2. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cluster/load_plan.h"
#include "fixture.h"
#include "cluster/check.h"
#include "cluster/plan.h"
#include "cluster/solve.h"
#include "cluster/transformer.h"

/* l 2, h 64, a 4 (d 16), s 32, V 128, dense: a small GPT */
static const pp_transformer gpt = {.layers = 2, .hidden = 64, .heads = 4, .sequence = 32, .vocabulary = 128,
                                   .global_batch = 2};

static pp_cluster_workload *workload(const pp_transformer *t)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(t, false, &w, &err), PP_OK);
    return w;
}

/* Device 0's peak under the uniform plan tp 1, pp 1, dp x cp = 2 on two
 * single-device nodes. */
static double peak_of(const pp_transformer *t, int dp, int cp, bool distributed)
{
    static const pp_hw_device_type type[2] = {{"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
                                              {"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0}};
    static const int one[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, one, type, 1e9, 1e9);
    pp_cluster_workload *w = workload(t);
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_uniform_context(c, w, 1, 1, dp, cp, 1, &p, &err), PP_OK);
    double peak[2] = {0, 0};
    if (p) {
        p->distributed_optimizer = distributed;
        CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
        pp_cluster_plan_memory(c, w, p, peak);
    }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    return peak[0];
}

/* Korthikanti et al.'s activations per layer at t = 1, kv = h, f = 4h:
 * sh (34 + 5as/h) bytes per sequence, and the last layer's 2sV logits; cp
 * 2 keeps half of each sequence's. The state (16 bytes per parameter with
 * the tied copy) is whole in both; the distributed optimizer shards its 12
 * bytes over dp x cp = 2 replicas either way. */
static void test_memory_by_hand(void)
{
    double s = 32, h = 64, a = 4, V = 128, L = 2;
    double activations = L * s * h * (34 + 5 * a * s / h) + 2 * s * V;
    double params = (double)pp_cluster_parameters(&gpt) + V * h;
    double state = 16 * params;
    CHECK(fabs(peak_of(&gpt, 2, 1, false) - (state + activations)) < 1e-6);
    CHECK(fabs(peak_of(&gpt, 1, 2, false) - (state + activations / 2)) < 1e-6);
    CHECK(fabs(peak_of(&gpt, 1, 2, true) - (state - 6 * params + activations / 2)) < 1e-6);
}

/* One step of the small GPT, one layer, on two single-device nodes joined
 * by `bandwidth`, tp 1, pp 1, dp 1, cp 2, global batch 1, with or without
 * the keys' and values' ring. */
static double cp_step(double bandwidth, bool ring)
{
    static const pp_hw_device_type type[2] = {{"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
                                              {"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0}};
    static const int one[2] = {1, 1};
    pp_transformer t = gpt;
    t.layers = 1;
    t.global_batch = 1;
    pp_cluster *c = fixture_cluster(2, one, type, 1e12, bandwidth);
    pp_cluster_workload *w = workload(&t);
    if (!ring)
        w->layers[0].context_bytes = 0;
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    double step = NAN;
    CHECK_EQ_INT(pp_cluster_plan_uniform_context(c, w, 1, 1, 1, 2, 1, &p, &err), PP_OK);
    pp_cluster_sim_options o = {.start_time = 0};
    pp_cluster_report r;
    if (p && pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK) {
        step = r.step_time;
        /* both halves of the one sequence make one sample */
        CHECK(fabs(r.samples_per_second * step - 1) < 1e-9);
        pp_cluster_report_free(&r);
    }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    return step;
}

/* Each member holds half the sequence's keys and values, 4 s kv / 2 =
 * 4096 bytes, and sends it once round a ring of two: 4096 / B s. Its
 * attention block, half of 4 s^2 h FLOPs at 1e12 FLOP/s, hides (cp - 1) /
 * cp of that. The forward exposes the excess once, the backward (keys,
 * values and their gradients) twice, and the gradient ring starts when the
 * one layer's backward ends either way: the step grows by three times
 * the excess, and by nothing when the attention outlasts the transfer. */
static void test_ring_by_hand(void)
{
    double s = 32, h = 64, kv = 64, block = 4 * s * kv / 2, hide = 4 * s * s * h / 2 / 1e12 / 2;
    double slow = 1e6, fast = 1e12;
    double exposed = block / slow - hide;
    double grown = cp_step(slow, true) - cp_step(slow, false);
    if (!(fabs(grown - 3 * exposed) < 1e-12 * (1 + cp_step(slow, false))))
        fprintf(stderr, "ring: the step grew %.12g s, by hand %.12g\n", grown, 3 * exposed);
    CHECK(fabs(grown - 3 * exposed) < 1e-12 * (1 + cp_step(slow, false)));
    CHECK(block / fast < hide);
    CHECK(fabs(cp_step(fast, true) - cp_step(fast, false)) < 1e-15);
}

/* Each rule alone: the degree divides the replicas, 2 cp divides the
 * sequence, a CP group's replicas run the same micro-batches, and the
 * micro-batches add up to cp times the global batch; the checker agrees. */
static void test_rules(void)
{
    static const pp_hw_device_type types[1] = {{"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0}};
    static const int four[1] = {4};
    pp_cluster *c = fixture_cluster(1, four, types, 1e12, 1e9);
    pp_cluster_workload *w = workload(&gpt);
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    /* dp 2 x cp 2: global batch 2 over 2 CP groups, 1 micro-batch each */
    CHECK_EQ_INT(pp_cluster_plan_uniform_context(c, w, 1, 1, 2, 2, 1, &p, &err), PP_OK);
    if (!p)
        return;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    CHECK_EQ_INT(pp_cluster_plan_check(c, w, p, 0, &err), PP_OK);
    err = (pp_error){0}; /* the first error stays otherwise */
    p->context_parallel = 3;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    CHECK(strstr(err.message, "divide the 4 replicas") != NULL);
    CHECK_EQ_INT(pp_cluster_plan_check(c, w, p, 0, &err), PP_EINPUT);
    err = (pp_error){0};
    p->context_parallel = 4; /* 32 positions in 8 chunks: fine; 2 samples over cp 4 are not */
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    CHECK(strstr(err.message, "times context_parallel 4") != NULL);
    err = (pp_error){0};
    p->context_parallel = 2;
    p->micro_batches[1] = 2;
    p->micro_batches[2] = 0;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    CHECK(strstr(err.message, "context-parallel group's replicas run the same") != NULL);
    CHECK_EQ_INT(pp_cluster_plan_check(c, w, p, 0, &err), PP_EINPUT);
    pp_cluster_plan_free(p);
    pp_transformer odd = gpt;
    odd.sequence = 30; /* not a multiple of 2 x 4 */
    pp_cluster_workload *v = workload(&odd);
    CHECK_EQ_INT(pp_cluster_plan_uniform_context(c, v, 1, 1, 1, 4, 1, &p, &err), PP_OK);
    err = (pp_error){0};
    p->micro_batches[0] = p->micro_batches[1] = p->micro_batches[2] = p->micro_batches[3] = 2;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, v, p, &err), PP_EINPUT);
    CHECK(strstr(err.message, "multiple of 2 x 4 (it is 30)") != NULL);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(v);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* The shorthand {"tp": 2, "pp": 1, "dp": 1, "cp": 2}: rank (s dp cp + r)
 * tp + j, Megatron's tensor-context-data-pipeline order; written out and
 * read back the same. */
static void test_shorthand_and_round_trip(void)
{
    static const pp_hw_device_type types[1] = {{"x", 1e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0}};
    static const int four[1] = {4};
    pp_cluster *c = fixture_cluster(1, four, types, 1e12, 1e9);
    pp_cluster_workload *w = workload(&gpt);
    static const char text[] = "{\"tp\": 2, \"pp\": 1, \"dp\": 1, \"cp\": 2, \"micro_batch\": 1}";
    pp_cluster_plan *p = NULL, *q = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(cluster_plan_load_buffer("mem", text, strlen(text), c, w, &p, &err), PP_OK);
    if (!p)
        return;
    CHECK_EQ_INT(p->replica_count, 2);
    CHECK_EQ_INT(p->context_parallel, 2);
    CHECK_EQ_INT(p->micro_batches[0], 2);
    CHECK_EQ_INT(p->micro_batches[1], 2);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(p->devices[i], i);
    char line[128];
    pp_cluster_plan_describe(p, line, sizeof line);
    CHECK(strstr(line, "dp 1, pp 1, tp 2,") == line && strstr(line, "context parallel 2") != NULL);
    char path[] = "/tmp/pp-cp-plan-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(pp_cluster_plan_write(p, f, &err), PP_OK);
        fclose(f);
        CHECK_EQ_INT(pp_cluster_plan_load(path, c, w, &q, &err), PP_OK);
        CHECK(q && pp_cluster_plan_equal(p, q));
        unlink(path);
    }
    pp_cluster_plan_free(q);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Two devices of 150 MB and one layer of a 65,536-position sequence with
 * FlashAttention and one key/value head (no TP): its activations, about
 * 30 sh + 2 sV = 143 MB per sequence, kept or rebuilt under recomputation,
 * and its state (the position embedding's s h parameters dominate: 67 MB,
 * 42 MB with the optimizer's part sharded over two replicas) leave no plan
 * without context parallelism within a device; cp 2 keeps half of the
 * activations. The search finds no plan without the knob, and with it a
 * plan at cp 2 that the checker passes, whose simulated time is the
 * search's. */
static void test_search_opens_it(void)
{
    static const pp_hw_device_type type[1] = {{"x", 1e12, 1e18, 150e6, 1.0, 1.0, 0, 0, 0, 0, 0, 0}};
    static const int two[1] = {2};
    pp_cluster *c = fixture_cluster(1, two, type, 1e11, 1e9);
    pp_transformer t = {.layers = 1, .hidden = 64, .heads = 4, .kv_heads = 1, .sequence = 65536,
                        .vocabulary = 128, .global_batch = 2, .flash_attention = true};
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_transformer(&t, true, &w, &err), PP_OK);
    for (int cp = 1; cp <= 2; cp *= 2) {
        pp_cluster_plan_options o = {.threads = 1, .seed = 1, .max_context_parallel = cp};
        pp_cluster_plan_result r;
        CHECK_EQ_INT(pp_cluster_plan_search(c, w, &o, &r, &err), PP_OK);
        CHECK(r.complete);
        CHECK((r.best != NULL) == (cp == 2));
        if (r.best) {
            CHECK_EQ_INT(r.best->context_parallel, 2);
            CHECK_EQ_INT(pp_cluster_plan_check(c, w, r.best, 0, &err), PP_OK);
            pp_cluster_sim_options so = {.start_time = 0};
            pp_cluster_report rep;
            CHECK_EQ_INT(pp_cluster_simulate(c, w, r.best, &so, &rep, &err), PP_OK);
            CHECK(rep.fits && fabs(rep.step_time - r.best_time) <= 1e-12 * r.best_time);
            pp_cluster_report_free(&rep);
        }
        pp_cluster_plan_result_free(&r);
    }
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    test_memory_by_hand();
    test_ring_by_hand();
    test_rules();
    test_shorthand_and_round_trip();
    test_search_opens_it();
    return CHECK_DONE();
}
