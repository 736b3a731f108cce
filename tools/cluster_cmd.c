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
    {"stack", FLAG_CHOICE, offsetof(cluster_flags, stack), "STACK", 0, 0, false,                                  \
     "megatron-lm|megatron-deepspeed|torchtitan", NULL, false,                                                    \
     "the software that runs the step (default: the workload's, else megatron-lm); plan only what it runs"}
#define AT_FLAG                                                                                                   \
    {"at", FLAG_NUMBER, offsetof(cluster_flags, at), "T", 0, 1e300, false, NULL, "0", false,                      \
     "the step starts T seconds into the run: the timeline's events up to T apply"}
#define EVENT_FLAG(required)                                                                                      \
    {"event", FLAG_TEXT, offsetof(cluster_flags, event), "EVENTS", 0, 0, false, NULL, NULL, required,             \
     "events (bandwidth changes, lost devices) added to CLUSTER's timeline"}
#define SEARCH_FLAGS                                                                                              \
    FLAG_TIMEOUT(cluster_flags, timeout, "60",                                                                    \
                 "seconds for the whole run; the search stops early when it is complete"),                        \
        FLAG_THREADS(cluster_flags, threads), FLAG_SEED(cluster_flags, seed),                                     \
        {"context-parallel", FLAG_INTEGER, offsetof(cluster_flags, context_parallel), "N", 1, 1 << 20, false,     \
         NULL, "1", false, "search context parallelism up to degree N (powers of two; long sequences)"}
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

/* Everything a command reads, freed in one place. */
typedef struct {
    pp_hw_catalog *catalog;
    pp_cluster *cluster;
    pp_cluster_workload *workload;
    pp_cluster_plan *plan;
} inputs;

static void inputs_free(inputs *in)
{
    pp_cluster_plan_free(in->plan);
    pp_cluster_workload_free(in->workload);
    pp_cluster_free(in->cluster);
    pp_hw_catalog_free(in->catalog);
}

static pp_status read_inputs(const cluster_flags *f, inputs *in, pp_error *err)
{
    *in = (inputs){0};
    if (pp_hw_catalog_builtin(&in->catalog, err) != PP_OK)
        return err->status;
    if (f->devices && pp_hw_catalog_add_file(in->catalog, f->devices, err) != PP_OK)
        return err->status;
    if (pp_cluster_load(f->files[0], in->catalog, &in->cluster, err) != PP_OK)
        return err->status;
    if (f->event && pp_cluster_add_events_file(in->cluster, f->event, err) != PP_OK)
        return err->status;
    if (pp_cluster_workload_load(f->files[1], in->catalog, &in->workload, err) != PP_OK)
        return err->status;
    if (f->stack)
        pp_cluster_stack_parse(f->stack, &in->workload->stack); /* a choice the flag table checked */
    if (f->files[2] &&
        pp_cluster_plan_load(f->files[2], in->cluster, in->workload, &in->plan, err) != PP_OK)
        return err->status;
    return PP_OK;
}

static pp_status write_plan(const pp_cluster_plan *p, const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    pp_status st = pp_cluster_plan_write(p, f, err);
    pp_status closed = cli_close_out(f, path, err);
    return st != PP_OK ? st : closed;
}

/* Under a time limit the pictures hold at most TRACE_BOXES_PER_SECOND boxes
 * a second of it, and the search leaves TRACE_SECONDS_PER_BOX for each to be
 * simulated, drawn and written. Measured on 512 A100s with GPT 39.1B on the
 * shared machine: 20,000 boxes cost 0.26 s of CPU over a plain simulation,
 * 0.4 s of wall time under load; the whole step, 459,009 boxes and 78 MB,
 * had taken 4-15 s past a one-second limit. */
#define TRACE_BOXES_PER_SECOND 10000.0
#define TRACE_SECONDS_PER_BOX 20e-6

static long trace_boxes(const cluster_flags *f)
{
    return f->timeout > 0 && (f->trace || f->svg) ? (long)fmax(1000.0, TRACE_BOXES_PER_SECOND * f->timeout) : 0;
}

/* The picture's title carries what one needs to read it: the cluster, the
 * step time and the plan, and what a time limit left out of it. */
static pp_status title_picture(const inputs *in, const pp_cluster_plan *p, const pp_cluster_report *rep,
                               pp_timeline *t, pp_error *err)
{
    char what[1024], title[1280];
    pp_cluster_plan_describe(p, what, sizeof what);
    int n = snprintf(title, sizeof title, "%s: %.4f s per step (%s)",
                     in->cluster->name ? in->cluster->name : "cluster", rep->step_time, what);
    if (rep->boxes_left_out > 0 && n > 0 && (size_t)n < sizeof title)
        snprintf(title + n, sizeof title - (size_t)n,
                 "; drawn: the first %d boxes, %ld left out under the time limit", pp_timeline_box_count(t),
                 rep->boxes_left_out);
    return pp_timeline_set_title(t, title, err);
}

