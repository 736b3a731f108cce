/* parplan auto-sharder (issue 8, paper 004 TOAST): the StableHLO module as
 * read from JAX's text, and its flattened form (private functions inlined at
 * every call site, each op knowing its call path), and the named-dimension
 * analysis on it (colors, conflicts, compatibility sets, repeated layers)
 * that the search works from. */
#ifndef PARPLAN_SHARD_H
#define PARPLAN_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "parplan/core.h"
#include "parplan/hw.h"
#include "parplan/hw_net.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* A list of integers (dimension numbers, sizes, strides). */
typedef struct {
    int32_t n;
    int64_t *v;
} pp_shard_ints;

/* A tensor type. rank < 0 marks a non-tensor type (a token, a tuple), kept
 * only on opaque ops. Every dimension is static (>= 0): the reader refuses a
 * dynamic one ('?'). */
typedef struct {
    int32_t rank;
    int64_t *dims;
    char elem[16]; /* element type as written: "f32", "bf16", "i1", "ui8" */
    int32_t bits;  /* bits per element, 0 when unknown */
} pp_shard_type;

/* Kinds of ops. The unary elementwise kinds lie between
 * PP_SHARD_OP_FIRST_UNARY and PP_SHARD_OP_LAST_UNARY, the binary ones between
 * PP_SHARD_OP_FIRST_BINARY and PP_SHARD_OP_LAST_BINARY. */
typedef enum {
    PP_SHARD_OP_OPAQUE = 0, /* unknown: operands and results kept, no attributes */
    PP_SHARD_OP_CONSTANT,
    PP_SHARD_OP_IOTA,
    PP_SHARD_OP_BROADCAST_IN_DIM,
    PP_SHARD_OP_RESHAPE,
    PP_SHARD_OP_TRANSPOSE,
    PP_SHARD_OP_CONVERT,
    PP_SHARD_OP_SLICE,
    PP_SHARD_OP_CONCATENATE,
    PP_SHARD_OP_GATHER,
    PP_SHARD_OP_SELECT,
    PP_SHARD_OP_COMPARE,
    PP_SHARD_OP_DOT_GENERAL,
    PP_SHARD_OP_CONVOLUTION,
    PP_SHARD_OP_REDUCE,
    PP_SHARD_OP_REDUCE_WINDOW,
    PP_SHARD_OP_CALL,
    PP_SHARD_OP_RETURN, /* func.return, or stablehlo.return ending a region */
    PP_SHARD_OP_ABS,
    PP_SHARD_OP_NEGATE,
    PP_SHARD_OP_EXPONENTIAL,
    PP_SHARD_OP_LOG,
    PP_SHARD_OP_LOGISTIC,
    PP_SHARD_OP_RSQRT,
    PP_SHARD_OP_SQRT,
    PP_SHARD_OP_TANH,
    PP_SHARD_OP_SIGN,
    PP_SHARD_OP_FLOOR,
    PP_SHARD_OP_CEIL,
    PP_SHARD_OP_COSINE,
    PP_SHARD_OP_SINE,
    PP_SHARD_OP_NOT,
    PP_SHARD_OP_EXPM1,
    PP_SHARD_OP_LOG1P,
    PP_SHARD_OP_ADD,
    PP_SHARD_OP_SUBTRACT,
    PP_SHARD_OP_MULTIPLY,
    PP_SHARD_OP_DIVIDE,
    PP_SHARD_OP_MAXIMUM,
    PP_SHARD_OP_MINIMUM,
    PP_SHARD_OP_POWER,
    PP_SHARD_OP_REMAINDER,
    PP_SHARD_OP_AND,
    PP_SHARD_OP_OR,
    PP_SHARD_OP_XOR,
    PP_SHARD_OP_ATAN2,
    PP_SHARD_OP_KIND_COUNT
} pp_shard_op_kind;

