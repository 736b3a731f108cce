/* timing.c: earliest times for given device orders (see timing.h). An event
 * simulation: ops start as soon as their device and inputs allow, which is
 * known the moment their last input is known; transfers wait in a queue per
 * channel, and a channel picks its next transfer only once every op ending
 * up to that instant has been handled, so the queue order (ready time, then
 * dependency index) is the true one. Orders that deadlock leave the event
 * queue empty with ops unstarted. */
#include <math.h>
#include <stdlib.h>
#include "sched/sched_internal.h"
#include "sched/timing.h"

enum { OP_END, TRANSFER_END };

typedef struct {
    double time;
    int kind;
    int id;
} event;

typedef struct {
    const pp_sched_problem *p;
    const int *device_of;
    const int *const *order;
    const int *length;
    pp_sched_schedule *out;
    int *position;        /* per device: next index in its order */
    double *device_free;  /* per device: end of the last op started */
    int *inputs_left;     /* per op: inputs not yet arrived */
    double *ready_at;     /* per op: latest input arrival so far */
    unsigned char *started;
    int *channel_of;      /* per dep: from_device * D + to_device, or -1 */
    int *queue_start;     /* per channel: offset of its heap in queue */
    int *queue_len;
    int *queue;           /* dependency indices, one heap per channel */
    double *channel_free;
    int *dirty;           /* channels that may serve a transfer now */
    unsigned char *is_dirty;
    int dirty_count;
    int *woken;           /* devices whose next op may start now: one got its last input */
    unsigned char *is_woken;
    int woken_count;
    event *events;        /* min-heap */
    int event_count;
    int ended;
} timer;

static bool event_before(const event *a, const event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->id < b->id;
}

static void event_push(timer *t, double time, int kind, int id)
{
    int i = t->event_count++;
    t->events[i] = (event){time, kind, id};
    while (i > 0) {
        int up = (i - 1) / 2;
        if (!event_before(&t->events[i], &t->events[up]))
            break;
        event tmp = t->events[up];
        t->events[up] = t->events[i];
        t->events[i] = tmp;
        i = up;
    }
}

static event event_pop(timer *t)
{
    event top = t->events[0];
    t->events[0] = t->events[--t->event_count];
    int i = 0, n = t->event_count;
    for (;;) {
        int best = i, l = 2 * i + 1, r = l + 1;
        if (l < n && event_before(&t->events[l], &t->events[best]))
            best = l;
        if (r < n && event_before(&t->events[r], &t->events[best]))
            best = r;
        if (best == i)
            break;
        event tmp = t->events[best];
        t->events[best] = t->events[i];
        t->events[i] = tmp;
        i = best;
    }
    return top;
}

/* Channel queues order transfers by the end of their source, then by index. */
static bool transfer_before(const timer *t, int a, int b)
{
    double ra = t->out->end[t->p->dep_from[a]], rb = t->out->end[t->p->dep_from[b]];
    return ra != rb ? ra < rb : a < b;
}

static void queue_push(timer *t, int c, int dep)
{
    int *q = t->queue + t->queue_start[c];
    int i = t->queue_len[c]++;
    q[i] = dep;
    while (i > 0 && transfer_before(t, q[i], q[(i - 1) / 2])) {
        int up = (i - 1) / 2, tmp = q[up];
        q[up] = q[i];
        q[i] = tmp;
        i = up;
    }
}

static int queue_pop(timer *t, int c)
{
    int *q = t->queue + t->queue_start[c];
    int top = q[0], n = --t->queue_len[c], i = 0;
    q[0] = q[n];
    for (;;) {
        int best = i, l = 2 * i + 1, r = l + 1;
        if (l < n && transfer_before(t, q[l], q[best]))
            best = l;
        if (r < n && transfer_before(t, q[r], q[best]))
            best = r;
        if (best == i)
            break;
        int tmp = q[best];
        q[best] = q[i];
        q[i] = tmp;
        i = best;
    }
    return top;
}

static void mark_dirty(timer *t, int c)
{
    if (!t->is_dirty[c]) {
        t->is_dirty[c] = 1;
        t->dirty[t->dirty_count++] = c;
    }
}

static void wake(timer *t, int d)
{
    if (!t->is_woken[d]) {
        t->is_woken[d] = 1;
        t->woken[t->woken_count++] = d;
    }
}

static void arrive(timer *t, int op, double time)
{
    if (time > t->ready_at[op])
        t->ready_at[op] = time;
    if (--t->inputs_left[op] == 0)
        wake(t, t->device_of[op]);
}

