/* load_workload.c: reads a workload file, reporting every mistake as
 * FILE:LINE:COL: and the JSON path (transformer.hidden) when it is about a
 * value (the position found again from the path in the text, core/json.h),
 * FILE:LINE:COL for bad JSON. Two kinds of file are read, told apart by their keys:
 *
 * A transformer, one JSON object:
 *
 *   {
 *     "name": "LLaMA-7B-like", "comment": "any text",
 *     "transformer": {"layers": 32, "hidden": 4096, "heads": 32, "sequence": 2048,
 *                     "vocabulary": 32000, "global_batch": 64, "ffn_hidden": 16512},
 *     "recompute": true
 *   }
 *
 * - "transformer" is required; inside it every field is a JSON integer
 *   (not 64.0, not a string) and required except "ffn_hidden" (the MLP's
 *   inner width, default 0 = 4 x hidden) and "kv_heads" (grouped-query
 *   attention's key/value heads, dividing heads; default 0 = heads);
 *   "swiglu" (boolean, default false) makes the MLP gated, three matrices;
 *   "untied_embeddings" (boolean, default false) gives the logit layer a
 *   matrix of its own instead of the word embedding's (tied, GPT's);
 *   "experts" and "top_k" (integers, default 0: dense) and
 *   "capacity_factor" (a number, default 0 = 1.0) make every MLP a mixture
 *   of experts (pp_transformer);
 *   "flash_attention" (boolean, default false) prices attention as one
 *   fused kernel that keeps no s x s scores (pp_transformer);
 *   "precision" ("bf16", the default, or "fp8") says whether the linear
 *   layers' products run in FP8 (pp_transformer.fp8);
 *   "comment" is allowed there too.
 *   The whole is checked with pp_cluster_transformer_check: sizes positive,
 *   heads dividing hidden.
 * - "recompute" (boolean, default false): full activation recomputation for
 *   plans that do not say.
 * - "name" (text) names the workload, default "transformer"; "comment" is
 *   text, checked and not kept.
 * - "stack" (text, default "megatron-lm"): the software stack plans run on
 *   when they do not say, and the one `cluster plan` plans for (stack.c).
 * - Unknown keys are errors (a typo such as "hiden" would otherwise be
 *   ignored), and so is a key repeated within one object.
 * The layers are then pp_cluster_workload_transformer's (workload.c).
 *
 * A Piper profile (msr-fiddle/piper's format): an object with "nodes",
 * "edges" and "maxDevices"; see piper.c.
 *
 * Anything else is refused with a message naming both formats. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/core_internal.h"
#include "core/json.h"
#include "cluster/workload_internal.h"
#include "cluster/stack.h"
#include "cluster/transformer.h"

enum { PATH_SIZE = 96 };

static pp_status integer(pp_json_at at, const json_t *obj, const char *key, bool required,
                         int64_t *out, pp_error *err)
{
    json_t *v = json_object_get(obj, key);
    char path[PATH_SIZE];
    if (!v && !required)
        return PP_OK;
    if (!v)
        return pp_error_set(err, PP_EINPUT, "%s: %s: required", at.file,
                            pp_json_path(path, sizeof path, at.path, key, -1));
    if (!json_is_integer(v))
        return pp_error_set(err, PP_EINPUT, "%s: %s: must be an integer", at.file,
                            pp_json_path(path, sizeof path, at.path, key, -1));
    *out = (int64_t)json_integer_value(v);
    return PP_OK;
}

/* An optional number of the transformer object, 0 when absent. */
static pp_status number(pp_json_at at, const json_t *obj, const char *key, double *out, pp_error *err)
{
    json_t *v = json_object_get(obj, key);
    char path[PATH_SIZE];
    if (v && !json_is_number(v))
        return pp_error_set(err, PP_EINPUT, "%s: %s: must be a number", at.file,
                            pp_json_path(path, sizeof path, at.path, key, -1));
    *out = v ? json_number_value(v) : 0.0;
    return PP_OK;
}

/* An optional boolean of the transformer object, false when absent. */
static pp_status flag(const char *file, const json_t *v, const char *key, bool *out, pp_error *err)
{
    json_t *value = json_object_get(v, key);
    if (value && !json_is_boolean(value))
        return pp_error_set(err, PP_EINPUT, "%s: transformer.%s: must be true or false", file, key);
    *out = value && json_is_true(value);
    return PP_OK;
}

/* "precision": "bf16" (the default) or "fp8". */
static pp_status read_precision(pp_json_at at, const json_t *obj, bool *fp8, pp_error *err)
{
    const char *text = "bf16";
    pp_status st = pp_json_string(at, obj, "precision", false, &text, err);
    if (st)
        return st;
    *fp8 = strcmp(text, "fp8") == 0;
    if (*fp8 || strcmp(text, "bf16") == 0)
        return PP_OK;
    char path[PATH_SIZE];
    return pp_error_set(err, PP_EINPUT, "%s: %s: must be \"bf16\" or \"fp8\", got \"%s\"", at.file,
                        pp_json_path(path, sizeof path, at.path, "precision", -1), text);
}

