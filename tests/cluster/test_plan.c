/* test_plan.c: Megatron's uniform plan (device placement worked out by hand),
 * validation (each rule broken alone), the plan file reader (the full form,
 * the shorthand, and malformed files checked for line, column, path and
 * reason) and
 * write -> load giving back the same plan; the one-line description and
 * plan equality. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cluster/load_plan.h"
#include "fixture.h"
#include "cluster/plan.h"

static const pp_hw_device_type types[2] = {
    {"big", 100e12, 1e18, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
    {"small", 50e12, 1e18, 40e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0},
};
static const int per_node[2] = {4, 4};

static pp_cluster *cluster8(void)
{
    return fixture_cluster(2, per_node, types, 100e9, 10e9);
}

static int contains(const char *text, const char *part)
{
    if (strstr(text, part))
        return 1;
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", text, part);
    return 0;
}

static int plans_equal(const pp_cluster_plan *a, const pp_cluster_plan *b)
{
    if (a->micro_batch != b->micro_batch ||
        a->replica_count != b->replica_count || a->stage_count != b->stage_count ||
        a->sequence_parallel != b->sequence_parallel || a->selective_recompute != b->selective_recompute ||
        a->distributed_optimizer != b->distributed_optimizer || a->virtual_stages != b->virtual_stages ||
        a->tp_overlap != b->tp_overlap || a->reduce_after_backward != b->reduce_after_backward ||
        a->zero3 != b->zero3 || a->expert_parallel != b->expert_parallel)
        return 0;
    size_t slots = (size_t)a->replica_count * (size_t)pp_cluster_plan_members(a);
    for (int s = 0; s < a->stage_count; s++)
        if (a->stage_tp[s] != b->stage_tp[s] || a->stage_layers[s] != b->stage_layers[s] ||
            a->stage_recompute[s] != b->stage_recompute[s])
            return 0;
    for (int r = 0; r < a->replica_count; r++)
        if (a->micro_batches[r] != b->micro_batches[r])
            return 0;
    for (size_t i = 0; i < slots; i++)
        if (a->devices[i] != b->devices[i] || a->split[i] != b->split[i])
            return 0;
    return 1;
}

/* devices[r][s][j] as Megatron numbers ranks, written out by hand. */
static void test_uniform_placement(void)
{
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(8, 1e9, 1e6, 1e3, 1e3, 16);
    w->recompute = true;
    pp_error err = {0};
    pp_cluster_plan *p = NULL;
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, 2, 2, 2, 2, &p, &err), PP_OK);
    /* replica 0: stage 0 = ranks 0,1, stage 1 = ranks 4,5; replica 1: 2,3 and 6,7 */
    static const int want_222[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(p->devices[i], want_222[i]);
        CHECK(p->split[i] == 0.5);
    }
    CHECK_EQ_INT(p->micro_batches[0], 4);
    CHECK_EQ_INT(p->micro_batches[1], 4);
    CHECK_EQ_INT(p->stage_layers[0], 4);
    CHECK_EQ_INT(p->stage_layers[1], 4);
    CHECK_EQ_INT(p->micro_batch, 2);
    CHECK(p->stage_recompute[0] && p->stage_recompute[1]);
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    pp_cluster_plan_free(p);

    /* pipeline-only with two replicas: stage s of replica r is rank 2 s + r */
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, 1, 4, 2, 1, &p, &err), PP_OK);
    static const int want_142[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(p->devices[i], want_142[i]);
    CHECK_EQ_INT(p->micro_batches[0], 8);
    CHECK_EQ_INT(p->stage_layers[3], 2);
    pp_cluster_plan_free(p);

    /* tensor-only with two replicas, using half the cluster each */
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, 4, 1, 1, 4, &p, &err), PP_OK);
    for (int j = 0; j < 4; j++)
        CHECK_EQ_INT(p->devices[j], j);
    CHECK_EQ_INT(p->micro_batches[0], 4);
    CHECK_EQ_INT(p->stage_layers[0], 8);
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void uniform_fails(const pp_cluster *c, const pp_cluster_workload *w, int tp, int pp,
                          int dp, int mb, const char *a, const char *b)
{
    pp_error err = {0};
    pp_cluster_plan *p = (pp_cluster_plan *)1;
    CHECK_EQ_INT(pp_cluster_plan_uniform(c, w, tp, pp, dp, mb, &p, &err), PP_EARG);
    CHECK(p == NULL);
    CHECK(contains(err.message, a));
    CHECK(contains(err.message, b));
}

