/* network.c: the simulator's flow-level network: resources from the
 * cluster's links, the link a flow takes (paper 003 section 3.1's
 * multi-edge), max-min fair rates by progressive filling, bandwidth events,
 * and each device's time with a flow of its own in flight.
 *
 * Max-min rates of flows that share no resource, even through others, do
 * not depend on each other, so a flow that starts or ends changes only the
 * rates of its connected component (flows linked by shared ports and NIC
 * pools). The filling runs on that component alone, found from the
 * resources the change touched through each resource's list of moving
 * flows; only its flows' bytes are brought up to date. At thousands of GPUs
 * a pipeline hop's component is a few flows among a thousand, and the rest
 * costs one pass over the flows in flight per change (settle). */
#include "cluster/network.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double start, ready, end;  /* sent; latency over; finished (INFINITY before) */
    double remaining, rate, finish; /* remaining as of rated, when the rate was set */
    double rated;
    int out, in;               /* resources */
    int next_out, prev_out, next_in, prev_in; /* the moving flows of out and of in */
    int visit;                 /* the recomputation that last put it in a component */
    int link_out, link_in;     /* links whose bandwidth caps the flow (inter-node) */
    int owner, src, dst;
    bool inter, moving, mark;
} flow;

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
    int *res_unfrozen;
    int *res_head;             /* [resource] its first moving flow, -1 none */
    /* Resources whose flows changed since the rates were set, listed once
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
    int *free_slots;           /* finished slots to reuse (recycling) */
    int free_count;
    bool recycle;
    pp_arena *arena;           /* the arrays grow in it */
    int *active;               /* flows in flight, in the order they were sent */
    int active_count;
    int *filling;              /* scratch: the unfrozen moving flows */
    int *component;            /* scratch: the flows whose rates are being set */
    int *finished;             /* scratch: owners finishing in one advance */
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
    int *lists = pp_arena_calloc(n->arena, 5 * ((size_t)cap + 1), sizeof(int));
    if (!flows || !lists)
        return false;
    int *active = lists, *filling = lists + cap + 1, *finished = lists + 2 * (cap + 1),
        *free_slots = lists + 3 * (cap + 1);
    if (n->flow_cap > 0) {
        memcpy(flows, n->flows, (size_t)n->flow_count * sizeof(flow));
        memcpy(active, n->active, (size_t)n->active_count * sizeof(int));
        memcpy(free_slots, n->free_slots, (size_t)n->free_count * sizeof(int));
    }
    n->flows = flows;
    n->active = active;
    n->filling = filling;
    n->component = lists + 4 * (cap + 1);
    n->finished = finished;
    n->free_slots = free_slots;
    n->flow_cap = cap;
    return true;
}

void cluster_net_recycle(cluster_net *n)
{
    n->recycle = true;
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
    if (!grow_flows(n, max_flows > 0 ? max_flows : 1))
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

static double flow_cap(const cluster_net *n, const flow *f)
{
    return f->inter ? least(n->bw[f->link_out], n->bw[f->link_in]) : INFINITY;
}

static double level(const cluster_net *n, int r)
{
    return n->res_left[r] / n->res_unfrozen[r];
}

/* The smallest level at which an unfrozen flow meets a full resource or its
 * own NIC's cap: every unfrozen flow grows together up to it. */
static double fill_level(const cluster_net *n, int count)
{
    double lambda = INFINITY;
    for (int a = 0; a < count; a++) {
        const flow *f = &n->flows[n->filling[a]];
        lambda = least(lambda, least(flow_cap(n, f), least(level(n, f->out), level(n, f->in))));
    }
    return lambda;
}

/* Freezes at lambda every unfrozen flow that a saturated resource or its cap
 * stops, and keeps the others in order; the marks come first so that one
 * pass does not see its own updates. Returns how many stay unfrozen. */
static int freeze_at(cluster_net *n, double lambda, int count)
{
    double top = lambda * (1 + 1e-12);
    for (int a = 0; a < count; a++) {
        flow *f = &n->flows[n->filling[a]];
        f->mark = flow_cap(n, f) <= top || level(n, f->out) <= top || level(n, f->in) <= top;
    }
    int kept = 0;
    for (int a = 0; a < count; a++) {
        flow *f = &n->flows[n->filling[a]];
        if (!f->mark) {
            n->filling[kept++] = n->filling[a];
            continue;
        }
        f->rate = lambda;
        n->res_left[f->out] -= lambda;
        n->res_left[f->in] -= lambda;
        n->res_unfrozen[f->out]--;
        n->res_unfrozen[f->in]--;
    }
    return kept;
}

/* Bytes move lazily: a flow's remaining bytes are brought up to date only
 * when its rate changes, so time passing between changes costs nothing. */
static void catch_up(cluster_net *n, flow *f)
{
    if (f->rate > 0)
        f->remaining = f->finish <= n->now ? 0 : f->remaining - f->rate * (n->now - f->rated);
    f->rated = n->now;
}

static void mark_dirty(cluster_net *n, int r)
{
    if (!n->res_dirty[r]) {
        n->res_dirty[r] = 1;
        n->dirty_list[n->dirty_count++] = r;
    }
}

/* Puts moving flow i at the head of its two resources' lists. */
static void link_moving(cluster_net *n, int i)
{
    flow *f = &n->flows[i];
    f->prev_out = f->prev_in = -1;
    f->next_out = n->res_head[f->out];
    f->next_in = n->res_head[f->in];
    if (f->next_out >= 0) {
        flow *g = &n->flows[f->next_out];
        *(g->out == f->out ? &g->prev_out : &g->prev_in) = i;
    }
    n->res_head[f->out] = i;
    if (f->next_in >= 0) {
        flow *g = &n->flows[f->next_in];
        *(g->out == f->in ? &g->prev_out : &g->prev_in) = i;
    }
    n->res_head[f->in] = i;
}

/* Flow i's neighbour after it in resource r's list. */
static int *next_in_list(cluster_net *n, int i, int r)
{
    flow *f = &n->flows[i];
    return f->out == r ? &f->next_out : &f->next_in;
}

static int *prev_in_list(cluster_net *n, int i, int r)
{
    flow *f = &n->flows[i];
    return f->out == r ? &f->prev_out : &f->prev_in;
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

static void unlink_moving(cluster_net *n, int i)
{
    unlink_from(n, i, n->flows[i].out);
    unlink_from(n, i, n->flows[i].in);
}

/* Gathers into n->filling the moving flows whose rates may change: all
 * when every rate is stale, else those connected to a dirty resource.
 * Returns how many. */
static int gather(cluster_net *n)
{
    int count = 0;
    if (n->all_dirty) {
        for (int a = 0; a < n->active_count; a++)
            if (n->flows[n->active[a]].moving)
                n->filling[count++] = n->active[a];
        return count;
    }
    int head = 0, tail = 0;
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
            flow *f = &n->flows[i];
            if (f->visit == n->epoch)
                continue;
            f->visit = n->epoch;
            n->filling[count++] = i;
            int ends[2] = {f->out, f->in};
            for (int e = 0; e < 2; e++)
                if (n->res_visit[ends[e]] != n->epoch) {
                    n->res_visit[ends[e]] = n->epoch;
                    n->res_queue[tail++] = ends[e];
                }
        }
    }
    return count;
}

