/* shard_request.h: what a front door asks of the auto-sharder (the CLI's
 * `shard`, Python's parplan.shard), checked once here for both: the same
 * bad value gets the same words from either. */
#ifndef PARPLAN_SHARD_REQUEST_H
#define PARPLAN_SHARD_REQUEST_H

#include "parplan/options.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_report.h"
#include "parplan/shard_write.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* The words the choices take, as the CLI's help lists them. */
#define PP_SHARD_SEARCHES "mcts|iopddl|both"
#define PP_SHARD_PRECISIONS "typed|tf32|bf16"
#define PP_SHARD_FORMATS "gspmd|sdy"

typedef struct {
    double memory;  /* bytes per device (pp_option_memory); 0: the device's */
    double timeout; /* seconds for the whole job (pp_option_timeout): 60 */
    int64_t threads; /* pp_option_threads; 0: the machine's cores */
    uint64_t seed;  /* 1 */
    const char *search; /* one of PP_SHARD_SEARCHES: "both" */
    const char *precision; /* one of PP_SHARD_PRECISIONS: "typed" */
    const char *format;    /* of the sharded module, one of PP_SHARD_FORMATS: "gspmd" */
} pp_shard_request;

void pp_shard_request_default(pp_shard_request *r);
/* PP_EARG naming the first option out of its range or not known. */
pp_status pp_shard_request_check(const pp_shard_request *r, pp_error *err);

/* The mesh as a front door names it. */
typedef struct {
    const char *mesh;        /* "b=2,m=4" (pp_shard_mesh_parse) */
    const char *device;      /* a catalog name or alias: "a100-80gb" */
    const char *device_flag; /* how the front door spells the device's option in messages */
    const char *precision;   /* "typed", "tf32" or "bf16" (pp_shard_precision_parse) */
} pp_shard_mesh_spec;

/* What a job does with the model: plan it (`shard --mesh`), only analyse
 * it (`--explain`), or build its sharding problem for the IOPDDL solver
 * (`--emit-iopddl`). */
typedef enum { PP_SHARD_TASK_PLAN, PP_SHARD_TASK_EXPLAIN, PP_SHARD_TASK_EMIT_IOPDDL } pp_shard_task;

/* `shard` as one library call, beside the request: the task, the model,
 * the mesh, what to plan from, the time the job has, how it reports. */
typedef struct {
    pp_shard_task task;
    pp_source model;          /* StableHLO text: a file, or text in memory */
    pp_shard_mesh_spec mesh;  /* not read by EXPLAIN */
    const char *apply[2];     /* an IOPDDL problem and its solution to take the plan from
                                 (pp_shard_plan_apply); NULL: search */
    bool module;              /* the module written again with the plan wanted */
    double started;           /* pp_now() when the job began: the timeout counts from it, reading
                                 included, less the margin kept for writing (pp_job_solve_budget) */
    pp_shard_progress_fn on_progress;
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_shard_job;

typedef struct {
    pp_shard_analysis analysis; /* its module's warnings are the front door's to show; EXPLAIN's answer
                                   (pp_shard_write_explain) */
    pp_shard_bridge *bridge;    /* EMIT_IOPDDL's answer: the problem (pp_shard_bridge_problem), to be
                                   written under problem_name (pp_shard_bridge_write) */
    const char *problem_name;   /* the module's name, or "model" */
    pp_hw_catalog *catalog;
    pp_shard_mesh mesh;
    pp_shard_plan_result plan;  /* plan.fits: false is still an answer, the front door's to judge */
    pp_shard_report report;     /* built over the plan; report.out is the front door's to name */
    char *text;                 /* the model's text */
    size_t size;
    char *module;               /* with job->module: the model written again with the plan, read back
                                   and checked (report.written) */
    size_t module_size;
} pp_shard_outcome;

/* Reads and analyses the model; for PLAN then opens the mesh, plans (both
 * searches, or the applied solution), builds the report and, when asked,
 * writes the module again with the plan; for EMIT_IOPDDL opens the mesh and
 * builds the problem at the memory limit. Free out with
 * pp_shard_outcome_free whatever the status. */
pp_status pp_shard_run(const pp_shard_request *r, const pp_shard_job *job, pp_shard_outcome *out, pp_error *err);
void pp_shard_outcome_free(pp_shard_outcome *out);

#pragma GCC visibility pop

#endif