static void test_uniform_errors(void)
{
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(8, 1e9, 1e6, 1e3, 1e3, 16);
    uniform_fails(c, w, 2, 2, 4, 1, "16 devices", "has 8");
    uniform_fails(c, w, 1, 3, 2, 1, "pp = 3", "8 layers");
    uniform_fails(c, w, 3, 1, 2, 1, "tp = 3", "TP divisor 8");
    uniform_fails(c, w, 1, 2, 2, 3, "= 6", "global batch 16");
    uniform_fails(c, w, 0, 2, 2, 1, "tp = 0", "at least 1");
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Two replicas of two stages on 4 layers, global batch 8; stage 0 of
 * replica 0 splits 3:1. */
static pp_cluster_plan *two_by_two(void)
{
    static const int tp[2] = {2, 1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 2, tp);
    static const int devices[6] = {0, 1, 4, 2, 3, 5};
    memcpy(p->devices, devices, sizeof devices);
    p->split[0] = 0.75;
    p->split[1] = 0.25;
    p->micro_batch = 2;
    p->micro_batches[0] = 3;
    p->micro_batches[1] = 1;
    p->stage_layers[0] = 1;
    p->stage_layers[1] = 3;
    return p;
}

typedef struct {
    pp_cluster *c;
    pp_cluster_workload *w;
    pp_cluster_plan *p;
} broken;

static broken fresh(void)
{
    broken b = {cluster8(), fixture_workload(4, 1e9, 1e6, 1e3, 1e3, 8), two_by_two()};
    return b;
}

static void release(broken b)
{
    pp_cluster_plan_free(b.p);
    pp_cluster_workload_free(b.w);
    pp_cluster_free(b.c);
}

static void expect_invalid(broken b, const char *a, const char *why)
{
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(b.c, b.w, b.p, &err), PP_EINPUT);
    CHECK(contains(err.message, a));
    CHECK(contains(err.message, why));
    release(b);
}

static void test_validate(void)
{
    broken b = fresh();
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(b.c, b.w, b.p, &err), PP_OK);
    b.p->split[0] = 0.75 + 1e-12; /* within the tolerance */
    fixture_event(b.c, 5.0, "", -1, 0, 4); /* lost later: fine at time 0 */
    CHECK_EQ_INT(pp_cluster_plan_validate(b.c, b.w, b.p, &err), PP_OK);
    release(b);

    b = fresh(); b.p->replica_count = 0; expect_invalid(b, "0 replicas", "at least 1");
    b = fresh(); b.p->micro_batch = 0; expect_invalid(b, "micro_batch is 0", "at least 1");
    b = fresh(); b.p->devices[2] = 8; expect_invalid(b, "replica 0 stage 1 member 0: device 8", "out of range");
    b = fresh(); b.p->devices[0] = -1; expect_invalid(b, "replica 0 stage 0 member 0: device -1", "out of range");
    b = fresh(); b.p->devices[3] = 1; expect_invalid(b, "replica 1 stage 0 member 0: device 1", "used twice");
    b = fresh(); fixture_event(b.c, 0.0, "", -1, 0, 5);
    expect_invalid(b, "replica 1 stage 1 member 0: device 5", "lost at time 0");
    b = fresh(); b.p->stage_layers[0] = 0; b.p->stage_layers[1] = 4;
    expect_invalid(b, "stage 0 has 0 layers", "at least 1");
    b = fresh(); b.p->stage_layers[1] = 2; expect_invalid(b, "stages hold 3 layers", "workload has 4");
    b = fresh(); b.w->tp_divisor = 3; expect_invalid(b, "stage 0 has tensor-parallel degree 2", "TP divisor 3");
    b = fresh(); b.p->split[0] = 1.25; b.p->split[1] = -0.25;
    expect_invalid(b, "replica 0 stage 0 member 1: split -0.25", "not a positive share");
    b = fresh(); b.p->split[4] = 0.6; expect_invalid(b, "replica 1 stage 0", "shares sum to 1.1");
    b = fresh(); b.p->split[0] = 0.75 + 1e-8; expect_invalid(b, "replica 0 stage 0", "not 1");
    b = fresh(); b.p->micro_batches[0] = 2; expect_invalid(b, "hold 6 samples", "global batch is 8");
    b = fresh(); b.p->micro_batches[0] = 0; b.p->micro_batches[1] = 4;
    expect_invalid(b, "replica 0 runs 0 micro-batches", "at least 1");
}

