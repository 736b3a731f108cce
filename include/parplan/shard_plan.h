/* parplan auto-sharder: what pp_shard_run's outcome carries of a model read
 * and analysed, then planned on a mesh by both searches under one deadline,
 * the winner chosen (the calls that do it: src/shard/shard_plan_internal.h). */
#ifndef PARPLAN_SHARD_PLAN_H
#define PARPLAN_SHARD_PLAN_H

#include <stdbool.h>
#include "parplan/shard.h"
#include "parplan/shard_bridge.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* A model read, checked for static shapes, inlined and analysed. */
typedef struct {
    pp_shard_module *module; /* its warnings are the caller's to show */
    pp_shard_flat *flat;
    pp_shard_nda *nda;
} pp_shard_analysis;

typedef enum { PP_SHARD_FROM_MCTS = 0, PP_SHARD_FROM_IOPDDL } pp_shard_source;

/* The candidates and the plan chosen among them. */
typedef struct {
    bool has_search, has_bridge;
    pp_shard_search_result search; /* the MCTS's, when has_search */
    pp_shard_bridge_plan bridge;   /* the IOPDDL bridge's, when has_bridge */
    pp_shard_source chosen;
    const uint8_t *axes;           /* the chosen plan's layout, owned by search or bridge */
    pp_shard_cost cost;            /* the chosen plan's figures */
    double memory;                 /* the limit used */
    bool fits;                     /* the chosen plan's peak is within memory */
    bool tie_break;                /* chosen, though slower, for its smaller peak (times
                                      within PP_SHARD_TIME_TIE) */
} pp_shard_plan_result;

#pragma GCC visibility pop

#endif
