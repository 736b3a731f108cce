/* span.c: re-times a valid schedule to shorten its longest per-device span
 * (each device from its first op's start to its last op's end), keeping
 * every op on its device and every device's and channel's order. With the
 * orders fixed the times are a system of difference constraints (a start no
 * earlier than a predecessor's start plus a length), and a span limit S is
 * one more constraint per device: its first op starts no earlier than its
 * last op ends minus S. The least start times satisfying them are longest
 * paths from time 0; S is feasible when those paths are finite, found by
 * bisection. Memory stays valid: a device's levels change in the same order.
 *
 * Nodes are the ops and the transfers of crossing dependencies. Without the
 * span edges the graph is acyclic (the schedule itself orders it), so passes
 * in a topological order settle in one pass per span edge on a path plus
 * one; a pass count beyond that means a positive cycle: S is too small. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/solver.h"

typedef struct {
    int from, to;
    double length;  /* to.start >= from.start + length */
} edge;

typedef struct {
    int nodes, edge_count, span_from;  /* edges[span_from..] are the span edges */
    edge *edges;
    int *order;         /* nodes by the schedule's start, then end: topological */
    double *length;     /* per node: its duration or comm time */
    double *at;         /* per node: the schedule's start */
    double *start;      /* per node: the current solution */
    int *first, *last;  /* per device: its first and last op, -1 for none */
} span_graph;

typedef struct {
    double at, end;
    int node;
} keyed;