static char *data(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", PP_DATA_DIR, name);
    return path;
}

static void test_load_full(void)
{
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e6, 1e3, 1e3, 8);
    w->recompute = true;
    pp_error err = {0};
    pp_cluster_plan *p = NULL, *want = two_by_two();
    /* the file leaves stage 0 to the workload and keeps stage 1's activations */
    want->stage_recompute[0] = true;
    CHECK_EQ_INT(pp_cluster_plan_load(data("plan-full.json"), c, w, &p, &err), PP_OK);
    CHECK(p && plans_equal(p, want));
    pp_cluster_plan_free(p);
    pp_cluster_plan_free(want);

    CHECK_EQ_INT(pp_cluster_plan_load(data("plan-shorthand.json"), c, w, &p, &err), PP_OK);
    CHECK(pp_cluster_plan_uniform(c, w, 2, 2, 2, 1, &want, &err) == PP_OK);
    CHECK(p && plans_equal(p, want));
    CHECK_EQ_INT(p->micro_batches[1], 4);
    pp_cluster_plan_free(p);
    pp_cluster_plan_free(want);

    CHECK_EQ_INT(pp_cluster_plan_load(data("plan-none.json"), c, w, &p, &err), PP_EIO);
    CHECK(p == NULL);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void test_load_errors(void)
{
    static const struct {
        const char *file, *where, *why;
    } cases[] = {
        {"plan-bad-syntax.json", "plan-bad-syntax.json:4:", "expected"},
        {"plan-bad-duplicate-key.json", "plan-bad-duplicate-key.json:3:", "duplicate"},
        {"plan-bad-root-array.json", "plan-bad-root-array.json:", "expected an object"},
        {"plan-bad-neither.json", "plan-bad-neither.json:", "neither \"replicas\""},
        {"plan-bad-unknown-key.json", "plan-bad-unknown-key.json:3:30: stage:", "unknown key"},
        {"plan-bad-shorthand-key.json", "plan-bad-shorthand-key.json:1:57: layers:", "unknown key"},
        {"plan-bad-tp-type.json", "plan-bad-tp-type.json:1:8: tp:", "expected a number >= 1, got \"2\""},
        {"plan-bad-tp-fraction.json", "plan-bad-tp-fraction.json:1:8: tp:", "expected an integer >= 1, got 1.5"},
        {"plan-bad-shorthand-divide.json", "plan-bad-shorthand-divide.json:", "pp = 3 does not divide the workload's 4 layers"},
        {"plan-bad-shorthand-missing.json", "plan-bad-shorthand-missing.json:1:1: dp:", "missing"},
        {"plan-bad-recompute.json", "plan-bad-recompute.json:3:34: recompute:", "expected true or false"},
        {"plan-bad-stage-recompute.json", "plan-bad-stage-recompute.json:5:50: replicas[0].stages[0].recompute:", "expected true or false"},
        {"plan-bad-recompute-differ.json", "plan-bad-recompute-differ.json:", "replicas[1].stages[1].recompute: true, but replicas[0] has false in stage 1"},
        {"plan-bad-missing-micro-batch.json", "plan-bad-missing-micro-batch.json:1:1: micro_batch:", "missing"},
        {"plan-bad-replicas-empty.json", "plan-bad-replicas-empty.json:1:32: replicas:", "empty"},
        {"plan-bad-replica-type.json", "plan-bad-replica-type.json:1:33: replicas[0]:", "expected an object, got 3"},
        {"plan-bad-stage-key.json", "plan-bad-stage-key.json:6:17: replicas[0].stages[0].layer:", "unknown key"},
        {"plan-bad-device-negative.json", "plan-bad-device-negative.json:6:33: replicas[0].stages[0].devices[0]:", "got -1"},
        {"plan-bad-split-length.json", "plan-bad-split-length.json:6:49: replicas[0].stages[0].split:", "1 share for 2 devices"},
        {"plan-bad-split-zero.json", "plan-bad-split-zero.json:6:53: replica 0 stage 0 member 1:", "split 0 is not a positive share"},
        {"plan-bad-split-sum.json", "plan-bad-split-sum.json:6:7: replica 0 stage 0:", "sum to 1.25"},
        {"plan-bad-stage-count.json", "plan-bad-stage-count.json:9:36: replicas[1].stages:", "1 stage, but replicas[0] has 2"},
        {"plan-bad-layers-differ.json", "plan-bad-layers-differ.json:10:18: replicas[1].stages[0].layers:", "2, but replicas[0] has 1"},
        {"plan-bad-tp-differ.json", "plan-bad-tp-differ.json:10:32: replicas[1].stages[0].devices:", "1 device, but replicas[0] has 2"},
        {"plan-bad-device-twice.json", "plan-bad-device-twice.json:10:33: replica 1 stage 0 member 0:", "device 0 is used twice"},
        {"plan-bad-device-range.json", "plan-bad-device-range.json:11:33: replica 1 stage 1 member 0:", "device 8 is out of range"},
        {"plan-bad-samples.json", "plan-bad-samples.json:", "hold 10 samples, the global batch is 8"},
        {"plan-bad-layers-sum.json", "plan-bad-layers-sum.json:", "the stages hold 3 layers, the workload has 4"},
    };
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e6, 1e3, 1e3, 8);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pp_error err = {0};
        pp_cluster_plan *p = (pp_cluster_plan *)1;
        int before = check_failures;
        CHECK_EQ_INT(pp_cluster_plan_load(data(cases[i].file), c, w, &p, &err), PP_EINPUT);
        CHECK(p == NULL);
        CHECK(contains(err.message, cases[i].where));
        CHECK(contains(err.message, cases[i].why));
        if (check_failures != before)
            fprintf(stderr, "  in %s: %s\n", cases[i].file, err.message);
    }
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* A key missing deep inside is placed at the object that lacks it. */
static void test_text_error(void)
{
    static const char text[] = "{\"micro_batch\": 1,\n"
                               " \"replicas\": [\n"
                               "  {\"micro_batches\": 8, \"stages\": [\n"
                               "    {\"layers\": 2, \"devices\": [0]},\n"
                               "    {\"layers\": 2}]}]}\n";
    static const char want[] = "mem:5:5: replicas[0].stages[1].devices: missing";
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e6, 1e3, 1e3, 8);
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(cluster_plan_load_buffer("mem", text, strlen(text), c, w, &p, &err), PP_EINPUT);
    CHECK(p == NULL);
    CHECK(contains(err.message, want));
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void round_trip(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p)
{
    char path[] = "/tmp/pp-plan-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_write(p, f, &err), PP_OK);
    fclose(f);
    pp_cluster_plan *q = NULL;
    CHECK_EQ_INT(pp_cluster_plan_load(path, c, w, &q, &err), PP_OK);
    if (err.status)
        fprintf(stderr, "  %s\n", err.message);
    CHECK(q && plans_equal(p, q));
    CHECK(q && pp_cluster_plan_equal(p, q));
    pp_cluster_plan_free(q);
    unlink(path);
}

