/* check.c: pp_cluster_plan_check, the independent checker of a plan
 * against its cluster and workload at the moment it starts: every device
 * it names exists, is alive and serves one slot; the degrees add up (dp
 * replicas of stages whose TP degrees sum to the devices per replica, each
 * stage at least one layer, all layers placed); the micro-batches give the
 * global batch (cp times it, equal within a context-parallel group) and
 * suit the schedule; its stack runs it; each group's shares sum to 1; and no
 * device holds more than its memory by the memory model. It shares no code
 * with the planner's search (space.c, bound.c, search.c) or with
 * pp_cluster_plan_validate, which the loader runs: a plan the search
 * built is judged from its fields alone. */
#include "cluster/check.h"

#include <math.h>
#include <stdlib.h>
#include "cluster/moment.h"
#include "cluster/plan.h"
#include "cluster/stack.h"

static pp_status check_degrees(const pp_cluster_workload *w, const pp_cluster_plan *p, pp_error *err)
{
    if (p->replica_count < 1 || p->stage_count < 1 || p->micro_batch < 1 || p->virtual_stages < 1)
        return pp_error_set(err, PP_EINPUT, "plan check: %d replicas, %d stages, micro-batch %d, %d virtual "
                            "stages: each must be at least 1", p->replica_count, p->stage_count,
                            p->micro_batch, p->virtual_stages);
    long layers = 0;
    for (int s = 0; s < p->stage_count; s++) {
        if (p->stage_tp[s] < 1 || p->stage_layers[s] < p->virtual_stages)
            return pp_error_set(err, PP_EINPUT, "plan check: stage %d has TP degree %d and %d layers (in %d "
                                "virtual stages)", s, p->stage_tp[s], p->stage_layers[s], p->virtual_stages);
        layers += p->stage_layers[s];
    }
    if (layers != w->layer_count)
        return pp_error_set(err, PP_EINPUT, "plan check: %ld layers placed, the workload has %d", layers,
                            w->layer_count);
    int ep = p->expert_parallel;
    if (ep < 1 || p->replica_count % ep != 0 || (ep > 1 && (w->experts < 1 || w->experts % ep != 0)))
        return pp_error_set(err, PP_EINPUT, "plan check: expert parallelism %d over %d replicas and %d experts",
                            ep, p->replica_count, w->experts);
    return PP_OK;
}

/* Context parallelism: a CP group's replicas (consecutive) share their
 * micro-batches, so they run as many and count once. */
static pp_status check_batches(const pp_cluster_workload *w, const pp_cluster_plan *p, pp_error *err)
{
    int cp = p->context_parallel;
    if (cp < 1 || p->replica_count % cp != 0)
        return pp_error_set(err, PP_EINPUT, "plan check: context parallelism %d over %d replicas", cp,
                            p->replica_count);
    int64_t samples = 0;
    for (int r = 0; r < p->replica_count; r++) {
        int m = p->micro_batches[r];
        if (m < 1 || (p->virtual_stages > 1 && m % p->stage_count != 0) || m != p->micro_batches[r - r % cp])
            return pp_error_set(err, PP_EINPUT, "plan check: replica %d runs %d micro-batches", r, m);
        samples += (int64_t)m * p->micro_batch;
    }
    if (samples != w->global_batch * cp)
        return pp_error_set(err, PP_EINPUT, "plan check: %lld samples per step over context parallelism %d, "
                            "the global batch is %lld", (long long)samples, cp, (long long)w->global_batch);
    return PP_OK;
}

/* Every slot's device exists, is alive at `at` and no other slot has it;
 * each group's shares are positive and sum to 1. */
static pp_status check_devices(const pp_cluster *c, const pp_cluster_plan *p, double at, pp_error *err)
{
    int members = 0;
    for (int s = 0; s < p->stage_count; s++)
        members += p->stage_tp[s];
    int slots = p->replica_count * members;
    bool *taken = calloc((size_t)c->device_count + 1, sizeof *taken);
    if (!taken)
        return pp_error_set(err, PP_ENOMEM, "plan check: out of memory");
    pp_status st = PP_OK;
    for (int i = 0; i < slots && st == PP_OK; i++) {
        int d = p->devices[i];
        if (d < 0 || d >= c->device_count || taken[d] || !pp_cluster_device_alive_at(c, d, at))
            st = pp_error_set(err, PP_EINPUT, "plan check: slot %d's device %d does not exist, serves "
                              "another slot or is lost at time %g", i, d, at);
        else
            taken[d] = true;
    }
    free(taken);
    for (int r = 0, i = 0; r < p->replica_count && st == PP_OK; r++)
        for (int s = 0; s < p->stage_count && st == PP_OK; s++) {
            double sum = 0;
            bool positive = true;
            for (int j = 0; j < p->stage_tp[s]; j++, i++) {
                sum += p->split[i];
                positive &= p->split[i] > 0;
            }
            if (!positive || fabs(sum - 1) > 1e-9)
                st = pp_error_set(err, PP_EINPUT, "plan check: stage %d of replica %d has shares summing "
                                  "to %g", s, r, sum);
        }
    return st;
}

static pp_status check_memory(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                              pp_error *err)
{
    double *peak = calloc((size_t)c->device_count + 1, sizeof *peak);
    if (!peak)
        return pp_error_set(err, PP_ENOMEM, "plan check: out of memory");
    pp_cluster_plan_memory(c, w, p, peak);
    pp_status st = PP_OK;
    for (int d = 0; d < c->device_count && st == PP_OK; d++) {
        double cap = c->nodes[c->device_node[d]].type->memory_bytes;
        if (peak[d] > cap)
            st = pp_error_set(err, PP_INFEASIBLE, "plan check: device %d needs %.4g bytes, it has %.4g", d,
                              peak[d], cap);
    }
    free(peak);
    return st;
}

pp_status pp_cluster_plan_check(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                                double at, pp_error *err)
{
    pp_status st = check_degrees(w, p, err);
    char why[256];
    /* what the stack runs is its table's word (stack.c), not the search's */
    if (st == PP_OK && !pp_cluster_stack_runs(p, why, sizeof why))
        st = pp_error_set(err, PP_EINPUT, "plan check: %s", why);
    if (st == PP_OK)
        st = check_batches(w, p, err);
    if (st == PP_OK)
        st = check_devices(c, p, at, err);
    return st == PP_OK ? check_memory(c, w, p, err) : st;
}
