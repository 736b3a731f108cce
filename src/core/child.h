/* child.h: running a piece of work in a forked child process, for work
 * that may crash (an assertion in a third-party solver must cost one answer,
 * not the caller's process), that cannot be interrupted (only killing the
 * child keeps a time limit firm and answers a stop request at once), or
 * whose log and process-wide state must stay away from the caller. The
 * child writes a fixed-size answer into a buffer that comes back through a
 * pipe. A fork costs about a millisecond. */
#ifndef PP_CORE_CHILD_H
#define PP_CORE_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include "parplan/core.h"

typedef enum {
    PP_CHILD_DONE,   /* the whole answer is in the buffer */
    PP_CHILD_KILLED, /* the deadline passed or a stop was requested first */
    PP_CHILD_FAILED  /* the child ended without its whole answer (crashed) */
} pp_child_status;

typedef struct {
    double limit; /* seconds the work limits itself to; 0: no deadline */
    double slack; /* grace after limit for the work's last step before the kill */
    bool log;     /* the child's stdout goes to stderr; else both go to /dev/null */
    const pp_stop_flag *stop; /* a stop request besides the process-wide one; NULL: none */
} pp_child_options;

/* Fills buf (size bytes) with the work's answer. */
typedef void pp_child_work(void *ctx, void *buf, size_t size);

/* Runs work(ctx, buf, size) in a child and waits for its answer until
 * limit + slack from now, or a stop request, then kills it. When no pipe
 * or child can be had the work runs in this process (PP_CHILD_DONE). buf
 * is undefined unless PP_CHILD_DONE. */
pp_child_status pp_child_run(pp_child_work *work, void *ctx, void *buf, size_t size, const pp_child_options *o);

#endif
