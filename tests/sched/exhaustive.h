/* exhaustive.h: the tests' exact makespan of a small problem whose every op
 * is forced onto one device, by trying every device order. A schedule that
 * times each op as early as its device order allows (semi-active) is fixed
 * by the orders, and some semi-active schedule is optimal; so the least
 * makespan over all order combinations is the optimum. Orders are listed
 * per device (every linear extension of the graph's order on that device
 * whose memory level, which on one device changes in order, stays within
 * capacity), and combined device by device, a partial combination pruned
 * when the graph timed with only the chosen devices' orders (the others
 * free: a relaxation) cannot beat the best. Transfers are timed as delays:
 * channel contention is relaxed too, so the answer is a lower bound, and
 * the optimum itself when its schedule passes the checker (the caller
 * checks). Independent of src/sched's search: it shares only the problem.
 *
 * Two symmetries cut the orders listed, each keeping an optimal one:
 *  - leaves of one device alike in duration, weight and memory, each after
 *    a single op there (a pipeline's W's): swapping two of them keeps every
 *    time and level, so they run in the order of those ops;
 *  - when the caller says the graph's sources are interchangeable (a
 *    pipeline's micro-batches: relabelling them maps schedules onto
 *    schedules), alike sources of one device run in index order. */
#ifndef PP_TESTS_SCHED_EXHAUSTIVE_H
#define PP_TESTS_SCHED_EXHAUSTIVE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/sched.h"

typedef struct {
    const pp_sched_problem *p;
    int D, n;
    int *dev;             /* per op */
    unsigned char *reach; /* n x n: u reaches v in the graph */
    int **orders;         /* per device: count[d] orders of size[d] ops each */
    int *count, *size, *cap_orders;
    int **choice;         /* per device: the order chosen, or NULL */
    int *chosen;          /* per device: how many of the chosen order's first ops are chained */
    int **group_end;      /* per device: exh_groups */
    long tried, skipped;  /* prefixes timed, orders skipped by them */
    double *start, *end;
    int *topo, *next_on, *prev_on, *succ_on;
    double best;
    int *best_prev;       /* per op: its device predecessor in the best combination */
    long combinations;
    int *pos;             /* per op: its place in the order being listed, -1 before */
    bool sources_alike;
} exh;

static int exh_device(const pp_sched_problem *p, int op)
{
    return p->allowed_device[p->allowed_start[op]];
}

static void exh_push(exh *x, int d, const int *order)
{
    if (x->count[d] == x->cap_orders[d]) {
        x->cap_orders[d] = x->cap_orders[d] ? 2 * x->cap_orders[d] : 64;
        x->orders[d] = realloc(x->orders[d], (size_t)x->cap_orders[d] * x->size[d] * sizeof(int));
    }
    memcpy(x->orders[d] + (size_t)x->count[d]++ * x->size[d], order, (size_t)x->size[d] * sizeof(int));
}

static bool exh_alike(const pp_sched_problem *p, int u, int v)
{
    return p->duration[u] == p->duration[v] && p->weight[u] == p->weight[v] && p->adjust[u] == p->adjust[v];
}

/* The single input of leaf v, on v's device; -1 when v is no such leaf. */
static int exh_leaf_input(const exh *x, int v)
{
    const pp_sched_problem *p = x->p;
    if (p->succ_start[v] != p->succ_start[v + 1] || p->pred_start[v + 1] - p->pred_start[v] != 1)
        return -1;
    int u = p->dep_from[p->pred_dep[p->pred_start[v]]];
    return x->dev[u] == x->dev[v] ? u : -1;
}

/* Whether placing v now keeps the symmetries' orders among its twins. */
static bool exh_in_turn(const exh *x, int d, const int *ops, const unsigned char *used, int v)
{
    const pp_sched_problem *p = x->p;
    int in = exh_leaf_input(x, v);
    bool source = x->sources_alike && p->pred_start[v] == p->pred_start[v + 1];
    if (in < 0 && !source)
        return true;
    for (int b = 0; b < x->size[d]; b++) {
        int u = ops[b];
        if (used[b] || u == v || !exh_alike(p, u, v))
            continue;
        if (source && p->pred_start[u] == p->pred_start[u + 1] && u < v)
            return false;
        int iu = in >= 0 ? exh_leaf_input(x, u) : -1;
        if (iu >= 0 && x->pos[iu] >= 0 && x->pos[iu] < x->pos[in])
            return false;
    }
    return true;
}

/* Every order of device d's ops from position k on, `ops` its ops, `used` marks. */
static void exh_list(exh *x, int d, const int *ops, int *order, unsigned char *used, int k, double level)
{
    const pp_sched_problem *p = x->p;
    if (k == x->size[d]) {
        exh_push(x, d, order);
        return;
    }
    double cap = p->capacity[d] + 1e-9 * fmax(1, fabs(p->capacity[d]));
    for (int a = 0; a < x->size[d]; a++) {
        int v = ops[a];
        if (used[a] || level + p->adjust[v] > cap)
            continue;
        bool ready = true;
        for (int b = 0; b < x->size[d] && ready; b++)
            ready = used[b] || b == a || !x->reach[(size_t)ops[b] * x->n + v];
        if (!ready || !exh_in_turn(x, d, ops, used, v))
            continue;
        used[a] = 1;
        order[k] = v;
        x->pos[v] = k;
        exh_list(x, d, ops, order, used, k + 1, level + p->adjust[v]);
        x->pos[v] = -1;
        used[a] = 0;
    }
}

