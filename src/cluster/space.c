/* space.c: the planner's plan space at one moment: the live devices grouped
 * into kinds of nodes, the top-level branches (a TP degree per kind, data
 * parallelism, the kinds' order along a pipeline, how groups are dealt to
 * replicas, the micro-batch size) and the stages and devices of a branch. */
#include "cluster/optime.h"
#include "cluster/planner.h"
#include "parplan/hw_net.h"

#include <math.h>
#include <string.h>
#include "cluster/moment.h"
#include "cluster/plan.h"

static double best_bandwidth_from(const pp_cluster *c, int link, double t)
{
    double best = pp_cluster_link_bandwidth_at(c, link, t);
    for (int e = 0; e < c->event_count; e++)
        if (c->events[e].time > t)
            best = fmax(best, pp_cluster_link_bandwidth_at(c, link, c->events[e].time));
    return best;
}

/* Merges node's intra-node links into the kind's TP link (see planner.h). */
static void merge_intra_links(const pp_cluster *c, int node, double t, pp_hw_link *link)
{
    for (int l = 0; l < c->link_count; l++) {
        const pp_cluster_link *k = &c->links[l];
        if (k->node != node || k->inter_node)
            continue;
        link->bandwidth = fmax(link->bandwidth, best_bandwidth_from(c, l, t));
        link->latency = fmin(link->latency, k->latency);
    }
}

/* Two nodes are alike when their devices and links would cost the same. */
/* By figures, not by pointer: clusters built in code may repeat a type. */
static bool same_type(const pp_hw_device_type *x, const pp_hw_device_type *y)
{
    return x == y || (strcmp(x->name, y->name) == 0 && x->peak_flops == y->peak_flops &&
                      x->memory_bandwidth == y->memory_bandwidth &&
                      x->memory_bytes == y->memory_bytes &&
                      x->efficiency_compute == y->efficiency_compute &&
                      x->efficiency_memory == y->efficiency_memory && x->gemm_sms == y->gemm_sms &&
                      x->gemm_tile_rows == y->gemm_tile_rows && x->gemm_tile_cols == y->gemm_tile_cols &&
                      x->streaming_efficiency == y->streaming_efficiency &&
                      x->fp8_flops == y->fp8_flops && x->fp8_relative == y->fp8_relative);
}

static bool nodes_alike(const pp_cluster *c, const cluster_space *sp, int a, int b, double t)
{
    if (!same_type(c->nodes[a].type, c->nodes[b].type) ||
        sp->node_live_count[a] != sp->node_live_count[b])
        return false;
    int la = 0, lb = 0;
    for (;;) {
        while (la < c->link_count && c->links[la].node != a)
            la++;
        while (lb < c->link_count && c->links[lb].node != b)
            lb++;
        if (la == c->link_count || lb == c->link_count)
            return la == lb;
        const pp_cluster_link *x = &c->links[la], *y = &c->links[lb];
        if (strcmp(x->name, y->name) != 0 || x->inter_node != y->inter_node ||
            x->ports != y->ports || x->latency != y->latency ||
            pp_cluster_link_bandwidth_at(c, la, t) != pp_cluster_link_bandwidth_at(c, lb, t))
            return false;
        la++;
        lb++;
    }
}

static void node_bandwidths(const pp_cluster *c, double t, cluster_space *sp)
{
    for (int n = 0; n < c->node_count; n++) {
        sp->node_intra[n] = sp->node_inter[n] = sp->node_nic[n] = 0.0;
        sp->node_nic_classes[n] = 0;
    }
    for (int l = 0; l < c->link_count; l++) {
        double *most = c->links[l].inter_node ? sp->node_inter : sp->node_intra;
        int n = c->links[l].node;
        double bw = best_bandwidth_from(c, l, t);
        most[n] = fmax(most[n], bw);
        if (c->links[l].inter_node) {
            sp->node_nic[n] += c->links[l].ports * bw;
            sp->node_nic_classes[n]++;
        }
    }
}

