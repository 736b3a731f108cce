/* write.c: the writer of the sharded module (issue 8, `parplan shard --out`):
 * the sharding of one tensor as a GSPMD string or a Shardy attribute, and
 * the patching of the module's partition count and the entry function's
 * signature in the original text. The text is patched rather than the
 * module printed again because the reader keeps no more than the sharder
 * needs (constants' payloads, locations, comments and dialect resources
 * would be lost or reformatted). The text is walked with the reader's own
 * lexer, type grammar and attribute dictionaries (load_internal.h), from
 * the offsets the reader noted, so the writer cannot read a module
 * differently from the reader that accepted it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_write.h"
#include "shard/load_internal.h"
#include "shard/write_internal.h"

pp_status pp_shard_format_parse(const char *text, pp_shard_format *out, pp_error *err)
{
    if (strcmp(text, "gspmd") == 0)
        *out = PP_SHARD_FORMAT_GSPMD;
    else if (strcmp(text, "sdy") == 0)
        *out = PP_SHARD_FORMAT_SDY;
    else
        return pp_error_set(err, PP_EARG, "format '%s': expected gspmd or sdy", text);
    return PP_OK;
}

/* ---- the sharding of one tensor ---- */

static pp_status check_axes(const pp_shard_mesh *mesh, const uint8_t *dim_axes, int32_t rank, pp_error *err)
{
    unsigned seen = 0;
    for (int32_t d = 0; d < rank; d++) {
        unsigned bits = dim_axes[d];
        if (bits >> mesh->n_axes)
            return pp_error_set(err, PP_EARG, "dimension %d is sharded over axis bits 0x%x, beyond the mesh's %d axes",
                                (int)d, bits, (int)mesh->n_axes);
        for (int32_t a = 0; a < mesh->n_axes; a++)
            if (bits & seen & (1u << a))
                return pp_error_set(err, PP_EINPUT, "mesh axis '%s' shards two dimensions of one tensor",
                                    mesh->names[a]);
        seen |= bits;
    }
    return PP_OK;
}

/* Devices in tile order: counting over the axes in `order` (dimension by
 * dimension, then the replicated ones, the last fastest), each device's id
 * being its row-major position in the mesh. */
static void gspmd_devices(const pp_shard_mesh *mesh, const int32_t *order, shard_sbuf *b)
{
    int64_t stride[PP_SHARD_MAX_AXES], coord[PP_SHARD_MAX_AXES] = {0}, s = 1;
    for (int32_t a = mesh->n_axes - 1; a >= 0; a--) {
        stride[a] = s;
        s *= mesh->sizes[a];
    }
    for (int64_t i = 0; i < s; i++) {
        int64_t dev = 0;
        for (int32_t a = 0; a < mesh->n_axes; a++)
            dev += coord[a] * stride[a];
        if (i > 0)
            shard_sb_str(b, ",");
        shard_sb_int(b, dev);
        for (int32_t k = mesh->n_axes - 1; k >= 0; k--) {
            if (++coord[order[k]] < mesh->sizes[order[k]])
                break;
            coord[order[k]] = 0;
        }
    }
}

static void gspmd_text(const pp_shard_mesh *mesh, const uint8_t *dim_axes, int32_t rank, shard_sbuf *b)
{
    int32_t order[PP_SHARD_MAX_AXES], n = 0;
    int64_t used = 1, replicated = 1;
    unsigned all = 0;
    for (int32_t d = 0; d < rank; d++)
        for (int32_t a = 0; a < mesh->n_axes; a++)
            if (dim_axes[d] >> a & 1) {
                order[n++] = a;
                used *= mesh->sizes[a];
                all |= 1u << a;
            }
    if (used == 1) {
        shard_sb_str(b, "{replicated}");
        return;
    }
    for (int32_t a = 0; a < mesh->n_axes; a++)
        if (!(all >> a & 1)) {
            order[n++] = a;
            replicated *= mesh->sizes[a];
        }
    shard_sb_str(b, "{devices=[");
    for (int32_t d = 0; d < rank; d++) {
        if (d > 0)
            shard_sb_str(b, ",");
        shard_sb_int(b, shard_axes_devices(mesh, dim_axes[d]));
    }
    if (replicated > 1) {
        shard_sb_str(b, ",");
        shard_sb_int(b, replicated);
    }
    shard_sb_str(b, "]");
    gspmd_devices(mesh, order, b);
    shard_sb_str(b, replicated > 1 ? " last_tile_dim_replicate}" : "}");
}

