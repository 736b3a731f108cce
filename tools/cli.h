/* cli.h: what the command-line tools share: number parsing and printing,
 * the live progress line, and error reporting with exit codes. */
#ifndef PP_TOOLS_CLI_H
#define PP_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "parplan/deadline.h"
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

#endif
