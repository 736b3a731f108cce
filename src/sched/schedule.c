/* schedule.c: the schedule object: a device, start and end per op and a
 * transfer interval per dependency. Plain arrays, one allocation each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"

pp_sched_schedule *pp_sched_schedule_new(const pp_sched_problem *p)
{
    pp_sched_schedule *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t n = (size_t)p->op_count + 1, m = (size_t)p->dep_count + 1;
    s->op_count = p->op_count;
    s->dep_count = p->dep_count;
    s->device = calloc(n, sizeof(int));
    s->start = calloc(n, sizeof(double));
    s->end = calloc(n, sizeof(double));
    s->transfer_start = malloc(m * sizeof(double));
    s->transfer_end = malloc(m * sizeof(double));
    if (!s->device || !s->start || !s->end || !s->transfer_start || !s->transfer_end) {
        pp_sched_schedule_free(s);
        return NULL;
    }
    for (size_t e = 0; e < m; e++)
        s->transfer_start[e] = s->transfer_end[e] = NAN;
    s->stated_makespan = NAN;
    s->period = NAN;
    return s;
}

void pp_sched_schedule_free(pp_sched_schedule *s)
{
    if (!s)
        return;
    free(s->device);
    free(s->start);
    free(s->end);
    free(s->transfer_start);
    free(s->transfer_end);
    free(s);
}

void pp_sched_schedule_copy(pp_sched_schedule *to, const pp_sched_schedule *from)
{
    size_t n = (size_t)from->op_count, m = (size_t)from->dep_count;
    memcpy(to->device, from->device, n * sizeof(int));
    memcpy(to->start, from->start, n * sizeof(double));
    memcpy(to->end, from->end, n * sizeof(double));
    memcpy(to->transfer_start, from->transfer_start, m * sizeof(double));
    memcpy(to->transfer_end, from->transfer_end, m * sizeof(double));
    to->stated_makespan = from->stated_makespan;
    to->period = from->period;
}

double pp_sched_makespan(const pp_sched_schedule *s)
{
    double makespan = 0;
    for (int i = 0; i < s->op_count; i++)
        if (s->end[i] > makespan)
            makespan = s->end[i];
    return makespan;
}
