/* sched_cmd.c: the operator-scheduling commands of the parplan CLI:
 * schedule, check-schedule and gen. Flags in, library calls, answers to
 * stdout or files, people's text to stderr. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "cli.h"
#include "commands.h"
#include "flags.h"
#include "parplan/sched.h"
#include "parplan/sched_request.h"

typedef pp_status (*schedule_writer)(const pp_sched_problem *, const pp_sched_schedule *, FILE *, pp_error *);

static pp_status write_file(schedule_writer write, const pp_sched_problem *p, const pp_sched_schedule *s,
                            const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    pp_status st = write(p, s, f, err);
    return cli_close_out(f, path, st, err);
}

/* A bubble as printed: within the checker's tolerance it is 0 (summing
 * doubles leaves -5.7e-14 where a device never idles). */
static double bubble_shown(const pp_sched_problem *p, double bubble)
{
    return fabs(bubble) <= pp_sched_time_tolerance(p) ? 0 : bubble;
}

static void print_report(FILE *f, const pp_sched_problem *p, const pp_sched_report *r)
{
    fprintf(f, "%-16s %10s %10s %12s %12s\n", "device", "busy", "bubble", "peak memory", "capacity");
    for (int d = 0; d < p->device_count; d++) {
        char cap[32];
        if (isfinite(p->capacity[d]))
            snprintf(cap, sizeof cap, "%g", p->capacity[d]);
        else
            snprintf(cap, sizeof cap, "unlimited");
        fprintf(f, "%-16s %10g %10g %12g %12s\n", p->device_name[d], r->busy[d], bubble_shown(p, r->bubble[d]),
                r->peak_memory[d], cap);
    }
}

static json_t *report_json(const pp_sched_problem *p, const pp_sched_report *r)
{
    json_t *devices = json_array();
    for (int d = 0; d < p->device_count; d++)
        json_array_append_new(devices, json_pack("{s:s, s:f, s:f, s:f, s:f}", "name", p->device_name[d], "span",
                                                 r->span[d], "busy", r->busy[d], "bubble",
                                                 bubble_shown(p, r->bubble[d]), "peak_memory", r->peak_memory[d]));
    return json_pack("{s:f, s:f, s:f, s:o}", "makespan", r->makespan, "max_span", r->max_span, "max_bubble",
                     bubble_shown(p, r->max_bubble), "devices", devices);
}

