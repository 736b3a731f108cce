/* cyclic.c: the cyclic objective. A schedule of one iteration, repeated
 * every T (iteration k's op i runs from start_i + kT to end_i + kT on the
 * same device, its transfers likewise), is a cyclic schedule of period T
 * when:
 *  - the iteration itself is a valid schedule (pp_sched_check);
 *  - on each device no two ops overlap modulo T, nor an op its own next
 *    copy (every copy of every op against every other), and on each
 *    channel no two transfers;
 *  - each device's level, summed over every iteration alive at once (the
 *    weights held once: they are the parameters, not per iteration), stays
 *    within its capacity. Each iteration must give back on a device what it
 *    takes there, or repeating it would grow the level without end;
 *  - unless the iterations run asynchronously: on each device, iteration
 *    k + 1's first op starts after iteration k's last op ends. This is the
 *    device's optimizer step: synchronous training updates the parameters a
 *    device holds once all its weight gradients of the iteration are in,
 *    before any of its ops of the next iteration reads them; with Qi et
 *    al.'s post-validation (arXiv 2401.10241 section 5) the devices step
 *    independently, so the step binds per device, not across them. Then T
 *    is at least every device's span, and iteration k + 1's warm-up fills
 *    the other devices' drain of iteration k. Without the step (as under
 *    PipeDream's weight stashing) iterations may also overlap on a device.
 * The bubble is 1 - (the busiest device's work) / T.
 *
 * The level at phase t of the steady state is W + sum_i A_i floor((t -
 * end_i) / T): each op's adjustment counted once per copy ended, less the
 * copies a net-zero iteration cancels. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched/cyclic.h"
#include "sched/retime.h"
#include "sched/sched_internal.h"

typedef struct {
    double at, length;
    int index;
} slot;

static int by_phase(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

typedef struct {
    const pp_sched_problem *p;
    const pp_sched_schedule *s;
    double T, tol;
    pp_sched_cyclic_report *r;
    pp_error *err;
} cyclic_checker;

static void violation(cyclic_checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void violation(cyclic_checker *c, const char *fmt, ...)
{
    if (c->r->violations++ > 0)
        return;
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pp_error_set(c->err, PP_INFEASIBLE, "%s", text);
}

/* Sorts n intervals by their phase modulo T; true when a neighbour pair, or
 * the last and the first one period later, overlap (*a and *b: which). */
static bool overlap_mod(slot *iv, int n, double T, double tol, int *a, int *b)
{
    for (int k = 0; k < n; k++)
        iv[k].at = sc_phase(iv[k].at, T);
    qsort(iv, (size_t)n, sizeof *iv, by_phase);
    for (int k = 0; k < n; k++) {
        const slot *x = &iv[k], *y = &iv[(k + 1) % n];
        double next = y->at + (k + 1 == n ? T : 0);
        if (x->length > tol && x->at + x->length > next + tol) {
            *a = x->index, *b = y->index;
            return true;
        }
    }
    return false;
}

static void check_devices(cyclic_checker *c, slot *buf)
{
    const pp_sched_problem *p = c->p;
    for (int d = 0; d < p->device_count; d++) {
        int n = 0, a, b;
        for (int i = 0; i < p->op_count; i++)
            if (c->s->device[i] == d)
                buf[n++] = (slot){c->s->start[i], p->duration[i], i};
        if (overlap_mod(buf, n, c->T, c->tol, &a, &b))
            violation(c, "repeated every %g, on device \"%s\" \"%s\" overlaps \"%s\" of another iteration", c->T,
                      p->device_name[d], p->op_name[a], p->op_name[b]);
    }
}