static int by_time(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* g->order: the nodes by the schedule's start, then end, then number. */
static bool sort_nodes(span_graph *g)
{
    keyed *items = malloc(((size_t)g->nodes + 1) * sizeof *items);
    if (!items)
        return false;
    for (int v = 0; v < g->nodes; v++)
        items[v] = (keyed){g->at[v], g->at[v] + g->length[v], v};
    qsort(items, (size_t)g->nodes, sizeof *items, by_time);
    for (int k = 0; k < g->nodes; k++)
        g->order[k] = items[k].node;
    free(items);
    return true;
}

/* The order edges sorted by their source's place in g->order (a counting
 * sort), so each pass of settle sweeps forward in time. */
static bool sort_edges(span_graph *g)
{
    size_t N = (size_t)g->nodes + 1;
    int *rank = malloc(N * sizeof(int)), *count = calloc(N + 1, sizeof(int));
    edge *sorted = malloc(((size_t)g->span_from + 1) * sizeof(edge));
    bool ok = rank && count && sorted;
    if (ok) {
        for (int k = 0; k < g->nodes; k++)
            rank[g->order[k]] = k;
        for (int k = 0; k < g->span_from; k++)
            count[rank[g->edges[k].from] + 1]++;
        for (int k = 0; k < g->nodes; k++)
            count[k + 1] += count[k];
        for (int k = 0; k < g->span_from; k++)
            sorted[count[rank[g->edges[k].from]]++] = g->edges[k];
        memcpy(g->edges, sorted, (size_t)g->span_from * sizeof(edge));
    }
    free(rank), free(count), free(sorted);
    return ok;
}

static void add(span_graph *g, int from, int to, double length)
{
    g->edges[g->edge_count++] = (edge){from, to, length};
}

/* Consecutive nodes of one device or channel, given as nodes sorted by time
 * with a group key each: an order edge between neighbours of a group. */
static bool chain(span_graph *g, const int *sorted, const int *group, int groups)
{
    int *previous = malloc(((size_t)groups + 1) * sizeof(int));
    if (!previous)
        return false;
    for (int k = 0; k < groups; k++)
        previous[k] = -1;
    for (int k = 0; k < g->nodes; k++) {
        int v = sorted[k], c = group[v];
        if (c < 0)
            continue;
        if (previous[c] >= 0)
            add(g, previous[c], v, g->length[previous[c]]);
        previous[c] = v;
    }
    free(previous);
    return true;
}

/* Node of op i is i; node of dependency e's transfer is op_count + e when
 * it crosses devices, else none. */
static bool build(span_graph *g, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    int n = p->op_count, m = p->dep_count, D = p->device_count;
    g->nodes = n + m;
    size_t N = (size_t)g->nodes + 1;
    g->edges = malloc((3 * N + (size_t)m + (size_t)D + 1) * sizeof(edge));
    g->order = malloc(N * sizeof(int));
    g->length = malloc(N * sizeof(double));
    g->at = malloc(N * sizeof(double));
    g->start = malloc(N * sizeof(double));
    g->first = malloc(((size_t)D + 1) * sizeof(int));
    g->last = malloc(((size_t)D + 1) * sizeof(int));
    int *group = malloc(N * sizeof(int));
    if (!g->edges || !g->order || !g->length || !g->at || !g->start || !g->first || !g->last || !group) {
        free(group);
        return false;
    }
    for (int i = 0; i < n; i++)
        g->length[i] = p->duration[i], g->at[i] = s->start[i], group[i] = s->device[i];
    for (int e = 0; e < m; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        bool crossing = s->device[u] != s->device[v];
        g->length[n + e] = p->dep_comm[e];
        g->at[n + e] = crossing ? s->transfer_start[e] : -INFINITY;
        group[n + e] = crossing ? D + s->device[u] * D + s->device[v] : -1;
        if (crossing) {
            add(g, u, n + e, p->duration[u]);
            add(g, n + e, v, p->dep_comm[e]);
        } else {
            add(g, u, v, p->duration[u]);
        }
    }
    int *channel_group = malloc(N * sizeof(int));
    if (!channel_group || !sort_nodes(g)) {
        free(group), free(channel_group);
        return false;
    }
    /* Devices and channels chained in one pass each over the sorted nodes. */
    for (int k = 0; k < g->nodes; k++)
        channel_group[k] = group[k] >= D ? group[k] - D : -1, group[k] = group[k] < D ? group[k] : -1;
    bool chained = chain(g, g->order, group, D) && chain(g, g->order, channel_group, D * D);
    for (int d = 0; d < D; d++)
        g->first[d] = g->last[d] = -1;
    for (int k = 0; k < g->nodes; k++) {
        int v = g->order[k];
        if (v < n) {
            if (g->first[s->device[v]] < 0)
                g->first[s->device[v]] = v;
            g->last[s->device[v]] = v;
        }
    }
    g->span_from = g->edge_count;
    free(group), free(channel_group);
    return chained && sort_edges(g);
}

/* Longest paths from 0 under the span limit; false when they do not settle
 * (a positive cycle: no schedule with these orders has spans <= limit). */
static bool settle(span_graph *g, int devices, double limit)
{
    g->edge_count = g->span_from;
    for (int d = 0; d < devices; d++)
        if (g->first[d] >= 0 && g->first[d] != g->last[d])
            add(g, g->last[d], g->first[d], g->length[g->last[d]] - limit);
    for (int v = 0; v < g->nodes; v++)
        g->start[v] = 0;
    for (int pass = 0; pass <= devices + 1; pass++) {
        bool changed = false;
        for (int k = 0; k < g->edge_count; k++) {
            const edge *e = &g->edges[k];
            if (g->start[e->from] + e->length > g->start[e->to] * (1 + 1e-15) + 1e-12) {
                g->start[e->to] = g->start[e->from] + e->length;
                changed = true;
            }
        }
        if (!changed)
            return true;
    }
    return false;
}

static void export(const span_graph *g, const pp_sched_problem *p, pp_sched_schedule *s)
{
    int n = p->op_count;
    for (int i = 0; i < n; i++)
        s->start[i] = g->start[i], s->end[i] = g->start[i] + p->duration[i];
    for (int e = 0; e < p->dep_count; e++)
        if (s->device[p->dep_from[e]] != s->device[p->dep_to[e]])
            s->transfer_start[e] = g->start[n + e], s->transfer_end[e] = g->start[n + e] + p->dep_comm[e];
    s->stated_makespan = NAN;
}

static double longest_span(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    pp_sched_report r;
    pp_error err = {0};
    pp_sched_check(p, s, &r, &err);
    double span = r.max_span;
    pp_sched_report_free(&r);
    return span;
}

pp_status sched_compact_spans(const pp_sched_problem *p, pp_sched_schedule *s, pp_error *err)
{
    span_graph g = {0};
    pp_status st = PP_OK;
    if (!build(&g, p, s)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    } else {
        double low = pp_sched_span_lower_bound(p), high = longest_span(p, s);
        /* The bound first: when the orders allow it, exactly rather than within the bisection's slack. */
        if (settle(&g, p->device_count, low))
            high = low;
        for (int step = 0; step < 40 && high - low > 1e-9 * fmax(1, high); step++) {
            double mid = 0.5 * (low + high);
            if (settle(&g, p->device_count, mid))
                high = mid;
            else
                low = mid;
        }
        if (settle(&g, p->device_count, high))
            export(&g, p, s);
    }
    free(g.edges), free(g.order), free(g.length), free(g.at), free(g.start), free(g.first), free(g.last);
    return st;
}
