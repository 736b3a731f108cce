/* transformer.h: a GPT-style transformer and its arithmetic (parameters,
 * FLOPs, activation memory; transformer.c), and the transformer as a
 * workload (workload.c). Internal: the workload reader and the tests build
 * on it; every other part sees only pp_cluster_workload. */
#ifndef PP_CLUSTER_TRANSFORMER_H
#define PP_CLUSTER_TRANSFORMER_H

#include "parplan/cluster.h"

/* A GPT-style decoder stack as the Megatron-LM papers describe it: `layers`
 * blocks of self-attention + MLP of width `hidden`, a learned position
 * embedding of `sequence` entries and a word embedding of `vocabulary`
 * entries shared with the logit layer. ffn_hidden is the MLP's inner width;
 * 0 means the usual 4 * hidden. global_batch counts sequences per step.
 * Today's shapes: kv_heads key/value heads shared by groups of query heads
 * (grouped-query attention; 0 means heads, plain multi-head attention), and
 * swiglu for a gated MLP of three matrices (gate and up h -> f, down f -> h)
 * instead of two. */
typedef struct {
    int64_t layers;
    int64_t hidden;
    int64_t heads;
    int64_t sequence;
    int64_t vocabulary;
    int64_t global_batch;
    int64_t ffn_hidden;
    int64_t kv_heads;
    bool swiglu;
    /* The logit layer has its own V x h matrix (LLaMA's) rather than the
     * word embedding's (tied: GPT's, Megatron-LM's default), which the
     * first and the last pipeline stage each hold and all-reduce. */
    bool untied_embeddings;
    /* Mixture of experts (0 experts: a dense MLP): every layer's MLP is
     * `experts` MLPs of the shape above behind a router (an h x E matrix);
     * each token goes to top_k of them (Shazeer et al. 2017; GShard,
     * Lepikhin et al. 2021, section 2.2; Switch Transformer, Fedus et al.
     * 2022, section 2.1), and each expert takes at most capacity_factor
     * x top_k x tokens / experts of them (Switch section 2.2; 0 means 1.0),
     * computed at that capacity as the dispatch tensors pad them. */
    int64_t experts;
    int64_t top_k;
    double capacity_factor;
    /* FP8 training as Transformer Engine runs it (Micikevicius et al.,
     * "FP8 Formats for Deep Learning", 2022; NVIDIA's Transformer Engine
     * recipe): the linear layers' products (Q K V, the output projection,
     * the MLP's) in FP8, priced at the device's FP8 rate
     * (pp_hw_device_type.fp8_flops); attention's scores and context, the
     * logit layer, the element-wise kernels and all memory stay as in BF16
     * mixed precision. */
    bool fp8;
    /* Attention by a fused kernel that never writes the s x s scores to
     * memory and recomputes them in the backward (FlashAttention, Dao et
     * al., NeurIPS 2022, section 3.1; FlashAttention-2, Dao 2023): a layer
     * keeps and moves none of the 5 a s^2 bytes of softmax, its dropout
     * mask and output, and its backward runs Q K^T once more, 2 s^2 h FLOPs
     * per sequence. Selective recomputation then has nothing left to drop. */
    bool flash_attention;
} pp_transformer;

/* PP_OK if every size is positive (ffn_hidden may be 0), heads divides
 * hidden and the counts below stay far inside 64-bit integers; otherwise
 * PP_EARG with the field and its value in err. The functions below assume a
 * transformer that passed. */
pp_status pp_cluster_transformer_check(const pp_transformer *t, pp_error *err);

/* The MLP's inner width: ffn_hidden, or 4 * hidden when it is 0. */
int64_t pp_cluster_ffn_hidden(const pp_transformer *t);
/* Key/value heads: kv_heads, or heads when it is 0. */
int64_t pp_cluster_kv_heads(const pp_transformer *t);
/* MLP passes per token: top_k x capacity_factor with experts, 1 without. */
double pp_cluster_expert_slots(const pp_transformer *t);
/* Parameters of one layer's experts (0 when dense): expert parallelism
 * divides them. */
int64_t pp_cluster_layer_expert_parameters(const pp_transformer *t);

/* Parameters of one transformer layer, and of the whole model: the layers
 * plus word and position embeddings, and the logit layer's V h when untied.
 * Tied, with ffn_hidden = 4 hidden, the total is Narayanan et al. SC'21
 * eq. 2, 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)). */
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
/* The part of one layer's activations per sequence that tensor
 * parallelism splits (8sh + 4sf + 5as^2 in the plain case; transformer.c
 * has the grouped-query, gated and expert forms), and the part it does not
 * (10sh, and the experts' copies of their input tokens). */
double pp_cluster_layer_split_activation(const pp_transformer *t);
double pp_cluster_layer_replicated_activation(const pp_transformer *t);

/* A transformer as layer 0..layers-1, the embeddings folded into the first
 * and the logit layer (tied embedding) into the last. */
pp_status pp_cluster_workload_transformer(const pp_transformer *t, bool recompute,
                                          pp_cluster_workload **out, pp_error *err);

#endif
