/* cost.h: how the IOPDDL solver adds and compares costs and usages, in one
 * place. The contest's evaluator sums in 128 bits, and a few costs near
 * 10^18 already pass 2^63, so an answer's total cost (and a level of usage
 * over time) is an exact 128-bit sum everywhere answers are compared: a sum
 * that saturated or wrapped would make two different answers look alike, or
 * a cheap one look dear. One table entry (a node's own terms folded
 * together) saturates at INT64_MAX, which no entry of a real answer reaches
 * below 2^63. Bounds are doubles: they prove an answer only where doubles
 * hold every integer. */
#ifndef PP_IOPDDL_COST_H
#define PP_IOPDDL_COST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "parplan/iopddl.h"

/* An answer's total cost, exact. */
typedef pp_int128 iopddl_cost;

/* "No answer yet": above every sum of at most 2^64 entries of int64. */
#define IOPDDL_NO_COST ((iopddl_cost)1 << 126)

/* Adds two table entries (each >= 0), saturating at INT64_MAX. */
static inline int64_t iopddl_saturating_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

/* For progress reports and other displays: the cost clamped to int64. */
static inline int64_t iopddl_cost_shown(iopddl_cost c) { return c > INT64_MAX ? INT64_MAX : (int64_t)c; }

/* Doubles hold every integer below 2^53: above it, a bound computed in
 * doubles (or a MIP solved in them) cannot tell costs a unit apart. */
#define IOPDDL_EXACT_DOUBLE ((iopddl_cost)1 << 53)

/* True when the certified lower bound proves cost optimal: cost is at or
 * below it, and both are small enough for a double to tell them apart. */
static inline bool iopddl_bound_proves(iopddl_cost cost, double bound)
{
    return cost >= 0 && cost < IOPDDL_EXACT_DOUBLE && bound > -INFINITY && (double)cost <= bound;
}

/* The largest double at or below c: a bound made of an exact cost stays a
 * bound. */
static inline double iopddl_cost_floor(iopddl_cost c)
{
    double d = (double)c;
    return (iopddl_cost)d > c ? nextafter(d, -INFINITY) : d;
}

#endif
