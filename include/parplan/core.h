/* parplan core: status values and error messages, arenas, deadlines and the
 * stop flag, and the per-worker random generator. Every system builds on it. */
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

/* Arena: bump allocation in chunks, everything freed at once. Large blocks
 * made elsewhere (grown with realloc) can be handed over with pp_arena_adopt. */
typedef struct pp_arena pp_arena;
pp_arena *pp_arena_new(size_t chunk_size);
void *pp_arena_alloc(pp_arena *arena, size_t size);     /* 16-byte aligned, not zeroed */
char *pp_arena_strdup(pp_arena *arena, const char *s); /* a copy of s in the arena; NULL when out of memory */
void *pp_arena_calloc(pp_arena *arena, size_t count, size_t size);
bool pp_arena_adopt(pp_arena *arena, void *block);     /* frees block on failure */
void pp_arena_free(pp_arena *arena);

/* Monotonic clock in seconds since an arbitrary origin. */
double pp_now(void);

/* A caller's stop flag for one solve: every system's options take a pointer
 * to one (`stop`, NULL: none), and the solve returns its best answer soon
 * after the flag becomes nonzero. Atomic, not a volatile int: the caller
 * sets it from another thread while the solve's workers read it, which for
 * a plain or volatile int is a data race (undefined in C11); a lock-free
 * atomic_int may also be set from a signal handler. */
typedef atomic_int pp_stop_flag;

/* A deadline is an absolute pp_now() value; 0 means none. It has also passed
 * once `stop` is raised (NULL: no flag of its own) or the process-wide stop
 * flag is (SIGINT/SIGTERM or pp_stop_request); pp_deadline_left counts time
 * only, since stages read a limit of 0 as none. */
typedef struct {
    double at;
    const pp_stop_flag *stop;
} pp_deadline;

pp_deadline pp_deadline_in(double seconds);
/* The sooner of d and `seconds` from now (<= 0: d's), with d's stop flag:
 * a stage's share of its solve's time. */
pp_deadline pp_deadline_within(const pp_deadline *d, double seconds);
bool pp_deadline_passed(const pp_deadline *d);
double pp_deadline_left(const pp_deadline *d);
/* The process-wide flag or stop (which may be NULL) is raised. */
bool pp_stop_raised(const pp_stop_flag *stop);
void pp_stop_install_signal_handlers(void);
void pp_stop_request(void);
bool pp_stop_requested(void);
/* Lowers the flag again, for a host program (the Python module) that goes on
 * after stopping a solve; never while a solve that should go on is running. */
void pp_stop_clear(void);

/* xoshiro256** seeded by splitmix64: one per worker, seeded from (seed, worker). */
typedef struct {
    uint64_t s[4];
} pp_rng;

void pp_rng_seed(pp_rng *rng, uint64_t seed, uint64_t stream);
uint64_t pp_rng_next(pp_rng *rng);
uint32_t pp_rng_below(pp_rng *rng, uint32_t bound); /* uniform in [0, bound), bound > 0 */
double pp_rng_unit(pp_rng *rng);                   /* uniform in [0, 1) */

/* The whole file as text, malloc'd and NUL-terminated (the terminator is not
 * counted in *size). PP_EIO when the file cannot be opened or read. */
pp_status pp_read_text_file(const char *path, char **text, size_t *size, pp_error *err);

/* Number of online processors, at least 1. */
int pp_cpu_count(void);

#pragma GCC visibility pop

#endif
