/* decode.c: turns a (device per op, priority list) solution into times. The
 * list is run in order; each op goes after every earlier op of the list on
 * its device, and its incoming transfers go on their channels after every
 * earlier transfer there, the one whose source ends first first. The memory
 * level of a device only changes by its own ops, so running ops in list
 * order fixes each device's levels without looking at times: the overflow is
 * measured in the same pass. O(ops + deps) per decode: the local search's
 * inner loop. An op runs on the device its colocated group's first op has in
 * the solution (its own entry is not read), so every move, start and answer
 * keeps a group together without knowing of groups. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

bool sc_solution_alloc(sc_solution *s, int op_count)
{
    s->list = malloc(((size_t)op_count + 1) * sizeof(int));
    s->device = malloc(((size_t)op_count + 1) * sizeof(int));
    return s->list && s->device;
}

void sc_solution_free(sc_solution *s)
{
    free(s->list);
    free(s->device);
    s->list = s->device = NULL;
}

void sc_solution_copy(sc_solution *to, const sc_solution *from, int op_count)
{
    memcpy(to->list, from->list, (size_t)op_count * sizeof(int));
    memcpy(to->device, from->device, (size_t)op_count * sizeof(int));
}

bool sc_decoder_init(sc_decoder *d, const pp_sched_problem *p)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    size_t n = (size_t)p->op_count + 1, m = (size_t)p->dep_count + 1, D = (size_t)p->device_count;
    d->start = malloc(n * sizeof(double));
    d->end = malloc(n * sizeof(double));
    d->transfer_start = malloc(m * sizeof(double));
    d->transfer_end = malloc(m * sizeof(double));
    d->device_free = malloc(D * sizeof(double));
    d->channel_free = malloc(D * D * sizeof(double));
    d->level = malloc(D * sizeof(double));
    d->binding = malloc(n * sizeof(int));
    d->bound_by_device = malloc(n);
    d->device_last = malloc(D * sizeof(int));
    d->order = malloc(m * sizeof(int));
    if (!d->start || !d->end || !d->transfer_start || !d->transfer_end || !d->device_free ||
        !d->channel_free || !d->level || !d->binding || !d->order ||
        !d->bound_by_device || !d->device_last) {
        sc_decoder_free(d);
        return false;
    }
    return true;
}

void sc_decoder_free(sc_decoder *d)
{
    free(d->start);
    free(d->end);
    free(d->transfer_start);
    free(d->transfer_end);
    free(d->device_free);
    free(d->channel_free);
    free(d->level);
    free(d->binding);
    free(d->bound_by_device);
    free(d->device_last);
    free(d->order);
    memset(d, 0, sizeof *d);
}

static int device_of(const pp_sched_problem *p, const sc_solution *s, int v)
{
    return s->device[p->group[v]];
}

/* The incoming deps of v that cross devices, by their source's end time
 * (insertion sort: in-degrees are small). */
static int crossing_inputs(sc_decoder *d, const sc_solution *s, int v)
{
    const pp_sched_problem *p = d->p;
    int count = 0;
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k];
        if (device_of(p, s, p->dep_from[e]) == device_of(p, s, v))
            continue;
        double t = d->end[p->dep_from[e]];
        int at = count++;
        while (at > 0 && d->end[p->dep_from[d->order[at - 1]]] > t) {
            d->order[at] = d->order[at - 1];
            at--;
        }
        d->order[at] = e;
    }
    return count;
}

/* Earliest start of v given its inputs; sets binding[v] to the input whose
 * arrival decides it. */
static double inputs_ready(sc_decoder *d, const sc_solution *s, int v)
{
    const pp_sched_problem *p = d->p;
    int D = p->device_count, dv = device_of(p, s, v);
    double ready = 0;
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e];
        d->transfer_start[e] = d->transfer_end[e] = NAN;
        if (device_of(p, s, u) == dv && d->end[u] > ready) {
            ready = d->end[u];
            d->binding[v] = u;
        }
    }
    int count = crossing_inputs(d, s, v);
    for (int k = 0; k < count; k++) {
        int e = d->order[k], u = p->dep_from[e];
        int du = device_of(p, s, u);
        d->broken += !pp_sched_has_channel(p, du, dv);
        double *channel = &d->channel_free[du * D + dv];
        double ts = fmax(d->end[u], *channel);
        d->transfer_start[e] = ts;
        d->transfer_end[e] = *channel = ts + p->dep_comm[e];
        if (d->transfer_end[e] > ready) {
            ready = d->transfer_end[e];
            d->binding[v] = u;
        }
    }
    return ready;
}

