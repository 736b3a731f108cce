/* gen_pipeline.c: the pipeline-parallel training problems of paper 002
 * section V-A and, as references, the schedules of the schemes themselves:
 * 1F1B, ZB1P (ZB-H1 of Qi et al., "Zero Bubble Pipeline Parallelism") and
 * DualPipe (DeepSeek-V3; the step order of deepseek-ai/DualPipe's
 * dualpipe.py).
 *
 * Per micro-batch m and stage s there are three ops: F{m}.{s} (forward),
 * B{m}.{s} (backward for the input) and W{m}.{s} (backward for the
 * weights), of lengths t_f, t_b and t_w (default 1, paper 002's unit ops;
 * Qi et al. state pipelines by these three times and the transfer time).
 * Every op's device is fixed by the scheme: stage s on device s, except
 * DualPipe's second half of micro-batches, which flow the other way (stage
 * s on device P-1-s), so each DualPipe device holds two stages.
 *
 * Activation accounting, our documented choice (the paper does not spell it
 * out): one unit is one micro-batch's activations for one stage. A forward
 * adds 1, the backward for the input frees all but w_mem of it, the backward
 * for the weights the rest (Qi et al. section 2: W keeps the activations its
 * weight gradient reads; default w_mem = 0). With w_mem = 0 the schemes'
 * own schedules peak at what DeepSeek-V3's technical report (table 2) gives: PP units for 1F1B and
 * ZB1P, PP+1 for DualPipe. Parameters: param_mem per stage copy a device
 * holds (DualPipe two, the others one), carried as the weight of that
 * stage's first forward on the device; placements are fixed, so this is
 * exact. A device's capacity is its parameters plus mem_act.
 *
 * The problem keeps F, B and W separate ops and lets each output leave as
 * soon as its op ends: that is the freedom the solver has (it may split any
 * backward and send any output early). The references are timed the way
 * the schemes' systems run them, which send some outputs later:
 * - a fused backward chunk (B then W: 1F1B's backwards, DualPipe's outside
 *   its zero-bubble ones; dualpipe.py's _backward_chunk with enable_zb=False)
 *   sends the input gradient when the chunk ends, after W; ZB1P's backwards
 *   and DualPipe's with W deferred send it when B ends;
 * - DualPipe's F&B pairs (dualpipe.py's _forward_backward_chunk in steps 4
 *   and 5) run a forward of one phase overlapped with a fused backward of
 *   the other and send both outputs after the pair, so the forward's after
 *   the backward's W. Only the sends are modelled: the pair's forward does
 *   not wait for the backward's input. The middle ranks' first step-4 F and
 *   B are not a pair (dualpipe.py: "We don't overlap these two chunks") and
 *   that F sends when it ends; dualpipe.py issues that send after the B as
 *   well, and holding it too gives the same bubbles and makespans (tried
 *   at even P = 2 to 10).
 * Sending every output when its op ends would credit the schemes with
 * splits and early sends they do not make: 1F1B's bubble would be 2(P-1)
 * instead of table 2's 3(P-1) (F = W = 1, full backward 2), DualPipe's P/2-1
 * instead of 2(P/2-1). Timed as the schemes run, all three measure table 2:
 * 3(P-1), P-1 and 2(P/2-1) (test_gen.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "timing.h"

enum { KIND_F, KIND_B, KIND_W };

typedef struct {
    int P, M;
    bool dual;
    double comm;
    double time[3];  /* per kind: F, B, W */
    double w_mem;    /* activations W frees; B frees 1 - w_mem */
    double budget;   /* activations a device may hold, in micro-batches */
    bool in_order;   /* per stage, F, B and W each in micro-batch order */
} pipe;

static int op_index(const pipe *q, int m, int s, int kind)
{
    return (m * q->P + s) * 3 + kind;
}

static int device_of(const pipe *q, int m, int s)
{
    return q->dual && m >= q->M / 2 ? q->P - 1 - s : s;
}

