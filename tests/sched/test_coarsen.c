/* test_coarsen.c: coarsening (src/sched/coarsen.c) on random DAGs made here
 * (comm, allowed sets, weights, adjustments of both signs, finite memory,
 * sparse channels) and on small hand-made cases for each rule. Every coarse
 * problem is checked against the fine one from scratch (partition, member
 * order, sums, allowed sets, summed comm, the memory prefix rule), scheduled
 * by the as-soon-as-possible list scheduler below, checked, expanded, and the
 * expansion checked by pp_sched_check with the coarse makespan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sched/coarsen.h"
#include "sched/sched_internal.h"

typedef struct {
    int ops, devices;
    bool finite, restricted, hub; /* hub: channels only to and from device 0 */
    uint64_t seed;
} spec;

static double pick(pp_rng *r, int n) { return (double)pp_rng_below(r, (uint32_t)n); }

/* Deps: up to 3 distinct inputs among the 20 previous ops. On a hub every allowed set holds device 0, so
 * the list scheduler below can always gather an op's inputs somewhere. Memory: an op may take 1..3 units that its
 * first successor gives back, like an activation freed by its backward. */
static pp_sched_problem *random_problem(const spec *sp)
{
    pp_rng r;
    pp_rng_seed(&r, sp->seed, 0);
    int n = sp->ops;
    double *adjust = calloc((size_t)n, sizeof *adjust), *weight = calloc((size_t)n, sizeof *weight);
    int *from = malloc((size_t)n * 3 * sizeof *from), *to = malloc((size_t)n * 3 * sizeof *to);
    int *first_succ = malloc((size_t)n * sizeof *first_succ), deps = 0;
    double total_weight = 0;
    for (int i = 0; i < n; i++) {
        first_succ[i] = -1;
        weight[i] = pick(&r, 3);
        total_weight += weight[i];
        int inputs = i ? (int)pick(&r, 4) : 0, first_input = deps;
        for (int k = 0; k < inputs; k++) {
            int lo = i > 20 ? i - 20 : 0, u = lo + (int)pick(&r, i - lo);
            bool repeat = false;
            for (int j = first_input; j < deps; j++)
                repeat |= from[j] == u;
            if (repeat)
                continue;
            from[deps] = u, to[deps++] = i;
            if (first_succ[u] < 0)
                first_succ[u] = i;
        }
    }
    for (int i = 0; i < n; i++)
        if (first_succ[i] >= 0 && pick(&r, 2)) {
            double a = 1 + pick(&r, 3);
            adjust[i] += a;
            adjust[first_succ[i]] -= a;
        }
    pp_sched_problem *p = pp_sched_problem_new();
    char name[32];
    for (int d = 0; d < sp->devices; d++) {
        snprintf(name, sizeof name, "d%d", d);
        pp_sched_add_device(p, name, sp->finite ? total_weight / sp->devices * 1.5 + 6 : INFINITY);
        if (sp->hub && d > 0) {
            pp_sched_add_channel(p, 0, d);
            pp_sched_add_channel(p, d, 0);
        }
    }
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "op%d", i);
        const char *kind = pick(&r, 3) ? "forward" : "backward";
        pp_sched_add_op(p, name, kind, (1 + pick(&r, 40)) / 4, weight[i], adjust[i]);
        if (sp->restricted && pick(&r, 10) < 3) {
            pp_sched_allow(p, i, sp->hub ? 0 : (int)pick(&r, sp->devices));
            pp_sched_allow(p, i, (int)pick(&r, sp->devices));
        }
    }
    for (int e = 0; e < deps; e++)
        pp_sched_add_dep(p, from[e], to[e], pick(&r, 4) / 2);
    free(adjust), free(weight), free(from), free(to), free(first_succ);
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "random", &err) != PP_OK) {
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

/* When op i would start on device d: its inputs' ends, each crossing input
 * after a transfer appended to its channel (free[a]: channel a -> d free
 * from). INFINITY when an input's device has no channel to d. */
static double ready_on(const pp_sched_problem *p, pp_sched_schedule *s, int i, int d, double *free_from,
                       bool commit)
{
    double ready = 0;
    for (int k = p->pred_start[i]; k < p->pred_start[i + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e], a = s->device[u];
        if (a == d) {
            ready = fmax(ready, s->end[u]);
            continue;
        }
        if (!pp_sched_has_channel(p, a, d))
            return INFINITY;
        double ts = fmax(s->end[u], free_from[a]);
        free_from[a] = ts + p->dep_comm[e];
        ready = fmax(ready, free_from[a]);
        if (commit)
            s->transfer_start[e] = ts, s->transfer_end[e] = free_from[a];
    }
    return ready;
}

typedef struct {
    const pp_sched_problem *p;
    double *device_free, *channel_free, *level, *peak, *column;
    int refusals;  /* placements turned down for memory */
} asap_state;

/* Earliest finish of op i on device d, or INFINITY. */
static double finish_on(asap_state *st, pp_sched_schedule *s, int i, int d)
{
    const pp_sched_problem *p = st->p;
    int D = p->device_count;
    if (!pp_sched_op_allowed(p, i, d))
        return INFINITY;
    double w = p->weight[i], peak = fmax(st->peak[d] + w, st->level[d] + w + p->adjust[i]);
    if (peak > p->capacity[d]) {
        st->refusals++;
        return INFINITY;
    }
    for (int a = 0; a < D; a++)
        st->column[a] = st->channel_free[a * D + d];
    return fmax(ready_on(p, s, i, d, st->column, false), st->device_free[d]) + p->duration[i];
}

static void place(asap_state *st, pp_sched_schedule *s, int i, int d)
{
    const pp_sched_problem *p = st->p;
    int D = p->device_count;
    for (int a = 0; a < D; a++)
        st->column[a] = st->channel_free[a * D + d];
    double ready = ready_on(p, s, i, d, st->column, true);
    for (int a = 0; a < D; a++)
        st->channel_free[a * D + d] = st->column[a];
    s->device[i] = d;
    s->start[i] = fmax(ready, st->device_free[d]);
    s->end[i] = s->start[i] + p->duration[i];
    st->device_free[d] = s->end[i];
    double w = p->weight[i];
    st->peak[d] = fmax(st->peak[d] + w, st->level[d] + w + p->adjust[i]);
    st->level[d] += w + p->adjust[i];
}

/* A topological order: p's own, or with key, the ready op of least key first. */
static void list_order(const pp_sched_problem *p, const double *key, int *order)
{
    int n = p->op_count, *missing = malloc(((size_t)n + 1) * sizeof *missing);
    for (int i = 0; i < n; i++)
        missing[i] = key ? p->pred_start[i + 1] - p->pred_start[i] : 0;
    for (int k = 0; k < n; k++) {
        int pick_op = p->topo_order[k];
        for (int i = 0; key && i < n; i++)
            if (missing[i] == 0 && (missing[pick_op] != 0 || key[i] < key[pick_op]))
                pick_op = i;
        order[k] = pick_op;
        missing[pick_op] = -1;
        for (int j = p->succ_start[pick_op]; key && j < p->succ_start[pick_op + 1]; j++)
            missing[p->dep_to[p->succ_dep[j]]]--;
    }
    free(missing);
}

/* In list order, each op appended on the allowed device where it ends
 * first; a device's memory is tracked as the highest level so far and the
 * level after its last op, which is exact because ops are only appended.
 * False when some op fits no device. */
static bool asap(const pp_sched_problem *p, const double *key, pp_sched_schedule *s, int *refusals)
{
    int D = p->device_count, *order = malloc(((size_t)p->op_count + 1) * sizeof *order);
    asap_state st = {p, calloc((size_t)D, sizeof(double)), calloc((size_t)D * D, sizeof(double)),
                     calloc((size_t)D, sizeof(double)), calloc((size_t)D, sizeof(double)),
                     calloc((size_t)D, sizeof(double)), 0};
    list_order(p, key, order);
    for (int e = 0; e < p->dep_count; e++)
        s->transfer_start[e] = s->transfer_end[e] = NAN;
    bool ok = true;
    for (int k = 0; k < p->op_count && ok; k++) {
        int i = order[k], best = -1;
        double best_end = INFINITY;
        for (int d = 0; d < D; d++) {
            double end = finish_on(&st, s, i, d);
            if (end < best_end)
                best_end = end, best = d;
        }
        ok = best >= 0;
        if (ok)
            place(&st, s, i, best);
    }
    *refusals += st.refusals;
    free(st.device_free), free(st.channel_free), free(st.level), free(st.peak), free(st.column), free(order);
    return ok;
}

/* Every fine op in exactly one coarse op, member lists topological. */
static void check_partition(const pp_sched_problem *p, const sc_coarsening *c)
{
    const pp_sched_problem *q = c->coarse;
    int *seen = calloc((size_t)p->op_count, sizeof *seen), *pos = calloc((size_t)p->op_count, sizeof *pos);
    CHECK_EQ_INT(c->member_start[0], 0);
    CHECK_EQ_INT(c->member_start[q->op_count], p->op_count);
    for (int k = 0; k < q->op_count; k++) {
        CHECK(c->member_start[k] < c->member_start[k + 1]);
        for (int at = c->member_start[k]; at < c->member_start[k + 1]; at++) {
            int f = c->member[at];
            seen[f]++;
            pos[f] = at;
            CHECK_EQ_INT(c->group_of[f], k);
        }
    }
    for (int f = 0; f < p->op_count; f++)
        CHECK_EQ_INT(seen[f], 1);
    for (int e = 0; e < p->dep_count; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (c->group_of[u] == c->group_of[v])
            CHECK(pos[u] < pos[v]);
    }
    free(seen), free(pos);
}

/* Sums in member order, the intersection of allowed sets, and the memory
 * rule: no prefix of adjustments above max(0, total) where memory is finite. */
static void check_ops(const pp_sched_problem *p, const sc_coarsening *c)
{
    const pp_sched_problem *q = c->coarse;
    double fine_work = 0, coarse_work = 0;
    for (int f = 0; f < p->op_count; f++)
        fine_work += p->duration[f];
    for (int k = 0; k < q->op_count; k++) {
        double dur = 0, weight = 0, adjust = 0, peak = 0;
        for (int at = c->member_start[k]; at < c->member_start[k + 1]; at++) {
            int f = c->member[at];
            dur += p->duration[f], weight += p->weight[f], adjust += p->adjust[f];
            peak = fmax(peak, adjust);
        }
        CHECK(q->duration[k] == dur && q->weight[k] == weight && q->adjust[k] == adjust);
        coarse_work += q->duration[k];
        bool limited = false;
        for (int d = 0; d < p->device_count; d++) {
            bool all = true;
            for (int at = c->member_start[k]; at < c->member_start[k + 1]; at++)
                all &= pp_sched_op_allowed(p, c->member[at], d);
            CHECK(pp_sched_op_allowed(q, k, d) == all);
            limited |= all && isfinite(p->capacity[d]);
        }
        if (limited)
            CHECK(peak <= fmax(0, adjust) + 1e-9);
    }
    CHECK(fabs(fine_work - coarse_work) <= 1e-9 * fine_work);
}

static int by_key(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* One coarse dep per pair of coarse ops joined by fine deps, comm summed. */
static void check_deps(const pp_sched_problem *p, const sc_coarsening *c)
{
    const pp_sched_problem *q = c->coarse;
    double *comm = calloc((size_t)q->dep_count + 1, sizeof *comm);
    int *uses = calloc((size_t)q->dep_count + 1, sizeof *uses);
    long long *keys = malloc(((size_t)q->dep_count + 1) * sizeof *keys);
    for (int e = 0; e < p->dep_count; e++) {
        int a = c->group_of[p->dep_from[e]], b = c->group_of[p->dep_to[e]], k = c->dep_of[e];
        if (a == b) {
            CHECK_EQ_INT(k, -1);
            continue;
        }
        CHECK(k >= 0 && k < q->dep_count);
        if (k < 0 || k >= q->dep_count)
            continue;
        CHECK(q->dep_from[k] == a && q->dep_to[k] == b);
        comm[k] += p->dep_comm[e];
        uses[k]++;
    }
    for (int k = 0; k < q->dep_count; k++) {
        CHECK(uses[k] > 0 && comm[k] == q->dep_comm[k]);
        keys[k] = (long long)q->dep_from[k] * q->op_count + q->dep_to[k];
    }
    qsort(keys, (size_t)q->dep_count, sizeof *keys, by_key);
    for (int k = 1; k < q->dep_count; k++)
        CHECK(keys[k - 1] != keys[k]);
    free(comm), free(uses), free(keys);
}

static void check_report(const pp_sched_problem *p, const pp_sched_schedule *s, double *makespan)
{
    pp_sched_report report;
    pp_error err = {0};
    pp_status st = pp_sched_check(p, s, &report, &err);
    if (st != PP_OK)
        fprintf(stderr, "check: %s\n", err.message);
    CHECK_EQ_INT(st, PP_OK);
    *makespan = report.makespan;
    pp_sched_report_free(&report);
}

/* Schedules the coarse problem (ready ops by least fine_key of their
 * members, if given), checks it, expands it, and checks the expansion and
 * its makespan. Returns the coarse makespan, NAN when the list scheduler
 * found no schedule (it may not, with finite memory or sparse channels). */
static double check_expansion(const pp_sched_problem *p, const sc_coarsening *c, const double *fine_key,
                              int *refusals)
{
    const pp_sched_problem *q = c->coarse;
    pp_sched_schedule *cs = pp_sched_schedule_new(q), *fs = pp_sched_schedule_new(p);
    double *key = malloc(((size_t)q->op_count + 1) * sizeof *key), coarse_makespan = NAN;
    for (int k = 0; k < q->op_count; k++) {
        key[k] = INFINITY;
        for (int at = c->member_start[k]; fine_key && at < c->member_start[k + 1]; at++)
            key[k] = fmin(key[k], fine_key[c->member[at]]);
    }
    if (asap(q, fine_key ? key : NULL, cs, refusals)) {
        double fine_makespan = -1;
        pp_error err = {0};
        check_report(q, cs, &coarse_makespan);
        CHECK_EQ_INT(sc_expand(p, c, cs, fs, &err), PP_OK);
        check_report(p, fs, &fine_makespan);
        CHECK(fine_makespan == coarse_makespan);
    }
    free(key);
    pp_sched_schedule_free(cs);
    pp_sched_schedule_free(fs);
    return coarse_makespan;
}

/* Coarsens to target (with the hint, if any, whose start times also order
 * the list scheduler) and checks everything; returns the coarse op count. */
static int check_target(const pp_sched_problem *p, int target, const pp_sched_schedule *hint, int *scheduled,
                        int *refusals)
{
    sc_coarsening c;
    pp_error err = {0};
    pp_status st = sc_coarsen_hinted(p, target, hint, &c, &err);
    if (st != PP_OK)
        fprintf(stderr, "coarsen to %d: %s\n", target, err.message);
    CHECK_EQ_INT(st, PP_OK);
    if (st != PP_OK)
        return -1;
    int count = c.coarse->op_count;
    CHECK(count <= p->op_count);
    if (target >= p->op_count)
        CHECK_EQ_INT(count, p->op_count);
    check_partition(p, &c);
    check_ops(p, &c);
    check_deps(p, &c);
    *scheduled += !isnan(check_expansion(p, &c, hint ? hint->start : NULL, refusals));
    sc_coarsening_free(&c);
    return count;
}

/* Each random problem is coarsened without a hint, then with the list
 * scheduler's fine schedule as the hint (when it finds one). */
static void random_cases(void)
{
    int tried = 0, scheduled = 0, refusals = 0, reached = 0, targets_below = 0;
    int hinted = 0, hinted_scheduled = 0;
    uint64_t seed = 1;
    for (int size = 0; size < 2; size++)
        for (int devices = 1; devices <= 4; devices++)
            for (int variant = 0; variant < 4; variant++) {
                spec sp = {size ? 300 : 60, devices, variant & 1, variant & 2, devices == 4, seed++};
                pp_sched_problem *p = random_problem(&sp);
                for (int retry = 0; !p && retry < 20; retry++) {
                    sp.seed = 1000 + seed++;
                    p = random_problem(&sp);
                }
                CHECK(p != NULL);
                if (!p)
                    continue;
                pp_sched_schedule *hint = pp_sched_schedule_new(p);
                int ignored = 0;
                bool have_hint = asap(p, NULL, hint, &ignored);
                int n = p->op_count, targets[] = {n + 5, n, n / 2, n / 5, 20, 5, 1};
                for (int t = 0; t < (int)(sizeof targets / sizeof *targets); t++) {
                    int count = check_target(p, targets[t], NULL, &scheduled, &refusals);
                    tried++;
                    if (targets[t] < n) {
                        targets_below++;
                        reached += count >= 0 && count <= targets[t];
                    }
                    if (have_hint) {
                        check_target(p, targets[t], hint, &hinted_scheduled, &refusals);
                        hinted++;
                    }
                }
                pp_sched_schedule_free(hint);
                pp_sched_problem_free(p);
            }
    fprintf(stderr, "random: %d coarsenings, %d scheduled and expanded, %d memory refusals, "
                    "%d of %d targets reached; with hints %d of %d scheduled and expanded\n", tried, scheduled,
            refusals, reached, targets_below, hinted_scheduled, hinted);
    /* The checks above only bite when schedules exist and memory binds. */
    CHECK(scheduled >= tried * 3 / 4);
    CHECK(hinted_scheduled >= hinted * 3 / 4);
    CHECK(refusals > 0);
    CHECK(reached >= targets_below / 2);
}

/* The pipeline problems of the generator, with their activation budgets as
 * the schemes need them; the coarse list scheduler takes ready ops in the
 * order of the scheme's own schedule, so memory works out as it does there. */
static void pipeline_cases(void)
{
    pp_pipe_scheme schemes[] = {PP_PIPE_1F1B, PP_PIPE_ZB1P, PP_PIPE_DUALPIPE};
    int tried = 0, scheduled = 0, refusals = 0;
    for (int k = 0; k < 3; k++)
        for (int with_comm = 0; with_comm < 2; with_comm++) {
            bool dual = schemes[k] == PP_PIPE_DUALPIPE;
            pp_pipe_spec pipe = {.stages = 4, .microbatches = 8, .scheme = schemes[k], .mem_act = dual ? 5 : 4,
                                 .param_mem = 1, .comm = with_comm ? 0.5 : 0};
            pp_sched_problem *p = NULL;
            pp_sched_schedule *reference = NULL;
            pp_error err = {0};
            CHECK_EQ_INT(pp_sched_gen_pipeline(&pipe, &p, &reference, &err), PP_OK);
            if (!p)
                continue;
            int n = p->op_count, targets[] = {n / 2, n / 4, n / 8, 12};
            for (int t = 0; t < 4; t++, tried++)
                check_target(p, targets[t], reference, &scheduled, &refusals);
            pp_sched_schedule_free(reference);
            pp_sched_problem_free(p);
        }
    fprintf(stderr, "pipelines: %d coarsenings, %d scheduled and expanded\n", tried, scheduled);
    CHECK(scheduled >= tried * 3 / 4);
}

static pp_sched_problem *finished(pp_sched_problem *p)
{
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "hand", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

/* Coarsens a hand-made problem to one op (as far as the rules allow), runs
 * all the checks, and tells whether fine ops a and b ended up together.
 * Where the list scheduler's greedy choices can strand an op (a full device,
 * a missing channel), the expansion is checked only when it finds a schedule. */
static bool together(pp_sched_problem *p, int a, int b, bool must_schedule)
{
    sc_coarsening c;
    pp_error err = {0};
    int refusals = 0;
    if (!p || sc_coarsen(p, 1, &c, &err) != PP_OK) {
        check_failures++;
        return false;
    }
    check_partition(p, &c);
    check_ops(p, &c);
    check_deps(p, &c);
    bool scheduled = !isnan(check_expansion(p, &c, NULL, &refusals));
    CHECK(scheduled || !must_schedule);
    bool same = c.group_of[a] == c.group_of[b];
    sc_coarsening_free(&c);
    return same;
}

/* Chains x1 -> x2 on d0 and y1 -> y2 on d2 (both of the given capacity): x
 * frees 2 then takes 3 back (the level inside never rises above the end
 * level), y takes 2 then frees them (a hidden peak). With memory limited
 * only x merges; unlimited, both do. A zero-duration op with a negative
 * adjustment (on d1) switches to the strict rule, which refuses x's rise of
 * 1 too. */
static pp_sched_problem *memory_case(double capacity, bool zero_op)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "d0", capacity);
    pp_sched_add_device(p, "d1", INFINITY);
    pp_sched_add_device(p, "d2", capacity);
    int x1 = pp_sched_add_op(p, "x1", "f", 1, 0, -2), x2 = pp_sched_add_op(p, "x2", "f", 1, 0, 3);
    int y1 = pp_sched_add_op(p, "y1", "f", 1, 0, 2), y2 = pp_sched_add_op(p, "y2", "f", 1, 0, -2);
    int ops[] = {x1, x2, y1, y2};
    for (int k = 0; k < 4; k++)
        pp_sched_allow(p, ops[k], k < 2 ? 0 : 2);
    pp_sched_add_dep(p, x1, x2, 1);
    pp_sched_add_dep(p, y1, y2, 1);
    if (zero_op)
        pp_sched_allow(p, pp_sched_add_op(p, "z", "f", 0, 0, -1), 1);
    return finished(p);
}

static void memory_rule(void)
{
    pp_sched_problem *p = memory_case(100, false);
    CHECK(together(p, 0, 1, true));
    CHECK(!together(p, 2, 3, true));
    pp_sched_problem_free(p);
    p = memory_case(INFINITY, false);
    CHECK(together(p, 0, 1, true) && together(p, 2, 3, true));
    pp_sched_problem_free(p);
    p = memory_case(100, true);
    CHECK(!together(p, 0, 1, true));
    CHECK(!together(p, 2, 3, true));
    pp_sched_problem_free(p);
}

/* Capacity 8 on d0 and d1. Four ops e forced onto d0 hold 7 there; a (2,
 * d0 or d1) -> b (0, d0 only) would force a's 2 onto d0 as well, 9 in all,
 * so they stay apart (each op alone is within a quarter of the capacity). */
static void forced_weight_rule(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "d0", 8);
    pp_sched_add_device(p, "d1", 8);
    int a = pp_sched_add_op(p, "a", "f", 1, 2, 0), b = pp_sched_add_op(p, "b", "f", 1, 0, 0);
    pp_sched_allow(p, a, 0);
    pp_sched_allow(p, a, 1);
    pp_sched_allow(p, b, 0);
    pp_sched_add_dep(p, a, b, 1);
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "e%d", k);
        pp_sched_allow(p, pp_sched_add_op(p, name, "f", 1, 1.75, 0), 0);
    }
    p = finished(p);
    CHECK(!together(p, a, b, false));
    pp_sched_problem_free(p);
}

