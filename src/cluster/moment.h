/* moment.h: what a cluster is at a given moment (cluster.c): a link's
 * bandwidth and a device's presence once the timeline's events up to it
 * have happened, and the step time no plan can beat then. */
#ifndef PP_CLUSTER_MOMENT_H
#define PP_CLUSTER_MOMENT_H

#include "parplan/cluster.h"

/* Bandwidth of link l at time t, after every event up to and including t. */
double pp_cluster_link_bandwidth_at(const pp_cluster *c, int link, double t);
/* Whether device d is still there at time t. */
bool pp_cluster_device_alive_at(const pp_cluster *c, int device, double t);

/* The step time if every device alive at time t computed all the time at
 * its calibrated rate (peak_flops * efficiency_compute) on the workload's
 * forward and backward FLOPs, FP8 products at the fastest device's FP8
 * speed-up: no recomputation, memory traffic, communication or bubble. No
 * plan is faster, so uniform time / ideal time is the most any plan can
 * gain over a uniform one. */
double pp_cluster_ideal_step_time(const pp_cluster *c, const pp_cluster_workload *w, double t);

#endif
