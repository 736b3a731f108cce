/* solve.c: the plan's pipeline as one library call (pp_plan): load the
 * module (the sharder's reader and analysis) and the cluster (its
 * reader), the units, the device types and meshes, every unit kind
 * sharded on every mesh, the stage search, the judged plans' stages
 * sharded whole, the judge on the best candidates and the baselines, the
 * scheduler's order of the best one's pipeline, judged and taken where it
 * is faster than 1F1B, the report, each stage's module, the independent
 * check.
 * DESIGN.md ("Planning a module on a cluster") gives the shape and the
 * time budget. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/timeline_internal.h"
#include "plan/plan_internal.h"

/* The judge sees this many of the search's candidates, best first. */
#define JUDGED 8

void pp_plan_request_default(pp_plan_request *r)
{
    memset(r, 0, sizeof *r);
    r->time_limit = 60;
    r->seed = 1;
}

static pp_status load(plan_ctx *X, pp_error *err)
{
    const pp_plan_request *r = X->req;
    pp_status st = pp_hw_catalog_builtin(&X->catalog, err);
    if (st == PP_OK && r->cluster_text)
        st = pp_cluster_load_buffer(r->cluster_name ? r->cluster_name : "cluster", r->cluster_text, r->cluster_size,
                                    X->catalog, &X->cluster, err);
    else if (st == PP_OK && r->cluster_path)
        st = pp_cluster_load(r->cluster_path, X->catalog, &X->cluster, err);
    else if (st == PP_OK)
        st = pp_error_set(err, PP_EARG, "no cluster given");
    if (st == PP_OK && r->module_text) {
        X->text = r->module_text;
        X->text_size = r->module_size;
        st = pp_shard_analysis_parse(r->module_name ? r->module_name : "module", r->module_text, r->module_size,
                                     &X->a, err);
    } else if (st == PP_OK && r->module_path) {
        /* the text is kept: the stages' modules are written from it */
        st = pp_read_text_file(r->module_path, &X->owned_text, &X->text_size, err);
        X->text = X->owned_text;
        if (st == PP_OK)
            st = pp_shard_analysis_parse(r->module_path, X->text, X->text_size, &X->a, err);
    } else if (st == PP_OK)
        st = pp_error_set(err, PP_EARG, "no module given");
    return st;
}

/* Samples per module call (its batch color's size, 1 without one) and
 * calls per step. */
static pp_status batches(plan_ctx *X, pp_error *err)
{
    int32_t color = pp_shard_batch_color(X->a.nda);
    X->micro_batch = color >= 0 && X->a.nda->colors[color].size > 0 ? X->a.nda->colors[color].size : 1;
    int64_t batch = X->req->batch > 0 ? X->req->batch : X->micro_batch * 2 * X->cluster->device_count;
    if (batch % X->micro_batch != 0)
        return pp_error_set(err, PP_EARG, "batch %lld: not a multiple of the module's batch %lld (one call)",
                            (long long)batch, (long long)X->micro_batch);
    X->n_micro = batch / X->micro_batch;
    if (X->n_micro > (1 << 20))
        return pp_error_set(err, PP_EARG, "batch %lld: more than 2^20 module calls a step", (long long)batch);
    if (X->req->microbatches < 0 || (X->req->microbatches > 0 && X->n_micro % X->req->microbatches != 0))
        return pp_error_set(err, PP_EARG, "microbatches %d: must divide the step's %lld module calls",
                            X->req->microbatches, (long long)X->n_micro);
    return PP_OK;
}

/* The least step time any plan could have under the cost model: every
 * device computing all the time, the work split by speed (a unit sharded
 * over t devices takes at least 1/t of its one-device time, op by op). */
static double lower_bound(const plan_ctx *X)
{
    double rate = 0;
    for (int32_t t = 0; t < X->n_types; t++) {
        int32_t k = 0;
        while (k < X->n_meshes && !(X->meshes[k].type == t && X->meshes[k].devices == 1))
            k++;
        double work = 0;
        for (int32_t u = 0; u < X->n_units; u++) {
            const plan_cost *c = &X->cost[(size_t)X->units[u].kind * (size_t)X->n_meshes + (size_t)k];
            work += c->forward + c->backward - 2 * c->collective;
        }
        rate += X->types[t].count / work;
    }
    return (double)X->n_micro / rate;
}

/* How far plan with these peaks is from fitting: the largest share by
 * which a device's peak exceeds its capacity (0 when it fits). */
static double overflow(const plan_ctx *X, const double *peak)
{
    double worst = 0;
    for (int d = 0; d < X->cluster->device_count; d++) {
        const pp_hw_device_type *t = X->cluster->nodes[X->cluster->device_node[d]].type;
        double cap = X->req->memory > 0 ? X->req->memory : t->memory_bytes;
        worst = fmax(worst, (peak[d] - cap) / cap);
    }
    return worst;
}

