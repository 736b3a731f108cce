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
#include "parplan/sched.h"

const char schedule_usage[] =
    "parplan schedule PROBLEM [--timeout S] [--threads N] [--seed K] [--rounds R] [--no-mip] [--coarsen N]\n"
    "                 [--objective makespan|span] [--start SCHEDULE.json] [--out SCHEDULE.json] [--trace TRACE.json] [--svg GANTT.svg] [--json] [--quiet]\n"
    "  Places and orders the ops of PROBLEM (JSON, see README) on its devices to minimise the\n"
    "  makespan. The schedule (JSON) goes to stdout or to --out; a summary to stderr.\n"
    "  --timeout S  seconds for the whole run, reading and writing included (default 10); it\n"
    "               stops early when the makespan reaches the lower bound\n"
    "  --threads N  workers (default: one per core)\n"
    "  --seed K     random seed (default 1); same seed, threads and rounds give the same schedule\n"
    "  --rounds R   stop after R moves per worker (rounded up to whole epochs; no MIP then)\n"
    "  --no-mip     local search only, even on graphs small enough for the exact MIP (<= 40 ops)\n"
    "  --coarsen N  above N ops, also start from the graph coarsened to N ops and scheduled\n"
    "               (paper 002 Algorithm 1; off by default, see BENCHMARKS.md)\n"
    "  --objective  makespan (default) or span: the longest per-device span, each device from\n"
    "               its first op to its last; the makespan's best schedule is then re-timed,\n"
    "               device and channel orders kept, to the least span they allow\n"
    "  --start F    a valid schedule of PROBLEM (a --reference, an earlier run) to start the\n"
    "               search from instead of a constructed start\n"
    "  --trace F    also write a Chrome trace (chrome://tracing, Perfetto)\n"
    "  --svg F      also write an SVG Gantt chart\n"
    "  --json       print the summary as JSON on stdout (the schedule then only goes to --out)";

const char check_schedule_usage[] =
    "parplan check-schedule PROBLEM SCHEDULE [--json]\n"
    "  Checks SCHEDULE against PROBLEM: every op once on an allowed device for its duration,\n"
    "  precedence with transfers on existing channels, no overlap on a device or channel, memory\n"
    "  within capacity at all times, and a stated \"makespan\" equal to the latest end. Times\n"
    "  compare within 1e-9 x max(1, the problem's summed durations and comm times).\n"
    "  Prints the makespan, bubbles and peak memory per device.\n"
    "  Exit 0 if valid, 1 if not, 2 if a file is malformed.";

const char gen_usage[] =
    "parplan gen pipeline --pp P --microbatches M --scheme dualpipe|1f1b|zb1p|zb --mem-act K\n"
    "                     [--param-mem X] [--tf T] [--tb T] [--tw T] [--comm C] [--w-mem FRACTION]\n"
    "                     [--in-order] [--out PROBLEM.json] [--reference SCHEDULE.json]\n"
    "parplan gen random --ops N --max-degree D --devices K [--seed S] [--out PROBLEM.json]\n"
    "  Writes the problems of paper 002 section V: a pipeline of P stages on P devices with\n"
    "  forward, backward-for-input and backward-for-weights ops (times --tf, --tb, --tw, default\n"
    "  1; --comm between stages, default 0) and an activation budget of K micro-batches per\n"
    "  device on top of X (default 1) for the parameters. A forward holds one micro-batch of\n"
    "  activations; B frees all but --w-mem of it (default 0), W the rest. --in-order: each\n"
    "  stage runs its F, B and W each in micro-batch order. --reference: the\n"
    "  scheme's own schedule, refused when it does not fit K (zb: our zero-bubble greedy, W ops\n"
    "  filling the bubbles within K; give it to `schedule --start`);\n"
    "  or a random graph with in- and out-degrees at most D.";

static int usage_error(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    return 2;
}

typedef pp_status (*schedule_writer)(const pp_sched_problem *, const pp_sched_schedule *, FILE *, pp_error *);

static pp_status write_file(schedule_writer write, const pp_sched_problem *p, const pp_sched_schedule *s,
                            const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    pp_status st = write(p, s, f, err);
    pp_status closed = cli_close_out(f, path, err);
    return st != PP_OK ? st : closed;
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
        fprintf(f, "%-16s %10g %10g %12g %12s\n", p->device_name[d], r->busy[d], r->bubble[d],
                r->peak_memory[d], cap);
    }
}

