/* test_search.c: the branch-and-bound planner against an exhaustive
 * enumerator of the same plan space written here (every plan, with every
 * stage recomputing or not, simulated),
 * its schedule bound against the simulator on random plans (of small
 * fixtures and of the bundled scenario after its Ethernet drop), its memory
 * figure against pp_cluster_plan_memory, and the planner's promises:
 * validity, memory, heterogeneous and memory-tight gains, ZeRO-3 where only
 * it fits and pays, the same answer on
 * 1 and 2 threads, the warm start's time, lost devices left out. */
#include <math.h>

#include "check.h"
#include "cluster/fixture.h"
#include "cluster/planner.h"
#include "cluster/check.h"
#include "cluster/load_cluster.h"
#include "cluster/plan.h"
#include "cluster/report.h"
#include "core/timeline_internal.h"
#include "cluster/solve.h"
#include "cluster/workload_internal.h"

static pp_hw_device_type types[2];

/* Two nodes of unlike types, `per` devices each. */
static pp_cluster *two_nodes(int per0, int per1, double fast, double memory0, double memory1)
{
    types[0] = fixture_type("slow", 1e12, memory0);
    types[1] = fixture_type("fast", fast, memory1);
    int per[2] = {per0, per1};
    return fixture_cluster(2, per, types, 50e9, 5e9);
}

static pp_cluster_workload *small_workload(int layers, int64_t batch)
{
    pp_cluster_workload *w = fixture_workload(layers, 2e9, 4e6, 1e5, 2e5, batch);
    for (int l = 0; l < layers; l++) {
        w->layers[l].tp_forward_bytes = 1e5;
        w->layers[l].tp_backward_bytes = 1e5;
        w->layers[l].weight_bytes = 1e6;
    }
    return w;
}

static double simulated(const pp_cluster *c, const pp_cluster_workload *w,
                        const pp_cluster_plan *p, double start)
{
    pp_cluster_sim_options o = {.start_time = start};
    pp_cluster_report r;
    pp_error err = {0};
    if (pp_cluster_simulate(c, w, p, &o, &r, &err) != PP_OK) {
        fprintf(stderr, "simulate: %s\n", err.message);
        return NAN;
    }
    double t = r.fits ? r.step_time : INFINITY;
    pp_cluster_report_free(&r);
    return t;
}

static bool fits(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p)
{
    double peak[64];
    pp_cluster_plan_memory(c, w, p, peak);
    for (int d = 0; d < c->device_count; d++)
        if (peak[d] > c->nodes[c->device_node[d]].type->memory_bytes)
            return false;
    return true;
}

/* ------------------------------------------------ the independent enumerator */

/* The plan space of a two-node cluster, spelled out: TP degree per node,
 * dp, which node's groups come first, contiguous or strided dealing of each
 * node's groups, micro-batch size, and every composition of the layers. */
typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    int tp[2], dp, first, strided, mb, p;
    int layers[64];
    bool replay[64];
    double best;
    long plans;
} enumerator;

static pp_cluster_plan *enumerated_plan(const enumerator *e)
{
    int stage_tp[64], node_of[64], s = 0;
    for (int k = 0; k < 2; k++) {
        int n = k == 0 ? e->first : 1 - e->first;
        int groups = e->c->nodes[n].device_count / e->tp[n] / e->dp;
        for (int i = 0; i < groups; i++) {
            node_of[s] = n;
            stage_tp[s++] = e->tp[n];
        }
    }
    pp_cluster_plan *p = pp_cluster_plan_new(e->dp, e->p, stage_tp);
    int members = pp_cluster_plan_members(p), slot = 0;
    p->micro_batch = e->mb;
    memcpy(p->stage_recompute, e->replay, (size_t)e->p * sizeof(bool));
    for (int r = 0; r < e->dp; r++) {
        p->micro_batches[r] = (int)(e->w->global_batch / (e->dp * e->mb));
        int seen[2] = {0, 0};
        for (int i = 0; i < e->p; i++) {
            int n = node_of[i], per = e->c->nodes[n].device_count / e->tp[n] / e->dp;
            int g = e->strided ? r + seen[n] * e->dp : r * per + seen[n];
            seen[n]++;
            for (int j = 0; j < e->tp[n]; j++)
                p->devices[slot++] = e->c->nodes[n].first_device + g * e->tp[n] + j;
        }
    }
    CHECK_EQ_INT(slot, e->dp * members);
    memcpy(p->stage_layers, e->layers, (size_t)e->p * sizeof(int));
    return p;
}

