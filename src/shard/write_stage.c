/* write_stage.c: a run of the flattened module's ops as a module of its
 * own (a pipeline stage, issue 31): one entry function holding the ops'
 * own text in order, their values renamed, whose arguments are the tensors
 * that cross into the run and whose results are the tensors that leave it.
 * Calls are already inlined in the flat view, so the stage needs no other
 * function. Each crossing tensor carries its name in the original's flat
 * numbering ("t12", or the entry argument's own name), as JAX names
 * arguments and results (jax.arg_info, jax.result_info), so one stage's
 * results are matched to the next stage's arguments by name. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard/shard_internal.h"
#include "shard/write_internal.h"

typedef struct {
    const pp_shard_flat *flat;
    int32_t first, end;
    char prefix[16];
    char *role;  /* [flat value]: 'i' an argument, 'o' a result, 'p' both (passes through), 0 neither */
    int32_t *order; /* arguments, then results, as flat values */
    int32_t n_in, n_out;
} stage;

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' || c == '-';
}

/* The value's name inside the stage, '%' included. */
static void name_of(const stage *S, shard_sbuf *b, int32_t v)
{
    const pp_shard_flat_value *fv = &S->flat->values[v];
    shard_sb_str(b, "%");
    shard_sb_str(b, S->prefix);
    if (fv->op >= S->first && fv->op < S->end && pp_shard_flat_op_of(S->flat, fv->op)->n_results > 1) {
        shard_sb_str(b, "o");
        shard_sb_int(b, fv->op);
        shard_sb_str(b, "#");
        shard_sb_int(b, fv->index);
    } else
        shard_sb_int(b, v);
}

/* What the tensor is called across stages. */
static void label_of(const stage *S, shard_sbuf *b, int32_t v)
{
    const pp_shard_flat_value *fv = &S->flat->values[v];
    if (v < S->flat->n_inputs) {
        shard_sb_str(b, S->flat->module->funcs[fv->func].values[fv->value].name);
        return;
    }
    shard_sb_str(b, "t");
    shard_sb_int(b, v);
}

static void type_of(const stage *S, shard_sbuf *b, int32_t v)
{
    char buf[256];
    shard_sb_str(b, shard_type_text(&S->flat->values[v].type, buf, sizeof buf));
}

/* Which values cross the stage's borders, in the order they are listed:
 * arguments by first use (a value passing through after them), results
 * by definition (a value passing through last). */
static bool borders(stage *S)
{
    const pp_shard_flat *flat = S->flat;
    bool *after = calloc((size_t)flat->n_values + 1, sizeof *after);
    S->role = calloc((size_t)flat->n_values + 1, 1);
    S->order = malloc(2 * ((size_t)flat->n_values + 1) * sizeof *S->order);
    if (!after || !S->role || !S->order) {
        free(after);
        return false;
    }
    for (int32_t i = S->end; i < flat->n_ops; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++)
            after[flat->ops[i].operands[k]] = true;
    for (int32_t k = 0; k < flat->n_outputs; k++)
        after[flat->outputs[k]] = true;
    for (int32_t i = S->first; i < S->end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_operands; k++) {
            int32_t v = flat->ops[i].operands[k], def = flat->values[v].op;
            if ((def < S->first || def >= S->end) && !S->role[v]) {
                S->role[v] = 'i';
                S->order[S->n_in++] = v;
            }
        }
    /* a tensor made before the stage and needed after it is carried through */
    for (int32_t v = flat->n_inputs; v < flat->n_values; v++)
        if (after[v] && flat->values[v].op < S->first && S->role[v] != 'i') {
            S->role[v] = 'p';
            S->order[S->n_in++] = v;
        } else if (after[v] && flat->values[v].op < S->first)
            S->role[v] = 'p';
    for (int32_t i = S->first; i < S->end; i++)
        for (int32_t k = 0; k < pp_shard_flat_op_of(flat, i)->n_results; k++) {
            int32_t v = flat->ops[i].results[k];
            if (after[v]) {
                S->role[v] = 'o';
                S->order[S->n_in + S->n_out++] = v;
            }
        }
    for (int32_t j = 0; j < S->n_in; j++)
        if (S->role[S->order[j]] == 'p')
            S->order[S->n_in + S->n_out++] = S->order[j];
    free(after);
    return true;
}

/* Flat op i's text with its results' names and its operands' uses renamed;
 * names bound inside its regions are its own and kept. */
