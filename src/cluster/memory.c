/* memory.c: the peak memory of every device under a plan, by the model of
 * Narayanan et al. (SC'21) for 1F1B: the stage's model state, the
 * activations of the micro-batches in flight, and under recomputation the
 * one layer whose activations are rebuilt for its backward pass, and under
 * ZeRO-3 the unsharded buffers of the layers being gathered. */
#include "parplan/cluster.h"

#include <math.h>
#include <string.h>

#include "cluster/zero3.h"
#include "cluster/plan.h"

typedef struct {
    double state;     /* per unit of share */
    double kept;      /* bytes kept per sample per in-flight micro-batch */
    double rebuilt;   /* per sample: the largest layer's full activations (recompute only) */
    double gathered;  /* zero3: the largest layer's unsharded buffers, per unit of share */
} stage_memory;

/* One member's figures for layers first .. first + count - 1, share f,
 * each layer as the plan's switches price it. */
static stage_memory member_memory(const pp_cluster_workload *w, const pp_cluster_plan *p, int first,
                                  int count, double f, bool recompute)
{
    stage_memory m = {0, 0, 0, 0};
    for (int k = first; k < first + count; k++) {
        pp_cluster_layer l = pp_cluster_layer_under(&w->layers[k], p, recompute, f);
        double full = f * l.activation_bytes + l.activation_replicated_bytes;
        m.state += f * l.state_bytes;
        m.kept += recompute ? l.checkpoint_bytes : full;
        if (recompute && full > m.rebuilt)
            m.rebuilt = full;
        if (p->zero3 && p->replica_count > 1)
            m.gathered = fmax(m.gathered, cluster_zero3_buffer_bytes(&l));
    }
    return m;
}

/* Micro-batches of stage s's activations at its peak in 1F1B: stage s
 * starts stage_count - s forwards before its first backward, fewer when
 * the replica has fewer micro-batches. */
static double in_flight(const pp_cluster_plan *p, int s, int m)
{
    int P = p->stage_count;
    return P - s < m ? P - s : m;
}

/* Interleaved (v chunks): stage s holds chunk c as virtual stage c p + s,
 * whose layers follow the virtual stages before it. Its 2 (p - s - 1) +
 * (v - 1) p warm-up chunk forwards and one more (Narayanan et al.'s
 * schedule), the k-th of chunk (k / p) mod v, each keep their chunk's
 * activations: *kept is the bytes per sample held at the peak. With equal
 * chunks at s = 0 that is Korthikanti et al.'s L (1 + (p - 1)/(p v))
 * layers' worth. */
static stage_memory interleaved_memory(const pp_cluster_workload *w, const pp_cluster_plan *p, int s, int m,
                                       double f, bool recompute, double *kept)
{
    int P = p->stage_count, v = p->virtual_stages, chunks = 2 * (P - s - 1) + (v - 1) * P + 1;
    chunks = chunks < m * v ? chunks : m * v;
    stage_memory total = {0, 0, 0, 0};
    *kept = 0;
    for (int q = 0, at = 0; q < v * P; at += pp_cluster_plan_chunk_layers(p, q % P, q / P), q++) {
        if (q % P != s)
            continue;
        int c = q / P, passes = 0;
        for (int k = 0; k < chunks; k++)
            passes += k / P % v == c;
        stage_memory one = member_memory(w, p, at, pp_cluster_plan_chunk_layers(p, s, c), f, recompute);
        total.state += one.state;
        total.rebuilt = fmax(total.rebuilt, one.rebuilt);
        total.gathered = fmax(total.gathered, one.gathered);
        *kept += passes * one.kept;
    }
    return total;
}

void pp_cluster_plan_memory(const pp_cluster *c, const pp_cluster_workload *w,
                            const pp_cluster_plan *p, double *peak)
{
    cluster_plan_memory_held(c, w, p, NULL, peak);
}

void cluster_plan_memory_held(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                              const int *held, double *peak)
{
    memset(peak, 0, (size_t)c->device_count * sizeof *peak);
    int members = pp_cluster_plan_members(p);
    double b = pp_cluster_plan_samples(p);
    for (int r = 0; r < p->replica_count; r++) {
        int first = 0;
        for (int s = 0; s < p->stage_count; s++) {
            int slot = r * members + pp_cluster_plan_stage_offset(p, s);
            for (int j = 0; j < p->stage_tp[s]; j++) {
                double f = p->split[slot + j], kept;
                bool recompute = p->stage_recompute[s];
                stage_memory m;
                if (p->virtual_stages == 1) {
                    m = member_memory(w, p, first, p->stage_layers[s], f, recompute);
                    kept = (held ? held[s] : in_flight(p, s, p->micro_batches[r])) * m.kept;
                } else
                    m = interleaved_memory(w, p, s, p->micro_batches[r], f, recompute, &kept);
                peak[p->devices[slot + j]] = m.state + f * m.gathered + b * kept + b * m.rebuilt;
            }
            first += p->stage_layers[s];
        }
    }
}
