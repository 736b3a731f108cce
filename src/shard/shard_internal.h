/* shard_internal.h: what the files of src/shard share and the public API
 * does not show: the op-name table, the per-op type checks and the attribute
 * text helpers the reader uses, and the devices a set of mesh axes spans. */
#ifndef PP_SHARD_INTERNAL_H
#define PP_SHARD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "parplan/shard.h"
#include "core/core_internal.h"

/* The calls of shard.h's types that only the library makes (src/plan too). */

/* Elements of a tensor type (1 for a scalar, 0 when not a tensor or dynamic). */
int64_t pp_shard_type_elements(const pp_shard_type *type);

pp_status pp_shard_nda_run(const pp_shard_flat *flat, pp_shard_nda **out, pp_error *err);
void pp_shard_nda_free(pp_shard_nda *nda);

/* The device's peaks per math mode from the catalog it belongs to. */
void pp_shard_mesh_set_peaks(pp_shard_mesh *mesh, const pp_hw_catalog *catalog);

/* The link every axis gets unless told otherwise: NVLink 3 as on an A100
 * SXM node, 300e9 bytes/s each way and 5e-6 s per message (NCCL's latency
 * on one node is a few microseconds). */
pp_hw_link pp_shard_default_link(void);

/* Evaluates `state`. PP_EINPUT when an action is invalid: a color or axis
 * out of range, a mesh axis sharding two dimensions of one tensor, or a
 * dimension whose size is not divisible by the product of its axes' sizes
 * (the message names the tensor, the dimension and the sizes). */
pp_status pp_shard_cost_eval(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                             const pp_shard_state *state, pp_shard_cost *out, pp_error *err);

/* The batch color, by the rule of src/shard/roles.c: the leading dimension
 * of the first entry result that the token ids (an integer argument) share
 * it with; else the token ids' leading dimension (a training step returns
 * weights); else the first result's leading dimension; -1 when none. */
int32_t pp_shard_batch_color(const pp_shard_nda *nda);

/* What entry argument `arg` is, by the rule of src/shard/roles.c: integer
 * or boolean -> token ids; floating with a batch dimension -> activation;
 * other floating -> parameter. Non-tensor arguments count as token ids. */
typedef enum { PP_SHARD_ROLE_PARAMETER = 0, PP_SHARD_ROLE_ACTIVATION, PP_SHARD_ROLE_TOKENS } pp_shard_role;
pp_shard_role pp_shard_arg_role(const pp_shard_nda *nda, int32_t arg);

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

/* Batch on the first axis, Megatron's colors on the last (needs two axes). */
pp_status pp_shard_baseline_combined(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err);

/* Expert baselines (colors chosen as documented in src/shard/baseline.c).
 * PP_EINPUT when the model has no such color (no output, no MLP/heads).
 * *out is a new state (pp_shard_state_free it, whatever the status). */
pp_status pp_shard_baseline_data_parallel(const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                          pp_shard_state *out, pp_error *err);

/* Expert parallelism: the expert color (a batching dimension of a matmul
 * with a parameter, as MoE layers' "etd,edh->eth" lower) over the first
 * mesh axis; the cost model prices the dispatch and combine it implies. */
pp_status pp_shard_baseline_expert(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                   pp_error *err);

/* FSDP as a layout (nda->n_names bytes in axes): data parallelism over all
 * axes, and every parameter's definition sharded over them too, one axis at
 * a time on its largest dimension that still divides, while its uses stay
 * whole: the cost model gathers it (all_gather) where it is used. */
pp_status pp_shard_baseline_fsdp(const pp_shard_nda *nda, const pp_shard_mesh *mesh, uint8_t *axes, pp_error *err);

pp_status pp_shard_baseline_megatron(const pp_shard_nda *nda, const pp_shard_mesh *mesh, pp_shard_state *out,
                                     pp_error *err);

/* a ranks above b as a plan: a fits `memory` and b does not; or both or
 * neither fit, their times are tied and a's peak is smaller; or they are
 * not tied (or their peaks equal) and a is faster. */
bool pp_shard_cost_better(const pp_shard_cost *a, const pp_shard_cost *b, double memory);

/* Evaluates a layout; pp_shard_cost_eval is pp_shard_state_layout then this.
 * PP_EINPUT for an axis on two dimensions of one tensor or a dimension not
 * divisible by its devices. */
pp_status pp_shard_cost_eval_layout(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                                    const uint8_t *axes, pp_shard_cost *out, pp_error *err);

