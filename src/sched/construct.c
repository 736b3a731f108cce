/* construct.c: the first schedule, by time-driven list scheduling. Among the
 * ops whose inputs are all scheduled, take the one that can start earliest
 * (ties: the longest tail, then the one that frees the most memory), on the
 * allowed device where it finishes first. An op that would push a device
 * above its capacity waits while any other op fits; when none fits, the one
 * that overflows least goes, and the local search is left to repair it.
 *
 * Memory deadlock: greedily, a device fills up with ops whose memory comes
 * back only after a long trip through other devices (a pipeline's first
 * stage), and the ops that would free memory soon (its last stage) find no
 * room: then nothing fits anywhere. So each device keeps room for `reserve`
 * of its nearest-release ops: an op that raises the level and whose release
 * (the earliest op on the same device, after it, that lowers the level) is
 * further than the device's nearest may not take that last room. How much
 * room a graph needs is found by trying (solve.c).
 *
 * Each step scans the ready ops, so a graph of tens of thousands of ops
 * takes seconds; past the deadline the ops not yet listed follow in
 * topological order on their first allowed device: a poor start, but one
 * the search can work on, in the time the caller gave. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

typedef struct {
    const pp_sched_problem *p;
    const double *tail;
    double *reserve;             /* per op: memory it must leave free on its forced device */
    double *end, *device_free, *channel_free, *level, *peak;
    int *device, *missing;       /* per op: placement; inputs not yet scheduled */
    int *ready;
    int ready_count;
    int *forced;                 /* per op: its only device, -1 for a choice */
    struct choice *cached;       /* per ready op: its best device, valid unless stale */
    unsigned char *stale;
} builder;

typedef struct choice {
    int op, device;
    double start, overflow;      /* overflow: > 0 real, 0 fits, -1 fits only by using the reserve */
} choice;

/* release[v] = earliest head of an op forced onto d that lowers the level
 * and is v or after v. One pass per device, in reverse topological order. */
static void release_on(const pp_sched_problem *p, int d, const double *head, double *release)
{
    for (int k = p->op_count - 1; k >= 0; k--) {
        int v = p->topo_order[k];
        release[v] = sc_forced_device(p, v) == d && p->adjust[v] < 0 ? head[v] : INFINITY;
        for (int j = p->succ_start[v]; j < p->succ_start[v + 1]; j++)
            release[v] = fmin(release[v], release[p->dep_to[p->succ_dep[j]]]);
    }
}

/* Per op forced onto a device of finite capacity that raises its level: how
 * long until its memory can come back, from after its own end. */
static void release_distances(const pp_sched_problem *p, const double *head, double *release, double *distance)
{
    for (int i = 0; i < p->op_count; i++)
        distance[i] = INFINITY;
    for (int d = 0; d < p->device_count; d++) {
        if (!isfinite(p->capacity[d]))
            continue;
        release_on(p, d, head, release);
        for (int v = 0; v < p->op_count; v++) {
            if (sc_forced_device(p, v) != d || p->adjust[v] <= 0)
                continue;
            double r = INFINITY;
            for (int j = p->succ_start[v]; j < p->succ_start[v + 1]; j++)
                r = fmin(r, release[p->dep_to[p->succ_dep[j]]]);
            distance[v] = r - head[v];
        }
    }
}

/* The reserve of each raising op: the largest rise among its device's
 * nearest-release ops, unless it is one of them. */
static void reserves(const pp_sched_problem *p, const double *distance, double factor, double *reserve)
{
    for (int d = 0; d < p->device_count; d++) {
        double nearest = INFINITY, room = 0;
        for (int v = 0; v < p->op_count; v++)
            if (sc_forced_device(p, v) == d && p->adjust[v] > 0 && distance[v] <= nearest) {
                room = distance[v] < nearest ? p->adjust[v] : fmax(room, p->adjust[v]);
                nearest = distance[v];
            }
        for (int v = 0; v < p->op_count; v++)
            if (sc_forced_device(p, v) == d)
                reserve[v] = p->adjust[v] > 0 && distance[v] > nearest ? factor * room : 0;
    }
}

double sc_inputs_arrive(const pp_sched_problem *p, int v, int j, const int *device, const double *end,
                           const double *channel_free)
{
    double at = 0;
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e], du = device[u];
        if (du == j)
            at = fmax(at, end[u]);
        else if (!pp_sched_has_channel(p, du, j))
            return INFINITY;
        else
            at = fmax(at, fmax(end[u], channel_free[du * p->device_count + j]) + p->dep_comm[e]);
    }
    return at;
}

void sc_inputs_send(const pp_sched_problem *p, int v, int j, const int *device, const double *end,
                       double *channel_free)
{
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e], du = device[u];
        if (du != j) {
            double *channel = &channel_free[du * p->device_count + j];
            *channel = fmax(end[u], *channel) + p->dep_comm[e];
        }
    }
}

/* When v could start on device j. */
static double start_on(const builder *b, int v, int j)
{
    return fmax(b->device_free[j], sc_inputs_arrive(b->p, v, j, b->device, b->end, b->channel_free));
}

static double overflow_on(const builder *b, int v, int j)
{
    const pp_sched_problem *p = b->p;
    double w = p->weight[v], cap = p->capacity[j];
    double over = fmax(b->peak[j] + w, b->level[j] + w + p->adjust[v]) - cap;
    if (over > sc_memory_slack(cap))
        return over;
    return b->level[j] + w + p->adjust[v] > cap - b->reserve[v] ? -1 : 0;
}

