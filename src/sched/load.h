/* load.h: reading within a deadline, and the field-by-field equality of problems that the round trips of
 * readers and writers are judged by. (The readers of text in memory,
 * pp_sched_load_buffer and pp_sched_load_schedule_buffer, are public now:
 * parplan/sched.h.) */
#ifndef PP_SCHED_LOAD_H
#define PP_SCHED_LOAD_H

#include <stddef.h>
#include "parplan/sched.h"

/* pp_sched_load and pp_sched_load_buffer that stop once `until` has passed
 * (NULL: never), while parsing and while building: PP_EIO, "FILE: ...:
 * reading stopped at the time limit". A job's own run reads so (run.c). */
pp_status sc_load_until(const char *path, const pp_deadline *until, pp_sched_problem **out, pp_error *err);
pp_status sc_load_buffer_until(const char *name, const void *data, size_t size, const pp_deadline *until,
                               pp_sched_problem **out, pp_error *err);

/* Two problems with the same fields, names, numbers and adjacency input
 * (the loaders' and writers' round trips are judged by it). */
bool sc_problem_equal(const pp_sched_problem *a, const pp_sched_problem *b);

#endif
