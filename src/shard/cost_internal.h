/* cost_internal.h: the cost model's pieces the IOPDDL bridge prices one by
 * one. A layout's cost is exactly the sum of shard_cost_op over the flat ops
 * and shard_cost_use over every use tensor (operands and outputs), so a
 * problem built from these pieces orders solutions as the model does. */
#ifndef PP_SHARD_COST_INTERNAL_H
#define PP_SHARD_COST_INTERNAL_H

#include <stdbool.h>
#include "parplan/shard.h"
#include "shard/shard_internal.h"

typedef struct {
    const pp_shard_flat *flat;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    const uint8_t *axes; /* per name: the mesh axes sharding it, one bit each */
    int32_t *use_first;  /* per value, its use tensors: use_list[use_first[v] .. use_first[v + 1]) */
    int32_t *use_list;
    int32_t *last_use;   /* per value, the last flat op using it (n_ops for an output) */
    double *live_delta;  /* scratch for the peak: n_ops + 2 entries */
} shard_cost_model;

/* Dimension d of operand k is summed over by the op: contracted by a
 * dot_general or convolution, reduced by a reduce, or the indexed rows of
 * a gather's table (each device looks up the rows it holds). */
bool shard_op_sums(const pp_shard_op *op, int32_t k, int32_t d);

/* Indexes the uses; axes is set by the caller before pricing. */
bool shard_cost_model_init(shard_cost_model *M, const pp_shard_flat *flat, const pp_shard_nda *nda,
                           const pp_shard_mesh *mesh);
void shard_cost_model_free(shard_cost_model *M);

/* Bytes per device of tensor occurrence t under M->axes. */
double shard_cost_local_bytes(const shard_cost_model *M, int32_t t);

/* Flat op i alone: its compute, the gathers its operands' layouts force and
 * its partial sums, except a partial sum whose result has a single use:
 * that one is priced with the use (reduce_scatter when the use is sharded
 * on the axis, all_reduce when not). Added into acc. */
void shard_cost_op(const shard_cost_model *M, int32_t i, pp_shard_cost *acc);

/* Use tensor t: resharding its definition to its layout, plus the
 * definition's deferred partial sums when t is its only use. */
void shard_cost_use(const shard_cost_model *M, int32_t t, pp_shard_cost *acc);

/* Whether tensor occurrence t can take the layout `axes`: every axis one
 * the mesh has, no axis on two of its dimensions, every dimension divisible
 * by the devices its axes span. *dim is the dimension that fails. The one
 * rule behind the cost model's check, the bridge's strategies and the
 * search's actions. */
typedef enum { SHARD_FITS, SHARD_NO_SUCH_AXIS, SHARD_AXIS_TWICE, SHARD_NOT_DIVISIBLE } shard_fit;
shard_fit shard_tensor_fit(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes, int32_t t,
                           int32_t *dim);

/* Refuses a layout some tensor does not fit (shard_tensor_fit), naming it. */
pp_status shard_cost_check_layout(const shard_cost_model *M, pp_error *err);

/* The whole cost of M->axes (a valid layout): every op, every use, the peak. */
void shard_cost_total(const shard_cost_model *M, pp_shard_cost *out);

/* Peak bytes per device: arguments throughout, a value from its op to its
 * last use, outputs to the end. */
double shard_cost_peak_memory(const shard_cost_model *M);

#endif
