/* cluster.c: what a cluster is at a given moment: the bandwidth of a link and
 * whether a device is still there once the timeline's events up to that
 * moment have happened. The reader (load_cluster.c) builds the cluster. */
#include "parplan/cluster.h"

#include <string.h>

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