#define PP_SHARD_OP_FIRST_UNARY PP_SHARD_OP_ABS
#define PP_SHARD_OP_LAST_UNARY PP_SHARD_OP_LOG1P
#define PP_SHARD_OP_FIRST_BINARY PP_SHARD_OP_ADD
#define PP_SHARD_OP_LAST_BINARY PP_SHARD_OP_ATAN2

typedef enum {
    PP_SHARD_CMP_NONE = 0,
    PP_SHARD_CMP_EQ,
    PP_SHARD_CMP_NE,
    PP_SHARD_CMP_LT,
    PP_SHARD_CMP_LE,
    PP_SHARD_CMP_GT,
    PP_SHARD_CMP_GE
} pp_shard_compare;

/* dot_general: the batching and contracting dimensions of each side. */
typedef struct {
    pp_shard_ints lhs_batch, rhs_batch, lhs_contract, rhs_contract;
} pp_shard_dot_dims;

/* convolution dimension numbers: which dimension of the input, the kernel
 * and the output is the batch, the feature, and each spatial dimension. */
typedef struct {
    int64_t in_batch, in_feature;
    pp_shard_ints in_spatial;
    int64_t kernel_in, kernel_out;
    pp_shard_ints kernel_spatial;
    int64_t out_batch, out_feature;
    pp_shard_ints out_spatial;
    int64_t feature_group_count, batch_group_count;
} pp_shard_conv_dims;

/* gather dimension numbers as StableHLO names them (empty lists when absent;
 * index_vector_dim -1 when absent). */
typedef struct {
    pp_shard_ints offset_dims, collapsed_slice_dims, start_index_map;
    pp_shard_ints operand_batching_dims, start_indices_batching_dims, slice_sizes;
    int64_t index_vector_dim;
} pp_shard_gather_dims;

/* A value of a function: an argument (op -1, index = argument number), a
 * block argument of a region (op -2, index = its number), or result `index`
 * of op `op`. */
typedef struct {
    const char *name; /* as written, without '%' ("arg0", "12", "cst_3") */
    pp_shard_type type;
    int32_t op;
    int32_t index;
    int32_t in_body; /* 1 when op indexes the function's body_ops, not its ops */
} pp_shard_value;

/* One op. Which attribute fields are meaningful depends on kind:
 *   dims:   broadcast_in_dim dimensions, transpose permutation, reduce
 *           dimensions, reduce_window window_dimensions
 *   strides: slice and reduce_window strides (empty = all 1)
 *   start, limit: slice
 *   dim:    concatenate dimension, iota dimension
 *   reducer: the combining op of a reduce or reduce_window body (ADD, MAXIMUM,
 *            ...; OPAQUE when the body is something else)
 *   compare, compare_type: compare's direction and its type ("FLOAT", "SIGNED", or "")
 *   dot, conv, gather: their dimension numbers
 *   callee: the function index for CALL
 * name is the op name as written ("stablehlo.add", "call", "func.return"),
 * attrs the raw text of the op's attributes (a constant's value, properties
 * of the generic form, a convolution's window and padding; for a call the
 * callee "@name"; for an opaque op in pretty form the text between its name
 * and its types, "@Sharding(%x) {mhlo.sharding = ...}"), kept for the
 * writer; NULL when there are none. Region
 * (body) ops use values of the same function: block arguments have op -2. */
typedef struct {
    pp_shard_op_kind kind;
    const char *name;
    int32_t line, col;
    int32_t n_operands;
    int32_t *operands; /* value indices in the function */
    int32_t n_results;
    int32_t *results;
    pp_shard_ints dims, strides, start, limit;
    int64_t dim;
    pp_shard_op_kind reducer;
    pp_shard_compare compare;
    const char *compare_type;
    pp_shard_dot_dims dot;
    pp_shard_conv_dims conv;
    pp_shard_gather_dims gather;
    int32_t callee;
    const char *attrs;
    int32_t body_first, body_count; /* this op's region ops in the function's body_ops */
    size_t src_start, src_end; /* byte offsets in the text: its first result name (else
                                  its name) and after its last token (loc included) */
} pp_shard_op;

