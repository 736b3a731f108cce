/* parplan plan (issue 31): one training step of a StableHLO module on a
 * cluster, planned whole. The module's repeated layers give the cut points;
 * a search over replicas, pipeline stages, cut points, device groups and
 * each stage's mesh picks the plan, each stage sharded by the sharder
 * (parplan/shard_plan.h), and the cluster simulator (parplan/cluster.h)
 * prices the plan chosen: the one judge. One request in, one report out;
 * the CLI (`parplan plan`) and Python (`parplan.plan`) only print it.
 *
 * Units at the joins: seconds, bytes, samples. */
#ifndef PARPLAN_PLAN_H
#define PARPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "parplan/core.h"
#include "parplan/options.h"
#include "parplan/shard.h"
#include "parplan/timeline.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* What to plan. The module and the cluster each come from a path, or from
 * text in memory (text non-NULL: `name` stands for the file in messages). */
typedef struct {
    const char *module_path;
    const char *module_name, *module_text;
    size_t module_size;
    const char *cluster_path;
    const char *cluster_name, *cluster_text;
    size_t cluster_size;
    int64_t batch;         /* samples per step, a multiple of the module's batch; 0: that batch
                              times twice the cluster's devices */
    int32_t microbatches;  /* per replica; 0: the search chooses the replicas */
    pp_shard_precision precision; /* what f32 products run as (the sharder's) */
    double memory;         /* bytes per device (pp_option_memory); 0: each device type's capacity */
    double time_limit;     /* s for the whole plan (pp_option_timeout): 60 */
    int32_t threads;       /* pp_option_threads; 0: the machine's cores */
    uint64_t seed;         /* 1 */
    const pp_stop_flag *stop; /* raised by the caller: the best so far; NULL: none */
} pp_plan_request;

void pp_plan_request_default(pp_plan_request *r);
/* Samples per step: 0 (chosen) or a whole number up to 1e15. */
extern const pp_option_range pp_plan_option_batch;
/* Micro-batches per replica: 0 (chosen) to 2^20. */
extern const pp_option_range pp_plan_option_microbatches;

#define PP_PLAN_MAX_AXES 2

/* One pipeline stage: the same in every replica. */
typedef struct {
    int32_t first_unit, units;  /* the module's units (layers and the stretches between) */
    int32_t first_op, ops;      /* the flattened module's ops it runs */
    const char *device;         /* its devices' type */
    int32_t devices;            /* per replica: the mesh's size */
    int32_t n_axes;
    int32_t axes[PP_PLAN_MAX_AXES]; /* the mesh's shape */
    bool spans_nodes;           /* its first axis crosses nodes (the inter-node link) */
    int32_t *device_ids;        /* [replica * devices + j]: the cluster's device numbers */
    double forward, backward;   /* s per micro-batch on the mesh, by the sharder's cost model */
    double collective;          /* s of the forward that are collectives */
    double state_bytes;         /* per device: parameters, gradients, optimizer (16 B a parameter) */
    double activation_bytes;    /* per device and micro-batch, kept from forward to backward */
    double peak_memory;         /* per device in the plan's order */
    const char *order;          /* under the scheduler's order, the stage's ops in turn, "F0 F1
                                   B0 W0 ...": F forward, B backward for the input (sent on),
                                   W backward for the weights, of micro-batch 0 .. M - 1;
                                   NULL under 1F1B */
    double send_bytes;          /* per micro-batch to the next stage */
    const char *module_text;    /* the stage as a StableHLO module (pp_shard_write_stage), its
                                   layout on the mesh written as `parplan shard --out` writes it */
    size_t module_size;
    int32_t module_tensors, module_annotated; /* pp_shard_write_stats of that module */
} pp_plan_stage;

typedef enum {
    PP_PLAN_DATA_PARALLEL = 0,
    PP_PLAN_SHARDER_ALONE,
    PP_PLAN_PIPELINE_ONLY,
    PP_PLAN_MEGATRON,  /* the best uniform (tensor, pipeline, data) split, tensor inside a node */
    PP_PLAN_BASELINES
} pp_plan_baseline_kind;

