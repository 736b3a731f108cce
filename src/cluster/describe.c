/* describe.c: a plan in one line ("dp 2, pp 2, tp 4/4, layers 10/14,
 * micro-batch 1 x 16, recompute 1/0, ...") and whether two plans are the
 * same. Both live beside the plan's fields, so that a new switch is named
 * and compared where it is added, not in each caller. */
#include <stdio.h>
#include <string.h>
#include "parplan/cluster.h"
#include "cluster/plan.h"
#include "cluster/stack.h"

static size_t describe_recompute(const pp_cluster_plan *p, char *buf, size_t size)
{
    int on = 0;
    for (int s = 0; s < p->stage_count; s++)
        on += p->stage_recompute[s];
    if (on == 0)
        return 0;
    size_t n = (size_t)snprintf(buf, size, ", recompute");
    for (int s = 0; on < p->stage_count && s < p->stage_count && n < size; s++)
        n += (size_t)snprintf(buf + n, size - n, "%s%d", s ? "/" : " ", p->stage_recompute[s]);
    return n;
}

/* dp counts data-parallel copies: with context parallelism, CP groups. */
static size_t describe_counts(const pp_cluster_plan *p, char *buf, size_t size)
{
    int cp = p->context_parallel > 0 ? p->context_parallel : 1;
    size_t n = (size_t)snprintf(buf, size, "dp %d, pp %d, tp ", p->replica_count / cp, p->stage_count);
    for (int s = 0; s < p->stage_count && n < size; s++)
        n += (size_t)snprintf(buf + n, size - n, "%s%d", s ? "/" : "", p->stage_tp[s]);
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, ", layers ");
    for (int s = 0; s < p->stage_count && n < size; s++)
        n += (size_t)snprintf(buf + n, size - n, "%s%d", s ? "/" : "", p->stage_layers[s]);
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, ", micro-batch %d x %d", p->micro_batch, p->micro_batches[0]);
    return n;
}

void pp_cluster_plan_describe(const pp_cluster_plan *p, char *buf, size_t size)
{
    const struct {
        bool on;
        const char *name;
    } switches[] = {{p->selective_recompute, "selective recompute"},
                    {p->sequence_parallel, "sequence parallel"},
                    {p->distributed_optimizer, "distributed optimizer"},
                    {p->zero3, "ZeRO-3"},
                    {p->tp_overlap, "TP overlap"},
                    {p->reduce_after_backward, "gradients reduced after the backward"}};
    if (size == 0)
        return;
    size_t n = describe_counts(p, buf, size);
    if (n < size)
        n += describe_recompute(p, buf + n, size - n);
    for (size_t k = 0; k < sizeof switches / sizeof switches[0] && n < size; k++)
        if (switches[k].on)
            n += (size_t)snprintf(buf + n, size - n, ", %s", switches[k].name);
    if (n < size && p->expert_parallel > 1)
        n += (size_t)snprintf(buf + n, size - n, ", expert parallel %d", p->expert_parallel);
    if (n < size && p->context_parallel > 1)
        n += (size_t)snprintf(buf + n, size - n, ", context parallel %d", p->context_parallel);
    if (n < size && p->virtual_stages > 1)
        n += (size_t)snprintf(buf + n, size - n, ", %d virtual stages", p->virtual_stages);
    if (n < size && p->stack != PP_CLUSTER_STACK_MEGATRON_LM)
        snprintf(buf + n, size - n, ", on %s", pp_cluster_stack_name(p->stack));
}

static bool same_ints(const int *a, const int *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static bool same_switches(const pp_cluster_plan *a, const pp_cluster_plan *b)
{
    return a->sequence_parallel == b->sequence_parallel && a->selective_recompute == b->selective_recompute &&
           a->distributed_optimizer == b->distributed_optimizer && a->virtual_stages == b->virtual_stages &&
           a->tp_overlap == b->tp_overlap && a->reduce_after_backward == b->reduce_after_backward &&
           a->zero3 == b->zero3 && a->expert_parallel == b->expert_parallel &&
           a->context_parallel == b->context_parallel && a->stack == b->stack;
}

bool pp_cluster_plan_equal(const pp_cluster_plan *a, const pp_cluster_plan *b)
{
    if (!same_switches(a, b) || a->micro_batch != b->micro_batch || a->replica_count != b->replica_count ||
        a->stage_count != b->stage_count || !same_ints(a->stage_tp, b->stage_tp, a->stage_count))
        return false;
    int slots = a->replica_count * pp_cluster_plan_members(a);
    return same_ints(a->micro_batches, b->micro_batches, a->replica_count) &&
           same_ints(a->stage_layers, b->stage_layers, a->stage_count) && same_ints(a->devices, b->devices, slots) &&
           memcmp(a->split, b->split, (size_t)slots * sizeof *a->split) == 0 &&
           memcmp(a->stage_recompute, b->stage_recompute, (size_t)a->stage_count * sizeof(bool)) == 0;
}
