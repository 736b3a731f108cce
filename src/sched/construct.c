/* construct.c: the first schedule, by time-driven list scheduling. Among the
 * ops whose inputs are all scheduled, take the one that can start earliest
 * (ties: the longest tail, then the one that frees the most memory), on the
 * allowed device where it finishes first. An op that would push a device
 * above its capacity waits while any other op fits; when none fits, the one
 * that overflows least goes, and the local search is left to repair it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/solver.h"

typedef struct {
    const pp_sched_problem *p;
    const double *tail;
    double *end, *device_free, *channel_free, *level, *peak;
    int *device, *missing;       /* per op: placement; inputs not yet scheduled */
    int *ready;
    int ready_count;
} builder;

typedef struct {
    int op, device;
    double start, overflow;
} choice;

/* When v could start on device j, transfers taken in input order. */
static double start_on(const builder *b, int v, int j)
{
    const pp_sched_problem *p = b->p;
    int D = p->device_count;
    double ready = b->device_free[j];
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e], du = b->device[u];
        if (du == j)
            ready = fmax(ready, b->end[u]);
        else if (!pp_sched_has_channel(p, du, j))
            return INFINITY;
        else
            ready = fmax(ready, fmax(b->end[u], b->channel_free[du * D + j]) + p->dep_comm[e]);
    }
    return ready;
}

static double overflow_on(const builder *b, int v, int j)
{
    const pp_sched_problem *p = b->p;
    double w = p->weight[v], cap = p->capacity[j];
    return fmax(0, fmax(b->peak[j] + w, b->level[j] + w + p->adjust[v]) - cap);
}

/* Is x a better choice than y? */
static bool better(const builder *b, const choice *x, const choice *y)
{
    if (y->op < 0)
        return true;
    if ((x->overflow > 0) != (y->overflow > 0))
        return x->overflow == 0;
    if (x->overflow != y->overflow)
        return x->overflow < y->overflow;
    double fx = x->start + b->p->duration[x->op], fy = y->start + b->p->duration[y->op];
    if (x->start != y->start)
        return x->start < y->start;
    if (b->tail[x->op] + fx != b->tail[y->op] + fy)
        return b->tail[x->op] + fx > b->tail[y->op] + fy;
    return b->p->adjust[x->op] < b->p->adjust[y->op];
}

static choice best_choice(const builder *b)
{
    const pp_sched_problem *p = b->p;
    choice best = {-1, -1, INFINITY, INFINITY};
    for (int r = 0; r < b->ready_count; r++) {
        int v = b->ready[r];
        choice mine = {-1, -1, INFINITY, INFINITY};
        for (int j = 0; j < p->device_count; j++) {
            if (!pp_sched_op_allowed(p, v, j))
                continue;
            double t = start_on(b, v, j);
            if (!isfinite(t))
                continue;
            choice c = {v, j, t, overflow_on(b, v, j)};
            bool sooner = c.overflow < mine.overflow ||
                          (c.overflow == mine.overflow && t + p->duration[v] < mine.start + p->duration[v]);
            if (mine.op < 0 || sooner)
                mine = c;
        }
        if (mine.op >= 0 && better(b, &mine, &best))
            best = mine;
    }
    return best;
}

static void commit(builder *b, choice c)
{
    const pp_sched_problem *p = b->p;
    int D = p->device_count, v = c.op, j = c.device;
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e], du = b->device[u];
        if (du != j) {
            double *channel = &b->channel_free[du * D + j];
            *channel = fmax(b->end[u], *channel) + p->dep_comm[e];
        }
    }
    b->device[v] = j;
    b->end[v] = b->device_free[j] = c.start + p->duration[v];
    b->peak[j] += p->weight[v];
    b->level[j] += p->weight[v] + p->adjust[v];
    b->peak[j] = fmax(b->peak[j], b->level[j]);
    for (int r = 0; r < b->ready_count; r++)
        if (b->ready[r] == v) {
            b->ready[r] = b->ready[--b->ready_count];
            break;
        }
    for (int k = p->succ_start[v]; k < p->succ_start[v + 1]; k++) {
        int w = p->dep_to[p->succ_dep[k]];
        if (--b->missing[w] == 0)
            b->ready[b->ready_count++] = w;
    }
}

/* No ready op can reach any of its devices over existing channels (inputs
 * already placed apart): place the first on its first device anyway; the
 * decoder counts the missing channel and the search moves it. */
static choice any_choice(const builder *b)
{
    int v = b->ready[0], a = b->p->allowed_start[v];
    int j = a < b->p->allowed_start[v + 1] ? b->p->allowed_device[a] : 0;
    return (choice){v, j, b->device_free[j], 0};
}

bool sched_construct(const pp_sched_problem *p, const double *tail, sched_solution *out)
{
    size_t n = (size_t)p->op_count + 1, D = (size_t)p->device_count;
    builder b = {p, tail, calloc(n, sizeof(double)), calloc(D, sizeof(double)), calloc(D * D, sizeof(double)),
                 calloc(D, sizeof(double)), calloc(D, sizeof(double)), out->device, calloc(n, sizeof(int)),
                 malloc(n * sizeof(int)), 0};
    bool ok = b.end && b.device_free && b.channel_free && b.level && b.peak && b.missing && b.ready;
    if (ok) {
        for (int e = 0; e < p->dep_count; e++)
            b.missing[p->dep_to[e]]++;
        for (int i = 0; i < p->op_count; i++)
            if (b.missing[i] == 0)
                b.ready[b.ready_count++] = i;
        for (int k = 0; k < p->op_count; k++) {
            choice c = best_choice(&b);
            if (c.op < 0)
                c = any_choice(&b);
            out->list[k] = c.op;
            commit(&b, c);
        }
    }
    free(b.end), free(b.device_free), free(b.channel_free), free(b.level), free(b.peak);
    free(b.missing), free(b.ready);
    return ok;
}
