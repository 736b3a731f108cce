/* zero3.h: what ZeRO stage 3 / FSDP full sharding (pp_cluster_plan.zero3)
 * adds to a step (internal): the unsharded buffers a member holds, the
 * data-parallel ring its all-gathers use, and a pass's length when each
 * layer's all-gather is prefetched during the layer before. */
#ifndef PP_CLUSTER_ZERO3_H
#define PP_CLUSTER_ZERO3_H

#include "cluster/network.h"
#include "parplan/cluster.h"
#include "parplan/hw_net.h"

/* Bytes of layer l a whole member (share 1) holds unsharded at once beside
 * its shard: two layers' gathered 16-bit parameters (the one computing and
 * the next, prefetched; FSDP's rate limiter lets two all-gathers be in
 * flight, Zhao et al. 2023 section 3.4) and one layer's full gradient until
 * it is reduce-scattered (section 3.2.1). */
double cluster_zero3_buffer_bytes(const pp_cluster_layer *l);

/* The link of a ring over the n devices of `ring`, joined in order and
 * back: each hop's best class (inside a node, the node's fastest intra-node
 * class; between nodes, the inter-node class both have with the most
 * bandwidth, at the slower node's figure), and of those the least bandwidth
 * and the largest latency. False when some hop has no link. */
bool cluster_zero3_ring_link(const pp_cluster *c, const cluster_net *net, const int *ring, int n,
                             pp_hw_link *out);

/* A pass of `layers` layers that computes for `compute` s and all-gathers
 * (and reduce-scatters) for `gather` s in all, the first layer's gather
 * taking `first` s. Layer k + 1's collectives run while layer k computes
 * (FSDP's forward and backward prefetching, Zhao et al. section 3.3.2), so
 * with like layers of c s of compute and g of gathers the pass takes
 * g + (L - 1) max(c, g) + c: first + max(compute, gather - first +
 * compute / layers), exact for like layers. */
double cluster_zero3_pass_time(double compute, double gather, double first, int layers);

#endif
