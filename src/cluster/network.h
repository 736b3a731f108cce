/* network.h: the simulator's flow-level network (internal). Links become
 * resources (per device and intra-node class an out and an in port; per node
 * and inter-node class an out and an in pool of all its NICs), transfers
 * become flows that wait their latency and then share the resources they
 * cross max-min fairly; bandwidth events of the cluster's timeline change the
 * capacities when they happen. Times are seconds since the step began. */
#ifndef PP_CLUSTER_NETWORK_H
#define PP_CLUSTER_NETWORK_H

#include "parplan/cluster.h"

typedef struct cluster_net cluster_net;

/* Called once per finished flow with the owner the sender gave. */
typedef void (*cluster_flow_done)(void *ctx, int owner, double now);

/* A network for c whose step begins start_time after the run began, with
 * room for max_flows flows to start with (it grows). Allocated in arena;
 * NULL when out of memory. */
cluster_net *cluster_net_new(const pp_cluster *c, double start_time, int max_flows,
                             pp_arena *arena);
/* From now on a finished flow's slot from `keep` on is reused: memory
 * stays in proportion to the flows in flight, not to all of the step's
 * (millions at thousands of GPUs), and cluster_net_flow describes only the
 * first `keep` flows sent (slots are taken in order until one is reused). */
void cluster_net_recycle(cluster_net *n, int keep);

/* Starts a flow of `bytes` from device src to device dst (different devices)
 * now, choosing the link class with the most share (paper 003 section 3.1);
 * it waits latencies times the link's latency before moving. The flow's
 * index goes to *flow. PP_EINPUT when no link joins the two devices,
 * PP_ENOMEM when out of memory. */
pp_status cluster_net_send(cluster_net *n, int src, int dst, double bytes, int latencies,
                           int owner, int *flow, pp_error *err);

/* When the network next changes by itself: a latency ends, a flow finishes
 * or a bandwidth event happens; INFINITY when nothing ever will. */
double cluster_net_next(cluster_net *n);

/* Moves time on to t (no later than cluster_net_next): bytes flow, events at
 * or before t apply, flows finishing at t call done. True when a bandwidth
 * changed. */
bool cluster_net_advance(cluster_net *n, double t, cluster_flow_done done, void *ctx);

/* The links of node `node` (count of them in *count). */
const int *cluster_net_node_links(const cluster_net *n, int node, int *count);
/* The inter-node link of node `node` with link l's class name, -1 when it
 * has none (or l is an intra-node link). */
int cluster_net_inter_peer(const cluster_net *n, int l, int node);
/* Bumped whenever a bandwidth event changes a link: what was derived from
 * bandwidths (a TP group's link) is stale when it moved. */
int cluster_net_version(const cluster_net *n);

/* The current bandwidth of link l of the cluster. */
double cluster_net_bandwidth(const cluster_net *n, int l);

/* Seconds device d had at least one flow of its own (sent or received) in
 * flight up to now. */
double cluster_net_communication(const cluster_net *n, int d);

/* The flows started so far, for the timeline (the first `keep` when
 * recycling): start and end (INFINITY while in flight), owner, and the
 * resources it crossed (out, in); and how many were sent in all. */
int cluster_net_flow_count(const cluster_net *n);
long cluster_net_sent(const cluster_net *n);
void cluster_net_flow(const cluster_net *n, int flow, double *start, double *end, int *owner,
                      int *out, int *in);
int cluster_net_resource_count(const cluster_net *n);
/* "n0 ethernet out" for a node's pool, "n0/3 nvlink in" for a device's port. */
void cluster_net_resource_name(const cluster_net *n, int resource, char *buf, size_t size);

#endif
