/* load.h: the scheduling problem reader for text already in memory (the
 * fuzzer feeds it without a file). Same format and errors as pp_sched_load,
 * with `name` standing for the file in messages. */
#ifndef PP_SCHED_LOAD_H
#define PP_SCHED_LOAD_H

#include <stddef.h>
#include "parplan/sched.h"

pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err);

#endif
