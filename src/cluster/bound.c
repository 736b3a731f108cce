/* bound.c: what a stage costs, from per-layer prefix sums so the search
 * extends a stage in O(1): its compute-only time per micro-batch, a lower
 * bound of its memory, and the schedule bounds the branch-and-bound prunes
 * by. Every figure here must stay at or below what pp_cluster_simulate and
 * pp_cluster_plan_memory report for the same plan. */
#include "cluster/planner.h"
#include "cluster/optime.h"
#include "cluster/zero3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/plan.h"
#include "hw/hw_internal.h"
#include "hw/net_internal.h"

/* fmin and fmax without their NaN handling (nothing here is NaN): the
 * tables' loops run them millions of times. */
static inline double least(double a, double b)
{
    return a < b ? a : b;
}

static inline double most(double a, double b)
{
    return a > b ? a : b;
}

static double *prefix_array(pp_arena *a, int n)
{
    return pp_arena_calloc(a, (size_t)n + 1, sizeof(double));
}

/* Layer y as the branch runs it, kept (recompute false) or replayed. */
static pp_cluster_layer branch_layer(const pp_cluster_layer *y, const cluster_branch *b, bool recompute)
{
    pp_cluster_plan like = {.replica_count = b->dp, .sequence_parallel = b->sequence_parallel,
                            .selective_recompute = b->selective_recompute,
                            .distributed_optimizer = b->distributed_optimizer, .zero3 = b->zero3,
                            .expert_parallel = b->expert_parallel, .stack = b->stack};
    return pp_cluster_layer_under(y, &like, recompute, 1);
}

/* Fills p->buffer (planner.h) for a zero3 branch over dp > 1. */
static bool buffer_table(const pp_cluster_workload *w, const cluster_branch *b, pp_arena *a,
                         cluster_prefix *p)
{
    int n = w->layer_count, levels = 1;
    while ((1 << levels) <= n)
        levels++;
    p->buffer = pp_arena_alloc(a, (size_t)levels * (size_t)n * sizeof(double));
    if (!p->buffer)
        return false;
    for (int i = 0; i < n; i++) {
        pp_cluster_layer y = branch_layer(&w->layers[i], b, false);
        p->buffer[i] = cluster_zero3_buffer_bytes(&y);
    }
    for (int k = 1; k < levels; k++)
        for (int i = 0; i + (1 << k) <= n; i++)
            p->buffer[k * n + i] =
                fmax(p->buffer[(k - 1) * n + i], p->buffer[(k - 1) * n + i + (1 << (k - 1))]);
    return true;
}

static double buffer_max(const cluster_prefix *p, int first, int count)
{
    int k = 0;
    while ((2 << k) <= count)
        k++;
    int n = p->layers;
    return fmax(p->buffer[k * n + first], p->buffer[k * n + first + count - (1 << k)]);
}

/* Layer l's pass costs on each kind (planner.h): its FLOPs over its own
 * products' wave efficiency on the kind at the branch's TP share, as the
 * simulator prices them, worked out again only where a layer's products
 * differ from the one before (eff keeps them: [kind][kf, kb, rf, rb]). */
static void pass_costs(const cluster_space *sp, const pp_cluster_workload *w, const cluster_branch *b, int l,
                       const pp_cluster_layer *k, const pp_cluster_layer *r, double (*eff)[4],
                       cluster_prefix *out)
{
    for (int q = 0; q < sp->kind_count; q++) {
        const pp_hw_device_type *t = sp->kinds[q].type;
        double f = 1.0 / b->tp[q], mb = cluster_branch_samples(b), *e = eff[q];
        if (l == 0 || !cluster_same_products(&w->layers[l], &w->layers[l - 1])) {
            e[0] = cluster_gemm_efficiency(t, k, mb, f, false);
            e[1] = cluster_gemm_efficiency(t, k, mb, f, true);
            e[2] = cluster_gemm_efficiency(t, r, mb, f, false);
            e[3] = cluster_gemm_efficiency(t, r, mb, f, true);
        }
        double replay = r->backward_flops / e[3] + r->recompute_flops / e[2] - k->backward_flops / e[1];
        out->forward_cost[q][l + 1] = out->forward_cost[q][l] + k->forward_flops / e[0];
        out->backward_cost[q][l + 1] = out->backward_cost[q][l] + k->backward_flops / e[1];
        out->replay_cost[q][l + 1] = out->replay_cost[q][l] + replay;
    }
}