static double exh_max(double a, double b)
{
    return a > b ? a : b;
}

/* The graph timed with the chosen devices' orders as chains (of each, its
 * first `chosen` ops); the makespan, or INFINITY when the orders make a
 * cycle. Chaining more ops only adds edges, so the makespan never falls. */
static double exh_time(exh *x)
{
    const pp_sched_problem *p = x->p;
    int n = x->n;
    for (int v = 0; v < n; v++)
        x->prev_on[v] = x->succ_on[v] = -1;
    for (int d = 0; d < x->D; d++)
        if (x->choice[d])
            for (int k = 1; k < x->chosen[d]; k++)
                x->prev_on[x->choice[d][k]] = x->choice[d][k - 1], x->succ_on[x->choice[d][k - 1]] = x->choice[d][k];
    /* Kahn's order over deps plus chain edges. */
    int *indeg = x->next_on, head = 0, tail = 0;
    for (int v = 0; v < n; v++) {
        indeg[v] = p->pred_start[v + 1] - p->pred_start[v] + (x->prev_on[v] >= 0);
        if (indeg[v] == 0)
            x->topo[tail++] = v;
    }
    double makespan = 0;
    while (head < tail) {
        int v = x->topo[head++];
        double s = x->prev_on[v] >= 0 ? x->end[x->prev_on[v]] : 0;
        for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
            int e = p->pred_dep[k], u = p->dep_from[e];
            s = exh_max(s, x->end[u] + (x->dev[u] != x->dev[v] ? p->dep_comm[e] : 0));
        }
        x->start[v] = s;
        x->end[v] = s + p->duration[v];
        makespan = exh_max(makespan, x->end[v]);
        for (int k = p->succ_start[v]; k < p->succ_start[v + 1]; k++) {
            int w = p->dep_to[p->succ_dep[k]];
            if (--indeg[w] == 0)
                x->topo[tail++] = w;
        }
        if (x->succ_on[v] >= 0 && --indeg[x->succ_on[v]] == 0)
            x->topo[tail++] = x->succ_on[v];
    }
    return tail == n ? makespan : INFINITY;
}

/* Whether device d's order k, chaining its first `len` ops, cannot beat the best. */
static bool exh_cut(exh *x, int d, int k, int len)
{
    x->choice[d] = x->orders[d] + (size_t)k * x->size[d];
    x->chosen[d] = len;
    return !(exh_time(x) < x->best - 1e-9);
}

/* Per device, per order k and prefix length L: the first order after k
 * that does not begin with k's first L ops (the orders are listed depth
 * first, so those that do follow k). */
static void exh_groups(exh *x, int d)
{
    int m = x->size[d], count = x->count[d];
    x->group_end[d] = malloc(((size_t)count * m + 1) * sizeof(int));
    for (int k = count - 1; k >= 0; k--) {
        const int *u = x->orders[d] + (size_t)k * m, *v = u + m;
        int common = 0;
        while (k + 1 < count && common < m && u[common] == v[common])
            common++;
        for (int len = 0; len < m; len++)
            x->group_end[d][(size_t)k * m + len] = len <= common && k + 1 < count
                                                       ? x->group_end[d][(size_t)(k + 1) * m + len] : k + 1;
    }
}

static void exh_search(exh *x, int d)
{
    if (d == x->D) {
        double m = exh_time(x);
        x->combinations++;
        if (m < x->best) {
            x->best = m;
            memcpy(x->best_prev, x->prev_on, (size_t)x->n * sizeof(int));
        }
        return;
    }
    if (x->size[d] == 0) {
        exh_search(x, d + 1);
        return;
    }
    /* Every order that begins with a prefix that is cut (chained alone) is
     * cut: the makespan only grows with the chain. So the prefixes that
     * several orders share are timed first, the shortest first, and when
     * one is cut those orders are skipped; while the prefixes timed are no
     * more than twice the orders they skipped, plus 64 (test_pipe_optimum's
     * P = 2, M = 4 at 2P: 1.8 million timings, 59 million before; random
     * copies' prefixes are seldom cut). The answer, and the combinations
     * reached, are the same. */
    int m = x->size[d];
    for (int k = 0; k < x->count[d]; k++) {
        const int *end = x->group_end[d] + (size_t)k * m, *before = end - m;
        int skip_to = -1;
        for (int len = 1; len < m && end[len] - k >= 2 && skip_to < 0 && x->tried < 2 * x->skipped + 64; len++)
            if ((k == 0 || before[len] == k) && (x->tried++, exh_cut(x, d, k, len)))
                skip_to = end[len];
        if (skip_to >= 0)
            x->skipped += skip_to - k, k = skip_to - 1;
        else if (!exh_cut(x, d, k, m))
            exh_search(x, d + 1);
    }
    x->choice[d] = NULL;
}

