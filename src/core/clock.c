/* clock.c: monotonic time, deadlines and the process-wide stop flag that
 * SIGINT/SIGTERM raise, so every solver can stop and still write its best. */
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "parplan/core.h"

static volatile sig_atomic_t stop_flag;

double pp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

pp_deadline pp_deadline_in(double seconds)
{
    pp_deadline d = {0};
    if (seconds > 0)
        d.at = pp_now() + seconds;
    return d;
}

bool pp_deadline_passed(const pp_deadline *d)
{
    if (stop_flag)
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