/* Starts, on every device woken since the last call, the ops at the head of
 * its order whose inputs are all known (scanning every device at every
 * event made the span search's timings O(events x devices)). */
static void start_ops(timer *t)
{
    while (t->woken_count > 0) {
        int d = t->woken[--t->woken_count];
        t->is_woken[d] = 0;
        while (t->position[d] < t->length[d]) {
            int op = t->order[d][t->position[d]];
            if (t->inputs_left[op] > 0)
                break;
            double start = fmax(t->device_free[d], t->ready_at[op]);
            t->out->device[op] = d;
            t->out->start[op] = start;
            t->out->end[op] = start + t->p->duration[op];
            t->device_free[d] = t->out->end[op];
            t->started[op] = 1;
            t->position[d]++;
            event_push(t, t->out->end[op], OP_END, op);
        }
    }
}

static void handle(timer *t, event e)
{
    const pp_sched_problem *p = t->p;
    if (e.kind == TRANSFER_END) {
        arrive(t, p->dep_to[e.id], e.time);
        mark_dirty(t, t->channel_of[e.id]);
        return;
    }
    t->ended++;
    for (int k = p->succ_start[e.id]; k < p->succ_start[e.id + 1]; k++) {
        int dep = p->succ_dep[k], c = t->channel_of[dep];
        if (c < 0) {
            arrive(t, p->dep_to[dep], e.time);
        } else {
            queue_push(t, c, dep);
            mark_dirty(t, c);
        }
    }
}

static void serve_channels(timer *t, double now)
{
    while (t->dirty_count > 0) {
        int c = t->dirty[--t->dirty_count];
        t->is_dirty[c] = 0;
        while (t->queue_len[c] > 0 && t->channel_free[c] <= now) {
            int dep = queue_pop(t, c);
            t->out->transfer_start[dep] = now;
            t->out->transfer_end[dep] = now + t->p->dep_comm[dep];
            t->channel_free[c] = t->out->transfer_end[dep];
            event_push(t, t->out->transfer_end[dep], TRANSFER_END, dep);
        }
    }
}

/* Every op once, each in the order of its own device. */
static pp_status check_orders(const timer *t, pp_error *err)
{
    const pp_sched_problem *p = t->p;
    int total = 0;
    for (int i = 0; i < p->op_count; i++)
        if (t->device_of[i] < 0 || t->device_of[i] >= p->device_count)
            return pp_error_set(err, PP_EARG, "timing: op \"%s\" has no valid device (%d)",
                                p->op_name[i], t->device_of[i]);
    for (int d = 0; d < p->device_count; d++) {
        if (t->length[d] < 0 || t->length[d] > p->op_count - total)
            return pp_error_set(err, PP_EARG, "timing: device \"%s\": order length %d is out of range",
                                p->device_name[d], t->length[d]);
        total += t->length[d];
        for (int k = 0; k < t->length[d]; k++) {
            int op = t->order[d][k];
            if (op < 0 || op >= p->op_count)
                return pp_error_set(err, PP_EARG, "timing: device \"%s\": order position %d names op %d, "
                                    "which does not exist", p->device_name[d], k, op);
            if (t->device_of[op] != d)
                return pp_error_set(err, PP_EARG, "timing: op \"%s\" is in the order of device \"%s\" "
                                    "but placed on \"%s\"", p->op_name[op], p->device_name[d],
                                    p->device_name[t->device_of[op]]);
            if (t->started[op]++)
                return pp_error_set(err, PP_EARG, "timing: op \"%s\" appears twice in the orders",
                                    p->op_name[op]);
        }
    }
    if (total != p->op_count)
        return pp_error_set(err, PP_EARG, "timing: the orders hold %d ops, the problem %d",
                            total, p->op_count);
    for (int i = 0; i < p->op_count; i++)
        t->started[i] = 0;
    return PP_OK;
}

/* Channel of every cross-device dependency, and each channel's queue space. */
static pp_status assign_channels(timer *t, pp_error *err)
{
    const pp_sched_problem *p = t->p;
    int n = p->device_count;
    for (int e = 0; e < p->dep_count; e++) {
        int a = t->device_of[p->dep_from[e]], b = t->device_of[p->dep_to[e]];
        t->channel_of[e] = a == b ? -1 : a * n + b;
        if (a != b && !pp_sched_has_channel(p, a, b))
            return pp_error_set(err, PP_EARG, "timing: dependency \"%s\" -> \"%s\" needs a channel "
                                "from \"%s\" to \"%s\", and there is none", p->op_name[p->dep_from[e]],
                                p->op_name[p->dep_to[e]], p->device_name[a], p->device_name[b]);
        if (a != b)
            t->queue_start[t->channel_of[e] + 1]++;
    }
    for (int c = 0; c < n * n; c++)
        t->queue_start[c + 1] += t->queue_start[c];
    return PP_OK;
}

