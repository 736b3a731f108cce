/* core_internal.h: what the library's floors share of core and the public
 * API does not show (core.h keeps the status values, errors, the clock and
 * the stop flag a front door uses): arenas, deadlines, the process-wide stop
 * flag's reading, the per-worker random generator, whole-file reading and
 * the processor count. */
#ifndef PP_CORE_INTERNAL_H
#define PP_CORE_INTERNAL_H

#include "parplan/core.h"

/* An index with the number it is sorted by (keyed.c): qsort with
 * pp_by_key_then_index orders by key, ties by index. */
typedef struct {
    double key;
    int index;
} pp_keyed;
int pp_by_key_then_index(const void *a, const void *b);

/* Arena: bump allocation in chunks, everything freed at once. Large blocks
 * made elsewhere (grown with realloc) can be handed over with pp_arena_adopt. */
pp_arena *pp_arena_new(size_t chunk_size);
void *pp_arena_alloc(pp_arena *arena, size_t size);     /* 16-byte aligned, not zeroed */
char *pp_arena_strdup(pp_arena *arena, const char *s); /* a copy of s in the arena; NULL when out of memory */
void *pp_arena_calloc(pp_arena *arena, size_t count, size_t size);
bool pp_arena_adopt(pp_arena *arena, void *block);     /* frees block on failure */
void pp_arena_free(pp_arena *arena);

/* The calling thread's CPU time, s (0 where the clock is missing): beside
 * pp_now(), the share of a core the machine leaves a thread. */
double pp_thread_seconds(void);

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
void pp_stop_request(void);
bool pp_stop_requested(void);
/* Lowers the flag again, for a host program that goes on after stopping a
 * solve (the tests); never while a solve that should go on is running. */
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

#endif
