/* parplan IOPDDL bridge (issue 8): the sharding problem of a flattened model
 * on a mesh written as an IOPDDL contest problem (paper 000), so that the
 * contest's solver (parplan/iopddl.h) searches layouts the cost model of
 * parplan/shard.h prices, and a solution read back becomes a layout.
 *
 * Nodes: one per entry argument (node v for flat value v < n_inputs), then
 * one per flat op (node n_inputs + i for flat op i). A node's strategy picks,
 * for each mesh axis, an iclass of the node to shard over that axis or none;
 * strategy 0 of every node is the unsharded one. Costs are runtimes in
 * integer picoseconds (a node lists at most 64 strategies, the fewest
 * sharded axes first: src/shard/bridge.c) and the objective of a solution is the cost model's
 * runtime of its layout (pp_shard_cost_eval_layout) up to half a picosecond
 * per node and edge. Usages are bytes per device; the peak usage of a
 * solution is the layout's peak memory, except for ops with several results
 * (see src/shard/bridge.c). */
#ifndef PARPLAN_SHARD_BRIDGE_H
#define PARPLAN_SHARD_BRIDGE_H

#include <stdint.h>
#include <stdio.h>
#include "parplan/iopddl.h"
#include "parplan/shard.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct pp_shard_bridge pp_shard_bridge;

/* Builds the problem of `flat` (analysed as `nda`, both borrowed: keep them
 * alive while the bridge is used) on `mesh` (copied; its device is
 * borrowed). memory_bytes is the usage limit per device; <= 0 means none.
 * PP_ENOMEM, or PP_EINPUT when the cost model prices something as not
 * finite (a device without figures). */
pp_status pp_shard_bridge_build(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                double memory_bytes, pp_shard_bridge **out, pp_error *err);
void pp_shard_bridge_free(pp_shard_bridge *bridge);

/* The problem itself (owned by the bridge), ready for pp_iopddl_solve and
 * pp_iopddl_evaluate. Its name is "": the name is given when writing. */
const pp_iopddl_problem *pp_shard_bridge_problem(const pp_shard_bridge *bridge);

/* Writes the contest JSON ({"problem": {"name", "nodes", "edges",
 * "usage_limit"}}) under `name`. PP_EIO when the stream fails. */
pp_status pp_shard_bridge_write(const pp_shard_bridge *bridge, const char *name, FILE *out, pp_error *err);

/* PP_EINPUT, naming the first difference, when `problem` (a file read back
 * for --apply-iopddl) is not this bridge's number for number: node and
 * strategy counts, intervals, strategy costs and usages, edges and their
 * costs, the usage limit. It was then built for another model, mesh or
 * memory limit, or edited. */
pp_status pp_shard_bridge_check(const pp_shard_bridge *bridge, const pp_iopddl_problem *problem, pp_error *err);

/* The layout (nda->n_names bytes, bit a for mesh axis a, as
 * pp_shard_cost_eval_layout takes it) of a solution: one strategy per node.
 * PP_EINPUT for a strategy out of range. */
pp_status pp_shard_bridge_layout(const pp_shard_bridge *bridge, const uint32_t *strategies, uint8_t *axes,
                                 pp_error *err);

/* What strategy `s` of `node` shards: iclass[a] is the iclass mesh axis a
 * goes to, -1 for none (mesh->n_axes entries). PP_EINPUT when out of range. */
pp_status pp_shard_bridge_strategy(const pp_shard_bridge *bridge, uint32_t node, uint32_t s, int32_t *iclass,
                                   pp_error *err);

/* A plan found through the bridge: the problem built, solved by the IOPDDL
 * solver with options o, its answer turned into a layout and priced. */
typedef struct {
    uint8_t *axes;          /* the layout, nda->n_names bytes, malloc'd */
    pp_shard_cost cost;     /* the cost model's figures for it */
    int64_t iopddl_cost;    /* the answer's objective, picoseconds */
    bool feasible;          /* within the usage limit (else the least-usage answer) */
    bool proven_optimal;    /* among the bridge's strategies */
    double seconds;         /* building and solving */
    uint32_t nodes, edges;
} pp_shard_bridge_plan;

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
void pp_shard_bridge_plan_free(pp_shard_bridge_plan *plan);

#pragma GCC visibility pop

#endif
