/* timing.h: turning per-device op orders into times (internal to sched).
 * The generators time their reference schedules with it; any stage that
 * decides placements and orders can use it to get the earliest times. */
#ifndef PP_SCHED_TIMING_H
#define PP_SCHED_TIMING_H

#include "parplan/sched.h"

/* Gives every op the earliest start its device order and inputs allow: an op
 * starts when its device has finished the op before it in device_order and
 * every input has arrived. A dependency between ops on different devices is
 * a transfer of length comm on the channel between them, put on the channel
 * once its source ends; a channel serves its transfers one at a time in the
 * order they became ready, ties by dependency index (with zero-length ops and
 * transfers, ties at one instant may also be served in the order found).
 * device_order[d] lists order_length[d] ops; together the lists hold every op
 * once, each in the list of device_of_op[op]. Fills out (device, start, end,
 * transfers; NAN transfers for same-device dependencies). Returns PP_EARG
 * when the orders are malformed, a needed channel is missing, or the orders
 * deadlock (an op waits for an input that its own device's order, directly
 * or through others, only lets run later); the message names the op. */
pp_status sc_times_from_orders(const pp_sched_problem *p, const int *device_of_op,
                                  const int *const *device_order, const int *order_length,
                                  pp_sched_schedule *out, pp_error *err);

#endif