static void sdy_text(const pp_shard_mesh *mesh, const uint8_t *dim_axes, int32_t rank, shard_sbuf *b)
{
    shard_sb_str(b, "#sdy.sharding<@mesh, [");
    for (int32_t d = 0; d < rank; d++) {
        shard_sb_str(b, d > 0 ? ", {" : "{");
        bool first = true;
        for (int32_t a = 0; a < mesh->n_axes; a++)
            if (dim_axes[d] >> a & 1) {
                shard_sb_str(b, first ? "\"" : ", \"");
                shard_sb_str(b, mesh->names[a]);
                shard_sb_str(b, "\"");
                first = false;
            }
        shard_sb_str(b, "}");
    }
    shard_sb_str(b, "]>");
}

pp_status pp_shard_sharding_text(const pp_shard_mesh *mesh, pp_shard_format format, const uint8_t *dim_axes,
                                 int32_t rank, char **out, pp_error *err)
{
    *out = NULL;
    pp_status st = check_axes(mesh, dim_axes, rank, err);
    if (st != PP_OK)
        return st;
    shard_sbuf b = {0};
    if (format == PP_SHARD_FORMAT_SDY)
        sdy_text(mesh, dim_axes, rank, &b);
    else
        gspmd_text(mesh, dim_axes, rank, &b);
    return shard_sb_take(&b, out, err);
}

pp_status pp_shard_sdy_mesh_text(const pp_shard_mesh *mesh, char **out, pp_error *err)
{
    shard_sbuf b = {0};
    shard_sb_str(&b, "sdy.mesh @mesh = <[");
    for (int32_t a = 0; a < mesh->n_axes; a++) {
        shard_sb_str(&b, a > 0 ? ", \"" : "\"");
        shard_sb_str(&b, mesh->names[a]);
        shard_sb_str(&b, "\"=");
        shard_sb_int(&b, mesh->sizes[a]);
    }
    shard_sb_str(&b, "]>");
    return shard_sb_take(&b, out, err);
}

/* ---- the text, walked with the reader's lexer ---- */

typedef struct {
    reader R; /* the StableHLO reader's lexer over the text (load_internal.h) */
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    const uint8_t *axes;
    pp_shard_format format;
    const char *key;
    shard_sbuf out;
    size_t copied; /* input bytes up to here are in out */
} writer;

/* The offset of the current token. */
static size_t here(const writer *W)
{
    return (size_t)(W->R.tok.s - W->R.text);
}

/* An attribute dictionary: where the sharding entry is, or where one goes. */
typedef struct {
    size_t open, close;
    size_t found_start, found_end; /* an existing sharding entry */
    bool found, found_own;
    /* the other format's sharding entry, cut out with its separator,
     * [cut_start, cut_end), when our own is there too */
    bool other_seen, cut_open;
    size_t cut_start, cut_end;
    size_t insert_at; /* the first entry whose key sorts after the new one */
    bool has_insert;
    size_t last_end;
    int n_entries;
} dict_scan;

static int key_compare(const char *k, size_t len, const char *key)
{
    size_t klen = strlen(key);
    int c = memcmp(k, key, len < klen ? len : klen);
    return c ? c : (len > klen) - (len < klen);
}

static void note_entry(dict_scan *D, const char *k, size_t len, const char *key, size_t start, size_t end)
{
    if (len >= 2 && k[0] == '"') {
        k++;
        len -= 2;
    }
    bool own = key_compare(k, len, key) == 0;
    bool sharding = strcmp(key, "mhlo.sharding") == 0 || strcmp(key, "sdy.sharding") == 0;
    bool other = !own && sharding &&
                 (key_compare(k, len, "mhlo.sharding") == 0 || key_compare(k, len, "sdy.sharding") == 0);
    if (D->cut_open) { /* the other entry was the first: cut it up to this one */
        D->cut_end = start;
        D->cut_open = false;
    }
    if (other && !D->other_seen) {
        D->other_seen = true;
        D->cut_start = D->n_entries ? D->last_end : start;
        D->cut_end = end;
        D->cut_open = D->n_entries == 0;
    }
    if (own || (other && !D->found)) {
        D->found = true;
        D->found_own = own;
        D->found_start = start;
        D->found_end = end;
    }
    if (!D->has_insert && key_compare(k, len, key) > 0) {
        D->has_insert = true;
        D->insert_at = start;
    }
    D->n_entries++;
    D->last_end = end;
}

