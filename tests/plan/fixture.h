/* fixture.h: the plan tests' inputs, made here: a chain of equal MLP
 * blocks (x + W2 tanh(W1 x + b)), optionally followed by one huge block of
 * the same form, as StableHLO text; small clusters as JSON; and a request
 * reading both from memory. */
#ifndef PP_TESTS_PLAN_FIXTURE_H
#define PP_TESTS_PLAN_FIXTURE_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/plan.h"
#include "plan/plan_internal.h"
#include "parplan/shard_plan.h"
#include "shard/shard_plan_internal.h"

typedef struct {
    char *text;
    size_t size, cap;
} text_buf;

static inline void put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void put(text_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->size + (size_t)n + 1 > b->cap) {
        b->cap = 2 * (b->size + (size_t)n + 1);
        b->text = realloc(b->text, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
}

/* One block reading %<in> and defining %r_<tag>, its weights args a .. a+2. */
static inline void block(text_buf *b, const char *in, const char *tag, int a, int B, int H, int F)
{
    put(b, "    %%d1_%s = stablehlo.dot_general %s, %%arg%d, contracting_dims = [1] x [0] : (tensor<%dx%dxf32>, "
           "tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n", tag, in, a, B, H, H, F, B, F);
    put(b, "    %%bb_%s = stablehlo.broadcast_in_dim %%arg%d, dims = [1] : (tensor<%dxf32>) -> tensor<%dx%dxf32>\n",
        tag, a + 1, F, B, F);
    put(b, "    %%a1_%s = stablehlo.add %%d1_%s, %%bb_%s : tensor<%dx%dxf32>\n", tag, tag, tag, B, F);
    put(b, "    %%h_%s = stablehlo.tanh %%a1_%s : tensor<%dx%dxf32>\n", tag, tag, B, F);
    put(b, "    %%d2_%s = stablehlo.dot_general %%h_%s, %%arg%d, contracting_dims = [1] x [0] : (tensor<%dx%dxf32>, "
           "tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n", tag, tag, a + 2, B, F, F, H, B, H);
    put(b, "    %%r_%s = stablehlo.add %%d2_%s, %s : tensor<%dx%dxf32>\n", tag, tag, in, B, H);
}

/* layers blocks of width H, inner F, on a batch of B; then, when huge > 0,
 * one block of inner width huge. Malloc'd text. */
static inline char *chain_module(int layers, int B, int H, int F, int huge, size_t *size)
{
    text_buf b = {0};
    int blocks = layers + (huge > 0);
    put(&b, "module @chain {\n  func.func public @main(%%arg0: tensor<%dx%dxf32>", B, H);
    for (int k = 0; k < blocks; k++) {
        int f = k < layers ? F : huge;
        put(&b, ", %%arg%d: tensor<%dx%dxf32>, %%arg%d: tensor<%dxf32>, %%arg%d: tensor<%dx%dxf32>", 3 * k + 1, H, f,
            3 * k + 2, f, 3 * k + 3, f, H);
    }
    put(&b, ") -> tensor<%dx%dxf32> {\n", B, H);
    char in[32] = "%arg0", tag[16];
    for (int k = 0; k < blocks; k++) {
        snprintf(tag, sizeof tag, "%d", k);
        block(&b, in, tag, 3 * k + 1, B, H, k < layers ? F : huge);
        snprintf(in, sizeof in, "%%r_%d", k);
    }
    put(&b, "    return %s : tensor<%dx%dxf32>\n  }\n}\n", in, B, H);
    *size = b.size;
    return b.text;
}

/* A training step of `layers` blocks as chain_module writes them: the
 * forward, then for each block the products a backward computes for its
 * two weight matrices (dW1 = x^T (W1 x + b) side, dW2 = h^T r), returned
 * after the output: a result of each matrix's type. Malloc'd text. */
static inline char *train_module(int layers, int B, int H, int F, size_t *size)
{
    size_t fs;
    char *fwd = chain_module(layers, B, H, F, 0, &fs);
    text_buf b = {0};
    /* the forward's signature with the gradients' types added to its result */
    char *arrow = strstr(fwd, ") -> ");
    put(&b, "%.*s) -> (tensor<%dx%dxf32>", (int)(arrow - fwd), fwd, B, H);
    for (int k = 0; k < layers; k++)
        put(&b, ", tensor<%dx%dxf32>, tensor<%dx%dxf32>", H, F, F, H);
    put(&b, ") {\n");
    char *body = strstr(arrow, "{\n") + 2, *ret = strstr(body, "    return");
    put(&b, "%.*s", (int)(ret - body), body);
    for (int k = 0; k < layers; k++) {
        char in[32];
        snprintf(in, sizeof in, k ? "%%r_%d" : "%%arg0", k - 1);
        put(&b, "    %%g1_%d = stablehlo.dot_general %s, %%a1_%d, contracting_dims = [0] x [0] : (tensor<%dx%dxf32>, "
                "tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n", k, in, k, B, H, B, F, H, F);
        put(&b, "    %%g2_%d = stablehlo.dot_general %%h_%d, %%r_%d, contracting_dims = [0] x [0] : (tensor<%dx%dxf32>, "
                "tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n", k, k, k, B, F, B, H, F, H);
    }
    put(&b, "    return %%r_%d", layers - 1);
    for (int k = 0; k < layers; k++)
        put(&b, ", %%g1_%d, %%g2_%d", k, k);
    put(&b, " : tensor<%dx%dxf32>", B, H);
    for (int k = 0; k < layers; k++)
        put(&b, ", tensor<%dx%dxf32>, tensor<%dx%dxf32>", H, F, F, H);
    put(&b, "\n  }\n}\n");
    free(fwd);
    *size = b.size;
    return b.text;
}

/* One node of n devices of `device` joined by `link` bytes/s, latency lat. */
static inline char *one_node(const char *device, int n, double link, double lat, size_t *size)
{
    text_buf b = {0};
    put(&b, "{\"name\": \"%s-%d\", \"nodes\": [{\"name\": \"n\", \"device\": \"%s\", \"count\": %d, \"links\": "
            "[{\"class\": \"pcie\", \"bandwidth\": %g, \"latency\": %g}]}]}\n", device, n, device, n, link, lat);
    *size = b.size;
    return b.text;
}

static inline pp_plan_request request(const char *module, size_t module_size, const char *cluster, size_t cluster_size)
{
    pp_plan_request r;
    pp_plan_request_default(&r);
    r.module_name = "chain.mlir";
    r.module_text = module;
    r.module_size = module_size;
    r.cluster_name = "cluster.json";
    r.cluster_text = cluster;
    r.cluster_size = cluster_size;
    r.time_limit = 20;
    r.threads = 1;
    return r;
}

/* The request for files, within `limit` seconds, one thread. */
static inline pp_plan_request file_request(const char *module, const char *cluster, double limit)
{
    pp_plan_request r;
    pp_plan_request_default(&r);
    r.module_path = module;
    r.cluster_path = cluster;
    r.time_limit = limit;
    r.threads = 1;
    return r;
}

/* A generated module's request: its text under `name`, a cluster file,
 * the machine's threads. */
static inline pp_plan_request text_request(const char *name, const char *text, size_t size, const char *cluster,
                                           double limit)
{
    pp_plan_request r;
    pp_plan_request_default(&r);
    r.module_name = name;
    r.module_text = text;
    r.module_size = size;
    r.cluster_path = cluster;
    r.time_limit = limit;
    return r;
}

/* A plan that took `took` seconds is ready within its limit (+10%). */
static inline void check_in_time(const char *what, double took, const pp_plan_request *req)
{
    if (!(took < 1.1 * req->time_limit)) {
        fprintf(stderr, "%s: %.2f s at a limit of %.0f s\n", what, took, req->time_limit);
        check_failures++;
    }
}

/* The value of `key = "..."` in an attribute dictionary's text, into buf. */
static inline const char *attr_string(const char *attrs, const char *key, char *buf, size_t size)
{
    const char *at = attrs ? strstr(attrs, key) : NULL;
    buf[0] = '\0';
    if (at && (at = strchr(at, '"'))) {
        const char *end = strchr(at + 1, '"');
        snprintf(buf, size, "%.*s", end ? (int)(end - at - 1) : 0, at + 1);
    }
    return buf;
}

/* A GSPMD sharding names every one of n devices once: "{replicated}", or
 * "{devices=[T0,..]D0,D1,..(last_tile_dim_replicate)}" whose tiles multiply
 * to n and whose list is a permutation of 0 .. n - 1. */
static inline bool sharding_over(const char *s, int32_t n)
{
    if (!s || strcmp(s, "{replicated}") == 0)
        return s != NULL;
    const char *at = strstr(s, "devices=[");
    if (!at)
        return false;
    long tiles = 1;
    char *end;
    for (at += 9; *at != ']'; at = *end == ',' ? end + 1 : end) {
        tiles *= strtol(at, &end, 10);
        if (end == at)
            return false;
    }
    bool seen[4096] = {0};
    int32_t listed = 0;
    for (at++; n <= 4096 && (*at >= '0' && *at <= '9'); at = *end == ',' ? end + 1 : end, listed++) {
        long d = strtol(at, &end, 10);
        if (d < 0 || d >= n || seen[d])
            return false;
        seen[d] = true;
    }
    return tiles == n && listed == n;
}

/* A sharding constraint the writer adds (or the original carried). */
static inline bool is_constraint(const pp_shard_op *op)
{
    return strcmp(op->name, "stablehlo.custom_call") == 0 && op->attrs && strstr(op->attrs, "@Sharding") &&
           op->n_operands == 1 && op->n_results == 1;
}

/* The next op at or after *i of flat (its end: `end`) that is not a constraint, or NULL. */
static inline const pp_shard_op *next_op_of(const pp_shard_flat *flat, int32_t *i, int32_t end)
{
    while (*i < end && is_constraint(pp_shard_flat_op_of(flat, *i)))
        (*i)++;
    return *i < end ? pp_shard_flat_op_of(flat, (*i)++) : NULL;
}

/* Each stage's written module: read back by the sharder's loader, its ops
 * the stage's run of the original's, in order (op by op the same op names,
 * the sharding constraints aside), so the stages partition the module; its results named as the next
 * stage's arguments; and its annotations those of a layout on the stage's
 * mesh: mhlo.num_partitions its devices, every argument's and result's
 * sharding over exactly those devices, and the writer's own read-back
 * check having found the layout on every tensor it annotates. */
static inline void check_stage_modules(const char *what, const pp_plan_report *r, const pp_plan_request *req)
{
    pp_shard_analysis orig = {0};
    pp_error err = {0};
    pp_status st = req->module_text ? pp_shard_analysis_parse("original", req->module_text, req->module_size, &orig, &err)
                                    : pp_shard_analysis_load(req->module_path, &orig, &err);
    CHECK(st == PP_OK);
    int32_t next_op = 0;
    char prev_out[64][48];
    int32_t n_prev = -1;
    for (int32_t s = 0; st == PP_OK && s < r->n_stages; s++) {
        const pp_plan_stage *S = &r->stages[s];
        pp_shard_analysis a = {0};
        if (!S->module_text || pp_shard_analysis_parse("stage", S->module_text, S->module_size, &a, &err) != PP_OK) {
            fprintf(stderr, "%s: stage %d's module: %s\n", what, s, S->module_text ? err.message : "none");
            check_failures++;
            pp_shard_analysis_free(&a);
            continue;
        }
        CHECK(S->first_op == next_op && S->first_op + S->ops <= orig.flat->n_ops);
        int32_t i = 0, o = S->first_op, end = S->first_op + S->ops < orig.flat->n_ops ? S->first_op + S->ops
                                                                                      : orig.flat->n_ops;
        for (;;) {
            const pp_shard_op *mine = next_op_of(a.flat, &i, a.flat->n_ops), *theirs = next_op_of(orig.flat, &o, end);
            if (!mine && !theirs)
                break;
            if (!mine || !theirs || strcmp(mine->name, theirs->name) != 0) {
                fprintf(stderr, "%s: stage %d's op %d is %s, the original's %d %s\n", what, s, i - 1,
                        mine ? mine->name : "(none)", o - 1, theirs ? theirs->name : "(none)");
                check_failures++;
                break;
            }
        }
        next_op = S->first_op + S->ops;
        const pp_shard_func *f = &a.module->funcs[a.module->entry];
        char buf[48], want[32];
        snprintf(want, sizeof want, "mhlo.num_partitions = %d", S->devices);
        CHECK(a.module->attrs && strstr(a.module->attrs, want));
        /* what the previous stage sends is read here or carried on */
        if (n_prev >= 0)
            for (int32_t k = 0; k < n_prev; k++) {
                bool found = false;
                for (int32_t j = 0; j < f->n_args && !found; j++)
                    found = strcmp(attr_string(f->args[j].attrs, "jax.arg_info", buf, sizeof buf), prev_out[k]) == 0;
                if (!found) {
                    fprintf(stderr, "%s: stage %d sends %s, stage %d does not take it\n", what, s - 1, prev_out[k], s);
                    check_failures++;
                }
            }
        for (int32_t j = 0; j < f->n_args; j++)
            CHECK(f->args[j].type.rank < 0 || sharding_over(f->args[j].sharding, S->devices));
        n_prev = f->n_results < 64 ? f->n_results : 64;
        for (int32_t j = 0; j < f->n_results; j++) {
            CHECK(f->results[j].type.rank < 0 || sharding_over(f->results[j].sharding, S->devices));
            if (j < 64)
                attr_string(f->results[j].attrs, "jax.result_info", prev_out[j], sizeof prev_out[j]);
        }
        CHECK(S->module_annotated > 0 && S->module_annotated <= S->module_tensors);
        pp_shard_analysis_free(&a);
    }
    CHECK(st != PP_OK || next_op == orig.flat->n_ops);
    pp_shard_analysis_free(&orig);
}

/* What every plan must show: the independent check passes, the report's
 * step time (the simulator's) is the search's own within 2%, no baseline
 * that applies is faster, and the stages' modules are what they say. */
static inline void check_plan(const char *what, const pp_plan_report *r, const pp_plan_request *req)
{
    check_stage_modules(what, r, req);
    pp_error err = {0};
    if (pp_plan_check(r, &err) != PP_OK) {
        fprintf(stderr, "%s: %s\n", what, err.message);
        check_failures++;
    }
    if (!(r->step_time > 0) || !(fabs(r->model_time - r->step_time) <= 0.02 * r->step_time)) {
        fprintf(stderr, "%s: the plan's formula says %.6g s, the simulator %.6g s\n", what, r->model_time,
                r->step_time);
        check_failures++;
    }
    for (int k = 0; k < PP_PLAN_BASELINES; k++)
        if (r->baselines[k].applies && r->baselines[k].step_time < r->step_time * (1 - 1e-12)) {
            fprintf(stderr, "%s: baseline %s takes %.6g s, the plan %.6g s\n", what, r->baselines[k].name,
                    r->baselines[k].step_time, r->step_time);
            check_failures++;
        }
    CHECK(r->lower_bound > 0 && r->lower_bound <= r->step_time * (1 + 1e-9));
}

#endif
