/* test_idle_devices.c: a small problem among thousands of devices its ops
 * never need (issue 32: examples/sched-tiny.json plus 500 idle devices ran
 * 20-30 s at a 2 s limit, plus 3,000 past 600 s and past SIGTERM). The work
 * must not grow with idle devices: a stop raised before the solve runs no
 * move at all, and a run among 3,000 idle devices touches no table of
 * devices x devices (counted in page faults, not seconds). Each answer is
 * held to the checker. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include "check.h"
#include "sched_solved.h"
#include "parplan/sched.h"

/* examples/sched-tiny.json (two GPUs, a fork and join and its backward)
 * with `idle` more devices of the same memory. */
static pp_sched_problem *tiny_among(int idle)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int g0 = pp_sched_add_device(p, "gpu0", 6), g1 = pp_sched_add_device(p, "gpu1", 6);
    char name[32];
    for (int k = 0; k < idle; k++) {
        snprintf(name, sizeof name, "idle%d", k);
        pp_sched_add_device(p, name, 6);
    }
    int embed = pp_sched_add_op(p, "embed", "forward", 2, 1, 1);
    int left = pp_sched_add_op(p, "left", "forward", 4, 2, 2);
    int right = pp_sched_add_op(p, "right", "forward", 4, 2, 2);
    int join = pp_sched_add_op(p, "join", "forward", 1, 0, 1);
    int d_left = pp_sched_add_op(p, "d_left", "backward", 5, 0, -2);
    int d_right = pp_sched_add_op(p, "d_right", "backward", 5, 0, -2);
    int d_embed = pp_sched_add_op(p, "d_embed", "backward", 2, 0, -2);
    pp_sched_allow(p, embed, g0);
    pp_sched_allow(p, join, g0);
    pp_sched_allow(p, join, g1);
    pp_sched_allow(p, d_embed, g0);
    pp_sched_add_dep(p, embed, left, 1);
    pp_sched_add_dep(p, embed, right, 1);
    pp_sched_add_dep(p, left, join, 1);
    pp_sched_add_dep(p, right, join, 1);
    pp_sched_add_dep(p, join, d_left, 1);
    pp_sched_add_dep(p, join, d_right, 1);
    pp_sched_add_dep(p, left, d_left, 0);
    pp_sched_add_dep(p, right, d_right, 0);
    pp_sched_add_dep(p, d_left, d_embed, 1);
    pp_sched_add_dep(p, d_right, d_embed, 1);
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "tiny", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
    }
    return p;
}

static long page_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* A stop raised before the solve: the start, checked, and no move. On
 * main the search ran a whole epoch (~700,000 moves here) first. */
static void stopped_before(void)
{
    pp_sched_problem *p = tiny_among(60);
    pp_stop_flag stop;
    atomic_init(&stop, 1);
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.time_limit = 10;
    o.threads = 1;
    o.stop = &stop;
    pp_sched_result r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_solve(p, &o, &r, &err), PP_OK);
    if (r.schedule) {
        pp_sched_report rep;
        CHECK_EQ_INT(pp_sched_check(p, r.schedule, &rep, &err), PP_OK);
        pp_sched_report_free(&rep);
        CHECK(r.makespan >= r.lower_bound);
    }
    CHECK_EQ_INT(r.rounds, 0);
    pp_sched_result_free(&r);
    pp_sched_problem_free(p);
}

/* 3,000 idle devices: a devices x devices table of doubles is 72 MB,
 * 17,600 pages. A run by move budget (so the same moves on any machine)
 * must find tiny's schedule while touching far fewer pages than one such
 * table: what it clears per decode is the devices and channels in use. */
static void thousands_idle(void)
{
    enum { IDLE = 3000 };
    pp_sched_problem *p = tiny_among(IDLE), *alone = tiny_among(0);
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.threads = 1;
    o.max_rounds = 20000;
    double on_two = solve_checked(alone, &o, NULL);
    long before = page_faults();
    double among = solve_checked(p, &o, NULL);
    long touched = page_faults() - before;
    fprintf(stderr, "makespan %g (alone %g), %ld pages touched\n", among, on_two, touched);
    CHECK(among <= on_two);
    double table_pages = (double)(IDLE + 2) * (IDLE + 2) * sizeof(double) / 4096;
    CHECK(touched < table_pages / 4);
    pp_sched_problem_free(p);
    pp_sched_problem_free(alone);
}

int main(void)
{
    stopped_before();
    thousands_idle();
    return CHECK_DONE();
}