typedef struct {
    const char *name;   /* "data parallel", "sharder alone", "pipeline only", "Megatron uniform" */
    bool applies;
    double step_time;   /* s by the simulator, when it applies */
    char why[200];      /* when it does not apply */
} pp_plan_baseline;

/* The answer. Everything lives in arena, but the timeline, which
 * pp_plan_report_free frees too. */
typedef struct {
    pp_arena *arena;
    const char *module, *cluster;   /* names */
    int32_t n_units;
    const char *why_one_stage;      /* NULL, or why the module is one stage */
    bool holds_backward;            /* the module is a training step (its results include a
                                       computed tensor of each parameter's type for at least
                                       half the parameters' bytes): no backward added */
    int64_t micro_batch;            /* samples per micro-batch: the module's batch */
    int64_t batch;                  /* samples per step */
    int32_t replicas, microbatches; /* data-parallel replicas; micro-batches per replica */
    int32_t n_stages;
    pp_plan_stage *stages;
    const char *schedule;           /* the pipeline's order, the one the judge (the cluster
                                       simulator) ran: "1F1B", or "scheduled F/B/W", the
                                       operator scheduler's order of the same pipeline, each
                                       backward split into B and W as zero-bubble schedules
                                       do, where the judge finds it faster and it fits */
    double model_time;              /* s: the search's formula for the plan in its order: 1F1B's
                                       (model_1f1b) or the scheduler's (scheduled_time) */
    double model_1f1b;              /* s: the formula for the plan in 1F1B */
    double pipeline_time;           /* s: of that, 1F1B's pipeline to its last backward */
    double scheduled_time;          /* s: the operator scheduler's step for the same plan: its
                                       order of the pipeline, under each device's memory, and
                                       each stage's gradient sync and optimizer after its last
                                       W; NAN when not run */
    double scheduled_bound;         /* s: the scheduler's lower bound on that; NAN */
    double step_1f1b;               /* s: the simulator's step of the same plan in 1F1B
                                       (step_time when the order is 1F1B) */
    double step_time;               /* s: the cluster simulator's, the judge */
    double samples_per_second;
    double lower_bound;             /* s: no plan under the cost model is faster */
    double gap;                     /* step_time / lower_bound - 1 */
    int32_t n_devices;              /* the cluster's */
    double *peak_memory;            /* [device] bytes, 0 when unused */
    double *capacity;               /* [device] bytes */
    const char **device_type;       /* [device] its type's name */
    bool fits;
    pp_plan_baseline baselines[PP_PLAN_BASELINES];
    pp_timeline *timeline;          /* the simulator's step: a row per device and link, in s */
    int32_t shard_calls;            /* sharder runs (one per unit kind, mesh, device type) */
    int32_t candidates;             /* plans the judge simulated */
    double seconds;
} pp_plan_report;

/* Plans r. PP_EIO/PP_EINPUT for unreadable or malformed inputs (the
 * readers' messages; a device type the catalog lacks is named by the
 * cluster reader), PP_EARG for a request that cannot hold (a batch not a
 * multiple of the module's), PP_INFEASIBLE when no plan fits the devices'
 * memory: the report then holds the plan closest to fitting (the least
 * largest overflow of a device, among the search's fastest plans ignoring
 * memory and the baselines), its peaks against the capacities (the
 * shortfall per device) and fits false.
 * Free the report with pp_plan_report_free whatever the status. */
pp_status pp_plan(const pp_plan_request *r, pp_plan_report *out, pp_error *err);
void pp_plan_report_free(pp_plan_report *report);


/* The report for people (text) and as JSON. */
pp_status pp_plan_write_text(const pp_plan_report *report, FILE *out, pp_error *err);
pp_status pp_plan_write_json(const pp_plan_report *report, FILE *out, pp_error *err);

#pragma GCC visibility pop

#endif
