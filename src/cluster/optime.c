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
 * type's compute efficiency is then the measured rate of such products. */
#include <math.h>
#include <string.h>
#include "cluster/optime.h"

double cluster_pass_time(const pp_hw_device_type *t, double flops, double weight_bytes,
                         double traffic_bytes)
{
    return pp_hw_op_time(t, flops, weight_bytes) + pp_hw_op_time(t, 0, traffic_bytes);
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
    if (!backward)
        return work / wave_efficiency(t, m, n, count);
    /* input gradient: m x k over n; weight gradient: k x n over m */
    return work / wave_efficiency(t, m, k, count) + work / wave_efficiency(t, k, n, count);
}

double cluster_gemm_efficiency(const pp_hw_device_type *t, const pp_cluster_layer *l, double b,
                               double f, bool backward)
{
    if (!(t->gemm_sms > 0) || !(t->gemm_tile_rows > 0) || l->gemm_count == 0)
        return 1.0;
    double flops = 0, cost = 0;
    for (int i = 0; i < l->gemm_count; i++)
        cost += gemm_cost(t, &l->gemm[i], b, f, backward, &flops);
    return flops / cost;
}

bool cluster_same_products(const pp_cluster_layer *x, const pp_cluster_layer *y)
{
    return x->gemm_count == y->gemm_count &&
           memcmp(x->gemm, y->gemm, (size_t)x->gemm_count * sizeof x->gemm[0]) == 0;
}

double cluster_gemm_ceiling(const pp_hw_device_type *t, const pp_cluster_workload *w, double b,
                            double f)
{
    if (!(t->gemm_sms > 0) || !(t->gemm_tile_rows > 0))
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

double cluster_optimizer_time(const pp_hw_device_type *t, double state_bytes)
{
    double efficiency = t->streaming_efficiency > 0 ? t->streaming_efficiency : t->efficiency_memory;
    return 2 * state_bytes / (t->memory_bandwidth * efficiency);
}
