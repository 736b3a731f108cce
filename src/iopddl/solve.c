/* solve.c: the IOPDDL pipeline: model -> first feasible (least usage,
 * polished), the bound beside it -> exact when small -> the search
 * (search.c: relaxation workers and neighbourhood rounds in turn), the
 * bound's last seconds beside it, until the deadline,
 * on the presolved problem (presolved.h) when the presolve leaves few nodes
 * free, this same pipeline run on it -> the answer, priced by the
 * evaluator. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iopddl/bound.h"
#include "iopddl/exact.h"
#include "iopddl/presolved.h"
#include "iopddl/reduced.h"
#include "iopddl/search.h"

/* Paper 000 solved instances below ~2000 nodes exactly. The MIP gets
 * EXACT_SHARE of the time left (the heuristics the rest if it proves
 * nothing), and only if that is worth starting, except on tiny problems,
 * which CBC solves in milliseconds: they are solved exactly at once, however
 * short the limit. exact.c kills CBC half a second and 5% past its limit,
 * hence the margin. */
enum { EXACT_NODE_LIMIT = 2000, EXACT_TINY_NODES = 64 };
#define EXACT_MIN_SECONDS 4.0
#define EXACT_SHARE 0.5

/* Attempts of the first answer's full stage while it still pays a
 * forbidden cost. */
enum { FIRST_ATTEMPTS = 4 };

/* Below this much time left, the first answer takes a quick stage first. */
#define QUICK_FIRST_SECONDS 2.0

/* The bound's time without a deadline (it usually stops rising sooner). */
#define BOUND_SECONDS 10.0
/* Subgradient steps on the usage rows' multipliers at most (bound.c); the
 * bound's share of the time ends them first on the large instances. */
enum { BOUND_STEPS = 1000 };
/* The bound works on the presolved model (bound_model.c) when its share is
 * at least this: the presolve cannot be interrupted and took 0.5-1.1 CPU s
 * on the contest instances, for a bound 0.07-1% below the best known on A,
 * C, L and M where the solver's own model needed 15-25 s for 0.2-4%. */
#define BOUND_REDUCE_SECONDS 0.5

/* The presolved problem's search (presolved.h) needs the presolve, which
 * cannot be interrupted (L and S: about 1.6 s alone), and its tables held
 * in memory (entries of 8 bytes). It pays where the presolve leaves few
 * nodes free (C 0.6% of the nodes, A 0.5%, L 2.6%: 20 s scores up to twice
 * the model's); where it leaves many (M 12.5%, S 22.6%), the model's
 * search is as good or better (at 60 s under load: M 0.994 either way, S
 * 0.860 against 0.923). */
#define PRESOLVED_MIN_SECONDS 5.0
#define PRESOLVED_MAX_FREE_SHARE 0.0625
/* The presolve copies the model's pair tables and passes over them every
 * round: with more entries than this it is not tried (the six public
 * instances hold 0.2M-7.8M), and per this many entries it needs
 * PRESOLVED_MIN_SECONDS left, so a larger model cannot overrun the limit. */
/* Below this much time left once the presolve is ready, the presolved
 * search is not started (the model's search takes what is left). */
#define PRESOLVED_LEFT_SECONDS 0.5
#define PRESOLVED_MAX_CELLS 20000000
#define PRESOLVED_CELLS_PER_FLOOR 8000000.0


void pp_iopddl_options_default(pp_iopddl_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->bound_share = 0.05;
}

static void report(const pp_iopddl_options *o, double started, int64_t best, int64_t rounds,
                   const char *stage)
{
    if (!o->on_progress)
        return;
    pp_iopddl_progress pr = {pp_now() - started, best, rounds, stage};
    o->on_progress(o->progress_ctx, &pr);
}

static void report_search(void *ctx, double started, int64_t best, int64_t rounds)
{
    report(ctx, started, best, rounds, "relax");
}

/* rising_bound: NULL, or the bound's, still running (bound_job); handover:
 * NULL, or the bound's decoded answers. */
