/* test_roofline.c: pp_hw_op_time against hand-worked cases: a compute-bound
 * GEMM and a memory-bound elementwise op on the A100's datasheet figures,
 * a toy type where every number is round, the ridge point, and how the
 * efficiencies (set by a calibration file) scale each arm. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "hw/hw_internal.h"

static int close_to(double got, double want)
{
    int ok = fabs(got - want) <= 1e-12 * fabs(want);
    if (!ok)
        fprintf(stderr, "got %.17g, want %.17g\n", got, want);
    return ok;
}

static void test_toy(void)
{
    pp_hw_device_type t = {"toy", 100, 10, 1000, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    CHECK(close_to(pp_hw_op_time(&t, 1000, 50), 10)); /* compute 10 s, memory 5 s */
    CHECK(close_to(pp_hw_op_time(&t, 200, 50), 5));   /* compute 2 s, memory 5 s */
    CHECK(close_to(pp_hw_arithmetic_intensity_ridge(&t), 10));
    CHECK(close_to(pp_hw_op_time(&t, 500, 50), 5));   /* at the ridge both arms are 5 s */
    CHECK(pp_hw_op_time(&t, 0, 0) == 0);
    CHECK(close_to(pp_hw_op_time(&t, 0, 30), 3));
    CHECK(close_to(pp_hw_op_time(&t, 300, 0), 3));

    t.efficiency_compute = 0.5; /* 50 FLOP/s attainable */
    CHECK(close_to(pp_hw_op_time(&t, 1000, 50), 20));
    CHECK(close_to(pp_hw_op_time(&t, 200, 50), 5)); /* still memory-bound: 4 s vs 5 s */
    CHECK(close_to(pp_hw_arithmetic_intensity_ridge(&t), 5));
    t.efficiency_memory = 0.25; /* 2.5 B/s attainable */
    CHECK(close_to(pp_hw_op_time(&t, 200, 50), 20));
    CHECK(close_to(pp_hw_arithmetic_intensity_ridge(&t), 20));
}

static void test_a100(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_hw_catalog_builtin(&cat, &err), PP_OK);
    if (!cat)
        return;
    const pp_hw_device_type *a100 = pp_hw_find(cat, "a100");
    /* 4096^3 FP16 GEMM: 2*4096^3 FLOP, three 4096x4096 matrices of 2 bytes.
     * Compute 137438953472 / 312e12 = 440.5 us beats memory
     * 100663296 / 2.039e12 = 49.4 us. */
    double gemm_flops = 2.0 * 4096 * 4096 * 4096, gemm_bytes = 3.0 * 4096 * 4096 * 2;
    CHECK(close_to(pp_hw_op_time(a100, gemm_flops, gemm_bytes), 0.0004405094662564103));
    /* Elementwise FP16 add of 1e8 elements: 1e8 FLOP, two reads and a write
     * of 2 bytes each. Memory 6e8 / 2.039e12 = 294.3 us beats 0.32 us. */
    CHECK(close_to(pp_hw_op_time(a100, 1e8, 6e8), 0.00029426189308484553));
    /* Ridge: 312e12 / 2.039e12 = 153.0 FLOP/byte. */
    CHECK(close_to(pp_hw_arithmetic_intensity_ridge(a100), 312e12 / 2039e9));
    CHECK(fabs(pp_hw_arithmetic_intensity_ridge(a100) - 153.016) < 1e-3);

    /* A calibration file halving compute efficiency doubles the GEMM's time
     * and leaves the memory-bound op alone. */
    char path[] = "/tmp/pp_hw_roofline_XXXXXX";
    int fd = mkstemp(path);
    const char *text = "{\"types\": [{\"name\": \"A100\", \"efficiency\": {\"compute\": 0.5}}]}";
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    CHECK_EQ_INT(pp_hw_catalog_add_file(cat, path, &err), PP_OK);
    unlink(path);
    a100 = pp_hw_find(cat, "a100");
    CHECK(close_to(pp_hw_op_time(a100, gemm_flops, gemm_bytes), 2 * 0.0004405094662564103));
    CHECK(close_to(pp_hw_op_time(a100, 1e8, 6e8), 0.00029426189308484553));
    pp_hw_catalog_free(cat);
}

int main(void)
{
    test_toy();
    test_a100();
    return CHECK_DONE();
}
