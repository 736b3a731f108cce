/* check.c: the independent check of a plan's report (pp_plan_check), from
 * its fields alone, sharing no code with the search: the stages cover the
 * units once and in order, every stage's devices exist, are of its one
 * type and serve one slot, every stage has its module, and, where the report says the plan fits, no
 * device holds more than its capacity. */
#include <stdlib.h>
#include <string.h>
#include "plan/plan_internal.h"

pp_status pp_plan_check(const pp_plan_report *p, pp_error *err)
{
    if (p->n_stages < 1 || p->replicas < 1 || p->microbatches < 1)
        return pp_error_set(err, PP_EINPUT, "plan: %d stages, %d replicas, %d micro-batches", p->n_stages,
                            p->replicas, p->microbatches);
    if ((int64_t)p->replicas * p->microbatches * p->micro_batch != p->batch)
        return pp_error_set(err, PP_EINPUT, "plan: %d replicas x %d micro-batches x %lld samples is not the batch %lld",
                            p->replicas, p->microbatches, (long long)p->micro_batch, (long long)p->batch);
    int32_t next = 0;
    for (int32_t s = 0; s < p->n_stages; s++) {
        if (p->stages[s].first_unit != next || p->stages[s].units < 1)
            return pp_error_set(err, PP_EINPUT, "plan: stage %d starts at unit %d, expected %d", s,
                                p->stages[s].first_unit, next);
        next += p->stages[s].units;
    }
    if (next != p->n_units)
        return pp_error_set(err, PP_EINPUT, "plan: the stages cover %d units of %d", next, p->n_units);
    char *used = calloc((size_t)p->n_devices + 1, 1);
    if (!used)
        return pp_error_set(err, PP_ENOMEM, "out of memory checking a plan");
    pp_status st = PP_OK;
    for (int32_t s = 0; s < p->n_stages && st == PP_OK; s++) {
        const pp_plan_stage *S = &p->stages[s];
        int32_t product = 1;
        for (int32_t a = 0; a < S->n_axes; a++)
            product *= S->axes[a];
        if (product != S->devices)
            st = pp_error_set(err, PP_EINPUT, "plan: stage %d's mesh does not hold its %d devices", s, S->devices);
        else if (!S->module_text || S->module_size == 0 || strlen(S->module_text) != S->module_size)
            st = pp_error_set(err, PP_EINPUT, "plan: stage %d has no module", s);
        for (int32_t k = 0; k < p->replicas * S->devices && st == PP_OK; k++) {
            int32_t d = S->device_ids[k];
            if (d < 0 || d >= p->n_devices || used[d])
                st = pp_error_set(err, PP_EINPUT, "plan: stage %d uses device %d %s", s, d,
                                  d < 0 || d >= p->n_devices ? "out of range" : "twice");
            else if (strcmp(p->device_type[d], S->device) != 0)
                st = pp_error_set(err, PP_EINPUT, "plan: stage %d runs on %s but device %d is a %s", s, S->device, d,
                                  p->device_type[d]);
            else
                used[d] = 1;
        }
    }
    for (int32_t d = 0; d < p->n_devices && st == PP_OK; d++)
        if (p->fits && p->peak_memory[d] > p->capacity[d])
            st = pp_error_set(err, PP_EINPUT, "plan: device %d holds %.4g bytes, more than its %.4g", d,
                              p->peak_memory[d], p->capacity[d]);
    free(used);
    return st;
}
