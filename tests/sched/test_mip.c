/* test_mip.c: the exact MIP (src/sched/mip.c) against a brute-force oracle on
 * random tiny problems: 3..7 ops, 2..3 devices, random allowed devices,
 * channels, comm times (some zero), weights, adjustments of both signs and
 * finite capacities, some with no valid schedule. The oracle enumerates every
 * placement, every order of the ops on each device and of the transfers
 * with length on each channel, times each as early as possible and keeps
 * the best one pp_sched_check passes; the MIP must match it, pass the
 * checker, bound it from below, and accept warm starts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sched/mip.h"
#include "sched/sched_internal.h"

#define MAX_OPS 7
#define MAX_DEPS 21
#define MAX_DEV 3
#define MAX_RES (MAX_DEV + MAX_DEV * MAX_DEV)

/* ---- Random tiny problems. ---- */

static double pick_time(pp_rng *rng, bool halves, int lo, int hi)
{
    double x = lo + (double)pp_rng_below(rng, (uint32_t)(hi - lo + 1));
    return halves ? x / 2 : x;
}

/* uniform: every op may use every device (so, with equal capacities and
 * all channels, the devices are interchangeable). */
static void add_ops(pp_sched_problem *p, pp_rng *rng, int n, int D, bool halves, bool uniform, bool zeros)
{
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "op%d", i);
        double weight = pp_rng_below(rng, 4);
        double adjust = (double)pp_rng_below(rng, 7) - 3;
        double duration = zeros && pp_rng_below(rng, 3) == 0 ? 0 : pick_time(rng, halves, 1, halves ? 9 : 5);
        pp_sched_add_op(p, name, "op", duration, weight, adjust);
        if (uniform || pp_rng_below(rng, 2) == 0)
            continue;
        for (int j = 0; j < D; j++)
            if (pp_rng_below(rng, 3) != 0)
                pp_sched_allow(p, i, j);
        pp_sched_allow(p, i, (int)pp_rng_below(rng, (uint32_t)D));
    }
}

static void add_deps(pp_sched_problem *p, pp_rng *rng, int n, bool halves)
{
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            if (pp_rng_below(rng, 100) < 35)
                pp_sched_add_dep(p, i, k, pp_rng_below(rng, 5) == 0 ? 0 : pick_time(rng, halves, 1, halves ? 6 : 3));
}

/* NULL when the draw is not a valid problem (finish refused it). zeros:
 * about a third of the ops last 0. */
