/* test_cli.c: the cluster commands as a user meets them. `cluster plan` on a
 * bundled scenario writes a plan that `cluster simulate` prices at the same
 * step time, never slower than the uniform baseline it reports, with its
 * pictures; `cluster replan` after the Ethernet drop is no slower than the old
 * plan under the new bandwidth; every malformed file exits 2 naming the file;
 * bad flags exit 2. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include "cli_run.h"

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

static void bad_flags(void)
{
    expect(PP_CLI " cluster plan " SCENARIO " --timeout -1", 2, "usage");
    expect(PP_CLI " cluster simulate " SCENARIO, 2, "usage");
    expect(PP_CLI " cluster replan " SCENARIO " x.json", 2, "usage");
    expect(PP_CLI " cluster fly", 2, "usage");
    expect(PP_CLI " cluster plan /nonexistent.json " EXAMPLES "/llama-7b.json", 2, "/nonexistent.json");
}

int main(void)
{
    char dir[] = "/tmp/parplan-cluster-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    plan_then_simulate(dir);
    replan_after_the_drop(dir);
    malformed_files();
    bad_flags();
    char command[1100];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK_EQ_INT(system(command), 0);
    return CHECK_DONE();
}
