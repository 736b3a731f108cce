/* uniform.c: pp_cluster_uniform_best, the Megatron-LM baseline: every
 * (tp, pp, dp, micro-batch) that pp_cluster_plan_uniform accepts, with ranks
 * laid on the devices alive at the start time in order (a lost device's rank
 * goes to the next live one); the fastest that fits wins. Plans on fewer
 * devices than are alive are tried too (tp * pp * dp below the live count),
 * as a user with 12 devices and a model that splits 8 ways would run.
 * Megatron has one recomputation flag for all stages: both values are
 * tried, and so is each of its switches (sequence parallelism, selective
 * recomputation, the distributed optimizer) where it can matter, and every
 * interleaving (virtual stages) the shape allows. The first in (tp, pp, dp,
 * micro-batch, recompute off then on, switches off before on, fewer
 * virtual stages first) order wins ties.
 *
 * At thousands of GPUs there are thousands of such plans and each
 * simulation is not free, so the candidates are judged best bound first
 * (bound_of: the FLOPs over the devices' rate, and each stage's passes and
 * TP all-reduces at the best device and link, with the pipeline's fill), a plan
 * that does not fit is never simulated, a simulation stops once it is sure
 * to lose, and candidates whose bound exceeds the best time are not
 * simulated at all. Before a deadline that is the same answer as the
 * exhaustive loop; after it, the best found so far. The candidates are
 * shared out to the threads in that order once one plan has a time (until
 * then one simulation runs at a time, so the first plan under a short limit
 * has the process's whole share of the machine); a candidate as fast as
 * the final best has a bound no higher, so it is simulated in full whatever
 * the threads' timing, and the answer does not depend on them. */
#include "cluster/moment.h"
#include "cluster/optime.h"
#include "cluster/plan.h"
#include "cluster/planner.h"
#include "core/grow.h"
#include "core/threads.h"
#include "hw/net_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int tp, pp, dp, mb, index;
    bool recompute;
    int switches; /* SWITCH_* */
    int virtual_stages;
    double bound;
    double state_floor; /* bytes of state some device holds at least */
} candidate;

enum { SWITCH_SP = 1, SWITCH_SELECTIVE = 2, SWITCH_DISTOPT = 4, SWITCH_ALL = 7 };

/* A switch that cannot change this shape's plan is left off: sequence
 * parallelism without TP, selective recomputation where every stage
 * recomputes fully, the distributed optimizer without data parallelism. */
static bool switches_matter(const candidate *c)
{
    return !((c->switches & SWITCH_SP && c->tp == 1) || (c->switches & SWITCH_SELECTIVE && c->recompute) ||
             (c->switches & SWITCH_DISTOPT && c->dp == 1));
}

typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    double start_time;
    cluster_clock *clock;
    int *live;
    int live_count;
    double *rate_prefix;  /* [k + 1] summed rate of the first k live devices */
    double work, replay;  /* FLOPs per sample of the whole model; recomputation's extra */
    double fastest;       /* the most FLOP/s of any live device */
    const pp_hw_device_type *types[CLUSTER_MAX_KINDS]; /* the live devices' types */
    int type_count;       /* CLUSTER_MAX_KINDS + 1: too many to list */
    double fp8_speedup;   /* the most of cluster_fp8_speedup over the live types */
    double state;         /* bytes of model state, without the distributed optimizer */
    double roomiest;      /* the most memory of any live device */
    pp_hw_link intra, inter; /* the best link inside a node, and between nodes */
    int widest_node;      /* the most live devices of a node */
    candidate *list;
    int count;
    /* the judging threads share what follows under lock */
    pthread_mutex_t lock;
    /* Until a plan is in hand one thread simulates at a time: the first
     * plan under a short limit needs the whole of the process's share of
     * the machine (a loaded machine shares it among the threads). */
    pthread_cond_t first_done;
    bool first_running;
    int next;             /* the list's next candidate */
    bool stop;
    pp_status status;     /* the first error */
    pp_error err;
    pp_cluster_plan *best;
    pp_cluster_report best_report;
    double best_time;
    int best_index;
} uniform_search;

