/* report.c: the report of a sharding plan (shard_report.h): the rows are
 * priced here, in the library, so that the CLI and the Python module show
 * the same figures; the writers give it as text or JSON. */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "parplan/shard_report.h"
#include "shard/request_internal.h"
#include "shard/shard_internal.h"

static void baseline_row(pp_shard_report_row *row, const char *name, const pp_shard_report *r,
                         pp_status (*make)(const pp_shard_nda *, const pp_shard_mesh *, pp_shard_state *, pp_error *))
{
    pp_error err = {0};
    pp_shard_state s;
    row->name = name;
    pp_status st = make(r->nda, r->mesh, &s, &err);
    if (st == PP_OK)
        st = pp_shard_cost_eval(r->nda->flat, r->nda, r->mesh, &s, &row->cost, &err);
    pp_shard_state_free(&s);
    row->ok = st == PP_OK;
    if (!row->ok)
        snprintf(row->note, sizeof row->note, "%s", err.message);
}

/* FSDP is a layout (stored sharded, used whole), not a set of actions. */
static void fsdp_row(pp_shard_report_row *row, const pp_shard_report *r)
{
    pp_error err = {0};
    row->name = "fsdp";
    uint8_t *axes = calloc((size_t)r->nda->n_names + 1, 1);
    pp_status st = axes ? pp_shard_baseline_fsdp(r->nda, r->mesh, axes, &err)
                        : pp_error_set(&err, PP_ENOMEM, "fsdp: out of memory");
    if (st == PP_OK)
        st = pp_shard_cost_eval_layout(r->nda->flat, r->nda, r->mesh, axes, &row->cost, &err);
    row->ok = st == PP_OK;
    if (!row->ok)
        snprintf(row->note, sizeof row->note, "%s", err.message);
    free(axes);
}

static pp_status unsharded_row(pp_shard_report_row *row, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                               pp_error *err)
{
    uint8_t *none = calloc((size_t)nda->n_names + 1, 1);
    if (!none)
        return pp_error_set(err, PP_ENOMEM, "report: out of memory");
    row->name = "unsharded";
    pp_status st = pp_shard_cost_eval_layout(nda->flat, nda, mesh, none, &row->cost, err);
    row->ok = st == PP_OK;
    free(none);
    return st;
}

static void candidate_row(pp_shard_report_row *row, const char *name, const pp_shard_cost *cost, const char *absent)
{
    row->name = name;
    row->ok = cost != NULL;
    if (cost)
        row->cost = *cost;
    else
        snprintf(row->note, sizeof row->note, "%s", absent);
}

pp_status pp_shard_report_build(pp_shard_report *r, const char *model, const char *mesh_text, const pp_shard_nda *nda,
                             const pp_shard_mesh *mesh, const pp_shard_plan_result *plan, pp_error *err)
{
    memset(r, 0, sizeof *r);
    r->model = model;
    r->mesh_text = mesh_text;
    r->nda = nda;
    r->mesh = mesh;
    r->memory = plan->memory;
    r->search = plan->has_search ? &plan->search : NULL;
    r->bridge = plan->has_bridge ? &plan->bridge : NULL;
    pp_status st = unsharded_row(&r->rows[PP_SHARD_ROW_UNSHARDED], nda, mesh, err);
    baseline_row(&r->rows[PP_SHARD_ROW_DATA_PARALLEL], "data parallel", r, pp_shard_baseline_data_parallel);
    baseline_row(&r->rows[PP_SHARD_ROW_MEGATRON], "megatron", r, pp_shard_baseline_megatron);
    baseline_row(&r->rows[PP_SHARD_ROW_COMBINED], "data parallel + megatron", r, pp_shard_baseline_combined);
    baseline_row(&r->rows[PP_SHARD_ROW_EXPERT], "expert parallel", r, pp_shard_baseline_expert);
    fsdp_row(&r->rows[PP_SHARD_ROW_FSDP], r);
    candidate_row(&r->rows[PP_SHARD_ROW_MCTS], "MCTS search", r->search ? &r->search->cost : NULL, "not run (--search)");
    candidate_row(&r->rows[PP_SHARD_ROW_IOPDDL], "IOPDDL bridge", r->bridge ? &r->bridge->cost : NULL, "not run (--search)");
    r->chosen = plan->chosen == PP_SHARD_FROM_MCTS ? PP_SHARD_ROW_MCTS : PP_SHARD_ROW_IOPDDL;
    r->axes = plan->axes;
    r->tie_break = plan->tie_break;
    return st;
}

