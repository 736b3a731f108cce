/* parplan hardware floor, communication: a link as the meshes of the
 * requests describe it. The times of the collectives built on it (the
 * alpha-beta model the cluster planner and the auto-sharder share) are
 * src/hw/net_internal.h; formulas and sources are in src/hw/collective.c. */
#ifndef PARPLAN_HW_NET_H
#define PARPLAN_HW_NET_H

/* One physical link, or the bottleneck of a path. A bandwidth of 0 means the
 * link is down: anything that must cross it takes forever (INFINITY). */
typedef struct {
    double bandwidth; /* bytes/s (beta = 1 / bandwidth) */
    double latency;   /* s per message (alpha) */
} pp_hw_link;

#endif
