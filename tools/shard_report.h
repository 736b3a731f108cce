/* shard_report.h: what `parplan shard --mesh` prints: the plan beside the
 * unsharded module, the expert baselines and the two searches (MCTS and the
 * IOPDDL bridge), all priced by the same cost model, as text or JSON. */
#ifndef PP_TOOLS_SHARD_REPORT_H
#define PP_TOOLS_SHARD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "parplan/core.h"
#include "parplan/shard.h"
#include "parplan/shard_bridge.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"

enum {
    SHARD_ROW_UNSHARDED,
    SHARD_ROW_DATA_PARALLEL,
    SHARD_ROW_MEGATRON,
    SHARD_ROW_COMBINED,
    SHARD_ROW_EXPERT,
    SHARD_ROW_FSDP,
    SHARD_ROW_MCTS,
    SHARD_ROW_IOPDDL,
    SHARD_REPORT_ROWS
};

typedef struct {
    const char *name;
    bool ok;
    pp_shard_cost cost;
    char note[sizeof(((pp_error *)0)->message)]; /* why a row does not apply */
} shard_report_row;

typedef struct {
    const char *model, *mesh_text;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    double memory;
    const pp_shard_search_result *search; /* NULL when the MCTS did not run */
    const pp_shard_bridge_plan *bridge;   /* NULL when the bridge did not run */
    const char *solution;                 /* the IOPDDL solution file applied, or NULL */
    int chosen;                           /* SHARD_ROW_MCTS or SHARD_ROW_IOPDDL */
    bool tie_break;                       /* chosen, though slower, for its smaller peak (times tied) */
    const uint8_t *axes;                  /* the plan's layout */
    shard_report_row rows[SHARD_REPORT_ROWS];
    const char *out;             /* the sharded module written, or NULL */
    pp_shard_write_stats written; /* what it carries, read back */
} shard_report;

/* The report of a plan's candidates (pp_shard_plan chose among them). */
pp_status shard_report_build(shard_report *r, const char *model, const char *mesh_text, const pp_shard_nda *nda,
                             const pp_shard_mesh *mesh, const pp_shard_plan_result *plan, pp_error *err);

/* "91.9 MB": three significant figures, decimal units. */
const char *shard_bytes_text(double bytes, char *buf, size_t size);

pp_status shard_report_write_text(const shard_report *r, FILE *out, pp_error *err);
pp_status shard_report_write_json(const shard_report *r, FILE *out, pp_error *err);

#endif