static const char *time_text(double seconds, char *buf, size_t size);

static const char *collective_names[PP_SHARD_COLLECTIVE_KINDS] = {"all_reduce", "reduce_scatter", "all_gather",
                                                                   "all_to_all", "halo_exchange"};

static void write_step(const pp_shard_report *r, const pp_shard_search_step *s, FILE *out)
{
    const pp_shard_nda_color *c = &r->nda->colors[s->color];
    fprintf(out, "  color %d (size %lld, %d dimensions", (int)s->color, (long long)c->size, (int)s->n_dims);
    if (s->n_colors > 1)
        fprintf(out, ", mirrored over %d layers", (int)s->n_colors);
    fprintf(out, ") over axis %s\n", r->mesh->names[s->axis]);
}

static void write_collectives(const pp_shard_cost *c, FILE *out)
{
    bool any = false;
    for (int k = 0; k < PP_SHARD_COLLECTIVE_KINDS; k++)
        if (c->collectives[k]) {
            char b[32];
            fprintf(out, "%s%d %s (%s)", any ? ", " : "", (int)c->collectives[k], collective_names[k],
                    pp_shard_bytes_text(c->collective_bytes[k], b, sizeof b));
            any = true;
        }
    fputs(any ? "\n" : "none\n", out);
}

/* "12.3 us", "4.56 ms", "1.23 s": three significant figures at any scale. */
static const char *time_text(double seconds, char *buf, size_t size)
{
    if (seconds < 1e-3)
        snprintf(buf, size, "%.3g us", seconds * 1e6);
    else if (seconds < 1)
        snprintf(buf, size, "%.3g ms", seconds * 1e3);
    else
        snprintf(buf, size, "%.3g s", seconds);
    return buf;
}

const char *pp_shard_bytes_text(double bytes, char *buf, size_t size)
{
    static const char *units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        u++;
    }
    snprintf(buf, size, "%.3g %s", bytes, units[u]);
    return buf;
}

static void write_row(const pp_shard_report *r, int k, FILE *out)
{
    const pp_shard_report_row *row = &r->rows[k];
    if (!row->ok) {
        fprintf(out, "  %-26s does not apply: %s\n", row->name, row->note);
        return;
    }
    const pp_shard_cost *c = &row->cost, *u = &r->rows[PP_SHARD_ROW_UNSHARDED].cost;
    char t[32], m[32];
    fprintf(out, "%s %-26s %10s %8.2fx %10s%s  ", k == r->chosen ? "*" : " ", row->name, time_text(c->runtime, t, sizeof t),
            u->runtime / c->runtime, pp_shard_bytes_text(c->peak_memory, m, sizeof m),
            c->peak_memory > r->memory ? " (over)" : "       ");
    write_collectives(c, out);
}

/* Tensor t of the NDA as a JAX PartitionSpec: P(None, 'm'), P(('b', 'm'),). */
static void write_spec(const pp_shard_report *r, int32_t t, FILE *out)
{
    const pp_shard_nda_tensor *T = &r->nda->tensors[t];
    fputs("P(", out);
    for (int32_t d = 0; d < T->rank; d++) {
        uint8_t mask = r->axes[T->first + d];
        int n = 0;
        for (int32_t a = 0; a < r->mesh->n_axes; a++)
            n += (mask >> a) & 1;
        fputs(d ? ", " : "", out);
        fputs(n == 0 ? "None" : n > 1 ? "(" : "", out);
        for (int32_t a = 0, k = 0; a < r->mesh->n_axes; a++)
            if (mask & (1u << a))
                fprintf(out, "%s'%s'", k++ ? ", " : "", r->mesh->names[a]);
        fputs(n > 1 ? ")" : "", out);
    }
    fputs(T->rank == 1 ? ",)" : ")", out);
}

