/* parplan core: status values and error messages, the clock and the stop
 * flag. Every system builds on it; what the library's floors share beyond
 * this (arenas, deadlines, the random generator) is src/core/core_internal.h. */
#ifndef PARPLAN_CORE_H
#define PARPLAN_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "parplan/version.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Errors are values. The numbers double as the CLI exit codes of DESIGN.md
 * where one applies (input errors exit 2, "no feasible answer" exits 1). */
typedef enum {
    PP_OK = 0,
    PP_INFEASIBLE = 1, /* the problem has no answer that satisfies its constraints */
    PP_EINPUT = 2,     /* malformed input: file, position and reason in the message */
    PP_EIO = 3,        /* a file could not be opened, read or written */
    PP_ENOMEM = 4,
    PP_EARG = 5        /* a caller passed something invalid (e.g. an option) */
} pp_status;

typedef struct {
    pp_status status;
    char message[512];
} pp_error;

/* Records the first error only: later calls keep the original cause. */
pp_status pp_error_set(pp_error *err, pp_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pp_error_clear(pp_error *err);
const char *pp_status_name(pp_status status);

/* The library's arenas (a struct holding one says whose memory it is). */
typedef struct pp_arena pp_arena;

/* Monotonic clock in seconds since an arbitrary origin. */
double pp_now(void);

/* A caller's stop flag for one solve: every system's options take a pointer
 * to one (`stop`, NULL: none), and the solve returns its best answer soon
 * after the flag becomes nonzero. Atomic, not a volatile int: the caller
 * sets it from another thread while the solve's workers read it, which for
 * a plain or volatile int is a data race (undefined in C11); a lock-free
 * atomic_int may also be set from a signal handler. */
typedef atomic_int pp_stop_flag;

/* SIGINT and SIGTERM raise the process-wide stop flag: a program's solves
 * return their best answers soon after. */
void pp_stop_install_signal_handlers(void);

#pragma GCC visibility pop

#endif
