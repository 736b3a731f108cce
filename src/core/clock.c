/* clock.c: monotonic time, deadlines, the process-wide stop flag that
 * SIGINT/SIGTERM raise and the callers' per-solve flags, so every solver can
 * stop and still write its best. */
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "core/core_internal.h"

static volatile sig_atomic_t stop_flag;

double pp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double pp_thread_seconds(void)
{
    struct timespec t;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0 ? (double)t.tv_sec + 1e-9 * (double)t.tv_nsec : 0;
}

pp_deadline pp_deadline_in(double seconds)
{
    pp_deadline d = {0};
    if (seconds > 0)
        d.at = pp_now() + seconds;
    return d;
}

pp_deadline pp_deadline_within(const pp_deadline *d, double seconds)
{
    pp_deadline in = pp_deadline_in(seconds);
    if (in.at <= 0 || (d->at > 0 && d->at < in.at))
        in.at = d->at;
    in.stop = d->stop;
    return in;
}

bool pp_stop_raised(const pp_stop_flag *stop)
{
    return stop_flag || (stop && atomic_load_explicit(stop, memory_order_relaxed));
}

/* The one deadline check: every stage's test of its time and of both stop
 * flags comes here. */
bool pp_deadline_passed(const pp_deadline *d)
{
    if (pp_stop_raised(d ? d->stop : NULL))
        return true;
    return d && d->at > 0 && pp_now() >= d->at;
}

double pp_deadline_left(const pp_deadline *d)
{
    if (!d || d->at <= 0)
        return 1e300;
    double left = d->at - pp_now();
    return left > 0 ? left : 0;
}

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

void pp_stop_install_signal_handlers(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void pp_stop_request(void) { stop_flag = 1; }
bool pp_stop_requested(void) { return stop_flag != 0; }
void pp_stop_clear(void) { stop_flag = 0; }

int pp_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
