/* request_internal.h: what the command's own files share and no front
 * door calls (run.c's pp_shard_run is their one user outside them): the
 * request's options, the mesh a front door names, an applied IOPDDL
 * solution, the planner's choice, the report, the scheduling problem. */
#ifndef PP_SHARD_REQUEST_INTERNAL_H
#define PP_SHARD_REQUEST_INTERNAL_H

#include "parplan/shard_request.h"
#include "parplan/shard_sched.h"
#include "shard/shard_plan_internal.h"

/* The report of a plan's candidates (pp_shard_plan chose among them). */
pp_status pp_shard_report_build(pp_shard_report *r, const char *model, const char *mesh_text, const pp_shard_nda *nda,
                             const pp_shard_mesh *mesh, const pp_shard_plan_result *plan, pp_error *err);

/* The problem of a flattened module. PP_EARG when devices < 1, no device
 * type is given or the link has no bandwidth. */
pp_status pp_shard_to_sched(const pp_shard_flat *flat, const pp_shard_sched_options *o, pp_sched_problem **out,
                            pp_error *err);

/* The memory limit: `memory` when > 0, else the mesh device's capacity. */
double pp_shard_memory_limit(const pp_shard_mesh *mesh, double memory);

/* Sets chosen, axes, cost, fits and tie_break from the candidates out holds
 * (at least one) under out->memory: the better by pp_shard_cost_better. */
void pp_shard_plan_choose(pp_shard_plan_result *out);

/* "mcts", "iopddl" or "both", as the CLI's --search and Python's search=
 * spell them; PP_EARG otherwise. */
pp_status pp_shard_searches_parse(const char *text, pp_shard_searches *out, pp_error *err);

/* The mesh spec names, on the built-in catalog (*catalog: the caller frees
 * it, whatever the status, with pp_hw_catalog_free): PP_EARG listing the
 * known types for an unknown device, PP_EINPUT for a malformed mesh, PP_EARG
 * for a mesh of one device (nothing to shard over). */
pp_status pp_shard_mesh_open(const pp_shard_mesh_spec *spec, pp_hw_catalog **catalog, pp_shard_mesh *mesh,
                             pp_error *err);

/* The plan an IOPDDL solution stands for (the CLI's --apply-iopddl): the
 * problem file read and checked to be the one this model, mesh and memory
 * limit give (pp_shard_bridge_check), the solution read against it, its
 * plan chosen as pp_shard_plan chooses (out->bridge alone; free out with
 * pp_shard_plan_free whatever the status). */
pp_status pp_shard_plan_apply(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                              double memory, const char *problem_path, const char *solution_path,
                              pp_shard_plan_result *out, pp_error *err);

/* The planner's options for a checked r, planning for `budget` seconds. */
void pp_shard_request_options(const pp_shard_request *r, double budget, pp_shard_plan_options *o);

#endif
