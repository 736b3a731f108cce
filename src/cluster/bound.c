/* bound.c: what a stage costs, from per-layer prefix sums so the search
 * extends a stage in O(1): its compute-only time per micro-batch, a lower
 * bound of its memory, and the schedule bounds the branch-and-bound prunes
 * by. Every figure here must stay at or below what pp_cluster_simulate and
 * pp_cluster_plan_memory report for the same plan. */
#include "cluster/planner.h"
#include "cluster/optime.h"
#include "parplan/hw_net.h"

#include <math.h>

static double *prefix_array(pp_arena *a, int n)
{
    return pp_arena_calloc(a, (size_t)n + 1, sizeof(double));
}

bool cluster_prefix_build(const pp_cluster_workload *w, pp_arena *a, cluster_prefix *out)
{
    int n = w->layer_count;
    out->layers = n;
    out->recompute = w->recompute;
    out->work = prefix_array(a, n);
    out->forward = prefix_array(a, n);
    out->backward = prefix_array(a, n);
    out->weight = prefix_array(a, n);
    out->traffic = prefix_array(a, n);
    out->tp_forward = prefix_array(a, n);
    out->tp_backward = prefix_array(a, n);
    out->state = prefix_array(a, n);
    out->activation = prefix_array(a, n);
    out->replicated = prefix_array(a, n);
    out->checkpoint = prefix_array(a, n);
    if (!out->work || !out->forward || !out->backward || !out->weight ||
        !out->traffic || !out->tp_forward || !out->tp_backward || !out->state || !out->activation ||
        !out->replicated || !out->checkpoint)
        return false;
    for (int l = 0; l < n; l++) {
        const pp_cluster_layer *y = &w->layers[l];
        double backward = y->backward_flops + (w->recompute ? y->recompute_flops : 0);
        out->work[l + 1] = out->work[l] + y->forward_flops + backward;
        out->forward[l + 1] = out->forward[l] + y->forward_flops;
        out->backward[l + 1] = out->backward[l] + backward;
        out->weight[l + 1] = out->weight[l] + y->weight_bytes;
        out->traffic[l + 1] = out->traffic[l] + y->traffic_bytes;
        out->tp_forward[l + 1] = out->tp_forward[l] + y->tp_forward_bytes;
        out->tp_backward[l + 1] = out->tp_backward[l] + y->tp_backward_bytes +
                                  (w->recompute ? y->tp_forward_bytes : 0);
        out->state[l + 1] = out->state[l] + y->state_bytes;
        out->activation[l + 1] = out->activation[l] + y->activation_bytes;
        out->replicated[l + 1] = out->replicated[l] + y->activation_replicated_bytes;
        out->checkpoint[l + 1] = out->checkpoint[l] + y->checkpoint_bytes;
    }
    return true;
}

static double range(const double *prefix, int first, int count)
{
    return prefix[first + count] - prefix[first];
}

double cluster_work(const cluster_stages *st, int first, int count)
{
    return st->branch->micro_batch * range(st->prefix->work, first, count);
}

/* The simulator runs one all-reduce per pass over the stage's summed bytes. */
static double tp_time(const cluster_stages *st, int s, int first, int count)
{
    int tp = st->stage_tp[s];
    if (tp == 1)
        return 0.0;
    const cluster_prefix *p = st->prefix;
    pp_hw_link link = st->space->kinds[st->stage_kind[s]].tp_link;
    double b = st->branch->micro_batch;
    return pp_hw_allreduce_time(link, tp, b * range(p->tp_forward, first, count)) +
           pp_hw_allreduce_time(link, tp, b * range(p->tp_backward, first, count));
}

double cluster_stage_time(const cluster_stages *st, int s, int first, int count)
{
    const pp_hw_device_type *type = st->space->kinds[st->stage_kind[s]].type;
    const cluster_prefix *p = st->prefix;
    double share = st->branch->micro_batch / (double)st->stage_tp[s];
    double weight = range(p->weight, first, count) / st->stage_tp[s];
    double traffic = share * range(p->traffic, first, count);
    return cluster_pass_time(type, share * range(p->forward, first, count), weight, traffic) +
           cluster_pass_time(type, share * range(p->backward, first, count), weight, traffic) +
           tp_time(st, s, first, count);
}

double cluster_layer_full_activation(const cluster_stages *st, int s, int layer)
{
    const cluster_prefix *p = st->prefix;
    return range(p->activation, layer, 1) / st->stage_tp[s] + range(p->replicated, layer, 1);
}

double cluster_stage_memory(const cluster_stages *st, int s, int first, int count,
                            double max_layer)
{
    const cluster_prefix *p = st->prefix;
    double share = 1.0 / st->stage_tp[s];
    int m = st->branch->micro_batches;
    int in_flight = st->stage_count - s < m ? st->stage_count - s : m;
    double b = st->branch->micro_batch;
    double bytes = share * range(p->state, first, count);
    if (p->recompute)
        return bytes + in_flight * b * range(p->checkpoint, first, count) + b * max_layer;
    return bytes + in_flight * b *
                       (share * range(p->activation, first, count) + range(p->replicated, first, count));
}

double cluster_plan_bound(const cluster_stages *st, const int *layers)
{
    double prefix = 0.0, bound = 0.0;
    int m = st->branch->micro_batches, first = 0;
    for (int s = 0; s < st->stage_count; s++) {
        double u = cluster_stage_time(st, s, first, layers[s]);
        bound = fmax(bound, prefix + m * u);
        prefix += u;
        first += layers[s];
    }
    return bound;
}

double cluster_root_bound(const cluster_stages *st)
{
    return st->branch->micro_batches * cluster_work(st, 0, st->prefix->layers) / st->rate_suffix[0];
}
