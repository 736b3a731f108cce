/* options.c: the ranges of the options both front doors take, their words,
 * and the bytes syntax they share (see parplan/options.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/options_internal.h"

const pp_option_range pp_option_timeout = {"timeout", 0, 1e9, true, false, NULL};
const pp_option_range pp_option_threads = {"threads", 0, 1024, false, true, NULL};
/* A seed is 64 bits: a negative one stands for its two's complement. */
const pp_option_range pp_option_seed = {"seed", -9223372036854775808.0, 18446744073709551615.0, false, true,
                                        "a whole number from -9223372036854775808 to 18446744073709551615"};
const pp_option_range pp_option_rounds = {"rounds", 0, 9223372036854775807.0, false, true, NULL};
const pp_option_range pp_option_memory = {"memory", 0, INFINITY, true, false,
                                          "a number of bytes > 0, with an optional unit (16e9, 16GB, 16GiB)"};

/* Bounds this large are no bound to a person. */
static bool unbounded_below(const pp_option_range *r) { return r->min <= -1e300; }
static bool unbounded_above(const pp_option_range *r) { return r->max >= 1e300; }

/* A bound as people write it: whole ones in full (a double holds 2^63-1
 * as 2^63, which int64_t bounds stand for). */
static const char *bound_text(const pp_option_range *r, double v, char *buf, size_t size)
{
    if (r->whole && v >= 9223372036854775807.0)
        snprintf(buf, size, "9223372036854775807");
    else if (r->whole && v <= -9223372036854775807.0)
        snprintf(buf, size, "-9223372036854775808");
    else
        snprintf(buf, size, r->whole ? "%.0f" : "%.15g", v);
    return buf;
}

void pp_option_range_text(const pp_option_range *r, char *buf, size_t size)
{
    const char *what = r->whole ? "a whole number" : "a number";
    char lo[32], hi[32];
    bound_text(r, r->min, lo, sizeof lo);
    bound_text(r, r->max, hi, sizeof hi);
    if (r->text)
        snprintf(buf, size, "%s", r->text);
    else if (unbounded_below(r) && unbounded_above(r))
        snprintf(buf, size, "any %s", r->whole ? "whole number" : "number");
    else if (unbounded_above(r))
        snprintf(buf, size, "%s %s %s", what, r->above_min ? ">" : ">=", lo);
    else if (r->above_min)
        snprintf(buf, size, "%s > %s, at most %s", what, lo, hi);
    else
        snprintf(buf, size, "%s from %s to %s", what, lo, hi);
}

bool pp_option_allows(const pp_option_range *r, double v)
{
    bool above = r->above_min ? v > r->min : v >= r->min;
    return above && v <= r->max && isfinite(v) && (!r->whole || v == floor(v));
}

pp_status pp_option_check(const pp_option_range *r, double v, pp_error *err)
{
    if (pp_option_allows(r, v))
        return PP_OK;
    char allowed[160];
    pp_option_range_text(r, allowed, sizeof allowed);
    return pp_error_set(err, PP_EARG, "%s %.17g: allowed: %s", r->name, v, allowed);
}

pp_status pp_option_check_solver(double timeout, int64_t threads, pp_error *err)
{
    pp_status st = pp_option_check(&pp_option_timeout, timeout, err);
    return st == PP_OK ? pp_option_check(&pp_option_threads, (double)threads, err) : st;
}

pp_status pp_option_check_choice(const char *name, const char *value, const char *choices, pp_error *err)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p; p += strcspn(p, "|"), p += *p == '|') {
        size_t len = strcspn(p, "|");
        if (len == n && strncmp(p, value, n) == 0)
            return PP_OK;
    }
    return pp_error_set(err, PP_EARG, "%s %s: allowed: %s", name, value, choices);
}

bool pp_bytes_parse(const char *text, double *out)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"", 1}, {"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
                 {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    char *end;
    double v = strtod(text, &end);
    if (end == text || !pp_option_allows(&pp_option_memory, v))
        return false;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strcmp(end, units[k].suffix) == 0) {
            *out = v * units[k].scale;
            return isfinite(*out);
        }
    return false;
}
