/* test_write_stage.c: pp_shard_write_stage on a module with a private
 * function called twice (inlined per call), an op of two results, a
 * reduce with its own region, a tensor returned from the middle and an
 * attribute alias, cut at every op: both halves are read back by the
 * loader, hold the original's ops in order, and the first half's results
 * are what the second takes by name. A run outside the module is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_write.h"
#include "shard/shard_internal.h"
#include "shard/shard_plan_internal.h"
#include "shard/write_internal.h"

static const char MODULE[] =
    "#alias = #stablehlo<precision DEFAULT>\n"
    "module @m {\n"
    "  func.func private @layer(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>) -> tensor<4x8xf32> {\n"
    "    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [#alias, #alias] : "
    "(tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
    "    %1 = stablehlo.tanh %0 : tensor<4x8xf32>\n"
    "    return %1 : tensor<4x8xf32>\n"
    "  }\n"
    "  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>) -> "
    "(tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) {\n"
    "    %0 = call @layer(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
    "    %1:2 = stablehlo.optimization_barrier %0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>\n"
    "    %2 = call @layer(%1#0, %arg2) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
    "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
    "    %3 = stablehlo.reduce(%2 init: %cst) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> "
    "tensor<4xf32>\n"
    "     reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "    }\n"
    "    %4 = stablehlo.add %2, %1#1 : tensor<4x8xf32>\n"
    "    return %4, %0, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>\n"
    "  }\n"
    "}\n";

/* The labels (jax.arg_info or jax.result_info) of a module's entry. */
static int labels(const pp_shard_analysis *a, bool results, char out[][32], int max)
{
    const pp_shard_func *f = &a->module->funcs[a->module->entry];
    int n = results ? f->n_results : f->n_args;
    for (int k = 0; k < n && k < max; k++) {
        const char *attrs = results ? f->results[k].attrs : f->args[k].attrs;
        const char *at = attrs ? strstr(attrs, "_info = \"") : NULL;
        out[k][0] = '\0';
        if (at)
            sscanf(at + 9, "%31[^\"]", out[k]);
    }
    return n;
}

static bool has(char list[][32], int n, const char *what)
{
    for (int k = 0; k < n; k++)
        if (strcmp(list[k], what) == 0)
            return true;
    return false;
}

int main(void)
{
    pp_shard_analysis orig = {0};
    pp_error err = {0};
    CHECK(pp_shard_analysis_parse("m.mlir", MODULE, sizeof MODULE - 1, &orig, &err) == PP_OK);
    int32_t n = orig.flat->n_ops;
    CHECK(n == 8); /* two inlined layers of two ops, the barrier, the constant, the reduce, the add */
    for (int32_t cut = 1; cut < n; cut++) {
        pp_shard_analysis half[2] = {{0}, {0}};
        char in[16][32], out[16][32];
        int n_in = 0, n_out = 0;
        for (int h = 0; h < 2; h++) {
            int32_t first = h ? cut : 0, count = h ? n - cut : cut;
            char *text = NULL;
            size_t size = 0;
            CHECK(pp_shard_write_stage(orig.flat, MODULE, sizeof MODULE - 1, first, count, "m_stage", &text, &size,
                                       &err) == PP_OK);
            if (!text)
                continue;
            if (pp_shard_analysis_parse("stage", text, size, &half[h], &err) != PP_OK) {
                fprintf(stderr, "cut %d, half %d: %s\n%s", cut, h, err.message, text);
                check_failures++;
                free(text);
                continue;
            }
            CHECK(half[h].flat->n_ops == count);
            for (int32_t i = 0; i < half[h].flat->n_ops && i < count; i++)
                CHECK(strcmp(pp_shard_flat_op_of(half[h].flat, i)->name,
                             pp_shard_flat_op_of(orig.flat, first + i)->name) == 0);
            if (h == 0)
                n_out = labels(&half[h], true, out, 16);
            else
                n_in = labels(&half[h], false, in, 16);
            free(text);
        }
        /* every tensor the first half sends is taken by the second (read, or
         * carried to the end); the second returns the original's three
         * results, and takes nothing but entry arguments and what the first sends */
        for (int k = 0; k < n_out && k < 16 && half[1].module; k++)
            CHECK(has(in, n_in, out[k]));
        if (half[1].module) {
            CHECK(half[1].module->funcs[half[1].module->entry].n_results == 3);
            for (int k = 0; k < n_in && k < 16; k++)
                CHECK(strncmp(in[k], "arg", 3) == 0 || has(out, n_out, in[k]));
        }
        pp_shard_analysis_free(&half[0]);
        pp_shard_analysis_free(&half[1]);
    }
    char *text = NULL;
    CHECK(pp_shard_write_stage(orig.flat, MODULE, sizeof MODULE - 1, n - 1, 2, "x", &text, NULL, &err) == PP_EARG);
    CHECK(text == NULL);
    pp_shard_analysis_free(&orig);
    return CHECK_DONE();
}
