/* timeline_internal.h: drawing a timeline (core/timeline.c), which the
 * systems do for their reports; the public timeline.h only writes one. */
#ifndef PP_CORE_TIMELINE_INTERNAL_H
#define PP_CORE_TIMELINE_INTERNAL_H

#include "parplan/timeline.h"

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

#endif
