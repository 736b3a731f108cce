/* shard_write.c: libFuzzer target for the sharded-module writer
 * (pp_shard_write_module; pp_shard_write_plan, the whole plan, must succeed
 * or refuse with a message). Every module the reader accepts (and that flattens
 * within 20000 ops and passes the named-dimension analysis) is written on a
 * 2x2 mesh in both formats under a layout drawn from a hash of the input:
 * a few random (color, axis, resolution) actions, each kept only when
 * pp_shard_state_layout accepts it, so the layout is always a valid one.
 * Checks: the writer succeeds, or fails with PP_EINPUT and a
 * "NAME:LINE:COLUMN: " message inside the text; what it writes reads back
 * with the same functions and op counts and the same entry signature, every
 * entry tensor carrying exactly pp_shard_sharding_text of its layout (the
 * mhlo.sharding string, or an sdy.sharding entry in place of any
 * mhlo.sharding); writing the GSPMD output again under the same layout
 * changes nothing. Any breach aborts. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard.h"
#include "parplan/shard_write.h"
#include "message.h"
#include "shard/write_internal.h"
#include "shard/shard_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ACTIONS 8

static const pp_hw_device_type dev = {"fuzz", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

/* A module read, flattened and analysed; the text it was read from is borrowed. */
typedef struct {
    pp_shard_module *m;
    pp_shard_flat *flat;
    pp_shard_nda *nda;
} analysed;

static void release(analysed *A)
{
    pp_shard_nda_free(A->nda);
    pp_shard_flat_free(A->flat);
    pp_shard_module_free(A->m);
}

/* PP_OK, or the status of the step that refused the text (the module stays NULL only when the reader refused). */
static pp_status analyse(const char *text, size_t size, analysed *A, pp_error *err)
{
    memset(A, 0, sizeof *A);
    pp_status st = pp_shard_module_parse(NAME, text, size, &A->m, err);
    if (st == PP_OK)
        st = pp_shard_module_flatten(A->m, 20000, &A->flat, err);
    if (st == PP_OK)
        st = pp_shard_nda_run(A->flat, &A->nda, err);
    return st;
}

/* splitmix64: the layout must depend on the input alone, so replays see what the fuzzer saw. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t k = 0; k < size; k++)
        h = (h ^ data[k]) * 0x100000001b3u;
    return h;
}

/* Fills axes with the layout of a random state; bits holds MAX_ACTIONS rows of nda->n_sets resolution bytes. */
static void random_layout(const pp_shard_nda *nda, const pp_shard_mesh *mesh, uint64_t seed, uint8_t *bits,
                          uint8_t *axes)
{
    pp_shard_action actions[MAX_ACTIONS];
    pp_shard_state state = {0, 0, actions};
    pp_error err = {0};
    int tries = nda->n_colors > 0 ? 1 + (int)(next(&seed) % MAX_ACTIONS) : 0;
    for (int k = 0; k < tries; k++) {
        uint8_t *row = bits + (size_t)k * (size_t)nda->n_sets;
        for (int32_t s = 0; s < nda->n_sets; s++)
            row[s] = (uint8_t)(next(&seed) & 1);
        state.actions[state.n++] = (pp_shard_action){
            .color = (int32_t)(next(&seed) % (uint64_t)nda->n_colors),
            .axis = (int32_t)(next(&seed) % (uint64_t)mesh->n_axes),
            .bits = nda->n_sets > 0 ? row : NULL,
        };
        if (pp_shard_state_layout(nda, mesh, &state, axes, &err) != PP_OK)
            state.n--;
    }
    /* a refused action may have left part of its layout behind */
    if (pp_shard_state_layout(nda, mesh, &state, axes, &err) != PP_OK)
        abort();
}

static void check_error(const pp_error *err, pp_status st, const char *out, size_t out_size, const uint8_t *data,
                        size_t size)
{
    if (st != PP_EINPUT || out || out_size != 0)
        abort();
    check_message(err, st, data, size);
    if (strncmp(err->message + strlen(NAME), ": ", 2) == 0)
        abort(); /* the writer's input errors always have a position */
}

/* The sharding of entry parameter k (arguments, then results) under axes. */
static char *expected_text(const analysed *A, const pp_shard_mesh *mesh, pp_shard_format format,
                           const uint8_t *axes, int32_t k)
{
    const pp_shard_func *f = &A->m->funcs[A->m->entry];
    int32_t t = k < f->n_args ? k : A->nda->out_use + k - f->n_args;
    const pp_shard_nda_tensor *tensor = &A->nda->tensors[t];
    const pp_shard_param *p = k < f->n_args ? &f->args[k] : &f->results[k - f->n_args];
    if (tensor->rank != p->type.rank)
        abort();
    char *s = NULL;
    pp_error err = {0};
    if (pp_shard_sharding_text(mesh, format, axes + tensor->first, tensor->rank, &s, &err) != PP_OK)
        abort(); /* a layout the cost model accepts always has a text */
    return s;
}

