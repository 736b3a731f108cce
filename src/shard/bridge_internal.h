/* bridge_internal.h: the IOPDDL bridge as the library's own files use it:
 * built (unfolded, the problem --emit-iopddl writes; or folded over
 * repeated layers for the plan's search, bridge_solve.c), checked against a
 * problem read back, solved, and its answers turned into layouts. A front
 * door sees only the problem and its writer (parplan/shard_bridge.h). */
#ifndef PP_SHARD_BRIDGE_INTERNAL_H
#define PP_SHARD_BRIDGE_INTERNAL_H

#include <stdbool.h>
#include "parplan/shard_bridge.h"

/* pp_shard_bridge_build, with fold: the nodes of every copy of a repeated
 * layer folded onto copy 0's (src/shard/bridge.c's top comment). A
 * solution then has one strategy per problem node; pp_shard_bridge_layout
 * and pp_shard_bridge_strategy read it so. */
pp_status shard_bridge_build(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                             double memory_bytes, bool fold, pp_shard_bridge **out, pp_error *err);

/* Builds the problem of `flat` (analysed as `nda`, both borrowed: keep them
 * alive while the bridge is used) on `mesh` (copied; its device is
 * borrowed). memory_bytes is the usage limit per device; <= 0 means none.
 * PP_ENOMEM, or PP_EINPUT when the cost model prices something as not
 * finite (a device without figures). */
pp_status pp_shard_bridge_build(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                double memory_bytes, pp_shard_bridge **out, pp_error *err);

/* PP_EINPUT, naming the first difference, when `problem` (a file read back
 * for --apply-iopddl) is not this bridge's number for number: node and
 * strategy counts, intervals, strategy costs and usages, edges and their
 * costs, the usage limit. It was then built for another model, mesh or
 * memory limit, or edited. */
pp_status pp_shard_bridge_check(const pp_shard_bridge *bridge, const pp_iopddl_problem *problem, pp_error *err);

void pp_shard_bridge_free(pp_shard_bridge *bridge);

/* The layout (nda->n_names bytes, bit a for mesh axis a, as
 * pp_shard_cost_eval_layout takes it) of a solution: one strategy per node.
 * PP_EINPUT for a strategy out of range. */
pp_status pp_shard_bridge_layout(const pp_shard_bridge *bridge, const uint32_t *strategies, uint8_t *axes,
                                 pp_error *err);

void pp_shard_bridge_plan_free(pp_shard_bridge_plan *plan);

/* The plan of a solution (one strategy per node, checked by
 * pp_shard_bridge_layout): its layout and cost-model figures, and its
 * IOPDDL cost and feasibility in `problem` (the bridge's own, or a file read
 * back and checked with pp_shard_bridge_check); proven_optimal is left false. */
pp_status pp_shard_bridge_plan_of(const pp_shard_bridge *bridge, const pp_iopddl_problem *problem,
                                  const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                  const uint32_t *strategies, pp_shard_bridge_plan *out, pp_error *err);

pp_status pp_shard_bridge_plan_solve(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                     double memory_bytes, const pp_iopddl_options *o, pp_shard_bridge_plan *out,
                                     pp_error *err);

/* What strategy `s` of `node` shards: iclass[a] is the iclass mesh axis a
 * goes to, -1 for none (mesh->n_axes entries). PP_EINPUT when out of range. */
pp_status pp_shard_bridge_strategy(const pp_shard_bridge *bridge, uint32_t node, uint32_t s, int32_t *iclass,
                                   pp_error *err);

#endif
