/* shard_report.h: what `parplan shard --mesh` prints: the plan the search
 * found beside the unsharded module and the expert baselines, all priced by
 * the same cost model, as text or JSON. */
#ifndef PP_TOOLS_SHARD_REPORT_H
#define PP_TOOLS_SHARD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "parplan/shard.h"

enum { SHARD_REPORT_ROWS = 5 };

typedef struct {
    const char *name;
    bool ok;
    pp_shard_cost cost;
    char note[sizeof(((pp_error *)0)->message)]; /* why a baseline does not apply */
} shard_report_row;

typedef struct {
    const char *model, *mesh_text;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    const pp_shard_search_result *search;
    int32_t threads;
    uint64_t seed;
    const char *solution;  /* the IOPDDL solution applied, NULL for a search */
    double iopddl_cost;    /* its cost in the problem (picoseconds) */
    bool iopddl_feasible;
    shard_report_row rows[SHARD_REPORT_ROWS]; /* unsharded, the three baselines, the plan */
} shard_report;

void shard_report_build(shard_report *r, const char *model, const char *mesh_text, const pp_shard_nda *nda,
                        const pp_shard_mesh *mesh, const pp_shard_search_result *search);
pp_status shard_report_write_text(const shard_report *r, FILE *out, pp_error *err);
pp_status shard_report_write_json(const shard_report *r, FILE *out, pp_error *err);

#endif
