/* shard_cmd.c: the auto-sharder's command of the parplan CLI: its flags,
 * and what to print or write. The pipeline (analysis, both searches under
 * one deadline, the winner, the memory default) is the library's
 * pp_shard_plan; this file only says which parts run and shows the result. */
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

typedef struct {
    pp_shard_analysis a;
    pp_hw_catalog *catalog;
} analysis;

static pp_status analyse(const char *path, analysis *A, pp_error *err)
{
    memset(A, 0, sizeof *A);
    pp_status st = pp_shard_analysis_load(path, &A->a, err);
    for (int32_t k = 0; A->a.module && k < A->a.module->n_warnings; k++)
        fprintf(stderr, "parplan: warning: %s\n", A->a.module->warnings[k].message);
    return st;
}

static void release(analysis *A)
{
    pp_shard_analysis_free(&A->a);
    pp_hw_catalog_free(A->catalog);
}

static pp_status explain(const analysis *A, pp_error *err)
{
    pp_shard_write_explain(A->a.nda, stdout);
    return cli_close_out(stdout, NULL, PP_OK, err);
}

static pp_status open_mesh(const flags *f, analysis *A, pp_shard_mesh *mesh, pp_error *err)
{
    pp_shard_mesh_spec spec = {f->mesh, f->device, "--device", f->precision};
    return pp_shard_mesh_open(&spec, &A->catalog, mesh, err);
}

/* MODEL.mlir again, with the layout on its entry's signature. */
static pp_status write_sharded(const flags *f, const analysis *A, const pp_shard_mesh *mesh, pp_shard_format format,
                               const uint8_t *axes, pp_shard_write_stats *stats, pp_error *err)
{
    char *text = NULL, *sharded = NULL;
    size_t size = 0, sharded_size = 0;
    pp_status st = pp_read_text_file(f->model, &text, &size, err);
    if (st == PP_OK)
        st = pp_shard_write_plan(A->a.nda, mesh, axes, format, text, size, &sharded, &sharded_size, stats, err);
    FILE *out = st == PP_OK ? cli_open_out(f->out, err) : NULL;
    if (out) {
        fwrite(sharded, 1, sharded_size, out);
        st = cli_close_out(out, f->out, PP_OK, err);
    } else if (st == PP_OK) {
        st = PP_EIO;
    }
    free(text);
    free(sharded);
    return st;
}

static double memory_limit(const flags *f, const pp_shard_mesh *mesh)
{
    return pp_shard_memory_limit(mesh, f->memory);
}

static pp_status emit_iopddl(const flags *f, const analysis *A, const pp_shard_mesh *mesh, pp_error *err)
{
    pp_shard_bridge *bridge = NULL;
    pp_status st = pp_shard_bridge_build(A->a.flat, A->a.nda, mesh, memory_limit(f, mesh), &bridge, err);
    FILE *out = st == PP_OK ? cli_open_out(f->emit, err) : NULL;
    if (out) {
        st = pp_shard_bridge_write(bridge, A->a.module->name[0] ? A->a.module->name : "model", out, err);
        st = cli_close_out(out, f->emit, st, err);
    } else if (st == PP_OK) {
        st = PP_EIO;
    }
    if (st == PP_OK) {
        const pp_iopddl_problem *p = pp_shard_bridge_problem(bridge);
        fprintf(stderr, "parplan: wrote %s: %u nodes, %u edges, costs in picoseconds, usage limit %lld bytes\n",
                f->emit, p->node_count, p->edge_count, (long long)p->usage_limit);
    }
    pp_shard_bridge_free(bridge);
    return st;
}

/* The report of the candidates, the sharded module when asked; exit 1
 * (PP_INFEASIBLE) after both when the plan does not fit. */
static pp_status finish(const flags *f, const analysis *A, const pp_shard_mesh *mesh, pp_shard_format format,
                        const pp_shard_plan_result *plan, pp_error *err)
{
    pp_shard_report report;
    pp_status st = pp_shard_report_build(&report, f->model, f->mesh, A->a.nda, mesh, plan, err);
    report.solution = f->apply[0] ? f->apply[1] : NULL;
    if (st == PP_OK && f->out) {
        st = write_sharded(f, A, mesh, format, plan->axes, &report.written, err);
        report.out = f->out;
    }
    if (st == PP_OK) {
        st = f->json ? pp_shard_report_write_json(&report, stdout, err) : pp_shard_report_write_text(&report, stdout, err);
        st = cli_close_out(stdout, NULL, st, err);
    }
    if (st == PP_OK && !plan->fits) {
        char need[32], limit[32];
        st = pp_error_set(err, PP_INFEASIBLE, "no plan fits the memory limit of %s per device: the best needs %s",
                          pp_shard_bytes_text(plan->memory, limit, sizeof limit),
                          pp_shard_bytes_text(plan->cost.peak_memory, need, sizeof need));
    }
    return st;
}

static pp_status apply_iopddl(const flags *f, const analysis *A, const pp_shard_mesh *mesh, pp_shard_format format,
                              pp_error *err)
{
    pp_shard_plan_result plan;
    pp_status st = pp_shard_plan_apply(A->a.flat, A->a.nda, mesh, f->memory, f->apply[0], f->apply[1], &plan, err);
    if (st == PP_OK)
        st = finish(f, A, mesh, format, &plan, err);
    pp_shard_plan_free(&plan);
    return st;
}

static pp_status plan(const flags *f, analysis *A, const pp_deadline *deadline, pp_error *err)
{
    pp_shard_mesh mesh;
    pp_shard_format format;
    pp_status st = pp_shard_format_parse(f->format, &format, err);
    if (st == PP_OK)
        st = open_mesh(f, A, &mesh, err);
    if (st != PP_OK)
        return st;
    if (f->emit)
        return emit_iopddl(f, A, &mesh, err);
    if (f->apply[0])
        return apply_iopddl(f, A, &mesh, format, err);
    pp_shard_request request;
    pp_shard_request_default(&request);
    request.memory = f->memory;
    request.timeout = f->timeout;
    request.threads = f->threads;
    request.seed = (uint64_t)f->seed;
    request.search = f->search;
    request.precision = f->precision;
    request.format = f->format;
    if ((st = pp_shard_request_check(&request, err)) != PP_OK)
        return st;
    pp_shard_plan_options o;
    pp_shard_request_options(&request, f->timeout, &o);
    pp_shard_plan_result result;
    st = pp_shard_plan(A->a.flat, A->a.nda, &mesh, &o, deadline, &result, err);
    if (st == PP_OK)
        st = finish(f, A, &mesh, format, &result, err);
    pp_shard_plan_free(&result);
    return st;
}

int cmd_shard(int argc, char **argv)
{
    flags f = {0};
    int code;
    if (!flags_parse(&shard_command, argc, argv, &f, &code))
        return code;
    if ((code = check_modes(&f)) != 0)
        return code;
    pp_error err = {0};
    analysis A;
    /* One budget for reading, both searches and writing; the margin that
     * the other solvers keep for their output (cli_solve_budget) keeps
     * --timeout 0.5 within 10%. */
    f.timeout = cli_solve_budget(f.timeout, pp_now());
    pp_deadline deadline = pp_deadline_in(f.timeout);
    pp_status st = analyse(f.model, &A, &err);
    if (st == PP_OK)
        st = f.explain ? explain(&A, &err) : plan(&f, &A, &deadline, &err);
    release(&A);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}
