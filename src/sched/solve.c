/* solve.c: the scheduling pipeline: lower bound -> constructive start (when
 * given, the caller's schedule instead; when asked, also a
 * schedule of the coarsened graph, expanded) -> on pipelines, the lag
 * search from it (lag_search.c) -> local
 * search, one worker per thread, in epochs of a fixed number of moves ->
 * for small graphs, the exact MIP warm-started from the best schedule -> for
 * the span objective, the best schedule's orders searched for a shorter
 * longest span (span_search.c, the rest of the time) and re-timed (span.c) -> the best
 * schedule, checked by the independent checker. Workers meet only
 * between epochs: the best so far is taken in worker order and the worst
 * worker restarts from it now and then, so a fixed number of epochs gives the
 * same answer for a seed and thread count whatever the machine's speed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/threads.h"
#include "sched/coarsen.h"
#include "sched/cyclic.h"
#include "sched/mip.h"
#include "sched/sched_internal.h"
#include "sched/solver.h"

/* Epochs last about this many decoded ops and deps per worker (~0.1 s). */
#define EPOCH_WORK 2e7
enum { RESTART_EVERY = 5 };
/* The MIP has an ordering binary per pair of ops that may share a device: up
 * to a few dozen ops CBC proves optima in seconds (tests/sched/test_mip.c);
 * it gets what the local search leaves, which is most of the time since the
 * search settles small graphs in well under a second. */
enum { MIP_MAX_OPS = 40 };
/* Its columns grow as ops x devices and deps x devices^2 (a transfer
 * variable per device pair), built before CBC's clock starts: past this
 * many a model with hundreds of idle devices would take minutes to build
 * and could not be solved anyway. */
#define MIP_MAX_COLUMNS 1e5
#define MIP_SEARCH_SHARE 0.2
/* Under the span objective the makespan search gets this share of the time
 * and the span search the rest: the span search starts from the makespan's
 * best schedule, and on pipelines it settles in seconds (BENCHMARKS.md). */
#define SPAN_MAKESPAN_SHARE 0.5
/* Under cyclic-async the span search ends at this share of the time, and
 * the folding search (cyclic.c) has the rest: the span search takes all it
 * is given, and without it the fold had none at P = 32. */
#define CYCLIC_SPAN_SHARE 0.75
/* With --coarsen N, graphs above N ops are first coarsened to N and
 * scheduled whole (paper 002 Algorithm 1), and that schedule, expanded,
 * competes with the constructive start. Not by default: on the graphs we
 * measured (DualPipe with 4800 ops, random graphs of 3000 and 20000 ops) the
 * local search alone did as well or better with the time the coarse stage
 * takes (BENCHMARKS.md). The coarsener's reachability matrix grows as
 * ops^2 / 8 bytes, hence the upper end. */
enum { COARSEN_MAX_OPS = 40000 };
#define COARSE_SHARE 0.3
/* The most nearest-release ops a device keeps room for in the construction. */
#define MAX_RESERVE 16
/* The construction's part of the time limit: at P = 64 with 49,152 ops it
 * takes 3-5 s, and the search needs the rest to repair a cut-short start. */
#define CONSTRUCT_SHARE 0.5
/* The lag search's part of the local search's time (lag_search.c): at
 * P = 32 of 96 micro-batches its block moves take seconds, and on the
 * pipelines it applies to the local search has not improved its start
 * (BENCHMARKS.md, issue 29). */
#define LAG_SHARE 0.5
/* The lower bound's part of the time limit, before the construction: the
 * rank bound at P = 64 of 256 micro-batches takes 0.3-0.8 s, which a short
 * limit cannot spare; cut, the bound is only weaker. */
#define BOUND_SHARE 0.2

void pp_sched_options_default(pp_sched_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
}

void pp_sched_result_free(pp_sched_result *r)
{
    pp_sched_schedule_free(r->schedule);
    r->schedule = NULL;
}

typedef struct {
    sc_search *search;
    long iterations, done;
    const pp_deadline *deadline;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->done = sc_search_run(w->search, w->iterations, w->deadline);
    return NULL;
}

static void run_epoch(worker *workers, int count)
{
    pp_threads_run(count, worker_main, workers, sizeof *workers);
}