/* Channels d0 -> d1 -> d2 only; a (d0) -> b (d0 or d1) -> c (d2). Merging a
 * and b would put b on d0, from where c's d2 has no channel; b and c share
 * no device. */
static void channel_rule(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    for (int d = 0; d < 3; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", d);
        pp_sched_add_device(p, name, INFINITY);
    }
    pp_sched_add_channel(p, 0, 1);
    pp_sched_add_channel(p, 1, 2);
    int a = pp_sched_add_op(p, "a", "f", 1, 0, 0), b = pp_sched_add_op(p, "b", "f", 1, 0, 0);
    int c = pp_sched_add_op(p, "c", "f", 5, 0, 0);
    pp_sched_allow(p, a, 0);
    pp_sched_allow(p, b, 0);
    pp_sched_allow(p, b, 1);
    pp_sched_allow(p, c, 2);
    pp_sched_add_dep(p, a, b, 1);
    pp_sched_add_dep(p, b, c, 1);
    p = finished(p);
    CHECK(!together(p, a, b, false));
    CHECK(!together(p, b, c, false));
    pp_sched_problem_free(p);
}

/* Chain a -> b, and a lone op named "a+2" that may not join them: the merged
 * op may not take that name. Also the trivial targets. */
static void names_and_targets(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "d0", INFINITY);
    pp_sched_add_device(p, "d1", INFINITY);
    int a = pp_sched_add_op(p, "a", "f", 1, 0, 0), b = pp_sched_add_op(p, "b", "g", 1, 0, 0);
    int lone = pp_sched_add_op(p, "a+2", "f", 1, 0, 0);
    pp_sched_add_dep(p, a, b, 1);
    pp_sched_allow(p, a, 0);
    pp_sched_allow(p, b, 0);
    pp_sched_allow(p, lone, 1);
    p = finished(p);
    sc_coarsening c;
    pp_error err = {0};
    CHECK_EQ_INT(sc_coarsen(p, 1, &c, &err), PP_OK);
    CHECK_EQ_INT(c.coarse->op_count, 2);
    int merged = c.group_of[a];
    CHECK(c.group_of[b] == merged && c.group_of[lone] != merged);
    CHECK(strcmp(c.coarse->op_name[merged], "a+2+") == 0);
    CHECK(strcmp(c.coarse->op_kind[merged], "merged") == 0);
    CHECK(strcmp(c.coarse->op_name[c.group_of[lone]], "a+2") == 0);
    sc_coarsening_free(&c);
    CHECK_EQ_INT(sc_coarsen(p, 0, &c, &err), PP_EARG);
    pp_sched_problem_free(p);
}