/* An argument or a result of a function with its attribute dictionary kept
 * as text, and the mhlo.sharding string alone when there is one. */
typedef struct {
    pp_shard_type type;
    const char *attrs;    /* "{mhlo.sharding = \"{replicated}\"}" or NULL */
    const char *sharding; /* "{replicated}" or NULL */
} pp_shard_param;

typedef struct {
    const char *name; /* without '@' */
    int is_public;
    int32_t line, col;
    int32_t n_args;
    pp_shard_param *args; /* argument k is value k */
    int32_t n_results;
    pp_shard_param *results;
    int32_t n_values;
    pp_shard_value *values;
    int32_t n_ops; /* top-level ops in source order, the last one a RETURN */
    pp_shard_op *ops;
    int32_t n_body_ops; /* ops inside regions (reduce bodies), grouped per parent op */
    pp_shard_op *body_ops;
    size_t src_start, src_end; /* byte offsets of "func.func" and after its closing '}' */
} pp_shard_func;

/* A warning: an op the reader does not know, kept as an opaque node. One per
 * op name, at its first use; count is the number of uses. */
typedef struct {
    const char *message; /* "NAME:LINE:COL: unknown op 'x.y' kept as opaque", or for a custom
                            call "NAME:LINE:COL: stablehlo.custom_call @target kept as opaque ..." */
    const char *op_name;
    int32_t count;
} pp_shard_warning;

/* A module lives entirely in its arena (the struct too). */
typedef struct {
    pp_arena *arena;
    const char *file; /* the name used in messages */
    const char *name; /* module @name without '@', "" when unnamed */
    const char *attrs;
    int32_t n_funcs;
    pp_shard_func *funcs;
    int32_t entry; /* @main, else the first public function, else the first */
    int32_t n_warnings;
    pp_shard_warning *warnings;
} pp_shard_module;

/* The flattened entry function: every call inlined, call and return ops
 * dropped (a call's results are the values the callee returns), region ops
 * left inside their parent op. Ops are in topological order (source order
 * with callees expanded in place). Each op and value knows the call path it
 * came from, so a function called n times appears as n paths with the same
 * ops: the repeated layers of a model. */
typedef struct {
    int32_t parent;           /* enclosing path, -1 for the entry function's own path 0 */
    int32_t caller_func, call_op; /* the call op (in caller_func's ops) that entered it; -1 for path 0 */
    int32_t func;             /* the function this path runs */
    int32_t depth;            /* 0 for the entry */
} pp_shard_path;

typedef struct {
    int32_t func, op; /* module->funcs[func].ops[op] */
    int32_t path;
    int32_t *operands, *results; /* flat value indices, counts as in the op */
} pp_shard_flat_op;

typedef struct {
    pp_shard_type type;
    int32_t op;    /* defining flat op, -1 for an argument of the entry */
    int32_t index; /* result number, or the argument number */
    int32_t func, value; /* the value it was in its function */
    int32_t path;
} pp_shard_flat_value;

typedef struct {
    pp_arena *arena;
    const pp_shard_module *module; /* borrowed: free the flat view first or keep the module alive */
    int32_t n_ops;
    pp_shard_flat_op *ops;
    int32_t n_values;
    pp_shard_flat_value *values;
    int32_t n_paths;
    pp_shard_path *paths;
    int32_t n_inputs; /* the entry's arguments: flat values 0 .. n_inputs-1 */
    int32_t n_outputs;
    int32_t *outputs; /* flat values the entry returns */
} pp_shard_flat;

/* The op flat op i runs: its kind, attributes and operand and result counts. */
static inline const pp_shard_op *pp_shard_flat_op_of(const pp_shard_flat *flat, int32_t i)
{
    return &flat->module->funcs[flat->ops[i].func].ops[flat->ops[i].op];
}

