/* shard_cmd.c: the auto-sharder's command of the parplan CLI: its flags,
 * and what to print or write. The pipeline (reading, analysis, the mesh,
 * both searches under one deadline or an applied IOPDDL solution, the
 * report, the module written again) is the library's pp_shard_run, as
 * Python's; this file maps the flags onto its request and shows the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "parplan/shard.h"
#include "parplan/shard_bridge.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"
#include "parplan/shard_report.h"
#include "parplan/shard_request.h"

typedef struct {
    const char *model, *mesh, *device, *out, *format, *emit, *precision;
    const char *apply[2]; /* the problem, then the solution */
    double memory, timeout;
    int64_t threads, seed;
    const char *search;
    bool explain, json;
} flags;

static const flag_spec shard_flag_table[] = {
    FLAG_SWITCH_OF("explain", flags, explain,
                   "print the named-dimension analysis of paper 004 instead of planning: the colors (sets of "
                   "dimensions to shard together) with their sizes and the tensors they touch, the sharding "
                   "conflicts and compatibility sets, and the repeated-layer groups"),
    FLAG_TEXT_OF("mesh", flags, mesh, "AXES", "the device mesh to plan for, named axes and sizes: b=2,m=4"),
    {"device", FLAG_TEXT, offsetof(flags, device), "D", 0, 0, false, NULL, "a100-80gb", false,
     "device type of every mesh device (a wrong name lists the known ones)", NULL},
    {"precision", FLAG_CHOICE, offsetof(flags, precision), "P", 0, 0, false, PP_SHARD_PRECISIONS, "typed", false,
     "what f32 matrix products run as: typed (every op at its element type's rate, f32 at plain FP32, bf16/f16 "
     "on tensor cores), tf32 (f32 products on TF32 tensor cores) or bf16 (the graph cast to bf16: BF16 rate, "
     "2-byte tensors); peaks per math mode from the device catalog", NULL},
    FLAG_MEMORY(flags, memory, "bytes per device the plan must fit in (default: the device's memory; 16e9, 16GB, "
                "16GiB)"),
    FLAG_TIMEOUT(flags, timeout, "60",
                 "seconds for the whole command: one deadline, the MCTS taking at most 80% of it when the bridge "
                 "runs after it (both usually stop sooner, the MCTS when a round of trajectories brings no "
                 "improvement)"),
    FLAG_THREADS(flags, threads),
    FLAG_SEED(flags, seed),
    {"search", FLAG_CHOICE, offsetof(flags, search), "S", 0, 0, false, PP_SHARD_SEARCHES, "both", false,
     "Monte Carlo tree search over color x resolution x mesh axis (paper 004), the IOPDDL solver (paper 000) "
     "on the problem --emit-iopddl writes, or both, keeping the better plan: one that fits --memory first, "
     "then the faster; times within 0.5% tie and the smaller peak wins", NULL},
    FLAG_TEXT_OF("out", flags, out, "SHARDED",
                 "write MODEL.mlir again with the whole plan: shardings on the entry's arguments and results and "
                 "a sharding constraint after every op defining a tensor; a function called with different "
                 "layouts is copied per layout; the written module is read back and checked against the plan"),
    {"format", FLAG_CHOICE, offsetof(flags, format), "F", 0, 0, false, PP_SHARD_FORMATS, "gspmd", false,
     "the form of --out: gspmd (mhlo.sharding, stablehlo.custom_call @Sharding) or sdy (Shardy: "
     "sdy.sharding, sdy.sharding_constraint, an sdy.mesh declaration)", NULL},
    FLAG_SWITCH_OF("json", flags, json, "the report as JSON, with every tensor the plan fixes and its layout"),
    FLAG_TEXT_OF("emit-iopddl", flags, emit, "PROBLEM",
                 "write the sharding problem as an IOPDDL contest problem instead of searching: a node per "
                 "argument and op, its strategies the mesh axes over its dimensions, costs in picoseconds, usage "
                 "in bytes per device, the usage limit --memory; `iopddl PROBLEM 10 > SOLUTION` or `parplan "
                 "solve` solves it"),
    {"apply-iopddl", FLAG_TEXT2, offsetof(flags, apply), "PROBLEM SOLUTION", 0, 0, false, NULL, NULL, false,
     "read such a problem (it must be the one this model and mesh give) and a solution, and report (and with "
     "--out write) the plan it stands for", NULL},
    FLAG_END,
};

const command_spec shard_command = {
    "shard", "auto-shard a StableHLO module on a device mesh", "MODEL.mlir", 1, offsetof(flags, model),
    "Reads MODEL.mlir (StableHLO text as jax.jit(f).lower(...).as_text() prints it) and inlines its calls. "
    "With --mesh it searches a sharding and reports the plan with its predicted step time and peak memory "
    "per device, beside both searches, the unsharded module and the expert baselines (data parallel, "
    "Megatron, both, expert parallel, FSDP), all priced by one cost model. Arguments are parameters, "
    "activations or token ids by the rule --explain prints (integer: token ids; floating with a batch "
    "dimension: activation; else parameter). Ops the reader does not know are kept opaque, with one warning "
    "per op name on stderr. Exit status 1 when no plan fits --memory (the report and --out are still "
    "written).",
    shard_flag_table,
};

