/* search.c: the parallel branch-and-bound of paper 003 Alg. 1, which the
 * pipeline (solve.c) gives its incumbents (the best uniform plan, the warm
 * start) and runs: two passes over the branches, best root bound first: a
 * dive per branch (its greedy plan and the first plan its search reaches
 * within a few hundred nodes; a dive that runs out of children has searched
 * its branch), then each branch's full depth-first search over layers per
 * stage with children tried by bound; every complete plan whose bound does
 * not exceed the incumbent is simulated. Ties go to the smaller (branch index, layers)
 * key, and pruning is strict, so a complete search gives the same answer
 * whatever the threads and their timing. */
#include "cluster/search.h"
#include "core/threads.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/plan.h"

/* Relative slack on the prune test so rounding never drops a plan whose
 * simulated time equals the incumbent's (that would make ties depend on
 * timing). */
#define PRUNE_SLACK 1e-9

/* A dive gives up after this many nodes: it is there to find an
 * incumbent early, and on a branch whose plans lose at the leaves (their
 * schedules' bounds) it had searched nearly the whole branch, which the
 * full pass then searched again (hetero-v100-32 with GPT-13B after the
 * Ethernet drop: 1.79M nodes, 0.94M with this limit, the same plan). */
#define DIVE_NODES 256


typedef struct {
    int n;
    bool replay;
    double bound;
    cluster_cost cost;
    cluster_walk walk;
} child;

/* A stage's cost depends on its stage, first layer, layer count and
 * recomputation alone, and the depth-first search asks for the same ones
 * again under every earlier split: each branch's are kept while it is
 * searched, up to this many (p L (L + 1) 2 of them). */
#define COST_MEMO 131072

typedef struct {
    cluster_cost cost;
    unsigned stamp; /* the worker's branch it was worked out in */
} cost_memo;

typedef struct {
    cluster_search *sh;
    cluster_stages st;
    cost_memo *memo;     /* [COST_MEMO] or NULL */
    unsigned stamp;      /* this branch's, in memo */
    bool memoized;       /* the branch's costs fit in memo */
    int *layers;     /* [stage] */
    bool *replay;    /* [stage] */
    cluster_cost *costs; /* [stage] the fixed stages' */
    double *windows;     /* [depth] cluster_open_windows' largest down to the node */
    int *greedy;     /* [stage] */
    bool *greedy_replay; /* [stage] */
    child *children; /* [stage][2 layers] */
    double *peak;    /* [device] */
    long nodes, simulations;
    bool stopped;
    bool diving;     /* first pass: stop at the first plan judged */
    bool landed;     /* the dive is over: a plan judged, or out of nodes */
    long dive_end;   /* nodes at which a dive gives up */
} worker;

static double incumbent(cluster_search *sh)
{
    return atomic_load_explicit(&sh->best_seen, memory_order_relaxed);
}

static bool pruned(double bound, double best)
{
    return bound * (1.0 - PRUNE_SLACK) > best;
}

/* The order of plans within a branch: layers per stage, then the stages'
 * recomputation (keeping before recomputing). */
