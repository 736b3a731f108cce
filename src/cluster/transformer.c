/* transformer.c: the workload arithmetic of a GPT-style transformer:
 * parameter count, FLOPs per layer and per training step, activation memory
 * per layer. The planner and the simulator price every plan with these, and
 * the simulator's TFLOP/s per GPU is the step FLOPs over the step time, so
 * the step count follows Narayanan et al. (SC'21, "Efficient Large-Scale
 * Language Model Training on GPU Clusters Using Megatron-LM") exactly.
 *
 * Notation: l layers, h hidden, a heads, s sequence, V vocabulary, B global
 * batch, b micro-batch, f MLP inner width (4h unless set). A GEMM of an
 * (m x k) by a (k x n) matrix costs 2 m k n FLOPs.
 *
 * FLOPs of one layer's forward on b sequences (Narayanan et al. appendix):
 *   attention Q, K, V projections   3 x 2 b s h h = 6 b s h^2
 *   scores Q K^T                        2 b s s h = 2 b s^2 h
 *   scores times V                      2 b s s h = 2 b s^2 h
 *   output projection                   2 b s h h = 2 b s h^2
 *   MLP h -> f -> h                   2 x 2 b s h f (= 16 b s h^2 at f = 4h)
 * which is 24 b s h^2 (1 + s/(6h)) at f = 4h. The logit layer's forward is
 * 2 b s h V. A backward pass costs twice its forward (gradients with respect
 * to both the input and the weights), and full recomputation runs each
 * layer's forward once more before its backward; the logit layer is not
 * recomputed. So, summed over B sequences:
 *   with recomputation     (1 + 2 + 1) 24 B s l h^2 (1 + s/(6h)) + 3 x 2 B s h V
 *                        = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))   (their eq. 3)
 *   without recomputation  (1 + 2) 24 B s l h^2 (1 + s/(6h)) + 6 B s h V
 *                        = 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
 * Only the layer terms go from 96 to 72 (forward 24 + backward 48); the
 * logit term stays 6 B s h V, which is why its coefficient inside the
 * bracket changes from 1/16 to 1/12. */
#include "cluster/transformer.h"

/* Parameter counts stay below this, so every int64 product below is safe. */
#define PARAMETER_LIMIT 4.0e18

static pp_status check_positive(const char *field, int64_t value, pp_error *err)
{
    if (value > 0)
        return PP_OK;
    return pp_error_set(err, PP_EARG, "transformer: %s must be a positive integer, got %lld", field,
                        (long long)value);
}

static double parameters_estimate(const pp_transformer *t)
{
    double h = (double)t->hidden, f = (double)pp_cluster_ffn_hidden(t);
    double n = t->swiglu ? 3 : 2, mlps = t->experts > 0 ? (double)t->experts : 1;
    double router = h * (double)t->experts;
    double layer = 4 * h * h + mlps * (n * h * f + (n - 1) * f + h) + 8 * h + router;
    return (double)t->layers * layer + (2 * (double)t->vocabulary + (double)t->sequence) * h;
}