static int best_worker(worker *workers, int count)
{
    int best = 0;
    for (int i = 1; i < count; i++)
        if (sc_search_best_cost(workers[i].search) < sc_search_best_cost(workers[best].search))
            best = i;
    return best;
}

static int worst_worker(worker *workers, int count)
{
    int worst = 0;
    for (int i = 1; i < count; i++)
        if (sc_search_best_cost(workers[i].search) >= sc_search_best_cost(workers[worst].search))
            worst = i;
    return worst;
}

typedef struct {
    const pp_sched_problem *p;
    const pp_sched_options *o;
    pp_sched_result *r;
    pp_deadline deadline;         /* the whole run */
    pp_deadline search_deadline;  /* the local search's part of it */
    double started;
} run;

static bool at_bound(const run *x, double makespan)
{
    return makespan <= x->r->lower_bound * (1 + 1e-9) + 1e-12;
}

static bool mip_applies(const run *x)
{
    const pp_sched_problem *p = x->p;
    double D = p->device_count, columns = p->op_count * D + p->dep_count * D * D;
    return !x->o->no_mip && x->o->time_limit > 0 && p->op_count <= MIP_MAX_OPS && columns <= MIP_MAX_COLUMNS;
}

static void improved(run *x, double makespan)
{
    x->r->time_to_best = pp_now() - x->started;
    if (isinf(x->r->time_to_first))
        x->r->time_to_first = x->r->time_to_best;
    if (x->o->on_progress)
        x->o->on_progress(x->o->progress_ctx, makespan, x->r->lower_bound, pp_now() - x->started);
}

/* Runs the workers until the search deadline, the round budget or the
 * bound; leaves the best solution in `best`. */
static void search(run *x, worker *workers, int count, sc_solution *best)
{
    const pp_sched_problem *p = x->p;
    long per_epoch = (long)(EPOCH_WORK / (p->op_count + p->dep_count + 10));
    if (per_epoch < 200)
        per_epoch = 200;
    double best_cost = sc_search_best_cost(workers[0].search);
    for (long epoch = 1;; epoch++) {
        for (int i = 0; i < count; i++)
            workers[i].iterations = per_epoch, workers[i].deadline = &x->search_deadline;
        run_epoch(workers, count);
        for (int i = 0; i < count; i++)
            x->r->rounds += workers[i].done;
        int b = best_worker(workers, count);
        double c = sc_search_best_cost(workers[b].search);
        if (c < best_cost) {
            best_cost = c;
            sc_solution_copy(best, sc_search_best(workers[b].search), p->op_count);
            improved(x, c);
        }
        if (epoch % RESTART_EVERY == 0 && count > 1) {
            int w = worst_worker(workers, count);
            if (w != b)
                sc_search_restart_from(workers[w].search, sc_search_best(workers[b].search));
        }
        bool budget = x->o->max_rounds > 0 && epoch * per_epoch >= x->o->max_rounds;
        if (budget || at_bound(x, best_cost) || pp_deadline_passed(&x->search_deadline) ||
            (x->o->max_rounds <= 0 && x->o->time_limit <= 0))
            break;
    }
}

/* The schedule a solution decodes to, when it is valid (NULL otherwise, with
 * the reason in err). */
static pp_sched_schedule *schedule_of(const pp_sched_problem *p, const sc_solution *best, pp_error *err)
{
    sc_decoder dec;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    if (!s || !sc_decoder_init(&dec, p)) {
        pp_sched_schedule_free(s);
        pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        return NULL;
    }
    sc_decode(&dec, best);
    sc_decoder_export(&dec, best, s);
    if (dec.broken || dec.overflow > 0) {
        pp_sched_schedule_free(s);
        if (dec.broken)
            pp_error_set(err, PP_INFEASIBLE, "no schedule found: every one tried needs a missing channel");
        else
            pp_error_set(err, PP_INFEASIBLE,
                         "no schedule within the devices' memory found in the time given "
                         "(the best tried exceeds it by %g in total)", dec.overflow);
        s = NULL;
    }
    sc_decoder_free(&dec);
    return s;
}

/* The exact MIP, warm-started from the search's schedule when there is one:
 * replaces it when better, and proves optimality when it can. */
