/* optime.h: the time one device takes for its share of a stage's pass, the
 * single definition the simulator and the planner's bounds both use, and the
 * per-kernel efficiency of a layer's matrix products. */
#ifndef PP_CLUSTER_OPTIME_H
#define PP_CLUSTER_OPTIME_H

#include "parplan/cluster.h"
#include "parplan/hw_net.h"

/* A pass is many kernels: the matrix products (flops, reading weight_bytes)
 * and the element-wise ones (layer norm, softmax, dropout, activation
 * functions: traffic_bytes, next to no FLOPs). Each kernel meets its own
 * roofline, so the pass takes the products' roofline time plus the
 * element-wise traffic at memory speed; one roofline over the summed figures
 * would hide the element-wise time behind the products. */
double cluster_pass_time(const pp_hw_device_type *t, double flops, double weight_bytes,
                         double traffic_bytes);

/* The fraction of t's calibrated compute rate layer l's products reach on a
 * member holding share f of them, micro-batch b: their FLOPs over the sum
 * of each product's FLOPs divided by its wave efficiency and, in FP8, by
 * cluster_fp8_speedup (forward products, or backward's input- and
 * weight-gradient products); above 1 when FP8 products outrun the BF16
 * rate. 1 when t has neither GEMM shapes nor FP8 or l has no products. */
double cluster_gemm_efficiency(const pp_hw_device_type *t, const pp_cluster_layer *l, double b,
                               double f, bool backward);

/* How many times faster than its BF16 rate t runs an FP8 product of the
 * same shape: its FP8 peak over its BF16 peak times its kernels' FP8
 * figure; 1 when t has no FP8 tensor cores. */
double cluster_fp8_speedup(const pp_hw_device_type *t);

/* The forward FLOPs per sample of l's FP8 products (pp_cluster_gemm.fp8);
 * their backward is twice that. */
double cluster_fp8_flops(const pp_cluster_layer *l);

/* Whether x and y have the same products: layers are mostly alike, and
 * their efficiencies need computing once. */
bool cluster_same_products(const pp_cluster_layer *x, const pp_cluster_layer *y);

/* The most of cluster_gemm_efficiency over w's layers and both passes,
 * for the bounds: no pass of w on t at micro-batch b and share f runs its
 * products faster than the calibrated rate times this. */
double cluster_gemm_ceiling(const pp_hw_device_type *t, const pp_cluster_workload *w, double b,
                            double f);

/* The optimizer step over state_bytes of weights, gradients and Adam's
 * moments: each read and written once by one fused streaming kernel, at the
 * type's streaming efficiency (its memory efficiency when not given: that
 * figure is the element-wise kernels', which touch their bytes many times). */
double cluster_optimizer_time(const pp_hw_device_type *t, double state_bytes);

/* Adding one micro-batch's 16-bit gradients of weight_bytes of weights
 * into FP32 buffers after the backward: a cast to FP32 and an add, two
 * streaming kernels (DeepSpeed's BF16_Optimizer; Megatron-LM's
 * weight-gradient GEMMs accumulate into FP32 themselves: stack.c). */
double cluster_accumulate_time(const pp_hw_device_type *t, double weight_bytes);

/* For the bounds: no backward pass spends less on its TP collectives over
 * `link` among tp members than this, for `own` bytes of its own and
 * `replay` bytes of a replayed forward. Without overlap the all-reduce of
 * both; with it (pp_cluster_plan.tp_overlap) the own ones may hide entirely
 * and the replay's cost at least their share of the ring's bandwidth term,
 * which is what any of the collectives adds per byte. */
double cluster_tp_backward_floor(pp_hw_link link, int tp, double own, double replay, bool overlap);

#endif
