/* parplan version: the release this header belongs to, the library's own at
 * run time, and what a release promises to keep.
 *
 * Stability. Releases are numbered MAJOR.MINOR.PATCH. While MAJOR is 0 the
 * shared library's soname is libparplan.so.0.MINOR: a PATCH release keeps
 * every declaration and struct layout; a MINOR release may change them, and
 * then gets a new soname, so a program is never run against a library whose
 * structs differ from the ones it was compiled with.
 * - Stable (changed only with notice in a MINOR release): version.h, core.h's
 *   status values, errors, clock and stop flag; iopddl.h; sched.h;
 *   cluster.h's cluster reader (pp_cluster_load), and the jobs of
 *   cluster_request.h (pp_cluster_plan_run, pp_cluster_simulate_run);
 *   shard_plan.h and shard_report.h; hw.h's catalog. These are the calls
 *   the Python module `parplan` is built on.
 * - 0.3 (notice): the workload, plan and events readers and
 *   pp_cluster_plan_search are internal now (the jobs read and re-plan);
 *   the shard reader and writers left shard.h and shard_write.h for
 *   pp_shard_run; the IOPDDL builder and in-memory readers left iopddl.h
 *   (pp_iopddl_run, pp_iopddl_eval_run read); plan.h's stage and report
 *   gained fields (stage modules, holds_backward, the Megatron baseline).
 * - 0.4 (notice): core.h, hw.h, hw_net.h, timeline.h and sched.h keep what
 *   the requests and reports carry and what a front door calls; arenas, the
 *   deadline calls, the random generator, users' catalog files, the
 *   collectives and the roofline, drawing a timeline, and the scheduler's
 *   builder, readers, checker, bounds and solver are internal (pp_sched_run
 *   and pp_sched_check_run read, solve and check), as are options.h's
 *   pp_option_check_solver and pp_option_check_choice (the request checks
 *   apply them), and shard.h's and shard_plan.h's calls beneath pp_shard_run
 *   (the analysis, pp_shard_plan, the cost model, the roles); shard_plan.h
 *   keeps the types pp_shard_run's outcome carries; cluster.h's calls
 *   beneath its jobs (the in-memory reader, making, validating and freeing
 *   plans and workloads, pp_cluster_simulate and its report's free) and
 *   plan.h's two checks (pp_plan runs both) are internal too.
 * - Evolving (may change in any MINOR release): shard.h, shard_bridge.h and
 *   shard_write.h (the sharder's analysis internals, exposed for the CLI and
 *   the tests), shard_sched.h (model graphs for the scheduler, new),
 *   hw_net.h, timeline.h, and every struct field a header marks as the
 *   solver's working state.
 * Only names declared in include/parplan/ are exported from libparplan.so;
 * every other symbol of the library is hidden. */
#ifndef PARPLAN_VERSION_H
#define PARPLAN_VERSION_H

/* CMakeLists.txt reads the version from these three lines. */
#define PP_VERSION_MAJOR 0
#define PP_VERSION_MINOR 4
#define PP_VERSION_PATCH 0

#define PP_VERSION_STRING_(a, b, c) #a "." #b "." #c
#define PP_VERSION_STRING(a, b, c) PP_VERSION_STRING_(a, b, c)
/* "MAJOR.MINOR.PATCH" of the headers a program was compiled with. */
#define PP_VERSION PP_VERSION_STRING(PP_VERSION_MAJOR, PP_VERSION_MINOR, PP_VERSION_PATCH)
/* One number that orders releases: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define PP_VERSION_NUMBER (PP_VERSION_MAJOR * 10000 + PP_VERSION_MINOR * 100 + PP_VERSION_PATCH)

#pragma GCC visibility push(default) /* exported from libparplan.so */

/* The version of the library actually linked or loaded, as PP_VERSION spells
 * it: compare the two to detect a program run against another release. */
const char *pp_version(void);

#pragma GCC visibility pop

#endif