/* Named-dimension analysis (paper 004 section 3) of a flattened module.
 *
 * Every dimension of every tensor occurrence gets its own name. The tensor
 * occurrences are the definitions (tensor t = flat value t, for t <
 * n_values), then the uses: operand k of flat op i is tensor
 * op_use[i] + k, and output k of the entry is tensor out_use + k (the
 * return is a use, as in the paper's ANF where the returned variable is
 * one). Names of tensor t are tensors[t].first .. first + rank - 1.
 *
 * iclass: names identified by the op rules I only (figure 5c);
 * color:  names identified by I and the definition-to-use map M (figure 4c),
 *         the sets of dimensions to shard together.
 * M itself, as a graph over iclasses, is the dimension graph: an edge from
 * each definition name to the corresponding name of each use. */
typedef struct {
    int32_t value;   /* the flat value defined or used */
    int32_t op;      /* -1 for a definition, the flat op for a use, n_ops for an output */
    int32_t operand; /* operand (or output) number of a use, -1 for a definition */
    int32_t rank;
    int32_t first;   /* its first name */
} pp_shard_nda_tensor;

typedef struct {
    int64_t size;      /* the dimension's size (-1 when dynamic) */
    int32_t n_names;   /* names of this color, in definitions and uses */
    int32_t n_values;  /* distinct values whose definition has a dimension of it */
    int32_t n_conflicts; /* conflicts of the dimension graph (section 3.4) */
    int32_t n_twice;     /* definitions annotated with it twice or more (section 3.3's view) */
    int32_t first_value; /* the first such value (flat index), -1 when none */
} pp_shard_nda_color;

/* A conflict (section 3.4): two different iclasses of one color on the same
 * definition or use. Resolving it shards the dimensions of one side. The
 * sides are oriented so that within a compatibility set resolution 0 shards
 * side a of every conflict and resolution 1 side b (compatible conflicts are
 * resolved the same way, section 3.5). */
typedef struct {
    int32_t a, b;    /* iclasses */
    int32_t color;
    int32_t set;     /* its compatibility set */
    int32_t tensor;  /* the first tensor occurrence it was found on */
    int32_t dim_a, dim_b; /* the dimensions of that tensor carrying a and b */
} pp_shard_nda_conflict;

typedef struct {
    int32_t color;
    int32_t n_conflicts;
    int32_t *conflicts;  /* conflict indices */
    int32_t consistent;  /* 0 when the box relation forces one conflict both ways
                            (an odd cycle); resolution 0/1 then follow the BFS order */
} pp_shard_nda_set;

/* Repeated layers (sections 3.6, 4.4): `copies` equal stretches of
 * `length` flat ops starting at starts[0] < starts[1] < ...; ops at the
 * same offset in two copies have the same kind, types and attributes. The
 * colors, compatibility sets and entry arguments local to one copy
 * correspond by position: color_map[c * n_copy_colors + j] is the j-th
 * local color of copy c (likewise set_map and arg_map). */
typedef struct {
    int32_t copies, length;
    int32_t *starts;
    int32_t n_copy_colors;
    int32_t *color_map;
    int32_t n_copy_sets;
    int32_t *set_map;
    int32_t n_copy_args;
    int32_t *arg_map;
} pp_shard_nda_layers;

typedef struct {
    pp_arena *arena;
    const pp_shard_flat *flat; /* borrowed */
    int32_t n_tensors;
    pp_shard_nda_tensor *tensors;
    int32_t *op_use;   /* per flat op, its first use tensor */
    int32_t out_use;
    int32_t n_names;
    int32_t *name_tensor, *name_dim;
    int32_t *iclass;   /* per name */
    int32_t n_iclasses;
    int32_t *color;    /* per name */
    int32_t n_colors;
    pp_shard_nda_color *colors;
    int32_t *iclass_color;
    int32_t n_edges;   /* the dimension graph: M as pairs of names */
    int32_t *edge_def, *edge_use;
    int32_t n_conflicts;
    pp_shard_nda_conflict *conflicts;
    int32_t *iclass_conflict_first; /* n_iclasses + 1 offsets into iclass_conflicts */
    int32_t *iclass_conflicts;      /* the conflicts each iclass is a side of */
    int32_t n_sets;
    pp_shard_nda_set *sets;
    int32_t n_layer_groups;
    pp_shard_nda_layers *layer_groups; /* largest coverage first */
} pp_shard_nda;

