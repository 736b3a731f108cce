/* parplan: the toolkit's command line. Each command parses its flags, calls
 * the library, and decides what goes to stdout (answers) and stderr (people's
 * text). Commands: solve, eval (IOPDDL, here); schedule, check-schedule, gen
 * (operator scheduling, sched_cmd.c); cluster plan|simulate|replan (the
 * cluster planner, cluster_cmd.c); shard --explain (the auto-sharder,
 * shard_cmd.c); help. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "flags.h"
#include "parplan/iopddl_request.h"
#include "parplan/version.h"

typedef struct {
    const char *file;
    const char *out;
    double timeout;
    int64_t threads, seed, rounds;
    bool quiet, no_exact;
} solve_flags;

static const flag_spec solve_flag_table[] = {
    FLAG_TIMEOUT(solve_flags, timeout, "60", "seconds for the whole run, reading included"),
    FLAG_THREADS(solve_flags, threads),
    FLAG_SEED(solve_flags, seed),
    FLAG_ROUNDS(solve_flags, rounds, "stop after R relaxation rounds per worker (default, or 0: run until the timeout)"),
    FLAG_SWITCH_OF("no-exact", solve_flags, no_exact,
                   "heuristics only, even where the exact solver would run (below 2000 nodes)"),
    FLAG_TEXT_OF("out", solve_flags, out, "SOL", "write the answer to SOL instead of stdout"),
    FLAG_SWITCH_OF("quiet", solve_flags, quiet, "no summary and no live progress line on stderr"),
    FLAG_END,
};

static const command_spec solve_command = {
    "solve", "solve an IOPDDL contest problem", "FILE", 1, offsetof(solve_flags, file),
    "Solves an IOPDDL contest problem (JSON or JSON.gz). The answer \"[s0, s1, ...]\" goes to stdout, or "
    "to SOL with --out; a summary (cost, peak usage, certified lower bound and gap, times) goes to stderr.",
    solve_flag_table,
};

typedef struct {
    const char *files[2];
} eval_flags;

static const command_spec eval_command = {
    "eval", "cost, feasibility and peak usage of an IOPDDL answer", "FILE SOLUTION", 2, offsetof(eval_flags, files),
    "Evaluates SOLUTION (\"[s0, s1, ...]\") on FILE with the contest's semantics and prints cost, "
    "feasibility, peak usage and the time of the peak. Exit 0 if feasible, 1 if not.",
    NULL,
};

static void print_summary(const pp_iopddl_outcome *o, double total)
{
    const pp_iopddl_problem *p = o->problem;
    const pp_iopddl_result *r = &o->result;
    const pp_iopddl_evaluation *ev = &o->evaluation;
    double parsed = o->read_seconds;
    char cost[48], peak[48];
    fprintf(stderr, "cost            %s%s\n", cli_format_int128(ev->cost, cost),
            ev->uses_forbidden ? " (uses a forbidden cost)" : "");
    if (p->has_usage_limit)
        fprintf(stderr, "peak usage      %s of limit %lld (%.2f%%) at time %lld\n",
                cli_format_int128(ev->peak_usage, peak), (long long)p->usage_limit,
                p->usage_limit ? 100.0 * (double)ev->peak_usage / (double)p->usage_limit : 0.0,
                (long long)ev->peak_time);
    else
        fprintf(stderr, "peak usage      %s (no limit) at time %lld\n",
                cli_format_int128(ev->peak_usage, peak), (long long)ev->peak_time);
    fprintf(stderr, "feasible        %s\n", ev->feasible ? "yes" : "NO");
    if (r->proven_optimal)
        fprintf(stderr, "optimal         yes (proven: the cost equals a certified lower bound)\n");
    else if (r->lower_bound > -INFINITY)
        fprintf(stderr, "lower bound     %.0f (gap %.3f%%)\n", r->lower_bound,
                pp_iopddl_gap_percent(r->cost, r->lower_bound));
    fprintf(stderr, "parse           %.2f s\n", parsed);
    fprintf(stderr, "first feasible  %.2f s\n", parsed + r->time_first_feasible);
    fprintf(stderr, "best found      %.2f s\n", parsed + r->time_best);
    fprintf(stderr, "total           %.2f s (%lld relaxation rounds, %lld neighbourhood rounds of which %lld gained)\n",
            total, (long long)r->rounds, (long long)r->neighbourhood_rounds, (long long)r->neighbourhood_gains);
}

static int run_solve(int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    solve_flags f = {0};
    int code;
    if (!flags_parse(&solve_command, argc, argv, &f, &code))
        return code;
    pp_iopddl_request request;
    pp_iopddl_request_default(&request);
    request.timeout = f.timeout;
    request.threads = f.threads;
    request.seed = (uint64_t)f.seed;
    request.rounds = f.rounds;
    request.no_exact = f.no_exact;
    cli_progress progress;
    cli_progress_init(&progress, "parplan solve", f.quiet);
    pp_iopddl_job job = {.problem = {.path = f.file}, .started = started, .process_stop = true,
                         .on_progress = cli_progress_show, .progress_ctx = &progress};
    pp_iopddl_outcome o;
    pp_error err = {0};
    pp_status status = pp_iopddl_run(&request, &job, &o, &err);
    cli_progress_end(&progress);
    if (status == PP_OK) {
        code = cli_write_solution("parplan", f.out, o.result.strategies, o.problem->node_count);
        if (!f.quiet)
            print_summary(&o, pp_now() - started);
    } else {
        code = cli_fail("parplan", &err);
    }
    pp_iopddl_outcome_free(&o);
    return code;
}

static int run_eval(int argc, char **argv)
{
    eval_flags f;
    int code;
    if (!flags_parse(&eval_command, argc, argv, &f, &code))
        return code;
    pp_error err = {0};
    pp_iopddl_eval_job job = {.problem = {.path = f.files[0]}, .answer = {.path = f.files[1]}};
    pp_iopddl_eval_outcome o;
    if (pp_iopddl_eval_run(&job, &o, &err) != PP_OK) {
        code = cli_fail("parplan", &err);
    } else {
        const pp_iopddl_evaluation *ev = &o.evaluation;
        char cost[48], peak[48];
        printf("cost %s\n", cli_format_int128(ev->cost, cost));
        printf("feasible %s\n", ev->feasible ? "yes" : "no");
        printf("peak_usage %s\n", cli_format_int128(ev->peak_usage, peak));
        printf("peak_time %lld\n", (long long)ev->peak_time);
        if (o.problem->has_usage_limit)
            printf("usage_limit %lld\n", (long long)o.problem->usage_limit);
        else
            printf("usage_limit none\n");
        printf("uses_forbidden %s\n", ev->uses_forbidden ? "yes" : "no");
        code = ev->feasible ? 0 : 1;
    }
    pp_iopddl_eval_outcome_free(&o);
    return code;
}

typedef struct {
    const command_spec *spec;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {&solve_command, run_solve},
    {&eval_command, run_eval},
    {&schedule_command, cmd_schedule},
    {&check_schedule_command, cmd_check_schedule},
    {&gen_pipeline_command, cmd_gen_pipeline},
    {&gen_random_command, cmd_gen_random},
    {&gen_model_command, cmd_gen_model},
    {&cluster_plan_command, cmd_cluster_plan},
    {&cluster_simulate_command, cmd_cluster_simulate},
    {&cluster_replan_command, cmd_cluster_replan},
    {&shard_command, cmd_shard},
    {&plan_command, cmd_plan},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_overview(FILE *f)
{
    fprintf(f, "usage: parplan COMMAND [ARGS]    (parplan help COMMAND, or COMMAND --help, for its flags)\n"
               "       parplan --version\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        char call[96];
        snprintf(call, sizeof call, "%s %s", commands[i].spec->name, commands[i].spec->operands);
        fprintf(f, "  %-40s %s\n", call, commands[i].spec->summary);
    }
}

/* How many words of argv name command i ("cluster plan" takes two); 0 if
 * they do not. */