static void judge_all_flags(enumerator *e)
{
    for (int flags = 0; flags < 1 << e->p; flags++) {
        for (int s = 0; s < e->p; s++)
            e->replay[s] = flags >> s & 1;
        pp_cluster_plan *p = enumerated_plan(e);
        pp_error err = {0};
        CHECK(pp_cluster_plan_validate(e->c, e->w, p, &err) == PP_OK);
        if (fits(e->c, e->w, p)) {
            double t = simulated(e->c, e->w, p, 0.0);
            e->best = fmin(e->best, t);
            e->plans++;
        }
        pp_cluster_plan_free(p);
    }
}

static void compositions(enumerator *e, int s, int left)
{
    if (s == e->p - 1) {
        e->layers[s] = left;
        judge_all_flags(e);
        return;
    }
    for (int n = 1; n <= left - (e->p - s - 1); n++) {
        e->layers[s] = n;
        compositions(e, s + 1, left - n);
    }
}

static double enumerate_all(const pp_cluster *c, const pp_cluster_workload *w, long *plans)
{
    enumerator e = {.c = c, .w = w, .best = INFINITY};
    int n0 = c->nodes[0].device_count, n1 = c->nodes[1].device_count;
    for (e.tp[0] = 1; e.tp[0] <= n0; e.tp[0]++)
        for (e.tp[1] = 1; e.tp[1] <= n1; e.tp[1]++) {
            if (n0 % e.tp[0] || n1 % e.tp[1] || 8 % e.tp[0] || 8 % e.tp[1])
                continue;
            int g0 = n0 / e.tp[0], g1 = n1 / e.tp[1];
            for (e.dp = 1; e.dp <= g0 && e.dp <= g1; e.dp++) {
                e.p = g0 / e.dp + g1 / e.dp;
                if (g0 % e.dp || g1 % e.dp || e.p > w->layer_count)
                    continue;
                for (e.first = 0; e.first < 2; e.first++)
                    for (e.strided = 0; e.strided < 2; e.strided++)
                        for (e.mb = 1; e.mb * e.dp <= w->global_batch; e.mb *= 2)
                            if (w->global_batch % (e.mb * e.dp) == 0)
                                compositions(&e, 0, w->layer_count);
            }
        }
    *plans = e.plans;
    return e.best;
}

static pp_cluster_plan_result plan(const pp_cluster *c, const pp_cluster_workload *w, int threads,
                                   double start, const pp_cluster_plan *warm)
{
    pp_cluster_plan_options o = {.threads = threads, .seed = 1, .start_time = start, .warm_start = warm};
    pp_cluster_plan_result r;
    pp_error err = {0};
    pp_status s = pp_cluster_plan_search(c, w, &o, &r, &err);
    if (s != PP_OK)
        fprintf(stderr, "search: %s\n", err.message);
    CHECK(s == PP_OK);
    return r;
}

static void check_plan(const pp_cluster *c, const pp_cluster_workload *w,
                       const pp_cluster_plan_result *r, double start)
{
    CHECK(r->best != NULL);
    if (!r->best)
        return;
    pp_error err = {0};
    CHECK(pp_cluster_plan_validate(c, w, r->best, &err) == PP_OK);
    CHECK(pp_cluster_plan_check(c, w, r->best, start, &err) == PP_OK);
    CHECK(fits(c, w, r->best));
    CHECK(simulated(c, w, r->best, start) == r->best_time);
    CHECK(r->complete);
    CHECK(r->lower_bound <= r->best_time);
    CHECK(r->best_time <= r->uniform_time);
}

/* activation > 0 gives every layer that many activation bytes per sample,
 * a small checkpoint and a cheap recomputation, so that keeping the
 * activations fits on node 1 (1e9 bytes) but not on node 0 (memory0) for
 * more than a layer: the best plans mix recomputing and keeping stages.
 * recomputing >= 0: the best plan has that many stages recomputing. */
