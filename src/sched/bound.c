/* bound.c: lower bounds on the makespan, so every answer can say how far
 * from optimal it may be. Three arguments, the largest wins:
 *  - the critical path (communication counted only where both ends are forced
 *    onto different devices);
 *  - total work spread over all devices;
 *  - per device, over the ops forced onto it: for each release threshold r,
 *    the ops with head >= r run one at a time after r and the last of them
 *    still has its tail to go (the one-machine relaxation); and memory: until
 *    the first op that lowers the level can have ended, only ops that raise
 *    the level by at most the free capacity can run, so the rest of the work
 *    waits for that moment (less one op that may straddle it);
 *  - over the ranks of alike components (a pipeline's micro-batches): the
 *    k-th copy of each op by start, through round trips and memory
 *    (rank_bound.c);
 *  - energy: a makespan C is impossible when some window [a, b] must hold more
 *    work than the devices can do in it, each op being confined to
 *    [head, C - tail]. The smallest C that passes is found by bisection. On a
 *    graph that ends in a chain this adds half the chain to work / devices.
 * With whole durations and comm times the bound rounds up. */
#include <math.h>
#include <stdlib.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

typedef struct {
    double rise, duration;
} raiser;

static int by_density_desc(const void *a, const void *b)
{
    const raiser *x = a, *y = b;
    double dx = x->duration / x->rise, dy = y->duration / y->rise;
    return (dx < dy) - (dx > dy);
}

/* Work device d can do before `release` without lowering its level:
 * ops that leave the level alone, plus raising ops up to the free capacity
 * (taken fractionally, most duration per unit of memory first). */
static double work_before_release(const pp_sched_problem *p, int d, const double *head, double release,
                                  double free_memory, raiser *buf)
{
    double work = 0;
    int n = 0;
    for (int i = 0; i < p->op_count; i++) {
        if (sc_forced_device(p, i) != d || head[i] + p->duration[i] > release)
            continue;
        if (p->adjust[i] == 0)
            work += p->duration[i];
        else if (p->adjust[i] > 0)
            buf[n++] = (raiser){p->adjust[i], p->duration[i]};
    }
    qsort(buf, (size_t)n, sizeof *buf, by_density_desc);
    for (int k = 0; k < n && free_memory > 0; k++) {
        double share = fmin(1, free_memory / buf[k].rise);
        work += share * buf[k].duration;
        free_memory -= buf[k].rise;
    }
    return work;
}

static double memory_bound(const pp_sched_problem *p, int d, const double *head, raiser *buf)
{
    if (!isfinite(p->capacity[d]))
        return 0;
    double weights = 0, raised = 0, work = 0, release = INFINITY, first = INFINITY, longest = 0;
    for (int i = 0; i < p->op_count; i++) {
        if (sc_forced_device(p, i) != d)
            continue;
        weights += p->weight[i];
        work += p->duration[i];
        longest = fmax(longest, p->duration[i]);
        first = fmin(first, head[i]);
        if (p->adjust[i] > 0)
            raised += p->adjust[i];
        else if (p->adjust[i] < 0)
            release = fmin(release, head[i] + p->duration[i]);
    }
    double free_memory = p->capacity[d] - weights;
    if (!isfinite(release) || raised <= free_memory)
        return 0;
    /* One op may straddle the release: count all of it as done before. */
    double before = fmin(release - first, work_before_release(p, d, head, release, free_memory, buf) + longest);
    return release + work - fmax(0, before);
}

/* The part of an op confined to [r, d] that must fall inside [a, b]. */
static double forced_work(double r, double d, double length, double a, double b)
{
    double w = fmin(fmin(length, b - a), fmin(r + length - a, b - d + length));
    return w > 0 ? w : 0;
}

/* Graphs up to this size also get every window [head_i, C - tail_j], at
 * O(n^3) per test; all get the windows that start at 0 or end at C. */
enum { ENERGY_TWO_SIDED = 60 };

typedef struct {
    double at;
    int slope;
} ramp_event;

static int by_at(const void *a, const void *b)
{
    double x = ((const ramp_event *)a)->at, y = ((const ramp_event *)b)->at;
    return (x > y) - (x < y);
}

/* Op i has at least clamp(b - start_i, 0, length_i) of its work in [0, b]
 * (start_i: its latest start). True when that never exceeds devices * b:
 * the sum is piecewise linear, so checking at its breakpoints suffices. */
static bool ramps_fit(ramp_event *ev, int n, double devices)
{
    qsort(ev, (size_t)n * 2, sizeof *ev, by_at);
    double work = 0, at = 0;
    int slope = 0;
    for (int k = 0; k < 2 * n; k++) {
        work += slope * (ev[k].at - at);
        at = ev[k].at;
        slope += ev[k].slope;
        if (work > devices * at * (1 + 1e-12) + 1e-9)
            return false;
    }
    return true;
}

