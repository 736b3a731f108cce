/* schedule.c: the chosen plan's pipeline handed to the operator scheduler
 * (parplan/sched.h), which may find a better order than 1F1B. One
 * replica's stages are its devices, each with the memory its state leaves;
 * micro-batch m runs F, B and W on every stage, B the input gradient and W
 * the weight gradient as zero-bubble pipelining splits the backward (Qi et
 * al., arXiv 2401.10241: W needs only the layer's own input, so it can
 * fill the bubbles). From the sharder's figures: F the forward; W the
 * weight gradients' products, as long as the forward's compute; B the
 * rest of the backward (the input gradients' products and the
 * collectives). F keeps the stage's activations, W gives them back; a
 * stage's output crosses to the next one in one hop, its gradient back.
 * Times in microseconds, as src/shard/to_sched.c states a model's.
 *
 * The schedule's order, each stage's ops by their start, is what the plan
 * may run in place of 1F1B: the simulator runs it (pp_cluster_sim_options
 * order) with W the same share of each backward, and judges it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "parplan/sched.h"
#include "plan/plan_internal.h"
#include "sched/sched_internal.h"

#define MIN_SECONDS 2.0

static double micros(double seconds)
{
    return seconds * 1e6;
}

/* W: the weight gradients' products, as long as the forward's compute,
 * within the backward */
static double weights(const plan_stage_cost *sc, int32_t M)
{
    return fmax(0, fmin(sc->forward - sc->collective, sc->backward + sc->sync / M));
}

static pp_status build(const plan_ctx *X, const plan_candidate *c, const double *hop, const double *tail,
                       pp_sched_problem *p, pp_error *err)
{
    int32_t P = c->P, M = c->M;
    char name[64];
    pp_sched_set_time_unit(p, "us");
    for (int32_t s = 0; s < P; s++) {
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        snprintf(name, sizeof name, "stage%d", s);
        double room = plan_capacity(X, X->meshes[c->mesh[s]].type) - sc.state;
        pp_sched_add_device(p, name, room > 0 ? room : 0);
        if (s > 0) {
            pp_sched_add_channel(p, s - 1, s);
            pp_sched_add_channel(p, s, s - 1);
        }
    }
    for (int32_t s = 0; s < P; s++) {
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        double w = weights(&sc, M), b = sc.backward + sc.sync / M - w;
        for (int32_t m = 0; m < M; m++) {
            snprintf(name, sizeof name, "F%d.%d", s, m);
            int f = pp_sched_add_op(p, name, "forward", micros(sc.forward), 0, sc.activations);
            snprintf(name, sizeof name, "B%d.%d", s, m);
            int bo = pp_sched_add_op(p, name, "backward", micros(b), 0, 0);
            snprintf(name, sizeof name, "W%d.%d", s, m);
            int wo = pp_sched_add_op(p, name, "weights", micros(w), 0, -sc.activations);
            pp_sched_allow(p, f, s);
            pp_sched_allow(p, bo, s);
            pp_sched_allow(p, wo, s);
            pp_sched_add_dep(p, f, bo, 0);
            pp_sched_add_dep(p, bo, wo, 0);
        }
    }
    /* ops were added stage by stage, three per micro-batch */
    for (int32_t s = 0; s + 1 < P; s++)
        for (int32_t m = 0; m < M; m++) {
            int here = 3 * (s * M + m), next = 3 * ((s + 1) * M + m);
            pp_sched_add_dep(p, here, next, micros(hop[s]));
            pp_sched_add_dep(p, next + 1, here + 1, micros(hop[s]));
        }
    /* each stage's tail after its last W: the scheduler then minimises the
     * step, not the pipeline alone (a stage with a long gradient sync
     * should end its W's first) */
    for (int32_t s = 0; s < P; s++) {
        snprintf(name, sizeof name, "T%d", s);
        int t = pp_sched_add_op(p, name, "tail", micros(tail[s]), 0, 0);
        pp_sched_allow(p, t, s);
        for (int32_t m = 0; m < M; m++)
            pp_sched_add_dep(p, 3 * (s * M + m) + 2, t, 0);
    }
    return pp_sched_problem_finish(p, "plan", err);
}

