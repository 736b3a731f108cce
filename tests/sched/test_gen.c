/* test_gen.c: the generators of paper 002 section V. Pipeline problems: the
 * schemes' reference schedules pass the checker on the problem itself, peak
 * at DeepSeek-V3 table 2's activation memory (PP for 1F1B and ZB1P, PP+1
 * for DualPipe, which therefore fails at PP) and measure table 2's bubbles;
 * fused backwards send their gradient after W, zero-bubble ones after B, and
 * DualPipe's F&B pairs send the forward's output after the pair;
 * bad specs are refused. Random graphs: degrees within the bound, acyclic,
 * the same for a seed and different across seeds, with a critical path well
 * below the work per device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "qi_pipeline.h"
#include "sched/sched_internal.h"

static const char *const scheme_name[] = {"1F1B", "ZB1P", "DualPipe"};

/* Largest per-device bubble of DeepSeek-V3's table 2 with F = W = 1 and a
 * full backward B = 2. The references meet it because they send what the
 * schemes send when they send it: 1F1B's fused backwards after W, ZB1P's
 * backwards after B, DualPipe's forwards in an F&B pair after the pair.
 * Sending those forwards when F ends halves DualPipe's bubble to P/2-1. */
static double table2_bubble(pp_pipe_scheme scheme, int P)
{
    if (scheme == PP_PIPE_1F1B)
        return (P - 1) * 3.0;
    if (scheme == PP_PIPE_ZB1P)
        return (P - 1) * 1.0;
    return (P / 2 - 1) * 2.0;
}

/* Generates, checks and measures one reference; returns the checker's status. */
static pp_status run_reference(pp_pipe_scheme scheme, int P, int M, double mem_act, double comm,
                               double *peak_act, double *max_bubble)
{
    pp_pipe_spec spec = {.stages = P, .microbatches = M, .scheme = scheme, .mem_act = mem_act, .comm = comm};
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
    if (!p || !s) {
        fprintf(stderr, "%s P=%d M=%d: %s\n", scheme_name[scheme], P, M, err.message);
        return PP_EARG;
    }
    CHECK_EQ_INT(p->op_count, 3 * P * M);
    CHECK_EQ_INT(p->device_count, P);
    double params = scheme == PP_PIPE_DUALPIPE ? 2 : 1;
    pp_sched_report r;
    pp_status st = pp_sched_check(p, s, &r, &err);
    *peak_act = 0;
    for (int d = 0; d < P; d++) {
        CHECK(p->capacity[d] == params + mem_act);
        *peak_act = fmax(*peak_act, r.peak_memory[d] - params);
    }
    *max_bubble = r.max_bubble;
    if (st != PP_OK && mem_act > P)
        fprintf(stderr, "%s P=%d M=%d comm=%g: %s\n", scheme_name[scheme], P, M, comm, err.message);
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return st;
}

/* Below the activations a scheme's schedule holds there is no reference: the
 * generator refuses rather than hand out one the checker rejects. */
static void reference_refused(pp_pipe_scheme scheme, int P, int M, double mem_act)
{
    pp_pipe_spec spec = {.stages = P, .microbatches = M, .scheme = scheme, .mem_act = mem_act};
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_EARG);
    CHECK(p == NULL && s == NULL && strstr(err.message, "does not fit") != NULL);
}

static void pipeline_references(void)
{
    static const int cases[][2] = {{2, 4}, {4, 8}, {8, 16}, {8, 20}};
    for (int c = 0; c < 4; c++)
        for (int scheme = 0; scheme < 3; scheme++) {
            int P = cases[c][0], M = cases[c][1];
            double peak, bubble;
            CHECK_EQ_INT(run_reference(scheme, P, M, P + 1, 0, &peak, &bubble), PP_OK);
            double want_peak = scheme == PP_PIPE_DUALPIPE ? P + 1 : P;
            fprintf(stderr, "%-8s P=%d M=%2d: peak activations %g (table 2: %g), largest bubble %g "
                    "(table 2: %g)\n", scheme_name[scheme], P, M, peak, want_peak, bubble,
                    table2_bubble(scheme, P));
            CHECK(peak == want_peak);
            CHECK(bubble == table2_bubble(scheme, P));
            if (scheme == PP_PIPE_DUALPIPE)
                reference_refused(scheme, P, M, P);
        }
}

