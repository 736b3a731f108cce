/* uniform.c: pp_cluster_uniform_best, the Megatron-LM baseline: every
 * (tp, pp, dp, micro-batch) that pp_cluster_plan_uniform accepts, with ranks
 * laid on the devices alive at the start time in order (a lost device's rank
 * goes to the next live one), simulated; the fastest that fits wins. Plans
 * on fewer devices than are alive are tried too (tp * pp * dp below the live
 * count), as a user with 12 devices and a model that splits 8 ways would
 * run. Megatron has one recomputation flag for all stages: both values are
 * tried. The first in (tp, pp, dp, micro-batch, recompute off then on)
 * order wins ties. */
#include "cluster/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int live_devices(const pp_cluster *c, double t, int *live)
{
    int n = 0;
    for (int d = 0; d < c->device_count; d++)
        if (pp_cluster_device_alive_at(c, d, t))
            live[n++] = d;
    return n;
}

/* The plan's step time, INFINITY when it does not fit or cannot run. */
static pp_status time_of(const pp_cluster *c, const pp_cluster_workload *w,
                         const pp_cluster_plan *p, double t, double *time, pp_error *err)
{
    pp_cluster_sim_options so = {t, NULL};
    pp_cluster_report rep;
    memset(&rep, 0, sizeof rep);
    pp_status s = pp_cluster_simulate(c, w, p, &so, &rep, err);
    *time = s == PP_OK && rep.fits ? rep.step_time : INFINITY;
    pp_cluster_report_free(&rep);
    return s;
}

typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    double start_time;
    const int *live;
    pp_cluster_plan *best;
    double best_time;
} uniform_search;

static pp_status try_one(uniform_search *u, int tp, int pp, int dp, int mb, bool recompute,
                         pp_error *err)
{
    pp_cluster_plan *p = NULL;
    pp_error ignored = {0};
    if (pp_cluster_plan_uniform(u->c, u->w, tp, pp, dp, mb, &p, &ignored) != PP_OK)
        return PP_OK;
    for (int s = 0; s < pp; s++)
        p->stage_recompute[s] = recompute;
    int slots = dp * pp_cluster_plan_members(p);
    for (int i = 0; i < slots; i++)
        p->devices[i] = u->live[p->devices[i]];
    double time = INFINITY;
    pp_status s = PP_OK;
    if (pp_cluster_plan_validate(u->c, u->w, p, &ignored) == PP_OK)
        s = time_of(u->c, u->w, p, u->start_time, &time, err);
    if (s == PP_OK && time < u->best_time) {
        pp_cluster_plan_free(u->best);
        u->best = p;
        u->best_time = time;
        return PP_OK;
    }
    pp_cluster_plan_free(p);
    return s;
}

static pp_status try_all(uniform_search *u, int live, pp_error *err)
{
    const pp_cluster_workload *w = u->w;
    for (int tp = 1; tp <= live; tp++) {
        if (w->tp_divisor % tp != 0)
            continue;
        for (int pp = 1; pp <= w->layer_count && tp * pp <= live; pp++) {
            if (w->layer_count % pp != 0)
                continue;
            for (int dp = 1; tp * pp * dp <= live; dp++)
                for (int64_t mb = 1; mb * dp <= w->global_batch && mb <= (1 << 20); mb *= 2) {
                    if (w->global_batch % (mb * dp) != 0)
                        continue;
                    for (int rc = 0; rc <= 1; rc++) {
                        pp_status s = try_one(u, tp, pp, dp, (int)mb, rc == 1, err);
                        if (s != PP_OK)
                            return s;
                    }
                }
        }
    }
    return PP_OK;
}

pp_status pp_cluster_uniform_best(const pp_cluster *c, const pp_cluster_workload *w,
                                  double start_time, pp_cluster_plan **out, double *time,
                                  pp_error *err)
{
    if (!c || !w || !out || !time)
        return pp_error_set(err, PP_EARG, "pp_cluster_uniform_best: NULL argument");
    *out = NULL;
    *time = INFINITY;
    int *live = malloc((size_t)c->device_count * sizeof(int) + 1);
    if (!live)
        return pp_error_set(err, PP_ENOMEM, "out of memory listing live devices");
    uniform_search u = {c, w, start_time, live, NULL, INFINITY};
    pp_status s = try_all(&u, live_devices(c, start_time, live), err);
    free(live);
    if (s != PP_OK) {
        pp_cluster_plan_free(u.best);
        return s;
    }
    *out = u.best;
    *time = u.best_time;
    return PP_OK;
}
