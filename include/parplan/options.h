/* parplan options: the one validation of the options both front doors
 * take (the CLI's flags, Python's keyword arguments). An option's range
 * lives here once; the CLI's flag table points at it (its parser and its
 * help read it), each system's request check (pp_*_request_check) applies
 * it, and both say the same words: "timeout nan: allowed: a number > 0,
 * at most 1e+09" (the CLI writes the flag as --timeout). */
#ifndef PARPLAN_OPTIONS_H
#define PARPLAN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct {
    const char *name;  /* as Python spells it; the CLI's flag is --name with '-' for '_' */
    double min, max;   /* the values allowed; NaN never is */
    bool above_min;    /* min itself is not */
    bool whole;        /* a whole number */
    const char *text;  /* what is allowed, when the bounds alone do not say it; NULL: from them */
} pp_option_range;

/* The options every solving command takes. */
extern const pp_option_range pp_option_timeout; /* seconds for the whole job: > 0, at most 1e9 */
extern const pp_option_range pp_option_threads; /* workers: 0 (one per core) to 1024 */
extern const pp_option_range pp_option_seed;    /* any 64-bit value, signed or not */
extern const pp_option_range pp_option_rounds;  /* a cap on rounds: 0 (none) or more */
extern const pp_option_range pp_option_memory;  /* bytes per device: > 0 */

/* A document a front door hands over: a file (path), or text in memory
 * that `name` stands for in messages (path NULL). Neither: none given. */
typedef struct {
    const char *path;
    const char *text;
    size_t size;
    const char *name;
} pp_source;

/* What r allows, as people say it: "a number > 0, at most 1e+09",
 * "a whole number from 0 to 1024". */
void pp_option_range_text(const pp_option_range *r, char *buf, size_t size);
bool pp_option_allows(const pp_option_range *r, double v);
/* PP_EARG "NAME V: allowed: WHAT" when r does not allow v. */
pp_status pp_option_check(const pp_option_range *r, double v, pp_error *err);

/* Bytes as both front doors write them: a number with an optional unit
 * (16e9, 16GB, 16GiB); false when the text is not one, or not > 0. */
bool pp_bytes_parse(const char *text, double *out);

/* How many of text's first `limit` bytes (at most its length) a message
 * may quote without cutting a UTF-8 sequence: a message that quotes input
 * stays text (Python decodes it). */
size_t pp_utf8_prefix(const char *text, size_t limit);

#pragma GCC visibility pop

#endif
