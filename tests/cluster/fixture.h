/* fixture.h: small clusters and workloads built in code for the cluster
 * tests, so the simulator and planner tests do not depend on the readers. */
#ifndef PP_TESTS_CLUSTER_FIXTURE_H
#define PP_TESTS_CLUSTER_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"
#include "core/core_internal.h"

/* A device type with round numbers: `flops` FLOP/s, memory bandwidth high
 * enough that the roofline is compute-bound, `memory` bytes. */
static inline pp_hw_device_type fixture_type(const char *name, double flops, double memory)
{
    pp_hw_device_type t = {name, flops, 1e18, memory, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    return t;
}

/* nodes[k] devices of types[k] each; every node has one intra-node link class
 * "fast" (intra_bw per port) and one NIC class "nic" (inter_bw, 1 port).
 * Latencies are 0. The types must outlive the cluster. */
static inline pp_cluster *fixture_cluster(int node_count, const int *per_node,
                                          const pp_hw_device_type *types, double intra_bw,
                                          double inter_bw)
{
    pp_arena *a = pp_arena_new(1 << 14);
    pp_cluster *c = pp_arena_calloc(a, 1, sizeof *c);
    c->arena = a;
    c->name = "fixture";
    c->node_count = node_count;
    c->nodes = pp_arena_calloc(a, (size_t)node_count, sizeof *c->nodes);
    c->link_count = 2 * node_count;
    c->links = pp_arena_calloc(a, (size_t)c->link_count, sizeof *c->links);
    int devices = 0;
    for (int n = 0; n < node_count; n++)
        devices += per_node[n];
    c->device_count = devices;
    c->device_node = pp_arena_calloc(a, (size_t)devices, sizeof(int));
    int d = 0;
    for (int n = 0; n < node_count; n++) {
        pp_cluster_node *node = &c->nodes[n];
        node->name = pp_arena_alloc(a, 16);
        snprintf(node->name, 16, "n%d", n);
        node->type = &types[n];
        node->first_device = d;
        node->device_count = per_node[n];
        for (int k = 0; k < per_node[n]; k++)
            c->device_node[d++] = n;
        c->links[2 * n] = (pp_cluster_link){"fast", n, false, 1, intra_bw, 0.0};
        c->links[2 * n + 1] = (pp_cluster_link){"nic", n, true, 1, inter_bw, 0.0};
    }
    return c;
}

/* Appends an event (events must be added in time order). */
static inline void fixture_event(pp_cluster *c, double time, const char *link, int node,
                                 double bandwidth, int lost_device)
{
    pp_cluster_event *e = pp_arena_calloc(c->arena, (size_t)c->event_count + 1, sizeof *e);
    if (c->event_count)
        memcpy(e, c->events, (size_t)c->event_count * sizeof *e);
    e[c->event_count] = (pp_cluster_event){time, (char *)link, node, bandwidth, lost_device};
    c->events = e;
    c->event_count++;
}

/* `layers` identical layers of `flops` forward FLOPs per sample (backward
 * twice that), `state` resident bytes, `activation` bytes per sample,
 * `output` bytes per sample between stages, gradient bytes = state / 8. */
static inline pp_cluster_workload *fixture_workload(int layers, double flops, double state,
                                                    double activation, double output,
                                                    int64_t global_batch)
{
    pp_arena *a = pp_arena_new(1 << 14);
    pp_cluster_workload *w = pp_arena_calloc(a, 1, sizeof *w);
    w->arena = a;
    w->name = "fixture";
    w->layer_count = layers;
    w->layers = pp_arena_calloc(a, (size_t)layers, sizeof *w->layers);
    w->global_batch = global_batch;
    w->tp_divisor = 8;
    for (int k = 0; k < layers; k++) {
        pp_cluster_layer *l = &w->layers[k];
        l->name = "layer";
        l->forward_flops = flops;
        l->backward_flops = 2 * flops;
        l->recompute_flops = flops;
        l->state_bytes = state;
        l->gradient_bytes = state / 8;
        l->activation_bytes = activation;
        l->checkpoint_bytes = output;
        l->output_bytes = output;
    }
    return w;
}

#endif
