/* meshes.c: a cluster's devices as the meshes a sharded pipeline stage
 * runs on (parplan/cluster_mesh.h). A stage's devices are of one type
 * (the sharder prices one type a mesh), a power of two of them: powers of
 * two, handed out largest first from a share of a group's devices, keep
 * every in-node mesh inside a node. A group's link inside a node is the
 * slowest of its nodes' fastest (a mesh may land on any of them), and so
 * is its link between nodes. */
#include "parplan/cluster_mesh.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "core/grow.h"

/* The fastest link of a kind (inside a node or between nodes) a node has,
 * {0, 0} without one; *ports its NICs (1 without one). */
static pp_hw_link best_link(const pp_cluster *c, int node, bool inter_node, int32_t *ports)
{
    pp_hw_link best = {0, 0};
    *ports = 1;
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

static int32_t group_of(pp_cluster_meshes *m, const pp_hw_device_type *t)
{
    for (int32_t k = 0; k < m->n_groups; k++)
        if (m->groups[k].type == t)
            return k;
    pp_cluster_group *g = &m->groups[m->n_groups];
    *g = (pp_cluster_group){.type = t, .node_size = INT32_MAX, .ports = INT32_MAX};
    g->intra = g->inter = (pp_hw_link){INFINITY, 0};
    return m->n_groups++;
}

static bool add(pp_cluster_meshes *m, int *cap, pp_cluster_mesh mesh)
{
    if (!pp_grow((void **)&m->meshes, cap, m->n_meshes + 1, sizeof *m->meshes))
        return false;
    m->meshes[m->n_meshes++] = mesh;
    return true;
}

static bool group_meshes(pp_cluster_meshes *m, int *cap, int32_t k)
{
    const pp_cluster_group *g = &m->groups[k];
    bool ok = true;
    for (int32_t t = 1; ok && t <= g->count; t *= 2) {
        if (t <= g->node_size) {
            ok = add(m, cap, (pp_cluster_mesh){k, t, 1, {t, 1}, false});
            for (int32_t a = 2; ok && a < t; a *= 2)
                ok = add(m, cap, (pp_cluster_mesh){k, t, 2, {a, t / a}, false});
        } else if (t % g->node_size == 0 && g->inter.bandwidth > 0) {
            ok = add(m, cap, (pp_cluster_mesh){k, t, 1, {t, 1}, true});
            if (ok && g->node_size > 1)
                ok = add(m, cap, (pp_cluster_mesh){k, t, 2, {t / g->node_size, g->node_size}, true});
        }
    }
    return ok;
}

static bool groups(const pp_cluster *c, pp_cluster_meshes *m)
{
    m->groups = pp_arena_calloc(m->arena, (size_t)(c->node_count ? c->node_count : 1), sizeof *m->groups);
    if (!m->groups)
        return false;
    for (int n = 0; n < c->node_count; n++) {
        pp_cluster_group *g = &m->groups[group_of(m, c->nodes[n].type)];
        g->count += c->nodes[n].device_count;
        if (c->nodes[n].device_count < g->node_size)
            g->node_size = c->nodes[n].device_count;
        int32_t ports;
        g->intra = slower(g->intra, best_link(c, n, false, &ports));
        g->inter = slower(g->inter, best_link(c, n, true, &ports));
        if (ports < g->ports)
            g->ports = ports;
    }
    for (int32_t k = 0; k < m->n_groups; k++) {
        pp_cluster_group *g = &m->groups[k];
        g->ids = pp_arena_alloc(m->arena, (size_t)(g->count ? g->count : 1) * sizeof *g->ids);
        if (!g->ids)
            return false;
        int32_t n = 0;
        for (int d = 0; d < c->device_count; d++)
            if (c->nodes[c->device_node[d]].type == g->type)
                g->ids[n++] = d;
    }
    return true;
}

pp_status pp_cluster_meshes_of(const pp_cluster *c, pp_cluster_meshes *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena = pp_arena_new(1 << 12);
    bool ok = out->arena && groups(c, out);
    int cap = 0;
    for (int32_t k = 0; ok && k < out->n_groups; k++)
        ok = group_meshes(out, &cap, k);
    /* the arena frees the list with the rest (or at once, when it cannot) */
    if (out->meshes && !pp_arena_adopt(out->arena, out->meshes)) {
        out->meshes = NULL;
        ok = false;
    }
    return ok ? PP_OK : pp_error_set(err, PP_ENOMEM, "out of memory listing %s's meshes", c->name);
}

void pp_cluster_meshes_free(pp_cluster_meshes *m)
{
    pp_arena_free(m->arena);
    memset(m, 0, sizeof *m);
}

pp_status pp_cluster_devices_link(const pp_cluster *c, int32_t first, int32_t n, const pp_hw_device_type **type,
                                  pp_hw_link *link, pp_error *err)
{
    if (first < 0 || n < 1 || first + n > c->device_count)
        return pp_error_set(err, PP_EARG, "the cluster %s has %d devices, not %d from device %d", c->name,
                            c->device_count, n, first);
    int from = c->device_node[first], to = c->device_node[first + n - 1];
    *type = c->nodes[from].type;
    for (int32_t d = first; d < first + n; d++)
        if (c->nodes[c->device_node[d]].type != *type)
            return pp_error_set(err, PP_EARG, "device %d is a %s, device %d a %s: the devices of a problem with one "
                                "time per op are of one type", d, c->nodes[c->device_node[d]].type->name, first,
                                (*type)->name);
    *link = (pp_hw_link){INFINITY, 0};
    for (int node = from; node <= to; node++) {
        int32_t ports;
        *link = slower(*link, best_link(c, node, from != to, &ports));
    }
    if (!(link->bandwidth > 0))
        return pp_error_set(err, PP_EARG, "no link joins devices %d to %d of %s", first, first + n - 1, c->name);
    return PP_OK;
}