bool cluster_prefix_build(const cluster_space *sp, const pp_cluster_workload *w, const cluster_branch *b,
                          pp_arena *a, cluster_prefix *out)
{
    int n = w->layer_count;
    out->layers = n;
    out->replay_ratio = INFINITY;
    out->work = prefix_array(a, n);
    out->forward = prefix_array(a, n);
    out->backward = prefix_array(a, n);
    out->replay = prefix_array(a, n);
    out->weight = prefix_array(a, n);
    out->traffic = prefix_array(a, n);
    out->traffic_whole = prefix_array(a, n);
    out->tp_forward = prefix_array(a, n);
    out->tp_backward = prefix_array(a, n);
    out->overlap = prefix_array(a, n);
    out->state = prefix_array(a, n);
    out->activation = prefix_array(a, n);
    out->full = prefix_array(a, n);
    out->replicated = prefix_array(a, n);
    out->checkpoint = prefix_array(a, n);
    out->gradient = prefix_array(a, n);
    out->alltoall = prefix_array(a, n);
    out->context = prefix_array(a, n);
    out->attention = prefix_array(a, n);
    out->w = w;
    out->checkpoint_split = b->sequence_parallel;
    out->buffer = NULL;
    if (b->zero3 && b->dp > 1 && !buffer_table(w, b, a, out))
        return false;
    for (int q = 0; q < sp->kind_count; q++) {
        out->forward_cost[q] = prefix_array(a, n);
        out->backward_cost[q] = prefix_array(a, n);
        out->replay_cost[q] = prefix_array(a, n);
        if (!out->forward_cost[q] || !out->backward_cost[q] || !out->replay_cost[q])
            return false;
    }
    double eff[CLUSTER_MAX_KINDS][4];
    if (!out->full || !out->work || !out->forward || !out->backward || !out->replay || !out->weight ||
        !out->traffic || !out->traffic_whole || !out->tp_forward || !out->tp_backward || !out->overlap ||
        !out->state || !out->activation ||
        !out->replicated || !out->checkpoint || !out->gradient || !out->alltoall || !out->context ||
        !out->attention)
        return false;
    for (int l = 0; l < n; l++) {
        /* replay is what a recomputing stage adds to the kept backward:
         * the whole forward, less what selective recomputation put there */
        pp_cluster_layer k = branch_layer(&w->layers[l], b, false), r = branch_layer(&w->layers[l], b, true);
        const pp_cluster_layer *y = &k;
        pass_costs(sp, w, b, l, &k, &r, eff, out);
        double work = y->forward_flops + y->backward_flops;
        double replay = r.backward_flops + r.recompute_flops - y->backward_flops;
        out->work[l + 1] = out->work[l] + work;
        out->forward[l + 1] = out->forward[l] + y->forward_flops;
        out->backward[l + 1] = out->backward[l] + y->backward_flops;
        out->replay[l + 1] = out->replay[l] + replay;
        if (work > 0)
            out->replay_ratio = fmin(out->replay_ratio, (work + replay) / work);
        out->weight[l + 1] = out->weight[l] + y->weight_bytes;
        out->traffic[l + 1] = out->traffic[l] + y->traffic_bytes;
        out->traffic_whole[l + 1] = out->traffic_whole[l] + y->traffic_replicated_bytes;
        out->tp_forward[l + 1] = out->tp_forward[l] + y->tp_forward_bytes;
        out->tp_backward[l + 1] = out->tp_backward[l] + y->tp_backward_bytes;
        out->overlap[l + 1] = out->overlap[l] + y->overlap_flops;
        out->state[l + 1] = out->state[l] + y->state_bytes;
        out->activation[l + 1] = out->activation[l] + y->activation_bytes;
        out->full[l + 1] = out->full[l] + r.activation_bytes;
        out->replicated[l + 1] = out->replicated[l] + y->activation_replicated_bytes;
        out->checkpoint[l + 1] = out->checkpoint[l] + r.checkpoint_bytes;
        out->gradient[l + 1] = out->gradient[l] + y->gradient_bytes;
        out->alltoall[l + 1] = out->alltoall[l] + y->alltoall_bytes;
        out->context[l + 1] = out->context[l] + y->context_bytes;
        out->attention[l + 1] = out->attention[l] + y->attention_flops;
    }
    if (!isfinite(out->replay_ratio) || out->replay_ratio < 1.0)
        out->replay_ratio = 1.0;
    return true;
}

static double range(const double *prefix, int first, int count)
{
    return prefix[first + count] - prefix[first];
}

double cluster_work(const cluster_stages *st, int first, int count)
{
    return cluster_branch_samples(st->branch) * range(st->prefix->work, first, count);
}

/* Times a gradient's bytes go round the data-parallel ring: twice for an
 * all-reduce, once for ZeRO-3's reduce-scatter. */
static double ring_passes(const cluster_stages *st)
{
    return st->branch->zero3 ? 1.0 : 2.0;
}

/* ZeRO-3's pass of `compute` s that all-gathers `weight` bytes: no shorter
 * than either (cluster_zero3_pass_time), the gathers at the ring's most
 * bandwidth and no latency. */
static double zero3_floor(const cluster_stages *st, int s, double compute, double weight)
{
    int n = st->branch->dp;
    if (!st->branch->zero3 || n == 1)
        return compute;
    pp_hw_link ring = {st->ring_bandwidth[s], 0};
    return fmax(compute, pp_hw_allgather_time(ring, n, weight));
}

/* The gradient rings (each layer's starts once the last backward has
 * passed it, the stage's first layer last) and then the optimizer, which
 * reads and writes the member's state. */
/* The tied embedding's all-reduce, which the first and the last stage
 * wait for between their gradients' ring and their optimizer. */
static double end_embedding(const cluster_stages *st, int s)
{
    return s == 0 || s == st->stage_count - 1 ? st->embedding : 0.0;
}

static double tail_time(const cluster_stages *st, int s, int first, int count, double backward)
{
    const cluster_prefix *p = st->prefix;
    double share = 1.0 / st->stage_tp[s];
    const pp_hw_device_type *type = st->space->kinds[st->stage_kind[s]].type;
    double optimizer = cluster_optimizer_time(type, share * range(p->state, first, count));
    int n = st->branch->dp;
    double after = optimizer + end_embedding(st, s);
    if (n == 1)
        return after;
    double ring = ring_passes(st) * (n - 1) / n * share / st->ring_share[s];
    double last = ring * range(p->gradient, first, 1);
    double all = ring * range(p->gradient, first, count) - backward;
    return (last > all ? last : all) + after;
}

/* A member's share of the activations stage s sends on, its last layer's
 * output. */
static double hop_bytes(const cluster_stages *st, int s, int last)
{
    if (s + 1 == st->stage_count)
        return 0.0;
    int k = st->stage_tp[s] < st->stage_tp[s + 1] ? st->stage_tp[s] : st->stage_tp[s + 1];
    return cluster_branch_samples(st->branch) * st->prefix->w->layers[last].output_bytes / k;
}

static double hop_time(const cluster_stages *st, int s, int last)
{
    double bytes = hop_bytes(st, s, last);
    return bytes > 0 ? bytes / st->hop_bandwidth[s] : 0.0;
}

/* cluster_stage_cost; `monotone` leaves out what TP overlap hides of the
 * backward's collectives behind its weight gradients (a run's figure with
 * it can fall below one of its layers'), so that a run costs at least
 * each of its layers alone. */
