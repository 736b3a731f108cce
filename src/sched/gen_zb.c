/* gen_zb.c: the zero-bubble greedy (`gen pipeline --scheme zb`), ZB-H1's
 * and ZB-H2's orders, and ZB-V's: per-device op orders for the pipelines of
 * gen_pipeline.c, built by a time-driven greedy and, for the greedy and
 * ZB-V, the best of a small grid of its policies.
 *
 * ZB-V (Qi et al., arXiv 2401.10241 section 6) puts stages d and 2P - 1 - d
 * on device d, so the forwards run down the devices and back up (a V), the
 * backwards the same way reversed, and holds 1F1B's activation memory: 2P
 * chunk activations, chunks being half a 1F1B stage. Its schedule is the
 * greedy of ZB-H1 and ZB-H2 on that placement under that limit (the budget
 * when smaller), the best of its grid; a device's ready backward runs
 * first, and of two ready ops of one kind the deeper chunk's. */
#include <math.h>
#include <stdlib.h>
#include "sched/pipeline.h"
#include "sched/sched_internal.h"
#include "sched/timing.h"

/* How many micro-batches of activations device s may hold before its next
 * forward: ZB-H1 keeps 1F1B's P - s; the zero-bubble greedy also tries
 * twice that less one (a warm-up as deep as ZB-H2's) and the whole budget,
 * each capped by the budget. ZB-H2 itself (LIMIT_ZBH2, outside the
 * greedy's grid) holds 2(P - s) - 1 whatever the budget: Qi et al. (arXiv
 * 2401.10241, section 2.2) give it (2p - 1) micro-batches' activations on
 * the first device, and the reference is refused where that does not fit. */
enum { LIMIT_1F1B, LIMIT_DOUBLE, LIMIT_BUDGET, LIMIT_RULES, LIMIT_ZBH2 = LIMIT_RULES };

/* When a device with nothing else ready runs a deferred W. Qi et al.
 * (arXiv 2401.10241, section 3.1) describe their heuristic's rules in
 * words: insert a W into a gap larger than T_W; into a smaller gap only
 * when this stage's cumulative bubble would otherwise become the largest of
 * all stages; and a W to free memory when the limit is reached. FILL_IDLE
 * runs one into any gap (ZB-H1's orders), FILL_GAP only into gaps of at
 * least T_W, FILL_WORST also into a smaller one on the stage that would
 * then have idled most. Every rule runs a W when the forward waits only for
 * the memory that W frees, and when nothing else remains. */
enum { FILL_IDLE, FILL_GAP, FILL_WORST, FILL_RULES };

typedef struct {
    int limit;           /* LIMIT_*; ZB-V, whose limit is 1F1B's memory, reads it as the activations
                            its first chunk's forwards leave free (0..2) for the second chunk's */
    int fill;            /* FILL_* */
    bool forward_first;  /* a ready forward runs before a ready backward (a deeper warm-up) */
    /* The limit holds only until the device's first backward, the budget
     * after: a warm-up as shallow as 1F1B's, yet room for deferred Ws. When
     * W keeps part of the activations, a limit held throughout runs each W
     * right after its B on every stage, as 1F1B does. */
    bool warm_only;
} zb_policy;

static double forward_limit(const pipe_shape *q, int rule, int s)
{
    double depth = rule == LIMIT_1F1B ? q->P - s : rule == LIMIT_BUDGET ? q->budget : 2 * (q->P - s) - 1;
    if (q->vshape)
        return fmin(2 * q->P, q->budget);
    return rule == LIMIT_1F1B || rule == LIMIT_ZBH2 ? depth : fmin(depth, q->budget);
}

/* State per stage (nf, nb, nw, arrivals) and per device (clock, idle,
 * channels): a device holds one stage, or two for ZB-V. */
typedef struct {
    const pipe_shape *q;
    zb_policy policy;
    double *clock;
    double *idle;            /* per device: time spent waiting so far */
    int *nf, *nb, *nw;       /* per stage: forwards, backwards, Ws run */
    double *f_arrive;        /* [m * S + s]: F{m}.{s-1}'s output at stage s (NAN: not yet sent) */
    double *b_arrive;        /* [m * S + s]: B{m}.{s+1}'s output at stage s */
    double *b_end;           /* [m * S + s]: when B{m}.{s} ended: the oldest pending W runs first */
    double *up_free, *down_free; /* per device: channel d->d+1 and d->d-1 free again */
} zb;