static bool is_sharded(const pp_shard_report *r, int32_t t)
{
    const pp_shard_nda_tensor *T = &r->nda->tensors[t];
    for (int32_t d = 0; d < T->rank; d++)
        if (r->axes[T->first + d])
            return true;
    return false;
}

/* The entry's sharded arguments and results; the rest are replicated. */
static void write_shardings(const pp_shard_report *r, FILE *out)
{
    const pp_shard_flat *flat = r->nda->flat;
    const pp_shard_func *entry = &flat->module->funcs[flat->module->entry];
    int32_t shown = 0;
    for (int32_t k = 0; k < flat->n_inputs; k++)
        if (is_sharded(r, k)) {
            fprintf(out, "%s%%%s ", shown++ % 4 ? "  " : "\n  ", entry->values[k].name);
            write_spec(r, k, out);
        }
    for (int32_t k = 0; k < flat->n_outputs; k++)
        if (is_sharded(r, r->nda->out_use + k)) {
            fprintf(out, "%sresult %d ", shown++ % 4 ? "  " : "\n  ", (int)k);
            write_spec(r, r->nda->out_use + k, out);
        }
    fprintf(out, "%s(%d of %d arguments and results sharded, the others replicated)\n", shown ? "\n  " : "  ",
            (int)shown, (int)(flat->n_inputs + flat->n_outputs));
}

static void write_searches(const pp_shard_report *r, FILE *out)
{
    const pp_shard_search_result *s = r->search;
    const pp_shard_bridge_plan *b = r->bridge;
    char t[32];
    if (s)
        fprintf(out, "MCTS: %d actions, %d rounds, %d tree nodes, %d polish steps, %lld evaluations, %.2f s%s\n",
                (int)s->n_actions, (int)s->rounds, (int)s->tree_nodes, (int)s->polish_steps,
                (long long)s->evaluations, s->seconds, s->timed_out ? " (stopped by the timeout)" : "");
    if (b && r->solution)
        fprintf(out, "IOPDDL: the solution %s, cost %lld ps (%s)%s\n", r->solution, (long long)b->iopddl_cost,
                time_text((double)b->iopddl_cost * 1e-12, t, sizeof t), b->feasible ? "" : ", over the usage limit");
    else if (b)
        fprintf(out, "IOPDDL bridge: %u nodes, %u edges, cost %lld ps (%s)%s%s, %.2f s\n", b->nodes, b->edges,
                (long long)b->iopddl_cost, time_text((double)b->iopddl_cost * 1e-12, t, sizeof t),
                b->feasible ? "" : ", over the usage limit", b->proven_optimal ? ", optimal among its strategies" : "",
                b->seconds);
}

pp_status pp_shard_report_write_text(const pp_shard_report *r, FILE *out, pp_error *err)
{
    char m[32];
    fprintf(out, "%s on mesh %s: %lld x %s, %s per device\n", r->model, r->mesh_text,
            (long long)pp_shard_mesh_devices(r->mesh), r->mesh->device->name, pp_shard_bytes_text(r->memory, m, sizeof m));
    write_searches(r, out);
    if (r->chosen == PP_SHARD_ROW_MCTS) {
        fprintf(out, "plan: the MCTS search's, %d action%s\n", (int)r->search->n_steps,
                r->search->n_steps == 1 ? "" : "s");
        for (int32_t k = 0; k < r->search->n_steps; k++)
            write_step(r, &r->search->steps[k], out);
    } else {
        fprintf(out, "plan: the IOPDDL bridge's\n");
    }
    if (r->tie_break) {
        const pp_shard_cost *won = &r->rows[r->chosen].cost;
        const pp_shard_cost *lost = &r->rows[r->chosen == PP_SHARD_ROW_MCTS ? PP_SHARD_ROW_IOPDDL : PP_SHARD_ROW_MCTS].cost;
        char t1[32], t2[32], m1[32], m2[32];
        fprintf(out, "  (chosen for memory: %s and %s per device against %s and %s, times within %.1f%%)\n",
                time_text(won->runtime, t1, sizeof t1), pp_shard_bytes_text(won->peak_memory, m1, sizeof m1),
                time_text(lost->runtime, t2, sizeof t2), pp_shard_bytes_text(lost->peak_memory, m2, sizeof m2),
                100 * PP_SHARD_TIME_TIE);
    }
    const pp_shard_cost *plan = &r->rows[r->chosen].cost;
    if (plan->peak_memory > r->memory) {
        char need[32], over[32];
        fprintf(out, "  no plan found fits: the best needs %s per device, %s (%.1f%%) over the limit\n",
                pp_shard_bytes_text(plan->peak_memory, need, sizeof need),
                pp_shard_bytes_text(plan->peak_memory - r->memory, over, sizeof over),
                100 * (plan->peak_memory - r->memory) / r->memory);
    }
    fputs("shardings (as JAX PartitionSpecs over the mesh axes):", out);
    write_shardings(r, out);
    fprintf(out, "  %-26s %10s %9s %10s         %s\n", "", "time/step", "speed-up", "peak/device", "collectives");
    for (int k = 0; k < PP_SHARD_REPORT_ROWS; k++)
        write_row(r, k, out);
    if (r->out)
        fprintf(out, "module: %s annotates %d of the plan's %d tensors with their layout (read back and checked), "
                     "%d function copies\n",
                r->out, (int)r->written.annotated, (int)r->written.tensors, (int)r->written.copies);
    return fflush(out) == 0 ? PP_OK : pp_error_set(err, PP_EIO, "stdout: write failed");
}