/* The figures for a 2000-op graph: time, size, and the list scheduler's
 * makespan on the coarse problem against the fine one's (printed, not
 * asserted: no test asserts a time). With memory, also with the fine list
 * schedule as the hint. The expansion is checked as above. */
static void large_case(bool memory)
{
    spec sp = {2000, 2, memory, memory, false, 77};
    pp_sched_problem *p = random_problem(&sp);
    CHECK(p != NULL);
    if (!p)
        return;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    int refusals = 0, scheduled = 0;
    bool fine_ok = asap(p, NULL, s, &refusals);
    fprintf(stderr, "2000 ops, %d deps, %s: fine list makespan %g, lower bound %g\n", p->dep_count,
            memory ? "finite memory, restricted devices" : "unlimited memory",
            fine_ok ? pp_sched_makespan(s) : NAN, pp_sched_lower_bound(p));
    int targets[] = {1000, 500, 200, 100, 40};
    for (int t = 0; t < 5; t++)
        for (int hinted = 0; hinted < 1 + (fine_ok && memory); hinted++) {
            sc_coarsening c;
            pp_error err = {0};
            double t0 = pp_now();
            CHECK_EQ_INT(sc_coarsen_hinted(p, targets[t], hinted ? s : NULL, &c, &err), PP_OK);
            double took = pp_now() - t0, makespan = check_expansion(p, &c, NULL, &refusals);
            scheduled += !isnan(makespan);
            fprintf(stderr, "  target %4d%s: %4d ops, %5d deps in %.3f s; coarse list makespan %g\n", targets[t],
                    hinted ? ", hint" : "", c.coarse->op_count, c.coarse->dep_count, took, makespan);
            sc_coarsening_free(&c);
        }
    CHECK(scheduled >= 3);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

int main(void)
{
    memory_rule();
    forced_weight_rule();
    channel_rule();
    names_and_targets();
    random_cases();
    pipeline_cases();
    large_case(false);
    large_case(true);
    return CHECK_DONE();
}
