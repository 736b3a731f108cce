/* plan_internal.h: what the plan's stages share (src/plan): the module's
 * units, the cluster's device types and meshes, each unit kind's sharded
 * cost per mesh, and a candidate plan as the search and the judge see it. */
#ifndef PP_PLAN_INTERNAL_H
#define PP_PLAN_INTERNAL_H

#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"
#include "parplan/cluster_mesh.h"
#include "parplan/plan.h"
#include "parplan/shard_plan.h"
#include "core/core_internal.h"
#include "shard/shard_internal.h"
#include "shard/shard_plan_internal.h"
#include "shard/part_internal.h"

/* The time limit's shares (DESIGN.md, "Time budget"): the unit kinds
 * sharded on every mesh, of what is left after reading; the judged plans'
 * stages sharded whole, the sharder-alone baseline's module sharded whole,
 * the scheduler's order of the pipeline, the chosen plan's stages sharded
 * again for their written modules, each of the limit and at most half of
 * what is left; the rest, a sixth or more, for the judge's simulations. */
#define PLAN_SHARE_COSTS 0.6
#define PLAN_SHARE_STAGES 0.1
#define PLAN_SHARE_ALONE 0.05
#define PLAN_SHARE_SCHEDULE 0.05
#define PLAN_SHARE_MODULES 0.05
#define PLAN_SHARE_SEARCH 0.1

/* A stretch of the flattened module between two cut points: a copy of a
 * repeated layer, or the ops before, between or after the copies. Units of
 * one kind are equal (the copies of the layer group). */
typedef struct {
    int32_t first, count; /* flat ops */
    int32_t kind;
} plan_unit;

/* The devices of one type, in the cluster's order (the cluster's group;
 * plan_types gives every group a link inside its nodes). */
typedef pp_cluster_group plan_type;

/* A mesh of the cluster's (pp_cluster_mesh, type its group). Tight: the
 * sharder plans it for a quarter of the memory (cost.c says why). */
typedef struct {
    int32_t type, devices, n_axes, axes[PP_PLAN_MAX_AXES];
    bool spans, tight;
} plan_mesh;

/* A unit kind sharded on a mesh, per micro-batch and per device. */
typedef struct {
    double forward, backward, collective; /* s */
    double sync;        /* s per step: gradients of parameters replicated inside the mesh */
    double parameters;  /* bytes of parameters held */
    double state;       /* bytes of training state for them */
    double activations; /* bytes kept from forward to backward */
} plan_cost;

/* A stage's figures on its mesh, as plan_cost's. */
typedef struct {
    double forward, backward, collective, parameters, state, activations, sync;
} plan_stage_cost;

typedef struct plan_stage_entry plan_stage_entry;

typedef struct {
    const pp_plan_request *req;
    pp_deadline deadline;
    pp_hw_catalog *catalog;
    pp_cluster *cluster;
    pp_shard_analysis a;
    const char *text;         /* the module's text, for its stages' modules: the request's,
                                 or read from its file into owned_text */
    size_t text_size;
    char *owned_text;
    pp_arena *arena;
    int32_t n_units, n_kinds;
    plan_unit *units;
    double *send;             /* [unit] bytes per micro-batch its outputs carry to later units */
    const char *why_one_stage;
    bool holds_backward;      /* the module is a training step: no backward is added */
    pp_cluster_meshes groups; /* the cluster's device groups and meshes */
    int32_t n_types;
    plan_type *types;         /* groups.groups */
    int32_t n_meshes;
    plan_mesh *meshes;
    plan_cost *cost;          /* [kind * n_meshes + mesh] */
    bool *cost_ok;            /* [kind * n_meshes + mesh]: sharded (else the mesh is not offered) */
    int32_t shard_calls;
    plan_stage_entry *stages; /* stages sharded whole (plan_reshard) */
    int n_stages, stages_cap;
    int64_t micro_batch, n_micro; /* samples per module call; calls per step */
} plan_ctx;

/* A stage of two or more units sharded whole on a mesh (cost.c):
 * replaces the sum of its units' costs wherever stages are priced. */
struct plan_stage_entry {
    int32_t first, end, mesh;
    plan_stage_cost cost;
};

/* A plan: R replicas of a P-stage pipeline, stage s running units
 * cut[s] .. cut[s + 1] - 1 on mesh[s], M micro-batches per replica. The
 * arrays live in the plan's arena (plan_candidate_make): copies of a
 * candidate share them, so a candidate is not changed once handed on. */
typedef struct {
    int32_t R, M, P;
    int32_t *cut;  /* [P + 1] */
    int32_t *mesh; /* [P] */
    double objective;  /* the DP's: sum + (M - 1) max of the stages' F + B */
    double model_time; /* the search's formula (plan_model_time) */
} plan_candidate;

/* c: R replicas of P stages, M the step's micro-batches over R, cut[P]
 * the units' end, the rest of cut and mesh 0; false when out of memory. */
bool plan_candidate_make(const plan_ctx *X, int32_t R, int32_t P, plan_candidate *c);

/* Seconds for a stage taking `share` of the time limit: at most half of
 * what is left (solve.c). */
double plan_share(const plan_ctx *X, double share);

/* solve.c: the stages up to the costs (read, units, types and meshes,
 * every unit kind sharded on every mesh), and their release */
pp_status plan_prepare(plan_ctx *X, const pp_plan_request *r, pp_error *err);
void plan_release(plan_ctx *X);

