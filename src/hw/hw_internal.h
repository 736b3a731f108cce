/* hw_internal.h: what the floors above use of the hardware floor and the
 * public API does not show: users' catalog files, finding and listing a
 * catalog's types, the peaks per math mode (hw.h's pp_hw_math) and the
 * roofline op time of paper 003 section 2. */
#ifndef PP_HW_INTERNAL_H
#define PP_HW_INTERNAL_H

#include "parplan/hw.h"

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

size_t pp_hw_catalog_count(const pp_hw_catalog *cat);
const pp_hw_device_type *pp_hw_catalog_type(const pp_hw_catalog *cat, size_t index);

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

#endif
