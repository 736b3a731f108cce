/* lns.c: large-neighbourhood search. Each round frees a few regions of the
 * graph (a breadth-first ball around a random node: ops that exchange data,
 * hence mostly live at nearby times), holds every other node at the best
 * answer's strategy, and solves each region exactly with the MIP of exact.c
 * against the true costs and usage around it. The regions of a round are
 * solved side by side, one per thread; their answers are applied to the best
 * answer one by one, best first, each kept only if the whole stays feasible
 * and gets cheaper.
 *
 * Why: on instances whose pairwise part has many cycles (C), the relaxation
 * stalls in answers that no single-tree move improves, while the MIP on an
 * 8,000-node ball proves a 14% cheaper answer in 3 s (DESIGN.md). The
 * region's size adapts: it grows while regions are proved optimal without
 * a gain and shrinks when the MIP runs out of time or is too big. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/threads.h"
#include "iopddl/exact.h"
#include "iopddl/lns.h"

enum { MIN_REGION = 200 };

/* The bounds of a region MIP's limit (a quarter of the time left). */
#define MIN_SECONDS 0.5
#define MAX_SECONDS 20.0

typedef struct {
    const iopddl_model *m;
    const uint32_t *x;      /* the answer the region is freed from */
    uint32_t start, size;   /* BFS root and how many nodes to free */
    double seconds;         /* the MIP's limit */
    const pp_stop_flag *stop;
    double overhead;        /* wall seconds of the job outside CBC's search */
    uint8_t *is_free;
    uint32_t *queue, *warm, *answer;
    iopddl_cost cost;       /* the restricted model's optimum found, -1 if none */
    bool proven, too_big, failed;
} lns_job;

/* Frees a breadth-first ball of j->size nodes around j->start; a ball that
 * runs out of its component goes on from the next node not yet free. */
static void free_ball(lns_job *j)
{
    const iopddl_model *m = j->m;
    uint32_t n = m->node_count, count = 0, head = 0, next_root = j->start;
    memset(j->is_free, 0, n);
    while (count < j->size) {
        if (head == count) {
            while (j->is_free[next_root])
                next_root = next_root + 1 < n ? next_root + 1 : 0;
            j->is_free[next_root] = 1;
            j->queue[count++] = next_root;
        }
        uint32_t v = j->queue[head++];
        for (uint32_t k = m->adj_start[v]; k < m->adj_start[v + 1] && count < j->size; k++) {
            uint32_t q = m->adj_pair[k], u = m->pair_a[q] == v ? m->pair_b[q] : m->pair_a[q];
            if (!j->is_free[u]) {
                j->is_free[u] = 1;
                j->queue[count++] = u;
            }
        }
    }
}

static void *solve_region(void *arg)
{
    lns_job *j = arg;
    const iopddl_model *m = j->m;
    double started = pp_now();
    j->cost = -1;
    j->overhead = 0;
    j->proven = j->too_big = j->failed = false;
    free_ball(j);
    iopddl_model *r = iopddl_model_restrict(m, j->is_free, j->x);
    if (!r) {
        j->failed = true;
        return NULL;
    }
    for (uint32_t v = 0; v < m->node_count; v++)
        j->warm[v] = j->is_free[v] ? j->x[v] : 0;
    double bound;
    pp_error err = {0};
    iopddl_exact_options o = {.time_limit = j->seconds, .threads = 1, .stop = j->stop};
    iopddl_exact_stats stats = {0};
    pp_status status = iopddl_exact_solve_ex(r, j->warm, -1, &o, j->answer, &j->cost, &bound, &j->proven,
                                          &stats, &err);
    j->overhead = pp_now() - started - stats.mip_seconds;
    j->too_big = status == PP_EARG;
    j->failed = status != PP_OK;
    iopddl_model_free(r);
    return NULL;
}

static bool job_init(lns_job *j, const iopddl_model *m, pp_arena *arena)
{
    size_t n = (size_t)m->node_count + 1;
    j->m = m;
    j->is_free = pp_arena_alloc(arena, n);
    j->queue = pp_arena_alloc(arena, n * sizeof(uint32_t));
    j->warm = pp_arena_alloc(arena, n * sizeof(uint32_t));
    j->answer = pp_arena_alloc(arena, n * sizeof(uint32_t));
    return j->is_free && j->queue && j->warm && j->answer;
}