static double send(double *channel_free, double end, double comm)
{
    double start = end > *channel_free ? end : *channel_free;
    *channel_free = start + comm;
    return start + comm;
}

/* When the output of stage `from`'s op ending at `end` reaches stage `to`. */
static double deliver(zb *z, int from, int to, double end)
{
    int a = pipe_device(z->q, 0, from), b = pipe_device(z->q, 0, to);
    if (a == b)
        return end;
    return send(b > a ? &z->up_free[a] : &z->down_free[a], end, z->q->comm);
}

static void zb_run(zb *z, orders *o, int s, int kind)
{
    const pipe_shape *q = z->q;
    int d = pipe_device(q, 0, s), S = q->S;
    double end = z->clock[d] + q->time[kind];
    if (kind == KIND_F) {
        push(o, q, d, z->nf[s], s, KIND_F);
        if (s + 1 < S)
            z->f_arrive[z->nf[s] * S + s + 1] = deliver(z, s, s + 1, end);
        z->nf[s]++;
    } else if (kind == KIND_B) {
        push(o, q, d, z->nb[s], s, KIND_B);
        if (s > 0)
            z->b_arrive[z->nb[s] * S + s - 1] = deliver(z, s, s - 1, end);
        z->b_end[z->nb[s] * S + s] = end;
        z->nb[s]++;
    } else {
        push(o, q, d, z->nw[s]++, s, KIND_W);
    }
    z->clock[d] = end;
}

/* When the next backward (kind B) or forward (kind F) of stage s can be
 * ready: its arrival if known, else the earliest its sender could deliver. */
static double zb_ready(const zb *z, int s, int kind)
{
    const pipe_shape *q = z->q;
    int S = q->S, d = pipe_device(q, 0, s);
    bool backward = kind == KIND_B;
    if (backward ? s == S - 1 : s == 0)
        return z->clock[d];
    double at = backward ? z->b_arrive[z->nb[s] * S + s] : z->f_arrive[z->nf[s] * S + s];
    int from = backward ? s + 1 : s - 1, e = pipe_device(q, 0, from);
    return isnan(at) ? z->clock[e] + q->time[kind] + (e == d ? 0 : q->comm) : at;
}

/* Whether device d, idle for gap until a forward or backward could be
 * ready, runs a W now (it has one). */
static bool zb_fill(const zb *z, int d, double gap)
{
    if (z->policy.fill == FILL_IDLE || !isfinite(gap) || gap >= z->q->time[KIND_W])
        return true;
    if (z->policy.fill == FILL_GAP)
        return false;
    double worst = 0;
    for (int e = 0; e < z->q->P; e++)
        worst = fmax(worst, z->idle[e]);
    return z->idle[d] + gap > worst;
}

/* The stages of device d, the later (deeper) one first: its forward is
 * nearer the turn and its backward nearer the start. */
static int device_stages(const pipe_shape *q, int d, int *stages)
{
    if (!q->vshape) {
        stages[0] = d;
        return 1;
    }
    stages[0] = 2 * q->P - 1 - d;
    stages[1] = d;
    return 2;
}

/* Of device d's stages, the one whose next op of `kind` is ready first
 * (ties: the deeper), -1 when none has one; *ready is its time. */
static int zb_pick(const zb *z, const int *stages, int n, int kind, double room, double *ready)
{
    int best = -1;
    *ready = INFINITY;
    for (int k = 0; k < n; k++) {
        int s = stages[k];
        /* ZB-V: the first chunk's forwards leave `reserve` activations
         * free for the second chunk's, which give them back soonest. */
        double need = 1 + (z->q->vshape && s < z->q->P ? z->policy.limit : 0);
        bool has = kind == KIND_F ? room >= need && z->nf[s] < z->q->M : z->nb[s] < z->nf[s];
        double at = has ? zb_ready(z, s, kind) : INFINITY;
        if (at < *ready)
            best = s, *ready = at;
    }
    return best;
}

/* Of device d's stages with a pending W, the one whose B ended first. */
static int zb_pick_w(const zb *z, const int *stages, int n)
{
    int best = -1;
    for (int k = 0; k < n; k++) {
        int s = stages[k];
        if (z->nw[s] < z->nb[s] &&
            (best < 0 || z->b_end[z->nw[s] * z->q->S + s] < z->b_end[z->nw[best] * z->q->S + best]))
            best = s;
    }
    return best;
}

