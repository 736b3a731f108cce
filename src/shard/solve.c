/* solve.c: the sharder's pipeline as library calls (issue 15): read, check,
 * inline and analyse a model; then the two searches under one deadline (the
 * MCTS of search.c and the IOPDDL bridge of bridge_solve.c), the memory
 * limit's default and the choice of the winner. The searches look at
 * different spaces (whole colors against per-op strategies) and each has won
 * on a measured model, so both run by default. */
#include <math.h>
#include <string.h>
#include "parplan/shard_plan.h"
#include "shard/bridge_internal.h"
#include "shard/request_internal.h"
#include "shard/shard_internal.h"

/* The stages after reading, for both readers. */
static pp_status analyse(pp_status st, pp_shard_analysis *out, pp_error *err)
{
    if (st == PP_OK)
        st = pp_shard_module_flatten(out->module, 0, &out->flat, err);
    if (st == PP_OK)
        st = pp_shard_nda_run(out->flat, &out->nda, err);
    return st;
}

pp_status pp_shard_analysis_load(const char *path, pp_shard_analysis *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    return analyse(pp_shard_module_load(path, &out->module, err), out, err);
}

pp_status pp_shard_analysis_parse(const char *name, const char *text, size_t size, pp_shard_analysis *out,
                                  pp_error *err)
{
    memset(out, 0, sizeof *out);
    return analyse(pp_shard_module_parse(name, text, size, &out->module, err), out, err);
}

void pp_shard_analysis_free(pp_shard_analysis *a)
{
    pp_shard_nda_free(a->nda);
    pp_shard_flat_free(a->flat);
    pp_shard_module_free(a->module);
    memset(a, 0, sizeof *a);
}

double pp_shard_memory_limit(const pp_shard_mesh *mesh, double memory)
{
    return memory > 0 ? memory : mesh->device->memory_bytes;
}

pp_status pp_shard_searches_parse(const char *text, pp_shard_searches *out, pp_error *err)
{
    static const struct {
        const char *name;
        pp_shard_searches searches;
    } names[] = {{"mcts", PP_SHARD_RUN_MCTS}, {"iopddl", PP_SHARD_RUN_IOPDDL}, {"both", PP_SHARD_RUN_BOTH}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(text, names[k].name) == 0) {
            *out = names[k].searches;
            return PP_OK;
        }
    return pp_error_set(err, PP_EARG, "search '%s': expected mcts, iopddl or both", text);
}

void pp_shard_plan_options_default(pp_shard_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->time_limit = 60;
    o->seed = 1;
    o->searches = PP_SHARD_RUN_BOTH;
}

/* The MCTS's share of the time left when the bridge follows it, and the
 * least share of o->time_limit either search gets. */
#define MCTS_SHARE 0.8
#define MIN_SHARE 0.05
/* The bridge's rounds: fixed, so that a seed and a thread count give one plan. */
enum { BRIDGE_ROUNDS = 200 };
/* What the caller does with the plan by the same deadline (the report
 * prices every baseline, the writer reads the module back), in whole-model
 * cost evaluations: a 96-layer GPT on 64 devices took 2 s after its
 * searches, about 90 of the MCTS's evaluations. The bridge stops that much
 * earlier, so a deep model's command ends within its --timeout. */
#define AFTER_PLAN_EVALUATIONS 100.0
/* Building the bridge's problem prices every strategy of every op before
 * the solver's clock starts: about 300 evaluations' worth (3 s for a
 * 96-layer GPT whose evaluation takes 9 ms). When the deadline leaves less
 * than that and the solver's least share, the bridge is not run: the MCTS's
 * plan stands rather than the command overrunning its --timeout. */
#define BRIDGE_BUILD_EVALUATIONS 300.0

static double at_least(double seconds, const pp_shard_plan_options *o)
{
    return seconds > MIN_SHARE * o->time_limit ? seconds : MIN_SHARE * o->time_limit;
}

static pp_status run_mcts(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                          const pp_shard_plan_options *o, const pp_deadline *deadline, pp_shard_plan_result *out,
                          pp_error *err)
{
    pp_shard_search_options so;
    pp_shard_search_options_default(&so);
    bool share = o->searches & PP_SHARD_RUN_IOPDDL;
    so.memory = out->memory;
    so.time_limit = at_least(pp_deadline_left(deadline) - (share ? (1 - MCTS_SHARE) * o->time_limit : 0), o);
    so.threads = o->threads;
    so.seed = o->seed;
    so.on_progress = o->on_progress;
    so.progress_ctx = o->progress_ctx;
    so.stop = deadline->stop;
    pp_status st = pp_shard_search(flat, nda, mesh, &so, &out->search, err);
    out->has_search = st == PP_OK;
    return st;
}

