/* test_network.c: the simulator's flow-level network against hand-computed
 * finish times: latency plus bytes over bandwidth, two flows sharing a NIC,
 * a pool of two NICs, max-min fairness that is not an equal split, the
 * multi-edge link choice, a bandwidth event mid-flow and a link down for good;
 * random flows sent over time against a plain per-flow max-min simulation
 * written here, and finished flows reported in the order they were sent. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "cluster/fixture.h"
#include "cluster/network.h"

#define MAX_FLOWS 16
#define RANDOM_FLOWS 48

typedef struct {
    double end[RANDOM_FLOWS];
    int order[RANDOM_FLOWS], count; /* owners as reported */
} ends;

static void record(void *ctx, int owner, double now)
{
    ends *e = ctx;
    e->end[owner] = now;
    e->order[e->count++] = owner;
}

/* Runs the network until nothing more happens; returns the last time. */
static double drain(cluster_net *n, ends *e)
{
    double last = 0;
    for (double t = cluster_net_next(n); isfinite(t); t = cluster_net_next(n)) {
        cluster_net_advance(n, t, record, e);
        last = t;
    }
    return last;
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static void send(cluster_net *n, int src, int dst, double bytes, int owner)
{
    pp_error err;
    int flow;
    CHECK(cluster_net_send(n, src, dst, bytes, 1, owner, &flow, &err) == PP_OK);
}

static pp_hw_device_type types[3];

static pp_cluster *two_nodes(int per_node)
{
    int counts[2] = {per_node, per_node};
    return fixture_cluster(2, counts, types, 4e9, 1e9);
}

static void test_latency_plus_bytes(void)
{
    pp_cluster *c = two_nodes(2);
    c->links[1].latency = c->links[3].latency = 1e-3;
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    send(n, 0, 2, 5e8, 0);
    send(n, 0, 1, 2e9, 1); /* inside node 0: its own port, no latency */
    drain(n, &e);
    CHECK(near(e.end[0], 1e-3 + 0.5));
    CHECK(near(e.end[1], 0.5));
    CHECK(near(cluster_net_communication(n, 0), 0.501));
    CHECK(near(cluster_net_communication(n, 2), 0.501));
    CHECK(near(cluster_net_communication(n, 1), 0.5));
    char name[64];
    double start, end;
    int owner, out, in;
    cluster_net_flow(n, 0, &start, &end, &owner, &out, &in);
    cluster_net_resource_name(n, out, name, sizeof name);
    CHECK(strcmp(name, "n0 nic out") == 0);
    cluster_net_resource_name(n, in, name, sizeof name);
    CHECK(strcmp(name, "n1 nic in") == 0);
    cluster_net_flow(n, 1, &start, &end, &owner, &out, &in);
    cluster_net_resource_name(n, in, name, sizeof name);
    CHECK(strcmp(name, "n0/1 fast in") == 0);
    pp_arena_free(a);
    pp_cluster_free(c);
}

static void test_shared_nic(void)
{
    pp_cluster *c = two_nodes(2);
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    send(n, 0, 2, 1e9, 0);
    send(n, 1, 3, 1e9, 1);
    drain(n, &e);
    CHECK(near(e.end[0], 2.0));
    CHECK(near(e.end[1], 2.0));
    pp_arena_free(a);
    pp_cluster_free(c);
}

static void test_two_port_pool(void)
{
    pp_cluster *c = two_nodes(2);
    c->links[1].ports = c->links[3].ports = 2;
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    send(n, 0, 2, 1e9, 0);
    send(n, 1, 3, 1e9, 1);
    drain(n, &e);
    CHECK(near(e.end[0], 1.0));
    CHECK(near(e.end[1], 1.0));
    send(n, 0, 3, 1e9, 2); /* alone: one NIC, not two */
    drain(n, &e);
    CHECK(near(e.end[2], 2.0));
    pp_arena_free(a);
    pp_cluster_free(c);
}

/* n0 has a pool of 2 NICs; A goes to n1, B and C to n2 (one NIC each).
 * n2's NIC halves between B and C; max-min then gives A a full NIC (not
 * the 2/3 an equal split of n0's pool would). */
static void test_max_min(void)
{
    int counts[3] = {2, 2, 2};
    pp_cluster *c = fixture_cluster(3, counts, types, 4e9, 1e9);
    c->links[1].ports = 2;
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    send(n, 0, 2, 1e9, 0);
    send(n, 0, 4, 1e9, 1);
    send(n, 1, 5, 1e9, 2);
    drain(n, &e);
    CHECK(near(e.end[0], 1.0));
    CHECK(near(e.end[1], 2.0));
    CHECK(near(e.end[2], 2.0));
    pp_arena_free(a);
    pp_cluster_free(c);
}

/* One node with "fast" (1e9) and "pcie" (6e8): the first flow from device 0
 * takes fast; the second sees fast's share halve (5e8) and takes pcie. */
static void test_multi_edge(void)
{
    int counts[1] = {3};
    pp_cluster *c = fixture_cluster(1, counts, types, 1e9, 1e9);
    pp_cluster_link *links = pp_arena_calloc(c->arena, 3, sizeof *links);
    links[0] = c->links[0];
    links[1] = c->links[1];
    links[2] = (pp_cluster_link){"pcie", 0, false, 1, 6e8, 0};
    c->links = links;
    c->link_count = 3;
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    send(n, 0, 1, 1e9, 0);
    send(n, 0, 2, 1e9, 1);
    drain(n, &e);
    CHECK(near(e.end[0], 1.0));
    CHECK(near(e.end[1], 1e9 / 6e8));
    pp_arena_free(a);
    pp_cluster_free(c);
}

/* 1e9 bytes at 1e9 B/s; at 0.5 s (run time 10.5, the step began at 10)
 * the link drops to 2.5e8: 5e8 bytes left take 2 s more. */
static void test_event_mid_flow(void)
{
    pp_cluster *c = two_nodes(2);
    fixture_event(c, 3.0, "nic", -1, 5e8, -1); /* before the step: applies from the start */
    fixture_event(c, 10.0, "nic", -1, 1e9, -1);
    fixture_event(c, 10.5, "nic", 1, 2.5e8, -1);
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 10.0, MAX_FLOWS, a);
    CHECK(cluster_net_bandwidth(n, 1) == 1e9);
    ends e = {{0}, {0}, 0};
    send(n, 0, 2, 1e9, 0);
    drain(n, &e);
    CHECK(near(e.end[0], 2.5));
    CHECK(cluster_net_bandwidth(n, 1) == 1e9);
    CHECK(cluster_net_bandwidth(n, 3) == 2.5e8);
    pp_arena_free(a);
    pp_cluster_free(c);
}

