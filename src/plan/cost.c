/* cost.c: every unit kind sharded on every mesh, once: the cache the
 * stage search reads. Equal units (the copies of a layer) are one kind,
 * so a model of 24 equal layers costs one sharder run per mesh, not 24.
 * A one-device mesh needs no search: the unsharded module's cost.
 *
 * From the sharder's cost of a unit's forward pass on its mesh, the
 * training step's figures follow gen model's rule (src/shard/to_sched.c):
 * the backward computes twice the forward's products and runs its
 * collectives again (the transposed ones, of the same sizes); a module
 * that holds its backward (backward.c) gets none added. Parameters
 * replicated over part of the mesh have their gradients all-reduced over
 * that part once a step. Every parameter element held costs 16 bytes of
 * state (ZeRO, Rajbhandari et al. 2020, section 3.1: parameter, gradient
 * and Adam's two moments, or mixed precision's 2 + 2 + 12), every result
 * an op reads is kept from the forward to the backward.
 *
 * The sharder plans a forward pass, whose peak counts each parameter once
 * at its own size; training holds 16 bytes for each 4-byte f32 parameter.
 * So every mesh is also offered tight: planned for a quarter of the
 * device's memory, which makes the sharder split the parameters a
 * training step could not hold whole (the stage search picks whichever
 * variant fits and is faster).
 *
 * The stage search adds its units' costs (a stage's units sharded apart,
 * the re-layout between them unpriced); the stages of the plans it hands
 * the judge are then sharded whole (plan_reshard), each run of unit kinds
 * on a mesh once, and those costs replace the sums: the judge, the report
 * and the baselines (the sharder alone is the whole module on one mesh)
 * price what one sharding of the stage does. */
#include <math.h>
#include <string.h>
#include "core/grow.h"
#include "hw/net_internal.h"
#include "plan/plan_internal.h"

/* Bytes of tensor occurrence t on one device under the layout. */
static double local_bytes(const shard_part *m, const pp_shard_mesh *mesh, const uint8_t *axes, int32_t t,
                          bool bf16, double *shards)
{
    const pp_shard_nda *nda = m->nda;
    const pp_shard_nda_tensor *T = &nda->tensors[t];
    const pp_shard_type *ty = &m->flat.values[T->value].type;
    double bits = ty->bits > 0 ? ty->bits : 32, parts = 1;
    if (bf16 && strcmp(ty->elem, "f32") == 0)
        bits = 16;
    for (int32_t d = 0; d < T->rank; d++)
        for (int32_t a = 0; axes && a < mesh->n_axes; a++)
            if (axes[T->first + d] & (1u << a))
                parts *= mesh->sizes[a];
    if (shards)
        *shards = parts;
    return (double)pp_shard_type_elements(ty) * bits / 8 / parts;
}

static void training_figures(const plan_ctx *X, const shard_part *m, const pp_shard_mesh *mesh,
                             const plan_mesh *pm, const uint8_t *axes, const pp_shard_cost *fwd, plan_cost *out)
{
    const pp_shard_flat *f = &m->flat;
    bool bf16 = X->req->precision == PP_SHARD_PRECISION_BF16;
    pp_hw_link link = pm->spans ? X->types[pm->type].inter : X->types[pm->type].intra;
    /* a training step's module is forward and backward at once (backward.c) */
    *out = (plan_cost){.forward = fwd->runtime, .collective = fwd->collective_time,
                       .backward = X->holds_backward ? 0 : 2 * fwd->compute_time + fwd->collective_time};
    for (int32_t k = 0; k < f->n_inputs; k++) {
        if (!m->parameter[k])
            continue;
        double shards, bytes = local_bytes(m, mesh, axes, k, bf16, &shards);
        const pp_shard_type *ty = &f->values[k].type;
        double elements = (double)pp_shard_type_elements(ty) / shards;
        out->parameters += bytes;
        out->state += elements * PP_CLUSTER_STATE_BYTES_PER_PARAM;
        int32_t copies = (int32_t)llround(pm->devices / shards);
        if (copies > 1)
            out->sync += pp_hw_allreduce_time(link, copies, bytes);
    }
    for (int32_t v = f->n_inputs; v < f->n_values; v++)
        out->activations += local_bytes(m, mesh, axes, v, bf16, NULL);
}

/* The module on the mesh unsharded: every device runs all of it. */
static pp_status replicated(plan_ctx *X, const shard_part *m, const pp_shard_mesh *mesh, const plan_mesh *pm,
                            plan_cost *out, bool *ok, pp_error *err)
{
    pp_shard_state none = {0};
    pp_shard_cost c;
    pp_status st = pp_shard_cost_eval(&m->flat, m->nda, mesh, &none, &c, err);
    if (st == PP_OK) {
        training_figures(X, m, mesh, pm, NULL, &c, out);
        *ok = true;
    }
    return st;
}

pp_status plan_shard_on(const plan_ctx *X, const pp_shard_flat *flat, const pp_shard_nda *nda, const plan_mesh *pm,
                        const pp_shard_mesh *mesh, double seconds, pp_shard_plan_result *r, pp_error *err)
{
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.memory = plan_capacity(X, pm->type) / (pm->tight ? 4 : 1);
    o.time_limit = seconds;
    o.threads = X->req->threads;
    o.seed = X->req->seed;
    o.stop = X->req->stop;
    pp_deadline d = pp_deadline_within(&X->deadline, seconds);
    return pp_shard_plan(flat, nda, mesh, &o, &d, r, err);
}

