/* load_plan.c: reads a plan file, in the full form or Megatron's shorthand,
 * naming the file and the place of every mistake, then validates the plan
 * against the cluster and the workload. A mistake in a value is reported as
 * FILE:LINE:COL: PATH: reason, the position found again from the path in the
 * text (core/json.h); a validation error about a device, a split share or a
 * stage as FILE:LINE:COL: and the validator's words.
 *
 * The format, one JSON object. The full form:
 *
 *   {
 *     "comment": "any text",
 *     "micro_batch": 1,
 *     "recompute": true,
 *     "replicas": [
 *       {"micro_batches": 16, "stages": [
 *         {"layers": 16, "devices": [0, 1], "split": [0.6, 0.4]},
 *         {"layers": 16, "devices": [2, 3], "recompute": false}
 *       ]},
 *       {"micro_batches": 16, "stages": [
 *         {"layers": 16, "devices": [4, 5]},
 *         {"layers": 16, "devices": [6, 7], "recompute": false}
 *       ]}
 *     ]
 *   }
 *
 * - "micro_batch" (integer >= 1, required): samples per micro-batch.
 * - "recompute" (true or false): full activation recomputation in every
 *   stage that does not say otherwise; absent means the workload's default.
 * - "sequence_parallel", "selective_recompute", "distributed_optimizer",
 *   "tp_overlap", "reduce_after_backward", "zero3" (true or false, absent
 *   false), "virtual_stages" (integer >= 1, absent 1: the interleaved
 *   schedule above 1), "expert_parallel" and "context_parallel" (integers
 *   >= 1, absent 1):
 *   Megatron-LM's switches for the whole plan (pp_cluster_plan in
 *   parplan/cluster.h), in both forms.
 * - "stack" (text, absent: the workload's): "megatron-lm",
 *   "megatron-deepspeed" or "torchtitan", the software that runs the plan;
 *   under megatron-deepspeed "reduce_after_backward" is absent true.
 * - "replicas" (at least one): the data-parallel replicas. Each has
 *   "micro_batches" (integer >= 1, required), the micro-batches it runs per
 *   step, and "stages" (at least one, required), its pipeline in order.
 * - A stage has "layers" (integer >= 1, required), the number of consecutive
 *   layers it holds; "devices" (at least one, required), the device numbers
 *   (0 .. device count - 1, in the cluster's order) of its tensor-parallel
 *   group; "split" (optional, one number > 0 per device, summing to 1), the
 *   share of the stage's work and memory each device takes; absent means
 *   even shares.
 *   "recompute" (true or false, optional) overrides the top-level one for
 *   this stage.
 * - Every replica has the same number of stages, and stage s has the same
 *   "layers", number of devices and recomputation (its own "recompute" or
 *   the top-level one) in every replica.
 *
 * The shorthand, Megatron-LM's uniform plan (pp_cluster_plan_uniform):
 *
 *   {"tp": 8, "pp": 4, "dp": 2, "micro_batch": 1, "recompute": true}
 *
 * - "tp", "pp", "dp" and "micro_batch" (integers >= 1, required) and "cp"
 *   (integer >= 1, absent 1: context parallelism, dp x cp replicas); device
 *   of stage s, replica r, member j = (s * dp * cp + r) * tp + j;
 *   "recompute" as above.
 *
 * "comment" (text) is allowed in both forms, checked and not kept. Numbers are
 * JSON numbers; a key not listed here, or one of the other form's, is an
 * error, and so is a key repeated within one object. Then the plan as a whole
 * is validated (pp_cluster_plan_validate): layers add up to the workload's,
 * samples to its global batch (cp times it under context parallelism),
 * devices exist, are alive at time 0 and are used once, tensor-parallel
 * degrees divide the workload's TP divisor. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/load_plan.h"
#include "core/json.h"
#include "cluster/plan.h"
#include "cluster/stack.h"

enum { PATH_SIZE = 96 };

static const char *const full_keys[] = {"comment", "micro_batch", "recompute", "replicas",
                                        "sequence_parallel", "selective_recompute",
                                        "distributed_optimizer", "tp_overlap", "reduce_after_backward",
                                        "zero3", "virtual_stages", "expert_parallel", "context_parallel", "stack", NULL};
static const char *const short_keys[] = {"comment", "micro_batch", "recompute", "tp", "pp", "dp", "cp",
                                         "sequence_parallel", "selective_recompute",
                                         "distributed_optimizer", "tp_overlap", "reduce_after_backward",
                                         "zero3", "virtual_stages", "expert_parallel", "stack", NULL};
static const char *const replica_keys[] = {"micro_batches", "stages", NULL};
static const char *const stage_keys[] = {"layers", "devices", "split", "recompute", NULL};

typedef struct {
    const char *file;
    const char *text; /* to find the position of a validation error */
    size_t size;
    const pp_cluster *c;
    const pp_cluster_workload *w;
    pp_error *err;
} loader;

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