/* With transfer times the references still pass: the channels carry them. */
static void pipeline_with_comm(void)
{
    for (int scheme = 0; scheme < 3; scheme++) {
        double peak, bubble;
        CHECK_EQ_INT(run_reference(scheme, 4, 10, 5, 0.5, &peak, &bubble), PP_OK);
        CHECK_EQ_INT(run_reference(scheme, 4, 10, 5, 2, &peak, &bubble), PP_OK);
    }
}

/* Of the reference's input-gradient transfers B{m}.{s} -> B{m}.{s-1}, how
 * many start before W{m}.{s} ends (sent after B alone), and how many there
 * are. */
static void count_early_sends(pp_pipe_scheme scheme, int *early, int *total)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = scheme, .mem_act = 5, .comm = 0.5};
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    *early = *total = 0;
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
    if (!p || !s)
        return;
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    pp_sched_report_free(&r);
    for (int e = 0; e < p->dep_count; e++) {
        const char *from = p->op_name[p->dep_from[e]], *to = p->op_name[p->dep_to[e]];
        if (from[0] != 'B' || to[0] != 'B')
            continue;
        char w[32];
        snprintf(w, sizeof w, "W%s", from + 1);
        int wop = pp_sched_find_op(p, w);
        CHECK(wop >= 0);
        CHECK(s->transfer_start[e] >= s->end[p->dep_from[e]]);
        *early += wop >= 0 && s->transfer_start[e] < s->end[wop];
        ++*total;
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* 1F1B sends every gradient after W; ZB1P never waits for W (a transfer,
 * 0.5, is shorter than the op before the next one, so the channel is free);
 * DualPipe sends after W except where dualpipe.py defers W. At P = 4 it
 * defers 10 backwards: ranks 0 and 3 one each in steps 3, 6 and 7, ranks 1
 * and 2 two in step 6. Those of steps 6 and 7 on ranks 0 and 3 are a first
 * stage's, which sends nothing, leaving 6. */
static void pipeline_send_times(void)
{
    int early, total;
    count_early_sends(PP_PIPE_1F1B, &early, &total);
    CHECK(total == 8 * 3 && early == 0);
    count_early_sends(PP_PIPE_ZB1P, &early, &total);
    CHECK(total == 8 * 3 && early == total);
    count_early_sends(PP_PIPE_DUALPIPE, &early, &total);
    CHECK(total == 8 * 3 && early == 6);
}

/* Of the reference's forward transfers F{m}.{s} -> F{m}.{s+1} at P = 4,
 * M = 8 and no transfer time, how many leave after their F (held); every
 * other one leaves as F ends, and a held one at least two ops later (the
 * pair's B and W run after F). */
static int count_held_forwards(pp_pipe_scheme scheme)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = scheme, .mem_act = 5};
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
    if (!p || !s)
        return -1;
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    pp_sched_report_free(&r);
    int held = 0;
    for (int e = 0; e < p->dep_count; e++) {
        int from = p->dep_from[e];
        if (p->op_name[from][0] != 'F' || p->op_name[p->dep_to[e]][0] != 'F')
            continue;
        double start = s->transfer_start[e], end = s->end[from];
        CHECK(start == end || start >= end + 2);
        held += start > end;
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return held;
}

/* 1F1B and ZB1P send every forward's output when it ends. DualPipe at
 * P = 4, M = 8 runs 12 F&B pairs, 3 per rank: ranks 0 and 3 one in step 4
 * whose forward sends and two (one in step 4, one in step 5) whose forward
 * is a last stage's, which sends nothing; the middle ranks 1 and 2 three in
 * step 4 (its first F and B left apart, as dualpipe.py does), all sending.
 * That holds 8. */
