/* workload.c: the workload object (a list of layers in pipeline order) and
 * the transformer as one: embeddings folded into the first layer, the logit
 * layer into the last.
 *
 * Per layer and per sample (one sequence of s positions; h hidden, a heads,
 * V vocabulary), with transformer.c's arithmetic:
 *   FLOPs: forward pp_cluster_layer_forward_flops(t, 1), backward twice
 *     that, recomputation once more the forward.
 *   weights 2 bytes per parameter; state PP_CLUSTER_STATE_BYTES_PER_PARAM
 *     and gradient 2 bytes per parameter.
 *   traffic: the layer's activation bytes without recomputation, as a
 *     proxy for the memory traffic of the forward (every activation kept
 *     is written once); nothing finer is modelled. Like the activations,
 *     the layer norms', dropouts' and residuals' 10sh are replicated in a
 *     TP group (each member runs those kernels on the whole tensor) unless
 *     sequence parallelism splits them.
 *   activations (Korthikanti et al. section 4.2.1): the part tensor
 *     parallelism splits, 8sh + 4sf + 5as^2 (= sh (24 + 5as/h) at f = 4h;
 *     pp_cluster_layer_split_activation has the grouped-query and gated forms),
 *     and the replicated part 10sh; a checkpoint (the layer's input) 2sh.
 *   output to the next stage 2sh; tensor parallelism all-reduces the 2sh
 *     output of attention and of the MLP in the forward, and their input
 *     gradients in the backward: 4sh each way.
 *   selective recomputation (Korthikanti et al. section 5) drops the 5as^2
 *     of softmax output, its dropout mask and dropout output, and rebuilds
 *     them with Q K^T and the scores times V: 4 s^2 h forward FLOPs.
 *   TP overlap: the column-parallel products (Q K V, the MLP's first)
 *     cost 2sh (h + 2kv) + 2sh f (gated 4sh f) forward FLOPs, and their
 *     weight gradients as much in the backward.
 *   FlashAttention (pp_transformer.flash_attention): the scores' 5as^2
 *     leave the traffic and the activations (and so selective
 *     recomputation's part), and the backward gains the 2 s^2 h FLOPs of
 *     Q K^T run again (its five products against the plain backward's four,
 *     Dao 2023, section 3.1.2).
 *   FP8 (pp_transformer.fp8): the four linear products of a layer run in
 *     FP8, the scores, context, router and logit products in BF16, as
 *     Transformer Engine's te.Linear layers do in Megatron-LM (its output
 *     layer and core attention are not FP8 by default).
 *   mixture of experts: the MLP's FLOPs, inner activations and overlap
 *     times top_k x capacity_factor, each expert's products on its
 *     capacity's rows (GShard section 2.2's [E, C, h] dispatch), the
 *     router's 2shE FLOPs; the experts' 2 bytes per parameter apart
 *     (expert parallelism divides them) and one all-to-all's 2sh top_k
 *     capacity_factor bytes (its send buffer of token copies).
 *   context parallelism: the keys and values, 2 x 2 s kv bytes, go round
 *     the CP ring, beside the scores and context products' 4 s^2 h FLOPs.
 * The first layer also holds the word and position embeddings ((V + s) h
 * parameters; their lookups cost no FLOPs worth counting). The last layer
 * also holds the logit layer: 2shV forward FLOPs, backward twice that, never
 * recomputed; its tied copy of the word embedding (V h parameters, with
 * their state and gradients, as Megatron-LM keeps one on the last stage);
 * and its 16-bit logits, 2sV bytes, split by tensor parallelism (the
 * vocabulary-parallel cross entropy keeps them for the backward). Untied
 * (LLaMA's), that matrix is the logit layer's own and costs the same; tied,
 * the first and the last stage all-reduce its 2Vh gradient bytes every step
 * (tied_bytes; Megatron-LM's embedding group, finalize_model_grads'
 * _allreduce_word_embedding_grads). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cluster/workload_internal.h"
#include "cluster/transformer.h"
#include "core/core_internal.h"

/* Far above any real model's depth; keeps the layer array's size sane. */
#define LAYER_LIMIT 1000000

