/* judge.c: the cluster simulator prices a candidate end to end, the one
 * judge of every plan and baseline. The candidate becomes a cluster plan
 * (R replicas, each stage's mesh its tensor-parallel group with even
 * shares, one micro-batch a module call) over a workload of one layer per
 * stage. A stage's forward and backward times on its mesh, priced by the
 * sharder, are handed in as work at its device type's calibrated rate,
 * so the simulator's pass time is the sharder's (the two compute models
 * differ: the sharder prices op by op at each math mode's peak, the
 * cluster layer by layer at the calibrated rate; which is right is open,
 * DESIGN.md). Its boundary tensors are the bytes sent on, its parameters
 * the gradients all-reduced across replicas, its state and activations
 * the memory. The simulator adds what the search's formula only
 * estimates: transfers over the real links sharing them, the all-reduce,
 * the optimizer. It runs 1F1B or the scheduler's order of F, B and W. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/hw_net.h"
#include "plan/plan_internal.h"

static int32_t type_of(const plan_ctx *X, int32_t mesh)
{
    return X->meshes[mesh].type;
}

pp_status plan_assign_devices(const plan_ctx *X, const plan_candidate *c, int32_t *ids, pp_error *err)
{
    int32_t *offset = malloc((size_t)(2 * c->P + 1) * sizeof *offset), *order = offset + c->P + 1;
    if (!offset)
        return pp_error_set(err, PP_ENOMEM, "out of memory placing a plan's stages");
    plan_stage_offsets(X, c, offset);
    int32_t members = offset[c->P];
    for (int32_t s = 0; s < c->P; s++)
        order[s] = s;
    /* largest meshes first, so that power-of-two blocks stay inside nodes */
    for (int32_t a = 1; a < c->P; a++)
        for (int32_t b = a; b > 0 && X->meshes[c->mesh[order[b]]].devices > X->meshes[c->mesh[order[b - 1]]].devices; b--) {
            int32_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    pp_status st = PP_OK;
    for (int32_t r = 0; r < c->R && st == PP_OK; r++)
        for (int32_t t = 0; t < X->n_types && st == PP_OK; t++) {
            int32_t share = X->types[t].count / c->R, pos = 0;
            for (int32_t k = 0; k < c->P; k++) {
                int32_t s = order[k], n = X->meshes[c->mesh[s]].devices;
                if (type_of(X, c->mesh[s]) != t)
                    continue;
                if (pos + n > share) {
                    st = pp_error_set(err, PP_EARG, "a plan needs more %s devices than a replica's %d",
                                      X->types[t].type->name, share);
                    break;
                }
                for (int32_t j = 0; j < n; j++)
                    ids[r * members + offset[s] + j] = X->types[t].ids[r * share + pos + j];
                pos += n;
            }
        }
    free(offset);
    return st;
}

static pp_cluster_workload *workload_of(const plan_ctx *X, const plan_candidate *c)
{
    pp_arena *a = pp_arena_new(4096);
    pp_cluster_workload *w = a ? pp_arena_calloc(a, 1, sizeof *w) : NULL;
    if (!w) {
        pp_arena_free(a);
        return NULL;
    }
    w->arena = a;
    w->name = "plan";
    w->layer_count = c->P;
    w->layers = pp_arena_calloc(a, (size_t)c->P, sizeof *w->layers);
    w->global_batch = (int64_t)c->R * c->M * X->micro_batch;
    w->tp_divisor = 1;
    if (!w->layers) {
        pp_arena_free(a);
        return NULL;
    }
    double b0 = (double)X->micro_batch;
    for (int32_t s = 0; s < c->P; s++) {
        const plan_mesh *m = &X->meshes[c->mesh[s]];
        const pp_hw_device_type *t = X->types[m->type].type;
        double rate = t->peak_flops * t->efficiency_compute, n = m->devices;
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        /* The sharder's collectives are in its pass times already: the
         * layer's TP bytes stay 0, which the simulator charges nothing. */
        pp_cluster_layer *l = &w->layers[s];
        l->name = "stage";
        l->forward_flops = sc.forward * rate * n / b0;
        l->backward_flops = (sc.backward + sc.sync / c->M) * rate * n / b0;
        l->state_bytes = sc.state * n;
        l->gradient_bytes = sc.parameters * n;
        l->activation_bytes = sc.activations * n / b0;
        l->output_bytes = X->send[c->cut[s + 1] - 1] / b0;
        while (w->tp_divisor % m->devices != 0)
            w->tp_divisor *= 2;
    }
    return w;
}

pp_status plan_judge(const plan_ctx *X, const plan_candidate *c, const plan_order *order, double *step_time,
                     double *peak, pp_timeline *timeline, pp_error *err)
{
    /* tp, then each stage's count of ops under order */
    int32_t *tp = malloc((size_t)2 * c->P * sizeof *tp), *count = tp + c->P;
    for (int32_t s = 0; tp && s < c->P; s++) {
        tp[s] = X->meshes[c->mesh[s]].devices;
        count[s] = 3 * c->M;
    }
    pp_cluster_workload *w = workload_of(X, c);
    pp_cluster_plan *p = tp ? pp_cluster_plan_new(c->R, c->P, tp) : NULL;
    if (!w || !p) {
        free(tp);
        pp_cluster_workload_free(w);
        pp_cluster_plan_free(p);
        return pp_error_set(err, PP_ENOMEM, "out of memory judging a plan");
    }
    p->micro_batch = (int)X->micro_batch;
    for (int32_t r = 0; r < c->R; r++)
        p->micro_batches[r] = c->M;
    for (int32_t s = 0; s < c->P; s++)
        p->stage_layers[s] = 1;
    pp_status st = plan_assign_devices(X, c, p->devices, err);
    pp_cluster_report rep = {0};
    if (st == PP_OK)
        st = pp_cluster_plan_validate(X->cluster, w, p, err);
    if (st == PP_OK) {
        pp_cluster_sim_options o = {.timeline = timeline};
        if (order) {
            o.order = (const pp_cluster_op *const *)order->ops;
            o.order_count = count;
            o.weight_share = order->share;
        }
        st = pp_cluster_simulate(X->cluster, w, p, &o, &rep, err);
    }
    free(tp);
    if (st == PP_OK) {
        *step_time = rep.step_time;
        if (peak)
            memcpy(peak, rep.peak_memory, (size_t)rep.device_count * sizeof *peak);
    }
    pp_cluster_report_free(&rep);
    pp_cluster_plan_free(p);
    pp_cluster_workload_free(w);
    return st;
}
