/* test_cli.c: the scheduling commands as a user meets them. Every malformed
 * problem exits 2 from `schedule` and `check-schedule` with a message naming
 * the file; a schedule the checker rejects exits 1 and says why; `gen` then
 * `schedule` then `check-schedule` agree; bad flags exit 2. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli_run.h"

static void malformed_problems(void)
{
    const char *dir = PP_DATA_DIR "/malformed";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    int count = 0;
    char command[1024];
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".json"))
            continue;
        snprintf(command, sizeof command, "%s schedule %s/%s --timeout 1", PP_CLI, dir, e->d_name);
        expect(command, 2, e->d_name);
        snprintf(command, sizeof command, "%s check-schedule %s/%s %s/example_schedule.json", PP_CLI, dir,
                 e->d_name, PP_DATA_DIR);
        expect(command, 2, e->d_name);
        count++;
    }
    closedir(d);
    CHECK(count >= 30);
}

static void the_four_named_in_the_issue(void)
{
    char command[1024];
    static const struct {
        const char *file, *says;
    } cases[] = {
        {"cycle.json", "cycle"},
        {"unknown_device.json", "unknown device"},
        {"no_channel.json", "channel"},
        {"capacity_below_forced.json", "below"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(command, sizeof command, "%s schedule %s/malformed/%s", PP_CLI, PP_DATA_DIR, cases[i].file);
        expect(command, 2, cases[i].says);
    }
}

static void round_trip(void)
{
    char command[2048];
    const char *tmp = "sched_cli_tmp";
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme dualpipe --mem-act 5 --out %s-p.json "
             "--reference %s-r.json",
             PP_CLI, tmp, tmp);
    expect(command, 0, NULL);
    snprintf(command, sizeof command, "%s check-schedule %s-p.json %s-r.json", PP_CLI, tmp, tmp);
    expect(command, 0, "valid");
    snprintf(command, sizeof command,
             "%s schedule %s-p.json --timeout 20 --out %s-s.json --svg %s.svg --trace %s-t.json --quiet", PP_CLI,
             tmp, tmp, tmp, tmp);
    expect(command, 0, NULL);
    snprintf(command, sizeof command, "%s check-schedule %s-p.json %s-s.json", PP_CLI, tmp, tmp);
    expect(command, 0, "valid");
    /* The pipeline's reference against a budget it does not fit: invalid. */
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme dualpipe --mem-act 4 --out %s-p.json && "
             "%s check-schedule %s-p.json %s-r.json",
             PP_CLI, tmp, PP_CLI, tmp, tmp);
    expect(command, 1, "INVALID");
    snprintf(command, sizeof command, "grep -c '<rect' %s.svg > /dev/null && grep -q traceEvents %s-t.json", tmp,
             tmp);
    expect(command, 0, NULL);
    snprintf(command, sizeof command, "rm -f %s-p.json %s-r.json %s-s.json %s.svg %s-t.json", tmp, tmp, tmp, tmp,
             tmp);
    expect(command, 0, NULL);
}

/* A bubble that is 0 up to rounding prints as 0 (the durations sum to
 * 0.6000000000000001 in op order, the makespan is 0.6); a problem's time
 * unit labels the SVG's axis, and `gen pipeline --time-unit` states one. */
static void rounding_and_unit(void)
{
    char command[2048];
    const char *tmp = "sched_cli_unit";
    snprintf(command, sizeof command,
             "%s check-schedule %s/rounding_problem.json %s/rounding_schedule.json | grep -x 'largest bubble 0' && "
             "%s check-schedule %s/rounding_problem.json %s/rounding_schedule.json | grep -Eq '^gpu0 +0.6 +0 '",
             PP_CLI, PP_DATA_DIR, PP_DATA_DIR, PP_CLI, PP_DATA_DIR, PP_DATA_DIR);
    expect(command, 0, "largest bubble 0");
    snprintf(command, sizeof command,
             "%s schedule %s/rounding_problem.json --timeout 5 --svg %s.svg --quiet > /dev/null && "
             "grep -c '>time (us)<' %s.svg",
             PP_CLI, PP_DATA_DIR, tmp, tmp);
    expect(command, 0, "1");
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 2 --microbatches 2 --scheme 1f1b --mem-act 2 --tf 5 --time-unit ms --out %s.json "
             "&& grep -c '\"time_unit\": \"ms\"' %s.json",
             PP_CLI, tmp, tmp);
    expect(command, 0, "1");
    snprintf(command, sizeof command,
             "%s schedule %s.json --timeout 5 --svg %s.svg --quiet > /dev/null && grep -c '>time (ms)<' %s.svg && "
             "%s gen pipeline --pp 2 --microbatches 2 --scheme 1f1b --mem-act 2 --out %s.json && "
             "%s schedule %s.json --timeout 5 --svg %s.svg --quiet > /dev/null && "
             "grep -c '>time (time units)<' %s.svg",
             PP_CLI, tmp, tmp, tmp, PP_CLI, tmp, PP_CLI, tmp, tmp, tmp);
    expect(command, 0, "1");
    snprintf(command, sizeof command, "rm -f %s.json %s.svg", tmp, tmp);
    expect(command, 0, NULL);
}