static void print_json(json_t *summary)
{
    json_dumpf(summary, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
    printf("\n");
    json_decref(summary);
}

/* The live progress line, on a terminal only. */
typedef struct {
    bool live;
} progress;

static void show_progress(void *ctx, double makespan, double lower_bound, double elapsed)
{
    if (((progress *)ctx)->live)
        fprintf(stderr, "\rparplan schedule: %.1f s  makespan %g  lower bound %g   ", elapsed, makespan,
                lower_bound);
}

typedef struct {
    const char *file, *out, *trace, *svg, *start;
    double timeout;
    const char *objective;
    int64_t threads, seed, rounds, coarsen;
    bool json, quiet, no_mip;
} schedule_flags;

static const flag_spec schedule_flag_table[] = {
    FLAG_TIMEOUT(schedule_flags, timeout, "10",
                 "seconds for the whole run, reading and writing included; it stops early when the makespan "
                 "reaches the lower bound"),
    FLAG_THREADS(schedule_flags, threads),
    FLAG_SEED(schedule_flags, seed),
    FLAG_ROUNDS(schedule_flags, rounds,
                "stop after R moves per worker (rounded up to whole epochs; no MIP then; 0: until the timeout)"),
    FLAG_SWITCH_OF("no-mip", schedule_flags, no_mip,
                   "local search only, even on graphs small enough for the exact MIP (<= 40 ops)"),
    FLAG_OPTION("coarsen", FLAG_INTEGER, schedule_flags, coarsen, "N", pp_sched_option_coarsen, NULL,
                "above N ops, also start from the graph coarsened to N ops and scheduled (paper 002 Algorithm 1; "
                "off by default or with 0, see BENCHMARKS.md)"),
    {"objective", FLAG_CHOICE, offsetof(schedule_flags, objective), "OBJ", 0, 0, false,
     PP_SCHED_OBJECTIVES, "makespan", false,
     "makespan, or span: the longest per-device span, each device from its first op to its last; the "
     "makespan's best schedule is then re-timed, device and channel orders kept, to the least span they allow; "
     "or cyclic: the period of the iteration repeated, each device's optimizer step between its iterations "
     "(cyclic-async: without it), written as the schedule's \"period\" (README, Cyclic schedules)", NULL},
    FLAG_TEXT_OF("start", schedule_flags, start, "SCHEDULE",
                 "a valid schedule of PROBLEM (a --reference, an earlier run) to start the search from instead "
                 "of a constructed start"),
    FLAG_TEXT_OF("out", schedule_flags, out, "SCHEDULE", "write the schedule (JSON) there instead of stdout"),
    FLAG_TEXT_OF("trace", schedule_flags, trace, "TRACE", "also write a Chrome trace (chrome://tracing, Perfetto)"),
    FLAG_TEXT_OF("svg", schedule_flags, svg, "SVG", "also write an SVG Gantt chart"),
    FLAG_SWITCH_OF("json", schedule_flags, json,
                   "print the summary as JSON on stdout (the schedule then only goes to --out)"),
    FLAG_SWITCH_OF("quiet", schedule_flags, quiet, "no summary and no live progress line on stderr"),
    FLAG_END,
};

const command_spec schedule_command = {
    "schedule", "place and order a graph's ops on devices", "PROBLEM", 1, offsetof(schedule_flags, file),
    "Places and orders the ops of PROBLEM (JSON, see README) on its devices to minimise the makespan. The "
    "schedule (JSON) goes to stdout or to --out; a summary to stderr.",
    schedule_flag_table,
};

/* 1 - the busiest device's work / period, as pp_sched_cyclic_report's bubble. */
static double period_bubble(const pp_sched_report *rep, int devices, double period)
{
    double busiest = 0;
    for (int d = 0; d < devices; d++)
        busiest = fmax(busiest, rep->busy[d]);
    return 1 - busiest / period;
}

static void print_summary(const schedule_flags *f, const pp_sched_problem *p, const pp_sched_result *r,
                          const pp_sched_report *rep)
{
    double gap = r->makespan > 0 ? 100 * (r->makespan - r->lower_bound) / r->makespan : 0;
    bool cyclic = isfinite(r->period);
    if (f->json) {
        json_t *summary = report_json(p, rep);
        if (cyclic) {
            json_object_set_new(summary, "period", json_real(r->period));
            json_object_set_new(summary, "period_bubble", json_real(period_bubble(rep, p->device_count, r->period)));
            json_object_set_new(summary, "period_lower_bound", json_real(r->period_bound));
        }
        json_object_set_new(summary, "problem", json_string(f->file));
        json_object_set_new(summary, "lower_bound", json_real(r->lower_bound));
        json_object_set_new(summary, "lower_bound_kind", json_string(r->lower_bound_kind));
        json_object_set_new(summary, "lower_bound_cut", json_boolean(r->lower_bound_cut));
        json_object_set_new(summary, "span_lower_bound", json_real(pp_sched_span_lower_bound(p)));
        json_object_set_new(summary, "gap_percent", json_real(gap));
        json_object_set_new(summary, "proven_optimal", json_boolean(r->proven_optimal));
        if (!isnan(r->mip_bound))
            json_object_set_new(summary, "mip_bound", json_real(r->mip_bound));
        json_object_set_new(summary, "time_to_first", json_real(r->time_to_first));
        json_object_set_new(summary, "time_to_best", json_real(r->time_to_best));
        json_object_set_new(summary, "elapsed", json_real(r->elapsed));
        json_object_set_new(summary, "moves", json_integer(r->rounds));
        print_json(summary);
        return;
    }
    if (f->quiet)
        return;
    fprintf(stderr, "makespan        %g\n", r->makespan);
    fprintf(stderr, "lower bound     %g (gap %.3f%%)%s\n", r->lower_bound, gap,
            r->proven_optimal ? ", so the makespan is optimal" : "");
    fprintf(stderr, "bound from      %s%s\n", r->lower_bound_kind,
            r->lower_bound_cut ? " (the time limit cut the bound short)" : "");
    if (!isnan(r->mip_bound))
        fprintf(stderr, "MIP bound       %g\n", r->mip_bound);
    fprintf(stderr, "largest bubble  %g\n", bubble_shown(p, rep->max_bubble));
    fprintf(stderr, "longest span    %g (bound %g; each device from its first op to its last)\n", rep->max_span,
            pp_sched_span_lower_bound(p));
    if (cyclic)
        fprintf(stderr, "period          %g, bubble %.3f%% (bound %g, bubble %.3f%%; the iteration repeated)\n",
                r->period, 100 * period_bubble(rep, p->device_count, r->period), r->period_bound,
                100 * period_bubble(rep, p->device_count, r->period_bound));
    fprintf(stderr, "checker         valid\n");
    fprintf(stderr, "first schedule  %.2f s\nbest found      %.2f s\ntotal           %.2f s (%ld moves)\n",
            r->time_to_first, r->time_to_best, r->elapsed, r->rounds);
    print_report(stderr, p, rep);
}

int cmd_schedule(int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    schedule_flags f = {0};
    int code;
    if (!flags_parse(&schedule_command, argc, argv, &f, &code))
        return code;
    pp_sched_request request;
    pp_sched_request_default(&request);
    request.timeout = f.timeout;
    request.threads = f.threads;
    request.seed = (uint64_t)f.seed;
    request.rounds = f.rounds;
    request.coarsen = f.coarsen;
    request.no_mip = f.no_mip;
    request.objective = f.objective;
    progress live = {!f.quiet && isatty(2)};
    pp_sched_job job = {.problem = {.path = f.file}, .start = {.path = f.start}, .on_progress = show_progress,
                        .progress_ctx = &live};
    pp_sched_outcome out;
    pp_error err = {0};
    job.started = started;
    job.process_stop = true;
    pp_status st = pp_sched_run(&request, &job, &out, &err);
    if (live.live)
        fprintf(stderr, "\r\033[K");
    const pp_sched_problem *p = out.problem;
    if (st == PP_OK && (f.out || !f.json))
        st = write_file(pp_sched_write_schedule, p, out.result.schedule, f.out, &err);
    if (st == PP_OK && f.trace)
        st = write_file(pp_sched_write_trace, p, out.result.schedule, f.trace, &err);
    if (st == PP_OK && f.svg)
        st = write_file(pp_sched_write_svg, p, out.result.schedule, f.svg, &err);
    if (st == PP_OK)
        print_summary(&f, p, &out.result, &out.check);
    pp_sched_outcome_free(&out);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

typedef struct {
    const char *files[2];
    double period;
    bool json, async;
} check_flags;

static const flag_spec check_flag_table[] = {
    FLAG_SWITCH_OF("json", check_flags, json, "the report as JSON on stdout"),
    FLAG_OPTION("period", FLAG_NUMBER, check_flags, period, "T", pp_sched_option_period, NULL,
                "also check SCHEDULE repeated every T (default: the schedule's \"period\", when it states one): "
                "no overlap modulo T on devices and channels, memory of the iterations alive at once, each device's span "
                "within T (its optimizer step)"),
    FLAG_SWITCH_OF("async", check_flags, async, "with a period: without the optimizer step between a device's "
                   "iterations"),
    FLAG_END,
};

const command_spec check_schedule_command = {
    "check-schedule", "check a schedule independently of the search", "PROBLEM SCHEDULE", 2,
    offsetof(check_flags, files),
    "Checks SCHEDULE against PROBLEM: every op once on an allowed device for its duration, precedence with "
    "transfers on existing channels, no overlap on a device or channel, memory within capacity at all times, "
    "and a stated \"makespan\" equal to the latest end; with a period, the iteration repeated (README, Cyclic "
    "schedules). Times compare within 1e-9 x max(1, the problem's "
    "summed durations and comm times). Prints the makespan, bubbles and peak memory per device. Exit 0 if "
    "valid, 1 if not, 2 if a file is malformed.",
    check_flag_table,
};

int cmd_check_schedule(int argc, char **argv)
{
    check_flags f = {0};
    int code;
    if (!flags_parse(&check_schedule_command, argc, argv, &f, &code))
        return code;
    pp_sched_check_job job = {.problem = {.path = f.files[0]}, .schedule = {.path = f.files[1]}, .period = f.period,
                              .async = f.async};
    pp_sched_verdict v;
    pp_error err = {0};
    if (pp_sched_check_run(&job, &v, &err) != PP_OK) {
        pp_sched_verdict_free(&v);
        return cli_fail("parplan", &err);
    }
    const pp_sched_problem *p = v.problem;
    const pp_sched_report *rep = &v.report;
    if (f.json) {
        json_t *summary = report_json(p, rep);
        json_object_set_new(summary, "valid", json_boolean(v.valid));
        json_object_set_new(summary, "violations", json_integer(v.violations));
        if (!v.valid)
            json_object_set_new(summary, "first_violation", json_string(v.why.message));
        if (v.cyclic) {
            json_object_set_new(summary, "period", json_real(v.period));
            json_object_set_new(summary, "period_bubble", json_real(v.cyclic_report.bubble));
        }
        print_json(summary);
    } else {
        if (v.valid)
            printf("valid%s\n", v.cyclic ? (f.async ? " repeated (asynchronous)" : " repeated") : "");
        else
            printf("INVALID: %d violation%s, the first: %s\n", v.violations, v.violations == 1 ? "" : "s",
                   v.why.message);
        printf("makespan %g\nlargest bubble %g\nlongest device span %g\n", rep->makespan,
               bubble_shown(p, rep->max_bubble), rep->max_span);
        if (v.cyclic)
            printf("period %g\nperiod bubble %.4f%%\n", v.period, 100 * v.cyclic_report.bubble);
        print_report(stdout, p, rep);
    }
    code = v.valid ? 0 : 1;
    pp_sched_verdict_free(&v);
    return code;
}

static pp_status write_problem(const pp_sched_problem *p, const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    pp_status st = pp_sched_write_problem(p, f, err);
    return cli_close_out(f, path, st, err);
}

typedef struct {
    const char *out, *reference, *scheme, *time_unit;
    int64_t stages, microbatches, chunks;
    double mem_act, param_mem, t_f, t_b, t_w, comm, w_mem;
    bool in_order;
} pipeline_flags;

#define TIME_FLAG(name, field, help)                                                                              \
    {name, FLAG_NUMBER, offsetof(pipeline_flags, field), "T", 0, 1e300, true, NULL, "1", false, help, NULL}

static const flag_spec pipeline_flag_table[] = {
    {"pp", FLAG_INTEGER, offsetof(pipeline_flags, stages), "P", 1, 4096, false, NULL, NULL, true,
     "pipeline stages, one device each (interleaved: the devices, V stages each)", NULL},
    {"microbatches", FLAG_INTEGER, offsetof(pipeline_flags, microbatches), "M", 1, 1000000, false, NULL, NULL, true,
     "micro-batches per iteration", NULL},
    {"scheme", FLAG_CHOICE, offsetof(pipeline_flags, scheme), "S", 0, 0, false,
     "dualpipe|1f1b|zb1p|zb2p|interleaved|zbv|zb", NULL, true, "the pipeline's schedule family (zb1p, zb2p: ZB-H1, ZB-H2; interleaved: 1F1B with V stages per "
     "device; zbv: ZB-V, 2P stages, device d holding d and 2P-1-d; zb: our zero-bubble greedy)", NULL},
    {"chunks", FLAG_INTEGER, offsetof(pipeline_flags, chunks), "V", 2, 64, false, NULL, NULL, false,
     "interleaved only: stages per device (default 2), so P x V stages, each with these times and activations", NULL},
    {"mem-act", FLAG_NUMBER, offsetof(pipeline_flags, mem_act), "K", 0, 1e300, true, NULL, NULL, true,
     "activation budget per device, in micro-batches of activations", NULL},
    {"param-mem", FLAG_NUMBER, offsetof(pipeline_flags, param_mem), "X", 0, 1e300, true, NULL, "1", false,
     "memory per device for the parameters, on top of K", NULL},
    TIME_FLAG("tf", t_f, "time of a forward op"),
    TIME_FLAG("tb", t_b, "time of a backward-for-input op"),
    TIME_FLAG("tw", t_w, "time of a backward-for-weights op"),
    {"comm", FLAG_NUMBER, offsetof(pipeline_flags, comm), "C", 0, 1e300, false, NULL, "0", false,
     "time of a transfer between stages", NULL},
    {"w-mem", FLAG_NUMBER, offsetof(pipeline_flags, w_mem), "FRACTION", 0, 1, false, NULL, "0", false,
     "the share of a micro-batch's activations that B keeps for W", NULL},
    FLAG_SWITCH_OF("in-order", pipeline_flags, in_order, "each stage runs its F, B and W each in micro-batch order"),
    FLAG_TEXT_OF("time-unit", pipeline_flags, time_unit, "UNIT",
                 "what one unit of --tf, --tb, --tw and --comm is (us, ms, ...): kept in the problem, it labels "
                 "the pictures' time axes"),
    FLAG_TEXT_OF("out", pipeline_flags, out, "PROBLEM", "write the problem there instead of stdout"),
    FLAG_TEXT_OF("reference", pipeline_flags, reference, "SCHEDULE",
                 "also write the scheme's own schedule, refused when it does not fit K (zb: W ops filling the "
                 "bubbles within K); give it to `schedule --start`"),
    FLAG_END,
};

const command_spec gen_pipeline_command = {
    "gen pipeline", "write a pipeline-parallel scheduling problem", "", 0, 0,
    "Writes the pipeline problems of paper 002 section V: P stages on P devices with forward, "
    "backward-for-input and backward-for-weights ops and an activation budget of K micro-batches per device "
    "on top of X for the parameters. A forward holds one micro-batch of activations; B frees all but --w-mem "
    "of it, W the rest.",
    pipeline_flag_table,
};

int cmd_gen_pipeline(int argc, char **argv)
{
    pipeline_flags f = {0};
    int code;
    if (!flags_parse(&gen_pipeline_command, argc, argv, &f, &code))
        return code;
    pp_pipe_spec spec = {.stages = (int)f.stages, .microbatches = (int)f.microbatches, .mem_act = f.mem_act,
                         .param_mem = f.param_mem, .t_f = f.t_f, .t_b = f.t_b, .t_w = f.t_w, .comm = f.comm,
                         .w_mem = f.w_mem, .in_order = f.in_order, .chunks = (int)f.chunks};
    pp_sched_problem *p;
    pp_sched_schedule *ref = NULL;
    pp_error err = {0};
    if (pp_pipe_scheme_parse(f.scheme, &spec.scheme, &err) != PP_OK ||
        pp_sched_gen_pipeline(&spec, &p, f.reference ? &ref : NULL, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_status st = PP_OK;
    if (f.time_unit && !pp_sched_set_time_unit(p, f.time_unit))
        st = pp_error_set(&err, PP_ENOMEM, "gen pipeline: out of memory");
    if (st == PP_OK)
        st = write_problem(p, f.out, &err);
    if (st == PP_OK && f.reference)
        st = write_file(pp_sched_write_schedule, p, ref, f.reference, &err);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

typedef struct {
    const char *out;
    int64_t ops, max_degree, devices, seed;
} random_flags;

static const flag_spec random_flag_table[] = {
    {"ops", FLAG_INTEGER, offsetof(random_flags, ops), "N", 1, 10000000, false, NULL, NULL, true, "ops in the graph", NULL},
    {"max-degree", FLAG_INTEGER, offsetof(random_flags, max_degree), "D", 1, 1000, false, NULL, NULL, true,
     "largest in- and out-degree", NULL},
    {"devices", FLAG_INTEGER, offsetof(random_flags, devices), "K", 1, 4096, false, NULL, NULL, true, "devices", NULL},
    {"seed", FLAG_INTEGER, offsetof(random_flags, seed), "S", 0, (double)INT64_MAX, false, NULL, "1", false,
     "random seed of the graph", NULL},
    FLAG_TEXT_OF("out", random_flags, out, "PROBLEM", "write the problem there instead of stdout"),
    FLAG_END,
};

const command_spec gen_random_command = {
    "gen random", "write a random scheduling problem", "", 0, 0,
    "Writes a random graph of paper 002 section V with in- and out-degrees at most D on K devices.",
    random_flag_table,
};

int cmd_gen_random(int argc, char **argv)
{
    random_flags f = {0};
    int code;
    if (!flags_parse(&gen_random_command, argc, argv, &f, &code))
        return code;
    pp_random_spec spec = {(int)f.ops, (int)f.max_degree, (int)f.devices, (uint64_t)f.seed};
    pp_sched_problem *p;
    pp_error err = {0};
    if (pp_sched_gen_random(&spec, &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_status st = write_problem(p, f.out, &err);
    pp_sched_problem_free(p);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}
