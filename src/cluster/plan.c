/* plan.c: the plan object (one block: the struct and its arrays) and the
 * index arithmetic of its flat [replica][stage][member] layout. */
#include "parplan/cluster.h"

#include <stdlib.h>
#include <string.h>

/* The arrays follow the struct in one allocation, doubles first: the struct
 * holds pointers, so its size keeps them aligned. */
static size_t plan_bytes(int replicas, int stages, int members)
{
    size_t slots = (size_t)replicas * (size_t)members;
    return sizeof(pp_cluster_plan) + slots * sizeof(double) +
           ((size_t)replicas + 2 * (size_t)stages + slots) * sizeof(int);
}

pp_cluster_plan *pp_cluster_plan_new(int replica_count, int stage_count, const int *stage_tp)
{
    if (replica_count < 1 || stage_count < 1 || !stage_tp)
        return NULL;
    int members = 0;
    for (int s = 0; s < stage_count; s++) {
        if (stage_tp[s] < 1 || members > (1 << 20))
            return NULL;
        members += stage_tp[s];
    }
    if ((long)replica_count * members > (1 << 24))
        return NULL;
    pp_cluster_plan *p = calloc(1, plan_bytes(replica_count, stage_count, members));
    if (!p)
        return NULL;
    size_t slots = (size_t)replica_count * (size_t)members;
    p->replica_count = replica_count;
    p->stage_count = stage_count;
    p->split = (double *)(p + 1);
    p->micro_batches = (int *)(p->split + slots);
    p->stage_layers = p->micro_batches + replica_count;
    p->stage_tp = p->stage_layers + stage_count;
    p->devices = p->stage_tp + stage_count;
    memcpy(p->stage_tp, stage_tp, (size_t)stage_count * sizeof(int));
    for (int r = 0; r < replica_count; r++)
        for (int s = 0; s < stage_count; s++)
            for (int j = 0; j < stage_tp[s]; j++)
                p->split[r * members + pp_cluster_plan_stage_offset(p, s) + j] = 1.0 / stage_tp[s];
    return p;
}

pp_cluster_plan *pp_cluster_plan_copy(const pp_cluster_plan *p)
{
    pp_cluster_plan *q = pp_cluster_plan_new(p->replica_count, p->stage_count, p->stage_tp);
    if (!q)
        return NULL;
    size_t slots = (size_t)p->replica_count * (size_t)pp_cluster_plan_members(p);
    q->micro_batch = p->micro_batch;
    q->recompute = p->recompute;
    memcpy(q->micro_batches, p->micro_batches, (size_t)p->replica_count * sizeof(int));
    memcpy(q->stage_layers, p->stage_layers, (size_t)p->stage_count * sizeof(int));
    memcpy(q->devices, p->devices, slots * sizeof(int));
    memcpy(q->split, p->split, slots * sizeof(double));
    return q;
}

void pp_cluster_plan_free(pp_cluster_plan *p)
{
    free(p);
}

int pp_cluster_plan_members(const pp_cluster_plan *p)
{
    return pp_cluster_plan_stage_offset(p, p->stage_count);
}

int pp_cluster_plan_stage_offset(const pp_cluster_plan *p, int stage)
{
    int offset = 0;
    for (int s = 0; s < stage; s++)
        offset += p->stage_tp[s];
    return offset;
}