/* The text of `parplan shard MODEL.mlir --explain`: colors with sizes and
 * the tensors they touch, conflicts, compatibility sets with their two
 * resolutions, repeated-layer groups. */
void pp_shard_write_explain(const pp_shard_nda *nda, FILE *out);

/* ---- Cost model (paper 004 section 4.5): meshes, sharding states, costs. */

/* Axes of a mesh: a layout keeps a name's axes as the bits of one byte,
 * and a mesh of 2^8 devices or more has many axes of size 2 at most; the
 * model's size is not bounded by it. */
#define PP_SHARD_MAX_AXES 8

/* What the user will run f32 matrix products as (`--precision`):
 *   TYPED: each op at its element type's rate: f32 (and f64, integers) at
 *          plain FP32, bf16/f16 at BF16/FP16 tensor-core rate, f8 types at FP8;
 *   TF32:  f32 products on TF32 tensor cores;
 *   BF16:  the f32 graph cast to bf16: f32 products at the BF16 rate and f32
 *          tensors counted at 2 bytes (memory, traffic, collectives).
 * Only dot_general and convolution are priced by FLOPs; every other op by
 * its bytes. */
typedef enum { PP_SHARD_PRECISION_TYPED = 0, PP_SHARD_PRECISION_TF32, PP_SHARD_PRECISION_BF16 } pp_shard_precision;

/* "typed", "tf32" or "bf16"; PP_EARG otherwise. */
pp_status pp_shard_precision_parse(const char *text, pp_shard_precision *out, pp_error *err);

/* A device mesh: named axes with sizes, one device type (borrowed from a
 * catalog that must outlive the mesh), one link per axis; the precision
 * products are priced at and the device's peak per math mode (0: its
 * peak_flops), both set from the request's precision and the catalog by
 * the library's mesh reader. */
typedef struct {
    int32_t n_axes;
    char names[PP_SHARD_MAX_AXES][16];
    int32_t sizes[PP_SHARD_MAX_AXES];
    pp_hw_link links[PP_SHARD_MAX_AXES];
    const pp_hw_device_type *device;
    pp_shard_precision precision;
    double peaks[PP_HW_MATH_MODES];
} pp_shard_mesh;

/* One action: shard color `color` over mesh axis `axis`, conflicts resolved
 * by bits (one byte per compatibility set, borrowed; NULL = all 0). */
typedef struct {
    int32_t color;
    int32_t axis;
    const uint8_t *bits;
} pp_shard_action;

/* A sharding state: the actions applied. Each dimension of each tensor
 * occurrence ends up sharded over the axes of the actions that reach it.
 * As many actions as the model needs (a Megatron baseline takes a few per
 * layer): actions grows with pp_shard_state_push and is freed by
 * pp_shard_state_free. A caller may also point actions at an array of its
 * own (n entries, cap 0) and not free it. */
typedef struct {
    int32_t n, cap;
    pp_shard_action *actions;
} pp_shard_state;

typedef enum {
    PP_SHARD_ALL_REDUCE = 0,
    PP_SHARD_REDUCE_SCATTER,
    PP_SHARD_ALL_GATHER,
    PP_SHARD_ALL_TO_ALL,
    PP_SHARD_HALO_EXCHANGE, /* a collective_permute of the border rows a window needs */
    PP_SHARD_COLLECTIVE_KINDS
} pp_shard_collective;