/* A stage's ops as the report states them: "F0 F1 B0 W0 ..." */
static const char *order_text(pp_arena *a, const pp_cluster_op *ops, int32_t n)
{
    char *text = pp_arena_alloc(a, (size_t)n * 12 + 1), *at = text;
    for (int32_t k = 0; text && k < n; k++)
        at += sprintf(at, "%s%c%d", k ? " " : "", "FBW"[ops[k].kind], ops[k].micro);
    return text;
}

static pp_status fill_stages(const plan_ctx *X, const plan_candidate *c, const plan_order *order,
                             pp_plan_report *out, pp_error *err)
{
    pp_arena *a = out->arena;
    int32_t *offset = pp_arena_alloc(a, ((size_t)c->P + 1) * sizeof *offset);
    if (!offset)
        return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
    plan_stage_offsets(X, c, offset);
    int32_t members = offset[c->P];
    int32_t *ids = pp_arena_alloc(a, (size_t)c->R * (size_t)members * sizeof *ids);
    out->stages = pp_arena_calloc(a, (size_t)c->P, sizeof *out->stages);
    if (!ids || !out->stages)
        return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
    pp_status st = plan_assign_devices(X, c, ids, err);
    out->n_stages = c->P;
    for (int32_t s = 0; s < c->P && st == PP_OK; s++) {
        const plan_mesh *m = &X->meshes[c->mesh[s]];
        pp_plan_stage *S = &out->stages[s];
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        const plan_unit *u0 = &X->units[c->cut[s]], *u1 = &X->units[c->cut[s + 1] - 1];
        *S = (pp_plan_stage){.first_unit = c->cut[s], .units = c->cut[s + 1] - c->cut[s], .first_op = u0->first,
                             .ops = u1->first + u1->count - u0->first, .device = out->device_type[X->types[m->type].ids[0]],
                             .devices = m->devices, .n_axes = m->n_axes, .spans_nodes = m->spans,
                             .forward = sc.forward, .backward = sc.backward + sc.sync / c->M,
                             .collective = sc.collective, .state_bytes = sc.state,
                             .activation_bytes = sc.activations,
                             .peak_memory = plan_stage_memory(&sc, order ? order->held[s]
                                                                  : c->P - s < c->M ? c->P - s : c->M),
                             .send_bytes = s + 1 < c->P ? X->send[c->cut[s + 1] - 1] : 0};
        memcpy(S->axes, m->axes, sizeof S->axes);
        if (order && !(S->order = order_text(a, order->ops[s], 3 * c->M)))
            return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
        S->device_ids = pp_arena_alloc(a, (size_t)c->R * (size_t)m->devices * sizeof *S->device_ids);
        if (!S->device_ids)
            return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
        for (int32_t r = 0; r < c->R; r++)
            for (int32_t j = 0; j < m->devices; j++)
                S->device_ids[r * m->devices + j] = ids[r * members + offset[s] + j];
    }
    if (st == PP_OK)
        out->model_1f1b = plan_model_time(X, c, ids, &out->pipeline_time);
    out->model_time = order ? out->scheduled_time : out->model_1f1b;
    return st;
}

/* The scheduler's order of c's pipeline into *order, and its makespan and
 * bound into out; *taken when the judge finds it faster than 1F1B's
 * *step, within the room 1F1B's plan leaves (over: its overflow): *step
 * and peak are then its. */
static pp_status try_order(const plan_ctx *X, const plan_candidate *c, double *step, double *peak, double over,
                           plan_order *order, bool *taken, pp_plan_report *out, pp_error *err)
{
    int32_t *offset = malloc(((size_t)c->P + 1) * sizeof *offset);
    if (!offset)
        return pp_error_set(err, PP_ENOMEM, "out of memory ordering the plan");
    plan_stage_offsets(X, c, offset);
    size_t members = (size_t)offset[c->P], dc = (size_t)X->cluster->device_count;
    int32_t *ids = malloc((size_t)c->R * members * sizeof *ids);
    double *hop = malloc((size_t)2 * c->P * sizeof *hop), *tail = hop + c->P, *mine = malloc(dc * sizeof *mine);
    pp_status st = ids && hop && mine ? plan_assign_devices(X, c, ids, err)
                                      : pp_error_set(err, PP_ENOMEM, "out of memory ordering the plan");
    if (st == PP_OK && (!plan_hops(X, c, ids, hop) || !plan_tails(X, c, ids, tail)))
        st = pp_error_set(err, PP_ENOMEM, "out of memory ordering the plan");
    if (st == PP_OK)
        st = plan_schedule(X, c, hop, tail, plan_share(X, PLAN_SHARE_SCHEDULE), &out->scheduled_time,
                           &out->scheduled_bound, order, err);
    double t = INFINITY;
    *taken = false;
    if (st == PP_OK && order->ops)
        st = plan_judge(X, c, order, &t, mine, NULL, err);
    if (st == PP_OK && t < *step && overflow(X, mine) <= fmax(0, over)) {
        *taken = true;
        *step = t;
        memcpy(peak, mine, dc * sizeof *mine);
    }
    free(offset);
    free(ids);
    free(hop);
    free(mine);
    return st;
}