static void note_type(uniform_search *u, const pp_hw_device_type *t)
{
    u->fp8_speedup = fmax(u->fp8_speedup, cluster_fp8_speedup(t));
    for (int i = 0; i < u->type_count && i < CLUSTER_MAX_KINDS; i++)
        if (u->types[i] == t)
            return;
    if (u->type_count < CLUSTER_MAX_KINDS)
        u->types[u->type_count] = t;
    u->type_count += u->type_count <= CLUSTER_MAX_KINDS;
}

/* The fastest device, the best links and the widest node: what no TP group
 * or stage can beat. */
static void best_links(uniform_search *u)
{
    const pp_cluster *c = u->c;
    u->intra = u->inter = (pp_hw_link){0, INFINITY};
    for (int l = 0; l < c->link_count; l++) {
        const pp_cluster_link *k = &c->links[l];
        pp_hw_link *best = k->inter_node ? &u->inter : &u->intra;
        best->bandwidth = fmax(best->bandwidth, pp_cluster_link_bandwidth_at(c, l, u->start_time));
        best->latency = fmin(best->latency, k->latency);
    }
    for (int n = 0; n < c->node_count; n++) {
        int live = 0;
        for (int d = c->nodes[n].first_device; d < c->nodes[n].first_device + c->nodes[n].device_count; d++)
            live += pp_cluster_device_alive_at(c, d, u->start_time);
        u->widest_node = live > u->widest_node ? live : u->widest_node;
    }
    for (int k = 0; k < u->live_count; k++) {
        const pp_hw_device_type *t = c->nodes[c->device_node[u->live[k]]].type;
        u->fastest = fmax(u->fastest, t->peak_flops * t->efficiency_compute);
        u->roomiest = fmax(u->roomiest, t->memory_bytes);
        note_type(u, t);
    }
}

/* The most of cluster_gemm_ceiling over the live types: the fastest rate
 * times this bounds every device's. When the types are too many to list,
 * no product beats its FP8 speed-up at full waves. */
static double uniform_ceiling(const uniform_search *u, const candidate *cand)
{
    if (u->type_count > CLUSTER_MAX_KINDS)
        return u->fp8_speedup;
    double ceiling = 0;
    for (int i = 0; i < u->type_count; i++)
        ceiling = fmax(ceiling, cluster_gemm_ceiling(u->types[i], u->w, cand->mb, 1.0 / cand->tp));
    return ceiling;
}

/* Whether some TP group of the candidate (consecutive live ranks) has
 * members in two nodes: its collectives then cross the inter-node link. */
static bool tp_straddles(const uniform_search *u, const candidate *cand)
{
    const int *node = u->c->device_node;
    for (int g = 0; cand->tp > 1 && g < cand->pp * cand->dp; g++)
        if (node[u->live[g * cand->tp]] != node[u->live[g * cand->tp + cand->tp - 1]])
            return true;
    return false;
}

/* Stage s of the candidate, one micro-batch's forward and backward on the
 * fastest device with the TP all-reduces at the best link (the best
 * inter-node one when `across`; the backward's own may hide, as every
 * candidate with TP overlaps them): no member of the stage does its share
 * faster. */
static void stage_floor(const uniform_search *u, const candidate *cand, int s, bool across,
                        double ceiling, double *F, double *B)
{
    const pp_cluster_workload *w = u->w;
    int per = w->layer_count / cand->pp;
    double b = cand->mb, flops_f = 0, flops_b = 0, bytes_f = 0, bytes_b = 0;
    for (int k = s * per; k < (s + 1) * per; k++) {
        const pp_cluster_layer *l = &w->layers[k];
        flops_f += l->forward_flops;
        flops_b += l->backward_flops + (cand->recompute ? l->recompute_flops : 0);
        bytes_f += l->tp_forward_bytes;
        bytes_b += l->tp_backward_bytes;
    }
    *F = b * flops_f / cand->tp / (u->fastest * ceiling);
    *B = b * flops_b / cand->tp / (u->fastest * ceiling);
    if (cand->tp > 1) {
        pp_hw_link link = cand->tp <= u->widest_node && !across ? u->intra : u->inter;
        *F += pp_hw_allreduce_time(link, cand->tp, b * bytes_f);
        *B += cluster_tp_backward_floor(link, cand->tp, b * bytes_b, cand->recompute ? b * bytes_f : 0,
                                        true);
    }
}

