/* cyclic.h: the cyclic objective's solver side (internal to sched): the
 * least period a schedule's times allow. The objective, its checker and its
 * bound are sched_internal.h's; this is what pp_sched_solve uses. */
#ifndef PP_SCHED_CYCLIC_H
#define PP_SCHED_CYCLIC_H

#include "sched/solver.h"

/* The least period at which s, its times fixed, repeats with each device's
 * optimizer step between iterations: its longest device span, or a longer
 * channel's window from its first transfer to its last. INFINITY when out
 * of memory. */
double sc_cyclic_step_period(const pp_sched_problem *p, const pp_sched_schedule *s);

/* PP_EARG, naming the device or the ops, when an iteration may leave a
 * device's level changed (the cyclic objectives cannot repeat it), or when
 * nothing takes time (every period > 0 would do). */
pp_status sc_cyclic_applies(const pp_sched_problem *p, pp_error *err);

/* Without the optimizer step: folds the valid cyclic schedule s (s->period
 * set) at shorter periods, its devices' and channels' orders taken modulo
 * the period and re-timed earliest, keeping each fold the asynchronous
 * checker takes, until the bound or the deadline; then, for the rest of
 * the time, the valid schedule `other` (NULL: none; its times change)
 * likewise, s taking its result when shorter. s stays valid. */
pp_status sc_cyclic_fold(const pp_sched_problem *p, pp_sched_schedule *s, pp_sched_schedule *other,
                            const pp_deadline *deadline, pp_error *err);

#endif
