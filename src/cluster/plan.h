/* plan.h: the plan object's arithmetic (plan.c): its chunks, samples and
 * flat layout, a layer as a plan runs it, Megatron's uniform plans; two
 * plans compared (describe.c); a plan's peak memory (memory.c). */
#ifndef PP_CLUSTER_PLAN_H
#define PP_CLUSTER_PLAN_H

#include "parplan/cluster.h"
#include "cluster/cluster_internal.h"
#include "core/core_internal.h"

/* Layers of chunk c (0 .. virtual_stages - 1) of stage s under the
 * interleaved schedule: stage_layers[s] / virtual_stages each, and where
 * that does not divide, one more in the chunks farthest from the model's
 * ends (the last chunks of the first half of the stages, the first chunks
 * of the second half), so the first virtual stage (with the embedding)
 * and the last (with the logit layer) are the short ones, as Llama 3
 * balances its pipeline (Llama 3 Herd of Models, section 3.3.2: one layer
 * fewer on the first and the last stage). */
int pp_cluster_plan_chunk_layers(const pp_cluster_plan *p, int s, int c);

/* The samples' worth of work one replica's pass does: micro_batch, over
 * context_parallel (each replica of a CP group takes 1/cp of every
 * sample's sequence). */
double pp_cluster_plan_samples(const pp_cluster_plan *p);

/* Layer l as plan p runs it in a stage that recomputes fully or not
 * (`recompute`), on a member holding share f of it: what the memory model
 * and the simulator read. The work per sample with selective recomputation
 * moves selective_flops from the replay into the backward (a full replay
 * costs the same), activation_bytes loses selective_bytes; under sequence
 * parallelism the replicated activations and traffic and the checkpoint
 * become split-part (the checkpoint scaled by f here). Expert parallelism
 * leaves a member 1/expert_parallel of the experts' weights, gradients and
 * state. Under the distributed optimizer the state is 2 + 2 bytes per
 * parameter held and 12 / replicas per parameter of the layer (the
 * experts' data-parallel groups, replicas / expert_parallel, shard what
 * each holds), under zero3 16 / replicas per parameter of the layer. */
pp_cluster_layer pp_cluster_layer_under(const pp_cluster_layer *l, const pp_cluster_plan *p,
                                        bool recompute, double f);

pp_cluster_plan *pp_cluster_plan_copy(const pp_cluster_plan *p);
int pp_cluster_plan_members(const pp_cluster_plan *p);               /* devices per replica */
int pp_cluster_plan_stage_offset(const pp_cluster_plan *p, int stage); /* within a replica */
/* Whether a and b are the same plan, field by field. */
bool pp_cluster_plan_equal(const pp_cluster_plan *a, const pp_cluster_plan *b);

/* Megatron-LM's plan for (tp, pp, dp): equal layers per stage, equal
 * micro-batches per replica, even splits, every stage recomputing as the
 * workload says (w->recompute), ranks in Megatron's order (tensor
 * fastest, then data, then pipeline: rank = (s * dp + r) * tp + j).
 * PP_EARG with the reason when the numbers do not fit the cluster or workload. */
pp_status pp_cluster_plan_uniform(const pp_cluster *c, const pp_cluster_workload *w, int tp,
                                  int pp, int dp, int micro_batch, pp_cluster_plan **out,
                                  pp_error *err);
/* The same with context parallelism: dp x cp replicas, each CP group of
 * cp consecutive ones running global_batch / (dp micro_batch) micro-batches;
 * ranks in Megatron-LM's order (tensor, context, data, pipeline:
 * rank = (s dp cp + r) tp + j). pp_cluster_plan_uniform is cp = 1. */
pp_status pp_cluster_plan_uniform_context(const pp_cluster *c, const pp_cluster_workload *w, int tp,
                                          int pp, int dp, int cp, int micro_batch, pp_cluster_plan **out,
                                          pp_error *err);

/* Peak bytes each device of the cluster holds under p (0 for unused ones):
 * its share of its stage's state, plus the activations of the micro-batches
 * 1F1B keeps in flight there, plus one layer's full activations when its
 * stage recomputes. peak must hold c->device_count entries. */
void pp_cluster_plan_memory(const pp_cluster *c, const pp_cluster_workload *w,
                            const pp_cluster_plan *p, double *peak);
/* The same under a given order (no virtual stages): held[s] micro-batches'
 * activations at stage s's peak in place of 1F1B's. */
void cluster_plan_memory_held(const pp_cluster *c, const pp_cluster_workload *w, const pp_cluster_plan *p,
                              const int *held, double *peak);

#endif
