/* network.c: the simulator's flow-level network: resources from the
 * cluster's links, the link a flow takes (paper 003 section 3.1's
 * multi-edge), max-min fair rates by progressive filling, bandwidth events,
 * and each device's time with a flow of its own in flight.
 *
 * Moving flows that cross the same two resources (so the same links) get
 * one max-min rate: they move as a bundle, and the filling sees bundles,
 * each weighing its flow count. A bundle counts the bytes it has served
 * each of its flows; a flow is done when that count reaches the target it
 * was given when it started moving (the count then plus its bytes), so a
 * rate change touches the bundle, not its flows (a data-parallel ring at
 * 16,384 GPUs is ~290,000 flows in ~2,000 bundles: a node's NIC pool to
 * the next node's).
 *
 * Max-min rates of bundles that share no resource, even through others, do
 * not depend on each other, so a flow that starts or ends changes only the
 * rates of its connected component (bundles linked by shared ports and NIC
 * pools). The filling runs on that component alone, found from the
 * resources the change touched through each resource's list of moving
 * bundles. Flows waiting their latency wait in a heap by when it ends. */
#include "cluster/network.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/moment.h"
#include "core/core_internal.h"

typedef struct {
    double start, ready, end;  /* sent; latency over; finished (INFINITY before) */
    double bytes;              /* to move once the latency is over */
    double target;             /* its bundle's served bytes at which it is done */
    long seq;                  /* send order, the order finished flows are reported in */
    int bundle;
    int out, in;               /* resources */
    int owner, src, dst;
} flow;

/* The flows of one (out, in) pair of resources; members: sent and not
 * finished (its heap has room for them all), moving: in the heap. */
typedef struct {
    int out, in;
    int link_out, link_in;     /* links whose bandwidth caps a flow (inter-node) */
    bool inter, mark;
    int members;
    int *heap, moving, heap_cap; /* the moving flows, least target first */
    double rate;               /* each moving flow's */
    double served, rated;      /* bytes served each flow, as of rated */
    double finish;             /* when its first flow ends at this rate */
    int next_out, prev_out, next_in, prev_in; /* the moving bundles of out and of in */
    int visit;                 /* the recomputation that last put it in a component */
    int active_at;             /* its place in the active list, -1 when not moving */
} bundle;

/* A finished flow's send order and index, to report them in send order. */
typedef struct {
    long seq;
    int flow;
} finished_flow;

struct cluster_net {
    const pp_cluster *c;
    double start_time, now;
    double next;               /* the next change, while the rates are fresh */
    double next_seen;          /* settle's view of it, before the rates change */
    int next_event;            /* first event of c not applied yet */
    double *bw;                /* [link] now */
    int *res_base;             /* [link] first resource */
    int res_count;
    int *res_link;             /* [resource] */
    int *res_users;            /* [resource] flows in flight on it */
    double *res_cap;           /* [resource] its bandwidth now */
    double *res_left;          /* scratch of the filling */
    int *res_unfrozen;         /* flows (not bundles) not frozen yet */
    int *res_head;             /* [resource] its first moving bundle, -1 none */
    /* Resources whose bundles changed since the rates were set, listed once
     * each; the component search's visits (epoch) and queue. all_dirty:
     * every rate is stale (the start, a bandwidth event). */
    int *res_dirty, *dirty_list, dirty_count;
    int *res_visit, *res_queue;
    int epoch;
    bool all_dirty;
    int *node_start;           /* [node + 1] into node_links */
    int *node_links;           /* the links of each node, in link order */
    int class_count;           /* distinct inter-node class names */
    int *link_class;           /* [link] its inter-node class, -1 inside a node */
    int *node_class;           /* [node * class_count + class] the node's link of it, or -1 */
    int version;               /* bandwidth changes so far */
    flow *flows;
    int flow_count, flow_cap;  /* slots used so far, slots there are */
    long sent;                 /* flows sent so far */
    int *free_slots;           /* finished slots to reuse (recycling) */
    int free_count;
    bool recycle;
    int keep;                  /* when recycling: slots below it are not reused */
    pp_arena *arena;           /* the arrays grow in it */
    int *waiting;              /* heap of the flows waiting their latency, earliest first */
    int waiting_count;
    finished_flow *finished;   /* scratch: the flows finishing in one advance */
    int *owners;               /* scratch: their owners, in send order */
    bundle *bundles;
    int bundle_count, bundle_cap;
    int *table, table_cap;     /* (out, in) -> bundle + 1, open addressing */
    int *active;               /* the bundles with moving flows */
    int active_count;
    int *filling;              /* scratch: the unfrozen bundles */
    int *component;            /* scratch: the bundles whose rates are being set */
    double *comm, *since;      /* [device] */
    int *in_flight;            /* [device] */
    bool dirty;                /* rates are stale */
};