static pp_status improve_by_mip(run *x, pp_sched_schedule **best, pp_error *err)
{
    const pp_sched_problem *p = x->p;
    /* Past the deadline (a loaded machine, a slow build) the MIP's limit
     * would be 0, which to it means none: CBC ran unbounded. */
    if (pp_deadline_left(&x->deadline) <= 0)
        return PP_OK;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    if (!s)
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    sc_mip_options mo = {pp_deadline_left(&x->deadline), x->o->threads, *best, x->o->stop};
    sc_mip_result mr;
    pp_error mip_err = {0};
    pp_status st = sc_mip_solve(p, &mo, s, &mr, &mip_err);
    if (st == PP_OK || st == PP_INFEASIBLE) {
        x->r->mip_bound = mr.bound;
        if (isfinite(mr.bound) && mr.bound > x->r->lower_bound)
            x->r->lower_bound = mr.bound, x->r->lower_bound_kind = "the MIP's bound";
    }
    if (st == PP_INFEASIBLE) {
        pp_sched_schedule_free(s);
        return pp_error_set(err, PP_INFEASIBLE, "the problem has no valid schedule (proven by the MIP)");
    }
    if (st == PP_OK && mr.found && (!*best || mr.makespan < pp_sched_makespan(*best))) {
        pp_sched_schedule_free(*best);
        *best = s;
        improved(x, mr.makespan);
        s = NULL;
    }
    if (st == PP_OK && mr.optimal && *best && pp_sched_makespan(*best) > x->r->lower_bound)
        x->r->lower_bound = pp_sched_makespan(*best), x->r->lower_bound_kind = "the MIP's proof of optimality";
    pp_sched_schedule_free(s);
    return st == PP_ENOMEM ? pp_error_set(err, PP_ENOMEM, "%s", mip_err.message) : PP_OK;
}

static pp_status finish(run *x, pp_sched_schedule *s, pp_error *err)
{
    const pp_sched_problem *p = x->p;
    pp_sched_result *r = x->r;
    r->elapsed = pp_now() - x->started;
    pp_sched_report report;
    pp_error check = {0};
    pp_status st = pp_sched_check(p, s, &report, &check);
    pp_sched_report_free(&report);
    if (st == PP_OK && isfinite(s->period)) {
        pp_sched_cyclic_report cyclic;
        st = pp_sched_check_cyclic(p, s, s->period, x->o->objective == PP_SCHED_CYCLIC_ASYNC, &cyclic, &check);
        pp_sched_cyclic_report_free(&cyclic);
    }
    if (st != PP_OK) {
        pp_sched_schedule_free(s);
        return pp_error_set(err, PP_EARG, "internal error: the checker rejects the solver's schedule: %s",
                            check.message);
    }
    r->schedule = s;
    r->makespan = pp_sched_makespan(s);
    r->proven_optimal = at_bound(x, r->makespan);
    r->period = s->period;
    return PP_OK;
}

static bool colocated(const pp_sched_problem *p)
{
    for (int i = 0; i < p->op_count; i++)
        if (p->group[i] != i)
            return true;
    return false;
}

/* Schedules the coarsened graph with part of the time, expands the answer,
 * and makes it the start if it beats the constructive one (then true). Not
 * with colocated ops: the coarsener may put a group's ops in clusters that
 * land on different devices. */
