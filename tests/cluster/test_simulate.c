/* test_simulate.c: the step simulator against hand-computed step times (one
 * device; a balanced 2-stage 1F1B; a transfer's latency and bytes; a
 * bandwidth event mid-transfer; a link down for good; a TP group waiting for
 * its link; TP overlap and replicated traffic; data-parallel sync of 2
 * replicas, overlapped or after the backward; ZeRO-3's gathers hidden and
 * not, its reduce-scatter and memory; expert parallelism's all-to-alls and
 * memory; a tied embedding's all-reduce; interleaved chunks of two sizes;
 * an uneven TP split over unlike devices; a given order of F, B and W,
 * 1F1B's and a zero-bubble one, and orders refused), the report's figures,
 * determinism, the timeline, and random plans against an independent 1F1B
 * recurrence and a lower bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cluster/fixture.h"
#include "core/timeline_internal.h"
#include "hw/net_internal.h"

static pp_hw_device_type types[4], pair[2]; /* pair: two nodes of one type */

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* One replica of `stages` stages with tp 1, layers_each layers each, devices
 * in the order given. */
static pp_cluster_plan *pipeline(int stages, int layers_each, int micro_batch, int micro_batches,
                                 const int *devices)
{
    int tp[16] = {0};
    for (int s = 0; s < stages; s++)
        tp[s] = 1;
    pp_cluster_plan *p = pp_cluster_plan_new(1, stages, tp);
    p->micro_batch = micro_batch;
    p->micro_batches[0] = micro_batches;
    for (int s = 0; s < stages; s++) {
        p->stage_layers[s] = layers_each;
        p->devices[s] = devices[s];
    }
    return p;
}

static double simulate(const pp_cluster *c, const pp_cluster_workload *w,
                       const pp_cluster_plan *p, pp_cluster_report *r)
{
    pp_error err;
    pp_cluster_sim_options o = {.start_time = 0};
    pp_status st = pp_cluster_simulate(c, w, p, &o, r, &err);
    CHECK(st == PP_OK);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    return r->step_time;
}

/* 4 layers of 1e9 FLOPs a sample on 1e12 FLOP/s; 1e9 state bytes each read
 * and written by the optimizer at 1e11 B/s. */
static void test_one_device(void)
{
    int counts[1] = {1};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e9, 0, 0, 8);
    int dev[1] = {0};
    pp_cluster_plan *p = pipeline(1, 4, 2, 4, dev);
    pp_cluster_report r;
    double F = 2 * 4e9 / 1e12, B = 2 * F, opt = 2 * 4e9 / 1e11;
    CHECK(near(simulate(c, w, p, &r), 4 * (F + B) + opt));
    CHECK(near(r.samples_per_second, 8 / r.step_time));
    CHECK(near(r.tflops_per_device, 3 * 4e9 * 8 / r.step_time / 1e12));
    CHECK(near(r.compute[0], r.step_time));
    CHECK(near(r.idle[0], 0));
    CHECK(r.communication[0] == 0);
    CHECK(r.peak_memory[0] >= 4e9);
    CHECK(r.fits);
    pp_cluster_report_free(&r);
    /* Selective recomputation rebuilds 0.25e9 FLOPs a layer and sample in
     * every backward, and is counted as work done; a stage that recomputes
     * fully costs the same with it or without. ZeRO-1 on one replica keeps
     * the optimizer's time. */
    for (int k = 0; k < 4; k++)
        w->layers[k].selective_flops = 0.25e9;
    p->selective_recompute = p->distributed_optimizer = true;
    double S = 2 * 4 * 0.25e9 / 1e12;
    CHECK(near(simulate(c, w, p, &r), 4 * (F + B + S) + opt));
    CHECK(near(r.tflops_per_device, (3 + 0.25) * 4e9 * 8 / r.step_time / 1e12));
    pp_cluster_report_free(&r);
    p->stage_recompute[0] = true;
    double full = simulate(c, w, p, &r);
    pp_cluster_report_free(&r);
    p->selective_recompute = false;
    CHECK(near(simulate(c, w, p, &r), full));
    CHECK(near(full, 4 * (F + B + F) + opt));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Balanced stages, transfers of 0 bytes: (m + p - 1)(F + B), then stage 0's
 * optimizer. */
/* Interleaved 1F1B, 4 stages of 4 layers, 8 micro-batches, transfers of 0
 * bytes: with v chunks a stage the pipeline fills and drains in chunk passes,
 * so the step is m (F + B) + (p - 1)(F + B)/v (Narayanan et al. section
 * 2.2.2's bubble (p - 1)/(v m)), then stage 0's optimizer; each micro-batch
 * crosses v p - 1 stage boundaries each way; stage 0 holds v p + p - 1
 * chunks' activations at its peak. */