/* The IOPDDL solver's progress as the sharder's: the bridge's costs are
 * picoseconds of step time. */
static void bridge_progress(void *ctx, const pp_iopddl_progress *p)
{
    const pp_shard_plan_options *o = ctx;
    bool has_best = p->best_cost >= 0 && p->best_cost < PP_IOPDDL_FORBIDDEN;
    pp_shard_progress shown = {"iopddl", p->elapsed, p->rounds, has_best ? 1e-12 * (double)p->best_cost : INFINITY};
    o->on_progress(o->progress_ctx, &shown);
}

static pp_status run_bridge(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                            const pp_shard_plan_options *o, const pp_deadline *deadline, pp_shard_plan_result *out,
                            pp_error *err)
{
    pp_iopddl_options io;
    pp_iopddl_options_default(&io);
    double after = 0, build = 0;
    if (out->has_search && out->search.evaluations > 0) {
        int32_t workers = o->threads > 0 ? o->threads : pp_cpu_count();
        double evaluation = out->search.seconds * (workers < 64 ? workers : 64) / (double)out->search.evaluations;
        after = AFTER_PLAN_EVALUATIONS * evaluation;
        build = BRIDGE_BUILD_EVALUATIONS * evaluation;
        if (pp_deadline_left(deadline) - after - build < MIN_SHARE * o->time_limit)
            return PP_OK;
    }
    io.time_limit = at_least(pp_deadline_left(deadline) - after - build, o);
    io.threads = o->threads;
    io.seed = o->seed;
    io.max_rounds = BRIDGE_ROUNDS;
    io.stop = deadline->stop;
    if (o->on_progress) {
        io.on_progress = bridge_progress;
        io.progress_ctx = (void *)o;
    }
    pp_status st = pp_shard_bridge_plan_solve(flat, nda, mesh, out->memory, &io, &out->bridge, err);
    out->has_bridge = st == PP_OK;
    return st;
}

pp_status pp_shard_plan(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                        const pp_shard_plan_options *o, const pp_deadline *deadline, pp_shard_plan_result *out,
                        pp_error *err)
{
    memset(out, 0, sizeof *out);
    out->memory = pp_shard_memory_limit(mesh, o->memory);
    pp_deadline own = deadline ? *deadline : pp_deadline_in(o->time_limit);
    if (o->stop)
        own.stop = o->stop;
    deadline = &own;
    if (!(o->searches & PP_SHARD_RUN_BOTH))
        return pp_error_set(err, PP_EARG, "planning: no search asked for");
    pp_status st = PP_OK;
    if (o->searches & PP_SHARD_RUN_MCTS)
        st = run_mcts(flat, nda, mesh, o, deadline, out, err);
    if (st == PP_OK && (o->searches & PP_SHARD_RUN_IOPDDL))
        st = run_bridge(flat, nda, mesh, o, deadline, out, err);
    if (st != PP_OK) {
        pp_shard_plan_free(out);
        return st;
    }
    pp_shard_plan_choose(out);
    return PP_OK;
}

void pp_shard_plan_choose(pp_shard_plan_result *out)
{
    const pp_shard_cost *s = out->has_search ? &out->search.cost : NULL;
    const pp_shard_cost *b = out->has_bridge ? &out->bridge.cost : NULL;
    out->chosen = !s || (b && pp_shard_cost_better(b, s, out->memory)) ? PP_SHARD_FROM_IOPDDL : PP_SHARD_FROM_MCTS;
    const pp_shard_cost *won = out->chosen == PP_SHARD_FROM_MCTS ? s : b;
    const pp_shard_cost *lost = out->chosen == PP_SHARD_FROM_MCTS ? b : s;
    out->axes = out->chosen == PP_SHARD_FROM_MCTS ? out->search.axes : out->bridge.axes;
    out->cost = *won;
    out->fits = won->peak_memory <= out->memory;
    out->tie_break = lost && won->runtime > lost->runtime && out->fits == (lost->peak_memory <= out->memory);
}

void pp_shard_plan_free(pp_shard_plan_result *r)
{
    if (r->has_search)
        pp_shard_search_result_free(&r->search);
    if (r->has_bridge)
        pp_shard_bridge_plan_free(&r->bridge);
    memset(r, 0, sizeof *r);
}