void pp_cluster_workload_free(pp_cluster_workload *w)
{
    if (w)
        pp_arena_free(w->arena);
}

char *cluster_workload_strdup(pp_cluster_workload *w, const char *s)
{
    return pp_arena_strdup(w->arena, s);
}

pp_cluster_workload *cluster_workload_new(int layer_count, const char *name)
{
    pp_arena *a = pp_arena_new(1 << 14);
    pp_cluster_workload *w = a ? pp_arena_calloc(a, 1, sizeof *w) : NULL;
    if (!w) {
        pp_arena_free(a);
        return NULL;
    }
    w->arena = a;
    w->layer_count = layer_count;
    w->layers = pp_arena_calloc(a, (size_t)layer_count, sizeof *w->layers);
    w->name = cluster_workload_strdup(w, name);
    w->tp_divisor = 1;
    if (!w->layers || !w->name) {
        pp_arena_free(a);
        return NULL;
    }
    return w;
}

static void add_gemm(pp_cluster_layer *l, double inner, double cols, double count,
                     pp_cluster_split split, double rows, bool fp8)
{
    l->gemm[l->gemm_count++] = (pp_cluster_gemm){rows, inner, cols, count, split, fp8};
}

/* Megatron-LM's products per sequence: Q K V and the MLP's first (gated:
 * gate and up fused) column-parallel, the output projection and the MLP's
 * second row-parallel, the scores (s x d by d x s) and context (s x s by
 * s x d) one per head. Their FLOPs add up to forward_flops. */
static void transformer_gemms(const pp_transformer *t, pp_cluster_layer *l)
{
    double s = (double)t->sequence, h = (double)t->hidden, a = (double)t->heads;
    double f = (double)pp_cluster_ffn_hidden(t), d = h / a;
    double kv = (double)pp_cluster_kv_heads(t) * d, up = t->swiglu ? 2 * f : f;
    /* with experts, each of E experts' products runs on its capacity,
     * top_k x capacity_factor x s / E rows per sequence */
    double E = t->experts > 0 ? (double)t->experts : 1, rows = s * pp_cluster_expert_slots(t) / E;
    bool fp8 = t->fp8;
    add_gemm(l, h, h + 2 * kv, 1, PP_CLUSTER_SPLIT_COLS, s, fp8);
    add_gemm(l, d, s, a, PP_CLUSTER_SPLIT_COUNT, s, false);
    add_gemm(l, s, d, a, PP_CLUSTER_SPLIT_COUNT, s, false);
    add_gemm(l, h, h, 1, PP_CLUSTER_SPLIT_INNER, s, fp8);
    add_gemm(l, h, up, E, PP_CLUSTER_SPLIT_COLS, rows, fp8);
    add_gemm(l, f, h, E, PP_CLUSTER_SPLIT_INNER, rows, fp8);
    if (t->experts > 0)
        add_gemm(l, h, E, 1, PP_CLUSTER_SPLIT_COLS, s, false);
}

static void transformer_layer(const pp_transformer *t, pp_cluster_layer *l)
{
    double s = (double)t->sequence, h = (double)t->hidden, a = (double)t->heads;
    double params = (double)pp_cluster_layer_parameters(t);
    l->forward_flops = pp_cluster_layer_forward_flops(t, 1);
    l->backward_flops = 2 * l->forward_flops;
    l->recompute_flops = l->forward_flops;
    l->weight_bytes = PP_CLUSTER_PARAM_BYTES * params;
    l->traffic_bytes = pp_cluster_layer_split_activation(t);
    l->traffic_replicated_bytes = pp_cluster_layer_replicated_activation(t);
    l->state_bytes = PP_CLUSTER_STATE_BYTES_PER_PARAM * params;
    l->gradient_bytes = PP_CLUSTER_GRAD_BYTES * params;
    l->activation_bytes = pp_cluster_layer_split_activation(t);
    l->activation_replicated_bytes = pp_cluster_layer_replicated_activation(t);
    l->checkpoint_bytes = 2 * s * h;
    l->output_bytes = 2 * s * h;
    l->tp_forward_bytes = 4 * s * h;
    l->tp_backward_bytes = 4 * s * h;
    l->selective_bytes = 5 * a * s * s;
    l->selective_flops = 4 * s * s * h;
    l->overlap_flops = 2 * s * h * (h + 2 * (double)pp_cluster_kv_heads(t) * (h / a)) +
                       2 * s * h * (double)pp_cluster_ffn_hidden(t) * (t->swiglu ? 2 : 1) *
                           pp_cluster_expert_slots(t);
    l->expert_weight_bytes = PP_CLUSTER_PARAM_BYTES * (double)pp_cluster_layer_expert_parameters(t);
    l->alltoall_bytes = t->experts > 0 ? 2 * s * h * pp_cluster_expert_slots(t) : 0;
    l->context_bytes = 4 * s * (double)pp_cluster_kv_heads(t) * (h / a);
    l->attention_flops = 4 * s * s * h;
    if (t->flash_attention) {
        l->traffic_bytes -= l->selective_bytes;
        l->activation_bytes -= l->selective_bytes;
        l->backward_flops += 2 * s * s * h;
        l->selective_bytes = 0;
        l->selective_flops = 0;
    }
    transformer_gemms(t, l);
}