/* fmin and fmax without their NaN handling: nothing here is NaN, and these
 * run in the simulator's inner loop. */
static inline double least(double a, double b)
{
    return a < b ? a : b;
}

static inline double most(double a, double b)
{
    return a > b ? a : b;
}

static bool event_touches(const pp_cluster *c, const pp_cluster_event *e, int l)
{
    const pp_cluster_link *k = &c->links[l];
    return e->lost_device < 0 && (e->node < 0 || e->node == k->node) && strcmp(e->link, k->name) == 0;
}

/* Each node's links as a list, so a route looks at its own node's few
 * links rather than the whole cluster's (tens of thousands at 16,384 GPUs). */
static void index_node_links(cluster_net *n, pp_arena *arena)
{
    const pp_cluster *c = n->c;
    n->node_start = pp_arena_calloc(arena, (size_t)c->node_count + 1, sizeof(int));
    n->node_links = pp_arena_calloc(arena, (size_t)c->link_count + 1, sizeof(int));
    int *fill = pp_arena_calloc(arena, (size_t)c->node_count + 1, sizeof(int));
    for (int l = 0; l < c->link_count; l++)
        n->node_start[c->links[l].node + 1]++;
    for (int node = 0; node < c->node_count; node++)
        n->node_start[node + 1] += n->node_start[node];
    for (int l = 0; l < c->link_count; l++) {
        int node = c->links[l].node;
        n->node_links[n->node_start[node] + fill[node]++] = l;
    }
}

/* Inter-node classes by name, and each node's link of each class: the
 * matching link at the far end of a transfer in O(1). */
static void index_classes(cluster_net *n, pp_arena *arena)
{
    const pp_cluster *c = n->c;
    n->link_class = pp_arena_calloc(arena, (size_t)c->link_count + 1, sizeof(int));
    const char **names = pp_arena_calloc(arena, (size_t)c->link_count + 1, sizeof(char *));
    for (int l = 0; l < c->link_count; l++) {
        n->link_class[l] = -1;
        if (!c->links[l].inter_node)
            continue;
        int k = 0;
        while (k < n->class_count && strcmp(names[k], c->links[l].name) != 0)
            k++;
        if (k == n->class_count)
            names[n->class_count++] = c->links[l].name;
        n->link_class[l] = k;
    }
    size_t cells = (size_t)c->node_count * (size_t)n->class_count;
    n->node_class = pp_arena_alloc(arena, (cells + 1) * sizeof(int));
    for (size_t i = 0; i < cells; i++)
        n->node_class[i] = -1;
    for (int l = 0; l < c->link_count; l++)
        if (n->link_class[l] >= 0)
            n->node_class[(size_t)c->links[l].node * (size_t)n->class_count + (size_t)n->link_class[l]] = l;
}

int cluster_net_inter_peer(const cluster_net *n, int l, int node)
{
    int k = n->link_class[l];
    return k < 0 ? -1 : n->node_class[(size_t)node * (size_t)n->class_count + (size_t)k];
}

const int *cluster_net_node_links(const cluster_net *n, int node, int *count)
{
    *count = n->node_start[node + 1] - n->node_start[node];
    return n->node_links + n->node_start[node];
}

int cluster_net_version(const cluster_net *n)
{
    return n->version;
}

static void build_resources(cluster_net *n, pp_arena *arena)
{
    const pp_cluster *c = n->c;
    n->res_base = pp_arena_calloc(arena, (size_t)c->link_count + 1, sizeof(int));
    int r = 0;
    for (int l = 0; l < c->link_count; l++) {
        n->res_base[l] = r;
        r += c->links[l].inter_node ? 2 : 2 * c->nodes[c->links[l].node].device_count;
    }
    n->res_count = r;
    n->res_link = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->res_users = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->res_cap = pp_arena_calloc(arena, (size_t)r + 1, sizeof(double));
    n->res_left = pp_arena_calloc(arena, (size_t)r + 1, sizeof(double));
    n->res_unfrozen = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->res_head = pp_arena_alloc(arena, ((size_t)r + 1) * sizeof(int));
    n->res_dirty = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->dirty_list = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->res_visit = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    n->res_queue = pp_arena_calloc(arena, (size_t)r + 1, sizeof(int));
    for (int k = 0; n->res_head && k <= r; k++)
        n->res_head[k] = -1;
    for (int l = 0; l < c->link_count; l++)
        for (int k = n->res_base[l]; k < (l + 1 < c->link_count ? n->res_base[l + 1] : r); k++)
            n->res_link[k] = l;
    index_node_links(n, arena);
    index_classes(n, arena);
}

