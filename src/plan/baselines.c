/* baselines.c: the plans a user would try first, judged by the same
 * simulator as the search's: data parallel only (every device a replica
 * of the unsharded module), the sharder alone (one stage on all devices
 * of the cluster as one mesh), pipeline only (an even split of the
 * units over single-device stages, 1F1B, replicated to fill the cluster)
 * and the best uniform Megatron-LM plan (Narayanan et al., SC'21, section
 * 3: tensor parallelism t inside a node, p pipeline stages of even layer
 * counts, d data-parallel replicas, t p d the devices), its tensor-parallel
 * groups one-axis meshes of t devices that the sharder lays each layer out
 * on (Megatron's own layout, column- then row-parallel, is among the
 * sharder's choices there).
 * Each either has its time or says why it does not apply; each is also a
 * candidate for the plan, so the plan is never slower than a baseline
 * that applies (and, when nothing fits, the one closest to fitting may be
 * a baseline). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "plan/plan_internal.h"

static int32_t mesh_of(const plan_ctx *X, int32_t type, int32_t devices, int32_t n_axes)
{
    for (int32_t k = 0; k < X->n_meshes; k++)
        if (X->meshes[k].type == type && X->meshes[k].devices == devices && (n_axes == 0 || X->meshes[k].n_axes == n_axes))
            return k;
    return -1;
}

/* c: the whole module as one stage on mesh k, R replicas; false (b's
 * reason) when out of memory. */
static bool one_stage(const plan_ctx *X, int32_t R, int32_t k, plan_candidate *c, pp_plan_baseline *b)
{
    if (!plan_candidate_make(X, R, 1, c)) {
        snprintf(b->why, sizeof b->why, "out of memory");
        return false;
    }
    c->mesh[0] = k;
    return true;
}

/* Every stage of c priced on its mesh: sharded whole, or each of its units. */
static bool units_ok(const plan_ctx *X, const plan_candidate *c)
{
    for (int32_t s = 0; s < c->P; s++)
        for (int32_t u = c->cut[s]; u < c->cut[s + 1] && !plan_stage_find(X, c->cut[s], c->cut[s + 1], c->mesh[s]); u++)
            if (!X->cost_ok[(size_t)X->units[u].kind * (size_t)X->n_meshes + (size_t)c->mesh[s]])
                return false;
    return true;
}

/* Judges c into b; false (with b's reason) when it does not fit. */
static bool judge(const plan_ctx *X, const plan_candidate *c, pp_plan_baseline *b, double *peak)
{
    pp_error err = {0};
    double t;
    if (!units_ok(X, c)) {
        snprintf(b->why, sizeof b->why, "the sharder finds no layout for a unit on its mesh");
        return false;
    }
    if (plan_judge(X, c, NULL, &t, peak, NULL, &err) != PP_OK) {
        snprintf(b->why, sizeof b->why, "%.199s", err.message);
        return false;
    }
    for (int d = 0; d < X->cluster->device_count; d++) {
        const pp_hw_device_type *type = X->cluster->nodes[X->cluster->device_node[d]].type;
        double cap = X->req->memory > 0 ? X->req->memory : type->memory_bytes;
        if (peak[d] > cap) {
            snprintf(b->why, sizeof b->why, "device %d (%s) would hold %.3g GB, more than its %.3g GB", d, type->name,
                     peak[d] / 1e9, cap / 1e9);
            return false;
        }
    }
    b->applies = true;
    b->step_time = t;
    return true;
}

static void data_parallel(plan_ctx *X, pp_plan_baseline *b, double *peak, plan_candidate *c)
{
    b->name = "data parallel";
    int32_t R = X->cluster->device_count;
    if (X->n_types > 1) {
        snprintf(b->why, sizeof b->why, "replicas on unlike devices (%s, %s): every replica of a stage runs on one type",
                 X->types[0].type->name, X->types[1].type->name);
        return;
    }
    if (X->n_micro % R != 0) {
        snprintf(b->why, sizeof b->why, "%lld micro-batches do not divide over %d replicas", (long long)X->n_micro, R);
        return;
    }
    if (one_stage(X, R, mesh_of(X, 0, 1, 0), c, b))
        judge(X, c, b, peak);
}

