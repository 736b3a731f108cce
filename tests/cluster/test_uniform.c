/* test_uniform.c: pp_cluster_uniform_best against plans built here by hand
 * in Megatron's rank order (rank = (s dp + r) tp + j) for every (tp, pp, dp,
 * micro-batch), recomputing and not, and simulated; no plan that fits gives
 * NULL; a lost device's rank moves to the next live device; the baseline's
 * one recomputation flag follows memory, not the workload's default; one
 * thread and four judge the candidates to the same answer. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cluster/fixture.h"
#include "cluster/planner.h"
#include "cluster/load_cluster.h"
#include "cluster/plan.h"
#include "cluster/solve.h"
#include "cluster/workload_internal.h"

static pp_hw_device_type types[2];

static pp_cluster *cluster(double memory)
{
    types[0] = fixture_type("a", 1e12, memory);
    types[1] = fixture_type("a", 1e12, memory);
    int per[2] = {2, 2};
    return fixture_cluster(2, per, types, 50e9, 5e9);
}

static double step(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                   double start)
{
    pp_cluster_sim_options o = {.start_time = start};
    pp_cluster_report r;
    pp_error err = {0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    double t = r.fits ? r.step_time : INFINITY;
    pp_cluster_report_free(&r);
    return t;
}

/* Megatron's plan spelled out, on the devices listed in `devices`. */
static pp_cluster_plan *by_hand(const pp_cluster_workload *w, int tp, int pp, int dp, int mb,
                                bool recompute, const int *devices)
{
    int stage_tp[8] = {0};
    for (int s = 0; s < pp; s++)
        stage_tp[s] = tp;
    pp_cluster_plan *p = pp_cluster_plan_new(dp, pp, stage_tp);
    p->micro_batch = mb;
    for (int r = 0; r < dp; r++) {
        p->micro_batches[r] = (int)(w->global_batch / (dp * mb));
        for (int s = 0; s < pp; s++)
            for (int j = 0; j < tp; j++)
                p->devices[r * pp * tp + s * tp + j] = devices[(s * dp + r) * tp + j];
    }
    for (int s = 0; s < pp; s++) {
        p->stage_layers[s] = w->layer_count / pp;
        p->stage_recompute[s] = recompute;
    }
    return p;
}

static double best_by_hand(const pp_cluster *c, const pp_cluster_workload *w, double start,
                           const int *devices, int live)
{
    double best = INFINITY;
    for (int tp = 1; tp <= live; tp++)
        for (int pp = 1; tp * pp <= live; pp++)
            for (int dp = 1; tp * pp * dp <= live; dp++)
                for (int mb = 1; mb * dp <= w->global_batch; mb *= 2) {
                    if (8 % tp || w->layer_count % pp || w->global_batch % (mb * dp))
                        continue;
                    for (int rc = 0; rc <= 1; rc++) {
                        pp_cluster_plan *p = by_hand(w, tp, pp, dp, mb, rc, devices);
                        best = fmin(best, step(c, w, p, start));
                        pp_cluster_plan_free(p);
                    }
                }
    return best;
}