static void pipeline_forward_sends(void)
{
    CHECK_EQ_INT(count_held_forwards(PP_PIPE_1F1B), 0);
    CHECK_EQ_INT(count_held_forwards(PP_PIPE_ZB1P), 0);
    CHECK_EQ_INT(count_held_forwards(PP_PIPE_DUALPIPE), 8);
}

/* Names, kinds, dependencies and weights of one small problem, by hand. */
static void pipeline_shape(void)
{
    pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_DUALPIPE, .mem_act = 5,
                         .param_mem = 3, .comm = 0.25};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, NULL, &err), PP_OK);
    if (!p)
        return;
    int f = pp_sched_find_op(p, "F5.1"), b = pp_sched_find_op(p, "B5.1"), w = pp_sched_find_op(p, "W5.1");
    CHECK(f >= 0 && b >= 0 && w >= 0);
    CHECK(strcmp(p->op_kind[f], "forward") == 0 && strcmp(p->op_kind[b], "backward_input") == 0 &&
          strcmp(p->op_kind[w], "backward_weight") == 0);
    CHECK(p->adjust[f] == 1 && p->adjust[b] == -1 && p->adjust[w] == 0);
    /* Micro-batch 5 flows up: stage 1 runs on dev2. */
    CHECK(!pp_sched_op_allowed(p, f, 1) && pp_sched_op_allowed(p, f, 2));
    CHECK(pp_sched_has_channel(p, 1, 2) && pp_sched_has_channel(p, 2, 1) && !pp_sched_has_channel(p, 0, 2));
    double weight[4] = {0};
    for (int i = 0; i < p->op_count; i++)
        for (int d = 0; d < 4; d++)
            if (pp_sched_op_allowed(p, i, d))
                weight[d] += p->weight[i];
    for (int d = 0; d < 4; d++)
        CHECK(weight[d] == 6 && p->capacity[d] == 11);
    int found = 0;
    for (int e = 0; e < p->dep_count; e++) {
        const char *from = p->op_name[p->dep_from[e]], *to = p->op_name[p->dep_to[e]];
        found += strcmp(from, "F5.1") == 0 && strcmp(to, "F5.2") == 0 && p->dep_comm[e] == 0.25;
        found += strcmp(from, "B5.2") == 0 && strcmp(to, "B5.1") == 0 && p->dep_comm[e] == 0.25;
        found += strcmp(from, "F5.3") == 0 && strcmp(to, "B5.3") == 0 && p->dep_comm[e] == 0;
        found += strcmp(from, "B5.1") == 0 && strcmp(to, "W5.1") == 0 && p->dep_comm[e] == 0;
    }
    CHECK_EQ_INT(found, 4);
    CHECK_EQ_INT(p->dep_count, 8 * (2 * 3 + 1 + 4));
    pp_sched_problem_free(p);
}

static void expect_refused(pp_pipe_spec spec, const char *needle)
{
    pp_sched_problem *p = NULL;
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_EARG);
    CHECK(p == NULL && s == NULL);
    if (!strstr(err.message, needle)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", needle, err.message);
        check_failures++;
    }
}

static void pipeline_refusals(void)
{
    pp_pipe_spec ok = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_DUALPIPE, .mem_act = 5};
    pp_pipe_spec bad = ok;
    bad.stages = 1;
    expect_refused(bad, "stages");
    bad = ok;
    bad.microbatches = 0;
    expect_refused(bad, "micro-batches");
    bad = ok;
    bad.mem_act = 0;
    expect_refused(bad, "activation");
    bad = ok;
    bad.comm = -1;
    expect_refused(bad, "transfer");
    bad = ok;
    bad.microbatches = 6;
    expect_refused(bad, "DualPipe");
    bad = ok;
    bad.stages = 3;
    bad.microbatches = 12;
    expect_refused(bad, "DualPipe");
    bad = ok;
    bad.scheme = (pp_pipe_scheme)7;
    expect_refused(bad, "scheme");
    bad = ok;
    bad.param_mem = -3;
    expect_refused(bad, "parameter memory");
    /* 1F1B's own schedule holds P = 4 micro-batches on its first device. */
    bad = ok;
    bad.scheme = PP_PIPE_1F1B;
    bad.mem_act = 3;
    expect_refused(bad, "does not fit an activation budget of 3");
}