static pp_status report(const plan_ctx *X, const plan_candidate *c, const plan_order *order, double step,
                        const double *peak, pp_plan_report *out, pp_error *err)
{
    const pp_cluster *cl = X->cluster;
    out->n_units = X->n_units;
    /* the reason lives with the plan's context: the report keeps a copy */
    out->why_one_stage = X->why_one_stage ? pp_arena_strdup(out->arena, X->why_one_stage) : NULL;
    out->holds_backward = X->holds_backward;
    out->micro_batch = X->micro_batch;
    out->batch = X->n_micro * X->micro_batch;
    out->replicas = c->R;
    out->microbatches = c->M;
    out->schedule = order ? "scheduled F/B/W" : "1F1B";
    out->step_time = step;
    out->samples_per_second = (double)out->batch / step;
    out->lower_bound = lower_bound(X);
    out->gap = step / out->lower_bound - 1;
    out->n_devices = cl->device_count;
    out->shard_calls = X->shard_calls;
    out->peak_memory = pp_arena_alloc(out->arena, (size_t)cl->device_count * sizeof *out->peak_memory);
    out->capacity = pp_arena_alloc(out->arena, (size_t)cl->device_count * sizeof *out->capacity);
    out->device_type = pp_arena_alloc(out->arena, (size_t)cl->device_count * sizeof *out->device_type);
    if (!out->peak_memory || !out->capacity || !out->device_type || (X->why_one_stage && !out->why_one_stage))
        return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
    out->fits = true;
    for (int d = 0; d < cl->device_count; d++) {
        const pp_hw_device_type *t = cl->nodes[cl->device_node[d]].type;
        out->peak_memory[d] = peak[d];
        out->capacity[d] = X->req->memory > 0 ? X->req->memory : t->memory_bytes;
        /* the catalog goes with the plan's context: the report keeps copies */
        out->device_type[d] = d > 0 && cl->nodes[cl->device_node[d - 1]].type == t ? out->device_type[d - 1]
                                                                                     : pp_arena_strdup(out->arena, t->name);
        if (!out->device_type[d])
            return pp_error_set(err, PP_ENOMEM, "out of memory writing the plan");
        out->fits &= peak[d] <= out->capacity[d];
    }
    return fill_stages(X, c, order, out, err);
}

/* The judge over the search's best candidates and the baselines': the
 * fastest that fits, or when none does (room), the one closest to
 * fitting. */
static pp_status choose(plan_ctx *X, plan_candidate *cands, int32_t n, bool room, pp_plan_report *out,
                        pp_error *err)
{
    int dc = X->cluster->device_count;
    double *peak = calloc((size_t)dc, sizeof *peak), *best_peak = calloc((size_t)dc, sizeof *best_peak);
    plan_candidate pool[JUDGED + PP_PLAN_BASELINES];
    bool has[PP_PLAN_BASELINES];
    if (!peak || !best_peak) {
        free(peak);
        free(best_peak);
        return pp_error_set(err, PP_ENOMEM, "out of memory judging plans");
    }
    memcpy(pool, cands, (size_t)n * sizeof *cands);
    plan_baselines(X, out->baselines, pool + n, has);
    int32_t total = n;
    for (int k = 0; k < PP_PLAN_BASELINES; k++)
        if (has[k] && (room || out->baselines[k].applies))
            pool[total++] = pool[n + k];
    plan_candidate best = {0};
    double best_time = INFINITY, best_over = INFINITY;
    pp_status st = PP_OK;
    for (int32_t k = 0; k < total && st == PP_OK; k++) {
        double t;
        st = plan_judge(X, &pool[k], NULL, &t, peak, NULL, err);
        out->candidates++;
        /* fitting plans first (a stage sharded whole may hold more than its
         * units' sum did), the fastest of them; else the closest to fitting */
        double over = fmax(0, overflow(X, peak));
        if (st == PP_OK && (over < best_over || (over == best_over && t < best_time))) {
            best_time = t;
            best_over = over;
            best = pool[k];
            memcpy(best_peak, peak, (size_t)dc * sizeof *peak);
        }
    }
    if (st == PP_OK && isinf(best_time))
        st = pp_error_set(err, PP_INFEASIBLE, "no plan could be judged");
    plan_order order = {0};
    bool ordered = false;
    out->step_1f1b = best_time;
    if (st == PP_OK)
        st = try_order(X, &best, &best_time, best_peak, best_over, &order, &ordered, out, err);
    if (st == PP_OK) {
        /* once more for the picture: the same plan, the same step */
        char title[160];
        snprintf(title, sizeof title, "%s on %s", X->a.module->file, X->cluster->name);
        out->timeline = pp_timeline_new(title, 1e6);
        st = out->timeline ? plan_judge(X, &best, ordered ? &order : NULL, &best_time, best_peak, out->timeline, err)
                           : pp_error_set(err, PP_ENOMEM, "out of memory for the plan's timeline");
    }
    if (st == PP_OK)
        st = report(X, &best, ordered ? &order : NULL, best_time, best_peak, out, err);
    if (st == PP_OK)
        st = plan_stage_modules(X, &best, out, err);
    free(peak);
    free(best_peak);
    return st;
}

