/* parplan cluster planner: a cluster's devices as the meshes a sharded
 * pipeline stage runs on (src/cluster/meshes.c): the devices grouped by
 * type with the links they use, and the mesh shapes each group offers; and
 * the one type and slowest link of a run of devices, for a problem priced
 * on one device type (`parplan gen model --cluster`). */
#ifndef PARPLAN_CLUSTER_MESH_H
#define PARPLAN_CLUSTER_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "parplan/cluster.h"
#include "parplan/hw_net.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* A cluster's devices of one type, in the cluster's order. */
typedef struct {
    const pp_hw_device_type *type;
    int32_t count;      /* devices */
    int32_t node_size;  /* the fewest of them one node holds */
    int32_t *ids;       /* [count]: their numbers in the cluster */
    pp_hw_link intra;   /* the slowest of their nodes' fastest link inside the node ({0, 0}: a node has none) */
    pp_hw_link inter;   /* the same between nodes ({0, 0}: a node has none) */
    int32_t ports;      /* the fewest NICs a node has for its fastest inter-node link (1 without one) */
} pp_cluster_group;

/* A mesh of one group's devices, a power of two of them: inside one node,
 * one axis or two over the node's link; across whole nodes, the nodes as
 * the first axis over the inter-node link (spans) and each node's devices
 * as the second, or one axis over the inter-node link. */
typedef struct {
    int32_t group;
    int32_t devices, n_axes, axes[2];
    bool spans;
} pp_cluster_mesh;

typedef struct {
    pp_arena *arena; /* owns the arrays */
    int32_t n_groups;
    pp_cluster_group *groups;
    int32_t n_meshes;
    pp_cluster_mesh *meshes; /* group by group, fewest devices first */
} pp_cluster_meshes;

/* c's devices by type and every mesh of each group; PP_ENOMEM. Free with
 * pp_cluster_meshes_free whatever the status. */
pp_status pp_cluster_meshes_of(const pp_cluster *c, pp_cluster_meshes *out, pp_error *err);
void pp_cluster_meshes_free(pp_cluster_meshes *m);

/* Devices first .. first + n - 1 of c: their one type and the slowest link
 * two of them use (their node's fastest inside one node, else the slowest
 * of their nodes' fastest between nodes). PP_EARG when c has fewer
 * devices, when two are of unlike types (naming them) or when no link
 * joins them. */
pp_status pp_cluster_devices_link(const pp_cluster *c, int32_t first, int32_t n, const pp_hw_device_type **type,
                                  pp_hw_link *link, pp_error *err);

#pragma GCC visibility pop

#endif
