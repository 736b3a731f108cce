/* write_internal.h: what the module writer's files share (write.c: the
 * signature, write_plan.c: every op's tensor, check.c: the written
 * module read back): a growable string and how renamed values are named. */
#ifndef PP_SHARD_WRITE_INTERNAL_H
#define PP_SHARD_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "parplan/shard_write.h"

/* A growable string. A failed allocation sticks and is reported once, at the end. */
typedef struct {
    char *s;
    size_t n;
    int cap;
    bool failed;
} shard_sbuf;

void shard_sb_add(shard_sbuf *b, const char *s, size_t n);
void shard_sb_str(shard_sbuf *b, const char *s);
void shard_sb_int(shard_sbuf *b, long long v);
/* Hands the string over (NUL-terminated), or frees it and reports the failed allocation. */
pp_status shard_sb_take(shard_sbuf *b, char **out, pp_error *err);

/* The prefix the writer gives an op's own result when a sharding constraint
 * takes over its name ("%0" becomes "%ppw_0"): "ppw_", or "ppw1_", "ppw2_"...
 * the first that no value name of the module starts with, so the renamed
 * values collide with none and the checker tells the inserted constraints
 * from any the input had. */
void shard_write_prefix(const pp_shard_module *m, char *buf, size_t size);

/* A constraint op as the writer inserts it: stablehlo.custom_call @Sharding
 * (GSPMD) or sdy.sharding_constraint (Shardy), one operand, one result. */
bool shard_is_constraint(const pp_shard_op *op);

/* "gspmd" or "sdy"; PP_EARG otherwise. */
pp_status pp_shard_format_parse(const char *text, pp_shard_format *out, pp_error *err);

/* sdy.mesh @mesh = <["b"=2, "m"=4]> (malloc'd). */
pp_status pp_shard_sdy_mesh_text(const pp_shard_mesh *mesh, char **out, pp_error *err);

/* The sharding of one tensor of `rank` dimensions whose dimension d is
 * sharded over the mesh axes of dim_axes[d] (bit a for axis a), in *out
 * (malloc'd, the caller frees it):
 *   GSPMD: "{replicated}" when no device axis of size > 1 shards it, else
 *          "{devices=[T0,...,Tr-1(,R)]D0,D1,... ( last_tile_dim_replicate)}"
 *          with tile Td the product of dimension d's axis sizes and R the
 *          product of the unused axes' sizes (written when above 1). Devices
 *          are numbered row-major over the mesh (the last axis fastest) and
 *          listed in row-major tile order, a dimension sharded by several
 *          axes splitting by them in mesh order (major first), as JAX's
 *          NamedSharding lays them out.
 *   SDY:   "#sdy.sharding<@mesh, [{"b"}, {}]>", per dimension its axes' names
 *          in mesh order; a replicated tensor gets all "{}".
 * PP_EARG for an axis bit beyond the mesh, PP_EINPUT for an axis sharding two
 * dimensions. */
pp_status pp_shard_sharding_text(const pp_shard_mesh *mesh, pp_shard_format format, const uint8_t *dim_axes,
                                 int32_t rank, char **out, pp_error *err);

/* Reads `text` (a module pp_shard_write_plan wrote from the module nda was
 * made of) and checks that each annotation it carries (the entry's
 * signature, the inserted constraints, matched to the plan's tensors through
 * the flattened module) gives the layout `axes` gives that tensor. GSPMD
 * strings are decoded into mesh axes per dimension from their tile sizes and
 * device order, Shardy's into axis names. PP_EINPUT "FILE:LINE:COL: ..."
 * naming the first tensor whose annotation differs, or when the module's
 * ops do not follow the plan's. */
pp_status pp_shard_write_check(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                               pp_shard_format format, const char *text, size_t size, pp_shard_write_stats *stats,
                               pp_error *err);

/* Writes the module nda->flat->module was read from, `text` of `size`
 * bytes, with the layout `axes` (nda->n_names bytes, see
 * pp_shard_state_layout) on the entry function's signature: argument k
 * gets the sharding of NDA tensor k (its definition), result k that of
 * tensor nda->out_use + k. An existing mhlo.sharding or sdy.sharding entry
 * of a parameter's attribute dictionary is replaced, otherwise one is added
 * (in sorted key position, as MLIR prints dictionaries); a single result
 * written without parentheses gets them. Non-tensor parameters (tokens) are
 * left alone. For SDY, "sdy.mesh @mesh = <...>" is inserted on its own line
 * before the entry function. The module's mhlo.num_partitions (what XLA
 * takes as the SPMD partition count) becomes the mesh's device count N:
 * an existing entry of its attribute dictionary is replaced by
 * "mhlo.num_partitions = N : i32", otherwise that entry is added in sorted
 * key position, or "attributes {...}" holding it after the module's name;
 * mhlo.num_replicas is left alone, and a text whose functions are not in a
 * module gets nothing. Every other byte is kept. *out (malloc'd,
 * NUL-terminated, *out_size bytes without the NUL) is the caller's to free.
 * PP_EINPUT "FILE:LINE:COL: reason" when the signature cannot be followed
 * or does not match the module (the text is not the one it was read from). */
pp_status pp_shard_write_module(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                                pp_shard_format format, const char *text, size_t size, char **out,
                                size_t *out_size, pp_error *err);

/* The whole plan in the module (issue 15): pp_shard_write_module's
 * signature, and after every op of every function the flattened module runs
 * that defines one tensor, a constraint holding that tensor's layout under
 * the op's result name, the op's own result renamed (see
 * shard_write_prefix in src/shard/write_internal.h):
 *   GSPMD: %0 = stablehlo.custom_call @Sharding(%ppw_0) {mhlo.sharding = "..."} : (T) -> T
 *          (what JAX's with_sharding_constraint lowers to);
 *   SDY:   %0 = sdy.sharding_constraint %ppw_0 <@mesh, [{"b"}, {}]> : T
 * A function called from several places whose layouts differ is copied once
 * per distinct layout (its name + "_sharded_N", the copy right after it) and
 * each call calls its own copy, so every inlined copy of a layer carries
 * its own layout. Ops with several results are left to propagation (not
 * counted as annotated). The written text is then read again and checked
 * with pp_shard_write_check; *stats (may be NULL) is what that found.
 * PP_EINPUT as pp_shard_write_module, or when a copy's name is taken. */
pp_status pp_shard_write_plan(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                              pp_shard_format format, const char *text, size_t size, char **out, size_t *out_size,
                              pp_shard_write_stats *stats, pp_error *err);

/* The flattened module's ops first .. first + count - 1 as a module of its
 * own, @name holding one public @main (a pipeline stage): its arguments are
 * the tensors the ops read and do not define, in first-use order, then any
 * tensor made before them and needed after them (carried through); its
 * results are the tensors they define that later ops read or the module
 * returns, then the carried ones. Each argument and result is named by
 * jax.arg_info / jax.result_info: an entry argument by its own name, any
 * other tensor as "tN", N its flat value number, so the names of one
 * stage's results meet the next stage's arguments. The ops keep their text,
 * their values renamed; `text` is the module flat was read from. *out
 * (malloc'd, NUL-terminated) is the caller's to free. PP_EARG for a run
 * outside the module or a text it was not read from. */
pp_status pp_shard_write_stage(const pp_shard_flat *flat, const char *text, size_t size, int32_t first,
                               int32_t count, const char *name, char **out, size_t *out_size, pp_error *err);


#endif
