/* report.h: a plan's step and a search's answer as both front doors report
 * them (report.c), for run.c's jobs. */
#ifndef PP_CLUSTER_REPORT_H
#define PP_CLUSTER_REPORT_H

#include "parplan/cluster_request.h"
#include "cluster/cluster_internal.h"

/* One step of p (pp_cluster_simulate with o: its start time, and the
 * timeline it is drawn into with at most max_boxes boxes), PP_INFEASIBLE
 * when it cannot end: a transfer waits for ever on a link that is down.
 * Both front doors' `simulate`. */
pp_status pp_cluster_simulate_at(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                 const pp_cluster_sim_options *o, pp_cluster_report *out, pp_error *err);

/* Judges and reports r, pp_cluster_plan_search's answer for o->start_time:
 * PP_INFEASIBLE when it holds no plan (none fits, or none was found in the
 * time: r->complete says which); the best plan checked apart from the
 * search that made it (pp_cluster_plan_check); the best and the uniform
 * plans' steps, taken over from r's own simulations (at thousands of GPUs
 * one is a good part of the time limit), simulated again only when r lacks
 * one or o->timeline (NULL: none) asks for the best step drawn, the drawing
 * under d (NULL: no time limit; cluster_simulate_drawing). *cut: the
 * drawing was cut short, its figures r's own (boxes_left_out counts those
 * left out before the cut). Free out with pp_cluster_plan_summary_free
 * whatever the status. */
pp_status pp_cluster_plan_summarize(const pp_cluster *c, const pp_cluster_workload *w, pp_cluster_plan_result *r,
                                    const pp_cluster_sim_options *o, const cluster_drawing *d,
                                    pp_cluster_plan_summary *out, bool *cut, pp_error *err);
void pp_cluster_plan_summary_free(pp_cluster_plan_summary *s);

#endif
