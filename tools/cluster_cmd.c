/* cluster_cmd.c: the cluster planner's commands of the parplan CLI:
 * cluster plan, cluster simulate and cluster replan. Flags in, library calls,
 * plans to stdout or files, people's text to stderr. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli.h"
#include "commands.h"
#include "parplan/cluster.h"
#include "parplan/cluster_request.h"

typedef struct {
    const char *command;
    const char *files[3];
    const char *devices, *out, *trace, *svg, *event, *stack;
    double timeout, at;
    int64_t threads, seed, context_parallel;
    bool json, quiet;
} cluster_flags;

#define DEVICES_FLAG                                                                                              \
    FLAG_TEXT_OF("devices", cluster_flags, devices, "F",                                                          \
                 "more device types, or a calibration file that sets efficiencies (README)")
#define STACK_FLAG                                                                                                \
    {"stack", FLAG_CHOICE, offsetof(cluster_flags, stack), "STACK", 0, 0, false, PP_CLUSTER_STACKS, NULL, false,  \
     "the software that runs the step (default: the workload's, else megatron-lm); plan only what it runs", NULL}
#define AT_FLAG                                                                                                   \
    FLAG_OPTION("at", FLAG_NUMBER, cluster_flags, at, "T", pp_cluster_option_at, "0",                             \
                "the step starts T seconds into the run: the timeline's events up to T apply")
#define EVENT_FLAG(required)                                                                                      \
    {"event", FLAG_TEXT, offsetof(cluster_flags, event), "EVENTS", 0, 0, false, NULL, NULL, required,             \
     "events (bandwidth changes, lost devices) added to CLUSTER's timeline", NULL}
#define SEARCH_FLAGS                                                                                              \
    FLAG_TIMEOUT(cluster_flags, timeout, "60",                                                                    \
                 "seconds for the whole run; the search stops early when it is complete"),                        \
        FLAG_THREADS(cluster_flags, threads), FLAG_SEED(cluster_flags, seed),                                     \
        FLAG_OPTION("context-parallel", FLAG_INTEGER, cluster_flags, context_parallel, "N",                       \
                    pp_cluster_option_context_parallel, "1",                                                      \
                    "search context parallelism up to degree N (powers of two; long sequences)")
#define OUTPUT_FLAGS                                                                                              \
    FLAG_TEXT_OF("out", cluster_flags, out, "PLAN", "write the plan (JSON) there instead of stdout"),             \
        PICTURE_FLAGS,                                                                                            \
        FLAG_SWITCH_OF("json", cluster_flags, json,                                                               \
                       "the summary as JSON on stdout (the plan then only goes to --out)"),                       \
        FLAG_SWITCH_OF("quiet", cluster_flags, quiet, "no summary on stderr")
#define PICTURE_FLAGS                                                                                             \
    FLAG_TEXT_OF("trace", cluster_flags, trace, "TRACE", "a Chrome trace of the simulated step"),                 \
        FLAG_TEXT_OF("svg", cluster_flags, svg, "SVG", "an SVG Gantt chart of the step (devices and links)")

static const flag_spec plan_flag_table[] = {SEARCH_FLAGS, DEVICES_FLAG, STACK_FLAG, AT_FLAG, OUTPUT_FLAGS, FLAG_END};
static const flag_spec simulate_flag_table[] = {
    DEVICES_FLAG, STACK_FLAG, EVENT_FLAG(false), AT_FLAG, PICTURE_FLAGS,
    FLAG_SWITCH_OF("json", cluster_flags, json, "the report as JSON on stdout"), FLAG_END};
static const flag_spec replan_flag_table[] = {EVENT_FLAG(true), SEARCH_FLAGS, DEVICES_FLAG, STACK_FLAG, OUTPUT_FLAGS,
                                              FLAG_END};

const command_spec cluster_plan_command = {
    "cluster plan", "split a training workload over a cluster", "CLUSTER WORKLOAD", 2,
    offsetof(cluster_flags, files),
    "The fastest way found to split WORKLOAD over CLUSTER (branch-and-bound, paper 003), beside the best "
    "Megatron-uniform plan. The plan goes to stdout or --out; the summary to stderr (stdout with --json). "
    "Formats: README.",
    plan_flag_table,
};

const command_spec cluster_simulate_command = {
    "cluster simulate", "one training step of a plan, simulated", "CLUSTER WORKLOAD PLAN", 3,
    offsetof(cluster_flags, files),
    "One training step of PLAN (the planner's output or the shorthand {\"tp\": 8, \"pp\": 4, \"dp\": 2, "
    "\"micro_batch\": 1}): its time, throughput and each device's compute, communication, idle time and peak "
    "memory.",
    simulate_flag_table,
};

const command_spec cluster_replan_command = {
    "cluster replan", "a new plan after bandwidth changes or lost devices", "CLUSTER WORKLOAD PLAN", 3,
    offsetof(cluster_flags, files),
    "The conditions after EVENTS (bandwidth changes, lost devices), the old plan under them, and a new plan "
    "started from it. The plan goes to stdout or --out; the summary to stderr (stdout with --json).",
    replan_flag_table,
};

static pp_status write_plan(const pp_cluster_plan *p, const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    return cli_close_out(f, path, pp_cluster_plan_write(p, f, err), err);
}

typedef pp_status (*timeline_writer)(const pp_timeline *, FILE *, pp_error *);

static pp_status write_picture(timeline_writer write, const pp_timeline *t, const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    return cli_close_out(f, path, write(t, f, err), err);
}

/* The step the library drew, written where the flags say. */
static pp_status write_pictures(const cluster_flags *f, const pp_timeline *t, pp_error *err)
{
    pp_status st = PP_OK;
    if (t && f->trace)
        st = write_picture(pp_timeline_write_trace, t, f->trace, err);
    if (st == PP_OK && t && f->svg)
        st = write_picture(pp_timeline_write_svg, t, f->svg, err);
    return st;
}

