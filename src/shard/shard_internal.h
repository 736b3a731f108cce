/* shard_internal.h: what the files of src/shard share and the public API
 * does not show: the op-name table, the per-op type checks and the attribute
 * text helpers the reader uses, and the devices a set of mesh axes spans. */
#ifndef PP_SHARD_INTERNAL_H
#define PP_SHARD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "parplan/shard.h"

/* The kind of an op name ("stablehlo.add", "call", "func.return"); OPAQUE when unknown. */
pp_shard_op_kind shard_kind_of(const char *name, size_t len);

/* Checks an op whose operand and result types are known against its
 * attributes (sizes of contracted dimensions, shapes of elementwise operands,
 * a permutation being one). On failure writes the reason into why. */
bool shard_check_op(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size);

/* Writes a type as MLIR prints it ("tensor<33x79xf32>") into buf. */
const char *shard_type_text(const pp_shard_type *type, char *buf, size_t size);

/* v is in the list (dimension numbers of an op's attributes). */
bool shard_ints_has(const pp_shard_ints *list, int64_t v);

/* Devices the mesh axes of `mask` (bit a for axis a) span together (mesh.c). */
int64_t shard_axes_devices(const pp_shard_mesh *mesh, uint8_t mask);

#endif