static cluster_cost stage_cost(const cluster_stages *st, int s, int first, int count, bool replay,
                               bool monotone)
{
    const pp_hw_device_type *type = st->space->kinds[st->stage_kind[s]].type;
    const cluster_prefix *p = st->prefix;
    int tp = st->stage_tp[s], kind = st->stage_kind[s];
    double share = cluster_branch_samples(st->branch) / (double)tp;
    double weight = range(p->weight, first, count) / tp;
    double traffic = share * range(p->traffic, first, count) +
                     cluster_branch_samples(st->branch) * range(p->traffic_whole, first, count);
    cluster_cost c;
    c.forward = cluster_pass_time(type, share * range(p->forward_cost[kind], first, count), weight, traffic);
    double backward = range(p->backward_cost[kind], first, count) +
                      (replay ? range(p->replay_cost[kind], first, count) : 0);
    c.backward = cluster_pass_time(type, share * backward, weight, traffic);
    c.forward = zero3_floor(st, s, c.forward, weight);
    c.backward = zero3_floor(st, s, c.backward, weight);
    int ep = st->branch->expert_parallel;
    if (ep > 1) {
        /* the all-to-alls at the group's most bandwidth, no latency */
        pp_hw_link group = {st->expert_bandwidth[s], 0};
        double one = pp_hw_alltoall_time(group, ep, share * range(p->alltoall, first, count));
        c.forward += 2 * one;
        c.backward += (replay ? 4 : 2) * one;
    }
    int cp = st->branch->context_parallel;
    if (cp > 1) {
        /* ring attention (simulate.c's context_time) at the group's most
         * bandwidth, no latency */
        pp_hw_link ring = {st->context_bandwidth[s], 0};
        double hide = pp_hw_op_time(type, share * range(p->attention, first, count), 0) * (cp - 1) / cp;
        double one = fmax(0, pp_hw_allgather_time(ring, cp, cp * share * range(p->context, first, count)) - hide);
        c.forward += one;
        c.backward += (replay ? 3 : 2) * one;
    }
    if (tp > 1) {
        pp_hw_link link = st->space->kinds[st->stage_kind[s]].tp_link;
        double b = cluster_branch_samples(st->branch), forward = range(p->tp_forward, first, count);
        double own = range(p->tp_backward, first, count), again = replay ? forward : 0;
        c.forward += pp_hw_allreduce_time(link, tp, b * forward);
        double floor = cluster_tp_backward_floor(link, tp, b * own, b * again, st->branch->tp_overlap);
        if (st->branch->tp_overlap && !monotone) {
            /* what outlasts the weight gradients the simulator hides them behind */
            double hide = pp_hw_op_time(type, share * range(p->overlap, first, count), 0);
            floor = fmax(floor, pp_hw_allreduce_time(link, tp, b * (own + again)) - hide);
        }
        c.backward += floor;
    }
    c.tail = tail_time(st, s, first, count, c.backward);
    c.hop = hop_time(st, s, first + count - 1);
    return c;
}

cluster_cost cluster_stage_cost(const cluster_stages *st, int s, int first, int count, bool replay)
{
    return stage_cost(st, s, first, count, replay, false);
}

cluster_walk cluster_walk_start(void)
{
    return (cluster_walk){0, 0, 0, -INFINITY, -INFINITY, 0, 0, 0};
}

/* Stage k in 1F1B: `warm` forwards, then forward-backward pairs, then
 * `between` backwards. When some backward comes before the last forward,
 * its timeline has four parts in order: the first forward; the wait for
 * micro-batch 0's backward, max(below, the other warm-up forwards); the
 * `before` backwards and the remaining forwards; the wait for the last
 * micro-batch's backward, max(below, between B); then the last backward
 * and the tail. max(b, x) + max(b, y) = max(x + y, b + max(x, y), 2 b).
 * Otherwise every forward precedes every backward: a + max(below,
 * between B). */
cluster_walk cluster_walk_extend(const cluster_stages *st, cluster_walk w, cluster_cost c)
{
    int m = st->branch->micro_batches, k = w.stages;
    int warm = st->stage_count - k - 1 < m ? st->stage_count - k - 1 : m;
    int between = warm < m - 1 ? warm : m - 1, before = m - 1 - between;
    double term = w.in + m * (c.forward + c.backward) + fmax(w.out, c.tail);
    double path = w.path + c.forward + c.backward + 2 * w.last_hop;
    double end = c.backward + fmax(w.out, c.tail);
    cluster_walk next = {w.in + c.forward + c.hop, w.out + c.backward + c.hop, fmax(w.fixed, term),
                         w.drain, w.drain2, path, c.hop, k + 1};
    if (before == 0) {
        double a = w.in + m * c.forward + end;
        next.fixed = fmax(next.fixed, a + between * c.backward);
        next.drain = fmax(next.drain, a - path);
        return next;
    }
    int first = warm + 1;
    double x = (first - 1) * c.forward, y = between * c.backward;
    double a = w.in + c.forward + before * c.backward + (m - first) * c.forward + end;
    next.fixed = fmax(next.fixed, a + x + y);
    next.drain = fmax(next.drain, a + fmax(x, y) - path);
    next.drain2 = fmax(next.drain2, a - 2 * path);
    return next;
}

/* Work the caps hold up to rounding: a plan that fills every remaining
 * stage to its cap holds exactly the work left, which sums of products and
 * quotients may miss by an ulp; counted short, its bound was infinite. */
#define HELD(work) ((work) * (1 - 1e-12))

/* The least T with sum over stages from `from` on of held_s(T) >= work,
 * held_s(T) being the most work stage s can do within T and its memory:
 * T rate up to cap_kept; beyond, it must recompute, so T rate / ratio up
 * to cap_work. No split of that work among them keeps all below T. */
static double water_level(const cluster_stages *st, int from, double work)
{
    double held = 0.0, rate = st->rate_suffix[from], at = 0.0;
    work = HELD(work);
    for (int i = 0; i < 3 * st->stage_count; i++) {
        const cluster_kink *k = &st->kinks[i];
        if (k->stage < from)
            continue;
        if (held + (k->time - at) * rate >= work)
            return at + (work - held) / rate;
        held += (k->time - at) * rate;
        at = k->time;
        rate += k->slope;
    }
    return rate > 0 ? at + (work - held) / rate : INFINITY;
}

/* The least sum of the stages' times (from `from` on) that holds `work`:
 * every open stage holds at least one layer, so at least the least work
 * of any layer; the rest goes to the fastest stages first, filled to
 * their memory. */
static double least_sum(const cluster_stages *st, int from, double work)
{
    double sum = 0.0, whole = work, floor = st->least_layer_work;
    for (int s = from; s < st->stage_count; s++) {
        double take = fmin(fmin(work, floor), st->cap_work[s]);
        sum += take / st->rate[s];
        work -= take;
    }
    for (int i = 0; i < st->stage_count && work > 0; i++) {
        int s = st->by_rate[i];
        if (s < from)
            continue;
        double take = fmin(work, st->cap_work[s] - fmin(floor, st->cap_work[s]));
        sum += take / st->rate[s];
        work -= take;
    }
    return work > whole - HELD(whole) ? INFINITY : sum;
}

/* With n stages left running m micro-batches, every schedule has some stage
 * k with in + out + (its predecessors' u) + m u_k >= T. If all stayed below
 * T, each u_k < (T - P_k) / m and the prefix sums P would obey
 * P_{k+1} < P_k (1 - 1/m) + T / m, so the sum of all u, at least least_sum,
 * would stay below T (1 - (1 - 1/m)^n): the pipeline's fill and drain. */
