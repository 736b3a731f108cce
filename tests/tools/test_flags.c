/* test_flags.c: the command line's one flag parser, from a user's side.
 * Every command's mistakes get one line naming the flag, the value and
 * what is allowed, with exit 2; help comes from the same tables the parser
 * reads, so every flag the help shows is one the parser knows. */
#include <stdlib.h>
#include "cli_run.h"
#include "parplan/version.h"

/* A file that never exists: commands that get past their flags fail on it
 * by name, which shows the flags were taken. */
#define NONE "/nonexistent/in.json"

typedef struct {
    const char *args;
    int code;
    const char *says;
} case_t;

static const case_t top_level[] = {
    {"", 2, "usage: parplan COMMAND"},
    {"--help", 0, "usage: parplan COMMAND"},
    {"-h", 0, "usage: parplan COMMAND"},
    {"help", 0, "usage: parplan COMMAND"},
    {"--version", 0, "parplan " PP_VERSION},
    {"help bogus", 2, "parplan: unknown command 'bogus'"},
    {"bogus", 2, "parplan: unknown command 'bogus'"},
    {"help cluster", 0, "usage: parplan cluster plan CLUSTER WORKLOAD"},
    {"help cluster replan", 0, "usage: parplan cluster replan CLUSTER WORKLOAD PLAN --event EVENTS"},
    {"help gen random", 0, "usage: parplan gen random --ops N"},
    {"help gen model", 0, "usage: parplan gen model MODEL.mlir --devices N"},
    {"solve --help", 0, "usage: parplan solve FILE [--timeout S]"},
    {"cluster plan -h", 0, "usage: parplan cluster plan"},
    {"cluster", 2, "parplan cluster: a subcommand is needed (one of: plan, simulate, replan)"},
    {"gen fly", 2, "parplan gen: unknown subcommand 'fly' (one of: pipeline, random, model)"},
};

