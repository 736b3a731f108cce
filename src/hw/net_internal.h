/* net_internal.h: the time a link (hw_net.h) takes to move bytes and the
 * time of the collectives built on it (ring and tree all-reduce,
 * reduce-scatter, all-gather, all-to-all, broadcast) in the alpha-beta model,
 * shared by the cluster planner and the auto-sharder. Formulas and sources
 * are in src/hw/collective.c. */
#ifndef PP_HW_NET_INTERNAL_H
#define PP_HW_NET_INTERNAL_H

#include "parplan/hw_net.h"

/* Conventions of every function below:
 * - n is the number of participants and every hop uses `link`;
 * - bytes is the size of the FULL buffer each participant holds: the whole
 *   gradient for an all-reduce, the input of a reduce-scatter, the output of
 *   an all-gather, the whole send buffer (n blocks of bytes / n) of an
 *   all-to-all, the message of a broadcast or a point-to-point transfer;
 * - n == 1 costs 0 (nothing moves);
 * - caller errors return NAN: n < 1, bytes < 0, a negative latency or
 *   bandwidth, or any NaN argument. Test with isnan(). */
double pp_hw_p2p_time(pp_hw_link link, double bytes);
double pp_hw_reduce_scatter_time(pp_hw_link link, int n, double bytes);
double pp_hw_allgather_time(pp_hw_link link, int n, double bytes);
double pp_hw_ring_allreduce_time(pp_hw_link link, int n, double bytes);
double pp_hw_tree_allreduce_time(pp_hw_link link, int n, double bytes);
double pp_hw_alltoall_time(pp_hw_link link, int n, double bytes);
double pp_hw_broadcast_time(pp_hw_link link, int n, double bytes);

/* The faster of ring and tree all-reduce for this size, as NCCL picks per size. */
double pp_hw_allreduce_time(pp_hw_link link, int n, double bytes);

/* The size below which the tree all-reduce is strictly faster than the ring
 * (0 if it never is, e.g. n <= 2); NAN on caller errors. */
double pp_hw_allreduce_crossover_bytes(pp_hw_link link, int n);

/* A ring over unlike links: hops[i] joins participant i to participant
 * (i + 1) mod n. Every step of a ring moves one chunk over every hop at once
 * and waits for the slowest, so the ring behaves as if every hop were the
 * bottleneck: the least bandwidth and the greatest latency. A NULL hops or
 * n < 1 gives a link of NAN bandwidth and latency, which the functions above
 * turn into NAN. */
pp_hw_link pp_hw_ring_bottleneck(const pp_hw_link *hops, int n);
double pp_hw_ring_allreduce_hops_time(const pp_hw_link *hops, int n, double bytes);

#endif