/* Is x a better choice than y? */
static bool better(const builder *b, const choice *x, const choice *y)
{
    if (y->op < 0)
        return true;
    if (x->overflow != y->overflow) {
        /* Fits, then fits by the reserve, then overflows least. */
        int cx = x->overflow > 0 ? 2 : x->overflow < 0, cy = y->overflow > 0 ? 2 : y->overflow < 0;
        if (cx != cy)
            return cx < cy;
        return x->overflow < y->overflow;
    }
    double fx = x->start + b->p->duration[x->op], fy = y->start + b->p->duration[y->op];
    if (x->start != y->start)
        return x->start < y->start;
    if (b->tail[x->op] + fx != b->tail[y->op] + fy)
        return b->tail[x->op] + fx > b->tail[y->op] + fy;
    return b->p->adjust[x->op] < b->p->adjust[y->op];
}

/* Ready op v's best device: the allowed list itself, not a test per
 * device (pipelines force every op). */
static choice choice_of(const builder *b, int v)
{
    const pp_sched_problem *p = b->p;
    choice mine = {-1, -1, INFINITY, INFINITY};
    int a = p->allowed_start[v], z = p->allowed_start[v + 1];
    int choices = a == z ? p->device_count : z - a;
    for (int k = 0; k < choices; k++) {
        int j = a == z ? k : p->allowed_device[a + k];
        double t = start_on(b, v, j);
        if (!isfinite(t))
            continue;
        choice c = {v, j, t, overflow_on(b, v, j)};
        if (mine.op < 0 || better(b, &c, &mine))
            mine = c;
    }
    return mine;
}

/* A ready op's choice changes only when a device it may use changes, so
 * each is kept until then (commit marks it stale): recomputing every ready
 * op at every step made the construction O(ops x ready x inputs), 30+ s at
 * P = 64 with 49,152 ops. */
static choice best_choice(builder *b)
{
    choice best = {-1, -1, INFINITY, INFINITY};
    for (int r = 0; r < b->ready_count; r++) {
        int v = b->ready[r];
        if (b->stale[v])
            b->cached[v] = choice_of(b, v), b->stale[v] = 0;
        if (b->cached[v].op >= 0 && better(b, &b->cached[v], &best))
            best = b->cached[v];
    }
    return best;
}

static void commit(builder *b, choice c)
{
    const pp_sched_problem *p = b->p;
    int v = c.op, j = c.device;
    sc_inputs_send(p, v, j, b->device, b->end, b->channel_free);
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
    /* Device j's time, level and incoming channels moved: what may use it is stale. */
    for (int r = 0; r < b->ready_count; r++)
        if (b->forced[b->ready[r]] < 0 || b->forced[b->ready[r]] == j)
            b->stale[b->ready[r]] = 1;
    for (int k = p->succ_start[v]; k < p->succ_start[v + 1]; k++) {
        int w = p->dep_to[p->succ_dep[k]];
        if (--b->missing[w] == 0)
            b->ready[b->ready_count++] = w, b->stale[w] = 1;
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

/* The ops not yet listed (device -1), in topological order, after the first k. */
static void list_rest(const pp_sched_problem *p, int k, sc_solution *out)
{
    for (int t = 0; t < p->op_count; t++) {
        int v = p->topo_order[t];
        if (out->device[v] >= 0)
            continue;
        int a = p->allowed_start[v];
        out->device[v] = a < p->allowed_start[v + 1] ? p->allowed_device[a] : 0;
        out->list[k++] = v;
    }
}

bool sc_construct(const pp_sched_problem *p, const double *head, const double *tail, double reserve,
                     const pp_deadline *deadline, sc_solution *out)
{
    size_t n = (size_t)p->op_count + 1, D = (size_t)p->device_count;
    builder b = {.p = p, .tail = tail, .reserve = calloc(n, sizeof(double)), .end = calloc(n, sizeof(double)),
                 .device_free = calloc(D, sizeof(double)), .channel_free = calloc(D * D, sizeof(double)),
                 .level = calloc(D, sizeof(double)), .peak = calloc(D, sizeof(double)), .device = out->device,
                 .missing = calloc(n, sizeof(int)), .ready = malloc(n * sizeof(int)),
                 .forced = malloc(n * sizeof(int)), .cached = malloc(n * sizeof(choice)), .stale = malloc(n)};
    double *distance = malloc(n * sizeof(double));
    bool ok = b.reserve && distance && b.end && b.device_free && b.channel_free && b.level && b.peak &&
              b.missing && b.ready && b.forced && b.cached && b.stale;
    if (ok) {
        /* b.end is scratch until the schedule starts. */
        release_distances(p, head, b.end, distance);
        reserves(p, distance, reserve, b.reserve);
        for (int i = 0; i < p->op_count; i++)
            b.end[i] = 0;
        for (int e = 0; e < p->dep_count; e++)
            b.missing[p->dep_to[e]]++;
        for (int i = 0; i < p->op_count; i++) {
            b.forced[i] = sc_forced_device(p, i), b.stale[i] = 1;
            if (b.missing[i] == 0)
                b.ready[b.ready_count++] = i;
        }
        for (int i = 0; i < p->op_count; i++)
            out->device[i] = -1;
        for (int k = 0; k < p->op_count; k++) {
            /* A step costs up to a scan of the ready ops: look at the clock every 64. */
            if (k % 64 == 63 && pp_deadline_passed(deadline)) {
                list_rest(p, k, out);
                break;
            }
            choice c = best_choice(&b);
            if (c.op < 0)
                c = any_choice(&b);
            out->list[k] = c.op;
            commit(&b, c);
        }
    }
    free(b.end), free(b.device_free), free(b.channel_free), free(b.level), free(b.peak);
    free(b.missing), free(b.ready), free(b.reserve), free(distance);
    free(b.forced), free(b.cached), free(b.stale);
    return ok;
}