/* Windows [0, b] and, mirrored in time, [a, C]. */
static bool one_sided_fit(const pp_sched_problem *p, const double *head, const double *tail, double C,
                          ramp_event *ev)
{
    int n = p->op_count;
    for (int mirror = 0; mirror < 2; mirror++) {
        for (int i = 0; i < n; i++) {
            double latest = mirror ? C - head[i] - p->duration[i] : C - tail[i] - p->duration[i];
            ev[2 * i] = (ramp_event){latest, 1};
            ev[2 * i + 1] = (ramp_event){latest + p->duration[i], -1};
        }
        if (!ramps_fit(ev, n, p->device_count))
            return false;
    }
    return true;
}

static bool energy_feasible(const pp_sched_problem *p, const double *head, const double *tail, double C,
                            ramp_event *ev)
{
    int n = p->op_count;
    double D = p->device_count;
    if (!one_sided_fit(p, head, tail, C, ev))
        return false;
    if (n > ENERGY_TWO_SIDED)
        return true;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++) {
            double a = head[j], b = C - tail[k], work = 0;
            if (b <= a)
                continue;
            for (int i = 0; i < n; i++)
                work += forced_work(head[i], C - tail[i], p->duration[i], a, b);
            if (work > D * (b - a) * (1 + 1e-12) + 1e-9)
                return false;
        }
    return true;
}

static double energy_bound(const pp_sched_problem *p, const double *head, const double *tail, double low,
                           double work, const pp_deadline *deadline, bool *stopped)
{
    ramp_event *ev = malloc(((size_t)p->op_count * 2 + 1) * sizeof *ev);
    if (!ev || energy_feasible(p, head, tail, low, ev)) {
        free(ev);
        return low;
    }
    double high = low + work;
    for (int k = 0; k < 60 && high - low > 1e-7 * fmax(1, high) && !(*stopped = sc_bound_cut(deadline)); k++) {
        double mid = 0.5 * (low + high);
        if (energy_feasible(p, head, tail, mid, ev))
            high = mid;
        else
            low = mid;
    }
    free(ev);
    return low;
}

/* With whole durations and comm times, the earliest times of any device and
 * channel orders are whole, so some optimal makespan is: bounds round up. */
static bool integral_times(const pp_sched_problem *p)
{
    for (int i = 0; i < p->op_count; i++)
        if (p->duration[i] != floor(p->duration[i]))
            return false;
    for (int e = 0; e < p->dep_count; e++)
        if (p->dep_comm[e] != floor(p->dep_comm[e]))
            return false;
    return true;
}

/* Raises *bound to x, naming the argument when x is higher. */
static void raise_to(double *bound, double x, const char **kind, const char *name)
{
    if (x > *bound * (1 + 1e-12) + 1e-12)
        *bound = x, *kind = name;
}

double sc_lower_bound_named(const pp_sched_problem *p, const pp_deadline *deadline, const char **kind,
                            bool *stopped)
{
    int n = p->op_count;
    *kind = "none";
    *stopped = false;
    double *head = malloc(((size_t)n + 1) * sizeof(double));
    double *tail = malloc(((size_t)n + 1) * sizeof(double));
    sc_job *jobs = malloc(((size_t)n + 1) * sizeof(sc_job));
    raiser *buf = malloc(((size_t)n + 1) * sizeof(raiser));
    int *forced = calloc((size_t)p->device_count + 1, sizeof(int));
    double *scratch = malloc(((size_t)n + 1) * sizeof(double));
    if (!head || !tail || !jobs || !buf || !forced || !scratch) {
        free(head), free(tail), free(jobs), free(buf), free(forced), free(scratch);
        return 0;
    }
    sc_heads_tails(p, head, tail);
    double bound = 0, work = 0;
    for (int i = 0; i < n; i++) {
        raise_to(&bound, head[i] + p->duration[i] + tail[i], kind, "critical path");
        work += p->duration[i];
    }
    raise_to(&bound, work / p->device_count, kind, "all work over all devices");
    for (int i = 0; i < n; i++)
        if (sc_forced_device(p, i) >= 0)
            forced[sc_forced_device(p, i)]++;
    /* A device no op is forced onto bounds nothing per device: skipped, so
     * unused devices cost no pass over the ops each. */
    for (int d = 0; d < p->device_count && !(*stopped = sc_bound_cut(deadline)); d++) {
        if (!forced[d])
            continue;
        int count = 0;
        for (int i = 0; i < n; i++)
            if (sc_forced_device(p, i) == d)
                jobs[count++] = (sc_job){head[i], p->duration[i], tail[i]};
        raise_to(&bound, sc_one_machine_bound(jobs, count, scratch), kind, "one device's work between its heads and tails");
        raise_to(&bound, memory_bound(p, d, head, buf), kind,
                 "one device's warm-up: the raises its memory holds before the first release");
    }
    if (!*stopped)
        raise_to(&bound, sc_rank_bound(p, tail, deadline, stopped), kind,
                 "copies' ranks: each device's round trips and memory per micro-batch");
    if (!*stopped)
        raise_to(&bound, energy_bound(p, head, tail, bound, work, deadline, stopped), kind,
                 "energy: work forced into time windows");
    if (integral_times(p))
        bound = bound > 1e-6 ? ceil(bound - 1e-6) : 0;
    free(head), free(tail), free(jobs), free(buf), free(forced), free(scratch);
    return bound;
}

