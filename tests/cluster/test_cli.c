/* test_cli.c: the cluster commands as a user meets them. `cluster plan` on a
 * bundled scenario writes a plan that `cluster simulate` prices at the same
 * step time, never slower than the uniform baseline it reports, with its
 * pictures; `cluster replan` after the Ethernet drop is no slower than the old
 * plan under the new bandwidth; a plan that cannot run (a lost device, a link
 * down or too slow) exits 1; the picture is readable and small; a plan of
 * 512 GPUs under --timeout 2 ends within 2.2 s with a plan (6 and 6.6 s under
 * the sanitizers, tests/check.h); every
 * malformed file exits 2 naming the file; bad flags exit 2. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include "cli_run.h"
#include "parplan/core.h"

#define EXAMPLES PP_SOURCE_DIR "/examples/cluster"
#define SCENARIO EXAMPLES "/hetero-v100-8.json " EXAMPLES "/llama-7b.json"

/* The number after "key": at the top level of a --json summary (two-space
 * indent); NAN when absent. */
static double json_field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    char line[4096], wanted[128];
    snprintf(wanted, sizeof wanted, "  \"%s\": ", key);
    double value = NAN;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, wanted, strlen(wanted)) == 0) {
            value = strtod(line + strlen(wanted), NULL);
            break;
        }
    fclose(f);
    return value;
}

static bool file_starts_with(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char head[64] = {0};
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    return n >= strlen(prefix) && strstr(head, prefix) != NULL;
}

static void plan_then_simulate(const char *dir)
{
    char command[2048], out[1024];
    snprintf(command, sizeof command,
             "%s cluster plan " SCENARIO " --threads 2 --json --out %s/plan.json --svg %s/plan.svg "
             "--trace %s/trace.json > %s/plan-summary.json",
             PP_CLI, dir, dir, dir, dir);
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    snprintf(command, sizeof command, "%s cluster simulate " SCENARIO " %s/plan.json --json > %s/sim.json", PP_CLI,
             dir, dir);
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/plan-summary.json", dir);
    double planned = json_field(path, "step_time"), uniform = json_field(path, "uniform_step_time");
    snprintf(path, sizeof path, "%s/sim.json", dir);
    double simulated = json_field(path, "step_time");
    CHECK(isfinite(planned) && planned > 0);
    CHECK(fabs(planned - simulated) <= 1e-9 * planned);
    CHECK(planned <= uniform);
    snprintf(path, sizeof path, "%s/plan.svg", dir);
    CHECK(file_starts_with(path, "<svg") || file_starts_with(path, "<?xml"));
    snprintf(path, sizeof path, "%s/trace.json", dir);
    CHECK(file_starts_with(path, "traceEvents"));

    /* The best uniform plan is no slower than any one uniform plan. */
    snprintf(command, sizeof command,
             "echo '{\"tp\": 1, \"pp\": 8, \"dp\": 1, \"micro_batch\": 1}' > %s/uniform.json && "
             "%s cluster simulate " SCENARIO " %s/uniform.json --json > %s/uniform-sim.json",
             dir, PP_CLI, dir, dir);
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/uniform-sim.json", dir);
    CHECK(uniform <= json_field(path, "step_time") * (1 + 1e-12));
}

static void replan_after_the_drop(const char *dir)
{
    char command[2048], out[1024], path[1024];
    snprintf(command, sizeof command,
             "%s cluster replan " SCENARIO " %s/plan.json --event " EXAMPLES "/ethernet-drop.events.json "
             "--threads 2 --json --out %s/new.json > %s/replan.json",
             PP_CLI, dir, dir, dir);
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/replan.json", dir);
    double old_time = json_field(path, "old_step_time"), new_time = json_field(path, "step_time");
    CHECK(isfinite(old_time) && isfinite(new_time));
    CHECK(new_time <= old_time);
    CHECK(json_field(path, "at") == 1800);
    /* The old plan simulated from the moment of the drop costs what replan said. */
    snprintf(command, sizeof command,
             "%s cluster simulate " SCENARIO " %s/plan.json --event " EXAMPLES "/ethernet-drop.events.json "
             "--at 1800 --json > %s/old-at.json",
             PP_CLI, dir, dir);
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/old-at.json", dir);
    CHECK(fabs(json_field(path, "step_time") - old_time) <= 1e-9 * old_time);
}

