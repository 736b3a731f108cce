/* bridge_internal.h: the IOPDDL bridge folded over repeated layers, for the
 * plan's search (bridge_solve.c); the public pp_shard_bridge_build is the
 * unfolded problem --emit-iopddl writes. */
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

#endif
