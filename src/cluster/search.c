/* search.c: pp_cluster_plan_search, the parallel branch-and-bound of paper
 * 003 Alg. 1. Incumbents first (the best uniform plan, the warm start), then
 * two passes over the branches, best root bound first: a dive per branch
 * (its greedy plan and the first plan its search reaches), then each
 * branch's full depth-first search over layers per stage with children
 * tried by bound; every complete plan whose bound does not exceed the
 * incumbent is simulated. Ties go to the smaller (branch index, layers)
 * key, and pruning is strict, so a complete search gives the same answer
 * whatever the threads and their timing. */
#include "cluster/planner.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Relative slack on the prune test so rounding never drops a plan whose
 * simulated time equals the incumbent's (that would make ties depend on
 * timing). */
#define PRUNE_SLACK 1e-9
#define KEY_UNIFORM (-2)
#define KEY_WARM (-1)

typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    const pp_cluster_plan_options *o;
    const cluster_space *space;
    cluster_branch *branches; /* sorted by root bound */
    int branch_count;
    pthread_mutex_t lock;
    int next;
    bool *done;               /* [sorted branch] searched to its end */
    double best_time;
    /* best_time for the prune tests, read without the lock: every node
     * reads it, and two workers taking turns at the lock left one idle */
    _Atomic double best_seen;
    int best_branch;
    int *best_layers;         /* [layers]: at most one stage per layer */
    bool *best_replay;        /* [layers] */
    pp_cluster_plan *best;
    pp_cluster_report best_report; /* best's simulation */
    cluster_clock clock;
    bool stop;
    long nodes, simulations;
    double started;           /* pp_now() at the start, for progress */
    long nodes_seen;          /* nodes explored so far, in the workers' steps of 1024 */
    pp_status status;
    pp_error err;
} shared_state;

typedef struct {
    int n;
    bool replay;
    double bound;
    cluster_walk walk;
} child;

typedef struct {
    shared_state *sh;
    cluster_stages st;
    int *layers;     /* [stage] */
    bool *replay;    /* [stage] */
    int *greedy;     /* [stage] */
    bool *greedy_replay; /* [stage] */
    child *children; /* [stage][2 layers] */
    double *peak;    /* [device] */
    long nodes, simulations;
    bool stopped;
    bool diving;     /* first pass: stop at the first plan judged */
    bool landed;
} worker;

static double incumbent(shared_state *sh)
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
static void report_progress(const shared_state *sh)
{
    if (!sh->o->on_progress)
        return;
    pp_cluster_progress p = {pp_now() - sh->started, sh->best ? sh->best_time : INFINITY, sh->nodes_seen};
    sh->o->on_progress(sh->o->progress_ctx, &p);
}

/* Offers a simulated plan; takes ownership of plan. */
static void offer(shared_state *sh, pp_cluster_plan *plan, pp_cluster_report *report, double time,
                  int branch, const int *layers, const bool *replay, int count)
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

static void fail(shared_state *sh, const pp_error *e)
{
    pthread_mutex_lock(&sh->lock);
    if (sh->status == PP_OK) {
        sh->status = e->status;
        sh->err = *e;
    }
    sh->stop = true;
    pthread_mutex_unlock(&sh->lock);
}

static bool plan_fits(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                      double *peak)
{
    pp_cluster_plan_memory(c, w, p, peak);
    for (int d = 0; d < c->device_count; d++)
        if (peak[d] > c->nodes[c->device_node[d]].type->memory_bytes)
            return false;
    return true;
}

/* Simulates a plan that fits; its step time, or INFINITY when it needs a
 * link that is down or certainly takes longer than cutoff. */
/* Without any plan in hand the simulation runs to its end, time limit or
 * not: the search must return a plan when one fits. */
static pp_status simulate(shared_state *sh, const pp_cluster_plan *p, double cutoff, double *time,
                          pp_cluster_report *report, pp_error *err)
{
    pp_status s = cluster_clock_simulate(&sh->clock, sh->c, sh->w, p, sh->o->start_time, cutoff,
                                         !isfinite(incumbent(sh)), time, report, err);
    if (s != PP_OK)
        *time = INFINITY;
    return s;
}