static const case_t mistakes[] = {
    {"solve " NONE " --timeout=5", 2, NONE},
    {"solve " NONE " --timeout 0", 2, "parplan solve: --timeout 0: allowed: a number > 0"},
    {"solve " NONE " --timeout=abc", 2, "parplan solve: --timeout abc: allowed: a number > 0"},
    {"solve " NONE " --timeout inf", 2, "--timeout inf: allowed"},
    {"solve " NONE " --threads -1", 2, "parplan solve: --threads -1: allowed: a whole number from 0 to 1024"},
    {"solve " NONE " --threads 0", 2, NONE}, /* 0: one per core, as Python's threads=0 */
    {"solve " NONE " --threads 2.5", 2, "--threads 2.5: allowed: a whole number from 0 to 1024"},
    {"solve " NONE " --seed -7", 2, NONE},
    {"solve " NONE " --seed 18446744073709551615", 2, NONE}, /* 2^64 - 1: a seed is 64 bits */
    {"solve " NONE " --seed 18446744073709551616", 2,
     "--seed 18446744073709551616: allowed: a whole number from -9223372036854775808 to 18446744073709551615"},
    {"solve " NONE " --seed -9223372036854775809", 2, "allowed: a whole number from -9223372036854775808 to"},
    {"solve " NONE " --timeout nan", 2, "--timeout nan: allowed: a number > 0, at most 1000000000"},
    {"solve " NONE " --timeout 2e9", 2, "--timeout 2e9: allowed: a number > 0, at most 1000000000"},
    {"solve " NONE " --rounds -1", 2, "--rounds -1: allowed: a whole number from 0 to 9223372036854775807"},
    {"solve " NONE " --timout 5", 2, "parplan solve: unknown flag --timout; did you mean --timeout?"},
    {"solve " NONE " --frobnicate", 2, "parplan solve: unknown flag --frobnicate (parplan help solve"},
    {"solve " NONE " -t 5", 2, "parplan solve: unknown flag -t"},
    {"solve " NONE " --timeout", 2, "parplan solve: --timeout needs a value: S"},
    {"solve " NONE " other.json", 2, "parplan solve: unexpected argument 'other.json': solve takes only FILE"},
    {"solve", 2, "parplan solve: missing FILE"},
    {"solve " NONE " --quiet=yes", 2, "parplan solve: --quiet takes no value (it was given 'yes')"},
    {"solve " NONE " --seed 1 --seed 2", 2, "parplan solve: --seed is given twice"},
    {"eval " NONE, 2, "parplan eval: missing FILE SOLUTION"},
    {"eval " NONE " a b", 2, "parplan eval: unexpected argument 'b'"},
    {"schedule " NONE " --objective steady", 2, "parplan schedule: --objective steady: allowed: makespan|span"},
    {"schedule " NONE " --coarsen -1", 2, "parplan schedule: --coarsen -1: allowed: a whole number from 0 to 2147483647"},
    {"schedule " NONE " --no-mip --objective=span", 2, NONE},
    {"check-schedule " NONE " b --jsn", 2, "parplan check-schedule: unknown flag --jsn; did you mean --json?"},
    {"gen pipeline --microbatches 8 --scheme zb --mem-act 4", 2, "parplan gen pipeline: missing --pp P"},
    {"gen pipeline --pp 0 --microbatches 8 --scheme zb --mem-act 4", 2, "--pp 0: allowed: a whole number from 1 to 4096"},
    {"gen pipeline --pp 4 --microbatches x --scheme zb --mem-act 4", 2, "--microbatches x: allowed"},
    {"gen pipeline --pp 4 --microbatches 8 --scheme zb --mem-act 0", 2, "--mem-act 0: allowed: a number > 0"},
    {"gen pipeline --pp 4 --microbatches 8 --scheme zb --mem-act 4 --comm -1", 2, "--comm -1: allowed: a number >= 0"},
    {"gen random --ops 0 --max-degree 2 --devices 2", 2, "parplan gen random: --ops 0: allowed"},
    {"gen random --ops 5 --max-degree 2", 2, "parplan gen random: missing --devices K"},
    {"cluster plan " NONE " " NONE " --at -1", 2, "parplan cluster plan: --at -1: allowed: a number >= 0"},
    {"cluster plan " NONE " " NONE " --threads=9999", 2, "--threads 9999: allowed: a whole number from 0 to 1024"},
    {"cluster simulate " NONE " " NONE " p.json --quiet", 2, "parplan cluster simulate: unknown flag --quiet"},
    {"cluster simulate " NONE " " NONE " p.json --timeout 5", 2, "parplan cluster simulate: unknown flag --timeout"},
    {"cluster replan " NONE " " NONE " p.json", 2, "parplan cluster replan: missing --event EVENTS"},
    {"shard m.mlir --mesh b=2 --memory 0", 2, "parplan shard: --memory 0: allowed: a number of bytes > 0"},
    {"shard m.mlir --mesh b=2 --memory 16XB", 2, "--memory 16XB: allowed"},
    {"shard m.mlir --mesh b=2 --precision fp8", 2, "parplan shard: --precision fp8: allowed: typed|tf32|bf16"},
    {"shard m.mlir --mesh b=2 --format xla", 2, "parplan shard: --format xla: allowed: gspmd|sdy"},
    {"shard m.mlir --mesh b=2 --search greedy", 2, "--search greedy: allowed: mcts|iopddl|both"},
    {"shard m.mlir --mesh b=2 --threads 100", 2, "m.mlir: No such file"},
    {"shard m.mlir --mesh b=2 --seed -1", 2, "m.mlir: No such file"},
    {"shard m.mlir", 2, "parplan shard: give --mesh AXES"},
    {"shard m.mlir --explain --mesh b=2", 2, "parplan shard: --explain and --mesh exclude each other"},
    {"shard m.mlir --mesh b=2 --emit-iopddl p.json --apply-iopddl p.json s", 2, "exclude each other"},
    {"shard m.mlir --mesh b=2 --emit-iopddl p.json --json", 2, "--out and --json do not apply"},
    {"shard m.mlir --mesh b=2 --apply-iopddl p.json", 2, "--apply-iopddl needs two values: PROBLEM SOLUTION"},
    {"shard m.mlir --mesh b=2 --apply-iopddl=p.json", 2, "--apply-iopddl takes two values"},
};

static void run_cases(const case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char command[1024];
        snprintf(command, sizeof command, "%s %s", PP_CLI, cases[i].args);
        expect(command, cases[i].code, cases[i].says);
    }
}

/* Every "--name" in `parplan help COMMAND`'s usage lines: given with no
 * value (or, for a switch, with one), the parser must say something about
 * that flag, never that it is unknown. */
static void help_matches_parser(const char *command)
{
    char line[4096], help[512];
    snprintf(help, sizeof help, "%s help %s", PP_CLI, command);
    FILE *f = popen(help, "r");
    CHECK(f != NULL);
    int flags = 0;
    while (f && fgets(line, sizeof line, f) && strncmp(line, "  ", 2) != 0) {
        for (char *p = strstr(line, "--"); p; p = strstr(p + 2, "--")) {
            char name[64], run_it[1024], out[1024];
            if (sscanf(p, "--%63[a-z0-9-]", name) != 1)
                continue;
            snprintf(run_it, sizeof run_it, "%s %s --%s", PP_CLI, command, name);
            run(run_it, out, sizeof out);
            if (strstr(out, "unknown flag")) {
                fprintf(stderr, "help of %s shows --%s, which the parser does not know\n", command, name);
                check_failures++;
            }
            flags++;
        }
    }
    if (f)
        pclose(f);
    CHECK(flags > 0);
}

int main(void)
{
    run_cases(top_level, sizeof top_level / sizeof top_level[0]);
    run_cases(mistakes, sizeof mistakes / sizeof mistakes[0]);
    const char *commands[] = {"solve", "schedule", "check-schedule", "gen pipeline", "gen random", "gen model",
                              "cluster plan", "cluster simulate", "cluster replan", "shard"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        help_matches_parser(commands[i]);
    return CHECK_DONE();
}
