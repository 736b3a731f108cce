/* cluster_internal.h: the calls under the cluster's library calls that no
 * front door makes (pp_cluster_run and its kin in parplan/cluster.h own the
 * jobs): reading from memory, making, checking and freeing plans and
 * workloads, and the simulator itself. Tests and src/plan use them. */
#ifndef PP_CLUSTER_INTERNAL_H
#define PP_CLUSTER_INTERNAL_H

#include "parplan/cluster.h"

/* The same for size bytes of text at data, with `name` standing for the
 * file in messages. */
pp_status pp_cluster_load_buffer(const char *name, const void *data, size_t size, const pp_hw_catalog *cat,
                                 pp_cluster **out, pp_error *err);

/* Frees w->arena (and so w); NULL is fine. */
void pp_cluster_workload_free(pp_cluster_workload *w);

/* One malloc'd block holding the struct and its arrays; split starts even
 * (1 / tp), everything else zero. NULL when out of memory or a count < 1. */
pp_cluster_plan *pp_cluster_plan_new(int replica_count, int stage_count, const int *stage_tp);
void pp_cluster_plan_free(pp_cluster_plan *p);

/* PP_EINPUT naming what is wrong when p does not fit c and w: devices out of
 * range, lost or used twice, layers not adding up, samples not adding up to
 * the global batch, a TP degree that does not divide tp_divisor, shares not
 * summing to 1. */
pp_status pp_cluster_plan_validate(const pp_cluster *c, const pp_cluster_workload *w,
                                   const pp_cluster_plan *p, pp_error *err);

/* Discrete-event simulation of one training step of p on c: 1F1B pipelines
 * or the ops' order given in o,
 * TP collectives inside a stage (the backward's partly hidden under
 * tp_overlap), data-parallel gradient all-reduce overlapped with the last
 * backward (after it under reduce_after_backward), a tied embedding's
 * gradient all-reduce between the first and the last stage, flows sharing
 * links max-min fairly, bandwidth events applied when they happen. The plan must have passed validation.
 * PP_INFEASIBLE, naming the device, when the plan uses a device the
 * cluster's timeline has lost by start_time. */
pp_status pp_cluster_simulate(const pp_cluster *c, const pp_cluster_workload *w,
                              const pp_cluster_plan *p, const pp_cluster_sim_options *o,
                              pp_cluster_report *out, pp_error *err);
void pp_cluster_report_free(pp_cluster_report *r);

/* A drawing under a time limit: a box goes to the timeline only while it
 * and those before it can still be written by `by` (a pp_now() value), and
 * no box after the first one refused; the run itself stops (*cut, the
 * report's figures left unset) once the drawn boxes' writing alone reaches
 * `by`. A box's writing takes cpu_seconds_per_box of the thread's CPU
 * time times the slowdown measured while drawing (wall time over the
 * thread's CPU time: the share of a core the machine leaves it). */
typedef struct {
    double by, cpu_seconds_per_box;
} cluster_drawing;

/* pp_cluster_simulate drawing under d (NULL: no time limit); *cut may be
 * NULL when d is. */
pp_status cluster_simulate_drawing(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                   const pp_cluster_sim_options *o, const cluster_drawing *d,
                                   pp_cluster_report *out, bool *cut, pp_error *err);

#endif
