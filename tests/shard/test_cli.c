/* test_cli.c: `parplan shard MODEL --explain` as a user meets it: both shared
 * models and the paper's MLP explained with the analysis's own counts, a
 * truncated module refused with exit 2 and its position, bad flags exit 2. */
#include <stdlib.h>
#include "cli_run.h"

#define MODELS PP_SOURCE_DIR "/../shared/models/stablehlo"

/* The first line of the explanation names the module and its size. */
static void explains(const char *path, const char *first_line)
{
    char command[1024];
    snprintf(command, sizeof command, "%s shard %s --explain", PP_CLI, path);
    expect(command, 0, first_line);
}

static void truncated_module(void)
{
    char dir[] = "/tmp/parplan-shard-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], command[1024];
    snprintf(path, sizeof path, "%s/cut.mlir", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("module @m {\n  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
          "    %0 = stablehlo.add %x, %x : tensor<4xf32>\n",
          f);
    fclose(f);
    snprintf(command, sizeof command, "%s shard %s --explain", PP_CLI, path);
    expect(command, 2, "cut.mlir:4:");
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK_EQ_INT(system(command), 0);
}

int main(void)
{
    explains(PP_DATA_DIR "/mlp.mlir", "mlp.mlir: module @mlp, 5 ops");
    explains(MODELS "/searchless_chess_9m.mlir", "module @jit_predict_sequence, 1010 ops");
    explains(MODELS "/jax_resnet_50.mlir", "jax_resnet_50.mlir: module");
    truncated_module();
    expect(PP_CLI " shard " PP_DATA_DIR "/mlp.mlir", 2, "usage");
    expect(PP_CLI " shard --explain", 2, "usage");
    expect(PP_CLI " shard /nonexistent.mlir --explain", 3, "/nonexistent.mlir");
    CHECK_DONE();
}
