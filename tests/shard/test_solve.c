/* test_solve.c: the pipeline as one library call (src/shard/solve.c):
 * the analysis of a file with its static-shape check; both searches on the
 * paper's attention block, the winner the better of the two by
 * pp_shard_cost_better and its layout the winner's; one search alone; a
 * deadline already passed still gives both searches their least share, so
 * a plan comes back; the memory default is the device's; progress reaches
 * the caller from both searches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "parplan/shard_plan.h"
#include "shard/shard_plan_internal.h"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

/* What the progress callback saw of each search: its last report. */
typedef struct {
    int mcts_calls, bridge_calls;
    int64_t mcts_rounds;
    double mcts_best, bridge_best;
    bool rounds_decreased;
} seen_progress;

static void record(void *ctx, const pp_shard_progress *p)
{
    seen_progress *seen = ctx;
    if (strcmp(p->stage, "iopddl") == 0) {
        seen->bridge_calls++;
        seen->bridge_best = p->best_runtime;
        return;
    }
    seen->rounds_decreased |= p->rounds < seen->mcts_rounds;
    seen->mcts_rounds = p->rounds;
    seen->mcts_best = p->best_runtime;
    seen->mcts_calls++;
}

static void test_both(const pp_shard_analysis *a, const pp_shard_mesh *mesh)
{
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    o.time_limit = 10;
    seen_progress seen = {0};
    o.on_progress = record;
    o.progress_ctx = &seen;
    pp_shard_plan_result r;
    pp_error err = {0};
    CHECK(pp_shard_plan(a->flat, a->nda, mesh, &o, NULL, &r, &err) == PP_OK);
    CHECK(r.has_search && r.has_bridge);
    /* Progress: every MCTS round and polish step reported, in order, the
     * last with the search's own best; the bridge's answer reported in
     * seconds (its costs are picoseconds). */
    CHECK(seen.mcts_calls == r.search.rounds + r.search.polish_steps && !seen.rounds_decreased);
    CHECK(seen.mcts_best == r.search.cost.runtime);
    CHECK(seen.bridge_calls > 0 && seen.bridge_best > 0 && seen.bridge_best < INFINITY);
    CHECK(r.memory == dev.memory_bytes);
    const pp_shard_cost *won = r.chosen == PP_SHARD_FROM_MCTS ? &r.search.cost : &r.bridge.cost;
    const pp_shard_cost *lost = r.chosen == PP_SHARD_FROM_MCTS ? &r.bridge.cost : &r.search.cost;
    CHECK(!pp_shard_cost_better(lost, won, r.memory));
    CHECK(r.axes == (r.chosen == PP_SHARD_FROM_MCTS ? r.search.axes : r.bridge.axes));
    CHECK(r.cost.runtime == won->runtime && r.fits);
    CHECK(r.cost.runtime < r.search.initial.runtime); /* sharding the block pays on 4 devices */
    pp_shard_plan_free(&r);
}

static void test_one_and_deadline(const pp_shard_analysis *a, const pp_shard_mesh *mesh)
{
    pp_shard_plan_options o;
    pp_shard_plan_options_default(&o);
    o.threads = 1;
    o.time_limit = 2;
    o.searches = PP_SHARD_RUN_IOPDDL;
    o.memory = 1e6;
    pp_shard_plan_result r;
    pp_error err = {0};
    pp_deadline passed = pp_deadline_in(1e-9);
    CHECK(pp_shard_plan(a->flat, a->nda, mesh, &o, &passed, &r, &err) == PP_OK);
    CHECK(!r.has_search && r.has_bridge && r.chosen == PP_SHARD_FROM_IOPDDL && r.memory == 1e6);
    CHECK(r.fits == (r.bridge.cost.peak_memory <= 1e6));
    pp_shard_plan_free(&r);
    o.searches = 0;
    CHECK(pp_shard_plan(a->flat, a->nda, mesh, &o, NULL, &r, &err) == PP_EARG);
}

int main(void)
{
    pp_shard_analysis a;
    pp_error err = {0};
    CHECK(pp_shard_analysis_load(PP_DATA_DIR "/attention.mlir", &a, &err) == PP_OK);
    if (a.nda) {
        pp_shard_mesh mesh = mesh_on("b=2,m=2", &dev, pp_shard_default_link());
        test_both(&a, &mesh);
        test_one_and_deadline(&a, &mesh);
    }
    pp_shard_analysis_free(&a);
    CHECK(pp_shard_analysis_load(PP_DATA_DIR "/missing.mlir", &a, &err) == PP_EIO && a.module == NULL);
    return CHECK_DONE();
}
