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

/* What every plan must show: the independent check passes, the report's
 * step time (the simulator's) is the search's own within 2%, and no
 * baseline that applies is faster. */
static inline void check_plan(const char *what, const pp_plan_report *r)
{
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