/* A node's pool carries all its NICs; a device's port one link. */
static void set_capacities(cluster_net *n)
{
    for (int r = 0; r < n->res_count; r++) {
        const pp_cluster_link *l = &n->c->links[n->res_link[r]];
        n->res_cap[r] = l->inter_node ? l->ports * n->bw[n->res_link[r]] : n->bw[n->res_link[r]];
    }
}

/* Room for cap flow slots: the flows and the lists of their indices, the
 * old contents copied (the old arrays stay in the arena until it goes). */
static bool grow_flows(cluster_net *n, int cap)
{
    flow *flows = pp_arena_calloc(n->arena, (size_t)cap + 1, sizeof(flow));
    int *lists = pp_arena_calloc(n->arena, 3 * ((size_t)cap + 1), sizeof(int));
    finished_flow *finished = pp_arena_calloc(n->arena, (size_t)cap + 1, sizeof(finished_flow));
    if (!flows || !lists || !finished)
        return false;
    int *waiting = lists, *free_slots = lists + cap + 1;
    if (n->flow_cap > 0) {
        memcpy(flows, n->flows, (size_t)n->flow_count * sizeof(flow));
        memcpy(waiting, n->waiting, (size_t)n->waiting_count * sizeof(int));
        memcpy(free_slots, n->free_slots, (size_t)n->free_count * sizeof(int));
    }
    n->flows = flows;
    n->waiting = waiting;
    n->free_slots = free_slots;
    n->owners = lists + 2 * (cap + 1);
    n->finished = finished;
    n->flow_cap = cap;
    return true;
}

/* (out, in)'s slot in the bundle table: the pair's 64 bits multiplied by
 * an odd constant, whose high bits mix every bit of both. */
static unsigned bundle_hash(const cluster_net *n, int out, int in)
{
    uint64_t key = ((uint64_t)(unsigned)out << 32 | (unsigned)in) * 0x9E3779B97F4A7C15u;
    return (unsigned)(key >> 32) % (unsigned)n->table_cap;
}

/* Room for cap bundles and their lists, and a table twice as large. */
static bool grow_bundles(cluster_net *n, int cap)
{
    bundle *bundles = pp_arena_calloc(n->arena, (size_t)cap, sizeof(bundle));
    int *lists = pp_arena_calloc(n->arena, 3 * (size_t)cap, sizeof(int));
    int *table = pp_arena_calloc(n->arena, 2 * (size_t)cap, sizeof(int));
    if (!bundles || !lists || !table)
        return false;
    if (n->bundle_cap > 0) {
        memcpy(bundles, n->bundles, (size_t)n->bundle_count * sizeof(bundle));
        memcpy(lists, n->active, (size_t)n->active_count * sizeof(int));
    }
    n->bundles = bundles;
    n->active = lists;
    n->filling = lists + cap;
    n->component = lists + 2 * cap;
    n->bundle_cap = cap;
    n->table = table;
    n->table_cap = 2 * cap;
    for (int b = 0; b < n->bundle_count; b++) {
        unsigned h = bundle_hash(n, bundles[b].out, bundles[b].in);
        while (table[h])
            h = (h + 1) % (unsigned)n->table_cap;
        table[h] = b + 1;
    }
    return true;
}

void cluster_net_recycle(cluster_net *n, int keep)
{
    n->recycle = true;
    n->keep = keep;
}