pp_status pp_cluster_transformer_check(const pp_transformer *t, pp_error *err)
{
    const char *names[] = {"layers", "hidden", "heads", "sequence", "vocabulary", "global_batch"};
    const int64_t values[] = {t->layers,     t->hidden,     t->heads,
                              t->sequence,   t->vocabulary, t->global_batch};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        pp_status st = check_positive(names[i], values[i], err);
        if (st != PP_OK)
            return st;
    }
    if (t->ffn_hidden < 0)
        return pp_error_set(err, PP_EARG,
                            "transformer: ffn_hidden must be positive (or 0 for 4 x hidden), got %lld",
                            (long long)t->ffn_hidden);
    if (t->hidden % t->heads != 0)
        return pp_error_set(err, PP_EARG, "transformer: heads %lld does not divide hidden %lld",
                            (long long)t->heads, (long long)t->hidden);
    if (t->kv_heads < 0 || (t->kv_heads > 0 && t->heads % t->kv_heads != 0))
        return pp_error_set(err, PP_EARG,
                            "transformer: kv_heads %lld must divide heads %lld (or be 0 for heads)",
                            (long long)t->kv_heads, (long long)t->heads);
    if (t->experts < 0 || (t->experts > 0 && (t->top_k < 1 || t->top_k > t->experts)) ||
        (t->experts == 0 && t->top_k != 0))
        return pp_error_set(err, PP_EARG,
                            "transformer: top_k %lld must be between 1 and experts %lld (both 0 when dense)",
                            (long long)t->top_k, (long long)t->experts);
    if (!(t->capacity_factor >= 0 && t->capacity_factor <= 1e6) ||
        (t->experts == 0 && t->capacity_factor != 0))
        return pp_error_set(err, PP_EARG,
                            "transformer: capacity_factor %g must be positive with experts (0 for 1.0), "
                            "0 when dense", t->capacity_factor);
    if (parameters_estimate(t) >= PARAMETER_LIMIT)
        return pp_error_set(err, PP_EARG, "transformer: %.3g parameters is beyond what parplan counts",
                            parameters_estimate(t));
    return PP_OK;
}

int64_t pp_cluster_ffn_hidden(const pp_transformer *t)
{
    return t->ffn_hidden > 0 ? t->ffn_hidden : 4 * t->hidden;
}

int64_t pp_cluster_kv_heads(const pp_transformer *t)
{
    return t->kv_heads > 0 ? t->kv_heads : t->heads;
}

double pp_cluster_expert_slots(const pp_transformer *t)
{
    if (t->experts == 0)
        return 1.0;
    return (double)t->top_k * (t->capacity_factor > 0 ? t->capacity_factor : 1.0);
}

/* The width of the keys (and of the values): kv_heads heads of h / a. */
static int64_t kv_width(const pp_transformer *t)
{
    return pp_cluster_kv_heads(t) * (t->hidden / t->heads);
}

/* The MLP's matrices of h x f: three when gated. */
static int64_t mlp_matrices(const pp_transformer *t)
{
    return t->swiglu ? 3 : 2;
}

/* One MLP's matrices with biases (2hf + f + h; gated 3hf + 2f + h). */
static int64_t mlp_parameters(const pp_transformer *t)
{
    int64_t h = t->hidden, f = pp_cluster_ffn_hidden(t), n = mlp_matrices(t);
    return n * h * f + (n - 1) * f + h;
}

int64_t pp_cluster_layer_expert_parameters(const pp_transformer *t)
{
    return t->experts * mlp_parameters(t);
}

/* Q, K, V and output projections with biases (4h^2 + 4h; with kv-wide
 * keys and values h (h + 2kv) + h + 2kv + h^2 + h), the MLP (or the E
 * experts' MLPs and the router's h x E matrix, Switch section 2.1) and two
 * layer norms (4h). At f = 4h, dense, this is 12h^2 + 13h, eq. 2's
 * per-layer term. */
int64_t pp_cluster_layer_parameters(const pp_transformer *t)
{
    int64_t h = t->hidden, kv = kv_width(t);
    int64_t attention = h * (h + 2 * kv) + h + 2 * kv + h * h + h;
    int64_t mlp = t->experts > 0 ? pp_cluster_layer_expert_parameters(t) + h * t->experts : mlp_parameters(t);
    return attention + mlp + 4 * h;
}

/* Eq. 2 leaves out the final layer norm (2h), and so does this, so the
 * totals match the paper's table 1. */
int64_t pp_cluster_parameters(const pp_transformer *t)
{
    int64_t output = t->untied_embeddings ? t->vocabulary * t->hidden : 0;
    return t->layers * pp_cluster_layer_parameters(t) + (t->vocabulary + t->sequence) * t->hidden + output;
}