static void bad_flags(void)
{
    char command[1024];
    snprintf(command, sizeof command, "%s schedule", PP_CLI);
    expect(command, 2, "parplan schedule: missing PROBLEM");
    snprintf(command, sizeof command, "%s schedule x.json --timeout -1", PP_CLI);
    expect(command, 2, "--timeout -1: allowed: a number > 0");
    snprintf(command, sizeof command, "%s gen pipeline --pp 4 --scheme nope --microbatches 8 --mem-act 5", PP_CLI);
    expect(command, 2, "--scheme nope: allowed: dualpipe|1f1b|zb1p|zb2p|interleaved|zb");
    snprintf(command, sizeof command, "%s gen pipeline --pp 3 --microbatches 8 --scheme dualpipe --mem-act 5",
             PP_CLI);
    expect(command, 2, NULL);
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --mem-act 4 --param-mem -3", PP_CLI);
    expect(command, 2, "--param-mem -3: allowed: a number > 0");
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --mem-act 3 --out sched_cli_tmp-low.json "
             "--reference sched_cli_tmp-low-r.json", PP_CLI);
    expect(command, 2, "does not fit");
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 8 --microbatches 24 --scheme zb1p --mem-act 8 --tf 5478 --tb 5806 "
             "--tw 3534 --comm 200 --w-mem 0.3 --out sched_cli_tmp-zb.json --reference sched_cli_tmp-zb-r.json",
             PP_CLI);
    expect(command, 0, NULL);
    snprintf(command, sizeof command, "%s check-schedule sched_cli_tmp-zb.json sched_cli_tmp-zb-r.json", PP_CLI);
    expect(command, 0, "valid");
    snprintf(command, sizeof command,
             "%s schedule sched_cli_tmp-zb.json --rounds 200 --threads 1 --start sched_cli_tmp-zb-r.json "
             "--out sched_cli_tmp-zb-s.json", PP_CLI);
    expect(command, 0, "makespan");
    snprintf(command, sizeof command, "%s check-schedule sched_cli_tmp-zb.json sched_cli_tmp-zb-s.json", PP_CLI);
    expect(command, 0, "valid");
    snprintf(command, sizeof command, "%s schedule sched_cli_tmp-zb.json --rounds 200 --start sched_cli_tmp-zb.json",
             PP_CLI);
    expect(command, 2, "sched_cli_tmp-zb.json");
    /* Interleaved 1F1B through the command line: its reference passes the
     * checker; chunks on another scheme are refused. */
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme interleaved --chunks 3 --mem-act 15 --comm 0.5 "
             "--out sched_cli_tmp-il.json --reference sched_cli_tmp-il-r.json && "
             "%s check-schedule sched_cli_tmp-il.json sched_cli_tmp-il-r.json && rm -f sched_cli_tmp-il*.json",
             PP_CLI, PP_CLI);
    expect(command, 0, "valid");
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --chunks 2 --mem-act 4", PP_CLI);
    expect(command, 2, "chunks per device");
    snprintf(command, sizeof command, "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --mem-act 4 --tf 0",
             PP_CLI);
    expect(command, 2, "--tf 0: allowed: a number > 0");
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --mem-act 4 --w-mem 2", PP_CLI);
    expect(command, 2, "--w-mem 2: allowed: a number from 0 to 1");
    snprintf(command, sizeof command, "%s schedule %s/malformed/durations_overflow.json", PP_CLI, PP_DATA_DIR);
    expect(command, 2, "durations_overflow.json:9:29: ops[1].duration");
    snprintf(command, sizeof command, "%s schedule sched_cli_tmp-zb.json --objective steady", PP_CLI);
    expect(command, 2, "--objective steady: allowed: makespan|span");
    snprintf(command, sizeof command,
             "%s schedule sched_cli_tmp-zb.json --objective span --rounds 100 --threads 1 --out sched_cli_tmp-zb-sp.json",
             PP_CLI);
    expect(command, 0, "makespan");
    snprintf(command, sizeof command, "%s check-schedule sched_cli_tmp-zb.json sched_cli_tmp-zb-sp.json", PP_CLI);
    expect(command, 0, "valid");
    snprintf(command, sizeof command, "%s schedule /nonexistent/problem.json", PP_CLI);
    expect(command, 2, "/nonexistent/problem.json");
}

int main(void)
{
    malformed_problems();
    the_four_named_in_the_issue();
    round_trip();
    rounding_and_unit();
    bad_flags();
    return CHECK_DONE();
}