/* Transfers grouped by channel with one sort by channel number. */
static void check_channels(cyclic_checker *c, slot *buf)
{
    const pp_sched_problem *p = c->p;
    const pp_sched_schedule *s = c->s;
    int D = p->device_count, n = 0;
    for (int e = 0; e < p->dep_count; e++) {
        int a = s->device[p->dep_from[e]], b = s->device[p->dep_to[e]];
        if (a != b)
            buf[n++] = (slot){(double)a * D + b, 0, e};
    }
    qsort(buf, (size_t)n, sizeof *buf, by_phase);
    for (int g = 0; g < n;) {
        int k = g, x, y;
        for (double channel = buf[g].at; k < n && buf[k].at == channel; k++)
            buf[k] = (slot){s->transfer_start[buf[k].index], p->dep_comm[buf[k].index], buf[k].index};
        if (overlap_mod(buf + g, k - g, c->T, c->tol, &x, &y))
            violation(c, "repeated every %g, on channel \"%s\" -> \"%s\" the transfer %s -> %s overlaps %s -> %s "
                      "of another iteration", c->T, p->device_name[s->device[p->dep_from[x]]],
                      p->device_name[s->device[p->dep_to[x]]], p->op_name[p->dep_from[x]],
                      p->op_name[p->dep_to[x]], p->op_name[p->dep_from[y]], p->op_name[p->dep_to[y]]);
        g = k;
    }
}

/* Per device: the steady state's level at each phase where an op ends,
 * changes within the tolerance of one another applied together. */
static void check_memory(cyclic_checker *c, slot *buf)
{
    const pp_sched_problem *p = c->p;
    for (int d = 0; d < p->device_count; d++) {
        double cap = p->capacity[d], slack = 1e-9 * fmax(1, isfinite(cap) ? fabs(cap) : 1);
        double weight = 0, net = 0, base = 0, scale = 0;
        int n = 0;
        for (int i = 0; i < p->op_count; i++)
            if (c->s->device[i] == d) {
                double copies = floor(c->s->end[i] / c->T);
                weight += p->weight[i];
                net += p->adjust[i];
                scale += fabs(p->adjust[i]);
                base -= p->adjust[i] * (copies + 1);
                buf[n++] = (slot){c->s->end[i] - copies * c->T, p->adjust[i], i};
            }
        qsort(buf, (size_t)n, sizeof *buf, by_phase);
        double level = weight + base, peak = level;
        for (int k = 0; k < n;) {
            for (double t = buf[k].at; k < n && buf[k].at <= t + c->tol; k++)
                level += buf[k].length;
            peak = fmax(peak, level);
        }
        c->r->peak_memory[d] = n ? peak : weight;
        if (isfinite(cap) && fabs(net) > 1e-9 * fmax(1, scale))
            violation(c, "device \"%s\": one iteration changes its level by %g, so repeated it would %s without "
                      "end", p->device_name[d], net, net > 0 ? "grow" : "fall");
        else if (peak > cap + slack)
            violation(c, "repeated every %g, device \"%s\" holds up to %g with the iterations alive at once, "
                      "above its capacity %g", c->T, p->device_name[d], peak, cap);
    }
}

/* The optimizer step: each device's span within the period. */
static void check_step(cyclic_checker *c, const pp_sched_report *single)
{
    for (int d = 0; d < c->p->device_count; d++)
        if (single->span[d] > c->T + c->tol)
            violation(c, "device \"%s\" spans %g in one iteration, more than the period %g: its optimizer step "
                      "cannot come between two iterations", c->p->device_name[d], single->span[d], c->T);
}

static void measure(cyclic_checker *c, const pp_sched_report *single)
{
    double busiest = 0;
    for (int d = 0; d < c->p->device_count; d++)
        busiest = fmax(busiest, single->busy[d]);
    c->r->period = c->T;
    c->r->bubble = 1 - busiest / c->T;
}

pp_status pp_sched_check_cyclic(const pp_sched_problem *p, const pp_sched_schedule *s, double period, bool async,
                                pp_sched_cyclic_report *report, pp_error *err)
{
    memset(report, 0, sizeof *report);
    report->period = period;
    report->bubble = NAN;
    report->peak_memory = calloc((size_t)p->device_count + 1, sizeof(double));
    if (!report->peak_memory)
        return pp_error_set(err, PP_ENOMEM, "checker: out of memory");
    if (!(isfinite(period) && period > 0)) {
        report->violations = 1;
        return pp_error_set(err, PP_INFEASIBLE, "the period must be a finite number > 0, not %g", period);
    }
    pp_sched_report single;
    pp_status st = pp_sched_check(p, s, &single, err);
    if (st != PP_OK) {
        report->violations = single.violations;
        pp_sched_report_free(&single);
        return st;
    }
    size_t most = (size_t)(p->op_count > p->dep_count ? p->op_count : p->dep_count) + 1;
    slot *buf = malloc(most * sizeof *buf);
    if (!buf) {
        pp_sched_report_free(&single);
        return pp_error_set(err, PP_ENOMEM, "checker: out of memory");
    }
    cyclic_checker c = {p, s, period, pp_sched_time_tolerance(p), report, err};
    measure(&c, &single);
    if (!async)
        check_step(&c, &single);
    check_devices(&c, buf);
    check_channels(&c, buf);
    check_memory(&c, buf);
    free(buf);
    pp_sched_report_free(&single);
    return report->violations ? PP_INFEASIBLE : PP_OK;
}

