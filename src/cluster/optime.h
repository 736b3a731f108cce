/* optime.h: the time one device takes for its share of a stage's pass, the
 * single definition the simulator and the planner's bounds both use. */
#ifndef PP_CLUSTER_OPTIME_H
#define PP_CLUSTER_OPTIME_H

#include "parplan/cluster.h"

/* A pass is many kernels: the matrix products (flops, reading weight_bytes)
 * and the element-wise ones (layer norm, softmax, dropout, activation
 * functions: traffic_bytes, next to no FLOPs). Each kernel meets its own
 * roofline, so the pass takes the products' roofline time plus the
 * element-wise traffic at memory speed; one roofline over the summed figures
 * would hide the element-wise time behind the products. */
double cluster_pass_time(const pp_hw_device_type *t, double flops, double weight_bytes,
                         double traffic_bytes);

#endif
