/* deadline_internal.h: what a job's own call (iopddl/run.c) needs of the
 * time limit beyond the solve's budget (owned by core/deadline.c): the
 * margin its problem's size needs, that size read from a file, and the
 * process-wide stop raised at a moment while a program's own run reads. */
#ifndef PP_CORE_DEADLINE_INTERNAL_H
#define PP_CORE_DEADLINE_INTERNAL_H

#include "parplan/deadline.h"

/* Seconds a run of `timeout` seconds keeps after its solver's budget:
 * 0.5 s + 2% of the timeout (at most a quarter of it), plus 1.5 ns a byte
 * the problem takes in memory past the first 100 MB, times `slowdown`: how
 * many times slower than its CPU time the process ran while reading (the
 * share of a core the machine leaves it; 1 to 8). */
double pp_job_margin(double timeout, double bytes, double slowdown);

/* Bytes of the text in file path: its size, or a gzip file's own record of
 * its text's length when larger; 0 when it cannot be read. */
double pp_file_text_bytes(const char *path);

/* Raises the process-wide stop flag (pp_stop_request) at time `at` (a
 * pp_now() value; at once when it has passed), by SIGALRM; pp_stop_cancel
 * disarms it. For a program's own run only: the flag stops every call in
 * the process. */
void pp_stop_at(double at);
void pp_stop_cancel(void);

#endif