static double fill_bound(const cluster_stages *st, int from, double least)
{
    double filled = st->filled[st->stage_count - from];
    return filled > 0 ? least / filled : 0.0;
}

/* Stage s, the first not fixed, in 1F1B: its first backward waits for
 * micro-batch 0's trip through it and every later stage and back, S at
 * least (their least summed time and messages); when it has forwards
 * left after its first backward (p - s - 1 < m), each q = (m - 1) / (p -
 * s) times p - s micro-batches later another backward waits for the same
 * trip again (steady_span's long steps). Before it lies the trip in, after
 * it the earlier stages' backwards. */
static double cycle_bound(const cluster_stages *st, cluster_walk w, int s, double least)
{
    int p = st->stage_count, m = st->branch->micro_batches;
    int q = p - s - 1 < m ? (m - 1) / (p - s) : 0;
    double trip = least + 2 * st->hop_floor[s];
    return w.in + (q + 1) * trip + w.out;
}

double cluster_walk_bound_past(const cluster_stages *st, cluster_walk w, int s, int first, double enough)
{
    if (s == st->stage_count)
        return fmax(fmax(w.fixed, w.drain + w.path), w.drain2 + 2 * w.path);
    double m = st->branch->micro_batches;
    size_t at = (size_t)s * (st->prefix->layers + 1) + st->prefix->layers - first;
    /* the table look-ups first: when they pass `enough` the sums are not needed */
    double bound = most(w.fixed, most(w.in + m * st->bottleneck[at] + w.out, w.in + st->drain[at]));
    if (bound > enough)
        return bound;
    double work = cluster_work(st, first, st->prefix->layers - first);
    double least = least_sum(st, s, work);
    double rest = fmax(m * water_level(st, s, work), fill_bound(st, s, least));
    double below = w.path + 2 * w.last_hop + least;
    bound = fmax(fmax(bound, w.in + rest + w.out), fmax(w.drain + below, w.drain2 + 2 * below));
    /* stage k waits for micro-batch 0's trip below it, then runs m
     * backwards and the forwards left, then the stages above drain: every
     * open stage once, and k's own m - 1 - w_k more */
    double steady = w.in + w.out + 2 * st->hop_floor[s] + least + st->steady[at];
    return fmax(fmax(bound, steady), cycle_bound(st, w, s, least));
}

double cluster_walk_bound(const cluster_stages *st, cluster_walk w, int s, int first)
{
    return cluster_walk_bound_past(st, w, s, first, INFINITY);
}

/* The most layers stage s can hold: the longest run of layers whose memory
 * (without the rebuilt layer's term, so never over the true figure) fits. */
static int most_layers(const cluster_stages *st, int s, bool replay)
{
    int L = st->prefix->layers, best = 0;
    for (int n = 1; n <= L; n++) {
        bool some = false;
        for (int first = 0; first + n <= L && !some; first++)
            some = cluster_stage_memory(st, s, first, n, 0.0, replay) <= st->capacity[s];
        if (!some)
            break;
        best = n;
    }
    return best;
}

/* The most work any run of n layers holds. */
static double most_work(const cluster_stages *st, int n)
{
    double most = 0.0;
    for (int first = 0; n > 0 && first + n <= st->prefix->layers; first++)
        most = fmax(most, cluster_work(st, first, n));
    return most;
}

static int kink_order(const void *a, const void *b)
{
    const cluster_kink *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->stage != y->stage ? x->stage - y->stage : (x->slope < y->slope) - (x->slope > y->slope);
}

/* held_s (see water_level) rises at rate until cap_kept, stays flat until
 * recomputing catches up, rises to cap_work, stays. Recomputing, each FLOP
 * of work costs 1 / rate and brings ratio - 1 FLOPs of replayed products,
 * no quicker than the products' best rate. */
static void stage_kinks(const cluster_stages *st, int s, cluster_kink *k)
{
    double rate = st->rate[s], ratio = st->prefix->replay_ratio;
    double replaying = 1.0 / (1.0 / rate + (ratio - 1.0) / st->compute_rate[s]);
    double kept = fmin(st->cap_kept[s], st->cap_work[s]);
    double joins = kept / replaying, full = st->cap_work[s] / replaying;
    k[0] = (cluster_kink){kept / rate, -rate, s};
    k[1] = (cluster_kink){joins, replaying, s};
    k[2] = (cluster_kink){full, -replaying, s};
}

/* A lower bound of layer l's forward and backward on stage s, per
 * micro-batch, that adds up over layers: its products at their wave
 * efficiency, its element-wise traffic, its TP collectives' and
 * all-to-alls' bandwidth time (latencies, the roofline's weight reads,
 * ZeRO-3's gathers and what overlap hides left out). */
static double layer_floor(const cluster_stages *st, int s, int l, bool replay)
{
    const cluster_prefix *p = st->prefix;
    const cluster_kind *kind = &st->space->kinds[st->stage_kind[s]];
    const pp_hw_device_type *type = kind->type;
    int tp = st->stage_tp[s], q = st->stage_kind[s];
    double b = cluster_branch_samples(st->branch), share = b / tp;
    double flops = range(p->forward_cost[q], l, 1) + range(p->backward_cost[q], l, 1) +
                   (replay ? range(p->replay_cost[q], l, 1) : 0);
    double traffic = share * range(p->traffic, l, 1) + b * range(p->traffic_whole, l, 1);
    double time = pp_hw_op_time(type, share * flops, 0) + 2 * pp_hw_op_time(type, 0, traffic);
    if (tp > 1) {
        pp_hw_link link = {kind->tp_link.bandwidth, 0};
        double forward = b * range(p->tp_forward, l, 1);
        time += pp_hw_allreduce_time(link, tp, forward);
        time += cluster_tp_backward_floor(link, tp, b * range(p->tp_backward, l, 1), replay ? forward : 0,
                                          st->branch->tp_overlap);
    }
    int ep = st->branch->expert_parallel;
    if (ep > 1) {
        pp_hw_link group = {st->expert_bandwidth[s], 0};
        time += (replay ? 6 : 4) * pp_hw_alltoall_time(group, ep, share * range(p->alltoall, l, 1));
    }
    return time;
}

/* hop_floor (planner.h): every message at its hop's best bandwidth, of
 * the fewest bytes any layer but the last sends on. */