/* backward.c: the module returns a computed tensor of each parameter's
 * type for at least half the parameters' bytes (*matched of *parameters) */
bool plan_holds_backward(const plan_ctx *X, int32_t *matched, int32_t *parameters);

/* units.c */
pp_status plan_units(plan_ctx *X, pp_error *err);
/* Units first .. end - 1 as one module (the sharder's part; free it
 * with shard_part_free whatever the status). */
pp_status plan_units_part(const plan_ctx *X, int32_t first, int32_t end, shard_part *out, pp_error *err);

/* meshes.c */
pp_status plan_types(plan_ctx *X, pp_error *err);
void plan_mesh_to_shard(const plan_ctx *X, const plan_mesh *m, pp_shard_mesh *out);
double plan_capacity(const plan_ctx *X, int32_t type);

/* cost.c */
pp_status plan_costs(plan_ctx *X, pp_error *err);
/* The sharder's plan of a module on mesh pm (as `mesh`), within `seconds`
 * of the plan's deadline, for the mesh's memory (a quarter when tight),
 * with the request's threads, seed and stop flag: pp_shard_plan's status. */
pp_status plan_shard_on(const plan_ctx *X, const pp_shard_flat *flat, const pp_shard_nda *nda, const plan_mesh *pm,
                        const pp_shard_mesh *mesh, double seconds, pp_shard_plan_result *r, pp_error *err);
/* Every stage of two or more units on a mesh of two or more devices in
 * the n candidates sharded whole, each kind sequence and mesh once, by
 * `until`; a stage not reached keeps its units' sum. */
pp_status plan_reshard(plan_ctx *X, const plan_candidate *c, int32_t n, const pp_deadline *until, pp_error *err);
/* The entry of units first .. end - 1 (or equal ones) on mesh, or NULL. */
const plan_stage_entry *plan_stage_find(const plan_ctx *X, int32_t first, int32_t end, int32_t mesh);

/* stage.c: a stage's figures from its units' costs (or its own, sharded whole) */
void plan_stage_cost_of(const plan_ctx *X, int32_t first, int32_t end, int32_t mesh, plan_stage_cost *out);
double plan_stage_memory(const plan_stage_cost *c, int32_t in_flight);
/* The step by the search's formula, the devices as plan_assign_devices
 * hands them out (ids; NULL: every link inside a node); *pipeline (NULL:
 * not wanted) gets the 1F1B part alone, to the last backward. */
double plan_model_time(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *pipeline);
/* tail[s]: what stage s adds to the step after its last backward (its
 * gradients' all-reduce over the replicas, its optimizer), as the
 * formula prices it; false when out of memory. */
bool plan_tails(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *tail);
/* hop[s]: a micro-batch's transfer between stages s and s + 1; false
 * when out of memory. */
bool plan_hops(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *hop);

/* An order of a plan's pipeline other than 1F1B: stage s runs ops[s], 3 M
 * of them (F, B and W of each micro-batch), W taking share[s] of the
 * stage's backward, and holds held[s] micro-batches' activations at its
 * peak. */
typedef struct {
    pp_cluster_op **ops;
    double *share;
    int32_t *held;
} plan_order;

/* schedule.c: one replica's pipeline as a scheduling problem (F, B, W per
 * micro-batch and stage, each stage's tail after its last W), solved
 * within `seconds`: its makespan (the step by the formula in that order)
 * and lower bound in s (NAN when not run: one stage, no time, or no
 * schedule fits), and then its order in *order (in X's arena). */
pp_status plan_schedule(const plan_ctx *X, const plan_candidate *c, const double *hop, const double *tail,
                        double seconds, double *makespan, double *bound, plan_order *order, pp_error *err);
/* The per-replica devices of stage s start at offset[s] in a replica's block of ids. */
void plan_stage_offsets(const plan_ctx *X, const plan_candidate *c, int32_t *offset);

/* search.c: the best candidates by the model, best first; the replica
 * counts whose DP ends by `until` (NULL: every one), and always the first
 * with candidates */
int32_t plan_search(const plan_ctx *X, bool check_memory, const pp_deadline *until, plan_candidate *out,
                    int32_t max_out);

/* judge.c */
pp_status plan_assign_devices(const plan_ctx *X, const plan_candidate *c, int32_t *ids, pp_error *err);
/* The simulator's step time of c run in 1F1B (order NULL) or in order,
 * each device's peak (peak: NULL or the cluster's device count) and, when
 * timeline is not NULL, its rows. */
pp_status plan_judge(const plan_ctx *X, const plan_candidate *c, const plan_order *order, double *step_time,
                     double *peak, pp_timeline *timeline, pp_error *err);

/* modules.c: each stage of c as a sharded module, into out's stages */
pp_status plan_stage_modules(const plan_ctx *X, const plan_candidate *c, pp_plan_report *out, pp_error *err);

/* baselines.c */
/* Each baseline's report, and its plan in cands[k] where has[k]. */
void plan_baselines(plan_ctx *X, pp_plan_baseline *out, plan_candidate *cands, bool *has);

/* PP_EARG naming the first option out of its range (pp_plan checks it
 * first; both front doors take its words). */
pp_status pp_plan_request_check(const pp_plan_request *r, pp_error *err);
/* The independent check of a report against its cluster's size and the
 * module's unit count: units covered once and in order, every stage's
 * devices of its one type, distinct, in range, memory within capacity where
 * fits says so. PP_EINPUT naming the first failure. */
pp_status pp_plan_check(const pp_plan_report *report, pp_error *err);

#endif
