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

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static int usage_error(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    return 2;
}

static const char solve_usage[] =
    "parplan solve FILE [--timeout S] [--threads N] [--seed K] [--rounds R] [--no-exact] [--out SOL] [--quiet]\n"
    "  Solves an IOPDDL contest problem (JSON or JSON.gz). The answer \"[s0, s1, ...]\" goes to\n"
    "  stdout, or to SOL with --out; a summary goes to stderr.\n"
    "  --timeout S  seconds for the whole run, reading included (default 60)\n"
    "  --threads N  workers (default: one per core)\n"
    "  --seed K     random seed (default 1); same seed, threads and rounds give the same answer\n"
    "  --rounds R   stop after R relaxation rounds per worker (default: run until the timeout)\n"
    "  --no-exact   heuristics only, even where the exact solver would run (below 2000 nodes)";

static const char eval_usage[] =
    "parplan eval FILE SOLUTION\n"
    "  Evaluates SOLUTION (\"[s0, s1, ...]\") on FILE with the contest's semantics and prints\n"
    "  cost, feasibility, peak usage and the time of the peak. Exit 0 if feasible, 1 if not.";

static void print_summary(const pp_iopddl_problem *p, const pp_iopddl_result *r, double parsed,
                          double total)
{
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    if (pp_iopddl_evaluate(p, r->strategies, &ev, &err) != PP_OK)
        return;
    char cost[48], peak[48];
    fprintf(stderr, "cost            %s%s\n", cli_format_int128(ev.cost, cost),
            ev.uses_forbidden ? " (uses a forbidden cost)" : "");
    if (p->has_usage_limit)
        fprintf(stderr, "peak usage      %s of limit %lld (%.2f%%) at time %lld\n",
                cli_format_int128(ev.peak_usage, peak), (long long)p->usage_limit,
                p->usage_limit ? 100.0 * (double)ev.peak_usage / (double)p->usage_limit : 0.0,
                (long long)ev.peak_time);
    else
        fprintf(stderr, "peak usage      %s (no limit) at time %lld\n",
                cli_format_int128(ev.peak_usage, peak), (long long)ev.peak_time);
    fprintf(stderr, "feasible        %s\n", ev.feasible ? "yes" : "NO");
    if (r->proven_optimal)
        fprintf(stderr, "optimal         yes (proven: the cost equals a certified lower bound)\n");
    else if (r->lower_bound > -INFINITY)
        fprintf(stderr, "lower bound     %.0f (gap %.3f%%)\n", r->lower_bound,
                100.0 * ((double)r->cost - r->lower_bound) / (double)r->cost);
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
    const char *file = NULL, *out = NULL;
    double timeout = 60;
    int64_t threads = 0, seed = 1, rounds = 0;
    bool quiet = false, no_exact = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--timeout") == 0 && has_value) {
            if (!cli_parse_double(argv[++i], &timeout) || timeout <= 0) {
                fprintf(stderr, "parplan solve: --timeout: '%s' is not a positive, finite number of seconds\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            if (!cli_parse_int64(argv[++i], &threads) || threads < 1 || threads > 1024)
                return usage_error(solve_usage);
        } else if (strcmp(a, "--seed") == 0 && has_value) {
            if (!cli_parse_int64(argv[++i], &seed))
                return usage_error(solve_usage);
        } else if (strcmp(a, "--rounds") == 0 && has_value) {
            if (!cli_parse_int64(argv[++i], &rounds) || rounds < 1)
                return usage_error(solve_usage);
        } else if (strcmp(a, "--out") == 0 && has_value) {
            out = argv[++i];
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--no-exact") == 0) {
            no_exact = true;
        } else if (a[0] == '-' || file) {
            return usage_error(solve_usage);
        } else {
            file = a;
        }
    }
    if (!file)
        return usage_error(solve_usage);
    pp_error err = {0};
    pp_iopddl_problem *p;
    if (pp_iopddl_load(file, &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    double parsed = pp_now() - started;
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = cli_solve_budget(timeout, started);
    o.threads = (int)threads;
    o.seed = (uint64_t)seed;
    o.max_rounds = rounds;
    o.no_exact = no_exact;
    cli_progress progress;
    cli_progress_init(&progress, "parplan solve", quiet);
    o.on_progress = cli_progress_show;
    o.progress_ctx = &progress;
    pp_iopddl_result r;
    pp_status status = pp_iopddl_solve(p, &o, &r, &err);
    cli_progress_end(&progress);
    int code;
    if (status == PP_OK) {
        code = cli_write_solution("parplan", out, r.strategies, p->node_count);
        if (!quiet)
            print_summary(p, &r, parsed, pp_now() - started);
    } else {
        code = cli_fail("parplan", &err);
    }
    pp_iopddl_result_free(&r);
    pp_iopddl_free(p);
    return code;
}

static int run_eval(int argc, char **argv)
{
    if (argc != 2)
        return usage_error(eval_usage);
    pp_error err = {0};
    pp_iopddl_problem *p;
    if (pp_iopddl_load(argv[0], &p, &err) != PP_OK)
        return cli_fail("parplan", &err);
    uint32_t *s;
    if (pp_iopddl_load_solution(argv[1], p, &s, &err) != PP_OK) {
        pp_iopddl_free(p);
        return cli_fail("parplan", &err);
    }
    pp_iopddl_evaluation ev;
    int code;
    if (pp_iopddl_evaluate(p, s, &ev, &err) != PP_OK) {
        code = cli_fail("parplan", &err);
    } else {
        char cost[48], peak[48];
        printf("cost %s\n", cli_format_int128(ev.cost, cost));
        printf("feasible %s\n", ev.feasible ? "yes" : "no");
        printf("peak_usage %s\n", cli_format_int128(ev.peak_usage, peak));
        printf("peak_time %lld\n", (long long)ev.peak_time);
        if (p->has_usage_limit)
            printf("usage_limit %lld\n", (long long)p->usage_limit);
        else
            printf("usage_limit none\n");
        printf("uses_forbidden %s\n", ev.uses_forbidden ? "yes" : "no");
        code = ev.feasible ? 0 : 1;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "parplan: stdout: write failed\n");
            code = 2;
        }
    }
    free(s);
    pp_iopddl_free(p);
    return code;
}

static int run_help(int argc, char **argv);

static const command commands[] = {
    {"solve", run_solve, solve_usage},
    {"eval", run_eval, eval_usage},
    {"schedule", cmd_schedule, schedule_usage},
    {"check-schedule", cmd_check_schedule, check_schedule_usage},
    {"gen", cmd_gen, gen_usage},
    {"cluster", cmd_cluster, cluster_usage},
    {"shard", cmd_shard, shard_usage},
    {"help", run_help, "parplan help [COMMAND]"},
};

static int run_help(int argc, char **argv)
{
    for (size_t i = 0; argc > 0 && i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[0], commands[i].name) == 0) {
            printf("usage: %s\n", commands[i].usage);
            return 0;
        }
    printf("usage: parplan COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %s\n", commands[i].usage);
    return argc > 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return run_help(0, NULL), 2;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "parplan: unknown command '%s' (try: parplan help)\n", argv[1]);
    return 2;
}