static int words_matching(const command *c, int argc, char **argv)
{
    const char *name = c->spec->name, *space = strchr(name, ' ');
    if (!space)
        return argc >= 1 && strcmp(argv[0], name) == 0;
    size_t first = (size_t)(space - name);
    bool group = argc >= 1 && strlen(argv[0]) == first && strncmp(argv[0], name, first) == 0;
    return group && argc >= 2 && strcmp(argv[1], space + 1) == 0 ? 2 : 0;
}

/* "cluster" alone, or with a wrong second word: names the choices. */
static int unknown_command(int argc, char **argv)
{
    char group[256] = "";
    size_t n = 0;
    for (size_t i = 0; argc >= 1 && i < COMMAND_COUNT; i++) {
        const char *name = commands[i].spec->name, *space = strchr(name, ' ');
        if (space && strlen(argv[0]) == (size_t)(space - name) && strncmp(argv[0], name, strlen(argv[0])) == 0 &&
            n < sizeof group)
            n += (size_t)snprintf(group + n, sizeof group - n, "%s%s", n ? ", " : "", space + 1);
    }
    if (n && argc >= 2)
        fprintf(stderr, "parplan %s: unknown subcommand '%s' (one of: %s)\n", argv[0], argv[1], group);
    else if (n)
        fprintf(stderr, "parplan %s: a subcommand is needed (one of: %s)\n", argv[0], group);
    else
        fprintf(stderr, "parplan: unknown command '%s' (parplan help lists the commands)\n", argc ? argv[0] : "");
    return 2;
}

static int run_help(int argc, char **argv)
{
    if (argc == 0) {
        print_overview(stdout);
        return 0;
    }
    bool found = false;
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        const char *name = commands[i].spec->name, *space = strchr(name, ' ');
        bool group = argc == 1 && space && strlen(argv[0]) == (size_t)(space - name) &&
                     strncmp(argv[0], name, strlen(argv[0])) == 0;
        if (group || words_matching(&commands[i], argc, argv) == argc) {
            if (found)
                printf("\n");
            flags_print_help(commands[i].spec, stdout);
            found = true;
        }
    }
    return found ? 0 : unknown_command(argc, argv);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return 2;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return run_help(argc - 2, argv + 2);
    if (strcmp(argv[1], "--version") == 0) {
        printf("parplan %s\n", pp_version());
        return 0;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        int words = words_matching(&commands[i], argc - 1, argv + 1);
        if (words)
            return commands[i].run(argc - 1 - words, argv + 1 + words);
    }
    return unknown_command(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    return cli_exit("parplan", dispatch(argc, argv));
}