static void check_param(const pp_shard_param *in, const pp_shard_param *back, pp_shard_format format,
                        const char *want)
{
    if (back->type.rank != in->type.rank)
        abort();
    if (format == PP_SHARD_FORMAT_GSPMD) {
        if (!back->sharding || strcmp(back->sharding, want) != 0)
            abort();
        return;
    }
    size_t len = strlen(want) + sizeof "sdy.sharding = ";
    char *entry = malloc(len);
    if (!entry)
        abort();
    snprintf(entry, len, "sdy.sharding = %s", want);
    if (!back->attrs || !strstr(back->attrs, entry))
        abort();
    free(entry);
    if (back->sharding)
        abort(); /* the mhlo.sharding was replaced */
}

static void check_read_back(const analysed *A, const analysed *B, const pp_shard_mesh *mesh,
                            pp_shard_format format, const uint8_t *axes)
{
    const pp_shard_module *a = A->m, *b = B->m;
    if (a->n_funcs != b->n_funcs || a->entry != b->entry)
        abort();
    for (int32_t i = 0; i < a->n_funcs; i++)
        if (a->funcs[i].n_ops != b->funcs[i].n_ops || a->funcs[i].n_body_ops != b->funcs[i].n_body_ops ||
            a->funcs[i].n_args != b->funcs[i].n_args || a->funcs[i].n_results != b->funcs[i].n_results)
            abort();
    const pp_shard_func *f = &a->funcs[a->entry], *g = &b->funcs[b->entry];
    for (int32_t k = 0; k < f->n_args + f->n_results; k++) {
        const pp_shard_param *in = k < f->n_args ? &f->args[k] : &f->results[k - f->n_args];
        const pp_shard_param *back = k < g->n_args ? &g->args[k] : &g->results[k - g->n_args];
        if (in->type.rank < 0)
            continue; /* tokens are left alone */
        char *want = expected_text(A, mesh, format, axes, k);
        check_param(in, back, format, want);
        free(want);
    }
}

/* GSPMD output written again under the same layout: every entry it holds is replaced by itself. */
static void check_rewrite(const analysed *B, const pp_shard_mesh *mesh, const uint8_t *axes, size_t n_names,
                          const char *out, size_t out_size)
{
    if ((size_t)B->nda->n_names != n_names)
        abort();
    char *again = NULL;
    size_t again_size = 0;
    pp_error err = {0};
    if (pp_shard_write_module(B->nda, mesh, axes, PP_SHARD_FORMAT_GSPMD, out, out_size, &again, &again_size,
                              &err) != PP_OK)
        abort();
    if (again_size != out_size || memcmp(again, out, out_size) != 0)
        abort();
    free(again);
}

/* The whole plan: written and read back by the library's own check, or refused with a message. */
static void check_plan(const analysed *A, const pp_shard_mesh *mesh, const uint8_t *axes, pp_shard_format format,
                       const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t out_size = 0;
    pp_error err = {0};
    pp_shard_write_stats stats = {0};
    pp_status st = pp_shard_write_plan(A->nda, mesh, axes, format, (const char *)data, size, &out, &out_size, &stats,
                                       &err);
    if (st == PP_OK && (!out || out[out_size] != '\0' || stats.annotated > stats.tensors))
        abort();
    if (st != PP_OK && (out || err.message[0] == '\0'))
        abort();
    free(out);
}

static void write_and_check(const analysed *A, const pp_shard_mesh *mesh, const uint8_t *axes,
                            pp_shard_format format, const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t out_size = 0;
    pp_error err = {0};
    pp_status st = pp_shard_write_module(A->nda, mesh, axes, format, (const char *)data, size, &out, &out_size, &err);
    if (st != PP_OK) {
        check_error(&err, st, out, out_size, data, size);
        return;
    }
    if (!out || out[out_size] != '\0')
        abort();
    analysed B;
    pp_error berr = {0};
    if (analyse(out, out_size, &B, &berr) != PP_OK)
        abort(); /* the output holds the same ops, so every step that took the input takes it */
    check_read_back(A, &B, mesh, format, axes);
    if (format == PP_SHARD_FORMAT_GSPMD)
        check_rewrite(&B, mesh, axes, (size_t)A->nda->n_names, out, out_size);
    release(&B);
    free(out);
    check_plan(A, mesh, axes, format, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    analysed A;
    pp_error err = {0};
    if (analyse((const char *)data, size, &A, &err) != PP_OK) {
        release(&A);
        return 0;
    }
    pp_shard_mesh mesh;
    if (pp_shard_mesh_parse("b=2,m=2", &dev, pp_shard_default_link(), &mesh, &err) != PP_OK)
        abort();
    uint8_t *axes = calloc((size_t)A.nda->n_names + 1, 1);
    uint8_t *bits = calloc((size_t)MAX_ACTIONS * (size_t)A.nda->n_sets + 1, 1);
    if (!axes || !bits)
        abort();
    random_layout(A.nda, &mesh, hash(data, size), bits, axes);
    write_and_check(&A, &mesh, axes, PP_SHARD_FORMAT_GSPMD, data, size);
    write_and_check(&A, &mesh, axes, PP_SHARD_FORMAT_SDY, data, size);
    free(bits);
    free(axes);
    release(&A);
    return 0;
}