pp_status plan_prepare(plan_ctx *X, const pp_plan_request *r, pp_error *err)
{
    memset(X, 0, sizeof *X);
    X->req = r;
    X->deadline = pp_deadline_in(r->time_limit > 0 ? r->time_limit : 60); /* reading included */
    X->deadline.stop = r->stop;
    X->arena = pp_arena_new(1 << 16);
    if (!X->arena)
        return pp_error_set(err, PP_ENOMEM, "out of memory starting a plan");
    pp_status st = load(X, err);
    if (st == PP_OK)
        st = batches(X, err);
    if (st == PP_OK)
        st = plan_units(X, err);
    if (st == PP_OK)
        st = plan_types(X, err);
    if (st == PP_OK)
        st = plan_costs(X, err);
    return st;
}

void plan_release(plan_ctx *X)
{
    free(X->stages);
    free(X->owned_text);
    pp_shard_analysis_free(&X->a);
    pp_cluster_meshes_free(&X->groups);
    pp_cluster_free(X->cluster);
    pp_hw_catalog_free(X->catalog);
    pp_arena_free(X->arena);
    memset(X, 0, sizeof *X);
}

pp_status pp_plan(const pp_plan_request *r, pp_plan_report *out, pp_error *err)
{
    double start = pp_now();
    memset(out, 0, sizeof *out);
    pp_status checked = pp_plan_request_check(r, err);
    if (checked != PP_OK)
        return checked;
    out->arena = pp_arena_new(1 << 14);
    if (!out->arena)
        return pp_error_set(err, PP_ENOMEM, "out of memory starting a plan");
    plan_ctx X;
    pp_status st = plan_prepare(&X, r, err);
    if (X.a.module)
        out->module = pp_arena_strdup(out->arena, X.a.module->file);
    if (X.cluster)
        out->cluster = pp_arena_strdup(out->arena, X.cluster->name);
    plan_candidate cands[JUDGED];
    int32_t n = 0;
    bool fits = true;
    pp_deadline search = pp_deadline_within(&X.deadline, plan_share(&X, PLAN_SHARE_SEARCH));
    if (st == PP_OK && (n = plan_search(&X, true, &search, cands, JUDGED)) == 0) {
        fits = false;
        n = plan_search(&X, false, &search, cands, JUDGED);
    }
    if (st == PP_OK && n > 0) {
        pp_deadline until = pp_deadline_within(&X.deadline, plan_share(&X, PLAN_SHARE_STAGES));
        st = plan_reshard(&X, cands, n, &until, err);
    }
    if (st == PP_OK && n == 0)
        st = pp_error_set(err, PP_INFEASIBLE, "%s on %s: no plan: no replica count divides both the devices of each "
                          "type and the step's %lld module calls%s", X.a.module->file, X.cluster->name,
                          (long long)X.n_micro, r->microbatches > 0 ? " with the micro-batches asked for" : "");
    if (st == PP_OK)
        st = choose(&X, cands, n, !fits, out, err);
    /* the independent check: a report that fails it is never handed out as right */
    if (st == PP_OK)
        st = pp_plan_check(out, err);
    if (st == PP_OK && (!fits || !out->fits)) {
        out->fits = false;
        st = pp_error_set(err, PP_INFEASIBLE, "%s does not fit %s's memory: even the plan closest to fitting "
                          "needs more than some devices hold (the report lists each device's peak and capacity)",
                          X.a.module->file, X.cluster->name);
    }
    out->seconds = pp_now() - start;
    plan_release(&X);
    return st;
}

void pp_plan_report_free(pp_plan_report *report)
{
    pp_timeline_free(report->timeline);
    pp_arena_free(report->arena);
    memset(report, 0, sizeof *report);
}
