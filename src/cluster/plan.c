/* plan.c: the plan object (one block: the struct and its arrays), the index
 * arithmetic of its flat [replica][stage][member] layout, Megatron's uniform
 * plan and the check that a plan fits a cluster and a workload. */
#include "cluster/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/moment.h"
#include "cluster/stack.h"

/* The arrays follow the struct in one allocation, doubles first, bools
 * last: the struct holds pointers, so its size keeps them aligned. */
static size_t plan_bytes(int replicas, int stages, int members)
{
    size_t slots = (size_t)replicas * (size_t)members;
    return sizeof(pp_cluster_plan) + slots * sizeof(double) +
           ((size_t)replicas + 2 * (size_t)stages + slots) * sizeof(int) +
           (size_t)stages * sizeof(bool);
}

pp_cluster_plan *pp_cluster_plan_new(int replica_count, int stage_count, const int *stage_tp)
{
    if (replica_count < 1 || stage_count < 1 || !stage_tp)
        return NULL;
    int members = 0;
    for (int s = 0; s < stage_count; s++) {
        if (stage_tp[s] < 1 || members > (1 << 20))
            return NULL;
        members += stage_tp[s];
    }
    if ((long)replica_count * members > (1 << 24))
        return NULL;
    pp_cluster_plan *p = calloc(1, plan_bytes(replica_count, stage_count, members));
    if (!p)
        return NULL;
    size_t slots = (size_t)replica_count * (size_t)members;
    p->replica_count = replica_count;
    p->stage_count = stage_count;
    p->split = (double *)(p + 1);
    p->micro_batches = (int *)(p->split + slots);
    p->stage_layers = p->micro_batches + replica_count;
    p->stage_tp = p->stage_layers + stage_count;
    p->devices = p->stage_tp + stage_count;
    p->stage_recompute = (bool *)(p->devices + slots);
    memcpy(p->stage_tp, stage_tp, (size_t)stage_count * sizeof(int));
    p->virtual_stages = 1;
    p->expert_parallel = 1;
    p->context_parallel = 1;
    for (int r = 0; r < replica_count; r++)
        for (int s = 0; s < stage_count; s++)
            for (int j = 0; j < stage_tp[s]; j++)
                p->split[r * members + pp_cluster_plan_stage_offset(p, s) + j] = 1.0 / stage_tp[s];
    return p;
}

pp_cluster_plan *pp_cluster_plan_copy(const pp_cluster_plan *p)
{
    pp_cluster_plan *q = pp_cluster_plan_new(p->replica_count, p->stage_count, p->stage_tp);
    if (!q)
        return NULL;
    size_t slots = (size_t)p->replica_count * (size_t)pp_cluster_plan_members(p);
    q->micro_batch = p->micro_batch;
    memcpy(q->stage_recompute, p->stage_recompute, (size_t)p->stage_count * sizeof(bool));
    memcpy(q->micro_batches, p->micro_batches, (size_t)p->replica_count * sizeof(int));
    memcpy(q->stage_layers, p->stage_layers, (size_t)p->stage_count * sizeof(int));
    memcpy(q->devices, p->devices, slots * sizeof(int));
    memcpy(q->split, p->split, slots * sizeof(double));
    q->sequence_parallel = p->sequence_parallel;
    q->selective_recompute = p->selective_recompute;
    q->distributed_optimizer = p->distributed_optimizer;
    q->tp_overlap = p->tp_overlap;
    q->reduce_after_backward = p->reduce_after_backward;
    q->zero3 = p->zero3;
    q->virtual_stages = p->virtual_stages;
    q->expert_parallel = p->expert_parallel;
    q->context_parallel = p->context_parallel;
    q->stack = p->stack;
    return q;
}

void pp_cluster_plan_free(pp_cluster_plan *p)
{
    free(p);
}

int pp_cluster_plan_chunk_layers(const pp_cluster_plan *p, int s, int c)
{
    int v = p->virtual_stages, L = p->stage_layers[s], extra = L % v;
    bool first_half = 2 * s + 1 < p->stage_count || p->stage_count == 1;
    bool longer = first_half ? c >= v - extra : c < extra;
    return L / v + (longer ? 1 : 0);
}

double pp_cluster_plan_samples(const pp_cluster_plan *p)
{
    return (double)p->micro_batch / p->context_parallel;
}

int pp_cluster_plan_members(const pp_cluster_plan *p)
{
    return pp_cluster_plan_stage_offset(p, p->stage_count);
}

int pp_cluster_plan_stage_offset(const pp_cluster_plan *p, int stage)
{
    int offset = 0;
    for (int s = 0; s < stage; s++)
        offset += p->stage_tp[s];
    return offset;
}

