/* test_cli.c: the contest binary and `parplan solve`/`eval` from the
 * outside: bad timeouts refused with their value named, a lost answer
 * (a full disk) reported, an answer over the limit by 128-bit sums never
 * printed as feasible, tiny problems solved exactly whatever the limit, and
 * the one-second contract on contest instance A: the answer the evaluator
 * checks is feasible and free of forbidden costs (by its verdict, not by a
 * clock). Also problems from a real model (the bundled transformer, through
 * `parplan shard --emit-iopddl`): their relaxation is tight, so the
 * heuristics alone must prove the exact stage's optimum with the bound. Arguments: the parplan and iopddl binaries, tests/iopddl/data,
 * examples/, the shared instance folder, and "check" or "skip" for the
 * one-second run (skipped in sanitizer builds, which read A alone in about
 * a second). Also the margin a run keeps after its solver's budget
 * (src/core/deadline.c, src/iopddl/run.c), and a run whose time is gone before its answer: no
 * answer, exit 1, never a late or a wrong one. */
#include <math.h>
#include <stdlib.h>
#include "parplan/iopddl_request.h"
#include "cli_run.h"
#include "iopddl/request_internal.h"
#include "core/deadline_internal.h"

static const char *parplan, *iopddl, *data, *examples, *shared;
static bool have_a; /* the public instance A, in shared: absent, its checks are skipped */

static void test_timeouts(void)
{
    static const char *bad[] = {"inf", "nan", "0", "-1", "1e999", "-inf", "5s"};
    char command[1024];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(command, sizeof command, "'%s' '%s/iopddl-example.json' '%s'", iopddl, examples, bad[i]);
        expect(command, 2, "is not a positive, finite number of seconds");
        snprintf(command, sizeof command, "'%s' solve '%s/iopddl-example.json' --timeout '%s'", parplan, examples,
                 bad[i]);
        expect(command, 2, "--timeout");
        expect(command, 2, bad[i]);
    }
}

static void test_full_disk(void)
{
    char command[1024];
    /* In a subshell, so that only stdout goes to the full disk. */
    snprintf(command, sizeof command, "('%s' '%s/iopddl-example.json' 2 >/dev/full)", iopddl, examples);
    expect(command, 2, "write failed");
    snprintf(command, sizeof command, "('%s' eval '%s/iopddl-example.json' '%s/example-optimum.sol' >/dev/full)",
             parplan, examples, data);
    expect(command, 2, "write failed");
}

/* Three nodes of usage 5e18 at once: 64-bit sums would wrap. Against a
 * limit of 9e18, and against the largest 64-bit limit, the search's exact
 * sums (iopddl/cost.h) see that nothing fits. */
static void test_usage_overflow(void)
{
    static const struct {
        const char *file, *said;
    } cases[] = {{"usage-sum-overflow.json", "no assignment fits the usage limit"},
                 {"usage-sum-past-int64-limit.json", "no assignment fits the usage limit"}};
    char command[1024];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(command, sizeof command, "'%s' '%s/%s' 2", iopddl, data, cases[i].file);
        expect(command, 1, cases[i].said);
        snprintf(command, sizeof command, "'%s' solve '%s/%s' --timeout 2", parplan, data, cases[i].file);
        expect(command, 1, cases[i].said);
    }
}

/* When only forbidden costs are possible the contest still wants an answer,
 * but the user is told what it is. */
static void test_forbidden_warning(void)
{
    char command[1024];
    snprintf(command, sizeof command, "('%s' '%s/all-forbidden.json' 2 2>&1 >/dev/null | grep warning)", iopddl, data);
    expect(command, 0, "warning: the answer pays a forbidden cost");
}

/* Sums past 2^63 (issue 32): twelve nodes of 9e17 - 5, 9e17, 9e17 + 3
 * (and a usage limit), or twelve edges of 9e17 + 0..3: the optimum, its
 * cost printed exactly, no forbidden cost claimed. Usages of 2^62 against
 * the limit 2^63 - 1: one node may take it, and the answer costs 20.
 * Every option forbidden: the cheapest (2e18, not 4e18). */
static void test_past_int64(void)
{
    static const struct {
        const char *file, *said;
    } cases[] = {{"cost-sum-past-int64.json", "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] iopddl: cost 10799999999999999940 "},
                 {"edge-sum-past-int64.json", "iopddl: cost 10800000000000000000 "},
                 {"usage-near-int64-limit.json", "iopddl: cost 20 "},
                 {"all-forbidden-cheapest.json", "iopddl: cost 2000000000000000000 "}};
    char command[1024];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(command, sizeof command, "'%s' '%s/%s' 2 2>&1 | tr '\\n' ' '", iopddl, data, cases[i].file);
        expect(command, 0, cases[i].said);
        if (i < 3) {
            snprintf(command, sizeof command, "'%s' '%s/%s' 2 2>&1 | grep -c forbidden", iopddl, data, cases[i].file);
            expect(command, 1, "0");
        }
    }
    snprintf(command, sizeof command, "'%s' solve '%s/cost-sum-past-int64.json' --timeout 2 2>&1 | grep -E '^cost'",
             parplan, data);
    expect(command, 0, "cost            10799999999999999940\n");
}

