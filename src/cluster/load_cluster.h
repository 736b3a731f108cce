/* load_cluster.h: the cluster and events readers for text already in memory
 * (the fuzzer feeds them without a file). Same format and errors as
 * pp_cluster_load and pp_cluster_add_events_file, with `name` standing for
 * the file in messages. */
#ifndef PP_CLUSTER_LOAD_CLUSTER_H
#define PP_CLUSTER_LOAD_CLUSTER_H

#include <stddef.h>
#include "parplan/cluster.h"

/* Limits that keep a small file from asking for an absurd cluster. */
#define CLUSTER_MAX_DEVICES 1000000
#define CLUSTER_MAX_NODES 65536
#define CLUSTER_MAX_LINKS 1000000
#define CLUSTER_MAX_PORTS 1024

pp_status cluster_load_buffer(const char *name, const void *data, size_t size,
                              const pp_hw_catalog *cat, pp_cluster **out, pp_error *err);
pp_status cluster_add_events_buffer(pp_cluster *c, const char *name, const void *data,
                                    size_t size, pp_error *err);

#endif