/* The most bandwidth one transfer from a to b could get. */
static double pair_bandwidth(const cluster_space *sp, int a, int b)
{
    int na = sp->cluster->device_node[a], nb = sp->cluster->device_node[b];
    if (na == nb)
        return sp->node_intra[na];
    return fmin(sp->node_inter[na], sp->node_inter[nb]);
}

static void count_live(const pp_cluster *c, double t, cluster_space *sp)
{
    sp->live_count = 0;
    for (int n = 0; n < c->node_count; n++) {
        const pp_cluster_node *node = &c->nodes[n];
        sp->node_live_first[n] = sp->live_count;
        for (int d = node->first_device; d < node->first_device + node->device_count; d++)
            if (pp_cluster_device_alive_at(c, d, t))
                sp->live[sp->live_count++] = d;
        sp->node_live_count[n] = sp->live_count - sp->node_live_first[n];
    }
}

pp_status cluster_space_build(const pp_cluster *c, double start_time, pp_arena *a,
                              cluster_space *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->cluster = c;
    out->live = pp_arena_alloc(a, (size_t)(c->device_count + 1) * sizeof(int));
    out->node_live_first = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(int));
    out->node_live_count = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(int));
    out->node_intra = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(double));
    out->node_inter = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(double));
    out->node_nic = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(double));
    out->node_nic_classes = pp_arena_alloc(a, (size_t)(c->node_count + 1) * sizeof(int));
    int *nodes = pp_arena_alloc(a, (size_t)(c->node_count + 1) * (size_t)CLUSTER_MAX_KINDS * sizeof(int));
    if (!out->live || !out->node_live_first || !out->node_live_count || !nodes ||
        !out->node_intra || !out->node_inter || !out->node_nic || !out->node_nic_classes)
        return pp_error_set(err, PP_ENOMEM, "out of memory building the plan space");
    count_live(c, start_time, out);
    node_bandwidths(c, start_time, out);
    for (int n = 0; n < c->node_count; n++) {
        if (out->node_live_count[n] == 0)
            continue;
        int k = 0;
        while (k < out->kind_count && !nodes_alike(c, out, out->kinds[k].nodes[0], n, start_time))
            k++;
        if (k == out->kind_count) {
            if (k == CLUSTER_MAX_KINDS)
                return pp_error_set(err, PP_EARG,
                                    "cluster %s: more than %d kinds of nodes (type, live devices, "
                                    "links) at time %g; the planner orders kinds exhaustively",
                                    c->name, CLUSTER_MAX_KINDS, start_time);
            cluster_kind *kind = &out->kinds[out->kind_count++];
            kind->type = c->nodes[n].type;
            kind->live_per_node = out->node_live_count[n];
            kind->nodes = nodes;
            kind->tp_link = (pp_hw_link){0.0, INFINITY};
            nodes += c->node_count;
        }
        out->kinds[k].nodes[out->kinds[k].node_count++] = n;
        merge_intra_links(c, n, start_time, &out->kinds[k].tp_link);
    }
    /* every kind's node list was given room for all nodes */
    if (out->kind_count == 0)
        return pp_error_set(err, PP_INFEASIBLE, "cluster %s: no device is alive at time %g",
                            c->name, start_time);
    return PP_OK;
}

static int kind_groups(const cluster_kind *k, int tp)
{
    return k->node_count * (k->live_per_node / tp);
}

/* The enumeration state: a TP degree per kind as a mixed-radix counter. */
typedef struct {
    const cluster_space *sp;
    const pp_cluster_workload *w;
    int tp_choices[CLUSTER_MAX_KINDS][64];
    int tp_count[CLUSTER_MAX_KINDS];
    int perms[24][CLUSTER_MAX_KINDS];
    int perm_count;
    cluster_branch *list;
    int count, room;
    pp_arena *a;
} enumeration;