typedef pp_status (*timeline_writer)(const pp_timeline *, FILE *, pp_error *);

static pp_status write_picture(timeline_writer write, const pp_timeline *t, const char *path, pp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return pp_error_set(err, PP_EIO, "%s: cannot write", path);
    pp_status st = write(t, f, err);
    pp_status closed = cli_close_out(f, path, err);
    return st != PP_OK ? st : closed;
}

/* Simulates p at `at`, writing the pictures the flags ask for. */
static pp_status simulate(const cluster_flags *f, const inputs *in, const pp_cluster_plan *p, double at,
                          bool pictures, pp_cluster_report *rep, pp_error *err)
{
    pp_cluster_sim_options o = {.start_time = at, .max_boxes = trace_boxes(f)};
    pictures = pictures && (f->trace || f->svg);
    if (pictures) {
        o.timeline = pp_timeline_new(in->cluster->name ? in->cluster->name : "cluster", 1e6);
        if (!o.timeline)
            return pp_error_set(err, PP_ENOMEM, "out of memory for the timeline");
    }
    pp_status st = pp_cluster_simulate(in->cluster, in->workload, p, &o, rep, err);
    if (st == PP_OK && !isfinite(rep->step_time))
        st = pp_error_set(err, PP_INFEASIBLE,
                          "the plan cannot run at time %g: a transfer it needs waits for ever on a link "
                          "that is down or too slow to finish in finite time",
                          at);
    if (st == PP_OK && pictures)
        st = title_picture(in, p, rep, o.timeline, err);
    if (st == PP_OK && pictures && f->trace)
        st = write_picture(pp_timeline_write_trace, o.timeline, f->trace, err);
    if (st == PP_OK && pictures && f->svg)
        st = write_picture(pp_timeline_write_svg, o.timeline, f->svg, err);
    pp_timeline_free(o.timeline);
    return st;
}

