/* parplan cluster planner (paper 003, issue 7): the public types. A cluster
 * (nodes of devices, links, bandwidth timeline), a workload (a list of
 * layers), a plan, one simulated training step and a search's answer, as
 * cluster_request.h's jobs read, plan, simulate and report them, with the
 * few calls the other systems (src/plan) build on: the cluster reader, a
 * plan's validation, the simulator. Everything else (the transformer
 * arithmetic, the search, the baseline, the checker) is internal to
 * src/cluster. */
#ifndef PARPLAN_CLUSTER_H
#define PARPLAN_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "parplan/core.h"
#include "parplan/hw.h"
#include "parplan/timeline.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Bytes of model state per parameter in mixed-precision Adam training
 * (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
 * Parameter Models", SC 2020, section 3.1): 16-bit parameter and gradient
 * (2 + 2) and the optimizer's 32-bit copy of the parameter, momentum and
 * variance (K = 12); 16 in all. */
#define PP_CLUSTER_PARAM_BYTES 2
#define PP_CLUSTER_GRAD_BYTES 2
#define PP_CLUSTER_OPTIMIZER_BYTES 12
#define PP_CLUSTER_STATE_BYTES_PER_PARAM \
    (PP_CLUSTER_PARAM_BYTES + PP_CLUSTER_GRAD_BYTES + PP_CLUSTER_OPTIMIZER_BYTES)

/* ---------------------------------------------------------------- stacks */

/* The software that runs the step (issue 30). What each does differently,
 * with its source, is in src/cluster/stack.c; the default (0) is today's
 * Megatron-LM (Megatron-core). */
typedef enum {
    PP_CLUSTER_STACK_MEGATRON_LM = 0,
    PP_CLUSTER_STACK_MEGATRON_DEEPSPEED,
    PP_CLUSTER_STACK_TORCHTITAN,
    PP_CLUSTER_STACK_COUNT
} pp_cluster_stack;

/* ---------------------------------------------------------------- workload */

/* One matrix product of a layer's forward, per sample: `count` products
 * (attention heads) of a (rows x inner) by an (inner x cols) matrix, with
 * rows growing with the micro-batch (rows x b). split says which side
 * tensor parallelism divides: its output columns (a column-parallel
 * projection), its inner dimension (row-parallel), or its count (heads). */
typedef enum { PP_CLUSTER_SPLIT_COLS, PP_CLUSTER_SPLIT_INNER, PP_CLUSTER_SPLIT_COUNT } pp_cluster_split;
typedef struct {
    double rows, inner, cols, count;
    pp_cluster_split split;
    bool fp8; /* runs in FP8 (pp_transformer.fp8) */
} pp_cluster_gemm;

/* A transformer layer's products: Q K V, scores, context, output projection,
 * two MLP products (per expert, with experts), a router's, and the logit
 * layer's. */
#define PP_CLUSTER_GEMMS 8

/* One block of the model, in pipeline order. Work and memory are per sample
 * (one sequence); a stage running a micro-batch of b samples multiplies by b.
 * Everything a tensor-parallel group shares out is split in proportion to
 * each member's share (pp_cluster_plan.split); *_replicated parts are not. */
typedef struct {
    char *name;
    double forward_flops;          /* per sample */
    double backward_flops;         /* per sample, without recomputation */
    double recompute_flops;        /* per sample, added to the backward under recomputation
                                    * (the forward of the parts that are replayed) */
    double weight_bytes;           /* 16-bit weights read once per pass per micro-batch (roofline) */
    double traffic_bytes;          /* other memory traffic per sample per forward (roofline) */
    double traffic_replicated_bytes; /* of that kind, what every TP member moves whole (the
                                      * element-wise kernels on replicated tensors) */
    double state_bytes;            /* resident: weights, gradients, optimizer state */
    double gradient_bytes;         /* all-reduced across data-parallel replicas each step */
    double activation_bytes;       /* per sample, kept from forward to backward, split part */
    double activation_replicated_bytes; /* per sample, kept, not split by tensor parallelism */
    double checkpoint_bytes;       /* per sample, kept instead of the above under recomputation */
    double output_bytes;           /* per sample, sent to the next stage if a cut follows */
    double tp_forward_bytes;       /* per sample, all-reduced inside a TP group per forward (tp > 1) */
    double tp_backward_bytes;      /* likewise per backward */
    /* Selective recomputation (Korthikanti et al. section 5): the part of
     * activation_bytes it drops (attention's softmax, its dropout mask and
     * output) and the forward FLOPs per sample that rebuild it (Q K^T and
     * the scores times V) in the backward. 0 where there is no such part. */
    double selective_bytes;
    double selective_flops;
    /* Per sample, the forward FLOPs of the column-parallel products (Q K V,
     * the MLP's first): their weight gradients in the backward cost as much,
     * and under pp_cluster_plan.tp_overlap the backward's TP collectives run
     * beside them. 0 where nothing is known (a Piper profile). */
    double overlap_flops;
    /* Mixture of experts: the experts' 16-bit weights (of weight_bytes;
     * their state and gradients are in proportion), which expert
     * parallelism divides, and per sample the send buffer of one
     * all-to-all of the dispatched tokens (2 s h top_k capacity_factor
     * bytes); a pass runs two (dispatch, combine). 0 when dense. */
    double expert_weight_bytes;
    double alltoall_bytes;
    /* Context parallelism (pp_cluster_plan.context_parallel), per sample:
     * the 16-bit keys and values of the whole sequence, 4 s kv bytes (kv
     * the key/value width), which the ring passes around the CP group, and
     * the forward FLOPs of the scores and context products (4 s^2 h) that
     * each ring step's transfer runs beside. 0 where unknown (a Piper
     * profile or an op graph: no context parallelism). */
    double context_bytes;
    double attention_flops;
    /* The products behind forward_flops, for the per-kernel efficiency
     * (cluster_gemm_efficiency); none for a layer known only by its FLOPs
     * (a Piper profile), which runs at the type's constant efficiency. */
    int gemm_count;
    pp_cluster_gemm gemm[PP_CLUSTER_GEMMS];
} pp_cluster_layer;

typedef struct {
    char *name;
    int layer_count;
    pp_cluster_layer *layers;
    int64_t global_batch;  /* samples per training step */
    int tp_divisor;        /* a TP degree must divide it (attention heads); 1 = no TP */
    bool recompute;        /* default for plans that do not say */
    /* Gradient bytes of a word embedding tied to the logit layer: with more
     * than one stage the first and the last each hold a copy and all-reduce
     * its gradient every step before their optimizers (Megatron-LM's
     * embedding group); 0 when untied or unknown. */
    double tied_bytes;
    int experts;           /* experts per layer (expert parallelism must divide it); 0 = dense */
    int64_t sequence;      /* positions per sample; 0 when unknown (no context parallelism) */
    pp_cluster_stack stack; /* default for plans that do not say, and what the planner plans for */
    pp_arena *arena;       /* owns everything above and the struct itself */
} pp_cluster_workload;


/* ---------------------------------------------------------------- cluster */

/* A kind of link a node has. Inside a node (inter_node false) every device
 * has its own port of this class, `bandwidth` each way, and a transfer
 * between two devices of the node uses the sender's and the receiver's port.
 * Between nodes (inter_node true) the node has `ports` NICs of `bandwidth`
 * each way, shared by all its devices; one transfer uses one NIC at a time.
 * Several classes give several physical links per device pair (paper 003
 * section 3.1); a transfer uses one of them. */
typedef struct {
    char *name;       /* class: "nvlink", "pcie", "ethernet", ... */
    int node;         /* the node that has it */
    bool inter_node;
    int ports;        /* inter_node: NICs in the node; otherwise 1 per device */
    double bandwidth; /* bytes/s per port and direction, before any event */
    double latency;   /* s per message */
} pp_cluster_link;

typedef struct {
    char *name;
    const pp_hw_device_type *type; /* from the catalog the cluster was read with */
    int first_device;              /* devices first_device .. first_device + device_count - 1 */
    int device_count;
} pp_cluster_node;

/* A change of the network or the devices at `time` seconds after the run
 * began: every link of class `link` (in node `node`, or all nodes when node
 * is -1) gets `bandwidth` (0 = down); or, when lost_device >= 0, that device
 * leaves the cluster. */
typedef struct {
    double time;
    char *link;
    int node;
    double bandwidth;
    int lost_device;
} pp_cluster_event;

typedef struct {
    char *name;
    int node_count;
    pp_cluster_node *nodes;
    int device_count;
    int *device_node;        /* [device] */
    int link_count;
    pp_cluster_link *links;  /* grouped by node */
    int event_count;
    pp_cluster_event *events; /* sorted by time (stable) */
    pp_arena *arena;          /* owns everything above and the struct itself */
} pp_cluster;

/* Reads a cluster file; device types are looked up in cat (which must outlive
 * the cluster). Format in the README ("Cluster planner"). */
pp_status pp_cluster_load(const char *path, const pp_hw_catalog *cat, pp_cluster **out,
                          pp_error *err);
/* Frees c->arena (and so c); NULL is fine. */
void pp_cluster_free(pp_cluster *c);

/* ---------------------------------------------------------------- plans */

/* How one training step runs. replica_count data-parallel replicas, each a
 * pipeline of stage_count stages; stage s holds stage_layers[s] consecutive
 * layers and is a tensor-parallel group of stage_tp[s] devices, the same
 * layers and degrees in every replica. Replica r runs micro_batches[r]
 * micro-batches of micro_batch samples (1F1B); the replicas' samples add up
 * to the global batch (to context_parallel times it). devices and split have one entry per (replica, stage,
 * member): index r * members + stage_offset(s) + j, members = sum of stage_tp.
 * split[i] is the share of every layer's work and memory member j takes: a
 * group of unlike devices may split unevenly (paper 003 section 2.3); each
 * group's shares sum to 1. stage_recompute[s] says whether stage s (in every
 * replica) replays its layers' forward passes in the backward pass instead
 * of keeping their activations: devices with room keep them, others
 * recompute. */
typedef struct {
    int micro_batch;
    int replica_count;
    int stage_count;
    int *micro_batches; /* [replica] */
    int *stage_layers;  /* [stage] */
    int *stage_tp;      /* [stage] */
    int *devices;       /* [replica][stage][member] */
    double *split;      /* same shape as devices */
    bool *stage_recompute; /* [stage] */
    /* Megatron-LM's switches, the same for every stage (all false by
     * default; pp_cluster_layer_under prices them):
     * sequence_parallel: the TP group also splits the sequence of the parts
     *   between its collectives (layer norms, dropouts), so nothing of a
     *   layer's activations is replicated (Korthikanti et al. section 4.2.2);
     *   the all-reduces become a reduce-scatter and an all-gather of the same
     *   ring cost.
     * selective_recompute: stages that keep their activations drop
     *   attention's softmax/dropout part and rebuild it in the backward
     *   (Korthikanti et al. section 5).
     * distributed_optimizer: ZeRO-1 (Rajbhandari et al. P_os) over the
     *   data-parallel replicas: each keeps and updates 1/dp of the 12 bytes
     *   of optimizer state per parameter; the gradients' reduce-scatter and
     *   the parameters' all-gather cost what the all-reduce did. */
    bool sequence_parallel;
    bool selective_recompute;
    bool distributed_optimizer;
    /* tp_overlap: each column-parallel product's input gradient is
     * all-reduced (under sequence parallelism reduce-scattered) while the
     * same product's weight gradient is computed, as Megatron-LM does by
     * default since 2022 (its --no-async-tensor-model-parallel-allreduce
     * turns it off; Korthikanti et al.'s runs had it, SC'21's predate it).
     * A backward pass then spends on its own TP collectives only what
     * outlasts those weight gradients (pp_cluster_layer.overlap_flops); the
     * forward's and a replayed forward's collectives stay in line. */
    bool tp_overlap;
    /* reduce_after_backward: a stage's gradient all-reduce starts when its
     * last backward has ended, not layer by layer during it: Megatron-LM's
     * "local" DDP (SC'21's runs from 39.1B up, DDP=local in its
     * examples/sc21/run_table_1.sh) and Megatron-core without
     * --overlap-grad-reduce. Never faster, so the planner leaves it off. */
    bool reduce_after_backward;
    /* zero3: ZeRO stage 3 (Rajbhandari et al. section 5.3, P_os+g+p), which
     * PyTorch's FSDP implements as FULL_SHARD (Zhao et al., "PyTorch FSDP",
     * VLDB 2023, section 3.2.1): each data-parallel replica keeps 1/dp of
     * every parameter, gradient and optimizer state, (2 + 2 + 12)/dp bytes
     * per parameter. Each layer's parameters are all-gathered over the
     * replicas before its forward and again before its backward, the next
     * layer's while this one computes (FSDP section 3.3, at most two layers
     * unsharded at once, section 3.4); each micro-batch's gradients are
     * reduce-scattered as the backward produces them (accumulation with
     * communication, FSDP section 3.3.4), so no full copy stays resident.
     * Supersedes distributed_optimizer. */
    bool zero3;
    /* The interleaved 1F1B schedule (Narayanan et al. SC'21 section 2.2.2):
     * each stage's layers are virtual_stages chunks of equal size, and chunk
     * c of stage s is virtual stage c * stage_count + s of a pipeline that
     * goes round the devices virtual_stages times. The bubble shrinks to
     * (p - 1)/(v m) of the step, each micro-batch crosses v times as many
     * stage boundaries, and stage 0 holds the activations of
     * v p + p - 1 chunk passes at its peak. 1 (the default) is plain 1F1B;
     * above 1 every replica's micro-batches must be a multiple of the
     * stage count, as Megatron-LM requires, and every stage holds at least
     * v layers; a stage whose layers v does not divide has chunks of two
     * sizes (pp_cluster_plan_chunk_layers). */
    int virtual_stages;
    /* expert_parallel: a mixture-of-experts workload's experts are dealt
     * over groups of this many consecutive replicas (replica r is in group
     * r / expert_parallel), each member holding experts / expert_parallel
     * of them, as Megatron-LM's --expert-model-parallel-size carves expert
     * parallelism out of data parallelism. Every pass then runs two
     * all-to-alls over the group (dispatch and combine, GShard section
     * 2.2; their gradients in the backward), each of the layers' alltoall
     * bytes per sample. 1 (the default) is none; it must divide the
     * replicas and the experts. */
    int expert_parallel;
    /* context_parallel: Megatron-LM's context parallelism
     * (--context-parallel-size; Megatron Core developer guide, "Context
     * parallelism overview", docs.nvidia.com/megatron-core/developer-guide/
     * latest/api-guide/context_parallel.html):
     * groups of this many consecutive replicas (replica r is in group
     * r / context_parallel) share each micro-batch, each member of a group
     * taking 1/cp of every sequence, in 2 cp chunks paired so that causal
     * attention's work is even. Every per-sample cost of a pass (FLOPs,
     * activations, element-wise traffic, TP, pipeline and all-to-all bytes)
     * is then 1/cp of the sample's (pp_cluster_plan_samples); the weights
     * are whole in each, and the gradients are all-reduced (or under the
     * distributed optimizer and zero3 sharded) over all the replicas, dp x
     * cp, as Megatron-LM's data-parallel group with CP does. Attention
     * needs every position's keys and values: an all-gather of them over
     * the group, point-to-point round a ring in cp - 1 steps, each
     * transfer beside the attention block of the step before (ring
     * attention, Liu et al. 2023), and in the backward, each member having
     * kept only its own chunk, the all-gather again and a reduce-scatter
     * of their gradients (the guide): twice the bytes. The replicas of a group run the same
     * micro-batches, and those over all replicas add up to cp times the
     * global batch. 1 (the default) is none; it must divide the replicas,
     * and 2 cp the workload's sequence. */
    int context_parallel;
    /* stack: the software that runs the plan (megatron-lm by default);
     * pp_cluster_stack_runs says which plans it can run, and the
     * simulator prices what it does differently. */
    pp_cluster_stack stack;
} pp_cluster_plan;

/* The plan in one line: "dp 2, pp 2, tp 4/4, layers 10/14, micro-batch 1 x 16,
 * recompute 1/0" and every switch that is on; truncated to size. */
void pp_cluster_plan_describe(const pp_cluster_plan *p, char *buf, size_t size);

/* Writes p as a plan file in its full form (JSON, one stage a line), which
 * the plan reader reads back to the same plan. */
pp_status pp_cluster_plan_write(const pp_cluster_plan *p, FILE *f, pp_error *err);

/* ---------------------------------------------------------------- simulator */

/* An op of a stage's given order (pp_cluster_sim_options.order): F the
 * forward of micro-batch `micro`, B its backward for the input (the
 * gradient the stage before waits for), W its backward for the weights,
 * which needs only the stage's own input and so may wait to fill a bubble
 * (zero-bubble pipelining, Qi et al., arXiv 2401.10241). */
typedef enum { PP_CLUSTER_OP_F, PP_CLUSTER_OP_B, PP_CLUSTER_OP_W } pp_cluster_op_kind;

typedef struct {
    pp_cluster_op_kind kind;
    int micro;
} pp_cluster_op;

typedef struct {
    double start_time;     /* the step begins this long after the run began */
    pp_timeline *timeline; /* NULL, or receives a row per device and per link */
    /* At most this many boxes go to the timeline (0: no limit): the
     * devices' passes as they end, then the links' flows in the order they
     * were sent, two boxes each (the sender's and the receiver's side), and
     * a link gets a row only when one of its flows is drawn. A trace of
     * 512 GPUs draws about a million boxes, whose writing costs seconds. */
    long max_boxes;
    /* NULL: every stage runs 1F1B (interleaved under virtual_stages). Else
     * order[s] holds stage s's ops in the order every replica's stage s
     * runs them, order_count[s] of them: each micro-batch's F, B and W
     * once, B after its F and W after its B, in orders that do not wait on
     * each other for ever; PP_EINPUT naming the first op that breaks this,
     * or a plan with virtual stages or replicas of unequal micro-batches.
     * B sends the gradient on; W takes weight_share[s] of the stage's
     * backward compute (NULL: its layers' forward FLOPs over their
     * backward's, a weight gradient's products being the forward's), B the
     * rest and the backward's collectives; a stage's gradients are ready
     * after its last W; its activations are held from an F to its W, and
     * the peak memory counts the most it holds at once. */
    const pp_cluster_op *const *order;
    const int *order_count;
    const double *weight_share;
} pp_cluster_sim_options;

typedef struct {
    double step_time;          /* s; INFINITY when a transfer needs a link that is down */
    double samples_per_second;
    double tflops_per_device;  /* step FLOPs / step time / devices the plan uses, in 1e12 */
    int device_count;          /* of the cluster: the arrays below have this many entries */
    double *compute;           /* s busy computing (TP collectives included) */
    double *communication;     /* s with a pipeline or gradient transfer of its own in flight */
    double *idle;              /* step_time - compute, for devices the plan uses */
    double *peak_memory;       /* bytes (pp_cluster_plan_memory) */
    bool fits;                 /* every device within its type's capacity */
    long boxes_left_out;       /* past pp_cluster_sim_options.max_boxes: not drawn */
} pp_cluster_report;


/* ---------------------------------------------------------------- planner */

/* How the search is getting on, for a live line or a host's callback:
 * seconds since it began, the best plan's simulated step time so far
 * (INFINITY before one fits) and the branch-and-bound nodes explored, in
 * steps of 1024 a worker. Called from a searching thread, with the
 * search's lock held: a callback must be quick and must not call back in. */
typedef struct {
    double elapsed;
    double best_time;
    long nodes;
} pp_cluster_progress;

/* The search's answer (pp_cluster_plan_run's result). */
typedef struct {
    pp_cluster_plan *best;     /* NULL when no plan fits in memory, or none was
                                * found in time (complete false) */
    double best_time;          /* simulated step time of best */
    pp_cluster_plan *uniform;  /* the best Megatron-uniform plan that fits, or NULL */
    double uniform_time;
    double warm_time;          /* the warm start under these conditions (INFINITY if none/invalid) */
    double lower_bound;        /* no plan in the space is faster */
    bool complete;             /* the search ran to its end: best is optimal in the space */
    long nodes;                /* branch-and-bound nodes explored */
    long simulations;          /* plans simulated */
    double seconds;
    /* The simulations of best and uniform, as pp_cluster_simulate reports
     * them at start_time (device_count 0 without a plan): at thousands of
     * GPUs one simulation is a good part of a time limit, so a caller need
     * not run it again. */
    pp_cluster_report best_report, uniform_report;
} pp_cluster_plan_result;

#pragma GCC visibility pop

#endif