/* Counts the uniform plan needs before anything is allocated; the first
 * condition that fails is the reason. */
static pp_status uniform_check(const pp_cluster *c, const pp_cluster_workload *w, int tp, int pp,
                               int dp, int cp, int micro_batch, pp_error *err)
{
    if (tp < 1 || pp < 1 || dp < 1 || cp < 1 || micro_batch < 1)
        return pp_error_set(err, PP_EARG,
                            "tp = %d, pp = %d, dp = %d, cp = %d and micro_batch = %d must all be at least 1",
                            tp, pp, dp, cp, micro_batch);
    long devices = (long)tp * pp * dp * cp;
    if (devices > c->device_count)
        return pp_error_set(err, PP_EARG, "tp * pp * dp * cp = %d * %d * %d * %d = %ld devices, the cluster has %d",
                            tp, pp, dp, cp, devices, c->device_count);
    if (w->layer_count % pp != 0)
        return pp_error_set(err, PP_EARG, "pp = %d does not divide the workload's %d layers", pp,
                            w->layer_count);
    if (w->tp_divisor % tp != 0)
        return pp_error_set(err, PP_EARG, "tp = %d does not divide the workload's TP divisor %d", tp,
                            w->tp_divisor);
    int64_t samples = (int64_t)dp * micro_batch;
    if (w->global_batch % samples != 0 || w->global_batch / samples > 1 << 30)
        return pp_error_set(err, PP_EARG,
                            "dp * micro_batch = %d * %d = %lld does not divide the global batch %lld "
                            "into at most 2^30 micro-batches",
                            dp, micro_batch, (long long)samples, (long long)w->global_batch);
    return PP_OK;
}

/* Every device of the cluster counts, lost or not: the planner leaves lost
 * devices out before it asks for uniform plans, and validation names them.
 * Replica r = d cp + k is member k of data-parallel copy d's CP group, so
 * rank = (s dp cp + r) tp + j is Megatron-LM's order (tensor, context,
 * data, pipeline). */
pp_status pp_cluster_plan_uniform_context(const pp_cluster *c, const pp_cluster_workload *w, int tp,
                                          int pp, int dp, int cp, int micro_batch, pp_cluster_plan **out,
                                          pp_error *err)
{
    *out = NULL;
    pp_status st = uniform_check(c, w, tp, pp, dp, cp, micro_batch, err);
    if (st)
        return st;
    int *stage_tp = malloc((size_t)pp * sizeof *stage_tp), replicas = dp * cp;
    if (!stage_tp)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    for (int s = 0; s < pp; s++)
        stage_tp[s] = tp;
    pp_cluster_plan *p = pp_cluster_plan_new(replicas, pp, stage_tp);
    free(stage_tp);
    if (!p)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    p->micro_batch = micro_batch;
    p->context_parallel = cp;
    p->stack = w->stack;
    p->reduce_after_backward = w->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED;
    int members = pp_cluster_plan_members(p);
    for (int r = 0; r < replicas; r++) {
        p->micro_batches[r] = (int)(w->global_batch / ((int64_t)dp * micro_batch));
        for (int s = 0; s < pp; s++)
            for (int j = 0; j < tp; j++)
                p->devices[r * members + s * tp + j] = (s * replicas + r) * tp + j;
    }
    for (int s = 0; s < pp; s++) {
        p->stage_layers[s] = w->layer_count / pp;
        p->stage_recompute[s] = w->recompute;
    }
    *out = p;
    return PP_OK;
}

pp_status pp_cluster_plan_uniform(const pp_cluster *c, const pp_cluster_workload *w, int tp,
                                  int pp, int dp, int micro_batch, pp_cluster_plan **out,
                                  pp_error *err)
{
    return pp_cluster_plan_uniform_context(c, w, tp, pp, dp, 1, micro_batch, out, err);
}

/* The interleaved schedule deals micro-batches to the stages in groups
 * of stage_count, each stage's layers in virtual_stages chunks of at least
 * one layer. */
static pp_status check_interleaving(const pp_cluster_plan *p, pp_error *err)
{
    int v = p->virtual_stages;
    if (v < 1)
        return pp_error_set(err, PP_EINPUT, "virtual_stages is %d, it must be at least 1", v);
    for (int s = 0; v > 1 && s < p->stage_count; s++)
        if (p->stage_layers[s] < v)
            return pp_error_set(err, PP_EINPUT, "stage %d has %d layers, fewer than virtual_stages %d", s,
                                p->stage_layers[s], v);
    for (int r = 0; v > 1 && r < p->replica_count; r++)
        if (p->micro_batches[r] % p->stage_count != 0)
            return pp_error_set(err, PP_EINPUT,
                                "replica %d runs %d micro-batches, not a multiple of the %d stages the "
                                "interleaved schedule (virtual_stages %d) needs",
                                r, p->micro_batches[r], p->stage_count, v);
    return PP_OK;
}