static pp_status as_int(const loader *L, pp_json_at at, const json_t *v, int min, int *out)
{
    double x = 0;
    pp_status st = pp_json_as_number(at, v, min, &x, L->err);
    if (st)
        return st;
    if (x != floor(x) || x > INT_MAX)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: expected an integer >= %d, got %.17g",
                            L->file, at.path, min, x);
    *out = (int)x;
    return PP_OK;
}

/* Member `key` of obj as an integer >= min; absent is an error if required,
 * otherwise *out keeps its default. */
static pp_status read_int(const loader *L, pp_json_at at, const json_t *obj, const char *key,
                          bool required, int min, int *out)
{
    char path[PATH_SIZE];
    pp_json_at item = {L->file, pp_json_path(path, sizeof path, at.path, key, -1)};
    const json_t *v = json_object_get(obj, key);
    if (!v && required)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: missing (it is required)", L->file, item.path);
    return v ? as_int(L, item, v, min, out) : PP_OK;
}

/* Boolean member `key` of obj at `at`; absent leaves *out as it is. */
static pp_status read_bool(const loader *L, pp_json_at at, const json_t *obj, const char *key, bool *out)
{
    const json_t *v = json_object_get(obj, key);
    if (v && !json_is_boolean(v))
        return pp_error_set(L->err, PP_EINPUT, "%s: %s%s%s: expected true or false", L->file, at.path,
                            at.path[0] ? "." : "", key);
    if (v)
        *out = json_is_true(v);
    return PP_OK;
}

static pp_status read_recompute(const loader *L, pp_json_at at, const json_t *obj, bool *out)
{
    return read_bool(L, at, obj, "recompute", out);
}

/* The stack, the workload's when absent. */
static pp_status read_stack(const loader *L, const json_t *root, pp_cluster_plan *p)
{
    const json_t *v = json_object_get(root, "stack");
    p->stack = L->w->stack;
    if (v && !(json_is_string(v) && pp_cluster_stack_parse(json_string_value(v), &p->stack)))
        return pp_error_set(L->err, PP_EINPUT,
                            "%s: stack: expected \"megatron-lm\", \"megatron-deepspeed\" or \"torchtitan\"", L->file);
    return PP_OK;
}

/* The stack, the plan-wide switches, false when absent (but the gradients'
 * reduction after the backward where the stack does nothing else), and
 * virtual_stages (1). */
static pp_status read_switches(const loader *L, const json_t *root, pp_cluster_plan *p)
{
    pp_json_at top = {L->file, ""};
    pp_status st = read_stack(L, root, p);
    if (st)
        return st;
    p->reduce_after_backward = p->stack == PP_CLUSTER_STACK_MEGATRON_DEEPSPEED;
    if ((st = read_bool(L, top, root, "sequence_parallel", &p->sequence_parallel)) ||
        (st = read_bool(L, top, root, "selective_recompute", &p->selective_recompute)))
        return st;
    if ((st = read_bool(L, top, root, "distributed_optimizer", &p->distributed_optimizer)) ||
        (st = read_bool(L, top, root, "tp_overlap", &p->tp_overlap)) ||
        (st = read_bool(L, top, root, "reduce_after_backward", &p->reduce_after_backward)) ||
        (st = read_bool(L, top, root, "zero3", &p->zero3)))
        return st;
    if ((st = read_int(L, top, root, "expert_parallel", false, 1, &p->expert_parallel)) ||
        (st = read_int(L, top, root, "context_parallel", false, 1, &p->context_parallel)))
        return st;
    return read_int(L, top, root, "virtual_stages", false, 1, &p->virtual_stages);
}