static json_t *report_json(const pp_sched_problem *p, const pp_sched_report *r)
{
    json_t *devices = json_array();
    for (int d = 0; d < p->device_count; d++)
        json_array_append_new(devices, json_pack("{s:s, s:f, s:f, s:f, s:f}", "name", p->device_name[d], "span",
                                                 r->span[d], "busy", r->busy[d], "bubble", r->bubble[d],
                                                 "peak_memory", r->peak_memory[d]));
    return json_pack("{s:f, s:f, s:f, s:o}", "makespan", r->makespan, "max_span", r->max_span, "max_bubble",
                     r->max_bubble, "devices", devices);
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
    int64_t threads, seed, rounds, coarsen;
    bool json, quiet, no_mip, span;
} schedule_flags;

static bool parse_schedule_flags(int argc, char **argv, schedule_flags *f)
{
    *f = (schedule_flags){.timeout = 10, .seed = 1};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (strcmp(a, "--timeout") == 0 && v) {
            if (!cli_parse_double(argv[++i], &f->timeout) || f->timeout <= 0)
                return false;
        } else if (strcmp(a, "--threads") == 0 && v) {
            if (!cli_parse_int64(argv[++i], &f->threads) || f->threads < 1 || f->threads > 1024)
                return false;
        } else if (strcmp(a, "--seed") == 0 && v) {
            if (!cli_parse_int64(argv[++i], &f->seed))
                return false;
        } else if (strcmp(a, "--rounds") == 0 && v) {
            if (!cli_parse_int64(argv[++i], &f->rounds) || f->rounds < 1)
                return false;
        } else if (strcmp(a, "--coarsen") == 0 && v) {
            if (!cli_parse_int64(argv[++i], &f->coarsen) || f->coarsen < 1 || f->coarsen > INT32_MAX)
                return false;
        } else if (strcmp(a, "--no-mip") == 0) {
            f->no_mip = true;
        } else if (strcmp(a, "--out") == 0 && v) {
            f->out = argv[++i];
        } else if (strcmp(a, "--objective") == 0 && v) {
            const char *name = argv[++i];
            if (strcmp(name, "span") != 0 && strcmp(name, "makespan") != 0)
                return false;
            f->span = strcmp(name, "span") == 0;
        } else if (strcmp(a, "--start") == 0 && v) {
            f->start = argv[++i];
        } else if (strcmp(a, "--trace") == 0 && v) {
            f->trace = argv[++i];
        } else if (strcmp(a, "--svg") == 0 && v) {
            f->svg = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            f->json = true;
        } else if (strcmp(a, "--quiet") == 0) {
            f->quiet = true;
        } else if (a[0] == '-' || f->file) {
            return false;
        } else {
            f->file = a;
        }
    }
    return f->file != NULL;
}