/* What a state costs on a mesh. Runtime is the sum over ops in topological
 * order of compute and collective times: one stream per device, no overlap,
 * so the critical path is the whole sequence. Collective bytes are the
 * pp_hw_* buffer sizes (per device). */
typedef struct {
    double runtime;       /* s */
    double compute_time;  /* s, part of runtime */
    double collective_time; /* s, part of runtime */
    double flops;         /* per device */
    double peak_memory;   /* bytes per device */
    int32_t collectives[PP_SHARD_COLLECTIVE_KINDS];
    double collective_bytes[PP_SHARD_COLLECTIVE_KINDS];
} pp_shard_cost;

/* The constant C of section 4.5 when the caller has none: the paper gives
 * no value; with 10, exceeding the memory by a tenth of the unsharded peak
 * costs as much as the whole unsharded runtime, so the search leaves an
 * over-memory state whenever any fitting state exists. */
#define PP_SHARD_MEMORY_PENALTY 10.0

/* Two step times within PP_SHARD_TIME_TIE of the faster count as equal when
 * plans are ranked (the cost model is no finer than that). */
#define PP_SHARD_TIME_TIE 0.005

/* ---- Search (paper 004 section 4): Monte Carlo tree search over sharding
 * actions, color x resolution x mesh axis, each mirrored across repeated
 * layers, scored by C(s). */

/* How a search is getting on, for a live line or a host's callback: its
 * stage ("mcts", "polish", or the bridge's "iopddl"), seconds since that
 * search began, its rounds so far, and the predicted step time of its best
 * plan so far (s; the MCTS starts from the unsharded module's, the bridge
 * has INFINITY until its first answer). Called from the searching
 * thread: a callback must be quick and thread-safe. */
typedef struct {
    const char *stage;
    double elapsed;
    int64_t rounds;
    double best_runtime;
} pp_shard_progress;

typedef void (*pp_shard_progress_fn)(void *ctx, const pp_shard_progress *progress);

typedef struct {
    double memory;        /* bytes per device for MP(s); <= 0: the mesh device's memory */
    double penalty;       /* C of section 4.5; <= 0: PP_SHARD_MEMORY_PENALTY */
    double time_limit;    /* seconds; <= 0: none (the rounds rule still stops it) */
    int32_t threads;      /* rollouts in parallel; <= 0: the machine's cores */
    uint64_t seed;
    int32_t max_depth;    /* actions per trajectory; <= 0: 30 (the paper's) */
    int32_t min_dims;     /* actions sharding fewer dimension names are pruned: 10 */
    int32_t trajectories; /* per round; <= 0: 8 per action, within 256 .. 2048 */
    int32_t patience;     /* rounds in a row without improvement that stop the search: 2 */
    pp_shard_progress_fn on_progress; /* after each round and each polish step; NULL: none */
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_shard_search_options;

/* One action of the plan found: `color` and the n_colors - 1 colors that
 * correspond to it in the other copies of a repeated layer, sharded over
 * mesh axis `axis` with resolution bits (one byte per compatibility set). */
typedef struct {
    int32_t color, n_colors, axis, n_dims;
    const uint8_t *bits;
} pp_shard_search_step;

typedef struct {
    pp_arena *arena;          /* owns steps, axes and the steps' bits */
    int32_t n_steps;
    pp_shard_search_step *steps;
    uint8_t *axes;            /* the plan's layout, nda->n_names bytes */
    pp_shard_cost cost, initial; /* the plan and the unsharded module */
    double relative, initial_relative; /* their C(s) */
    double memory;            /* the limit used */
    int32_t n_actions;        /* the action space after pruning */
    int64_t evaluations;
    int32_t rounds, tree_nodes;
    int32_t polish_steps;     /* single-action changes the final hill climb made */
    double seconds;
    bool timed_out;           /* stopped by the timeout, not by the rounds rule */
} pp_shard_search_result;

#pragma GCC visibility pop

#endif