static void test_exhaustive(int per0, int per1, int layers, int64_t batch, double fast,
                            double memory0, double activation, int recomputing)
{
    pp_cluster *c = two_nodes(per0, per1, fast, memory0, 1e9);
    pp_cluster_workload *w = small_workload(layers, batch);
    for (int l = 0; activation > 0 && l < layers; l++) {
        w->layers[l].activation_bytes = activation;
        w->layers[l].checkpoint_bytes = activation / 100;
        w->layers[l].recompute_flops = 0.1 * w->layers[l].forward_flops;
    }
    long plans = 0;
    double oracle = enumerate_all(c, w, &plans);
    pp_cluster_plan_result r = plan(c, w, 2, 0.0, NULL);
    check_plan(c, w, &r, 0.0);
    /* the uniform incumbent is outside the space; the search keeps the better */
    double expected = fmin(oracle, r.uniform_time);
    if (r.best_time != expected)
        fprintf(stderr, "%d+%d devices, %d layers: search %.9g, enumeration %.9g (%ld plans), "
                        "uniform %.9g\n",
                per0, per1, layers, r.best_time, oracle, plans, r.uniform_time);
    CHECK(r.best_time == expected);
    CHECK(plans > 0);
    if (recomputing >= 0 && r.best) {
        int on = 0;
        for (int s = 0; s < r.best->stage_count; s++)
            on += r.best->stage_recompute[s];
        CHECK_EQ_INT(on, recomputing);
        CHECK(on < r.best->stage_count);
    }
    CHECK(r.simulations < plans);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* ------------------------------------------------ bound and memory tables */

static void random_layers(pp_rng *rng, int L, int p, int *layers)
{
    for (int s = 0; s < p; s++)
        layers[s] = 1;
    for (int k = p; k < L; k++)
        layers[pp_rng_below(rng, (uint32_t)p)]++;
}

/* Every partial plan's bounds (the stages before s fixed, the rest open),
 * the walk's and the windows' (cluster_open_windows), stay at or below the
 * plan's simulated step t. */
static void check_walk_bounds(const cluster_stages *st, const int *layers, const bool *replay,
                              double t)
{
    cluster_walk walk = cluster_walk_start();
    cluster_cost costs[64];
    double windows = -INFINITY;
    for (int s = 0, first = 0; s <= st->stage_count; first += layers[s++]) {
        double bound = cluster_walk_bound(st, walk, s, first);
        windows = cluster_open_windows(st, costs, s, windows);
        if (!(bound <= t * (1 + 1e-12)) || !(windows <= t * (1 + 1e-12)))
            fprintf(stderr, "stage %d: walk bound %.9g, windows %.9g above simulated %.9g\n", s, bound,
                    windows, t);
        CHECK(bound <= t * (1 + 1e-12));
        CHECK(windows <= t * (1 + 1e-12));
        /* cut short past a lower mark: above it, and still a bound (an
         * infinite bound, work the memory cannot hold, stays infinite) */
        double past = cluster_walk_bound_past(st, walk, s, first, 0.9 * bound);
        CHECK(isinf(bound) ? past == bound : past > 0.9 * bound && past <= bound);
        if (s == st->stage_count)
            break;
        costs[s] = cluster_stage_cost(st, s, first, layers[s], replay[s]);
        walk = cluster_walk_extend(st, walk, costs[s]);
    }
}

/* For many random plans (stages recomputing at random) of every branch of
 * random fixtures: the bounds, of the plan and of each of its partial
 * plans, never exceed the simulated step, and the incremental stage memory
 * equals pp_cluster_plan_memory's. */
static void test_bound_and_memory(void)
{
    pp_rng rng;
    pp_rng_seed(&rng, 7, 0);
    long checked = 0, fitting = 0;
    for (int trial = 0; trial < 6; trial++) {
        int per0 = 2 + 2 * (int)pp_rng_below(&rng, 2), per1 = 2 + 2 * (int)pp_rng_below(&rng, 2);
        /* odd trials: node 0 keeps few layers' activations, so the bounds'
         * memory limits (recompute beyond cap_kept) bind */
        double memory0 = trial % 2 ? 1e7 + 1e7 * pp_rng_unit(&rng) : 1e12;
        pp_cluster *c = two_nodes(per0, per1, 1e12 * (1 + pp_rng_below(&rng, 4)), memory0, 1e12);
        pp_cluster_workload *w = small_workload(6 + (int)pp_rng_below(&rng, 5), 16);
        for (int l = 0; l < w->layer_count; l++) {
            if (trial % 2)
                w->layers[l].activation_bytes = 1e6 * pp_rng_unit(&rng);
            w->layers[l].forward_flops *= 0.5 + pp_rng_unit(&rng);
            w->layers[l].traffic_bytes = 1e6 * pp_rng_unit(&rng);
            /* unlike layers' parameters: ZeRO-3's gathers and buffers; two
             * experts in some of them (the expert-parallel branches) */
            w->layers[l].weight_bytes = 1e6 * (0.5 + pp_rng_unit(&rng));
            w->layers[l].expert_weight_bytes = w->layers[l].weight_bytes * pp_rng_unit(&rng);
            w->layers[l].alltoall_bytes = 1e6 * pp_rng_unit(&rng);
            w->layers[l].traffic_replicated_bytes = 1e5 * pp_rng_unit(&rng);
            w->layers[l].activation_replicated_bytes = 1e4 * pp_rng_unit(&rng);
            /* TP collectives that the column-parallel weight gradients hide
             * in part or in whole (every branch with TP overlaps them) */
            w->layers[l].tp_forward_bytes = 1e6 * pp_rng_unit(&rng);
            w->layers[l].tp_backward_bytes = 1e6 * pp_rng_unit(&rng);
            w->layers[l].overlap_flops = w->layers[l].forward_flops * 0.1 * pp_rng_unit(&rng);
            w->layers[l].output_bytes *= 10 * pp_rng_unit(&rng);
            /* selective recomputation drops part of the activations for a
             * fraction of the forward (the branches with the switch) */
            w->layers[l].selective_bytes = w->layers[l].activation_bytes * pp_rng_unit(&rng);
            w->layers[l].selective_flops = w->layers[l].forward_flops * 0.2 * pp_rng_unit(&rng);
        }
        w->experts = 2;
        pp_arena *a = pp_arena_new(1 << 14);
        cluster_space sp;
        cluster_branch *br;
        int count;
        pp_error err = {0};
        CHECK(cluster_space_build(c, 0.0, a, &sp, &err) == PP_OK);
        CHECK(cluster_branches(&sp, w, a, &br, &count, &err) == PP_OK);
        for (int i = 0; i < count; i++) {
            cluster_stages st;
            CHECK(cluster_stages_build(&sp, w, &br[i], a, &st));
            for (int k = 0; k < 3; k++) {
                int layers[64];
                bool replay[64];
                random_layers(&rng, w->layer_count, st.stage_count, layers);
                for (int s = 0; s < st.stage_count; s++)
                    replay[s] = pp_rng_below(&rng, 2);
                pp_cluster_plan *p = cluster_stages_plan(&st, layers, replay);
                CHECK(pp_cluster_plan_validate(c, w, p, &err) == PP_OK);
                double t = simulated(c, w, p, 0.0), bound = cluster_plan_bound(&st, layers, replay, INFINITY);
                fitting += isfinite(t);
                if (!(bound <= t * (1 + 1e-12)))
                    fprintf(stderr, "bound %.9g above simulated %.9g\n", bound, t);
                CHECK(bound <= t * (1 + 1e-12));
                CHECK(cluster_root_bound(&st) <= bound * (1 + 1e-12));
                check_walk_bounds(&st, layers, replay, t);
                double peak[64];
                pp_cluster_plan_memory(c, w, p, peak);
                for (int s = 0, first = 0; s < st.stage_count; first += layers[s++]) {
                    double max_layer = 0;
                    for (int l = first; l < first + layers[s]; l++)
                        max_layer = fmax(max_layer, cluster_layer_full_activation(&st, s, l));
                    double mine =
                        cluster_stage_memory(&st, s, first, layers[s], max_layer, replay[s]);
                    int d = p->devices[pp_cluster_plan_stage_offset(p, s)];
                    CHECK(fabs(mine - peak[d]) <= 1e-9 * peak[d]);
                }
                pp_cluster_plan_free(p);
                checked++;
            }
        }
        pp_arena_free(a);
        pp_cluster_workload_free(w);
        pp_cluster_free(c);
    }
    CHECK(checked > 100);
    CHECK(fitting > 50 && fitting < checked);
}

/* The bundled re-planning scenarios, where the Ethernet slows to a
 * quarter and replicas whose stages share nodes contend for their NICs:
 * on random plans of every third branch (stages recomputing at random
 * where the memory allows), the plan's bound and every partial plan's
 * never exceed the simulated step. */
static void test_bound_after_drop(const char *workload, int seed)
{
    pp_error err = {0};
    pp_hw_catalog *cat = NULL;
    pp_cluster *c = NULL;
    pp_cluster_workload *w = NULL;
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    CHECK(pp_cluster_load(PP_SOURCE_DIR "/examples/cluster/hetero-v100-32.json", cat, &c, &err) == PP_OK);
    CHECK(pp_cluster_add_events_file(c, PP_SOURCE_DIR "/examples/cluster/ethernet-drop.events.json", &err) ==
          PP_OK);
    CHECK(pp_cluster_workload_load(workload, cat, &w, &err) == PP_OK);
    pp_rng rng;
    pp_rng_seed(&rng, (uint64_t)seed, 0);
    pp_arena *a = pp_arena_new(1 << 16);
    cluster_space sp;
    cluster_branch *br;
    int count;
    long checked = 0, tight = 0;
    CHECK(cluster_space_build(c, 1800.0, a, &sp, &err) == PP_OK);
    CHECK(cluster_branches(&sp, w, a, &br, &count, &err) == PP_OK);
    for (int i = seed % 3; i < count; i += 3) {
        pp_arena *b = pp_arena_new(1 << 14);
        cluster_stages st;
        CHECK(cluster_stages_build(&sp, w, &br[i], b, &st));
        int layers[64];
        bool replay[64];
        random_layers(&rng, w->layer_count, st.stage_count, layers);
        for (int s = 0, first = 0; s < st.stage_count; first += layers[s++])
            replay[s] = cluster_stage_memory(&st, s, first, layers[s], 0.0, false) > st.capacity[s] ||
                        pp_rng_below(&rng, 4) == 0;
        pp_cluster_plan *p = cluster_stages_plan(&st, layers, replay);
        double t = simulated(c, w, p, 1800.0), bound = cluster_plan_bound(&st, layers, replay, INFINITY);
        if (isfinite(t)) {
            if (!(bound <= t * (1 + 1e-12)))
                fprintf(stderr, "branch %d: bound %.9g above simulated %.9g\n", i, bound, t);
            CHECK(bound <= t * (1 + 1e-12));
            /* stopped early (schedules cut short past `enough`): still a
             * bound, and above what it was asked to exceed */
            double part = cluster_plan_bound(&st, layers, replay, 0.97 * bound);
            CHECK(part > 0.97 * bound && part <= t * (1 + 1e-12));
            check_walk_bounds(&st, layers, replay, t);
            checked++;
            tight += bound >= 0.9 * t;
        }
        pp_cluster_plan_free(p);
        pp_arena_free(b);
    }
    /* most plans fit, and the bound is not vacuous */
    CHECK(checked > count / 6);
    CHECK(tight > checked / 2);
    pp_arena_free(a);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
    pp_hw_catalog_free(cat);
}

/* pp_cluster_plan_check's verdict, each with an error of its own (the
 * first error set is kept). */
static pp_status checked(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p, double at)
{
    pp_error err = {0};
    return pp_cluster_plan_check(c, w, p, at, &err);
}

/* The checker refuses each kind of broken plan: a device twice, a lost
 * device, a layer left out, samples short of the global batch, shares
 * not summing to 1, a device over its memory. */
static void test_check_refuses(void)
{
    pp_cluster *c = two_nodes(2, 2, 2e12, 1e12, 1e12);
    pp_cluster_workload *w = small_workload(6, 8);
    int tp[2] = {1, 1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 2, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = p->micro_batches[1] = 4;
    p->stage_layers[0] = p->stage_layers[1] = 3;
    for (int i = 0; i < 4; i++)
        p->devices[i] = i;
    CHECK(checked(c, w, p, 0.0) == PP_OK);
    p->devices[3] = 0;
    CHECK(checked(c, w, p, 0.0) == PP_EINPUT);
    p->devices[3] = 3;
    p->stage_layers[1] = 2;
    CHECK(checked(c, w, p, 0.0) == PP_EINPUT);
    p->stage_layers[1] = 3;
    p->micro_batches[1] = 3;
    CHECK(checked(c, w, p, 0.0) == PP_EINPUT);
    p->micro_batches[1] = 4;
    p->split[2] = 0.5;
    CHECK(checked(c, w, p, 0.0) == PP_EINPUT);
    p->split[2] = 1.0;
    types[0].memory_bytes = 1.0;
    CHECK(checked(c, w, p, 0.0) == PP_INFEASIBLE);
    types[0].memory_bytes = 1e12;
    CHECK(checked(c, w, p, 0.0) == PP_OK);
    pp_cluster_event lost = {.time = 1.0, .node = -1, .lost_device = 2};
    c->events = &lost;
    c->event_count = 1;
    CHECK(checked(c, w, p, 2.0) == PP_EINPUT);
    c->events = NULL;
    c->event_count = 0;
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* ------------------------------------------------ the planner's promises */

static int layers_on(const pp_cluster_plan *p, int node_type_index, const pp_cluster *c)
{
    int total = 0;
    for (int s = 0; s < p->stage_count; s++) {
        int d = p->devices[pp_cluster_plan_stage_offset(p, s)];
        if (c->nodes[c->device_node[d]].type == &types[node_type_index])
            total += p->stage_layers[s] * p->stage_tp[s];
    }
    return total;
}

static void test_heterogeneous(void)
{
    pp_cluster *c = two_nodes(2, 2, 3e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(8, 16);
    pp_cluster_plan_result r = plan(c, w, 2, 0.0, NULL);
    check_plan(c, w, &r, 0.0);
    CHECK(r.uniform != NULL);
    CHECK(r.best_time < r.uniform_time);
    /* layer-devices: the fast node holds more of the model per device */
    if (r.best)
        CHECK(layers_on(r.best, 1, c) > layers_on(r.best, 0, c));
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

typedef struct {
    int calls;
    double last_best;
    bool best_rose, nodes_fell;
    long last_nodes;
} progress_seen;

static void record_progress(void *ctx, const pp_cluster_progress *p)
{
    progress_seen *seen = ctx;
    seen->best_rose |= seen->calls > 0 && p->best_time > seen->last_best;
    seen->nodes_fell |= p->nodes < seen->last_nodes;
    seen->last_best = p->best_time;
    seen->last_nodes = p->nodes;
    seen->calls++;
}

/* Progress: a report for every better plan, the best only falling, and
 * the last report the search's answer. */
static void test_progress(void)
{
    pp_cluster *c = two_nodes(2, 2, 3e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(8, 16);
    progress_seen seen = {0};
    pp_cluster_plan_options o = {.threads = 2, .seed = 1, .on_progress = record_progress, .progress_ctx = &seen};
    pp_cluster_plan_result r;
    pp_error err = {0};
    CHECK(pp_cluster_plan_search(c, w, &o, &r, &err) == PP_OK);
    CHECK(seen.calls >= 1 && !seen.best_rose && !seen.nodes_fell);
    CHECK(seen.last_best == r.best_time);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Node 0's devices hold 1.5 layers of state, node 1's 3.5: every uniform
 * plan puts two layers' worth on node 0; 1, 1, 3, 3 fits. */
static void test_memory_tight(void)
{
    pp_cluster *c = two_nodes(2, 2, 1e12, 6.1e6, 14.1e6);
    pp_cluster_workload *w = fixture_workload(8, 2e9, 4e6, 0.0, 1e3, 8);
    pp_cluster_plan_result r = plan(c, w, 2, 0.0, NULL);
    CHECK(r.uniform == NULL);
    CHECK(isinf(r.uniform_time));
    check_plan(c, w, &r, 0.0);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Four devices of one node (1e12 FLOP/s, ports of 1e11 B/s, no latency),
 * 8 like layers of S = 4e6 state bytes (2e6 parameters: 5e5 bytes of
 * weights, 5e5 of gradient), no TP, a batch of 4. Memory 2.4 S a device:
 * dp 4 with ZeRO-1 needs 8 (4 + 3)/16 S = 3.5 S, pp 2 x dp 2 with it
 * 2.5 S; pp 4 fits (2 S) but fills and drains 4 micro-batches over 4
 * stages: Megatron's best, interleaved in chunks of one layer, takes
 * 4 (F + B) + 3 (F + B)/2 with F + B of 2 layers; ZeRO-3 over 4 replicas holds
 * 8 S / 4 + 6/16 S = 2.375 S and each replica runs one micro-batch of all
 * 8 layers. Its step, by hand: a pass is its first layer's all-gather
 * (3/4 x 5e5 B / 1e11 B/s = 3.75e-6 s, hidden behind compute for the
 * others) plus 8 layers' compute (2e-3 s forward, 4e-3 backward each);
 * then layer 0's reduce-scatter, each of the ring's 4 flows on its own
 * ports (3.75e-6 s), and an optimizer whose bytes take no time here. */
static void test_zero3_chosen(void)
{
    types[0] = fixture_type("T", 1e12, 2.4 * 4e6);
    int per[1] = {4};
    pp_cluster *c = fixture_cluster(1, per, types, 1e11, 1e9);
    pp_cluster_workload *w = fixture_workload(8, 2e9, 4e6, 0, 0, 4);
    w->tp_divisor = 1;
    for (int l = 0; l < 8; l++)
        w->layers[l].weight_bytes = 5e5;
    pp_cluster_plan_result r = plan(c, w, 1, 0.0, NULL);
    check_plan(c, w, &r, 0.0);
    CHECK(r.best && r.best->zero3 && r.best->replica_count == 4);
    double g = 0.75 * 5e5 / 1e11, step = g + 8 * 2e-3 + g + 8 * 4e-3 + g;
    CHECK(fabs(r.best_time - step) <= 1e-6 * step);
    double pass = 2 * (2e-3 + 4e-3), uniform = 4 * pass + 3 * pass / 2;
    CHECK(r.uniform && !r.uniform->zero3 && r.uniform->virtual_stages == 2);
    CHECK(fabs(r.uniform_time - uniform) <= 1e-6 * uniform);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static bool same_plan(const pp_cluster_plan *a, const pp_cluster_plan *b)
{
    if (!a || !b || a->replica_count != b->replica_count || a->stage_count != b->stage_count ||
        a->micro_batch != b->micro_batch)
        return false;
    int slots = a->replica_count * pp_cluster_plan_members(a);
    return pp_cluster_plan_members(a) == pp_cluster_plan_members(b) &&
           memcmp(a->stage_layers, b->stage_layers, (size_t)a->stage_count * sizeof(int)) == 0 &&
           memcmp(a->stage_tp, b->stage_tp, (size_t)a->stage_count * sizeof(int)) == 0 &&
           memcmp(a->stage_recompute, b->stage_recompute, (size_t)a->stage_count) == 0 &&
           memcmp(a->devices, b->devices, (size_t)slots * sizeof(int)) == 0;
}

static void test_threads_and_warm_start(void)
{
    pp_cluster *c = two_nodes(4, 4, 2e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(12, 32);
    pp_cluster_plan_result one = plan(c, w, 1, 0.0, NULL);
    pp_cluster_plan_result two = plan(c, w, 2, 0.0, NULL);
    CHECK(one.best_time == two.best_time);
    CHECK(same_plan(one.best, two.best));
    /* the inter-node link slows down; re-plan from the old plan */
    fixture_event(c, 1.0, "nic", -1, 0.5e9, -1);
    double old_time = simulated(c, w, one.best, 2.0);
    pp_cluster_plan_result re = plan(c, w, 2, 2.0, one.best);
    CHECK(re.warm_time == old_time);
    CHECK(re.best_time <= old_time);
    check_plan(c, w, &re, 2.0);
    pp_cluster_plan_result_free(&re);
    pp_cluster_plan_result_free(&one);
    pp_cluster_plan_result_free(&two);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void test_lost_device(void)
{
    pp_cluster *c = two_nodes(4, 4, 2e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(8, 16);
    fixture_event(c, 1.0, "", -1, 0, 5);
    pp_cluster_plan_result before = plan(c, w, 2, 0.0, NULL);
    pp_cluster_plan_result r = plan(c, w, 2, 1.0, before.best);
    CHECK(isinf(r.warm_time) || !before.best);
    check_plan(c, w, &r, 1.0);
    if (r.best) {
        int slots = r.best->replica_count * pp_cluster_plan_members(r.best);
        for (int i = 0; i < slots; i++)
            CHECK(r.best->devices[i] != 5);
    }
    if (r.uniform) {
        int slots = r.uniform->replica_count * pp_cluster_plan_members(r.uniform);
        for (int i = 0; i < slots; i++)
            CHECK(r.uniform->devices[i] != 5);
    }
    pp_cluster_plan_result_free(&before);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* A search stopped by its timeout answers with what it found in time: a
 * limit shorter than any simulation (its grace is a quarter of it) leaves no
 * plan, says the search is incomplete, and keeps a lower bound no plan of
 * the space beats. With no limit the same search completes. */
static void test_timeout(void)
{
    pp_cluster *c = two_nodes(4, 4, 2e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(12, 32);
    pp_cluster_plan_options o = {.time_limit = 1e-9, .threads = 1, .seed = 1};
    pp_cluster_plan_result r;
    pp_error err = {0};
    CHECK(pp_cluster_plan_search(c, w, &o, &r, &err) == PP_OK);
    CHECK(r.best == NULL && !r.complete && isinf(r.best_time));
    pp_cluster_plan_result full = plan(c, w, 1, 0.0, NULL);
    CHECK(full.best != NULL && full.complete);
    CHECK(r.lower_bound <= full.best_time);
    pp_cluster_plan_result_free(&full);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* A drawing whose time is already up draws no box and still reports the
 * best plan's step: a run of few events ends and counts every box left
 * out; one of many is cut at its first look at the clock and takes the
 * search's own figures. Either way the step is the search's. */
static void test_drawing_out_of_time(int64_t batch, bool many)
{
    pp_cluster *c = two_nodes(4, 4, 2e12, 1e9, 1e9);
    pp_cluster_workload *w = small_workload(12, batch);
    pp_cluster_plan_result r = plan(c, w, 2, 0.0, NULL);
    double searched = r.best_report.step_time;
    pp_timeline *t = pp_timeline_new("t", 1e6);
    pp_cluster_sim_options o = {.timeline = t};
    cluster_drawing gone = {.by = pp_now() - 1, .cpu_seconds_per_box = 1e-5};
    pp_cluster_plan_summary s;
    bool cut;
    pp_error err = {0};
    CHECK(pp_cluster_plan_summarize(c, w, &r, &o, &gone, &s, &cut, &err) == PP_OK);
    CHECK(cut == many);
    CHECK(s.best.step_time == searched && s.best.step_time == r.best_time);
    CHECK(s.best.compute != NULL);
    CHECK_EQ_INT(pp_timeline_box_count(t), 0);
    CHECK(s.best.boxes_left_out > 0);
    pp_cluster_plan_summary_free(&s);
    pp_timeline_free(t);
    pp_cluster_plan_result_free(&r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    test_drawing_out_of_time(32, false);
    test_drawing_out_of_time(2048, true);
    test_bound_and_memory();
    test_check_refuses();
    test_bound_after_drop(PP_SOURCE_DIR "/examples/cluster/llama-7b.json", 1);
    test_bound_after_drop(PP_SOURCE_DIR "/examples/cluster/gpt-13b.json", 2);
    test_exhaustive(2, 2, 6, 8, 3e12, 1e9, 0, -1);
    test_exhaustive(2, 2, 8, 8, 2e12, 1e9, 0, -1);
    test_exhaustive(2, 4, 7, 8, 3e12, 1e9, 0, -1);
    test_exhaustive(4, 4, 6, 4, 1.5e12, 1e9, 0, -1);
    test_exhaustive(2, 2, 6, 8, 2e12, 6e7, 1e8, 1);
    test_exhaustive(2, 2, 8, 8, 1e12, 8e7, 1e8, -1);
    test_exhaustive(2, 4, 7, 8, 1.5e12, 8e7, 1e8, -1);
    test_heterogeneous();
    test_progress();
    test_memory_tight();
    test_zero3_chosen();
    test_threads_and_warm_start();
    test_lost_device();
    test_timeout();
    return CHECK_DONE();
}