void pp_sched_cyclic_report_free(pp_sched_cyclic_report *report)
{
    free(report->peak_memory);
    memset(report, 0, sizeof *report);
}

/* With the step kept, a device's iterations follow one another, so memory
 * is one iteration's and a device's span is all the period must hold
 * there; a channel's transfers all lie in one window as long as the time
 * from its first transfer's start to its last one's end. */
double sc_cyclic_step_period(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    int D = p->device_count;
    double *first = malloc(((size_t)D * (D + 1) + 1) * sizeof(double));
    double *last = malloc(((size_t)D * (D + 1) + 1) * sizeof(double));
    double period = 0;
    if (!first || !last) {
        free(first), free(last);
        return INFINITY;
    }
    for (int k = 0; k < D * (D + 1); k++)
        first[k] = INFINITY, last[k] = -INFINITY;
    for (int i = 0; i < p->op_count; i++) {
        int d = s->device[i];
        first[d] = fmin(first[d], s->start[i]), last[d] = fmax(last[d], s->end[i]);
    }
    for (int e = 0; e < p->dep_count; e++) {
        int a = s->device[p->dep_from[e]], b = s->device[p->dep_to[e]], k = D + a * D + b;
        if (a != b)
            first[k] = fmin(first[k], s->transfer_start[e]), last[k] = fmax(last[k], s->transfer_end[e]);
    }
    for (int k = 0; k < D * (D + 1); k++)
        if (last[k] > first[k])
            period = fmax(period, last[k] - first[k]);
    free(first), free(last);
    return period;
}

/* Whatever the placement, every device with a capacity must get back what
 * each iteration takes there: the adjustments of the ops forced onto it sum
 * to zero, and so do those of every colocated group free to move. And some
 * op or transfer must take time, or no period is the least. */
pp_status sc_cyclic_applies(const pp_sched_problem *p, pp_error *err)
{
    int D = p->device_count, n = p->op_count;
    double *net = calloc((size_t)(D + n) + 1, sizeof(double)), *scale = calloc((size_t)(D + n) + 1, sizeof(double));
    pp_status st = PP_OK;
    bool any_capacity = false;
    for (int d = 0; d < D; d++)
        any_capacity |= isfinite(p->capacity[d]);
    if (!net || !scale)
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    for (int i = 0; st == PP_OK && i < n; i++) {
        int d = sc_forced_device(p, p->group[i]), k = d >= 0 ? d : D + p->group[i];
        net[k] += p->adjust[i];
        scale[k] += fabs(p->adjust[i]);
    }
    for (int k = 0; st == PP_OK && k < D + n; k++) {
        bool bounded = k < D ? isfinite(p->capacity[k]) : any_capacity;
        if (bounded && fabs(net[k]) > 1e-9 * fmax(1, scale[k]))
            st = pp_error_set(err, PP_EARG, "the cyclic objective needs each iteration to give back the memory it "
                              "takes on a device: %s \"%s\" changes the level by %g per iteration",
                              k < D ? "device" : "the ops placed together with", k < D ? p->device_name[k] :
                              p->op_name[k - D], net[k]);
    }
    free(net), free(scale);
    double time = 0;
    for (int i = 0; i < n; i++)
        time += p->duration[i];
    for (int e = 0; e < p->dep_count; e++)
        time += p->dep_comm[e];
    if (st == PP_OK && !(time > 0))
        st = pp_error_set(err, PP_EARG, "the cyclic objective needs an op or a transfer that takes time: with "
                          "none, every period > 0 repeats the iteration and none is the least");
    return st;
}

