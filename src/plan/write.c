/* write.c: a plan's report for people (text) and as JSON, both from the
 * report alone, so the CLI and Python show the same figures. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <jansson.h>
#include "parplan/plan.h"

static void mesh_text(const pp_plan_stage *S, char *buf, size_t size)
{
    if (S->n_axes == 2)
        snprintf(buf, size, "%dx%d%s", S->axes[0], S->axes[1], S->spans_nodes ? " (nodes x node)" : "");
    else
        snprintf(buf, size, "%d%s", S->axes[0], S->spans_nodes ? " (across nodes)" : "");
}

static pp_status done(FILE *out, pp_error *err)
{
    return ferror(out) ? pp_error_set(err, PP_EIO, "writing the plan: %s", strerror(errno)) : PP_OK;
}

pp_status pp_plan_write_text(const pp_plan_report *r, FILE *out, pp_error *err)
{
    fprintf(out, "plan: %s on %s: %d replica%s x %d stage%s, %d micro-batches of %lld samples each (%s)\n", r->module,
            r->cluster, r->replicas, r->replicas == 1 ? "" : "s", r->n_stages, r->n_stages == 1 ? "" : "s",
            r->microbatches, (long long)r->micro_batch, r->schedule);
    if (r->why_one_stage)
        fprintf(out, "  one stage: %s\n", r->why_one_stage);
    fprintf(out, "  step time %.6g s by the simulator (the plan's formula: %.6g s), %.4g samples/s\n", r->step_time,
            r->model_time, r->samples_per_second);
    fprintf(out, "  lower bound %.6g s, gap %.1f%%\n", r->lower_bound, 100 * r->gap);
    if (isfinite(r->scheduled_time))
        fprintf(out, "  the order: 1F1B %.6g s by the formula, %.6g s by the simulator; the scheduler's (B and W "
                "split) %.6g s (bound %.6g s)", r->model_1f1b, r->step_1f1b, r->scheduled_time, r->scheduled_bound);
    if (isfinite(r->scheduled_time) && r->step_time < r->step_1f1b)
        fprintf(out, ", %.6g s by the simulator: taken\n", r->step_time);
    else if (isfinite(r->scheduled_time))
        fprintf(out, ": not taken (the simulator finds it no faster, or it does not fit)\n");
    fprintf(out, "  stage  units   ops         device          mesh  fwd ms   bwd ms  peak GB  send MB\n");
    for (int32_t s = 0; s < r->n_stages; s++) {
        const pp_plan_stage *S = &r->stages[s];
        char mesh[48];
        mesh_text(S, mesh, sizeof mesh);
        fprintf(out, "  %5d  %2d-%-3d %5d-%-5d %-15s %5s %7.3f %8.3f %8.3f %8.3f\n", s, S->first_unit,
                S->first_unit + S->units - 1, S->first_op, S->first_op + S->ops - 1, S->device, mesh, 1e3 * S->forward,
                1e3 * S->backward, S->peak_memory / 1e9, S->send_bytes / 1e6);
    }
    for (int32_t d = 0; d < r->n_devices; d++)
        if (r->peak_memory[d] > r->capacity[d])
            fprintf(out, "  device %d (%s): needs %.4g GB, holds %.4g GB: short by %.4g GB\n", d, r->device_type[d],
                    r->peak_memory[d] / 1e9, r->capacity[d] / 1e9, (r->peak_memory[d] - r->capacity[d]) / 1e9);
    fprintf(out, "  baselines:\n");
    for (int k = 0; k < PP_PLAN_BASELINES; k++) {
        const pp_plan_baseline *b = &r->baselines[k];
        if (b->applies)
            fprintf(out, "    %-16s %.6g s (plan %.2fx faster)\n", b->name, b->step_time, b->step_time / r->step_time);
        else
            fprintf(out, "    %-16s does not apply: %s\n", b->name ? b->name : "?", b->why);
    }
    fprintf(out, "  %d sharder runs, %d plans simulated, %.2f s\n", r->shard_calls, r->candidates, r->seconds);
    return done(out, err);
}

static json_t *stage_json(const pp_plan_report *r, const pp_plan_stage *S)
{
    json_t *axes = json_array(), *ids = json_array();
    for (int32_t a = 0; a < S->n_axes; a++)
        json_array_append_new(axes, json_integer(S->axes[a]));
    for (int32_t k = 0; k < r->replicas * S->devices; k++)
        json_array_append_new(ids, json_integer(S->device_ids[k]));
    json_t *module = S->module_text ? json_stringn(S->module_text, S->module_size) : json_null();
    return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i, s:o, s:b, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:i, "
                     "s:i, s:s?}", "first_unit",
                     S->first_unit, "units", S->units, "first_op", S->first_op, "ops", S->ops, "device", S->device,
                     "devices", S->devices, "mesh", axes, "spans_nodes", S->spans_nodes, "device_ids", ids, "forward",
                     S->forward, "backward", S->backward, "collective", S->collective, "state_bytes", S->state_bytes,
                     "activation_bytes", S->activation_bytes, "peak_memory", S->peak_memory, "send_bytes",
                     S->send_bytes, "module", module, "module_tensors", S->module_tensors, "module_annotated",
                     S->module_annotated, "order", S->order);
}

static json_t *number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

pp_status pp_plan_write_json(const pp_plan_report *r, FILE *out, pp_error *err)
{
    json_t *stages = json_array(), *devices = json_array(), *baselines = json_array();
    for (int32_t s = 0; s < r->n_stages; s++)
        json_array_append_new(stages, stage_json(r, &r->stages[s]));
    for (int32_t d = 0; d < r->n_devices; d++)
        json_array_append_new(devices, json_pack("{s:i, s:s, s:f, s:f}", "device", d, "type", r->device_type[d],
                                                 "peak_memory", r->peak_memory[d], "capacity", r->capacity[d]));
    for (int k = 0; k < PP_PLAN_BASELINES; k++) {
        const pp_plan_baseline *b = &r->baselines[k];
        json_array_append_new(baselines, b->applies ? json_pack("{s:s, s:f}", "name", b->name, "step_time", b->step_time)
                                                    : json_pack("{s:s?, s:s}", "name", b->name, "why", b->why));
    }
    json_t *doc = json_pack("{s:s, s:s, s:i, s:s?, s:b, s:I, s:I, s:i, s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, "
                            "s:o, s:i, s:i, s:f, s:o, s:o, s:o, s:o, s:o}",
                            "module", r->module, "cluster", r->cluster, "units", r->n_units, "why_one_stage",
                            r->why_one_stage, "holds_backward", r->holds_backward, "micro_batch",
                            (json_int_t)r->micro_batch, "batch", (json_int_t)r->batch,
                            "replicas", r->replicas, "microbatches", r->microbatches, "schedule", r->schedule,
                            "step_time", number(r->step_time), "model_time", number(r->model_time),
                            "samples_per_second", number(r->samples_per_second), "lower_bound",
                            number(r->lower_bound), "gap", number(r->gap), "fits", r->fits, "stages", stages,
                            "devices", devices, "baselines", baselines, "shard_calls", r->shard_calls, "candidates",
                            r->candidates, "seconds", r->seconds, "pipeline_time", number(r->pipeline_time),
                            "scheduled_time", number(r->scheduled_time), "scheduled_bound",
                            number(r->scheduled_bound), "model_1f1b", number(r->model_1f1b), "step_1f1b",
                            number(r->step_1f1b));
    if (!doc)
        return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan as JSON");
    int bad = json_dumpf(doc, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(doc);
    return bad ? pp_error_set(err, PP_EIO, "writing the plan: %s", strerror(errno)) : done(out, err);
}
