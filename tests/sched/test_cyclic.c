/* test_cyclic.c: the cyclic objective. The checker on schedules worked by
 * hand (overlap modulo the period on a device and on a channel, the memory
 * of two iterations alive at once, the optimizer step, a level that would
 * grow); the lower bound against every schedule of small problems on a
 * half-unit grid that the checker takes, its memory term where it binds
 * and on a pipeline below P micro-batches of activations; the solver's periods checked,
 * at or above the bound, the asynchronous one no longer than the
 * synchronous one; and the ZB-V reference repeated at its spans; the
 * commands: a cyclic schedule written with its period, read back and
 * checked at it, a shorter period refused, a bad period refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli_run.h"
#include "sched/cyclic.h"
#include "sched/sched_internal.h"

static pp_sched_problem *finish(pp_sched_problem *p)
{
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "hand", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

/* Expects the cyclic checker's verdict, and a message naming the rule. */
static void expect_cyclic(const pp_sched_problem *p, const pp_sched_schedule *s, double T, bool async, const char *needle)
{
    pp_sched_cyclic_report r;
    pp_error err = {0};
    pp_status st = pp_sched_check_cyclic(p, s, T, async, &r, &err);
    if (!needle) {
        CHECK_EQ_INT(st, PP_OK);
        if (st != PP_OK)
            fprintf(stderr, "period %g: %s\n", T, err.message);
    } else {
        CHECK_EQ_INT(st, PP_INFEASIBLE);
        if (!strstr(err.message, needle)) {
            fprintf(stderr, "period %g: expected \"%s\" in \"%s\"\n", T, needle, err.message);
            check_failures++;
        }
    }
    pp_sched_cyclic_report_free(&r);
}

/* One device: a (1, raises 1) -> b (2) -> c (1, gives it back), run
 * a [0,1], b [2,4], c [5,6]: work 4, span 6. Modulo 4, c lands at [1,2]
 * between a and b, so the device never idles; iteration k holds its unit
 * from 1 + 4k to 6 + 4k, so two iterations hold one each over [5,6) + 4k:
 * the level reaches 2. Modulo 3.5, b's [2,4] wraps onto a's [0,1]. */
static void device_and_memory(void)
{
    for (int cap = 0; cap < 2; cap++) {
        pp_sched_problem *p = pp_sched_problem_new();
        int g = pp_sched_add_device(p, "g", cap ? 2 : 1.5);
        int a = pp_sched_add_op(p, "a", "forward", 1, 0, 1), b = pp_sched_add_op(p, "b", "forward", 2, 0, 0);
        int c = pp_sched_add_op(p, "c", "backward", 1, 0, -1);
        pp_sched_allow(p, a, g), pp_sched_allow(p, b, g), pp_sched_allow(p, c, g);
        pp_sched_add_dep(p, a, b, 0), pp_sched_add_dep(p, b, c, 0);
        if (!(p = finish(p)))
            return;
        pp_sched_schedule *s = pp_sched_schedule_new(p);
        double start[] = {0, 2, 5};
        for (int i = 0; i < 3; i++)
            s->start[i] = start[i], s->end[i] = start[i] + p->duration[i];
        if (cap) {
            expect_cyclic(p, s, 4, true, NULL);
            expect_cyclic(p, s, 6, false, NULL);
            expect_cyclic(p, s, 4, false, "optimizer step");
            expect_cyclic(p, s, 3.5, true, "overlaps");
            pp_sched_cyclic_report r;
            pp_error err = {0};
            CHECK_EQ_INT(pp_sched_check_cyclic(p, s, 4, true, &r, &err), PP_OK);
            CHECK(r.peak_memory && r.peak_memory[0] == 2 && r.bubble == 0);
            pp_sched_cyclic_report_free(&r);
            CHECK_EQ_INT(pp_sched_check_cyclic(p, s, 8, true, &r, &err), PP_OK);
            CHECK(r.peak_memory && r.peak_memory[0] == 1 && r.bubble == 0.5);
            pp_sched_cyclic_report_free(&r);
        } else {
            expect_cyclic(p, s, 4, true, "holds up to 2");
            expect_cyclic(p, s, 6, false, NULL);
        }
        expect_cyclic(p, s, 0, true, "period must be");
        pp_sched_schedule_free(s);
        pp_sched_problem_free(p);
    }
}

/* Two devices, u1 [0,1] and u2 [1,2] on g0 each send 1.5 to v1 [2.5,2.6]
 * and v2 [4,4.1] on g1: the channel carries 3 per iteration, so a period
 * of 2 overlaps two transfers there while the devices fit; 3 fits. */
