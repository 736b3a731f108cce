/* meshes.c: the meshes a stage may run on: the cluster's (a power of two
 * of one type's devices, pp_cluster_meshes_of), every one of two or more
 * devices twice, the sharder planning it for the whole memory and for a
 * quarter of it (cost.c). */
#include <math.h>
#include <string.h>
#include "plan/plan_internal.h"

pp_status plan_types(plan_ctx *X, pp_error *err)
{
    pp_cluster_meshes *g = &X->groups;
    pp_status st = pp_cluster_meshes_of(X->cluster, g, err);
    if (st != PP_OK)
        return st;
    X->n_types = g->n_groups;
    X->types = g->groups;
    /* a node of one device has no link inside it; the formula still
     * prices a hop inside a node by one */
    for (int32_t k = 0; k < X->n_types; k++)
        if (!(X->types[k].intra.bandwidth > 0))
            X->types[k].intra = X->types[k].inter.bandwidth > 0 ? X->types[k].inter : pp_shard_default_link();
    int32_t n = 0;
    for (int32_t k = 0; k < g->n_meshes; k++)
        n += g->meshes[k].devices > 1 ? 2 : 1;
    X->meshes = pp_arena_calloc(X->arena, (size_t)(n ? n : 1), sizeof *X->meshes);
    if (!X->meshes)
        return pp_error_set(err, PP_ENOMEM, "out of memory listing the cluster's meshes");
    for (int32_t k = 0; k < g->n_meshes; k++) {
        const pp_cluster_mesh *m = &g->meshes[k];
        for (int tight = 0; tight < (m->devices > 1 ? 2 : 1); tight++)
            X->meshes[X->n_meshes++] = (plan_mesh){.type = m->group, .devices = m->devices, .n_axes = m->n_axes,
                                                   .axes = {m->axes[0], m->axes[1]}, .spans = m->spans,
                                                   .tight = tight};
    }
    return PP_OK;
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