/* The dictionary at the current '{', read by the reader's attribute
 * grammar: an entry spans its key to the end of its value's last token. */
static bool scan_dict(writer *W, const char *key, dict_scan *D)
{
    memset(D, 0, sizeof *D);
    D->open = here(W);
    vec attrs = {0};
    bool ok = shard_attr_dict(&W->R, &attrs, "}");
    if (ok)
        D->close = W->R.prev_end - 1;
    const attr *a = attrs.data;
    for (int32_t k = 0; ok && k < attrs.n; k++) {
        const char *end = a[k].val ? a[k].val + a[k].val_len : a[k].key + a[k].key_len;
        note_entry(D, a[k].key, a[k].key_len, key, (size_t)(a[k].key - W->R.text), (size_t)(end - W->R.text));
    }
    free(attrs.data);
    return ok;
}

/* ---- patching ---- */

/* Copies the input up to start, writes the parts, and skips the input up to end. */
static void splice(writer *W, size_t start, size_t end, const char *before, const char *mid, const char *after)
{
    shard_sb_add(&W->out, W->R.text + W->copied, start - W->copied);
    shard_sb_str(&W->out, before);
    shard_sb_str(&W->out, mid);
    shard_sb_str(&W->out, after);
    W->copied = end;
}

/* "mhlo.sharding = \"{...}\"" or "sdy.sharding = #sdy.sharding<...>" for
 * tensor occurrence t, whose type is at line:col. */
static bool sharding_entry(writer *W, int32_t t, const pp_shard_param *p, int line, int col, char **entry)
{
    reader *R = &W->R;
    const pp_shard_nda_tensor *tensor = &W->nda->tensors[t];
    if (tensor->rank != p->type.rank)
        return shard_lex_fail(R, line, col,
                              "the layout's tensor has rank %d, this type rank %d (is the text the one the module was read from?)",
                              (int)tensor->rank, (int)p->type.rank);
    char *value = NULL;
    pp_error why = {0};
    pp_status st = pp_shard_sharding_text(W->mesh, W->format, W->axes + tensor->first, tensor->rank, &value, &why);
    if (st != PP_OK) {
        pp_error_set(R->err, st, "%s:%d:%d: %s", R->file, line, col, why.message);
        return false;
    }
    shard_sbuf b = {0};
    shard_sb_str(&b, W->key);
    shard_sb_str(&b, W->format == PP_SHARD_FORMAT_SDY ? " = " : " = \"");
    shard_sb_str(&b, value);
    shard_sb_str(&b, W->format == PP_SHARD_FORMAT_SDY ? "" : "\"");
    free(value);
    return shard_sb_take(&b, entry, R->err) == PP_OK;
}

/* Our entry replaces the existing sharding entry (ours, else the other
 * format's) or goes in sorted position; with both formats there, the other
 * one is cut, so no stale sharding contradicts the new one. */
static void patch_dict(writer *W, const dict_scan *D, const char *entry)
{
    bool cut = D->found_own && D->other_seen;
    if (cut && D->cut_start < D->found_start)
        splice(W, D->cut_start, D->cut_end, "", "", "");
    if (D->found)
        splice(W, D->found_start, D->found_end, "", entry, "");
    else if (D->has_insert)
        splice(W, D->insert_at, D->insert_at, "", entry, ", ");
    else if (D->n_entries > 0)
        splice(W, D->last_end, D->last_end, ", ", entry, "");
    else
        splice(W, D->open + 1, D->close, "", entry, "");
    if (cut && D->cut_start > D->found_start)
        splice(W, D->cut_start, D->cut_end, "", "", "");
}

/* A parameter's type and attribute dictionary, from after the ':' of an
 * argument or at a result in parentheses. */
static bool write_param(writer *W, int32_t t, const pp_shard_param *p)
{
    reader *R = &W->R;
    int line = R->tok.line, col = R->tok.col;
    pp_shard_type type;
    if (!shard_read_type(R, &type))
        return false;
    size_t end = R->prev_end;
    bool has_dict = shard_lex_is_punct(R, "{");
    if (p->type.rank < 0)
        return !has_dict || shard_lex_skip_group(R);
    char *entry = NULL;
    if (!sharding_entry(W, t, p, line, col, &entry))
        return false;
    dict_scan D = {0};
    bool ok = !has_dict || scan_dict(W, W->key, &D);
    if (ok && has_dict)
        patch_dict(W, &D, entry);
    else if (ok)
        splice(W, end, end, " {", entry, "}");
    free(entry);
    return ok;
}