static void print_summary(const schedule_flags *f, const pp_sched_problem *p, const pp_sched_result *r,
                          const pp_sched_report *rep)
{
    double gap = r->makespan > 0 ? 100 * (r->makespan - r->lower_bound) / r->makespan : 0;
    if (f->json) {
        json_t *summary = report_json(p, rep);
        json_object_set_new(summary, "problem", json_string(f->file));
        json_object_set_new(summary, "lower_bound", json_real(r->lower_bound));
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
    if (!isnan(r->mip_bound))
        fprintf(stderr, "MIP bound       %g\n", r->mip_bound);
    fprintf(stderr, "largest bubble  %g\n", rep->max_bubble);
    fprintf(stderr, "longest span    %g (bound %g; each device from its first op to its last)\n", rep->max_span,
            pp_sched_span_lower_bound(p));
    fprintf(stderr, "checker         valid\n");
    fprintf(stderr, "first schedule  %.2f s\nbest found      %.2f s\ntotal           %.2f s (%ld moves)\n",
            r->time_to_first, r->time_to_best, r->elapsed, r->rounds);
    print_report(stderr, p, rep);
}

static int solve_and_write(const schedule_flags *f, pp_sched_problem *p, const pp_sched_schedule *start,
                           double started)
{
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.time_limit = cli_solve_budget(f->timeout, started);
    o.threads = (int)f->threads;
    o.seed = (uint64_t)f->seed;
    o.max_rounds = f->rounds;
    o.no_mip = f->no_mip;
    o.coarsen_to = (int)f->coarsen;
    o.start = start;
    o.objective = f->span ? PP_SCHED_SPAN : PP_SCHED_MAKESPAN;
    progress live = {!f->quiet && isatty(2)};
    o.on_progress = show_progress;
    o.progress_ctx = &live;
    pp_sched_result r;
    pp_error err = {0};
    pp_status st = pp_sched_solve(p, &o, &r, &err);
    if (live.live)
        fprintf(stderr, "\r\033[K");
    if (st != PP_OK)
        return cli_fail("parplan", &err);
    pp_sched_report rep;
    pp_error check = {0};
    if (pp_sched_check(p, r.schedule, &rep, &check) != PP_OK) {
        pp_sched_report_free(&rep);
        pp_sched_result_free(&r);
        return cli_fail("parplan", &check);
    }
    if (f->out || !f->json)
        st = write_file(pp_sched_write_schedule, p, r.schedule, f->out, &err);
    if (st == PP_OK && f->trace)
        st = write_file(pp_sched_write_trace, p, r.schedule, f->trace, &err);
    if (st == PP_OK && f->svg)
        st = write_file(pp_sched_write_svg, p, r.schedule, f->svg, &err);
    if (st == PP_OK)
        print_summary(f, p, &r, &rep);
    pp_sched_report_free(&rep);
    pp_sched_result_free(&r);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

int cmd_schedule(int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    schedule_flags f;
    if (!parse_schedule_flags(argc, argv, &f))
        return usage_error(schedule_usage);
    pp_error err = {0};
    pp_sched_problem *p;
    if (pp_sched_load(f.file, &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_sched_schedule *start = NULL;
    if (f.start && pp_sched_load_schedule(f.start, p, &start, &err) != PP_OK) {
        pp_sched_problem_free(p);
        return cli_fail("parplan", &err);
    }
    int code = solve_and_write(&f, p, start, started);
    pp_sched_schedule_free(start);
    pp_sched_problem_free(p);
    return code;
}

int cmd_check_schedule(int argc, char **argv)
{
    bool json = argc == 3 && strcmp(argv[2], "--json") == 0;
    if (argc != 2 && !json)
        return usage_error(check_schedule_usage);
    pp_error err = {0};
    pp_sched_problem *p;
    if (pp_sched_load(argv[0], &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_sched_schedule *s;
    if (pp_sched_load_schedule(argv[1], p, &s, &err) != PP_OK) {
        pp_sched_problem_free(p);
        return cli_fail("parplan", &err);
    }
    pp_sched_report rep;
    pp_status st = pp_sched_check(p, s, &rep, &err);
    if (st == PP_ENOMEM) {
        pp_sched_schedule_free(s);
        pp_sched_problem_free(p);
        return cli_fail("parplan", &err);
    }
    if (json) {
        json_t *summary = report_json(p, &rep);
        json_object_set_new(summary, "valid", json_boolean(st == PP_OK));
        json_object_set_new(summary, "violations", json_integer(rep.violations));
        if (st != PP_OK)
            json_object_set_new(summary, "first_violation", json_string(err.message));
        print_json(summary);
    } else {
        if (st == PP_OK)
            printf("valid\n");
        else
            printf("INVALID: %d violation%s, the first: %s\n", rep.violations, rep.violations == 1 ? "" : "s",
                   err.message);
        printf("makespan %g\nlargest bubble %g\nlongest device span %g\n", rep.makespan, rep.max_bubble,
               rep.max_span);
        print_report(stdout, p, &rep);
    }
    pp_sched_report_free(&rep);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return st == PP_OK ? 0 : 1;
}

static pp_status write_problem(const pp_sched_problem *p, const char *path, pp_error *err)
{
    FILE *f = cli_open_out(path, err);
    if (!f)
        return err->status;
    pp_status st = pp_sched_write_problem(p, f, err);
    pp_status closed = cli_close_out(f, path, err);
    return st != PP_OK ? st : closed;
}

static bool parse_scheme(const char *text, pp_pipe_scheme *out)
{
    static const struct {
        const char *name;
        pp_pipe_scheme scheme;
    } schemes[] = {{"dualpipe", PP_PIPE_DUALPIPE}, {"1f1b", PP_PIPE_1F1B}, {"zb1p", PP_PIPE_ZB1P},
                   {"zb", PP_PIPE_ZB}};
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strcmp(text, schemes[i].name) == 0) {
            *out = schemes[i].scheme;
            return true;
        }
    return false;
}

static int gen_pipeline(int argc, char **argv)
{
    pp_pipe_spec spec = {.scheme = PP_PIPE_DUALPIPE, .param_mem = 1, .t_f = 1, .t_b = 1, .t_w = 1};
    const char *out = NULL, *reference = NULL;
    bool have_scheme = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int64_t n;
        if (strcmp(a, "--in-order") == 0) {
            spec.in_order = true;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error(gen_usage);
        const char *v = argv[++i];
        if (strcmp(a, "--pp") == 0 && cli_parse_int64(v, &n) && n >= 1 && n <= 4096)
            spec.stages = (int)n;
        else if (strcmp(a, "--microbatches") == 0 && cli_parse_int64(v, &n) && n >= 1 && n <= 1000000)
            spec.microbatches = (int)n;
        else if (strcmp(a, "--scheme") == 0 && parse_scheme(v, &spec.scheme))
            have_scheme = true;
        else if (strcmp(a, "--mem-act") == 0 && cli_parse_double(v, &spec.mem_act))
            ;
        else if (strcmp(a, "--param-mem") == 0 && cli_parse_double(v, &spec.param_mem) && spec.param_mem > 0)
            ;
        else if (strcmp(a, "--comm") == 0 && cli_parse_double(v, &spec.comm))
            ;
        else if (strcmp(a, "--tf") == 0 && cli_parse_double(v, &spec.t_f) && spec.t_f > 0)
            ;
        else if (strcmp(a, "--tb") == 0 && cli_parse_double(v, &spec.t_b) && spec.t_b > 0)
            ;
        else if (strcmp(a, "--tw") == 0 && cli_parse_double(v, &spec.t_w) && spec.t_w > 0)
            ;
        else if (strcmp(a, "--w-mem") == 0 && cli_parse_double(v, &spec.w_mem))
            ;
        else if (strcmp(a, "--out") == 0)
            out = v;
        else if (strcmp(a, "--reference") == 0)
            reference = v;
        else
            return usage_error(gen_usage);
    }
    if (!spec.stages || !spec.microbatches || !have_scheme || spec.mem_act <= 0)
        return usage_error(gen_usage);
    pp_sched_problem *p;
    pp_sched_schedule *ref = NULL;
    pp_error err = {0};
    if (pp_sched_gen_pipeline(&spec, &p, reference ? &ref : NULL, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_status st = write_problem(p, out, &err);
    if (st == PP_OK && reference)
        st = write_file(pp_sched_write_schedule, p, ref, reference, &err);
    pp_sched_schedule_free(ref);
    pp_sched_problem_free(p);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

static int gen_random(int argc, char **argv)
{
    pp_random_spec spec = {0, 0, 0, 1};
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int64_t n;
        if (i + 1 >= argc)
            return usage_error(gen_usage);
        const char *v = argv[++i];
        if (strcmp(a, "--out") == 0)
            out = v;
        else if (!cli_parse_int64(v, &n) || n < 0)
            return usage_error(gen_usage);
        else if (strcmp(a, "--ops") == 0 && n <= 10000000)
            spec.ops = (int)n;
        else if (strcmp(a, "--max-degree") == 0 && n <= 1000)
            spec.max_degree = (int)n;
        else if (strcmp(a, "--devices") == 0 && n <= 4096)
            spec.devices = (int)n;
        else if (strcmp(a, "--seed") == 0)
            spec.seed = (uint64_t)n;
        else
            return usage_error(gen_usage);
    }
    if (spec.ops < 1 || spec.max_degree < 1 || spec.devices < 1)
        return usage_error(gen_usage);
    pp_sched_problem *p;
    pp_error err = {0};
    if (pp_sched_gen_random(&spec, &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    pp_status st = write_problem(p, out, &err);
    pp_sched_problem_free(p);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

int cmd_gen(int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "pipeline") == 0)
        return gen_pipeline(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "random") == 0)
        return gen_random(argc - 1, argv + 1);
    return usage_error(gen_usage);
}
