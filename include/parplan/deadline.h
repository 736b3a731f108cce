/* deadline.h: a whole job's time limit as the front doors give it: the
 * solve's budget left after the margin a run keeps for stopping, writing
 * and freeing (the margin itself, and the process-wide stop a program's
 * own run raises at a moment: src/core/deadline_internal.h). */
#ifndef PARPLAN_DEADLINE_H
#define PARPLAN_DEADLINE_H

#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Seconds left of a job of `timeout` seconds started at `started` (a
 * pp_now() value) for solving, keeping pp_job_margin(timeout, 0, 1); at
 * least 0.01. */
double pp_job_solve_budget(double timeout, double started);

#pragma GCC visibility pop

#endif
