/* coarsen.h: shrinking a scheduling problem by merging ops (paper 002 section
 * IV, Algorithm 1) and expanding a schedule of the merged problem back onto
 * the original ops (internal to sched).
 *
 * A coarse op runs its fine ops back to back on one device; a coarse
 * dependency stands for every fine dependency between two coarse ops, with
 * their comm times summed so the fine transfers fit one after another in the
 * coarse transfer. Any valid schedule of the coarse problem expands into a
 * valid schedule of the fine one with the same makespan. */
#ifndef PP_SCHED_COARSEN_H
#define PP_SCHED_COARSEN_H

#include "parplan/sched.h"

typedef struct {
    pp_sched_problem *coarse;  /* finished: same devices, capacities and channels */
    int *group_of;             /* fine op -> coarse op */
    int *member_start;         /* coarse op_count + 1 offsets into member */
    int *member;               /* the fine ops of each coarse op, in the topological order they run */
    int *dep_of;               /* fine dep -> coarse dep, -1 for a dep inside one coarse op */
} sc_coarsening;

/* Merges ops until at most target_ops remain or nothing more may merge. A
 * target at or above the op count gives a copy with one op per coarse op. */
pp_status sc_coarsen(const pp_sched_problem *p, int target_ops, sc_coarsening *out, pp_error *err);

/* The same, guided by hint (may be NULL): a valid schedule of p. Ops that
 * may run on a device of finite memory then merge only with their neighbours
 * in the hint's device order, so the coarse problem keeps a schedule with
 * the hint's orders and memory levels. On memory-bound problems such as
 * pipelines this keeps an op that frees memory from being merged with ops
 * that need it into a coarse op no schedule can place. */
pp_status sc_coarsen_hinted(const pp_sched_problem *p, int target_ops, const pp_sched_schedule *hint,
                               sc_coarsening *out, pp_error *err);

/* Writes into fine_out (made for `fine`) the schedule the coarse one stands
 * for; the ops keep the coarse op's device. */
pp_status sc_expand(const pp_sched_problem *fine, const sc_coarsening *c,
                       const pp_sched_schedule *coarse_schedule, pp_sched_schedule *fine_out, pp_error *err);

void sc_coarsening_free(sc_coarsening *c);

#endif
