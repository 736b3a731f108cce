/* gen_pipeline.c: the pipeline-parallel training problems of paper 002
 * section V-A and, as references, the schedules of the schemes themselves:
 * 1F1B, ZB1P and ZB2P (ZB-H1 and ZB-H2 of Qi et al., "Zero Bubble Pipeline
 * Parallelism", arXiv 2401.10241) and
 * DualPipe (DeepSeek-V3; the step order of deepseek-ai/DualPipe's
 * dualpipe.py), and the zero-bubble greedy's. ZB1P's orders and the
 * greedy's, and ZB2P's, come from gen_zb.c, interleaved 1F1B's (Narayanan et
 * al., SC'21, section 2.2) from gen_interleaved.c, ZB-V's (Qi et al.
 * section 6: device d holds stages d and 2P - 1 - d) from gen_zb.c; this file builds the
 * problem, 1F1B's and DualPipe's orders, and times and checks every
 * reference.
 *
 * Per micro-batch m and stage s there are three ops: F{m}.{s} (forward),
 * B{m}.{s} (backward for the input) and W{m}.{s} (backward for the
 * weights), of lengths t_f, t_b and t_w (default 1, paper 002's unit ops;
 * Qi et al. state pipelines by these three times and the transfer time).
 * Every op's device is fixed by the scheme: stage s on device s, except
 * DualPipe's second half of micro-batches, which flow the other way (stage
 * s on device P-1-s), so each DualPipe device holds two stages, and
 * interleaved 1F1B's P * V stages, stage s on device s mod P, V per device.
 * Times and activations are per stage: V chunks of a model cut for 1F1B
 * take 1/V of its times and activations each.
 *
 * Activation accounting, our documented choice (the paper does not spell it
 * out): one unit is one micro-batch's activations for one stage. A forward
 * adds 1, the backward for the input frees all but w_mem of it, the backward
 * for the weights the rest (Qi et al. section 2: W keeps the activations its
 * weight gradient reads; default w_mem = 0). With w_mem = 0 the schemes'
 * own schedules peak at what DeepSeek-V3's technical report (table 2) gives: PP units for 1F1B and
 * ZB1P, PP+1 for DualPipe. Parameters: param_mem per stage copy a device
 * holds (DualPipe two, interleaved 1F1B V, the others one), carried as the
 * weight of that stage's first forward on the device; placements are
 * fixed, so this is exact. A device's capacity is its parameters plus mem_act.
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
#include <string.h>
#include "sched/pipeline.h"
#include "sched/sched_internal.h"
#include "sched/timing.h"

static int chunks_of(const pp_pipe_spec *spec)
{
    if (spec->scheme == PP_PIPE_ZBV)
        return 2;
    return spec->scheme != PP_PIPE_INTERLEAVED ? 1 : spec->chunks ? spec->chunks : 2;
}

static pp_status check_spec(const pp_pipe_spec *spec, pp_error *err)
{
    if (!spec)
        return pp_error_set(err, PP_EARG, "pipeline: no spec given");
    int P = spec->stages, M = spec->microbatches;
    if (P < 2 || P > 4096)
        return pp_error_set(err, PP_EARG, "pipeline: stages must be in 2..4096, not %d", P);
    if (spec->scheme != PP_PIPE_1F1B && spec->scheme != PP_PIPE_ZB1P && spec->scheme != PP_PIPE_DUALPIPE &&
        spec->scheme != PP_PIPE_ZB && spec->scheme != PP_PIPE_ZB2P && spec->scheme != PP_PIPE_INTERLEAVED &&
        spec->scheme != PP_PIPE_ZBV)
        return pp_error_set(err, PP_EARG, "pipeline: unknown scheme %d", (int)spec->scheme);
    bool interleaved = spec->scheme == PP_PIPE_INTERLEAVED;
    bool vshape = spec->scheme == PP_PIPE_ZBV;
    if (interleaved ? spec->chunks != 0 && (spec->chunks < 2 || spec->chunks > 64)
                    : spec->chunks != 0 && spec->chunks != (vshape ? 2 : 1))
        return pp_error_set(err, PP_EARG, "pipeline: chunks per device must be in 2..64 for interleaved 1F1B, "
                            "2 for ZB-V and 1 for the other schemes, not %d", spec->chunks);
    long long stages = (long long)P * chunks_of(spec);
    if (M < 1 || stages * M > 10000000)
        return pp_error_set(err, PP_EARG, "pipeline: micro-batches must be >= 1 and stages x "
                            "micro-batches at most 10^7, not %lld x %d", stages, M);
    /* Narayanan et al. run the micro-batches through the chunks in groups of P. */
    if (interleaved && M % P != 0)
        return pp_error_set(err, PP_EARG, "pipeline: interleaved 1F1B needs the micro-batches to be a multiple "
                            "of the devices, not %d micro-batches on %d devices", M, P);
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