static bool coarse_start(run *x, sc_solution *start)
{
    const pp_sched_problem *p = x->p;
    int target = x->o->coarsen_to;
    if (target <= 0 || p->op_count <= target || p->op_count > COARSEN_MAX_OPS || colocated(p))
        return false;
    /* With finite memory, coarsening follows the start's device orders when
     * the start is valid, so the coarse problem keeps a schedule. */
    sc_decoder dec = {0};
    pp_sched_schedule *hint = pp_sched_schedule_new(p);
    if (!hint || !sc_decoder_init(&dec, p)) {
        pp_sched_schedule_free(hint);
        return false;
    }
    sc_decode(&dec, start);
    sc_decoder_export(&dec, start, hint);
    bool valid = dec.overflow == 0 && dec.broken == 0;
    sc_coarsening c;
    pp_error err = {0};
    pp_status st = sc_coarsen_hinted(p, target, valid ? hint : NULL, &c, &err);
    pp_sched_schedule_free(hint);
    if (st != PP_OK) {
        sc_decoder_free(&dec);
        return false;
    }
    pp_sched_options o = *x->o;
    o.time_limit = x->o->time_limit > 0 ? COARSE_SHARE * pp_deadline_left(&x->deadline) : 0;
    o.coarsen_to = 0;
    o.no_mip = true;
    o.on_progress = NULL;
    pp_sched_result cr;
    pp_sched_schedule *fine = pp_sched_schedule_new(p);
    sc_solution expanded = {0};
    bool replaced = false;
    if (fine && sc_solution_alloc(&expanded, p->op_count) && pp_sched_solve(c.coarse, &o, &cr, &err) == PP_OK) {
        if (sc_expand(p, &c, cr.schedule, fine, &err) == PP_OK &&
            sc_solution_from_schedule(p, fine, &expanded)) {
            sc_decode(&dec, start);
            sc_cost before = sc_cost_of(&dec);
            sc_decode(&dec, &expanded);
            replaced = sc_cost_compare(sc_cost_of(&dec), before) < 0;
            if (replaced)
                sc_solution_copy(start, &expanded, p->op_count);
        }
        pp_sched_result_free(&cr);
    }
    sc_decoder_free(&dec);
    sc_solution_free(&expanded);
    pp_sched_schedule_free(fine);
    sc_coarsening_free(&c);
    return replaced;
}

/* The caller's schedule as the start, checked valid first: its device
 * orders, decoded (ops and transfers in order of start, each as early as
 * they allow). No constructed start competes with it: the caller chose it
 * (a reference to improve on, an earlier run to continue). */
static pp_status given_start(run *x, sc_solution *start, pp_error *err)
{
    const pp_sched_problem *p = x->p;
    pp_sched_report report;
    pp_error why = {0};
    pp_status st = pp_sched_check(p, x->o->start, &report, &why);
    pp_sched_report_free(&report);
    if (st == PP_INFEASIBLE)
        return pp_error_set(err, PP_EINPUT, "the start schedule is not valid: %s", why.message);
    if (st != PP_OK)
        return pp_error_set(err, st, "%s", why.message);
    if (!sc_solution_from_schedule(p, x->o->start, start))
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    return PP_OK;
}

/* Counts a valid start as the first schedule found. */
static void report_start(run *x, const sc_solution *start)
{
    sc_decoder dec;
    if (!sc_decoder_init(&dec, x->p))
        return;
    sc_decode(&dec, start);
    if (dec.overflow == 0 && !dec.broken)
        improved(x, dec.makespan);
    sc_decoder_free(&dec);
}

/* The lag search from the constructed start (lag_search.c; pipelines
 * only, the makespan objective only): its answer replaces the start when it
 * decodes strictly better. A caller's start is left to the local search,
 * as no constructed start competes with it. */
static pp_status lag_start(run *x, sc_solution *start, sc_solution *scratch, pp_error *err)
{
    const pp_sched_problem *p = x->p;
    sc_decoder dec;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    if (!s || !sc_decoder_init(&dec, p)) {
        pp_sched_schedule_free(s);
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    }
    sc_decode(&dec, start);
    sc_cost before = sc_cost_of(&dec);
    pp_status st = PP_OK;
    if (before.broken == 0 && before.overflow == 0 && !at_bound(x, before.makespan)) {
        sc_decoder_export(&dec, start, s);
        pp_deadline by = pp_deadline_within(&x->search_deadline, LAG_SHARE * pp_deadline_left(&x->search_deadline));
        bool improved = false;
        st = sc_lag_search(p, s, &by, &improved, err);
        if (st == PP_OK && improved) {
            if (!sc_solution_from_schedule(p, s, scratch)) {
                st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
            } else {
                sc_decode(&dec, scratch);
                if (sc_cost_compare(sc_cost_of(&dec), before) < 0) {
                    sc_solution_copy(start, scratch, p->op_count);
                    report_start(x, start);
                }
            }
        }
    }
    sc_decoder_free(&dec);
    pp_sched_schedule_free(s);
    return st;
}

