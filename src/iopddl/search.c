/* search.c: the improvement stage after the first feasible answer: the
 * relaxation workers (relax.c, one per thread, each with a one-region
 * neighbourhood search of its own for the region it solves before a
 * restart) until the deadline or until every one of them has stalled, then
 * rounds of large-neighbourhood search (lns.c) from their best answer until
 * the deadline.
 *
 * Why this order and this hand-over: the relaxation finds the answer's
 * global shape (which nodes give up memory where) and on most instances
 * keeps improving it to the end (A, M, S, L at 20 s: each of its rounds is
 * worth more than a region's MIP there). Where it stalls among the cycles
 * of the pairwise part (C: best found at 6-12 s of 20, then nothing), the
 * neighbourhood search takes the answer much further (DESIGN.md). Giving
 * the neighbourhood search a fixed share of the time instead (25%, 40%) or
 * alternating the two by their gain rates lost 5-30% on A, L, M and S at
 * 20 s on this 2-core machine. Workers decide they have stalled from
 * their own round counts, so a given seed, thread count and round budget
 * give the same answer whenever the region MIPs finish within their
 * limits. Without a round budget, each worker also takes, at its next
 * round, an answer another thread hands over (the bound's, decoded from its
 * multipliers: moves of hundreds of nodes at once that no round makes;
 * DESIGN.md, "When the bound runs"). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iopddl/lns.h"
#include "iopddl/search.h"

/* See stalled(); without a deadline, the neighbourhood search ends after
 * LNS_IDLE_ROUNDS rounds without a gain. */
enum { STALL_MIN_ROUNDS = 8, STALL_START_ROUNDS = 25 };
enum { LNS_IDLE_ROUNDS = 3 };

typedef struct {
    iopddl_worker worker;
    pp_deadline deadline;
    double started;
    int64_t until;          /* rounds to reach */
    bool by_time;           /* no round budget: hand over when all have stalled */
    bool stalled;           /* as of its last round (read by the main thread) */
    bool *hand_over;        /* set by the main thread: every worker has stalled */
    const iopddl_search *search; /* its bound: no answer is cheaper, reaching it ends the search */
    iopddl_lns lns;            /* the worker's regions before its restarts */
    uint64_t seen;             /* the hand-over's version it last looked at */
    uint32_t *taken;           /* scratch: the answer handed over, or NULL */
    int64_t handovers;         /* answers handed over that were cheaper than its best */
    pthread_t thread;
} worker_slot;

/* A worker has stalled when the second half of its rounds (at least
 * STALL_MIN_ROUNDS, or STALL_START_ROUNDS while it has not yet beaten the
 * answer it started from) found nothing better. Stalled workers go on (an
 * idle core gains nothing) until all of them are stalled at once. Why the
 * longer wait at the start: the first answer moves tied groups whole, and
 * on L it is then good enough (4.43e9) that the relaxation's weights need
 * more than 8 rounds to beat it; counted as stalled there, the workers
 * handed L to the neighbourhood search at 9 s of 20, which gains nothing
 * on it, and L ended at its first answer. */
static bool stalled(const iopddl_worker *w)
{
    int64_t idle = w->rounds - w->best_round;
    int64_t least = w->best_round > 0 ? STALL_MIN_ROUNDS : STALL_START_ROUNDS;
    return idle >= least && 2 * idle >= w->rounds;
}

static double bound_now(const iopddl_search *s)
{
    double rising = -INFINITY;
    if (s->rising_bound)
        __atomic_load(s->rising_bound, &rising, __ATOMIC_ACQUIRE);
    return fmax(s->lower_bound, rising);
}

bool iopddl_handover_init(iopddl_handover *h, const iopddl_model *m)
{
    h->cost = IOPDDL_NO_COST;
    h->version = 0;
    h->x = malloc(((size_t)m->node_count + 1) * sizeof *h->x);
    if (h->x && pthread_mutex_init(&h->lock, NULL) == 0)
        return true;
    free(h->x);
    return false;
}

void iopddl_handover_free(iopddl_handover *h)
{
    pthread_mutex_destroy(&h->lock);
    free(h->x);
    h->x = NULL;
}

