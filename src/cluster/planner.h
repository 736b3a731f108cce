/* planner.h: what the planner's files (space.c, bound.c, clock.c,
 * search.c, solve.c, uniform.c) share: the search's options, the plan space
 * of a cluster at one moment (kinds of nodes, tensor-parallel groups,
 * branches), the per-branch cost tables the branch-and-bound extends in O(1)
 * per node, the clock, and the Megatron-uniform baseline. */
#ifndef PP_CLUSTER_PLANNER_H
#define PP_CLUSTER_PLANNER_H

#include <stdatomic.h>

#include "parplan/cluster.h"
#include "parplan/hw_net.h"
#include "core/core_internal.h"

/* What the search is given besides the cluster and the workload. */
typedef struct {
    double time_limit;       /* s; 0 = run to the end of the search. A first
                              * plan still being simulated at the limit may
                              * run past it by a quarter of it, at most
                              * 0.4 s + 1%; then the search ends with what
                              * it holds (best NULL, complete false, if
                              * nothing) */
    int threads;             /* 0 = the machine's cores */
    uint64_t seed;
    double start_time;       /* plan for the conditions at this time */
    const pp_cluster_plan *warm_start; /* an earlier plan (re-planning), or NULL */
    /* The largest context parallelism degree the search opens (powers of
     * two, with micro-batch 1); 0 or 1: none. Off by default: its branches
     * multiply the space by up to log2(dp), and only long sequences gain. */
    int max_context_parallel;
    /* Stop early enough to leave time, within the timeout, for this many
     * more simulations as long as the longest the search ran: the caller's
     * report of its answer. */
    int reserve_simulations;
    /* On every better plan and every 1024 nodes a worker explores; NULL: none. */
    void (*on_progress)(void *ctx, const pp_cluster_progress *progress);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_cluster_plan_options;

/* Kinds beyond this many are merged into no branch: the stage orders are
 * every permutation of the kinds, so the count must stay small. */
#define CLUSTER_MAX_KINDS 4

/* Nodes with the same device type, the same number of live devices and the
 * same link classes (name and bandwidth at the start time) form a kind: their
 * groups cost the same, so a branch picks one TP degree per kind. */
typedef struct {
    const pp_hw_device_type *type;
    int live_per_node;
    int node_count;
    int *nodes;           /* [node_count], in node order */
    /* The fastest any intra-node link of the kind gets from the start time
     * on, with the least latency: TP collectives take at least this long. */
    pp_hw_link tp_link;
} cluster_kind;

/* The live devices at the start time, by node and kind. */
typedef struct {
    const pp_cluster *cluster;
    int kind_count;
    cluster_kind kinds[CLUSTER_MAX_KINDS];
    int live_count;
    int *live;            /* [live_count] device ids, in node order */
    int *node_live_first; /* [node] offset into live */
    int *node_live_count; /* [node] */
    /* Per node, the most any intra-node (per port) and inter-node (per NIC)
     * link of it offers from the start time on. */
    double *node_intra;
    double *node_inter;
    double *node_nic;     /* [node] all its NICs together (ports x bandwidth) */
    int *node_nic_classes; /* [node] its inter-node link classes */
    /* The largest context parallelism the branches open
     * (pp_cluster_plan_options.max_context_parallel; 0 from
     * cluster_space_build: none). */
    int max_context_parallel;
} cluster_space;

/* One top-level branch: everything but the layers per stage. */
typedef struct {
    int index;                      /* enumeration order: the ties' key */
    int tp[CLUSTER_MAX_KINDS];      /* per kind */
    int order[CLUSTER_MAX_KINDS];   /* kinds in pipeline order */
    int dp;
    bool strided;                   /* replica r takes groups r, r + dp, ... */
    int micro_batch;
    int micro_batches;              /* per replica */
    int stage_count;
    /* Megatron's switches (pp_cluster_plan): sequence parallelism and
     * selective recomputation are branches of their own; the distributed
     * optimizer is on wherever dp > 1, since in this model it never costs
     * time or memory (less state, a shorter optimizer step, the same bytes
     * on the wire). TP overlap is on wherever a kind runs TP: it only ever
     * hides time. ZeRO-3 (zero3) is a branch of its own wherever dp > 1:
     * it trades the all-gathers' time for memory. So is each expert
     * parallelism degree dividing dp and the workload's experts. */
    bool sequence_parallel, selective_recompute, distributed_optimizer, tp_overlap, zero3;
    int expert_parallel;
    /* Context parallelism (pp_cluster_plan.context_parallel): dp counts
     * every replica, micro_batches those of a CP group. */
    int context_parallel;
    /* The workload's stack: only what it runs (pp_cluster_stack_runs) is
     * branched on, with its gradients reduced where it reduces them. */
    pp_cluster_stack stack;
    bool reduce_after_backward;
    double root_bound;
} cluster_branch;

/* The samples' worth of work a replica's pass does (pp_cluster_plan_samples). */
static inline double cluster_branch_samples(const cluster_branch *b)
{
    return (double)b->micro_batch / b->context_parallel;
}

/* Sizes a stage's memory and time need, per layer, as prefix sums; work
 * and backward leave recomputation out, replay is what it adds. */
typedef struct {
    int layers;
    double *work;        /* fwd + bwd FLOPs per sample */
    double *forward;     /* fwd FLOPs per sample */
    double *backward;    /* bwd FLOPs per sample */
    double *replay;      /* FLOPs per sample recomputation adds to the backward */
    double *weight;      /* bytes read once per pass */
    double *traffic;     /* element-wise bytes per sample per pass */
    double *traffic_whole; /* of them, what every TP member moves whole */
    double *tp_forward;  /* TP all-reduce bytes per sample, forward */
    double *tp_backward; /* likewise backward (recomputation adds tp_forward) */
    double *overlap;     /* FLOPs per sample TP overlap hides the backward's own behind */
    double *state;
    double *activation;  /* kept by a stage that does not recompute */
    double *full;        /* a layer's whole activations, rebuilt under recomputation */
    double *replicated;
    double *checkpoint;
    double *gradient;
    double *alltoall;    /* bytes of one all-to-all per sample */
    double *context;     /* context parallelism: keys and values per sample */
    double *attention;   /* and the attention FLOPs per sample they run beside */
    /* Per kind of node, FLOPs per sample over the wave efficiency of
     * their products on it at the branch's TP share and micro-batch (the
     * simulator's figures): forward, backward, and what recomputation adds. */
    double *forward_cost[CLUSTER_MAX_KINDS];
    double *backward_cost[CLUSTER_MAX_KINDS];
    double *replay_cost[CLUSTER_MAX_KINDS];
    const pp_cluster_workload *w;
    /* The least (work + replay) / work of any layer: a recomputing stage
     * does at least this many times its work. */
    double replay_ratio;
    bool checkpoint_split; /* sequence parallelism splits the checkpoint too */
    /* zero3: the largest of cluster_zero3_buffer_bytes over layers
     * i .. i + 2^k - 1 at buffer[k * layers + i] (a sparse table, so a
     * stage's largest is two look-ups); NULL without zero3. */
    double *buffer;
} cluster_prefix;

/* A branch's stages: kind, devices of replica 0's groups and the cost rates. */
typedef struct {
    const cluster_space *space;
    const cluster_prefix *prefix;
    const cluster_branch *branch;
    int stage_count;
    int *stage_kind;     /* [stage] */
    int *stage_tp;       /* [stage] */
    int *devices;        /* [replica][member] in the plan's layout */
    /* [stage] FLOP/s (fwd + bwd, without recomputation) no stage holding
     * any layers exceeds: each layer's products at their wave efficiency,
     * its element-wise traffic and its TP collectives' bandwidth time are
     * each at least its share of that time (cluster_stages_limits) */
    double *rate;
    double *compute_rate; /* [stage] its products alone, at the workload's best efficiency */
    double *rate_suffix; /* [stage + 1] sum of rate from stage on */
    double *capacity;    /* [stage] least member capacity */
    /* The most bandwidth a transfer could get (over the step's events):
     * a member's share of pipeline hop s -> s + 1 in the best replica
     * (its pair's link, and the NIC pools the members' flows share), the
     * data-parallel ring of stage s at its slowest hop. */
    double *hop_bandwidth;  /* [stage] */
    double *replica_hop_bandwidth; /* [replica * stage_count + s]: hop s in that replica */
    /* Scratch of cluster_plan_bound: when each stage's forward and backward
     * of each micro-batch ends ([2][stage][micro-batch]). */
    double *schedule;
    /* Op q of stage s in 1F1B (cluster_op_of), micro-batch * 2 + forward:
     * [s * 2 m + q], worked out once for the schedules above. */
    int *op_order;
    double least_layer_work; /* the least work of any one layer */
    double *filled;          /* [n] 1 - (1 - 1/m)^n, fill_bound's fraction for n stages (bound.c) */
    /* [stage] the least forward, backward, tail and hop of any run of
     * layers on the stage: an open stage's costs in cluster_open_bound */
    struct cluster_cost *open_floor;
    double *open_trip; /* [stage + 1] sum from stage on of open_floor's passes and both hops */
    double *ring_bandwidth; /* [stage] */
    /* The most bandwidth a ring flow of stage s gets: its hop's, and the
     * share of each NIC pool that the stage's flows leaving its node take
     * (every replica's and member's flows of a layer start together). */
    double *ring_share;     /* [stage] */
    /* The least time the tied embedding's all-reduce between the first
     * and the last stage takes, in its slowest replica (0 without one). */
    double embedding;
    /* The most bandwidth replica 0's expert group's ring of stage s could
     * get at its slowest hop (INFINITY without expert parallelism). */
    double *expert_bandwidth; /* [stage] */
    /* Likewise replica 0's CP group's ring (INFINITY without context
     * parallelism). */
    double *context_bandwidth; /* [stage] */
    /* Ring flows of stage s that leave node n through its NICs, over all
     * replicas and members: [stage * node_count + n]. */
    int *ring_out;
    /* Pipeline flows between stage s and s + 1 (both ways) that leave node
     * n: [stage * node_count + n]. */
    int *hop_out;
    /* The most work (FLOPs per micro-batch, without recomputation) stage s
     * could hold within its memory recomputing (cap_work) and keeping its
     * activations (cap_kept): a stage holding more than cap_kept must
     * recompute. */
    double *cap_work;       /* [stage] */
    double *cap_kept;       /* [stage] */
    /* Where the stages' held work as a function of time changes slope,
     * sorted by time: the water-filling bound on the busiest stage. */
    struct cluster_kink *kinks; /* [3 stage] */
    int *by_rate;           /* [stage] fastest first */
    /* [stage] the least time one micro-batch's messages from stage s on
     * take one way (hops s -> s + 1 and on), whatever the layers */
    double *hop_floor;
    /* [s * (layers + 1) + n]: the least time per micro-batch (forward and
     * backward) of the slowest of stages s .. p - 1 holding the last n
     * layers between them, by layer_floor's figures (bound.c) */
    double *bottleneck;
    /* [s * (layers + 1) + n]: likewise the least largest over those stages
     * of (m - 1) times its time per micro-batch plus its gradients' ring
     * (a stage's step runs its m passes, then its ring, which cannot start
     * before its last backward does) */
    double *drain;
    /* [s * (layers + 1) + n]: likewise of (m - 1 - w_k) times stage k's
     * time, w_k = min(p - k - 1, m) its warm-up forwards */
    double *steady;
} cluster_stages;

/* At `time`, stage `stage`'s held work changes slope by `slope`. */
typedef struct cluster_kink {
    double time, slope;
    int stage;
} cluster_kink;

/* What stage s costs with some layers, each a least time per the simulator. */
typedef struct cluster_cost {
    double forward, backward; /* one micro-batch's passes, TP all-reduces included */
    double tail;  /* after its last backward: gradient rings (dp > 1) and optimizer */
    double hop;   /* the activation transfer to the next stage (and gradient back) */
} cluster_cost;

/* The bound's running state along a pipeline: the first micro-batch's way
 * in (forward passes and hops before a stage), its way out (backward passes
 * and hops after it), and the largest stage term so far. In 1F1B a fixed
 * stage k waits for a micro-batch's trip below it (`below`) before its
 * first backward and before its last: its terms are a + below + c and
 * a + 2 below. With path = sum over fixed j of (F_j + B_j + 2 hop_{j-1}),
 * below = path + (the trip below the fixed stages) - path_k, so the walk
 * keeps the largest a + c - path_k (drain) and a - 2 path_k (drain2), the
 * path and the last hop. */
typedef struct {
    double in, out, fixed;
    double drain, drain2, path, last_hop;
    int stages;
} cluster_walk;

/* space.c */
pp_status cluster_space_build(const pp_cluster *c, double start_time, pp_arena *a,
                              cluster_space *out, pp_error *err);
/* Every branch of the space (root_bound unset), in enumeration order. */
pp_status cluster_branches(const cluster_space *sp, const pp_cluster_workload *w, pp_arena *a,
                           cluster_branch **out, int *count, pp_error *err);
/* Lays out a branch's stages, devices, bandwidths, cost tables (priced
 * under the branch's switches) and memory limits; false when out of memory. */
bool cluster_stages_build(const cluster_space *sp, const pp_cluster_workload *w,
                          const cluster_branch *b, pp_arena *a, cluster_stages *out);
/* The plan of a branch with these layers per stage, recomputing where
 * replay[s]; NULL when out of memory. */
pp_cluster_plan *cluster_stages_plan(const cluster_stages *st, const int *layers,
                                     const bool *replay);

/* bound.c */
/* The cost tables of w's layers as a plan with the branch's switches and
 * replica count runs them. */
bool cluster_prefix_build(const cluster_space *sp, const pp_cluster_workload *w, const cluster_branch *b,
                          pp_arena *a, cluster_prefix *out);
/* Stage s holding layers [first, first + count): the passes as the
 * simulator times them (cluster_pass_time) plus the TP all-reduces at the
 * kind's best link; the tail and hop at the best bandwidths. */
cluster_cost cluster_stage_cost(const cluster_stages *st, int s, int first, int count,
                                bool replay);
/* Fixes the next stage at cost c. Any schedule needs in + m (F + B) +
 * max(out, tail) for it: its first forward waits for the first micro-batch
 * to arrive, it runs m forwards and m backwards, and after its last backward
 * the earlier stages' last backwards and its own gradient sync and
 * optimizer still have to run. */
cluster_walk cluster_walk_extend(const cluster_stages *st, cluster_walk w, cluster_cost c);
/* The walk before any stage. */
cluster_walk cluster_walk_start(void);
/* Stages 0..s-1 fixed in w: the bound over every completion with the
 * remaining layers from `first` on. */
double cluster_walk_bound(const cluster_stages *st, cluster_walk w, int s, int first);
/* The same, or once a part passes `enough` that part, a weaker bound
 * still above it (the sums are left out). */
double cluster_walk_bound_past(const cluster_stages *st, cluster_walk w, int s, int first, double enough);
/* Flops of layers [first, first + count) per micro-batch (fwd + bwd, no
 * recomputation). */
double cluster_work(const cluster_stages *st, int first, int count);
/* Bytes the most loaded member of stage s holds with these layers, from
 * the terms every 1F1B memory count has (state, the in-flight micro-batches'
 * kept activations); a lower bound of pp_cluster_plan_memory's figure, so
 * pruning by it never drops a plan that fits. max_layer is the largest
 * single layer's full activation bytes per sample (counted when replay). */
double cluster_stage_memory(const cluster_stages *st, int s, int first, int count,
                            double max_layer, bool replay);
/* One layer's full activation bytes per sample per member share. */
double cluster_layer_full_activation(const cluster_stages *st, int s, int layer);
/* The bound of a complete plan: the walk over its stages, the 1F1B drain
 * of each stage (its last backward waits for the last micro-batch to go
 * down the pipeline and back), for every node the pipeline and gradient
 * bytes its NICs must send, each no earlier than it can exist, and each
 * distinct replica's 1F1B schedule. Once a part exceeds `enough` the rest
 * (the schedules, p m steps each) is skipped: the answer is then a weaker
 * bound, still above `enough`. INFINITY for the full bound. */
double cluster_plan_bound(const cluster_stages *st, const int *layers, const bool *replay, double enough);
/* Stages 0 .. s - 1 fixed at these costs, the rest open at open_floor:
 * the chains of 1F1B's dependencies through windows of adjacent stages
 * (bound.c, window_bound), which bound every plan completing them. Those
 * ending at stage s - 1 or at the last, and `carried`, the parent's
 * answer (with s - 1 stages fixed), whose chains' trips now count stage
 * s - 1 at its cost instead of its floor: O(s) a node. -INFINITY (no
 * chain) when s < 2. */
double cluster_open_windows(const cluster_stages *st, const cluster_cost *fixed, int s, double carried);
/* Fills rate, rate_suffix, cap_work, cap_kept, kinks, by_rate, hop_floor
 * and bottleneck; false when out of memory. */
bool cluster_stages_limits(cluster_stages *st, pp_arena *a);
/* The root bound of a branch: cluster_walk_bound before any stage
 * (INFINITY if the work does not fit in the stages' memory). */
double cluster_root_bound(const cluster_stages *st);

/* clock.c */
/* The search's time limit. A simulation at thousands of GPUs takes a good
 * part of a second, and the caller simulates the answer again for its
 * report, so the search ends `reserve` simulations early: each as long as
 * the longest that gave a finite time (the plans that were incumbents, one
 * of which is the answer). Simulations stop at that moment too. */
typedef struct {
    pp_deadline deadline;
    /* With no plan in hand a simulation may run past the deadline, to
     * here (pp_now() seconds): the deadline plus a quarter of the limit,
     * at most 0.4 s + 1% of it. The command gives the search its --timeout
     * less a margin for its output (core/deadline.c: 0.5 s + 2%, at most a
     * quarter), which holds that and the output. */
    double grace;
    int reserve;
    _Atomic double longest; /* s, the longest simulation with a finite time */
} cluster_clock;

bool cluster_clock_late(cluster_clock *k);
/* Past the grace: not even a first plan is worth simulating. */
bool cluster_clock_over(cluster_clock *k);
/* Simulates like cluster_simulate_step, timing it into k; a simulation
 * still running when only the reserve is left stops (INFINITY), or, the
 * first (no plan in hand yet), when the grace has passed. */
pp_status cluster_clock_simulate(cluster_clock *k, const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan *p, double start_time, double cutoff,
                                 bool first, double *step, pp_cluster_report *report, pp_error *err);

/* uniform.c */
/* Every valid Megatron-uniform (tp, pp, dp, micro_batch) simulated, each
 * with recomputation on and off in all stages (Megatron has one flag); the
 * best that fits in *out (NULL if none), its time in *time. */
pp_status pp_cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w,
                                  double start_time, pp_cluster_plan **out, double *time,
                                  pp_error *err);
