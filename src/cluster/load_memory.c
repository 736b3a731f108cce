/* load_memory.c: the public readers of text already in memory (the Python
 * module hands dicts over as JSON text). Each is the file reader's own code
 * after the file is read; `name` stands for the file in messages. */
#include "cluster/load_cluster.h"
#include "cluster/load_plan.h"
#include "cluster/workload_internal.h"

pp_status pp_cluster_load_buffer(const char *name, const void *data, size_t size, const pp_hw_catalog *cat,
                                 pp_cluster **out, pp_error *err)
{
    return cluster_load_buffer(name, data, size, cat, out, err);
}

pp_status pp_cluster_add_events_buffer(pp_cluster *c, const char *name, const void *data, size_t size,
                                       pp_error *err)
{
    return cluster_add_events_buffer(c, name, data, size, err);
}

pp_status pp_cluster_workload_load_buffer(const char *name, const void *data, size_t size,
                                          const pp_hw_catalog *cat, pp_cluster_workload **out, pp_error *err)
{
    return cluster_workload_load_buffer(name, data, size, cat, out, err);
}

pp_status pp_cluster_plan_load_buffer(const char *name, const void *data, size_t size, const pp_cluster *c,
                                      const pp_cluster_workload *w, pp_cluster_plan **out, pp_error *err)
{
    return cluster_plan_load_buffer(name, data, size, c, w, out, err);
}