/* The optimum (INFINITY: no order fits memory); the best schedule's times
 * into s (pp_sched_schedule_new(p)), transfers right after their source. */
static double exhaustive_makespan(const pp_sched_problem *p, bool sources_alike, pp_sched_schedule *s,
                                  long *combinations)
{
    exh x = {.p = p, .D = p->device_count, .n = p->op_count, .best = INFINITY, .sources_alike = sources_alike};
    int n = x.n, D = x.D;
    x.dev = malloc((size_t)n * sizeof(int));
    x.reach = calloc((size_t)n * n, 1);
    x.orders = calloc((size_t)D, sizeof(int *));
    x.count = calloc((size_t)D, sizeof(int));
    x.size = calloc((size_t)D, sizeof(int));
    x.cap_orders = calloc((size_t)D, sizeof(int));
    x.choice = calloc((size_t)D, sizeof(int *));
    x.chosen = calloc((size_t)D, sizeof(int));
    x.group_end = calloc((size_t)D, sizeof(int *));
    x.start = malloc((size_t)n * sizeof(double));
    x.end = malloc((size_t)n * sizeof(double));
    x.topo = malloc((size_t)n * sizeof(int));
    x.next_on = malloc((size_t)n * sizeof(int));
    x.prev_on = malloc((size_t)n * sizeof(int));
    x.succ_on = malloc((size_t)n * sizeof(int));
    x.best_prev = malloc((size_t)n * sizeof(int));
    x.pos = malloc((size_t)n * sizeof(int));
    for (int v = 0; v < n; v++)
        x.pos[v] = -1;
    for (int v = 0; v < n; v++)
        x.dev[v] = exh_device(p, v), x.size[x.dev[v]]++;
    for (int k = n - 1; k >= 0; k--) {
        int u = p->topo_order[k];
        for (int j = p->succ_start[u]; j < p->succ_start[u + 1]; j++) {
            int w = p->dep_to[p->succ_dep[j]];
            x.reach[(size_t)u * n + w] = 1;
            for (int z = 0; z < n; z++)
                x.reach[(size_t)u * n + z] |= x.reach[(size_t)w * n + z];
        }
    }
    int *ops = malloc((size_t)n * sizeof(int)), *order = malloc((size_t)n * sizeof(int));
    unsigned char *used = calloc((size_t)n, 1);
    for (int d = 0; d < D; d++) {
        int m = 0;
        double base = 0;
        for (int v = 0; v < n; v++)
            if (x.dev[v] == d)
                ops[m++] = v, base += p->weight[v];
        exh_list(&x, d, ops, order, used, 0, base);
        exh_groups(&x, d);
    }
    exh_search(&x, 0);
    if (isfinite(x.best)) {
        /* Re-time the best combination and write it out. */
        for (int d = 0; d < D; d++)
            x.choice[d] = NULL;
        memcpy(x.prev_on, x.best_prev, (size_t)n * sizeof(int));
        int *first = malloc((size_t)D * sizeof(int));
        for (int d = 0; d < D; d++)
            first[d] = -1;
        for (int v = 0; v < n; v++)
            if (x.best_prev[v] < 0)
                first[x.dev[v]] = v;
        int *next = malloc((size_t)n * sizeof(int));
        for (int v = 0; v < n; v++)
            next[v] = -1;
        for (int v = 0; v < n; v++)
            if (x.best_prev[v] >= 0)
                next[x.best_prev[v]] = v;
        for (int d = 0; d < D; d++) {
            x.choice[d] = malloc((size_t)(x.size[d] + 1) * sizeof(int));
            int k = 0;
            for (int v = first[d]; v >= 0; v = next[v])
                x.choice[d][k++] = v;
            x.chosen[d] = k;
        }
        exh_time(&x);
        for (int v = 0; v < n; v++) {
            s->device[v] = x.dev[v];
            s->start[v] = x.start[v];
            s->end[v] = x.end[v];
        }
        for (int e = 0; e < p->dep_count; e++) {
            int u = p->dep_from[e], v = p->dep_to[e];
            s->transfer_start[e] = x.dev[u] == x.dev[v] ? NAN : x.end[u];
            s->transfer_end[e] = x.dev[u] == x.dev[v] ? NAN : x.end[u] + p->dep_comm[e];
        }
        for (int d = 0; d < D; d++)
            free(x.choice[d]);
        free(first);
        free(next);
    }
    if (combinations)
        *combinations = x.combinations;
    for (int d = 0; d < D; d++)
        free(x.orders[d]), free(x.group_end[d]);
    free(x.dev), free(x.reach), free(x.orders), free(x.count), free(x.size), free(x.cap_orders), free(x.choice);
    free(x.chosen), free(x.succ_on), free(x.group_end);
    free(x.start), free(x.end), free(x.topo), free(x.next_on), free(x.prev_on), free(x.best_prev), free(x.pos);
    free(ops), free(order), free(used);
    return x.best;
}

#endif