/* Clears the state of the devices and channels this solution uses, and no
 * other: a problem may hold thousands of devices the ops never reach, and a
 * decode must stay O(ops + deps) whatever their number. */
static void reset_used(sc_decoder *d, const sc_solution *s)
{
    const pp_sched_problem *p = d->p;
    int D = p->device_count;
    for (int i = 0; i < p->op_count; i++) {
        int j = device_of(p, s, i);
        d->device_free[j] = d->level[j] = 0;
        d->device_last[j] = -1;
    }
    for (int e = 0; e < p->dep_count; e++) {
        int a = device_of(p, s, p->dep_from[e]), b = device_of(p, s, p->dep_to[e]);
        if (a != b)
            d->channel_free[a * D + b] = 0;
    }
}

void sc_decode(sc_decoder *d, const sc_solution *s)
{
    const pp_sched_problem *p = d->p;
    reset_used(d, s);
    for (int i = 0; i < p->op_count; i++)
        d->level[device_of(p, s, i)] += p->weight[i];
    d->overflow = 0;
    d->broken = 0;
    /* Each used device's starting level once: device_last marks it seen
     * (-2) until the list's run sets it. */
    for (int i = 0; i < p->op_count; i++) {
        int j = device_of(p, s, i);
        if (d->device_last[j] == -2)
            continue;
        d->device_last[j] = -2;
        if (d->level[j] > p->capacity[j] + sc_memory_slack(p->capacity[j]))
            d->overflow += d->level[j] - p->capacity[j];
    }
    for (int i = 0; i < p->op_count; i++)
        d->device_last[device_of(p, s, i)] = -1;
    d->makespan = 0;
    d->last_op = -1;
    d->first_over = -1;
    for (int k = 0; k < p->op_count; k++) {
        int v = s->list[k], dv = device_of(p, s, v);
        d->binding[v] = -1;
        d->bound_by_device[v] = 0;
        double ready = inputs_ready(d, s, v);
        if (d->device_free[dv] > ready) {
            ready = d->device_free[dv];
            d->binding[v] = d->device_last[dv];
            d->bound_by_device[v] = 1;
        }
        d->device_last[dv] = v;
        d->start[v] = ready;
        d->end[v] = d->device_free[dv] = ready + p->duration[v];
        d->level[dv] += p->adjust[v];
        if (d->level[dv] > p->capacity[dv] + sc_memory_slack(p->capacity[dv])) {
            d->overflow += d->level[dv] - p->capacity[dv];
            if (d->first_over < 0)
                d->first_over = v;
        }
        if (d->end[v] >= d->makespan) {
            d->makespan = d->end[v];
            d->last_op = v;
        }
    }
}

sc_cost sc_cost_of(const sc_decoder *d)
{
    return (sc_cost){d->broken, d->overflow, d->makespan};
}

int sc_cost_compare(sc_cost a, sc_cost b)
{
    if (a.broken != b.broken)
        return a.broken < b.broken ? -1 : 1;
    if (a.overflow != b.overflow)
        return a.overflow < b.overflow ? -1 : 1;
    if (a.makespan != b.makespan)
        return a.makespan < b.makespan ? -1 : 1;
    return 0;
}

void sc_decoder_export(const sc_decoder *d, const sc_solution *s, pp_sched_schedule *out)
{
    const pp_sched_problem *p = d->p;
    for (int i = 0; i < p->op_count; i++) {
        out->device[i] = device_of(p, s, i);
        out->start[i] = d->start[i];
        out->end[i] = d->end[i];
    }
    for (int e = 0; e < p->dep_count; e++) {
        out->transfer_start[e] = d->transfer_start[e];
        out->transfer_end[e] = d->transfer_end[e];
    }
}

/* The list of a schedule: its ops by start time (ties: end time, then the
 * topological order), on the schedule's devices. Decoding that list gives
 * each op a start no later than the schedule's, up to the order transfers
 * take on a channel. */
typedef struct {
    double start, end;
    int rank, op;
} by_start_item;

static int by_start(const void *a, const void *b)
{
    const by_start_item *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

bool sc_solution_from_schedule(const pp_sched_problem *p, const pp_sched_schedule *s, sc_solution *out)
{
    by_start_item *items = malloc(((size_t)p->op_count + 1) * sizeof *items);
    if (!items)
        return false;
    for (int k = 0; k < p->op_count; k++) {
        int v = p->topo_order[k];
        items[k] = (by_start_item){s->start[v], s->end[v], k, v};
    }
    qsort(items, (size_t)p->op_count, sizeof *items, by_start);
    for (int k = 0; k < p->op_count; k++) {
        out->list[k] = items[k].op;
        out->device[k] = s->device[k];
    }
    free(items);
    return true;
}
