/* shard_cmd.c: the auto-sharder's command of the parplan CLI. So far
 * `parplan shard MODEL.mlir --explain`: read the StableHLO, inline its calls,
 * run the named-dimension analysis and print what it found. The search
 * (`--mesh`, `--out`, the IOPDDL bridge) is issue 8's next step. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "parplan/shard.h"

const char shard_usage[] =
    "parplan shard MODEL.mlir --explain\n"
    "  Reads MODEL.mlir (StableHLO text as jax.jit(f).lower(...).as_text() prints it), inlines\n"
    "  its calls and prints the named-dimension analysis of paper 004: the colors (sets of\n"
    "  dimensions to shard together) with their sizes and the tensors they touch, the sharding\n"
    "  conflicts and compatibility sets, and the repeated-layer groups. Ops the reader does not\n"
    "  know are kept opaque, with one warning per op name on stderr.";

static int explain(const char *path)
{
    pp_error err = {0};
    pp_shard_module *m = NULL;
    pp_shard_flat *flat = NULL;
    pp_shard_nda *nda = NULL;
    pp_status st = pp_shard_module_load(path, &m, &err);
    if (st == PP_OK) {
        for (int32_t k = 0; k < m->n_warnings; k++)
            fprintf(stderr, "parplan: warning: %s\n", m->warnings[k].message);
        st = pp_shard_module_flatten(m, 0, &flat, &err);
    }
    if (st == PP_OK)
        st = pp_shard_nda_run(flat, &nda, &err);
    if (st == PP_OK) {
        pp_shard_write_explain(nda, stdout);
        if (fflush(stdout) != 0)
            st = pp_error_set(&err, PP_EIO, "stdout: write failed");
    }
    pp_shard_nda_free(nda);
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}

int cmd_shard(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--explain") == 0 && argv[0][0] != '-')
        return explain(argv[0]);
    if (argc == 2 && strcmp(argv[0], "--explain") == 0 && argv[1][0] != '-')
        return explain(argv[1]);
    fprintf(stderr, "usage: %s\n", shard_usage);
    return 2;
}