static void hop_floors(cluster_stages *st)
{
    const pp_cluster_workload *w = st->prefix->w;
    int p = st->stage_count;
    double least = INFINITY;
    for (int l = 0; l + 1 < w->layer_count; l++)
        least = fmin(least, w->layers[l].output_bytes);
    st->hop_floor[p - 1] = 0.0;
    for (int s = p - 2; s >= 0; s--) {
        int k = st->stage_tp[s] < st->stage_tp[s + 1] ? st->stage_tp[s] : st->stage_tp[s + 1];
        double bytes = cluster_branch_samples(st->branch) * least / k;
        st->hop_floor[s] = st->hop_floor[s + 1] + (bytes > 0 ? bytes / st->hop_bandwidth[s] : 0.0);
    }
}

/* open_floor (planner.h): per stage the least of each figure of a run of
 * one layer kept, which every run holding it bounds (monotone stage
 * costs; a run's tail has its first layer's ring and at least its
 * optimizer); its hop the fewest bytes any layer but the last sends on. */
static bool open_floors(cluster_stages *st, pp_arena *a)
{
    int p = st->stage_count, L = st->prefix->layers;
    st->open_floor = pp_arena_alloc(a, (size_t)p * sizeof(cluster_cost));
    st->open_trip = pp_arena_alloc(a, ((size_t)p + 1) * sizeof(double));
    if (!st->open_floor || !st->open_trip)
        return false;
    for (int s = 0; s < p; s++) {
        cluster_cost f = {INFINITY, INFINITY, INFINITY, INFINITY};
        for (int l = 0; l < L; l++) {
            cluster_cost c = stage_cost(st, s, l, 1, false, true);
            f.forward = least(f.forward, c.forward);
            f.backward = least(f.backward, c.backward);
            f.tail = least(f.tail, c.tail);
            if (l + 1 < L)
                f.hop = least(f.hop, hop_bytes(st, s, l));
        }
        f.hop = s + 1 < p && isfinite(f.hop) && f.hop > 0 ? f.hop / st->hop_bandwidth[s] : 0.0;
        st->open_floor[s] = f;
    }
    st->open_trip[p] = 0.0;
    for (int s = p - 1; s >= 0; s--) {
        const cluster_cost *f = &st->open_floor[s];
        st->open_trip[s] = st->open_trip[s + 1] + f->forward + f->backward + 2 * f->hop;
    }
    return true;
}

/* Each stage's rate (planner.h): the most work per second of any layer
 * under layer_floor, or the products' own rate where no layer has work. */
static void stage_rates(cluster_stages *st)
{
    int p = st->stage_count;
    for (int s = 0; s < p; s++) {
        st->rate[s] = 0.0;
        for (int l = 0; l < st->prefix->layers; l++) {
            double work = cluster_work(st, l, 1);
            if (work > 0)
                st->rate[s] = fmax(st->rate[s], work / layer_floor(st, s, l, false));
        }
        if (!(st->rate[s] > 0))
            st->rate[s] = st->compute_rate[s];
    }
    st->rate_suffix[p] = 0.0;
    for (int s = p - 1; s >= 0; s--)
        st->rate_suffix[s] = st->rate_suffix[s + 1] + st->rate[s];
}

static bool rate_before(const cluster_stages *st, int x, int y)
{
    return st->rate[x] > st->rate[y] || (st->rate[x] == st->rate[y] && x < y);
}

