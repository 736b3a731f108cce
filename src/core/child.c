/* child.c: pp_child_run, work in a forked child with a firm deadline and
 * its answer sent back through a pipe (see child.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/child.h"
#include "core/core_internal.h"

static bool write_all(int fd, const void *data, size_t size)
{
    const char *at = data;
    while (size > 0) {
        ssize_t k = write(fd, at, size);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        at += k;
        size -= (size_t)k;
    }
    return true;
}

/* In the child: the work's log, its assertion messages included, must not
 * reach the caller's stdout, which carries answers. */
static void quiet_output(bool log)
{
    int sink = log ? STDERR_FILENO : open("/dev/null", O_WRONLY);
    if (sink < 0)
        return;
    dup2(sink, STDOUT_FILENO);
    if (!log)
        dup2(sink, STDERR_FILENO);
}

static _Noreturn void child_main(pp_child_work *work, void *ctx, void *buf, size_t size, bool log, int fd)
{
    quiet_output(log);
    work(ctx, buf, size);
    fflush(stdout);
    _exit(write_all(fd, buf, size) ? 0 : 1);
}

/* Reads the answer until it is all there, the child ends, or the deadline
 * (kill_at, 0: none) or a stop request comes first. */
static pp_child_status read_answer(int fd, pid_t pid, unsigned char *buf, size_t size, double kill_at,
                                   const pp_stop_flag *stop)
{
    size_t got = 0;
    while (got < size) {
        if (pp_stop_raised(stop) || (kill_at > 0 && pp_now() > kill_at)) {
            kill(pid, SIGKILL);
            return PP_CHILD_KILLED;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, 50);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got == size ? PP_CHILD_DONE : PP_CHILD_FAILED;
}

pp_child_status pp_child_run(pp_child_work *work, void *ctx, void *buf, size_t size, const pp_child_options *o)
{
    int fds[2];
    if (pipe(fds) != 0) {
        work(ctx, buf, size);
        return PP_CHILD_DONE;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        work(ctx, buf, size);
        return PP_CHILD_DONE;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(work, ctx, buf, size, o->log, fds[1]);
    }
    close(fds[1]);
    double kill_at = o->limit > 0 ? pp_now() + o->limit + o->slack : 0;
    pp_child_status status = read_answer(fds[0], pid, buf, size, kill_at, o->stop);
    close(fds[0]);
    int ignored = 0;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR)
        ;
    return status;
}