/* The library's one-line description and equality: each switch named, and
 * a plan differing in any one field (this file's own plans_equal says
 * which) is not equal. */
static void test_describe_and_equal(void)
{
    pp_cluster_plan *p = two_by_two();
    char line[256];
    pp_cluster_plan_describe(p, line, sizeof line);
    CHECK(strcmp(line, "dp 2, pp 2, tp 2/1, layers 1/3, micro-batch 2 x 3") == 0);
    p->stage_recompute[1] = true;
    p->zero3 = p->tp_overlap = true;
    p->expert_parallel = 2;
    pp_cluster_plan_describe(p, line, sizeof line);
    CHECK(strcmp(line, "dp 2, pp 2, tp 2/1, layers 1/3, micro-batch 2 x 3, recompute 0/1, ZeRO-3, TP overlap, "
                       "expert parallel 2") == 0);
    pp_cluster_plan_describe(p, line, 12);
    CHECK(strcmp(line, "dp 2, pp 2,") == 0);
    pp_cluster_plan *q = pp_cluster_plan_copy(p);
    CHECK(q && pp_cluster_plan_equal(p, q));
    bool *switches[] = {&q->sequence_parallel, &q->selective_recompute, &q->distributed_optimizer, &q->tp_overlap,
                        &q->reduce_after_backward, &q->zero3, &q->stage_recompute[0]};
    for (size_t k = 0; q && k < sizeof switches / sizeof switches[0]; k++) {
        *switches[k] = !*switches[k];
        CHECK(!pp_cluster_plan_equal(p, q) && !plans_equal(p, q));
        *switches[k] = !*switches[k];
    }
    int *counts[] = {&q->expert_parallel, &q->virtual_stages, &q->micro_batch, &q->stage_layers[1], &q->devices[5]};
    for (size_t k = 0; q && k < sizeof counts / sizeof counts[0]; k++) {
        (*counts[k])++;
        CHECK(!pp_cluster_plan_equal(p, q) && !plans_equal(p, q));
        (*counts[k])--;
    }
    if (q) {
        q->split[1] = 0.5;
        CHECK(!pp_cluster_plan_equal(p, q));
    }
    pp_cluster_plan_free(q);
    pp_cluster_plan_free(p);
}

