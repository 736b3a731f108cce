/* gen_interleaved.c: interleaved 1F1B's per-device orders (Narayanan et al.,
 * "Efficient Large-Scale Language Model Training on GPU Clusters Using
 * Megatron-LM", SC'21, section 2.2.2).
 *
 * Each of the P devices holds V stages (model chunks), device d the stages
 * d, d + P, ..., d + (V-1)P. A device runs its micro-batches in groups of
 * P: the group's forwards through its first chunk, then through its second,
 * and so on; the backwards the same way from the last chunk down. It runs
 * forwards only (warm-up) until its first backward, the group's first
 * micro-batch on its last chunk, can be ready: its first V-1 chunks' first
 * group, (V-1)P forwards, plus the 2(P-1-d) that fit while that micro-batch
 * goes to the last device and its gradient comes back. Then one forward
 * and one backward at a time, then the remaining backwards. With this
 * warm-up the bubble comes out at exactly the paper's figure
 * (test_gen_refs.c); the paper states the bubble, not the warm-up count. As in
 * 1F1B (gen_pipeline.c) every backward is fused, its gradient sent after W.
 * The paper's bubble is (P-1)/V of 1F1B's: with per-stage times t_f and a
 * fused backward t_b + t_w, (P-1)(t_f + t_b + t_w) on every device. */
#include "pipeline.h"

/* The micro-batch and stage of device d's k-th forward (forward true) or
 * backward: micro-batches in groups of P, chunks in order within a group
 * (backwards from the last chunk). */
static void nth(const pipe_shape *q, int d, int k, bool forward, int *m, int *s)
{
    int group = k / (q->P * q->V), within = k % (q->P * q->V);
    int chunk = within / q->P;
    *m = group * q->P + within % q->P;
    *s = (forward ? chunk : q->V - 1 - chunk) * q->P + d;
}

void pipe_order_interleaved(orders *o, const pipe_shape *q)
{
    int total = q->M * q->V;
    for (int d = 0; d < q->P; d++) {
        int warm = (q->V - 1) * q->P + 2 * (q->P - 1 - d);
        warm = warm < total ? warm : total;
        int m, s;
        for (int k = 0; k < warm; k++) {
            nth(q, d, k, true, &m, &s);
            push(o, q, d, m, s, KIND_F);
        }
        for (int k = 0; k < total - warm; k++) {
            nth(q, d, warm + k, true, &m, &s);
            push(o, q, d, m, s, KIND_F);
            nth(q, d, k, false, &m, &s);
            push_fused(o, q, d, m, s);
        }
        for (int k = total - warm; k < total; k++) {
            nth(q, d, k, false, &m, &s);
            push_fused(o, q, d, m, s);
        }
    }
}
