/* simulate.c: the discrete-event simulator of one training step (the
 * planner's judge): each replica's stages run 1F1B or a given order of
 * forwards and backwards split into B and W, pipeline transfers and
 * the data-parallel gradient rings are flows of the shared network
 * (network.c), TP all-reduces occupy their group, so do ZeRO-3's
 * all-gathers where compute does not hide them, expert parallelism's
 * all-to-alls and context parallelism's ring attention, a tied word embedding's
 * gradient is all-reduced between the first and the last stage, optimizers
 * run when a device's gradients are reduced; the report and the timeline.
 * Events at the same time run in the order they were made (a sequence
 * number), so a plan always gets the same report. */
#include "parplan/cluster.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/network.h"
#include "cluster/optime.h"
#include "cluster/planner.h"
#include "cluster/zero3.h"
#include "cluster/moment.h"
#include "cluster/plan.h"
#include "core/timeline_internal.h"
#include "hw/hw_internal.h"
#include "hw/net_internal.h"

enum { EV_OP, EV_GRAD, EV_OPT };

typedef struct {
    double time;
    long seq;
    int kind, a, b;
} event;

/* One stage of one replica: a TP group running its 1F1B or given order. */
typedef struct {
    int r, s, m, tp;
    int next_op;          /* index in the order */
    int ops;              /* in the order */
    const pp_cluster_op *order; /* the given order, or NULL: 1F1B */
    bool busy, forward, weights; /* the op in progress (weights: a W) */
    int micro, chunk;
    int forwards, backwards, weight_ops; /* ops started (backwards: 1F1B's or B) */
    double weight_time;   /* a W's compute under a given order */
    int sending;          /* a blocking send not yet delivered (megatron-deepspeed), or -1 */
    double *fwd, *bwd;    /* [chunk] slowest member's pass */
    double fwd_min, bwd_min; /* the quickest chunk's */
    double optimizer;     /* the quickest member's optimizer */
    double *tp_fwd, *tp_bwd; /* [chunk] bytes of the TP all-reduce per pass */
    double *tp_own;       /* [chunk] of tp_bwd, the backward's own (not a replay's) */
    double *tp_hide;      /* [chunk] s of weight gradients the own ones overlap (tp_overlap) */
    /* zero3: [chunk] bytes the most loaded member all-gathers per pass (its
     * 16-bit parameters), of them its first and its last layer's, and the
     * gradient bytes it reduce-scatters per backward */
    double *gather, *gather_head, *gather_tail, *scatter;
    double *alltoall;     /* [chunk] bytes of one all-to-all per sample, most loaded member */
    int node;             /* the members' node, or -1 when they span nodes */
    pp_hw_link link;      /* the TP all-reduce's link, as of network version */
    int link_version;     /* -1 before the first look */
    pp_hw_link experts;   /* expert parallelism: the slowest of its members' rings over
                           * its expert group's replicas, as of network version */
    int experts_version;  /* -1 before the first look */
    /* context parallelism: [chunk] the most loaded member's block of keys
     * and values per pass, the least time a member's forward attention
     * products of the pass take, and the slowest of the members' rings over
     * the CP group as of network version context_version (-1 before) */
    double *context, *context_hide;
    pp_hw_link context_link;
    int context_version;
} group;

typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    const pp_cluster_plan *p;
    const pp_cluster_sim_options *o; /* NULL: none */
    int *held;            /* [stage] under a given order: micro-batches' activations at its peak */
    pp_timeline *tl;
    /* boxes the timeline may still take (LONG_MAX: no limit) and those it
     * was not given */
    long room, left_out;
    /* under a drawing's time limit (NULL: none): boxes drawn, those the
     * last look at the clock let in, and whether the run was stopped */
    const cluster_drawing *drawing;
    long drawn, let_in;
    bool cut;
    double wall0, cpu0; /* when the run began */
    cluster_net *net;
    int R, P, members, mmax, tp_max;
    int V, VP;            /* chunks per stage (virtual_stages), virtual stages */
    int *first_layer;     /* [virtual stage + 1]: chunk c of stage s is virtual stage c P + s */
    int *layer_stage;     /* [layer] its (physical) stage */
    int *offset;          /* [stage] first member within a replica */
    double *state;        /* [stage] state bytes */
    group *groups;        /* [r * P + s] */
    int *pending;         /* [transfer] flows still in flight */
    unsigned char *arrived; /* [transfer] */
    int bucket_base;      /* owners from here on are gradient buckets */
    int *grad_ready;      /* [layer] replicas whose copy is ready */
    int *bucket_flows;    /* [layer * tp_max + j] */
    int *buckets_left;    /* [stage * tp_max + j] */
    int embed_base;       /* owners from here on are the tied embedding's all-reduce */
    int embed_k;          /* members holding a shard of it (0: none to reduce) */
    int *embed_ready;     /* [replica * tp_max + j] its holders with reduced gradients */
    int *embed_flows;     /* [replica * tp_max + j] its flows in flight */
    double *compute;      /* [device] */
    int *dev_row;         /* [device] timeline row */
    int *ring;            /* [replica] scratch: one member's data-parallel ring */
    /* zero3: [stage] the slowest of its members' rings over every replica,
     * shared by the stage's groups (one look per stage, not per replica:
     * at thousands of GPUs a look per group costs devices x replicas) */
    pp_hw_link *stage_ring;
    int *stage_ring_version;
    int opt_left;
    double step;
    /* A step certainly longer than this stops the run (the search's
     * incumbent); over says it did. */
    double cutoff;
    bool over;
    /* Stops the run too (over) when it passes: one simulation of a
     * thousand-GPU plan can take a second. */
    const pp_deadline *deadline;
    long events;
    event *heap;
    int heap_count;
    long seq;
    double now;
    pp_status status;
    pp_error *err;
} sim;

/* ------------------------------------------------------------- event heap */