static int compare_key(const int *a, const bool *ra, const int *b, const bool *rb, int count)
{
    for (int i = 0; i < count; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    for (int i = 0; i < count; i++)
        if (ra[i] != rb[i])
            return ra[i] ? 1 : -1;
    return 0;
}

/* Tells the caller how the search is getting on; the lock is held. */
static void report_progress(const cluster_search *sh)
{
    if (!sh->o->on_progress)
        return;
    pp_cluster_progress p = {pp_now() - sh->started, sh->best ? sh->best_time : INFINITY, sh->nodes_seen};
    sh->o->on_progress(sh->o->progress_ctx, &p);
}

void cluster_search_offer(cluster_search *sh, pp_cluster_plan *plan, pp_cluster_report *report,
                          double time, int branch, const int *layers, const bool *replay, int count)
{
    pthread_mutex_lock(&sh->lock);
    bool better = time < sh->best_time;
    if (time == sh->best_time && sh->best) {
        int cmp = branch != sh->best_branch ? (branch < sh->best_branch ? -1 : 1)
                  : branch < 0 ? 0
                  : compare_key(layers, replay, sh->best_layers, sh->best_replay, count);
        better = cmp < 0;
    }
    if (better) {
        pp_cluster_plan_free(sh->best);
        pp_cluster_report_free(&sh->best_report);
        sh->best = plan;
        sh->best_report = *report;
        *report = (pp_cluster_report){0};
        sh->best_time = time;
        atomic_store_explicit(&sh->best_seen, time, memory_order_relaxed);
        sh->best_branch = branch;
        if (branch >= 0) {
            memcpy(sh->best_layers, layers, (size_t)count * sizeof(int));
            memcpy(sh->best_replay, replay, (size_t)count * sizeof(bool));
        }
        plan = NULL;
        report_progress(sh);
    }
    pthread_mutex_unlock(&sh->lock);
    pp_cluster_plan_free(plan);
    pp_cluster_report_free(report);
}

static void fail(cluster_search *sh, const pp_error *e)
{
    pthread_mutex_lock(&sh->lock);
    if (sh->status == PP_OK) {
        sh->status = e->status;
        sh->err = *e;
    }
    sh->stop = true;
    pthread_mutex_unlock(&sh->lock);
}

bool cluster_search_fits(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                         double *peak)
{
    pp_cluster_plan_memory(c, w, p, peak);
    for (int d = 0; d < c->device_count; d++)
        if (peak[d] > c->nodes[c->device_node[d]].type->memory_bytes)
            return false;
    return true;
}

pp_status cluster_search_simulate(cluster_search *sh, const pp_cluster_plan *p, double cutoff,
                                  double *time, pp_cluster_report *report, pp_error *err)
{
    pp_status s = cluster_clock_simulate(&sh->clock, sh->c, sh->w, p, sh->o->start_time, cutoff,
                                         !isfinite(incumbent(sh)), time, report, err);
    if (s != PP_OK)
        *time = INFINITY;
    return s;
}

/* A complete plan's bound, as far as it must go to be pruned. */
static double plan_bound(worker *wk, const int *layers, const bool *replay)
{
    return cluster_plan_bound(&wk->st, layers, replay, incumbent(wk->sh) / (1.0 - PRUNE_SLACK));
}

static void judge(worker *wk, const int *layers, const bool *replay)
{
    cluster_search *sh = wk->sh;
    pp_cluster_plan *plan = cluster_stages_plan(&wk->st, layers, replay);
    if (!plan) {
        pp_error e = {PP_ENOMEM, "out of memory building a plan"};
        fail(sh, &e);
        return;
    }
    if (!cluster_search_fits(sh->c, sh->w, plan, wk->peak)) {
        pp_cluster_plan_free(plan);
        return;
    }
    pp_error e = {0};
    pp_cluster_report report = {0};
    double time;
    /* a simulation costs as much as thousands of nodes: look at the clock
     * (unless nothing is in hand yet) */
    if (isfinite(incumbent(sh)) && cluster_clock_late(&sh->clock)) {
        pp_cluster_plan_free(plan);
        pthread_mutex_lock(&sh->lock);
        sh->stop = true;
        pthread_mutex_unlock(&sh->lock);
        wk->stopped = true;
        return;
    }
    wk->simulations++;
    /* a plan slower than the incumbent could never win, ties included */
    if (cluster_search_simulate(sh, plan, incumbent(sh), &time, &report, &e) != PP_OK) {
        pp_cluster_plan_free(plan);
        pp_cluster_report_free(&report);
        fail(sh, &e);
        return;
    }
    if (isinf(time)) {
        pp_cluster_plan_free(plan);
        return;
    }
    cluster_search_offer(sh, plan, &report, time, wk->st.branch->index, layers, replay, wk->st.stage_count);
}

static bool out_of_time(worker *wk)
{
    if (wk->stopped)
        return true;
    if (++wk->nodes % 1024 == 0) {
        cluster_search *sh = wk->sh;
        bool late = cluster_clock_late(&sh->clock);
        pthread_mutex_lock(&sh->lock);
        sh->stop |= late;
        wk->stopped = sh->stop;
        sh->nodes_seen += 1024;
        report_progress(sh);
        pthread_mutex_unlock(&sh->lock);
    }
    return wk->stopped;
}

static int child_order(const void *a, const void *b)
{
    const child *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound < y->bound ? -1 : 1;
    return x->n != y->n ? x->n - y->n : (int)x->replay - (int)y->replay;
}

/* cluster_stage_cost, from the worker's memo when the branch fits in it. */
static cluster_cost stage_cost(worker *wk, int s, int first, int n, bool replay)
{
    if (!wk->memoized)
        return cluster_stage_cost(&wk->st, s, first, n, replay);
    int L = wk->st.prefix->layers;
    cost_memo *m = &wk->memo[(((size_t)s * L + first) * (L + 1) + n) * 2 + replay];
    if (m->stamp != wk->stamp)
        *m = (cost_memo){cluster_stage_cost(&wk->st, s, first, n, replay), wk->stamp};
    return m->cost;
}

/* Adds the child (n, replay) unless pruned. */
static void consider(worker *wk, int s, int first, int n, bool replay, cluster_walk walk, double best,
                     child *out, int *count)
{
    const cluster_stages *st = &wk->st;
    cluster_cost cost = stage_cost(wk, s, first, n, replay);
    cluster_walk next = cluster_walk_extend(st, walk, cost);
    double bound = cluster_walk_bound_past(st, next, s + 1, first + n, best / (1.0 - PRUNE_SLACK));
    if (!pruned(bound, best))
        out[(*count)++] = (child){n, replay, bound, cost, next};
}

/* The children of stage s starting at layer `first`: every layer count
 * that fits in memory and is not pruned, with its bound, best first. A
 * stage recomputes only when its activations do not fit: where they fit,
 * recomputing costs the same memory check and strictly more work in the
 * same schedule, so it never gives a faster step (the enumeration test
 * checks this against every flag). */
static int expand(worker *wk, int s, int first, cluster_walk walk, double best)
{
    const cluster_stages *st = &wk->st;
    int p = st->stage_count, left = st->prefix->layers - first;
    int hi = s == p - 1 ? left : left - (p - s - 1), lo = s == p - 1 ? left : 1;
    int count = 0;
    child *out = wk->children + (size_t)s * 2 * (size_t)(st->prefix->layers + 1);
    double max_layer = 0.0;
    for (int n = 1; n <= hi; n++) {
        max_layer = fmax(max_layer, cluster_layer_full_activation(st, s, first + n - 1));
        if (n < lo)
            continue;
        /* memory only grows with the layers a stage holds */
        bool keeps = cluster_stage_memory(st, s, first, n, 0.0, false) <= st->capacity[s];
        bool replays = cluster_stage_memory(st, s, first, n, max_layer, true) <= st->capacity[s];
        if (!keeps && !replays)
            break;
        if (keeps)
            consider(wk, s, first, n, false, walk, best, out, &count);
        else if (replays)
            consider(wk, s, first, n, true, walk, best, out, &count);
    }
    qsort(out, (size_t)count, sizeof *out, child_order);
    return count;
}

static void dfs(worker *wk, int s, int first, cluster_walk walk)
{
    if (out_of_time(wk))
        return;
    if (wk->diving && wk->nodes >= wk->dive_end) {
        wk->landed = true;
        return;
    }
    if (s == wk->st.stage_count) {
        if (!pruned(walk.fixed, incumbent(wk->sh)) &&
            compare_key(wk->layers, wk->replay, wk->greedy, wk->greedy_replay, s) != 0 &&
            !pruned(plan_bound(wk, wk->layers, wk->replay), incumbent(wk->sh))) {
            judge(wk, wk->layers, wk->replay);
            wk->landed = wk->diving;
        }
        return;
    }
    /* the cycles through the fixed stages' slow messages: the sums miss them */
    wk->windows[s] = cluster_open_windows(&wk->st, wk->costs, s, s > 1 ? wk->windows[s - 1] : -INFINITY);
    if (pruned(wk->windows[s], incumbent(wk->sh)))
        return;
    int count = expand(wk, s, first, walk, incumbent(wk->sh));
    const child *kids = wk->children + (size_t)s * 2 * (size_t)(wk->st.prefix->layers + 1);
    for (int i = 0; i < count && !wk->stopped && !wk->landed; i++) {
        if (i > 0 && pruned(kids[i].bound, incumbent(wk->sh)))
            continue;
        wk->layers[s] = kids[i].n;
        wk->replay[s] = kids[i].replay;
        wk->costs[s] = kids[i].cost;
        dfs(wk, s + 1, first + kids[i].n, kids[i].walk);
    }
}

/* Layers in proportion to the stages' rates (largest remainders), at least
 * one each; then layers move off stages over their memory (recomputing)
 * onto the stage with the most room; stages whose activations fit keep
 * them. */
static void greedy_layers(const cluster_stages *st, int *layers, bool *replay)
{
    int p = st->stage_count, L = st->prefix->layers, given = 0;
    double total = st->rate_suffix[0];
    for (int s = 0; s < p; s++) {
        layers[s] = 1 + (int)floor((L - p) * st->rate[s] / total);
        given += layers[s];
    }
    for (; given < L; given++) {
        int best = 0;
        double most = -1.0;
        for (int s = 0; s < p; s++) {
            double want = (L - p) * st->rate[s] / total - (layers[s] - 1);
            if (want > most) {
                most = want;
                best = s;
            }
        }
        layers[best]++;
    }
    for (int round = 0; round < L * p; round++) {
        int over = -1, room = -1, first = 0;
        double worst = 0.0, slack = -INFINITY;
        for (int s = 0; s < p; s++) {
            double used = cluster_stage_memory(st, s, first, layers[s], 0.0, true) / st->capacity[s];
            /* One layer more, read from the next stage's first: no stage reads past the model. */
            int from = first + layers[s] < L ? first : first - 1;
            double more = cluster_stage_memory(st, s, from, layers[s] + 1, 0.0, true) / st->capacity[s];
            if (used > 1.0 && used > worst && layers[s] > 1) {
                worst = used;
                over = s;
            }
            if (more <= 1.0 && 1.0 - more > slack) {
                slack = 1.0 - more;
                room = s;
            }
            first += layers[s];
        }
        if (over < 0 || room < 0)
            break;
        layers[over]--;
        layers[room]++;
    }
    for (int s = 0, first = 0; s < p; first += layers[s++])
        replay[s] = cluster_stage_memory(st, s, first, layers[s], 0.0, false) > st->capacity[s];
}

static bool worker_branch(worker *wk, cluster_branch *b, pp_arena *a)
{
    cluster_search *sh = wk->sh;
    int L = sh->w->layer_count;
    if (!cluster_stages_build(sh->space, sh->w, b, a, &wk->st))
        return false;
    wk->layers = pp_arena_alloc(a, (size_t)b->stage_count * sizeof(int));
    wk->replay = pp_arena_calloc(a, (size_t)b->stage_count, sizeof(bool));
    wk->costs = pp_arena_alloc(a, (size_t)b->stage_count * sizeof(cluster_cost));
    wk->windows = pp_arena_alloc(a, ((size_t)b->stage_count + 1) * sizeof(double));
    wk->greedy = pp_arena_alloc(a, (size_t)b->stage_count * sizeof(int));
    wk->greedy_replay = pp_arena_calloc(a, (size_t)b->stage_count, sizeof(bool));
    wk->children = pp_arena_alloc(a, (size_t)b->stage_count * 2 * (size_t)(L + 1) * sizeof(child));
    if (!wk->layers || !wk->replay || !wk->costs || !wk->windows || !wk->greedy || !wk->greedy_replay ||
        !wk->children)
        return false;
    size_t costs = (size_t)b->stage_count * (size_t)L * (size_t)(L + 1) * 2;
    wk->memoized = wk->memo && costs <= COST_MEMO;
    wk->stamp++;
    greedy_layers(&wk->st, wk->greedy, wk->greedy_replay);
    if (wk->diving &&
        !pruned(plan_bound(wk, wk->greedy, wk->greedy_replay), incumbent(sh)))
        judge(wk, wk->greedy, wk->greedy_replay);
    wk->landed = false;
    wk->dive_end = wk->nodes + DIVE_NODES;
    dfs(wk, 0, 0, cluster_walk_start());
    return true;
}

/* Two passes over the branches, best root bound first: a dive (the greedy
 * plan and the first plan the depth-first search reaches) in every branch,
 * so the incumbent is good before any branch is searched to its end; then
 * the full searches. */
static int take_branch(cluster_search *sh)
{
    /* a branch costs its stages' tables before its first 1024 nodes look
     * at the clock: at thousands of GPUs, many branches' worth */
    bool late = cluster_clock_late(&sh->clock);
    pthread_mutex_lock(&sh->lock);
    sh->stop |= late;
    int i = sh->stop || sh->next == 2 * sh->branch_count ? -1 : sh->next++;
    pthread_mutex_unlock(&sh->lock);
    return i;
}

/* Branch i is searched to its end: by its full search, or by a dive that
 * judged no plan (so its depth-first search ran out of children, every
 * pruned one above an incumbent no better than the final one). A dive and
 * the full search of one branch can run at once: the lock orders them. */
static void mark_done(cluster_search *sh, int i)
{
    pthread_mutex_lock(&sh->lock);
    sh->done[i] = true;
    pthread_mutex_unlock(&sh->lock);
}

static bool is_done(cluster_search *sh, int i)
{
    pthread_mutex_lock(&sh->lock);
    bool done = sh->done[i];
    pthread_mutex_unlock(&sh->lock);
    return done;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    cluster_search *sh = wk->sh;
    for (int k; (k = take_branch(sh)) >= 0;) {
        wk->diving = k < sh->branch_count;
        int i = wk->diving ? k : k - sh->branch_count;
        cluster_branch *b = &sh->branches[i];
        if (!wk->diving && is_done(sh, i))
            continue;
        if (pruned(b->root_bound, incumbent(sh))) {
            if (!wk->diving)
                mark_done(sh, i);
            continue;
        }
        pp_arena *a = pp_arena_new(1 << 14);
        bool ok = a && worker_branch(wk, b, a);
        pp_arena_free(a);
        if (!ok) {
            pp_error e = {PP_ENOMEM, "out of memory searching a branch"};
            fail(sh, &e);
            break;
        }
        if (!wk->stopped && (!wk->diving || !wk->landed))
            mark_done(sh, i);
    }
    return NULL;
}

static int branch_order(const void *a, const void *b)
{
    const cluster_branch *x = a, *y = b;
    if (x->root_bound != y->root_bound)
        return x->root_bound < y->root_bound ? -1 : 1;
    return x->index - y->index;
}

/* One thread's share of the root bounds: branches i, i + threads, ...;
 * false when out of memory. */
typedef struct {
    cluster_search *sh;
    int first, step;
    bool ok;
} ranker;

static void *rank_some(void *arg)
{
    ranker *r = arg;
    cluster_search *sh = r->sh;
    r->ok = true;
    for (int i = r->first; i < sh->branch_count && r->ok; i += r->step) {
        /* past the limit the rest stay unranked (bound 0) and unsearched */
        if (pp_deadline_passed(&sh->clock.deadline)) {
            pthread_mutex_lock(&sh->lock);
            sh->stop = true;
            pthread_mutex_unlock(&sh->lock);
            break;
        }
        pp_arena *a = pp_arena_new(1 << 12);
        cluster_stages st;
        r->ok = a && cluster_stages_build(sh->space, sh->w, &sh->branches[i], a, &st);
        if (r->ok)
            sh->branches[i].root_bound = cluster_root_bound(&st);
        pp_arena_free(a);
    }
    return NULL;
}

bool cluster_search_rank(cluster_search *sh, int threads)
{
    ranker *rankers = calloc((size_t)threads, sizeof *rankers);
    if (!rankers)
        return false;
    for (int t = 0; t < threads; t++)
        rankers[t] = (ranker){sh, t, threads, true};
    pp_threads_run(threads, rank_some, rankers, sizeof *rankers);
    bool ok = true;
    for (int t = 0; t < threads; t++)
        ok &= rankers[t].ok;
    free(rankers);
    if (!ok)
        return false;
    if (sh->branch_count > 0) /* a space with no branch has no array to sort (qsort's NULL is undefined) */
        qsort(sh->branches, (size_t)sh->branch_count, sizeof *sh->branches, branch_order);
    return true;
}

pp_status cluster_search_run(cluster_search *sh, int threads, pp_error *err)
{
    worker *workers = calloc((size_t)threads, sizeof *workers);
    double *peaks = calloc((size_t)threads * (size_t)sh->c->device_count + 1, sizeof(double));
    if (!workers || !peaks) {
        free(workers);
        free(peaks);
        return pp_error_set(err, PP_ENOMEM, "out of memory starting the search threads");
    }
    for (int t = 0; t < threads; t++)
        /* without its memo a worker works every cost out (slower, same answers) */
        workers[t] = (worker){.sh = sh, .peak = peaks + (size_t)t * (size_t)sh->c->device_count,
                              .memo = calloc(COST_MEMO, sizeof(cost_memo))};
    pp_threads_run(threads, worker_main, workers, sizeof *workers);
    for (int t = 0; t < threads; t++) {
        sh->nodes += workers[t].nodes;
        sh->simulations += workers[t].simulations;
        free(workers[t].memo);
    }
    free(workers);
    free(peaks);
    return PP_OK;
}