/* No schedule beats the FLOPs over the devices' summed rate, nor, for any
 * stage s, the first micro-batch's forwards before it, its own m forwards
 * and backwards, and the last micro-batch's backwards before it again
 * (with v chunks a stage, only the first chunk's: 1/v of them); nor, when
 * a TP group spans two nodes, m passes of the cheapest stage with its
 * collectives across them. */
static double bound_of(const uniform_search *u, const candidate *cand)
{
    double flops = (u->work + (cand->recompute ? u->replay : 0)) * (double)u->w->global_batch;
    double ceiling = uniform_ceiling(u, cand);
    double bound = flops / (u->rate_prefix[cand->tp * cand->pp * cand->dp] * ceiling), before = 0;
    int m = (int)(u->w->global_batch / (cand->dp * cand->mb));
    bool across = tp_straddles(u, cand);
    double cheapest = INFINITY;
    for (int s = 0; s < cand->pp; s++) {
        double F, B;
        stage_floor(u, cand, s, false, ceiling, &F, &B);
        bound = fmax(bound, before / cand->virtual_stages + m * (F + B));
        before += F + B;
        if (across) {
            stage_floor(u, cand, s, true, ceiling, &F, &B);
            cheapest = fmin(cheapest, F + B);
        }
    }
    return across ? fmax(bound, m * cheapest) : bound;
}

static bool prepare(uniform_search *u)
{
    const pp_cluster *c = u->c;
    u->live = malloc(((size_t)c->device_count + 1) * sizeof(int));
    u->rate_prefix = calloc((size_t)c->device_count + 2, sizeof(double));
    if (!u->live || !u->rate_prefix)
        return false;
    for (int d = 0; d < c->device_count; d++) {
        if (!pp_cluster_device_alive_at(c, d, u->start_time))
            continue;
        const pp_hw_device_type *t = c->nodes[c->device_node[d]].type;
        u->live[u->live_count] = d;
        u->rate_prefix[u->live_count + 1] = u->rate_prefix[u->live_count] + t->peak_flops * t->efficiency_compute;
        u->live_count++;
    }
    for (int k = 0; k < u->w->layer_count; k++) {
        u->work += u->w->layers[k].forward_flops + u->w->layers[k].backward_flops;
        u->replay += u->w->layers[k].recompute_flops;
        u->state += u->w->layers[k].state_bytes;
    }
    best_links(u);
    return true;
}

static bool add(uniform_search *u, candidate cand, int *cap)
{
    if (!pp_grow((void **)&u->list, cap, u->count + 1, sizeof *u->list))
        return false;
    cand.bound = bound_of(u, &cand);
    /* the stages' state spread over tp pp devices, at best evenly */
    pp_cluster_plan like = {.replica_count = cand.dp, .distributed_optimizer = cand.switches & SWITCH_DISTOPT};
    pp_cluster_layer whole = {.state_bytes = u->state};
    cand.state_floor = pp_cluster_layer_under(&whole, &like, false, 1).state_bytes / (cand.tp * cand.pp);
    cand.index = u->count;
    u->list[u->count++] = cand;
    return true;
}

/* The plain schedule and every interleaving the shape allows: chunks that
 * divide each stage's layers, micro-batches in multiples of the stages. */
static bool add_schedules(uniform_search *u, candidate cand, int *cap)
{
    if (!switches_matter(&cand))
        return true;
    int per_stage = u->w->layer_count / cand.pp;
    int64_t m = u->w->global_batch / ((int64_t)cand.dp * cand.mb);
    for (int v = 1; v <= per_stage; v++) {
        if (per_stage % v != 0 || (v > 1 && (cand.pp == 1 || m % cand.pp != 0)))
            continue;
        cand.virtual_stages = v;
        if (!add(u, cand, cap))
            return false;
    }
    return true;
}

