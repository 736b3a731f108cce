/* zero3.c: ZeRO stage 3 / FSDP full sharding's buffers, ring link and pass
 * length (zero3.h). */
#include "cluster/zero3.h"

#include <math.h>

double cluster_zero3_buffer_bytes(const pp_cluster_layer *l)
{
    return 2 * l->weight_bytes + l->gradient_bytes;
}

/* The best link joining devices a and b; bandwidth -1 when none does. */
static pp_hw_link hop_link(const pp_cluster *c, const cluster_net *net, int a, int b)
{
    int na = c->device_node[a], nb = c->device_node[b], count;
    const int *links = cluster_net_node_links(net, na, &count);
    pp_hw_link best = {-1, 0};
    for (int i = 0; i < count; i++) {
        int l = links[i], peer = na == nb ? l : cluster_net_inter_peer(net, l, nb);
        if (c->links[l].inter_node == (na == nb) || peer < 0)
            continue;
        double bandwidth = fmin(cluster_net_bandwidth(net, l), cluster_net_bandwidth(net, peer));
        if (bandwidth > best.bandwidth)
            best = (pp_hw_link){bandwidth, fmax(c->links[l].latency, c->links[peer].latency)};
    }
    return best;
}

bool cluster_zero3_ring_link(const pp_cluster *c, const cluster_net *net, const int *ring, int n,
                             pp_hw_link *out)
{
    *out = (pp_hw_link){INFINITY, 0};
    for (int i = 0; i < n && n > 1; i++) {
        pp_hw_link hop = hop_link(c, net, ring[i], ring[(i + 1) % n]);
        if (hop.bandwidth < 0)
            return false;
        out->bandwidth = fmin(out->bandwidth, hop.bandwidth);
        out->latency = fmax(out->latency, hop.latency);
    }
    return true;
}

double cluster_zero3_pass_time(double compute, double gather, double first, int layers)
{
    return first + fmax(compute, gather - first + compute / layers);
}
