/* report.c: a plan's step and a search's answer as both front doors
 * report them (see parplan/cluster_request.h): the simulation at a moment
 * that must end, the answer's independent check, the steps of the best and
 * the uniform plan, the speed-up and the ideal step. The CLI and Python
 * only render what these return. */
#include <math.h>
#include "cluster/report.h"
#include "cluster/check.h"
#include "cluster/moment.h"
#include "cluster/plan.h"

static pp_status ends(pp_status st, const pp_cluster_report *out, double at, pp_error *err)
{
    if (st == PP_OK && !isfinite(out->step_time))
        st = pp_error_set(err, PP_INFEASIBLE,
                          "the plan cannot run at time %g: a transfer it needs waits for ever on a link "
                          "that is down or too slow to finish in finite time",
                          at);
    return st;
}

pp_status pp_cluster_simulate_at(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                 const pp_cluster_sim_options *o, pp_cluster_report *out, pp_error *err)
{
    return ends(pp_cluster_simulate(c, w, p, o, out, err), out, o->start_time, err);
}

static void take(pp_cluster_report *from, pp_cluster_report *to)
{
    *to = *from;
    *from = (pp_cluster_report){0};
}

/* The best plan's step as o asks (drawn or not) under d. A drawing cut
 * short takes its figures from the search's own simulation of the plan
 * (simulated again without a timeline when the search kept none). */
static pp_status simulate_best(const pp_cluster *c, const pp_cluster_workload *w, pp_cluster_plan_result *r,
                               const pp_cluster_sim_options *o, const cluster_drawing *d,
                               pp_cluster_report *best, bool *cut, pp_error *err)
{
    pp_status st = cluster_simulate_drawing(c, w, r->best, o, d, best, cut, err);
    if (st != PP_OK || !*cut)
        return ends(st, best, o->start_time, err);
    long left_out = best->boxes_left_out;
    const pp_cluster_sim_options plain = {.start_time = o->start_time};
    if (r->best_report.compute)
        take(&r->best_report, best);
    else
        st = pp_cluster_simulate_at(c, w, r->best, &plain, best, err);
    best->boxes_left_out = left_out;
    return st;
}

/* The step's figures alone (no per-device arrays): the uniform plan's when
 * it is the best plan. */
static pp_cluster_report figures_of(const pp_cluster_report *r)
{
    return (pp_cluster_report){.step_time = r->step_time, .samples_per_second = r->samples_per_second,
                               .tflops_per_device = r->tflops_per_device, .fits = r->fits};
}

pp_status pp_cluster_plan_summarize(const pp_cluster *c, const pp_cluster_workload *w, pp_cluster_plan_result *r,
                                    const pp_cluster_sim_options *o, const cluster_drawing *d,
                                    pp_cluster_plan_summary *out, bool *cut, pp_error *err)
{
    *cut = false;
    double at = o->start_time;
    const pp_cluster_sim_options plain = {.start_time = at};
    *out = (pp_cluster_plan_summary){.speedup = INFINITY};
    if (!r->best)
        return pp_error_set(err, PP_INFEASIBLE, r->complete
                                                    ? "no plan fits the workload in the cluster's memory"
                                                    : "no plan that fits was found within the time limit (the "
                                                      "search did not finish; a longer timeout may find one)");
    pp_status st = pp_cluster_plan_check(c, w, r->best, at, err);
    if (st == PP_OK && (o->timeline || !r->best_report.compute))
        st = simulate_best(c, w, r, o, d, &out->best, cut, err);
    else if (st == PP_OK)
        take(&r->best_report, &out->best);
    out->has_uniform = r->uniform != NULL;
    bool same = out->has_uniform && pp_cluster_plan_equal(r->best, r->uniform);
    if (st == PP_OK && same)
        out->uniform = figures_of(&out->best);
    else if (st == PP_OK && out->has_uniform && r->uniform_report.compute)
        take(&r->uniform_report, &out->uniform);
    else if (st == PP_OK && out->has_uniform)
        st = pp_cluster_simulate_at(c, w, r->uniform, &plain, &out->uniform, err);
    if (st == PP_OK && out->has_uniform)
        out->speedup = out->uniform.step_time / out->best.step_time;
    out->ideal = pp_cluster_ideal_step_time(c, w, at);
    return st;
}

void pp_cluster_plan_summary_free(pp_cluster_plan_summary *s)
{
    pp_cluster_report_free(&s->best);
    pp_cluster_report_free(&s->uniform);
}
