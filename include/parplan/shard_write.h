/* parplan auto-sharder, the writer of the sharded module (issue 8): the
 * input module's text with a sharding on every argument and result of the
 * entry function, as GSPMD strings (mhlo.sharding) or Shardy attributes
 * (sdy.sharding and an sdy.mesh declaration), and the mesh's device count
 * as the module's mhlo.num_partitions. */
#ifndef PARPLAN_SHARD_WRITE_H
#define PARPLAN_SHARD_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "parplan/shard.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef enum {
    PP_SHARD_FORMAT_GSPMD = 0, /* mhlo.sharding = "{devices=[4,2]0,4,1,5,2,6,3,7}" */
    PP_SHARD_FORMAT_SDY        /* sdy.sharding = #sdy.sharding<@mesh, [{"m"}, {"b"}]> */
} pp_shard_format;

/* What the written module carries of a plan, as read back from its text. */
typedef struct {
    int32_t tensors;   /* tensors the plan fixes: the entry's arguments and results and
                          every tensor an op of the flattened module defines (tensor types only) */
    int32_t annotated; /* of those, the ones the written module annotates, each checked to
                          carry the plan's layout */
    int32_t copies;    /* functions added: a callee copied for each further distinct
                          layout its call sites need */
} pp_shard_write_stats;

#pragma GCC visibility pop

#endif
