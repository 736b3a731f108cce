/* load_cluster.h: the reader's limits and the events readers (a file, and
 * text already in memory, as the jobs and the fuzzer feed it). The cluster
 * readers themselves are public (parplan/cluster.h). */
#ifndef PP_CLUSTER_LOAD_CLUSTER_H
#define PP_CLUSTER_LOAD_CLUSTER_H

#include <stddef.h>
#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"

/* Limits that keep a small file from asking for an absurd cluster. */
#define CLUSTER_MAX_DEVICES 1000000
#define CLUSTER_MAX_NODES 65536
#define CLUSTER_MAX_LINKS 1000000
#define CLUSTER_MAX_PORTS 1024

/* Reads an events file ({"events": [...]}, the same entries as a cluster's
 * "timeline") and appends its events to c, keeping them sorted. */
pp_status pp_cluster_add_events_file(pp_cluster *c, const char *path, pp_error *err);
/* The same for size bytes of text at data, `name` standing for the file in
 * messages. */
pp_status cluster_add_events_buffer(pp_cluster *c, const char *name, const void *data,
                                    size_t size, pp_error *err);

#endif
