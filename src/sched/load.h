/* load.h: the field-by-field equality of problems that the round trips of
 * readers and writers are judged by. (The readers of text in memory,
 * pp_sched_load_buffer and pp_sched_load_schedule_buffer, are public now:
 * parplan/sched.h.) */
#ifndef PP_SCHED_LOAD_H
#define PP_SCHED_LOAD_H

#include <stddef.h>
#include "parplan/sched.h"

/* Two problems with the same fields, names, numbers and adjacency input
 * (the loaders' and writers' round trips are judged by it). */
bool sc_problem_equal(const pp_sched_problem *a, const pp_sched_problem *b);

#endif