static int by_cost(const void *a, const void *b)
{
    const lns_job *x = *(const lns_job *const *)a, *y = *(const lns_job *const *)b;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

/* Applies the round's answers to best, cheapest first, keeping each one
 * that leaves the whole feasible and cheaper. */
static bool merge_round(iopddl_lns *s, lns_job **jobs, int count)
{
    const iopddl_model *m = s->m;
    qsort(jobs, (size_t)count, sizeof *jobs, by_cost);
    bool gained = false;
    for (int i = 0; i < count; i++) {
        lns_job *j = jobs[i];
        if (j->failed || j->cost < 0)
            continue;
        memcpy(s->trial, s->best, m->node_count * sizeof(uint32_t));
        iopddl_model_unrestrict(m, j->is_free, j->answer, s->trial);
        iopddl_cost cost = iopddl_model_cost(m, s->trial);
        if (cost < s->best_cost && iopddl_profile_fits(&s->profile, m, s->trial)) {
            memcpy(s->best, s->trial, m->node_count * sizeof(uint32_t));
            s->best_cost = cost;
            gained = true;
        }
    }
    return gained;
}

/* Grows the regions while they are all proved optimal and bring nothing,
 * shrinks them when a MIP is too big or runs out of time. Outcomes only,
 * never the clock, so the sizes repeat from run to run. */
static void adapt_size(iopddl_lns *s, lns_job *jobs, int count, bool gained)
{
    bool slow = false, proven = true;
    for (int i = 0; i < count; i++) {
        slow |= jobs[i].too_big || (!jobs[i].proven && !jobs[i].failed);
        proven &= jobs[i].proven;
    }
    if (slow)
        s->region = s->region * 2 / 3;
    else if (proven && !gained)
        s->region = s->region * 3 / 2;
    s->region = s->region < MIN_REGION ? MIN_REGION : s->region;
    s->region = s->region > s->m->node_count ? s->m->node_count : s->region;
}

bool iopddl_lns_init(iopddl_lns *s, const iopddl_model *m, int threads, uint64_t seed, const uint32_t *start,
                  iopddl_cost start_cost)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->threads = threads > 0 ? threads : 1;
    s->arena = pp_arena_new(1 << 20);
    if (!s->arena)
        return false;
    size_t n = (size_t)m->node_count + 1;
    pp_rng_seed(&s->rng, seed, UINT64_C(0x4c4e53));
    s->best = pp_arena_alloc(s->arena, n * sizeof(uint32_t));
    s->trial = pp_arena_alloc(s->arena, n * sizeof(uint32_t));
    s->jobs = pp_arena_calloc(s->arena, (size_t)s->threads, sizeof(lns_job));
    if (!s->best || !s->trial || !s->jobs || !iopddl_profile_init(&s->profile, m, s->arena))
        return false;
    for (int i = 0; i < s->threads; i++)
        if (!job_init(&((lns_job *)s->jobs)[i], m, s->arena))
            return false;
    memcpy(s->best, start, m->node_count * sizeof(uint32_t));
    s->best_cost = start_cost;
    s->region = m->node_count < 4000 ? m->node_count : 4000;
    return true;
}

void iopddl_lns_free(iopddl_lns *s)
{
    if (s->arena)
        pp_arena_free(s->arena);
}

bool iopddl_lns_round(iopddl_lns *s, double seconds)
{
    if (s->m->node_count == 0)
        return false;
    lns_job *jobs = s->jobs;
    lns_job *order[64];
    int count = s->threads < 64 ? s->threads : 64;
    for (int i = 0; i < count; i++) {
        jobs[i].x = s->best;
        jobs[i].start = pp_rng_below(&s->rng, s->m->node_count);
        jobs[i].size = s->region;
        jobs[i].seconds = seconds;
        jobs[i].stop = s->stop;
        order[i] = &jobs[i];
    }
    pp_threads_run(count, solve_region, jobs, sizeof *jobs);
    for (int i = 0; i < count; i++)
        s->overhead = fmax(s->overhead, jobs[i].overhead);
    bool gained = merge_round(s, order, count);
    for (int i = 0; i < count; i++)
        s->proven_optimal |= jobs[i].proven && jobs[i].size >= s->m->node_count && jobs[i].cost == s->best_cost;
    adapt_size(s, jobs, count, gained);
    s->rounds++;
    return gained;
}

void iopddl_lns_reset(iopddl_lns *s, const uint32_t *start, iopddl_cost start_cost)
{
    memcpy(s->best, start, s->m->node_count * sizeof(uint32_t));
    s->best_cost = start_cost;
}

/* A quarter of the time left, within bounds, and short enough that
 * exact.c's kill (half a second and 5% past it) and the region's build and
 * presolve, which are not interrupted, still end before the deadline: a
 * fixed 2 s margin overran a 20 s run on A by 1.9 s on a loaded machine,
 * and 120 s runs on M by up to 5 s at load 12, so the slowest build seen
 * so far is kept out too. */
double iopddl_lns_seconds(const iopddl_lns *s, const pp_deadline *deadline)
{
    if (deadline->at <= 0)
        return MAX_SECONDS;
    double left = pp_deadline_left(deadline);
    double seconds = fmin(fmax(left / 4, MIN_SECONDS), MAX_SECONDS);
    return fmin(seconds, (left - 2.0 - s->overhead) / 1.2);
}