/* Each stage's ops by their start in the schedule, the most activations
 * each holds, W's share of each backward. The micro-batches are alike, so
 * each kind's k-th op on every stage runs micro-batch k (first in, first
 * out): the schedule stays valid (its k-th B has k F's before it, and so
 * on across stages), and the simulator's transfers, sent as their ops
 * end, arrive in the order their receivers take them. */
static bool order_of(const plan_ctx *X, const plan_candidate *c, const pp_sched_schedule *sch, plan_order *o)
{
    int32_t P = c->P, M = c->M;
    o->ops = pp_arena_alloc(X->arena, (size_t)P * sizeof *o->ops);
    o->share = pp_arena_alloc(X->arena, (size_t)P * sizeof *o->share);
    o->held = pp_arena_calloc(X->arena, (size_t)P, sizeof *o->held);
    pp_keyed *op = pp_arena_alloc(X->arena, (size_t)3 * M * sizeof *op);
    bool ok = o->ops && o->share && o->held && op;
    for (int32_t s = 0; ok && s < P; s++) {
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        double backward = sc.backward + sc.sync / M;
        o->share[s] = backward > 0 ? weights(&sc, M) / backward : 0;
        o->ops[s] = pp_arena_alloc(X->arena, (size_t)3 * M * sizeof **o->ops);
        ok = o->ops[s] != NULL;
        for (int32_t k = 0; k < 3 * M; k++)
            op[k] = (pp_keyed){sch->start[3 * s * M + k], k};
        /* a zero-length op starts with the next: its index (F, B, W of a
         * micro-batch in turn) keeps them in order */
        qsort(op, (size_t)3 * M, sizeof *op, pp_by_key_then_index);
        int next[3] = {0, 0, 0};
        for (int32_t k = 0, live = 0; ok && k < 3 * M; k++) {
            int kind = op[k].index % 3;
            o->ops[s][k] = (pp_cluster_op){(pp_cluster_op_kind)kind, next[kind]++};
            live += kind == 0 ? 1 : kind == 2 ? -1 : 0;
            o->held[s] = live > o->held[s] ? live : o->held[s];
        }
    }
    return ok;
}

pp_status plan_schedule(const plan_ctx *X, const plan_candidate *c, const double *hop, const double *tail,
                        double seconds, double *makespan, double *bound, plan_order *order, pp_error *err)
{
    *makespan = *bound = NAN;
    /* The scheduler's local search runs in epochs of a fixed amount of work
     * (src/sched/solve.c's EPOCH_WORK) and looks at its deadline and its
     * bound only between them: one epoch took 1.5 s at load 10 (9 s under
     * ASan) even on a 24-op pipeline its start had already solved to the
     * bound. With less than MIN_SECONDS for it, it is not run. */
    if (c->P < 2 || seconds < MIN_SECONDS || (double)c->P * c->M * 3 > 1e6)
        return PP_OK;
    pp_sched_problem *p = pp_sched_problem_new();
    if (!p)
        return pp_error_set(err, PP_ENOMEM, "out of memory for the pipeline's schedule");
    /* a problem the scheduler refuses (a stage whose state leaves no room)
     * or cannot order within memory gives no figure, not an error */
    pp_error mine = {0};
    pp_status st = build(X, c, hop, tail, p, &mine);
    pp_sched_result r = {0};
    if (st == PP_OK) {
        pp_sched_options o;
        pp_sched_options_default(&o);
        o.time_limit = seconds;
        o.threads = X->req->threads;
        o.seed = X->req->seed;
        o.stop = X->req->stop;
        o.no_mip = true;
        st = pp_sched_solve(p, &o, &r, &mine);
    }
    if (st == PP_OK && r.schedule) {
        /* the scheduler's own checker, which shares nothing with its search */
        pp_sched_report check = {0};
        pp_error why = {0};
        if (pp_sched_check(p, r.schedule, &check, &why) == PP_OK) {
            *makespan = check.makespan / 1e6;
            *bound = r.lower_bound / 1e6;
            if (!order_of(X, c, r.schedule, order))
                st = pp_error_set(&mine, PP_ENOMEM, "out of memory for the pipeline's order");
        }
        pp_sched_report_free(&check);
    }
    if (st == PP_ENOMEM)
        pp_error_set(err, st, "%s", mine.message);
    else
        st = PP_OK;
    pp_sched_result_free(&r);
    pp_sched_problem_free(p);
    return st;
}
