/* write_plan.c: the whole plan in the written module (issue 15). The entry's
 * signature is written first (write.c); that text is read again so that every
 * op's place in it is known, and then each op that defines one tensor gets a
 * sharding constraint after it, taking over its result's name. Functions are
 * inlined once per call path, and one function text cannot hold two layouts,
 * so a callee whose call paths need different layouts is copied, one copy per
 * distinct layout, and each call is pointed at its copy. Constraints are
 * preferred to attributes on the ops because they read the same on every op,
 * whatever its printed form, and are what JAX emits for
 * with_sharding_constraint. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "shard/shard_internal.h"
#include "shard/write_internal.h"

typedef struct {
    size_t start, end;
    char *text;
    int32_t order; /* ties at one offset keep the order they were made in */
} edit;

typedef struct {
    edit *v;
    int32_t n, cap;
} edits;

typedef struct {
    const pp_shard_nda *nda; /* the plan's analysis (of the module as read first) */
    const pp_shard_mesh *mesh;
    const uint8_t *axes;
    pp_shard_format format;
    const pp_shard_module *m; /* the text with its signature written, read again */
    const pp_shard_flat *flat;
    const char *text;
    size_t size;
    char prefix[16];
    int32_t *base;     /* per path: where its function's ops start in op_flat and op_child */
    int32_t *op_flat;  /* per (path, op): the flat op, -1 for calls and returns */
    int32_t *op_child; /* per (path, call op): the path the call enters */
    int32_t *clone;    /* per path: which copy of its function it runs (0: the original) */
    char **keys;       /* per path: the layouts of its tensors and its calls' copies */
    int32_t *n_copies; /* per function */
    int32_t *first_rep, *next_rep; /* per function, the first path of each copy, linked */
    int32_t copies;
    pp_error *err;
    pp_status status;
} planner;

static bool oom(planner *P)
{
    P->status = pp_error_set(P->err, PP_ENOMEM, "writing the sharded module: out of memory");
    return false;
}

static bool push_edit(planner *P, edits *E, size_t start, size_t end, char *text)
{
    if (!text)
        return oom(P);
    if (!pp_grow((void **)&E->v, &E->cap, E->n + 1, sizeof *E->v)) {
        free(text);
        return oom(P);
    }
    E->v[E->n] = (edit){start, end, text, E->n};
    E->n++;
    return true;
}

static void edits_free(edits *E)
{
    for (int32_t k = 0; k < E->n; k++)
        free(E->v[k].text);
    free(E->v);
}

static int edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* text[from, to) with the edits (sorted, inside it) applied, appended to b. */
static void apply(const char *text, size_t from, size_t to, edits *E, shard_sbuf *b)
{
    if (E->n > 1) /* qsort may not be handed the NULL of an empty list */
        qsort(E->v, (size_t)E->n, sizeof *E->v, edit_cmp);
    size_t at = from;
    for (int32_t k = 0; k < E->n; k++) {
        shard_sb_add(b, text + at, E->v[k].start - at);
        shard_sb_str(b, E->v[k].text);
        at = E->v[k].end;
    }
    shard_sb_add(b, text + at, to - at);
}

/* ---- which copy each call path runs ---- */

/* The flat ops and the entered paths of every (path, op). */
static bool index_paths(planner *P)
{
    const pp_shard_flat *flat = P->flat;
    P->base = malloc(((size_t)flat->n_paths + 1) * sizeof *P->base);
    if (!P->base)
        return oom(P);
    int32_t total = 0;
    for (int32_t p = 0; p < flat->n_paths; p++) {
        P->base[p] = total;
        total += P->m->funcs[flat->paths[p].func].n_ops;
    }
    P->op_flat = malloc(((size_t)total + 1) * sizeof *P->op_flat);
    P->op_child = malloc(((size_t)total + 1) * sizeof *P->op_child);
    if (!P->op_flat || !P->op_child)
        return oom(P);
    for (int32_t k = 0; k < total; k++)
        P->op_flat[k] = P->op_child[k] = -1;
    for (int32_t i = 0; i < flat->n_ops; i++)
        P->op_flat[P->base[flat->ops[i].path] + flat->ops[i].op] = i;
    for (int32_t p = 1; p < flat->n_paths; p++)
        P->op_child[P->base[flat->paths[p].parent] + flat->paths[p].call_op] = p;
    return true;
}

