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

typedef struct pp_timeline pp_timeline;

/* microseconds_per_unit converts the caller's times to the trace's
 * microseconds (1000 when one unit is a millisecond). NULL when out of memory. */
pp_timeline *pp_timeline_new(const char *title, double microseconds_per_unit);
void pp_timeline_free(pp_timeline *t);
/* Replaces the title (e.g. once the figures it should carry are known). */
pp_status pp_timeline_set_title(pp_timeline *t, const char *title, pp_error *err);

/* Names the SVG time axis's unit ("time (NAME)") where the caller's unit is
 * none of s, ms, us, or is one only by the trace's convention. */
pp_status pp_timeline_set_unit(pp_timeline *t, const char *name, pp_error *err);

/* Rows appear in the order added; returns the row's index, -1 when out of memory. */
int pp_timeline_add_row(pp_timeline *t, const char *name);

/* PP_EARG when the row does not exist or the times are not finite with
 * start <= end. A box of length zero is kept in the trace and left out of the SVG. */
pp_status pp_timeline_add_box(pp_timeline *t, int row, double start, double end,
                              const char *label, const char *category, pp_error *err);

int pp_timeline_row_count(const pp_timeline *t);
int pp_timeline_box_count(const pp_timeline *t);
int pp_timeline_category_count(const pp_timeline *t);

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