cluster_net *cluster_net_new(const pp_cluster *c, double start_time, int max_flows,
                             pp_arena *arena)
{
    cluster_net *n = pp_arena_calloc(arena, 1, sizeof *n);
    if (!n)
        return NULL;
    n->c = c;
    n->start_time = start_time;
    n->bw = pp_arena_calloc(arena, (size_t)c->link_count + 1, sizeof(double));
    for (int l = 0; l < c->link_count; l++)
        n->bw[l] = pp_cluster_link_bandwidth_at(c, l, start_time);
    while (n->next_event < c->event_count && c->events[n->next_event].time <= start_time)
        n->next_event++;
    build_resources(n, arena);
    set_capacities(n);
    n->arena = arena;
    if (!grow_flows(n, max_flows > 0 ? max_flows : 1) || !grow_bundles(n, 64))
        return NULL;
    n->comm = pp_arena_calloc(arena, (size_t)c->device_count + 1, sizeof(double));
    n->since = pp_arena_calloc(arena, (size_t)c->device_count + 1, sizeof(double));
    n->in_flight = pp_arena_calloc(arena, (size_t)c->device_count + 1, sizeof(int));
    n->dirty = n->all_dirty = true;
    n->next_seen = INFINITY;
    if (!n->res_left || !n->res_unfrozen || !n->res_head || !n->res_dirty || !n->dirty_list ||
        !n->res_visit || !n->res_queue)
        return NULL;
    return n;
}

double cluster_net_bandwidth(const cluster_net *n, int l)
{
    return n->bw[l];
}

/* ------------------------------------------------------------- heaps */

/* Whether flow a comes before flow b in the waiting heap (by the end of
 * its latency) or in a bundle's (by its target); send order breaks ties. */
static bool earlier(const cluster_net *n, int a, int b, bool waiting)
{
    const flow *f = &n->flows[a], *g = &n->flows[b];
    double x = waiting ? f->ready : f->target, y = waiting ? g->ready : g->target;
    return x < y || (x == y && f->seq < g->seq);
}

static void heap_push(const cluster_net *n, int *heap, int *count, int i, bool waiting)
{
    int k = (*count)++;
    for (; k > 0 && earlier(n, i, heap[(k - 1) / 2], waiting); k = (k - 1) / 2)
        heap[k] = heap[(k - 1) / 2];
    heap[k] = i;
}

static int heap_pop(const cluster_net *n, int *heap, int *count, bool waiting)
{
    int top = heap[0], last = heap[--*count], k = 0;
    for (;;) {
        int c = 2 * k + 1;
        if (c >= *count)
            break;
        if (c + 1 < *count && earlier(n, heap[c + 1], heap[c], waiting))
            c++;
        if (!earlier(n, heap[c], last, waiting))
            break;
        heap[k] = heap[c];
        k = c;
    }
    if (*count > 0)
        heap[k] = last;
    return top;
}

/* ------------------------------------------------------------- bundles */


/* The bundle of (out, in), made when there is none; -1 when out of memory. */
static int bundle_of(cluster_net *n, int out, int in, int link_out, int link_in, bool inter)
{
    unsigned h = bundle_hash(n, out, in);
    for (; n->table[h]; h = (h + 1) % (unsigned)n->table_cap) {
        const bundle *b = &n->bundles[n->table[h] - 1];
        if (b->out == out && b->in == in)
            return n->table[h] - 1;
    }
    if (n->bundle_count == n->bundle_cap) {
        if (!grow_bundles(n, 2 * n->bundle_cap))
            return -1;
        h = bundle_hash(n, out, in);
        while (n->table[h])
            h = (h + 1) % (unsigned)n->table_cap;
    }
    int i = n->bundle_count++;
    n->bundles[i] = (bundle){.out = out, .in = in, .link_out = link_out, .link_in = link_in,
                             .inter = inter, .finish = INFINITY, .active_at = -1};
    n->table[h] = i + 1;
    return i;
}

/* One more member for bundle i: its heap holds every member, so a flow
 * that starts moving never allocates. */
static bool reserve_member(cluster_net *n, int i)
{
    bundle *b = &n->bundles[i];
    if (b->members == b->heap_cap) {
        int cap = b->heap_cap ? 2 * b->heap_cap : 4;
        int *heap = pp_arena_alloc(n->arena, (size_t)cap * sizeof(int));
        if (!heap)
            return false;
        if (b->moving)
            memcpy(heap, b->heap, (size_t)b->moving * sizeof(int));
        b->heap = heap;
        b->heap_cap = cap;
    }
    b->members++;
    return true;
}

static double bundle_cap_of(const cluster_net *n, const bundle *b)
{
    return b->inter ? least(n->bw[b->link_out], n->bw[b->link_in]) : INFINITY;
}

/* Bytes served each flow of b by now. */
static double served_now(const cluster_net *n, const bundle *b)
{
    return b->rate > 0 ? b->served + b->rate * (n->now - b->rated) : b->served;
}

