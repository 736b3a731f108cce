/* workload_internal.h: what the workload files share across src/cluster/:
 * the empty workload in its own arena, the Piper profile reader that
 * load_workload.c hands a parsed file to, and the workload readers (of a
 * file, and of text already in memory, as the jobs and the fuzzer feed it). */
#ifndef PP_CLUSTER_WORKLOAD_INTERNAL_H
#define PP_CLUSTER_WORKLOAD_INTERNAL_H

#include <jansson.h>
#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"

/* A workload of layer_count zeroed layers named `name`, all in a new arena;
 * NULL when out of memory. */
pp_cluster_workload *cluster_workload_new(int layer_count, const char *name);

/* A copy of s in the workload's arena; NULL when out of memory. */
char *cluster_workload_strdup(pp_cluster_workload *w, const char *s);

/* The Piper profile `root`, read from `file`, as a workload; FLOPs are
 * priced on cat's "A100-80GB-SXM", the device Piper's files were profiled
 * on. */
pp_status cluster_piper_read(const char *file, const json_t *root, const pp_hw_catalog *cat,
                             pp_cluster_workload **out, pp_error *err);

/* pp_cluster_workload_load for text in memory, `name` standing for the file
 * in messages. */
pp_status cluster_workload_load_buffer(const char *name, const void *data, size_t size,
                                       const pp_hw_catalog *cat, pp_cluster_workload **out,
                                       pp_error *err);

/* Reads a workload file: {"transformer": {...}, "recompute": bool, "name": s},
 * a Piper profile (msr-fiddle/piper format, recognised by its "nodes",
 * "edges" and "maxDevices"), or an op graph in the `parplan schedule` format.
 * Formats in the README ("Cluster planner"). */
pp_status pp_cluster_workload_load(const char *path, const pp_hw_catalog *cat,
                                   pp_cluster_workload **out, pp_error *err);

#endif