/* A non-empty array member. */
static pp_status read_list(const loader *L, pp_json_at at, const json_t *obj, const char *key,
                           json_t **out)
{
    pp_status st = pp_json_array(at, obj, key, true, out, L->err);
    if (!st && json_array_size(*out) == 0)
        st = pp_error_set(L->err, PP_EINPUT, "%s: %s%s%s: the list is empty", L->file, at.path,
                          at.path[0] ? "." : "", key);
    return st;
}

static pp_status read_shorthand(const loader *L, const json_t *root, pp_cluster_plan **out)
{
    pp_json_at top = {L->file, ""};
    int tp = 0, pp = 0, dp = 0, cp = 1, micro_batch = 0;
    bool recompute = L->w->recompute;
    pp_status st;
    if ((st = pp_json_object(top, root, short_keys, L->err)) ||
        (st = read_int(L, top, root, "tp", true, 1, &tp)) ||
        (st = read_int(L, top, root, "pp", true, 1, &pp)) ||
        (st = read_int(L, top, root, "dp", true, 1, &dp)) ||
        (st = read_int(L, top, root, "cp", false, 1, &cp)) ||
        (st = read_int(L, top, root, "micro_batch", true, 1, &micro_batch)) ||
        (st = read_recompute(L, top, root, &recompute)))
        return st;
    pp_error why = {0};
    if ((st = pp_cluster_plan_uniform_context(L->c, L->w, tp, pp, dp, cp, micro_batch, out, &why)))
        return pp_error_set(L->err, st == PP_EARG ? PP_EINPUT : st, "%s: %s", L->file, why.message);
    for (int s = 0; s < pp; s++)
        (*out)->stage_recompute[s] = recompute;
    if ((st = read_switches(L, root, *out))) {
        pp_cluster_plan_free(*out);
        *out = NULL;
    }
    return st;
}

/* The shape every replica must have, from replicas[0]: stage count and each
 * stage's device count. */
static pp_status read_shape(const loader *L, const json_t *replicas, int **stage_tp, int *stages)
{
    pp_json_at at = {L->file, "replicas[0]"};
    const json_t *first = json_array_get(replicas, 0);
    json_t *list = NULL;
    pp_status st;
    if ((st = pp_json_object(at, first, replica_keys, L->err)) ||
        (st = read_list(L, at, first, "stages", &list)))
        return st;
    *stages = (int)json_array_size(list);
    if (!(*stage_tp = calloc((size_t)*stages, sizeof **stage_tp)))
        return pp_error_set(L->err, PP_ENOMEM, "%s: out of memory", L->file);
    for (int s = 0; s < *stages; s++) {
        char path[PATH_SIZE];
        pp_json_at item = {L->file, pp_json_path(path, sizeof path, at.path, "stages", s)};
        const json_t *stage = json_array_get(list, (size_t)s);
        json_t *devices = NULL;
        if ((st = pp_json_object(item, stage, stage_keys, L->err)) ||
            (st = read_list(L, item, stage, "devices", &devices)))
            return st;
        (*stage_tp)[s] = (int)json_array_size(devices);
    }
    return PP_OK;
}

static pp_status read_split(const loader *L, pp_json_at at, const json_t *stage, int tp,
                            double *split)
{
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(at, stage, "split", false, &list, L->err);
    if (st || !list)
        return st;
    if ((int)json_array_size(list) != tp)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.split: %zu share%s for %d device%s", L->file,
                            at.path, json_array_size(list), plural(json_array_size(list)), tp,
                            plural((size_t)tp));
    size_t j;
    json_array_foreach(list, j, v) {
        char path[PATH_SIZE];
        pp_json_at item = {L->file, pp_json_path(path, sizeof path, at.path, "split", (long)j)};
        if ((st = pp_json_as_number(item, v, 0, &split[j], L->err)))
            return st;
    }
    return PP_OK;
}