static pp_status read_transformer(const char *file, const json_t *root, pp_transformer *t,
                                  pp_error *err)
{
    static const char *const keys[] = {"layers",     "hidden",       "heads",      "sequence",
                                       "vocabulary", "global_batch", "ffn_hidden", "kv_heads",
                                       "experts",    "top_k",        "comment",    "swiglu",
                                       "untied_embeddings", "capacity_factor", "precision",
                                       "flash_attention", NULL};
    pp_json_at at = {file, "transformer"};
    json_t *v = json_object_get(root, "transformer");
    const char *comment;
    pp_status st = pp_json_object(at, v, keys, err);
    if (!st)
        st = pp_json_string(at, v, "comment", false, &comment, err);
    int64_t *fields[] = {&t->layers,     &t->hidden,       &t->heads,      &t->sequence,
                         &t->vocabulary, &t->global_batch, &t->ffn_hidden, &t->kv_heads,
                         &t->experts,    &t->top_k};
    for (size_t i = 0; !st && i < sizeof fields / sizeof fields[0]; i++)
        st = integer(at, v, keys[i], i < 6, fields[i], err);
    if (!st)
        st = number(at, v, "capacity_factor", &t->capacity_factor, err);
    if (!st)
        st = flag(file, v, "swiglu", &t->swiglu, err);
    if (!st)
        st = flag(file, v, "untied_embeddings", &t->untied_embeddings, err);
    if (!st)
        st = flag(file, v, "flash_attention", &t->flash_attention, err);
    if (!st)
        st = read_precision(at, v, &t->fp8, err);
    if (st)
        return st;
    pp_error check = {0};
    if (pp_cluster_transformer_check(t, &check))
        return pp_error_set(err, PP_EINPUT, "%s: %s", file, check.message);
    return PP_OK;
}

static pp_status read_recompute(const char *file, const json_t *root, bool *out, pp_error *err)
{
    json_t *v = json_object_get(root, "recompute");
    if (!v)
        return PP_OK;
    if (!json_is_boolean(v))
        return pp_error_set(err, PP_EINPUT, "%s: recompute: must be true or false", file);
    *out = json_is_true(v);
    return PP_OK;
}

static pp_status load_transformer(const char *file, const json_t *root, pp_cluster_workload **out,
                                  pp_error *err)
{
    static const char *const keys[] = {"name", "comment", "transformer", "recompute", "stack", NULL};
    pp_json_at at = {file, ""};
    pp_transformer t = {0};
    const char *name = "transformer", *comment, *stack_name = NULL;
    pp_cluster_stack stack = PP_CLUSTER_STACK_MEGATRON_LM;
    bool recompute = false;
    pp_status st;
    if ((st = pp_json_object(at, root, keys, err)) ||
        (st = pp_json_string(at, root, "name", false, &name, err)) ||
        (st = pp_json_string(at, root, "comment", false, &comment, err)) ||
        (st = read_recompute(file, root, &recompute, err)) ||
        (st = pp_json_string(at, root, "stack", false, &stack_name, err)) ||
        (st = read_transformer(file, root, &t, err)))
        return st;
    if (stack_name && !pp_cluster_stack_parse(stack_name, &stack))
        return pp_error_set(err, PP_EINPUT,
                            "%s: stack: \"%s\" is none of \"megatron-lm\", \"megatron-deepspeed\", \"torchtitan\"",
                            file, stack_name);
    pp_cluster_workload *w;
    pp_error made = {0};
    if ((st = pp_cluster_workload_transformer(&t, recompute, &w, &made)))
        return pp_error_set(err, st == PP_ENOMEM ? st : PP_EINPUT, "%s: %s", file, made.message);
    w->stack = stack;
    if (!(w->name = cluster_workload_strdup(w, name))) {
        pp_cluster_workload_free(w);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", file);
    }
    *out = w;
    return PP_OK;
}

static bool is_piper(const json_t *root)
{
    return json_object_get(root, "nodes") && json_object_get(root, "edges") &&
           json_object_get(root, "maxDevices");
}

static pp_status read_workload(const char *name, const json_t *root, const pp_hw_catalog *cat,
                               pp_cluster_workload **out, pp_error *err)
{
    if (json_is_object(root) && json_object_get(root, "transformer"))
        return load_transformer(name, root, out, err);
    if (json_is_object(root) && is_piper(root))
        return cluster_piper_read(name, root, cat, out, err);
    return pp_error_set(err, PP_EINPUT,
                        "%s: not a workload: expected an object with \"transformer\" (a "
                        "transformer) or with \"nodes\", \"edges\" and \"maxDevices\" (a Piper "
                        "profile)",
                        name);
}

pp_status cluster_workload_load_buffer(const char *name, const void *data, size_t size,
                                       const pp_hw_catalog *cat, pp_cluster_workload **out,
                                       pp_error *err)
{
    *out = NULL;
    json_t *root = NULL;
    pp_status st = pp_json_load_buffer(name, data, size, &root, err);
    if (st)
        return st;
    st = read_workload(name, root, cat, out, err);
    json_decref(root);
    return pp_json_place(err, st, name, data, size);
}

pp_status pp_cluster_workload_load(const char *path, const pp_hw_catalog *cat,
                                   pp_cluster_workload **out, pp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (!st)
        st = cluster_workload_load_buffer(path, text, size, cat, out, err);
    free(text);
    return st;
}