static void permutations(enumeration *e, int *cur, int depth, int used)
{
    int k = e->sp->kind_count;
    if (depth >= k || depth >= CLUSTER_MAX_KINDS) {
        memcpy(e->perms[e->perm_count++], cur, (size_t)k * sizeof(int));
        return;
    }
    for (int i = 0; i < k; i++)
        if (!(used & (1 << i))) {
            cur[depth] = i;
            permutations(e, cur, depth + 1, used | (1 << i));
        }
}

static bool push(enumeration *e, const cluster_branch *b)
{
    if (e->count == e->room) {
        int room = e->room ? 2 * e->room : 256;
        cluster_branch *grown = pp_arena_alloc(e->a, (size_t)room * sizeof *grown);
        if (!grown)
            return false;
        if (e->count)
            memcpy(grown, e->list, (size_t)e->count * sizeof *grown);
        e->list = grown;
        e->room = room;
    }
    e->list[e->count] = *b;
    e->list[e->count].index = e->count;
    e->count++;
    return true;
}

/* Every (order, dealing, micro-batch) for fixed TP degrees and dp. */
/* Sequence parallelism where some kind runs TP, both ways; selective
 * recomputation both ways; the distributed optimizer wherever dp > 1, and
 * ZeRO-3 both ways there; every expert parallelism degree dividing dp and
 * the experts; of these, what the workload's stack runs (stack.c: no
 * ZeRO-3 beside DeepSpeed's pipeline, no optimizer-only sharding in
 * torchtitan). */
static bool branches_for_switches(enumeration *e, cluster_branch *b)
{
    bool tp = false;
    for (int k = 0; k < e->sp->kind_count; k++)
        tp |= b->tp[k] > 1;
    pp_cluster_stack stack = e->w->stack;
    b->stack = stack;
    b->reduce_after_backward = stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED;
    b->tp_overlap = tp;
    bool zero3_allowed = b->dp > 1 && !(stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED && b->stage_count > 1);
    int experts = e->w->experts > 0 ? e->w->experts : 1;
    for (int ep = 1; ep <= b->dp; ep++) {
        if (b->dp % ep != 0 || experts % ep != 0)
            continue;
        for (int z3 = 0; z3 <= (zero3_allowed ? 1 : 0); z3++)
            for (int sp = 0; sp <= (tp ? 1 : 0); sp++)
                for (int sel = 0; sel <= 1; sel++) {
                    b->expert_parallel = ep;
                    b->zero3 = z3;
                    b->distributed_optimizer = b->dp > 1 && (z3 || stack != PP_CLUSTER_STACK_TORCHTITAN);
                    b->sequence_parallel = sp;
                    b->selective_recompute = sel;
                    if (!push(e, b))
                        return false;
                }
    }
    return true;
}

/* Context parallelism of degree cp over dp replicas: groups of cp, each
 * sequence in 2 cp chunks (Megatron-LM's). */
static bool context_fits(const pp_cluster_workload *w, int dp, int cp)
{
    return cp == 1 || (dp % cp == 0 && w->sequence > 0 && w->sequence % (2 * cp) == 0);
}

/* Micro-batches of powers of two dividing the batch over the replicas'
 * CP groups. With context parallelism only a micro-batch of one sequence:
 * micro-batch b at degree c does per pass and per step what b / g at c / g
 * does (g dividing both), plus a ring, so a power of two above 1 in both
 * is never better. */
static bool branches_for_micro_batch(enumeration *e, cluster_branch *b)
{
    int64_t groups = b->dp / b->context_parallel, most = b->context_parallel > 1 ? 1 : 1 << 20;
    for (int64_t mb = 1; mb * groups <= e->w->global_batch && mb <= most; mb *= 2) {
        if (e->w->global_batch % (mb * groups) != 0)
            continue;
        b->micro_batch = (int)mb;
        b->micro_batches = (int)(e->w->global_batch / (mb * groups));
        if (!branches_for_switches(e, b))
            return false;
    }
    return true;
}