/* Stage s of replica r, whose first slot is `slot`; `recompute` is the
 * top-level default. */
static pp_status read_stage(const loader *L, pp_json_at at, const json_t *stage, int r, int s,
                            pp_cluster_plan *p, int slot, bool recompute)
{
    int layers = 0;
    json_t *devices = NULL, *v;
    pp_status st;
    if ((st = pp_json_object(at, stage, stage_keys, L->err)) ||
        (st = read_int(L, at, stage, "layers", true, 1, &layers)) ||
        (st = read_recompute(L, at, stage, &recompute)) ||
        (st = read_list(L, at, stage, "devices", &devices)))
        return st;
    if (r == 0) {
        p->stage_layers[s] = layers;
        p->stage_recompute[s] = recompute;
    } else if (layers != p->stage_layers[s]) {
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.layers: %d, but replicas[0] has %d in stage %d",
                            L->file, at.path, layers, p->stage_layers[s], s);
    } else if (recompute != p->stage_recompute[s]) {
        return pp_error_set(L->err, PP_EINPUT,
                            "%s: %s.recompute: %s, but replicas[0] has %s in stage %d", L->file,
                            at.path, recompute ? "true" : "false",
                            p->stage_recompute[s] ? "true" : "false", s);
    }
    if ((int)json_array_size(devices) != p->stage_tp[s])
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.devices: %zu device%s, but replicas[0] has %d in stage %d",
                            L->file, at.path, json_array_size(devices),
                            plural(json_array_size(devices)), p->stage_tp[s], s);
    size_t j;
    json_array_foreach(devices, j, v) {
        char path[PATH_SIZE];
        pp_json_at item = {L->file, pp_json_path(path, sizeof path, at.path, "devices", (long)j)};
        if ((st = as_int(L, item, v, 0, &p->devices[slot + (int)j])))
            return st;
    }
    return read_split(L, at, stage, p->stage_tp[s], p->split + slot);
}

static pp_status read_replica(const loader *L, const json_t *replica, int r, pp_cluster_plan *p,
                              bool recompute)
{
    char path[PATH_SIZE];
    pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "replicas", r)};
    json_t *stages = NULL;
    pp_status st;
    if ((st = pp_json_object(at, replica, replica_keys, L->err)) ||
        (st = read_int(L, at, replica, "micro_batches", true, 1, &p->micro_batches[r])) ||
        (st = read_list(L, at, replica, "stages", &stages)))
        return st;
    if ((int)json_array_size(stages) != p->stage_count)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.stages: %zu stage%s, but replicas[0] has %d",
                            L->file, at.path, json_array_size(stages),
                            plural(json_array_size(stages)), p->stage_count);
    int members = pp_cluster_plan_members(p);
    for (int s = 0; s < p->stage_count; s++) {
        char stage_path[PATH_SIZE];
        pp_json_at item = {L->file, pp_json_path(stage_path, sizeof stage_path, at.path, "stages", s)};
        int slot = r * members + pp_cluster_plan_stage_offset(p, s);
        if ((st = read_stage(L, item, json_array_get(stages, (size_t)s), r, s, p, slot,
                             recompute)))
            return st;
    }
    return PP_OK;
}