/* The constructive start: the memory-aware greedy's policies (greedy.c),
 * then, unless one reached the bound, the list scheduler, keeping more and
 * more room for the ops that give memory back soonest until its start fits
 * memory: the least room that works usually gives the shortest start
 * (DualPipe, P = 8: 1 to 4 overflow, 5 fits in 69, 8 fits in 149), as long
 * as the deadline lets. The best by sc_cost wins; on the zero-bubble
 * pipelines of BENCHMARKS.md the greedy's. The greedy's start counts as
 * the first schedule as soon as it is there (at P = 64 the list scheduler
 * takes seconds more), the list scheduler's when it is better. `scratch` is
 * spare solution space. */
static bool construct(run *x, const double *head, const double *tail, const pp_deadline *deadline,
                      sc_solution *start, sc_solution *scratch)
{
    const pp_sched_problem *p = x->p;
    double bound = x->r->lower_bound;
    sc_decoder dec;
    sc_cost cost;
    if (!sc_decoder_init(&dec, p))
        return false;
    bool ok = sc_construct_greedy(p, head, tail, bound, deadline, &dec, start, scratch, &cost);
    if (ok && cost.broken == 0 && cost.overflow == 0)
        report_start(x, start);
    bool done = cost.broken == 0 && cost.overflow == 0 && cost.makespan <= bound * (1 + 1e-9);
    /* Past the deadline the list scheduler still runs once when the greedy
     * finished no policy: cut short, it lists the rest in topological order. */
    bool any = isfinite(cost.makespan);
    for (double room = 1; ok && !done && room <= MAX_RESERVE && (!pp_deadline_passed(deadline) || !any); room++) {
        if (!(ok = sc_construct(p, head, tail, room, deadline, scratch)))
            break;
        sc_decode(&dec, scratch);
        sc_cost c = sc_cost_of(&dec);
        if (!any || sc_cost_compare(c, cost) < 0) {
            cost = c, any = true;
            sc_solution_copy(start, scratch, p->op_count);
            if (c.broken == 0 && c.overflow == 0)
                report_start(x, start);
        }
        done = c.overflow == 0 && c.broken == 0;
    }
    sc_decoder_free(&dec);
    return ok;
}

static bool cyclic(const pp_sched_options *o)
{
    return o->objective == PP_SCHED_CYCLIC || o->objective == PP_SCHED_CYCLIC_ASYNC;
}

/* The cyclic objectives start from the span's schedule (with the step kept
 * the spans are what the period must hold) and take the least period its
 * times allow; without the step, that schedule and the makespan's, from
 * which the span search started, are then folded at shorter periods
 * (cyclic.c). */
static pp_status cyclic_objective(run *x, pp_sched_schedule *answer, pp_sched_schedule *makespans,
                                  pp_error *err)
{
    answer->period = sc_cyclic_step_period(x->p, answer);
    if (!isfinite(answer->period))
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    return x->o->objective == PP_SCHED_CYCLIC_ASYNC ? sc_cyclic_fold(x->p, answer, makespans, &x->deadline, err)
                                                    : PP_OK;
}

/* The span objective: the orders searched, then the times compacted. */
static pp_status span_objective(run *x, pp_sched_schedule *answer, const pp_deadline *deadline, pp_error *err)
{
    bool improved;
    pp_status st = sc_span_search(x->p, answer, deadline, &improved, err);
    if (st == PP_OK && improved)
        x->r->time_to_best = pp_now() - x->started;
    return st != PP_OK ? st : sc_compact_spans(x->p, answer, err);
}