/* When flow f of bundle b ends at b's rate. */
static double flow_finish(const cluster_net *n, const bundle *b, int f)
{
    return b->rate > 0 ? b->rated + most(0, n->flows[f].target - b->served) / b->rate : INFINITY;
}

/* ------------------------------------------------------------- max-min rates */

static double level(const cluster_net *n, int r)
{
    return n->res_left[r] / n->res_unfrozen[r];
}

/* The smallest level at which an unfrozen bundle meets a full resource or
 * its flows' own NIC cap: every unfrozen flow grows together up to it. */
static double fill_level(const cluster_net *n, int count)
{
    double lambda = INFINITY;
    for (int a = 0; a < count; a++) {
        const bundle *b = &n->bundles[n->filling[a]];
        lambda = least(lambda, least(bundle_cap_of(n, b), least(level(n, b->out), level(n, b->in))));
    }
    return lambda;
}

/* Freezes at lambda every unfrozen bundle that a saturated resource or its
 * cap stops, and keeps the others in order; the marks come first so that
 * one pass does not see its own updates. Returns how many stay unfrozen. */
static int freeze_at(cluster_net *n, double lambda, int count)
{
    double top = lambda * (1 + 1e-12);
    for (int a = 0; a < count; a++) {
        bundle *b = &n->bundles[n->filling[a]];
        b->mark = bundle_cap_of(n, b) <= top || level(n, b->out) <= top || level(n, b->in) <= top;
    }
    int kept = 0;
    for (int a = 0; a < count; a++) {
        bundle *b = &n->bundles[n->filling[a]];
        if (!b->mark) {
            n->filling[kept++] = n->filling[a];
            continue;
        }
        b->rate = lambda;
        n->res_left[b->out] -= b->moving * lambda;
        n->res_left[b->in] -= b->moving * lambda;
        n->res_unfrozen[b->out] -= b->moving;
        n->res_unfrozen[b->in] -= b->moving;
    }
    return kept;
}

/* Bytes move lazily: a bundle's served bytes are brought up to date only
 * when its rate changes, so time passing between changes costs nothing. */
static void catch_up(cluster_net *n, bundle *b)
{
    b->served = served_now(n, b);
    b->rated = n->now;
}

static void mark_dirty(cluster_net *n, int r)
{
    if (!n->res_dirty[r]) {
        n->res_dirty[r] = 1;
        n->dirty_list[n->dirty_count++] = r;
    }
}

/* Puts moving bundle i at the head of its two resources' lists. */
static void link_moving(cluster_net *n, int i)
{
    bundle *b = &n->bundles[i];
    b->prev_out = b->prev_in = -1;
    b->next_out = n->res_head[b->out];
    b->next_in = n->res_head[b->in];
    if (b->next_out >= 0) {
        bundle *g = &n->bundles[b->next_out];
        *(g->out == b->out ? &g->prev_out : &g->prev_in) = i;
    }
    n->res_head[b->out] = i;
    if (b->next_in >= 0) {
        bundle *g = &n->bundles[b->next_in];
        *(g->out == b->in ? &g->prev_out : &g->prev_in) = i;
    }
    n->res_head[b->in] = i;
}

/* Bundle i's neighbour after it in resource r's list. */
static int *next_in_list(cluster_net *n, int i, int r)
{
    bundle *b = &n->bundles[i];
    return b->out == r ? &b->next_out : &b->next_in;
}

static int *prev_in_list(cluster_net *n, int i, int r)
{
    bundle *b = &n->bundles[i];
    return b->out == r ? &b->prev_out : &b->prev_in;
}

static void unlink_from(cluster_net *n, int i, int r)
{
    int next = *next_in_list(n, i, r), prev = *prev_in_list(n, i, r);
    if (prev >= 0)
        *next_in_list(n, prev, r) = next;
    else
        n->res_head[r] = next;
    if (next >= 0)
        *prev_in_list(n, next, r) = prev;
}

/* Bundle i's first flow starts moving: it joins the lists. */
static void start_bundle(cluster_net *n, int i)
{
    bundle *b = &n->bundles[i];
    link_moving(n, i);
    b->active_at = n->active_count;
    n->active[n->active_count++] = i;
    b->served = 0;
    b->rate = 0;
    b->rated = n->now;
}