/* The asynchronous search: a valid cyclic schedule folded at a shorter
 * period T (each device's ops, and each channel's transfers, taken in the
 * order of their times modulo T, the iteration each copy belongs to kept)
 * and re-timed at T, earliest (retime.c: the difference constraints
 * x_b >= x_a + c + k T, k how many iterations apart the two copies are). */

/* r->trial as a schedule of period T in out; true when the checker takes
 * it, and then the next folds read their orders from it. */
static bool accept(sc_retimer *r, const pp_sched_problem *p, double T, pp_sched_schedule *out)
{
    sc_retime_export(r, p, out);
    out->period = T;
    pp_sched_cyclic_report c;
    pp_error why = {0};
    bool ok = pp_sched_check_cyclic(p, out, T, true, &c, &why) == PP_OK;
    pp_sched_cyclic_report_free(&c);
    if (ok)
        memcpy(r->x, r->trial, (size_t)r->nodes * sizeof(double));
    return ok;
}

/* Scans folds from the bound up to the best period found, a sixteenth of
 * the gap apart (after a scan that found nothing, four times finer, up to
 * 1/1024): each fold's orders are squeezed by bisection to the least
 * period they allow (fixed orders: feasibility is monotone in T), which
 * lies above the period folded at, since a fold interleaves two
 * iterations' ops that its re-timing must then pull apart. One that beats
 * the best becomes it and the scan starts again from it; a scan with none
 * ends the search. */
enum { FOLD_STEPS = 16, FOLD_STEPS_MOST = 1024 };

/* The least period below `high` that the current orders allow and the
 * checker takes, into s; `high` when none. */
static double squeeze(sc_retimer *r, const pp_sched_problem *p, double low, double high, pp_sched_schedule *s,
                      pp_sched_schedule *trial, const pp_deadline *deadline)
{
    double best = high;
    while (best - low > 1e-6 * best && !pp_deadline_passed(deadline)) {
        double T = 0.5 * (low + high);
        if (sc_retime_settle(r, T) && accept(r, p, T, trial)) {
            high = best = T;
            pp_sched_schedule_copy(s, trial);
        } else {
            low = T;
        }
        if (high - low <= 1e-6 * high)
            break;
    }
    return best;
}

static pp_status fold_from(const pp_sched_problem *p, pp_sched_schedule *s, const pp_deadline *deadline,
                           pp_error *err)
{
    sc_retimer r;
    pp_sched_schedule *trial = pp_sched_schedule_new(p);
    pp_status st = PP_OK;
    if (!sc_retimer_init(&r, p, s, 0) || !trial) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    } else {
        pp_sched_schedule_copy(trial, s);
        double low = pp_sched_cyclic_lower_bound(p, true), best = s->period;
        for (int steps = FOLD_STEPS; steps <= FOLD_STEPS_MOST && best - low > 1e-6 * best;) {
            bool found = false;
            for (int j = 1; j < steps && !found && !pp_deadline_passed(deadline); j++) {
                sc_retime_order(&r, low + (best - low) * j / steps);
                double period = squeeze(&r, p, low, best, s, trial, deadline);
                found = period < best;
                best = period;
            }
            steps = found ? FOLD_STEPS : steps * 4;
        }
    }
    sc_retimer_free(&r);
    pp_sched_schedule_free(trial);
    return st;
}

/* Which start folds best is not known beforehand: at P = 32 under P
 * micro-batches the makespan's schedule folds to a period 8% shorter
 * than the span's, at 2P the span's 0.5% shorter (BENCHMARKS.md). So s
 * gets half the time and the second start, its spans compacted, the rest. */
pp_status sc_cyclic_fold(const pp_sched_problem *p, pp_sched_schedule *s, pp_sched_schedule *other,
                            const pp_deadline *deadline, pp_error *err)
{
    pp_deadline half = pp_deadline_within(deadline, 0.5 * pp_deadline_left(deadline));
    pp_status st = fold_from(p, s, other ? &half : deadline, err);
    if (st != PP_OK || !other || (st = sc_compact_spans(p, other, err)) != PP_OK)
        return st;
    other->period = sc_cyclic_step_period(p, other);
    if (!isfinite(other->period))
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    if ((st = fold_from(p, other, deadline, err)) == PP_OK && other->period < s->period)
        pp_sched_schedule_copy(s, other);
    return st;
}