/* One decision of device d: run an op (true), or move its clock to the
 * earliest time one could be ready. */
static bool zb_step(zb *z, orders *o, int d)
{
    const pipe_shape *q = z->q;
    int stages[2], n = device_stages(q, d, stages);
    double held = 0;
    bool started = false;
    for (int k = 0; k < n; k++) {
        int s = stages[k];
        held += z->nf[s] - z->nb[s] + q->w_mem * (z->nb[s] - z->nw[s]);
        started |= z->nb[s] > 0;
    }
    bool raise = z->policy.warm_only && started && !q->vshape;
    double limit = (raise ? q->budget : forward_limit(q, z->policy.limit, d)) + 1e-9;
    int w = zb_pick_w(z, stages, n);
    double rb, rf;
    int b = zb_pick(z, stages, n, KIND_B, true, &rb);
    int f = zb_pick(z, stages, n, KIND_F, limit - held, &rf);
    bool f_left = false;
    for (int k = 0; k < n; k++)
        f_left |= z->nf[stages[k]] < q->M;
    bool w_frees_f = f_left && f < 0 && w >= 0 && held - q->w_mem + 1 <= limit;
    double now = z->clock[d], next = rb < rf ? rb : rf;
    if (z->policy.forward_first && rf <= now)
        zb_run(z, o, f, KIND_F);
    else if (rb <= now)
        zb_run(z, o, b, KIND_B);
    else if (rf <= now)
        zb_run(z, o, f, KIND_F);
    else if (w >= 0 && (w_frees_f || zb_fill(z, d, next - now)))
        zb_run(z, o, w, KIND_W);
    else {
        z->idle[d] += next - now;
        z->clock[d] = next;
        return false;
    }
    return true;
}

static bool device_done(const zb *z, int d)
{
    int stages[2], n = device_stages(z->q, d, stages);
    for (int k = 0; k < n; k++)
        if (z->nw[stages[k]] < z->q->M)
            return false;
    return true;
}

static pp_status order_zb(orders *o, const pipe_shape *q, zb_policy policy, pp_error *err)
{
    int P = q->P, S = q->S;
    size_t cells = (size_t)q->M * S;
    zb z = {.q = q, .policy = policy};
    z.clock = calloc((size_t)P, sizeof(double));
    z.idle = calloc((size_t)P, sizeof(double));
    z.nf = calloc((size_t)S, sizeof(int));
    z.nb = calloc((size_t)S, sizeof(int));
    z.nw = calloc((size_t)S, sizeof(int));
    z.up_free = calloc((size_t)P, sizeof(double));
    z.down_free = calloc((size_t)P, sizeof(double));
    z.f_arrive = malloc(cells * sizeof(double));
    z.b_arrive = malloc(cells * sizeof(double));
    z.b_end = malloc(cells * sizeof(double));
    pp_status st = PP_OK;
    if (!z.clock || !z.idle || !z.nf || !z.nb || !z.nw || !z.up_free || !z.down_free || !z.f_arrive ||
        !z.b_arrive || !z.b_end)
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    for (size_t i = 0; st == PP_OK && i < cells; i++)
        z.f_arrive[i] = z.b_arrive[i] = NAN;
    /* Each device waits at most once for each other's next op: more waits in
     * a row than that, and every device waits for memory that only another's
     * backward would give back. */
    for (long steps = 0, waits = 0; st == PP_OK; steps++) {
        int best = -1;
        for (int d = 0; d < P; d++)
            if (!device_done(&z, d) && (best < 0 || z.clock[d] < z.clock[best]))
                best = d;
        if (best < 0)
            break;
        if (isinf(z.clock[best]) || waits > 2 * (long)P * P + 16)
            st = pp_error_set(err, PP_INFEASIBLE, "every device waits for memory that only another's "
                              "backward would give back");
        else if (steps > 20 * (long)cells + 1000)
            st = pp_error_set(err, PP_EARG, "pipeline: the zero-bubble greedy made no progress (a bug)");
        else
            waits = zb_step(&z, o, best) ? 0 : waits + 1;
    }
    free(z.clock);
    free(z.idle);
    free(z.nf);
    free(z.nb);
    free(z.nw);
    free(z.up_free);
    free(z.down_free);
    free(z.f_arrive);
    free(z.b_arrive);
    free(z.b_end);
    return st;
}

