/* parplan hardware floor: the device catalog (built-in types from
 * data/devices.json, plus users' files) and the roofline op time of paper 003
 * section 2. The cluster planner and the auto-sharder both build on it. */
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

/* Reads a user's file in the same format: a type whose name or alias is
 * already known gets the fields the file sets (e.g. only "efficiency": a
 * calibration file); any other type is new and needs every figure. On error
 * the catalog is left as it was. */
pp_status pp_hw_catalog_add_file(pp_hw_catalog *cat, const char *path, pp_error *err);
/* The same from size bytes at data, `name` standing for the file in messages. */
pp_status pp_hw_catalog_add_buffer(pp_hw_catalog *cat, const char *name, const void *data, size_t size,
                                   pp_error *err);

/* The type named `name` or one of its aliases, ignoring case; NULL if none.
 * The pointer stays valid until the catalog changes or is freed. */
const pp_hw_device_type *pp_hw_find(const pp_hw_catalog *cat, const char *name);
/* The same for a name a user gave as `what` ("--device", "device"): PP_EARG
 * "WHAT NAME: no such device type (known: ...)" listing the catalog's types
 * when there is none. */
pp_status pp_hw_find_type(const pp_hw_catalog *cat, const char *name, const char *what,
                          const pp_hw_device_type **out, pp_error *err);

size_t pp_hw_catalog_count(const pp_hw_catalog *cat);
const pp_hw_device_type *pp_hw_catalog_type(const pp_hw_catalog *cat, size_t index);

void pp_hw_catalog_free(pp_hw_catalog *cat);

/* Math modes of the catalog's "peaks": plain FP32 on the CUDA cores, TF32,
 * BF16/FP16 and FP8 tensor-core math (FP32 accumulate). */
typedef enum { PP_HW_FP32 = 0, PP_HW_TF32, PP_HW_BF16, PP_HW_FP8, PP_HW_MATH_MODES } pp_hw_math;

/* "fp32", "tf32", "bf16", "fp8": the catalog's keys. */
const char *pp_hw_math_name(pp_hw_math mode);

/* Peak FLOP/s (dense, uncalibrated) of the catalog's type t in `mode`. A
 * mode the device lacks falls back to the one it runs as: FP8 to BF16 (no
 * FP8 tensor cores), TF32 to FP32 (none, as on a V100), BF16 to peak_flops;
 * a type given without "peaks" (a user's file), or not of this catalog, has
 * peak_flops for every mode. The cluster planner prices with peak_flops. */
double pp_hw_catalog_peak(const pp_hw_catalog *cat, const pp_hw_device_type *t, pp_hw_math mode);

/* Time in seconds of an op doing `flops` floating-point operations and
 * moving `bytes` to and from device memory on type t: the slower of its
 * compute and its memory traffic at the calibrated rates (roofline). */
double pp_hw_op_time(const pp_hw_device_type *t, double flops, double bytes);

/* Arithmetic intensity (FLOP per byte) above which ops on t are
 * compute-bound: the roofline's ridge point, at the calibrated rates. */
double pp_hw_arithmetic_intensity_ridge(const pp_hw_device_type *t);

#pragma GCC visibility pop

#endif