static void channel(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int g0 = pp_sched_add_device(p, "g0", INFINITY), g1 = pp_sched_add_device(p, "g1", INFINITY);
    int u1 = pp_sched_add_op(p, "u1", "forward", 1, 0, 0), u2 = pp_sched_add_op(p, "u2", "forward", 1, 0, 0);
    int v1 = pp_sched_add_op(p, "v1", "forward", 0.1, 0, 0), v2 = pp_sched_add_op(p, "v2", "forward", 0.1, 0, 0);
    pp_sched_allow(p, u1, g0), pp_sched_allow(p, u2, g0), pp_sched_allow(p, v1, g1), pp_sched_allow(p, v2, g1);
    pp_sched_add_dep(p, u1, v1, 1.5), pp_sched_add_dep(p, u2, v2, 1.5);
    if (!(p = finish(p)))
        return;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    double start[] = {0, 1, 2.5, 4};
    int device[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++)
        s->device[i] = device[i], s->start[i] = start[i], s->end[i] = start[i] + p->duration[i];
    s->transfer_start[0] = 1, s->transfer_end[0] = 2.5;
    s->transfer_start[1] = 2.5, s->transfer_end[1] = 4;
    expect_cyclic(p, s, 2, true, "on channel");
    expect_cyclic(p, s, 3, true, NULL);
    expect_cyclic(p, s, 3, false, NULL);
    CHECK(sc_cyclic_step_period(p, s) == 3);
    CHECK(pp_sched_cyclic_lower_bound(p, true) == 3);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* A device that keeps what an iteration takes cannot repeat it, nor has an
 * iteration where nothing takes time a least period: the solver says so
 * before searching. */
static void growing_level(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int g = pp_sched_add_device(p, "g", 10);
    int a = pp_sched_add_op(p, "a", "forward", 1, 0, 1);
    pp_sched_allow(p, a, g);
    if (!(p = finish(p)))
        return;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    s->end[0] = 1;
    expect_cyclic(p, s, 5, true, "grow");
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.objective = PP_SCHED_CYCLIC;
    o.max_rounds = 10;
    pp_sched_result r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_solve(p, &o, &r, &err), PP_EARG);
    CHECK(strstr(err.message, "give back") != NULL);
    pp_sched_problem *still = pp_sched_problem_new();
    pp_sched_add_op(still, "a", "forward", 0, 0, 0);
    pp_sched_add_device(still, "g", INFINITY);
    if ((still = finish(still))) {
        pp_error why = {0};
        CHECK_EQ_INT(pp_sched_solve(still, &o, &r, &why), PP_EARG);
        CHECK(strstr(why.message, "takes time") != NULL);
        pp_sched_problem_free(still);
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Three ops of length 1 or 2 on two devices, some forced (the memory pair
 * together, or free together), a random
 * acyclic set of dependencies with comm 0 or 1, and a memory pair (one op
 * raising 1, a later one giving it back) under capacity 1 or 2. Every schedule
 * with starts on a half-unit grid up to 4, transfers as soon as their
 * source ends, and every period in half units up to 6 that the checker
 * takes must be at least the bound; the least found is printed beside it. */
static pp_sched_problem *tiny(uint64_t *state)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "g0", 1 + (double)(next_random(state) % 2));
    pp_sched_add_device(p, "g1", 1 + (double)(next_random(state) % 2));
    int pair = (int)(next_random(state) % 3);
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "o%d", i);
        double adjust = i == 0 ? 1 : i == 2 ? -1 : 0;
        int op = pp_sched_add_op(p, name, "forward", 1 + (double)(next_random(state) % 2), 0, adjust);
        if (i != 1 ? pair < 2 : next_random(state) % 2)
            pp_sched_allow(p, op, i != 1 ? pair : (int)(next_random(state) % 2));
    }
    pp_sched_colocate(p, 0, 2);
    pp_sched_add_dep(p, 0, 2, 0);
    for (int i = 0; i < 2; i++)
        if (next_random(state) % 2)
            pp_sched_add_dep(p, i, i + 1, (double)(next_random(state) % 2));
    return finish(p);
}

static void place_transfers(const pp_sched_problem *p, pp_sched_schedule *s)
{
    for (int e = 0; e < p->dep_count; e++) {
        bool crossing = s->device[p->dep_from[e]] != s->device[p->dep_to[e]];
        s->transfer_start[e] = crossing ? s->end[p->dep_from[e]] : NAN;
        s->transfer_end[e] = crossing ? s->transfer_start[e] + p->dep_comm[e] : NAN;
    }
}

/* The least periods (synchronous, asynchronous) of the schedules of a
 * three-op, two-device problem with starts on a half-unit grid up to 4,
 * periods in half units up to 6; each one the checker takes must be at
 * least the bounds. */
