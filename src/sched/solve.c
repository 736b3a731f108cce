/* solve.c: the scheduling pipeline: lower bound -> constructive start ->
 * local search, one worker per thread, in epochs of a fixed number of moves
 * -> the best schedule, checked by the independent checker. Workers meet only
 * between epochs: the best so far is taken in worker order and the worst
 * worker restarts from it now and then, so a fixed number of epochs gives the
 * same answer for a seed and thread count whatever the machine's speed. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sched/solver.h"

/* Epochs last about this many decoded ops and deps per worker (~0.1 s). */
#define EPOCH_WORK 2e7
enum { RESTART_EVERY = 5 };

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
    sched_search *search;
    long iterations;
    pthread_t thread;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    sched_search_run(w->search, w->iterations);
    return NULL;
}

static void run_epoch(worker *workers, int count)
{
    for (int i = 1; i < count; i++)
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
            workers[i].thread = 0, worker_main(&workers[i]);
    worker_main(&workers[0]);
    for (int i = 1; i < count; i++)
        if (workers[i].thread)
            pthread_join(workers[i].thread, NULL);
}

static int best_worker(worker *workers, int count)
{
    int best = 0;
    for (int i = 1; i < count; i++)
        if (sched_search_best_cost(workers[i].search) < sched_search_best_cost(workers[best].search))
            best = i;
    return best;
}

static int worst_worker(worker *workers, int count)
{
    int worst = 0;
    for (int i = 1; i < count; i++)
        if (sched_search_best_cost(workers[i].search) >= sched_search_best_cost(workers[worst].search))
            worst = i;
    return worst;
}

typedef struct {
    const pp_sched_problem *p;
    const pp_sched_options *o;
    pp_sched_result *r;
    pp_deadline deadline;
    double started;
} run;

static bool at_bound(const run *x, double makespan)
{
    return makespan <= x->r->lower_bound * (1 + 1e-9) + 1e-12;
}

/* Runs the workers until the deadline, the round budget or the bound;
 * leaves the best solution in `best`. */
static void search(run *x, worker *workers, int count, sched_solution *best)
{
    const pp_sched_problem *p = x->p;
    long per_epoch = (long)(EPOCH_WORK / (p->op_count + p->dep_count + 10));
    if (per_epoch < 200)
        per_epoch = 200;
    double best_cost = sched_search_best_cost(workers[0].search);
    for (long epoch = 1;; epoch++) {
        for (int i = 0; i < count; i++)
            workers[i].iterations = per_epoch;
        run_epoch(workers, count);
        x->r->rounds += per_epoch * count;
        int b = best_worker(workers, count);
        double c = sched_search_best_cost(workers[b].search);
        if (c < best_cost) {
            best_cost = c;
            sched_solution_copy(best, sched_search_best(workers[b].search), p->op_count);
            x->r->time_to_best = pp_now() - x->started;
            if (isinf(x->r->time_to_first))
                x->r->time_to_first = x->r->time_to_best;
            if (x->o->on_progress)
                x->o->on_progress(x->o->progress_ctx, c, x->r->lower_bound, pp_now() - x->started);
        }
        if (epoch % RESTART_EVERY == 0 && count > 1) {
            int w = worst_worker(workers, count);
            if (w != b)
                sched_search_restart_from(workers[w].search, sched_search_best(workers[b].search));
        }
        bool budget = x->o->max_rounds > 0 && epoch * per_epoch >= x->o->max_rounds;
        if (budget || at_bound(x, best_cost) || pp_deadline_passed(&x->deadline) ||
            (x->o->max_rounds <= 0 && x->o->time_limit <= 0))
            break;
    }
}

static pp_status finish(run *x, const sched_solution *best, pp_error *err)
{
    const pp_sched_problem *p = x->p;
    sched_decoder dec;
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    if (!s || !sched_decoder_init(&dec, p)) {
        pp_sched_schedule_free(s);
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    }
    sched_decode(&dec, best);
    sched_decoder_export(&dec, best, s);
    double overflow = dec.overflow;
    int broken = dec.broken;
    sched_decoder_free(&dec);
    pp_sched_result *r = x->r;
    r->elapsed = pp_now() - x->started;
    if (broken || overflow > 0) {
        pp_sched_schedule_free(s);
        if (broken)
            return pp_error_set(err, PP_INFEASIBLE, "no schedule found: every one tried needs a missing channel");
        return pp_error_set(err, PP_INFEASIBLE,
                            "no schedule within the devices' memory found in the time given "
                            "(the best tried exceeds it by %g in total)", overflow);
    }
    pp_sched_report report;
    pp_error check = {0};
    pp_status st = pp_sched_check(p, s, &report, &check);
    pp_sched_report_free(&report);
    if (st != PP_OK) {
        pp_sched_schedule_free(s);
        return pp_error_set(err, PP_EARG, "internal error: the checker rejects the solver's schedule: %s",
                            check.message);
    }
    r->schedule = s;
    r->makespan = pp_sched_makespan(s);
    r->proven_optimal = at_bound(x, r->makespan);
    return PP_OK;
}

pp_status pp_sched_solve(const pp_sched_problem *p, const pp_sched_options *o, pp_sched_result *r,
                         pp_error *err)
{
    memset(r, 0, sizeof *r);
    r->mip_bound = NAN;
    r->time_to_first = INFINITY;
    run x = {p, o, r, pp_deadline_in(o->time_limit), pp_now()};
    if (o->time_limit <= 0)
        x.deadline.at = 0;
    r->lower_bound = pp_sched_lower_bound(p);
    int count = o->threads > 0 ? o->threads : pp_cpu_count();
    size_t n = (size_t)p->op_count + 1;
    double *head = malloc(n * sizeof(double)), *tail = malloc(n * sizeof(double));
    worker *workers = calloc((size_t)count, sizeof *workers);
    sched_solution start = {0}, best = {0};
    pp_status st = PP_OK;
    if (!head || !tail || !workers || !sched_solution_alloc(&start, p->op_count) ||
        !sched_solution_alloc(&best, p->op_count)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        goto done;
    }
    sched_heads_tails(p, head, tail);
    if (!sched_construct(p, tail, &start)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        goto done;
    }
    sched_solution_copy(&best, &start, p->op_count);
    for (int i = 0; i < count; i++)
        if (!(workers[i].search = sched_search_new(p, &start, o->seed, i))) {
            st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
            goto done;
        }
    if (isfinite(sched_search_best_cost(workers[0].search)))
        r->time_to_first = r->time_to_best = pp_now() - x.started;
    if (!at_bound(&x, sched_search_best_cost(workers[0].search)))
        search(&x, workers, count, &best);
    st = finish(&x, &best, err);
done:
    for (int i = 0; i < count && workers; i++)
        sched_search_free(workers[i].search);
    free(workers);
    free(head);
    free(tail);
    sched_solution_free(&start);
    sched_solution_free(&best);
    return st;
}