static pp_status check_spec(const pp_pipe_spec *spec, pp_error *err)
{
    if (!spec)
        return pp_error_set(err, PP_EARG, "pipeline: no spec given");
    int P = spec->stages, M = spec->microbatches;
    if (P < 2 || P > 4096)
        return pp_error_set(err, PP_EARG, "pipeline: stages must be in 2..4096, not %d", P);
    if (M < 1 || (long long)P * M > 10000000)
        return pp_error_set(err, PP_EARG, "pipeline: micro-batches must be >= 1 and stages x "
                            "micro-batches at most 10^7, not %d x %d", P, M);
    if (spec->scheme != PP_PIPE_1F1B && spec->scheme != PP_PIPE_ZB1P && spec->scheme != PP_PIPE_DUALPIPE &&
        spec->scheme != PP_PIPE_ZB)
        return pp_error_set(err, PP_EARG, "pipeline: unknown scheme %d", (int)spec->scheme);
    if (!isfinite(spec->mem_act) || spec->mem_act <= 0)
        return pp_error_set(err, PP_EARG, "pipeline: the activation budget must be a number > 0, not %g",
                            spec->mem_act);
    if (!isfinite(spec->param_mem) || spec->param_mem < 0)
        return pp_error_set(err, PP_EARG, "pipeline: parameter memory must be a number >= 0 (0: the "
                            "default 1), not %g", spec->param_mem);
    double times[3] = {spec->t_f, spec->t_b, spec->t_w};
    for (int k = 0; k < 3; k++)
        if (!isfinite(times[k]) || times[k] < 0)
            return pp_error_set(err, PP_EARG, "pipeline: op times must be numbers >= 0 (0: the default 1), "
                                "not %g", times[k]);
    if (!(spec->w_mem >= 0 && spec->w_mem <= 1))
        return pp_error_set(err, PP_EARG, "pipeline: the W share of the activations must be in [0, 1], not %g",
                            spec->w_mem);
    if (!isfinite(spec->comm) || spec->comm < 0)
        return pp_error_set(err, PP_EARG, "pipeline: the transfer time must be a number >= 0, not %g",
                            spec->comm);
    if (spec->scheme == PP_PIPE_DUALPIPE && (P % 2 != 0 || M % 2 != 0 || M < 2 * P))
        return pp_error_set(err, PP_EARG, "pipeline: DualPipe needs an even number of stages and an even "
                            "number of micro-batches at least twice the stages, not %d stages and %d "
                            "micro-batches", P, M);
    return PP_OK;
}

static void add_stage_ops(pp_sched_problem *p, const pipe *q, int m, int s, double param)
{
    static const char *const kinds[3] = {"forward", "backward_input", "backward_weight"};
    static const char letters[3] = {'F', 'B', 'W'};
    double adjust[3] = {1, -(1 - q->w_mem), -q->w_mem};
    bool first = m == 0 || (q->dual && m == q->M / 2);
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "%c%d.%d", letters[k], m, s);
        int op = pp_sched_add_op(p, name, kinds[k], q->time[k], k == KIND_F && first ? param : 0, adjust[k]);
        if (op >= 0)
            pp_sched_allow(p, op, device_of(q, m, s));
    }
}

/* Per-device op orders of a reference schedule: every device runs 3M ops. */
typedef struct {
    int *ops;
    int *length;
    unsigned char *fused;    /* per m * P + s: that backward runs fused */
    int *f_sender;           /* per m * P + s: the op whose end sends F{m}.{s}'s output */
} orders;

/* With a reference's orders (NULL: the problem itself), the transfers leave
 * when the scheme sends them: a fused backward's B -> B from its W, a
 * forward's F -> F from its f_sender. F -> B at the last stage stays on its
 * device and is no transfer. */
static void add_deps(pp_sched_problem *p, const pipe *q, const orders *o, int m, int s)
{
    if (s + 1 < q->P) {
        int f = o ? o->f_sender[m * q->P + s] : op_index(q, m, s, KIND_F);
        bool late = o && o->fused[m * q->P + s + 1];
        pp_sched_add_dep(p, f, op_index(q, m, s + 1, KIND_F), q->comm);
        pp_sched_add_dep(p, op_index(q, m, s + 1, late ? KIND_W : KIND_B), op_index(q, m, s, KIND_B), q->comm);
    } else {
        pp_sched_add_dep(p, op_index(q, m, s, KIND_F), op_index(q, m, s, KIND_B), 0);
    }
    pp_sched_add_dep(p, op_index(q, m, s, KIND_B), op_index(q, m, s, KIND_W), 0);
    /* In order: a dependency to the next micro-batch's op of the same kind
     * and stage, on the same device (DualPipe: within one direction), so it
     * costs nothing but the order. */
    bool next_same_way = m + 1 < q->M && (!q->dual || m + 1 != q->M / 2);
    for (int k = 0; q->in_order && next_same_way && k < 3; k++)
        pp_sched_add_dep(p, op_index(q, m, s, k), op_index(q, m + 1, s, k), 0);
}

