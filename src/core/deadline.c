/* deadline.c: a whole job's time limit (see parplan/deadline.h): the margin
 * model, the solve's budget, the size a file's text will take, and the
 * process-wide stop at a moment. */
#define _DEFAULT_SOURCE /* setitimer */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include "parplan/deadline.h"
#include "core/core_internal.h"
#include "core/deadline_internal.h"

/* The margin's part that grows with the problem: seconds per byte of the
 * problem as loaded, or of a file's text while it is read, at a core of
 * one's own. What follows the solver's deadline grows with the pair tables:
 * the running stage's stop (a TRW-S iteration or a descent pass looks at
 * the clock once per pass over every table), freeing the model, the
 * evaluator's pass. On the 1.29 GB proxy L2w48 (0.80 GB loaded) at load
 * 7-8 the solve returned 0.26-0.53 s past its limit, and freeing and exit
 * took 0.01-0.03 s more; on L2w32 (0.45 GB) at load 15 it returned 2.8 s
 * past it, with reading 4.6 times slower than its CPU time (BENCHMARKS.md).
 * So the part is scaled by that slowdown, measured while reading (at least
 * 1, at most MARGIN_MAX_SLOWDOWN). */
#define MARGIN_SECONDS_PER_BYTE 1.5e-9
#define MARGIN_MAX_SLOWDOWN 8.0
/* Bytes the fixed part already covers: it was sized on the shared
 * instances, 45-69 MB loaded, where `iopddl A 1` has no time to spare. */
#define MARGIN_FREE_BYTES 100e6

double pp_job_margin(double timeout, double bytes, double slowdown)
{
    double fixed = fmin(0.5 + 0.02 * timeout, 0.25 * timeout);
    double scale = fmin(fmax(slowdown, 1.0), MARGIN_MAX_SLOWDOWN);
    return fixed + MARGIN_SECONDS_PER_BYTE * scale * fmax(bytes - MARGIN_FREE_BYTES, 0);
}

double pp_job_solve_budget(double timeout, double started)
{
    double left = timeout - pp_job_margin(timeout, 0, 1) - (pp_now() - started);
    return left > 0.01 ? left : 0.01;
}

double pp_file_text_bytes(const char *path)
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

void pp_stop_at(double at)
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

void pp_stop_cancel(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}