double pp_sched_lower_bound(const pp_sched_problem *p)
{
    const char *kind;
    bool stopped;
    return sc_lower_bound_named(p, NULL, &kind, &stopped);
}

/* A device's span holds at least its own work: the ops forced onto it, and
 * on average over devices all the work. */
/* from[x]: the longest path from the start of an op forced onto device a to
 * x's start (-INFINITY: none reaches x); to[x]: from x's end to the end of
 * an op forced onto a (-INFINITY: x reaches none). */
static void paths_of(const pp_sched_problem *p, int a, double *from, double *to)
{
    int n = p->op_count;
    for (int k = 0; k < n; k++) {
        int v = p->topo_order[k];
        from[v] = sc_forced_device(p, v) == a ? 0 : -INFINITY;
        for (int j = p->pred_start[v]; j < p->pred_start[v + 1]; j++) {
            int e = p->pred_dep[j], u = p->dep_from[e];
            from[v] = fmax(from[v], from[u] + p->duration[u] + sc_dep_delay(p, e));
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        int u = p->topo_order[k];
        to[u] = sc_forced_device(p, u) == a ? 0 : -INFINITY;
        for (int j = p->succ_start[u]; j < p->succ_start[u + 1]; j++) {
            int e = p->succ_dep[j], v = p->dep_to[e];
            to[u] = fmax(to[u], sc_dep_delay(p, e) + p->duration[v] + to[v]);
        }
    }
}

/* Device a's span is at least, for each device b, the one-machine bound on
 * the ops forced onto b that an op of a leads to and that lead to an op of
 * a: each starts no earlier than a's first op plus its path from a (every
 * op of a starts at or after a's first), and a's last op ends no earlier
 * than its end plus its path to a. On a pipeline, with a the first stage
 * and b the last: the last stage runs every F and B between the first
 * forward's trip out and the last B's trip back (at Qi et al.'s times,
 * P = 32 and 96 micro-batches, 1.83% span bubble, where a device's work
 * alone says 0). `by_device` lists the forced ops device after device,
 * from `first` on. */
static double span_through(const pp_sched_problem *p, int a, const int *by_device, const int *first,
                           double *from, double *to, sc_job *jobs, double *scratch)
{
    paths_of(p, a, from, to);
    double bound = 0;
    for (int b = 0; b < p->device_count; b++) {
        int count = 0;
        for (int k = first[b]; k < first[b + 1]; k++) {
            int x = by_device[k];
            if (isfinite(from[x]) && isfinite(to[x]))
                jobs[count++] = (sc_job){from[x], p->duration[x], to[x]};
        }
        bound = fmax(bound, sc_one_machine_bound(jobs, count, scratch));
    }
    return bound;
}

double pp_sched_span_lower_bound(const pp_sched_problem *p)
{
    size_t n = (size_t)p->op_count + 1, D = (size_t)p->device_count;
    double *forced = calloc(D, sizeof(double)), *from = malloc(n * sizeof(double));
    double *to = malloc(n * sizeof(double));
    int *first = calloc(D + 2, sizeof(int)), *by_device = malloc(n * sizeof(int));
    sc_job *jobs = malloc(n * sizeof(sc_job));
    double *scratch = malloc(n * sizeof(double));
    double work = 0, bound = 0;
    if (forced && from && to && first && by_device && jobs && scratch) {
        for (int i = 0; i < p->op_count; i++) {
            int d = sc_forced_device(p, i);
            work += p->duration[i];
            if (d >= 0)
                forced[d] += p->duration[i], first[d + 2]++;
        }
        bound = work / p->device_count;
        for (size_t d = 0; d < D; d++)
            bound = fmax(bound, forced[d]), first[d + 2] += first[d + 1];
        for (int i = 0; i < p->op_count; i++) {
            int d = sc_forced_device(p, i);
            if (d >= 0)
                by_device[first[d + 1]++] = i;
        }
        /* A device with no forced op bounds nothing here: skipped, so unused
         * devices cost no pass over the graph each. */
        for (int a = 0; a < p->device_count; a++)
            if (first[a + 1] > first[a])
                bound = fmax(bound, span_through(p, a, by_device, first, from, to, jobs, scratch));
    }
    free(forced), free(from), free(to), free(first), free(by_device), free(jobs), free(scratch);
    return bound;
}
