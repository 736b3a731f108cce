/* stack.c: the software stacks a plan can run on (issue 30) and what each
 * can run. Every rule carries its source; a difference that could not be
 * sourced is left out (BENCHMARKS.md, "software stacks", lists those).
 *
 * megatron-lm: Megatron-LM / Megatron-core, every schedule and switch the
 *   plan has (the model's default since issue 7).
 * megatron-deepspeed: Megatron's tensor parallelism under DeepSpeed's
 *   pipeline engine and ZeRO (BLOOM: "both Megatron-LM and DeepSpeed have
 *   Pipeline Parallelism and BF16 Optimizer implementations, but we used
 *   the ones from DeepSpeed as they are integrated with ZeRO", The
 *   Technology Behind BLOOM Training, huggingface.co/blog/bloom-megatron-
 *   deepspeed; MT-NLG: "ZeRO data parallelism + Megatron tensor parallelism
 *   + 1F1B pipeline", Smith et al. 2022, arXiv 2201.11990, section 2.3):
 *   - one training schedule, TrainSchedule, plain 1F1B: no interleaving
 *     (deepspeed/runtime/pipe/schedule.py defines TrainSchedule and
 *     InferenceSchedule only);
 *   - the data-parallel gradients are reduced once, after the last
 *     micro-batch: TrainSchedule emits ReduceTiedGrads, ReduceGrads and
 *     OptimizerStep on its final step (schedule.py), so
 *     reduce_after_backward;
 *   - ZeRO stage 1 at most with a pipeline: the pipeline engine asserts
 *     "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"
 *     (deepspeed/runtime/pipe/engine.py);
 *   - no gradient-accumulation fusion: DeepSpeed's BF16_Optimizer (the one
 *     BLOOM used, with its own ZeRO-1 sharding) "accumulates gradients on
 *     FP32 buffer soon after a backward pass completes" (DeepSpeed PR
 *     #5170; FP32 the default accumulation type, PR #4713): after every
 *     micro-batch's backward the pipeline engine calls update_hp_grads,
 *     which runs hp_grad.add_(lp.grad.to(hp_grad.dtype)) per parameter, a
 *     cast to an FP32 temporary and an add, 18 bytes a parameter
 *     (runtime/bf16_optimizer.py; clear_lp_grads sets the 16-bit gradients
 *     to None outside graph harvesting, so autograd adds nothing more)
 *     (cluster_accumulate_time), where Megatron-LM's weight-gradient GEMMs
 *     add into their FP32 main_grad themselves (its gradient-accumulation
 *     fusion). The model prices every run as BF16 mixed precision, so
 *     this applies to every megatron-deepspeed plan (MT-NLG's too: its
 *     mixed precision was bfloat16, by the paper's summary in
 *     github.com/jasperzhong/read-papers-and-code issue 261);
 *   - the gradients reduced in FP32: with the BF16_Optimizer the pipeline
 *     engine's ReduceGrads all-reduces get_grads_for_reduction(), the FP32
 *     gradient buffers (pipe/engine.py _bf16_reduce_grads,
 *     runtime/bf16_optimizer.py), and the updated 16-bit weights are then
 *     all-gathered over the data-parallel group: 2 x 4 + 2 bytes a
 *     parameter where Megatron-LM's distributed optimizer moves 2 + 2
 *     (pp_cluster_layer_under); ReduceTiedGrads all-reduces the tied
 *     embedding's FP32 _hp_grad (simulate.c, gradients_ready);
 *   - blocking pipeline sends: p2p.send and p2p.recv refuse async_op and
 *     call dist.send / dist.recv (pipe/p2p.py; schedule.py: "The
 *     communication is blocking"), so a stage computes nothing more until
 *     its output has been delivered (simulate.c, op_done), where the model
 *     lets Megatron-LM's sender go on.
 * torchtitan: PyTorch-native (FSDP2, DTensor TP, torch.distributed.
 *   pipelining), torchtitan/config/job_config.py (commit 6404b93):
 *   - data parallelism is fully_shard (data_parallel_shard_degree: FSDP,
 *     ZeRO-3) or replication (data_parallel_replicate_degree: DDP), no
 *     optimizer-only sharding: no distributed_optimizer without zero3;
 *   - FSDP reduces gradients in float32 (mixed_precision_reduce, whose
 *     only value is "float32"): the reduce-scatter moves 4 bytes a
 *     gradient, not 2 (pp_cluster_layer_under);
 *   - schedules 1F1B and Interleaved1F1B among others
 *     (pipeline_parallel_schedule), so interleaving is allowed. */
#include "cluster/stack.h"

#include <stdio.h>
#include <string.h>

static const char *const names[PP_CLUSTER_STACK_COUNT] = {"megatron-lm", "megatron-deepspeed", "torchtitan"};

const char *pp_cluster_stack_name(pp_cluster_stack s)
{
    return (unsigned)s < PP_CLUSTER_STACK_COUNT ? names[s] : NULL;
}

bool pp_cluster_stack_parse(const char *name, pp_cluster_stack *out)
{
    for (int s = 0; name && s < PP_CLUSTER_STACK_COUNT; s++)
        if (strcmp(name, names[s]) == 0) {
            *out = (pp_cluster_stack)s;
            return true;
        }
    return false;
}

static bool refuse(char *why, size_t size, const char *reason)
{
    if (why && size > 0)
        snprintf(why, size, "%s", reason);
    return false;
}

bool pp_cluster_stack_runs(const pp_cluster_plan *p, char *why, size_t size)
{
    switch (p->stack) {
    case PP_CLUSTER_STACK_MEGATRON_LM:
        return true;
    case PP_CLUSTER_STACK_MEGATRON_DEEPSPEED:
        if (p->virtual_stages > 1)
            return refuse(why, size, "megatron-deepspeed has no interleaved schedule (DeepSpeed's pipeline "
                                     "engine runs TrainSchedule, plain 1F1B): virtual_stages must be 1");
        if (p->zero3 && p->stage_count > 1)
            return refuse(why, size, "megatron-deepspeed: ZeRO-2 and ZeRO-3 are incompatible with pipeline "
                                     "parallelism in DeepSpeed's pipeline engine: no zero3 with more than one "
                                     "stage");
        if (!p->reduce_after_backward && p->replica_count > 1)
            return refuse(why, size, "megatron-deepspeed reduces the gradients after the last micro-batch "
                                     "(TrainSchedule's ReduceGrads): reduce_after_backward must be true");
        return true;
    case PP_CLUSTER_STACK_TORCHTITAN:
        if (p->distributed_optimizer && !p->zero3 && p->replica_count > 1)
            return refuse(why, size, "torchtitan shards data parallelism with FSDP (zero3) or replicates it, "
                                     "never the optimizer alone: no distributed_optimizer without zero3");
        return true;
    default:
        return refuse(why, size, "unknown stack");
    }
}
