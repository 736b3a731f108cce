/* meshes.c: the cluster as device types and the meshes a stage may run on.
 * A stage's devices are of one type (the sharder prices one type a mesh),
 * a power of two of them: inside one node, one axis of t devices or two
 * axes a x t/a over the node's link; across whole nodes, the nodes as the
 * first axis over the inter-node link and the node's devices as the second
 * (or one axis over the slower link). Powers of two, handed out largest
 * first from each replica's share, keep every in-node mesh inside a node
 * (plan_assign_devices). Every mesh of two or more devices comes twice,
 * the sharder planning it for the whole memory and for a quarter of it
 * (cost.c). (A cluster-to-mesh call belongs in src/cluster;
 * it is here until that system has one.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "plan/plan_internal.h"

/* The fastest link of a kind (inside a node or between nodes) a node has. */
static pp_hw_link best_link(const pp_cluster *c, int node, bool inter_node, int *ports)
{
    pp_hw_link best = {0, 0};
    for (int k = 0; k < c->link_count; k++)
        if (c->links[k].node == node && c->links[k].inter_node == inter_node && c->links[k].bandwidth > best.bandwidth) {
            best = (pp_hw_link){c->links[k].bandwidth, c->links[k].latency};
            *ports = c->links[k].ports;
        }
    return best;
}

static pp_hw_link slower(pp_hw_link a, pp_hw_link b)
{
    return a.bandwidth < b.bandwidth ? a : b;
}

static int32_t type_index(plan_ctx *X, const pp_hw_device_type *t)
{
    for (int32_t k = 0; k < X->n_types; k++)
        if (X->types[k].type == t)
            return k;
    plan_type *p = &X->types[X->n_types];
    *p = (plan_type){.type = t, .node_size = INT32_MAX};
    p->intra = p->inter = (pp_hw_link){INFINITY, 0};
    return X->n_types++;
}

static bool add_mesh(plan_ctx *X, int *cap, int32_t type, int32_t devices, int32_t n_axes, int32_t a0, int32_t a1,
                     bool spans)
{
    for (int tight = 0; tight < (devices > 1 ? 2 : 1); tight++) {
        if (!pp_grow((void **)&X->meshes, cap, X->n_meshes + 1, sizeof *X->meshes))
            return false;
        X->meshes[X->n_meshes++] = (plan_mesh){.type = type, .devices = devices, .n_axes = n_axes,
                                               .axes = {a0, a1}, .spans = spans, .tight = tight};
    }
    return true;
}

static bool type_meshes(plan_ctx *X, int *cap, int32_t k)
{
    const plan_type *T = &X->types[k];
    bool ok = true;
    for (int32_t t = 1; ok && t <= T->count; t *= 2) {
        if (t <= T->node_size) {
            ok = add_mesh(X, cap, k, t, 1, t, 1, false);
            for (int32_t a = 2; ok && a < t; a *= 2)
                ok = add_mesh(X, cap, k, t, 2, a, t / a, false);
        } else if (t % T->node_size == 0 && T->inter.bandwidth > 0) {
            ok = add_mesh(X, cap, k, t, 1, t, 1, true);
            if (ok && T->node_size > 1)
                ok = add_mesh(X, cap, k, t, 2, t / T->node_size, T->node_size, true);
        }
    }
    return ok;
}

pp_status plan_types(plan_ctx *X, pp_error *err)
{
    const pp_cluster *c = X->cluster;
    X->types = pp_arena_calloc(X->arena, (size_t)c->node_count, sizeof *X->types);
    if (!X->types)
        return pp_error_set(err, PP_ENOMEM, "out of memory reading the cluster's devices");
    for (int n = 0; n < c->node_count; n++) {
        plan_type *T = &X->types[type_index(X, c->nodes[n].type)];
        T->count += c->nodes[n].device_count;
        if (c->nodes[n].device_count < T->node_size)
            T->node_size = c->nodes[n].device_count;
        int ports = 1;
        T->intra = slower(T->intra, best_link(c, n, false, &ports));
        T->inter = slower(T->inter, best_link(c, n, true, &ports));
        if (T->ports == 0 || ports < T->ports)
            T->ports = ports;
    }
    for (int32_t k = 0; k < X->n_types; k++) {
        plan_type *T = &X->types[k];
        T->ids = pp_arena_alloc(X->arena, (size_t)T->count * sizeof *T->ids);
        if (!T->ids)
            return pp_error_set(err, PP_ENOMEM, "out of memory reading the cluster's devices");
        int32_t n = 0;
        for (int d = 0; d < c->device_count; d++)
            if (c->nodes[c->device_node[d]].type == T->type)
                T->ids[n++] = d;
        if (!(T->intra.bandwidth > 0) || isinf(T->intra.bandwidth))
            T->intra = T->inter.bandwidth > 0 && !isinf(T->inter.bandwidth) ? T->inter : pp_shard_default_link();
        if (isinf(T->inter.bandwidth))
            T->inter = (pp_hw_link){0, 0};
    }
    int cap = 0;
    bool ok = true;
    for (int32_t k = 0; ok && k < X->n_types; k++)
        ok = type_meshes(X, &cap, k);
    /* the arena frees the list with the rest (or at once, when it cannot) */
    if (X->meshes && !pp_arena_adopt(X->arena, X->meshes)) {
        X->meshes = NULL;
        ok = false;
    }
    return ok ? PP_OK : pp_error_set(err, PP_ENOMEM, "out of memory listing the cluster's meshes");
}

void plan_mesh_to_shard(const plan_ctx *X, const plan_mesh *m, pp_shard_mesh *out)
{
    const plan_type *T = &X->types[m->type];
    memset(out, 0, sizeof *out);
    out->n_axes = m->n_axes;
    out->device = T->type;
    out->precision = X->req->precision;
    for (int32_t a = 0; a < m->n_axes; a++) {
        snprintf(out->names[a], sizeof out->names[a], "%c", m->n_axes == 1 ? 'm' : "bm"[a]);
        out->sizes[a] = m->axes[a];
        out->links[a] = m->spans && a == 0 ? T->inter : T->intra;
    }
    pp_shard_mesh_set_peaks(out, X->catalog);
}

double plan_capacity(const plan_ctx *X, int32_t type)
{
    return X->req->memory > 0 ? X->req->memory : X->types[type].type->memory_bytes;
}
