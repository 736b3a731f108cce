/* span.c: re-times a valid schedule to shorten its longest per-device span
 * (each device from its first op's start to its last op's end), keeping
 * every op on its device and every device's and channel's order. With the
 * orders fixed the times are difference constraints (retime.c), and a span
 * limit S is one more constraint per device: its first op starts no
 * earlier than its last op ends minus S (an edge of -1 periods at T = S).
 * The least S whose constraints settle is found by bisection. Memory stays
 * valid: a device's levels change in the same order. */
#include <math.h>
#include "sched/retime.h"
#include "sched/sched_internal.h"

static double longest_span(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    pp_sched_report r;
    pp_error err = {0};
    pp_sched_check(p, s, &r, &err);
    double span = r.max_span;
    pp_sched_report_free(&r);
    return span;
}

/* The span limits: each device's last op to its first, -1 periods. */
static void limit_spans(sc_retimer *r)
{
    for (int d = 0; d < r->devices; d++)
        if (r->first[d] >= 0 && r->first[d] != r->last[d])
            sc_retime_add(r, r->last[d], r->first[d], r->length[r->last[d]], -1);
}

/* The longest span of the last settle's times: a limit the orders meet. */
static double settled_span(const sc_retimer *r)
{
    double span = 0;
    for (int d = 0; d < r->devices; d++)
        if (r->first[d] >= 0)
            span = fmax(span, r->trial[r->last[d]] + r->length[r->last[d]] - r->trial[r->first[d]]);
    return span;
}

pp_status sc_compact_spans(const pp_sched_problem *p, pp_sched_schedule *s, pp_error *err)
{
    sc_retimer r;
    pp_status st = PP_OK;
    if (!sc_retimer_init(&r, p, s, p->device_count)) {
        st = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    } else {
        sc_retime_order(&r, INFINITY);
        limit_spans(&r);
        double low = pp_sched_span_lower_bound(p), high = longest_span(p, s);
        /* The bound first: when the orders allow it, exactly rather than
         * within the bisection's slack. A limit that settles is lowered to
         * the span its times reach, which often ends the search at once
         * (P = 64, 256 micro-batches: a compaction took 40 settles). */
        if (sc_retime_settle(&r, low))
            high = low;
        /* Then just under the span at hand: an already compacted schedule
         * (the search's answers, compared again) is then settled in two
         * tries, not forty; each try that finds no times costs the most. */
        double nearly = high - 1e-9 * fmax(1, high);
        if (high > low && sc_retime_settle(&r, nearly))
            high = fmax(low, fmin(nearly, settled_span(&r)));
        else if (high > low)
            low = nearly;
        for (int step = 0; step < 40 && high - low > 1e-9 * fmax(1, high); step++) {
            double mid = 0.5 * (low + high);
            if (sc_retime_settle(&r, mid))
                high = fmax(low, fmin(mid, settled_span(&r)));
            else
                low = mid;
        }
        if (sc_retime_settle(&r, high))
            sc_retime_export(&r, p, s);
    }
    sc_retimer_free(&r);
    return st;
}