static void test_interleaved(void)
{
    int counts[1] = {4};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
    pp_cluster_workload *w = fixture_workload(16, 1e9, 1e9, 100, 0, 8);
    int dev[4] = {0, 1, 2, 3};
    pp_cluster_plan *p = pipeline(4, 4, 1, 8, dev);
    double F = 4e9 / 1e12, B = 2 * F, opt = 2 * 4e9 / 1e11;
    for (int v = 1; v <= 4; v *= 2) {
        p->virtual_stages = v;
        pp_error err = {0};
        CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
        pp_cluster_report r;
        CHECK(near(simulate(c, w, p, &r), 8 * (F + B) + 3 * (F + B) / v + opt));
        double chunks = v == 1 ? 4 : 4 * v + 3;
        CHECK(near(r.peak_memory[0], 4e9 + chunks * 4 * 100 / v));
        pp_cluster_report_free(&r);
    }
    pp_cluster_sim_options o = {.timeline = pp_timeline_new("t", 1e6)};
    pp_cluster_report r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_simulate(c, w, p, &o, &r, &err), PP_OK);
    /* Each device: 4 chunks x 8 micro-batches, forward and backward, and
     * its optimizer; 4 x 4 - 1 boundaries crossed by 8 micro-batches each
     * way, every flow drawn on its sending and its receiving port. */
    CHECK_EQ_INT(pp_timeline_box_count(o.timeline), 4 * (2 * 4 * 8 + 1) + 2 * 2 * 15 * 8);
    pp_cluster_report_free(&r);
    pp_timeline_free(o.timeline);
    /* Micro-batches must come in multiples of the stages; every chunk holds a layer. */
    p->micro_batches[0] = 6;
    w->global_batch = 6;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    p->micro_batches[0] = 8;
    w->global_batch = 8;
    p->virtual_stages = 5;
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Interleaved chunks of two sizes (3 stages of 3, 4 and 3 layers, v 2):
 * virtual stages 0..5 hold layers 0 | 1-2 | 3-4 | 5-6 | 7-8 | 9, so with
 * layer k at (k + 1) 1e9 FLOPs a sample, 3 micro-batches of one sample
 * and no state, device s computes 3 x 3 (F of its layers) at 1e12 FLOP/s:
 * device 0 layers 0, 5, 6 (14e9), device 1 layers 1, 2, 7, 8 (22e9),
 * device 2 layers 3, 4, 9 (19e9). */
