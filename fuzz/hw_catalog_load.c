/* hw_catalog_load.c: libFuzzer target for the device catalog reader
 * (pp_hw_catalog_add_buffer, the same code as pp_hw_catalog_add_file after
 * the file is read: a user's catalog or calibration file, `--devices`),
 * applied to the built-in catalog. Checks: a failed read says why, starting
 * with "NAME: " or "NAME:LINE:COLUMN: " with the position inside the text,
 * and leaves the catalog as it was (same types, same figures); a read one
 * holds only types that can be priced (a non-empty name that finds the
 * type; peak, bandwidth and memory finite and > 0; efficiencies in (0, 1];
 * kernel figures finite and >= 0, fractions <= 1). Any breach aborts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hw/hw_internal.h"
#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool positive(double x) { return isfinite(x) && x > 0; }
static bool fraction(double x) { return isfinite(x) && x >= 0 && x <= 1; }

static void check_type(const pp_hw_catalog *cat, const pp_hw_device_type *t)
{
    if (!t->name || !t->name[0] || pp_hw_find(cat, t->name) != t || !positive(t->peak_flops) ||
        !positive(t->memory_bandwidth) || !positive(t->memory_bytes) || !positive(t->efficiency_compute) ||
        t->efficiency_compute > 1 || !positive(t->efficiency_memory) || t->efficiency_memory > 1 ||
        !isfinite(t->gemm_sms) || t->gemm_sms < 0 || !isfinite(t->gemm_tile_rows) || t->gemm_tile_rows < 0 ||
        !isfinite(t->gemm_tile_cols) || t->gemm_tile_cols < 0 || !fraction(t->streaming_efficiency) ||
        !isfinite(t->fp8_flops) || t->fp8_flops < 0 || !fraction(t->fp8_relative))
        abort();
}

static bool same_type(const pp_hw_device_type *a, const pp_hw_device_type *b)
{
    return strcmp(a->name, b->name) == 0 && a->peak_flops == b->peak_flops &&
           a->memory_bandwidth == b->memory_bandwidth && a->memory_bytes == b->memory_bytes &&
           a->efficiency_compute == b->efficiency_compute && a->efficiency_memory == b->efficiency_memory &&
           a->gemm_sms == b->gemm_sms && a->gemm_tile_rows == b->gemm_tile_rows &&
           a->gemm_tile_cols == b->gemm_tile_cols && a->streaming_efficiency == b->streaming_efficiency &&
           a->fp8_flops == b->fp8_flops && a->fp8_relative == b->fp8_relative;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pp_hw_catalog *builtin;
    pp_error err = {0};
    pp_hw_catalog *cat = NULL;
    if ((!builtin && pp_hw_catalog_builtin(&builtin, &err) != PP_OK) || pp_hw_catalog_builtin(&cat, &err) != PP_OK)
        abort();
    pp_status status = pp_hw_catalog_add_buffer(cat, NAME, data, size, &err);
    size_t count = pp_hw_catalog_count(cat);
    if (status != PP_OK) {
        check_message(&err, status, data, size);
        if (count != pp_hw_catalog_count(builtin))
            abort();
        for (size_t k = 0; k < count; k++)
            if (!same_type(pp_hw_catalog_type(cat, k), pp_hw_catalog_type(builtin, k)))
                abort();
    }
    for (size_t k = 0; k < count; k++)
        check_type(cat, pp_hw_catalog_type(cat, k));
    pp_hw_catalog_free(cat);
    return 0;
}