/* Inputs from a pipe are read whole (the gzip sniff used to eat them), a
 * gzip whose size field is damaged is reported as the reader finds it (not
 * as a lack of time from the margin that field would need), a gap at a
 * zero cost is 0, not "-nan", and a key written with escapes counts. */
static void test_inputs_and_gap(void)
{
    char command[1024];
    snprintf(command, sizeof command, "cat '%s/iopddl-example.json' | '%s' /dev/stdin 2 2>&1 | tr '\\n' ' '", examples,
             iopddl);
    expect(command, 0, "[0, 0, 2, 1, 0] iopddl: cost 445 ");
    snprintf(command, sizeof command, "gzip -c '%s/iopddl-example.json' | '%s' solve /dev/stdin --timeout 2 2>&1 | grep -E '^cost'",
             examples, parplan);
    expect(command, 0, "cost            445");
    snprintf(command, sizeof command, "'%s' '%s/damaged-size.json.gz' 2", iopddl, data);
    expect(command, 2, "incorrect length check");
    snprintf(command, sizeof command, "'%s' '%s/zero-cost.json' 2 2>&1 | grep gap", iopddl, data);
    expect(command, 0, "(gap 0.000%)");
    /* "usage\u005flimit": 55 is the limit: the answer keeps under it. */
    snprintf(command, sizeof command, "'%s' solve '%s/escaped-keys.json' --timeout 2 2>&1 | grep -E '^peak'", parplan,
             data);
    expect(command, 0, "peak usage      55 of limit 55");
}

/* The example's optimum, 445, found and proven even with 1 s: no stage
 * waits for a longer limit. */
static void test_tiny_exact(void)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' solve '%s/iopddl-example.json' --timeout 1 2>&1 >/dev/null | grep -E '^(cost|optimal)' | tr '\\n' ' '",
             parplan, examples);
    expect(command, 0, "cost            445 optimal         yes");
}

/* The bundled transformer on a 2 x 4 mesh as an IOPDDL problem, solved
 * without the exact stage: the certified bound proves the answer optimal
 * (the search stops there) and it costs what the exact stage proves. */