/* The kind's cost on mesh k: the sharder's plan (or the unsharded module on
 * one device), within `seconds`. Where the sharder finds nothing to shard
 * (a lone matmul gives its search too few dimension names), the unit runs
 * replicated on the mesh: a layout too, and what the stage's module then
 * writes (modules.c); a stage holding it is sharded whole before it is
 * judged, which may split it with its neighbours. */
static pp_status cost_on(plan_ctx *X, const shard_part *m, int32_t k, double seconds, plan_cost *out,
                         bool *ok, pp_error *err)
{
    const plan_mesh *pm = &X->meshes[k];
    pp_shard_mesh mesh;
    plan_mesh_to_shard(X, pm, &mesh);
    *ok = false;
    if (pm->devices == 1)
        return replicated(X, m, &mesh, pm, out, ok, err);
    pp_shard_plan_result r;
    pp_error mine = {0};
    X->shard_calls++;
    if (plan_shard_on(X, &m->flat, m->nda, pm, &mesh, seconds, &r, &mine) != PP_OK)
        return mine.status == PP_EINPUT ? replicated(X, m, &mesh, pm, out, ok, err)
                                        : pp_error_set(err, mine.status, "%s", mine.message);
    training_figures(X, m, &mesh, pm, r.axes, &r.cost, out);
    *ok = true;
    pp_shard_plan_free(&r);
    return PP_OK;
}

pp_status plan_costs(plan_ctx *X, pp_error *err)
{
    size_t n = (size_t)X->n_kinds * (size_t)X->n_meshes;
    X->cost = pp_arena_calloc(X->arena, n, sizeof *X->cost);
    X->cost_ok = pp_arena_calloc(X->arena, n, sizeof *X->cost_ok);
    if (!X->cost || !X->cost_ok)
        return pp_error_set(err, PP_ENOMEM, "out of memory for the stages' costs");
    int32_t searches = 0;
    for (int32_t k = 0; k < X->n_meshes; k++)
        searches += X->meshes[k].devices > 1;
    searches *= X->n_kinds;
    double budget = PLAN_SHARE_COSTS * pp_deadline_left(&X->deadline);
    pp_deadline until = pp_deadline_within(&X->deadline, budget);
    pp_status st = PP_OK;
    for (int32_t kind = 0; kind < X->n_kinds && st == PP_OK; kind++) {
        int32_t u = 0;
        while (X->units[u].kind != kind)
            u++;
        shard_part m;
        st = plan_units_part(X, u, u + 1, &m, err);
        for (int32_t k = 0; k < X->n_meshes && st == PP_OK; k++) {
            double left = pp_deadline_left(&until), share = left / (searches > 0 ? searches : 1);
            bool search = X->meshes[k].devices > 1;
            searches -= search;
            size_t at = (size_t)kind * (size_t)X->n_meshes + (size_t)k;
            /* past the sharder's share, meshes not yet priced are not offered */
            if (!search || (left > 0 && !pp_deadline_passed(&until)))
                st = cost_on(X, &m, k, fmin(left, fmax(share, 0.2)), &X->cost[at], &X->cost_ok[at], err);
        }
        shard_part_free(&m);
    }
    return st;
}

/* Whether units a0 .. a1 - 1 and b0 .. b1 - 1 are the same kinds in order:
 * equal sub-problems for the sharder. */
static bool same_units(const plan_ctx *X, int32_t a0, int32_t a1, int32_t b0, int32_t b1)
{
    if (a1 - a0 != b1 - b0)
        return false;
    for (int32_t k = 0; k < a1 - a0; k++)
        if (X->units[a0 + k].kind != X->units[b0 + k].kind)
            return false;
    return true;
}

const plan_stage_entry *plan_stage_find(const plan_ctx *X, int32_t first, int32_t end, int32_t mesh)
{
    for (int k = 0; k < X->n_stages; k++)
        if (X->stages[k].mesh == mesh && same_units(X, X->stages[k].first, X->stages[k].end, first, end))
            return &X->stages[k];
    return NULL;
}

static bool wants(const plan_ctx *X, int32_t first, int32_t end, int32_t mesh)
{
    return end - first >= 2 && X->meshes[mesh].devices > 1 && !plan_stage_find(X, first, end, mesh);
}

pp_status plan_reshard(plan_ctx *X, const plan_candidate *c, int32_t n, const pp_deadline *until, pp_error *err)
{
    int32_t left = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t s = 0; s < c[i].P; s++)
            left += wants(X, c[i].cut[s], c[i].cut[s + 1], c[i].mesh[s]);
    pp_status st = PP_OK;
    for (int32_t i = 0; i < n && st == PP_OK; i++)
        for (int32_t s = 0; s < c[i].P && st == PP_OK; s++) {
            int32_t first = c[i].cut[s], end = c[i].cut[s + 1], k = c[i].mesh[s];
            if (!wants(X, first, end, k) || pp_deadline_passed(until))
                continue;
            double share = pp_deadline_left(until) / (left > 0 ? left : 1);
            left--;
            if (!pp_grow((void **)&X->stages, &X->stages_cap, X->n_stages + 1, sizeof *X->stages))
                return pp_error_set(err, PP_ENOMEM, "out of memory for the stages' costs");
            shard_part m;
            plan_cost pc;
            bool ok = false;
            st = plan_units_part(X, first, end, &m, err);
            if (st == PP_OK)
                st = cost_on(X, &m, k, share, &pc, &ok, err);
            shard_part_free(&m);
            if (st == PP_OK && ok)
                X->stages[X->n_stages++] = (plan_stage_entry){
                    first, end, k,
                    {pc.forward, pc.backward, pc.collective, pc.parameters, pc.state, pc.activations, pc.sync}};
        }
    return st;
}