static void test_uneven_chunks(void)
{
    int counts[1] = {3};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
    pp_cluster_workload *w = fixture_workload(10, 1e9, 0, 0, 0, 3);
    for (int k = 0; k < 10; k++) {
        w->layers[k].forward_flops = 1e9 * (k + 1);
        w->layers[k].backward_flops = 2e9 * (k + 1);
    }
    int dev[3] = {0, 1, 2};
    pp_cluster_plan *p = pipeline(3, 3, 1, 3, dev);
    p->stage_layers[1] = 4;
    p->virtual_stages = 2;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    pp_cluster_report r;
    simulate(c, w, p, &r);
    static const double work[3] = {14e9, 22e9, 19e9};
    for (int d = 0; d < 3; d++)
        CHECK(near(r.compute[d], 9 * work[d] / 1e12));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

static void test_two_stage_1f1b(void)
{
    int counts[1] = {2};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
    pp_cluster_workload *w = fixture_workload(4, 1e9, 1e9, 0, 0, 4);
    int dev[2] = {0, 1};
    pp_cluster_plan *p = pipeline(2, 2, 1, 4, dev);
    pp_cluster_report r;
    double F = 2e9 / 1e12, B = 2 * F, opt = 2 * 2e9 / 1e11;
    CHECK(near(simulate(c, w, p, &r), (4 + 2 - 1) * (F + B) + opt));
    CHECK(near(r.compute[0], 4 * (F + B) + opt));
    CHECK(near(r.idle[1], r.step_time - r.compute[1]));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Two nodes, one micro-batch: F0, activation (latency + bytes / bw), F1,
 * B1, gradient back, B0, optimizer 0. */
static void test_transfer(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    c->links[1].latency = c->links[3].latency = 1e-3;
    pp_cluster_workload *w = fixture_workload(2, 1e9, 1e9, 0, 2.5e8, 2);
    int dev[2] = {0, 1};
    pp_cluster_plan *p = pipeline(2, 1, 2, 1, dev);
    pp_cluster_report r;
    double F = 2e9 / 1e12, B = 2 * F, T = 1e-3 + 5e8 / 1e9, opt = 2e9 / 1e11;
    CHECK(near(simulate(c, w, p, &r), 2 * (F + B) + 2 * T + opt));
    CHECK(near(r.communication[0], 2 * T));
    CHECK(near(r.communication[1], 2 * T));
    CHECK(near(r.compute[1], F + B + opt));
    pp_cluster_report_free(&r);

    /* The NIC of node 1 halves 0.1 s into the activation (run time 5.1; the
     * step starts at 5): 1e8 bytes went at 1e9, 4e8 go at 5e8. */
    fixture_event(c, 5 + F + 1e-3 + 0.1, "nic", 1, 5e8, -1);
    pp_cluster_sim_options o = {.start_time = 5.0};
    pp_error err;
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    double T1 = 1e-3 + 0.1 + 4e8 / 5e8, T2 = 1e-3 + 5e8 / 5e8;
    CHECK(near(r.step_time, 2 * (F + B) + T1 + T2 + opt));
    pp_cluster_report_free(&r);

    /* Down for good before the step: the pipeline never gets its input. */
    fixture_event(c, 5.5, "nic", -1, 0, -1);
    o.start_time = 6;
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    CHECK(isinf(r.step_time) && r.step_time > 0);
    CHECK(r.samples_per_second == 0);
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* One stage of one layer, tp 2 on devices 0 and 1, 2 micro-batches of 1. */
static pp_cluster_plan *tp_pair_plan(void)
{
    int tp[1] = {2};
    pp_cluster_plan *p = pp_cluster_plan_new(1, 1, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = 2;
    p->stage_layers[0] = 1;
    p->devices[0] = 0;
    p->devices[1] = 1;
    return p;
}

/* One stage, tp 2 in one node; the node's link is down from 0 to 0.5 s, so
 * the group starts at 0.5; each pass adds the ring all-reduce. */
static void test_tp_waits(void)
{
    int counts[1] = {2};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
    fixture_event(c, 0, "fast", -1, 0, -1);
    fixture_event(c, 0.5, "fast", 0, 2e9, -1);
    pp_cluster_workload *w = fixture_workload(1, 1e9, 0, 0, 0, 2);
    w->layers[0].tp_forward_bytes = 1e7;
    w->layers[0].tp_backward_bytes = 3e7;
    pp_cluster_plan *p = tp_pair_plan();
    pp_cluster_report r;
    pp_hw_link link = {2e9, 0};
    double F = 0.5e9 / 1e12 + pp_hw_allreduce_time(link, 2, 1e7);
    double B = 1e9 / 1e12 + pp_hw_allreduce_time(link, 2, 3e7);
    CHECK(near(simulate(c, w, p, &r), 0.5 + 2 * (F + B)));
    CHECK(near(r.compute[1], 2 * (F + B)));
    pp_cluster_report_free(&r);
    /* With recomputation the backward replays the forward's all-reduce too. */
    p->stage_recompute[0] = true;
    double Br = 1.5e9 / 1e12 + pp_hw_allreduce_time(link, 2, 4e7);
    CHECK(near(simulate(c, w, p, &r), 0.5 + 2 * (F + Br)));
    pp_cluster_report_free(&r);
    /* Sequence parallelism: each all-reduce becomes a ring reduce-scatter
     * and all-gather of the same bytes. */
    p->stage_recompute[0] = false;
    p->sequence_parallel = true;
    double Fs = 0.5e9 / 1e12 + pp_hw_reduce_scatter_time(link, 2, 1e7) + pp_hw_allgather_time(link, 2, 1e7);
    double Bs = 1e9 / 1e12 + pp_hw_reduce_scatter_time(link, 2, 3e7) + pp_hw_allgather_time(link, 2, 3e7);
    CHECK(near(simulate(c, w, p, &r), 0.5 + 2 * (Fs + Bs)));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* One stage, tp 2 on 1e12 FLOP/s, 1e11 B/s devices, 2 micro-batches of 1.
 * Under tp_overlap a backward's own all-reduce runs beside the column-
 * parallel weight gradients (overlap_flops, split like the rest) and only
 * what outlasts them counts; a replayed forward's stays in line. Memory
 * traffic: the split part halves per member, the replicated part does not
 * (unless sequence parallelism splits it). */
static void test_tp_overlap_and_traffic(void)
{
    int counts[1] = {2};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 2e9, 1e9);
    pp_cluster_workload *w = fixture_workload(1, 1e9, 0, 0, 0, 2);
    w->layers[0].tp_forward_bytes = 1e7;
    w->layers[0].tp_backward_bytes = 3e7;
    w->layers[0].overlap_flops = 4e8;
    pp_cluster_plan *p = tp_pair_plan();
    p->tp_overlap = true;
    pp_cluster_report r;
    pp_hw_link link = {2e9, 0};
    double F = 0.5e-3 + pp_hw_allreduce_time(link, 2, 1e7), own = pp_hw_allreduce_time(link, 2, 3e7);
    double hide = 0.5 * 4e8 / 1e12;
    CHECK(hide < own); /* partly hidden */
    CHECK(near(simulate(c, w, p, &r), 2 * (F + 1e-3 + own - hide)));
    pp_cluster_report_free(&r);
    w->layers[0].overlap_flops = 1e11; /* 0.05 s of weight gradients: all hidden */
    CHECK(near(simulate(c, w, p, &r), 2 * (F + 1e-3)));
    pp_cluster_report_free(&r);
    p->stage_recompute[0] = true; /* the replay's all-reduce is not hidden */
    double Br = 1.5e-3 + pp_hw_allreduce_time(link, 2, 4e7) - own;
    CHECK(near(simulate(c, w, p, &r), 2 * (F + Br)));
    pp_cluster_report_free(&r);
    p->stage_recompute[0] = false;
    p->tp_overlap = false;
    w->layers[0].tp_forward_bytes = w->layers[0].tp_backward_bytes = 0;
    w->layers[0].traffic_bytes = 1e8;
    w->layers[0].traffic_replicated_bytes = 1e8;
    double T = (0.5e8 + 1e8) / 1e11;
    CHECK(near(simulate(c, w, p, &r), 2 * (0.5e-3 + T + 1e-3 + T)));
    pp_cluster_report_free(&r);
    p->sequence_parallel = true;
    CHECK(near(simulate(c, w, p, &r), 2 * (0.5e-3 + 1e-3 + 1e-3 + 1e-3)));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Two replicas of one stage (2 layers) on two nodes. The last backward
 * starts at t0 = m F + (m - 1) B; layer 1's gradients are ready at t0 + B/2,
 * layer 0's at t0 + B; each bucket is a 2-hop ring, hop bytes 2 (n-1)/n g = g
 * in opposite directions (full bandwidth each) plus 2 latencies. */
static void test_dp_sync(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    c->links[1].latency = c->links[3].latency = 1e-4;
    pp_cluster_workload *w = fixture_workload(2, 1e11, 8e8, 0, 0, 6); /* g = 1e8 */
    int tp[1] = {1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 1, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = p->micro_batches[1] = 3;
    p->stage_layers[0] = 2;
    p->devices[0] = 0;
    p->devices[1] = 1;
    pp_cluster_report r;
    double F = 2e11 / 1e12, B = 2 * F, t0 = 3 * F + 2 * B, ring = 2 * 1e-4 + 1e8 / 1e9;
    double opt = 2 * 1.6e9 / 1e11;
    CHECK(ring < B / 2); /* the two buckets do not overlap */
    CHECK(near(simulate(c, w, p, &r), t0 + B + ring + opt));
    CHECK(near(r.communication[0], 2 * ring));
    CHECK(near(r.samples_per_second, 6 / r.step_time));
    pp_cluster_report_free(&r);
    /* Reduced after the backward: both buckets start at t0 + B and share
     * each direction's NIC. */
    p->reduce_after_backward = true;
    CHECK(near(simulate(c, w, p, &r), t0 + B + 2e-4 + 2e8 / 1e9 + opt));
    pp_cluster_report_free(&r);
    p->reduce_after_backward = false;

    /* Gradients 16x larger: bucket 1 (ready at t0 + B/2) is still moving
     * when bucket 0 starts at t0 + B; opposite flows share nothing, the two
     * same-direction flows halve each NIC. */
    for (int k = 0; k < 2; k++)
        w->layers[k].gradient_bytes = 1.6e9;
    double lat = 2e-4, g = 1.6e9, bw = 1e9;
    double moved = B / 2 * bw;                    /* bucket 1 alone until t0 + B + lat */
    double left1 = g - moved;                     /* then two flows a direction */
    double done1 = t0 + B + lat + 2 * left1 / bw; /* at half speed */
    double left0 = g - left1;                     /* bucket 0 moved as much meanwhile */
    double done0 = done1 + left0 / bw;
    CHECK(near(simulate(c, w, p, &r), done0 + opt));
    CHECK(near(r.communication[0], done0 - (t0 + B / 2))); /* overlaps counted once */
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* ZeRO-3 on two replicas of one stage (2 layers: 1e11 FLOPs a sample
 * forward, 8e8 state bytes, 1e8 gradient bytes) on two nodes (NIC 1e9 B/s,
 * no latency). A ring of two all-gathers or reduce-scatters X bytes in
 * X/2 / 1e9 s. With 1e8 weight bytes a layer each gather (0.05 s) hides
 * under the layer before (0.1 s forward, 0.2 s backward), so a pass takes
 * its first gather plus its compute: F = 0.05 + 0.2, and so does every
 * backward, whose reduce-scatters (but the last micro-batch's) add 0.05 a
 * layer: B = 0.05 + 0.4. The last backward starts at t0 = 2 (F + B) + F;
 * layer 0's gradient is ready at t0 + B and reduce-scattered (one pass
 * round the ring, 0.05 s), then the optimizer reads and writes half the
 * state. With 1e9 weight bytes a layer the gathers (0.5 s) outlast the
 * compute: a pass takes g + (L - 1) g + c. Each member holds half the
 * state, two layers' parameters and one layer's gradient unsharded. */
static void test_zero3(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    pp_cluster_workload *w = fixture_workload(2, 1e11, 8e8, 0, 0, 6);
    int tp[1] = {1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 1, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = p->micro_batches[1] = 3;
    p->stage_layers[0] = 2;
    p->devices[0] = 0;
    p->devices[1] = 1;
    p->zero3 = true;
    for (int k = 0; k < 2; k++)
        w->layers[k].weight_bytes = 1e8;
    pp_cluster_report r;
    double F = 0.05 + 0.2, B = 0.05 + 0.4, t0 = 2 * (F + B) + F, opt = 2 * 8e8 / 1e11;
    CHECK(near(simulate(c, w, p, &r), t0 + B + 0.05 + opt));
    CHECK(near(r.peak_memory[0], 8e8 + 2 * 1e8 + 1e8));
    pp_cluster_report_free(&r);

    p->micro_batches[0] = p->micro_batches[1] = 1;
    w->global_batch = 2;
    for (int k = 0; k < 2; k++)
        w->layers[k].weight_bytes = 1e9;
    F = 0.5 + 0.5 + 0.1;
    B = 0.5 + 0.5 + 0.2;
    CHECK(near(simulate(c, w, p, &r), F + B + 0.05 + opt));
    CHECK(near(r.peak_memory[1], 8e8 + 2 * 1e9 + 1e8));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Expert parallelism over two replicas of one stage of one layer (1e11
 * FLOPs a sample forward), each on its own node (NIC 1e9 B/s, no latency),
 * one micro-batch each. The layer's experts are half its 1e8 weight bytes,
 * so each member holds 3/4 of the layer: 3/4 of its 1e8 gradient bytes
 * and 8e8 state bytes. Each pass runs two all-to-alls of 1e8 bytes over
 * the pair, (1/2) 1e8 / 1e9 = 0.05 s each: F = 0.1 + 0.1, B = 0.2 + 0.1;
 * then the gradient all-reduce (each way 0.75e8 B, 0.075 s) and the
 * optimizer over 6e8 bytes. */
static void test_expert_parallel(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    pp_cluster_workload *w = fixture_workload(1, 1e11, 8e8, 0, 0, 2);
    w->experts = 2;
    w->layers[0].weight_bytes = 1e8;
    w->layers[0].expert_weight_bytes = 0.5e8;
    w->layers[0].alltoall_bytes = 1e8;
    int tp[1] = {1};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 1, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = p->micro_batches[1] = 1;
    p->stage_layers[0] = 1;
    p->devices[0] = 0;
    p->devices[1] = 1;
    p->expert_parallel = 2;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_OK);
    pp_cluster_report r;
    double F = 0.1 + 0.1, B = 0.2 + 0.1, opt = 2 * 6e8 / 1e11;
    CHECK(near(simulate(c, w, p, &r), F + B + 0.075 + opt));
    CHECK(near(r.peak_memory[0], 6e8));
    pp_cluster_report_free(&r);
    /* recomputing, the backward replays the forward's two all-to-alls */
    p->stage_recompute[0] = true;
    CHECK(near(simulate(c, w, p, &r), F + (0.2 + 0.1 + 0.2) + 0.075 + opt));
    pp_cluster_report_free(&r);
    w->experts = 3; /* 2 does not divide it */
    CHECK_EQ_INT(pp_cluster_plan_validate(c, w, p, &err), PP_EINPUT);
    CHECK(strstr(err.message, "expert_parallel 2") != NULL);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* Two stages of one layer on two nodes (NIC 1e9 B/s, latency 1e-4), no
 * state: the step ends with stage 0's last backward. A tied word embedding
 * then has its gradient all-reduced between the two before their
 * optimizers: one flow each way (own NIC each), 2 latencies + bytes / bw. */
static void test_tied_embedding(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    c->links[1].latency = c->links[3].latency = 1e-4;
    pp_cluster_workload *w = fixture_workload(2, 1e11, 0, 0, 0, 2);
    int dev[2] = {0, 1};
    pp_cluster_plan *p = pipeline(2, 1, 1, 2, dev);
    pp_cluster_report r;
    double untied = simulate(c, w, p, &r);
    pp_cluster_report_free(&r);
    w->tied_bytes = 3e8;
    CHECK(near(simulate(c, w, p, &r), untied + 2e-4 + 3e8 / 1e9));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* With one stage the first stage is the last: its devices hold the word
 * embedding and the logit layer's use of it, and there is nothing to
 * all-reduce between them. Tied or not, one replica or two (whose
 * gradients' ring runs first), the step takes the same time. */
static void test_tied_one_stage(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, pair, 1e10, 1e9);
    c->links[1].latency = c->links[3].latency = 1e-4;
    pp_cluster_workload *w = fixture_workload(2, 1e11, 4e8, 0, 0, 4);
    for (int dp = 1; dp <= 2; dp++) {
        int tp[1] = {1};
        pp_cluster_plan *p = pp_cluster_plan_new(dp, 1, tp);
        p->micro_batch = 1;
        for (int r = 0; r < dp; r++) {
            p->micro_batches[r] = 4 / dp;
            p->devices[r] = r;
        }
        p->stage_layers[0] = 2;
        pp_cluster_report r;
        w->tied_bytes = 0;
        double untied = simulate(c, w, p, &r);
        pp_cluster_report_free(&r);
        w->tied_bytes = 3e8;
        CHECK(near(simulate(c, w, p, &r), untied));
        pp_cluster_report_free(&r);
        pp_cluster_plan_free(p);
    }
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* A TP group of a 1e12 and a 3e12 FLOP/s device (two nodes, no TP bytes):
 * split 1/4 : 3/4 balances it, twice as fast as 1/2 : 1/2. */
static void test_uneven_split(void)
{
    int counts[2] = {1, 1};
    pp_cluster *c = fixture_cluster(2, counts, types + 1, 5e9, 1e9);
    pp_cluster_workload *w = fixture_workload(2, 1e9, 0, 0, 0, 8);
    int tp[1] = {2};
    pp_cluster_plan *p = pp_cluster_plan_new(1, 1, tp);
    p->micro_batch = 2;
    p->micro_batches[0] = 4;
    p->stage_layers[0] = 2;
    p->devices[0] = 0;
    p->devices[1] = 1;
    pp_cluster_report r;
    double even = simulate(c, w, p, &r);
    CHECK(near(even, 4 * 3 * 0.5 * 2 * 2e9 / 1e12));
    pp_cluster_report_free(&r);
    p->split[0] = 0.25;
    p->split[1] = 0.75;
    double uneven = simulate(c, w, p, &r);
    CHECK(near(even / uneven, 2));
    CHECK(near(r.compute[0], r.compute[1]));
    pp_cluster_report_free(&r);
    /* The group spans two nodes: its all-reduces go over the NIC class. */
    for (int k = 0; k < 2; k++)
        w->layers[k].tp_forward_bytes = w->layers[k].tp_backward_bytes = 1e7;
    pp_hw_link nic = {1e9, 0};
    double ar = pp_hw_allreduce_time(nic, 2, 2 * 2e7);
    CHECK(near(simulate(c, w, p, &r), uneven + 4 * 2 * ar));
    pp_cluster_report_free(&r);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* A plan on four of a node's eight devices is drawn as on a node of four:
 * the same rows and boxes, the same step; the idle devices get no row. */
static void test_idle_devices_not_drawn(void)
{
    double step[2];
    int rows[2], boxes[2], dev[4] = {0, 1, 2, 3};
    for (int k = 0; k < 2; k++) {
        int counts[1] = {4 + 4 * k};
        pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e9, 1e9);
        pp_cluster_workload *w = fixture_workload(16, 1e9, 1e9, 100, 0, 8);
        pp_cluster_plan *p = pipeline(4, 4, 1, 8, dev);
        pp_cluster_sim_options o = {.timeline = pp_timeline_new("t", 1e6)};
        pp_cluster_report r;
        pp_error err = {0};
        CHECK_EQ_INT(pp_cluster_simulate(c, w, p, &o, &r, &err), PP_OK);
        step[k] = r.step_time;
        rows[k] = pp_timeline_row_count(o.timeline);
        boxes[k] = pp_timeline_box_count(o.timeline);
        pp_cluster_report_free(&r);
        pp_timeline_free(o.timeline);
        pp_cluster_plan_free(p);
        pp_cluster_workload_free(w);
        pp_cluster_free(c);
    }
    CHECK(step[0] == step[1] && step[0] > 0);
    CHECK_EQ_INT(rows[1], rows[0]);
    CHECK_EQ_INT(boxes[1], boxes[0]);
    CHECK(rows[0] >= 4);
}

/* dp 2 x pp 2 x tp 2 over 2 nodes of 4, with transfers, buckets and a
 * timeline: the same input twice gives the same report, bit for bit. */
static pp_cluster_plan *mixed_plan(void)
{
    int tp[2] = {2, 2};
    pp_cluster_plan *p = pp_cluster_plan_new(2, 2, tp);
    p->micro_batch = 1;
    p->micro_batches[0] = 3;
    p->micro_batches[1] = 5;
    p->stage_layers[0] = 3;
    p->stage_layers[1] = 1;
    int devices[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    for (int i = 0; i < 8; i++)
        p->devices[i] = devices[i];
    p->split[0] = 0.4;
    p->split[1] = 0.6;
    return p;
}

static void test_determinism_and_timeline(void)
{
    int counts[2] = {4, 4};
    pp_cluster *c = fixture_cluster(2, counts, types, 1e10, 2e9);
    c->links[1].latency = c->links[3].latency = 1e-5;
    pp_cluster_workload *w = fixture_workload(4, 1e9, 4e8, 0, 3e6, 8);
    for (int k = 0; k < 4; k++)
        w->layers[k].tp_forward_bytes = w->layers[k].tp_backward_bytes = 1e6;
    pp_cluster_plan *p = mixed_plan();
    pp_error err;
    CHECK(pp_cluster_plan_validate(c, w, p, &err) == PP_OK);
    pp_cluster_report a, b;
    pp_timeline *tl = pp_timeline_new("step", 1e6);
    pp_cluster_sim_options o = {.timeline = tl};
    CHECK(pp_cluster_simulate(c, w, p, &o, &a, &err) == PP_OK);
    o.timeline = NULL;
    CHECK(pp_cluster_simulate(c, w, p, &o, &b, &err) == PP_OK);
    CHECK(isfinite(a.step_time) && a.step_time > 0);
    CHECK(a.step_time == b.step_time && a.fits == b.fits);
    CHECK(memcmp(a.compute, b.compute, 8 * sizeof(double)) == 0);
    CHECK(memcmp(a.communication, b.communication, 8 * sizeof(double)) == 0);
    for (int d = 0; d < 8; d++)
        CHECK(a.communication[d] > 0 && a.compute[d] > 0);
    /* 8 devices; both NICs' out and in pools (stage 0 in node 0, stage 1 in
     * node 1); the rings stay inside a node: every device's fast out and in. */
    CHECK_EQ_INT(pp_timeline_row_count(tl), 8 + 4 + 16);
    /* forward, backward, optimizer, activation, gradient, allreduce */
    CHECK_EQ_INT(pp_timeline_category_count(tl), 6);
    /* device boxes: 2 per micro-batch per member + optimizers; flow boxes:
     * 2 rows each for 2 flows per transfer, (3 + 5) * 2 transfers, and 2
     * hops x 2 members x 4 layers ring flows */
    int ops = 2 * (3 + 5) * 2 * 2 + 8, flows = 2 * 2 * (3 + 5) * 2 + 2 * 2 * 4 * 2;
    CHECK_EQ_INT(pp_timeline_box_count(tl), ops + flows);
    FILE *f = tmpfile();
    CHECK(f && pp_timeline_write_trace(tl, f, &err) == PP_OK);
    long size = ftell(f);
    char *text = calloc((size_t)size + 1, 1);
    rewind(f);
    CHECK(fread(text, 1, (size_t)size, f) == (size_t)size);
    const char *names[] = {"\"n0/3 T1\"", "\"n1/2 slowmem\"", "\"n0 nic out\"", "\"n1 nic in\"",
                           "\"n1/3 fast in\"", "\"F r1 s0 m4\"", "\"B r0 s1 m2\"",
                           "\"A r1 s0 m4\"", "\"G r0 s1 m2\"", "\"AR s0 l2 j1\"", "\"optimizer\""};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!strstr(text, names[k])) {
            fprintf(stderr, "timeline lacks %s\n", names[k]);
            CHECK(false);
        }
    free(text);
    fclose(f);
    CHECK(a.boxes_left_out == 0);

    /* A bounded timeline: the first boxes in the order drawn (every pass,
     * then whole flows while both their sides fit), the rest counted; the
     * step itself is the same. */
    long caps[] = {ops - 5, ops + 7, ops + flows};
    for (int k = 0; k < 3; k++) {
        pp_timeline *small = pp_timeline_new("step", 1e6);
        pp_cluster_report r;
        o = (pp_cluster_sim_options){.timeline = small, .max_boxes = caps[k]};
        CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
        CHECK(r.step_time == a.step_time);
        long drawn = k == 1 ? ops + 6 : caps[k];
        CHECK_EQ_INT(pp_timeline_box_count(small), (int)drawn);
        CHECK(r.boxes_left_out == ops + flows - drawn);
        /* links get rows only for flows drawn: none when the passes fill it */
        if (k == 0)
            CHECK_EQ_INT(pp_timeline_row_count(small), 8);
        pp_timeline_free(small);
        pp_cluster_report_free(&r);
    }
    pp_timeline_free(tl);
    pp_cluster_report_free(&a);
    pp_cluster_report_free(&b);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* ------------------------------------------------ random plans vs. oracles */

/* 1F1B of one replica by recurrence: an op starts when its stage's previous
 * op and its dependency are done (transfers free). */
static double recurrence(int P, int m, const double *F, const double *B, double *last)
{
    double end_f[8][16], end_b[8][16], free_at[8];
    int nf[8] = {0}, nb[8] = {0}, q[8] = {0};
    for (int s = 0; s < P; s++)
        free_at[s] = 0;
    for (bool moved = true; moved;) {
        moved = false;
        for (int s = 0; s < P; s++) {
            if (q[s] == 2 * m)
                continue;
            int warm = P - s - 1 < m ? P - s - 1 : m;
            bool fwd = q[s] < warm || (nf[s] < m && (q[s] - warm) % 2 == 0);
            if (fwd && (s == 0 || nf[s - 1] > nf[s])) {
                double start = fmax(free_at[s], s ? end_f[s - 1][nf[s]] : 0);
                free_at[s] = end_f[s][nf[s]++] = start + F[s];
            } else if (!fwd && (s == P - 1 || nb[s + 1] > nb[s])) {
                double start = fmax(free_at[s], s < P - 1 ? end_b[s + 1][nb[s]] : 0);
                free_at[s] = end_b[s][nb[s]++] = start + B[s];
            } else
                continue;
            q[s]++;
            moved = true;
        }
    }
    double step = 0;
    for (int s = 0; s < P; s++) {
        last[s] = free_at[s];
        step = fmax(step, free_at[s]);
    }
    return step;
}

static void test_random_plans(void)
{
    srand(7);
    int counts[3] = {3, 3, 2};
    pp_cluster *c = fixture_cluster(3, counts, types, 2e9, 5e8);
    for (int trial = 0; trial < 200; trial++) {
        int P = 1 + rand() % 4, m = 1 + rand() % 6, b = 1 + rand() % 3, layers[4], total = 0;
        for (int s = 0; s < P; s++)
            total += layers[s] = 1 + rand() % 3;
        bool free_transfers = trial % 2 == 0;
        pp_cluster_workload *w =
            fixture_workload(total, 1e9, 0, 0, free_transfers ? 0 : 1e6 * (1 + rand() % 50), m * b);
        for (int k = 0; k < total; k++) {
            w->layers[k].forward_flops = 1e9 * (1 + rand() % 5);
            w->layers[k].backward_flops = 2 * w->layers[k].forward_flops;
        }
        int perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        for (int i = 7; i > 0; i--) {
            int j = rand() % (i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        pp_cluster_plan *p = pipeline(P, 1, b, m, perm);
        double F[4] = {0}, B[4] = {0}, last[4];
        for (int s = 0, k = 0; s < P; s++) {
            p->stage_layers[s] = layers[s];
            double rate = c->nodes[c->device_node[perm[s]]].type->peak_flops;
            for (int e = 0; e < layers[s]; e++, k++) {
                F[s] += b * w->layers[k].forward_flops / rate;
                B[s] += b * 2 * w->layers[k].forward_flops / rate;
            }
        }
        pp_cluster_report r;
        double step = simulate(c, w, p, &r);
        if (free_transfers) {
            recurrence(P, m, F, B, last);
            double expect = 0;
            for (int s = 0; s < P; s++)
                expect = fmax(expect, last[s] + r.compute[perm[s]] - m * (F[s] + B[s]));
            CHECK(near(step, expect));
        }
        double before = 0;
        for (int s = 0; s < P; s++) {
            CHECK(step >= before + m * (F[s] + B[s]) - 1e-12);
            before += F[s] + B[s];
        }
        pp_cluster_report_free(&r);
        pp_cluster_plan_free(p);
        pp_cluster_workload_free(w);
    }
    pp_cluster_free(c);
}

/* A given order of F, B and W on 2 stages (one device each, one node) and 3
 * micro-batches, in ms: F = 1 (1e9 FLOPs at 1e12), a backward 2, of which W
 * takes a quarter (weight_share): B = 1.5, W = 0.5; a transfer T = 0.5 (5e6
 * bytes at 1e10 B/s), never two at once on a link in these runs; the
 * optimizer 2 (2 x 1e8 state bytes at 1e11 B/s) after a stage's last W.
 *
 * 1F1B with B and W split (W right after its B), stage 0 F0 F1 B0 W0 F2 B1
 * W1 B2 W2, stage 1 F0 B0 W0 F1 B1 W1 F2 B2 W2:
 *   s0 F0 0-1, F1 1-2;  s1 F0 1.5-2.5, B0 2.5-4, W0 4-4.5, F1 4.5-5.5,
 *   B1 5.5-7, W1 7-7.5;  s0 B0 4.5-6 (its gradient at 4.5), W0 6-6.5,
 *   F2 6.5-7.5, B1 7.5-9, W1 9-9.5;  s1 F2 8-9, B2 9-10.5, W2 10.5-11;
 *   s0 B2 11-12.5, W2 12.5-13: step 13 + 2 = 15.
 * Zero-bubble (stage 0 F0 F1 B0 F2 B1 W0 W1 B2 W2, stage 1 F0 B0 F1 B1 W0
 * W1 F2 B2 W2: the W's wait in the bubbles):
 *   s0 F0 0-1, F1 1-2;  s1 F0 1.5-2.5, B0 2.5-4, F1 4-5, B1 5-6.5;
 *   s0 B0 4.5-6, F2 6-7, B1 7-8.5, W0 8.5-9, W1 9-9.5;  s1 W0 6.5-7,
 *   W1 7-7.5, F2 7.5-8.5, B2 8.5-10, W2 10-10.5;  s0 B2 10.5-12,
 *   W2 12-12.5: step 12.5 + 2 = 14.5.
 * Stage 0 holds 3 micro-batches' activations at once (after F2), 1F1B 2.
 * With W's share 0 the given 1F1B is today's 1F1B, a backward of 2:
 *   s0 F0 0-1, F1 1-2;  s1 F0 1.5-2.5, B0 2.5-4.5, F1 4.5-5.5, B1 5.5-7.5;
 *   s0 B0 5-7, F2 7-8, B1 8-10;  s1 F2 8.5-9.5, B2 9.5-11.5;  s0 B2 12-14:
 *   step 14 + 2 = 16. */
static void test_given_order(void)
{
    int counts[1] = {2};
    pp_cluster *c = fixture_cluster(1, counts, types + 1, 1e10, 1e9);
    pp_cluster_workload *w = fixture_workload(2, 1e9, 1e8, 1e6, 5e6, 3);
    int dev[2] = {0, 1};
    pp_cluster_plan *p = pipeline(2, 1, 1, 3, dev);
    const pp_cluster_op_kind F = PP_CLUSTER_OP_F, B = PP_CLUSTER_OP_B, W = PP_CLUSTER_OP_W;
    const pp_cluster_op one0[9] = {{F, 0}, {F, 1}, {B, 0}, {W, 0}, {F, 2}, {B, 1}, {W, 1}, {B, 2}, {W, 2}};
    const pp_cluster_op one1[9] = {{F, 0}, {B, 0}, {W, 0}, {F, 1}, {B, 1}, {W, 1}, {F, 2}, {B, 2}, {W, 2}};
    const pp_cluster_op zb0[9] = {{F, 0}, {F, 1}, {B, 0}, {F, 2}, {B, 1}, {W, 0}, {W, 1}, {B, 2}, {W, 2}};
    const pp_cluster_op zb1[9] = {{F, 0}, {B, 0}, {F, 1}, {B, 1}, {W, 0}, {W, 1}, {F, 2}, {B, 2}, {W, 2}};
    const pp_cluster_op *one[2] = {one0, one1}, *zb[2] = {zb0, zb1};
    int count[2] = {9, 9};
    double share[2] = {0.25, 0.25}, none[2] = {0, 0};
    pp_cluster_sim_options o = {.order = one, .order_count = count, .weight_share = share};
    pp_cluster_report r;
    pp_error err = {0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    CHECK(near(r.step_time, 15e-3));
    CHECK(near(r.peak_memory[0], 1e8 + 2 * 1e6));
    CHECK(near(r.compute[0], 3 * 3e-3 + 2e-3));
    pp_cluster_report_free(&r);
    o.order = zb;
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    CHECK(near(r.step_time, 14.5e-3));
    CHECK(near(r.peak_memory[0], 1e8 + 3 * 1e6));
    CHECK(near(r.peak_memory[1], 1e8 + 2 * 1e6));
    pp_cluster_report_free(&r);
    /* W's share 0: the given 1F1B is today's, to the last bit */
    o.order = one;
    o.weight_share = none;
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    double given = r.step_time;
    pp_cluster_report_free(&r);
    CHECK(near(simulate(c, w, p, &r), 16e-3) && r.step_time == given);
    pp_cluster_report_free(&r);
    /* without weight_share, W's products are the forward's: half of the
     * backward here, B = W = 1 ms; the step no shorter than stage 0's work
     * (9), its optimizer, the first forward of stage 1 and two transfers,
     * and shorter than 1F1B's */
    o.order = zb;
    o.weight_share = NULL;
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_OK);
    CHECK(r.step_time >= 9e-3 + 2e-3 + 1e-3 + 2 * 0.5e-3 - 1e-12 && r.step_time < 16e-3);
    pp_cluster_report_free(&r);

    /* orders refused, each naming its fault */
    const pp_cluster_op early[9] = {{F, 0}, {F, 1}, {W, 0}, {B, 0}, {F, 2}, {B, 1}, {W, 1}, {B, 2}, {W, 2}};
    const pp_cluster_op twice[9] = {{F, 0}, {F, 1}, {B, 0}, {W, 0}, {F, 1}, {B, 1}, {W, 1}, {B, 2}, {W, 2}};
    const pp_cluster_op stuck[9] = {{F, 0}, {F, 1}, {B, 0}, {W, 0}, {B, 1}, {W, 1}, {F, 2}, {B, 2}, {W, 2}};
    const pp_cluster_op *bad[2] = {early, one1};
    o.order = bad;
    err = (pp_error){0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "stage 0's order puts W of micro-batch 0 before its B") != NULL);
    int short_count[2] = {9, 8};
    bad[0] = one0;
    o.order_count = short_count;
    err = (pp_error){0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "stage 1's order lacks W of micro-batch 2") != NULL);
    o.order_count = count;
    bad[1] = twice;
    err = (pp_error){0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "stage 1's order holds F of micro-batch 1 twice") != NULL);
    /* stage 0 waits for B0 before F1, stage 1 for F1 before B0 */
    const pp_cluster_op wait0[9] = {{F, 0}, {B, 0}, {W, 0}, {F, 1}, {F, 2}, {B, 1}, {W, 1}, {B, 2}, {W, 2}};
    bad[0] = wait0;
    bad[1] = stuck;
    err = (pp_error){0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "wait on each other for ever") != NULL);
    /* an order is one chunk a stage */
    o.order = one;
    p->virtual_stages = 2;
    err = (pp_error){0};
    CHECK(pp_cluster_simulate(c, w, p, &o, &r, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "runs one chunk a stage; the plan has 2") != NULL);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

int main(void)
{
    types[0] = fixture_type("T1", 1e12, 80e9);
    types[1] = (pp_hw_device_type){"slowmem", 1e12, 1e11, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    types[2] = (pp_hw_device_type){"fast", 3e12, 1e11, 80e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    types[3] = fixture_type("T3", 2e12, 80e9);
    pair[0] = pair[1] = types[1];
    test_one_device();
    test_two_stage_1f1b();
    test_interleaved();
    test_idle_devices_not_drawn();
    test_uneven_chunks();
    test_transfer();
    test_tied_embedding();
    test_tied_one_stage();
    test_tp_overlap_and_traffic();
    test_tp_waits();
    test_dp_sync();
    test_zero3();
    test_expert_parallel();
    test_uneven_split();
    test_determinism_and_timeline();
    test_random_plans();
    test_given_order();
    return CHECK_DONE();
}
