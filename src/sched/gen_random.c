/* gen_random.c: the random computation graphs of paper 002 section V-B: a
 * DAG of spec->ops ops with in- and out-degree at most max_degree, on
 * spec->devices devices with unlimited memory and a channel between every
 * ordered pair. The same seed gives the same graph.
 *
 * Shape: ops are made in order. The first two or three are the sources;
 * every later op takes 1..max_degree predecessors (uniform), drawn from the
 * WINDOW most recent ops with spare out-degree, so branches fork and join
 * nearby the way layers of a network do. Two rules keep the ends tidy: an
 * op still without a successor half a window after it was made becomes the
 * next op's first predecessor (no branch is left dangling), and the last
 * CLOSING ops join as many open branches as their degree allows, so the
 * graph ends in one or a few sinks. With 200 ops, degree 3 and WINDOW 32
 * the critical path (durations only) is 0.3 to 0.4 of the work over two
 * devices for seeds 1..10, so a 2x speed-up on two devices is possible;
 * smaller windows made the graphs chain-like (0.6 to 0.75 at WINDOW 12).
 *
 * Numbers, all uniform integers: durations 1..10, transfer times 1..3,
 * weights (parameter memory, held from the start) 1..4; adjustments 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sched/sched_internal.h"

enum { WINDOW = 32, CLOSING = 6 };

static pp_status check_spec(const pp_random_spec *spec, pp_error *err)
{
    if (!spec)
        return pp_error_set(err, PP_EARG, "random graph: no spec given");
    if (spec->ops < 1 || spec->ops > 10000000)
        return pp_error_set(err, PP_EARG, "random graph: ops must be in 1..10^7, not %d", spec->ops);
    if (spec->max_degree < 1)
        return pp_error_set(err, PP_EARG, "random graph: the degree bound must be >= 1, not %d",
                            spec->max_degree);
    if (spec->devices < 1 || spec->devices > 4096)
        return pp_error_set(err, PP_EARG, "random graph: devices must be in 1..4096, not %d", spec->devices);
    return PP_OK;
}

typedef struct {
    pp_sched_problem *p;
    pp_rng rng;
    int max_degree;
    int *out_degree;
    int *linked_to;    /* per op: the last op it became a predecessor of */
    int oldest_open;   /* no op before it lacks a successor */
} graph;

static void add_link(graph *g, int from, int to)
{
    pp_sched_add_dep(g->p, from, to, 1 + pp_rng_below(&g->rng, 3));
    g->out_degree[from]++;
    g->linked_to[from] = to;
}

/* Draws up to `want` more predecessors of op i from the WINDOW most recent
 * ops with spare out-degree, none twice. */
static void add_recent(graph *g, int i, int want)
{
    int pool[WINDOW], count = 0;
    for (int j = i - WINDOW > 0 ? i - WINDOW : 0; j < i; j++)
        if (g->linked_to[j] != i && g->out_degree[j] < g->max_degree)
            pool[count++] = j;
    for (int k = 0; k < want && count > 0; k++) {
        int pick = (int)pp_rng_below(&g->rng, (uint32_t)count);
        add_link(g, pool[pick], i);
        pool[pick] = pool[--count];
    }
}

/* Predecessors of op i of n: the oldest op without a successor first once
 * it is half a window old, or in the closing ops every open one the degree
 * allows; the rest drawn from the window. */
static void add_preds(graph *g, int i, int n)
{
    int want = 1 + (int)pp_rng_below(&g->rng, (uint32_t)g->max_degree);
    while (g->out_degree[g->oldest_open] > 0)
        g->oldest_open++;
    bool closing = i >= n - CLOSING;
    if (closing)
        want = g->max_degree;
    if (!closing && g->oldest_open > i - WINDOW / 2) {
        add_recent(g, i, want);
        return;
    }
    int open_taken = 1;
    add_link(g, g->oldest_open, i);
    for (int j = g->oldest_open + 1; closing && j < i && open_taken < want; j++)
        if (g->out_degree[j] == 0) {
            add_link(g, j, i);
            open_taken++;
        }
    add_recent(g, i, want - open_taken);
}

static void add_ops(graph *g, int n)
{
    int sources = n < 3 ? 1 : 2 + (int)pp_rng_below(&g->rng, 2);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "op%d", i);
        double duration = 1 + pp_rng_below(&g->rng, 10);
        double weight = 1 + pp_rng_below(&g->rng, 4);
        pp_sched_add_op(g->p, name, "compute", duration, weight, 0);
        if (i >= sources)
            add_preds(g, i, n);
    }
}

pp_status pp_sched_gen_random(const pp_random_spec *spec, pp_sched_problem **out, pp_error *err)
{
    *out = NULL;
    pp_status st = check_spec(spec, err);
    if (st != PP_OK)
        return st;
    graph g = {.p = pp_sched_problem_new(), .max_degree = spec->max_degree};
    g.out_degree = calloc((size_t)spec->ops, sizeof(int));
    g.linked_to = malloc((size_t)spec->ops * sizeof(int));
    if (!g.p || !g.out_degree || !g.linked_to) {
        pp_sched_problem_free(g.p);
        free(g.out_degree);
        free(g.linked_to);
        return pp_error_set(err, PP_ENOMEM, "random graph: out of memory");
    }
    pp_rng_seed(&g.rng, spec->seed, 0);
    for (int d = 0; d < spec->devices; d++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", d);
        pp_sched_add_device(g.p, name, INFINITY);
    }
    for (int i = 0; i < spec->ops; i++)
        g.linked_to[i] = -1;
    add_ops(&g, spec->ops);
    free(g.out_degree);
    free(g.linked_to);
    st = pp_sched_problem_finish(g.p, "random graph", err);
    if (st != PP_OK) {
        pp_sched_problem_free(g.p);
        return st;
    }
    *out = g.p;
    return PP_OK;
}
