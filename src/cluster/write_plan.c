/* write_plan.c: writes a plan in the full form of load_plan.c, one stage per
 * line so that it can be edited by hand, with shares printed to 17
 * significant digits, every stage's recomputation said (the top-level
 * default, or the stage's own where it differs) and the switches that are
 * on, so that reading it back gives the same plan. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "parplan/cluster.h"
#include "cluster/plan.h"
#include "cluster/stack.h"

static void write_list_int(FILE *f, const int *v, int n)
{
    for (int j = 0; j < n; j++)
        fprintf(f, "%s%d", j ? ", " : "", v[j]);
}

static void write_list_double(FILE *f, const double *v, int n)
{
    for (int j = 0; j < n; j++)
        fprintf(f, "%s%.17g", j ? ", " : "", v[j]);
}

/* Shares exactly as pp_cluster_plan_new makes them are left out: the reader
 * gives them back. */
static bool even(const double *split, int tp)
{
    for (int j = 0; j < tp; j++)
        if (split[j] != 1.0 / tp)
            return false;
    return true;
}

/* The top-level "recompute": what most stages do (true on a tie); the
 * others say their own. */
static bool usual_recompute(const pp_cluster_plan *p)
{
    int on = 0;
    for (int s = 0; s < p->stage_count; s++)
        on += p->stage_recompute[s];
    return 2 * on >= p->stage_count;
}

static void write_replica(const pp_cluster_plan *p, FILE *f, int r)
{
    int members = pp_cluster_plan_members(p);
    fprintf(f, "    {\"micro_batches\": %d, \"stages\": [\n", p->micro_batches[r]);
    for (int s = 0; s < p->stage_count; s++) {
        int slot = r * members + pp_cluster_plan_stage_offset(p, s);
        fprintf(f, "      {\"layers\": %d, \"devices\": [", p->stage_layers[s]);
        write_list_int(f, p->devices + slot, p->stage_tp[s]);
        fprintf(f, "]");
        if (!even(p->split + slot, p->stage_tp[s])) {
            fprintf(f, ", \"split\": [");
            write_list_double(f, p->split + slot, p->stage_tp[s]);
            fprintf(f, "]");
        }
        if (p->stage_recompute[s] != usual_recompute(p))
            fprintf(f, ", \"recompute\": %s", p->stage_recompute[s] ? "true" : "false");
        fprintf(f, "}%s\n", s + 1 < p->stage_count ? "," : "");
    }
    fprintf(f, "    ]}%s\n", r + 1 < p->replica_count ? "," : "");
}

pp_status pp_cluster_plan_write(const pp_cluster_plan *p, FILE *f, pp_error *err)
{
    fprintf(f, "{\n  \"micro_batch\": %d,\n  \"recompute\": %s,\n", p->micro_batch,
            usual_recompute(p) ? "true" : "false");
    if (p->sequence_parallel)
        fprintf(f, "  \"sequence_parallel\": true,\n");
    if (p->selective_recompute)
        fprintf(f, "  \"selective_recompute\": true,\n");
    if (p->distributed_optimizer)
        fprintf(f, "  \"distributed_optimizer\": true,\n");
    if (p->tp_overlap)
        fprintf(f, "  \"tp_overlap\": true,\n");
    if (p->reduce_after_backward)
        fprintf(f, "  \"reduce_after_backward\": true,\n");
    if (p->zero3)
        fprintf(f, "  \"zero3\": true,\n");
    if (p->expert_parallel > 1)
        fprintf(f, "  \"expert_parallel\": %d,\n", p->expert_parallel);
    if (p->virtual_stages > 1)
        fprintf(f, "  \"virtual_stages\": %d,\n", p->virtual_stages);
    if (p->context_parallel > 1)
        fprintf(f, "  \"context_parallel\": %d,\n", p->context_parallel);
    if (p->stack != PP_CLUSTER_STACK_MEGATRON_LM)
        fprintf(f, "  \"stack\": \"%s\",\n", pp_cluster_stack_name(p->stack));
    fprintf(f, "  \"replicas\": [\n");
    for (int r = 0; r < p->replica_count; r++)
        write_replica(p, f, r);
    fprintf(f, "  ]\n}\n");
    if (fflush(f) != 0 || ferror(f))
        return pp_error_set(err, PP_EIO, "writing the plan: %s", strerror(errno));
    return PP_OK;
}
