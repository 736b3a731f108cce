/* workload.c: the workload object (a list of layers in pipeline order) and
 * the transformer as one: embeddings folded into the first layer, the logit
 * layer into the last. */
#include "parplan/cluster.h"

void pp_cluster_workload_free(pp_cluster_workload *w)
{
    if (w)
        pp_arena_free(w->arena);
}