static pp_status build(const pp_pipe_spec *spec, const pipe *q, const orders *o,
                       pp_sched_problem **out, pp_error *err)
{
    double param = spec->param_mem > 0 ? spec->param_mem : 1;
    pp_sched_problem *p = pp_sched_problem_new();
    if (!p)
        return pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    for (int d = 0; d < q->P; d++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", d);
        pp_sched_add_device(p, name, param * (q->dual ? 2 : 1) + spec->mem_act);
        if (d + 1 < q->P) {
            pp_sched_add_channel(p, d, d + 1);
            pp_sched_add_channel(p, d + 1, d);
        }
    }
    for (int m = 0; m < q->M; m++)
        for (int s = 0; s < q->P; s++)
            add_stage_ops(p, q, m, s, param);
    for (int m = 0; m < q->M; m++)
        for (int s = 0; s < q->P; s++)
            add_deps(p, q, o, m, s);
    pp_status st = pp_sched_problem_finish(p, "pipeline", err);
    if (st != PP_OK) {
        pp_sched_problem_free(p);
        return st;
    }
    *out = p;
    return PP_OK;
}

static void push(orders *o, const pipe *q, int d, int m, int s, int kind)
{
    o->ops[d * 3 * q->M + o->length[d]++] = op_index(q, m, s, kind);
}

/* A fused backward chunk: B and W back to back, the gradient sent after W. */
static void push_fused(orders *o, const pipe *q, int d, int m, int s)
{
    push(o, q, d, m, s, KIND_B);
    push(o, q, d, m, s, KIND_W);
    o->fused[m * q->P + s] = 1;
}

/* Warm-up forwards, then one forward and one fused backward at a time, then
 * the remaining backwards. */
static void order_1f1b(orders *o, const pipe *q)
{
    for (int s = 0; s < q->P; s++) {
        int warm = q->P - s - 1 < q->M ? q->P - s - 1 : q->M;
        for (int i = 0; i < warm; i++)
            push(o, q, s, i, s, KIND_F);
        for (int i = 0; i < q->M - warm; i++) {
            push(o, q, s, warm + i, s, KIND_F);
            push_fused(o, q, s, i, s);
        }
        for (int i = q->M - warm; i < q->M; i++)
            push_fused(o, q, s, i, s);
    }
}

/* How many micro-batches of activations device s may hold before its next
 * forward: ZB-H1 keeps 1F1B's P - s; the zero-bubble greedy (PP_PIPE_ZB)
 * also tries twice that less one (a warm-up as deep as ZB-H2's) and the
 * whole budget, each capped by the budget, and keeps the shortest. */
enum { LIMIT_1F1B, LIMIT_DOUBLE, LIMIT_BUDGET, LIMIT_RULES };

static double forward_limit(const pipe *q, int rule, int s)
{
    double depth = rule == LIMIT_1F1B ? q->P - s : rule == LIMIT_DOUBLE ? 2 * (q->P - s) - 1 : q->budget;
    return rule == LIMIT_1F1B ? depth : fmin(depth, q->budget);
}

/* ZB1P and the zero-bubble greedy as a time-driven greedy per device: at
 * its clock a device runs a ready backward, else a ready forward while its
 * activations stay within the forward limit, else its oldest deferred W.
 * The device with the earliest clock decides first; its inputs still
 * unknown come from a neighbour whose clock is no earlier, so they arrive
 * at least that op's length and the transfer later, and waiting devices
 * jump to the earliest time something could become ready. A device runs
 * an op exactly when its order's earliest times say it starts, so timing
 * the orders gives back these times. The activations held count what
 * deferred Ws still hold (w_mem each), so under ZB1P's limit the peak stays
 * 1F1B's P - s; with w_mem = 0 a deferred W holds nothing, the Ws drift to
 * the tail of each device's order, and at unit times the bubble and peak
 * are ZB-H1's. */