static bool before(const event *a, const event *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void push(sim *z, double time, int kind, int a, int b)
{
    int i = z->heap_count++;
    z->heap[i] = (event){time, z->seq++, kind, a, b};
    while (i > 0 && before(&z->heap[i], &z->heap[(i - 1) / 2])) {
        event t = z->heap[i];
        z->heap[i] = z->heap[(i - 1) / 2];
        z->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static event pop(sim *z)
{
    event top = z->heap[0];
    z->heap[0] = z->heap[--z->heap_count];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < z->heap_count && before(&z->heap[l], &z->heap[m]))
            m = l;
        if (r < z->heap_count && before(&z->heap[r], &z->heap[m]))
            m = r;
        if (m == i)
            break;
        event t = z->heap[i];
        z->heap[i] = z->heap[m];
        z->heap[m] = t;
        i = m;
    }
    return top;
}

/* ------------------------------------------------------------- plan lookups */

static int slot(const sim *z, int r, int s, int j)
{
    return r * z->members + z->offset[s] + j;
}

static int device_of(const sim *z, int r, int s, int j)
{
    return z->p->devices[slot(z, r, s, j)];
}

static const pp_hw_device_type *type_of(const sim *z, int d)
{
    return z->c->nodes[z->c->device_node[d]].type;
}

/* The transfer into virtual stage q of replica r. */
static int transfer_index(const sim *z, int r, int q, int micro, int dir)
{
    return ((r * z->VP + q) * z->mmax + micro) * 2 + dir;
}

void cluster_op_of(int P, int s, int m, int q, bool *forward, int *micro)
{
    int warm = P - s - 1 < m ? P - s - 1 : m, steady = 2 * (m - warm);
    if (q < warm) {
        *forward = true;
        *micro = q;
    } else if (q - warm < steady) {
        *forward = (q - warm) % 2 == 0;
        *micro = *forward ? warm + (q - warm) / 2 : (q - warm) / 2;
    } else {
        *forward = false;
        *micro = (m - warm) + (q - warm - steady);
    }
}

/* Op q of a stage's interleaved order (Megatron-LM's schedule, m a
 * multiple of P): 2 (P - s - 1) + (V - 1) P warm-up forwards, then forward
 * and backward in turn, then the backwards left; the k-th forward runs
 * chunk (k / P) mod V of micro-batch (k / (P V)) P + k mod P, the k-th
 * backward the chunks in reverse. */
static void op_of_interleaved(int P, int V, int s, int m, int q, bool *forward, int *micro, int *chunk)
{
    int total = m * V, warm = 2 * (P - s - 1) + (V - 1) * P, k;
    warm = warm < total ? warm : total;
    if (q < warm) {
        *forward = true;
        k = q;
    } else if (q - warm < 2 * (total - warm)) {
        *forward = (q - warm) % 2 == 0;
        k = *forward ? warm + (q - warm) / 2 : (q - warm) / 2;
    } else {
        *forward = false;
        k = (total - warm) + (q - warm - 2 * (total - warm));
    }
    *chunk = *forward ? k / P % V : V - 1 - k / P % V;
    *micro = k / (P * V) * P + k % P;
}

/* ------------------------------------------------------------- timeline */

/* The clock is looked at once every DRAW_LOOK boxes: it costs more than
 * recording one. */
#define DRAW_LOOK 64

/* Whether `boxes` drawn boxes can still be written by the drawing's end,
 * at the pace the machine has left the run so far. */
static bool writable(const sim *z, long boxes)
{
    double now = pp_now(), cpu = pp_thread_seconds() - z->cpu0;
    double slowdown = cpu > 0 ? fmax((now - z->wall0) / cpu, 1.0) : 1.0;
    return now + z->drawing->cpu_seconds_per_box * slowdown * (double)boxes < z->drawing->by;
}

/* Whether n more boxes can still be written by the drawing's end. */
static bool in_time(sim *z, long n)
{
    if (!z->drawing || z->drawn + n <= z->let_in)
        return true;
    long upto = z->drawn + n + DRAW_LOOK;
    if (!writable(z, upto))
        return false;
    z->let_in = upto;
    return true;
}

/* Past the drawing's end the drawn boxes' writing alone fills the time
 * left: the run stops. */
static bool drawing_late(const sim *z)
{
    return z->drawing && !writable(z, z->drawn);
}

/* Whether the timeline takes n more boxes; counts them out when not. */
static bool take_room(sim *z, long n)
{
    if (z->room >= n && !in_time(z, n))
        z->room = 0;
    if (z->room < n) {
        z->left_out += n;
        return false;
    }
    z->room -= n;
    z->drawn += n;
    return true;
}

static void box(sim *z, int d, double start, double end, const char *label, const char *category)
{
    if (z->tl && z->status == PP_OK && take_room(z, 1))
        z->status = pp_timeline_add_box(z->tl, z->dev_row[d], start, end, label, category, z->err);
}

/* ------------------------------------------------------------- TP collectives */

/* The group's link of class l's kind: the class's bandwidth at its
 * slowest member's node (-1 when a member's node lacks it), the largest
 * latency. */
static pp_hw_link group_link(sim *z, const group *g, int l)
{
    const pp_cluster *c = z->c;
    pp_hw_link link = {cluster_net_bandwidth(z->net, l), c->links[l].latency};
    for (int j = 1; g->node < 0 && j < g->tp && link.bandwidth >= 0; j++) {
        int m = cluster_net_inter_peer(z->net, l, c->device_node[device_of(z, g->r, g->s, j)]);
        link.bandwidth = m < 0 ? -1 : fmin(link.bandwidth, cluster_net_bandwidth(z->net, m));
        link.latency = m < 0 ? link.latency : fmax(link.latency, c->links[m].latency);
    }
    return link;
}

/* The link of the group's all-reduce now: the best intra-node class when the
 * members share a node, else the inter-node class all their nodes have with
 * the most bandwidth (its slowest node's figure). Kept until a bandwidth
 * event: every op of the group asks. */
static bool tp_link(sim *z, group *g, pp_hw_link *out)
{
    const pp_cluster *c = z->c;
    if (g->link_version == cluster_net_version(z->net)) {
        *out = g->link;
        return true;
    }
    bool found = false;
    int home = g->node >= 0 ? g->node : c->device_node[device_of(z, g->r, g->s, 0)], count;
    const int *links = cluster_net_node_links(z->net, home, &count);
    for (int i = 0; i < count; i++) {
        int l = links[i];
        if (c->links[l].inter_node != (g->node < 0))
            continue;
        pp_hw_link link = group_link(z, g, l);
        if (link.bandwidth >= 0 && (!found || link.bandwidth > out->bandwidth)) {
            *out = link;
            found = true;
        }
    }
    if (!found)
        z->status = pp_error_set(z->err, PP_EINPUT, "cluster %s: no link for the TP group of stage %d of replica %d",
                                 c->name, g->s, g->r);
    g->link = *out;
    g->link_version = found ? cluster_net_version(z->net) : -1;
    return found;
}

/* The TP collectives of a pass moving `bytes`: all-reduces (NCCL's ring or
 * tree, whichever is faster), or under sequence parallelism a ring
 * reduce-scatter and all-gather of the same bytes. */
static double tp_collective_time(const pp_cluster_plan *p, pp_hw_link link, int tp, double bytes)
{
    if (bytes <= 0) /* nothing to reduce is no collective, not one that pays its latency */
        return 0;
    if (p->sequence_parallel)
        return pp_hw_reduce_scatter_time(link, tp, bytes) + pp_hw_allgather_time(link, tp, bytes);
    return pp_hw_allreduce_time(link, tp, bytes);
}

/* A pass's TP collectives; under tp_overlap a backward's own run beside
 * the weight gradients, and only what outlasts them counts. */
static double tp_time(const pp_cluster_plan *p, const group *g, pp_hw_link link, bool forward, int c)
{
    if (forward)
        return tp_collective_time(p, link, g->tp, g->tp_fwd[c]);
    double t = tp_collective_time(p, link, g->tp, g->tp_bwd[c]);
    if (p->tp_overlap)
        t -= fmin(tp_collective_time(p, link, g->tp, g->tp_own[c]), g->tp_hide[c]);
    return t;
}

/* ------------------------------------------------------------- ZeRO-3 */

/* The rings of the group's members over replicas first .. first + n - 1
 * (member j of each), the slowest, kept in *link as of network version
 * *version; false when one has no link. */
static bool replica_ring(sim *z, const group *g, int first, int n, pp_hw_link *link, int *version)
{
    if (*version == cluster_net_version(z->net))
        return true;
    *link = (pp_hw_link){INFINITY, 0};
    for (int j = 0; j < g->tp; j++) {
        pp_hw_link ring;
        for (int r = 0; r < n; r++)
            z->ring[r] = device_of(z, first + r, g->s, j);
        if (!cluster_zero3_ring_link(z->c, z->net, z->ring, n, &ring)) {
            z->status = pp_error_set(z->err, PP_EINPUT,
                                     "cluster %s: no link for a ring over replicas %d..%d of stage %d "
                                     "member %d", z->c->name, first, first + n - 1, g->s, j);
            return false;
        }
        link->bandwidth = fmin(link->bandwidth, ring.bandwidth);
        link->latency = fmax(link->latency, ring.latency);
    }
    *version = cluster_net_version(z->net);
    return true;
}

/* A pass's all-to-alls over the group's expert group: dispatch and
 * combine, their gradients in a backward, and a replayed forward's two
 * more under recomputation; none overlapped with compute (Megatron-LM's
 * default token dispatcher waits for them). */
static double alltoall_time(const sim *z, const group *g, bool forward, int c)
{
    int ep = z->p->expert_parallel, count = forward ? 2 : z->p->stage_recompute[g->s] ? 4 : 2;
    return count * pp_hw_alltoall_time(g->experts, ep, g->alltoall[c]);
}

/* A pass of `compute` s under zero3: its layers' all-gathers, and in a
 * backward but the last micro-batch's its gradients' reduce-scatters (the
 * last one's are the gradient buckets), prefetched a layer ahead. */
static double zero3_pass(const sim *z, const group *g, bool forward, int micro, int c, double compute)
{
    int q = c * z->P + g->s, L = z->first_layer[q + 1] - z->first_layer[q];
    pp_hw_link ring = z->stage_ring[g->s];
    double gather = pp_hw_allgather_time(ring, z->R, g->gather[c]);
    double first = pp_hw_allgather_time(ring, z->R, forward ? g->gather_head[c] : g->gather_tail[c]);
    if (!forward && micro < g->m - 1)
        gather += pp_hw_reduce_scatter_time(ring, z->R, g->scatter[c]);
    return cluster_zero3_pass_time(compute, gather, first, L);
}

/* ------------------------------------------------------------- context parallelism */

/* A pass's exposed ring attention over the group's CP group of cp
 * replicas, layer by layer (each layer's ring has its own cp - 1
 * messages; the chunk's layers taken as alike): cp - 1 steps each pass
 * every member's block of keys and values on (an all-gather's bytes)
 * while the attention of the block in hand runs, 1/cp of the layer's, so a
 * step costs the longer of the two and what the transfers add is (cp - 1)
 * times their excess. The backward gathers the keys and values again and
 * reduce-scatters their gradients (twice the bytes, beside twice the
 * attention FLOPs), and a replayed forward has its own ring. */
static double context_time(const sim *z, const group *g, bool forward, int c)
{
    int cp = z->p->context_parallel, q = c * z->P + g->s, L = z->first_layer[q + 1] - z->first_layer[q];
    double ring = pp_hw_allgather_time(g->context_link, cp, cp * g->context[c] / L);
    double exposed = L * fmax(0, ring - g->context_hide[c] / L * (cp - 1) / cp);
    if (forward)
        return exposed;
    return 2 * exposed + (z->p->stage_recompute[g->s] ? exposed : 0);
}

/* ------------------------------------------------------------- steps */

static void start_optimizer(sim *z, int r, int s, int j)
{
    int d = device_of(z, r, s, j);
    double f = z->p->split[slot(z, r, s, j)];
    double t = cluster_optimizer_time(type_of(z, d), f * z->state[s]);
    z->compute[d] += t;
    push(z, z->now + t, EV_OPT, d, 0);
    box(z, d, z->now, z->now + t, "optimizer", "optimizer");
}

/* A stage's last backward began: with data parallelism each layer's
 * gradients are ready as the backward passes it, last layer first. */
static void last_backward(sim *z, const group *g, int chunk, double start, double length)
{
    int q = chunk * z->P + g->s, L = z->first_layer[q + 1] - z->first_layer[q];
    for (int k = 0; k < L; k++)
        push(z, start + length * (double)(L - k) / L, EV_GRAD, z->first_layer[q] + k, g->s);
}

static void try_start(sim *z, group *g);

/* From virtual stage qf to the next or previous one, qt; the transfer's
 * index. */
static int send_transfer(sim *z, int r, int qf, int qt, int micro, int dir)
{
    const pp_cluster_plan *p = z->p;
    int from = qf % z->P, to = qt % z->P;
    int k = p->stage_tp[from] < p->stage_tp[to] ? p->stage_tp[from] : p->stage_tp[to];
    int last = z->first_layer[(qf < qt ? qf : qt) + 1] - 1;
    double bytes = pp_cluster_plan_samples(p) * z->w->layers[last].output_bytes / k;
    int t = transfer_index(z, r, qt, micro, dir), flow;
    for (int j = 0; j < k && z->status == PP_OK; j++) {
        int src = device_of(z, r, from, j), dst = device_of(z, r, to, j);
        if (src == dst)
            continue;
        z->status = cluster_net_send(z->net, src, dst, bytes, 1, t, &flow, z->err);
        z->pending[t]++;
    }
    if (z->pending[t] == 0) {
        z->arrived[t] = 1;
        try_start(z, &z->groups[r * z->P + to]);
    }
    return t;
}

static bool ready(const sim *z, const group *g, bool forward, int micro, int chunk)
{
    int q = chunk * z->P + g->s;
    if (forward)
        return q == 0 || z->arrived[transfer_index(z, g->r, q, micro, 0)];
    return q == z->VP - 1 || z->arrived[transfer_index(z, g->r, q, micro, 1)];
}

/* The group's ops run one at a time and its optimizers after its last
 * backward, so the step ends no earlier than the op it starts now, its ops
 * not yet started (TP all-reduces left out) and its quickest optimizer. */
static void cut_short(sim *z, const group *g, double length)
{
    double rest = (z->V * g->m - g->forwards) * g->fwd_min + (z->V * g->m - g->backwards) * g->bwd_min;
    if (z->now + length + rest + g->optimizer > z->cutoff * (1 + 1e-9))
        z->over = true;
}

/* The group's next op: a forward, a W (weights) or a backward (1F1B's
 * whole one, or B), its micro-batch and chunk. */
static void next_op(const sim *z, const group *g, bool *forward, bool *weights, int *micro, int *chunk)
{
    *weights = false;
    *chunk = 0;
    if (g->order) {
        pp_cluster_op op = g->order[g->next_op];
        *forward = op.kind == PP_CLUSTER_OP_F;
        *weights = op.kind == PP_CLUSTER_OP_W;
        *micro = op.micro;
    } else if (z->V == 1)
        cluster_op_of(z->P, g->s, g->m, g->next_op, forward, micro);
    else
        op_of_interleaved(z->P, z->V, g->s, g->m, g->next_op, forward, micro, chunk);
}

/* A pass of *length s of compute with what it waits for beside it:
 * ZeRO-3's gathers, the all-to-alls, ring attention, the TP collectives.
 * False when a link it needs has no bandwidth now (a bandwidth event
 * retries it). */
static bool pass_time(sim *z, group *g, bool forward, int micro, int chunk, double *length)
{
    if (z->p->zero3 && z->R > 1) {
        if (!replica_ring(z, g, 0, z->R, &z->stage_ring[g->s], &z->stage_ring_version[g->s]) ||
            z->stage_ring[g->s].bandwidth <= 0)
            return false;
        *length = zero3_pass(z, g, forward, micro, chunk, *length);
    }
    int ep = z->p->expert_parallel;
    if (ep > 1) {
        if (!replica_ring(z, g, g->r - g->r % ep, ep, &g->experts, &g->experts_version) ||
            g->experts.bandwidth <= 0)
            return false;
        *length += alltoall_time(z, g, forward, chunk);
    }
    int cp = z->p->context_parallel;
    if (cp > 1) {
        if (!replica_ring(z, g, g->r - g->r % cp, cp, &g->context_link, &g->context_version) ||
            g->context_link.bandwidth <= 0)
            return false;
        *length += context_time(z, g, forward, chunk);
    }
    if (g->tp > 1) {
        pp_hw_link link;
        if (!tp_link(z, g, &link) || link.bandwidth <= 0)
            return false;
        *length += tp_time(z->p, g, link, forward, chunk);
    }
    return true;
}

/* Whether the op just started (counted) is the stage's last backward:
 * under a given order its last W, which finishes its gradients. */
static bool last_backward_op(const group *g, bool forward, bool weights, int micro)
{
    if (g->order)
        return weights && g->weight_ops == g->m;
    return !forward && micro == g->m - 1;
}

static void try_start(sim *z, group *g)
{
    bool forward, weights;
    int micro, chunk;
    if (g->busy || g->next_op >= g->ops || z->status != PP_OK)
        return;
    if (g->sending >= 0 && !z->arrived[g->sending])
        return;
    next_op(z, g, &forward, &weights, &micro, &chunk);
    /* a W follows its own B on this stage: nothing to wait for */
    if (!weights && !ready(z, g, forward, micro, chunk))
        return;
    double length = weights ? g->weight_time : forward ? g->fwd[chunk] : g->bwd[chunk];
    if (!weights && !pass_time(z, g, forward, micro, chunk, &length))
        return;
    if (g->order && !forward && !weights)
        length -= g->weight_time;
    g->busy = true;
    g->forward = forward;
    g->weights = weights;
    g->micro = micro;
    g->chunk = chunk;
    g->next_op++;
    g->forwards += forward;
    g->backwards += !forward && !weights;
    g->weight_ops += weights;
    cut_short(z, g, length);
    push(z, z->now + length, EV_OP, g->r * z->P + g->s, 0);
    char label[48] = "";
    char kind = forward ? 'F' : weights ? 'W' : 'B';
    if (z->tl)
        snprintf(label, sizeof label, "%c r%d s%d m%d", kind, g->r, chunk * z->P + g->s, micro);
    for (int j = 0; j < g->tp; j++) {
        int d = device_of(z, g->r, g->s, j);
        z->compute[d] += length;
        box(z, d, z->now, z->now + length, label, forward ? "forward" : weights ? "weights" : "backward");
    }
    if (last_backward_op(g, forward, weights, micro) && z->R > 1 && !z->p->reduce_after_backward)
        last_backward(z, g, chunk, z->now, length);
}

/* Member j of stage s in replica r has its gradients reduced. A tied word
 * embedding's holders (member j of the first and of the last stage) then
 * all-reduce its gradient, a ring of two in which each sends its shard
 * once, before either updates. */
static void gradients_ready(sim *z, int r, int s, int j)
{
    if (!((s == 0 || s == z->P - 1) && j < z->embed_k)) {
        start_optimizer(z, r, s, j);
        return;
    }
    int e = r * z->tp_max + j, flow;
    if (++z->embed_ready[e] < 2)
        return;
    int first = device_of(z, r, 0, j), last = device_of(z, r, z->P - 1, j);
    /* megatron-deepspeed reduces the FP32 copy (stack.c) */
    double bytes = z->w->tied_bytes / z->embed_k * (z->p->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED ? 2 : 1);
    for (int dir = 0; dir < 2 && z->status == PP_OK; dir++) {
        z->status = cluster_net_send(z->net, dir ? last : first, dir ? first : last,
                                     bytes, 2, z->embed_base + e, &flow, z->err);
        z->embed_flows[e]++;
    }
}

/* A replica without micro-batches has its gradients (zero) at once. */
static void no_work(sim *z, group *g)
{
    if (z->R > 1)
        for (int c = 0; c < z->V; c++)
            last_backward(z, g, c, 0, 0);
    else
        for (int j = 0; j < g->tp; j++)
            gradients_ready(z, g->r, g->s, j);
}

static void op_done(sim *z, group *g)
{
    g->busy = false;
    int q = g->chunk * z->P + g->s, t = -1;
    if (g->forward && q < z->VP - 1)
        t = send_transfer(z, g->r, q, q + 1, g->micro, 0);
    if (!g->forward && !g->weights && q > 0)
        t = send_transfer(z, g->r, q, q - 1, g->micro, 1);
    /* DeepSpeed's pipeline engine sends with a blocking p2p.send (stack.c):
     * the stage computes nothing more until its output is delivered */
    if (z->p->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED)
        g->sending = t;
    bool last = g->order ? g->weights && g->weight_ops == g->m
                         : !g->forward && g->micro == g->m - 1 && g->chunk == 0;
    if (last && z->R == 1)
        for (int j = 0; j < g->tp; j++)
            gradients_ready(z, g->r, g->s, j);
    for (int c = 0; last && z->R > 1 && z->p->reduce_after_backward && c < z->V; c++)
        last_backward(z, g, c, z->now, 0);
    try_start(z, g);
}

/* Every replica's copy of the layer is ready: a ring over the replicas for
 * each member, one flow per hop carrying its 2 (n-1)/n share of an
 * all-reduce, or under zero3 the (n-1)/n of a reduce-scatter. */
static void start_buckets(sim *z, int layer, int s)
{
    int n = z->R, flow, passes = z->p->zero3 ? 1 : 2;
    /* what a member holds of it: expert parallelism leaves a part */
    double gradient = pp_cluster_layer_under(&z->w->layers[layer], z->p, false, 1).gradient_bytes;
    for (int j = 0; j < z->p->stage_tp[s]; j++) {
        int owner = z->bucket_base + layer * z->tp_max + j;
        for (int r = 0; r < n && z->status == PP_OK; r++) {
            double f = z->p->split[slot(z, r, s, j)];
            double bytes = (double)passes * (n - 1) / n * f * gradient;
            z->status = cluster_net_send(z->net, device_of(z, r, s, j), device_of(z, (r + 1) % n, s, j),
                                         bytes, passes * (n - 1), owner, &flow, z->err);
            z->bucket_flows[layer * z->tp_max + j]++;
        }
    }
}

static void stage_of_layer_done(sim *z, int layer, int j)
{
    int s = z->layer_stage[layer];
    if (--z->buckets_left[s * z->tp_max + j] == 0)
        for (int r = 0; r < z->R; r++)
            gradients_ready(z, r, s, j);
}

static void flow_done(void *ctx, int owner, double now)
{
    sim *z = ctx;
    z->now = now;
    if (z->status != PP_OK)
        return;
    if (owner >= z->embed_base) {
        int e = owner - z->embed_base;
        if (--z->embed_flows[e] == 0) {
            start_optimizer(z, e / z->tp_max, 0, e % z->tp_max);
            start_optimizer(z, e / z->tp_max, z->P - 1, e % z->tp_max);
        }
        return;
    }
    if (owner < z->bucket_base) {
        if (--z->pending[owner] == 0) {
            z->arrived[owner] = 1;
            int rq = owner / 2 / z->mmax, r = rq / z->VP, qt = rq % z->VP, qf = owner % 2 ? qt + 1 : qt - 1;
            try_start(z, &z->groups[r * z->P + qt % z->P]);
            try_start(z, &z->groups[r * z->P + qf % z->P]); /* its sender, if it waits */
        }
        return;
    }
    int b = owner - z->bucket_base;
    if (--z->bucket_flows[b] == 0)
        stage_of_layer_done(z, b / z->tp_max, b % z->tp_max);
}

static void handle(sim *z, event e)
{
    if (e.kind == EV_OP)
        op_done(z, &z->groups[e.a]);
    else if (e.kind == EV_GRAD) {
        if (++z->grad_ready[e.a] == z->R)
            start_buckets(z, e.a, e.b);
    } else {
        z->opt_left--;
        z->step = fmax(z->step, e.time);
    }
}

/* Runs events until every optimizer is done; INFINITY when nothing more can
 * happen before that (a link down for good). */
static void run(sim *z)
{
    while (z->opt_left > 0 && z->status == PP_OK) {
        if (++z->events % 4096 == 0 && z->deadline && pp_deadline_passed(z->deadline))
            z->over = true;
        if (z->events % 4096 == 0 && drawing_late(z))
            z->over = z->cut = true;
        if (z->over) {
            z->step = INFINITY;
            return;
        }
        double th = z->heap_count ? z->heap[0].time : INFINITY;
        double tn = cluster_net_next(z->net);
        double t = fmin(th, tn);
        if (isinf(t)) {
            z->step = INFINITY;
            return;
        }
        z->now = t;
        if (cluster_net_advance(z->net, t, flow_done, z))
            for (int g = 0; g < z->R * z->P; g++)
                try_start(z, &z->groups[g]);
        z->now = t;
        if (th <= t && z->status == PP_OK)
            handle(z, pop(z));
    }
}

/* ------------------------------------------------------------- setup */

/* Member j's forward and backward FLOPs of chunk c, each divided by its
 * products' wave efficiency on the member's device and share (computed
 * again only where a layer's products differ from the one before). */
static void chunk_flops(const sim *z, const group *g, int c, int j, double *F, double *B)
{
    const pp_cluster_plan *p = z->p;
    int q = c * z->P + g->s;
    bool replay = p->stage_recompute[g->s];
    const pp_hw_device_type *t = type_of(z, device_of(z, g->r, g->s, j));
    double f = p->split[slot(z, g->r, g->s, j)], b = pp_cluster_plan_samples(p), forward = 1, backward = 1;
    *F = *B = 0;
    for (int k = z->first_layer[q]; k < z->first_layer[q + 1]; k++) {
        pp_cluster_layer l = pp_cluster_layer_under(&z->w->layers[k], p, replay, 1);
        if (k == z->first_layer[q] || !cluster_same_products(&z->w->layers[k], &z->w->layers[k - 1])) {
            forward = cluster_gemm_efficiency(t, &l, b, f, false);
            backward = cluster_gemm_efficiency(t, &l, b, f, true);
        }
        *F += l.forward_flops / forward;
        *B += l.backward_flops / backward + (replay ? l.recompute_flops / forward : 0);
    }
}

/* Chunk c's passes on the group's slowest member, and its TP bytes. */
static void setup_chunk(sim *z, group *g, int c)
{
    const pp_cluster_plan *p = z->p;
    int q = c * z->P + g->s;
    double b = pp_cluster_plan_samples(p), W = 0, T = 0, whole = 0, tf = 0, tb = 0, own = 0, hide = 0, G = 0;
    double K = 0, attention = 0; /* context parallelism's keys and values, attention FLOPs */
    double hide_fp8 = 0; /* of the weight gradients, those in FP8 */
    double most = 0, A = 0;
    bool replay = p->stage_recompute[g->s];
    for (int k = z->first_layer[q]; k < z->first_layer[q + 1]; k++) {
        pp_cluster_layer l = pp_cluster_layer_under(&z->w->layers[k], p, replay, 1);
        W += l.weight_bytes;
        G += l.gradient_bytes;
        A += l.alltoall_bytes;
        K += l.context_bytes;
        attention += l.attention_flops;
        T += l.traffic_bytes;
        whole += l.traffic_replicated_bytes;
        tf += l.tp_forward_bytes;
        own += l.tp_backward_bytes;
        tb += l.tp_backward_bytes + (replay ? l.tp_forward_bytes : 0);
        /* the column-parallel products (Q K V first) are FP8 or not together */
        if (l.gemm_count > 0 && l.gemm[0].fp8)
            hide_fp8 += l.overlap_flops;
        else
            hide += l.overlap_flops;
    }
    g->tp_fwd[c] = b * tf;
    g->tp_bwd[c] = b * tb;
    g->tp_own[c] = b * own;
    g->tp_hide[c] = INFINITY;
    g->context_hide[c] = INFINITY;
    for (int j = 0; j < g->tp; j++) {
        int d = device_of(z, g->r, g->s, j);
        double f = p->split[slot(z, g->r, g->s, j)], F, B;
        chunk_flops(z, g, c, j, &F, &B);
        double traffic = b * (f * T + whole);
        g->fwd[c] = fmax(g->fwd[c], cluster_pass_time(type_of(z, d), f * b * F, f * W, traffic));
        const pp_hw_device_type *t = type_of(z, d);
        double accumulate = p->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED ? cluster_accumulate_time(t, f * W) : 0;
        g->bwd[c] = fmax(g->bwd[c], cluster_pass_time(t, f * b * B, f * W, traffic) + accumulate);
        double fp8 = pp_hw_op_time(t, f * b * hide_fp8, 0) / cluster_fp8_speedup(t);
        g->tp_hide[c] = fmin(g->tp_hide[c], pp_hw_op_time(t, f * b * hide, 0) + fp8);
        g->context_hide[c] = fmin(g->context_hide[c], pp_hw_op_time(t, f * b * attention, 0));
        most = fmax(most, f);
    }
    g->gather[c] = most * W;
    g->gather_head[c] = most * z->w->layers[z->first_layer[q]].weight_bytes;
    g->gather_tail[c] = most * z->w->layers[z->first_layer[q + 1] - 1].weight_bytes;
    g->scatter[c] = most * G;
    g->alltoall[c] = most * b * A;
    g->context[c] = most * b * K;
    g->fwd_min = fmin(g->fwd_min, g->fwd[c]);
    g->bwd_min = fmin(g->bwd_min, g->bwd[c]);
}

/* The share of stage s's backward compute a W takes under a given order:
 * the options', or its layers' forward FLOPs over their backward's (a
 * weight gradient's products are the forward's; a replayed forward is
 * B's). */
static double weight_share(const sim *z, int s)
{
    if (z->o->weight_share)
        return fmin(1, fmax(0, z->o->weight_share[s]));
    bool replay = z->p->stage_recompute[s];
    double forward = 0, backward = 0;
    for (int k = z->first_layer[s]; k < z->first_layer[s + 1]; k++) {
        pp_cluster_layer l = pp_cluster_layer_under(&z->w->layers[k], z->p, replay, 1);
        forward += l.forward_flops;
        backward += l.backward_flops + (replay ? l.recompute_flops : 0);
    }
    return backward > 0 ? fmin(1, forward / backward) : 0;
}

static bool setup_group(sim *z, pp_arena *a, group *g, int r, int s)
{
    const pp_cluster_plan *p = z->p;
    *g = (group){.r = r, .s = s, .m = p->micro_batches[r], .tp = p->stage_tp[s], .link_version = -1, .sending = -1,
                 .experts_version = -1, .context_version = -1, .fwd_min = INFINITY, .bwd_min = INFINITY};
    double *times = pp_arena_calloc(a, 13 * (size_t)z->V, sizeof(double));
    if (!times)
        return false;
    g->fwd = times;
    g->bwd = times + z->V;
    g->tp_fwd = times + 2 * z->V;
    g->tp_bwd = times + 3 * z->V;
    g->tp_own = times + 4 * z->V;
    g->tp_hide = times + 5 * z->V;
    g->gather = times + 6 * z->V;
    g->gather_head = times + 7 * z->V;
    g->gather_tail = times + 8 * z->V;
    g->scatter = times + 9 * z->V;
    g->alltoall = times + 10 * z->V;
    g->context = times + 11 * z->V;
    g->context_hide = times + 12 * z->V;
    g->node = z->c->device_node[device_of(z, r, s, 0)];
    g->optimizer = INFINITY;
    for (int j = 0; j < g->tp; j++) {
        int d = device_of(z, r, s, j);
        double f = p->split[slot(z, r, s, j)];
        g->optimizer = fmin(g->optimizer, pp_hw_op_time(type_of(z, d), 0, 2 * f * z->state[s]));
        if (z->c->device_node[d] != g->node)
            g->node = -1;
    }
    for (int c = 0; c < z->V; c++)
        setup_chunk(z, g, c);
    g->ops = 2 * z->V * g->m;
    if (z->held) {
        g->order = z->o->order[s];
        g->ops = z->o->order_count[s];
        g->weight_time = weight_share(z, s) * g->bwd[0];
    }
    return true;
}

/* Every flow the step can start: k per pipeline transfer each way, and
 * with data parallelism one per replica, member and layer. */
static int flow_count(const sim *z)
{
    const pp_cluster_plan *p = z->p;
    int flows = 0;
    for (int q = 0; q + 1 < z->VP; q++) {
        int a = q % z->P, b = (q + 1) % z->P;
        int k = p->stage_tp[a] < p->stage_tp[b] ? p->stage_tp[a] : p->stage_tp[b];
        for (int r = 0; r < z->R; r++)
            flows += 2 * k * p->micro_batches[r];
    }
    for (int s = 0; z->R > 1 && s < z->P; s++)
        flows += z->R * p->stage_tp[s] * p->stage_layers[s];
    return flows + 2 * z->R * z->embed_k;
}

/* Virtual stage q = c P + s holds stage s's chunk c
 * (pp_cluster_plan_chunk_layers); they follow each other through the model
 * in q's order. */
static bool setup_layers(sim *z, pp_arena *a)
{
    const pp_cluster_plan *p = z->p;
    z->first_layer = pp_arena_calloc(a, (size_t)z->VP + 1, sizeof(int));
    z->layer_stage = pp_arena_calloc(a, (size_t)z->w->layer_count + 1, sizeof(int));
    z->state = pp_arena_calloc(a, (size_t)z->P, sizeof(double));
    if (!z->first_layer || !z->layer_stage || !z->state)
        return false;
    for (int q = 0; q < z->VP; q++) {
        int s = q % z->P;
        z->first_layer[q + 1] = z->first_layer[q] + pp_cluster_plan_chunk_layers(p, s, q / z->P);
        for (int k = z->first_layer[q]; k < z->first_layer[q + 1]; k++) {
            z->layer_stage[k] = s;
            z->state[s] += pp_cluster_layer_under(&z->w->layers[k], p, p->stage_recompute[s], 1).state_bytes;
        }
    }
    return true;
}

static bool setup(sim *z, pp_arena *a, double start_time)
{
    const pp_cluster_plan *p = z->p;
    z->R = p->replica_count;
    z->P = p->stage_count;
    z->V = p->virtual_stages;
    z->VP = z->V * z->P;
    z->members = pp_cluster_plan_members(p);
    for (int r = 0; r < z->R; r++)
        z->mmax = p->micro_batches[r] > z->mmax ? p->micro_batches[r] : z->mmax;
    z->mmax = z->mmax < 1 ? 1 : z->mmax;
    for (int s = 0; s < z->P; s++)
        z->tp_max = p->stage_tp[s] > z->tp_max ? p->stage_tp[s] : z->tp_max;
    z->offset = pp_arena_calloc(a, (size_t)z->P + 1, sizeof(int));
    for (int s = 0; z->offset && s < z->P; s++)
        z->offset[s + 1] = z->offset[s] + p->stage_tp[s];
    if (!setup_layers(z, a))
        return false;
    int transfers = z->R * z->VP * z->mmax * 2, layers = z->w->layer_count;
    z->bucket_base = transfers;
    z->pending = pp_arena_calloc(a, (size_t)transfers, sizeof(int));
    z->arrived = pp_arena_calloc(a, (size_t)transfers, 1);
    z->grad_ready = pp_arena_calloc(a, (size_t)layers + 1, sizeof(int));
    z->bucket_flows = pp_arena_calloc(a, (size_t)layers * z->tp_max + 1, sizeof(int));
    z->buckets_left = pp_arena_calloc(a, (size_t)z->P * z->tp_max, sizeof(int));
    z->embed_base = z->bucket_base + layers * z->tp_max;
    int ends = p->stage_tp[0] < p->stage_tp[z->P - 1] ? p->stage_tp[0] : p->stage_tp[z->P - 1];
    z->embed_k = z->w->tied_bytes > 0 && z->P > 1 ? ends : 0;
    z->embed_ready = pp_arena_calloc(a, (size_t)z->R * z->tp_max + 1, sizeof(int));
    z->embed_flows = pp_arena_calloc(a, (size_t)z->R * z->tp_max + 1, sizeof(int));
    for (int s = 0; s < z->P; s++)
        for (int j = 0; j < p->stage_tp[s]; j++)
            z->buckets_left[s * z->tp_max + j] = p->stage_layers[s];
    z->groups = pp_arena_calloc(a, (size_t)z->R * z->P, sizeof(group));
    for (int r = 0; z->groups && r < z->R; r++)
        for (int s = 0; s < z->P; s++)
            if (!setup_group(z, a, &z->groups[r * z->P + s], r, s))
                return false;
    z->heap = pp_arena_calloc(a, (size_t)(z->R * z->P + z->R * layers + z->R * z->members + 16),
                              sizeof(event));
    z->compute = pp_arena_calloc(a, (size_t)z->c->device_count + 1, sizeof(double));
    z->ring = pp_arena_calloc(a, (size_t)z->R, sizeof(int));
    z->stage_ring = pp_arena_calloc(a, (size_t)z->P, sizeof(pp_hw_link));
    z->stage_ring_version = pp_arena_calloc(a, (size_t)z->P, sizeof(int));
    for (int s = 0; z->stage_ring_version && s < z->P; s++)
        z->stage_ring_version[s] = -1;
    z->opt_left = z->R * z->members;
    /* the timeline draws the flows it has room for; the others' slots are
     * reused */
    int flows = flow_count(z), kept = !z->tl ? 0 : z->room / 2 < flows ? (int)(z->room / 2) : flows;
    z->net = cluster_net_new(z->c, start_time, kept > 0 ? kept : 1024, a);
    if (z->net && kept < flows)
        cluster_net_recycle(z->net, kept);
    return z->offset && z->pending && z->arrived && z->grad_ready && z->bucket_flows &&
           z->buckets_left && z->embed_ready && z->embed_flows && z->groups && z->heap && z->compute &&
           z->ring && z->stage_ring && z->stage_ring_version && z->net;
}

static pp_status add_device_rows(sim *z, pp_arena *a)
{
    const pp_cluster *c = z->c;
    z->dev_row = pp_arena_calloc(a, (size_t)c->device_count + 1, sizeof(int));
    if (!z->dev_row)
        return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    for (int d = 0; d < c->device_count; d++)
        z->dev_row[d] = -1;
    for (int i = 0; i < z->R * z->members; i++) {
        int d = z->p->devices[i];
        z->dev_row[d] = 0;
    }
    for (int d = 0; d < c->device_count; d++) {
        if (z->dev_row[d] < 0)
            continue;
        const pp_cluster_node *node = &c->nodes[c->device_node[d]];
        char name[160];
        snprintf(name, sizeof name, "%s/%d %s", node->name, d - node->first_device, node->type->name);
        z->dev_row[d] = pp_timeline_add_row(z->tl, name);
        if (z->dev_row[d] < 0)
            return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    }
    return PP_OK;
}

static void flow_label(const sim *z, int owner, char *label, size_t size, const char **category)
{
    if (owner >= z->embed_base) {
        int e = owner - z->embed_base;
        snprintf(label, size, "AR embedding r%d j%d", e / z->tp_max, e % z->tp_max);
        *category = "allreduce";
        return;
    }
    if (owner >= z->bucket_base) {
        int b = owner - z->bucket_base, layer = b / z->tp_max, q = 0;
        while (z->first_layer[q + 1] <= layer)
            q++;
        snprintf(label, size, "AR s%d l%d j%d", q, layer - z->first_layer[q], b % z->tp_max);
        *category = "allreduce";
        return;
    }
    int dir = owner % 2, micro = owner / 2 % z->mmax, g = owner / 2 / z->mmax;
    int q = g % z->VP + (dir ? 1 : -1);
    snprintf(label, size, "%c r%d s%d m%d", dir ? 'G' : 'A', g / z->VP, q, micro);
    *category = dir ? "gradient" : "activation";
}

/* A row per resource that carried a flow drawn, in resource order, and a
 * box per flow on its sender's and its receiver's resource, in the order
 * the flows were sent, while the timeline has room for both. */
static pp_status add_link_rows(sim *z, pp_arena *a)
{
    int nres = cluster_net_resource_count(z->net), nflows = cluster_net_flow_count(z->net);
    int *row = pp_arena_calloc(a, (size_t)nres + 1, sizeof(int));
    bool *drawn = pp_arena_calloc(a, (size_t)nflows + 1, sizeof(bool));
    if (!row || !drawn)
        return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    double start, end;
    int owner, out, in;
    /* the flows the network did not keep */
    z->left_out += 2 * (cluster_net_sent(z->net) - nflows);
    for (int i = 0; i < nflows; i++) {
        cluster_net_flow(z->net, i, &start, &end, &owner, &out, &in);
        if (isfinite(end) && take_room(z, 2)) {
            drawn[i] = true;
            row[out] = row[in] = 1;
        }
    }
    for (int r = 0; r < nres; r++) {
        char name[160];
        cluster_net_resource_name(z->net, r, name, sizeof name);
        row[r] = row[r] ? pp_timeline_add_row(z->tl, name) : -1;
    }
    for (int i = 0; i < nflows; i++) {
        if (!drawn[i])
            continue;
        cluster_net_flow(z->net, i, &start, &end, &owner, &out, &in);
        char label[48];
        const char *category;
        flow_label(z, owner, label, sizeof label, &category);
        pp_status st = pp_timeline_add_box(z->tl, row[out], start, end, label, category, z->err);
        if (st == PP_OK)
            st = pp_timeline_add_box(z->tl, row[in], start, end, label, category, z->err);
        if (st != PP_OK)
            return st;
    }
    return PP_OK;
}

/* ------------------------------------------------------------- report */

/* The FLOPs the plan executes: a recomputing stage's replayed forward counts,
 * as Narayanan et al.'s eq. 3 counts it (the layers of a transformer add up
 * to eq. 3 exactly when every stage recomputes), and a stage that keeps its
 * activations is not credited with work it does not do. */
static double step_work(const sim *z, double samples)
{
    double work = 0;
    for (int k = 0; k < z->w->layer_count; k++) {
        bool replay = z->p->stage_recompute[z->layer_stage[k]];
        pp_cluster_layer l = pp_cluster_layer_under(&z->w->layers[k], z->p, replay, 1);
        work += l.forward_flops + l.backward_flops + (replay ? l.recompute_flops : 0);
    }
    return work * samples;
}

static pp_status fill_report(const sim *z, pp_cluster_report *out)
{
    const pp_cluster *c = z->c;
    int n = c->device_count;
    double *block = calloc((size_t)4 * (size_t)n + 1, sizeof(double));
    bool *used = calloc((size_t)n + 1, sizeof(bool));
    if (!block || !used) {
        free(block);
        free(used);
        return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    }
    double samples = 0;
    for (int r = 0; r < z->R; r++)
        samples += (double)z->p->micro_batches[r] * pp_cluster_plan_samples(z->p);
    int devices = z->R * z->members;
    for (int i = 0; i < devices; i++)
        used[z->p->devices[i]] = true;
    *out = (pp_cluster_report){.step_time = z->step, .device_count = n, .compute = block,
                               .communication = block + n, .idle = block + 2 * n,
                               .peak_memory = block + 3 * n, .fits = true};
    out->samples_per_second = samples / z->step;
    out->tflops_per_device = step_work(z, samples) / z->step / devices / 1e12;
    cluster_plan_memory_held(c, z->w, z->p, z->held, out->peak_memory);
    for (int d = 0; d < n; d++) {
        if (!used[d])
            continue;
        out->compute[d] = z->compute[d];
        out->communication[d] = cluster_net_communication(z->net, d);
        out->idle[d] = z->step - z->compute[d];
        if (out->peak_memory[d] > type_of(z, d)->memory_bytes)
            out->fits = false;
    }
    free(used);
    return PP_OK;
}

/* The step's transfers and flows are numbered by int (owner ids, slots):
 * a plan with more micro-batches than they count (a global batch of 2^30
 * in micro-batches of 1) is refused as such, not as memory that ran out
 * after the count wrapped. */
static pp_status check_counts(const sim *z)
{
    const pp_cluster_plan *p = z->p;
    int64_t most = 1, tp = 1;
    for (int r = 0; r < p->replica_count; r++)
        most = p->micro_batches[r] > most ? p->micro_batches[r] : most;
    for (int s = 0; s < p->stage_count; s++)
        tp = p->stage_tp[s] > tp ? p->stage_tp[s] : tp;
    int64_t transfers = (int64_t)p->replica_count * p->virtual_stages * p->stage_count * most * 2;
    if ((transfers + z->w->layer_count + p->replica_count) * tp <= INT32_MAX)
        return PP_OK;
    return pp_error_set(z->err, PP_EINPUT,
                        "simulator: the plan runs %lld micro-batches per replica, %lld transfers per step over "
                        "tensor parallelism %lld: more than the simulator counts (2^31 - 1); a larger micro-batch "
                        "or a smaller global batch gives fewer",
                        (long long)most, (long long)transfers, (long long)tp);
}

static const char op_name[] = "FBW";

/* Whether stage s's op can run once the ops marked in done have: a forward
 * needs the stage before's, a B the stage after's B (the last stage's its
 * own F, which its order put before it), a W its own B. */
static bool op_can_run(const sim *z, const unsigned char *done, int s, pp_cluster_op op)
{
    int m = z->p->micro_batches[0];
    if (op.kind == PP_CLUSTER_OP_F)
        return s == 0 || done[(size_t)(s - 1) * 3 * m + op.micro];
    if (op.kind == PP_CLUSTER_OP_B)
        return s == z->p->stage_count - 1 || done[((size_t)(s + 1) * 3 + 1) * m + op.micro];
    return true;
}

/* Stage s's order: every op once, B after its F, W after its B; held[s]
 * the most forwards whose W has not yet run. */
static pp_status check_stage_order(sim *z, unsigned char *seen, int s)
{
    const pp_cluster_op *order = z->o->order[s];
    int m = z->p->micro_batches[0], n = z->o->order_count[s], live = 0;
    for (int k = 0; k < n; k++) {
        pp_cluster_op op = order[k];
        if ((unsigned)op.kind > PP_CLUSTER_OP_W || op.micro < 0 || op.micro >= m)
            return pp_error_set(z->err, PP_EINPUT,
                                "simulator: stage %d's op %d is kind %d of micro-batch %d: the kinds are F, B "
                                "and W, the micro-batches 0..%d", s, k, (int)op.kind, op.micro, m - 1);
        unsigned char *mine = seen + (size_t)op.kind * m + op.micro;
        if (*mine)
            return pp_error_set(z->err, PP_EINPUT, "simulator: stage %d's order holds %c of micro-batch %d twice",
                                s, op_name[op.kind], op.micro);
        if (op.kind != PP_CLUSTER_OP_F && !mine[-m])
            return pp_error_set(z->err, PP_EINPUT, "simulator: stage %d's order puts %c of micro-batch %d before its %c",
                                s, op_name[op.kind], op.micro, op_name[op.kind - 1]);
        *mine = 1;
        live += op.kind == PP_CLUSTER_OP_F ? 1 : op.kind == PP_CLUSTER_OP_W ? -1 : 0;
        z->held[s] = live > z->held[s] ? live : z->held[s];
    }
    for (int k = 0; k < 3 * m; k++)
        if (!seen[k])
            return pp_error_set(z->err, PP_EINPUT, "simulator: stage %d's order lacks %c of micro-batch %d", s,
                                op_name[k / m], k % m);
    return PP_OK;
}

/* A given order as pp_cluster_sim_options states it: each stage's valid,
 * and all of them run to their ends when each op waits only for what it
 * needs (op_can_run), or they would wait on each other for ever. */
static pp_status check_order(sim *z, pp_arena *a)
{
    const pp_cluster_plan *p = z->p;
    int P = p->stage_count, m = p->micro_batches[0];
    if (!z->o->order_count)
        return pp_error_set(z->err, PP_EARG, "simulator: a given order needs its counts");
    if (p->virtual_stages > 1)
        return pp_error_set(z->err, PP_EINPUT, "simulator: a given order runs one chunk a stage; the plan has %d",
                            p->virtual_stages);
    for (int r = 1; r < p->replica_count; r++)
        if (p->micro_batches[r] != m)
            return pp_error_set(z->err, PP_EINPUT,
                                "simulator: a given order runs every replica's micro-batches alike; replica 0 has "
                                "%d, replica %d %d", m, r, p->micro_batches[r]);
    z->held = pp_arena_calloc(a, (size_t)P, sizeof(int));
    unsigned char *seen = pp_arena_calloc(a, (size_t)P * 3 * m + 1, 1);
    unsigned char *done = pp_arena_calloc(a, (size_t)P * 3 * m + 1, 1);
    int *at = pp_arena_calloc(a, (size_t)P, sizeof(int));
    if (!z->held || !seen || !done || !at)
        return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    for (int s = 0; s < P; s++)
        if ((!z->o->order[s] && z->o->order_count[s] > 0) || check_stage_order(z, seen + (size_t)s * 3 * m, s) != PP_OK)
            return z->o->order[s] ? z->err->status
                                  : pp_error_set(z->err, PP_EARG, "simulator: stage %d's order is missing", s);
    for (bool moved = true; moved;) {
        moved = false;
        for (int s = 0; s < P; s++)
            for (; at[s] < 3 * m && op_can_run(z, done, s, z->o->order[s][at[s]]); at[s]++, moved = true) {
                pp_cluster_op op = z->o->order[s][at[s]];
                done[((size_t)s * 3 + op.kind) * m + op.micro] = 1;
            }
    }
    for (int s = 0; s < P; s++)
        if (at[s] < 3 * m) {
            pp_cluster_op op = z->o->order[s][at[s]];
            return pp_error_set(z->err, PP_EINPUT,
                                "simulator: the stages' orders wait on each other for ever: stage %d's %c of "
                                "micro-batch %d waits for stage %d's %c of it, which never runs",
                                s, op_name[op.kind], op.micro, op.kind == PP_CLUSTER_OP_F ? s - 1 : s + 1,
                                op_name[op.kind]);
        }
    return PP_OK;
}

/* Sets the step up and runs it; the caller frees a. */
static pp_status simulate_in(sim *z, pp_arena *a, double start_time)
{
    if (check_counts(z) != PP_OK)
        return z->err->status;
    if (z->o && z->o->order && check_order(z, a) != PP_OK)
        return z->err->status;
    if (!setup(z, a, start_time))
        return pp_error_set(z->err, PP_ENOMEM, "simulator: out of memory");
    if (z->tl)
        z->status = add_device_rows(z, a);
    for (int g = 0; g < z->R * z->P && z->status == PP_OK; g++) {
        try_start(z, &z->groups[g]);
        if (z->groups[g].m == 0)
            no_work(z, &z->groups[g]);
    }
    if (z->status == PP_OK)
        run(z);
    if (z->status == PP_OK && z->tl)
        z->status = add_link_rows(z, a);
    return z->status;
}

/* A plan that puts work on a device lost by start_time cannot run there:
 * refused, as re-planning refuses it, rather than simulated as if alive. */
static pp_status check_alive(const pp_cluster *c, const pp_cluster_plan *p, double start_time,
                             pp_error *err)
{
    int devices = p->replica_count * pp_cluster_plan_members(p);
    for (int i = 0; i < devices; i++)
        if (!pp_cluster_device_alive_at(c, p->devices[i], start_time))
            return pp_error_set(err, PP_INFEASIBLE,
                                "the plan cannot run at time %g: it uses device %d, which the "
                                "cluster's timeline has lost by then",
                                start_time, p->devices[i]);
    return PP_OK;
}

pp_status cluster_simulate_drawing(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                   const pp_cluster_sim_options *o, const cluster_drawing *d,
                                   pp_cluster_report *out, bool *cut, pp_error *err)
{
    memset(out, 0, sizeof *out);
    if (cut)
        *cut = false;
    if (check_alive(c, p, o ? o->start_time : 0, err) != PP_OK)
        return err->status;
    pp_arena *a = pp_arena_new(1 << 16);
    if (!a)
        return pp_error_set(err, PP_ENOMEM, "simulator: out of memory");
    sim z = {.c = c, .w = w, .p = p, .o = o, .tl = o ? o->timeline : NULL, .err = err, .drawing = d,
             .wall0 = pp_now(), .cpu0 = pp_thread_seconds(),
             .cutoff = INFINITY, .room = o && o->max_boxes > 0 ? o->max_boxes : LONG_MAX};
    pp_status s = simulate_in(&z, a, o ? o->start_time : 0);
    if (s == PP_OK && !z.cut)
        s = fill_report(&z, out);
    if (s == PP_OK)
        out->boxes_left_out = z.left_out;
    if (cut)
        *cut = z.cut;
    pp_arena_free(a);
    return s;
}

pp_status pp_cluster_simulate(const pp_cluster *c, const pp_cluster_workload *w,
                              const pp_cluster_plan *p, const pp_cluster_sim_options *o,
                              pp_cluster_report *out, pp_error *err)
{
    return cluster_simulate_drawing(c, w, p, o, NULL, out, NULL, err);
}

pp_status cluster_simulate_step(const pp_cluster *c, const pp_cluster_workload *w,
                                const pp_cluster_plan *p, double start_time, double cutoff,
                                const pp_deadline *deadline, double *step, pp_cluster_report *report,
                                pp_error *err)
{
    pp_arena *a = pp_arena_new(1 << 16);
    if (!a)
        return pp_error_set(err, PP_ENOMEM, "simulator: out of memory");
    sim z = {.c = c, .w = w, .p = p, .err = err, .cutoff = cutoff, .deadline = deadline};
    pp_status s = simulate_in(&z, a, start_time);
    *step = z.step;
    if (s == PP_OK && report && isfinite(z.step))
        s = fill_report(&z, report);
    pp_arena_free(a);
    return s;
}

void pp_cluster_report_free(pp_cluster_report *r)
{
    if (!r)
        return;
    free(r->compute);
    memset(r, 0, sizeof *r);
}

bool cluster_report_copy(const pp_cluster_report *r, pp_cluster_report *out)
{
    *out = *r;
    int n = r->device_count;
    if (!r->compute)
        return true;
    double *block = malloc(((size_t)4 * (size_t)n + 1) * sizeof(double));
    if (!block)
        return false;
    memcpy(block, r->compute, (size_t)4 * (size_t)n * sizeof(double));
    out->compute = block;
    out->communication = block + n;
    out->idle = block + 2 * n;
    out->peak_memory = block + 3 * n;
    return true;
}