/* Every shape Megatron's arguments accept, in the tie order. */
static bool enumerate(uniform_search *u)
{
    const pp_cluster_workload *w = u->w;
    int cap = 0, live = u->live_count;
    for (int tp = 1; tp <= live; tp++) {
        if (w->tp_divisor % tp != 0)
            continue;
        for (int pp = 1; pp <= w->layer_count && tp * pp <= live; pp++) {
            if (w->layer_count % pp != 0)
                continue;
            for (int dp = 1; tp * pp * dp <= live; dp++)
                for (int64_t mb = 1; mb * dp <= w->global_batch && mb <= (1 << 20); mb *= 2) {
                    if (w->global_batch % (mb * dp) != 0)
                        continue;
                    for (int rc = 0; rc <= 1; rc++)
                        for (int sw = 0; sw <= SWITCH_ALL; sw++)
                            if (!add_schedules(u, (candidate){tp, pp, dp, (int)mb, 0, rc == 1, sw, 1, 0, 0}, &cap))
                                return false;
                }
        }
    }
    return true;
}

static int by_bound(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound < y->bound ? -1 : 1;
    return x->index - y->index;
}

static bool fits(const uniform_search *u, const pp_cluster_plan *p, double *peak)
{
    pp_cluster_plan_memory(u->c, u->w, p, peak);
    for (int d = 0; d < u->c->device_count; d++)
        if (peak[d] > u->c->nodes[u->c->device_node[d]].type->memory_bytes)
            return false;
    return true;
}

/* Simulates the candidate (cut off at the best time when it starts) and
 * keeps it if it beats the best: a lower time, or the same and earlier in
 * the enumeration. peak is the thread's scratch. */
static pp_status try_one(uniform_search *u, const candidate *cand, double *peak, pp_error *err)
{
    pp_cluster_plan *p = NULL;
    pp_error ignored = {0};
    if (pp_cluster_plan_uniform(u->c, u->w, cand->tp, cand->pp, cand->dp, cand->mb, &p, &ignored) != PP_OK)
        return PP_OK;
    for (int s = 0; s < cand->pp; s++)
        p->stage_recompute[s] = cand->recompute;
    p->sequence_parallel = cand->switches & SWITCH_SP;
    p->selective_recompute = cand->switches & SWITCH_SELECTIVE;
    p->distributed_optimizer = cand->switches & SWITCH_DISTOPT;
    p->tp_overlap = cand->tp > 1;
    p->virtual_stages = cand->virtual_stages;
    int slots = cand->dp * pp_cluster_plan_members(p);
    for (int i = 0; i < slots; i++)
        p->devices[i] = u->live[p->devices[i]];
    double time = INFINITY;
    pp_cluster_report report = {0};
    pp_status s = PP_OK;
    if (pp_cluster_plan_validate(u->c, u->w, p, &ignored) == PP_OK && fits(u, p, peak)) {
        pthread_mutex_lock(&u->lock);
        while (!u->best && u->first_running && !u->stop)
            pthread_cond_wait(&u->first_done, &u->lock);
        double cutoff = u->best_time;
        bool first = !u->best;
        /* the wait may have outlasted the clock: at thousands of GPUs even
         * a simulation stopped at once costs its set-up */
        bool late = u->stop || (first ? cluster_clock_over(u->clock) : cluster_clock_late(u->clock));
        u->first_running |= first && !late;
        pthread_mutex_unlock(&u->lock);
        if (late) {
            pp_cluster_plan_free(p);
            return PP_OK;
        }
        s = cluster_clock_simulate(u->clock, u->c, u->w, p, u->start_time, cutoff, first, &time, &report,
                                   err);
        pthread_mutex_lock(&u->lock);
        if (first) {
            u->first_running = false;
            pthread_cond_broadcast(&u->first_done);
        }
        pthread_mutex_unlock(&u->lock);
    }
    pthread_mutex_lock(&u->lock);
    if (s == PP_OK && (time < u->best_time || (time == u->best_time && cand->index < u->best_index))) {
        pp_cluster_plan *old = u->best;
        pp_cluster_report dropped = u->best_report;
        u->best_report = report;
        u->best = p;
        u->best_time = time;
        u->best_index = cand->index;
        pthread_mutex_unlock(&u->lock);
        pp_cluster_plan_free(old);
        pp_cluster_report_free(&dropped);
        return PP_OK;
    }
    pthread_mutex_unlock(&u->lock);
    pp_cluster_plan_free(p);
    pp_cluster_report_free(&report);
    return s;
}

