/* roofline.c: how long one op takes on one device type, by the roofline
 * model (Williams et al. 2009) as paper 003 section 2 states it.
 *
 * Paper 003 eq. 1: roofline_BW = min(K x memBW_p, FLOPs_p), the attainable
 * FLOP/s of processor p, with eq. 2: K = FLOPs_k / mem_k, the arithmetic
 * intensity of kernel k (its FLOPs over its memory traffic). Dividing the
 * kernel's FLOPs_k by that rate gives its time,
 *     FLOPs_k / min(K memBW_p, FLOPs_p) = max(FLOPs_k / FLOPs_p, mem_k / memBW_p),
 * which is what pp_hw_op_time computes, with the peaks FLOPs_p and memBW_p
 * scaled by the type's calibrated efficiencies. The max form needs no
 * division by mem_k, so ops that move no bytes (or do no math) are fine. */
#include "hw/hw_internal.h"

double pp_hw_op_time(const pp_hw_device_type *t, double flops, double bytes)
{
    double compute = flops / (t->peak_flops * t->efficiency_compute);
    double memory = bytes / (t->memory_bandwidth * t->efficiency_memory);
    return compute > memory ? compute : memory;
}

/* The K at which the two arms of eq. 1 meet. */
double pp_hw_arithmetic_intensity_ridge(const pp_hw_device_type *t)
{
    return (t->peak_flops * t->efficiency_compute) / (t->memory_bandwidth * t->efficiency_memory);
}
