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

/* The problem itself (owned by the bridge), ready for pp_iopddl_solve and
 * pp_iopddl_evaluate. Its name is "": the name is given when writing. */
const pp_iopddl_problem *pp_shard_bridge_problem(const pp_shard_bridge *bridge);

/* Writes the contest JSON ({"problem": {"name", "nodes", "edges",
 * "usage_limit"}}) under `name`. PP_EIO when the stream fails. */
pp_status pp_shard_bridge_write(const pp_shard_bridge *bridge, const char *name, FILE *out, pp_error *err);

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

#pragma GCC visibility pop

#endif