static json_t *cost_json(const pp_shard_report *r, const pp_shard_report_row *row)
{
    if (!row->ok)
        return json_pack("{s:s}", "error", row->note);
    const pp_shard_cost *c = &row->cost;
    json_t *coll = json_object();
    for (int k = 0; k < PP_SHARD_COLLECTIVE_KINDS; k++)
        json_object_set_new(coll, collective_names[k], json_pack("{s:i, s:f}", "count", (json_int_t)c->collectives[k],
                                                                 "bytes", c->collective_bytes[k]));
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:b, s:o}", "time", c->runtime, "compute_time", c->compute_time,
                     "collective_time", c->collective_time, "flops", c->flops, "peak_memory", c->peak_memory,
                     "fits", c->peak_memory <= r->memory, "collectives", coll);
}

static json_t *steps_json(const pp_shard_report *r)
{
    json_t *steps = json_array();
    for (int32_t k = 0; r->chosen == PP_SHARD_ROW_MCTS && k < r->search->n_steps; k++) {
        const pp_shard_search_step *s = &r->search->steps[k];
        json_array_append_new(steps, json_pack("{s:i, s:I, s:i, s:i, s:s}", "color", (int)s->color, "size",
                                               (json_int_t)r->nda->colors[s->color].size, "layers", (int)s->n_colors,
                                               "dimensions", (int)s->n_dims, "axis", r->mesh->names[s->axis]));
    }
    return steps;
}

/* Per dimension of tensor t, the names of the axes sharding it. */
static json_t *spec_json(const pp_shard_report *r, int32_t t)
{
    const pp_shard_nda_tensor *T = &r->nda->tensors[t];
    json_t *spec = json_array();
    for (int32_t d = 0; d < T->rank; d++) {
        json_t *axes = json_array();
        for (int32_t a = 0; a < r->mesh->n_axes; a++)
            if (r->axes[T->first + d] & (1u << a))
                json_array_append_new(axes, json_string(r->mesh->names[a]));
        json_array_append_new(spec, axes);
    }
    return spec;
}

static json_t *shardings_json(const pp_shard_report *r)
{
    const pp_shard_flat *flat = r->nda->flat;
    const pp_shard_func *entry = &flat->module->funcs[flat->module->entry];
    json_t *args = json_array(), *results = json_array();
    for (int32_t k = 0; k < flat->n_inputs; k++)
        json_array_append_new(args, json_pack("{s:s, s:o}", "name", entry->values[k].name, "spec", spec_json(r, k)));
    for (int32_t k = 0; k < flat->n_outputs; k++)
        json_array_append_new(results, spec_json(r, r->nda->out_use + k));
    return json_pack("{s:o, s:o}", "arguments", args, "results", results);
}

/* Every tensor the plan fixes: the entry's arguments, then each tensor an op
 * defines (labelled as --explain labels values), then the entry's results. */