/* Every malformed file in tests/cluster/data, in the argument it belongs to. */
static void malformed_files(void)
{
    DIR *d = opendir(PP_DATA_DIR);
    CHECK(d != NULL);
    if (!d)
        return;
    int count = 0;
    char command[2048];
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, "cluster-bad", 11) == 0 && !strstr(name, ".events."))
            snprintf(command, sizeof command, "%s cluster plan %s/%s " EXAMPLES "/llama-7b.json", PP_CLI,
                     PP_DATA_DIR, name);
        else if (strncmp(name, "cluster-bad", 11) == 0)
            snprintf(command, sizeof command, "%s cluster replan " SCENARIO " %s/plan-shorthand.json --event %s/%s",
                     PP_CLI, PP_DATA_DIR, PP_DATA_DIR, name);
        else if (strncmp(name, "workload-bad", 12) == 0 || strncmp(name, "workload-piper-", 15) == 0 ||
                 strcmp(name, "workload-syntax.json") == 0 || strcmp(name, "workload-neither.json") == 0)
            snprintf(command, sizeof command, "%s cluster plan " EXAMPLES "/hetero-v100-8.json %s/%s", PP_CLI,
                     PP_DATA_DIR, name);
        else if (strncmp(name, "plan-bad", 8) == 0)
            snprintf(command, sizeof command, "%s cluster simulate " SCENARIO " %s/%s", PP_CLI, PP_DATA_DIR, name);
        else
            continue;
        if (strcmp(name, "workload-piper-skip.json") == 0 || strcmp(name, "workload-piper-sync.json") == 0)
            continue; /* well-formed Piper graphs the reader tests use */
        expect(command, 2, name);
        count++;
    }
    closedir(d);
    CHECK(count >= 30);
}