static bool write_arg(writer *W, const pp_shard_func *f, int32_t k)
{
    reader *R = &W->R;
    if (k >= f->n_args)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "more arguments than the entry function @%s has in the module (%d)",
                              f->name, (int)f->n_args);
    if (R->tok.kind != T_VALUE)
        return shard_lex_expected(R, "an argument (%name: type)");
    return shard_lex_next(R) && shard_lex_expect(R, ":", "':' after the argument name") &&
           write_param(W, k, &f->args[k]) && shard_lex_skip_loc(R);
}

static bool write_result(writer *W, const pp_shard_func *f, int32_t k)
{
    reader *R = &W->R;
    if (k >= f->n_results)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "more results than the entry function @%s has in the module (%d)",
                              f->name, (int)f->n_results);
    return write_param(W, W->nda->out_use + k, &f->results[k]) && shard_lex_skip_loc(R);
}

/* A parenthesised list of arguments or results after its '(', up to its
 * ')' (left current), checked to have as many as the entry function. */
static bool write_list(writer *W, const pp_shard_func *f, bool args)
{
    reader *R = &W->R;
    int32_t n = 0, want = args ? f->n_args : f->n_results;
    bool ok = true;
    while (!shard_lex_is_punct(R, ")")) {
        if (!(args ? write_arg(W, f, n) : write_result(W, f, n)))
            return false;
        n++;
        if (!shard_lex_accept(R, ",", &ok) && !shard_lex_is_punct(R, ")"))
            return shard_lex_expected(R, args ? "',' or ')' after an argument" : "',' or ')' after a result");
        if (!ok)
            return false;
    }
    if (n != want)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "%d %s where the entry function @%s has %d in the module",
                              (int)n, args ? "arguments" : "results", f->name, (int)want);
    return true;
}

/* "-> type": the one result gets parentheses around it and its dictionary. */
static bool write_single_result(writer *W, const pp_shard_func *f)
{
    reader *R = &W->R;
    size_t start = here(W);
    int line = R->tok.line, col = R->tok.col;
    if (f->n_results != 1)
        return shard_lex_fail(R, line, col, "one result where the entry function @%s has %d in the module", f->name,
                              (int)f->n_results);
    pp_shard_type type;
    if (!shard_read_type(R, &type))
        return false;
    size_t end = R->prev_end;
    if (f->results[0].type.rank < 0)
        return true;
    char *entry = NULL;
    if (!sharding_entry(W, W->nda->out_use, &f->results[0], line, col, &entry))
        return false;
    splice(W, start, start, "(", "", "");
    splice(W, end, end, " {", entry, "})");
    free(entry);
    return true;
}

static bool write_results(writer *W, const pp_shard_func *f)
{
    reader *R = &W->R;
    bool ok = true;
    if (!shard_lex_accept(R, "->", &ok)) {
        if (f->n_results != 0)
            return shard_lex_fail(R, R->tok.line, R->tok.col, "expected '->' and the %d results of the entry function @%s",
                                  (int)f->n_results, f->name);
        return true;
    }
    if (!ok)
        return false;
    if (!shard_lex_accept(R, "(", &ok))
        return write_single_result(W, f);
    return ok && write_list(W, f, false);
}

/* The entry's "func.func" at the offset, line and column the reader noted,
 * the lexer placed there: the text must be the one the module was read from. */
static bool find_entry(writer *W, const pp_shard_func *f)
{
    reader *R = &W->R;
    size_t len = strlen("func.func");
    bool there = f->col >= 1 && (size_t)(f->col - 1) <= f->src_start && f->src_start + len <= R->size &&
                 memcmp(R->text + f->src_start, "func.func", len) == 0;
    for (size_t k = f->src_start - (size_t)(f->col - 1); there && k < f->src_start; k++)
        there = R->text[k] != '\n';
    if (!there)
        return shard_lex_fail(R, f->line, f->col,
                              "expected the entry function @%s here (is the text the one the module was read from?)",
                              f->name);
    R->pos = f->src_start;
    R->line = f->line;
    R->col = f->col;
    return shard_lex_next(R);
}