/* Longest path through the ops' durations (transfers left out: both ends
 * may share a device). */
static double critical_path(const pp_sched_problem *p)
{
    double *finish = calloc((size_t)p->op_count, sizeof(double)), longest = 0;
    for (int k = 0; k < p->op_count; k++) {
        int v = p->topo_order[k];
        double start = 0;
        for (int j = p->pred_start[v]; j < p->pred_start[v + 1]; j++)
            start = fmax(start, finish[p->dep_from[p->pred_dep[j]]]);
        finish[v] = start + p->duration[v];
        longest = fmax(longest, finish[v]);
    }
    free(finish);
    return longest;
}

static bool same_graph(const pp_sched_problem *a, const pp_sched_problem *b)
{
    if (a->op_count != b->op_count || a->dep_count != b->dep_count)
        return false;
    for (int i = 0; i < a->op_count; i++)
        if (a->duration[i] != b->duration[i] || a->weight[i] != b->weight[i])
            return false;
    for (int e = 0; e < a->dep_count; e++)
        if (a->dep_from[e] != b->dep_from[e] || a->dep_to[e] != b->dep_to[e] || a->dep_comm[e] != b->dep_comm[e])
            return false;
    return true;
}

static void random_shape(const pp_sched_problem *p, int max_degree, int *sources, int *sinks)
{
    *sources = *sinks = 0;
    for (int i = 0; i < p->op_count; i++) {
        int in = p->pred_start[i + 1] - p->pred_start[i], out = p->succ_start[i + 1] - p->succ_start[i];
        CHECK(in <= max_degree && out <= max_degree);
        CHECK(p->duration[i] >= 1 && p->duration[i] <= 10 && p->duration[i] == floor(p->duration[i]));
        *sources += in == 0;
        *sinks += out == 0;
    }
    for (int e = 0; e < p->dep_count; e++)
        CHECK(p->dep_comm[e] >= 1 && p->dep_comm[e] <= 3);
    for (int a = 0; a < p->device_count; a++) {
        CHECK(isinf(p->capacity[a]));
        for (int b = 0; b < p->device_count; b++)
            CHECK(pp_sched_has_channel(p, a, b) == (a != b));
    }
}

static void random_graphs(void)
{
    pp_sched_problem *previous = NULL;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        pp_random_spec spec = {.ops = 200, .max_degree = 3, .devices = 2, .seed = seed};
        pp_sched_problem *p = NULL, *again = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_random(&spec, &p, &err), PP_OK);
        CHECK_EQ_INT(pp_sched_gen_random(&spec, &again, &err), PP_OK);
        if (!p || !again)
            break;
        CHECK_EQ_INT(p->op_count, 200);
        CHECK(same_graph(p, again));
        CHECK(!previous || !same_graph(p, previous));
        int sources, sinks;
        random_shape(p, 3, &sources, &sinks);
        double work = 0, path = critical_path(p);
        for (int i = 0; i < p->op_count; i++)
            work += p->duration[i];
        fprintf(stderr, "random seed %2llu: %d deps, %d sources, %d sinks, critical path %g, "
                "work / 2 devices %g\n", (unsigned long long)seed, p->dep_count, sources, sinks,
                path, work / 2);
        CHECK(sources <= 3 && sinks <= 5);
        CHECK(path <= 0.5 * work / 2);
        pp_sched_problem_free(again);
        pp_sched_problem_free(previous);
        previous = p;
    }
    pp_sched_problem_free(previous);
    for (int degree = 1; degree <= 4; degree++) {
        pp_random_spec spec = {.ops = 300, .max_degree = degree, .devices = 3, .seed = 99};
        pp_sched_problem *p = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_random(&spec, &p, &err), PP_OK);
        int sources, sinks;
        if (p)
            random_shape(p, degree, &sources, &sinks);
        pp_sched_problem_free(p);
    }
    pp_random_spec bad = {.ops = 0, .max_degree = 3, .devices = 2, .seed = 1};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_random(&bad, &p, &err), PP_EARG);
    CHECK(p == NULL && strstr(err.message, "ops") != NULL);
}