/* pp_cluster_uniform_best stopping when k is late once it holds a plan,
 * or past its grace without one: the best found so far (none when the
 * first simulation outlasted the grace), with its simulation's report. */
pp_status cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w, double start_time,
                               cluster_clock *k, int threads, pp_cluster_plan **out, double *time,
                               pp_cluster_report *report, pp_error *err);
/* A copy of r with arrays of its own; false when out of memory. */
bool cluster_report_copy(const pp_cluster_report *r, pp_cluster_report *out);

/* simulate.c */
/* Op q of stage s's 1F1B order among P stages and m micro-batches:
 * min(P - s - 1, m) forwards, then forward and backward in turn, then the
 * backwards left. */
void cluster_op_of(int P, int s, int m, int q, bool *forward, int *micro);
/* pp_cluster_simulate's step time of plan p, without checking memory;
 * INFINITY when a link stays down, as soon as the step is certain to take
 * longer than cutoff, or when the deadline (NULL: none) passes first. With
 * a finite step, *report (unless NULL) gets pp_cluster_simulate's report. */
pp_status cluster_simulate_step(const pp_cluster *c, const pp_cluster_workload *w,
                                const pp_cluster_plan *p, double start_time, double cutoff,
                                const pp_deadline *deadline, double *step, pp_cluster_report *report,
                                pp_error *err);

#endif
