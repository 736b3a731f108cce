/* check.c: the independent schedule checker. It reads only the problem and
 * the schedule (no solver state) and tests every rule in the comment at the
 * top of parplan/sched.h: each op once on an allowed device (its colocated
 * group's) for exactly its duration, precedence with transfers on existing channels, no overlap on a
 * device or a channel, memory within capacity at all times. It also measures
 * what a person wants to know of a valid schedule: makespan, per-device span,
 * busy time, bubbles and peak memory. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"

typedef struct {
    const pp_sched_problem *p;
    const pp_sched_schedule *s;
    pp_sched_report *report;
    pp_error *err;
    double tol;  /* times compare with this slack: sums of doubles round */
} checker;

typedef struct {
    double at;
    double other;  /* end for intervals, the level change for memory events */
    int index;
} event;

static int by_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static void violation(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void violation(checker *c, const char *fmt, ...)
{
    c->report->violations++;
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pp_error_set(c->err, PP_INFEASIBLE, "%s", text);
}

static bool placed(const checker *c, int i)
{
    int d = c->s->device[i];
    return d >= 0 && d < c->p->device_count && isfinite(c->s->start[i]) && isfinite(c->s->end[i]);
}

static void check_ops(checker *c)
{
    const pp_sched_problem *p = c->p;
    const pp_sched_schedule *s = c->s;
    for (int i = 0; i < p->op_count; i++) {
        const char *name = p->op_name[i];
        if (!placed(c, i)) {
            violation(c, "op \"%s\" is not placed on a device with finite times", name);
            continue;
        }
        if (!pp_sched_op_allowed(p, i, s->device[i]))
            violation(c, "op \"%s\" runs on device \"%s\", which it may not use", name,
                      p->device_name[s->device[i]]);
        int g = p->group[i];
        if (placed(c, g) && s->device[g] != s->device[i])
            violation(c, "op \"%s\" runs on device \"%s\", apart from \"%s\" on \"%s\", with which it "
                      "must share one", name, p->device_name[s->device[i]], p->op_name[g],
                      p->device_name[s->device[g]]);
        if (s->start[i] < -c->tol)
            violation(c, "op \"%s\" starts before time 0 (at %g)", name, s->start[i]);
        if (fabs(s->end[i] - s->start[i] - p->duration[i]) > c->tol)
            violation(c, "op \"%s\" lasts %g, its duration is %g", name, s->end[i] - s->start[i],
                      p->duration[i]);
    }
}

static void check_deps(checker *c)
{
    const pp_sched_problem *p = c->p;
    const pp_sched_schedule *s = c->s;
    for (int e = 0; e < p->dep_count; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (!placed(c, u) || !placed(c, v))
            continue;
        const char *a = p->op_name[u], *b = p->op_name[v];
        double ts = s->transfer_start[e], te = s->transfer_end[e];
        if (s->device[u] == s->device[v]) {
            if (s->start[v] < s->end[u] - c->tol)
                violation(c, "\"%s\" starts at %g, before its input \"%s\" ends at %g", b, s->start[v], a,
                          s->end[u]);
            if (!isnan(ts) || !isnan(te))
                violation(c, "dependency \"%s\" -> \"%s\" has a transfer but both ops share a device", a, b);
            continue;
        }
        if (!pp_sched_has_channel(p, s->device[u], s->device[v])) {
            violation(c, "dependency \"%s\" -> \"%s\" crosses devices with no channel between them", a, b);
            continue;
        }
        if (!isfinite(ts) || !isfinite(te)) {
            violation(c, "dependency \"%s\" -> \"%s\" crosses devices but has no transfer", a, b);
            continue;
        }
        if (ts < s->end[u] - c->tol)
            violation(c, "transfer \"%s\" -> \"%s\" starts at %g, before its source ends at %g", a, b, ts,
                      s->end[u]);
        if (fabs(te - ts - p->dep_comm[e]) > c->tol)
            violation(c, "transfer \"%s\" -> \"%s\" lasts %g, its comm time is %g", a, b, te - ts,
                      p->dep_comm[e]);
        if (s->start[v] < te - c->tol)
            violation(c, "\"%s\" -> \"%s\": the destination starts at %g, before its transfer ends at %g", a, b,
                      s->start[v], te);
    }
}

/* Sorts the intervals by start and reports each pair of neighbours that
 * overlap; intervals of zero length cannot collide with anything. */
static void check_overlaps(checker *c, event *iv, int n, const char *where, bool transfers)
{
    qsort(iv, (size_t)n, sizeof *iv, by_time);
    int last = -1;
    for (int k = 0; k < n; k++) {
        if (iv[k].other - iv[k].at <= c->tol)
            continue;
        if (last >= 0 && iv[k].at < iv[last].other - c->tol) {
            const pp_sched_problem *p = c->p;
            char a[300], b[300];
            int x = iv[last].index, y = iv[k].index;
            if (transfers) {
                snprintf(a, sizeof a, "%s -> %s", p->op_name[p->dep_from[x]], p->op_name[p->dep_to[x]]);
                snprintf(b, sizeof b, "%s -> %s", p->op_name[p->dep_from[y]], p->op_name[p->dep_to[y]]);
            } else {
                snprintf(a, sizeof a, "%s", p->op_name[x]);
                snprintf(b, sizeof b, "%s", p->op_name[y]);
            }
            violation(c, "on %s, \"%s\" (until %g) and \"%s\" (from %g) overlap", where, a, iv[last].other, b,
                      iv[k].at);
        }
        if (last < 0 || iv[k].other > iv[last].other)
            last = k;
    }
}

static void check_devices(checker *c, event *buf)
{
    const pp_sched_problem *p = c->p;
    for (int d = 0; d < p->device_count; d++) {
        int n = 0;
        for (int i = 0; i < p->op_count; i++)
            if (placed(c, i) && c->s->device[i] == d)
                buf[n++] = (event){c->s->start[i], c->s->end[i], i};
        char where[300];
        snprintf(where, sizeof where, "device \"%s\"", p->device_name[d]);
        check_overlaps(c, buf, n, where, false);
    }
}

/* Transfers grouped by channel: sorted by channel first (at = the channel's
 * number), then each group's overlaps checked. O(deps log deps), where a
 * pass per channel would cost devices^2 x deps (at P = 64, 400 million). */
static void check_channels(checker *c, event *buf)
{
    const pp_sched_problem *p = c->p;
    const pp_sched_schedule *s = c->s;
    int D = p->device_count, n = 0;
    for (int e = 0; e < p->dep_count; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (placed(c, u) && placed(c, v) && s->device[u] != s->device[v] &&
            pp_sched_has_channel(p, s->device[u], s->device[v]) && isfinite(s->transfer_start[e]) &&
            isfinite(s->transfer_end[e]))
            buf[n++] = (event){(double)s->device[u] * D + s->device[v], 0, e};
    }
    qsort(buf, (size_t)n, sizeof *buf, by_time);
    for (int g = 0; g < n;) {
        int a = s->device[p->dep_from[buf[g].index]], b = s->device[p->dep_to[buf[g].index]], k = g;
        double channel = buf[g].at;
        for (; k < n && buf[k].at == channel; k++)
            buf[k] = (event){s->transfer_start[buf[k].index], s->transfer_end[buf[k].index], buf[k].index};
        char where[300];
        snprintf(where, sizeof where, "channel \"%s\" -> \"%s\"", p->device_name[a], p->device_name[b]);
        check_overlaps(c, buf + g, k - g, where, true);
        g = k;
    }
}

/* Level = weights from time 0, plus each op's adjustment from its end on.
 * Changes at the same instant are applied together before comparing. */
static void check_memory(checker *c, event *buf)
{
    const pp_sched_problem *p = c->p;
    for (int d = 0; d < p->device_count; d++) {
        double level = 0;
        int n = 0;
        for (int i = 0; i < p->op_count; i++)
            if (placed(c, i) && c->s->device[i] == d) {
                level += p->weight[i];
                buf[n++] = (event){c->s->end[i], p->adjust[i], i};
            }
        qsort(buf, (size_t)n, sizeof *buf, by_time);
        double peak = level, cap = p->capacity[d];
        double slack = 1e-9 * fmax(1, isfinite(cap) ? fabs(cap) : 1);
        bool over = level > cap + slack;
        for (int k = 0; k < n;) {
            double t = buf[k].at;
            while (k < n && buf[k].at == t)
                level += buf[k++].other;
            if (level > peak)
                peak = level;
            over |= level > cap + slack;
        }
        c->report->peak_memory[d] = peak;
        if (over)
            violation(c, "device \"%s\": memory reaches %g, above its capacity %g", p->device_name[d], peak, cap);
    }
}

/* The slack is the problem's own time scale, not the schedule's: scaled by
 * the makespan, times of 1e300 would let every op last 0. */
double pp_sched_time_tolerance(const pp_sched_problem *p)
{
    double total = 0;
    for (int i = 0; i < p->op_count; i++)
        total += p->duration[i];
    for (int e = 0; e < p->dep_count; e++)
        total += p->dep_comm[e];
    return 1e-9 * fmax(1, total);
}

static void check_makespan(checker *c)
{
    double stated = c->s->stated_makespan;
    if (!isnan(stated) && !(fabs(stated - c->report->makespan) <= c->tol))
        violation(c, "the schedule states a makespan of %.17g, its ops end at %.17g", stated,
                  c->report->makespan);
}

/* `first` is scratch, one per device. A device's span is computed from its
 * last end after its first start is known, hence two passes. */
static void measure(checker *c, double *first)
{
    const pp_sched_problem *p = c->p;
    pp_sched_report *r = c->report;
    r->makespan = 0;
    for (int i = 0; i < p->op_count; i++)
        if (placed(c, i)) {
            r->busy[c->s->device[i]] += p->duration[i];
            r->makespan = fmax(r->makespan, c->s->end[i]);
        }
    for (int d = 0; d < p->device_count; d++)
        first[d] = INFINITY;
    for (int i = 0; i < p->op_count; i++)
        if (placed(c, i))
            first[c->s->device[i]] = fmin(first[c->s->device[i]], c->s->start[i]);
    for (int i = 0; i < p->op_count; i++)
        if (placed(c, i))
            r->span[c->s->device[i]] = fmax(r->span[c->s->device[i]], c->s->end[i] - first[c->s->device[i]]);
    r->max_bubble = r->max_span = 0;
    for (int d = 0; d < p->device_count; d++) {
        r->max_span = fmax(r->max_span, r->span[d]);
        r->bubble[d] = r->makespan - r->busy[d];
        r->max_bubble = fmax(r->max_bubble, r->bubble[d]);
    }
}

pp_status pp_sched_check(const pp_sched_problem *p, const pp_sched_schedule *s,
                         pp_sched_report *report, pp_error *err)
{
    memset(report, 0, sizeof *report);
    size_t D = (size_t)p->device_count;
    report->busy = calloc(D, sizeof(double));
    report->bubble = calloc(D, sizeof(double));
    report->peak_memory = calloc(D, sizeof(double));
    report->span = calloc(D, sizeof(double));
    size_t most = (size_t)(p->op_count > p->dep_count ? p->op_count : p->dep_count) + 1;
    event *buf = malloc(most * sizeof *buf);
    double *first = malloc((D + 1) * sizeof(double));
    if (!report->busy || !report->bubble || !report->peak_memory || !report->span || !buf || !first) {
        free(first);
        free(buf);
        return pp_error_set(err, PP_ENOMEM, "checker: out of memory");
    }
    if (s->op_count != p->op_count || s->dep_count != p->dep_count) {
        free(first);
        free(buf);
        report->violations = 1;
        return pp_error_set(err, PP_INFEASIBLE, "the schedule has %d ops and %d dependencies, the problem %d and %d",
                            s->op_count, s->dep_count, p->op_count, p->dep_count);
    }
    checker c = {p, s, report, err, pp_sched_time_tolerance(p)};
    measure(&c, first);
    free(first);
    check_makespan(&c);
    check_ops(&c);
    check_deps(&c);
    check_devices(&c, buf);
    check_channels(&c, buf);
    check_memory(&c, buf);
    free(buf);
    return report->violations ? PP_INFEASIBLE : PP_OK;
}

void pp_sched_report_free(pp_sched_report *report)
{
    free(report->busy);
    free(report->bubble);
    free(report->peak_memory);
    free(report->span);
    memset(report, 0, sizeof *report);
}
