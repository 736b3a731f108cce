/* optime.c: the time of a device's share of a pass, and the wave
 * quantisation of its matrix products (see optime.h).
 *
 * A GEMM kernel cuts its output into tiles and runs one tile per streaming
 * multiprocessor at a time, so it takes ceil(tiles / SMs) waves: an output
 * of 2048 x 3072 in 128 x 256 tiles is 192 tiles, two waves on an A100's
 * 108 SMs, of which the second is 78% idle. The work done over the SM
 * time spent is its wave efficiency. cuBLAS picks among tile sizes by the
 * shape (CUTLASS's SM80 tensor-op kernels: 256 x 128 and 128 x 128), so the
 * product gets the better of the largest tile and its half, each either
 * way round. Large, well-shaped products reach 1, and the
 * type's compute efficiency is then the measured rate of such products.
 *
 * An FP8 product (pp_cluster_gemm.fp8) runs the same tiles on the FP8 tensor
 * cores: its rate is the BF16 one times the ratio of the FP8 and BF16 peaks
 * and the type's measured FP8-to-BF16 kernel figure (kernels "fp8"), so
 * every product keeps its wave quantisation and the calibrated compute
 * efficiency, and the element-wise kernels are untouched. */
#include <math.h>
#include "cluster/optime.h"
#include "hw/hw_internal.h"
#include "hw/net_internal.h"

double cluster_pass_time(const pp_hw_device_type *t, double flops, double weight_bytes,
                         double traffic_bytes)
{
    return pp_hw_op_time(t, flops, weight_bytes) + pp_hw_op_time(t, 0, traffic_bytes);
}

double cluster_fp8_speedup(const pp_hw_device_type *t)
{
    if (!(t->fp8_flops > 0))
        return 1.0;
    double relative = t->fp8_relative > 0 ? t->fp8_relative : 1.0;
    return fmax(1.0, t->fp8_flops * relative / t->peak_flops);
}

double cluster_fp8_flops(const pp_cluster_layer *l)
{
    double flops = 0;
    for (int i = 0; i < l->gemm_count; i++) {
        const pp_cluster_gemm *g = &l->gemm[i];
        flops += g->fp8 ? 2 * g->rows * g->inner * g->cols * g->count : 0;
    }
    return flops;
}

static bool has_tiles(const pp_hw_device_type *t)
{
    return t->gemm_sms > 0 && t->gemm_tile_rows > 0;
}

static double waves(const pp_hw_device_type *t, double rows, double cols, double count,
                    double tile_rows, double tile_cols)
{
    double tiles = ceil(rows / tile_rows) * ceil(cols / tile_cols) * count;
    double work = rows * cols * count / (tile_rows * tile_cols);
    return work / (ceil(tiles / t->gemm_sms) * t->gemm_sms);
}

/* The wave efficiency of `count` products of a rows x cols output. */
static double wave_efficiency(const pp_hw_device_type *t, double rows, double cols, double count)
{
    if (!has_tiles(t))
        return 1.0;
    double r = t->gemm_tile_rows, c = t->gemm_tile_cols, half = r / 2;
    double big = fmax(waves(t, rows, cols, count, r, c), waves(t, rows, cols, count, c, r));
    double small = fmax(waves(t, rows, cols, count, half, c), waves(t, rows, cols, count, c, half));
    return fmin(1.0, fmax(big, small));
}

/* Product g's time in units of FLOPs at the full rate, on share f, b rows. */
static double gemm_cost(const pp_hw_device_type *t, const pp_cluster_gemm *g, double b, double f,
                        bool backward, double *flops)
{
    double m = g->rows * b, k = g->inner, n = g->cols, count = g->count;
    if (g->split == PP_CLUSTER_SPLIT_COLS)
        n *= f;
    else if (g->split == PP_CLUSTER_SPLIT_INNER)
        k *= f;
    else
        count = fmax(1.0, round(count * f));
    double work = 2 * m * k * n * count;
    *flops += backward ? 2 * work : work;
    if (g->fp8)
        work /= cluster_fp8_speedup(t);
    if (!backward)
        return work / wave_efficiency(t, m, n, count);
    /* input gradient: m x k over n; weight gradient: k x n over m */
    return work / wave_efficiency(t, m, k, count) + work / wave_efficiency(t, k, n, count);
}

/* Whether t prices products other than at its calibrated rate: by their
 * shape, or some of them faster in FP8. */
static bool priced_by_product(const pp_hw_device_type *t)
{
    return has_tiles(t) || cluster_fp8_speedup(t) > 1.0;
}

double cluster_gemm_efficiency(const pp_hw_device_type *t, const pp_cluster_layer *l, double b,
                               double f, bool backward)
{
    if (!priced_by_product(t) || l->gemm_count == 0)
        return 1.0;
    double flops = 0, cost = 0;
    for (int i = 0; i < l->gemm_count; i++)
        cost += gemm_cost(t, &l->gemm[i], b, f, backward, &flops);
    return flops / cost;
}

/* Field by field: the struct's padding is not set by its initialisers. */
static bool same_product(const pp_cluster_gemm *x, const pp_cluster_gemm *y)
{
    return x->rows == y->rows && x->inner == y->inner && x->cols == y->cols && x->count == y->count &&
           x->split == y->split && x->fp8 == y->fp8;
}

bool cluster_same_products(const pp_cluster_layer *x, const pp_cluster_layer *y)
{
    if (x->gemm_count != y->gemm_count)
        return false;
    for (int i = 0; i < x->gemm_count; i++)
        if (!same_product(&x->gemm[i], &y->gemm[i]))
            return false;
    return true;
}

double cluster_gemm_ceiling(const pp_hw_device_type *t, const pp_cluster_workload *w, double b,
                            double f)
{
    if (!priced_by_product(t))
        return 1.0;
    double ceiling = 0;
    for (int k = 0; k < w->layer_count; k++) {
        const pp_cluster_layer *l = &w->layers[k];
        if (k > 0 && cluster_same_products(l, &w->layers[k - 1]))
            continue;
        ceiling = fmax(ceiling, fmax(cluster_gemm_efficiency(t, l, b, f, false),
                                     cluster_gemm_efficiency(t, l, b, f, true)));
    }
    return ceiling > 0 ? ceiling : 1.0;
}

double cluster_tp_backward_floor(pp_hw_link link, int tp, double own, double replay, bool overlap)
{
    if (!overlap)
        return pp_hw_allreduce_time(link, tp, own + replay);
    return 2.0 * (tp - 1) / tp * replay / link.bandwidth;
}

static double streaming_rate(const pp_hw_device_type *t)
{
    double efficiency = t->streaming_efficiency > 0 ? t->streaming_efficiency : t->efficiency_memory;
    return t->memory_bandwidth * efficiency;
}

double cluster_optimizer_time(const pp_hw_device_type *t, double state_bytes)
{
    return 2 * state_bytes / streaming_rate(t);
}

double cluster_accumulate_time(const pp_hw_device_type *t, double weight_bytes)
{
    /* per 16-bit weight, two kernels, as update_hp_grads writes them
     * (hp_grad.add_(lp.grad.to(float32))): the cast reads the 16-bit
     * gradient and writes an FP32 copy (2 + 4 bytes), the add reads the sum
     * and the copy and writes the sum (4 + 4 + 4); 18 bytes, 9 per weight
     * byte */
    return 9 * weight_bytes / streaming_rate(t);
}
