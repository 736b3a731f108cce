/* parplan timeline: the pictures every system draws (schedules, cluster
 * simulations, usage profiles). A timeline is a list of named rows (devices,
 * channels, links) holding boxes: an interval [start, end] in the caller's
 * time unit, a label and a category. It is written as a Chrome trace (loads
 * in chrome://tracing and Perfetto) or as an SVG Gantt chart (opens in any
 * browser). Boxes of the same category share a colour, assigned in the order
 * categories are first seen. Text that is not valid UTF-8 is stored with '?'
 * for each bad byte, so both outputs stay well formed. */
#ifndef PARPLAN_TIMELINE_H
#define PARPLAN_TIMELINE_H

#include <stdio.h>
#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* A report's picture (the library draws it). */
typedef struct pp_timeline pp_timeline;

/* Trace Event Format, object form: a process named by the title, one thread
 * per row (tid = row + 1, since Perfetto has merged tid 0 into tid 1), one
 * complete ("X") event per box with args {start, end} in the caller's unit. */
pp_status pp_timeline_write_trace(const pp_timeline *t, FILE *f, pp_error *err);

/* SVG: a lane per row with its name on the left, a time axis in the caller's
 * unit (named when it is s, ms or us), a legend of categories, labels inside
 * boxes where they fit. A row's boxes of one category form a group with one
 * tooltip (category, row, count, busy time); boxes less than two pixels
 * apart are drawn as one rectangle at least two pixels wide. */
pp_status pp_timeline_write_svg(const pp_timeline *t, FILE *f, pp_error *err);

#pragma GCC visibility pop

#endif