/* Writes text to dir/name; the path in path. */
static void write_file(const char *dir, const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Plans that cannot run are refused with exit 1, not priced as "inf s per
 * step": a device lost before --at, a link down from t = 0, a bandwidth so
 * small no transfer ends in finite time. */
static void cannot_run(const char *dir)
{
    static const char *const clusters[] = {
        "{\"timeline\": [{\"time\": 100, \"lost_device\": 3}],",
        "{\"timeline\": [{\"time\": 0, \"link\": \"nvlink\", \"bandwidth\": 0}],",
        "{\"timeline\": [{\"time\": 0, \"link\": \"nvlink\", \"bandwidth\": 1e-300}],"};
    static const char *const said[] = {"uses device 3, which the cluster's timeline has lost",
                                       "cannot run at time 200: a transfer", "cannot run at time 200: a transfer"};
    char plan[512], cluster[512], command[2048], text[1024];
    write_file(dir, "pp4.json", "{\"tp\": 1, \"pp\": 4, \"dp\": 1, \"micro_batch\": 1}", plan, sizeof plan);
    for (int k = 0; k < 3; k++) {
        snprintf(text, sizeof text,
                 "%s \"nodes\": [{\"name\": \"a\", \"device\": \"V100-32GB-SXM2\", \"count\": 4, "
                 "\"links\": [{\"class\": \"nvlink\", \"bandwidth\": 150e9, \"latency\": 5e-6}]}]}",
                 clusters[k]);
        write_file(dir, "c.json", text, cluster, sizeof cluster);
        snprintf(command, sizeof command, "%s cluster simulate %s " EXAMPLES "/gpt-1.7b.json %s --at 200", PP_CLI,
                 cluster, plan);
        expect(command, 1, said[k]);
        /* Before the loss the same plan runs. */
        snprintf(command, sizeof command, "%s cluster simulate %s " EXAMPLES "/gpt-1.7b.json %s --at 50", PP_CLI,
                 cluster, plan);
        expect(command, k == 0 ? 0 : 1, k == 0 ? "plan" : "a transfer it needs waits for ever");
    }
}

/* The picture carries its step time and plan, names its time unit, draws
 * transfers at least 2 px wide, and stays small. */
static void picture_readable(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/plan.svg", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    fclose(f);
    svg[n] = 0;
    CHECK(n < 400000);
    CHECK(strstr(svg, " s per step (dp ") != NULL);
    CHECK(strstr(svg, ">time (s)</text>") != NULL);
    int thin = 0, rects = 0;
    for (const char *p = strstr(svg, " width=\""); p; p = strstr(p + 1, " width=\""), rects++)
        thin += atof(p + 8) < 2;
    CHECK(rects > 100 && thin == 0);
    CHECK(strstr(svg, "<title>activation on ") != NULL);
}

/* Occurrences of needle in the file at path; -1 when unreadable. */
static long count_in_file(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long count = 0;
    char line[8192];
    while (fgets(line, sizeof line, f))
        for (const char *at = line; (at = strstr(at, needle)); at += strlen(needle))
            count++;
    fclose(f);
    return count;
}

/* The issue-16 case: 512 A100s and GPT-39.1B under --timeout 2 took 85 s
 * and simulated nothing. Now the command ends within the limit (+10%) with
 * a plan; under a limit no simulation fits in, it ends without one. With a
 * trace (issue 32: 4.2 s under --timeout 1, 459,009 boxes; 2.24-2.29 s
 * under --timeout 2 with three runs at once) it too ends within the limit
 * (+10%) with a plan; the trace holds at least one box and at most 10,000 a
 * second of the limit (fewer when the machine writes them slower), and its
 * title counts the boxes drawn and says what it left out. */
static void time_limit_kept(const char *dir)
{
    char command[2048], out[1024], path[1024];
    int limit = 2 * PP_TEST_TIME_SCALE;
    snprintf(command, sizeof command,
             "%s cluster plan " EXAMPLES "/dgx-a100-64.json " EXAMPLES "/gpt-39.1b.json --timeout %d --threads 2 "
             "--json > %s/big.json",
             PP_CLI, limit, dir);
    double began = pp_now();
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    CHECK(pp_now() - began <= 1.1 * limit);
    snprintf(path, sizeof path, "%s/big.json", dir);
    CHECK(isfinite(json_field(path, "step_time")));
    snprintf(command, sizeof command,
             "%s cluster plan " EXAMPLES "/dgx-a100-64.json " EXAMPLES "/gpt-39.1b.json --timeout %d --threads 2 "
             "--quiet --out %s/big-plan.json --trace %s/big-trace.json",
             PP_CLI, limit, dir, dir);
    began = pp_now();
    CHECK_EQ_INT(run(command, out, sizeof out), 0);
    CHECK(pp_now() - began <= 1.1 * limit);
    snprintf(path, sizeof path, "%s/big-plan.json", dir);
    CHECK(count_in_file(path, "\"replicas\"") >= 1);
    /* the boxes drawn are those that could be written in time: under load
     * fewer than the limit's share, but the search keeps time for some */
    snprintf(path, sizeof path, "%s/big-trace.json", dir);
    long boxes = count_in_file(path, "\"ph\":\"X\"");
    CHECK(boxes >= 1 && boxes <= 10000 * limit);
    char drawn[64];
    snprintf(drawn, sizeof drawn, "drawn: the first %ld boxes, ", boxes);
    long left_out = count_in_file(path, "left out under the time limit");
    CHECK_EQ_INT((int)count_in_file(path, drawn), (int)left_out);
#if PP_TEST_TIME_SCALE == 1
    /* the step's 459,009 boxes never all fit 2 s; the sanitizer build's
     * longer limit may find a plan whose whole step does */
    CHECK_EQ_INT((int)left_out, 1);
#endif
    /* a limit shorter than one simulation: no plan, said as such */
    expect(PP_CLI " cluster plan " EXAMPLES "/dgx-a100-64.json " EXAMPLES "/gpt-39.1b.json --timeout 1e-6", 1,
           "no plan that fits was found within the time limit");
}

static void bad_flags(void)
{
    expect(PP_CLI " cluster plan " SCENARIO " --timeout -1", 2, "--timeout -1: allowed: a number > 0");
    expect(PP_CLI " cluster simulate " SCENARIO, 2, "missing CLUSTER WORKLOAD PLAN");
    expect(PP_CLI " cluster replan " SCENARIO " x.json", 2, "missing --event EVENTS");
    expect(PP_CLI " cluster fly", 2, "unknown subcommand 'fly' (one of: plan, simulate, replan)");
    expect(PP_CLI " cluster simulate " SCENARIO " x.json --timeout 5", 2, "unknown flag --timeout");
    expect(PP_CLI " cluster plan " SCENARIO " --event x.json", 2, "unknown flag --event");
    expect(PP_CLI " cluster plan /nonexistent.json " EXAMPLES "/llama-7b.json", 2, "/nonexistent.json");
}

int main(void)
{
    char dir[] = "/tmp/parplan-cluster-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    plan_then_simulate(dir);
    picture_readable(dir);
    replan_after_the_drop(dir);
    cannot_run(dir);
    time_limit_kept(dir);
    malformed_files();
    bad_flags();
    char command[1100];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK_EQ_INT(system(command), 0);
    return CHECK_DONE();
}