static void sharder_alone(plan_ctx *X, pp_plan_baseline *b, double *peak, plan_candidate *c)
{
    b->name = "sharder alone";
    if (X->n_types > 1) {
        snprintf(b->why, sizeof b->why, "a mesh holds one device type, the cluster has %d", X->n_types);
        return;
    }
    int32_t n = X->types[0].count, best = -1;
    double best_time = INFINITY;
    for (int32_t k = 0; k < X->n_meshes; k++) {
        if (X->meshes[k].devices != n)
            continue;
        plan_candidate d;
        if (!one_stage(X, 1, k, &d, b))
            return;
        if (!units_ok(X, &d))
            continue;
        d.model_time = plan_model_time(X, &d, NULL, NULL);
        if (d.model_time < best_time) {
            best_time = d.model_time;
            best = k;
        }
    }
    /* the sharder alone shards the whole module as one: priced so when time
     * allows. Where some unit alone finds no layout on a mesh of all the
     * devices (a lone matmul gives the sharder too few dimensions), the
     * whole module may: each such mesh is tried, the best by the model kept */
    pp_error err = {0};
    pp_deadline until = pp_deadline_within(&X->deadline, plan_share(X, PLAN_SHARE_ALONE));
    int32_t left = 0;
    for (int32_t k = 0; best < 0 && k < X->n_meshes; k++)
        left += X->meshes[k].devices == n;
    for (int32_t k = 0; best < 0 && k < X->n_meshes; k++)
        if (X->meshes[k].devices == n) {
            plan_candidate d;
            if (!one_stage(X, 1, k, &d, b))
                return;
            pp_deadline mine = pp_deadline_within(&until, pp_deadline_left(&until) / left--);
            if (plan_reshard(X, &d, 1, &mine, &err) != PP_OK) {
                snprintf(b->why, sizeof b->why, "%.199s", err.message);
                return;
            }
        }
    for (int32_t k = 0; k < X->n_meshes; k++) {
        if (X->meshes[k].devices != n)
            continue;
        plan_candidate d;
        if (!one_stage(X, 1, k, &d, b))
            return;
        if (units_ok(X, &d) && plan_model_time(X, &d, NULL, NULL) < best_time) {
            best_time = plan_model_time(X, &d, NULL, NULL);
            best = k;
        }
    }
    if (best < 0) {
        snprintf(b->why, sizeof b->why, "no mesh of all %d devices that the sharder shards (power-of-two meshes only)", n);
        return;
    }
    if (!one_stage(X, 1, best, c, b))
        return;
    if (plan_reshard(X, c, 1, &until, &err) != PP_OK) {
        snprintf(b->why, sizeof b->why, "%.199s", err.message);
        return;
    }
    judge(X, c, b, peak);
}

/* d: the even split of the units over P stages, every stage on mesh k;
 * false (b's reason) when out of memory. */
static bool even_split(const plan_ctx *X, int32_t R, int32_t P, int32_t k, plan_candidate *d, pp_plan_baseline *b)
{
    if (!plan_candidate_make(X, R, P, d)) {
        snprintf(b->why, sizeof b->why, "out of memory");
        return false;
    }
    for (int32_t s = 0; s < P; s++) {
        d->cut[s] = (int32_t)((int64_t)s * X->n_units / P);
        d->mesh[s] = k;
    }
    return true;
}

/* Of the uniform (t, p, d) plans the model ranks best are judged. */
#define MEGATRON_JUDGED 3

/* Every stage of d fits its devices by the units' costs (1F1B's in-flight
 * micro-batches): the plans worth judging. */
static bool fits_by_model(const plan_ctx *X, const plan_candidate *d)
{
    for (int32_t s = 0; s < d->P; s++) {
        plan_stage_cost sc;
        plan_stage_cost_of(X, d->cut[s], d->cut[s + 1], d->mesh[s], &sc);
        if (plan_stage_memory(&sc, d->P - s < d->M ? d->P - s : d->M) > plan_capacity(X, X->meshes[d->mesh[s]].type))
            return false;
    }
    return true;
}