static void judge(worker *wk, const int *layers, const bool *replay)
{
    shared_state *sh = wk->sh;
    pp_cluster_plan *plan = cluster_stages_plan(&wk->st, layers, replay);
    if (!plan) {
        pp_error e = {PP_ENOMEM, "out of memory building a plan"};
        fail(sh, &e);
        return;
    }
    if (!plan_fits(sh->c, sh->w, plan, wk->peak)) {
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
    if (simulate(sh, plan, incumbent(sh), &time, &report, &e) != PP_OK) {
        pp_cluster_plan_free(plan);
        pp_cluster_report_free(&report);
        fail(sh, &e);
        return;
    }
    if (isinf(time)) {
        pp_cluster_plan_free(plan);
        return;
    }
    offer(sh, plan, &report, time, wk->st.branch->index, layers, replay, wk->st.stage_count);
}

static bool out_of_time(worker *wk)
{
    if (wk->stopped)
        return true;
    if (++wk->nodes % 1024 == 0) {
        shared_state *sh = wk->sh;
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

/* Adds the child (n, replay) unless pruned. */
static void consider(const cluster_stages *st, int s, int first, int n, bool replay,
                     cluster_walk walk, double best, child *out, int *count)
{
    cluster_walk next = cluster_walk_extend(st, walk, cluster_stage_cost(st, s, first, n, replay));
    double bound = cluster_walk_bound(st, next, s + 1, first + n);
    if (!pruned(bound, best))
        out[(*count)++] = (child){n, replay, bound, next};
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
            consider(st, s, first, n, false, walk, best, out, &count);
        else if (replays)
            consider(st, s, first, n, true, walk, best, out, &count);
    }
    qsort(out, (size_t)count, sizeof *out, child_order);
    return count;
}

static void dfs(worker *wk, int s, int first, cluster_walk walk)
{
    if (out_of_time(wk))
        return;
    if (s == wk->st.stage_count) {
        if (!pruned(walk.fixed, incumbent(wk->sh)) &&
            compare_key(wk->layers, wk->replay, wk->greedy, wk->greedy_replay, s) != 0 &&
            !pruned(cluster_plan_bound(&wk->st, wk->layers, wk->replay), incumbent(wk->sh))) {
            judge(wk, wk->layers, wk->replay);
            wk->landed = wk->diving;
        }
        return;
    }
    int count = expand(wk, s, first, walk, incumbent(wk->sh));
    const child *kids = wk->children + (size_t)s * 2 * (size_t)(wk->st.prefix->layers + 1);
    for (int i = 0; i < count && !wk->stopped && !wk->landed; i++) {
        if (i > 0 && pruned(kids[i].bound, incumbent(wk->sh)))
            continue;
        wk->layers[s] = kids[i].n;
        wk->replay[s] = kids[i].replay;
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
    shared_state *sh = wk->sh;
    int L = sh->w->layer_count;
    if (!cluster_stages_build(sh->space, sh->w, b, a, &wk->st))
        return false;
    wk->layers = pp_arena_alloc(a, (size_t)b->stage_count * sizeof(int));
    wk->replay = pp_arena_calloc(a, (size_t)b->stage_count, sizeof(bool));
    wk->greedy = pp_arena_alloc(a, (size_t)b->stage_count * sizeof(int));
    wk->greedy_replay = pp_arena_calloc(a, (size_t)b->stage_count, sizeof(bool));
    wk->children = pp_arena_alloc(a, (size_t)b->stage_count * 2 * (size_t)(L + 1) * sizeof(child));
    if (!wk->layers || !wk->replay || !wk->greedy || !wk->greedy_replay || !wk->children)
        return false;
    greedy_layers(&wk->st, wk->greedy, wk->greedy_replay);
    if (wk->diving &&
        !pruned(cluster_plan_bound(&wk->st, wk->greedy, wk->greedy_replay), incumbent(sh)))
        judge(wk, wk->greedy, wk->greedy_replay);
    wk->landed = false;
    dfs(wk, 0, 0, cluster_walk_start());
    return true;
}

/* Two passes over the branches, best root bound first: a dive (the greedy
 * plan and the first plan the depth-first search reaches) in every branch,
 * so the incumbent is good before any branch is searched to its end; then
 * the full searches. */
static int take_branch(shared_state *sh)
{
    pthread_mutex_lock(&sh->lock);
    int i = sh->stop || sh->next == 2 * sh->branch_count ? -1 : sh->next++;
    pthread_mutex_unlock(&sh->lock);
    return i;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    shared_state *sh = wk->sh;
    for (int k; (k = take_branch(sh)) >= 0;) {
        wk->diving = k < sh->branch_count;
        int i = wk->diving ? k : k - sh->branch_count;
        cluster_branch *b = &sh->branches[i];
        if (pruned(b->root_bound, incumbent(sh))) {
            if (!wk->diving)
                sh->done[i] = true;
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
        /* a dive may still run while another worker finishes the full search */
        if (!wk->diving)
            sh->done[i] = !wk->stopped;
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

/* Root bounds for every branch, then best first. */
static bool rank_branches(shared_state *sh)
{
    for (int i = 0; i < sh->branch_count; i++) {
        /* past the limit the rest stay unranked (bound 0) and unsearched */
        if (pp_deadline_passed(&sh->clock.deadline)) {
            sh->stop = true;
            break;
        }
        pp_arena *a = pp_arena_new(1 << 12);
        cluster_stages st;
        bool ok = a && cluster_stages_build(sh->space, sh->w, &sh->branches[i], a, &st);
        if (ok)
            sh->branches[i].root_bound = cluster_root_bound(&st);
        pp_arena_free(a);
        if (!ok)
            return false;
    }
    qsort(sh->branches, (size_t)sh->branch_count, sizeof *sh->branches, branch_order);
    return true;
}

static pp_status run_workers(shared_state *sh, int threads, pp_error *err)
{
    worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    double *peaks = calloc((size_t)threads * (size_t)sh->c->device_count + 1, sizeof(double));
    if (!workers || !ids || !peaks) {
        free(workers);
        free(ids);
        free(peaks);
        return pp_error_set(err, PP_ENOMEM, "out of memory starting the search threads");
    }
    int started = 0;
    for (int t = 0; t < threads; t++) {
        workers[t] = (worker){.sh = sh, .peak = peaks + (size_t)t * (size_t)sh->c->device_count};
        if (t > 0 && pthread_create(&ids[t], NULL, worker_main, &workers[t]) != 0)
            break;
        started++;
    }
    worker_main(&workers[0]);
    for (int t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    for (int t = 0; t < started; t++) {
        sh->nodes += workers[t].nodes;
        sh->simulations += workers[t].simulations;
    }
    free(workers);
    free(ids);
    free(peaks);
    return PP_OK;
}

/* The warm start counts when it is valid and every device it uses is there. */
static pp_status warm_start(shared_state *sh, pp_arena *a, pp_cluster_plan_result *out,
                            pp_error *err)
{
    const pp_cluster_plan *old = sh->o->warm_start;
    pp_error ignored = {0};
    if (!old || pp_cluster_plan_validate(sh->c, sh->w, old, &ignored) != PP_OK)
        return PP_OK;
    int slots = old->replica_count * pp_cluster_plan_members(old);
    for (int i = 0; i < slots; i++)
        if (!pp_cluster_device_alive_at(sh->c, old->devices[i], sh->o->start_time))
            return PP_OK;
    double *peak = pp_arena_calloc(a, (size_t)sh->c->device_count + 1, sizeof(double));
    if (!peak)
        return pp_error_set(err, PP_ENOMEM, "out of memory judging the warm start");
    double time = INFINITY;
    pp_cluster_report report = {0};
    pp_status s = plan_fits(sh->c, sh->w, old, peak)
                      ? simulate(sh, old, INFINITY, &time, &report, err)
                      : PP_OK;
    if (s != PP_OK) {
        pp_cluster_report_free(&report);
        return s;
    }
    sh->simulations++;
    out->warm_time = time;
    if (isfinite(time)) {
        pp_cluster_plan *copy = pp_cluster_plan_copy(old);
        if (!copy) {
            pp_cluster_report_free(&report);
            return pp_error_set(err, PP_ENOMEM, "out of memory copying the warm start");
        }
        offer(sh, copy, &report, time, KEY_WARM, NULL, NULL, 0);
    }
    return PP_OK;
}

static pp_status uniform_incumbent(shared_state *sh, pp_cluster_plan_result *out, pp_error *err)
{
    pp_status s = cluster_uniform_best(sh->c, sh->w, sh->o->start_time, &sh->clock, &out->uniform,
                                       &out->uniform_time, &out->uniform_report, err);
    if (s != PP_OK || !out->uniform)
        return s;
    pp_cluster_plan *copy = pp_cluster_plan_copy(out->uniform);
    pp_cluster_report report = {0};
    if (!copy || !cluster_report_copy(&out->uniform_report, &report)) {
        pp_cluster_plan_free(copy);
        return pp_error_set(err, PP_ENOMEM, "out of memory copying the uniform plan");
    }
    offer(sh, copy, &report, out->uniform_time, KEY_UNIFORM, NULL, NULL, 0);
    return PP_OK;
}

static void finish(shared_state *sh, pp_cluster_plan_result *out)
{
    bool complete = true;
    double lower = sh->best_time;
    for (int i = 0; i < sh->branch_count; i++)
        if (!sh->done[i]) {
            complete = false;
            lower = fmin(lower, sh->branches[i].root_bound);
        }
    out->complete = complete;
    out->lower_bound = lower;
    out->best = sh->best;
    out->best_report = sh->best_report;
    sh->best_report = (pp_cluster_report){0};
    out->best_time = sh->best_time;
    out->nodes = sh->nodes;
    out->simulations = sh->simulations;
    sh->best = NULL;
}

static pp_status search(shared_state *sh, pp_arena *a, pp_cluster_plan_result *out, pp_error *err)
{
    cluster_space space;
    pp_status s = cluster_space_build(sh->c, sh->o->start_time, a, &space, err);
    if (s != PP_OK)
        return s;
    sh->space = &space;
    s = cluster_branches(&space, sh->w, a, &sh->branches, &sh->branch_count, err);
    if (s != PP_OK)
        return s;
    sh->done = pp_arena_calloc(a, (size_t)sh->branch_count + 1, sizeof(bool));
    sh->best_layers = pp_arena_calloc(a, (size_t)sh->w->layer_count + 1, sizeof(int));
    sh->best_replay = pp_arena_calloc(a, (size_t)sh->w->layer_count + 1, sizeof(bool));
    if (!sh->done || !sh->best_layers || !sh->best_replay)
        return pp_error_set(err, PP_ENOMEM, "out of memory listing the branches");
    if ((s = uniform_incumbent(sh, out, err)) != PP_OK || (s = warm_start(sh, a, out, err)) != PP_OK)
        return s;
    if (!rank_branches(sh))
        return pp_error_set(err, PP_ENOMEM, "out of memory ranking the branches");
    int threads = sh->o->threads > 0 ? sh->o->threads : pp_cpu_count();
    if ((s = run_workers(sh, threads, err)) != PP_OK)
        return s;
    if (sh->status != PP_OK)
        return pp_error_set(err, sh->status, "%s", sh->err.message);
    finish(sh, out);
    return PP_OK;
}

pp_status pp_cluster_plan_search(const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan_options *o, pp_cluster_plan_result *out,
                                 pp_error *err)
{
    if (!c || !w || !o || !out)
        return pp_error_set(err, PP_EARG, "pp_cluster_plan_search: NULL argument");
    memset(out, 0, sizeof *out);
    out->best_time = out->uniform_time = out->warm_time = out->lower_bound = INFINITY;
    if (o->time_limit < 0 || o->threads < 0 || w->layer_count < 1 || w->global_batch < 1)
        return pp_error_set(err, PP_EARG,
                            "pp_cluster_plan_search: negative timeout or threads, or an empty "
                            "workload");
    double started = pp_now();
    shared_state sh = {.c = c, .w = w, .o = o, .best_time = INFINITY, .best_seen = INFINITY,
                       .best_branch = INT32_MAX, .started = started};
    sh.clock.deadline = o->time_limit > 0 ? pp_deadline_in(o->time_limit) : (pp_deadline){0};
    sh.clock.deadline.stop = o->stop;
    sh.clock.reserve = o->reserve_simulations;
    pthread_mutex_init(&sh.lock, NULL);
    pp_arena *a = pp_arena_new(1 << 16);
    pp_status s = a ? search(&sh, a, out, err)
                    : pp_error_set(err, PP_ENOMEM, "out of memory starting the search");
    pp_cluster_plan_free(sh.best);
    pp_cluster_report_free(&sh.best_report);
    pp_arena_free(a);
    pthread_mutex_destroy(&sh.lock);
    out->seconds = pp_now() - started;
    if (s != PP_OK)
        pp_cluster_plan_result_free(out);
    return s;
}

void pp_cluster_plan_result_free(pp_cluster_plan_result *r)
{
    if (!r)
        return;
    pp_cluster_plan_free(r->best);
    pp_cluster_plan_free(r->uniform);
    pp_cluster_report_free(&r->best_report);
    pp_cluster_report_free(&r->uniform_report);
    r->best = r->uniform = NULL;
}