static void add_stage_ops(pp_sched_problem *p, const pipe_shape *q, int m, int s, double param)
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
            pp_sched_allow(p, op, pipe_device(q, m, s));
    }
}

/* With a reference's orders (NULL: the problem itself), the transfers leave
 * when the scheme sends them: a fused backward's B -> B from its W, a
 * forward's F -> F from its f_sender. F -> B at the last stage stays on its
 * device and is no transfer. */
static void add_deps(pp_sched_problem *p, const pipe_shape *q, const orders *o, int m, int s)
{
    if (s + 1 < q->S) {
        int f = o ? o->f_sender[m * q->S + s] : op_index(q, m, s, KIND_F);
        bool late = o && o->fused[m * q->S + s + 1];
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

static pp_status build(const pp_pipe_spec *spec, const pipe_shape *q, const orders *o,
                       pp_sched_problem **out, pp_error *err)
{
    double param = spec->param_mem > 0 ? spec->param_mem : 1;
    pp_sched_problem *p = pp_sched_problem_new();
    if (!p)
        return pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    for (int d = 0; d < q->P; d++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", d);
        pp_sched_add_device(p, name, param * (q->dual ? 2 : q->V) + spec->mem_act);
        if (d + 1 < q->P) {
            pp_sched_add_channel(p, d, d + 1);
            pp_sched_add_channel(p, d + 1, d);
        }
    }
    /* Interleaved: stage P - 1 on the last device feeds stage P on the first. */
    if (q->V > 1 && !q->vshape && q->P > 2) {
        pp_sched_add_channel(p, q->P - 1, 0);
        pp_sched_add_channel(p, 0, q->P - 1);
    }
    for (int m = 0; m < q->M; m++)
        for (int s = 0; s < q->S; s++)
            add_stage_ops(p, q, m, s, param);
    for (int m = 0; m < q->M; m++)
        for (int s = 0; s < q->S; s++)
            add_deps(p, q, o, m, s);
    pp_status st = pp_sched_problem_finish(p, "pipeline", err);
    if (st != PP_OK) {
        pp_sched_problem_free(p);
        return st;
    }
    *out = p;
    return PP_OK;
}

/* Warm-up forwards, then one forward and one fused backward at a time, then
 * the remaining backwards. */
static void order_1f1b(orders *o, const pipe_shape *q)
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

/* DualPipe on one rank: two phases, each a direction of micro-batches with
 * its own next-forward and next-backward counters, and a FIFO of deferred
 * Ws (a backward "with W deferred" queues its W; "W" runs the oldest; any
 * other backward runs fused). */
typedef struct {
    orders *o;
    const pipe_shape *q;
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
    const pipe_shape *q = r->q;
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

static pp_status order_dualpipe(orders *o, const pipe_shape *q, pp_error *err)
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
static pp_status time_orders(const pp_pipe_spec *spec, const pipe_shape *q, const orders *o,
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
            for (int stage = 0; stage < q->S; stage++)
                for (int k = 0; k < 3; k++)
                    device[op_index(q, m, stage, k)] = pipe_device(q, m, stage);
        for (int d = 0; d < q->P; d++)
            rows[d] = o->ops + (size_t)d * 3 * q->M * q->V;
        st = sc_times_from_orders(p, device, rows, o->length, s, err);
    }
    free(device);
    free(rows);
    pp_sched_problem_free(p);
    return st;
}

/* Every forward sends its output when it ends unless the scheme says later. */
static pp_status order_scheme(pp_pipe_scheme scheme, const pipe_shape *q, orders *o, pp_error *err)
{
    for (int c = 0; c < q->M * q->S; c++)
        o->f_sender[c] = c * 3 + KIND_F;
    if (scheme == PP_PIPE_1F1B) {
        order_1f1b(o, q);
        return PP_OK;
    }
    if (scheme == PP_PIPE_ZB1P)
        return pipe_order_zb1p(o, q, err);
    if (scheme == PP_PIPE_ZB2P)
        return pipe_order_zb2p(o, q, err);
    if (scheme == PP_PIPE_INTERLEAVED) {
        pipe_order_interleaved(o, q);
        return PP_OK;
    }
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


static pp_status reference(const pp_pipe_spec *spec, const pp_sched_problem *p, const pipe_shape *q,
                           pp_sched_schedule **out, pp_error *err)
{
    size_t cells = (size_t)q->M * q->S;
    orders o = {malloc((size_t)p->op_count * sizeof(int)), calloc((size_t)q->P, sizeof(int)),
                calloc(cells, 1), malloc(cells * sizeof(int))};
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    pp_status st = PP_OK;
    if (!o.ops || !o.length || !o.fused || !o.f_sender || !s)
        st = pp_error_set(err, PP_ENOMEM, "pipeline: out of memory");
    else if (spec->scheme == PP_PIPE_ZB || spec->scheme == PP_PIPE_ZBV)
        st = pipe_zb_best(p, q, &o, s, err);
    else
        st = order_scheme(spec->scheme, q, &o, err);
    if (st == PP_OK && spec->scheme != PP_PIPE_ZB && spec->scheme != PP_PIPE_ZBV)
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

static const struct {
    const char *name;
    pp_pipe_scheme scheme;
} SCHEMES[] = {{"dualpipe", PP_PIPE_DUALPIPE}, {"1f1b", PP_PIPE_1F1B}, {"zb1p", PP_PIPE_ZB1P},
               {"zb", PP_PIPE_ZB},             {"zb2p", PP_PIPE_ZB2P}, {"interleaved", PP_PIPE_INTERLEAVED},
               {"zbv", PP_PIPE_ZBV}};

pp_status pp_pipe_scheme_parse(const char *name, pp_pipe_scheme *out, pp_error *err)
{
    for (size_t i = 0; i < sizeof SCHEMES / sizeof SCHEMES[0]; i++)
        if (strcmp(name, SCHEMES[i].name) == 0) {
            *out = SCHEMES[i].scheme;
            return PP_OK;
        }
    return pp_error_set(err, PP_EARG, "scheme '%s': expected dualpipe, 1f1b, zb1p, zb, zb2p, interleaved or zbv", name);
}

pp_status pp_sched_gen_pipeline(const pp_pipe_spec *spec, pp_sched_problem **out,
                                pp_sched_schedule **reference_out, pp_error *err)
{
    *out = NULL;
    if (reference_out)
        *reference_out = NULL;
    pp_status st = check_spec(spec, err);
    if (st != PP_OK)
        return st;
    pipe_shape q = {.P = spec->stages, .M = spec->microbatches, .V = chunks_of(spec),
                    .S = spec->stages * chunks_of(spec), .dual = spec->scheme == PP_PIPE_DUALPIPE,
                    .vshape = spec->scheme == PP_PIPE_ZBV,
                    .comm = spec->comm, .time = {or_one(spec->t_f), or_one(spec->t_b), or_one(spec->t_w)},
                    .w_mem = spec->w_mem, .budget = spec->mem_act, .in_order = spec->in_order};
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
