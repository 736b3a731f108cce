/* picture.c: a schedule's pictures, drawn as a core timeline: one row per
 * device (op boxes labelled by op name, coloured by op kind), then one row
 * per directed channel that carries a transfer of positive length (boxes
 * labelled "u -> v" by op names, category "transfer"). One time unit is a
 * millisecond in the trace; the SVG's axis names the problem's time unit
 * when it states one ("time units" when not). A schedule the checker refuses still draws when
 * every op has a device and finite times, since a picture is how one finds
 * what is wrong with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/timeline_internal.h"
#include "sched/sched_internal.h"

static bool drawn_transfer(const pp_sched_problem *p, const pp_sched_schedule *s, int e)
{
    double a = s->transfer_start[e], z = s->transfer_end[e];
    return s->device[p->dep_from[e]] != s->device[p->dep_to[e]] && isfinite(a) && isfinite(z) && z > a;
}

static pp_status check_shape(const pp_sched_problem *p, const pp_sched_schedule *s, pp_error *err)
{
    if (s->op_count != p->op_count || s->dep_count != p->dep_count)
        return pp_error_set(err, PP_EARG, "picture: the schedule has %d ops and %d dependencies, "
                            "the problem %d and %d", s->op_count, s->dep_count, p->op_count, p->dep_count);
    for (int i = 0; i < p->op_count; i++)
        if (s->device[i] < 0 || s->device[i] >= p->device_count)
            return pp_error_set(err, PP_EARG, "picture: op \"%s\" is on device %d, which does not exist",
                                p->op_name[i], s->device[i]);
        else if (!isfinite(s->start[i]) || !isfinite(s->end[i]) || s->end[i] < s->start[i])
            return pp_error_set(err, PP_EARG, "picture: op \"%s\" runs over [%g, %g], not an interval",
                                p->op_name[i], s->start[i], s->end[i]);
    return PP_OK;
}

static pp_status add_ops(pp_timeline *t, const pp_sched_problem *p, const pp_sched_schedule *s,
                         pp_error *err)
{
    pp_status st = PP_OK;
    for (int i = 0; i < p->op_count && st == PP_OK; i++)
        st = pp_timeline_add_box(t, s->device[i], s->start[i], s->end[i], p->op_name[i], p->op_kind[i], err);
    return st;
}

/* Rows for the channels in use, in (from, to) order; row[from * n + to] is
 * the channel's row, -1 for a channel without a drawn transfer. */
static pp_status add_channel_rows(pp_timeline *t, const pp_sched_problem *p, const pp_sched_schedule *s,
                                  int *row, pp_error *err)
{
    int n = p->device_count;
    for (int k = 0; k < n * n; k++)
        row[k] = -1;
    for (int e = 0; e < p->dep_count; e++)
        if (drawn_transfer(p, s, e))
            row[s->device[p->dep_from[e]] * n + s->device[p->dep_to[e]]] = 0;
    for (int k = 0; k < n * n; k++) {
        if (row[k] < 0)
            continue;
        const char *from = p->device_name[k / n], *to = p->device_name[k % n];
        char *name = malloc(strlen(from) + strlen(to) + 5);
        if (name)
            sprintf(name, "%s -> %s", from, to);
        row[k] = name ? pp_timeline_add_row(t, name) : -1;
        free(name);
        if (row[k] < 0)
            return pp_error_set(err, PP_ENOMEM, "picture: out of memory");
    }
    return PP_OK;
}

static pp_status add_transfers(pp_timeline *t, const pp_sched_problem *p, const pp_sched_schedule *s,
                               const int *row, pp_error *err)
{
    pp_status st = PP_OK;
    for (int e = 0; e < p->dep_count && st == PP_OK; e++) {
        if (!drawn_transfer(p, s, e))
            continue;
        const char *u = p->op_name[p->dep_from[e]], *v = p->op_name[p->dep_to[e]];
        char *label = malloc(strlen(u) + strlen(v) + 5);
        if (!label)
            return pp_error_set(err, PP_ENOMEM, "picture: out of memory");
        sprintf(label, "%s -> %s", u, v);
        int r = row[s->device[p->dep_from[e]] * p->device_count + s->device[p->dep_to[e]]];
        st = pp_timeline_add_box(t, r, s->transfer_start[e], s->transfer_end[e], label, "transfer", err);
        free(label);
    }
    return st;
}

static pp_status build(const pp_sched_problem *p, const pp_sched_schedule *s, pp_timeline **out,
                       pp_error *err)
{
    *out = NULL;
    pp_status st = check_shape(p, s, err);
    if (st != PP_OK)
        return st;
    char title[80];
    snprintf(title, sizeof title, "schedule: makespan %.10g", pp_sched_makespan(s));
    pp_timeline *t = pp_timeline_new(title, 1000);
    int *row = malloc((size_t)p->device_count * p->device_count * sizeof *row);
    if (!t || !row)
        st = pp_error_set(err, PP_ENOMEM, "picture: out of memory");
    else
        st = pp_timeline_set_unit(t, p->time_unit ? p->time_unit : "time units", err);
    for (int d = 0; d < p->device_count && st == PP_OK; d++)
        if (pp_timeline_add_row(t, p->device_name[d]) < 0)
            st = pp_error_set(err, PP_ENOMEM, "picture: out of memory");
    if (st == PP_OK)
        st = add_channel_rows(t, p, s, row, err);
    if (st == PP_OK)
        st = add_ops(t, p, s, err);
    if (st == PP_OK)
        st = add_transfers(t, p, s, row, err);
    free(row);
    if (st != PP_OK)
        pp_timeline_free(t);
    else
        *out = t;
    return st;
}

pp_status pp_sched_write_trace(const pp_sched_problem *p, const pp_sched_schedule *s, FILE *f, pp_error *err)
{
    pp_timeline *t;
    pp_status st = build(p, s, &t, err);
    if (st == PP_OK)
        st = pp_timeline_write_trace(t, f, err);
    pp_timeline_free(t);
    return st;
}

pp_status pp_sched_write_svg(const pp_sched_problem *p, const pp_sched_schedule *s, FILE *f, pp_error *err)
{
    pp_timeline *t;
    pp_status st = build(p, s, &t, err);
    if (st == PP_OK)
        st = pp_timeline_write_svg(t, f, err);
    pp_timeline_free(t);
    return st;
}