static void test_real_model(void)
{
    char dir[256], command[2048];
    snprintf(dir, sizeof dir, "%s", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(command, sizeof command,
             "('%s' shard '%s/shard/searchless_chess_9m.mlir' --mesh b=2,m=4 --emit-iopddl '%s/chess-2x4.json' 2>/dev/null && echo emitted)",
             parplan, examples, dir);
    expect(command, 0, "emitted");
    snprintf(command, sizeof command,
             "'%s' solve '%s/chess-2x4.json' --timeout 20 --no-exact --out '%s/chess-heuristic.sol' 2>&1 | grep '^optimal'",
             parplan, dir, dir);
    expect(command, 0, "optimal         yes");
    snprintf(command, sizeof command,
             "'%s' solve '%s/chess-2x4.json' --timeout 20 --out '%s/chess-exact.sol' 2>/dev/null && "
             "a=$('%s' eval '%s/chess-2x4.json' '%s/chess-heuristic.sol' | grep '^cost') && "
             "b=$('%s' eval '%s/chess-2x4.json' '%s/chess-exact.sol' | grep '^cost') && "
             "[ \"$a\" = \"$b\" ] && echo \"same $a\"",
             parplan, dir, dir, parplan, dir, dir, parplan, dir, dir);
    expect(command, 0, "same cost");
    snprintf(command, sizeof command, "rm -f '%s/chess-2x4.json' '%s/chess-heuristic.sol' '%s/chess-exact.sol'", dir,
             dir, dir);
    expect(command, 0, NULL);
}

/* The margin: the shared instances' rule (0.5 s + 2%, at most a quarter),
 * unchanged at their sizes (up to 100 MB loaded), plus a part linear in
 * the bytes held past that and in the slowdown reading saw (1 to 8); a
 * gzip file's size is its text's. */
static void test_margin_rule(void)
{
    static const double timeouts[] = {0.1, 1, 2, 6, 60, 300};
    for (size_t i = 0; i < sizeof timeouts / sizeof *timeouts; i++) {
        double t = timeouts[i];
        CHECK(pp_job_margin(t, 0, 1) == fmin(0.5 + 0.02 * t, 0.25 * t));
        CHECK(pp_job_margin(t, 70e6, 8) == pp_job_margin(t, 0, 1));
        double per_gb = pp_job_margin(t, 1.1e9, 1) - pp_job_margin(t, 0.1e9, 1);
        CHECK(per_gb > 1 && fabs(pp_job_margin(t, 2.1e9, 1) - pp_job_margin(t, 0.1e9, 1) - 2 * per_gb) < 1e-9);
        CHECK(fabs(pp_job_margin(t, 1.1e9, 3) - pp_job_margin(t, 0, 1) - 3 * per_gb) < 1e-9);
        CHECK(pp_job_margin(t, 1.1e9, 0.5) == pp_job_margin(t, 1.1e9, 1));
        CHECK(pp_job_margin(t, 1.1e9, 100) == pp_job_margin(t, 1.1e9, 8));
    }
    double started = pp_now();
    CHECK(fabs(pp_job_solve_budget(10, started) - (10 - pp_job_margin(10, 0, 1))) < 0.05);
    CHECK(pp_job_solve_budget(1, started - 5) == 0.01);
    char path[512], command[1024], out[64];
    snprintf(path, sizeof path, "%s/asplos-2025-iopddl-A.json.gz", shared);
    snprintf(command, sizeof command, "gzip -dc '%s' | wc -c", path);
    if (have_a)
        CHECK(run(command, out, sizeof out) == 0 && pp_file_text_bytes(path) == atof(out));
    snprintf(path, sizeof path, "%s/iopddl-example.json", examples);
    snprintf(command, sizeof command, "wc -c < '%s'", path);
    CHECK(run(command, out, sizeof out) == 0 && pp_file_text_bytes(path) == atof(out));
    pp_iopddl_problem *p = NULL;
    pp_error err = {0};
    CHECK(pp_iopddl_load(path, &p, &err) == PP_OK);
    if (p) {
        double cells = (double)p->edge_cost_start[p->edge_count], strategies = (double)p->strategy_start[p->node_count];
        CHECK(pp_iopddl_problem_bytes(p) >= 8 * (cells + 2 * strategies));
        CHECK(pp_iopddl_budget(60, pp_now(), p, 1) > 59 - pp_job_margin(60, pp_iopddl_problem_bytes(p), 1));
        CHECK(pp_iopddl_budget(1, pp_now() - 1, p, 1) <= 0);
        pp_iopddl_free(p);
    }
}

/* A limit gone before the answer (a microsecond: the alarm that stops
 * reading is due at once): a clear message, exit 1, nothing on stdout. */
static void test_no_time(void)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' '%s/iopddl-example.json' 0.000001", iopddl, examples);
    expect(command, 1, "iopddl: no answer within the time limit");
    snprintf(command, sizeof command, "'%s' solve '%s/iopddl-example.json' --timeout 0.000001", parplan, examples);
    expect(command, 1, "parplan: no answer within the time limit");
    if (!have_a)
        return;
    snprintf(command, sizeof command, "('%s' '%s/asplos-2025-iopddl-A.json.gz' 0.000001 2>/dev/null | wc -c)", iopddl,
             shared);
    expect(command, 0, "0");
}

static void test_one_second(void)
{
    char command[1024], answer[256];
    snprintf(answer, sizeof answer, "%s/A-1s.sol", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(command, sizeof command, "('%s' '%s/asplos-2025-iopddl-A.json.gz' 1 > '%s' 2>/dev/null)", iopddl, shared,
             answer);
    expect(command, 0, NULL);
    snprintf(command, sizeof command,
             "'%s' eval '%s/asplos-2025-iopddl-A.json.gz' '%s' | grep -E '^(feasible|uses_forbidden)' | tr '\\n' ' '",
             parplan, shared, answer);
    expect(command, 0, "feasible yes uses_forbidden no");
    remove(answer);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: test_iopddl_cli PARPLAN IOPDDL DATA EXAMPLES SHARED_INSTANCES check|skip\n");
        return 2;
    }
    parplan = argv[1];
    iopddl = argv[2];
    data = argv[3];
    examples = argv[4];
    shared = argv[5];
    char a[512];
    snprintf(a, sizeof a, "%s/asplos-2025-iopddl-A.json.gz", shared);
    have_a = check_have(a);
    test_timeouts();
    test_full_disk();
    test_usage_overflow();
    test_tiny_exact();
    test_forbidden_warning();
    test_past_int64();
    test_inputs_and_gap();
    test_real_model();
    test_margin_rule();
    test_no_time();
    if (strcmp(argv[6], "check") == 0 && have_a)
        test_one_second();
    return CHECK_DONE();
}
