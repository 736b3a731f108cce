/* test_check.c: the schedule checker on a hand-worked problem: a valid
 * schedule measures as worked out by hand, and each rule broken on its own is
 * reported with a message that names it. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "sched/sched_internal.h"

/* Devices g0 (memory 5) and g1 (unlimited), channel g0 -> g1 only.
 * a (2, g0, W 1, A +2) -> b (1, g0 or g1, A -1) with comm 1
 * a -> c (3, g0, A -2)
 * Valid: a [0,2] g0; c [2,5] g0; b on g1 [3,4], transfer a->b [2,3]. */
static pp_sched_problem *build(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int g0 = pp_sched_add_device(p, "g0", 5), g1 = pp_sched_add_device(p, "g1", INFINITY);
    pp_sched_add_channel(p, g0, g1);
    int a = pp_sched_add_op(p, "a", "forward", 2, 1, 2);
    int b = pp_sched_add_op(p, "b", "backward", 1, 0, -1);
    int c = pp_sched_add_op(p, "c", "forward", 3, 0, -2);
    pp_sched_allow(p, a, g0);
    pp_sched_allow(p, c, g0);
    pp_sched_add_dep(p, a, b, 1);
    pp_sched_add_dep(p, a, c, 0.5);
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "hand", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    return p;
}

static void valid(pp_sched_schedule *s)
{
    int dev[] = {0, 1, 0};
    double start[] = {0, 3, 2}, end[] = {2, 4, 5};
    memcpy(s->device, dev, sizeof dev);
    memcpy(s->start, start, sizeof start);
    memcpy(s->end, end, sizeof end);
    s->transfer_start[0] = 2;
    s->transfer_end[0] = 3;
    s->transfer_start[1] = s->transfer_end[1] = NAN;
}

/* Applies a change to the valid schedule and expects a violation whose
 * message contains `needle`. */
static void expect_violation(const pp_sched_problem *p, void (*change)(pp_sched_schedule *), const char *needle)
{
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    valid(s);
    change(s);
    pp_sched_report r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_INFEASIBLE);
    CHECK(r.violations >= 1);
    if (!strstr(err.message, needle)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", needle, err.message);
        check_failures++;
    }
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);
}

/* A change the checker must accept. */
static void stated_makespan_kept(const pp_sched_problem *p, void (*change)(pp_sched_schedule *))
{
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    valid(s);
    change(s);
    pp_sched_report r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);
}

static void not_allowed(pp_sched_schedule *s) { s->device[2] = 1; }
static void too_short(pp_sched_schedule *s) { s->end[2] = 4; }
static void negative_start(pp_sched_schedule *s) { s->start[0] = -1, s->end[0] = 1; }
static void unplaced(pp_sched_schedule *s) { s->device[1] = -1; }
static void early_dest(pp_sched_schedule *s) { s->start[1] = 2.5, s->end[1] = 3.5; }
static void early_transfer(pp_sched_schedule *s) { s->transfer_start[0] = 1.5, s->transfer_end[0] = 2.5; }
static void short_transfer(pp_sched_schedule *s) { s->transfer_end[0] = 2.5; }
static void missing_transfer(pp_sched_schedule *s) { s->transfer_start[0] = s->transfer_end[0] = NAN; }
static void overlap(pp_sched_schedule *s)
{
    s->device[1] = 0;
    s->transfer_start[0] = s->transfer_end[0] = NAN;
}
static void early_same_device(pp_sched_schedule *s)
{
    /* b on g0 right after a, and c moved after it. */
    s->device[1] = 0, s->start[1] = 1.5, s->end[1] = 2.5;
    s->start[2] = 2.5, s->end[2] = 5.5;
    s->transfer_start[0] = s->transfer_end[0] = NAN;
}
static void stray_transfer(pp_sched_schedule *s) { s->transfer_start[1] = 2, s->transfer_end[1] = 2.5; }
/* Every time 1e300: each op "lasts" 0 at that magnitude, and a tolerance
 * scaled by the makespan would have let it pass. */
static void huge_times(pp_sched_schedule *s)
{
    for (int i = 0; i < 3; i++)
        s->start[i] = s->end[i] = 1e300;
    s->transfer_start[0] = s->transfer_end[0] = 1e300;
    s->stated_makespan = 1e300;
}
static void wrong_makespan(pp_sched_schedule *s) { s->stated_makespan = 4; }
/* Within the stated tolerance, 1e-9 x the summed durations and comms (7.5). */
static void makespan_within_tolerance(pp_sched_schedule *s) { s->stated_makespan = 5 + 5e-9; }

/* b on g0 after c: level 1 + 2 (a) - 2 (c) - 1 (b) never exceeds 5; with c
 * first and b on g0, peak is 3. Memory breaks when a's adjustment is big:
 * tested on a second problem below. */
