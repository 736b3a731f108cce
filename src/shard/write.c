/* write.c: the writer of the sharded module (issue 8, `parplan shard --out`):
 * the sharding of one tensor as a GSPMD string or a Shardy attribute, and
 * the patching of the module's partition count and the entry function's
 * signature in the original text. The text is patched rather than the
 * module printed again because the reader keeps no more than the sharder
 * needs (constants' payloads, locations, comments and dialect resources
 * would be lost or reformatted). */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_write.h"
#include "shard/shard_internal.h"
#include "shard/write_internal.h"

#define MAX_NEST 256

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

/* ---- scanning the entry function's signature ---- */

typedef struct {
    const char *file, *s;
    size_t n, pos;
    pp_error *err;
    pp_status status;
} scan;

static bool fail(scan *S, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void position(const scan *S, size_t at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t k = 0; k < at && k < S->n; k++) {
        *col = S->s[k] == '\n' ? 1 : *col + 1;
        *line += S->s[k] == '\n';
    }
}

static bool fail(scan *S, size_t at, const char *fmt, ...)
{
    int line, col;
    position(S, at, &line, &col);
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    S->status = pp_error_set(S->err, PP_EINPUT, "%s:%d:%d: %s", S->file, line, col, why);
    return false;
}

static int peek(const scan *S, size_t k)
{
    return S->pos + k < S->n ? (unsigned char)S->s[S->pos + k] : -1;
}

static bool at_comment(const scan *S)
{
    return peek(S, 0) == '/' && peek(S, 1) == '/';
}