static bool branches_for_dp(enumeration *e, cluster_branch *b)
{
    const cluster_space *sp = e->sp;
    bool dealing_matters = false;
    b->stage_count = 0;
    for (int k = 0; k < sp->kind_count; k++) {
        int g = kind_groups(&sp->kinds[k], b->tp[k]);
        b->stage_count += g / b->dp;
        dealing_matters |= g > b->dp && b->dp > 1;
    }
    if (b->stage_count > e->w->layer_count)
        return true;
    for (int p = 0; p < e->perm_count; p++)
        for (int strided = 0; strided <= (dealing_matters ? 1 : 0); strided++)
            for (int cp = 1; cp <= b->dp && (cp == 1 || cp <= sp->max_context_parallel); cp *= 2) {
                if (!context_fits(e->w, b->dp, cp))
                    continue;
                memcpy(b->order, e->perms[p], sizeof b->order);
                b->strided = strided;
                b->context_parallel = cp;
                if (!branches_for_micro_batch(e, b))
                    return false;
            }
    return true;
}

static bool branches_for_tp(enumeration *e, cluster_branch *b)
{
    const cluster_space *sp = e->sp;
    int most = 1 << 30;
    for (int k = 0; k < sp->kind_count; k++) {
        int g = kind_groups(&sp->kinds[k], b->tp[k]);
        most = g < most ? g : most;
    }
    for (int dp = 1; dp <= most; dp++) {
        bool divides = true;
        for (int k = 0; k < sp->kind_count; k++)
            divides &= kind_groups(&sp->kinds[k], b->tp[k]) % dp == 0;
        if (!divides)
            continue;
        b->dp = dp;
        if (!branches_for_dp(e, b))
            return false;
    }
    return true;
}

static void tp_choices(enumeration *e)
{
    for (int k = 0; k < e->sp->kind_count; k++) {
        const cluster_kind *kind = &e->sp->kinds[k];
        e->tp_count[k] = 0;
        for (int t = 1; t <= kind->live_per_node && e->tp_count[k] < 64; t++) {
            bool fits = kind->live_per_node % t == 0 && e->w->tp_divisor % t == 0;
            if (fits && (t == 1 || kind->tp_link.bandwidth > 0))
                e->tp_choices[k][e->tp_count[k]++] = t;
        }
    }
}

pp_status cluster_branches(const cluster_space *sp, const pp_cluster_workload *w, pp_arena *a,
                           cluster_branch **out, int *count, pp_error *err)
{
    enumeration e = {.sp = sp, .w = w, .a = a};
    int cur[CLUSTER_MAX_KINDS];
    permutations(&e, cur, 0, 0);
    tp_choices(&e);
    int digit[CLUSTER_MAX_KINDS] = {0};
    for (;;) {
        cluster_branch b = {0};
        for (int k = 0; k < sp->kind_count; k++)
            b.tp[k] = e.tp_choices[k][digit[k]];
        if (!branches_for_tp(&e, &b))
            return pp_error_set(err, PP_ENOMEM, "out of memory listing the plan space");
        int k = 0;
        while (k < sp->kind_count && ++digit[k] == e.tp_count[k])
            digit[k++] = 0;
        if (k == sp->kind_count)
            break;
    }
    *out = e.list;
    *count = e.count;
    return PP_OK;
}

/* The device of group g (in node order) of kind k, member j. */
static int group_device(const cluster_space *sp, const cluster_kind *k, int tp, int g, int j)
{
    int per_node = k->live_per_node / tp;
    int node = k->nodes[g / per_node];
    return sp->live[sp->node_live_first[node] + (g % per_node) * tp + j];
}

static double device_rate(const pp_hw_device_type *t)
{
    return t->peak_flops * t->efficiency_compute;
}

/* Whether every stage's groups of all replicas lie on one node. Then
 * rotating the replicas maps the plan onto itself (the data-parallel
 * rings too) and moves devices only within their nodes, whose ports are
 * alike: the simulator runs every replica alike, op for op at the same
 * moments, so the replicas' pipeline messages between two nodes travel
 * together. */