/* The sharding of flat value v as the format writes it, or NULL (no error) when v is not a tensor. */
static bool value_sharding(planner *P, int32_t v, char **out)
{
    const pp_shard_nda_tensor *t = &P->nda->tensors[v];
    *out = NULL;
    if (t->rank < 0 || P->flat->values[v].type.rank < 0)
        return true;
    P->status = pp_shard_sharding_text(P->mesh, P->format, P->axes + t->first, t->rank, out, P->err);
    return P->status == PP_OK;
}

/* Path p's key: the layouts its ops give their tensors and the copies its calls run. */
static bool path_key(planner *P, int32_t p, char **out)
{
    const pp_shard_func *f = &P->m->funcs[P->flat->paths[p].func];
    shard_sbuf b = {0};
    bool ok = true;
    for (int32_t k = 0; ok && k < f->n_ops; k++) {
        int32_t slot = P->base[p] + k;
        if (P->op_child[slot] >= 0) {
            shard_sb_str(&b, "c");
            shard_sb_int(&b, P->clone[P->op_child[slot]]);
        }
        if (P->op_flat[slot] < 0)
            continue;
        const pp_shard_flat_op *op = &P->flat->ops[P->op_flat[slot]];
        for (int32_t j = 0; ok && j < f->ops[k].n_results; j++) {
            char *s = NULL;
            ok = value_sharding(P, op->results[j], &s);
            shard_sb_str(&b, s ? s : "-");
            shard_sb_str(&b, ";");
            free(s);
        }
    }
    if (!ok) {
        free(b.s);
        return false;
    }
    P->status = shard_sb_take(&b, out, P->err);
    return P->status == PP_OK;
}

/* Paths are made before the paths they call (pre-order), so walking them
 * backwards settles each path's calls before the path itself. */
static bool assign_copies(planner *P)
{
    const pp_shard_flat *flat = P->flat;
    P->clone = calloc((size_t)flat->n_paths + 1, sizeof *P->clone);
    P->keys = calloc((size_t)flat->n_paths + 1, sizeof *P->keys);
    P->next_rep = malloc(((size_t)flat->n_paths + 1) * sizeof *P->next_rep);
    P->n_copies = calloc((size_t)P->m->n_funcs + 1, sizeof *P->n_copies);
    P->first_rep = malloc(((size_t)P->m->n_funcs + 1) * sizeof *P->first_rep);
    if (!P->clone || !P->keys || !P->next_rep || !P->n_copies || !P->first_rep)
        return oom(P);
    for (int32_t f = 0; f < P->m->n_funcs; f++)
        P->first_rep[f] = -1;
    for (int32_t p = flat->n_paths - 1; p >= 0; p--) {
        int32_t f = flat->paths[p].func, *link = &P->first_rep[f];
        if (!path_key(P, p, &P->keys[p]))
            return false;
        while (*link >= 0 && strcmp(P->keys[*link], P->keys[p]) != 0)
            link = &P->next_rep[*link];
        if (*link >= 0) {
            P->clone[p] = P->clone[*link];
            continue;
        }
        P->clone[p] = P->n_copies[f]++;
        P->next_rep[p] = -1;
        *link = p;
    }
    return true;
}

/* Copies numbered in the order their first call path comes (0 keeps the
 * function's name): the first call of a layer keeps the original. Keys
 * hold the old numbers, but renumbering a callee's copies one to one
 * leaves which callers are equal as it was. */
static bool renumber_copies(planner *P)
{
    const pp_shard_flat *flat = P->flat;
    int32_t *new_of_rep = malloc(((size_t)flat->n_paths + 1) * sizeof *new_of_rep);
    int32_t *next = calloc((size_t)P->m->n_funcs + 1, sizeof *next);
    int32_t *renamed = malloc(((size_t)flat->n_paths + 1) * sizeof *renamed);
    bool ok = new_of_rep && next && renamed;
    for (int32_t p = 0; ok && p < flat->n_paths; p++)
        new_of_rep[p] = -1;
    for (int32_t p = 0; ok && p < flat->n_paths; p++) {
        int32_t f = flat->paths[p].func, rep = P->first_rep[f];
        while (P->clone[rep] != P->clone[p])
            rep = P->next_rep[rep];
        if (new_of_rep[rep] < 0)
            new_of_rep[rep] = next[f]++;
        renamed[p] = new_of_rep[rep];
    }
    if (ok)
        memcpy(P->clone, renamed, (size_t)flat->n_paths * sizeof *renamed);
    free(new_of_rep);
    free(next);
    free(renamed);
    return ok || oom(P);
}

