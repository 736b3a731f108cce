/* deadline.h: a whole job's time limit as the front doors give it: the
 * margin a run keeps after its solver for stopping, writing and freeing,
 * the solve's budget that leaves, and, for a program's own run, the
 * process-wide stop raised at a moment (reading a file stops on it). */
#ifndef PARPLAN_DEADLINE_H
#define PARPLAN_DEADLINE_H

#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Seconds a run of `timeout` seconds keeps after its solver's budget:
 * 0.5 s + 2% of the timeout (at most a quarter of it), plus 1.5 ns a byte
 * the problem takes in memory past the first 100 MB, times `slowdown`: how
 * many times slower than its CPU time the process ran while reading (the
 * share of a core the machine leaves it; 1 to 8). */
double pp_job_margin(double timeout, double bytes, double slowdown);
/* Seconds left of a job of `timeout` seconds started at `started` (a
 * pp_now() value) for solving, keeping pp_job_margin(timeout, 0, 1); at
 * least 0.01. */
double pp_job_solve_budget(double timeout, double started);
/* Bytes of the text in file path: its size, or a gzip file's own record of
 * its text's length when larger; 0 when it cannot be read. */
double pp_file_text_bytes(const char *path);

/* Raises the process-wide stop flag (pp_stop_request) at time `at` (a
 * pp_now() value; at once when it has passed), by SIGALRM; pp_stop_cancel
 * disarms it. For a program's own run only: the flag stops every call in
 * the process. */
void pp_stop_at(double at);
void pp_stop_cancel(void);

#pragma GCC visibility pop

#endif