static void test_down_for_good(void)
{
    pp_cluster *c = two_nodes(2);
    fixture_event(c, 0.25, "nic", 0, 0, -1);
    pp_arena *a = pp_arena_new(0);
    cluster_net *n = cluster_net_new(c, 0, MAX_FLOWS, a);
    ends e = {{0}, {0}, 0};
    e.end[0] = -1;
    send(n, 0, 2, 1e9, 0);
    CHECK(near(drain(n, &e), 0.25));
    CHECK(e.end[0] == -1);
    CHECK(isinf(cluster_net_next(n)));
    double start, end;
    int owner, out, in;
    cluster_net_flow(n, 0, &start, &end, &owner, &out, &in);
    CHECK(isinf(end));
    pp_arena_free(a);
    pp_cluster_free(c);
}

/* The reference: flows sent at given times, waiting their latency, then
 * sharing resources (a device's port of "fast" each way; a node's pool of
 * `ports` NICs each way, one NIC's bandwidth at most a flow) max-min fairly,
 * every rate set again by progressive filling over all moving flows at every
 * change. Fills end[]. */
typedef struct {
    int res[2];
    double sent, ready, bytes, left, rate, end;
    double cap;
} ref_flow;

static void ref_rates(ref_flow *f, int count, const double *res_cap, int res_count, double now)
{
    double left[64];
    int users[64];
    bool frozen[RANDOM_FLOWS];
    for (int r = 0; r < res_count; r++) {
        left[r] = res_cap[r];
        users[r] = 0;
    }
    for (int i = 0; i < count; i++) {
        bool moving = f[i].ready <= now && f[i].end < 0;
        frozen[i] = !moving;
        f[i].rate = 0;
        for (int k = 0; moving && k < 2; k++)
            users[f[i].res[k]]++;
    }
    for (;;) {
        double lambda = INFINITY;
        for (int i = 0; i < count; i++)
            if (!frozen[i])
                for (int k = 0; k < 2; k++)
                    lambda = fmin(lambda, fmin(f[i].cap, left[f[i].res[k]] / users[f[i].res[k]]));
        if (isinf(lambda))
            return;
        bool stop[RANDOM_FLOWS];
        for (int i = 0; i < count; i++) {
            stop[i] = false;
            for (int k = 0; !frozen[i] && k < 2; k++)
                stop[i] |= f[i].cap <= lambda * (1 + 1e-12) ||
                           left[f[i].res[k]] / users[f[i].res[k]] <= lambda * (1 + 1e-12);
        }
        for (int i = 0; i < count; i++)
            if (stop[i]) {
                frozen[i] = true;
                f[i].rate = lambda;
                for (int k = 0; k < 2; k++) {
                    left[f[i].res[k]] -= lambda;
                    users[f[i].res[k]]--;
                }
            }
    }
}