static pp_status search_stage(const iopddl_model *m, const uint8_t *relevant, const iopddl_groups *groups,
                              const pp_iopddl_options *o, const double *rising_bound, iopddl_handover *handover,
                              const pp_deadline *deadline, double started, pp_iopddl_result *r,
                              pp_error *err)
{
    iopddl_search s = {.m = m,
                    .lower_bound = r->lower_bound,
                    .rising_bound = rising_bound,
                    .handover = handover,
                    .relevant = relevant,
                    .groups = groups,
                    .threads = o->threads > 0 ? o->threads : pp_cpu_count(),
                    .started = started,
                    .on_progress = o->on_progress ? report_search : NULL,
                    .ctx = (void *)o};
    return iopddl_search_run(&s, o->seed, o->max_rounds, deadline, r, err);
}

/* The least-usage assignment is feasible if anything is, but often pays
 * forbidden costs; the relaxation with every weight at its cap removes those
 * while keeping usage least (a penalty never outweighs a forbidden cost), and
 * repair brings it under the limit if needed. The better of the two,
 * polished, is the first answer (A: from 1e22 to 1.3e10 in 0.3 s). */
static pp_status first_feasible(const iopddl_model *m, const uint8_t *relevant, const iopddl_groups *groups,
                                double started,
                                const pp_deadline *deadline, pp_iopddl_result *r, pp_error *err)
{
    iopddl_min_usage_assignment(m, r->strategies);
    iopddl_worker w;
    if (!iopddl_worker_init(&w, m, relevant, groups, 0, 0, r->strategies)) {
        iopddl_worker_free(&w);
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    bool fits = iopddl_worker_offer(&w, r->strategies, 0, pp_now() - started, deadline);
    if (fits) {
        for (uint32_t v = 0; v < m->node_count; v++)
            w.weight[v] = w.weight_cap[v];
        /* Under a very short limit, a quick stage first: one message pass
         * and at most four descent passes free A of forbidden costs in 0.1 s
         * (the full stage takes about 0.4 s). Only then: it moves the random
         * stream, and on L the full stage alone lands in a better basin
         * (DESIGN.md). */
        if (deadline->at > 0 && pp_deadline_left(deadline) < QUICK_FIRST_SECONDS) {
            iopddl_trws_run(w.trws, w.weight, 1, w.x, deadline);
            iopddl_forest_descend(w.forest, w.x, w.weight, &w.rng, 4, 1, deadline);
            iopddl_groups_descend(groups, w.x, w.weight, deadline);
            iopddl_worker_offer(&w, w.x, INT64_MAX, pp_now() - started, deadline);
        }
        /* Which basin the descent lands in is a matter of its random draws,
         * and on L some pay forbidden costs: more message passes and a new
         * descent until one does not (or the attempts run out). */
        for (int attempt = 0; attempt < FIRST_ATTEMPTS && !iopddl_model_forbidden_free(m, w.best) &&
                              !pp_deadline_passed(deadline);
             attempt++) {
            iopddl_trws_run(w.trws, w.weight, 5, w.x, deadline);
            iopddl_forest_descend(w.forest, w.x, w.weight, &w.rng, 60, 3, deadline);
            if (iopddl_groups_descend(groups, w.x, w.weight, deadline) > 0)
                iopddl_forest_descend(w.forest, w.x, w.weight, &w.rng, 60, 3, deadline);
            iopddl_worker_offer(&w, w.x, INT64_MAX, pp_now() - started, deadline);
        }
        memcpy(r->strategies, w.best, m->node_count * sizeof(uint32_t));
        r->cost = w.best_cost;
        r->feasible = true;
        r->time_first_feasible = w.time_first_feasible;
        r->time_best = w.time_best;
    }
    iopddl_worker_free(&w);
    return fits ? PP_OK : PP_INFEASIBLE;
}

/* The presolve (reduced.h) of one solve, run at most once: on the bound's
 * thread beside the first answer when the bound works on the presolved
 * model, else when the presolved stage asks for it. The bound and the
 * presolved search both read it (each took 0.5-1.6 CPU s presolving alone
 * before). Two hold it: solve_problem, until the presolved stage is over or
 * passed by, and the bound's thread, until its last answer is expanded
 * (bound.c); the last to let go frees it. */
typedef struct {
    const iopddl_model *m;
    const pp_deadline *deadline; /* the solve's: the presolve stops at it */
    iopddl_reduced c;
    iopddl_exact_stats stats;
    bool tried, ok, released; /* released: by the solve */
    int holders;              /* atomic */
} shared_presolve;

static iopddl_reduced *presolve_once(shared_presolve *s)
{
    if (!s->tried && !s->released) {
        s->tried = true;
        s->ok = iopddl_presolve_model(&s->c, s->m, s->deadline, &s->stats);
    }
    return s->ok && !s->released ? &s->c : NULL;
}

static void presolve_let_go(shared_presolve *s)
{
    if (__atomic_sub_fetch(&s->holders, 1, __ATOMIC_ACQ_REL) == 0 && s->tried)
        iopddl_reduced_free(&s->c);
}

/* The solve's hold; the presolve is run no more once it is let go. */
static void presolve_release(shared_presolve *s)
{
    if (!s->released)
        presolve_let_go(s);
    s->released = true;
}

/* The certified bound runs on a thread of its own from the start, beside
 * the first answer's stage, which keeps one core busy, and goes on beside
 * the search once it has read the presolve: on S and M its share ran 9-10
 * s past the first answer, and the search used to wait for it with one
 * core idle. Its share counts in its own thread's CPU time (bound.c), so
 * the search's workers beside it do not cut its steps, and what the bound
 * proves, once it ends, ends the search (iopddl_search.rising_bound); the
 * answers it decodes at its end go to the search's workers
 * (iopddl_search.handover).
 * It aims at no answer (bound.c caps how far its steps aim, so a known
 * answer hardly steers them). With one thread asked for, or a share too
 * short for the presolved model (the one-second contract: then every CPU
 * second goes to the first answer), it runs after the first answer, within
 * its share of the wall time. */
typedef struct {
    const iopddl_model *m;
    shared_presolve *presolve;
    pp_deadline deadline;
    double seconds;
    double bound;  /* stored once, atomically, as the bound ends */
    bool built;    /* the bound's model is built: the presolve's scratch is free (atomic) */
    iopddl_handover handover; /* its decoded answers, for the search */
    bool handing;  /* handover initialised */
    pthread_t thread;
    bool running;
} bound_job;

static void bound_built(void *arg)
{
    bound_job *j = arg;
    __atomic_store_n(&j->built, true, __ATOMIC_RELEASE);
}

static void bound_answer(void *arg, const uint32_t *x, iopddl_cost cost)
{
    bound_job *j = arg;
    iopddl_handover_put(&j->handover, j->m, x, cost);
}

/* Holds the presolve from before its thread starts (bound_begin) to the
 * end of the bound, which expands its answers with it. */
static void *bound_main(void *arg)
{
    bound_job *j = arg;
    iopddl_reduced *c = j->seconds >= BOUND_REDUCE_SECONDS ? presolve_once(j->presolve) : NULL;
    double bound = iopddl_bound(j->m, c, INFINITY, BOUND_STEPS, j->seconds, &j->deadline, bound_built,
                                j->handing ? bound_answer : NULL, j);
    __atomic_store(&j->bound, &bound, __ATOMIC_RELEASE);
    presolve_let_go(j->presolve);
    return NULL;
}

static void bound_begin(bound_job *j, const iopddl_model *m, shared_presolve *presolve, const pp_iopddl_options *o,
                        const pp_deadline *deadline)
{
    memset(j, 0, sizeof *j);
    j->bound = -INFINITY;
    if (o->bound_share <= 0)
        return;
    j->m = m;
    j->presolve = presolve;
    j->deadline = *deadline;
    j->seconds = deadline->at > 0 ? o->bound_share * pp_deadline_left(deadline) : BOUND_SECONDS;
    j->handing = iopddl_handover_init(&j->handover, m);
    bool beside = (o->threads > 0 ? o->threads : pp_cpu_count()) >= 2 && j->seconds >= BOUND_REDUCE_SECONDS;
    __atomic_add_fetch(&presolve->holders, 1, __ATOMIC_ACQ_REL);
    j->running = beside && pthread_create(&j->thread, NULL, bound_main, j) == 0;
    if (!j->running)
        presolve_let_go(presolve); /* bound_settle takes it again if it runs the bound */
}

static void bound_take(bound_job *j, pp_iopddl_result *r)
{
    double bound;
    __atomic_load(&j->bound, &bound, __ATOMIC_ACQUIRE);
    if (bound > r->lower_bound)
        r->lower_bound = bound;
}

/* After the first answer: waits until the bound's thread has built its
 * model from the presolve (the rest of the solve may then read it, and let
 * go of its hold), or runs the
 * bound when it did not run beside the first answer. Run after the first
 * answer, it is skipped with less than its share left: its model is copied
 * before its clock starts (A: 0.04 CPU s, 0.12 s at load 13) and would only
 * take the end past the limit. */
static void bound_settle(bound_job *j, pp_iopddl_result *r)
{
    struct timespec pause = {0, 1000 * 1000};
    while (j->running && !__atomic_load_n(&j->built, __ATOMIC_ACQUIRE))
        nanosleep(&pause, NULL);
    if (!j->running && j->m && !pp_deadline_passed(&j->deadline) && pp_deadline_left(&j->deadline) >= j->seconds) {
        j->deadline = pp_deadline_within(&j->deadline, j->seconds);
        __atomic_add_fetch(&j->presolve->holders, 1, __ATOMIC_ACQ_REL);
        bound_main(j);
    }
    bound_take(j, r);
}

/* The cheapest answer the bound handed over, when cheaper than r's: where
 * the search does not take it itself (the presolved stage's search starts
 * from r's; the model's search ends before the bound). Only without a round
 * budget, whose runs give the same answer however far the bound got. */
static void take_handed(bound_job *j, const iopddl_model *m, const pp_iopddl_options *o, double started,
                        pp_iopddl_result *r)
{
    if (!j->handing || o->max_rounds > 0)
        return;
    pthread_mutex_lock(&j->handover.lock);
    if (j->handover.cost < r->cost) {
        memcpy(r->strategies, j->handover.x, m->node_count * sizeof *r->strategies);
        r->cost = j->handover.cost;
        r->time_best = pp_now() - started;
    }
    pthread_mutex_unlock(&j->handover.lock);
}

/* The bound's decoded answer, once the bound has ended, when cheaper than
 * the first answer: r's answer when the bound proves it optimal (the exact
 * stage and the search could then only match its cost, and are not run),
 * else returned as the exact stage's start (NULL: none). As a start with
 * a round budget only where its answers come at the same point of every
 * run (the bound ran in this thread, not beside the first answer); the
 * exact stage's outcome is then the run's whenever its MIP finishes, as
 * before. Why: on the sharder's bridge problems the bound's answer is
 * often the optimum (a 12-layer training step, 1007 nodes: CBC ran to its
 * 20 s limit on the MIP's 181,000 columns without an answer, where the
 * search then found the bound's value in 0.2 s), or near it (a 48-layer
 * GPT under a memory limit, 161 nodes: 0.4% above the optimum, from which
 * CBC proved it in 12 s, against 27 s from the first answer, 2.8 times
 * the optimum). */
static const uint32_t *take_ended(bound_job *j, const iopddl_model *m, const pp_iopddl_options *o, double started,
                                  pp_iopddl_result *r)
{
    double bound;
    __atomic_load(&j->bound, &bound, __ATOMIC_ACQUIRE);
    if (!j->handing || bound == -INFINITY || j->handover.cost >= r->cost)
        return NULL; /* an ended bound hands over nothing more: no lock needed */
    if (iopddl_bound_proves(j->handover.cost, r->lower_bound)) {
        memcpy(r->strategies, j->handover.x, m->node_count * sizeof *r->strategies);
        r->cost = j->handover.cost;
        r->time_best = pp_now() - started;
        return NULL;
    }
    return o->max_rounds <= 0 || !j->running ? j->handover.x : NULL;
}

/* Waits for the bound's thread to end; the higher bound stays. */
static void bound_end(bound_job *j, pp_iopddl_result *r)
{
    if (j->running)
        pthread_join(j->thread, NULL);
    j->running = false;
    bound_take(j, r);
}

/* The exact stage in integers (branch.c) after the MIP, where the MIP could
 * not answer exactly: r's answer is its start, and its proof is final. It
 * never runs where the MIP's numbers are exact and an answer free of
 * forbidden entries exists (the contest's instances). */
static pp_status branch_stage(const pp_iopddl_problem *p, const iopddl_model *m, const pp_deadline *deadline,
                              double seconds, double started, pp_iopddl_result *r, pp_error *err)
{
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    if (!x)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    memcpy(x, r->strategies, m->node_count * sizeof *x);
    pp_deadline until = pp_deadline_within(deadline, seconds);
    bool proven;
    if (!iopddl_branch(p, x, &until, &proven)) {
        free(x);
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    if (memcmp(x, r->strategies, p->node_count * sizeof *x) != 0) {
        iopddl_model_sync_auxiliary(m, x);
        memcpy(r->strategies, x, m->node_count * sizeof *x);
        r->cost = iopddl_model_cost(m, x);
        r->time_best = pp_now() - started;
    }
    if (proven) {
        pp_iopddl_evaluation ev;
        r->proven_optimal = pp_iopddl_evaluate(p, x, &ev, err) == PP_OK;
        r->lower_bound = r->proven_optimal ? iopddl_cost_floor(ev.cost) : r->lower_bound;
    }
    free(x);
    return PP_OK;
}

/* start: the MIP's warm start when cheaper than r's answer (NULL: r's). */
static pp_status exact_stage(const pp_iopddl_problem *p, const iopddl_model *m, const pp_iopddl_options *o,
                             const uint32_t *start, const pp_deadline *deadline, double started,
                             pp_iopddl_result *r, pp_error *err)
{
    double left = pp_deadline_left(deadline);
    bool tiny = m->node_count <= EXACT_TINY_NODES;
    if (o->no_exact || m->node_count > EXACT_NODE_LIMIT || (left < EXACT_MIN_SECONDS && !tiny))
        return PP_OK;
    double limit = 0;
    if (deadline->at > 0) {
        limit = fmin(tiny ? left : EXACT_SHARE * left, (left - 0.6) / 1.05);
        if (limit < 0.05)
            return PP_OK;
    }
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    if (!x)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    iopddl_cost cost;
    double bound;
    bool optimal;
    pp_error exact_err = {0};
    iopddl_exact_stats stats;
    iopddl_exact_options eo = {.time_limit = limit, .threads = o->threads, .stop = deadline->stop};
    double mip_started = pp_now();
    if (!start && r->feasible)
        start = r->strategies;
    pp_status status = iopddl_exact_solve_ex(m, start, -1,
                                          &eo, x, &cost, &bound, &optimal, &stats, &exact_err);
    /* Sums of allowed entries that reach 1e18 are taken for forbidden ones
     * by the model and the presolve: the MIP's proof is then no proof. */
    bool unsure = iopddl_sums_reach_forbidden(p);
    if (status == PP_OK && cost >= 0 && cost < r->cost) {
        memcpy(r->strategies, x, m->node_count * sizeof *x);
        r->cost = cost;
        r->feasible = true;
        r->time_best = pp_now() - started;
        if (r->time_first_feasible <= 0)
            r->time_first_feasible = r->time_best;
    }
    if (status == PP_OK && !unsure) {
        r->lower_bound = bound;
        r->proven_optimal = optimal && cost == r->cost;
    }
    free(x);
    /* Anything but running out of memory leaves the heuristics to go on. */
    if (status == PP_ENOMEM)
        return pp_error_set(err, PP_ENOMEM, "%s", exact_err.message);
    if (r->feasible && !r->proven_optimal && (status == PP_INFEASIBLE || stats.inexact || unsure))
        return branch_stage(p, m, deadline, limit > 0 ? fmax(limit - (pp_now() - mip_started), 1e-3) : 0, started, r,
                            err);
    return PP_OK;
}

/* warm replaces the first answer when it is feasible and cheaper. */
static void take_warm(const iopddl_model *m, const uint32_t *warm, pp_iopddl_result *r)
{
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    iopddl_profile profile;
    if (x && iopddl_profile_init(&profile, m, m->arena)) {
        memcpy(x, warm, m->problem_nodes * sizeof *x);
        iopddl_model_sync_auxiliary(m, x);
        iopddl_cost cost = iopddl_model_cost(m, x);
        if (cost < r->cost && iopddl_model_forbidden_free(m, x) && iopddl_profile_fits(&profile, m, x)) {
            memcpy(r->strategies, x, m->node_count * sizeof *x);
            r->cost = cost;
            r->feasible = true;
        }
    }
    free(x);
}

/* The presolved problem's progress, told as the model's. */
typedef struct {
    const pp_iopddl_options *o;
    double started;  /* the outer solve's start */
    int64_t constant;
} presolved_progress;

static void report_presolved(void *ctx, const pp_iopddl_progress *inner)
{
    const presolved_progress *f = ctx;
    int64_t best = inner->best_cost >= 0 && inner->best_cost < INT64_MAX
                       ? iopddl_cost_shown((iopddl_cost)inner->best_cost + f->constant)
                       : inner->best_cost;
    report(f->o, f->started, best, inner->rounds, inner->stage);
}

static pp_status solve_problem(const pp_iopddl_problem *p, const pp_iopddl_options *o, const uint32_t *warm,
                               bool use_presolved, double usage_scale, pp_iopddl_result *r, pp_error *err);

/* The search on the presolved problem (presolved.h) instead of the model,
 * from r's answer, with all the time left; its answer, expanded and priced
 * by the model, replaces r's when cheaper and feasible. *searched says it
 * ran. Why: a move of one of its nodes moves a whole tied group and what
 * hangs off it, which the model's relaxation cannot (DESIGN.md; C at 20 s:
 * 1.26e11 on the model, 8.42e10 here). */
static pp_status presolved_stage(const iopddl_model *m, shared_presolve *presolve, bound_job *bound,
                                 const pp_iopddl_options *o, const pp_deadline *deadline, double started,
                                 pp_iopddl_result *r, bool *searched, pp_error *err)
{
    double cells = (double)m->pair_start[m->pair_count];
    double need = PRESOLVED_MIN_SECONDS * fmax(1.0, cells / PRESOLVED_CELLS_PER_FLOOR);
    if (cells > PRESOLVED_MAX_CELLS || (deadline->at > 0 && pp_deadline_left(deadline) < need))
        return PP_OK;
    report(o, started, iopddl_cost_shown(r->cost), 0, "presolve");
    iopddl_reduced *c = presolve_once(presolve);
    iopddl_presolved *s = c ? iopddl_presolved_new(c, PRESOLVED_MAX_FREE_SHARE, PRESOLVED_MAX_CELLS) : NULL;
    if (!s)
        return PP_OK; /* the model's own search goes on */
    /* Its search cannot read the model's bound as it rises (its costs are
     * the model's less a constant), and the bound may prove the answer at
     * hand: waited for here, as the bound converges within 1-4 CPU s where
     * this stage runs (A, C, L). */
    bound_end(bound, r);
    take_handed(bound, m, o, started, r);
    if (iopddl_bound_proves(r->cost, r->lower_bound)) {
        r->proven_optimal = *searched = true;
        iopddl_presolved_free(s);
        return PP_OK;
    }
    /* The presolve and the wait for the bound may have taken the rest of
     * the time (a loaded machine): the inner solve would read a limit of 0
     * as none, and ran to 120 s of a 20 s run on A. */
    if (deadline->at > 0 && pp_deadline_left(deadline) < PRESOLVED_LEFT_SECONDS) {
        iopddl_presolved_free(s);
        return PP_OK;
    }
    const pp_iopddl_problem *q = iopddl_presolved_problem(s);
    uint32_t *warm = malloc(((size_t)q->node_count + 1) * sizeof *warm);
    uint32_t *x = malloc(((size_t)m->node_count + 1) * sizeof *x);
    if (!warm || !x) {
        free(warm);
        free(x);
        iopddl_presolved_free(s);
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    presolved_progress forward = {o, started, iopddl_presolved_constant(s)};
    pp_iopddl_options inner = *o;
    inner.time_limit = deadline->at > 0 ? fmax(pp_deadline_left(deadline), 1e-3) : 0; /* never 0: none */
    inner.bound_share = 0;
    inner.stop = deadline->stop;
    inner.on_progress = o->on_progress ? report_presolved : NULL;
    inner.progress_ctx = &forward;
    pp_iopddl_result found = {0};
    bool entered = iopddl_presolved_enter(s, r->strategies, warm);
    double inner_start = pp_now() - started;
    /* The model's cost per unit of usage: in the presolved problem no node
     * has both a cost and a usage spread (representatives carry the costs,
     * pieces the usage), and its workers' weights would start from 1 (S at
     * 60 s: 1.544e9 from the model's scale against 1.595e9 from 1). */
    pp_status status = solve_problem(q, &inner, entered ? warm : NULL, false, iopddl_usage_scale(m), &found, err);
    /* If it failed, the model's search gets what time is left. */
    *searched = status == PP_OK;
    if (status == PP_OK) {
        iopddl_presolved_expand(s, found.strategies, x);
        iopddl_cost before = r->cost;
        take_warm(m, x, r);
        if (r->cost < before)
            r->time_best = inner_start + found.time_best;
        r->rounds = found.rounds;
        r->neighbourhood_rounds = found.neighbourhood_rounds;
        r->neighbourhood_gains = found.neighbourhood_gains;
    }
    /* Its failures leave r's answer, which is feasible. */
    status = status == PP_ENOMEM ? PP_ENOMEM : PP_OK;
    pp_iopddl_result_free(&found);
    free(warm);
    free(x);
    iopddl_presolved_free(s);
    return status;
}

/* The pipeline on p. warm (NULL: none) is an answer of p to start from
 * when it is feasible and cheaper than the first answer; with `use_presolved`,
 * the search runs on the presolved problem when there is time for it;
 * usage_scale > 0 is the cost per unit of usage its weights start from. */
static pp_status solve_problem(const pp_iopddl_problem *p, const pp_iopddl_options *o, const uint32_t *warm,
                               bool use_presolved, double usage_scale, pp_iopddl_result *r, pp_error *err)
{
    double started = pp_now();
    pp_deadline deadline = pp_deadline_in(o->time_limit);
    deadline.stop = o->stop;
    memset(r, 0, sizeof *r);
    r->cost = IOPDDL_NO_COST;
    r->lower_bound = -INFINITY;
    iopddl_model *m;
    pp_status status = iopddl_model_build_until(p, &deadline, &m, err);
    if (status == PP_INFEASIBLE) /* the time ran out: no answer, strategy 0 for callers that read one */
        r->strategies = calloc((size_t)p->node_count + 1, sizeof(uint32_t));
    if (status != PP_OK)
        return status;
    m->usage_scale = usage_scale;
    /* Room for the auxiliary nodes too; callers read the first node_count. */
    r->strategies = calloc((size_t)m->node_count + 1, sizeof(uint32_t));
    if (!r->strategies) {
        iopddl_model_free(m);
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    uint8_t *relevant = pp_arena_alloc(m->arena, (size_t)m->node_count + 1);
    const iopddl_groups *groups = iopddl_groups_new(m, m->arena);
    if (!relevant || !groups || !iopddl_relevant_nodes(m, m->arena, relevant)) {
        iopddl_model_free(m);
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    shared_presolve presolve = {.m = m, .deadline = &deadline, .holders = 1};
    bound_job bound;
    bound_begin(&bound, m, &presolve, o, &deadline);
    status = first_feasible(m, relevant, groups, started, &deadline, r, err);
    bound_settle(&bound, r);
    if (status == PP_INFEASIBLE)
        pp_error_set(err, PP_INFEASIBLE, "no assignment fits the usage limit: even the least usage of every node peaks above %lld",
                     (long long)p->usage_limit);
    if (warm)
        take_warm(m, warm, r);
    const uint32_t *start = NULL;
    if (status == PP_OK) {
        report(o, started, iopddl_cost_shown(r->cost), 0, "first feasible");
        start = take_ended(&bound, m, o, started, r);
        /* Costs are integers and the bound is rounded up: an answer at the
         * bound is optimal, and the exact stage and the search would only
         * burn the time. */
        r->proven_optimal = iopddl_bound_proves(r->cost, r->lower_bound);
    }
    if (status == PP_OK && !r->proven_optimal) {
        double certified = r->lower_bound;
        status = exact_stage(p, m, o, start, &deadline, started, r, err);
        r->lower_bound = fmax(r->lower_bound, certified);
        if (status == PP_OK && !r->proven_optimal)
            r->proven_optimal = iopddl_bound_proves(r->cost, r->lower_bound);
    }
    bool searched = false;
    if (status == PP_OK && !r->proven_optimal && use_presolved)
        status = presolved_stage(m, &presolve, &bound, o, &deadline, started, r, &searched, err);
    presolve_release(&presolve);
    /* Past the deadline the search could only start its workers (A: 0.02
     * CPU s) and stop. */
    if (status == PP_OK && !r->proven_optimal && !searched && !pp_deadline_passed(&deadline)) {
        report(o, started, iopddl_cost_shown(r->cost), 0, "relax");
        status = search_stage(m, relevant, groups, o, bound.running ? &bound.bound : NULL,
                              bound.handing ? &bound.handover : NULL, &deadline, started, r, err);
    }
    bound_end(&bound, r);
    /* An answer proven optimal stands: the model's sums, which the handed
     * answers' costs are, may price a dearer answer lower (branch.c). */
    if (status == PP_OK && r->feasible && !r->proven_optimal)
        take_handed(&bound, m, o, started, r);
    if (bound.handing)
        iopddl_handover_free(&bound.handover);
    if (status == PP_OK && !r->proven_optimal)
        r->proven_optimal = iopddl_bound_proves(r->cost, r->lower_bound);
    /* The model folds a node's own terms into one entry, saturated; the
     * figure reported is the contest's own sum, so it matches parplan eval. */
    pp_iopddl_evaluation ev;
    if ((status == PP_OK || status == PP_INFEASIBLE) && pp_iopddl_evaluate(p, r->strategies, &ev, err) == PP_OK) {
        r->cost = ev.cost;
        /* The search sums usage in 64 bits; the evaluator's 128-bit sums
         * have the last word, so an answer is never called feasible wrongly. */
        if (status == PP_OK && !ev.feasible) {
            r->feasible = false;
            status = pp_error_set(err, PP_INFEASIBLE, "no feasible answer found: the best answer peaks above the usage limit %lld",
                                  (long long)p->usage_limit);
        }
    }
    r->time_total = pp_now() - started;
    iopddl_model_free(m);
    return status;
}

pp_status pp_iopddl_solve(const pp_iopddl_problem *p, const pp_iopddl_options *o,
                          pp_iopddl_result *r, pp_error *err)
{
    return solve_problem(p, o, NULL, true, 0, r, err);
}

double pp_iopddl_gap_percent(pp_int128 cost, double lower_bound)
{
    double c = (double)cost;
    if (c <= lower_bound)
        return 0;
    return lower_bound <= 0 ? 100 : 100 * (c - lower_bound) / c;
}

void pp_iopddl_result_free(pp_iopddl_result *r)
{
    free(r->strategies);
    r->strategies = NULL;
}
