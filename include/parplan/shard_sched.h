/* parplan model graphs for the scheduler (issue 17 item 4): a StableHLO
 * module, as the shard reader flattens it, becomes an operator-scheduling
 * problem (parplan/sched.h) of one training step on identical devices:
 *  - one forward op per coarse op of the module and its backward op, timed
 *    by the roofline of the sharder's cost model on one device (backward:
 *    twice the forward's FLOPs and bytes);
 *  - dependencies from the data flow, forward and (reversed) backward, each
 *    with the point-to-point time of the tensors it carries over the link;
 *  - activation memory: a forward op's results that other ops use are held
 *    from its end until its backward op ends, and the two are colocated.
 * Times are in microseconds, memory in bytes. The rules, and why, are in
 * src/shard/to_sched.c. */
#ifndef PARPLAN_SHARD_SCHED_H
#define PARPLAN_SHARD_SCHED_H

#include <stdint.h>
#include "parplan/hw_net.h"
#include "parplan/sched.h"
#include "parplan/shard.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

typedef struct {
    int32_t devices;                 /* >= 1 */
    const pp_hw_device_type *device; /* every device's type (borrowed) */
    const pp_hw_catalog *catalog;    /* its peaks per math mode; NULL: peak_flops for every mode */
    pp_shard_precision precision;    /* what f32 products run as (parplan/shard.h) */
    pp_hw_link link;                 /* between any two devices */
    double memory;                   /* bytes per device; <= 0: the device type's memory */
} pp_shard_sched_options;

/* One device, no type, typed precision, the sharder's default link. */
void pp_shard_sched_options_default(pp_shard_sched_options *o);

/* Reads the StableHLO file at path (static shapes only), flattens it and
 * builds its problem: PP_EIO or PP_EINPUT with the file's name and position. */
pp_status pp_shard_sched_from_file(const char *path, const pp_shard_sched_options *o, pp_sched_problem **out,
                                   pp_error *err);

#pragma GCC visibility pop

#endif
