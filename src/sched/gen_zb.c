/* gen_zb.c: the zero-bubble greedy (`gen pipeline --scheme zb`) and ZB-H1's
 * and ZB-H2's orders: per-device op orders for the pipelines of gen_pipeline.c, built
 * by a time-driven greedy and, for the greedy, the best of a small grid of
 * its policies. */
#include <math.h>
#include <stdlib.h>
#include "sched/pipeline.h"
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
    int limit;           /* LIMIT_* */
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
    return rule == LIMIT_1F1B || rule == LIMIT_ZBH2 ? depth : fmin(depth, q->budget);
}

typedef struct {
    const pipe_shape *q;
    zb_policy policy;
    double *clock;
    double *idle;            /* per device: time spent waiting so far */
    int *nf, *nb, *nw;       /* per device: forwards, backwards, Ws run */
    double *f_arrive;        /* [m * P + s]: F{m}.{s-1}'s output at device s (NAN: not yet sent) */
    double *b_arrive;        /* [m * P + s]: B{m}.{s+1}'s output at device s */
    double *up_free, *down_free; /* per device: channel s->s+1 and s->s-1 free again */
} zb;

static double send(double *channel_free, double end, double comm)
{
    double start = end > *channel_free ? end : *channel_free;
    *channel_free = start + comm;
    return start + comm;
}

static void zb_run(zb *z, orders *o, int s, int kind)
{
    const pipe_shape *q = z->q;
    int P = q->P;
    double end = z->clock[s] + q->time[kind];
    if (kind == KIND_F) {
        push(o, q, s, z->nf[s], s, KIND_F);
        if (s + 1 < P)
            z->f_arrive[z->nf[s] * P + s + 1] = send(&z->up_free[s], end, q->comm);
        z->nf[s]++;
    } else if (kind == KIND_B) {
        push(o, q, s, z->nb[s], s, KIND_B);
        if (s > 0)
            z->b_arrive[z->nb[s] * P + s - 1] = send(&z->down_free[s], end, q->comm);
        z->nb[s]++;
    } else {
        push(o, q, s, z->nw[s]++, s, KIND_W);
    }
    z->clock[s] = end;
}

/* When the next backward (kind B) or forward (kind F) of device s can be
 * ready: its arrival if known, else the earliest its sender could deliver. */
static double zb_ready(const zb *z, int s, int kind)
{
    const pipe_shape *q = z->q;
    int P = q->P;
    if (kind == KIND_B) {
        if (s == P - 1)
            return z->clock[s];
        double at = z->b_arrive[z->nb[s] * P + s];
        return isnan(at) ? z->clock[s + 1] + q->time[KIND_B] + q->comm : at;
    }
    if (s == 0)
        return z->clock[s];
    double at = z->f_arrive[z->nf[s] * P + s];
    return isnan(at) ? z->clock[s - 1] + q->time[KIND_F] + q->comm : at;
}

/* Whether device s, idle for gap until a forward or backward could be
 * ready, runs a W now (it has one). */
static bool zb_fill(const zb *z, int s, double gap)
{
    if (z->policy.fill == FILL_IDLE || !isfinite(gap) || gap >= z->q->time[KIND_W])
        return true;
    if (z->policy.fill == FILL_GAP)
        return false;
    double worst = 0;
    for (int d = 0; d < z->q->P; d++)
        worst = fmax(worst, z->idle[d]);
    return z->idle[s] + gap > worst;
}

/* One decision of device s: run an op, or move its clock to the earliest
 * time one could be ready. */
static void zb_step(zb *z, orders *o, int s)
{
    const pipe_shape *q = z->q;
    bool has_b = z->nb[s] < z->nf[s], has_w = z->nw[s] < z->nb[s];
    double held = z->nf[s] - z->nb[s] + q->w_mem * (z->nb[s] - z->nw[s]);
    double limit = (z->policy.warm_only && z->nb[s] > 0 ? q->budget : forward_limit(q, z->policy.limit, s)) + 1e-9;
    bool has_f = z->nf[s] < q->M && held + 1 <= limit;
    bool w_frees_f = z->nf[s] < q->M && !has_f && has_w && held - q->w_mem + 1 <= limit;
    double rb = has_b ? zb_ready(z, s, KIND_B) : INFINITY;
    double rf = has_f ? zb_ready(z, s, KIND_F) : INFINITY;
    double now = z->clock[s], next = rb < rf ? rb : rf;
    if (z->policy.forward_first && rf <= now)
        zb_run(z, o, s, KIND_F);
    else if (rb <= now)
        zb_run(z, o, s, KIND_B);
    else if (rf <= now)
        zb_run(z, o, s, KIND_F);
    else if (has_w && (w_frees_f || zb_fill(z, s, next - now)))
        zb_run(z, o, s, KIND_W);
    else {
        z->idle[s] += next - now;
        z->clock[s] = next;
    }
}

static pp_status order_zb(orders *o, const pipe_shape *q, zb_policy policy, pp_error *err)
{
    int P = q->P;
    size_t cells = (size_t)q->M * P;
    zb z = {.q = q, .policy = policy};
    z.clock = calloc((size_t)P, sizeof(double));
    z.idle = calloc((size_t)P, sizeof(double));
    z.nf = calloc((size_t)P, sizeof(int));
    z.nb = calloc((size_t)P, sizeof(int));
    z.nw = calloc((size_t)P, sizeof(int));
    z.up_free = calloc((size_t)P, sizeof(double));
    z.down_free = calloc((size_t)P, sizeof(double));
    z.f_arrive = malloc(cells * sizeof(double));
    z.b_arrive = malloc(cells * sizeof(double));
    pp_status st = PP_OK;
    if (!z.clock || !z.idle || !z.nf || !z.nb || !z.nw || !z.up_free || !z.down_free || !z.f_arrive || !z.b_arrive)
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    for (size_t i = 0; st == PP_OK && i < cells; i++)
        z.f_arrive[i] = z.b_arrive[i] = NAN;
    for (long steps = 0; st == PP_OK; steps++) {
        int best = -1;
        for (int s = 0; s < P; s++)
            if (z.nw[s] < q->M && (best < 0 || z.clock[s] < z.clock[best]))
                best = s;
        if (best < 0)
            break;
        if (steps > 20 * (long)cells + 1000)
            st = pp_error_set(err, PP_EARG, "pipeline: the zero-bubble greedy made no progress (a bug)");
        else
            zb_step(&z, o, best);
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
            device[i] = i / 3 % q->P;
        for (int d = 0; d < q->P; d++)
            rows[d] = o->ops + (size_t)d * 3 * q->M;
        st = sched_times_from_orders(p, device, rows, o->length, trial, err);
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
    bool found = false;
    for (int k = 0; k < LIMIT_RULES * FILL_RULES * 4 && st == PP_OK; k++) {
        for (int d = 0; d < q->P; d++)
            o->length[d] = 0;
        if ((st = order_zb(o, q, grid_point(k), err)) || (st = time_zb(p, q, o, trial, err)))
            break;
        pp_sched_report report;
        pp_error why = {0};
        bool fits = pp_sched_check(p, trial, &report, &why) == PP_OK;
        pp_sched_report_free(&report);
        if (k == 0 || (fits && (!found || pp_sched_makespan(trial) < pp_sched_makespan(s))))
            pp_sched_schedule_copy(s, trial);
        found |= fits;
        if (found && pp_sched_makespan(s) <= bound)
            break;
    }
    pp_sched_schedule_free(trial);
    return st;
}
