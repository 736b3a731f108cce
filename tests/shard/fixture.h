/* fixture.h: what the sharder's tests share: a model read, inlined and
 * analysed in one call (from a file, from text or from
 * bench/shard-gen-transformer), and meshes. */
#ifndef PP_TESTS_SHARD_FIXTURE_H
#define PP_TESTS_SHARD_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/shard.h"
#include "shard/shard_internal.h"
#include "transformer.h"

typedef struct {
    pp_shard_module *m;
    pp_shard_flat *flat;
    pp_shard_nda *nda;
} analysed;

/* Flattens and analyses the module `st` says was read; a failure is a
 * failed check. */
static inline bool analyse_read(analysed *A, pp_status st, pp_error *err)
{
    if (st == PP_OK)
        st = pp_shard_module_flatten(A->m, 0, &A->flat, err);
    if (st == PP_OK)
        st = pp_shard_nda_run(A->flat, &A->nda, err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err->message);
    CHECK(st == PP_OK);
    return st == PP_OK;
}

static inline bool open_model(analysed *A, const char *path)
{
    pp_error err = {0};
    memset(A, 0, sizeof *A);
    return analyse_read(A, pp_shard_module_load(path, &A->m, &err), &err);
}

static inline bool open_text(analysed *A, const char *text)
{
    pp_error err = {0};
    memset(A, 0, sizeof *A);
    return analyse_read(A, pp_shard_module_parse("inline.mlir", text, strlen(text), &A->m, &err), &err);
}

static inline void release(analysed *A)
{
    pp_shard_nda_free(A->nda);
    pp_shard_flat_free(A->flat);
    pp_shard_module_free(A->m);
}

static inline pp_shard_mesh mesh_on(const char *text, const pp_hw_device_type *d, pp_hw_link link)
{
    pp_shard_mesh m;
    pp_error err = {0};
    memset(&m, 0, sizeof m);
    CHECK(pp_shard_mesh_parse(text, d, link, &m, &err) == PP_OK);
    return m;
}

/* The generator's model for args, analysed, under `name`; false, saying
 * so, when there is no python3 to run it. */
static inline bool open_generated(analysed *A, const char *name, const char *args)
{
    size_t size = 0;
    char *text = transformer_text(args, &size);
    if (!text) {
        fprintf(stderr, "%s: skipped (no python3 to run bench/shard-gen-transformer)\n", name);
        return false;
    }
    pp_error err = {0};
    memset(A, 0, sizeof *A);
    bool ok = analyse_read(A, pp_shard_module_parse(name, text, size, &A->m, &err), &err);
    free(text);
    return ok;
}

#endif
