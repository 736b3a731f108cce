/* cluster_workload_load.c: libFuzzer target for the workload reader
 * (cluster_workload_load_buffer, the same code as pp_cluster_workload_load
 * after the file is read), both of its formats: the transformer and the
 * Piper profile. Checks: a failed load returns no workload and says why,
 * starting with "NAME: " or "NAME:LINE:COLUMN: " with the position inside
 * the text; a loaded workload is consistent (at least one layer, each named,
 * every per-layer figure finite and >= 0, a global batch and TP divisor of
 * at least 1, finite step FLOPs). Any breach aborts. */
#include <math.h>
#include <stdlib.h>
#include "parplan/cluster.h"
#include "message.h"
#include "cluster/workload_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool figure(double x)
{
    return isfinite(x) && x >= 0;
}

static void check_layer(const pp_cluster_layer *l)
{
    const double figures[] = {l->forward_flops,    l->backward_flops,
                              l->recompute_flops,  l->weight_bytes,
                              l->traffic_bytes,    l->state_bytes,
                              l->gradient_bytes,   l->activation_bytes,
                              l->activation_replicated_bytes, l->checkpoint_bytes,
                              l->output_bytes,     l->tp_forward_bytes,
                              l->tp_backward_bytes};
    if (!l->name)
        abort();
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++)
        if (!figure(figures[k]))
            abort();
}

static void check_workload(const pp_cluster_workload *w)
{
    if (!w->name || w->layer_count < 1 || !w->layers || w->global_batch < 1 || w->tp_divisor < 1)
        abort();
    for (int k = 0; k < w->layer_count; k++)
        check_layer(&w->layers[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pp_hw_catalog *cat;
    pp_error err = {0};
    if (!cat && pp_hw_catalog_builtin(&cat, &err) != PP_OK)
        abort();
    pp_cluster_workload *w = NULL;
    pp_status status = cluster_workload_load_buffer(NAME, data, size, cat, &w, &err);
    if (status != PP_OK) {
        if (w)
            abort();
        check_message(&err, status, data, size);
        return 0;
    }
    check_workload(w);
    pp_cluster_workload_free(w);
    return 0;
}