static bool stacked(const cluster_stages *st, int members)
{
    const int *node = st->space->cluster->device_node;
    for (int r = 1; r < st->branch->dp; r++)
        for (int i = 0; i < members; i++)
            if (node[st->devices[r * members + i]] != node[st->devices[i]])
                return false;
    return true;
}

/* The most bandwidth each member's share of replica r's transfer between
 * stages s and s + 1 could get: its pair's, and when the groups' nodes
 * differ, the `flows` that travel together (the k members', or when
 * together is true all replicas') share the sender's and the receiver's
 * NIC pools (a group lies within one node). Replicas' flows are counted
 * together only when both nodes have one class of NIC: with more, the
 * route of each flow depends on which was sent first, and the replicas
 * no longer run alike. */
static double hop_share(const cluster_stages *st, const int *mine, int s, bool together)
{
    const cluster_space *sp = st->space;
    int k = st->stage_tp[s] < st->stage_tp[s + 1] ? st->stage_tp[s] : st->stage_tp[s + 1];
    double hop = INFINITY;
    for (int j = 0; j < k; j++) {
        int src = mine[j], dst = mine[st->stage_tp[s] + j];
        hop = fmin(hop, pair_bandwidth(sp, src, dst));
        int from = sp->cluster->device_node[src], to = sp->cluster->device_node[dst];
        if (from != to) {
            bool alike = together && sp->node_nic_classes[from] == 1 && sp->node_nic_classes[to] == 1;
            int flows = alike ? k * st->branch->dp : k;
            hop = fmin(hop, fmin(sp->node_nic[from], sp->node_nic[to]) / flows);
            st->hop_out[s * sp->cluster->node_count + from]++;
            st->hop_out[s * sp->cluster->node_count + to]++;
        }
    }
    return hop;
}

/* Fills hop_bandwidth, replica_hop_bandwidth, ring_bandwidth,
 * expert_bandwidth and context_bandwidth (see planner.h). */
static void transfer_bandwidths(cluster_stages *st, int members)
{
    const cluster_space *sp = st->space;
    int dp = st->branch->dp, ep = st->branch->expert_parallel, cp = st->branch->context_parallel;
    int p = st->stage_count;
    bool together = stacked(st, members);
    for (int s = 0, offset = 0; s < p; offset += st->stage_tp[s++]) {
        st->hop_bandwidth[s] = 0.0;
        st->ring_bandwidth[s] = INFINITY;
        st->expert_bandwidth[s] = INFINITY;
        st->context_bandwidth[s] = INFINITY;
        for (int r = 0; r < dp; r++) {
            const int *mine = st->devices + r * members + offset;
            const int *next_replica = st->devices + ((r + 1) % dp) * members + offset;
            double hop = s + 1 < p ? hop_share(st, mine, s, together) : INFINITY;
            st->replica_hop_bandwidth[r * p + s] = hop;
            st->hop_bandwidth[s] = fmax(st->hop_bandwidth[s], hop);
            for (int j = 0; r < ep && ep > 1 && j < st->stage_tp[s]; j++) {
                const int *next_expert = st->devices + ((r + 1) % ep) * members + offset;
                st->expert_bandwidth[s] =
                    fmin(st->expert_bandwidth[s], pair_bandwidth(sp, mine[j], next_expert[j]));
            }
            for (int j = 0; r < cp && cp > 1 && j < st->stage_tp[s]; j++) {
                const int *next_context = st->devices + ((r + 1) % cp) * members + offset;
                st->context_bandwidth[s] =
                    fmin(st->context_bandwidth[s], pair_bandwidth(sp, mine[j], next_context[j]));
            }
            for (int j = 0; dp > 1 && j < st->stage_tp[s]; j++) {
                st->ring_bandwidth[s] = fmin(st->ring_bandwidth[s],
                                             pair_bandwidth(sp, mine[j], next_replica[j]));
                int from = sp->cluster->device_node[mine[j]];
                if (from != sp->cluster->device_node[next_replica[j]])
                    st->ring_out[s * sp->cluster->node_count + from]++;
            }
        }
    }
}