pp_status pipe_order_zb1p(orders *o, const pipe_shape *q, pp_error *err)
{
    return order_zb(o, q, (zb_policy){LIMIT_1F1B, FILL_IDLE, false, false}, err);
}

/* ZB-H2 (Qi et al. section 2.2): more warm-up forwards, then W ops into
 * every gap, which fills the drain: the same greedy as ZB-H1 under the
 * deeper forward limit. */
pp_status pipe_order_zb2p(orders *o, const pipe_shape *q, pp_error *err)
{
    return order_zb(o, q, (zb_policy){LIMIT_ZBH2, FILL_IDLE, false, false}, err);
}

/* The policy of grid point k of LIMIT_RULES x FILL_RULES x 2 x 2, Qi et al.'s
 * grid search over their heuristic's switches: the fill rules outermost,
 * the one that usually wins first, so that a schedule on the bound ends the
 * search early. Which of the schedules on the bound comes first matters to
 * the span search that may follow: from ZB-H2's warm-up with the budget
 * after it, it takes 2P micro-batches to 1.5-2.9% span bubble at P = 8..32
 * when W keeps 0.28 of the activations, from a limit held throughout to
 * 6-8%, and the two tie when W keeps none; so warm-up-only limits go first. */
static zb_policy grid_point(int k)
{
    static const int fills[FILL_RULES] = {FILL_WORST, FILL_IDLE, FILL_GAP};
    return (zb_policy){.limit = (LIMIT_DOUBLE + k % LIMIT_RULES) % LIMIT_RULES,
                       .fill = fills[k / LIMIT_RULES / 4],
                       .forward_first = k / LIMIT_RULES % 2,
                       .warm_only = k / LIMIT_RULES / 2 % 2 == 0};
}

/* Times the greedy's orders (stage s on device s) into trial. */
static pp_status time_zb(const pp_sched_problem *p, const pipe_shape *q, const orders *o, pp_sched_schedule *trial,
                         pp_error *err)
{
    int *device = malloc((size_t)p->op_count * sizeof(int));
    const int **rows = malloc((size_t)q->P * sizeof *rows);
    pp_status st = PP_OK;
    if (!device || !rows) {
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    } else {
        for (int i = 0; i < p->op_count; i++)
            device[i] = pipe_device(q, i / 3 / q->S, i / 3 % q->S);
        for (int d = 0; d < q->P; d++)
            rows[d] = o->ops + (size_t)d * 3 * q->M * q->V;
        st = sc_times_from_orders(p, device, rows, o->length, trial, err);
    }
    free(device);
    free(rows);
    return st;
}

pp_status pipe_zb_best(const pp_sched_problem *p, const pipe_shape *q, orders *o, pp_sched_schedule *s,
                       pp_error *err)
{
    pp_sched_schedule *trial = pp_sched_schedule_new(p);
    if (!trial)
        return pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    double bound = pp_sched_lower_bound(p);
    pp_status st = PP_OK;
    bool found = false, timed = false;
    for (int k = 0; k < LIMIT_RULES * FILL_RULES * 4 && st == PP_OK; k++) {
        for (int d = 0; d < q->P; d++)
            o->length[d] = 0;
        /* A policy whose warm-up leaves no room to finish (ZB-V's first
         * chunk under a tight budget) gives no schedule; others may. */
        pp_error stuck = {0};
        pp_status ran = order_zb(o, q, grid_point(k), &stuck);
        if (ran == PP_INFEASIBLE)
            continue;
        if (ran != PP_OK) {
            st = pp_error_set(err, ran, "%s", stuck.message);
            break;
        }
        if ((st = time_zb(p, q, o, trial, err)))
            break;
        pp_sched_report report;
        pp_error why = {0};
        bool fits = pp_sched_check(p, trial, &report, &why) == PP_OK;
        pp_sched_report_free(&report);
        if (!timed || (fits && (!found || pp_sched_makespan(trial) < pp_sched_makespan(s))))
            pp_sched_schedule_copy(s, trial);
        found |= fits;
        timed = true;
        if (found && pp_sched_makespan(s) <= bound)
            break;
    }
    pp_sched_schedule_free(trial);
    if (st == PP_OK && !timed)
        st = pp_error_set(err, PP_EARG, "pipeline: the scheme's reference schedule does not fit an activation "
                          "budget of %g micro-batches: under every policy of the greedy every device waits for "
                          "memory", q->budget);
    return st;
}
