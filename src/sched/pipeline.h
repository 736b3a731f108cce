/* pipeline.h: what the pipeline generator's files share (internal to
 * sched): the pipeline's shape, its op numbering, and per-device op orders
 * that its schemes and the zero-bubble greedy (gen_zb.c) fill in. */
#ifndef PP_SCHED_PIPELINE_H
#define PP_SCHED_PIPELINE_H

#include "parplan/sched.h"

enum { KIND_F, KIND_B, KIND_W };

typedef struct {
    int P, M;
    int V;           /* stages per device: V > 1 for interleaved 1F1B and ZB-V (V = 2) */
    int S;           /* stages, P * V: stage s on device s % P (DualPipe, ZB-V: see pipe_device) */
    bool dual;
    bool vshape;     /* ZB-V: device d holds stages d and 2P - 1 - d */
    double comm;
    double time[3];  /* per kind: F, B, W */
    double w_mem;    /* activations W frees; B frees 1 - w_mem */
    double budget;   /* activations a device may hold, in micro-batches */
    bool in_order;   /* per stage, F, B and W each in micro-batch order */
} pipe_shape;

/* Op of micro-batch m, stage s and kind (KIND_*). */
static inline int op_index(const pipe_shape *q, int m, int s, int kind)
{
    return (m * q->S + s) * 3 + kind;
}

/* The device of micro-batch m's stage s: DualPipe's second half of
 * micro-batches flows from the last device back, ZB-V's second chunk runs
 * back down the devices, interleaved 1F1B deals stages round the devices. */
static inline int pipe_device(const pipe_shape *q, int m, int s)
{
    if (q->dual && m >= q->M / 2)
        return q->P - 1 - s;
    if (q->vshape && s >= q->P)
        return 2 * q->P - 1 - s;
    return s % q->P;
}

/* Per-device op orders of a reference schedule: every device runs 3MV ops. */
typedef struct {
    int *ops;
    int *length;
    unsigned char *fused;    /* per m * S + s: that backward runs fused */
    int *f_sender;           /* per m * S + s: the op whose end sends F{m}.{s}'s output */
} orders;

static inline void push(orders *o, const pipe_shape *q, int d, int m, int s, int kind)
{
    o->ops[d * 3 * q->M * q->V + o->length[d]++] = op_index(q, m, s, kind);
}

/* A fused backward chunk: B and W back to back, the gradient sent after W. */
static inline void push_fused(orders *o, const pipe_shape *q, int d, int m, int s)
{
    push(o, q, d, m, s, KIND_B);
    push(o, q, d, m, s, KIND_W);
    o->fused[m * q->S + s] = 1;
}

/* Interleaved 1F1B's orders (gen_interleaved.c). */
void pipe_order_interleaved(orders *o, const pipe_shape *q);

/* ZB-H1's orders (ZB1P): the greedy of gen_zb.c under 1F1B's forward limit. */
pp_status pipe_order_zb1p(orders *o, const pipe_shape *q, pp_error *err);

/* ZB-H2's orders (ZB2P): the same greedy, 2(P - s) - 1 forwards deep. */
pp_status pipe_order_zb2p(orders *o, const pipe_shape *q, pp_error *err);

/* The zero-bubble greedy under each of its policies, timed on p (the
 * problem of q, stage s on device pipe_device; ZB-V's too); the shortest schedule that fits goes
 * to s (the first one when none fits, so the caller's check says why). */
pp_status pipe_zb_best(const pp_sched_problem *p, const pipe_shape *q, orders *o, pp_sched_schedule *s,
                       pp_error *err);

#endif