static json_t *tensors_json(const pp_shard_report *r)
{
    const pp_shard_flat *flat = r->nda->flat;
    json_t *list = json_array();
    char label[200];
    for (int32_t v = 0; v < flat->n_values; v++)
        if (flat->values[v].type.rank >= 0)
            json_array_append_new(list, json_pack("{s:s, s:o}", "tensor",
                                                  pp_shard_value_label(flat, v, label, sizeof label), "spec",
                                                  spec_json(r, v)));
    for (int32_t k = 0; k < flat->n_outputs; k++) {
        snprintf(label, sizeof label, "result %d", (int)k);
        json_array_append_new(list, json_pack("{s:s, s:o}", "tensor", label, "spec", spec_json(r, r->nda->out_use + k)));
    }
    return list;
}

static json_t *written_json(const pp_shard_report *r)
{
    if (!r->out)
        return json_null();
    return json_pack("{s:s, s:i, s:i, s:i}", "file", r->out, "tensors", (int)r->written.tensors, "annotated",
                     (int)r->written.annotated, "copies", (int)r->written.copies);
}

static json_t *mcts_json(const pp_shard_search_result *s)
{
    if (!s)
        return json_null();
    return json_pack("{s:i, s:i, s:I, s:i, s:i, s:f, s:b}", "actions", (int)s->n_actions, "rounds", (int)s->rounds,
                     "evaluations", (json_int_t)s->evaluations, "tree_nodes", (int)s->tree_nodes, "polish_steps",
                     (int)s->polish_steps, "seconds", s->seconds, "timed_out", s->timed_out);
}

static json_t *iopddl_json(const pp_shard_report *r)
{
    const pp_shard_bridge_plan *b = r->bridge;
    if (!b)
        return json_null();
    json_t *j = json_pack("{s:f, s:b, s:b, s:f, s:i, s:i}", "cost_ps", (double)b->iopddl_cost, "feasible", b->feasible,
                          "proven_optimal", b->proven_optimal, "seconds", b->seconds, "nodes", (int)b->nodes, "edges",
                          (int)b->edges);
    if (r->solution)
        json_object_set_new(j, "solution", json_string(r->solution));
    return j;
}

pp_status pp_shard_report_write_json(const pp_shard_report *r, FILE *out, pp_error *err)
{
    json_t *baselines = json_object(), *candidates = json_object();
    static const char *keys[] = {"data_parallel", "megatron", "data_parallel_megatron", "expert_parallel", "fsdp"};
    for (int k = 0; k < 5; k++)
        json_object_set_new(baselines, keys[k], cost_json(r, &r->rows[PP_SHARD_ROW_DATA_PARALLEL + k]));
    json_object_set_new(candidates, "mcts", cost_json(r, &r->rows[PP_SHARD_ROW_MCTS]));
    json_object_set_new(candidates, "iopddl", cost_json(r, &r->rows[PP_SHARD_ROW_IOPDDL]));
    json_t *plan = cost_json(r, &r->rows[r->chosen]);
    json_object_set_new(plan, "source", json_string(r->chosen == PP_SHARD_ROW_MCTS ? "mcts" : "iopddl"));
    json_object_set_new(plan, "memory_tie_break", json_boolean(r->tie_break));
    json_object_set_new(plan, "actions", steps_json(r));
    json_object_set_new(plan, "shardings", shardings_json(r));
    json_object_set_new(plan, "tensors", tensors_json(r));
    json_object_set_new(plan, "module", written_json(r));
    json_t *root = json_pack("{s:s, s:s, s:s, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "model", r->model, "mesh",
                             r->mesh_text, "device", r->mesh->device->name, "devices",
                             (json_int_t)pp_shard_mesh_devices(r->mesh), "memory", r->memory, "search",
                             mcts_json(r->search), "iopddl", iopddl_json(r), "unsharded",
                             cost_json(r, &r->rows[PP_SHARD_ROW_UNSHARDED]), "baselines", baselines, "candidates",
                             candidates, "plan", plan);
    if (!root)
        return pp_error_set(err, PP_ENOMEM, "report: out of memory");
    int bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    fputc('\n', out);
    return bad == 0 && fflush(out) == 0 ? PP_OK : pp_error_set(err, PP_EIO, "stdout: write failed");
}