/* Parameters held beside a layer's own: their weights, state and gradients. */
static void add_parameters(pp_cluster_layer *l, double params)
{
    l->weight_bytes += PP_CLUSTER_PARAM_BYTES * params;
    l->state_bytes += PP_CLUSTER_STATE_BYTES_PER_PARAM * params;
    l->gradient_bytes += PP_CLUSTER_GRAD_BYTES * params;
}

static void add_logits(const pp_transformer *t, pp_cluster_layer *l)
{
    double logit = pp_cluster_logit_forward_flops(t, 1);
    l->forward_flops += logit;
    l->backward_flops += 2 * logit;
    add_gemm(l, (double)t->hidden, (double)t->vocabulary, 1, PP_CLUSTER_SPLIT_COLS,
             (double)t->sequence, false);
    add_parameters(l, (double)t->vocabulary * (double)t->hidden);
    l->activation_bytes += 2 * (double)t->sequence * (double)t->vocabulary;
}

static pp_status name_layers(pp_cluster_workload *w, pp_error *err)
{
    for (int k = 0; k < w->layer_count; k++) {
        char name[32];
        snprintf(name, sizeof name, "layer%d", k);
        if (!(w->layers[k].name = cluster_workload_strdup(w, name)))
            return pp_error_set(err, PP_ENOMEM, "transformer workload: out of memory");
    }
    return PP_OK;
}

pp_status pp_cluster_workload_transformer(const pp_transformer *t, bool recompute,
                                          pp_cluster_workload **out, pp_error *err)
{
    *out = NULL;
    pp_status st = pp_cluster_transformer_check(t, err);
    if (st)
        return st;
    if (t->layers > LAYER_LIMIT || t->heads > INT_MAX)
        return pp_error_set(err, PP_EARG, "transformer: %lld layers and %lld heads: at most %d and %d",
                            (long long)t->layers, (long long)t->heads, LAYER_LIMIT, INT_MAX);
    char name[96];
    snprintf(name, sizeof name, "transformer l%lld h%lld", (long long)t->layers,
             (long long)t->hidden);
    pp_cluster_workload *w = cluster_workload_new((int)t->layers, name);
    if (!w)
        return pp_error_set(err, PP_ENOMEM, "transformer workload: out of memory");
    for (int k = 0; k < w->layer_count; k++)
        transformer_layer(t, &w->layers[k]);
    add_parameters(&w->layers[0], ((double)t->vocabulary + (double)t->sequence) * (double)t->hidden);
    add_logits(t, &w->layers[w->layer_count - 1]);
    w->global_batch = t->global_batch;
    /* a TP group splits the key/value heads too */
    w->tp_divisor = (int)pp_cluster_kv_heads(t);
    w->recompute = recompute;
    w->experts = (int)t->experts;
    w->sequence = t->sequence;
    w->tied_bytes = t->untied_embeddings ? 0.0 : PP_CLUSTER_GRAD_BYTES * (double)t->vocabulary * (double)t->hidden;
    if ((st = name_layers(w, err))) {
        pp_cluster_workload_free(w);
        return st;
    }
    *out = w;
    return PP_OK;
}
