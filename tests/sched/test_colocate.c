/* test_colocate.c: colocated ops (pp_sched_colocate, "with" in the format).
 * Two independent unit ops on two devices take 1 apart and 2 together: the
 * solver, with the MIP and with the local search alone, gives 2 when they
 * are colocated, and the checker refuses them apart. A forward op holding
 * memory until its colocated backward op ends is what the model builder
 * needs: with room for one activation per device, two such pairs run side
 * by side. "with" survives a write and a read; a "with" naming an unknown
 * op or ops allowed on different devices are refused, naming them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sched_solved.h"
#include "parplan/sched.h"
#include "sched/load.h"

static pp_sched_problem *pair_problem(bool together)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "d0", INFINITY);
    pp_sched_add_device(p, "d1", INFINITY);
    int a = pp_sched_add_op(p, "a", "forward", 1, 0, 0);
    int b = pp_sched_add_op(p, "b", "forward", 1, 0, 0);
    if (together)
        pp_sched_colocate(p, a, b);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "pair", &err), PP_OK);
    return p;
}

static double solve(const pp_sched_problem *p, bool mip)
{
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.threads = 1;
    o.no_mip = !mip;
    if (mip)
        o.time_limit = 2;
    else
        o.max_rounds = 2000;
    return solve_checked(p, &o, NULL);
}

static void solver_keeps_groups(void)
{
    pp_sched_problem *apart = pair_problem(false), *together = pair_problem(true);
    CHECK_EQ_INT(together->group[1], 0);
    CHECK(solve(apart, false) == 1);
    CHECK(solve(together, false) == 2);
    CHECK(solve(together, true) == 2);
    pp_sched_problem_free(apart);
    pp_sched_problem_free(together);
}

static void checker_refuses_apart(void)
{
    pp_sched_problem *p = pair_problem(true);
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    s->device[0] = 0, s->device[1] = 1;
    s->start[0] = s->start[1] = 0;
    s->end[0] = s->end[1] = 1;
    pp_sched_report report;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &report, &err), PP_INFEASIBLE);
    CHECK(strstr(err.message, "op \"b\" runs on device \"d1\", apart from \"a\" on \"d0\"") != NULL);
    pp_sched_report_free(&report);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* f0 -> b0 and f1 -> b1, each f holding 1 until its b ends, room for 1 per
 * device: the pairs run side by side, each on its own device (makespan 2,
 * the checker measuring each device's memory where the pair really holds it). */
static void activations_stay_with_their_pair(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "d0", 1);
    pp_sched_add_device(p, "d1", 1);
    for (int k = 0; k < 2; k++) {
        char f[16], b[16];
        snprintf(f, sizeof f, "f%d", k);
        snprintf(b, sizeof b, "b%d", k);
        int fo = pp_sched_add_op(p, f, "forward", 1, 0, 1);
        int bo = pp_sched_add_op(p, b, "backward", 1, 0, -1);
        pp_sched_colocate(p, fo, bo);
        pp_sched_add_dep(p, fo, bo, 0);
    }
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "pairs", &err), PP_OK);
    CHECK(solve(p, false) == 2);
    CHECK(solve(p, true) == 2);
    pp_sched_problem_free(p);
}

static void round_trip(void)
{
    pp_sched_problem *p = pair_problem(true), *q = NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_write_problem(p, f, &err), PP_OK);
    fclose(f);
    CHECK(strstr(text, "\"with\": \"a\"") != NULL);
    CHECK_EQ_INT(pp_sched_load_buffer("pair.json", text, size, &q, &err), PP_OK);
    CHECK(q && sc_problem_equal(p, q));
    free(text);
    pp_sched_problem_free(p);
    pp_sched_problem_free(q);
}

static void refused(const char *text, const char *says)
{
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_load_buffer("bad.json", text, strlen(text), &p, &err), PP_EINPUT);
    if (!strstr(err.message, says)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", says, err.message);
        check_failures++;
    }
    pp_sched_problem_free(p);
}

static void bad_colocations(void)
{
    refused("{\"devices\": [{\"name\": \"d0\"}], \"ops\": [{\"name\": \"a\", \"duration\": 1, \"with\": \"z\"}]}",
            "bad.json:1:76: ops[0].with: unknown op \"z\"");
    refused("{\"devices\": [{\"name\": \"d0\"}, {\"name\": \"d1\"}], \"ops\": [{\"name\": \"a\", \"duration\": 1}, "
            "{\"name\": \"b\", \"duration\": 1, \"with\": \"a\", \"device\": \"d1\"}]}",
            "bad.json: op \"b\" must share a device with \"a\" but may run on other devices");
}

int main(void)
{
    solver_keeps_groups();
    checker_refuses_apart();
    activations_stay_with_their_pair();
    round_trip();
    bad_colocations();
    return CHECK_DONE();
}