static void megatron(plan_ctx *X, pp_plan_baseline *b, double *peak, plan_candidate *c)
{
    b->name = "Megatron uniform";
    if (X->n_types > 1) {
        snprintf(b->why, sizeof b->why, "Megatron-LM's uniform plan runs on one device type, the cluster has %d",
                 X->n_types);
        return;
    }
    snprintf(b->why, sizeof b->why, "no uniform (tensor, pipeline, data) split of the %d devices fits their memory",
             X->types[0].count);
    plan_candidate best[MEGATRON_JUDGED];
    int32_t n = 0;
    for (int32_t k = 0; k < X->n_meshes; k++) {
        const plan_mesh *m = &X->meshes[k];
        /* tensor parallelism inside a node: one axis, not across nodes */
        if (m->n_axes != 1 || m->spans)
            continue;
        for (int32_t P = 1; P <= X->n_units; P++) {
            int32_t group = m->devices * P;
            if (X->types[0].count % group != 0)
                continue;
            int32_t R = X->types[0].count / group;
            if (X->n_micro % R != 0)
                continue;
            plan_candidate d;
            if (!even_split(X, R, P, k, &d, b))
                return;
            if (!units_ok(X, &d) || !fits_by_model(X, &d))
                continue;
            d.model_time = plan_model_time(X, &d, NULL, NULL);
            /* kept best first by the model */
            int32_t at = n < MEGATRON_JUDGED ? n++ : MEGATRON_JUDGED;
            while (at > 0 && best[at - 1].model_time > d.model_time) {
                if (at < MEGATRON_JUDGED)
                    best[at] = best[at - 1];
                at--;
            }
            if (at < MEGATRON_JUDGED)
                best[at] = d;
        }
    }
    pp_plan_baseline trial = *b;
    for (int32_t i = 0; i < n; i++) {
        trial.applies = false;
        if (judge(X, &best[i], &trial, peak) && (!b->applies || trial.step_time < b->step_time)) {
            *b = trial;
            *c = best[i];
        } else if (!b->applies)
            *b = trial;
    }
}

static void pipeline_only(plan_ctx *X, pp_plan_baseline *b, double *peak, plan_candidate *c)
{
    b->name = "pipeline only";
    snprintf(b->why, sizeof b->why, "one unit: nothing to pipeline");
    if (X->n_units < 2)
        return;
    double best = INFINITY;
    pp_plan_baseline trial = *b;
    for (int32_t R = 1; R <= X->n_micro; R++) {
        int32_t per = 0;
        bool divides = X->n_micro % R == 0;
        for (int32_t t = 0; t < X->n_types; t++) {
            divides &= X->types[t].count % R == 0;
            per += X->types[t].count / R;
        }
        int32_t P = X->n_units < per ? X->n_units : per;
        if (!divides || P < 2)
            continue;
        plan_candidate d;
        if (!even_split(X, R, P, 0, &d, b))
            return;
        for (int32_t s = 0, t = 0, used = 0; s < P; s++, used++) {
            while (used >= X->types[t].count / R) {
                t++;
                used = 0;
            }
            d.mesh[s] = mesh_of(X, t, 1, 0);
        }
        trial.applies = false;
        if (judge(X, &d, &trial, peak) && trial.step_time < best) {
            best = trial.step_time;
            *b = trial;
            *c = d;
        } else if (!b->applies)
            *b = trial;
    }
}

void plan_baselines(plan_ctx *X, pp_plan_baseline *out, plan_candidate *cands, bool *has)
{
    double *peak = calloc((size_t)X->cluster->device_count, sizeof *peak);
    void (*make[PP_PLAN_BASELINES])(plan_ctx *, pp_plan_baseline *, double *, plan_candidate *) = {
        data_parallel, sharder_alone, pipeline_only, megatron};
    for (int k = 0; k < PP_PLAN_BASELINES; k++) {
        out[k] = (pp_plan_baseline){0};
        cands[k] = (plan_candidate){0};
        if (!peak) {
            out[k].name = "baseline";
            snprintf(out[k].why, sizeof out[k].why, "out of memory");
        } else
            make[k](X, &out[k], peak, &cands[k]);
        has[k] = cands[k].P > 0 && units_ok(X, &cands[k]);
    }
    free(peak);
}