static bool write_signature(writer *W, const pp_shard_func *f)
{
    reader *R = &W->R;
    if (!shard_lex_next(R))
        return false;
    if ((shard_lex_is_word(R, "public") || shard_lex_is_word(R, "private") || shard_lex_is_word(R, "nested")) &&
        !shard_lex_next(R))
        return false;
    if (R->tok.kind != T_SYMBOL)
        return shard_lex_expected(R, "the function name (@name)");
    return shard_lex_next(R) && shard_lex_expect(R, "(", "'(' before the function's arguments") &&
           write_list(W, f, true) && shard_lex_next(R) && write_results(W, f);
}

/* ---- the module's partition count ---- */

/* "mhlo.num_partitions = N : i32" into the top-level module's attribute
 * dictionary, replacing the entry there is, or into a new "attributes
 * {...}" clause; nothing when the text's first op (after comments and
 * aliases) is not a module. */
static bool write_partitions(writer *W)
{
    reader *R = &W->R;
    if (!shard_lex_next(R))
        return false;
    while (R->tok.kind == T_HASH)
        if (!shard_skip_alias(R))
            return false;
    if (!shard_lex_is_word(R, "module"))
        return true;
    if (!shard_lex_next(R) || (R->tok.kind == T_SYMBOL && !shard_lex_next(R)))
        return false;
    char entry[64];
    snprintf(entry, sizeof entry, "mhlo.num_partitions = %lld : i32", (long long)pp_shard_mesh_devices(W->mesh));
    size_t after_name = R->prev_end;
    if (!shard_lex_is_word(R, "attributes")) {
        splice(W, after_name, after_name, " attributes {", entry, "}");
        return true;
    }
    if (!shard_lex_next(R))
        return false;
    if (!shard_lex_is_punct(R, "{"))
        return shard_lex_expected(R, "'{' after the module's attributes");
    dict_scan D;
    if (!scan_dict(W, "mhlo.num_partitions", &D))
        return false;
    patch_dict(W, &D, entry);
    return true;
}

/* The mesh declaration on a line of its own before the entry function, indented alike. */
static bool insert_mesh(writer *W, const pp_shard_func *f)
{
    char *decl = NULL;
    if (pp_shard_sdy_mesh_text(W->mesh, &decl, W->R.err) != PP_OK)
        return false;
    size_t func_at = f->src_start, line_at = func_at - (size_t)(f->col - 1);
    bool indented = true;
    for (size_t k = line_at; k < func_at; k++)
        indented = indented && (W->R.text[k] == ' ' || W->R.text[k] == '\t');
    splice(W, func_at, func_at, decl, indented ? "\n" : " ", "");
    if (indented)
        shard_sb_add(&W->out, W->R.text + line_at, func_at - line_at);
    free(decl);
    return true;
}

pp_status pp_shard_write_module(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                                pp_shard_format format, const char *text, size_t size, char **out,
                                size_t *out_size, pp_error *err)
{
    *out = NULL;
    *out_size = 0;
    const pp_shard_module *m = nda->flat->module;
    if (m->entry < 0 || m->entry >= m->n_funcs)
        return pp_error_set(err, PP_EARG, "writing the sharded module: the module has no entry function");
    const pp_shard_func *f = &m->funcs[m->entry];
    if (nda->flat->n_inputs != f->n_args || nda->flat->n_outputs != f->n_results)
        return pp_error_set(err, PP_EARG, "writing the sharded module: the analysis is not of the entry function @%s",
                            f->name);
    pp_error local = {0};
    pp_arena *arena = pp_arena_new(1 << 12); /* the dims of the types read on the way */
    if (!arena)
        return pp_error_set(err, PP_ENOMEM, "writing the sharded module: out of memory");
    writer W = {.R = {.file = m->file ? m->file : "<module>", .text = text, .size = size, .line = 1, .col = 1,
                      .arena = arena, .err = err ? err : &local},
                .nda = nda,
                .mesh = mesh,
                .axes = axes,
                .format = format,
                .key = format == PP_SHARD_FORMAT_SDY ? "sdy.sharding" : "mhlo.sharding"};
    bool ok = write_partitions(&W) && find_entry(&W, f) && (format != PP_SHARD_FORMAT_SDY || insert_mesh(&W, f)) &&
              write_signature(&W, f);
    pp_arena_free(arena);
    if (!ok) {
        free(W.out.s);
        return W.R.err->status != PP_OK ? W.R.err->status : PP_EINPUT;
    }
    shard_sb_add(&W.out, text + W.copied, size - W.copied);
    size_t n = W.out.n;
    pp_status st = shard_sb_take(&W.out, out, err);
    if (st == PP_OK)
        *out_size = n;
    return st;
}
