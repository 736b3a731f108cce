/* parplan hardware floor: the device catalog (built-in types from
 * data/devices.json) and its device types, as the requests name them. Users'
 * catalog files, the peaks per math mode and the roofline op time of paper
 * 003 section 2, which the cluster planner and the auto-sharder build on,
 * are src/hw/hw_internal.h. */
#ifndef PARPLAN_HW_H
#define PARPLAN_HW_H

#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* One kind of accelerator. The efficiencies (in (0, 1], 1.0 unless a
 * calibration file says otherwise) scale the peak figures in the roofline. */
typedef struct {
    const char *name;
    double peak_flops;       /* FLOP/s, dense FP16/BF16 tensor math, FP32 accumulate */
    double memory_bandwidth; /* bytes/s */
    double memory_bytes;     /* capacity */
    double efficiency_compute;
    double efficiency_memory;
    /* The kernels, for the cluster planner (0 when not given): streaming
     * multiprocessors and the largest output tile of the GEMM kernels (rows
     * x columns), for wave quantisation; and the fraction of the memory
     * bandwidth a plain streaming kernel (the optimizer step) reaches,
     * where the element-wise kernels get efficiency_memory. */
    double gemm_sms;
    double gemm_tile_rows;
    double gemm_tile_cols;
    double streaming_efficiency;
    /* FP8 matrix products (cluster planner): the dense FP8 tensor peak
     * (the catalog's "peaks"."fp8"; 0 when the device has none, and FP8
     * products then run as BF16 ones), and the fraction of it an FP8
     * product reaches relative to the fraction of peak_flops a BF16 product
     * of the same shape reaches ("kernels"."fp8"; 0 when not given: the
     * same fraction). */
    double fp8_flops;
    double fp8_relative;
} pp_hw_device_type;

typedef struct pp_hw_catalog pp_hw_catalog;

/* The catalog compiled into the library (data/devices.json). */
pp_status pp_hw_catalog_builtin(pp_hw_catalog **out, pp_error *err);

/* The type a user named as `what` ("--device", "device"), by its name or
 * one of its aliases, ignoring case; it stays valid until the catalog is
 * freed. PP_EARG "WHAT NAME: no such device type (known: ...)" listing the
 * catalog's types when there is none. */
pp_status pp_hw_find_type(const pp_hw_catalog *cat, const char *name, const char *what,
                          const pp_hw_device_type **out, pp_error *err);

void pp_hw_catalog_free(pp_hw_catalog *cat);

/* Math modes of the catalog's "peaks": plain FP32 on the CUDA cores, TF32,
 * BF16/FP16 and FP8 tensor-core math (FP32 accumulate). */
typedef enum { PP_HW_FP32 = 0, PP_HW_TF32, PP_HW_BF16, PP_HW_FP8, PP_HW_MATH_MODES } pp_hw_math;

#pragma GCC visibility pop

#endif