/* Fills embedding (see planner.h): each member j < k of the first stage
 * and of the last sends the other its 1 / k of the tied gradient; with
 * the replicas alike (together, as for hop_share) theirs travel together.
 * The flows of one replica leaving (and entering) a node share its NIC
 * pool: none starts before the stages' last backwards, so the last of them
 * ends no sooner than their bytes over the pool (a stage's k flows on one
 * NIC had been priced as if each had it alone: on hetero-v100-32 with
 * GPT-13B after the Ethernet drop, half the all-reduce's time). */
static void embedding_time(cluster_stages *st, int members, bool together)
{
    const cluster_space *sp = st->space;
    const int *node = sp->cluster->device_node;
    int p = st->stage_count, dp = st->branch->dp;
    double tied = st->prefix->w->tied_bytes;
    st->embedding = 0.0;
    if (p < 2 || !(tied > 0))
        return;
    int k = st->stage_tp[0] < st->stage_tp[p - 1] ? st->stage_tp[0] : st->stage_tp[p - 1];
    int last = members - st->stage_tp[p - 1];
    for (int r = 0; r < dp; r++) {
        const int *first = st->devices + r * members, *end = first + last;
        for (int j = 0; j < k; j++) {
            double share = pair_bandwidth(sp, first[j], end[j]);
            int from = node[first[j]], to = node[end[j]];
            if (from != to) {
                bool alike = together && sp->node_nic_classes[from] == 1 && sp->node_nic_classes[to] == 1;
                int out = 0, in = 0;
                for (int i = 0; i < k; i++)
                    if (node[first[i]] != node[end[i]]) {
                        out += node[first[i]] == from;
                        in += node[end[i]] == to;
                    }
                double flows = (alike ? dp : 1) * (out > in ? out : in);
                share = fmin(share, fmin(sp->node_nic[from], sp->node_nic[to]) / flows);
            }
            st->embedding = fmax(st->embedding, tied / k / share);
        }
    }
}

/* Fills ring_share (see planner.h) from ring_bandwidth and ring_out. */
static void ring_shares(cluster_stages *st)
{
    const pp_cluster *c = st->space->cluster;
    for (int s = 0; s < st->stage_count; s++) {
        st->ring_share[s] = st->ring_bandwidth[s];
        const int *out = st->ring_out + (size_t)s * c->node_count;
        for (int n = 0; n < c->node_count; n++)
            if (out[n] > 0)
                st->ring_share[s] = fmin(st->ring_share[s], st->space->node_nic[n] / out[n]);
    }
}

