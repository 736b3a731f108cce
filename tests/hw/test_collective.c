/* test_collective: the communication costs of src/hw/collective.c against
 * numbers worked by hand from the formulas (alpha = 10 us, 1 GB/s), the ring
 * all-reduce as reduce-scatter + all-gather, the ring/tree crossover, the
 * heterogeneous ring and the caller errors. */

#include "check.h"
#include "hw/net_internal.h"

#include <math.h>

static const pp_hw_link LINK = {1e9, 1e-5};

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)) + 1e-18;
}

#define CHECK_NEAR(got, want)                                                          \
    do {                                                                               \
        double g_ = (got), w_ = (want);                                                \
        if (!near(g_, w_)) {                                                           \
            fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, \
                    #got, g_, w_);                                                     \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

static void test_single_participant(void)
{
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_allreduce_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_reduce_scatter_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_allgather_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_alltoall_time(LINK, 1, 8e6), 0.0);
    CHECK_NEAR(pp_hw_broadcast_time(LINK, 1, 8e6), 0.0);
}

/* p2p = 10 us + 8 MB / 1 GB/s. */
static void test_p2p(void)
{
    CHECK_NEAR(pp_hw_p2p_time(LINK, 8e6), 1e-5 + 8e-3);
    CHECK_NEAR(pp_hw_p2p_time(LINK, 0.0), 1e-5);
}

/* n = 2: every ring step is one message of half the buffer. */
static void test_two(void)
{
    CHECK_NEAR(pp_hw_reduce_scatter_time(LINK, 2, 8e6), 1e-5 + 4e-3);
    CHECK_NEAR(pp_hw_allgather_time(LINK, 2, 8e6), 1e-5 + 4e-3);
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 2, 8e6), 2e-5 + 8e-3);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 2, 8e6), 2e-5 + 16e-3);
    CHECK_NEAR(pp_hw_alltoall_time(LINK, 2, 8e6), 1e-5 + 4e-3);
    /* binomial 1e-5 + 8e-3 beats scatter + all-gather 2e-5 + 8e-3 */
    CHECK_NEAR(pp_hw_broadcast_time(LINK, 2, 8e6), 1e-5 + 8e-3);
    /* Same latency count, half the volume: the ring wins at every size. */
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 2, 8e3), 2e-5 + 8e-6);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 2, 8e3), 2e-5 + 16e-6);
    CHECK_NEAR(pp_hw_allreduce_time(LINK, 2, 8e3), 2e-5 + 8e-6);
    CHECK_NEAR(pp_hw_allreduce_crossover_bytes(LINK, 2), 0.0);
}

/* n = 8, large (8 MB) and small (8 kB) buffers. */
static void test_eight(void)
{
    CHECK_NEAR(pp_hw_reduce_scatter_time(LINK, 8, 8e6), 7e-5 + 7e-3);
    CHECK_NEAR(pp_hw_allgather_time(LINK, 8, 8e6), 7e-5 + 7e-3);
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 8, 8e6), 14e-5 + 14e-3);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 8, 8e6), 6e-5 + 16e-3);
    CHECK_NEAR(pp_hw_allreduce_time(LINK, 8, 8e6), 14e-5 + 14e-3);
    CHECK_NEAR(pp_hw_alltoall_time(LINK, 8, 8e6), 7e-5 + 7e-3);

    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 8, 8e3), 14e-5 + 14e-6);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 8, 8e3), 6e-5 + 16e-6);
    CHECK_NEAR(pp_hw_allreduce_time(LINK, 8, 8e3), 6e-5 + 16e-6);
    CHECK_NEAR(pp_hw_alltoall_time(LINK, 8, 8e3), 7e-5 + 7e-6);

    /* Broadcast: binomial 3 (alpha + bytes beta) against scatter + all-gather
     * 10 alpha + 2 * 7/8 bytes beta; small messages take the first. */
    CHECK_NEAR(pp_hw_broadcast_time(LINK, 8, 8e3), 3e-5 + 24e-6);
    CHECK_NEAR(pp_hw_broadcast_time(LINK, 8, 8e6), 10e-5 + 14e-3);
}

/* n = 5 is not a power of two: the tree is floor(log2 5) = 2 levels deep,
 * the binomial broadcast ceil(log2 5) = 3 rounds long. */
static void test_five(void)
{
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 5, 0.0), 4e-5);
    CHECK_NEAR(pp_hw_broadcast_time(LINK, 5, 0.0), 3e-5);
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 5, 5e6), 8e-5 + 8e-3);
}

static void test_split_equals_ring(void)
{
    const double sizes[] = {0.0, 1.0, 8e3, 1234567.0, 8e6, 1e9};
    for (int n = 1; n <= 16; n++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            double split = pp_hw_reduce_scatter_time(LINK, n, sizes[i]) +
                           pp_hw_allgather_time(LINK, n, sizes[i]);
            CHECK_NEAR(split, pp_hw_ring_allreduce_time(LINK, n, sizes[i]));
        }
}

/* The crossover is n alpha bandwidth ((n - 1) - floor(log2 n)): 320 kB for
 * n = 8, 40 kB for n = 4. Both algorithms cost the same there, the tree wins
 * below and the ring above, and pp_hw_allreduce_time follows. */
