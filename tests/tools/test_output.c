/* test_output.c: a write that fails is an error, never success (issue 32,
 * item 8). Every command's output (its answer on stdout, a file it is
 * told to write, its JSON summary, help) goes to a full disk (/dev/full):
 * the command must exit non-zero naming the file and the reason, and say
 * nothing of success ("read back and checked"). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_run.h"

#define FULL "No space left on device"

static char dir[64];

/* `parplan ARGS` with stdout on a full disk (stderr still to the test). */
static void stdout_full(const char *args, int code)
{
    char command[2048];
    snprintf(command, sizeof command, "(cd %s && %s %s > /dev/full)", PP_SOURCE_DIR, PP_CLI, args);
    expect_said(command, code, "stdout: write failed: " FULL);
}

/* `parplan ARGS` whose ARGS send a file to /dev/full. */
static void file_full(const char *args, int code)
{
    char command[2048];
    snprintf(command, sizeof command, "cd %s && %s %s", PP_SOURCE_DIR, PP_CLI, args);
    expect_said(command, code, "/dev/full: write failed: " FULL);
    char said[16384];
    run_all(command, said, sizeof said);
    if (strstr(said, "read back and checked")) {
        fprintf(stderr, "%s\n  claims a module it could not write was read back and checked\n", command);
        check_failures++;
    }
}

/* `parplan ARGS --out DIR` where DIR/NAME, one of the files the command
 * writes there, leads to a full disk. */
static void dir_file_full(const char *args, const char *name, int code)
{
    char sub[128], command[2048], needle[256];
    snprintf(sub, sizeof sub, "%s/out-%s", dir, name);
    snprintf(command, sizeof command, "mkdir %s && ln -s /dev/full %s/%s", sub, sub, name);
    if (system(command) != 0)
        check_failures++;
    snprintf(command, sizeof command, "cd %s && %s %s --out %s", PP_SOURCE_DIR, PP_CLI, args, sub);
    snprintf(needle, sizeof needle, "%s/%s: write failed: " FULL, sub, name);
    expect_said(command, code, needle);
}

/* Runs ARGS (formatted with the scratch folder) and checks it went well. */
static void prepare(const char *args)
{
    char command[2048], said[1024];
    snprintf(command, sizeof command, "cd %s && %s %s", PP_SOURCE_DIR, PP_CLI, args);
    int code = run(command, said, sizeof said);
    if (code != 0) {
        fprintf(stderr, "%s\n  exit %d: %s\n", command, code, said);
        check_failures++;
    }
}

#define SCHED "examples/sched-tiny.json"
#define MODEL "examples/shard/searchless_chess_9m.mlir"
#define CLUSTER "examples/cluster/hetero-v100-8.json"
#define WORKLOAD "examples/cluster/gpt-1.7b.json"
#define EVENTS "examples/cluster/ethernet-drop.events.json"
#define IOPDDL "examples/iopddl-example.json"

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/pp_output_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char args[1024];

    stdout_full("--version", 2);
    stdout_full("help", 2);
    stdout_full("help schedule", 2);

    stdout_full("solve " IOPDDL " --timeout 2 --quiet", 2);
    file_full("solve " IOPDDL " --timeout 2 --quiet --out /dev/full", 2);
    snprintf(args, sizeof args, "solve " IOPDDL " --timeout 2 --quiet --out %s/sol.json", dir);
    prepare(args);
    snprintf(args, sizeof args, "eval " IOPDDL " %s/sol.json", dir);
    stdout_full(args, 2);

    stdout_full("schedule " SCHED " --timeout 1 --quiet", 2);
    stdout_full("schedule " SCHED " --timeout 1 --json", 2);
    file_full("schedule " SCHED " --timeout 1 --quiet --out /dev/full", 2);
    file_full("schedule " SCHED " --timeout 1 --quiet --trace /dev/full", 2);
    file_full("schedule " SCHED " --timeout 1 --quiet --svg /dev/full", 2);
    snprintf(args, sizeof args, "schedule " SCHED " --timeout 1 --quiet --out %s/schedule.json", dir);
    prepare(args);
    snprintf(args, sizeof args, "check-schedule " SCHED " %s/schedule.json", dir);
    stdout_full(args, 2);
    snprintf(args, sizeof args, "check-schedule " SCHED " %s/schedule.json --json", dir);
    stdout_full(args, 2);
    stdout_full("gen pipeline --pp 2 --microbatches 4 --scheme 1f1b --mem-act 4", 2);
    file_full("gen random --ops 10 --max-degree 2 --devices 2 --out /dev/full", 2);
    stdout_full("gen model " MODEL " --devices 2", 2);

    snprintf(args, sizeof args, "cluster plan " CLUSTER " " WORKLOAD " --timeout 2 --quiet --out %s/plan.json", dir);
    prepare(args);
    char plan[128];
    snprintf(plan, sizeof plan, "%s/plan.json", dir);
    snprintf(args, sizeof args, "cluster simulate " CLUSTER " " WORKLOAD " %s --json", plan);
    stdout_full(args, 2);
    snprintf(args, sizeof args, "cluster simulate " CLUSTER " " WORKLOAD " %s --trace /dev/full", plan);
    file_full(args, 2);
    stdout_full("cluster plan " CLUSTER " " WORKLOAD " --timeout 2 --json", 2);
    stdout_full("cluster plan " CLUSTER " " WORKLOAD " --timeout 2 --quiet", 2);
    file_full("cluster plan " CLUSTER " " WORKLOAD " --timeout 2 --quiet --out /dev/full", 2);
    file_full("cluster plan " CLUSTER " " WORKLOAD " --timeout 2 --quiet --svg /dev/full", 2);
    snprintf(args, sizeof args, "cluster replan " CLUSTER " " WORKLOAD " %s --event " EVENTS " --timeout 2 --json",
             plan);
    stdout_full(args, 2);

    stdout_full("shard " MODEL " --explain", 2);
    stdout_full("shard " MODEL " --mesh b=2 --timeout 2", 2);
    stdout_full("shard " MODEL " --mesh b=2 --timeout 2 --json", 2);
    file_full("shard " MODEL " --mesh b=2 --timeout 2 --out /dev/full", 2);
    file_full("shard " MODEL " --mesh b=2 --emit-iopddl /dev/full", 2);
    snprintf(args, sizeof args, "shard " MODEL " --mesh b=2 --emit-iopddl %s/problem.json", dir);
    prepare(args);
    snprintf(args, sizeof args, "solve %s/problem.json --timeout 2 --quiet --out %s/solution.json", dir, dir);
    prepare(args);
    snprintf(args, sizeof args, "shard " MODEL " --mesh b=2 --apply-iopddl %s/problem.json %s/solution.json "
             "--out /dev/full", dir, dir);
    file_full(args, 2);

    /* The whole plan: its JSON on stdout, and each of the three files its
     * --out folder holds. */
#define PLAN "plan examples/shard/moe-tiny.mlir --cluster examples/cluster/dgx-a100-4.json --timeout 5"
    stdout_full(PLAN " --json", 2);
    dir_file_full(PLAN, "plan.json", 2);
    dir_file_full(PLAN, "step.trace.json", 2);
    dir_file_full(PLAN, "step.svg", 2);

    char clean[128];
    snprintf(clean, sizeof clean, "rm -rf %s", dir);
    if (system(clean) != 0)
        check_failures++;
    return CHECK_DONE();
}
