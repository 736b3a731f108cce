/* cli.c: helpers shared by the parplan and iopddl tools (see cli.h). */
#define _DEFAULT_SOURCE /* setitimer */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

/* The margin's part that grows with the problem: seconds per byte of the
 * problem as loaded (cli_problem_bytes), or of a file's text while it is
 * read, at a core of one's own. What follows the solver's deadline grows
 * with the pair tables: the running stage's stop (a TRW-S iteration or a
 * descent pass looks at the clock once per pass over every table), freeing
 * the model, the evaluator's pass. On the 1.29 GB proxy L2w48 (0.80 GB
 * loaded) at load 7-8 the solve returned 0.26-0.53 s past its limit, and
 * freeing and exit took 0.01-0.03 s more; on L2w32 (0.45 GB) at load 15
 * it returned 2.8 s past it, with reading 4.6 times slower than its CPU
 * time (BENCHMARKS.md). So the part is scaled by that slowdown, measured
 * while reading (at least 1, at most MARGIN_MAX_SLOWDOWN). */
#define MARGIN_SECONDS_PER_BYTE 1.5e-9
#define MARGIN_MAX_SLOWDOWN 8.0
/* Bytes the fixed part already covers: it was sized on the shared
 * instances, 45-69 MB loaded, where `iopddl A 1` has no time to spare. */
#define MARGIN_FREE_BYTES 100e6

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
        bool written = fprintf(f, "%s\n", line) >= 0;
        status = cli_close_out(f, path, &err);
        if (status == PP_OK && !written)
            status = pp_error_set(&err, PP_EIO, "%s: write failed", path ? path : "stdout");
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

double cli_margin(double timeout, double bytes, double slowdown)
{
    double fixed = fmin(0.5 + 0.02 * timeout, 0.25 * timeout);
    double scale = fmin(fmax(slowdown, 1.0), MARGIN_MAX_SLOWDOWN);
    return fixed + MARGIN_SECONDS_PER_BYTE * scale * fmax(bytes - MARGIN_FREE_BYTES, 0);
}

double cli_solve_budget(double timeout, double started)
{
    double left = timeout - cli_margin(timeout, 0, 1) - (pp_now() - started);
    return left > 0.01 ? left : 0.01;
}

double cli_iopddl_budget(double timeout, double started, const pp_iopddl_problem *p, double slowdown)
{
    return timeout - cli_margin(timeout, cli_problem_bytes(p), slowdown) - (pp_now() - started);
}

double cli_problem_bytes(const pp_iopddl_problem *p)
{
    double strategies = (double)p->strategy_start[p->node_count];
    double edge_ends = (double)p->edge_node_start[p->edge_count];
    double cells = (double)p->edge_cost_start[p->edge_count];
    return 8.0 * (2.0 * strategies + cells + 3.0 * p->node_count + 2.0 * p->edge_count) + 4.0 * edge_ends;
}

double cli_file_bytes(const char *path)
{
    struct stat st;
    /* Only a regular file is looked into: the bytes read from a pipe
     * (`iopddl <(zcat f) 2`) would be gone for the reader. */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    double bytes = (double)st.st_size;
    /* A gzip file ends with its text's length modulo 2^32 (RFC 1952). A
     * damaged one ends in anything: deflate expands at most 1032 times
     * (zlib's technical notes), so no more is believed, and the reader's
     * own error ("truncated gzip") is what the run reports. */
    unsigned char head[2], tail[4];
    FILE *f = fopen(path, "rb");
    if (!f)
        return bytes;
    bool gzip = fread(head, 1, 2, f) == 2 && head[0] == 0x1f && head[1] == 0x8b;
    if (gzip && fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4) {
        double text = (double)((uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
                               (uint32_t)tail[3] << 24);
        bytes = fmax(bytes, fmin(text, 1032.0 * (double)st.st_size));
    }
    fclose(f);
    return bytes;
}

static void on_alarm(int sig)
{
    (void)sig;
    pp_stop_request();
}

void cli_stop_at(double at)
{
    double in = at - pp_now();
    if (in <= 0) {
        pp_stop_request();
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    long long us = (long long)ceil(in * 1e6);
    struct itimerval t = {{0, 0}, {(time_t)(us / 1000000), (suseconds_t)(us % 1000000)}};
    setitimer(ITIMER_REAL, &t, NULL);
}

void cli_stop_cancel(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}

/* "prog: no answer within the time limit: message"; the exit code of no
 * feasible answer. */
static int no_answer(const char *prog, const pp_error *err)
{
    fprintf(stderr, "%s: no answer within the time limit: %s\n", prog,
            err->message[0] ? err->message : pp_status_name(err->status));
    return cli_exit_code(PP_INFEASIBLE);
}

bool cli_iopddl_read(const char *prog, const char *path, double timeout, double started, pp_iopddl_problem **p,
                     double *budget, int *code)
{
    pp_error err = {0};
    /* Reading stops where the margin the file's size needs begins (1.3 GB
     * take seconds): then there is no answer, never a late one. */
    cli_stop_at(started + timeout - cli_margin(timeout, cli_file_bytes(path), 1));
    double wall = pp_now();
    clock_t cpu = clock();
    pp_status loaded = pp_iopddl_load(path, p, &err);
    cli_stop_cancel();
    double cpu_seconds = (double)(clock() - cpu) / CLOCKS_PER_SEC;
    double slowdown = cpu_seconds > 0 ? (pp_now() - wall) / cpu_seconds : 1;
    if (loaded != PP_OK) {
        *code = pp_stop_requested() ? no_answer(prog, &err) : cli_fail(prog, &err);
        return false;
    }
    *budget = cli_iopddl_budget(timeout, started, *p, slowdown);
    if (*budget > 0)
        return true;
    pp_error_set(&err, PP_INFEASIBLE, "reading %s took %.2f s of %g s", path, pp_now() - started, timeout);
    pp_iopddl_free(*p);
    *code = no_answer(prog, &err);
    return false;
}

FILE *cli_open_out(const char *path, pp_error *err)
{
    if (!path)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        pp_error_set(err, PP_EIO, "%s: cannot write", path);
    return f;
}

pp_status cli_close_out(FILE *f, const char *path, pp_error *err)
{
    if (f == stdout)
        return fflush(f) == 0 ? PP_OK : pp_error_set(err, PP_EIO, "stdout: write failed");
    return fclose(f) == 0 ? PP_OK : pp_error_set(err, PP_EIO, "%s: write failed", path);
}
