/* plan_cmd.c: `parplan plan`, one plan from a module and a cluster: its
 * flags, and what to print or write. The pipeline is the library's
 * pp_plan (src/plan); this file fills its request and prints its report. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "commands.h"
#include "parplan/deadline.h"
#include "parplan/plan.h"

typedef struct {
    const char *model, *cluster, *out, *precision;
    int64_t batch, microbatches, threads, seed;
    double timeout, memory;
    bool json;
} flags;

static const flag_spec plan_flag_table[] = {
    {"cluster", FLAG_TEXT, offsetof(flags, cluster), "CLUSTER.json", 0, 0, false, NULL, NULL, true,
     "the cluster, in the format of `parplan cluster plan`", NULL},
    FLAG_OPTION("batch", FLAG_INTEGER, flags, batch, "B", pp_plan_option_batch, NULL,
                "samples per training step, a multiple of the module's batch (default, or 0: that batch times "
                "twice the cluster's devices)"),
    FLAG_OPTION("microbatches", FLAG_INTEGER, flags, microbatches, "M", pp_plan_option_microbatches, NULL,
                "micro-batches per replica (default, or 0: the search chooses the replicas and so M)"),
    {"precision", FLAG_CHOICE, offsetof(flags, precision), "P", 0, 0, false, "typed|tf32|bf16", "typed", false,
     "what f32 matrix products run as, as `parplan shard` takes it", NULL},
    FLAG_MEMORY(flags, memory, "bytes per device the plan must fit in (default: each device type's memory)"),
    FLAG_TIMEOUT(flags, timeout, "60", "seconds for the whole plan"),
    FLAG_THREADS(flags, threads),
    FLAG_SEED(flags, seed),
    FLAG_TEXT_OF("out", flags, out, "DIR",
                 "write the report as DIR/plan.json, each stage as a sharded StableHLO module DIR/stageS.mlir, "
                 "and the simulated step as DIR/step.trace.json (Chrome trace) and DIR/step.svg (DIR is made "
                 "when missing)"),
    FLAG_SWITCH_OF("json", flags, json, "the report as JSON on stdout"),
    FLAG_END,
};

const command_spec plan_command = {
    "plan", "one training-step plan of a StableHLO module on a cluster", "MODEL.mlir", 1, offsetof(flags, model),
    "Cuts MODEL.mlir between its repeated layers into pipeline stages, maps the stages onto device groups of the "
    "cluster, shards each stage on its mesh with the sharder, and prices the plan with the cluster simulator. "
    "The report gives the stages, the step time (the simulator's, with the search's own estimate beside it), "
    "each device's peak memory against its capacity, a lower bound and the baselines (data parallel only, the "
    "sharder alone, pipeline only, Megatron's uniform split). A module of forward passes is trained with backward passes twice the "
    "forward's products. Exit status 1 when no plan fits the devices' memory (the report shows the shortfall "
    "per device).",
    plan_flag_table,
};

typedef pp_status (*writer)(const void *what, FILE *f, pp_error *err);

static pp_status write_file(const char *dir, const char *name, writer write, const void *what, pp_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    return cli_close_out(f, path, write(what, f, err), err);
}

static pp_status json_of(const void *r, FILE *f, pp_error *err) { return pp_plan_write_json(r, f, err); }
static pp_status trace_of(const void *t, FILE *f, pp_error *err) { return pp_timeline_write_trace(t, f, err); }
static pp_status svg_of(const void *t, FILE *f, pp_error *err) { return pp_timeline_write_svg(t, f, err); }
static pp_status stage_of(const void *s, FILE *f, pp_error *err)
{
    const pp_plan_stage *S = s;
    fwrite(S->module_text, 1, S->module_size, f);
    return ferror(f) ? pp_error_set(err, PP_EIO, "writing a stage's module: %s", strerror(errno)) : PP_OK;
}

/* DIR/plan.json, each stage's module as DIR/stageS.mlir, and the
 * simulator's step as DIR/step.trace.json (Chrome trace) and DIR/step.svg. */
static pp_status write_out(const char *dir, const pp_plan_report *r, pp_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pp_error_set(err, PP_EIO, "%s: %s", dir, strerror(errno));
    pp_status st = write_file(dir, "plan.json", json_of, r, err);
    for (int32_t s = 0; s < r->n_stages && st == PP_OK; s++)
        if (r->stages[s].module_text) {
            char name[32];
            snprintf(name, sizeof name, "stage%d.mlir", s);
            st = write_file(dir, name, stage_of, &r->stages[s], err);
        }
    if (st == PP_OK && r->timeline)
        st = write_file(dir, "step.trace.json", trace_of, r->timeline, err);
    if (st == PP_OK && r->timeline)
        st = write_file(dir, "step.svg", svg_of, r->timeline, err);
    return st;
}

int cmd_plan(int argc, char **argv)
{
    double started = pp_now();
    flags f = {0};
    int code;
    if (!flags_parse(&plan_command, argc, argv, &f, &code))
        return code;
    pp_error err = {0};
    pp_plan_request r;
    pp_plan_request_default(&r);
    r.module_path = f.model;
    r.cluster_path = f.cluster;
    r.batch = f.batch;
    r.microbatches = (int32_t)f.microbatches;
    r.memory = f.memory;
    r.time_limit = pp_job_solve_budget(f.timeout, started);
    r.threads = (int32_t)f.threads;
    r.seed = (uint64_t)f.seed;
    pp_status st = pp_shard_precision_parse(f.precision, &r.precision, &err);
    pp_plan_report rep = {0};
    pp_status planned = st == PP_OK ? pp_plan(&r, &rep, &err) : st;
    bool has_report = rep.n_stages > 0;
    if (has_report) {
        pp_error werr = {0};
        pp_status w = f.json ? pp_plan_write_json(&rep, stdout, &werr) : pp_plan_write_text(&rep, stderr, &werr);
        if (w == PP_OK && f.out)
            w = write_out(f.out, &rep, &werr);
        if (w != PP_OK && planned == PP_OK) {
            planned = w;
            err = werr;
        }
    }
    pp_plan_report_free(&rep);
    return planned == PP_OK ? 0 : cli_fail("parplan plan", &err);
}