/* Bundle i's last moving flow ended: it leaves the lists. */
static void stop_bundle(cluster_net *n, int i)
{
    bundle *b = &n->bundles[i];
    unlink_from(n, i, b->out);
    unlink_from(n, i, b->in);
    int last = n->active[--n->active_count];
    n->active[b->active_at] = last;
    n->bundles[last].active_at = b->active_at;
    b->active_at = -1;
    b->finish = INFINITY;
}

/* Gathers into n->filling the moving bundles whose rates may change: all
 * when every rate is stale, else those connected to a dirty resource.
 * Returns how many. */
static int gather(cluster_net *n)
{
    if (n->all_dirty) {
        memcpy(n->filling, n->active, (size_t)n->active_count * sizeof(int));
        return n->active_count;
    }
    int head = 0, tail = 0, count = 0;
    for (int i = 0; i < n->dirty_count; i++) {
        int r = n->dirty_list[i];
        if (n->res_head[r] >= 0 && n->res_visit[r] != n->epoch) {
            n->res_visit[r] = n->epoch;
            n->res_queue[tail++] = r;
        }
    }
    while (head < tail) {
        int r = n->res_queue[head++];
        for (int i = n->res_head[r]; i >= 0; i = *next_in_list(n, i, r)) {
            bundle *b = &n->bundles[i];
            if (b->visit == n->epoch)
                continue;
            b->visit = n->epoch;
            n->filling[count++] = i;
            int ends[2] = {b->out, b->in};
            for (int e = 0; e < 2; e++)
                if (n->res_visit[ends[e]] != n->epoch) {
                    n->res_visit[ends[e]] = n->epoch;
                    n->res_queue[tail++] = ends[e];
                }
        }
    }
    return count;
}

/* Max-min fair rates (progressive filling) over the bundles whose rates
 * may have changed, then their first flows' finish times and the
 * network's next change: the earliest of theirs, the next event and what
 * settle saw of the rest. */
static void recompute(cluster_net *n)
{
    n->epoch++;
    int changed = gather(n);
    for (int a = 0; a < changed; a++) {
        bundle *b = &n->bundles[n->filling[a]];
        catch_up(n, b);
        n->res_left[b->out] = n->res_cap[b->out];
        n->res_left[b->in] = n->res_cap[b->in];
        n->res_unfrozen[b->out] = n->res_unfrozen[b->in] = 0;
    }
    for (int a = 0; a < changed; a++) {
        bundle *b = &n->bundles[n->filling[a]];
        n->res_unfrozen[b->out] += b->moving;
        n->res_unfrozen[b->in] += b->moving;
    }
    double next = n->all_dirty ? INFINITY : n->next_seen;
    if (n->all_dirty && n->waiting_count > 0)
        next = least(next, n->flows[n->waiting[0]].ready);
    memcpy(n->component, n->filling, (size_t)changed * sizeof(int));
    for (int count = changed; count > 0;) {
        int kept = freeze_at(n, fill_level(n, count), count);
        if (kept == count)
            break;
        count = kept;
    }
    for (int a = 0; a < changed; a++) {
        bundle *b = &n->bundles[n->component[a]];
        b->finish = flow_finish(n, b, b->heap[0]);
        next = least(next, b->finish);
    }
    n->next = n->next_event < n->c->event_count
                  ? least(next, n->c->events[n->next_event].time - n->start_time)
                  : next;
    for (int i = 0; i < n->dirty_count; i++)
        n->res_dirty[n->dirty_list[i]] = 0;
    n->dirty_count = 0;
    n->dirty = n->all_dirty = false;
}

typedef struct {
    int link_out, link_in, out, in;
    double share, latency;
} route;

/* Inside a node: the class whose sender port offers the most share now. */
static bool route_intra(const cluster_net *n, int src, int dst, route *best)
{
    const pp_cluster *c = n->c;
    int node = c->device_node[src];
    int ls = src - c->nodes[node].first_device, ld = dst - c->nodes[node].first_device;
    bool found = false;
    int count;
    const int *links = cluster_net_node_links(n, node, &count);
    for (int i = 0; i < count; i++) {
        int l = links[i];
        if (c->links[l].inter_node)
            continue;
        int out = n->res_base[l] + 2 * ls;
        double share = n->bw[l] / (1 + n->res_users[out]);
        if (!found || share > best->share) {
            *best = (route){l, l, out, n->res_base[l] + 2 * ld + 1, share, c->links[l].latency};
            found = true;
        }
    }
    return found;
}