static void test_best(void)
{
    pp_cluster *c = cluster(1e9);
    pp_cluster_workload *w = fixture_workload(4, 2e9, 4e6, 1e5, 2e6, 8);
    int devices[4] = {0, 1, 2, 3};
    pp_cluster_plan *p = NULL;
    double t = 0;
    pp_error err = {0};
    CHECK(pp_cluster_uniform_best(c, w, 0.0, &p, &t, &err) == PP_OK);
    CHECK(p != NULL);
    CHECK(t == best_by_hand(c, w, 0.0, devices, 4));
    if (p) {
        CHECK(pp_cluster_plan_validate(c, w, p, &err) == PP_OK);
        CHECK(step(c, w, p, 0.0) == t);
    }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void test_nothing_fits(void)
{
    pp_cluster *c = cluster(1e6);
    pp_cluster_workload *w = fixture_workload(4, 2e9, 4e6, 1e5, 2e6, 8);
    pp_cluster_plan *p = NULL;
    double t = 0;
    pp_error err = {0};
    CHECK(pp_cluster_uniform_best(c, w, 0.0, &p, &t, &err) == PP_OK);
    CHECK(p == NULL);
    CHECK(isinf(t));
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void test_lost_device(void)
{
    pp_cluster *c = cluster(1e9);
    pp_cluster_workload *w = fixture_workload(4, 2e9, 4e6, 1e5, 2e6, 8);
    fixture_event(c, 1.0, "", -1, 0, 0);
    int live[3] = {1, 2, 3};
    pp_cluster_plan *p = NULL;
    double t = 0;
    pp_error err = {0};
    CHECK(pp_cluster_uniform_best(c, w, 2.0, &p, &t, &err) == PP_OK);
    CHECK(p != NULL);
    CHECK(t == best_by_hand(c, w, 2.0, live, 3));
    if (p) {
        int slots = p->replica_count * pp_cluster_plan_members(p);
        for (int i = 0; i < slots; i++)
            CHECK(p->devices[i] != 0);
        CHECK(step(c, w, p, 2.0) == t);
    }
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Megatron's one flag: the workload's default does not bind the baseline.
 * With room, keeping the activations (no replayed forward) is faster; with
 * activations too large to keep, every stage recomputes. */
static void test_recompute_flag(void)
{
    for (int tight = 0; tight <= 1; tight++) {
        pp_cluster *c = cluster(tight ? 8e7 : 1e10);
        pp_cluster_workload *w = fixture_workload(4, 2e9, 4e6, 1e8, 2e6, 8);
        w->recompute = !tight;
        int devices[4] = {0, 1, 2, 3};
        pp_cluster_plan *p = NULL;
        double t = 0;
        pp_error err = {0};
        CHECK(pp_cluster_uniform_best(c, w, 0.0, &p, &t, &err) == PP_OK);
        CHECK(p != NULL);
        CHECK(t == best_by_hand(c, w, 0.0, devices, 4));
        for (int s = 0; p && s < p->stage_count; s++)
            CHECK(p->stage_recompute[s] == (tight == 1));
        pp_cluster_plan_free(p);
        pp_cluster_workload_free(w);
        pp_cluster_free(c);
    }
}

/* The bundled re-planning scenario (hetero-v100-32 after the Ethernet
 * drop, GPT-13B): the threads share the candidates and the cut-off, and
 * the answer (time, then enumeration order) does not depend on them. */
static void test_threads_agree(void)
{
    pp_error err = {0};
    pp_hw_catalog *cat = NULL;
    pp_cluster *c = NULL;
    pp_cluster_workload *w = NULL;
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    CHECK(pp_cluster_load(PP_SOURCE_DIR "/examples/cluster/hetero-v100-32.json", cat, &c, &err) == PP_OK);
    CHECK(pp_cluster_add_events_file(c, PP_SOURCE_DIR "/examples/cluster/ethernet-drop.events.json", &err) ==
          PP_OK);
    CHECK(pp_cluster_workload_load(PP_SOURCE_DIR "/examples/cluster/gpt-13b.json", cat, &w, &err) == PP_OK);
    pp_cluster_plan *plans[2] = {NULL, NULL};
    double times[2];
    for (int i = 0; i < 2; i++) {
        cluster_clock none = {0};
        pp_cluster_report report = {0};
        CHECK(cluster_uniform_best(c, w, 1800.0, &none, i ? 4 : 1, &plans[i], &times[i], &report, &err) ==
              PP_OK);
        CHECK(plans[i] != NULL && report.step_time == times[i]);
        pp_cluster_report_free(&report);
    }
    CHECK(isfinite(times[0]) && times[0] == times[1]);
    if (plans[0] && plans[1]) {
        const pp_cluster_plan *a = plans[0], *b = plans[1];
        CHECK(a->replica_count == b->replica_count && a->stage_count == b->stage_count &&
              a->micro_batch == b->micro_batch && a->virtual_stages == b->virtual_stages &&
              a->sequence_parallel == b->sequence_parallel &&
              a->selective_recompute == b->selective_recompute);
        CHECK(memcmp(a->devices, b->devices,
                     (size_t)a->replica_count * (size_t)pp_cluster_plan_members(a) * sizeof(int)) == 0);
    }
    pp_cluster_plan_free(plans[0]);
    pp_cluster_plan_free(plans[1]);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    pp_hw_catalog_free(cat);
}

int main(void)
{
    test_best();
    test_threads_agree();
    test_recompute_flag();
    test_nothing_fits();
    test_lost_device();
    return CHECK_DONE();
}
