/* cli.h: what the command-line tools share: number parsing and printing,
 * the live progress line, and error reporting with exit codes. */
#ifndef PP_TOOLS_CLI_H
#define PP_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "parplan/iopddl.h"

/* Exit code for a status, as DESIGN.md fixes them. */
int cli_exit_code(pp_status status);
/* Prints "prog: message" to stderr and returns the exit code. */
int cli_fail(const char *prog, const pp_error *err);

/* The one checked writer: everything a command writes goes to a FILE from
 * cli_open_out (path, or stdout when path is NULL; NULL and PP_EIO in err
 * when it cannot be opened) and is finished by cli_close_out, which
 * flushes, checks the stream's error flag and closes a file: a write that
 * failed is PP_EIO naming the file and the reason, never success. */
FILE *cli_open_out(const char *path, pp_error *err);
/* `written` is what the writer returned: it is the answer when the stream
 * took everything; when the stream failed, the failure naming the file
 * and the reason is (over the writer's own message). */
pp_status cli_close_out(FILE *f, const char *path, pp_status written, pp_error *err);
/* A tool's last word: stdout finished by cli_close_out and closed. Returns
 * code, or when stdout failed (a full disk) the I/O error's exit code
 * after "prog: stdout: write failed: REASON" (the larger of the two). */
int cli_exit(const char *prog, int code);

/* Writes the answer line "[s0, s1, ...]" to path (stdout when NULL) and
 * returns the exit code: 0, or that of the failure (a full disk must not
 * pass for an answer), reported as "prog: ...". */
int cli_write_solution(const char *prog, const char *path, const uint32_t *strategies, uint32_t n);

bool cli_parse_double(const char *text, double *out);
bool cli_parse_int64(const char *text, int64_t *out);

/* Decimal text of a 128-bit integer (buf of at least 41 bytes). */
const char *cli_format_int128(pp_int128 v, char *buf);

/* The solver's progress callback: one live line on a terminal, nothing otherwise. */
typedef struct {
    bool live;
    const char *label;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *label, bool quiet);
void cli_progress_show(void *ctx, const pp_iopddl_progress *progress);
void cli_progress_end(cli_progress *p);

/* Seconds a run of `timeout` seconds keeps after its solver's budget, for
 * stopping the workers, writing the answer and freeing what it holds:
 * 0.5 s + 2% of the timeout (at most a quarter of it), plus 1.5 ns a byte
 * the problem takes in memory past the first 100 MB (the shared
 * instances' sizes, which the fixed part covers), times `slowdown`: how
 * many times slower than its CPU time the process ran while reading (the
 * share of a core the machine leaves it; 1 to 8). */
double cli_margin(double timeout, double bytes, double slowdown);

/* Seconds left of a budget started at `started` for solving, keeping
 * cli_margin(timeout, 0, 1) (at least 0.01). */
double cli_solve_budget(double timeout, double started);
/* The same for problem p, keeping the margin its size needs; 0 or less
 * when reading took it all (the solve is then not to start). */
double cli_iopddl_budget(double timeout, double started, const pp_iopddl_problem *p, double slowdown);
/* Bytes p takes in memory, as the loader holds it. */
double cli_problem_bytes(const pp_iopddl_problem *p);
/* Bytes of the text in file path: its size, or a gzip file's own record of
 * its text's length when larger; 0 when it cannot be read. */
double cli_file_bytes(const char *path);

/* Raises the process-wide stop flag (pp_stop_request) at time `at` (a
 * pp_now() value; at once when it has passed), by SIGALRM: reading a file
 * stops on it. cli_stop_cancel disarms it. */
void cli_stop_at(double at);
void cli_stop_cancel(void);
/* Reads path for a run of `timeout` seconds that started at `started`
 * (reading stops at the margin, cli_stop_at) and gives the solver's budget
 * after it. False, with the message printed and *code the exit code, when
 * reading failed, or took the time: "no answer within the time limit",
 * exit 1 (no answer is not a feasible one). */
bool cli_iopddl_read(const char *prog, const char *path, double timeout, double started, pp_iopddl_problem **p,
                     double *budget, int *code);

#endif