/* ---- the edits of one copy ---- */

static void copy_name(const pp_shard_func *f, int32_t copy, char *buf, size_t size)
{
    if (copy == 0)
        snprintf(buf, size, "%s", f->name);
    else
        snprintf(buf, size, "%s_sharded_%d", f->name, (int)copy);
}

/* The symbol "@name" (or "@\"name\"") starting at or after `at`, before `end`. */
static bool find_symbol(const planner *P, size_t at, size_t end, size_t *start, size_t *stop)
{
    while (at < end && P->text[at] != '@')
        at++;
    if (at >= end)
        return false;
    *start = at++;
    if (at < end && P->text[at] == '"') {
        for (at++; at < end && P->text[at] != '"'; at++)
            at += P->text[at] == '\\';
        at++;
    } else {
        while (at < end && (strchr("_.$-", P->text[at]) || (P->text[at] >= '0' && P->text[at] <= '9') ||
                            ((P->text[at] | 32) >= 'a' && (P->text[at] | 32) <= 'z')))
            at++;
    }
    *stop = at;
    return true;
}

static bool fail_at(planner *P, size_t at, const char *why, const char *name)
{
    int line = 1, col = 1;
    for (size_t k = 0; k < at && k < P->size; k++) {
        col = P->text[k] == '\n' ? 1 : col + 1;
        line += P->text[k] == '\n';
    }
    P->status = pp_error_set(P->err, PP_EINPUT, "%s:%d:%d: %s %s", P->m->file, line, col, why, name);
    return false;
}

/* A call of a copied function calls its copy. */
static bool edit_call(planner *P, const pp_shard_op *op, int32_t copy, edits *E)
{
    const pp_shard_func *callee = &P->m->funcs[op->callee];
    size_t s, e;
    if (copy == 0)
        return true;
    if (!find_symbol(P, op->src_start, op->src_end, &s, &e))
        return fail_at(P, op->src_start, "cannot find the callee of this call to", callee->name);
    char name[300];
    copy_name(callee, copy, name, sizeof name);
    size_t n = strlen(name) + 2;
    char *text = malloc(n);
    if (text)
        snprintf(text, n, "@%s", name);
    return push_edit(P, E, s, e, text);
}

/* The leading blanks of the line holding `at`. */
static void indent_of(const planner *P, size_t at, shard_sbuf *b)
{
    size_t line = at;
    while (line > 0 && P->text[line - 1] != '\n')
        line--;
    size_t end = line;
    while (end < at && (P->text[end] == ' ' || P->text[end] == '\t'))
        end++;
    shard_sb_add(b, P->text + line, end - line);
}

/* "%def = <constraint> %use": the constraint on the value renamed `use`
 * that takes the name `def` (both without '%'). */
static void constraint_text(planner *P, const pp_shard_op *op, const char *def, const char *use, const char *sharding,
                            const pp_shard_type *type, shard_sbuf *b)
{
    char type_text[512];
    shard_type_text(type, type_text, sizeof type_text);
    shard_sb_str(b, "\n");
    indent_of(P, op->src_start, b);
    shard_sb_str(b, "%");
    shard_sb_str(b, def);
    if (P->format == PP_SHARD_FORMAT_SDY) {
        /* "#sdy.sharding<@mesh, [...]>" as an attribute; the op takes it without the prefix */
        shard_sb_str(b, " = sdy.sharding_constraint %");
        shard_sb_str(b, use);
        shard_sb_str(b, " ");
        shard_sb_str(b, sharding + strlen("#sdy.sharding"));
        shard_sb_str(b, " : ");
        shard_sb_str(b, type_text);
        return;
    }
    shard_sb_str(b, " = stablehlo.custom_call @Sharding(%");
    shard_sb_str(b, use);
    shard_sb_str(b, ") {mhlo.sharding = \"");
    shard_sb_str(b, sharding);
    shard_sb_str(b, "\"} : (");
    shard_sb_str(b, type_text);
    shard_sb_str(b, ") -> ");
    shard_sb_str(b, type_text);
}