static void print_devices(const pp_cluster *c, const pp_cluster_report *r)
{
    fprintf(stderr, "%-10s %-16s %9s %9s %9s %12s %12s\n", "device", "type", "compute", "comm", "idle",
            "peak memory", "capacity");
    for (int d = 0; d < c->device_count; d++) {
        const pp_cluster_node *n = &c->nodes[c->device_node[d]];
        if (r->peak_memory[d] == 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s/%d", n->name, d - n->first_device);
        fprintf(stderr, "%-10s %-16s %8.3fs %8.3fs %8.3fs %10.2f GiB %8.2f GiB\n", name, n->type->name,
                r->compute[d], r->communication[d], r->idle[d], r->peak_memory[d] / 1073741824.0,
                n->type->memory_bytes / 1073741824.0);
    }
}

static void print_step(const char *label, const pp_cluster_plan *p, const pp_cluster_report *r)
{
    char what[1024];
    pp_cluster_plan_describe(p, what, sizeof what);
    fprintf(stderr, "%-9s %.4f s per step, %.2f samples/s, %.1f TFLOP/s per GPU%s\n          (%s)\n", label,
            r->step_time, r->samples_per_second, r->tflops_per_device,
            r->fits ? "" : ", DOES NOT FIT in memory", what);
}

static json_t *step_json(const pp_cluster_plan *p, const pp_cluster_report *r)
{
    char what[1024];
    pp_cluster_plan_describe(p, what, sizeof what);
    return json_pack("{s:f, s:f, s:f, s:b, s:s}", "step_time", r->step_time, "samples_per_second",
                     r->samples_per_second, "tflops_per_device", r->tflops_per_device, "fits", r->fits,
                     "plan", what);
}

static json_t *devices_json(const pp_cluster *c, const pp_cluster_report *r)
{
    json_t *devices = json_array();
    for (int d = 0; d < c->device_count; d++) {
        const pp_cluster_node *n = &c->nodes[c->device_node[d]];
        json_array_append_new(devices, json_pack("{s:i, s:s, s:s, s:f, s:f, s:f, s:f}", "device", d, "node",
                                                 n->name, "type", n->type->name, "compute", r->compute[d],
                                                 "communication", r->communication[d], "idle", r->idle[d],
                                                 "peak_memory", r->peak_memory[d]));
    }
    return devices;
}

static void print_json(json_t *summary)
{
    json_dumpf(summary, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(summary);
}

static void render_simulation(const cluster_flags *f, const pp_cluster_outcome *o)
{
    if (f->json) {
        json_t *summary = step_json(o->plan, &o->step);
        json_object_set_new(summary, "devices", devices_json(o->cluster, &o->step));
        print_json(summary);
    } else {
        print_step("plan", o->plan, &o->step);
        print_devices(o->cluster, &o->step);
    }
}

static void print_search(const pp_cluster_plan_result *r)
{
    fprintf(stderr, "search    %.2f s, %ld nodes, %ld plans simulated, %s (lower bound %.4f s)\n", r->seconds,
            r->nodes, r->simulations, r->complete ? "complete: the best of its space" : "stopped by the time limit",
            r->lower_bound);
}

static json_t *search_json(const pp_cluster_plan_result *r)
{
    return json_pack("{s:f, s:I, s:I, s:b, s:f}", "seconds", r->seconds, "nodes", (json_int_t)r->nodes,
                     "simulations", (json_int_t)r->simulations, "complete", r->complete, "lower_bound",
                     r->lower_bound);
}

/* replan: the old plan under the new conditions, and the gain. */
static void gain_text(const pp_cluster_plan_result *r)
{
    if (isfinite(r->warm_time))
        fprintf(stderr, "old plan  %.4f s per step under the new conditions\n"
                        "gain      %.2fx (%.1f%% less time per step)\n",
                r->warm_time, r->warm_time / r->best_time, 100 * (1 - r->best_time / r->warm_time));
    else
        fprintf(stderr, "old plan  cannot run under the new conditions (a device is lost or a link down)\n");
}

static void render_text(const pp_cluster_outcome *o)
{
    const pp_cluster_plan_result *r = &o->result;
    const pp_cluster_plan_summary *sum = &o->summary;
    if (o->plan)
        gain_text(r);
    print_step("plan", r->best, &sum->best);
    if (r->uniform)
        print_step("uniform", r->uniform, &sum->uniform);
    else
        fprintf(stderr, "uniform   no Megatron-uniform plan fits in memory\n");
    if (r->uniform)
        fprintf(stderr, "speed-up  %.2fx over the best Megatron-uniform plan\n", sum->speedup);
    fprintf(stderr, "ideal     %.4f s per step: every device computing all the time (the plan reaches %.0f%%)\n",
            sum->ideal, 100 * sum->ideal / sum->best.step_time);
    print_search(r);
    print_devices(o->cluster, &sum->best);
}

static void render_json(const cluster_flags *f, const pp_cluster_outcome *o)
{
    const pp_cluster_plan_result *r = &o->result;
    const pp_cluster_plan_summary *sum = &o->summary;
    json_t *summary = json_pack("{s:s, s:f}", "command", f->command, "at", o->at);
    if (o->plan) {
        bool runs = isfinite(r->warm_time);
        json_object_set_new(summary, "old_step_time", runs ? json_real(r->warm_time) : json_null());
        json_object_set_new(summary, "gain", runs ? json_real(r->warm_time / r->best_time) : json_null());
    }
    json_t *step = step_json(r->best, &sum->best);
    json_object_update(summary, step);
    json_decref(step);
    json_object_set_new(summary, "ideal_step_time", json_real(sum->ideal));
    json_object_set_new(summary, "uniform_step_time", r->uniform ? json_real(sum->uniform.step_time) : json_null());
    json_object_set_new(summary, "speedup_over_uniform", r->uniform ? json_real(sum->speedup) : json_null());
    json_object_set_new(summary, "uniform", r->uniform ? step_json(r->uniform, &sum->uniform) : json_null());
    json_object_set_new(summary, "search_seconds", json_real(r->seconds));
    json_object_set_new(summary, "complete", json_boolean(r->complete));
    json_object_set_new(summary, "search", search_json(r));
    json_object_set_new(summary, "devices", devices_json(o->cluster, &sum->best));
    print_json(summary);
}

static int run(const command_spec *c, int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    cluster_flags f = {0};
    int code;
    if (!flags_parse(c, argc, argv, &f, &code))
        return code;
    f.command = strchr(c->name, ' ') + 1;
    bool simulate = c == &cluster_simulate_command;
    pp_cluster_request request;
    pp_cluster_request_default(&request);
    request.at = f.at;
    request.stack = f.stack;
    if (!simulate) {
        request.timeout = f.timeout;
        request.threads = f.threads;
        request.seed = (uint64_t)f.seed;
        request.context_parallel = f.context_parallel;
    }
    pp_cluster_job job = {.cluster = {.path = f.files[0]},
                          .workload = {.path = f.files[1]},
                          .events = {.path = f.event},
                          .plan = {.path = f.files[2]},
                          .devices = f.devices,
                          .replan = c == &cluster_replan_command,
                          .draw = f.trace || f.svg,
                          .started = started};
    pp_cluster_outcome o;
    pp_error err = {0};
    pp_status st = simulate ? pp_cluster_simulate_run(&request, &job, &o, &err)
                            : pp_cluster_plan_run(&request, &job, &o, &err);
    if (st == PP_OK)
        st = write_pictures(&f, o.timeline, &err);
    if (st == PP_OK && !simulate && (f.out || !f.json))
        st = write_plan(o.result.best, f.out, &err);
    if (st == PP_OK && simulate)
        render_simulation(&f, &o);
    else if (st == PP_OK && f.json)
        render_json(&f, &o);
    else if (st == PP_OK && !f.quiet)
        render_text(&o);
    pp_cluster_outcome_free(&o);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

int cmd_cluster_plan(int argc, char **argv)
{
    return run(&cluster_plan_command, argc, argv);
}

int cmd_cluster_simulate(int argc, char **argv)
{
    return run(&cluster_simulate_command, argc, argv);
}

int cmd_cluster_replan(int argc, char **argv)
{
    return run(&cluster_replan_command, argc, argv);
}
