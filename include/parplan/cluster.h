/* parplan cluster planner (paper 003, issue 7): the public API. So far the
 * workload arithmetic of a GPT-style transformer (parameters, FLOPs, memory)
 * that the planner and the simulator price plans with. */
#ifndef PARPLAN_CLUSTER_H
#define PARPLAN_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "parplan/core.h"

/* A GPT-style decoder stack as the Megatron-LM papers describe it: `layers`
 * blocks of self-attention + MLP of width `hidden`, a learned position
 * embedding of `sequence` entries and a word embedding of `vocabulary`
 * entries shared with the logit layer. ffn_hidden is the MLP's inner width;
 * 0 means the usual 4 * hidden. global_batch counts sequences per step. */
typedef struct {
    int64_t layers;
    int64_t hidden;
    int64_t heads;
    int64_t sequence;
    int64_t vocabulary;
    int64_t global_batch;
    int64_t ffn_hidden;
} pp_transformer;

/* Bytes of model state per parameter in mixed-precision Adam training
 * (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
 * Parameter Models", SC 2020, section 3.1): 16-bit parameter and gradient
 * (2 + 2) and the optimizer's 32-bit copy of the parameter, momentum and
 * variance (K = 12); 16 in all. */
#define PP_CLUSTER_PARAM_BYTES 2
#define PP_CLUSTER_GRAD_BYTES 2
#define PP_CLUSTER_OPTIMIZER_BYTES 12
#define PP_CLUSTER_STATE_BYTES_PER_PARAM \
    (PP_CLUSTER_PARAM_BYTES + PP_CLUSTER_GRAD_BYTES + PP_CLUSTER_OPTIMIZER_BYTES)

/* PP_OK if every size is positive (ffn_hidden may be 0), heads divides
 * hidden and the counts below stay far inside 64-bit integers; otherwise
 * PP_EARG with the field and its value in err. The functions below assume a
 * transformer that passed. */
pp_status pp_cluster_transformer_check(const pp_transformer *t, pp_error *err);

/* The MLP's inner width: ffn_hidden, or 4 * hidden when it is 0. */
int64_t pp_cluster_ffn_hidden(const pp_transformer *t);

/* Parameters of one transformer layer, and of the whole model: the layers
 * plus word and position embeddings. With ffn_hidden = 4 hidden the total is
 * Narayanan et al. SC'21 eq. 2, 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)). */
int64_t pp_cluster_layer_parameters(const pp_transformer *t);
int64_t pp_cluster_parameters(const pp_transformer *t);

/* Forward FLOPs of one layer on a micro-batch of b sequences:
 * 24 b s h^2 (1 + s/(6h)) with ffn_hidden = 4 hidden. */
double pp_cluster_layer_forward_flops(const pp_transformer *t, int64_t micro_batch);

/* Forward FLOPs of the logit layer (hidden -> vocabulary) on b sequences:
 * 2 b s h V. Its backward is twice that; it is never recomputed. */
double pp_cluster_logit_forward_flops(const pp_transformer *t, int64_t micro_batch);

/* FLOPs of one training step over global_batch sequences. With full
 * activation recomputation this is Narayanan et al. eq. 3,
 * 96 B s l h^2 (1 + s/(6h) + V/(16 l h)); without, the layers cost 72
 * instead of 96 and the logit term is unchanged (derivation in transformer.c). */
double pp_cluster_step_flops(const pp_transformer *t, bool recompute);

/* Bytes of activations one layer keeps for its backward pass, per micro-batch
 * of b sequences, 16-bit values, tensor-parallel degree tp (1 = none; tp
 * should divide heads), no sequence parallelism (Korthikanti et al.,
 * "Reducing Activation Recomputation in Large Transformer Models", MLSys
 * 2023, arXiv:2205.05198, sections 4.1 and 4.2.1):
 * s b h (10 + 24/t + 5 a s/(h t)), which is s b h (34 + 5 a s/h) at t = 1.
 * With full recomputation only the layer's input is kept: 2 s b h. */
double pp_cluster_layer_activation_bytes(const pp_transformer *t, int64_t micro_batch, int64_t tp,
                                         bool recompute);

#endif
