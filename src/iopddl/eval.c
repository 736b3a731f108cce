/* eval.c: the contest's evaluation of an assignment, written independently of
 * the solver so that it can check it: costs and usages summed in 128 bits,
 * intervals half-open [start, end), edges indexed row-major, and no usage
 * limit when the problem has none. */
#include <stdlib.h>
#include "parplan/iopddl.h"

typedef struct {
    int64_t time;
    int64_t delta;
} usage_event;

static int by_time(const void *a, const void *b)
{
    const usage_event *x = a, *y = b;
    return (x->time > y->time) - (x->time < y->time);
}

static pp_int128 total_cost(const pp_iopddl_problem *p, const uint32_t *s, bool *forbidden)
{
    pp_int128 cost = 0;
    for (uint32_t i = 0; i < p->node_count; i++) {
        int64_t c = p->node_cost[p->strategy_start[i] + s[i]];
        *forbidden |= c >= PP_IOPDDL_FORBIDDEN;
        cost += c;
    }
    for (uint32_t e = 0; e < p->edge_count; e++) {
        uint64_t index = 0;
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++) {
            uint32_t node = p->edge_nodes[k];
            index = index * pp_iopddl_strategy_count(p, node) + s[node];
        }
        int64_t c = p->edge_cost[p->edge_cost_start[e] + index];
        *forbidden |= c >= PP_IOPDDL_FORBIDDEN;
        cost += c;
    }
    return cost;
}

pp_status pp_iopddl_evaluate(const pp_iopddl_problem *p, const uint32_t *s,
                             pp_iopddl_evaluation *out, pp_error *err)
{
    for (uint32_t i = 0; i < p->node_count; i++)
        if (s[i] >= pp_iopddl_strategy_count(p, i))
            return pp_error_set(err, PP_EINPUT, "node %u: strategy %u out of range (it has %u)", i,
                                s[i], pp_iopddl_strategy_count(p, i));
    out->uses_forbidden = false;
    out->cost = total_cost(p, s, &out->uses_forbidden);

    usage_event *events = malloc(2 * (size_t)p->node_count * sizeof *events);
    if (!events)
        return pp_error_set(err, PP_ENOMEM, "out of memory");
    size_t count = 0;
    for (uint32_t i = 0; i < p->node_count; i++) {
        if (p->interval_start[i] >= p->interval_end[i])
            continue;
        int64_t u = p->node_usage[p->strategy_start[i] + s[i]];
        events[count++] = (usage_event){p->interval_start[i], u};
        events[count++] = (usage_event){p->interval_end[i], -u};
    }
    qsort(events, count, sizeof *events, by_time);
    pp_int128 level = 0;
    out->peak_usage = 0;
    out->peak_time = -1;
    for (size_t k = 0; k < count;) {
        int64_t t = events[k].time;
        for (; k < count && events[k].time == t; k++)
            level += events[k].delta;
        if (level > out->peak_usage) {
            out->peak_usage = level;
            out->peak_time = t;
        }
    }
    free(events);
    out->feasible = !p->has_usage_limit || out->peak_usage <= p->usage_limit;
    return PP_OK;
}
