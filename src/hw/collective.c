/* hw/collective.c: the alpha-beta cost of point-to-point transfers and of the
 * collectives (hw/net_internal.h). With alpha = link latency and
 * beta = 1 / link bandwidth, every algorithm here costs
 *     steps * alpha + volume * beta,
 * where steps is the number of messages on its critical path and volume the
 * bytes that cross the busiest link of one participant. Sources:
 * - ring reduce-scatter, all-gather, all-reduce (= reduce-scatter followed by
 *   all-gather, the split of paper 003 §2.3), pairwise-exchange all-to-all,
 *   binomial-tree and scatter + all-gather broadcasts: Thakur, Rabenseifner,
 *   Gropp, "Optimization of Collective Communication Operations in MPICH",
 *   IJHPCA 19(1), 2005, §3-4 (their n is our bytes, their p our n);
 * - tree all-reduce: NCCL's double binary tree (Sanders, Speck, Träff,
 *   "Two-tree algorithms for full bandwidth broadcast, reduction and scan",
 *   Parallel Computing 35(12), 2009; Jeaugey, "Massively Scale Your Deep
 *   Learning Training with NCCL 2.4", NVIDIA blog, 2019) as NCCL's own tuning
 *   model prices it (src/graph/tuning.cc): a reduce up the tree and a
 *   broadcast down it, 2 floor(log2 n) latencies, and an algorithm bandwidth
 *   of half the link bandwidth, i.e. 2 * bytes * beta. Recursive
 *   halving-doubling was not chosen: for powers of two it never loses to the
 *   ring in this model, so it could not explain why NCCL switches by size. */
#include "hw/net_internal.h"

#include <math.h>
#include <stddef.h>

static int valid_link(pp_hw_link link)
{
    return link.bandwidth >= 0.0 && link.latency >= 0.0;
}

/* Comparisons with NaN are false, so NaN arguments fail here too. */
static int valid_call(pp_hw_link link, int n, double bytes)
{
    return n >= 1 && bytes >= 0.0 && valid_link(link);
}

/* A down link never delivers, whatever the size: without the test 0 bytes
 * over it would cost 0 / 0. */
static double cost(pp_hw_link link, double steps, double volume)
{
    if (link.bandwidth == 0.0)
        return INFINITY;
    return steps * link.latency + volume / link.bandwidth;
}

static int floor_log2(int n)
{
    int levels = 0;
    while (n > 1) {
        n >>= 1;
        levels++;
    }
    return levels;
}

static int ceil_log2(int n)
{
    int levels = floor_log2(n);
    return (1 << levels) < n ? levels + 1 : levels;
}

/* One pass of the ring: n - 1 steps, each moving one chunk of bytes / n. */
static double ring_pass(pp_hw_link link, int n, double bytes)
{
    return cost(link, n - 1, (double)(n - 1) / n * bytes);
}

double pp_hw_p2p_time(pp_hw_link link, double bytes)
{
    if (!valid_call(link, 1, bytes))
        return NAN;
    return cost(link, 1, bytes);
}

double pp_hw_reduce_scatter_time(pp_hw_link link, int n, double bytes)
{
    if (!valid_call(link, n, bytes))
        return NAN;
    return n == 1 ? 0.0 : ring_pass(link, n, bytes);
}

double pp_hw_allgather_time(pp_hw_link link, int n, double bytes)
{
    return pp_hw_reduce_scatter_time(link, n, bytes);
}

double pp_hw_ring_allreduce_time(pp_hw_link link, int n, double bytes)
{
    if (!valid_call(link, n, bytes))
        return NAN;
    return n == 1 ? 0.0 : 2.0 * ring_pass(link, n, bytes);
}

double pp_hw_tree_allreduce_time(pp_hw_link link, int n, double bytes)
{
    if (!valid_call(link, n, bytes))
        return NAN;
    return n == 1 ? 0.0 : cost(link, 2.0 * floor_log2(n), 2.0 * bytes);
}

/* Pairwise exchange: in step i every participant sends the block meant for
 * participant (rank + i) mod n; its own block never moves. */
double pp_hw_alltoall_time(pp_hw_link link, int n, double bytes)
{
    if (!valid_call(link, n, bytes))
        return NAN;
    return n == 1 ? 0.0 : cost(link, n - 1, (double)(n - 1) / n * bytes);
}

/* MPICH's two broadcasts: the binomial tree sends the whole message
 * ceil(log2 n) times in a row, which suits short messages; van de Geijn's
 * scatter then ring all-gather moves about twice the message once, which
 * suits long ones. The faster one is the cost. */
double pp_hw_broadcast_time(pp_hw_link link, int n, double bytes)
{
    if (!valid_call(link, n, bytes))
        return NAN;
    if (n == 1)
        return 0.0;
    int levels = ceil_log2(n);
    double binomial = cost(link, levels, levels * bytes);
    double scatter_allgather = cost(link, levels + n - 1, 2.0 * (n - 1) / n * bytes);
    return fmin(binomial, scatter_allgather);
}

double pp_hw_allreduce_time(pp_hw_link link, int n, double bytes)
{
    return fmin(pp_hw_ring_allreduce_time(link, n, bytes),
                pp_hw_tree_allreduce_time(link, n, bytes));
}

/* ring - tree = 2 alpha ((n - 1) - floor(log2 n)) - 2 bytes beta / n, which is
 * positive exactly when bytes < n alpha bandwidth ((n - 1) - floor(log2 n)). */
double pp_hw_allreduce_crossover_bytes(pp_hw_link link, int n)
{
    if (!valid_call(link, n, 0.0))
        return NAN;
    int saved_steps = (n - 1) - floor_log2(n);
    if (saved_steps == 0 || link.latency == 0.0 || link.bandwidth == 0.0)
        return 0.0;
    return (double)n * link.latency * link.bandwidth * saved_steps;
}

pp_hw_link pp_hw_ring_bottleneck(const pp_hw_link *hops, int n)
{
    pp_hw_link worst = {NAN, NAN};
    if (hops == NULL || n < 1)
        return worst;
    for (int i = 0; i < n; i++)
        if (!valid_link(hops[i]))
            return worst;
    worst = hops[0];
    for (int i = 1; i < n; i++) {
        worst.bandwidth = fmin(worst.bandwidth, hops[i].bandwidth);
        worst.latency = fmax(worst.latency, hops[i].latency);
    }
    return worst;
}

double pp_hw_ring_allreduce_hops_time(const pp_hw_link *hops, int n, double bytes)
{
    return pp_hw_ring_allreduce_time(pp_hw_ring_bottleneck(hops, n), n, bytes);
}