static void memory_case(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int g = pp_sched_add_device(p, "g", 3);
    int x = pp_sched_add_op(p, "x", "f", 1, 1, 2);
    int y = pp_sched_add_op(p, "y", "f", 1, 0, 1);
    int z = pp_sched_add_op(p, "z", "b", 1, 0, -3);
    pp_sched_allow(p, x, g);
    pp_sched_allow(p, y, g);
    pp_sched_allow(p, z, g);
    pp_sched_add_dep(p, x, z, 0);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "memory", &err), PP_OK);
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    /* x, z, y: levels 1, 3, 0, 1: peak 3, fits. */
    double start1[] = {0, 2, 1};
    for (int i = 0; i < 3; i++)
        s->device[i] = 0, s->start[i] = start1[i], s->end[i] = start1[i] + 1;
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    CHECK(r.peak_memory[0] == 3);
    pp_sched_report_free(&r);
    /* x, y, z: levels 1, 3, 4: over. */
    double start2[] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        s->start[i] = start2[i], s->end[i] = start2[i] + 1;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_INFEASIBLE);
    CHECK(r.peak_memory[0] == 4);
    CHECK(strstr(err.message, "memory reaches 4") != NULL);
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* Two transfers on one channel: x and y on g0 both feed z on g1 (comm 1).
 * Back to back they are valid; overlapping by half they are refused, with
 * the channel named, and so is the same overlap on the other channel once
 * all three ops change sides. */
static void channel_case(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "g0", INFINITY);
    pp_sched_add_device(p, "g1", INFINITY);
    int x = pp_sched_add_op(p, "x", "op", 1, 0, 0), y = pp_sched_add_op(p, "y", "op", 1, 0, 0);
    int z = pp_sched_add_op(p, "z", "op", 1, 0, 0);
    pp_sched_add_dep(p, x, z, 1);
    pp_sched_add_dep(p, y, z, 1);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "channels", &err), PP_OK);
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    for (int side = 0; side < 2; side++) {
        int dev[] = {side, side, 1 - side};
        double start[] = {0, 1, 3}, end[] = {1, 2, 4};
        memcpy(s->device, dev, sizeof dev);
        memcpy(s->start, start, sizeof start);
        memcpy(s->end, end, sizeof end);
        s->transfer_start[0] = 1, s->transfer_end[0] = 2;
        s->transfer_start[1] = 2, s->transfer_end[1] = 3;
        pp_sched_report r;
        CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
        pp_sched_report_free(&r);
        s->transfer_start[0] = 1.5, s->transfer_end[0] = 2.5;
        err = (pp_error){0}; /* the checker keeps the first violation's message */
        CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_INFEASIBLE);
        CHECK(strstr(err.message, side ? "on channel \"g1\" -> \"g0\"" : "on channel \"g0\" -> \"g1\"") != NULL);
        pp_sched_report_free(&r);
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

int main(void)
{
    pp_sched_problem *p = build();
    CHECK(p != NULL);
    if (!p)
        return CHECK_DONE();
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    valid(s);
    pp_sched_report r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    CHECK_EQ_INT(r.violations, 0);
    CHECK(r.makespan == 5);
    CHECK(r.busy[0] == 5 && r.busy[1] == 1);
    CHECK(r.bubble[0] == 0 && r.bubble[1] == 4 && r.max_bubble == 4);
    CHECK(r.peak_memory[0] == 3); /* weight 1, +2 after a, -2 after c */
    CHECK(r.peak_memory[1] == 0);
    /* g0 runs from 0 to 5, g1 only b, from 3 to 4. */
    CHECK(r.span[0] == 5 && r.span[1] == 1 && r.max_span == 5);
    CHECK(pp_sched_span_lower_bound(p) == 5); /* a and c are forced onto g0 */
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);

    expect_violation(p, not_allowed, "may not use");
    expect_violation(p, too_short, "lasts 2, its duration is 3");
    expect_violation(p, negative_start, "before time 0");
    expect_violation(p, unplaced, "\"b\" is not placed");
    expect_violation(p, early_dest, "before its transfer ends");
    expect_violation(p, early_transfer, "before its source ends");
    expect_violation(p, short_transfer, "its comm time is 1");
    expect_violation(p, missing_transfer, "has no transfer");
    expect_violation(p, overlap, "overlap");
    expect_violation(p, early_same_device, "before its input \"a\" ends");
    expect_violation(p, stray_transfer, "share a device");
    expect_violation(p, huge_times, "\"a\" lasts 0, its duration is 2");
    expect_violation(p, wrong_makespan, "states a makespan of 4, its ops end at 5");
    stated_makespan_kept(p, makespan_within_tolerance);
    pp_sched_problem_free(p);
    memory_case();
    channel_case();
    return CHECK_DONE();
}
