/* optime.c: the time of a device's share of a pass (see optime.h). */
#include "cluster/optime.h"

double cluster_pass_time(const pp_hw_device_type *t, double flops, double weight_bytes,
                         double traffic_bytes)
{
    return pp_hw_op_time(t, flops, weight_bytes) + pp_hw_op_time(t, 0, traffic_bytes);
}