/* Result j of an op, named at `at` in the text ("%name"): renamed, and the
 * constraint after the op under the old name. */
static bool edit_result(planner *P, const pp_shard_func *f, const pp_shard_op *op, int32_t flat_op, int32_t j,
                        size_t at, edits *E)
{
    int32_t v = P->flat->ops[flat_op].results[j];
    const char *name = f->values[op->results[j]].name;
    size_t len = strlen(name);
    char *sharding = NULL;
    if (!value_sharding(P, v, &sharding))
        return false;
    if (!sharding)
        return true;
    if (at + len + 1 > P->size || P->text[at] != '%' || memcmp(P->text + at + 1, name, len) != 0) {
        free(sharding);
        return fail_at(P, at, "expected the op's result name here:", name);
    }
    shard_sbuf renamed = {0}, after = {0};
    shard_sb_str(&renamed, "%");
    shard_sb_str(&renamed, P->prefix);
    shard_sb_str(&renamed, name);
    constraint_text(P, op, name, renamed.s ? renamed.s + 1 : "", sharding, &P->flat->values[v].type, &after);
    free(sharding);
    char *r = NULL, *a = NULL;
    if (shard_sb_take(&renamed, &r, P->err) != PP_OK || shard_sb_take(&after, &a, P->err) != PP_OK) {
        free(r);
        return oom(P);
    }
    return push_edit(P, E, at, at + len + 1, r) && push_edit(P, E, op->src_end, op->src_end, a);
}

/* An op whose results are written one name each ("%a, %b = ..."): each is
 * renamed and constrained as a lone result is, in order. Names mixed with
 * groups ("%a, %b:2 = ...") are left to propagation. */
static bool edit_named_results(planner *P, const pp_shard_func *f, const pp_shard_op *op, int32_t flat_op, edits *E)
{
    for (int32_t j = 0; j < op->n_results; j++)
        if (strchr(f->values[op->results[j]].name, '#'))
            return true; /* groups mixed with names: left to propagation */
    size_t at = op->src_start;
    for (int32_t j = 0; j < op->n_results; j++) {
        if (j > 0) {
            at += 1 + strlen(f->values[op->results[j - 1]].name);
            while (at < P->size && P->text[at] != '\0' && strchr(" \t\r\n,", P->text[at]))
                at++;
        }
        if (!edit_result(P, f, op, flat_op, j, at, E))
            return false;
    }
    return true;
}

/* The group name NAME of an op whose results read "NAME#0", "NAME#1", ...
 * (written "%NAME:K = ..."), its length in *len; NULL for any other form. */
static const char *group_name(const pp_shard_func *f, const pp_shard_op *op, size_t *len)
{
    const char *name = f->values[op->results[0]].name, *hash = strchr(name, '#');
    if (!hash)
        return NULL;
    *len = (size_t)(hash - name);
    for (int32_t j = 0; j < op->n_results; j++) {
        const char *r = f->values[op->results[j]].name;
        if (strncmp(r, name, *len + 1) != 0 || atoi(r + *len + 1) != j)
            return NULL;
    }
    return name;
}