/* Between nodes: the class both nodes have whose sender pool offers the most
 * share to one more flow, no more than one NIC's bandwidth. */
static bool route_inter(const cluster_net *n, int src, int dst, route *best)
{
    const pp_cluster *c = n->c;
    int ns = c->device_node[src], nd = c->device_node[dst];
    bool found = false;
    int count;
    const int *links = cluster_net_node_links(n, ns, &count);
    for (int i = 0; i < count; i++) {
        int l = links[i];
        if (!c->links[l].inter_node)
            continue;
        int m = cluster_net_inter_peer(n, l, nd);
        if (m < 0)
            continue;
        int out = n->res_base[l];
        double one = least(n->bw[l], n->bw[m]);
        double share = least(one, c->links[l].ports * n->bw[l] / (1 + n->res_users[out]));
        if (!found || share > best->share) {
            double latency = most(c->links[l].latency, c->links[m].latency);
            *best = (route){l, m, out, n->res_base[m] + 1, share, latency};
            found = true;
        }
    }
    return found;
}

static void device_busy(cluster_net *n, int d)
{
    if (n->in_flight[d]++ == 0)
        n->since[d] = n->now;
}

static void device_free(cluster_net *n, int d)
{
    if (--n->in_flight[d] == 0)
        n->comm[d] += n->now - n->since[d];
}

pp_status cluster_net_send(cluster_net *n, int src, int dst, double bytes, int latencies,
                           int owner, int *flow_index, pp_error *err)
{
    const pp_cluster *c = n->c;
    bool inter = c->device_node[src] != c->device_node[dst];
    route r = {0, 0, 0, 0, 0, 0};
    if (!(inter ? route_inter(n, src, dst, &r) : route_intra(n, src, dst, &r)))
        return pp_error_set(err, PP_EINPUT, "cluster %s: no %s link joins device %d (node %s) and device %d (node %s)",
                            c->name, inter ? "inter-node" : "intra-node", src,
                            c->nodes[c->device_node[src]].name, dst, c->nodes[c->device_node[dst]].name);
    if (n->free_count == 0 && n->flow_count == n->flow_cap && !grow_flows(n, 2 * n->flow_cap))
        return pp_error_set(err, PP_ENOMEM, "simulator: out of memory for %d flows", 2 * n->flow_cap);
    int b = bundle_of(n, r.out, r.in, r.link_out, r.link_in, inter);
    if (b < 0 || !reserve_member(n, b))
        return pp_error_set(err, PP_ENOMEM, "simulator: out of memory for a flow's bundle");
    int i = n->free_count > 0 ? n->free_slots[--n->free_count] : n->flow_count++;
    flow *f = &n->flows[i];
    *f = (flow){.start = n->now, .ready = n->now + latencies * r.latency, .end = INFINITY,
                .bytes = bytes, .seq = n->sent++, .bundle = b, .out = r.out, .in = r.in,
                .owner = owner, .src = src, .dst = dst};
    n->res_users[r.out]++;
    n->res_users[r.in]++;
    heap_push(n, n->waiting, &n->waiting_count, i, true);
    /* waiting its latency changes no rate */
    n->next = least(n->next, f->ready);
    n->next_seen = least(n->next_seen, f->ready);
    device_busy(n, src);
    device_busy(n, dst);
    *flow_index = i;
    return PP_OK;
}

double cluster_net_next(cluster_net *n)
{
    if (n->dirty)
        recompute(n);
    return n->next;
}

static bool apply_events(cluster_net *n, double t)
{
    const pp_cluster *c = n->c;
    bool changed = false;
    for (; n->next_event < c->event_count && c->events[n->next_event].time - n->start_time <= t;
         n->next_event++)
        for (int l = 0; l < c->link_count; l++)
            if (event_touches(c, &c->events[n->next_event], l)) {
                n->bw[l] = c->events[n->next_event].bandwidth;
                changed = true;
            }
    return changed;
}

/* Flow i's latency is over at now: it joins its bundle, with a target
 * its bytes past what the bundle has served so far. */
static void start_moving(cluster_net *n, int i)
{
    flow *f = &n->flows[i];
    bundle *b = &n->bundles[f->bundle];
    if (b->moving == 0)
        start_bundle(n, f->bundle);
    f->target = served_now(n, b) + f->bytes;
    heap_push(n, b->heap, &b->moving, i, false);
    mark_dirty(n, b->out);
    mark_dirty(n, b->in);
}