/* C(s) = RT(s) + MP(s) of section 4.5: runtime relative to `initial` plus
 * penalty * (peak - memory) / initial peak when the peak exceeds `memory`
 * (bytes per device). */
double pp_shard_cost_relative(const pp_shard_cost *cost, const pp_shard_cost *initial, double memory,
                              double penalty);

bool pp_shard_cost_tied(const pp_shard_cost *a, const pp_shard_cost *b);

void pp_shard_flat_free(pp_shard_flat *flat);

/* The math mode the mesh's device runs a product of element type `elem` in. */
pp_hw_math pp_shard_math_of(pp_shard_precision precision, const char *elem);

int64_t pp_shard_mesh_devices(const pp_shard_mesh *mesh);

/* Parses "b=2,m=4" (axis names: letters, digits, '_'; sizes >= 1; at most
 * PP_SHARD_MAX_AXES axes, names distinct). Every axis gets `link`.
 * PP_EINPUT with the text and what is wrong in it. */
pp_status pp_shard_mesh_parse(const char *text, const pp_hw_device_type *device, pp_hw_link link,
                              pp_shard_mesh *out, pp_error *err);

/* FLOP/s of the mesh's device in `mode` (uncalibrated). */
double pp_shard_mesh_peak(const pp_shard_mesh *mesh, pp_hw_math mode);

/* The function named `name` (without '@'), or -1. */
int32_t pp_shard_module_find_func(const pp_shard_module *module, const char *name);

/* PP_EINPUT when the inlined module would exceed max_ops ops (0 = 1<<24). */
pp_status pp_shard_module_flatten(const pp_shard_module *module, int32_t max_ops,
                                  pp_shard_flat **out, pp_error *err);

void pp_shard_module_free(pp_shard_module *module);

/* Reads StableHLO text. PP_EIO when the file cannot be read, PP_EINPUT with
 * "FILE:LINE:COL: reason" for malformed text, a dynamic dimension ('?'),
 * type mismatches between an op and its operands, undefined or redefined values and unknown or recursive
 * callees. The grammar is in the top comment of src/shard/load.c. */
pp_status pp_shard_module_load(const char *path, pp_shard_module **out, pp_error *err);

pp_status pp_shard_module_parse(const char *name, const char *text, size_t size,
                                pp_shard_module **out, pp_error *err);

/* Which dimension of tensor occurrence `tensor` is sharded when color
 * `color` is sharded with resolution bits[s] (0 or 1) for each
 * compatibility set s (bits may be NULL when the color has no conflicts:
 * all zeros); -1 when none. A name is sharded when its color is `color`
 * and its iclass is not the losing side of any of the color's conflicts. */
int32_t pp_shard_nda_sharded_dim(const pp_shard_nda *nda, int32_t color, const uint8_t *bits, int32_t tensor);

int pp_shard_op_is_binary(pp_shard_op_kind kind);

int pp_shard_op_is_unary(pp_shard_op_kind kind);

const char *pp_shard_op_kind_name(pp_shard_op_kind kind); /* "dot_general", ... */

const char *pp_shard_role_name(pp_shard_role role); /* "parameter", "activation", "token ids" */

/* Deterministic for a seed whatever the thread count. PP_EINPUT when the
 * mesh shards nothing (no action is valid); the result is then unset. */
pp_status pp_shard_search(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                          const pp_shard_search_options *o, pp_shard_search_result *out, pp_error *err);

void pp_shard_search_options_default(pp_shard_search_options *o);

void pp_shard_search_result_free(pp_shard_search_result *r);

void pp_shard_state_free(pp_shard_state *state);

/* A layout: for each name of the NDA (nda->n_names bytes), the mesh axes
 * sharding it, bit a for axis a. A state gives one by applying its actions
 * (PP_EINPUT as pp_shard_cost_eval says); the IOPDDL bridge gives one from
 * a solution. */
pp_status pp_shard_state_layout(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const pp_shard_state *state,
                                uint8_t *axes, pp_error *err);

/* Appends an action; PP_ENOMEM when the array cannot grow (the state is
 * then as it was). */
pp_status pp_shard_state_push(pp_shard_state *state, pp_shard_action action, pp_error *err);

int pp_shard_type_equal(const pp_shard_type *a, const pp_shard_type *b);

/* A label for a flat value: "%x" in the entry, "%x@func#path" inside an inlined call. */
const char *pp_shard_value_label(const pp_shard_flat *flat, int32_t value, char *buf, size_t size);

#endif