static pp_status read_full(const loader *L, const json_t *root, pp_cluster_plan **out)
{
    pp_json_at top = {L->file, ""};
    json_t *replicas = NULL;
    int micro_batch = 0, *stage_tp = NULL, stages = 0;
    bool recompute = L->w->recompute;
    pp_status st;
    if ((st = pp_json_object(top, root, full_keys, L->err)) ||
        (st = read_int(L, top, root, "micro_batch", true, 1, &micro_batch)) ||
        (st = read_recompute(L, top, root, &recompute)) ||
        (st = read_list(L, top, root, "replicas", &replicas)) ||
        (st = read_shape(L, replicas, &stage_tp, &stages))) {
        free(stage_tp);
        return st;
    }
    pp_cluster_plan *p = pp_cluster_plan_new((int)json_array_size(replicas), stages, stage_tp);
    free(stage_tp);
    if (!p)
        return pp_error_set(L->err, PP_ENOMEM, "%s: out of memory (or a plan too large)", L->file);
    p->micro_batch = micro_batch;
    for (int r = 0; r < p->replica_count && !st; r++)
        st = read_replica(L, json_array_get(replicas, (size_t)r), r, p, recompute);
    if (!st)
        st = read_switches(L, root, p);
    if (st)
        pp_cluster_plan_free(p);
    else
        *out = p;
    return st;
}

static pp_status read_plan(const loader *L, const json_t *root, pp_cluster_plan **out)
{
    if (!json_is_object(root))
        return pp_error_set(L->err, PP_EINPUT, "%s: expected an object at the top", L->file);
    if (json_object_get(root, "replicas"))
        return read_full(L, root, out);
    if (json_object_get(root, "tp") || json_object_get(root, "pp") || json_object_get(root, "dp"))
        return read_shorthand(L, root, out);
    return pp_error_set(L->err, PP_EINPUT,
                        "%s: neither \"replicas\" (the full form) nor \"tp\", \"pp\", \"dp\" (the shorthand)",
                        L->file);
}

/* The validator names a place as "replica R stage S member J" (plan.c); in
 * the full form that is a place in the file: the member's device or split
 * share, the stage, the replica's micro-batches. "" when it names none. */
static void validation_path(const char *why, char *path, size_t size)
{
    int r, s, j, used = 0;
    path[0] = '\0';
    if (sscanf(why, "replica %d stage %d member %d: %n", &r, &s, &j, &used) == 3 && used)
        snprintf(path, size, "replicas[%d].stages[%d].%s[%d]", r, s,
                 strncmp(why + used, "split", 5) == 0 ? "split" : "devices", j);
    else if (sscanf(why, "replica %d stage %d: %n", &r, &s, &used) == 2 && used)
        snprintf(path, size, "replicas[%d].stages[%d]", r, s);
    else if (sscanf(why, "replica %d runs %n", &r, &used) == 1 && used)
        snprintf(path, size, "replicas[%d].micro_batches", r);
}

/* The plan read and validated; errors as "FILE: PATH: reason", or
 * "FILE:LINE:COL: reason" for a validation error about a place the file
 * has. */
static pp_status read_valid_plan(const loader *L, const json_t *root, pp_cluster_plan **out)
{
    pp_cluster_plan *p = NULL;
    pp_status st = read_plan(L, root, &p);
    if (st)
        return st;
    pp_error why = {0};
    if (!(st = pp_cluster_plan_validate(L->c, L->w, p, &why))) {
        *out = p;
        return PP_OK;
    }
    pp_cluster_plan_free(p);
    st = pp_error_set(L->err, st, "%s: %s", L->file, why.message);
    char path[PATH_SIZE];
    int line, column;
    validation_path(why.message, path, sizeof path);
    if (path[0] && !path[pp_json_locate(L->text, L->size, path, &line, &column)])
        st = pp_json_relocate(L->err, st, L->file, L->text, L->size, path);
    return st;
}

pp_status cluster_plan_load_buffer(const char *name, const void *data, size_t size,
                                   const pp_cluster *c, const pp_cluster_workload *w,
                                   pp_cluster_plan **out, pp_error *err)
{
    *out = NULL;
    json_t *root = NULL;
    pp_status st = pp_json_load_buffer(name, data, size, &root, err);
    if (st)
        return st;
    loader L = {name, data, size, c, w, err};
    st = read_valid_plan(&L, root, out);
    json_decref(root);
    return pp_json_place(err, st, name, data, size);
}

pp_status pp_cluster_plan_load(const char *path, const pp_cluster *c,
                               const pp_cluster_workload *w, pp_cluster_plan **out,
                               pp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (!st)
        st = cluster_plan_load_buffer(path, text, size, c, w, out, err);
    free(text);
    return st;
}