/* Stated as practitioners state it: op times, transfer time and the share
 * of the activations W keeps. The ops carry the times and the split, and
 * the references still fit P micro-batches. 1F1B without transfers takes
 * (M + P - 1)(t_f + t_b + t_w) (Narayanan et al.: a bubble of P - 1 fused
 * passes), and ZB1P, deferring W, is shorter. */
static void pipeline_timed(void)
{
    static const double times[][3] = {{3, 5, 2}, {5478, 5806, 3534}};
    for (int t = 0; t < 2; t++)
        for (int scheme = 0; scheme < 2; scheme++) {
            pp_pipe_spec spec = {.stages = 4, .microbatches = 12, .scheme = (pp_pipe_scheme)scheme,
                                 .mem_act = 4, .t_f = times[t][0], .t_b = times[t][1], .t_w = times[t][2],
                                 .w_mem = 0.25};
            pp_sched_problem *p = NULL;
            pp_sched_schedule *s = NULL;
            pp_error err = {0};
            CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
            if (!p || !s)
                continue;
            for (int k = 0; k < 3; k++) {
                CHECK(p->duration[k] == times[t][k]);
                CHECK(p->adjust[k] == (k == 0 ? 1 : k == 1 ? -0.75 : -0.25));
            }
            pp_sched_report r;
            CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
            double fused = times[t][0] + times[t][1] + times[t][2];
            if (scheme == PP_PIPE_1F1B)
                CHECK(r.makespan == (12 + 4 - 1) * fused);
            else
                CHECK(r.makespan < (12 + 4 - 1) * fused);
            CHECK(r.peak_memory[0] <= 1 + 4);
            pp_sched_report_free(&r);
            pp_sched_schedule_free(s);
            pp_sched_problem_free(p);
        }
    pp_pipe_spec bad = {.stages = 4, .microbatches = 8, .scheme = PP_PIPE_1F1B, .mem_act = 4, .w_mem = 1.5};
    expect_refused(bad, "W share");
    bad.w_mem = 0;
    bad.t_b = -1;
    expect_refused(bad, "op times");
}

/* The zero-bubble greedy (--scheme zb) at Qi et al.'s times (T_F 5478,
 * T_B 5806, T_W 3534, comm 200): with 2P micro-batches of activations it
 * sits on parplan's lower bound at P = 8 and 16 (the table: 10.05%
 * and 10.69% bubble), never longer than ZB1P, and at P = 64 with 256
 * micro-batches too (about a second in a release build). With P micro-batches
 * it is no longer than Sea AI's zero-bubble heuristic as issue 17 measured it
 * (bubbles 5.94%, 15.28% and 15.71% at P = 8, 16 and 32, as printed: to two
 * decimals), and at P = 8 with 64 micro-batches on the bound when W keeps
 * none of the activations. Their code lets W keep 32h of a forward's
 * 34h + 5as: 0.28 at h = 4096, a = 32, s = 2048 and 0.43 at s = 1024, so
 * the greedy is held to those figures at both shares and at none. */
