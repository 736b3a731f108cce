/* cluster_plan_load.c: libFuzzer target for the plan reader
 * (cluster_plan_load_buffer, the same code as pp_cluster_plan_load after the
 * file is read), reading every input against one fixed cluster and workload
 * built here: three nodes of four A100s (12 devices, device 11 lost at time
 * 0) and a 4-layer transformer with 4 heads and a global batch of 8.
 * Checks: a failed load returns no plan and says why, starting with
 * "NAME: " or "NAME:LINE:COLUMN: " with the position inside the text; a
 * loaded plan is one the validator accepts and is consistent on its own
 * (layers add up to the workload's, samples to its global batch times the
 * context parallelism, which divides the replicas, devices in
 * range, alive and used once, TP degrees dividing the heads, split shares
 * positive and summing to 1); writing it (pp_cluster_plan_write) loads back
 * to the same plan and writes the same text again. Any breach aborts. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/cluster.h"
#include "message.h"
#include "cluster/load_plan.h"
#include "cluster/moment.h"
#include "cluster/plan.h"
#include "cluster/workload_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cluster_text[] =
    "{\"nodes\": [{\"name\": \"n\", \"device\": \"A100-80GB-SXM\", \"count\": 4, \"copies\": 3,"
    " \"links\": [{\"class\": \"nvlink\", \"bandwidth\": 300e9, \"latency\": 1e-6},"
    " {\"class\": \"ib\", \"inter_node\": true, \"ports\": 4, \"bandwidth\": 25e9}]}],"
    " \"timeline\": [{\"time\": 0, \"lost_device\": 11}]}";

static const char workload_text[] =
    "{\"transformer\": {\"layers\": 4, \"hidden\": 64, \"heads\": 4, \"sequence\": 8,"
    " \"vocabulary\": 32, \"global_batch\": 8}}";

static void setup(const pp_cluster **c, const pp_cluster_workload **w)
{
    static pp_hw_catalog *cat;
    static pp_cluster *cluster;
    static pp_cluster_workload *workload;
    pp_error err = {0};
    if (!cat && (pp_hw_catalog_builtin(&cat, &err) ||
                 pp_cluster_load_buffer("cluster", cluster_text, strlen(cluster_text), cat, &cluster,
                                     &err) ||
                 cluster_workload_load_buffer("workload", workload_text, strlen(workload_text),
                                              cat, &workload, &err)))
        abort();
    *c = cluster;
    *w = workload;
}

static void check_shares(const pp_cluster_plan *p, int r, int s)
{
    int first = r * pp_cluster_plan_members(p) + pp_cluster_plan_stage_offset(p, s);
    double sum = 0;
    for (int j = 0; j < p->stage_tp[s]; j++) {
        double share = p->split[first + j];
        if (!isfinite(share) || share <= 0)
            abort();
        sum += share;
    }
    if (fabs(sum - 1) > 1e-6)
        abort();
}

static void check_devices(const pp_cluster *c, const pp_cluster_plan *p)
{
    int members = pp_cluster_plan_members(p);
    char *used = calloc((size_t)c->device_count, 1);
    if (!used)
        return;
    for (int k = 0; k < p->replica_count * members; k++) {
        int d = p->devices[k];
        if (d < 0 || d >= c->device_count || used[d] || !pp_cluster_device_alive_at(c, d, 0))
            abort();
        used[d] = 1;
    }
    free(used);
}

static void check_plan(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p)
{
    if (p->micro_batch < 1 || p->replica_count < 1 || p->stage_count < 1 || p->context_parallel < 1 ||
        p->replica_count % p->context_parallel != 0)
        abort();
    long layers = 0, samples = 0, members = 0;
    for (int s = 0; s < p->stage_count; s++) {
        if (p->stage_layers[s] < 1 || p->stage_tp[s] < 1 || w->tp_divisor % p->stage_tp[s] != 0 ||
            pp_cluster_plan_stage_offset(p, s) != members)
            abort();
        layers += p->stage_layers[s];
        members += p->stage_tp[s];
    }
    for (int r = 0; r < p->replica_count; r++) {
        if (p->micro_batches[r] < 1)
            abort();
        samples += (long)p->micro_batches[r] * p->micro_batch;
        for (int s = 0; s < p->stage_count; s++)
            check_shares(p, r, s);
    }
    if (layers != w->layer_count || samples != w->global_batch * p->context_parallel ||
        members != pp_cluster_plan_members(p))
        abort();
    check_devices(c, p);
    pp_error err = {0};
    if (pp_cluster_plan_validate(c, w, p, &err))
        abort();
}

/* The plan as pp_cluster_plan_write writes it, malloc'd. */
static char *written(const pp_cluster_plan *p, size_t *size)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    pp_error err = {0};
    if (!f)
        abort();
    if (pp_cluster_plan_write(p, f, &err))
        abort();
    fclose(f);
    return text;
}

static bool same_plan(const pp_cluster_plan *a, const pp_cluster_plan *b)
{
    int n = a->replica_count * pp_cluster_plan_members(a);
    if (a->micro_batch != b->micro_batch ||
        a->replica_count != b->replica_count || a->stage_count != b->stage_count ||
        n != b->replica_count * pp_cluster_plan_members(b))
        return false;
    for (int s = 0; s < a->stage_count; s++)
        if (a->stage_recompute[s] != b->stage_recompute[s])
            return false;
    for (int r = 0; r < a->replica_count; r++)
        if (a->micro_batches[r] != b->micro_batches[r])
            return false;
    for (int s = 0; s < a->stage_count; s++)
        if (a->stage_layers[s] != b->stage_layers[s] || a->stage_tp[s] != b->stage_tp[s])
            return false;
    for (int k = 0; k < n; k++)
        if (a->devices[k] != b->devices[k] || a->split[k] != b->split[k])
            return false;
    return true;
}

static void check_round_trip(const pp_cluster *c, const pp_cluster_workload *w,
                             const pp_cluster_plan *p)
{
    size_t size = 0, again_size = 0;
    char *text = written(p, &size);
    pp_cluster_plan *q = NULL;
    pp_error err = {0};
    if (cluster_plan_load_buffer("written", text, size, c, w, &q, &err) || !same_plan(p, q))
        abort();
    char *again = written(q, &again_size);
    if (again_size != size || memcmp(text, again, size) != 0)
        abort();
    free(again);
    free(text);
    pp_cluster_plan_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const pp_cluster *c;
    const pp_cluster_workload *w;
    setup(&c, &w);
    pp_cluster_plan *p = NULL;
    pp_error err = {0};
    pp_status status = cluster_plan_load_buffer(NAME, data, size, c, w, &p, &err);
    if (status != PP_OK) {
        if (p)
            abort();
        check_message(&err, status, data, size);
        return 0;
    }
    check_plan(c, w, p);
    check_round_trip(c, w, p);
    pp_cluster_plan_free(p);
    return 0;
}