static pp_status check_shape(const pp_cluster_workload *w, const pp_cluster_plan *p, pp_error *err)
{
    if (p->replica_count < 1 || p->stage_count < 1)
        return pp_error_set(err, PP_EINPUT, "the plan has %d replicas and %d stages, it needs at least 1 of each",
                            p->replica_count, p->stage_count);
    if (p->micro_batch < 1)
        return pp_error_set(err, PP_EINPUT, "micro_batch is %d, it must be at least 1", p->micro_batch);
    long layers = 0;
    for (int s = 0; s < p->stage_count; s++) {
        if (p->stage_layers[s] < 1)
            return pp_error_set(err, PP_EINPUT, "stage %d has %d layers, it needs at least 1", s,
                                p->stage_layers[s]);
        if (p->stage_tp[s] < 1 || w->tp_divisor % p->stage_tp[s] != 0)
            return pp_error_set(err, PP_EINPUT,
                                "stage %d has tensor-parallel degree %d, which does not divide the "
                                "workload's TP divisor %d", s, p->stage_tp[s], w->tp_divisor);
        layers += p->stage_layers[s];
    }
    if (layers != w->layer_count)
        return pp_error_set(err, PP_EINPUT, "the stages hold %ld layers, the workload has %d", layers,
                            w->layer_count);
    int ep = p->expert_parallel;
    if (ep < 1 || p->replica_count % ep != 0 || (ep > 1 && (w->experts == 0 || w->experts % ep != 0)))
        return pp_error_set(err, PP_EINPUT,
                            "expert_parallel %d must divide the %d replicas and the workload's %d experts",
                            ep, p->replica_count, w->experts);
    return check_interleaving(p, err);
}

/* Megatron-LM cuts each sequence into 2 cp chunks (a member takes chunks
 * i and 2 cp - 1 - i); a CP group's replicas run the same micro-batches. */
static pp_status check_context(const pp_cluster_workload *w, const pp_cluster_plan *p, pp_error *err)
{
    int cp = p->context_parallel;
    if (cp < 1 || p->replica_count % cp != 0)
        return pp_error_set(err, PP_EINPUT, "context_parallel %d must be at least 1 and divide the %d replicas",
                            cp, p->replica_count);
    if (cp > 1 && (w->sequence < 1 || w->sequence % (2 * cp) != 0))
        return pp_error_set(err, PP_EINPUT,
                            "context_parallel %d needs a transformer workload whose sequence is a multiple "
                            "of 2 x %d (it is %lld)", cp, cp, (long long)w->sequence);
    for (int r = 0; r < p->replica_count; r++)
        if (p->micro_batches[r] != p->micro_batches[r - r % cp])
            return pp_error_set(err, PP_EINPUT,
                                "replica %d runs %d micro-batches and replica %d %d: a context-parallel "
                                "group's replicas run the same", r, p->micro_batches[r], r - r % cp,
                                p->micro_batches[r - r % cp]);
    return PP_OK;
}

static pp_status check_samples(const pp_cluster_workload *w, const pp_cluster_plan *p, pp_error *err)
{
    pp_status st = check_context(w, p, err);
    if (st)
        return st;
    int64_t samples = 0;
    for (int r = 0; r < p->replica_count; r++) {
        if (p->micro_batches[r] < 1)
            return pp_error_set(err, PP_EINPUT, "replica %d runs %d micro-batches, it needs at least 1",
                                r, p->micro_batches[r]);
        samples += (int64_t)p->micro_batches[r] * p->micro_batch;
    }
    if (samples != w->global_batch * p->context_parallel)
        return pp_error_set(err, PP_EINPUT,
                            "the replicas' micro-batches hold %lld samples, the global batch is %lld "
                            "(times context_parallel %d)",
                            (long long)samples, (long long)w->global_batch, p->context_parallel);
    return PP_OK;
}