static double zb_makespan(int P, int M, double mem_act, double w_mem, pp_pipe_scheme scheme, double *bound,
                          double *seconds)
{
    pp_sched_schedule *s = NULL;
    pp_error err = {0};
    double started = pp_now();
    pp_sched_problem *p = qi_pipeline(P, M, scheme, mem_act, w_mem, &s);
    *seconds = pp_now() - started;
    if (!p || !s)
        return INFINITY;
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    double makespan = r.makespan;
    *bound = pp_sched_lower_bound(p);
    pp_sched_report_free(&r);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return makespan;
}

static void pipeline_zero_bubble_greedy(void)
{
    static const int cases[][3] = {{8, 24, 16}, {16, 48, 32}, {8, 64, 8}, {16, 48, 16}, {32, 96, 32}};
    static const double heuristic_bubble[] = {NAN, NAN, 5.94, 15.28, 15.71};
    static const double w_mems[] = {0, 0.28, 0.43};
    for (int c = 0; c < 5; c++)
        for (int k = 0; k < 3; k++) {
            int P = cases[c][0], M = cases[c][1];
            double bound, seconds, zb1p_bound;
            double zb = zb_makespan(P, M, cases[c][2], w_mems[k], PP_PIPE_ZB, &bound, &seconds);
            double zb1p = zb_makespan(P, M, cases[c][2], w_mems[k], PP_PIPE_ZB1P, &zb1p_bound, &seconds);
            double bubble = 100 * (1 - M * 14818.0 / zb);
            fprintf(stderr, "zb P=%d M=%d limit %d w-mem %g: makespan %g (bubble %.2f%%), ZB1P %g, bound %g\n", P,
                    M, cases[c][2], w_mems[k], zb, bubble, zb1p, bound);
            CHECK(zb <= zb1p);
            if (cases[c][2] == 2 * P || (M == 64 && w_mems[k] == 0))
                CHECK(zb <= bound * (1 + 1e-12));
            if (cases[c][2] == P)
                CHECK(bubble < heuristic_bubble[c] + 0.005);
        }
    double bound, seconds;
    double big = zb_makespan(64, 256, 128, 0, PP_PIPE_ZB, &bound, &seconds);
    fprintf(stderr, "zb P=64 M=256 limit 2P: makespan %g, bound %g, %.2f s\n", big, bound, seconds);
    /* On the bound; the time is printed, not asserted: sanitizer builds take several times longer. */
    CHECK(big <= bound * (1 + 1e-12));
}

/* --in-order: per stage, each kind in micro-batch order, by one costless
 * dependency per stage, kind and pair of consecutive micro-batches
 * (DualPipe: within each direction). Every scheme's reference keeps it. */
static void pipeline_in_order(void)
{
    for (int scheme = 0; scheme < 4; scheme++) {
        pp_pipe_spec spec = {.stages = 4, .microbatches = 8, .scheme = (pp_pipe_scheme)scheme, .mem_act = 5};
        pp_sched_problem *plain = NULL, *p = NULL;
        pp_sched_schedule *s = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &plain, NULL, &err), PP_OK);
        spec.in_order = true;
        CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, &s, &err), PP_OK);
        if (plain && p && s) {
            int pairs = scheme == PP_PIPE_DUALPIPE ? 8 - 2 : 8 - 1;
            CHECK_EQ_INT(p->dep_count, plain->dep_count + 3 * 4 * pairs);
            int f1 = pp_sched_find_op(p, "F1.2"), f2 = pp_sched_find_op(p, "F2.2");
            CHECK(s->end[f1] <= s->start[f2]);
            pp_sched_report r;
            CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
            pp_sched_report_free(&r);
        }
        pp_sched_schedule_free(s);
        pp_sched_problem_free(p);
        pp_sched_problem_free(plain);
    }
}

int main(void)
{
    pipeline_references();
    pipeline_with_comm();
    pipeline_send_times();
    pipeline_forward_sends();
    pipeline_shape();
    pipeline_refusals();
    pipeline_timed();
    pipeline_zero_bubble_greedy();
    pipeline_in_order();
    random_graphs();
    return CHECK_DONE();
}