static void test_crossover(void)
{
    CHECK_NEAR(pp_hw_allreduce_crossover_bytes(LINK, 8), 320e3);
    CHECK_NEAR(pp_hw_allreduce_crossover_bytes(LINK, 4), 40e3);
    CHECK_NEAR(pp_hw_ring_allreduce_time(LINK, 8, 320e3), 7e-4);
    CHECK_NEAR(pp_hw_tree_allreduce_time(LINK, 8, 320e3), 7e-4);
    for (int n = 3; n <= 64; n++) {
        double cross = pp_hw_allreduce_crossover_bytes(LINK, n);
        CHECK(cross > 0.0);
        double below = cross * 0.99, above = cross * 1.01;
        CHECK(pp_hw_tree_allreduce_time(LINK, n, below) < pp_hw_ring_allreduce_time(LINK, n, below));
        CHECK(pp_hw_ring_allreduce_time(LINK, n, above) < pp_hw_tree_allreduce_time(LINK, n, above));
        CHECK_NEAR(pp_hw_allreduce_time(LINK, n, below), pp_hw_tree_allreduce_time(LINK, n, below));
        CHECK_NEAR(pp_hw_allreduce_time(LINK, n, above), pp_hw_ring_allreduce_time(LINK, n, above));
    }
}

/* Four hops, the slowest bandwidth on hop 1 and the worst latency on hop 2:
 * 2 * 3 * 30 us + 2 * 3/4 * 4 MB / 200 MB/s. */
static void test_heterogeneous_ring(void)
{
    pp_hw_link hops[4] = {{1e9, 1e-5}, {2e8, 2e-6}, {5e8, 3e-5}, {1e9, 1e-6}};
    pp_hw_link worst = pp_hw_ring_bottleneck(hops, 4);
    CHECK_NEAR(worst.bandwidth, 2e8);
    CHECK_NEAR(worst.latency, 3e-5);
    CHECK_NEAR(pp_hw_ring_allreduce_hops_time(hops, 4, 4e6), 18e-5 + 3e-2);

    /* Where the slow hop sits in the ring does not matter. */
    pp_hw_link rotated[4] = {hops[2], hops[3], hops[0], hops[1]};
    CHECK_NEAR(pp_hw_ring_allreduce_hops_time(rotated, 4, 4e6), 18e-5 + 3e-2);

    /* Alike hops give the homogeneous ring. */
    pp_hw_link alike[8] = {LINK, LINK, LINK, LINK, LINK, LINK, LINK, LINK};
    CHECK_NEAR(pp_hw_ring_allreduce_hops_time(alike, 8, 8e6),
               pp_hw_ring_allreduce_time(LINK, 8, 8e6));

    /* Speeding up every hop but the slowest changes nothing. */
    pp_hw_link faster[4] = {{1e12, 0.0}, {2e8, 2e-6}, {1e12, 3e-5}, {1e12, 0.0}};
    CHECK_NEAR(pp_hw_ring_allreduce_hops_time(faster, 4, 4e6), 18e-5 + 3e-2);

    /* One hop down stops the whole ring. */
    pp_hw_link down[4] = {hops[0], {0.0, 1e-6}, hops[2], hops[3]};
    CHECK(isinf(pp_hw_ring_allreduce_hops_time(down, 4, 4e6)));
}

static void test_caller_errors(void)
{
    CHECK(isnan(pp_hw_ring_allreduce_time(LINK, 0, 8e6)));
    CHECK(isnan(pp_hw_tree_allreduce_time(LINK, -3, 8e6)));
    CHECK(isnan(pp_hw_allreduce_time(LINK, 0, 8e6)));
    CHECK(isnan(pp_hw_reduce_scatter_time(LINK, 8, -1.0)));
    CHECK(isnan(pp_hw_allgather_time(LINK, 8, NAN)));
    CHECK(isnan(pp_hw_alltoall_time(LINK, 1, -1.0)));
    CHECK(isnan(pp_hw_broadcast_time(LINK, 0, 1.0)));
    CHECK(isnan(pp_hw_p2p_time(LINK, -1.0)));
    CHECK(isnan(pp_hw_p2p_time((pp_hw_link){-1e9, 1e-5}, 1.0)));
    CHECK(isnan(pp_hw_p2p_time((pp_hw_link){1e9, -1e-5}, 1.0)));
    CHECK(isnan(pp_hw_ring_allreduce_time((pp_hw_link){NAN, 1e-5}, 8, 1.0)));
    CHECK(isnan(pp_hw_allreduce_crossover_bytes(LINK, 0)));
    CHECK(isnan(pp_hw_ring_allreduce_hops_time(NULL, 4, 1.0)));
    pp_hw_link hops[2] = {{-1.0, 1e-6}, LINK};
    CHECK(isnan(pp_hw_ring_allreduce_hops_time(hops, 2, 1.0)));
    CHECK(isnan(pp_hw_ring_allreduce_hops_time(hops, 0, 1.0)));

    /* A down link is not an error: the transfer never ends. */
    pp_hw_link down = {0.0, 1e-5};
    CHECK(isinf(pp_hw_p2p_time(down, 0.0)));
    CHECK(isinf(pp_hw_allreduce_time(down, 8, 8e6)));
    CHECK_NEAR(pp_hw_allreduce_time(down, 1, 8e6), 0.0);
}

int main(void)
{
    test_single_participant();
    test_p2p();
    test_two();
    test_eight();
    test_five();
    test_split_equals_ring();
    test_crossover();
    test_heterogeneous_ring();
    test_caller_errors();
    return CHECK_DONE();
}