/* used[d] is 1 + the slot that took device d. */
static pp_status check_devices(const pp_cluster *c, const pp_cluster_plan *p, int *used,
                               pp_error *err)
{
    int members = pp_cluster_plan_members(p);
    for (int r = 0; r < p->replica_count; r++)
        for (int s = 0; s < p->stage_count; s++)
            for (int j = 0; j < p->stage_tp[s]; j++) {
                int slot = r * members + pp_cluster_plan_stage_offset(p, s) + j;
                int d = p->devices[slot];
                if (d < 0 || d >= c->device_count)
                    return pp_error_set(err, PP_EINPUT,
                                        "replica %d stage %d member %d: device %d is out of range "
                                        "(the cluster has %d)", r, s, j, d, c->device_count);
                if (used[d])
                    return pp_error_set(err, PP_EINPUT,
                                        "replica %d stage %d member %d: device %d is used twice", r,
                                        s, j, d);
                if (!pp_cluster_device_alive_at(c, d, 0.0))
                    return pp_error_set(err, PP_EINPUT,
                                        "replica %d stage %d member %d: device %d is lost at time 0",
                                        r, s, j, d);
                used[d] = 1 + slot;
            }
    return PP_OK;
}

static pp_status check_splits(const pp_cluster_plan *p, pp_error *err)
{
    int members = pp_cluster_plan_members(p);
    for (int r = 0; r < p->replica_count; r++)
        for (int s = 0; s < p->stage_count; s++) {
            const double *f = p->split + r * members + pp_cluster_plan_stage_offset(p, s);
            double sum = 0;
            for (int j = 0; j < p->stage_tp[s]; j++) {
                if (!(f[j] > 0) || !isfinite(f[j]))
                    return pp_error_set(err, PP_EINPUT,
                                        "replica %d stage %d member %d: split %g is not a positive share",
                                        r, s, j, f[j]);
                sum += f[j];
            }
            if (fabs(sum - 1) > 1e-9)
                return pp_error_set(err, PP_EINPUT,
                                    "replica %d stage %d: the split shares sum to %.17g, not 1", r, s, sum);
        }
    return PP_OK;
}

pp_status pp_cluster_plan_validate(const pp_cluster *c, const pp_cluster_workload *w,
                                   const pp_cluster_plan *p, pp_error *err)
{
    pp_status st = check_shape(w, p, err);
    if (st || (st = check_samples(w, p, err)) || (st = check_splits(p, err)))
        return st;
    char why[256];
    if (!pp_cluster_stack_runs(p, why, sizeof why))
        return pp_error_set(err, PP_EINPUT, "%s", why);
    int *used = calloc((size_t)c->device_count + 1, sizeof *used);
    if (!used)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    st = check_devices(c, p, used, err);
    free(used);
    return st;
}

pp_cluster_layer pp_cluster_layer_under(const pp_cluster_layer *l, const pp_cluster_plan *p,
                                        bool recompute, double f)
{
    pp_cluster_layer y = *l;
    if (p->selective_recompute && !recompute) {
        y.backward_flops += y.selective_flops;
        y.recompute_flops -= y.selective_flops;
        y.activation_bytes -= y.selective_bytes;
    }
    if (p->sequence_parallel) {
        y.activation_bytes += y.activation_replicated_bytes;
        y.activation_replicated_bytes = 0;
        y.traffic_bytes += y.traffic_replicated_bytes;
        y.traffic_replicated_bytes = 0;
        y.checkpoint_bytes *= f;
    }
    /* the share of the layer's parameters a member holds */
    double held = 1;
    if (p->expert_parallel > 1 && l->weight_bytes > 0) {
        held = 1 - l->expert_weight_bytes * (1 - 1.0 / p->expert_parallel) / l->weight_bytes;
        y.weight_bytes *= held;
        y.gradient_bytes *= held;
        y.expert_weight_bytes /= p->expert_parallel;
    }
    /* torchtitan's FSDP reduces gradients in float32 (stack.c) */
    if (p->zero3 && p->stack == PP_CLUSTER_STACK_TORCHTITAN)
        y.gradient_bytes *= 2;
    /* megatron-deepspeed all-reduces the FP32 gradients and then
     * all-gathers the updated 16-bit weights (stack.c): 2 x 4 + 2 bytes a
     * parameter over the ring's two passes, not 2 x 2 */
    if (!p->zero3 && p->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED)
        y.gradient_bytes *= 2.5;
    if (p->zero3)
        y.state_bytes /= p->replica_count;
    else if (p->distributed_optimizer) {
        double per_param = (PP_CLUSTER_PARAM_BYTES + PP_CLUSTER_GRAD_BYTES) * held +
                           (double)PP_CLUSTER_OPTIMIZER_BYTES / p->replica_count;
        y.state_bytes *= per_param / PP_CLUSTER_STATE_BYTES_PER_PARAM;
    } else
        y.state_bytes *= held;
    return y;
}
