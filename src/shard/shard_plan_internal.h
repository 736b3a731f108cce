/* shard_plan_internal.h: the sharder's pipeline as pp_shard_run (and
 * src/plan, which shards each stage) calls it: a model read and analysed
 * (pp_shard_analysis_load), then planned on a mesh by both searches under
 * one deadline, the winner chosen, with the memory limit's default
 * (pp_shard_plan). */
#ifndef PP_SHARD_PLAN_INTERNAL_H
#define PP_SHARD_PLAN_INTERNAL_H

#include "parplan/shard_plan.h"
#include "core/core_internal.h"

/* PP_EIO / PP_EINPUT as pp_shard_module_load, pp_shard_module_flatten and
 * pp_shard_nda_run say. *out keeps the stages
 * done (the module once read, so its warnings can still be shown): free it
 * with pp_shard_analysis_free whatever the status. */
pp_status pp_shard_analysis_load(const char *path, pp_shard_analysis *out, pp_error *err);
/* The same for size bytes of StableHLO text, `name` standing for the file. */
pp_status pp_shard_analysis_parse(const char *name, const char *text, size_t size, pp_shard_analysis *out,
                                  pp_error *err);
void pp_shard_analysis_free(pp_shard_analysis *a);

typedef enum { PP_SHARD_RUN_MCTS = 1, PP_SHARD_RUN_IOPDDL = 2, PP_SHARD_RUN_BOTH = 3 } pp_shard_searches;

typedef struct {
    double memory;    /* bytes per device; <= 0: the device's (pp_shard_memory_limit) */
    double time_limit; /* seconds for the whole plan when no deadline is given, and the
                          scale of each search's share of it: 60 */
    int32_t threads;  /* <= 0: the machine's cores */
    uint64_t seed;    /* 1 */
    pp_shard_searches searches; /* both */
    pp_shard_progress_fn on_progress; /* the MCTS's rounds and the bridge's, as each search
                                         reports them; NULL: none */
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none
                                 (a deadline given to pp_shard_plan keeps its own flag too) */
} pp_shard_plan_options;

void pp_shard_plan_options_default(pp_shard_plan_options *o);

/* Runs the searches o asks for, the MCTS first with at most 80% of the time
 * left when the bridge follows, the bridge with the rest (at least 5% of
 * o->time_limit, so that it answers) less what building its problem and the
 * caller's report will take, estimated from the MCTS's evaluations; when that
 * leaves less than the 5%, the bridge is not run (has_bridge false). Both stop
 * by `deadline` (NULL: o->time_limit from now). The bridge runs a fixed 200 rounds within that, so that a seed
 * and a thread count give one plan. Then pp_shard_plan_choose. PP_EINPUT as
 * the searches say (a mesh that shards nothing); *out is then empty. A plan
 * that does not fit is still a result (fits false): the caller decides. */
pp_status pp_shard_plan(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                        const pp_shard_plan_options *o, const pp_deadline *deadline, pp_shard_plan_result *out,
                        pp_error *err);

void pp_shard_plan_free(pp_shard_plan_result *r);

#endif
