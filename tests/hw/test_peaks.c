/* test_peaks.c: the catalog's peaks per math mode (issue 15): the built-in
 * types carry the datasheet figures data/devices.json cites, a mode a
 * device lacks falls back to what it runs as, a user's type without "peaks"
 * has peak_flops for every mode, a calibration file may set peaks alone,
 * and a bad peak is refused with its JSON path. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "hw/hw_internal.h"

static pp_hw_catalog *builtin(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_hw_catalog_builtin(&cat, &err), PP_OK);
    return cat;
}

static double peak(const pp_hw_catalog *cat, const char *name, pp_hw_math mode)
{
    const pp_hw_device_type *t = pp_hw_find(cat, name);
    CHECK(t != NULL);
    return t ? pp_hw_catalog_peak(cat, t, mode) : -1;
}

static void test_builtin(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    CHECK(peak(cat, "a100", PP_HW_FP32) == 19.5e12);
    CHECK(peak(cat, "a100", PP_HW_TF32) == 156e12);
    CHECK(peak(cat, "a100", PP_HW_BF16) == 312e12);
    CHECK(peak(cat, "a100", PP_HW_FP8) == 312e12); /* no FP8 on Ampere */
    CHECK(peak(cat, "H100-SXM", PP_HW_FP32) == 66.9e12);
    CHECK(peak(cat, "H100-SXM", PP_HW_TF32) == 494.7e12);
    CHECK(peak(cat, "H100-SXM", PP_HW_BF16) == 989.4e12);
    CHECK(peak(cat, "H100-SXM", PP_HW_FP8) == 1978.9e12);
    CHECK(peak(cat, "V100-32GB-SXM2", PP_HW_TF32) == 15.7e12); /* no TF32 on Volta */
    CHECK(peak(cat, "V100-32GB-SXM2", PP_HW_BF16) == 125e12);
    /* the cluster planner's figure is untouched */
    CHECK(pp_hw_find(cat, "a100")->peak_flops == 312e12);
    /* a type of no catalog: peak_flops in every mode */
    pp_hw_device_type toy = {"toy", 5e12, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    CHECK(pp_hw_catalog_peak(cat, &toy, PP_HW_FP32) == 5e12);
    CHECK(strcmp(pp_hw_math_name(PP_HW_TF32), "tf32") == 0);
    pp_hw_catalog_free(cat);
}

static pp_status add_text(pp_hw_catalog *cat, const char *text, pp_error *err)
{
    char path[] = "/tmp/pp_hw_peaks_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return PP_EIO;
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    pp_status st = pp_hw_catalog_add_file(cat, path, err);
    unlink(path);
    return st;
}

static void test_files(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    pp_error err = {0};
    CHECK_EQ_INT(add_text(cat,
                          "{\"types\": [{\"name\": \"npu\", \"peak_flops\": 4e14, \"memory_bandwidth\": 1e12,"
                          " \"memory_bytes\": 1e10},"
                          " {\"name\": \"a100\", \"peaks\": {\"tf32\": 1e14}, \"source\": {\"peaks\": \"test\"}}]}",
                          &err),
                 PP_OK);
    CHECK(peak(cat, "npu", PP_HW_FP32) == 4e14 && peak(cat, "npu", PP_HW_FP8) == 4e14);
    CHECK(peak(cat, "a100", PP_HW_TF32) == 1e14 && peak(cat, "a100", PP_HW_FP32) == 19.5e12);
    CHECK_EQ_INT(add_text(cat, "{\"types\": [{\"name\": \"a100\", \"peaks\": {\"fp32\": 0}}]}", &err), PP_EINPUT);
    CHECK(strstr(err.message, "peaks.fp32: must be > 0") != NULL);
    pp_error_clear(&err);
    CHECK_EQ_INT(add_text(cat, "{\"types\": [{\"name\": \"a100\", \"peaks\": {\"fp4\": 1e15}}]}", &err), PP_EINPUT);
    CHECK(strstr(err.message, "fp4") != NULL);
    CHECK(peak(cat, "a100", PP_HW_TF32) == 1e14); /* refused files change nothing */
    pp_hw_catalog_free(cat);
}

int main(void)
{
    test_builtin();
    test_files();
    return CHECK_DONE();
}