/* Names a stuck op and the input it waits for. */
static pp_status report_deadlock(const timer *t, pp_error *err)
{
    const pp_sched_problem *p = t->p;
    for (int d = 0; d < p->device_count; d++) {
        if (t->position[d] >= t->length[d])
            continue;
        int op = t->order[d][t->position[d]];
        for (int k = p->pred_start[op]; k < p->pred_start[op + 1]; k++) {
            int u = p->dep_from[p->pred_dep[k]];
            if (t->started[u])
                continue;
            int du = t->device_of[u];
            return pp_error_set(err, PP_EARG, "timing: the device orders deadlock: \"%s\" on \"%s\" "
                                "waits for \"%s\", which \"%s\" runs only after \"%s\"",
                                p->op_name[op], p->device_name[d], p->op_name[u], p->device_name[du],
                                p->op_name[t->order[du][t->position[du]]]);
        }
    }
    return pp_error_set(err, PP_EARG, "timing: the device orders deadlock");
}

static bool timer_alloc(timer *t, pp_arena *a)
{
    const pp_sched_problem *p = t->p;
    size_t n = (size_t)p->op_count + 1, m = (size_t)p->dep_count + 1, d = (size_t)p->device_count;
    t->position = pp_arena_calloc(a, d, sizeof(int));
    t->device_free = pp_arena_calloc(a, d, sizeof(double));
    t->inputs_left = pp_arena_calloc(a, n, sizeof(int));
    t->ready_at = pp_arena_calloc(a, n, sizeof(double));
    t->started = pp_arena_calloc(a, n, 1);
    t->channel_of = pp_arena_calloc(a, m, sizeof(int));
    t->queue_start = pp_arena_calloc(a, d * d + 1, sizeof(int));
    t->queue_len = pp_arena_calloc(a, d * d, sizeof(int));
    t->queue = pp_arena_calloc(a, m, sizeof(int));
    t->channel_free = pp_arena_calloc(a, d * d, sizeof(double));
    t->dirty = pp_arena_calloc(a, d * d, sizeof(int));
    t->is_dirty = pp_arena_calloc(a, d * d, 1);
    t->events = pp_arena_calloc(a, n + m, sizeof(event));
    t->woken = pp_arena_calloc(a, d + 1, sizeof(int));
    t->is_woken = pp_arena_calloc(a, d + 1, 1);
    return t->position && t->device_free && t->inputs_left && t->ready_at && t->started &&
           t->channel_of && t->queue_start && t->queue_len && t->queue && t->channel_free &&
           t->dirty && t->is_dirty && t->events && t->woken && t->is_woken;
}

static pp_status simulate(timer *t, pp_error *err)
{
    const pp_sched_problem *p = t->p;
    for (int e = 0; e < p->dep_count; e++) {
        t->inputs_left[p->dep_to[e]]++;
        t->out->transfer_start[e] = t->out->transfer_end[e] = NAN;
    }
    for (int d = 0; d < p->device_count; d++)
        wake(t, d);
    start_ops(t);
    while (t->event_count > 0) {
        double now = t->events[0].time;
        do {
            while (t->event_count > 0 && t->events[0].time <= now)
                handle(t, event_pop(t));
            start_ops(t);
        } while (t->event_count > 0 && t->events[0].time <= now);
        serve_channels(t, now);
    }
    return t->ended == p->op_count ? PP_OK : report_deadlock(t, err);
}

pp_status sc_times_from_orders(const pp_sched_problem *p, const int *device_of_op,
                                  const int *const *device_order, const int *order_length,
                                  pp_sched_schedule *out, pp_error *err)
{
    pp_arena *a = pp_arena_new(0);
    timer t = {.p = p, .device_of = device_of_op, .order = device_order, .length = order_length,
               .out = out};
    if (!a || !timer_alloc(&t, a)) {
        pp_arena_free(a);
        return pp_error_set(err, PP_ENOMEM, "timing: out of memory");
    }
    pp_status st = check_orders(&t, err);
    if (st == PP_OK)
        st = assign_channels(&t, err);
    if (st == PP_OK)
        st = simulate(&t, err);
    pp_arena_free(a);
    return st;
}