/* Takes out bundle i's flows that end by t into n->finished from *done;
 * when it loses its last, it leaves the lists. */
static void take_finished(cluster_net *n, int i, double t, int *done)
{
    bundle *b = &n->bundles[i];
    while (b->moving > 0 && flow_finish(n, b, b->heap[0]) <= t) {
        int f = heap_pop(n, b->heap, &b->moving, false);
        b->members--;
        n->finished[(*done)++] = (finished_flow){n->flows[f].seq, f};
    }
    mark_dirty(n, b->out);
    mark_dirty(n, b->in);
    if (b->moving == 0)
        stop_bundle(n, i);
}

static int by_send_order(const void *a, const void *b)
{
    long x = ((const finished_flow *)a)->seq, y = ((const finished_flow *)b)->seq;
    return (x > y) - (x < y);
}

/* At t: starts flows whose latency is over (one without bytes ends at
 * once) and takes out the finished ones; returns how many finished (their
 * owners in n->owners, in the order they were sent). */
static int settle(cluster_net *n, double t)
{
    int done = 0;
    n->now = t;
    while (n->waiting_count > 0 && n->flows[n->waiting[0]].ready <= t) {
        int i = heap_pop(n, n->waiting, &n->waiting_count, true);
        if (n->flows[i].bytes <= 0) {
            n->bundles[n->flows[i].bundle].members--;
            n->finished[done++] = (finished_flow){n->flows[i].seq, i};
        } else {
            start_moving(n, i);
        }
    }
    double seen = n->waiting_count > 0 ? n->flows[n->waiting[0]].ready : INFINITY;
    for (int a = 0; a < n->active_count;) {
        int i = n->active[a];
        if (n->bundles[i].finish <= t) {
            take_finished(n, i, t, &done);
            if (n->bundles[i].active_at < 0)
                continue; /* the last active bundle took its place */
        }
        seen = least(seen, n->bundles[i].finish);
        a++;
    }
    n->next_seen = seen;
    bool sorted = true;
    for (int k = 1; k < done && sorted; k++)
        sorted = n->finished[k - 1].seq < n->finished[k].seq;
    if (!sorted)
        qsort(n->finished, (size_t)done, sizeof *n->finished, by_send_order);
    for (int k = 0; k < done; k++) {
        int i = n->finished[k].flow;
        flow *f = &n->flows[i];
        f->end = t;
        n->res_users[f->out]--;
        n->res_users[f->in]--;
        device_free(n, f->src);
        device_free(n, f->dst);
        if (n->recycle && i >= n->keep)
            n->free_slots[n->free_count++] = i;
        n->owners[k] = f->owner;
    }
    n->dirty = true;
    return done;
}

bool cluster_net_advance(cluster_net *n, double t, cluster_flow_done done, void *ctx)
{
    if (n->dirty)
        recompute(n);
    if (t < n->next) {
        n->now = t;
        return false;
    }
    int count = settle(n, t);
    bool changed = apply_events(n, t);
    if (changed) {
        set_capacities(n);
        n->version++;
        n->all_dirty = true;
    }
    for (int k = 0; k < count; k++)
        done(ctx, n->owners[k], t);
    return changed;
}

double cluster_net_communication(const cluster_net *n, int d)
{
    return n->comm[d];
}

int cluster_net_flow_count(const cluster_net *n)
{
    return n->recycle && n->keep < n->flow_count ? n->keep : n->flow_count;
}

long cluster_net_sent(const cluster_net *n)
{
    return n->sent;
}

void cluster_net_flow(const cluster_net *n, int i, double *start, double *end, int *owner,
                      int *out, int *in)
{
    const flow *f = &n->flows[i];
    *start = f->start;
    *end = f->end;
    *owner = f->owner;
    *out = f->out;
    *in = f->in;
}

int cluster_net_resource_count(const cluster_net *n)
{
    return n->res_count;
}

void cluster_net_resource_name(const cluster_net *n, int r, char *buf, size_t size)
{
    const pp_cluster *c = n->c;
    int l = n->res_link[r], k = r - n->res_base[l];
    const pp_cluster_link *link = &c->links[l];
    const char *dir = k % 2 ? "in" : "out";
    if (link->inter_node)
        snprintf(buf, size, "%s %s %s", c->nodes[link->node].name, link->name, dir);
    else
        snprintf(buf, size, "%s/%d %s %s", c->nodes[link->node].name, k / 2, link->name, dir);
}