typedef struct {
    const pipe *q;
    int rule;                /* forward_limit's */
    double *clock;
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
    const pipe *q = z->q;
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
    const pipe *q = z->q;
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

/* One decision of device s: run an op, or move its clock to the earliest
 * time one could be ready. */
static void zb_step(zb *z, orders *o, int s)
{
    const pipe *q = z->q;
    bool has_b = z->nb[s] < z->nf[s];
    double held = z->nf[s] - z->nb[s] + q->w_mem * (z->nb[s] - z->nw[s]);
    bool has_f = z->nf[s] < q->M && held + 1 <= forward_limit(q, z->rule, s) + 1e-9;
    double rb = has_b ? zb_ready(z, s, KIND_B) : INFINITY;
    double rf = has_f ? zb_ready(z, s, KIND_F) : INFINITY;
    double now = z->clock[s];
    if (rb <= now)
        zb_run(z, o, s, KIND_B);
    else if (rf <= now)
        zb_run(z, o, s, KIND_F);
    else if (z->nw[s] < z->nb[s])
        zb_run(z, o, s, KIND_W);
    else
        z->clock[s] = rb < rf ? rb : rf;
}

static pp_status order_zb(orders *o, const pipe *q, int rule, pp_error *err)
{
    int P = q->P;
    size_t cells = (size_t)q->M * P;
    zb z = {.q = q, .rule = rule};
    z.clock = calloc((size_t)P, sizeof(double));
    z.nf = calloc((size_t)P, sizeof(int));
    z.nb = calloc((size_t)P, sizeof(int));
    z.nw = calloc((size_t)P, sizeof(int));
    z.up_free = calloc((size_t)P, sizeof(double));
    z.down_free = calloc((size_t)P, sizeof(double));
    z.f_arrive = malloc(cells * sizeof(double));
    z.b_arrive = malloc(cells * sizeof(double));
    pp_status st = PP_OK;
    if (!z.clock || !z.nf || !z.nb || !z.nw || !z.up_free || !z.down_free || !z.f_arrive || !z.b_arrive)
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
    free(z.nf);
    free(z.nb);
    free(z.nw);
    free(z.up_free);
    free(z.down_free);
    free(z.f_arrive);
    free(z.b_arrive);
    return st;
}

/* DualPipe on one rank: two phases, each a direction of micro-batches with
 * its own next-forward and next-backward counters, and a FIFO of deferred
 * Ws (a backward "with W deferred" queues its W; "W" runs the oldest; any
 * other backward runs fused). */
typedef struct {
    orders *o;
    const pipe *q;
    int rank;
    int base[2], stage[2];   /* per phase: first micro-batch, stage held here */
    int next_f[2], next_b[2];
    int *fifo;               /* deferred Ws' micro-batches and stages, in pairs */
    int head, tail;
} dual_rank;

static void dp_forward(dual_rank *r, int phase)
{
    push(r->o, r->q, r->rank, r->base[phase] + r->next_f[phase]++, r->stage[phase], KIND_F);
}

static void dp_backward(dual_rank *r, int phase, bool defer)
{
    int m = r->base[phase] + r->next_b[phase]++, s = r->stage[phase];
    if (defer) {
        push(r->o, r->q, r->rank, m, s, KIND_B);
        r->fifo[r->tail++] = m;
        r->fifo[r->tail++] = s;
    } else {
        push_fused(r->o, r->q, r->rank, m, s);
    }
}

/* An overlapped F&B chunk (dualpipe.py's _forward_backward_chunk): a forward
 * and a fused backward of the other phase, both outputs sent after the pair,
 * so the forward's after the backward's W. */
static void dp_pair(dual_rank *r, int f_phase, int b_phase)
{
    const pipe *q = r->q;
    int f = (r->base[f_phase] + r->next_f[f_phase]) * q->P + r->stage[f_phase];
    int w = op_index(q, r->base[b_phase] + r->next_b[b_phase], r->stage[b_phase], KIND_W);
    dp_forward(r, f_phase);
    dp_backward(r, b_phase, false);
    r->o->f_sender[f] = w;
}

static void dp_weight(dual_rank *r)
{
    if (r->head < r->tail) {
        push(r->o, r->q, r->rank, r->fifo[r->head], r->fifo[r->head + 1], KIND_W);
        r->head += 2;
    }
}

/* The eight steps of dualpipe.py's step() for one rank. */
static void dp_steps(dual_rank *r, int h, int P2, int half)
{
    int P = r->q->P;
    for (int i = 0; i < (P2 - h - 1) * 2; i++)
        dp_forward(r, 0);
    for (int i = 0; i < h + 1; i++) {
        dp_forward(r, 0);
        dp_forward(r, 1);
    }
    for (int i = 0; i < P2 - h - 1; i++) {
        dp_backward(r, 1, true);
        dp_weight(r);
        dp_forward(r, 1);
    }
    for (int i = 0; i < half - P + h + 1; i++) {
        if (i == 0 && h == P2 - 1) {
            dp_forward(r, 0);
            dp_backward(r, 1, false);
        } else {
            dp_pair(r, 0, 1);
        }
        dp_pair(r, 1, 0);
    }
    for (int i = 0; i < P2 - h - 1; i++) {
        dp_backward(r, 1, false);
        dp_pair(r, 1, 0);
    }
    bool defer = false;
    for (int i = 0; i < h + 1; i++) {
        defer |= i == (h + 1) / 2 && h % 2 == 1;
        dp_backward(r, 1, defer);
        defer |= i == (h + 1) / 2 && h % 2 == 0;
        dp_backward(r, 0, defer);
    }
    for (int i = 0; i < P2 - h - 1; i++) {
        dp_weight(r);
        dp_backward(r, 0, true);
    }
    for (int i = 0; i < h + 1; i++)
        dp_weight(r);
}

static pp_status order_dualpipe(orders *o, const pipe *q, pp_error *err)
{
    int P = q->P, half = q->M / 2;
    int *fifo = malloc((size_t)q->M * 2 * sizeof(int));
    if (!fifo)
        return pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    pp_status st = PP_OK;
    for (int rank = 0; rank < P && st == PP_OK; rank++) {
        bool second = rank >= P / 2;
        dual_rank r = {.o = o, .q = q, .rank = rank, .fifo = fifo};
        r.base[second] = 0;
        r.stage[second] = rank;
        r.base[!second] = half;
        r.stage[!second] = P - 1 - rank;
        int h = rank < P - 1 - rank ? rank : P - 1 - rank;
        dp_steps(&r, h, P / 2, half);
        for (int k = 0; k < 2; k++)
            if (r.next_f[k] != half || r.next_b[k] != half || r.head != r.tail)
                st = pp_error_set(err, PP_EARG, "pipeline: DualPipe rank %d ran %d forwards and %d "
                                  "backwards of a phase, not %d (a bug)", rank, r.next_f[k],
                                  r.next_b[k], half);
    }
    free(fifo);
    return st;
}

/* Earliest times of the orders, with each fused backward's gradient sent
 * after its W and each paired forward's output after its pair. Rather than
 * teach the timer a second release time per transfer, the orders are timed
 * on a copy of the problem whose fused B -> B dependencies leave from W and
 * whose paired F -> F ones from the pair's W instead. The copy has the same
 * ops, devices and channels, and its dependencies in the same order, so its
 * schedule is one of the problem itself: each moved transfer leaves from an
 * op on its source's device that runs after the source, so it starts after
 * the source ends, on the same channel, and still ends before its
 * destination starts. */
static pp_status time_orders(const pp_pipe_spec *spec, const pipe *q, const orders *o,
                             pp_sched_schedule *s, pp_error *err)
{
    pp_sched_problem *p = NULL;
    pp_status st = build(spec, q, o, &p, err);
    if (st != PP_OK)
        return st;
    int *device = malloc((size_t)p->op_count * sizeof(int));
    const int **rows = malloc((size_t)q->P * sizeof *rows);
    if (!device || !rows) {
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    } else {
        for (int m = 0; m < q->M; m++)
            for (int stage = 0; stage < q->P; stage++)
                for (int k = 0; k < 3; k++)
                    device[op_index(q, m, stage, k)] = device_of(q, m, stage);
        for (int d = 0; d < q->P; d++)
            rows[d] = o->ops + (size_t)d * 3 * q->M;
        st = sched_times_from_orders(p, device, rows, o->length, s, err);
    }
    free(device);
    free(rows);
    pp_sched_problem_free(p);
    return st;
}

/* Every forward sends its output when it ends unless the scheme says later. */
static pp_status order_scheme(pp_pipe_scheme scheme, const pipe *q, orders *o, pp_error *err)
{
    for (int c = 0; c < q->M * q->P; c++)
        o->f_sender[c] = c * 3 + KIND_F;
    if (scheme == PP_PIPE_1F1B) {
        order_1f1b(o, q);
        return PP_OK;
    }
    if (scheme == PP_PIPE_ZB1P)
        return order_zb(o, q, LIMIT_1F1B, err);
    return order_dualpipe(o, q, err);
}

/* A scheme's schedule holds as many activations as it holds: below that
 * budget there is no reference to give, and writing one the checker refuses
 * would hand the caller an invalid file. */
static pp_status check_reference(const pp_sched_problem *p, const pp_sched_schedule *s, double mem_act,
                                 pp_error *err)
{
    pp_sched_report report;
    pp_error why = {0};
    pp_status st = pp_sched_check(p, s, &report, &why);
    pp_sched_report_free(&report);
    if (st == PP_INFEASIBLE)
        return pp_error_set(err, PP_EARG, "pipeline: the scheme's reference schedule does not fit an "
                            "activation budget of %g micro-batches: %s", mem_act, why.message);
    if (st != PP_OK)
        return pp_error_set(err, st, "%s", why.message);
    return PP_OK;
}

/* The zero-bubble greedy under each forward limit, timed; the shortest
 * schedule that fits the budget goes to s (the first one when none fits, so
 * the caller's check says why). */
static pp_status zb_shortest(const pp_pipe_spec *spec, const pp_sched_problem *p, const pipe *q, orders *o,
                             pp_sched_schedule *s, pp_error *err)
{
    pp_sched_schedule *trial = pp_sched_schedule_new(p);
    if (!trial)
        return pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    pp_status st = PP_OK;
    bool found = false;
    for (int rule = 0; rule < LIMIT_RULES && st == PP_OK; rule++) {
        for (int d = 0; d < q->P; d++)
            o->length[d] = 0;
        for (int c = 0; c < q->M * q->P; c++)
            o->f_sender[c] = c * 3 + KIND_F;
        if ((st = order_zb(o, q, rule, err)) || (st = time_orders(spec, q, o, trial, err)))
            break;
        pp_sched_report report;
        pp_error why = {0};
        bool fits = pp_sched_check(p, trial, &report, &why) == PP_OK;
        pp_sched_report_free(&report);
        if (rule == 0 || (fits && (!found || pp_sched_makespan(trial) < pp_sched_makespan(s))))
            pp_sched_schedule_copy(s, trial);
        found |= fits;
    }
    pp_sched_schedule_free(trial);
    return st;
}

static pp_status reference(const pp_pipe_spec *spec, const pp_sched_problem *p, const pipe *q,
                           pp_sched_schedule **out, pp_error *err)
{
    size_t cells = (size_t)q->M * q->P;
    orders o = {malloc((size_t)p->op_count * sizeof(int)), calloc((size_t)q->P, sizeof(int)),
                calloc(cells, 1), malloc(cells * sizeof(int))};
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    pp_status st = PP_OK;
    if (!o.ops || !o.length || !o.fused || !o.f_sender || !s)
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    else if (spec->scheme == PP_PIPE_ZB)
        st = zb_shortest(spec, p, q, &o, s, err);
    else
        st = order_scheme(spec->scheme, q, &o, err);
    if (st == PP_OK && spec->scheme != PP_PIPE_ZB)
        st = time_orders(spec, q, &o, s, err);
    if (st == PP_OK)
        st = check_reference(p, s, spec->mem_act, err);
    free(o.ops);
    free(o.length);
    free(o.fused);
    free(o.f_sender);
    if (st != PP_OK) {
        pp_sched_schedule_free(s);
        return st;
    }
    *out = s;
    return PP_OK;
}

static double or_one(double t) { return t > 0 ? t : 1; }

pp_status pp_sched_gen_pipeline(const pp_pipe_spec *spec, pp_sched_problem **out,
                                pp_sched_schedule **reference_out, pp_error *err)
{
    *out = NULL;
    if (reference_out)
        *reference_out = NULL;
    pp_status st = check_spec(spec, err);
    if (st != PP_OK)
        return st;
    pipe q = {spec->stages, spec->microbatches, spec->scheme == PP_PIPE_DUALPIPE, spec->comm,
              {or_one(spec->t_f), or_one(spec->t_b), or_one(spec->t_w)}, spec->w_mem, spec->mem_act,
              spec->in_order};
    pp_sched_problem *p = NULL;
    if ((st = build(spec, &q, NULL, &p, err)) != PP_OK)
        return st;
    if (reference_out && (st = reference(spec, p, &q, reference_out, err)) != PP_OK) {
        pp_sched_problem_free(p);
        return st;
    }
    *out = p;
    return PP_OK;
}