static void ref_run(ref_flow *f, int count, const double *res_cap, int res_count)
{
    double now = 0;
    for (;;) {
        ref_rates(f, count, res_cap, res_count, now);
        double next = INFINITY;
        for (int i = 0; i < count; i++) {
            if (f[i].end >= 0)
                continue;
            next = fmin(next, f[i].ready > now ? f[i].ready : now + f[i].left / f[i].rate);
        }
        if (isinf(next))
            return;
        for (int i = 0; i < count; i++)
            if (f[i].end < 0 && f[i].ready <= now) {
                f[i].left -= f[i].rate * (next - now);
                if (f[i].left <= 1e-9 * f[i].bytes)
                    f[i].end = next;
            }
        now = next;
    }
}

/* Three nodes of two devices, NIC pools of 1 or 2 ports and a latency:
 * 48 flows of random pairs (many sharing both ends, so starting at
 * different times through the same resources) and sizes, sent at random
 * times; each ends when the reference says, and flows ending together are
 * reported in the order they were sent. */
static void test_random_against_reference(void)
{
    int counts[3] = {2, 2, 2};
    srand(16);
    for (int round = 0; round < 20; round++) {
        pp_cluster *c = fixture_cluster(3, counts, types, 4e9, 1e9);
        for (int node = 0; node < 3; node++) {
            c->links[2 * node + 1].ports = 1 + rand() % 2;
            c->links[2 * node + 1].latency = 1e-3;
        }
        /* resources: [0, 6) device out ports, [6, 12) in ports, 12 + node out pool, 15 + node in pool */
        double res_cap[18];
        for (int r = 0; r < 12; r++)
            res_cap[r] = 4e9;
        for (int node = 0; node < 3; node++)
            res_cap[12 + node] = res_cap[15 + node] = c->links[2 * node + 1].ports * 1e9;
        ref_flow f[RANDOM_FLOWS];
        int src[RANDOM_FLOWS], dst[RANDOM_FLOWS];
        for (int i = 0; i < RANDOM_FLOWS; i++) {
            src[i] = rand() % 3;
            dst[i] = (src[i] + 1 + rand() % 5) % 6;
            bool inter = src[i] / 2 != dst[i] / 2;
            double sent = i == 0 ? 0 : f[i - 1].sent + (rand() % 4 == 0 ? 0 : 0.05 * (rand() % 8));
            double bytes = rand() % 10 == 0 ? 0 : 1e8 * (1 + rand() % 10);
            f[i] = (ref_flow){{inter ? 12 + src[i] / 2 : src[i], inter ? 15 + dst[i] / 2 : 6 + dst[i]},
                              sent, sent + (inter ? 1e-3 : 0), bytes, bytes, 0, -1,
                              inter ? 1e9 : INFINITY};
        }
        ref_run(f, RANDOM_FLOWS, res_cap, 18);
        pp_arena *a = pp_arena_new(0);
        cluster_net *n = cluster_net_new(c, 0, 4, a); /* grows */
        ends e = {{0}, {0}, 0};
        for (int i = 0; i < RANDOM_FLOWS; i++) {
            for (double t = cluster_net_next(n); t <= f[i].sent; t = cluster_net_next(n))
                cluster_net_advance(n, t, record, &e);
            cluster_net_advance(n, f[i].sent, record, &e);
            send(n, src[i], dst[i], f[i].bytes, i);
        }
        drain(n, &e);
        CHECK(e.count == RANDOM_FLOWS);
        for (int i = 0; i < RANDOM_FLOWS; i++)
            CHECK(near(e.end[i], f[i].end));
        for (int k = 1; k < e.count; k++)
            CHECK(e.end[e.order[k - 1]] < e.end[e.order[k]] || e.order[k - 1] < e.order[k]);
        pp_arena_free(a);
        pp_cluster_free(c);
    }
}

int main(void)
{
    for (int k = 0; k < 3; k++)
        types[k] = fixture_type("T", 1e12, 80e9);
    test_latency_plus_bytes();
    test_shared_nic();
    test_two_port_pool();
    test_max_min();
    test_multi_edge();
    test_event_mid_flow();
    test_down_for_good();
    test_random_against_reference();
    return CHECK_DONE();
}