static void skip_space(scan *S)
{
    for (;;) {
        int c = peek(S, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            S->pos++;
        else if (at_comment(S))
            while (S->pos < S->n && S->s[S->pos] != '\n')
                S->pos++;
        else
            return;
    }
}

/* The word at the position, not followed by more of a name. */
static bool at_word(const scan *S, const char *word)
{
    size_t len = strlen(word);
    if (S->pos + len > S->n || memcmp(S->s + S->pos, word, len) != 0)
        return false;
    int next = peek(S, len);
    return next < 0 || !(isalnum(next) || next == '_' || next == '.' || next == '$');
}

static bool is_name_char(int c)
{
    return c >= 0 && (isalnum(c) || c == '_' || c == '.' || c == '$' || c == '-');
}

static void skip_name(scan *S)
{
    while (is_name_char(peek(S, 0)))
        S->pos++;
}

static bool skip_string(scan *S)
{
    size_t start = S->pos++;
    while (S->pos < S->n && S->s[S->pos] != '"')
        S->pos += S->s[S->pos] == '\\' ? 2 : 1;
    if (S->pos >= S->n)
        return fail(S, start, "unterminated string");
    S->pos++;
    return true;
}

static bool expect_char(scan *S, char c, const char *what)
{
    skip_space(S);
    if (peek(S, 0) != c)
        return fail(S, S->pos, "expected %s", what);
    S->pos++;
    return true;
}

static char closing(char open)
{
    return open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '>';
}

/* Skips text balanced in (), [], {}, <> and strings ("->" is an arrow, not
 * a bracket), up to a character of `stops` or a comment at depth 0, or with
 * `one_group` to the end of the bracket group it starts at. */
static bool skip_run(scan *S, const char *stops, bool one_group)
{
    char stack[MAX_NEST];
    size_t opened[MAX_NEST];
    int depth = 0;
    while (S->pos < S->n) {
        char c = S->s[S->pos];
        if (depth == 0 && ((c != '\0' && strchr(stops, c)) || at_comment(S)))
            return true;
        if (c == '"') {
            if (!skip_string(S))
                return false;
            continue;
        }
        if (at_comment(S)) {
            skip_space(S);
            continue;
        }
        if (c == '-' && peek(S, 1) == '>') {
            S->pos += 2;
            continue;
        }
        if (c != '\0' && strchr("([{<", c)) {
            if (depth == MAX_NEST)
                return fail(S, S->pos, "brackets nested too deep");
            opened[depth] = S->pos;
            stack[depth++] = c;
        } else if (c != '\0' && strchr(")]}>", c)) {
            if (depth == 0)
                return fail(S, S->pos, "unbalanced '%c'", c);
            if (c != closing(stack[depth - 1]))
                return fail(S, S->pos, "expected '%c' to close the '%c', got '%c'", closing(stack[depth - 1]),
                            stack[depth - 1], c);
            depth--;
        }
        S->pos++;
        if (one_group && depth == 0)
            return true;
    }
    if (depth > 0)
        return fail(S, opened[depth - 1], "this '%c' is never closed", stack[depth - 1]);
    return true;
}

/* Where a location glued to a type begins ("tensor<4xf32>loc(...)": MLIR's
 * lexer reads two tokens there, the run of text one), else end. */
static size_t glued_loc(const scan *S, size_t start, size_t end)
{
    int depth = 0;
    for (size_t k = start; k < end; k++) {
        char c = S->s[k];
        if (c == '"') {
            for (k++; k < end && S->s[k] != '"'; k++)
                k += S->s[k] == '\\';
            continue;
        }
        if (c == '-' && k + 1 < end && S->s[k + 1] == '>') {
            k++;
            continue;
        }
        depth += c != '\0' && strchr("([{<", c);
        depth -= c != '\0' && strchr(")]}>", c);
        if (depth == 0 && c == '>' && k + 5 <= end && memcmp(S->s + k + 1, "loc(", 4) == 0)
            return k + 1;
    }
    return end;
}

static bool scan_type(scan *S, size_t *start, size_t *end)
{
    skip_space(S);
    *start = S->pos;
    if (!skip_run(S, " \t\r\n,){}", false))
        return false;
    if (S->pos == *start)
        return fail(S, S->pos, "expected a type");
    *end = S->pos = glued_loc(S, *start, S->pos);
    return true;
}

static bool skip_loc(scan *S)
{
    skip_space(S);
    if (!at_word(S, "loc"))
        return true;
    size_t word = S->pos;
    S->pos += 3;
    skip_space(S);
    if (peek(S, 0) != '(')
        return fail(S, word, "expected '(' after loc");
    return skip_run(S, "", true);
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

static size_t trim_end(const scan *S, size_t start, size_t end)
{
    while (end > start && isspace((unsigned char)S->s[end - 1]))
        end--;
    return end;
}

static bool scan_entry(scan *S, const char *key, dict_scan *D)
{
    size_t ks = S->pos;
    if (peek(S, 0) == '"') {
        if (!skip_string(S))
            return false;
    } else {
        skip_name(S);
    }
    size_t ke = S->pos, ve = ke;
    if (ke == ks)
        return fail(S, S->pos, "expected an attribute name");
    skip_space(S);
    if (peek(S, 0) == '=') {
        S->pos++;
        skip_space(S);
        size_t vs = S->pos;
        if (!skip_run(S, ",}", false))
            return false;
        ve = trim_end(S, vs, S->pos);
        if (ve == vs)
            return fail(S, vs, "expected an attribute value");
    }
    note_entry(D, S->s + ks, ke - ks, key, ks, ve);
    return true;
}

static bool scan_dict(scan *S, const char *key, dict_scan *D)
{
    memset(D, 0, sizeof *D);
    D->open = S->pos++;
    for (;;) {
        skip_space(S);
        if (peek(S, 0) == '}')
            break;
        if (D->n_entries > 0) {
            if (peek(S, 0) != ',')
                return fail(S, S->pos, "expected ',' or '}' in the attribute dictionary");
            S->pos++;
            skip_space(S);
        }
        if (!scan_entry(S, key, D))
            return false;
    }
    D->close = S->pos++;
    return true;
}

/* ---- patching ---- */

typedef struct {
    scan S;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    const uint8_t *axes;
    pp_shard_format format;
    const char *key;
    shard_sbuf out;
    size_t copied; /* input bytes up to here are in out */
} writer;

/* Copies the input up to start, writes the parts, and skips the input up to end. */
static void splice(writer *W, size_t start, size_t end, const char *before, const char *mid, const char *after)
{
    shard_sb_add(&W->out, W->S.s + W->copied, start - W->copied);
    shard_sb_str(&W->out, before);
    shard_sb_str(&W->out, mid);
    shard_sb_str(&W->out, after);
    W->copied = end;
}

/* "mhlo.sharding = \"{...}\"" or "sdy.sharding = #sdy.sharding<...>" for tensor occurrence t. */
static bool sharding_entry(writer *W, int32_t t, const pp_shard_param *p, size_t type_at, char **entry)
{
    const pp_shard_nda_tensor *tensor = &W->nda->tensors[t];
    if (tensor->rank != p->type.rank)
        return fail(&W->S, type_at, "the layout's tensor has rank %d, this type rank %d (is the text the one the module was read from?)",
                    (int)tensor->rank, (int)p->type.rank);
    char *value = NULL;
    pp_error why = {0};
    pp_status st = pp_shard_sharding_text(W->mesh, W->format, W->axes + tensor->first, tensor->rank, &value, &why);
    if (st != PP_OK) {
        int line, col;
        position(&W->S, type_at, &line, &col);
        W->S.status = pp_error_set(W->S.err, st, "%s:%d:%d: %s", W->S.file, line, col, why.message);
        return false;
    }
    shard_sbuf b = {0};
    shard_sb_str(&b, W->key);
    shard_sb_str(&b, W->format == PP_SHARD_FORMAT_SDY ? " = " : " = \"");
    shard_sb_str(&b, value);
    shard_sb_str(&b, W->format == PP_SHARD_FORMAT_SDY ? "" : "\"");
    free(value);
    W->S.status = shard_sb_take(&b, entry, W->S.err);
    return W->S.status == PP_OK;
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
    scan *S = &W->S;
    size_t start = 0, end = 0;
    if (!scan_type(S, &start, &end))
        return false;
    skip_space(S);
    bool has_dict = peek(S, 0) == '{';
    if (p->type.rank < 0)
        return !has_dict || skip_run(S, "", true);
    char *entry = NULL;
    if (!sharding_entry(W, t, p, start, &entry))
        return false;
    dict_scan D = {0};
    bool ok = !has_dict || scan_dict(S, W->key, &D);
    if (ok && has_dict)
        patch_dict(W, &D, entry);
    else if (ok)
        splice(W, end, end, " {", entry, "}");
    free(entry);
    return ok;
}

static bool write_arg(writer *W, const pp_shard_func *f, int32_t k)
{
    scan *S = &W->S;
    if (k >= f->n_args)
        return fail(S, S->pos, "more arguments than the entry function @%s has in the module (%d)", f->name,
                    (int)f->n_args);
    if (peek(S, 0) != '%')
        return fail(S, S->pos, "expected an argument (%%name: type)");
    S->pos++;
    skip_name(S);
    return expect_char(S, ':', "':' after the argument name") && write_param(W, k, &f->args[k]) && skip_loc(S);
}

static bool write_result(writer *W, const pp_shard_func *f, int32_t k)
{
    if (k >= f->n_results)
        return fail(&W->S, W->S.pos, "more results than the entry function @%s has in the module (%d)", f->name,
                    (int)f->n_results);
    return write_param(W, W->nda->out_use + k, &f->results[k]) && skip_loc(&W->S);
}

/* A parenthesised list of arguments or results after its '(' (consumed with the ')'); *count of them. */
static bool write_list(writer *W, const pp_shard_func *f, bool args, int32_t *count)
{
    scan *S = &W->S;
    *count = 0;
    skip_space(S);
    if (peek(S, 0) == ')') {
        S->pos++;
        return true;
    }
    for (;;) {
        skip_space(S);
        if (!(args ? write_arg(W, f, *count) : write_result(W, f, *count)))
            return false;
        ++*count;
        skip_space(S);
        if (peek(S, 0) == ')') {
            S->pos++;
            return true;
        }
        if (peek(S, 0) != ',')
            return fail(S, S->pos, "expected ',' or ')' after %s", args ? "an argument" : "a result");
        S->pos++;
    }
}

/* "-> type": the one result gets parentheses around it and its dictionary. */
static bool write_single_result(writer *W, const pp_shard_func *f)
{
    scan *S = &W->S;
    size_t start = 0, end = 0;
    if (f->n_results != 1)
        return fail(S, S->pos, "one result where the entry function @%s has %d in the module", f->name,
                    (int)f->n_results);
    if (!scan_type(S, &start, &end))
        return false;
    if (f->results[0].type.rank < 0)
        return true;
    char *entry = NULL;
    if (!sharding_entry(W, W->nda->out_use, &f->results[0], start, &entry))
        return false;
    splice(W, start, start, "(", "", "");
    splice(W, end, end, " {", entry, "})");
    free(entry);
    return true;
}

static bool write_results(writer *W, const pp_shard_func *f)
{
    scan *S = &W->S;
    skip_space(S);
    if (!(peek(S, 0) == '-' && peek(S, 1) == '>')) {
        if (f->n_results != 0)
            return fail(S, S->pos, "expected '->' and the %d results of the entry function @%s", (int)f->n_results,
                        f->name);
        return true;
    }
    S->pos += 2;
    skip_space(S);
    if (peek(S, 0) != '(')
        return write_single_result(W, f);
    S->pos++;
    int32_t n;
    if (!write_list(W, f, false, &n))
        return false;
    if (n != f->n_results)
        return fail(S, S->pos - 1, "%d results where the entry function @%s has %d in the module", (int)n, f->name,
                    (int)f->n_results);
    return true;
}

static bool write_signature(writer *W, const pp_shard_func *f)
{
    scan *S = &W->S;
    S->pos += strlen("func.func");
    skip_space(S);
    if (at_word(S, "public") || at_word(S, "private") || at_word(S, "nested")) {
        skip_name(S);
        skip_space(S);
    }
    if (peek(S, 0) != '@')
        return fail(S, S->pos, "expected the function name (@name)");
    S->pos++;
    if (peek(S, 0) == '"') {
        if (!skip_string(S))
            return false;
    } else {
        skip_name(S);
    }
    int32_t n;
    if (!expect_char(S, '(', "'(' before the function's arguments") || !write_list(W, f, true, &n))
        return false;
    if (n != f->n_args)
        return fail(S, S->pos - 1, "%d arguments where the entry function @%s has %d in the module", (int)n, f->name,
                    (int)f->n_args);
    return write_results(W, f);
}

/* ---- the module's partition count ---- */

/* The top-level "module", after comments and attribute aliases ("#x = ...");
 * false (with no error) when the text's first op is something else. */
static bool find_module(scan *S)
{
    for (;;) {
        skip_space(S);
        if (peek(S, 0) != '#')
            return at_word(S, "module");
        if (!skip_run(S, "\n", false))
            return false;
    }
}

/* "mhlo.num_partitions = N : i32" into the module's attribute dictionary,
 * replacing the entry there is, or into a new "attributes {...}" clause. */
static bool write_partitions(writer *W)
{
    scan *S = &W->S;
    if (!find_module(S))
        return S->status == PP_OK;
    char entry[64];
    snprintf(entry, sizeof entry, "mhlo.num_partitions = %lld : i32", (long long)pp_shard_mesh_devices(W->mesh));
    S->pos += strlen("module");
    size_t after_name = S->pos;
    skip_space(S);
    if (peek(S, 0) == '@') {
        S->pos++;
        if (peek(S, 0) != '"')
            skip_name(S);
        else if (!skip_string(S))
            return false;
        after_name = S->pos;
        skip_space(S);
    }
    if (!at_word(S, "attributes")) {
        splice(W, after_name, after_name, " attributes {", entry, "}");
        return true;
    }
    S->pos += strlen("attributes");
    skip_space(S);
    if (peek(S, 0) != '{')
        return fail(S, S->pos, "expected '{' after the module's attributes");
    dict_scan D;
    if (!scan_dict(S, "mhlo.num_partitions", &D))
        return false;
    patch_dict(W, &D, entry);
    return true;
}

/* The offset of the entry's "func.func", from the line and column the reader noted. */
static bool find_entry(writer *W, const pp_shard_func *f)
{
    scan *S = &W->S;
    int line = 1;
    size_t k = 0;
    while (k < S->n && line < f->line)
        line += S->s[k++] == '\n';
    for (int col = 1; col < f->col && k < S->n && S->s[k] != '\n'; col++)
        k++;
    S->pos = k;
    if (line != f->line || !at_word(S, "func.func"))
        return fail(S, k, "expected the entry function @%s here (is the text the one the module was read from?)",
                    f->name);
    return true;
}

/* The mesh declaration on a line of its own before the entry function, indented alike. */
static bool insert_mesh(writer *W, const pp_shard_func *f)
{
    char *decl = NULL;
    W->S.status = pp_shard_sdy_mesh_text(W->mesh, &decl, W->S.err);
    if (W->S.status != PP_OK)
        return false;
    size_t func_at = W->S.pos, line_at = func_at - (size_t)(f->col - 1);
    bool indented = true;
    for (size_t k = line_at; k < func_at; k++)
        indented = indented && (W->S.s[k] == ' ' || W->S.s[k] == '\t');
    splice(W, func_at, func_at, decl, indented ? "\n" : " ", "");
    if (indented)
        shard_sb_add(&W->out, W->S.s + line_at, func_at - line_at);
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
    writer W = {.S = {.file = m->file ? m->file : "<module>", .s = text, .n = size, .err = err},
                .nda = nda,
                .mesh = mesh,
                .axes = axes,
                .format = format,
                .key = format == PP_SHARD_FORMAT_SDY ? "sdy.sharding" : "mhlo.sharding"};
    bool ok = write_partitions(&W) && find_entry(&W, f) && (format != PP_SHARD_FORMAT_SDY || insert_mesh(&W, f)) &&
              write_signature(&W, f);
    if (!ok) {
        free(W.out.s);
        return W.S.status != PP_OK ? W.S.status : PP_EINPUT;
    }
    shard_sb_add(&W.out, text + W.copied, size - W.copied);
    size_t n = W.out.n;
    pp_status st = shard_sb_take(&W.out, out, err);
    if (st == PP_OK)
        *out_size = n;
    return st;
}
