/* cluster.c: what a cluster is at a given moment: the bandwidth of a link,
 * whether a device is still there once the timeline's events up to that
 * moment have happened, and the compute rate of the devices left. The reader
 * (load_cluster.c) builds the cluster. */
#include <math.h>
#include <string.h>
#include "cluster/optime.h"
#include "cluster/moment.h"
#include "core/core_internal.h"

void pp_cluster_free(pp_cluster *c)
{
    if (c)
        pp_arena_free(c->arena);
}

static bool event_touches_link(const pp_cluster *c, const pp_cluster_event *e, int link)
{
    const pp_cluster_link *l = &c->links[link];
    return e->lost_device < 0 && (e->node < 0 || e->node == l->node) && strcmp(e->link, l->name) == 0;
}

double pp_cluster_link_bandwidth_at(const pp_cluster *c, int link, double t)
{
    double bandwidth = c->links[link].bandwidth;
    for (int k = 0; k < c->event_count && c->events[k].time <= t; k++)
        if (event_touches_link(c, &c->events[k], link))
            bandwidth = c->events[k].bandwidth;
    return bandwidth;
}

bool pp_cluster_device_alive_at(const pp_cluster *c, int device, double t)
{
    for (int k = 0; k < c->event_count && c->events[k].time <= t; k++)
        if (c->events[k].lost_device == device)
            return false;
    return true;
}

/* FP8 products count at the fastest device's FP8 speed-up, so that the
 * figure stays below every plan's on any mix of devices. */
double pp_cluster_ideal_step_time(const pp_cluster *c, const pp_cluster_workload *w, double t)
{
    double work = 0, fp8 = 0, rate = 0, speedup = 1;
    for (int k = 0; k < w->layer_count; k++) {
        work += w->layers[k].forward_flops + w->layers[k].backward_flops;
        fp8 += 3 * cluster_fp8_flops(&w->layers[k]);
    }
    for (int d = 0; d < c->device_count; d++)
        if (pp_cluster_device_alive_at(c, d, t)) {
            const pp_hw_device_type *type = c->nodes[c->device_node[d]].type;
            rate += type->peak_flops * type->efficiency_compute;
            speedup = fmax(speedup, cluster_fp8_speedup(type));
        }
    return (work - fp8 + fp8 / speedup) * (double)w->global_batch / rate;
}
