/* shard_report.h: the report of a sharding plan, as `parplan shard --mesh`
 * prints it and Python's parplan.shard returns it: the plan beside the
 * unsharded module, the expert baselines and the two searches (MCTS and the
 * IOPDDL bridge), all priced by the same cost model, as text or JSON. */
#ifndef PARPLAN_SHARD_REPORT_H
#define PARPLAN_SHARD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "parplan/core.h"
#include "parplan/shard.h"
#include "parplan/shard_bridge.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

enum {
    PP_SHARD_ROW_UNSHARDED,
    PP_SHARD_ROW_DATA_PARALLEL,
    PP_SHARD_ROW_MEGATRON,
    PP_SHARD_ROW_COMBINED,
    PP_SHARD_ROW_EXPERT,
    PP_SHARD_ROW_FSDP,
    PP_SHARD_ROW_MCTS,
    PP_SHARD_ROW_IOPDDL,
    PP_SHARD_REPORT_ROWS
};

typedef struct {
    const char *name;
    bool ok;
    pp_shard_cost cost;
    char note[sizeof(((pp_error *)0)->message)]; /* why a row does not apply */
} pp_shard_report_row;

typedef struct {
    const char *model, *mesh_text;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    double memory;
    const pp_shard_search_result *search; /* NULL when the MCTS did not run */
    const pp_shard_bridge_plan *bridge;   /* NULL when the bridge did not run */
    const char *solution;                 /* the IOPDDL solution file applied, or NULL */
    int chosen;                           /* PP_SHARD_ROW_MCTS or PP_SHARD_ROW_IOPDDL */
    bool tie_break;                       /* chosen, though slower, for its smaller peak (times tied) */
    const uint8_t *axes;                  /* the plan's layout */
    pp_shard_report_row rows[PP_SHARD_REPORT_ROWS];
    const char *out;             /* the sharded module written, or NULL */
    pp_shard_write_stats written; /* what it carries, read back */
} pp_shard_report;

/* "91.9 MB": three significant figures, decimal units. */
const char *pp_shard_bytes_text(double bytes, char *buf, size_t size);

pp_status pp_shard_report_write_text(const pp_shard_report *r, FILE *out, pp_error *err);
pp_status pp_shard_report_write_json(const pp_shard_report *r, FILE *out, pp_error *err);

#pragma GCC visibility pop

#endif