bool cluster_stages_build(const cluster_space *sp, const pp_cluster_workload *w,
                          const cluster_branch *b, pp_arena *a, cluster_stages *out)
{
    int p = b->stage_count;
    cluster_prefix *pre = pp_arena_alloc(a, sizeof *pre);
    if (!pre || !cluster_prefix_build(sp, w, b, a, pre))
        return false;
    out->space = sp;
    out->prefix = pre;
    out->branch = b;
    out->stage_count = p;
    out->stage_kind = pp_arena_alloc(a, (size_t)p * sizeof(int));
    out->stage_tp = pp_arena_alloc(a, (size_t)p * sizeof(int));
    out->rate = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->rate_suffix = pp_arena_alloc(a, (size_t)(p + 1) * sizeof(double));
    out->capacity = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->compute_rate = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->devices = pp_arena_alloc(a, (size_t)sp->live_count * sizeof(int));
    if (!out->stage_kind || !out->stage_tp || !out->rate || !out->rate_suffix ||
        !out->capacity || !out->compute_rate || !out->devices)
        return false;
    int s = 0, slot = 0;
    for (int r = 0; r < b->dp; r++)
        for (int o = 0; o < sp->kind_count; o++) {
            int k = b->order[o], tp = b->tp[k];
            const cluster_kind *kind = &sp->kinds[k];
            int per_replica = kind_groups(kind, tp) / b->dp;
            for (int i = 0; i < per_replica; i++) {
                int g = b->strided ? r + i * b->dp : r * per_replica + i;
                for (int j = 0; j < tp; j++)
                    out->devices[slot++] = group_device(sp, kind, tp, g, j);
                if (r > 0)
                    continue;
                out->stage_kind[s] = k;
                out->stage_tp[s] = tp;
                double ceiling = cluster_gemm_ceiling(kind->type, w, cluster_branch_samples(b), 1.0 / tp);
                out->compute_rate[s] = tp * device_rate(kind->type) * ceiling;
                out->capacity[s] = kind->type->memory_bytes;
                s++;
            }
        }
    out->hop_bandwidth = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->replica_hop_bandwidth = pp_arena_alloc(a, (size_t)p * (size_t)b->dp * sizeof(double));
    out->schedule = pp_arena_alloc(a, 2 * (size_t)p * (size_t)b->micro_batches * sizeof(double));
    out->ring_bandwidth = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->ring_share = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->expert_bandwidth = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->context_bandwidth = pp_arena_alloc(a, (size_t)p * sizeof(double));
    out->ring_out = pp_arena_calloc(a, (size_t)p * (size_t)sp->cluster->node_count, sizeof(int));
    out->hop_out = pp_arena_calloc(a, (size_t)p * (size_t)sp->cluster->node_count, sizeof(int));
    if (!out->hop_bandwidth || !out->replica_hop_bandwidth || !out->schedule || !out->ring_bandwidth ||
        !out->ring_share || !out->expert_bandwidth || !out->context_bandwidth || !out->ring_out ||
        !out->hop_out)
        return false;
    transfer_bandwidths(out, slot / b->dp);
    ring_shares(out);
    embedding_time(out, slot / b->dp, stacked(out, slot / b->dp));
    return cluster_stages_limits(out, a);
}

/* A member's share is its rate over its group's, so unlike members finish
 * together; a node has one type, so today this is the even split. */
static void set_shares(const pp_cluster *c, pp_cluster_plan *p, int first, int tp)
{
    double total = 0.0;
    for (int j = 0; j < tp; j++)
        total += device_rate(c->nodes[c->device_node[p->devices[first + j]]].type);
    for (int j = 0; j < tp; j++)
        p->split[first + j] = device_rate(c->nodes[c->device_node[p->devices[first + j]]].type) / total;
}

pp_cluster_plan *cluster_stages_plan(const cluster_stages *st, const int *layers,
                                     const bool *replay)
{
    const cluster_branch *b = st->branch;
    pp_cluster_plan *p = pp_cluster_plan_new(b->dp, st->stage_count, st->stage_tp);
    if (!p)
        return NULL;
    int members = pp_cluster_plan_members(p);
    p->micro_batch = b->micro_batch;
    p->sequence_parallel = b->sequence_parallel;
    p->selective_recompute = b->selective_recompute;
    p->distributed_optimizer = b->distributed_optimizer;
    p->zero3 = b->zero3;
    p->expert_parallel = b->expert_parallel;
    p->context_parallel = b->context_parallel;
    p->tp_overlap = b->tp_overlap;
    p->stack = b->stack;
    p->reduce_after_backward = b->reduce_after_backward;
    for (int r = 0; r < b->dp; r++)
        p->micro_batches[r] = b->micro_batches;
    memcpy(p->stage_layers, layers, (size_t)st->stage_count * sizeof(int));
    memcpy(p->stage_recompute, replay, (size_t)st->stage_count * sizeof(bool));
    memcpy(p->devices, st->devices, (size_t)b->dp * (size_t)members * sizeof(int));
    for (int r = 0; r < b->dp; r++)
        for (int i = 0; i < st->stage_count; i++)
            set_shares(st->space->cluster, p, r * members + pp_cluster_plan_stage_offset(p, i),
                       st->stage_tp[i]);
    return p;
}