static bool name_char(char c)
{
    return strchr("_.$-", c) || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* "%NAME_k" of result k, without the '%' when bare. */
static char *result_name(const planner *P, const char *group, size_t len, int32_t k, bool bare)
{
    size_t n = strlen(P->prefix) + len + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%.*s_%d", bare ? "" : "%", P->prefix, (int)len, group, (int)k);
    return s;
}

/* Every use "%NAME#k" after the op, up to the function's end, reads %<prefix>NAME_k. */
static bool edit_uses(planner *P, const pp_shard_func *f, const pp_shard_op *op, const char *group, size_t len,
                      edits *E)
{
    for (size_t at = op->src_end; at + len + 2 < f->src_end; at++) {
        const char *t = P->text + at;
        if (t[0] != '%' || memcmp(t + 1, group, len) != 0 || t[len + 1] != '#' || !isdigit((unsigned char)t[len + 2]))
            continue;
        char *end;
        long k = strtol(t + len + 2, &end, 10);
        if (k >= op->n_results || name_char(*end))
            continue;
        if (!push_edit(P, E, at, (size_t)(end - P->text), result_name(P, group, len, (int32_t)k, false)))
            return false;
        at = (size_t)(end - P->text) - 1;
    }
    return true;
}

/* The constraints after an op with several results, one per result, each
 * taking the name %<prefix>NAME_k; NULL with P->status still PP_OK when a
 * result is not a tensor. */
static char *result_constraints(planner *P, const pp_shard_func *f, const pp_shard_op *op, int32_t flat_op,
                                const char *group, size_t len)
{
    shard_sbuf after = {0};
    bool all = true;
    for (int32_t j = 0; all && j < op->n_results; j++) {
        int32_t v = P->flat->ops[flat_op].results[j];
        char *sharding = NULL, *def = result_name(P, group, len, j, true), use[300];
        all = value_sharding(P, v, &sharding) && sharding && (def || oom(P));
        snprintf(use, sizeof use, "%s%.*s#%d", P->prefix, (int)len, group, (int)j);
        for (int32_t k = 0; all && k < f->n_values; k++)
            if (strcmp(f->values[k].name, def + strlen(P->prefix)) == 0)
                all = fail_at(P, op->src_start, "cannot name this op's results apart: the module has a value named",
                              f->values[k].name);
        if (all)
            constraint_text(P, op, def, use, sharding, &P->flat->values[v].type, &after);
        free(sharding);
        free(def);
    }
    char *text = NULL;
    if (!all)
        free(after.s);
    else if (shard_sb_take(&after, &text, P->err) != PP_OK)
        oom(P);
    return text;
}

/* An op with several results, written "%NAME:K = ...": its uses read
 * %NAME#k, a name no constraint can take over. So the op's group is renamed
 * (%<prefix>NAME:K), a constraint after the op gives each result a name of
 * its own (%<prefix>NAME_k) and each use further on reads that name. An op
 * with a result that is not a tensor, or whose groups mix ("%a:2, %b"), is
 * left to propagation. */
static bool edit_results(planner *P, const pp_shard_func *f, const pp_shard_op *op, int32_t flat_op, edits *E)
{
    size_t len = 0;
    const char *group = group_name(f, op, &len);
    if (!group)
        return true;
    if (P->text[op->src_start] != '%' || memcmp(P->text + op->src_start + 1, group, len) != 0 ||
        P->text[op->src_start + 1 + len] != ':')
        return fail_at(P, op->src_start, "expected the op's results here:", group);
    char *after = result_constraints(P, f, op, flat_op, group, len);
    if (!after)
        return P->status == PP_OK;
    char *prefix = malloc(strlen(P->prefix) + 1);
    if (prefix)
        strcpy(prefix, P->prefix);
    if (!push_edit(P, E, op->src_end, op->src_end, after)) {
        free(prefix);
        return false;
    }
    return push_edit(P, E, op->src_start + 1, op->src_start + 1, prefix) && edit_uses(P, f, op, group, len, E);
}

/* The edits of path p's function text for the layouts of p. */
static bool path_edits(planner *P, int32_t p, edits *E)
{
    const pp_shard_func *f = &P->m->funcs[P->flat->paths[p].func];
    bool ok = true;
    for (int32_t k = 0; ok && k < f->n_ops; k++) {
        const pp_shard_op *op = &f->ops[k];
        int32_t slot = P->base[p] + k;
        if (P->op_child[slot] >= 0)
            ok = edit_call(P, op, P->clone[P->op_child[slot]], E);
        else if (P->op_flat[slot] >= 0 && op->n_results == 1)
            ok = edit_result(P, f, op, P->op_flat[slot], 0, op->src_start, E);
        else if (P->op_flat[slot] >= 0 && op->n_results > 1 && strchr(f->values[op->results[0]].name, '#'))
            ok = edit_results(P, f, op, P->op_flat[slot], E);
        else if (P->op_flat[slot] >= 0 && op->n_results > 1)
            ok = edit_named_results(P, f, op, P->op_flat[slot], E);
    }
    return ok;
}

/* Copy c of a function, with its own name, after the original. */
static bool add_copy(planner *P, int32_t p, edits *main)
{
    int32_t fi = P->flat->paths[p].func;
    const pp_shard_func *f = &P->m->funcs[fi];
    char name[300];
    copy_name(f, P->clone[p], name, sizeof name);
    if (pp_shard_module_find_func(P->m, name) >= 0)
        return fail_at(P, f->src_start, "cannot copy this function: the name of its copy is taken:", name);
    edits E = {0};
    size_t s, e;
    bool ok = find_symbol(P, f->src_start, f->src_end, &s, &e) || fail_at(P, f->src_start, "no name in", f->name);
    char *sym = ok ? malloc(strlen(name) + 2) : NULL;
    if (sym)
        snprintf(sym, strlen(name) + 2, "@%s", name);
    ok = ok && push_edit(P, &E, s, e, sym) && path_edits(P, p, &E);
    shard_sbuf b = {0};
    if (ok) {
        shard_sb_str(&b, "\n");
        indent_of(P, f->src_start, &b);
        apply(P->text, f->src_start, f->src_end, &E, &b);
    }
    edits_free(&E);
    char *text = NULL;
    if (ok && shard_sb_take(&b, &text, P->err) != PP_OK)
        return oom(P);
    if (!ok)
        free(b.s);
    P->copies++;
    return ok && push_edit(P, main, f->src_end, f->src_end, text);
}

static bool plan_edits(planner *P, edits *E)
{
    for (int32_t f = 0; f < P->m->n_funcs; f++)
        for (int32_t p = P->first_rep[f]; p >= 0; p = P->next_rep[p])
            if (!(P->clone[p] == 0 ? path_edits(P, p, E) : add_copy(P, p, E)))
                return false;
    return true;
}

/* The text with its signature written must read as the module the plan is of. */
static bool same_shape(planner *P)
{
    const pp_shard_flat *a = P->nda->flat, *b = P->flat;
    bool same = a->n_ops == b->n_ops && a->n_values == b->n_values && a->n_paths == b->n_paths;
    for (int32_t i = 0; same && i < a->n_ops; i++)
        same = a->ops[i].func == b->ops[i].func && a->ops[i].op == b->ops[i].op;
    if (!same)
        P->status = pp_error_set(P->err, PP_EINPUT, "%s: the module written does not read back as the one planned",
                                 P->m->file);
    return same;
}

static void planner_free(planner *P)
{
    for (int32_t p = 0; P->keys && p < P->flat->n_paths; p++)
        free(P->keys[p]);
    free(P->keys);
    free(P->base);
    free(P->op_flat);
    free(P->op_child);
    free(P->clone);
    free(P->n_copies);
    free(P->first_rep);
    free(P->next_rep);
}

/* The constraints and copies on `text`, the module with its signature written. */
static pp_status write_ops(planner *P, char **out, size_t *out_size)
{
    edits E = {0};
    shard_sbuf b = {0};
    bool ok = same_shape(P) && index_paths(P) && assign_copies(P) && renumber_copies(P) && plan_edits(P, &E);
    if (ok)
        apply(P->text, 0, P->size, &E, &b);
    edits_free(&E);
    if (!ok) {
        free(b.s);
        return P->status;
    }
    *out_size = b.n;
    return shard_sb_take(&b, out, P->err);
}

pp_status pp_shard_write_plan(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                              pp_shard_format format, const char *text, size_t size, char **out, size_t *out_size,
                              pp_shard_write_stats *stats, pp_error *err)
{
    char *signed_text = NULL;
    size_t signed_size = 0;
    pp_shard_module *m = NULL;
    pp_shard_flat *flat = NULL;
    *out = NULL;
    *out_size = 0;
    pp_status st = pp_shard_write_module(nda, mesh, axes, format, text, size, &signed_text, &signed_size, err);
    if (st == PP_OK)
        st = pp_shard_module_parse(nda->flat->module->file, signed_text, signed_size, &m, err);
    if (st == PP_OK)
        st = pp_shard_module_flatten(m, 0, &flat, err);
    planner P = {.nda = nda, .mesh = mesh, .axes = axes, .format = format, .m = m, .flat = flat,
                 .text = signed_text, .size = signed_size, .err = err};
    if (st == PP_OK) {
        shard_write_prefix(nda->flat->module, P.prefix, sizeof P.prefix);
        st = write_ops(&P, out, out_size);
    }
    pp_shard_write_stats found = {0};
    if (st == PP_OK)
        st = pp_shard_write_check(nda, mesh, axes, format, *out, *out_size, &found, err);
    found.copies = P.copies;
    if (st == PP_OK && stats)
        *stats = found;
    if (st != PP_OK) {
        free(*out);
        *out = NULL;
        *out_size = 0;
    }
    planner_free(&P);
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
    free(signed_text);
    return st;
}