static void test_write_round_trip(void)
{
    pp_cluster *c = cluster8();
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e6, 1e3, 1e3, 8);
    w->experts = 2;
    pp_cluster_plan *p = two_by_two();
    p->split[3] = 1.0 / 3; /* shares that need all 17 digits */
    p->split[4] = 2.0 / 3;
    for (int flags = 0; flags < 256; flags++) {
        p->stage_recompute[0] = flags & 1;
        p->stage_recompute[1] = flags >> 1 & 1;
        p->sequence_parallel = flags >> 2 & 1;
        p->selective_recompute = flags >> 3 & 1;
        p->distributed_optimizer = flags >> 4 & 1;
        p->tp_overlap = flags >> 5 & 1;
        p->reduce_after_backward = flags >> 6 & 1;
        p->zero3 = flags >> 7 & 1;
        p->expert_parallel = 1 + (flags & 1); /* the plan's 2 replicas, the workload's 2 experts */
        round_trip(c, w, p);
    }
    pp_cluster_plan_free(p);

    static const int tp[1] = {4};
    p = pp_cluster_plan_new(2, 1, tp);
    static const double split[4] = {0.1, 0.2, 0.3, 0.4};
    for (int i = 0; i < 8; i++) {
        p->devices[i] = 7 - i;
        p->split[i] = split[i % 4];
    }
    p->micro_batch = 4;
    p->micro_batches[0] = p->micro_batches[1] = 1;
    p->stage_layers[0] = 4;
    round_trip(c, w, p);
    p->virtual_stages = 2;
    round_trip(c, w, p);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    test_uniform_placement();
    test_uniform_errors();
    test_validate();
    test_load_full();
    test_load_errors();
    test_text_error();
    test_write_round_trip();
    test_describe_and_equal();
    return CHECK_DONE();
}