pp_status pp_sched_solve(const pp_sched_problem *p, const pp_sched_options *o, pp_sched_result *r,
                         pp_error *err)
{
    memset(r, 0, sizeof *r);
    r->mip_bound = r->period = r->period_bound = NAN;
    if (cyclic(o)) {
        pp_status applies = sc_cyclic_applies(p, err);
        if (applies != PP_OK)
            return applies;
        r->period_bound = pp_sched_cyclic_lower_bound(p, o->objective == PP_SCHED_CYCLIC_ASYNC);
    }
    r->time_to_first = INFINITY;
    run x = {p, o, r, pp_deadline_in(o->time_limit), {0, NULL}, pp_now()};
    if (o->time_limit <= 0)
        x.deadline.at = 0;
    x.deadline.stop = o->stop;
    x.search_deadline = x.deadline;
    if (mip_applies(&x))
        x.search_deadline = pp_deadline_within(&x.deadline, MIP_SEARCH_SHARE * o->time_limit);
    else if ((o->objective == PP_SCHED_SPAN || cyclic(o)) && o->time_limit > 0)
        x.search_deadline = pp_deadline_within(&x.deadline, SPAN_MAKESPAN_SHARE * o->time_limit);
    pp_deadline bound_by = o->time_limit > 0 ? pp_deadline_within(&x.deadline, BOUND_SHARE * o->time_limit)
                                             : x.deadline;
    r->lower_bound = sc_lower_bound_named(p, &bound_by, &r->lower_bound_kind, &r->lower_bound_cut);
    int count = o->threads > 0 ? o->threads : pp_cpu_count();
    size_t n = (size_t)p->op_count + 1;
    double *head = malloc(n * sizeof(double)), *tail = malloc(n * sizeof(double));
    worker *workers = calloc((size_t)count, sizeof *workers);
    sc_solution start = {0}, best = {0};
    pp_sched_schedule *answer = NULL, *makespans = NULL;
    pp_status st = PP_OK;
    if (!head || !tail || !workers || !sc_solution_alloc(&start, p->op_count) ||
        !sc_solution_alloc(&best, p->op_count)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        goto done;
    }
    sc_heads_tails(p, head, tail);
    if (o->start && (st = given_start(&x, &start, err)) != PP_OK)
        goto done;
    /* Not the caller's stop flag: the construction's start is what a stop
     * returns. Its share of the time, though, ends with the run's. */
    pp_deadline construct_by = {0};
    if (o->time_limit > 0)
        construct_by = pp_deadline_within(&(pp_deadline){x.deadline.at, NULL}, CONSTRUCT_SHARE * o->time_limit);
    if (!o->start && !construct(&x, head, tail, &construct_by, &start, &best)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        goto done;
    }
    if (o->start)
        report_start(&x, &start);
    if (coarse_start(&x, &start))
        report_start(&x, &start);
    if (!o->start && o->objective == PP_SCHED_MAKESPAN && (st = lag_start(&x, &start, &best, err)) != PP_OK)
        goto done;
    sc_solution_copy(&best, &start, p->op_count);
    for (int i = 0; i < count; i++)
        if (!(workers[i].search = sc_search_new(p, &start, o->seed, i))) {
            st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
            goto done;
        }
    if (!at_bound(&x, sc_search_best_cost(workers[0].search)))
        search(&x, workers, count, &best);
    pp_error why = {0};
    answer = schedule_of(p, &best, &why);
    if (!answer && why.status == PP_ENOMEM) {
        st = pp_error_set(err, PP_ENOMEM, "%s", why.message);
        goto done;
    }
    if (mip_applies(&x) && !(answer && at_bound(&x, pp_sched_makespan(answer))) &&
        (st = improve_by_mip(&x, &answer, err)) != PP_OK)
        goto done;
    if (!answer) {
        st = pp_error_set(err, why.status, "%s", why.message);
        goto done;
    }
    pp_deadline span_by = x.deadline;
    if (o->objective == PP_SCHED_CYCLIC_ASYNC) {
        /* Counted from the start: from now it was the whole time less the makespan's share. */
        double fold_time = (1 - CYCLIC_SPAN_SHARE) * o->time_limit;
        if (o->time_limit > 0)
            span_by = pp_deadline_within(&x.deadline, fmax(1e-3, pp_deadline_left(&x.deadline) - fold_time));
        if (!(makespans = pp_sched_schedule_new(p))) {
            st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
            goto done;
        }
        pp_sched_schedule_copy(makespans, answer);
    }
    if ((o->objective == PP_SCHED_SPAN || cyclic(o)) && (st = span_objective(&x, answer, &span_by, err)) != PP_OK)
        goto done;
    if (cyclic(o) && (st = cyclic_objective(&x, answer, makespans, err)) != PP_OK)
        goto done;
    st = finish(&x, answer, err);
    answer = NULL;
done:
    pp_sched_schedule_free(answer);
    pp_sched_schedule_free(makespans);
    for (int i = 0; i < count && workers; i++)
        sc_search_free(workers[i].search);
    free(workers);
    free(head);
    free(tail);
    sc_solution_free(&start);
    sc_solution_free(&best);
    return st;
}
