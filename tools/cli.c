/* cli.c: helpers shared by the parplan and iopddl tools (see cli.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

int cli_exit_code(pp_status status)
{
    switch (status) {
    case PP_OK: return 0;
    case PP_INFEASIBLE: return 1;
    case PP_EINPUT: case PP_EARG: return 2;
    case PP_EIO: return 2;
    case PP_ENOMEM: return 3;
    }
    return 3;
}

int cli_fail(const char *prog, const pp_error *err)
{
    fprintf(stderr, "%s: %s\n", prog, err->message[0] ? err->message : pp_status_name(err->status));
    return cli_exit_code(err->status);
}

int cli_write_solution(const char *prog, const char *path, const uint32_t *strategies, uint32_t n)
{
    pp_error err = {0};
    char *line = malloc(12 * (size_t)n + 3);
    if (!line) {
        pp_error_set(&err, PP_ENOMEM, "out of memory writing the answer");
        return cli_fail(prog, &err);
    }
    pp_iopddl_format_solution(strategies, n, line);
    FILE *f = cli_open_out(path, &err);
    pp_status status = f ? PP_OK : PP_EIO;
    if (f) {
        fprintf(f, "%s\n", line);
        status = cli_close_out(f, path, PP_OK, &err);
    }
    free(line);
    return status == PP_OK ? 0 : cli_fail(prog, &err);
}

bool cli_parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool cli_parse_int64(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}

const char *cli_format_int128(pp_int128 v, char *buf)
{
    char tmp[48];
    int n = 0;
    bool negative = v < 0;
    unsigned __int128 u = negative ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    char *p = buf;
    if (negative)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    *p = '\0';
    return buf;
}

void cli_progress_init(cli_progress *p, const char *label, bool quiet)
{
    p->live = !quiet && isatty(STDERR_FILENO);
    p->label = label;
}

void cli_progress_show(void *ctx, const pp_iopddl_progress *progress)
{
    cli_progress *p = ctx;
    if (!p->live)
        return;
    if (progress->best_cost >= 0 && progress->best_cost < INT64_MAX)
        fprintf(stderr, "\r\033[K%s: %6.1fs  %-15s best %lld  rounds %lld", p->label, progress->elapsed,
                progress->stage, (long long)progress->best_cost, (long long)progress->rounds);
    else
        fprintf(stderr, "\r\033[K%s: %6.1fs  %-15s searching", p->label, progress->elapsed, progress->stage);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->live)
        fprintf(stderr, "\r\033[K");
}

FILE *cli_open_out(const char *path, pp_error *err)
{
    if (!path)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        pp_error_set(err, PP_EIO, "%s: cannot write: %s", path, strerror(errno));
    /* What errno holds at cli_close_out then comes from writing this file. */
    errno = 0;
    return f;
}

pp_status cli_close_out(FILE *f, const char *path, pp_status written, pp_error *err)
{
    /* A write that failed inside fwrite leaves only the stream's error flag
     * (the buffer it bypassed is empty, so fflush and fclose succeed): the
     * flag is what says the answer did not reach the file. */
    int reason = errno;
    bool failed = fflush(f) != 0;
    if (failed)
        reason = errno;
    failed |= ferror(f) != 0;
    if (f != stdout && fclose(f) != 0 && !failed) {
        failed = true;
        reason = errno;
    }
    if (!failed)
        return written;
    pp_error_clear(err);
    return pp_error_set(err, PP_EIO, "%s: write failed: %s", path ? path : "stdout",
                        reason ? strerror(reason) : "an I/O error");
}

int cli_exit(const char *prog, int code)
{
    pp_error err = {0};
    pp_status st = cli_close_out(stdout, NULL, PP_OK, &err);
    if (fclose(stdout) != 0 && st == PP_OK)
        st = pp_error_set(&err, PP_EIO, "stdout: write failed: %s", strerror(errno));
    if (st == PP_OK)
        return code;
    int failed = cli_fail(prog, &err);
    return code > failed ? code : failed;
}