void iopddl_handover_put(iopddl_handover *h, const iopddl_model *m, const uint32_t *x, iopddl_cost cost)
{
    pthread_mutex_lock(&h->lock);
    if (cost < h->cost) {
        memcpy(h->x, x, m->node_count * sizeof *x);
        h->cost = cost;
        __atomic_store_n(&h->version, h->version + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&h->lock);
}

/* The answer handed over since the worker last looked, offered to it when
 * cheaper than its best. Only without a round budget: when it arrives is a
 * matter of threads' timing, and a round budget promises the same answer
 * every run. */
static void take_handover(worker_slot *slot)
{
    iopddl_handover *h = slot->search->handover;
    if (!h || !slot->by_time || __atomic_load_n(&h->version, __ATOMIC_ACQUIRE) == slot->seen)
        return;
    pthread_mutex_lock(&h->lock);
    slot->seen = h->version;
    iopddl_cost cost = h->cost;
    memcpy(slot->taken, h->x, slot->worker.m->node_count * sizeof *h->x);
    pthread_mutex_unlock(&h->lock);
    iopddl_worker *w = &slot->worker;
    if (cost >= w->best_cost)
        return;
    iopddl_worker_offer(w, slot->taken, 0, pp_now() - slot->started, &slot->deadline);
    slot->handovers += w->best_cost <= cost;
}

static void *worker_main(void *arg)
{
    worker_slot *slot = arg;
    iopddl_worker *w = &slot->worker;
    while (!pp_deadline_passed(&slot->deadline) && w->rounds < slot->until && !iopddl_bound_proves(w->best_cost, bound_now(slot->search)) &&
           !__atomic_load_n(slot->hand_over, __ATOMIC_ACQUIRE)) {
        take_handover(slot);
        iopddl_worker_round(w, &slot->deadline, slot->started);
        __atomic_store_n(&slot->stalled, slot->by_time && stalled(w), __ATOMIC_RELEASE);
    }
    __atomic_store_n(&w->finished, true, __ATOMIC_RELEASE);
    return NULL;
}

/* Takes the workers' best into r when it is cheaper (ties: lowest id). */
static void gather(iopddl_search *s, worker_slot *slots, pp_iopddl_result *r)
{
    r->rounds = 0;
    for (int i = 0; i < s->threads; i++) {
        iopddl_worker *w = &slots[i].worker;
        double first = w->time_first_feasible;
        if (first > 0 && (r->time_first_feasible <= 0 || first < r->time_first_feasible))
            r->time_first_feasible = first;
        r->rounds += w->rounds;
        r->neighbourhood_rounds += w->regions;
        r->neighbourhood_gains += w->region_gains;
        s->handovers_taken += slots[i].handovers;
        if (w->best_cost < r->cost) {
            r->cost = w->best_cost;
            memcpy(r->strategies, w->best, s->m->node_count * sizeof(uint32_t));
            r->time_best = w->time_best;
        }
    }
}

static bool workers_done(iopddl_search *s, worker_slot *slots, const pp_deadline *deadline)
{
    bool done = true, all_stalled = true;
    for (int i = 0; i < s->threads; i++) {
        done &= __atomic_load_n(&slots[i].worker.finished, __ATOMIC_ACQUIRE);
        all_stalled &= __atomic_load_n(&slots[i].stalled, __ATOMIC_ACQUIRE);
    }
    if (all_stalled)
        __atomic_store_n(slots[0].hand_over, true, __ATOMIC_RELEASE);
    return done || pp_deadline_passed(deadline);
}

static void report_live(iopddl_search *s, worker_slot *slots)
{
    int64_t best = INT64_MAX, rounds = 0;
    for (int i = 0; i < s->threads; i++) {
        /* Read racily for display only; the answer comes from gather(). */
        int64_t c = __atomic_load_n(&slots[i].worker.shown_cost, __ATOMIC_RELAXED);
        rounds += __atomic_load_n(&slots[i].worker.rounds, __ATOMIC_RELAXED);
        best = c < best ? c : best;
    }
    s->on_progress(s->ctx, s->started, best, rounds);
}

static bool run_workers(iopddl_search *s, worker_slot *slots, int64_t until, const pp_deadline *deadline)
{
    bool ok = true, hand_over = false;
    int started = 0;
    for (int i = 0; i < s->threads; i++) {
        slots[i].until = until;
        slots[i].by_time = until == INT64_MAX;
        slots[i].hand_over = &hand_over;
        slots[i].search = s;
        slots[i].deadline = *deadline;
    }
    for (; started < s->threads; started++)
        if (pthread_create(&slots[started].thread, NULL, worker_main, &slots[started]) != 0)
            break;
    /* A thread that cannot start runs here, after the others. */
    for (int i = started; i < s->threads; i++)
        worker_main(&slots[i]);
    /* The pause grows from 1 ms to 50 ms: a tiny problem's workers end
     * within a millisecond, where a first pause of 50 ms was most of the
     * solve (the random problems of tests/iopddl: 25 of 29 s). */
    long pause_ns = 1000 * 1000;
    for (double shown = -INFINITY; !workers_done(s, slots, deadline);) {
        if (s->on_progress && pp_now() - shown >= 0.2) {
            report_live(s, slots);
            shown = pp_now();
        }
        nanosleep(&(struct timespec){0, pause_ns}, NULL);
        pause_ns = pause_ns * 2 < 50 * 1000 * 1000 ? pause_ns * 2 : 50 * 1000 * 1000;
    }
    for (int i = 0; i < started; i++)
        ok &= pthread_join(slots[i].thread, NULL) == 0;
    return ok;
}

/* Neighbourhood rounds from r's answer until the deadline or, when the
 * run is bounded by rounds (or has no deadline), until LNS_IDLE_ROUNDS
 * rounds in a row gain nothing. */
static pp_status neighbourhood_stage(iopddl_search *s, uint64_t seed, bool by_rounds, double overhead,
                                     const pp_deadline *deadline, pp_iopddl_result *r)
{
    iopddl_lns lns;
    if (!iopddl_lns_init(&lns, s->m, s->threads, seed, r->strategies, r->cost)) {
        iopddl_lns_free(&lns);
        return PP_ENOMEM;
    }
    lns.overhead = overhead; /* the workers' regions' builds: the same sizes, the same machine */
    lns.stop = deadline->stop;
    for (int idle = 0; !(by_rounds || deadline->at <= 0) || idle < LNS_IDLE_ROUNDS;) {
        double seconds = iopddl_lns_seconds(&lns, deadline);
        if (seconds < 0.5 || pp_stop_raised(deadline->stop) || r->proven_optimal || iopddl_bound_proves(r->cost, bound_now(s)))
            break;
        bool gained = iopddl_lns_round(&lns, seconds);
        idle = gained ? 0 : idle + 1;
        r->neighbourhood_rounds++;
        r->neighbourhood_gains += gained;
        if (gained) {
            memcpy(r->strategies, lns.best, s->m->node_count * sizeof(uint32_t));
            r->cost = lns.best_cost;
            r->time_best = pp_now() - s->started;
            if (s->on_progress)
                s->on_progress(s->ctx, s->started, iopddl_cost_shown(r->cost), r->rounds);
        }
        r->proven_optimal = lns.proven_optimal;
    }
    iopddl_lns_free(&lns);
    return PP_OK;
}

static pp_status start_workers(iopddl_search *s, worker_slot *slots, const pp_iopddl_result *r, uint64_t seed,
                               const pp_stop_flag *stop)
{
    for (int i = 0; i < s->threads; i++) {
        slots[i].started = s->started;
        if (!iopddl_worker_init(&slots[i].worker, s->m, s->relevant, s->groups, i, seed, r->strategies) ||
            !iopddl_lns_init(&slots[i].lns, s->m, 1, seed + (uint64_t)i, r->strategies, r->cost))
            return PP_ENOMEM;
        slots[i].worker.lns = &slots[i].lns;
        slots[i].lns.stop = stop;
        slots[i].worker.best_cost = r->cost;
        slots[i].worker.shown_cost = iopddl_cost_shown(r->cost);
        slots[i].worker.time_best = r->time_best;
        slots[i].worker.time_first_feasible = r->time_first_feasible;
        slots[i].taken = s->handover ? malloc(((size_t)s->m->node_count + 1) * sizeof(uint32_t)) : NULL;
        if (s->handover && !slots[i].taken)
            return PP_ENOMEM;
    }
    return PP_OK;
}

pp_status iopddl_search_run(iopddl_search *s, uint64_t seed, int64_t max_rounds, const pp_deadline *deadline,
                         pp_iopddl_result *r, pp_error *err)
{
    worker_slot *slots = calloc((size_t)s->threads, sizeof *slots);
    pp_status status = slots ? start_workers(s, slots, r, seed, deadline->stop) : PP_ENOMEM;
    if (status == PP_OK && !run_workers(s, slots, max_rounds > 0 ? max_rounds : INT64_MAX, deadline))
        status = PP_ENOMEM;
    if (status == PP_OK) {
        gather(s, slots, r);
        r->proven_optimal = iopddl_bound_proves(r->cost, bound_now(s));
    }
    double overhead = 0;
    for (int i = 0; slots && i < s->threads; i++) {
        if (slots[i].worker.arena)
            iopddl_worker_free(&slots[i].worker);
        overhead = fmax(overhead, slots[i].lns.overhead);
        iopddl_lns_free(&slots[i].lns);
        free(slots[i].taken);
    }
    free(slots);
    if (status == PP_OK)
        status = neighbourhood_stage(s, seed, max_rounds > 0, overhead, deadline, r);

    return status == PP_OK ? PP_OK : pp_error_set(err, status, "out of memory for the search");
}
