/* solve.c: pp_cluster_plan_search, the planner's pipeline as one library
 * call: the plan space at the start time and its branches, the incumbents
 * (the best Megatron-uniform plan, the warm start when it still runs),
 * the branches ranked by root bound, the branch-and-bound (search.c), and
 * its answer with the uniform plan's and the warm start's times. */
#include "cluster/search.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/moment.h"
#include "cluster/plan.h"
#include "cluster/solve.h"

/* The warm start counts when it is valid and every device it uses is there. */
static pp_status warm_start(cluster_search *sh, pp_arena *a, pp_cluster_plan_result *out,
                            pp_error *err)
{
    const pp_cluster_plan *old = sh->o->warm_start;
    pp_error ignored = {0};
    if (!old || pp_cluster_plan_validate(sh->c, sh->w, old, &ignored) != PP_OK)
        return PP_OK;
    int slots = old->replica_count * pp_cluster_plan_members(old);
    for (int i = 0; i < slots; i++)
        if (!pp_cluster_device_alive_at(sh->c, old->devices[i], sh->o->start_time))
            return PP_OK;
    double *peak = pp_arena_calloc(a, (size_t)sh->c->device_count + 1, sizeof(double));
    if (!peak)
        return pp_error_set(err, PP_ENOMEM, "out of memory judging the warm start");
    double time = INFINITY;
    pp_cluster_report report = {0};
    pp_status s = cluster_search_fits(sh->c, sh->w, old, peak)
                      ? cluster_search_simulate(sh, old, INFINITY, &time, &report, err)
                      : PP_OK;
    if (s != PP_OK) {
        pp_cluster_report_free(&report);
        return s;
    }
    sh->simulations++;
    out->warm_time = time;
    if (isfinite(time)) {
        pp_cluster_plan *copy = pp_cluster_plan_copy(old);
        if (!copy) {
            pp_cluster_report_free(&report);
            return pp_error_set(err, PP_ENOMEM, "out of memory copying the warm start");
        }
        cluster_search_offer(sh, copy, &report, time, CLUSTER_KEY_WARM, NULL, NULL, 0);
    }
    return PP_OK;
}

static pp_status uniform_incumbent(cluster_search *sh, int threads, pp_cluster_plan_result *out,
                                   pp_error *err)
{
    pp_status s = cluster_uniform_best(sh->c, sh->w, sh->o->start_time, &sh->clock, threads, &out->uniform,
                                       &out->uniform_time, &out->uniform_report, err);
    if (s != PP_OK || !out->uniform)
        return s;
    pp_cluster_plan *copy = pp_cluster_plan_copy(out->uniform);
    pp_cluster_report report = {0};
    if (!copy || !cluster_report_copy(&out->uniform_report, &report)) {
        pp_cluster_plan_free(copy);
        return pp_error_set(err, PP_ENOMEM, "out of memory copying the uniform plan");
    }
    cluster_search_offer(sh, copy, &report, out->uniform_time, CLUSTER_KEY_UNIFORM, NULL, NULL, 0);
    return PP_OK;
}

static void finish(cluster_search *sh, pp_cluster_plan_result *out)
{
    bool complete = true;
    double lower = sh->best_time;
    for (int i = 0; i < sh->branch_count; i++)
        if (!sh->done[i]) {
            complete = false;
            lower = fmin(lower, sh->branches[i].root_bound);
        }
    out->complete = complete;
    out->lower_bound = lower;
    out->best = sh->best;
    out->best_report = sh->best_report;
    sh->best_report = (pp_cluster_report){0};
    out->best_time = sh->best_time;
    out->nodes = sh->nodes;
    out->simulations = sh->simulations;
    sh->best = NULL;
}

static pp_status solve(cluster_search *sh, pp_arena *a, pp_cluster_plan_result *out, pp_error *err)
{
    cluster_space space;
    pp_status s = cluster_space_build(sh->c, sh->o->start_time, a, &space, err);
    if (s != PP_OK)
        return s;
    space.max_context_parallel = sh->o->max_context_parallel;
    sh->space = &space;
    s = cluster_branches(&space, sh->w, a, &sh->branches, &sh->branch_count, err);
    if (s != PP_OK)
        return s;
    sh->done = pp_arena_calloc(a, (size_t)sh->branch_count + 1, sizeof(bool));
    sh->best_layers = pp_arena_calloc(a, (size_t)sh->w->layer_count + 1, sizeof(int));
    sh->best_replay = pp_arena_calloc(a, (size_t)sh->w->layer_count + 1, sizeof(bool));
    if (!sh->done || !sh->best_layers || !sh->best_replay)
        return pp_error_set(err, PP_ENOMEM, "out of memory listing the branches");
    int threads = sh->o->threads > 0 ? sh->o->threads : pp_cpu_count();
    if ((s = uniform_incumbent(sh, threads, out, err)) != PP_OK || (s = warm_start(sh, a, out, err)) != PP_OK)
        return s;
    if (!cluster_search_rank(sh, threads))
        return pp_error_set(err, PP_ENOMEM, "out of memory ranking the branches");
    if ((s = cluster_search_run(sh, threads, err)) != PP_OK)
        return s;
    if (sh->status != PP_OK)
        return pp_error_set(err, sh->status, "%s", sh->err.message);
    finish(sh, out);
    return PP_OK;
}

pp_status pp_cluster_plan_search(const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan_options *o, pp_cluster_plan_result *out,
                                 pp_error *err)
{
    if (!c || !w || !o || !out)
        return pp_error_set(err, PP_EARG, "pp_cluster_plan_search: NULL argument");
    memset(out, 0, sizeof *out);
    out->best_time = out->uniform_time = out->warm_time = out->lower_bound = INFINITY;
    if (o->time_limit < 0 || o->threads < 0 || w->layer_count < 1 || w->global_batch < 1)
        return pp_error_set(err, PP_EARG,
                            "pp_cluster_plan_search: negative timeout or threads, or an empty "
                            "workload");
    double started = pp_now();
    cluster_search sh = {.c = c, .w = w, .o = o, .best_time = INFINITY, .best_seen = INFINITY,
                       .best_branch = INT32_MAX, .started = started};
    sh.clock.deadline = o->time_limit > 0 ? pp_deadline_in(o->time_limit) : (pp_deadline){0};
    sh.clock.deadline.stop = o->stop;
    sh.clock.grace = sh.clock.deadline.at + fmin(0.25 * o->time_limit, 0.4 + 0.01 * o->time_limit);
    sh.clock.reserve = o->reserve_simulations;
    pthread_mutex_init(&sh.lock, NULL);
    pp_arena *a = pp_arena_new(1 << 16);
    pp_status s = a ? solve(&sh, a, out, err)
                    : pp_error_set(err, PP_ENOMEM, "out of memory starting the search");
    pp_cluster_plan_free(sh.best);
    pp_cluster_report_free(&sh.best_report);
    pp_arena_free(a);
    pthread_mutex_destroy(&sh.lock);
    out->seconds = pp_now() - started;
    if (s != PP_OK)
        pp_cluster_plan_result_free(out);
    return s;
}

void pp_cluster_plan_result_free(pp_cluster_plan_result *r)
{
    if (!r)
        return;
    pp_cluster_plan_free(r->best);
    pp_cluster_plan_free(r->uniform);
    pp_cluster_report_free(&r->best_report);
    pp_cluster_report_free(&r->uniform_report);
    r->best = r->uniform = NULL;
}