double pp_cluster_layer_forward_flops(const pp_transformer *t, int64_t micro_batch)
{
    double b = (double)micro_batch, s = (double)t->sequence, h = (double)t->hidden;
    double f = (double)pp_cluster_ffn_hidden(t), kv = (double)kv_width(t);
    double projections = 2 * b * s * h * (h + 2 * kv) + 2 * b * s * h * h;
    double attention = 4 * b * s * s * h;
    /* with experts each token passes through top_k x capacity_factor MLPs
     * (the experts compute at capacity) after the router's 2 b s h E */
    double mlp = 2 * (double)mlp_matrices(t) * b * s * h * f * pp_cluster_expert_slots(t);
    double router = 2 * b * s * h * (double)t->experts;
    return projections + attention + mlp + router;
}

double pp_cluster_logit_forward_flops(const pp_transformer *t, int64_t micro_batch)
{
    return 2.0 * (double)micro_batch * (double)t->sequence * (double)t->hidden * (double)t->vocabulary;
}

double pp_cluster_step_flops(const pp_transformer *t, bool recompute)
{
    double layer_passes = recompute ? 4 : 3;
    double layers = (double)t->layers * pp_cluster_layer_forward_flops(t, t->global_batch);
    return layer_passes * layers + 3 * pp_cluster_logit_forward_flops(t, t->global_batch);
}

/* Korthikanti et al. section 4.1, bytes per layer on s b sequence positions:
 *   attention: QKV input 2sbh, Q and K 4sbh, softmax output 2as^2b, its
 *     dropout mask as^2b, dropout output 2as^2b, V 2sbh, output projection
 *     input 2sbh, dropout mask sbh: 11sbh + 5as^2b
 *   MLP: input 2sbh, GeLU input 2sbf, second GEMM input 2sbf, dropout mask
 *     sbh: 3sbh + 4sbf (19sbh at f = 4h)
 *   two layer norms' inputs: 4sbh.
 * Section 4.2.1: tensor parallelism splits what lies between its
 * collectives, the attention core (Q, K, V, scores, their masks, the output
 * projection's input: 8sbh + 5as^2b) and the MLP's inner tensors (4sbf); the
 * rest (10sbh) is replicated. At f = 4h: sbh (10 + 24/t + 5as/(ht)). */
double pp_cluster_layer_activation_bytes(const pp_transformer *t, int64_t micro_batch, int64_t tp,
                                         bool recompute)
{
    double b = (double)micro_batch, s = (double)t->sequence, h = (double)t->hidden;
    double split = (double)tp;
    if (recompute)
        return 2 * s * b * h;
    return b * pp_cluster_layer_replicated_activation(t) + b * pp_cluster_layer_split_activation(t) / split;
}

/* The attention core keeps Q (2sh), K and V (2s kv each: the key/value
 * width), the scores' 5as^2 and the output projection's input (2sh); the
 * MLP's inner tensors are 2sf each: the activation's input and the second
 * GEMM's (4sf), or gated the gate's and the up projection's outputs and
 * their product (6sf). At kv = h, no gate: 8sh + 4sf + 5as^2. */
double pp_cluster_layer_split_activation(const pp_transformer *t)
{
    double s = (double)t->sequence, h = (double)t->hidden, a = (double)t->heads;
    double f = (double)pp_cluster_ffn_hidden(t), kv = (double)kv_width(t);
    double inner = (t->swiglu ? 6 * s * f : 4 * s * f) * pp_cluster_expert_slots(t);
    return 4 * s * h + 4 * s * kv + inner + 5 * a * s * s;
}

/* The layer norms', dropouts' and residuals' 10sh (Korthikanti et al.
 * section 4.2.1), and with experts the 2sh of each of the top_k x
 * capacity_factor copies of a token the experts take as their first
 * product's input, whole on every TP member as the dense MLP's input is. */
double pp_cluster_layer_replicated_activation(const pp_transformer *t)
{
    double s = (double)t->sequence, h = (double)t->hidden;
    return 10 * s * h + (t->experts > 0 ? 2 * s * h * pp_cluster_expert_slots(t) : 0);
}