static void print_devices(const inputs *in, const pp_cluster_report *r)
{
    const pp_cluster *c = in->cluster;
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

static json_t *devices_json(const inputs *in, const pp_cluster_report *r)
{
    json_t *devices = json_array();
    for (int d = 0; d < in->cluster->device_count; d++) {
        const pp_cluster_node *n = &in->cluster->nodes[in->cluster->device_node[d]];
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

static int run_simulate(const cluster_flags *f, inputs *in)
{
    pp_error err = {0};
    pp_cluster_report rep = {0};
    pp_status st = simulate(f, in, in->plan, f->at, true, &rep, &err);
    if (st != PP_OK) {
        pp_cluster_report_free(&rep);
        return cli_fail("parplan", &err);
    }
    if (f->json) {
        json_t *summary = step_json(in->plan, &rep);
        json_object_set_new(summary, "devices", devices_json(in, &rep));
        print_json(summary);
    } else {
        print_step("plan", in->plan, &rep);
        print_devices(in, &rep);
    }
    pp_cluster_report_free(&rep);
    return 0;
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

static void take_report(pp_cluster_report *from, pp_cluster_report *to)
{
    *to = *from;
    *from = (pp_cluster_report){0};
}

/* The best plan beside the uniform baseline, with the figures of the
 * search's own simulations (simulated again only for pictures; the
 * uniform's taken from the best's when it is the same plan): at thousands
 * of GPUs a simulation is a good part of the time limit. */
static int report_plan(const cluster_flags *f, inputs *in, pp_cluster_plan_result *r, double at,
                       json_t *summary)
{
    pp_error err = {0};
    pp_cluster_report best = {0}, uniform = {0};
    pp_status st = PP_OK;
    if (f->trace || f->svg || !r->best_report.compute)
        st = simulate(f, in, r->best, at, true, &best, &err);
    else
        take_report(&r->best_report, &best);
    bool same = r->uniform && pp_cluster_plan_equal(r->best, r->uniform);
    if (st == PP_OK && r->uniform && !same && r->uniform_report.compute)
        take_report(&r->uniform_report, &uniform);
    else if (st == PP_OK && r->uniform && !same)
        st = simulate(f, in, r->uniform, at, false, &uniform, &err);
    if (same)
        uniform = (pp_cluster_report){.step_time = best.step_time, .samples_per_second = best.samples_per_second,
                                      .tflops_per_device = best.tflops_per_device, .fits = best.fits};
    if (st == PP_OK && (f->out || !f->json))
        st = write_plan(r->best, f->out, &err);
    double speedup = r->uniform ? uniform.step_time / best.step_time : INFINITY;
    double ideal = pp_cluster_ideal_step_time(in->cluster, in->workload, at);
    if (st == PP_OK && f->json) {
        json_t *step = step_json(r->best, &best);
        json_object_update(summary, step);
        json_decref(step);
        json_object_set_new(summary, "ideal_step_time", json_real(ideal));
        json_object_set_new(summary, "uniform_step_time", r->uniform ? json_real(uniform.step_time) : json_null());
        json_object_set_new(summary, "speedup_over_uniform", r->uniform ? json_real(speedup) : json_null());
        json_object_set_new(summary, "uniform", r->uniform ? step_json(r->uniform, &uniform) : json_null());
        json_object_set_new(summary, "search_seconds", json_real(r->seconds));
        json_object_set_new(summary, "complete", json_boolean(r->complete));
        json_object_set_new(summary, "search", search_json(r));
        json_object_set_new(summary, "devices", devices_json(in, &best));
        print_json(summary);
    } else if (st == PP_OK && !f->quiet) {
        print_step("plan", r->best, &best);
        if (r->uniform)
            print_step("uniform", r->uniform, &uniform);
        else
            fprintf(stderr, "uniform   no Megatron-uniform plan fits in memory\n");
        if (r->uniform)
            fprintf(stderr, "speed-up  %.2fx over the best Megatron-uniform plan\n", speedup);
        fprintf(stderr, "ideal     %.4f s per step: every device computing all the time (the plan reaches %.0f%%)\n",
                ideal, 100 * ideal / best.step_time);
        print_search(r);
        print_devices(in, &best);
    }
    if (f->json && st != PP_OK)
        json_decref(summary);
    pp_cluster_report_free(&best);
    pp_cluster_report_free(&uniform);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

static int search_and_report(const cluster_flags *f, inputs *in, double at, double started, json_t *summary)
{
    double budget = cli_solve_budget(f->timeout, started) - TRACE_SECONDS_PER_BOX * (double)trace_boxes(f);
    pp_cluster_plan_options o = {.time_limit = fmax(budget, 0.01),
                                 .threads = (int)f->threads,
                                 .seed = (uint64_t)f->seed,
                                 .start_time = at,
                                 .warm_start = in->plan,
                                 .max_context_parallel = (int)f->context_parallel,
                                 /* the search's reports serve unless pictures are asked for */
                                 .reserve_simulations = f->trace || f->svg ? 1 : 0};
    pp_cluster_plan_result r = {0};
    pp_error err = {0};
    if (pp_cluster_plan_search(in->cluster, in->workload, &o, &r, &err) != PP_OK) {
        json_decref(summary);
        pp_cluster_plan_result_free(&r);
        return cli_fail("parplan", &err);
    }
    if (!r.best) {
        json_decref(summary);
        pp_cluster_plan_result_free(&r);
        fprintf(stderr, r.complete ? "parplan: no plan fits the workload in the cluster's memory\n"
                                   : "parplan: no plan that fits was found within the time limit (the search did "
                                     "not finish; a longer --timeout may find one)\n");
        return 1;
    }
    /* the answer, judged apart from the search that made it */
    if (pp_cluster_plan_check(in->cluster, in->workload, r.best, at, &err) != PP_OK) {
        json_decref(summary);
        pp_cluster_plan_result_free(&r);
        return cli_fail("parplan", &err);
    }
    if (in->plan && !f->json && !f->quiet) {
        if (isfinite(r.warm_time))
            fprintf(stderr, "old plan  %.4f s per step under the new conditions\n", r.warm_time);
        else
            fprintf(stderr, "old plan  cannot run under the new conditions (a device is lost or a link down)\n");
        if (isfinite(r.warm_time))
            fprintf(stderr, "gain      %.2fx (%.1f%% less time per step)\n", r.warm_time / r.best_time,
                    100 * (1 - r.best_time / r.warm_time));
    }
    if (in->plan && f->json) {
        json_object_set_new(summary, "old_step_time", isfinite(r.warm_time) ? json_real(r.warm_time) : json_null());
        json_object_set_new(summary, "gain", isfinite(r.warm_time) ? json_real(r.warm_time / r.best_time) : json_null());
    }
    int code = report_plan(f, in, &r, at, summary);
    pp_cluster_plan_result_free(&r);
    return code;
}

/* The moment every event of the events file has happened. */
static double last_event_time(const pp_cluster *c)
{
    double t = 0;
    for (int k = 0; k < c->event_count; k++)
        t = c->events[k].time > t ? c->events[k].time : t;
    return t;
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
    inputs in;
    pp_error err = {0};
    if (read_inputs(&f, &in, &err) != PP_OK) {
        inputs_free(&in);
        return cli_fail("parplan", &err);
    }
    if (c == &cluster_simulate_command) {
        code = run_simulate(&f, &in);
    } else {
        double at = c == &cluster_replan_command ? last_event_time(in.cluster) : f.at;
        json_t *summary = f.json ? json_pack("{s:s, s:f}", "command", f.command, "at", at) : NULL;
        code = search_and_report(&f, &in, at, started, summary);
    }
    inputs_free(&in);
    return code;
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
