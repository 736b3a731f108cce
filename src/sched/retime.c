/* retime.c: the difference-constraint re-timing of a schedule whose orders
 * are fixed (retime.h), shared by the span's compaction and the cyclic
 * fold. The nodes are ranked by the times the orders come from, and settle
 * raises times in sweeps over that rank, each sweep visiting in increasing
 * rank only the nodes whose time rose: a node raised by one ranked before
 * it is settled in the same sweep, one raised by a node ranked no earlier
 * waits for the next. A simple longest path crosses each backward edge at
 * most once, so with no positive cycle every time is final after sweep
 * `backward` and nothing rises after it; a node due in a later sweep
 * proves a positive cycle, and T is refused. The dependency edges and the orders without wrap point
 * forward in time, so the span's system settles in one sweep per span
 * limit on a path plus one (Bellman-Ford in topological order). A budget
 * of relaxations (at least 64 per edge, or one per device and two more, the
 * span's worst case) also refuses systems too slow to tell. */
#include <stdlib.h>
#include <string.h>
#include "sched/retime.h"

struct sc_retime_key {
    int group;
    double at, length;
    int node;
};

static int by_group_then_time(const void *a, const void *b)
{
    const struct sc_retime_key *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

bool sc_retimer_init(sc_retimer *r, const pp_sched_problem *p, const pp_sched_schedule *s, int extra)
{
    int n = p->op_count, m = p->dep_count, D = p->device_count;
    memset(r, 0, sizeof *r);
    r->arena = pp_arena_new(0);
    if (!r->arena)
        return false;
    r->devices = D;
    r->nodes = n + m;
    r->groups = D + D * D;
    /* Two edges a crossing dependency, one per grouped node at most for the orders. */
    r->edge_room = 2 * m + r->nodes + extra;
    size_t N = (size_t)r->nodes + 1, G = (size_t)r->groups + 1, E = (size_t)r->edge_room + 1;
    pp_arena *a = r->arena;
    r->edges = pp_arena_alloc(a, E * sizeof *r->edges);
    r->length = pp_arena_alloc(a, N * sizeof(double));
    r->group = pp_arena_alloc(a, N * sizeof(int));
    r->x = pp_arena_alloc(a, N * sizeof(double));
    r->trial = pp_arena_alloc(a, N * sizeof(double));
    r->first = pp_arena_alloc(a, G * sizeof(int));
    r->last = pp_arena_alloc(a, G * sizeof(int));
    r->rank = pp_arena_alloc(a, N * sizeof(int));
    r->by_rank = pp_arena_alloc(a, N * sizeof(int));
    r->out_start = pp_arena_alloc(a, (N + 1) * sizeof(int));
    r->out = pp_arena_alloc(a, E * sizeof *r->out);
    r->time = pp_arena_alloc(a, N * sizeof(double));
    r->due = pp_arena_alloc(a, N * sizeof(int));
    r->keys = pp_arena_alloc(a, N * sizeof *r->keys);
    if (!r->edges || !r->length || !r->group || !r->x || !r->trial || !r->first || !r->last || !r->rank ||
        !r->by_rank || !r->out_start || !r->out || !r->time || !r->due || !r->keys)
        return false;
    for (int i = 0; i < n; i++)
        r->length[i] = p->duration[i], r->x[i] = s->start[i], r->group[i] = s->device[i];
    for (int e = 0; e < m; e++) {
        int u = p->dep_from[e], v = p->dep_to[e], da = s->device[u], db = s->device[v];
        r->length[n + e] = p->dep_comm[e];
        r->x[n + e] = da != db ? s->transfer_start[e] : 0;
        r->group[n + e] = da != db ? D + da * D + db : -1;
        if (da != db) {
            sc_retime_add(r, u, n + e, p->duration[u], 0);
            sc_retime_add(r, n + e, v, p->dep_comm[e], 0);
        } else {
            sc_retime_add(r, u, v, p->duration[u], 0);
        }
    }
    r->dep_edges = r->edge_count;
    return true;
}

void sc_retimer_free(sc_retimer *r)
{
    pp_arena_free(r->arena);
    memset(r, 0, sizeof *r);
}

void sc_retime_add(sc_retimer *r, int from, int to, double length, int periods)
{
    r->edges[r->edge_count++] = (sc_retime_edge){from, to, length, periods};
    r->indexed = false;
}

/* r->rank: the nodes by x, then length, then number; a valid schedule's
 * dependencies point forward in it. */
static void rank_nodes(sc_retimer *r)
{
    for (int v = 0; v < r->nodes; v++)
        r->keys[v] = (struct sc_retime_key){0, r->x[v], r->length[v], v};
    qsort(r->keys, (size_t)r->nodes, sizeof *r->keys, by_group_then_time);
    for (int k = 0; k < r->nodes; k++)
        r->by_rank[k] = r->keys[k].node, r->rank[r->keys[k].node] = k;
}

void sc_retime_order(sc_retimer *r, double T)
{
    rank_nodes(r);
    bool folded = isfinite(T);
    int k = 0;
    for (int v = 0; v < r->nodes; v++)
        if (r->group[v] >= 0)
            r->keys[k++] = (struct sc_retime_key){r->group[v], folded ? sc_phase(r->x[v], T) : r->x[v],
                                                     r->length[v], v};
    qsort(r->keys, (size_t)k, sizeof *r->keys, by_group_then_time);
    for (int g = 0; g < r->groups; g++)
        r->first[g] = r->last[g] = -1;
    r->edge_count = r->dep_edges;
    for (int g = 0; g < k;) {
        int h = g;
        while (h < k && r->keys[h].group == r->keys[g].group)
            h++;
        r->first[r->keys[g].group] = r->keys[g].node, r->last[r->keys[g].group] = r->keys[h - 1].node;
        for (int j = g; j + 1 < h || (folded && j < h && h - g > 1); j++) {
            bool wrap = j + 1 == h;
            int a = r->keys[j].node, b = r->keys[wrap ? g : j + 1].node;
            int periods = folded ? (int)floor(r->x[b] / T) - (int)floor(r->x[a] / T) - wrap : 0;
            sc_retime_add(r, a, b, r->length[a], periods);
        }
        g = h;
    }
}

/* The edges by their source's rank (CSR, targets as ranks, so that a
 * sweep reads both in memory order), and how many point backward. */
static void index_edges(sc_retimer *r)
{
    int N = r->nodes;
    for (int k = 0; k <= N; k++)
        r->out_start[k] = 0;
    r->backward = 0;
    for (int e = 0; e < r->edge_count; e++) {
        int from = r->rank[r->edges[e].from], to = r->rank[r->edges[e].to];
        r->out_start[from + 1]++;
        r->backward += to <= from;
    }
    for (int k = 0; k < N; k++)
        r->out_start[k + 1] += r->out_start[k];
    for (int e = 0; e < r->edge_count; e++) {
        sc_retime_edge x = r->edges[e];
        x.from = r->rank[x.from], x.to = r->rank[x.to];
        r->out[r->out_start[x.from]++] = x;
    }
    for (int k = N; k > 0; k--)
        r->out_start[k] = r->out_start[k - 1];
    r->out_start[0] = 0;
    r->indexed = true;
}

/* One sweep of settle over times by rank: the queued ranks from *low up to
 * *high (which grows as later ones rise) that are due in it; a rank raised
 * by one no earlier is queued for the next sweep, within
 * next_low..next_high. false when the budget runs out. */
static bool sweep(sc_retimer *r, double T, int due, int *low, int *high, int *next_low, int *next_high,
                  long *budget)
{
    double *time = r->time;
    for (int k = *low; k <= *high; k++) {
        if (r->due[k] != due)
            continue;
        r->due[k] = 0;
        for (int j = r->out_start[k]; j < r->out_start[k + 1]; j++) {
            const sc_retime_edge *e = &r->out[j];
            double at = time[k] + e->length + e->periods * T;
            int t = e->to;
            if (at <= time[t] * (1 + 1e-15) + 1e-12)
                continue;
            if (--*budget < 0)
                return false;
            time[t] = at;
            if (r->due[t])
                continue;
            if (t > k) {
                r->due[t] = due, *high = t > *high ? t : *high;
            } else {
                r->due[t] = due + 1;
                *next_low = t < *next_low ? t : *next_low, *next_high = t > *next_high ? t : *next_high;
            }
        }
    }
    return true;
}

bool sc_retime_settle(sc_retimer *r, double T)
{
    if (!r->indexed)
        index_edges(r);
    int N = r->nodes;
    for (int k = 0; k < N; k++)
        r->time[k] = 0, r->due[k] = 1;
    long budget = (long)(r->devices + 2 > 64 ? r->devices + 2 : 64) * r->edge_count + N;
    int low = 0, high = N - 1;
    for (int due = 1; low <= high; due++) {
        if (due > r->backward + 1)
            return false;
        int next_low = N, next_high = -1;
        if (!sweep(r, T, due, &low, &high, &next_low, &next_high, &budget))
            return false;
        low = next_low, high = next_high;
    }
    for (int k = 0; k < N; k++)
        r->trial[r->by_rank[k]] = r->time[k];
    return true;
}

void sc_retime_export(const sc_retimer *r, const pp_sched_problem *p, pp_sched_schedule *s)
{
    int n = p->op_count;
    for (int i = 0; i < n; i++)
        s->start[i] = r->trial[i], s->end[i] = r->trial[i] + p->duration[i];
    for (int e = 0; e < p->dep_count; e++)
        if (r->group[n + e] >= 0)
            s->transfer_start[e] = r->trial[n + e], s->transfer_end[e] = r->trial[n + e] + p->dep_comm[e];
    s->stated_makespan = NAN;
}