/* What the table cannot say: which flags go together. */
static int check_modes(const flags *f)
{
    const command_spec *c = &shard_command;
    if (f->explain && f->mesh)
        return flags_fail(c, "--explain and --mesh exclude each other: --explain only prints the analysis");
    if (!f->explain && !f->mesh)
        return flags_fail(c, "give --mesh AXES (e.g. --mesh b=2,m=4) to plan, or --explain for the analysis");
    if (f->emit && f->apply[0])
        return flags_fail(c, "--emit-iopddl and --apply-iopddl exclude each other");
    if (f->emit && (f->out || f->json))
        return flags_fail(c, "--emit-iopddl writes only the problem: --out and --json do not apply");
    return 0;
}

static void show_warnings(const pp_shard_module *m)
{
    for (int32_t k = 0; m && k < m->n_warnings; k++)
        fprintf(stderr, "parplan: warning: %s\n", m->warnings[k].message);
}

/* The sharded module to --out, the report to stdout; exit 1 (PP_INFEASIBLE)
 * after both when the plan does not fit. */
static pp_status render(const flags *f, pp_shard_outcome *o, pp_error *err)
{
    pp_status st = PP_OK;
    o->report.out = f->out;
    if (f->out) {
        FILE *out = cli_open_out(f->out, err);
        if (!out)
            return err->status;
        fwrite(o->module, 1, o->module_size, out);
        st = cli_close_out(out, f->out, PP_OK, err);
    }
    if (st == PP_OK) {
        st = f->json ? pp_shard_report_write_json(&o->report, stdout, err)
                     : pp_shard_report_write_text(&o->report, stdout, err);
        st = cli_close_out(stdout, NULL, st, err);
    }
    const pp_shard_plan_result *plan = &o->plan;
    if (st == PP_OK && !plan->fits) {
        char need[32], limit[32];
        st = pp_error_set(err, PP_INFEASIBLE, "no plan fits the memory limit of %s per device: the best needs %s",
                          pp_shard_bytes_text(plan->memory, limit, sizeof limit),
                          pp_shard_bytes_text(plan->cost.peak_memory, need, sizeof need));
    }
    return st;
}

/* --explain's analysis to stdout. */
static pp_status render_explain(const pp_shard_outcome *o, pp_error *err)
{
    pp_shard_write_explain(o->analysis.nda, stdout);
    return cli_close_out(stdout, NULL, PP_OK, err);
}

/* --emit-iopddl's problem to its file, what it holds to stderr. */
static pp_status render_problem(const flags *f, const pp_shard_outcome *o, pp_error *err)
{
    FILE *out = cli_open_out(f->emit, err);
    if (!out)
        return err->status;
    pp_status st = cli_close_out(out, f->emit, pp_shard_bridge_write(o->bridge, o->problem_name, out, err), err);
    if (st == PP_OK) {
        const pp_iopddl_problem *p = pp_shard_bridge_problem(o->bridge);
        fprintf(stderr, "parplan: wrote %s: %u nodes, %u edges, costs in picoseconds, usage limit %lld bytes\n",
                f->emit, p->node_count, p->edge_count, (long long)p->usage_limit);
    }
    return st;
}

/* The flags as the library's request and job; pp_shard_run; its outcome rendered. */
static pp_status run(const flags *f, double started, pp_error *err)
{
    pp_shard_request request;
    pp_shard_request_default(&request);
    request.memory = f->memory;
    request.timeout = f->timeout;
    request.threads = f->threads;
    request.seed = (uint64_t)f->seed;
    request.search = f->search;
    request.precision = f->precision;
    request.format = f->format;
    /* One budget for reading, both searches and writing, from the
     * command's start; the margin pp_shard_run keeps for the output
     * (pp_job_solve_budget) keeps --timeout 0.5 within 10%. */
    pp_shard_job job = {.task = f->explain ? PP_SHARD_TASK_EXPLAIN
                                : f->emit  ? PP_SHARD_TASK_EMIT_IOPDDL
                                           : PP_SHARD_TASK_PLAN,
                        .model = {.path = f->model},
                        .mesh = {f->mesh, f->device, "--device", f->precision},
                        .apply = {f->apply[0], f->apply[1]},
                        .module = f->out != NULL,
                        .started = started};
    pp_shard_outcome o;
    pp_status st = pp_shard_run(&request, &job, &o, err);
    show_warnings(o.analysis.module);
    if (st == PP_OK)
        st = f->explain ? render_explain(&o, err) : f->emit ? render_problem(f, &o, err) : render(f, &o, err);
    pp_shard_outcome_free(&o);
    return st;
}

int cmd_shard(int argc, char **argv)
{
    double started = pp_now();
    flags f = {0};
    int code;
    if (!flags_parse(&shard_command, argc, argv, &f, &code))
        return code;
    if ((code = check_modes(&f)) != 0)
        return code;
    pp_error err = {0};
    return run(&f, started, &err) == PP_OK ? 0 : cli_fail("parplan", &err);
}
