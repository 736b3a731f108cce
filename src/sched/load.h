/* load.h: the scheduling problem and schedule readers for text already in
 * memory (the fuzzers feed them without a file). Same formats and errors as
 * pp_sched_load and pp_sched_load_schedule, with `name` standing for the file
 * in messages. Also the field-by-field equality of problems that the round
 * trips of readers and writers are judged by. */
#ifndef PP_SCHED_LOAD_H
#define PP_SCHED_LOAD_H

#include <stddef.h>
#include "parplan/sched.h"

pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err);
pp_status pp_sched_load_schedule_buffer(const char *name, const void *data, size_t size,
                                        const pp_sched_problem *p, pp_sched_schedule **out,
                                        pp_error *err);

/* Two problems with the same fields, names, numbers and adjacency input
 * (the loaders' and writers' round trips are judged by it). */
bool sched_problem_equal(const pp_sched_problem *a, const pp_sched_problem *b);

#endif