static void op_text(const stage *S, const char *text, int32_t i, shard_sbuf *b)
{
    const pp_shard_flat *flat = S->flat;
    const pp_shard_flat_op *fo = &flat->ops[i];
    const pp_shard_func *f = &flat->module->funcs[fo->func];
    const pp_shard_op *op = &f->ops[fo->op];
    size_t at = op->src_start, end = op->src_end;
    shard_sb_str(b, "    ");
    if (op->n_results > 0) {
        /* the names before '=' become one name for all results */
        while (at < end && text[at] != '=')
            at++;
        at++;
        shard_sb_str(b, "%");
        shard_sb_str(b, S->prefix);
        if (op->n_results > 1) {
            shard_sb_str(b, "o");
            shard_sb_int(b, i);
            shard_sb_str(b, ":");
            shard_sb_int(b, op->n_results);
        } else
            shard_sb_int(b, fo->results[0]);
        shard_sb_str(b, " =");
    }
    while (at < end) {
        size_t from = at;
        if (text[at] == '"') { /* a string: no names inside */
            for (at++; at < end && text[at] != '"'; at++)
                at += text[at] == '\\';
            at += at < end;
            shard_sb_add(b, text + from, at - from);
            continue;
        }
        if (text[at] != '%') {
            while (at < end && text[at] != '%' && text[at] != '"')
                at++;
            shard_sb_add(b, text + from, at - from);
            continue;
        }
        size_t n0 = ++at;
        while (at < end && is_name_char(text[at]))
            at++;
        /* a use of one of several results, %name#k, is named so in the function */
        if (at + 1 < end && text[at] == '#' && isdigit((unsigned char)text[at + 1]))
            for (at++; at < end && isdigit((unsigned char)text[at]); at++)
                ;
        size_t len = at - n0;
        int32_t match = -1;
        for (int32_t k = 0; k < op->n_operands && match < 0; k++) {
            const char *name = f->values[op->operands[k]].name;
            if (strlen(name) == len && strncmp(name, text + n0, len) == 0)
                match = k;
        }
        if (match < 0) {
            shard_sb_add(b, text + from, at - from);
            continue;
        }
        name_of(S, b, fo->operands[match]);
    }
    shard_sb_str(b, "\n");
}

/* The attribute aliases ("#name = ...") at the text's top level, which the
 * ops' attributes and locations may name; the resources block
 * ("{-# ... #-}", dense_resource constants' bytes) goes at the end. */
static void aliases(const char *text, size_t size, shard_sbuf *b)
{
    for (size_t at = 0; at < size;) {
        size_t eol = at;
        while (eol < size && text[eol] != '\n')
            eol++;
        if (text[at] == '#' && at + 1 < size && text[at + 1] != '-') {
            shard_sb_add(b, text + at, eol - at);
            shard_sb_str(b, "\n");
        }
        at = eol + 1;
    }
}

/* Where `what` first stands in text[at, size), or size. */
static size_t find(const char *text, size_t size, size_t at, const char *what)
{
    size_t n = strlen(what);
    for (; at + n <= size; at++)
        if (memcmp(text + at, what, n) == 0)
            return at;
    return size;
}

static void signature(const stage *S, const char *name, shard_sbuf *b)
{
    shard_sb_str(b, "module @");
    shard_sb_str(b, name);
    shard_sb_str(b, " attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n");
    shard_sb_str(b, "  func.func public @main(");
    for (int32_t j = 0; j < S->n_in; j++) {
        int32_t v = S->order[j];
        shard_sb_str(b, j ? ", " : "");
        name_of(S, b, v);
        shard_sb_str(b, ": ");
        type_of(S, b, v);
        shard_sb_str(b, " {jax.arg_info = \"");
        label_of(S, b, v);
        shard_sb_str(b, "\"}");
    }
    shard_sb_str(b, ") -> (");
    for (int32_t j = 0; j < S->n_out; j++) {
        int32_t v = S->order[S->n_in + j];
        shard_sb_str(b, j ? ", " : "");
        type_of(S, b, v);
        shard_sb_str(b, " {jax.result_info = \"");
        label_of(S, b, v);
        shard_sb_str(b, "\"}");
    }
    shard_sb_str(b, ") {\n");
}

pp_status pp_shard_write_stage(const pp_shard_flat *flat, const char *text, size_t size, int32_t first,
                               int32_t count, const char *name, char **out, size_t *out_size, pp_error *err)
{
    *out = NULL;
    if (first < 0 || count < 1 || first > flat->n_ops - count)
        return pp_error_set(err, PP_EARG, "%s: ops %d .. %d: not a run of its %d ops", flat->module->file, first,
                            first + count - 1, flat->n_ops);
    for (int32_t i = first; i < first + count; i++)
        if (pp_shard_flat_op_of(flat, i)->src_end > size)
            return pp_error_set(err, PP_EARG, "%s: the text given is not the one the module was read from",
                                flat->module->file);
    stage S = {.flat = flat, .first = first, .end = first + count};
    shard_write_prefix(flat->module, S.prefix, sizeof S.prefix);
    shard_sbuf b = {0};
    if (!borders(&S))
        b.failed = true;
    else {
        aliases(text, size, &b);
        signature(&S, name, &b);
        for (int32_t i = S.first; i < S.end; i++)
            op_text(&S, text, i, &b);
        shard_sb_str(&b, "    return");
        for (int32_t j = 0; j < S.n_out; j++) {
            shard_sb_str(&b, j ? ", " : " ");
            name_of(&S, &b, S.order[S.n_in + j]);
        }
        for (int32_t j = 0; j < S.n_out; j++) {
            shard_sb_str(&b, j ? ", " : " : ");
            type_of(&S, &b, S.order[S.n_in + j]);
        }
        shard_sb_str(&b, "\n  }\n}\n");
        size_t from = find(text, size, 0, "{-#"), to = find(text, size, from, "#-}");
        if (to < size) {
            shard_sb_add(&b, text + from, to + 3 - from);
            shard_sb_str(&b, "\n");
        }
    }
    free(S.role);
    free(S.order);
    pp_status st = shard_sb_take(&b, out, err);
    if (st == PP_OK && out_size)
        *out_size = strlen(*out);
    return st;
}