static void least_periods(const pp_sched_problem *p, const double bound[2], double least[2])
{
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    least[0] = least[1] = INFINITY;
    for (int code = 0; s && code < 8 * 9 * 9 * 9; code++) {
        int c = code;
        for (int i = 0; i < 3; i++, c /= 9)
            s->start[i] = 0.5 * (c % 9), s->end[i] = s->start[i] + p->duration[i];
        for (int i = 0; i < 3; i++, c /= 2)
            s->device[i] = c % 2;
        place_transfers(p, s);
        pp_sched_report single;
        pp_error err = {0};
        bool valid = pp_sched_check(p, s, &single, &err) == PP_OK;
        pp_sched_report_free(&single);
        for (int half = 1; valid && half <= 12; half++)
            for (int async = 0; async < 2; async++) {
                pp_sched_cyclic_report r;
                if (pp_sched_check_cyclic(p, s, 0.5 * half, async, &r, &err) == PP_OK) {
                    least[async] = fmin(least[async], 0.5 * half);
                    CHECK(0.5 * half >= bound[async] - 1e-9);
                }
                pp_sched_cyclic_report_free(&r);
            }
    }
    pp_sched_schedule_free(s);
}

static void bound_brute_force(void)
{
    uint64_t state = 17;
    /* the brute force is the test's own: the sanitizer build takes a share */
    for (int trial = 0; trial < CHECK_ROUNDS(40); trial++) {
        pp_sched_problem *p = tiny(&state);
        if (!p)
            continue;
        double bound[2] = {pp_sched_cyclic_lower_bound(p, false), pp_sched_cyclic_lower_bound(p, true)}, least[2];
        least_periods(p, bound, least);
        double memory = sc_cyclic_memory_bound(p);
        fprintf(stderr, "tiny %2d: least period %g (bound %g), asynchronous %g (bound %g, memory's %g)\n", trial,
                least[0], bound[0], least[1], bound[1], memory);
        CHECK(least[1] <= least[0]);
        pp_sched_problem_free(p);
    }
}

/* Memory's bound where it is the largest: a on g0 takes 1 of g0's capacity
 * 1, b runs 2 on g1, c on g0 gives it back; a -> b -> c. Every other term
 * is 2 (b; each device's work; all work over the devices), but the memory
 * is held from a's end to c's end, at least b's 2 and c's 1 with the comm
 * forced between devices 0.5 each way: 4, and only one iteration's fits,
 * so T >= 4. The grid's least asynchronous period is 5: a's next copy
 * may not end before c ends, nor run beside it on g0. */
static void memory_binds(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "g0", 1);
    pp_sched_add_device(p, "g1", 10);
    int a = pp_sched_add_op(p, "a", "forward", 1, 0, 1), b = pp_sched_add_op(p, "b", "forward", 2, 0, 0);
    int c = pp_sched_add_op(p, "c", "forward", 1, 0, -1);
    pp_sched_allow(p, a, 0), pp_sched_allow(p, b, 1), pp_sched_allow(p, c, 0);
    pp_sched_add_dep(p, a, b, 0.5);
    pp_sched_add_dep(p, b, c, 0.5);
    p = finish(p);
    if (!p)
        return;
    double bound[2] = {pp_sched_cyclic_lower_bound(p, false), pp_sched_cyclic_lower_bound(p, true)}, least[2];
    CHECK(sc_cyclic_memory_bound(p) == 4);
    CHECK(bound[1] == 4 && bound[0] >= 4);
    least_periods(p, bound, least);
    fprintf(stderr, "memory binds: bound %g, least asynchronous period %g\n", bound[1], least[1]);
    CHECK(least[1] == 5);
    pp_sched_problem_free(p);
}

/* The zero-bubble pipeline below P micro-batches of activations: stage 0
 * holds each micro-batch's activations from its F's end through every
 * later stage and back to its B's end, and the W's share until W ends,
 * so with K of them at most T >= M ((P - 1)(2 comm + T_F + T_B) + T_B +
 * w T_W) / K, above the work; the solver's period is not below it. */
static void memory_pipeline(void)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_ZB, .mem_act = 2, .comm = 0.5,
                         .t_f = 1, .t_b = 1.5, .t_w = 1, .w_mem = 0.25};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, NULL, &err), PP_OK);
    if (!p)
        return;
    double expected = 8 * (3 * (2 * 0.5 + 1 + 1.5) + 1.5 + 0.25 * 1) / 2;
    CHECK(fabs(sc_cyclic_memory_bound(p) - expected) < 1e-9 * expected);
    CHECK(fabs(pp_sched_cyclic_lower_bound(p, true) - expected) < 1e-9 * expected);
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.objective = PP_SCHED_CYCLIC_ASYNC;
    o.max_rounds = 500;
    o.threads = 1;
    o.seed = 3;
    pp_sched_result r;
    CHECK_EQ_INT(pp_sched_solve(p, &o, &r, &err), PP_OK);
    if (r.schedule) {
        pp_sched_cyclic_report c;
        CHECK_EQ_INT(pp_sched_check_cyclic(p, r.schedule, r.period, true, &c, &err), PP_OK);
        pp_sched_cyclic_report_free(&c);
        CHECK(r.period >= r.period_bound - 1e-9 && fabs(r.period_bound - expected) < 1e-9 * expected);
        fprintf(stderr, "ZB P=4 M=8 K=2: asynchronous period %g, bound %g (work 28)\n", r.period, r.period_bound);
    }
    pp_sched_result_free(&r);
    pp_sched_problem_free(p);
}