/* Max-min fair rates (progressive filling) over the flows whose rates may
 * have changed, then their finish times and the network's next change:
 * the earliest of theirs, the next event and what settle saw of the rest. */
static void recompute(cluster_net *n)
{
    n->epoch++;
    int changed = gather(n);
    for (int a = 0; a < changed; a++) {
        flow *f = &n->flows[n->filling[a]];
        catch_up(n, f);
        n->res_left[f->out] = n->res_cap[f->out];
        n->res_left[f->in] = n->res_cap[f->in];
        n->res_unfrozen[f->out] = n->res_unfrozen[f->in] = 0;
    }
    for (int a = 0; a < changed; a++) {
        flow *f = &n->flows[n->filling[a]];
        n->res_unfrozen[f->out]++;
        n->res_unfrozen[f->in]++;
    }
    double next = n->all_dirty ? INFINITY : n->next_seen;
    for (int a = 0; a < (n->all_dirty ? n->active_count : 0); a++) {
        const flow *f = &n->flows[n->active[a]];
        if (!f->moving)
            next = least(next, f->ready);
    }
    memcpy(n->component, n->filling, (size_t)changed * sizeof(int));
    for (int count = changed; count > 0;) {
        int kept = freeze_at(n, fill_level(n, count), count);
        if (kept == count)
            break;
        count = kept;
    }
    for (int a = 0; a < changed; a++) {
        flow *f = &n->flows[n->component[a]];
        f->finish = f->rate > 0 ? n->now + f->remaining / f->rate : INFINITY;
        next = least(next, f->finish);
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
    int i = n->free_count > 0 ? n->free_slots[--n->free_count] : n->flow_count++;
    flow *f = &n->flows[i];
    *f = (flow){.start = n->now, .ready = n->now + latencies * r.latency, .end = INFINITY,
                .remaining = bytes, .finish = INFINITY, .out = r.out, .in = r.in,
                .link_out = r.link_out, .link_in = r.link_in, .owner = owner, .src = src,
                .dst = dst, .inter = inter};
    n->res_users[r.out]++;
    n->res_users[r.in]++;
    n->active[n->active_count++] = i;
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

/* At t: starts flows whose latency is over and takes out the finished
 * ones; returns how many finished (their owners in n->finished). */
static int settle(cluster_net *n, double t)
{
    int kept = 0, done = 0;
    double seen = INFINITY;
    for (int a = 0; a < n->active_count; a++) {
        flow *f = &n->flows[n->active[a]];
        if (!f->moving && f->ready <= t) {
            f->moving = true;
            f->rate = 0;
            f->rated = t;
            f->finish = f->remaining <= 0 ? t : INFINITY;
            link_moving(n, n->active[a]);
            mark_dirty(n, f->out);
            mark_dirty(n, f->in);
        }
        if (f->moving && f->finish <= t) {
            n->finished[done++] = n->active[a];
            continue;
        }
        seen = least(seen, f->moving ? f->finish : f->ready);
        n->active[kept++] = n->active[a];
    }
    n->next_seen = seen;
    n->active_count = kept;
    n->now = t;
    for (int k = 0; k < done; k++) {
        flow *f = &n->flows[n->finished[k]];
        f->end = t;
        unlink_moving(n, n->finished[k]);
        mark_dirty(n, f->out);
        mark_dirty(n, f->in);
        n->res_users[f->out]--;
        n->res_users[f->in]--;
        device_free(n, f->src);
        device_free(n, f->dst);
        if (n->recycle)
            n->free_slots[n->free_count++] = n->finished[k];
        n->finished[k] = f->owner;
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
        done(ctx, n->finished[k], t);
    return changed;
}

double cluster_net_communication(const cluster_net *n, int d)
{
    return n->comm[d];
}

int cluster_net_flow_count(const cluster_net *n)
{
    return n->flow_count;
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
