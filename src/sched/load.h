/* load.h: the readers as a run calls them, stopping when asked, and the
 * field-by-field equality of problems that the round trips of readers and
 * writers are judged by. (The readers of text in memory,
 * pp_sched_load_buffer and pp_sched_load_schedule_buffer, are
 * sched_internal.h's.) */
#ifndef PP_SCHED_LOAD_H
#define PP_SCHED_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "parplan/options.h"
#include "parplan/sched.h"

/* The readers of a problem and of a schedule of p (pp_sched_load,
 * pp_sched_load_schedule and their _buffer forms) for a document a front
 * door hands over (its path, or else its text), which also stop as soon as
 * pp_stop_raised(stop), looking every 4,096 entries and every kilobyte of
 * text: PP_EIO "NAME: reading stopped: ..." (pp_json_stopped). A program's
 * own run raises the process-wide flag at its time limit
 * (core/deadline_internal.h's pp_stop_at), as iopddl's reader does. */
pp_status sc_load_stop(const pp_source *s, const pp_stop_flag *stop, pp_sched_problem **out, pp_error *err);
pp_status sc_load_buffer_stop(const char *name, const void *data, size_t size, const pp_stop_flag *stop,
                              pp_sched_problem **out, pp_error *err);
pp_status sc_load_schedule_stop(const pp_source *s, const pp_sched_problem *p, const pp_stop_flag *stop,
                                pp_sched_schedule **out, pp_error *err);
pp_status sc_load_schedule_buffer_stop(const char *name, const void *data, size_t size,
                                       const pp_sched_problem *p, const pp_stop_flag *stop,
                                       pp_sched_schedule **out, pp_error *err);

/* Before entry i of a long list (ops, deps) of a document being read:
 * frees the entry before it, read by now, so that a reader that stops frees
 * only what it has not read (freeing the whole tree of a 7 MB problem took
 * 0.2 s under load, past the time limit); and every 4,096 entries, whether
 * pp_stop_raised(stop). */
bool sc_stop_before(json_t *list, size_t i, const pp_stop_flag *stop);

/* Names, or ordered pairs of indices, and what they stand for, by open
 * addressing: the readers' lookups of names they meet. (Jansson's objects
 * served before, at two mallocs an entry and a printed key a pair: a tenth
 * of reading a 49,152-op problem.) Zeroed, it is empty. */
typedef struct {
    uint64_t hash;
    const char *name;      /* NULL for a pair */
    int from, to;
    int value;             /* -1: an empty slot */
} sc_index_entry;

typedef struct {
    sc_index_entry *slots;
    size_t mask, count;    /* mask + 1 slots, a power of two, at most half full */
} sc_index;

/* Adds a name (kept, not copied: it must outlive the index) or, name NULL,
 * the pair (from, to), not in it yet, with value >= 0; false when out of
 * memory. */
bool sc_index_add(sc_index *m, const char *name, int from, int to, int value);
/* The value of a name or a pair, or -1. */
int sc_index_name(const sc_index *m, const char *name);
int sc_index_pair(const sc_index *m, int from, int to);
void sc_index_clear(sc_index *m);
void sc_index_free(sc_index *m);

/* Two problems with the same fields, names, numbers and adjacency input
 * (the loaders' and writers' round trips are judged by it). */
bool sc_problem_equal(const pp_sched_problem *a, const pp_sched_problem *b);

#endif