static pp_sched_problem *random_problem(uint64_t seed, bool zeros)
{
    pp_rng rng;
    pp_rng_seed(&rng, seed, 7);
    int n = 3 + (int)pp_rng_below(&rng, MAX_OPS - 2);
    int D = 2 + (int)pp_rng_below(&rng, MAX_DEV - 1);
    bool halves = pp_rng_below(&rng, 4) == 0, uniform = pp_rng_below(&rng, 4) == 0;
    pp_sched_problem *p = pp_sched_problem_new();
    int tight = (int)pp_rng_below(&rng, 3);
    double cap = 0;
    for (int j = 0; j < D; j++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", j);
        if (j == 0 || !uniform)
            cap = tight == 0 ? INFINITY : (double)(tight == 1 ? 3 + pp_rng_below(&rng, 4) : 6 + pp_rng_below(&rng, 8));
        pp_sched_add_device(p, name, cap);
    }
    if (!uniform && pp_rng_below(&rng, 2) == 0)
        for (int a = 0; a < D; a++)
            for (int b = 0; b < D; b++)
                if (a != b && pp_rng_below(&rng, 10) < 6)
                    pp_sched_add_channel(p, a, b);
    add_ops(p, &rng, n, D, halves, uniform, zeros);
    add_deps(p, &rng, n, halves);
    pp_error err;
    pp_error_clear(&err);
    if (pp_sched_problem_finish(p, "random", &err) != PP_OK) {
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

/* ---- The oracle. ---- */

typedef struct {
    const pp_sched_problem *p;
    int dev[MAX_OPS];
    int res[MAX_RES][MAX_OPS + MAX_DEPS]; /* devices' ops, then channels' transfers */
    int len[MAX_RES];
    bool after[MAX_OPS + MAX_DEPS][MAX_OPS + MAX_DEPS]; /* task a must wait for task b, through the graph */
    pp_sched_schedule *s, *best, *first;
    double best_makespan;
    long valid;
} oracle;

static void reverse(int *a, int lo, int hi)
{
    for (; lo < hi; lo++, hi--) {
        int t = a[lo];
        a[lo] = a[hi];
        a[hi] = t;
    }
}

/* The next order in lexicographic order; after the last, back to the first
 * (sorted) one and false, so that enclosing loops start over complete. */
static bool next_permutation(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0) {
        reverse(a, 0, n - 1);
        return false;
    }
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    reverse(a, i + 1, n - 1);
    return true;
}

static int channel_res(const oracle *o, int e)
{
    const pp_sched_problem *p = o->p;
    int a = o->dev[p->dep_from[e]], b = o->dev[p->dep_to[e]];
    return a != b && p->dep_comm[e] > 0 ? p->device_count + a * p->device_count + b : -1;
}

/* Earliest times for the current orders; false when they deadlock. */
static bool time_orders(oracle *o)
{
    const pp_sched_problem *p = o->p;
    pp_sched_schedule *s = o->s;
    int n = p->op_count, m = p->dep_count, tasks = n + m;
    int at[MAX_RES] = {0};
    bool done[MAX_OPS + MAX_DEPS] = {false};
    double res_free[MAX_RES] = {0};
    for (int placed = 0; placed < tasks;) {
        bool progress = false;
        for (int t = 0; t < tasks; t++) {
            if (done[t])
                continue;
            int r = t < n ? o->dev[t] : channel_res(o, t - n);
            if (r >= 0 && o->res[r][at[r]] != t)
                continue;
            double ready = r >= 0 ? res_free[r] : 0;
            bool inputs = true;
            if (t >= n) {
                int u = p->dep_from[t - n];
                inputs = done[u];
                ready = fmax(ready, s->end[u]);
            }
            for (int e = 0; t < n && e < m; e++)
                if (p->dep_to[e] == t) {
                    inputs &= done[n + e];
                    ready = fmax(ready, o->dev[p->dep_from[e]] == o->dev[t] ? s->end[p->dep_from[e]]
                                                                           : s->transfer_end[e]);
                }
            if (!inputs)
                continue;
            if (t < n) {
                s->device[t] = o->dev[t];
                s->start[t] = ready;
                s->end[t] = ready + p->duration[t];
            } else if (o->dev[p->dep_from[t - n]] != o->dev[p->dep_to[t - n]]) {
                s->transfer_start[t - n] = ready;
                s->transfer_end[t - n] = ready + p->dep_comm[t - n];
            } else {
                s->transfer_start[t - n] = s->transfer_end[t - n] = NAN;
            }
            if (r >= 0) {
                res_free[r] = t < n ? s->end[t] : s->transfer_end[t - n];
                at[r]++;
            }
            done[t] = true;
            placed++;
            progress = true;
        }
        if (!progress)
            return false;
    }
    return true;
}

static void leaf(oracle *o)
{
    if (!time_orders(o))
        return;
    double makespan = pp_sched_makespan(o->s);
    if (makespan >= o->best_makespan - 1e-9 && o->valid > 0)
        return;
    pp_sched_report report;
    pp_error err;
    pp_error_clear(&err);
    bool ok = pp_sched_check(o->p, o->s, &report, &err) == PP_OK;
    pp_sched_report_free(&report);
    if (!ok)
        return;
    if (o->valid++ == 0)
        pp_sched_schedule_copy(o->first, o->s);
    o->best_makespan = makespan;
    pp_sched_schedule_copy(o->best, o->s);
}

/* Which tasks wait for which: a transfer for its source op, an op for its
 * inputs' transfers, and so on through the graph. */
static void find_after(oracle *o)
{
    const pp_sched_problem *p = o->p;
    int n = p->op_count, tasks = n + p->dep_count;
    memset(o->after, 0, sizeof o->after);
    for (int e = 0; e < p->dep_count; e++)
        o->after[n + e][p->dep_from[e]] = o->after[p->dep_to[e]][n + e] = true;
    for (int k = 0; k < tasks; k++)
        for (int a = 0; a < tasks; a++)
            for (int b = 0; a != k && o->after[a][k] && b < tasks; b++)
                o->after[a][b] |= o->after[k][b];
}

/* Whether resource r's order runs no task before one it waits for: such
 * orders deadlock (time_orders fails at every leaf under them), so they
 * are not listed further. */
static bool order_possible(const oracle *o, int r)
{
    for (int i = 0; i < o->len[r]; i++)
        for (int j = i + 1; j < o->len[r]; j++)
            if (o->after[o->res[r][i]][o->res[r][j]])
                return false;
    return true;
}

static void orders(oracle *o, int r)
{
    if (r == MAX_RES) {
        leaf(o);
        return;
    }
    do
        if (order_possible(o, r))
            orders(o, r + 1);
    while (next_permutation(o->res[r], o->len[r]));
}

static void fill_resources(oracle *o)
{
    const pp_sched_problem *p = o->p;
    memset(o->len, 0, sizeof o->len);
    for (int i = 0; i < p->op_count; i++)
        o->res[o->dev[i]][o->len[o->dev[i]]++] = i;
    for (int e = 0; e < p->dep_count; e++) {
        int r = channel_res(o, e);
        if (r >= 0)
            o->res[r][o->len[r]++] = p->op_count + e;
    }
}

static void place(oracle *o, int i)
{
    const pp_sched_problem *p = o->p;
    if (i == p->op_count) {
        fill_resources(o);
        orders(o, 0);
        return;
    }
    for (int j = 0; j < p->device_count; j++) {
        if (!pp_sched_op_allowed(p, i, j))
            continue;
        o->dev[i] = j;
        bool ok = true;
        for (int e = 0; e < p->dep_count; e++) {
            int u = p->dep_from[e], v = p->dep_to[e];
            if (u < 0 || v < 0)
                continue; /* never: it tells an optimising compiler the indices below are in range */
            if (v == i && u < i && o->dev[u] != j && !pp_sched_has_channel(p, o->dev[u], j))
                ok = false;
            if (u == i && v < i && o->dev[v] != j && !pp_sched_has_channel(p, j, o->dev[v]))
                ok = false;
        }
        if (ok)
            place(o, i + 1);
    }
}

/* ---- The checks. ---- */

static bool passes_checker(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    pp_sched_report report;
    pp_error err;
    pp_error_clear(&err);
    pp_status st = pp_sched_check(p, s, &report, &err);
    if (st != PP_OK)
        fprintf(stderr, "checker: %s\n", err.message);
    pp_sched_report_free(&report);
    return st == PP_OK;
}

static int mip_better; /* times the MIP beat the oracle's sequences */

/* With zero-length ops the oracle runs them in sequence like the others,
 * which the checker does not ask for: the MIP may then do better (exact
 * false), never worse. */
static void check_against(const pp_sched_problem *p, const oracle *o, const pp_sched_schedule *warm, uint64_t seed,
                          bool exact)
{
    sc_mip_options opt = {.time_limit = 60, .threads = 1, .warm_start = warm};
    sc_mip_result r;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    pp_error err;
    pp_error_clear(&err);
    pp_status st = sc_mip_solve(p, &opt, s, &r, &err);
    if (o->valid == 0) {
        CHECK_EQ_INT(st, PP_INFEASIBLE);
        CHECK(!r.found && r.optimal && r.bound == INFINITY);
    } else {
        CHECK_EQ_INT(st, PP_OK);
        CHECK(r.found && r.optimal);
        if (r.found) {
            CHECK(passes_checker(p, s));
            CHECK(fabs(pp_sched_makespan(s) - r.makespan) < 1e-9);
        }
        CHECK(r.makespan < o->best_makespan + 1e-6);
        CHECK(!exact || r.makespan > o->best_makespan - 1e-6);
        mip_better += r.makespan <= o->best_makespan - 1e-6;
        CHECK(r.bound <= o->best_makespan + 1e-6);
        /* The search's bound (bound.c, which the MIP does not share) holds too. */
        CHECK(pp_sched_lower_bound(p) <= fmin(r.makespan, o->best_makespan) + 1e-6);
        if (warm) {
            CHECK(r.warm_start_fits);
            CHECK(r.makespan <= pp_sched_makespan(warm) + 1e-9);
        }
        if (r.makespan >= o->best_makespan + 1e-6 || (exact && r.makespan <= o->best_makespan - 1e-6))
            fprintf(stderr, "seed %llu: MIP %g, oracle %g (%s warm start)\n", (unsigned long long)seed, r.makespan,
                    o->best_makespan, warm ? "with" : "no");
    }
    pp_sched_schedule_free(s);
}

/* The optimum with devices 0 and 1 renamed, when that is still valid:
 * exercises the renaming of warm starts for interchangeable devices. */
static void check_swapped_warm_start(const pp_sched_problem *p, const oracle *o, uint64_t seed, bool exact)
{
    pp_sched_schedule *w = pp_sched_schedule_new(p);
    pp_sched_schedule_copy(w, o->best);
    for (int i = 0; i < p->op_count; i++)
        w->device[i] = w->device[i] < 2 ? 1 - w->device[i] : w->device[i];
    pp_sched_report report;
    pp_error err;
    pp_error_clear(&err);
    bool ok = pp_sched_check(p, w, &report, &err) == PP_OK;
    pp_sched_report_free(&report);
    if (ok)
        check_against(p, o, w, seed, exact);
    pp_sched_schedule_free(w);
}

static int run_random(int count, bool zeros, int *infeasible)
{
    int tested = 0;
    for (uint64_t seed = 1; tested < count; seed++) {
        pp_sched_problem *p = random_problem(seed, zeros);
        if (!p)
            continue;
        oracle o = {.p = p, .best_makespan = INFINITY};
        o.s = pp_sched_schedule_new(p);
        o.best = pp_sched_schedule_new(p);
        o.first = pp_sched_schedule_new(p);
        find_after(&o);
        place(&o, 0);
        check_against(p, &o, NULL, seed, !zeros);
        if (o.valid > 0) {
            check_against(p, &o, o.first, seed, !zeros);
            check_swapped_warm_start(p, &o, seed, !zeros);
        }
        *infeasible += o.valid == 0;
        pp_sched_schedule_free(o.s);
        pp_sched_schedule_free(o.best);
        pp_sched_schedule_free(o.first);
        pp_sched_problem_free(p);
        tested++;
    }
    return tested;
}

/* Under a time limit the answer is consistent, found or not. */
static void check_time_limit(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "a", INFINITY);
    pp_sched_add_device(p, "b", INFINITY);
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "op%d", i);
        pp_sched_add_op(p, name, "op", 1 + (i * 7) % 5, 0, 0);
        if (i >= 2)
            pp_sched_add_dep(p, (i * 5) % i, i, 1);
    }
    pp_error err;
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_sched_problem_finish(p, "big", &err), PP_OK);
    sc_mip_options opt = {.time_limit = 1, .threads = 1, .warm_start = NULL};
    sc_mip_result r;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    CHECK_EQ_INT(sc_mip_solve(p, &opt, s, &r, &err), PP_OK);
    if (r.found) {
        CHECK(passes_checker(p, s));
        CHECK(r.bound <= r.makespan + 1e-9);
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

int main(void)
{
    int infeasible = 0;
    int count = CHECK_ROUNDS(120); /* fork is slow under ASan; the memory checks need no more */
    int tested = run_random(count, false, &infeasible);
    fprintf(stderr, "%d random problems, %d without a valid schedule\n", tested, infeasible);
    CHECK(infeasible > 0 && infeasible < tested);
    infeasible = 0;
    tested = run_random(count / 2, true, &infeasible);
    fprintf(stderr, "%d with zero-length ops, %d without a valid schedule, %d solves better than the oracle\n",
            tested, infeasible, mip_better);
    check_time_limit();
    return CHECK_DONE();
}