/* Insertion sort: a pipeline has few stages. */
static void sort_stages(const cluster_stages *st, int *order,
                        bool (*before)(const cluster_stages *, int, int))
{
    for (int i = 0; i < st->stage_count; i++) {
        int j = i;
        for (; j > 0 && before(st, i, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

/* What a run of layers costs stage s at the least, per layer and summed
 * over the run (prefix sums over the model): `pass` is layer_floor, kept
 * and recomputing; `gather` ZeRO-3's all-gathers of one pass (at the
 * ring's most bandwidth: each pass is no shorter than its gathers);
 * `ring` the gradients' data-parallel ring at its flows' share. */
typedef struct {
    double *pass[2], *gather, *ring;
} run_sums;

static void run_sums_fill(const cluster_stages *st, int s, run_sums *r)
{
    const cluster_prefix *p = st->prefix;
    int L = p->layers, n = st->branch->dp, tp = st->stage_tp[s];
    pp_hw_link link = {st->ring_bandwidth[s], 0};
    double ring = n > 1 ? ring_passes(st) * (n - 1) / n / tp / st->ring_share[s] : 0.0;
    r->pass[0][0] = r->pass[1][0] = r->gather[0] = r->ring[0] = 0.0;
    for (int l = 0; l < L; l++) {
        r->pass[0][l + 1] = r->pass[0][l] + layer_floor(st, s, l, false);
        r->pass[1][l + 1] = r->pass[1][l] + layer_floor(st, s, l, true);
        bool gathers = st->branch->zero3 && n > 1;
        double gather = gathers ? pp_hw_allgather_time(link, n, range(p->weight, l, 1) / tp) : 0;
        r->gather[l + 1] = r->gather[l] + gather;
        r->ring[l + 1] = r->ring[l] + ring * range(p->gradient, l, 1);
    }
}

/* For every n, the least over runs of n layers of a stage's time per
 * micro-batch, `time` (its passes, or its two passes' gathers, whichever
 * is more), and of (m - 1) time + its ring, `drain`: the stage runs m
 * forwards and m backwards, and its ring cannot start before its last
 * backward does (bottlenecks adds the tied embedding's all-reduce, which
 * follows). replay: the runs recompute. */
static void least_runs(const cluster_stages *st, const run_sums *r, bool replay, double *time, double *drain)
{
    int L = st->prefix->layers, m = st->branch->micro_batches;
    const double *pass = r->pass[replay];
    for (int n = 0; n <= L; n++) {
        time[n] = drain[n] = INFINITY;
        for (int first = 0; first + n <= L; first++) {
            double t = most(pass[first + n] - pass[first], 2 * (r->gather[first + n] - r->gather[first]));
            time[n] = least(time[n], t);
            drain[n] = least(drain[n], (m - 1) * t + r->ring[first + n] - r->ring[first]);
        }
    }
}

/* One DP step: row[need] = the least over splits of need layers, n to
 * stage s and the rest to the stages after it (next), of the larger of
 * own[n] and next[need - n]. Both only grow with their layers (a run of
 * n + 1 holds one of n, and each figure adds up over layers), so the
 * larger is least where own crosses next: a bisection, not every n (the
 * tables are built for every branch, most only for their root bound). */
static void split_row(int L, int after, const double *own, const double *next, double *row)
{
    for (int need = 0; need <= L; need++) {
        int hi = need - after;
        if (hi < 1 || !next) {
            /* the last stage takes them all */
            row[need] = hi < 1 || hi != need ? INFINITY : own[need];
            continue;
        }
        int lo = 1, top = hi;
        while (lo < top) {
            int n = lo + (top - lo) / 2;
            if (own[n] >= next[need - n])
                top = n;
            else
                lo = n + 1;
        }
        double at = most(own[lo], next[need - lo]);
        row[need] = lo > 1 ? least(at, most(own[lo - 1], next[need - lo + 1])) : at;
    }
}

/* Fills bottleneck and drain (planner.h). Stage s takes n layers at the
 * cost of its cheapest run of n that fits its memory (kept, or
 * recomputing: kept and replayed are its most layers, most_layers); the
 * least over splits of the largest stage cost (the DP over stages from
 * the last) bounds every split. Stages alike in kind and ring share their
 * tables. */
static bool bottlenecks(cluster_stages *st, const int *kept, const int *replayed, pp_arena *a)
{
    int p = st->stage_count, L = st->prefix->layers, width = L + 1;
    st->bottleneck = pp_arena_alloc(a, (size_t)p * width * sizeof(double));
    st->drain = pp_arena_alloc(a, (size_t)p * width * sizeof(double));
    st->steady = pp_arena_alloc(a, (size_t)p * width * sizeof(double));
    double *sums = pp_arena_alloc(a, 4 * (size_t)width * sizeof(double));
    double *tables = pp_arena_alloc(a, 7 * (size_t)width * sizeof(double));
    if (!st->bottleneck || !st->drain || !st->steady || !sums || !tables)
        return false;
    int m = st->branch->micro_batches;
    run_sums r = {{sums, sums + width}, sums + 2 * width, sums + 3 * width};
    double *keep = tables, *keep_drain = tables + width, *again = tables + 2 * width;
    double *again_drain = tables + 3 * width, *own = tables + 4 * width, *own_drain = tables + 5 * width;
    double *own_steady = tables + 6 * width;
    int like = -1;
    for (int s = p - 1; s >= 0; s--) {
        if (like < 0 || st->stage_kind[s] != st->stage_kind[like] ||
            st->ring_share[s] != st->ring_share[like] ||
            st->ring_bandwidth[s] != st->ring_bandwidth[like]) {
            run_sums_fill(st, s, &r);
            least_runs(st, &r, false, keep, keep_drain);
            least_runs(st, &r, true, again, again_drain);
            like = s;
        }
        for (int n = 0; n <= L; n++) {
            own[n] = n <= kept[s] ? keep[n] : n <= replayed[s] ? again[n] : INFINITY;
            own_drain[n] = (n <= kept[s] ? keep_drain[n] : n <= replayed[s] ? again_drain[n] : INFINITY) +
                           end_embedding(st, s);
            int after = p - s - 1 < m ? m - 1 - (p - s - 1) : 0;
            own_steady[n] = after * own[n];
        }
        bool last = s + 1 == p;
        size_t row = (size_t)s * width, next = row + width;
        split_row(L, p - s - 1, own, last ? NULL : st->bottleneck + next, st->bottleneck + row);
        split_row(L, p - s - 1, own_drain, last ? NULL : st->drain + next, st->drain + row);
        split_row(L, p - s - 1, own_steady, last ? NULL : st->steady + next, st->steady + row);
    }
    return true;
}

bool cluster_stages_limits(cluster_stages *st, pp_arena *a)
{
    int p = st->stage_count, m = st->branch->micro_batches;
    st->op_order = pp_arena_alloc(a, 2 * (size_t)p * (size_t)m * sizeof(int));
    if (!st->op_order)
        return false;
    for (int s = 0; s < p; s++)
        for (int q = 0; q < 2 * m; q++) {
            bool forward;
            int micro;
            cluster_op_of(p, s, m, q, &forward, &micro);
            st->op_order[(size_t)s * 2 * m + q] = 2 * micro + forward;
        }
    st->cap_work = pp_arena_alloc(a, (size_t)p * sizeof(double));
    st->cap_kept = pp_arena_alloc(a, (size_t)p * sizeof(double));
    st->kinks = pp_arena_alloc(a, 3 * (size_t)p * sizeof(cluster_kink));
    st->by_rate = pp_arena_alloc(a, (size_t)p * sizeof(int));
    st->hop_floor = pp_arena_alloc(a, (size_t)p * sizeof(double));
    if (!st->cap_work || !st->cap_kept || !st->kinks || !st->by_rate || !st->hop_floor)
        return false;
    stage_rates(st);
    hop_floors(st);
    st->filled = pp_arena_alloc(a, ((size_t)p + 1) * sizeof(double));
    if (!st->filled)
        return false;
    for (int n = 0; n <= p; n++)
        st->filled[n] = 1.0 - pow(1.0 - 1.0 / m, n);
    if (!open_floors(st, a))
        return false;
    st->least_layer_work = INFINITY;
    for (int l = 0; l < st->prefix->layers; l++)
        st->least_layer_work = fmin(st->least_layer_work, cluster_work(st, l, 1));
    int kept[p], replayed[p];
    for (int s = 0; s < p; s++) {
        replayed[s] = most_layers(st, s, true);
        kept[s] = most_layers(st, s, false);
        st->cap_work[s] = most_work(st, replayed[s] > kept[s] ? replayed[s] : kept[s]);
        st->cap_kept[s] = most_work(st, kept[s]);
        stage_kinks(st, s, st->kinks + 3 * s);
    }
    qsort(st->kinks, 3 * (size_t)p, sizeof *st->kinks, kink_order);
    sort_stages(st, st->by_rate, rate_before);
    return bottlenecks(st, kept, replayed, a);
}

double cluster_layer_full_activation(const cluster_stages *st, int s, int layer)
{
    const cluster_prefix *p = st->prefix;
    return range(p->full, layer, 1) / st->stage_tp[s] + range(p->replicated, layer, 1);
}

double cluster_stage_memory(const cluster_stages *st, int s, int first, int count,
                            double max_layer, bool replay)
{
    const cluster_prefix *p = st->prefix;
    double share = 1.0 / st->stage_tp[s];
    int m = st->branch->micro_batches;
    int in_flight = st->stage_count - s < m ? st->stage_count - s : m;
    double b = cluster_branch_samples(st->branch);
    double bytes = share * range(p->state, first, count);
    if (p->buffer)
        bytes += share * buffer_max(p, first, count);
    if (replay)
        return bytes + in_flight * b * (p->checkpoint_split ? share : 1) * range(p->checkpoint, first, count) +
               b * max_layer;
    return bytes + in_flight * b *
                       (share * range(p->activation, first, count) + range(p->replicated, first, count));
}

/* Bytes node n's NICs must send, and when they exist at the earliest. */
typedef struct {
    double release, bytes;
} nic_item;

/* Every item released at or after some time still has to go out from
 * then on: with the items by release, latest first, that gives a bound per
 * item. */
static double release_bound(nic_item *items, int count, double capacity)
{
    for (int i = 1; i < count; i++) {
        nic_item x = items[i];
        int k = i;
        for (; k > 0 && items[k - 1].release < x.release; k--)
            items[k] = items[k - 1];
        items[k] = x;
    }
    double bound = 0.0, sent = 0.0;
    for (int k = 0; k < count; k++) {
        sent += items[k].bytes;
        bound = fmax(bound, items[k].release + sent / capacity);
    }
    return bound;
}

/* Node n's NICs carry every ring flow of its devices that leaves the node
 * (none before its stage's last backward begins) and every pipeline flow
 * between its stages and another node's (none before the stage's first
 * forward is done). */
static double nic_bound(const cluster_stages *st, int n, const double *ring_release,
                        const double *hop_release, const int *layers)
{
    const pp_cluster *c = st->space->cluster;
    int dp = st->branch->dp, p = st->stage_count, count = 0;
    double m = st->branch->micro_batches, b = cluster_branch_samples(st->branch);
    nic_item items[2 * p];
    for (int s = 0, first = 0; s < p; first += layers[s++]) {
        int rings = st->ring_out[s * c->node_count + n], hops = st->hop_out[s * c->node_count + n];
        if (rings > 0 && dp > 1)
            items[count++] = (nic_item){ring_release[s], rings * ring_passes(st) * (dp - 1) / dp /
                                                             st->stage_tp[s] *
                                                             range(st->prefix->gradient, first, layers[s])};
        if (hops > 0) {
            int k = st->stage_tp[s] < st->stage_tp[s + 1] ? st->stage_tp[s] : st->stage_tp[s + 1];
            double bytes = b * st->prefix->w->layers[first + layers[s] - 1].output_bytes / k;
            items[count++] = (nic_item){hop_release[s], hops * m * bytes};
        }
    }
    return count ? release_bound(items, count, st->space->node_nic[n]) : 0.0;
}

/* The last micro-batch's trip below stage k: in 1F1B stage k runs, after
 * its last forward, `between` backwards and then the last one, which waits
 * for that micro-batch's forward and backward on every later stage and the
 * hops between them. */
static double last_backward_start(const cluster_stages *st, const cluster_cost *c,
                                  const cluster_walk *w, int k, double below)
{
    int m = st->branch->micro_batches, p = st->stage_count;
    int warm = p - k - 1 < m ? p - k - 1 : m;
    int between = warm < m - 1 ? warm : m - 1, before = m - 1 - between;
    double wait = fmax(below, between * c[k].backward);
    return w[k].in + m * c[k].forward + before * c[k].backward + wait;
}

/* Replica r's step as 1F1B runs it (cluster_op_of) with every pass at its
 * cost and every pipeline message (bytes[s] from stage s on) at replica
 * r's own best transfer time: each op starts once the one before it on
 * its stage is done and its input has arrived, and each stage's tail
 * follows its last backward. The simulator's ops are no shorter and its
 * messages, sharing links, no quicker, and its ops start in the same order
 * on the same conditions, so none of them starts earlier: this bounds its
 * step. It counts what the schedule's shape makes of slow messages (the
 * fill, and in the steady state every cycle a message lengthens), which
 * bounds by sums miss. A stage's ops left follow each op, and after its
 * last backward its tail, or the last micro-batch's way up through the
 * stages above and one of their tails, so the schedule stops once that
 * passes `enough` (most do, before their end), returning that weaker
 * bound. */
static double replica_bound(const cluster_stages *st, const cluster_cost *c, const double *bytes, int r,
                            double enough)
{
    int p = st->stage_count, m = st->branch->micro_batches;
    double hop[p], free_at[p], left[p], *fwd = st->schedule, *bwd = st->schedule + (size_t)p * m;
    /* 1F1B runs a stage's forwards, and its backwards, in micro-batch
     * order: micro-batch i's is done once more than i have run */
    int next[p], stack[p], ran[2][p], depth = 0;
    bool queued[p];
    double up = 0.0; /* after stage s's last backward: the stages above's, and a tail */
    for (int s = 0; s < p; s++) {
        hop[s] = bytes[s] > 0 ? bytes[s] / st->replica_hop_bandwidth[r * p + s] : 0.0;
        up = most(up, c[s].tail);
        free_at[s] = 0.0;
        left[s] = m * (c[s].forward + c[s].backward) + up;
        up += hop[s] + c[s].backward;
        next[s] = ran[0][s] = ran[1][s] = 0;
        stack[depth++] = p - 1 - s;
        queued[s] = true;
    }
    while (depth > 0) {
        int s = stack[--depth];
        queued[s] = false;
        for (; next[s] < 2 * m; next[s]++) {
            int op = st->op_order[(size_t)s * 2 * m + next[s]], i = op / 2;
            bool forward = op % 2;
            double *done = forward ? fwd : bwd;
            int from = forward ? s - 1 : s + 1;
            double ready = 0.0;
            if (from >= 0 && from < p) {
                if (ran[forward][from] <= i)
                    break;
                ready = done[(size_t)from * m + i] + hop[forward ? from : s];
            }
            double length = forward ? c[s].forward : c[s].backward;
            free_at[s] = most(free_at[s], ready) + length;
            left[s] -= length;
            if (free_at[s] + left[s] > enough)
                return free_at[s] + left[s];
            done[(size_t)s * m + i] = free_at[s];
            ran[forward][s]++;
            int to = forward ? s + 1 : s - 1;
            if (to >= 0 && to < p && !queued[to]) {
                stack[depth++] = to;
                queued[to] = true;
            }
        }
    }
    double bound = 0.0;
    for (int s = 0; s < p; s++)
        bound = most(bound, bwd[(size_t)s * m + m - 1] + c[s].tail);
    return bound;
}

/* Paths of replica_bound's graph that need no schedule, every message at
 * its best time (c.hop). Micro-batch 0's backward on stage k ends after
 * its trip in, through every stage below and back. In the steady state,
 * for a window of stages k .. e, the forward stage k runs after backward
 * i goes down the window, after which stage e runs backward i + D (D =
 * e - k + 1), which comes back up: B_k(i + D) ends at least the window's
 * passes and twice its hops after B_k(i). The chain of such steps, then
 * stage k's ops left and its tail. With one stage (D = 1) this is the
 * stage's own work; with slow messages between heavy stages the cycle
 * through them is what sets the pace (hetero-v100-32 after the Ethernet
 * drop: stages of 57 ms per micro-batch each side of a 6.7 ms hop). */
static double window_bound(const cluster_stages *st, const cluster_cost *c)
{
    int p = st->stage_count, m = st->branch->micro_batches;
    double in = 0.0, bound = 0.0;
    for (int k = 0; k < p; k++) {
        int warm = p - k - 1 < m ? p - k - 1 : m, last = m - 2 - warm;
        double trip = 0.0;
        for (int j = k; j < p; j++)
            trip += c[j].forward + c[j].backward + (j + 1 < p ? 2 * c[j].hop : 0.0);
        double window = c[k].forward + c[k].backward;
        for (int e = k + 1; e < p && last >= 0; e++) {
            window += c[e].forward + c[e].backward + 2 * c[e - 1].hop;
            int D = e - k + 1, n = last / D + 1, i = n * D;
            int forwards = i + warm + 1 < m ? i + warm + 1 : m;
            bound = most(bound, in + trip + n * window + (m - 1 - i) * c[k].backward +
                                    (m - forwards) * c[k].forward + c[k].tail);
        }
        in += c[k].forward + c[k].hop;
    }
    return bound;
}

/* Whether replicas r and q send their pipeline messages as fast. */
static bool same_hops(const cluster_stages *st, int r, int q)
{
    int p = st->stage_count;
    return memcmp(st->replica_hop_bandwidth + (size_t)r * p, st->replica_hop_bandwidth + (size_t)q * p,
                  (size_t)p * sizeof(double)) == 0;
}

/* The largest of each distinct replica's schedule (replica_bound), or
 * the first above `enough`. */
static double schedules_bound(const cluster_stages *st, const cluster_cost *cost, const double *bytes,
                              double enough)
{
    /* replicas mostly repeat a few patterns of transfers */
    int distinct[8], count = 0;
    double bound = 0.0;
    for (int r = 0; r < st->branch->dp && bound <= enough; r++) {
        bool seen = false;
        for (int i = 0; i < count && !seen; i++)
            seen = same_hops(st, r, distinct[i]);
        if (seen)
            continue;
        if (count < 8)
            distinct[count++] = r;
        bound = fmax(bound, replica_bound(st, cost, bytes, r, enough));
    }
    return bound;
}

double cluster_plan_bound(const cluster_stages *st, const int *layers, const bool *replay, double enough)
{
    int p = st->stage_count;
    cluster_walk walk[p + 1];
    cluster_cost cost[p];
    double ring_release[p], hop_release[p];
    walk[0] = cluster_walk_start();
    for (int s = 0, first = 0; s < p; first += layers[s++]) {
        cost[s] = cluster_stage_cost(st, s, first, layers[s], replay[s]);
        hop_release[s] = walk[s].in + cost[s].forward;
        walk[s + 1] = cluster_walk_extend(st, walk[s], cost[s]);
    }
    double bound = cluster_walk_bound(st, walk[p], p, st->prefix->layers), below = 0.0;
    for (int k = p - 1; k >= 0; k--) {
        /* no gradient of the stage is ready before its last backward */
        ring_release[k] = last_backward_start(st, cost, walk, k, below);
        bound = fmax(bound, ring_release[k] + cost[k].backward + fmax(walk[k].out, cost[k].tail));
        below += cost[k].forward + cost[k].backward + 2 * (k > 0 ? cost[k - 1].hop : 0.0);
    }
    for (int n = 0; n < st->space->cluster->node_count; n++)
        bound = fmax(bound, nic_bound(st, n, ring_release, hop_release, layers));
    /* the schedules below cost p m steps each: the sums above first */
    bound = fmax(bound, window_bound(st, cost));
    if (bound > enough)
        return bound;
    double bytes[p];
    for (int s = 0, first = 0; s < p; first += layers[s++])
        bytes[s] = hop_bytes(st, s, first + layers[s] - 1);
    return fmax(bound, schedules_bound(st, cost, bytes, enough));
}

double cluster_open_windows(const cluster_stages *st, const cluster_cost *fixed, int s, double carried)
{
    int p = st->stage_count, m = st->branch->micro_batches, e = s - 1;
    if (e < 1 || s >= p)
        return -INFINITY;
    /* stage e, open at its floors in the carried chains' trips, is fixed now */
    const cluster_cost *f = &st->open_floor[e];
    carried += fixed[e].forward + fixed[e].backward + 2 * fixed[e].hop -
               (f->forward + f->backward + 2 * f->hop);
    double in[s];
    in[0] = 0.0;
    for (int k = 1; k < s; k++)
        in[k] = in[k - 1] + fixed[k - 1].forward + fixed[k - 1].hop;
    double bound = carried, window = fixed[e].forward + fixed[e].backward;
    double trip = st->open_trip[s] + window + 2 * fixed[e].hop;
    for (int k = e - 1; k >= 0; k--) {
        const cluster_cost *c = &fixed[k];
        double pass = c->forward + c->backward;
        window += pass + 2 * c->hop;
        trip += pass + 2 * c->hop;
        int warm = p - k - 1 < m ? p - k - 1 : m, last = m - 2 - warm;
        if (last < 0)
            continue;
        /* to stage e, and through every stage to the last (its trip) */
        int ends[2] = {e - k + 1, p - k};
        double sums[2] = {window, trip};
        for (int w = 0; w < 2; w++) {
            int n = last / ends[w] + 1, i = n * ends[w];
            int forwards = i + warm + 1 < m ? i + warm + 1 : m;
            bound = most(bound, in[k] + trip + n * sums[w] + (m - 1 - i) * c->backward +
                                    (m - forwards) * c->forward + c->tail);
        }
    }
    return bound;
}

double cluster_root_bound(const cluster_stages *st)
{
    return cluster_walk_bound(st, cluster_walk_start(), 0, 0);
}