/* The next candidate worth judging, or NULL: best bound first; a bound
 * above the best time ends the walk (the list is sorted), and so does the
 * clock once a plan is in hand. A candidate whose state alone overflows
 * the roomiest device is passed over without building its plan: at
 * thousands of GPUs, where few shapes fit, building and checking every
 * plan took seconds. */
static const candidate *take(uniform_search *u)
{
    bool late = cluster_clock_late(u->clock), over = cluster_clock_over(u->clock);
    pthread_mutex_lock(&u->lock);
    const candidate *cand = NULL;
    while (!u->stop && u->next < u->count) {
        const candidate *k = &u->list[u->next];
        if (k->bound * (1 - 1e-9) > u->best_time || (u->best ? late : over)) {
            u->stop = true;
            break;
        }
        u->next++;
        if (k->state_floor <= u->roomiest) {
            cand = k;
            break;
        }
    }
    pthread_mutex_unlock(&u->lock);
    return cand;
}

typedef struct {
    uniform_search *u;
    double *peak; /* [device] */
} judge;

/* Judges candidates until none is left worth it. Any candidate as fast
 * as the final best has a bound no higher, so it is taken and simulated
 * in full whatever the threads' timing: the answer is the same. */
static void *judge_some(void *arg)
{
    judge *j = arg;
    uniform_search *u = j->u;
    for (const candidate *cand; (cand = take(u));) {
        pp_error e = {0};
        if (try_one(u, cand, j->peak, &e) != PP_OK) {
            pthread_mutex_lock(&u->lock);
            if (u->status == PP_OK) {
                u->status = e.status;
                u->err = e;
            }
            u->stop = true;
            pthread_cond_broadcast(&u->first_done);
            pthread_mutex_unlock(&u->lock);
        }
    }
    return NULL;
}

static pp_status judge_all(uniform_search *u, int threads, pp_error *err)
{
    qsort(u->list, (size_t)u->count, sizeof *u->list, by_bound);
    judge *judges = calloc((size_t)threads, sizeof *judges);
    double *peaks = calloc((size_t)threads * ((size_t)u->c->device_count + 1), sizeof(double));
    if (!judges || !peaks) {
        free(judges);
        free(peaks);
        return pp_error_set(err, PP_ENOMEM, "out of memory starting the uniform plans' threads");
    }
    for (int t = 0; t < threads; t++)
        judges[t] = (judge){u, peaks + (size_t)t * ((size_t)u->c->device_count + 1)};
    pp_threads_run(threads, judge_some, judges, sizeof *judges);
    free(judges);
    free(peaks);
    if (u->status != PP_OK)
        return pp_error_set(err, u->status, "%s", u->err.message);
    return PP_OK;
}

pp_status cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w, double start_time,
                               cluster_clock *k, int threads, pp_cluster_plan **out, double *time,
                               pp_cluster_report *report, pp_error *err)
{
    *out = NULL;
    *time = INFINITY;
    uniform_search u = {.c = c, .w = w, .start_time = start_time, .clock = k,
                        .best_time = INFINITY, .best_index = -1};
    pthread_mutex_init(&u.lock, NULL);
    pthread_cond_init(&u.first_done, NULL);
    pp_status s = prepare(&u) && enumerate(&u)
                      ? judge_all(&u, threads > 0 ? threads : 1, err)
                      : pp_error_set(err, PP_ENOMEM, "out of memory listing the uniform plans");
    pthread_cond_destroy(&u.first_done);
    pthread_mutex_destroy(&u.lock);
    free(u.live);
    free(u.rate_prefix);
    free(u.list);
    if (s != PP_OK) {
        pp_cluster_plan_free(u.best);
        pp_cluster_report_free(&u.best_report);
        return s;
    }
    *out = u.best;
    *time = u.best_time;
    *report = u.best_report;
    return PP_OK;
}

pp_status pp_cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w,
                                  double start_time, pp_cluster_plan **out, double *time,
                                  pp_error *err)
{
    if (!c || !w || !out || !time)
        return pp_error_set(err, PP_EARG, "pp_cluster_uniform_best: NULL argument");
    cluster_clock none = {0};
    pp_cluster_report report = {0};
    pp_status s = cluster_uniform_best(c, w, start_time, &none, pp_cpu_count(), out, time, &report, err);
    pp_cluster_report_free(&report);
    return s;
}