/* The solver on 1F1B's problem at P = 4, M = 8, limit P, comm 0.3 (the
 * synchronous period is the longest span, 28.8): fixed rounds and one
 * thread, so the asynchronous run starts from the synchronous answer. */
static void solved(void)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_1F1B, .mem_act = 4, .comm = 0.3};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, NULL, &err), PP_OK);
    if (!p)
        return;
    double period[2] = {NAN, NAN};
    for (int async = 0; async < 2; async++) {
        pp_sched_options o;
        pp_sched_options_default(&o);
        o.objective = async ? PP_SCHED_CYCLIC_ASYNC : PP_SCHED_CYCLIC;
        o.max_rounds = 2000;
        o.threads = 1;
        o.seed = 3;
        pp_sched_result r;
        CHECK_EQ_INT(pp_sched_solve(p, &o, &r, &err), PP_OK);
        if (!r.schedule)
            continue;
        period[async] = r.period;
        CHECK(r.schedule->period == r.period);
        CHECK(r.period >= r.period_bound - 1e-9 && r.period_bound == pp_sched_cyclic_lower_bound(p, async));
        pp_sched_cyclic_report c;
        CHECK_EQ_INT(pp_sched_check_cyclic(p, r.schedule, r.period, async, &c, &err), PP_OK);
        pp_sched_cyclic_report_free(&c);
        pp_sched_report single;
        CHECK_EQ_INT(pp_sched_check(p, r.schedule, &single, &err), PP_OK);
        if (!async)
            CHECK(fabs(r.period - single.max_span) < 1e-9);
        pp_sched_report_free(&single);
        pp_sched_result_free(&r);
    }
    fprintf(stderr, "1F1B P=4 M=8 limit 4: period %g, asynchronous %g (work 24)\n", period[0], period[1]);
    CHECK(period[1] <= period[0] + 1e-9);
    pp_sched_problem_free(p);
}

/* ZB-V's reference repeated at its least synchronous period: valid, and
 * that period is its longest span at unit times (no channel window is
 * longer). */
static void zb_v_repeated(void)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_ZBV, .mem_act = 8};
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
    if (p && s) {
        double T = sc_cyclic_step_period(p, s);
        pp_sched_report single;
        CHECK_EQ_INT(pp_sched_check(p, s, &single, &err), PP_OK);
        CHECK(T == single.max_span);
        pp_sched_report_free(&single);
        expect_cyclic(p, s, T, false, NULL);
        expect_cyclic(p, s, T - 0.5, false, "optimizer step");
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* gen -> schedule --objective cyclic -> check-schedule, which takes the
 * written "period"; --period overrides it. */
static void commands(void)
{
    char command[2048];
    const char *tmp = "sched_cyclic_tmp";
    snprintf(command, sizeof command,
             "%s gen pipeline --pp 4 --microbatches 8 --scheme 1f1b --mem-act 4 --comm 0.3 --out %s-p.json && "
             "%s schedule %s-p.json --objective cyclic-async --timeout 1 --threads 1 --quiet --out %s-s.json && "
             "grep -c '\"period\"' %s-s.json",
             PP_CLI, tmp, PP_CLI, tmp, tmp, tmp);
    expect(command, 0, "1");
    snprintf(command, sizeof command, "%s check-schedule %s-p.json %s-s.json --async", PP_CLI, tmp, tmp);
    expect(command, 0, "valid repeated (asynchronous)");
    snprintf(command, sizeof command, "%s check-schedule %s-p.json %s-s.json --period 20", PP_CLI, tmp, tmp);
    expect(command, 1, "INVALID");
    snprintf(command, sizeof command, "sed 's/\"period\": [0-9.e+]*/\"period\": 0/' %s-s.json > %s-z.json && "
             "%s check-schedule %s-p.json %s-z.json", tmp, tmp, PP_CLI, tmp, tmp);
    expect(command, 2, "period");
    snprintf(command, sizeof command, "rm -f %s-p.json %s-s.json %s-z.json", tmp, tmp, tmp);
    expect(command, 0, NULL);
}

int main(void)
{
    device_and_memory();
    channel();
    growing_level();
    bound_brute_force();
    memory_binds();
    memory_pipeline();
    solved();
    zb_v_repeated();
    commands();
    return CHECK_DONE();
}
