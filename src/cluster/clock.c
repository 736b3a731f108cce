/* clock.c: cluster_clock, the time limit that the uniform baseline and the
 * branch-and-bound share. It lives apart from both so that neither calls
 * back into the other: solve.c runs the baseline first, and both read and
 * feed the same clock. */
#include "cluster/planner.h"
#include "core/core_internal.h"

#include <math.h>
#include <stdatomic.h>

bool cluster_clock_late(cluster_clock *k)
{
    if (pp_deadline_passed(&k->deadline))
        return true;
    double ahead = k->reserve * atomic_load_explicit(&k->longest, memory_order_relaxed);
    return k->deadline.at > 0 && pp_now() + ahead >= k->deadline.at;
}

bool cluster_clock_over(cluster_clock *k)
{
    pp_deadline grace = {k->deadline.at > 0 ? k->grace : 0, k->deadline.stop};
    return pp_deadline_passed(&grace);
}

pp_status cluster_clock_simulate(cluster_clock *k, const pp_cluster *c, const pp_cluster_workload *w,
                                 const pp_cluster_plan *p, double start_time, double cutoff,
                                 bool first, double *step, pp_cluster_report *report, pp_error *err)
{
    double began = pp_now(), seen = atomic_load_explicit(&k->longest, memory_order_relaxed);
    double at = first ? k->grace : k->deadline.at - k->reserve * seen;
    pp_deadline until = {k->deadline.at > 0 ? at : 0, k->deadline.stop};
    pp_status s = cluster_simulate_step(c, w, p, start_time, cutoff, &until, step, report, err);
    double took = pp_now() - began;
    while (isfinite(*step) && took > seen && !atomic_compare_exchange_weak(&k->longest, &seen, took))
        ;
    return s;
}
