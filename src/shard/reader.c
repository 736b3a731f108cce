/* reader.c: the StableHLO text reader of the auto-sharder (issue 8). It
 * owns the lexer, the grammar below and the building of pp_shard_module.
 *
 * Grammar accepted (MLIR's pretty form as JAX prints it, plus the generic
 * form of any op). Comments run from "//" to the end of the line; loc(...)
 * may follow any op, argument, function or the module and is skipped.
 *
 *   file      := toplevel* EOF
 *   toplevel  := module | func | mesh | '#' NAME '=' attr-value | '{-#' ... '#-}'
 *   mesh      := 'sdy.mesh' '@' NAME '=' '<' balanced '>'   (Shardy's; skipped)
 *   module    := 'module' ('@' NAME)? ('attributes' attr-dict)? '{' toplevel* '}'
 *   func      := 'func.func' ('public'|'private')? '@' NAME
 *                '(' (arg (',' arg)*)? ')' ('->' results)? ('attributes' attr-dict)?
 *                '{' op* '}'
 *   arg       := VALUE ':' type attr-dict?
 *   results   := type | '(' (type attr-dict? (',' type attr-dict?)*)? ')'
 *   op        := (defs '=')? op-body
 *   defs      := VALUE (':' INT)? (',' VALUE (':' INT)?)*
 *   op-body   := generic | pretty
 *   generic   := STRING '(' uses? ')' ('<' attr-dict '>')? ('(' region (',' region)* ')')?
 *                attr-dict? ':' functype
 *   region    := '{' ('^' NAME ('(' VALUE ':' type (',' VALUE ':' type)* ')')? ':')? op* '}'
 *   pretty    := 'call' '@' NAME '(' uses? ')' ':' functype
 *              | ('return'|'func.return'|'stablehlo.return') uses? (':' type (',' type)*)?
 *              | 'stablehlo.constant' attr-dict? attr-value ':' type
 *              | 'stablehlo.iota' 'dim' '=' INT ':' type
 *              | 'stablehlo.compare' DIR ',' USE ',' USE (',' NAME)? ':' types
 *              | 'stablehlo.slice' USE '[' INT ':' INT (':' INT)? (',' ...)* ']' ':' types
 *              | 'stablehlo.reduce' '(' USE 'init:' USE ')' (',' '(' USE 'init:' USE ')')*
 *                ('applies' OPNAME)? 'across' 'dimensions' '=' ints attr-dict? ':' functype
 *                ('reducer' '(' VALUE ':' type ',' VALUE ':' type ')' '{' op* '}')?
 *              | 'stablehlo.convolution' '(' USE ',' USE ')' 'dim_numbers' '=' convdims
 *                ',' 'window' '=' '{' ... '}' attr-dict? ':' functype
 *              | OPNAME uses? (',' KEY '=' value)* attr-dict? ':' types
 *   value     := ints ('x' ints)? | INT | NAME | attr-value
 *   types     := functype | type (',' type)*
 *   functype  := '(' (type (',' type)*)? ')' '->' (type | '(' type (',' type)* ')')
 *   type      := 'tensor' '<' (DIM 'x')* ELEM (',' encoding)? '>' | '!' NAME ('<' ... '>')?
 *   encoding  := balanced text on the type's line (#stablehlo.bounds<?, 16>); ignored
 *   balanced  := tokens or characters balanced in (), [], {}, <> and strings
 *   uses      := USE (',' USE)*, USE := VALUE ('#' INT)?
 *   attr-dict := '{' (KEY ('=' attr-value (':' type)?)? (',' ...)*)? '}'
 *   attr-value:= any balanced token run ending before ',' '}' or ':'
 *
 * The pretty form of an op the reader does not know is read as far as the
 * types after its top-level ':'; the rest of that line (with any regions it
 * opens) is skipped. Such ops become OPAQUE, with one warning per op name. */
#include "shard/shard_internal.h"
#include "core/grow.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INT_ATTR ((int64_t)1 << 40)
#define MAX_RANK 64
#define MAX_DEPTH 64

typedef enum { T_EOF, T_VALUE, T_SYMBOL, T_HASH, T_CARET, T_IDENT, T_NUMBER, T_STRING, T_PUNCT } tok_kind;

typedef struct {
    tok_kind kind;
    const char *s;
    size_t len;
    int line, col;
} token;

/* A growable array of elem-sized items (ops, values, ints). */
typedef struct {
    void *data;
    int n, cap;
} vec;

/* A name in scope: %name and the values its definition made. */
typedef struct {
    const char *s;
    size_t len;
    int32_t first, count; /* count 0: a removed (out of scope) entry */
} slot;

typedef struct {
    const char *file, *text;
    size_t size, pos;
    int line, col;
    token tok;
    size_t prev_end; /* text offset after the previous token */
    int prev_line;
    pp_arena *arena;
    pp_error *err;
    pp_shard_module *m;
    vec funcs, warnings;
    /* the function being read */
    vec values, body_ops;
    slot *slots;
    size_t n_slots, cap_slots;
    int depth;
} reader;

static bool vec_push(reader *R, vec *v, const void *item, size_t size)
{
    if (v->n >= (1 << 28) || !pp_grow(&v->data, &v->cap, v->n + 1, size)) {
        pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file);
        return false;
    }
    memcpy((char *)v->data + (size_t)v->n * size, item, size);
    v->n++;
    return true;
}

/* Moves a vec's items into the arena (NULL when empty). */
static void *vec_keep(reader *R, vec *v, size_t size)
{
    if (v->n == 0)
        return NULL;
    void *copy = pp_arena_alloc(R->arena, (size_t)v->n * size);
    if (!copy) {
        pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file);
        return NULL;
    }
    memcpy(copy, v->data, (size_t)v->n * size);
    return copy;
}

static char *keep_text(reader *R, const char *s, size_t len)
{
    char *copy = pp_arena_alloc(R->arena, len + 1);
    if (!copy) {
        pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file);
        return NULL;
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static bool fail_at(reader *R, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool fail_at(reader *R, int line, int col, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    pp_error_set(R->err, PP_EINPUT, "%s:%d:%d: %s", R->file, line, col, why);
    return false;
}

/* How the current token reads in a message: 'x', or "end of input". */
static const char *tok_text(const reader *R, char *buf, size_t size)
{
    if (R->tok.kind == T_EOF)
        return "end of input";
    int n = R->tok.len > 40 ? 40 : (int)R->tok.len;
    snprintf(buf, size, "'%.*s%s'", n, R->tok.s, R->tok.len > 40 ? "..." : "");
    return buf;
}

static bool expected(reader *R, const char *what)
{
    char buf[64];
    return fail_at(R, R->tok.line, R->tok.col, "expected %s, got %s", what, tok_text(R, buf, sizeof buf));
}

/* ---- lexer ---- */

static void advance_char(reader *R)
{
    if (R->text[R->pos] == '\n') {
        R->line++;
        R->col = 1;
    } else {
        R->col++;
    }
    R->pos++;
}

static bool at_char(const reader *R, size_t ahead, char c)
{
    return R->pos + ahead < R->size && R->text[R->pos + ahead] == c;
}

static void skip_space(reader *R)
{
    while (R->pos < R->size) {
        char c = R->text[R->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            advance_char(R);
        else if (c == '/' && at_char(R, 1, '/'))
            while (R->pos < R->size && R->text[R->pos] != '\n')
                advance_char(R);
        else
            break;
    }
}

static void lex_while(reader *R, bool (*ok)(char))
{
    while (R->pos < R->size && ok(R->text[R->pos]))
        advance_char(R);
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool number_char(char c)
{
    return isalnum((unsigned char)c) || c == '.';
}

/* A quoted string; false when it runs off the end of the text. */
static bool lex_string(reader *R)
{
    advance_char(R);
    while (R->pos < R->size && R->text[R->pos] != '"') {
        if (R->text[R->pos] == '\\' && R->pos + 1 < R->size)
            advance_char(R);
        advance_char(R);
    }
    if (R->pos >= R->size)
        return false;
    advance_char(R);
    return true;
}

static bool lex_number(reader *R)
{
    if (R->text[R->pos] == '-' || R->text[R->pos] == '+')
        advance_char(R);
    while (R->pos < R->size) {
        char c = R->text[R->pos];
        bool exponent_sign = (c == '-' || c == '+') && R->pos > 0 &&
                             (R->text[R->pos - 1] == 'e' || R->text[R->pos - 1] == 'E') &&
                             !(R->pos > 1 && R->text[R->pos - 2] == 'x');
        if (!number_char(c) && !exponent_sign)
            break;
        /* "33x79xf32": a number stops at an 'x' that is not a hex prefix */
        if (c == 'x' && !(R->pos > 0 && R->text[R->pos - 1] == '0' && R->tok.s + 1 == R->text + R->pos))
            break;
        advance_char(R);
    }
    return true;
}

/* A sigil-prefixed name (%v, @f, ^bb, #a): a bare or quoted name. */
static bool lex_sigil(reader *R)
{
    advance_char(R);
    if (R->pos < R->size && R->text[R->pos] == '"')
        return lex_string(R);
    size_t start = R->pos;
    lex_while(R, name_char);
    return R->pos > start;
}

static bool lex_next(reader *R)
{
    R->prev_end = R->pos;
    R->prev_line = R->line;
    skip_space(R);
    token *t = &R->tok;
    t->s = R->text + R->pos;
    t->line = R->line;
    t->col = R->col;
    if (R->pos >= R->size) {
        t->kind = T_EOF;
        t->len = 0;
        return true;
    }
    char c = R->text[R->pos];
    bool ok = true;
    if (c == '%' || c == '@' || c == '^' || c == '#') {
        t->kind = c == '%' ? T_VALUE : c == '@' ? T_SYMBOL : c == '^' ? T_CARET : T_HASH;
        ok = lex_sigil(R);
    } else if (c == '"') {
        t->kind = T_STRING;
        ok = lex_string(R);
        if (!ok)
            return fail_at(R, t->line, t->col, "unterminated string");
    } else if (isdigit((unsigned char)c) ||
               ((c == '-' || c == '+') && R->pos + 1 < R->size && isdigit((unsigned char)R->text[R->pos + 1]))) {
        t->kind = T_NUMBER;
        lex_number(R);
    } else if (isalpha((unsigned char)c) || c == '_' || c == '!') {
        t->kind = T_IDENT;
        advance_char(R);
        lex_while(R, name_char);
    } else if (c == '-' && at_char(R, 1, '>')) {
        t->kind = T_PUNCT;
        advance_char(R);
        advance_char(R);
    } else if (strchr("()[]{}<>,:=*?+|", c)) {
        t->kind = T_PUNCT;
        advance_char(R);
    } else {
        return fail_at(R, t->line, t->col, "unexpected character '%c'", isprint((unsigned char)c) ? c : '?');
    }
    t->len = (size_t)(R->text + R->pos - t->s);
    if (!ok)
        return fail_at(R, t->line, t->col, "expected a name after '%c'", c);
    return true;
}

static bool is_punct(const reader *R, const char *p)
{
    return R->tok.kind == T_PUNCT && R->tok.len == strlen(p) && memcmp(R->tok.s, p, R->tok.len) == 0;
}

static bool is_word(const reader *R, const char *w)
{
    return R->tok.kind == T_IDENT && R->tok.len == strlen(w) && memcmp(R->tok.s, w, R->tok.len) == 0;
}

/* Consumes punctuation p or fails with "expected WHAT, got ...". */
static bool expect(reader *R, const char *p, const char *what)
{
    if (!is_punct(R, p))
        return expected(R, what);
    return lex_next(R);
}

static bool accept(reader *R, const char *p, bool *ok)
{
    if (!is_punct(R, p))
        return false;
    *ok = lex_next(R);
    return true;
}

/* Skips one balanced group starting at the current opener, or one token. */
static bool skip_group(reader *R)
{
    char stack[MAX_DEPTH];
    int lines[MAX_DEPTH], cols[MAX_DEPTH];
    int depth = 0;
    do {
        if (R->tok.kind == T_EOF && depth == 0)
            return expected(R, "a value");
        if (R->tok.kind == T_EOF)
            return fail_at(R, lines[depth - 1], cols[depth - 1], "this bracket is never closed");
        if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr("([{<", R->tok.s[0])) {
            if (depth == MAX_DEPTH)
                return fail_at(R, R->tok.line, R->tok.col, "brackets nested too deep");
            lines[depth] = R->tok.line;
            cols[depth] = R->tok.col;
            stack[depth++] = R->tok.s[0] == '(' ? ')' : R->tok.s[0] == '[' ? ']' : R->tok.s[0] == '{' ? '}' : '>';
        } else if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(")]}>", R->tok.s[0])) {
            if (depth == 0)
                return fail_at(R, R->tok.line, R->tok.col, "unbalanced '%c'", R->tok.s[0]);
            if (stack[depth - 1] != R->tok.s[0])
                return fail_at(R, R->tok.line, R->tok.col, "unbalanced '%c': the bracket at %d:%d is not closed",
                               R->tok.s[0], lines[depth - 1], cols[depth - 1]);
            depth--;
        }
        if (!lex_next(R))
            return false;
    } while (depth > 0);
    return true;
}

static bool skip_loc(reader *R)
{
    if (!is_word(R, "loc"))
        return true;
    if (!lex_next(R))
        return false;
    if (!is_punct(R, "("))
        return expected(R, "'(' after loc");
    return skip_group(R);
}

/* ---- types ---- */

static int elem_bits(const char *e)
{
    if (!strcmp(e, "i1"))
        return 1;
    if (!strcmp(e, "bf16"))
        return 16;
    if (!strncmp(e, "f8", 2))
        return 8;
    if (!strncmp(e, "complex<f32", 11))
        return 64;
    if (!strncmp(e, "complex<f64", 11))
        return 128;
    const char *digits = e[0] == 'u' ? e + 2 : e + 1;
    if ((e[0] == 'f' || e[0] == 'i' || (e[0] == 'u' && e[1] == 'i')) && isdigit((unsigned char)*digits))
        return atoi(digits);
    return 0;
}

/* MLIR's builtin element types: floats (f16, bf16, f8E4M3FN, ...), integers
 * of any width with an optional sign letter, index, complex. */
static bool elem_known(const char *e)
{
    static const char *const floats[] = {"f16", "f32", "f64", "bf16", "tf32", "index", "complex<f32>", "complex<f64>"};
    for (size_t k = 0; k < sizeof floats / sizeof floats[0]; k++)
        if (!strcmp(e, floats[k]))
            return true;
    if (!strncmp(e, "f8E", 3) || !strncmp(e, "f6E", 3) || !strncmp(e, "f4E", 3))
        return strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == strlen(e);
    const char *digits = (e[0] == 's' || e[0] == 'u') && e[1] == 'i' ? e + 2 : e[0] == 'i' ? e + 1 : NULL;
    return digits && *digits && strspn(digits, "0123456789") == strlen(digits) && strlen(digits) <= 4;
}

/* The encoding after the element type (", #stablehlo.bounds<?, 16>"), up to
 * the tensor's closing '>': balanced in <>, [], (), {} and strings, on the
 * line it starts. The sharder has no use for it, so it is not kept. */
static bool skip_encoding(reader *R)
{
    char stack[MAX_DEPTH];
    int depth = 0;
    advance_char(R);
    while (at_char(R, 0, ' ') || at_char(R, 0, '\t'))
        advance_char(R);
    if (at_char(R, 0, '>') || R->pos >= R->size || R->text[R->pos] == '\n')
        return fail_at(R, R->line, R->col, "expected an encoding after ',' in the tensor type");
    while (R->pos < R->size && R->text[R->pos] != '\n' && (depth > 0 || R->text[R->pos] != '>')) {
        char c = R->text[R->pos];
        int line = R->line, col = R->col;
        if (c == '"') {
            if (!lex_string(R))
                return fail_at(R, line, col, "unterminated string");
            continue;
        }
        if (c != '\0' && strchr("<[({", c)) {
            if (depth == MAX_DEPTH)
                return fail_at(R, line, col, "brackets nested too deep");
            stack[depth++] = c == '<' ? '>' : c == '[' ? ']' : c == '(' ? ')' : '}';
        } else if (c != '\0' && strchr(">])}", c) && (depth == 0 || stack[--depth] != c)) {
            return fail_at(R, line, col, "unbalanced '%c' in the tensor type's encoding", c);
        }
        advance_char(R);
    }
    return true;
}

/* "33x79x256xf32" between tensor's '<' and '>', read character by character
 * (the lexer would split it differently). R->pos is just after '<'. */
static bool parse_tensor_body(reader *R, pp_shard_type *t)
{
    int64_t dims[MAX_RANK];
    int rank = 0;
    for (;;) {
        int line = R->line, col = R->col;
        if (at_char(R, 0, '?') && at_char(R, 1, 'x')) {
            advance_char(R);
            advance_char(R);
            if (rank == MAX_RANK)
                return fail_at(R, line, col, "tensor rank above %d", MAX_RANK);
            dims[rank++] = -1;
            continue;
        }
        if (R->pos >= R->size || !isdigit((unsigned char)R->text[R->pos]))
            break;
        int64_t d = 0;
        while (R->pos < R->size && isdigit((unsigned char)R->text[R->pos])) {
            d = d * 10 + (R->text[R->pos] - '0');
            if (d > MAX_INT_ATTR)
                return fail_at(R, line, col, "tensor dimension too large");
            advance_char(R);
        }
        if (!at_char(R, 0, 'x'))
            return fail_at(R, R->line, R->col, "expected 'x' after a tensor dimension");
        advance_char(R);
        if (rank == MAX_RANK)
            return fail_at(R, line, col, "tensor rank above %d", MAX_RANK);
        dims[rank++] = d;
    }
    int line = R->line, col = R->col;
    size_t start = R->pos, depth = 0;
    while (R->pos < R->size && (depth > 0 || (R->text[R->pos] != '>' && R->text[R->pos] != ','))) {
        char c = R->text[R->pos];
        if (c == '\n')
            break;
        depth += c == '<';
        depth -= c == '>' && depth > 0;
        advance_char(R);
    }
    size_t len = R->pos - start;
    if (len == 0 || len >= sizeof t->elem)
        return fail_at(R, line, col, "expected an element type in the tensor type");
    memcpy(t->elem, R->text + start, len);
    t->elem[len] = '\0';
    if (!elem_known(t->elem))
        return fail_at(R, line, col, "unknown element type '%s'", t->elem);
    t->bits = elem_bits(t->elem);
    t->rank = rank;
    t->dims = rank ? pp_arena_alloc(R->arena, (size_t)rank * sizeof *t->dims) : NULL;
    if (rank && !t->dims)
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    if (rank)
        memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
    if (at_char(R, 0, ',') && !skip_encoding(R))
        return false;
    if (!at_char(R, 0, '>'))
        return fail_at(R, R->line, R->col, "expected '>' to end the tensor type");
    advance_char(R);
    return lex_next(R);
}

static bool parse_type(reader *R, pp_shard_type *t)
{
    memset(t, 0, sizeof *t);
    if (is_word(R, "tensor")) {
        if (!at_char(R, 0, '<')) {
            lex_next(R);
            return expected(R, "'<' after tensor");
        }
        advance_char(R);
        return parse_tensor_body(R, t);
    }
    if (R->tok.kind == T_IDENT && R->tok.s[0] == '!') {
        t->rank = -1;
        size_t n = R->tok.len < sizeof t->elem ? R->tok.len : sizeof t->elem - 1;
        memcpy(t->elem, R->tok.s, n);
        if (!lex_next(R))
            return false;
        return is_punct(R, "<") && R->tok.s == R->text + R->prev_end ? skip_group(R) : true;
    }
    return expected(R, "a tensor type");
}

/* ---- attributes ---- */

typedef struct {
    const char *key;
    size_t key_len;
    const char *val; /* NULL for a unit attribute */
    size_t val_len;
    int line, col;
} attr;

/* One attribute value: a balanced run of tokens up to ',' '}' '>' or, outside
 * a dictionary, ':' at depth 0. In a dictionary "value : type" is one value. */
static bool parse_attr_value(reader *R, bool in_dict, const char **s, size_t *len)
{
    const char *start = R->tok.s;
    int parts = 0;
    while (R->tok.kind != T_EOF) {
        if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(",}>)]", R->tok.s[0]))
            break;
        if (is_punct(R, ":")) {
            if (!in_dict || parts == 0)
                break;
            if (!lex_next(R) || !skip_group(R))
                return false;
            parts++;
            continue;
        }
        if (is_punct(R, "->") && !in_dict)
            break;
        if (!skip_group(R))
            return false;
        parts++;
    }
    if (parts == 0)
        return expected(R, "an attribute value");
    *s = start;
    *len = (size_t)(R->text + R->prev_end - start);
    return true;
}

static bool parse_attr_dict(reader *R, vec *out, const char *close)
{
    if (!lex_next(R))
        return false;
    while (!is_punct(R, close)) {
        attr a = {.line = R->tok.line, .col = R->tok.col};
        if (R->tok.kind != T_IDENT && R->tok.kind != T_STRING)
            return expected(R, "an attribute name");
        a.key = R->tok.s;
        a.key_len = R->tok.len;
        for (int32_t k = 0; k < out->n; k++) { /* MLIR refuses a key given twice */
            const attr *seen = (const attr *)out->data + k;
            if (seen->key_len == a.key_len && memcmp(seen->key, a.key, a.key_len) == 0)
                return fail_at(R, a.line, a.col, "attribute '%.*s' given twice (first at %d:%d)", (int)a.key_len,
                               a.key, seen->line, seen->col);
        }
        bool ok = true;
        if (!lex_next(R))
            return false;
        if (accept(R, "=", &ok) && (!ok || !parse_attr_value(R, true, &a.val, &a.val_len)))
            return false;
        if (!vec_push(R, out, &a, sizeof a))
            return false;
        if (!accept(R, ",", &ok) && !is_punct(R, close))
            return expected(R, close[0] == '}' ? "',' or '}' in the attribute dictionary"
                                               : "',' or '>' in the properties");
        if (!ok)
            return false;
    }
    return lex_next(R);
}

static const attr *find_attr(const vec *attrs, const char *key)
{
    const attr *a = attrs->data;
    for (int32_t k = 0; k < attrs->n; k++)
        if (a[k].key_len == strlen(key) && memcmp(a[k].key, key, a[k].key_len) == 0)
            return &a[k];
    return NULL;
}

/* The integers of a value's text ("[0, 2]", "array<i64: 1, 3>", "1 : i64",
 * "dense<[1, 2]> : tensor<2xi64>"), skipping digits inside names and stopping
 * at a ':' outside brackets (the type of the value). */
static bool text_ints(reader *R, const char *s, size_t len, int line, int col, pp_shard_ints *out)
{
    int64_t buf[256];
    int32_t n = 0;
    int depth = 0;
    for (size_t k = 0; k < len; k++) {
        char c = s[k];
        depth += c == '[' || c == '<' || c == '(';
        depth -= (c == ']' || c == '>' || c == ')') && depth > 0;
        if (c == ':' && depth == 0)
            break;
        if (name_char(c) && !isdigit((unsigned char)c)) {
            while (k + 1 < len && name_char(s[k + 1]))
                k++;
            continue;
        }
        if (!isdigit((unsigned char)c))
            continue;
        bool neg = k > 0 && s[k - 1] == '-';
        int64_t v = 0;
        while (k < len && isdigit((unsigned char)s[k])) {
            v = v * 10 + (s[k] - '0');
            if (v > MAX_INT_ATTR)
                return fail_at(R, line, col, "integer too large in an attribute");
            k++;
        }
        k--;
        if (n == 256)
            return fail_at(R, line, col, "more than 256 integers in an attribute");
        buf[n++] = neg ? -v : v;
    }
    out->n = n;
    out->v = n ? pp_arena_alloc(R->arena, (size_t)n * sizeof *out->v) : NULL;
    if (n && !out->v)
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    if (n)
        memcpy(out->v, buf, (size_t)n * sizeof *buf);
    return true;
}

/* The value of field `key` inside "#dialect.x<key = value, ...>" (or any
 * bracketed list of key = value), or false when absent. */
static bool text_field(const char *s, size_t len, const char *key, const char **val, size_t *val_len)
{
    size_t klen = strlen(key);
    int depth = 0;
    for (size_t k = 0; k < len; k++) {
        char c = s[k];
        if (c == '<' || c == '[' || c == '(' || c == '{') {
            depth++;
            continue;
        }
        if (c == '>' || c == ']' || c == ')' || c == '}') {
            depth--;
            continue;
        }
        if (depth != 1 || (k > 0 && name_char(s[k - 1])) || k + klen > len || memcmp(s + k, key, klen) != 0 ||
            (k + klen < len && name_char(s[k + klen])))
            continue;
        size_t j = k + klen;
        while (j < len && s[j] == ' ')
            j++;
        if (j >= len || s[j] != '=')
            continue;
        j++;
        size_t start = j;
        int d = 0;
        while (j < len && !(d == 0 && (s[j] == ',' || s[j] == '>' || s[j] == '}'))) {
            d += s[j] == '[' || s[j] == '<';
            d -= s[j] == ']' || (s[j] == '>' && d > 0);
            j++;
        }
        *val = s + start;
        *val_len = j - start;
        return true;
    }
    return false;
}

static bool field_ints(reader *R, const attr *a, const char *key, pp_shard_ints *out)
{
    const char *v;
    size_t n;
    if (!text_field(a->val, a->val_len, key, &v, &n)) {
        out->n = 0;
        out->v = NULL;
        return true;
    }
    return text_ints(R, v, n, a->line, a->col, out);
}

static bool attr_ints(reader *R, const vec *attrs, const char *key, pp_shard_ints *out)
{
    const attr *a = find_attr(attrs, key);
    if (!a || !a->val) {
        out->n = 0;
        out->v = NULL;
        return true;
    }
    return text_ints(R, a->val, a->val_len, a->line, a->col, out);
}

static bool attr_int(reader *R, const vec *attrs, const char *key, int64_t fallback, int64_t *out)
{
    pp_shard_ints v;
    if (!attr_ints(R, attrs, key, &v))
        return false;
    *out = v.n ? v.v[0] : fallback;
    return true;
}

/* ---- values in scope ---- */

static uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < len; k++)
        h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
    return h;
}

static slot *find_slot(reader *R, const char *s, size_t len)
{
    if (!R->cap_slots)
        return NULL;
    size_t mask = R->cap_slots - 1;
    for (size_t i = hash_name(s, len) & mask;; i = (i + 1) & mask) {
        slot *e = &R->slots[i];
        if (!e->s || (e->len == len && memcmp(e->s, s, len) == 0))
            return e;
    }
}

static bool grow_slots(reader *R)
{
    size_t cap = R->cap_slots ? R->cap_slots * 2 : 256;
    slot *old = R->slots;
    size_t old_cap = R->cap_slots;
    R->slots = calloc(cap, sizeof *R->slots);
    if (!R->slots) {
        R->slots = old;
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    }
    R->cap_slots = cap;
    for (size_t k = 0; k < old_cap; k++)
        if (old[k].s)
            *find_slot(R, old[k].s, old[k].len) = old[k];
    free(old);
    return true;
}

/* Binds %name to `count` new values from `first`. */
static bool define(reader *R, const token *name, int32_t first, int32_t count)
{
    if ((R->n_slots + 1) * 2 > R->cap_slots && !grow_slots(R))
        return false;
    slot *e = find_slot(R, name->s + 1, name->len - 1);
    if (e->s && e->count > 0)
        return fail_at(R, name->line, name->col, "%.*s is defined twice", (int)name->len, name->s);
    if (!e->s)
        R->n_slots++;
    *e = (slot){name->s + 1, name->len - 1, first, count};
    return true;
}

static void undefine(reader *R, const pp_shard_value *v)
{
    slot *e = find_slot(R, v->name, strlen(v->name));
    if (e && e->s)
        e->count = 0;
}

/* A use: %name or %name#k. */
static bool parse_use(reader *R, int32_t *value)
{
    if (R->tok.kind != T_VALUE)
        return expected(R, "a value (%name)");
    token name = R->tok;
    int64_t index = -1;
    if (at_char(R, 0, '#')) {
        advance_char(R);
        int64_t v = 0;
        if (R->pos >= R->size || !isdigit((unsigned char)R->text[R->pos]))
            return fail_at(R, R->line, R->col, "expected a result number after '#'");
        while (R->pos < R->size && isdigit((unsigned char)R->text[R->pos]) && v < MAX_INT_ATTR) {
            v = v * 10 + (R->text[R->pos] - '0');
            advance_char(R);
        }
        index = v;
    }
    slot *e = find_slot(R, name.s + 1, name.len - 1);
    if (!e || !e->s || e->count == 0)
        return fail_at(R, name.line, name.col, "%.*s is not defined", (int)name.len, name.s);
    if (index < 0 && e->count > 1)
        return fail_at(R, name.line, name.col, "%.*s names %d results: use %.*s#N", (int)name.len, name.s,
                       (int)e->count, (int)name.len, name.s);
    if (index >= e->count)
        return fail_at(R, name.line, name.col, "%.*s has no result #%lld", (int)name.len, name.s, (long long)index);
    *value = e->first + (int32_t)(index < 0 ? 0 : index);
    return lex_next(R);
}

/* ---- ops ---- */

/* What an op statement was read into before its values are made. */
typedef struct {
    pp_shard_op op;
    vec operands;            /* int32_t */
    vec in_types, out_types; /* pp_shard_type */
    bool functional;
    vec attrs;
    token defs[32];
    int32_t def_counts[32];
    int n_defs;
    const char *attrs_start, *attrs_end;
    vec body;  /* pp_shard_op: the region's ops, copied to body_ops when done */
    int32_t body_values[2];
    int n_body_values;
} stmt;

static void stmt_free(stmt *s)
{
    free(s->operands.data);
    free(s->in_types.data);
    free(s->out_types.data);
    free(s->attrs.data);
    free(s->body.data);
}

static bool parse_block(reader *R, vec *ops, bool top);

static bool parse_uses(reader *R, stmt *s, const char *close)
{
    while (R->tok.kind == T_VALUE) {
        int32_t v;
        if (!parse_use(R, &v) || !vec_push(R, &s->operands, &v, sizeof v))
            return false;
        bool ok = true;
        if (!accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
        if (R->tok.kind != T_VALUE) {
            if (close || R->tok.kind != T_IDENT)
                return expected(R, close ? "a value after ','" : "a value or 'name = ...' after ','");
            break; /* ", key = value" of a pretty op */
        }
    }
    return true;
}

static bool parse_type_list(reader *R, vec *types, const char *close)
{
    if (close && is_punct(R, close))
        return lex_next(R);
    for (;;) {
        pp_shard_type t;
        if (!parse_type(R, &t) || !vec_push(R, types, &t, sizeof t))
            return false;
        if (R->tok.kind == T_PUNCT && R->tok.s[0] == '{') { /* result attributes inside a functype */
            if (!skip_group(R))
                return false;
        }
        bool ok = true;
        if (!accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return close ? expect(R, close, close[0] == ')' ? "')' after the types" : "the end of the types") : true;
}

/* ':' then "(ins) -> outs" or "t, t, ..." */
static bool parse_op_types(reader *R, stmt *s)
{
    if (!expect(R, ":", "':' and the op's types"))
        return false;
    if (is_punct(R, "(")) {
        s->functional = true;
        if (!lex_next(R) || !parse_type_list(R, &s->in_types, ")"))
            return false;
        if (!expect(R, "->", "'->' after the operand types"))
            return false;
        if (is_punct(R, "(")) {
            return lex_next(R) && parse_type_list(R, &s->out_types, ")");
        }
        return parse_type_list(R, &s->out_types, NULL);
    }
    return parse_type_list(R, &s->in_types, NULL);
}

static pp_shard_op_kind reducer_from_body(reader *R, const vec *body)
{
    const pp_shard_op *ops = body->data;
    const pp_shard_value *values = R->values.data;
    if (body->n != 2 || !pp_shard_op_is_binary(ops[0].kind) || ops[1].kind != PP_SHARD_OP_RETURN ||
        ops[1].n_operands != 1 || ops[0].n_results != 1 || ops[1].operands[0] != ops[0].results[0])
        return PP_SHARD_OP_OPAQUE;
    for (int k = 0; k < 2; k++)
        if (values[ops[0].operands[k]].op != -2)
            return PP_SHARD_OP_OPAQUE;
    return ops[0].kind;
}

/* Makes a block argument value and binds it. */
static bool block_arg(reader *R, const token *name, const pp_shard_type *type, int32_t index)
{
    pp_shard_value v = {.type = *type, .op = -2, .index = index};
    if (!(v.name = keep_text(R, name->s + 1, name->len - 1)))
        return false;
    return define(R, name, R->values.n, 1) && vec_push(R, &R->values, &v, sizeof v);
}

/* "(%a: t, %b: t)" of a block label or of reducer(...). */
static bool parse_block_args(reader *R, stmt *s)
{
    if (!expect(R, "(", "'(' before the block arguments"))
        return false;
    int32_t index = 0;
    while (R->tok.kind == T_VALUE) {
        token name = R->tok;
        pp_shard_type t;
        if (!lex_next(R) || !expect(R, ":", "':' after the block argument") || !parse_type(R, &t) ||
            !skip_loc(R) || !block_arg(R, &name, &t, index))
            return false;
        if (s->n_body_values < 2)
            s->body_values[s->n_body_values++] = R->values.n - 1;
        index++;
        bool ok = true;
        if (!accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return expect(R, ")", "')' after the block arguments");
}

/* Region values go out of scope at its end; they stay in the function's values. */
static bool parse_region(reader *R, stmt *s)
{
    int32_t first_value = R->values.n;
    if (++R->depth > MAX_DEPTH)
        return fail_at(R, R->tok.line, R->tok.col, "regions nested too deep");
    if (!expect(R, "{", "'{' to open the region"))
        return false;
    if (R->tok.kind == T_CARET) {
        if (!lex_next(R))
            return false;
        if (is_punct(R, "(") && !parse_block_args(R, s))
            return false;
        if (!expect(R, ":", "':' after the block label"))
            return false;
    }
    if (!parse_block(R, &s->body, false))
        return false;
    for (int32_t k = first_value; k < R->values.n; k++)
        undefine(R, &((pp_shard_value *)R->values.data)[k]);
    R->depth--;
    return true;
}

static bool parse_regions(reader *R, stmt *s)
{
    bool ok = true;
    if (!accept(R, "(", &ok))
        return true;
    if (!ok)
        return false;
    do {
        if (!parse_region(R, s))
            return false;
    } while (accept(R, ",", &ok) && ok);
    return ok && expect(R, ")", "')' after the regions");
}

/* "\"stablehlo.x\"(uses) <{props}> (regions) {attrs} : functype" */
static bool parse_generic(reader *R, stmt *s)
{
    bool ok = true;
    if (!expect(R, "(", "'(' before the operands") || !parse_uses(R, s, ")"))
        return false;
    if (!expect(R, ")", "')' after operands"))
        return false;
    s->attrs_start = R->tok.s;
    if (accept(R, "<", &ok)) { /* properties: '<{' reads as '<' then '{' */
        if (!ok)
            return false;
        if (!is_punct(R, "{"))
            return expected(R, "'{' after '<'");
        if (!parse_attr_dict(R, &s->attrs, "}") || !expect(R, ">", "'>' after the properties"))
            return false;
    }
    s->attrs_end = R->text + R->prev_end;
    if (!parse_regions(R, s))
        return false;
    if (is_punct(R, "{") && !parse_attr_dict(R, &s->attrs, "}"))
        return false;
    return parse_op_types(R, s);
}

/* "key = [a] x [b]" or "key = value": the pretty form's keyword attributes,
 * stored as attrs so the generic and pretty forms are interpreted alike. */
static bool parse_keyword_attr(reader *R, stmt *s)
{
    attr a = {.key = R->tok.s, .key_len = R->tok.len, .line = R->tok.line, .col = R->tok.col};
    if (!lex_next(R))
        return false;
    bool ok = true;
    if (is_word(R, "dimensions") && a.key_len == 6 && !memcmp(a.key, "across", 6)) {
        a.key = R->tok.s;
        a.key_len = R->tok.len;
        if (!lex_next(R))
            return false;
    }
    if (!expect(R, "=", "'=' after the attribute name"))
        return false;
    const char *start = R->tok.s;
    if (!parse_attr_value(R, false, &a.val, &a.val_len))
        return false;
    /* "[2] x [0]" and "[b, 0, f]x[0, i, o]->[b, 0, f]" run on past the first group */
    while (ok && (is_word(R, "x") || is_punct(R, "->")))
        ok = lex_next(R) && parse_attr_value(R, false, &a.val, &a.val_len);
    if (!ok)
        return false;
    a.val_len = (size_t)(R->text + R->prev_end - start);
    a.val = start;
    return vec_push(R, &s->attrs, &a, sizeof a);
}

/* The tail common to pretty ops: ", key = value"..., "{attrs}", then types. */
static bool parse_pretty_tail(reader *R, stmt *s)
{
    bool ok = true;
    while (R->tok.kind == T_IDENT) {
        if (!parse_keyword_attr(R, s))
            return false;
        if (!accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    if (is_punct(R, "{") && !parse_attr_dict(R, &s->attrs, "}"))
        return false;
    s->attrs_end = R->text + R->prev_end;
    return parse_op_types(R, s);
}

static bool parse_call(reader *R, stmt *s)
{
    if (R->tok.kind != T_SYMBOL)
        return expected(R, "the callee (@name)");
    s->attrs_start = R->tok.s;
    s->attrs_end = R->tok.s + R->tok.len;
    if (!lex_next(R) || !expect(R, "(", "'(' before the call's operands") || !parse_uses(R, s, ")"))
        return false;
    if (!expect(R, ")", "')' after operands"))
        return false;
    if (is_punct(R, "{") && !parse_attr_dict(R, &s->attrs, "}"))
        return false;
    return parse_op_types(R, s);
}

static bool parse_return(reader *R, stmt *s)
{
    if (!parse_uses(R, s, NULL))
        return false;
    if (s->operands.n == 0)
        return true;
    if (!expect(R, ":", "':' and the returned types"))
        return false;
    return parse_type_list(R, &s->in_types, NULL);
}

static bool parse_reduce(reader *R, stmt *s)
{
    vec inits = {0};
    bool ok = true;
    do {
        int32_t v, init;
        if (!expect(R, "(", "'(' before the reduced value") || !parse_use(R, &v))
            goto fail;
        if (!is_word(R, "init") || !lex_next(R) || !expect(R, ":", "'init:' after the reduced value"))
            goto fail_expected;
        if (!parse_use(R, &init) || !expect(R, ")", "')' after the init value"))
            goto fail;
        if (!vec_push(R, &s->operands, &v, sizeof v) || !vec_push(R, &inits, &init, sizeof init))
            goto fail;
    } while (accept(R, ",", &ok) && ok);
    if (!ok)
        goto fail;
    for (int32_t k = 0; k < inits.n; k++)
        if (!vec_push(R, &s->operands, (int32_t *)inits.data + k, sizeof(int32_t)))
            goto fail;
    free(inits.data);
    if (is_word(R, "applies")) {
        if (!lex_next(R))
            return false;
        if (R->tok.kind != T_IDENT)
            return expected(R, "the reducing op after 'applies'");
        s->op.reducer = shard_kind_of(R->tok.s, R->tok.len);
        if (!lex_next(R))
            return false;
    }
    if (!is_word(R, "across"))
        return expected(R, "'across dimensions = [...]'");
    if (!parse_pretty_tail(R, s))
        return false;
    if (is_word(R, "reducer")) {
        if (!lex_next(R) || !parse_block_args(R, s))
            return false;
        int32_t first = R->values.n - s->n_body_values;
        if (++R->depth > MAX_DEPTH)
            return fail_at(R, R->tok.line, R->tok.col, "regions nested too deep");
        if (!is_punct(R, "{"))
            return expected(R, "'{' to open the reducer");
        if (!lex_next(R) || !parse_block(R, &s->body, false))
            return false;
        R->depth--;
        for (int32_t k = first; k < R->values.n; k++)
            undefine(R, &((pp_shard_value *)R->values.data)[k]);
    }
    return true;
fail_expected:
    if (R->err->status == PP_OK)
        expected(R, "'init:' after the reduced value");
fail:
    free(inits.data);
    return false;
}

static bool parse_convolution(reader *R, stmt *s)
{
    if (!expect(R, "(", "'(' before the convolution's operands") || !parse_uses(R, s, ")"))
        return false;
    if (!expect(R, ")", "')' after operands"))
        return false;
    s->attrs_start = R->tok.s;
    return parse_pretty_tail(R, s);
}

static bool parse_compare(reader *R, stmt *s)
{
    attr a = {.key = "comparison_direction", .key_len = 20, .val = R->tok.s, .val_len = R->tok.len,
              .line = R->tok.line, .col = R->tok.col};
    if (R->tok.kind != T_IDENT)
        return expected(R, "the comparison direction (EQ, NE, LT, LE, GT, GE)");
    if (!vec_push(R, &s->attrs, &a, sizeof a) || !lex_next(R) || !expect(R, ",", "',' after the direction"))
        return false;
    if (!parse_uses(R, s, NULL))
        return false;
    if (R->tok.kind == T_IDENT && !is_word(R, "loc")) {
        attr t = {.key = "compare_type", .key_len = 12, .val = R->tok.s, .val_len = R->tok.len,
                  .line = R->tok.line, .col = R->tok.col};
        if (!vec_push(R, &s->attrs, &t, sizeof t) || !lex_next(R))
            return false;
    }
    return parse_pretty_tail(R, s);
}

/* "%x [0:33, 0:79:2]" */
static bool parse_slice(reader *R, stmt *s)
{
    if (!parse_uses(R, s, NULL))
        return false;
    if (!is_punct(R, "["))
        return expected(R, "'[' and the slice bounds");
    attr a = {.key = "slice", .key_len = 5, .val = R->tok.s, .line = R->tok.line, .col = R->tok.col};
    if (!skip_group(R))
        return false;
    a.val_len = (size_t)(R->text + R->prev_end - a.val);
    return vec_push(R, &s->attrs, &a, sizeof a) && parse_pretty_tail(R, s);
}

/* An op the reader does not know, in pretty form: uses up to the top-level
 * ':', the types, then the rest of the line with any regions it opens. */
/* The first character after the current token and any blanks is c. */
static bool next_char_is(const reader *R, char c)
{
    size_t k = R->pos;
    while (k < R->size && (R->text[k] == ' ' || R->text[k] == '\t' || R->text[k] == '\n' || R->text[k] == '\r'))
        k++;
    return k < R->size && R->text[k] == c;
}

/* "%iterArg = %x" inside an op: %iterArg is a new name for a region, not a use. */
static bool binds_name(const reader *R)
{
    size_t k = R->pos;
    while (k < R->size && R->text[k] == ' ')
        k++;
    return k + 1 < R->size && R->text[k] == '=' && R->text[k + 1] != '=';
}

static bool parse_unknown_pretty(reader *R, stmt *s)
{
    int depth = 0, braces = 0;
    int start_line = R->tok.line;
    while (!(depth == 0 && is_punct(R, ":"))) {
        if (R->tok.kind == T_EOF || (depth == 0 && R->tok.line != start_line && R->tok.kind == T_VALUE))
            return expected(R, "':' and the op's types");
        bool open = R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr("([{<", R->tok.s[0]);
        bool close = R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(")]}>", R->tok.s[0]);
        if (R->tok.kind == T_VALUE && braces == 0 && !binds_name(R)) { /* values in braces may be a region's own */
            int32_t v;
            if (!parse_use(R, &v) || !vec_push(R, &s->operands, &v, sizeof v))
                return false;
            continue;
        }
        if (close && depth == 0)
            return expected(R, "':' and the op's types");
        depth += open - close;
        braces += (open && R->tok.s[0] == '{') - (close && R->tok.s[0] == '}');
        if (!lex_next(R))
            return false;
    }
    s->attrs_end = R->tok.s;
    if (!parse_op_types(R, s))
        return false;
    /* the rest of the line, then regions: "{...}" or "cond {...} do {...}" */
    while (R->tok.kind != T_EOF && !is_word(R, "loc")) {
        bool same_line = R->tok.line == R->prev_line;
        bool region = is_punct(R, "{") || (R->tok.kind == T_IDENT && !memchr(R->tok.s, '.', R->tok.len) &&
                                           next_char_is(R, '{'));
        if (!same_line && !region)
            break;
        if (!skip_group(R))
            return false;
    }
    return true;
}

static bool parse_op_body(reader *R, stmt *s, const token *name)
{
    pp_shard_op_kind k = s->op.kind;
    s->attrs_start = R->tok.s;
    s->attrs_end = R->tok.s;
    if (name->kind == T_STRING)
        return parse_generic(R, s);
    switch (k) {
    case PP_SHARD_OP_CALL: return parse_call(R, s);
    case PP_SHARD_OP_RETURN: return parse_return(R, s);
    case PP_SHARD_OP_REDUCE: return parse_reduce(R, s);
    case PP_SHARD_OP_CONVOLUTION: return parse_convolution(R, s);
    case PP_SHARD_OP_COMPARE: return parse_compare(R, s);
    case PP_SHARD_OP_SLICE: return parse_slice(R, s);
    case PP_SHARD_OP_CONSTANT: {
        if (is_punct(R, "{") && !parse_attr_dict(R, &s->attrs, "}"))
            return false;
        attr a = {.key = "value", .key_len = 5, .line = R->tok.line, .col = R->tok.col};
        s->attrs_start = R->tok.s;
        if (!parse_attr_value(R, false, &a.val, &a.val_len) || !vec_push(R, &s->attrs, &a, sizeof a))
            return false;
        s->attrs_end = R->text + R->prev_end;
        return parse_op_types(R, s);
    }
    case PP_SHARD_OP_OPAQUE: return parse_unknown_pretty(R, s);
    default:
        return parse_uses(R, s, NULL) && parse_pretty_tail(R, s);
    }
}

/* ---- interpreting attributes per kind ---- */

static pp_shard_compare compare_of(const char *s, size_t len)
{
    static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    for (size_t k = 0; k < len; k++)
        for (int d = 0; d < 6; d++)
            if (k + 2 <= len && !memcmp(s + k, names[d], 2) && (k + 2 == len || !isalnum((unsigned char)s[k + 2])) &&
                (k == 0 || !isalnum((unsigned char)s[k - 1])))
                return (pp_shard_compare)(PP_SHARD_CMP_EQ + d);
    return PP_SHARD_CMP_NONE;
}

/* "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]": each list names where the
 * batch/feature (or input/output feature) and each spatial dimension sit. */
static bool conv_list(reader *R, const attr *a, const char **p, const char *end, char l1, char l2,
                      int64_t *d1, int64_t *d2, pp_shard_ints *spatial)
{
    int64_t sp[MAX_RANK];
    bool seen[MAX_RANK] = {false};
    int n = 0, pos = 0, spatial_n = 0;
    *d1 = *d2 = -1;
    while (*p < end && **p != '[')
        (*p)++;
    if (*p >= end)
        return fail_at(R, a->line, a->col, "convolution dim_numbers: expected '['");
    (*p)++;
    for (; *p < end && **p != ']'; (*p)++) {
        char c = **p;
        if (c == ' ' || c == ',')
            continue;
        if (pos >= MAX_RANK)
            return fail_at(R, a->line, a->col, "convolution dim_numbers: too many dimensions");
        if (c == l1 || c == l2) {
            int64_t *d = c == l1 ? d1 : d2;
            if (*d >= 0)
                return fail_at(R, a->line, a->col, "convolution dim_numbers: '%c' appears twice", c);
            *d = pos++;
        } else if (isdigit((unsigned char)c)) {
            int v = 0;
            while (*p < end && isdigit((unsigned char)**p) && v < MAX_RANK)
                v = v * 10 + (*(*p)++ - '0');
            (*p)--;
            if (v >= MAX_RANK)
                return fail_at(R, a->line, a->col, "convolution dim_numbers: spatial dimension too large");
            if (seen[v])
                return fail_at(R, a->line, a->col, "convolution dim_numbers: spatial dimension %d appears twice", v);
            seen[v] = true;
            sp[v] = pos++;
            spatial_n = v + 1 > spatial_n ? v + 1 : spatial_n;
            n++;
        } else {
            return fail_at(R, a->line, a->col, "convolution dim_numbers: unexpected '%c'", c);
        }
    }
    if (*p >= end || *d1 < 0 || *d2 < 0 || n != spatial_n)
        return fail_at(R, a->line, a->col, "convolution dim_numbers: expected '%c', '%c' and spatial dimensions 0..n-1",
                       l1, l2);
    (*p)++;
    spatial->n = n;
    spatial->v = n ? pp_arena_alloc(R->arena, (size_t)n * sizeof *spatial->v) : NULL;
    if (n && !spatial->v)
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    for (int k = 0; k < n; k++)
        spatial->v[k] = sp[k];
    return true;
}

static bool conv_dims(reader *R, const vec *attrs, pp_shard_conv_dims *c)
{
    const attr *a = find_attr(attrs, "dim_numbers");
    if (!a)
        a = find_attr(attrs, "dimension_numbers");
    if (!a || !a->val)
        return fail_at(R, 1, 1, "convolution without dim_numbers");
    const char *p = a->val, *end = a->val + a->val_len;
    if (!conv_list(R, a, &p, end, 'b', 'f', &c->in_batch, &c->in_feature, &c->in_spatial) ||
        !conv_list(R, a, &p, end, 'i', 'o', &c->kernel_in, &c->kernel_out, &c->kernel_spatial) ||
        !conv_list(R, a, &p, end, 'b', 'f', &c->out_batch, &c->out_feature, &c->out_spatial))
        return false;
    if (c->kernel_spatial.n != c->in_spatial.n || c->out_spatial.n != c->in_spatial.n)
        return fail_at(R, a->line, a->col, "convolution dim_numbers: the three lists differ in spatial dimensions");
    return attr_int(R, attrs, "feature_group_count", 1, &c->feature_group_count) &&
           attr_int(R, attrs, "batch_group_count", 1, &c->batch_group_count);
}

static bool dot_dims(reader *R, const vec *attrs, pp_shard_dot_dims *d)
{
    const attr *a = find_attr(attrs, "dot_dimension_numbers");
    if (a && a->val)
        return field_ints(R, a, "lhs_batching_dimensions", &d->lhs_batch) &&
               field_ints(R, a, "rhs_batching_dimensions", &d->rhs_batch) &&
               field_ints(R, a, "lhs_contracting_dimensions", &d->lhs_contract) &&
               field_ints(R, a, "rhs_contracting_dimensions", &d->rhs_contract);
    /* pretty: "batching_dims = [0] x [0], contracting_dims = [2] x [1]" */
    const char *keys[2] = {"batching_dims", "contracting_dims"};
    pp_shard_ints *sides[2][2] = {{&d->lhs_batch, &d->rhs_batch}, {&d->lhs_contract, &d->rhs_contract}};
    for (int k = 0; k < 2; k++) {
        const attr *b = find_attr(attrs, keys[k]);
        if (!b || !b->val)
            continue;
        const char *x = memchr(b->val, 'x', b->val_len);
        if (!x)
            return fail_at(R, b->line, b->col, "%s: expected '[lhs] x [rhs]'", keys[k]);
        if (!text_ints(R, b->val, (size_t)(x - b->val), b->line, b->col, sides[k][0]) ||
            !text_ints(R, x + 1, b->val_len - (size_t)(x + 1 - b->val), b->line, b->col, sides[k][1]))
            return false;
    }
    return true;
}

static bool gather_dims(reader *R, const vec *attrs, pp_shard_gather_dims *g)
{
    g->index_vector_dim = -1;
    const attr *a = find_attr(attrs, "dimension_numbers");
    if (a && a->val) {
        pp_shard_ints ivd;
        if (!field_ints(R, a, "offset_dims", &g->offset_dims) ||
            !field_ints(R, a, "collapsed_slice_dims", &g->collapsed_slice_dims) ||
            !field_ints(R, a, "start_index_map", &g->start_index_map) ||
            !field_ints(R, a, "operand_batching_dims", &g->operand_batching_dims) ||
            !field_ints(R, a, "start_indices_batching_dims", &g->start_indices_batching_dims) ||
            !field_ints(R, a, "index_vector_dim", &ivd))
            return false;
        if (ivd.n)
            g->index_vector_dim = ivd.v[0];
    }
    return attr_ints(R, attrs, "slice_sizes", &g->slice_sizes);
}

static bool slice_bounds(reader *R, const vec *attrs, pp_shard_op *op)
{
    const attr *a = find_attr(attrs, "slice");
    if (!a)
        return attr_ints(R, attrs, "start_indices", &op->start) &&
               attr_ints(R, attrs, "limit_indices", &op->limit) && attr_ints(R, attrs, "strides", &op->strides);
    /* "[lo:hi(:st)?, ...]": split the integers by position within each range */
    int64_t lo[MAX_RANK], hi[MAX_RANK], st[MAX_RANK];
    int n = 0, field = 0, got = 0; /* got: bit f set once field f of the range has its number */
    pp_shard_ints *lists[3] = {&op->start, &op->limit, &op->strides};
    for (size_t k = 1; k < a->val_len && !(k == 1 && a->val_len == 2); k++) {
        char c = a->val[k];
        if (c == ',' || c == ']') {
            if (field < 1 || n >= MAX_RANK || got != (1 << (field + 1)) - 1)
                return fail_at(R, a->line, a->col, "slice: expected 'start:limit' for each dimension");
            if (field == 1)
                st[n] = 1;
            n++;
            field = 0;
            got = 0;
        } else if (c == ':') {
            field++;
            if (field > 2)
                return fail_at(R, a->line, a->col, "slice: too many ':' in a range");
        } else if (isdigit((unsigned char)c)) {
            int64_t v = 0;
            while (k < a->val_len && isdigit((unsigned char)a->val[k]) && v <= MAX_INT_ATTR)
                v = v * 10 + (a->val[k++] - '0');
            k--;
            if (n >= MAX_RANK || v > MAX_INT_ATTR)
                return fail_at(R, a->line, a->col, "slice: bound too large");
            (field == 0 ? lo : field == 1 ? hi : st)[n] = v;
            got |= 1 << field;
        } else if (c != ' ') {
            return fail_at(R, a->line, a->col, "slice: unexpected '%c' in the bounds", c);
        }
    }
    int64_t *src[3] = {lo, hi, st};
    for (int l = 0; l < 3; l++) {
        lists[l]->n = n;
        lists[l]->v = n ? pp_arena_alloc(R->arena, (size_t)n * sizeof(int64_t)) : NULL;
        if (n && !lists[l]->v)
            return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
        if (n)
            memcpy(lists[l]->v, src[l], (size_t)n * sizeof(int64_t));
    }
    return true;
}

static bool interpret_attrs(reader *R, stmt *s)
{
    pp_shard_op *op = &s->op;
    const vec *A = &s->attrs;
    switch (op->kind) {
    case PP_SHARD_OP_BROADCAST_IN_DIM:
        return attr_ints(R, A, find_attr(A, "dims") ? "dims" : "broadcast_dimensions", &op->dims);
    case PP_SHARD_OP_TRANSPOSE:
        return attr_ints(R, A, find_attr(A, "dims") ? "dims" : "permutation", &op->dims);
    case PP_SHARD_OP_REDUCE:
        return attr_ints(R, A, "dimensions", &op->dims);
    case PP_SHARD_OP_REDUCE_WINDOW:
        return attr_ints(R, A, "window_dimensions", &op->dims) && attr_ints(R, A, "window_strides", &op->strides);
    case PP_SHARD_OP_CONCATENATE:
        return attr_int(R, A, find_attr(A, "dim") ? "dim" : "dimension", -1, &op->dim);
    case PP_SHARD_OP_IOTA:
        return attr_int(R, A, find_attr(A, "dim") ? "dim" : "iota_dimension", -1, &op->dim);
    case PP_SHARD_OP_SLICE: return slice_bounds(R, A, op);
    case PP_SHARD_OP_DOT_GENERAL: return dot_dims(R, A, &op->dot);
    case PP_SHARD_OP_CONVOLUTION: return conv_dims(R, A, &op->conv);
    case PP_SHARD_OP_GATHER: return gather_dims(R, A, &op->gather);
    case PP_SHARD_OP_COMPARE: {
        const attr *a = find_attr(A, "comparison_direction");
        op->compare = a && a->val ? compare_of(a->val, a->val_len) : PP_SHARD_CMP_NONE;
        if (op->compare == PP_SHARD_CMP_NONE)
            return fail_at(R, op->line, op->col, "compare without a direction (EQ, NE, LT, LE, GT, GE)");
        const attr *t = find_attr(A, "compare_type");
        op->compare_type = t && t->val ? keep_text(R, t->val, t->val_len) : "";
        return op->compare_type != NULL;
    }
    default: return true;
    }
}

/* ---- making the op's values ---- */

static bool type_mismatch(reader *R, const stmt *s, int k, const pp_shard_type *want)
{
    const pp_shard_value *v = &((pp_shard_value *)R->values.data)[((int32_t *)s->operands.data)[k]];
    char a[160], b[160];
    return fail_at(R, s->op.line, s->op.col, "%s: operand #%d %%%s has type %s but the op says %s", s->op.name, k,
                   v->name, shard_type_text(&v->type, a, sizeof a), shard_type_text(want, b, sizeof b));
}

/* The declared types of the operands against the values' own types, and
 * which types the results get. */
static bool settle_types(reader *R, stmt *s, const pp_shard_type **out_types, int32_t *n_out)
{
    const pp_shard_type *in = s->in_types.data;
    const pp_shard_value *values = R->values.data;
    int32_t n_ops = s->operands.n, n_in = s->in_types.n;
    const int32_t *operands = s->operands.data;
    if (s->functional || s->op.kind == PP_SHARD_OP_RETURN) {
        if (n_in != n_ops)
            return fail_at(R, s->op.line, s->op.col, "%s has %d operand(s) but %d operand type(s)", s->op.name,
                           (int)n_ops, (int)n_in);
        for (int k = 0; k < n_ops; k++)
            if (!pp_shard_type_equal(&values[operands[k]].type, &in[k]))
                return type_mismatch(R, s, k, &in[k]);
        *out_types = s->out_types.data;
        *n_out = s->out_types.n;
        return true;
    }
    if (s->op.kind == PP_SHARD_OP_OPAQUE) { /* "t1, t2": the results' types, nothing said of the operands */
        *out_types = in;
        *n_out = n_in;
        return true;
    }
    /* "t": every operand and the result; select's "pred_t, t" */
    bool select = s->op.kind == PP_SHARD_OP_SELECT && n_in == 2;
    if (n_in != 1 && !select)
        return fail_at(R, s->op.line, s->op.col, "%s: expected one type or '(operand types) -> result types'",
                       s->op.name);
    for (int k = 0; k < n_ops; k++) {
        const pp_shard_type *want = select && k == 0 ? &in[0] : &in[n_in - 1];
        if (!pp_shard_type_equal(&values[operands[k]].type, want))
            return type_mismatch(R, s, k, want);
    }
    *out_types = &in[n_in - 1];
    *n_out = 1;
    return true;
}

/* Appends the op's results as values, binds the %names and puts the op in ops. */
static bool finish_op(reader *R, stmt *s, vec *ops, bool top)
{
    const pp_shard_type *out = NULL;
    int32_t n_out = 0, n_defs = 0;
    if (!settle_types(R, s, &out, &n_out))
        return false;
    for (int k = 0; k < s->n_defs; k++)
        n_defs += s->def_counts[k];
    if (n_defs != n_out)
        return fail_at(R, s->op.line, s->op.col, "%s gives %d result(s) but %d name(s) receive them", s->op.name,
                       (int)n_out, (int)n_defs);
    pp_shard_op *op = &s->op;
    op->n_operands = s->operands.n;
    op->operands = vec_keep(R, &s->operands, sizeof(int32_t));
    op->n_results = n_out;
    op->results = n_out ? pp_arena_alloc(R->arena, (size_t)n_out * sizeof(int32_t)) : NULL;
    if ((n_out && !op->results) || (op->n_operands && !op->operands))
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    int32_t r = 0;
    for (int d = 0; d < s->n_defs; d++) {
        if (!define(R, &s->defs[d], R->values.n, s->def_counts[d]))
            return false;
        for (int32_t j = 0; j < s->def_counts[d]; j++, r++) {
            pp_shard_value v = {.type = out[r], .op = ops->n, .index = r, .in_body = !top};
            const token *t = &s->defs[d];
            char name[96];
            if (s->def_counts[d] > 1)
                snprintf(name, sizeof name, "%.*s#%d", (int)(t->len - 1 > 80 ? 80 : t->len - 1), t->s + 1, (int)j);
            else
                snprintf(name, sizeof name, "%.*s", (int)(t->len - 1 > 90 ? 90 : t->len - 1), t->s + 1);
            if (!(v.name = keep_text(R, name, strlen(name))))
                return false;
            op->results[r] = R->values.n;
            if (!vec_push(R, &R->values, &v, sizeof v))
                return false;
        }
    }
    if (s->op.kind != PP_SHARD_OP_OPAQUE) {
        char why[300];
        if (!shard_check_op(R->values.data, op, why, sizeof why))
            return fail_at(R, op->line, op->col, "%s", why);
    }
    /* the body's ops go to body_ops now, contiguous, so nested bodies stay grouped */
    op->body_first = R->body_ops.n;
    op->body_count = s->body.n;
    pp_shard_value *values = R->values.data;
    for (int32_t k = 0; k < s->body.n; k++) {
        pp_shard_op *b = (pp_shard_op *)s->body.data + k;
        for (int32_t j = 0; j < b->n_results; j++)
            values[b->results[j]].op = R->body_ops.n;
        if (!vec_push(R, &R->body_ops, b, sizeof *b))
            return false;
    }
    return vec_push(R, ops, op, sizeof *op);
}

/* One warning per op name, at its first use; target is the token after the
 * name, a custom call's @target, which its warning names. */
static bool note_unknown(reader *R, const token *name, const token *target)
{
    pp_shard_warning *w = R->warnings.data;
    for (int32_t k = 0; k < R->warnings.n; k++)
        if (strlen(w[k].op_name) == name->len && !memcmp(w[k].op_name, name->s, name->len)) {
            w[k].count++;
            return true;
        }
    char msg[300];
    if (name->len == strlen("stablehlo.custom_call") && !memcmp(name->s, "stablehlo.custom_call", name->len) &&
        target->kind == T_SYMBOL)
        snprintf(msg, sizeof msg, "%s:%d:%d: stablehlo.custom_call @%.*s kept as opaque (the sharder cannot see "
                 "inside a custom call)", R->file, name->line, name->col,
                 (int)(target->len - 1 > 100 ? 100 : target->len - 1), target->s + 1);
    else
        snprintf(msg, sizeof msg, "%s:%d:%d: unknown op '%.*s' kept as opaque", R->file, name->line, name->col,
                 (int)(name->len > 100 ? 100 : name->len), name->s);
    pp_shard_warning nw = {keep_text(R, msg, strlen(msg)), keep_text(R, name->s, name->len), 1};
    return nw.message && nw.op_name && vec_push(R, &R->warnings, &nw, sizeof nw);
}

/* "%a, %b:2 =" */
static bool parse_defs(reader *R, stmt *s)
{
    while (R->tok.kind == T_VALUE) {
        if (s->n_defs == 32)
            return fail_at(R, R->tok.line, R->tok.col, "more than 32 result groups");
        s->defs[s->n_defs] = R->tok;
        s->def_counts[s->n_defs] = 1;
        if (!lex_next(R))
            return false;
        bool ok = true;
        if (accept(R, ":", &ok)) {
            if (!ok)
                return false;
            if (R->tok.kind != T_NUMBER || R->tok.s[0] == '-' || R->tok.len > 6)
                return expected(R, "the number of results after ':'");
            int count = 0; /* the token is not NUL-terminated: read its digits only */
            for (size_t k = 0; k < R->tok.len; k++)
                count = count * 10 + (R->tok.s[k] - '0');
            s->def_counts[s->n_defs] = count;
            if (s->def_counts[s->n_defs] < 1)
                return expected(R, "a positive number of results");
            if (!lex_next(R))
                return false;
        }
        s->n_defs++;
        if (!accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return expect(R, "=", "'=' after the result names");
}

/* The op name: "call", "return", "dialect.op", or a quoted generic name. */
static bool parse_op_name(reader *R, stmt *s, token *name)
{
    *name = R->tok;
    const char *text = R->tok.s;
    size_t len = R->tok.len;
    if (R->tok.kind == T_STRING) {
        text++;
        len -= 2;
    } else if (R->tok.kind != T_IDENT ||
               (!memchr(text, '.', len) && !is_word(R, "call") && !is_word(R, "return"))) {
        return expected(R, "an op name (dialect.op, call or return)");
    }
    s->op.kind = shard_kind_of(text, len);
    s->op.name = keep_text(R, text, len);
    s->op.line = R->tok.line;
    s->op.col = R->tok.col;
    s->op.callee = -1;
    s->op.dim = -1;
    s->op.reducer = PP_SHARD_OP_OPAQUE;
    if (!s->op.name || !lex_next(R))
        return false;
    return s->op.kind != PP_SHARD_OP_OPAQUE ||
           note_unknown(R, &(token){name->kind, text, len, name->line, name->col}, &R->tok);
}

static bool parse_op(reader *R, vec *ops, bool top)
{
    stmt s;
    memset(&s, 0, sizeof s);
    token name;
    s.op.src_start = (size_t)(R->tok.s - R->text);
    bool ok = (R->tok.kind != T_VALUE || parse_defs(R, &s)) && parse_op_name(R, &s, &name) &&
              parse_op_body(R, &s, &name) && skip_loc(R);
    s.op.src_end = R->prev_end;
    if (ok && s.op.kind == PP_SHARD_OP_REDUCE_WINDOW)
        s.op.reducer = reducer_from_body(R, &s.body);
    if (ok && s.op.kind == PP_SHARD_OP_REDUCE && s.body.n)
        s.op.reducer = reducer_from_body(R, &s.body);
    if (ok && s.attrs_end > s.attrs_start)
        ok = (s.op.attrs = keep_text(R, s.attrs_start, (size_t)(s.attrs_end - s.attrs_start))) != NULL;
    ok = ok && interpret_attrs(R, &s) && finish_op(R, &s, ops, top);
    stmt_free(&s);
    return ok;
}

/* Ops up to the closing '}' (consumed). */
static bool parse_block(reader *R, vec *ops, bool top)
{
    while (!is_punct(R, "}")) {
        if (R->tok.kind == T_EOF)
            return expected(R, "'}' to close the block");
        if (!parse_op(R, ops, top))
            return false;
    }
    const pp_shard_op *last = ops->n ? (pp_shard_op *)ops->data + ops->n - 1 : NULL;
    if (!last || last->kind != PP_SHARD_OP_RETURN)
        return fail_at(R, R->tok.line, R->tok.col, "the block does not end with a return");
    return lex_next(R);
}

/* ---- functions and the module ---- */

static bool parse_param(reader *R, pp_shard_param *p)
{
    memset(p, 0, sizeof *p);
    if (!parse_type(R, &p->type))
        return false;
    if (!is_punct(R, "{"))
        return true;
    vec attrs = {0};
    const char *start = R->tok.s;
    bool ok = parse_attr_dict(R, &attrs, "}");
    if (ok)
        ok = (p->attrs = keep_text(R, start, (size_t)(R->text + R->prev_end - start))) != NULL;
    const attr *sh = ok ? find_attr(&attrs, "mhlo.sharding") : NULL;
    if (sh && sh->val && sh->val_len >= 2 && sh->val[0] == '"')
        ok = (p->sharding = keep_text(R, sh->val + 1, sh->val_len - 2)) != NULL;
    free(attrs.data);
    return ok;
}

static bool parse_args(reader *R, pp_shard_func *f, vec *params)
{
    if (!expect(R, "(", "'(' before the function's arguments"))
        return false;
    while (!is_punct(R, ")")) {
        if (R->tok.kind != T_VALUE)
            return expected(R, "an argument (%name: type) or ')'");
        token name = R->tok;
        pp_shard_param p;
        if (!lex_next(R) || !expect(R, ":", "':' after the argument name") || !parse_param(R, &p) || !skip_loc(R))
            return false;
        pp_shard_value v = {.type = p.type, .op = -1, .index = params->n};
        if (!(v.name = keep_text(R, name.s + 1, name.len - 1)) || !define(R, &name, R->values.n, 1) ||
            !vec_push(R, &R->values, &v, sizeof v) || !vec_push(R, params, &p, sizeof p))
            return false;
        bool ok = true;
        if (!accept(R, ",", &ok) && !is_punct(R, ")"))
            return expected(R, "',' or ')' after the argument");
        if (!ok)
            return false;
    }
    f->n_args = params->n;
    return lex_next(R);
}

static bool parse_results(reader *R, vec *params)
{
    bool ok = true;
    if (!accept(R, "->", &ok))
        return true;
    if (!ok)
        return false;
    if (!accept(R, "(", &ok)) { /* a '{' after a bare result type opens the body */
        pp_shard_param p = {0};
        return parse_type(R, &p.type) && vec_push(R, params, &p, sizeof p);
    }
    while (ok && !is_punct(R, ")")) {
        pp_shard_param p;
        if (!parse_param(R, &p) || !vec_push(R, params, &p, sizeof p))
            return false;
        if (!accept(R, ",", &ok) && !is_punct(R, ")"))
            return expected(R, "',' or ')' after the result type");
    }
    return ok && lex_next(R);
}

static void reset_function(reader *R)
{
    R->values.n = 0;
    R->body_ops.n = 0;
    if (R->slots)
        memset(R->slots, 0, R->cap_slots * sizeof *R->slots);
    R->n_slots = 0;
}

static bool parse_func_body(reader *R, pp_shard_func *f)
{
    vec ops = {0};
    bool ok = expect(R, "{", "'{' to open the function body") && parse_block(R, &ops, true);
    if (ok) {
        f->n_ops = ops.n;
        f->ops = vec_keep(R, &ops, sizeof(pp_shard_op));
        f->n_values = R->values.n;
        f->values = vec_keep(R, &R->values, sizeof(pp_shard_value));
        f->n_body_ops = R->body_ops.n;
        f->body_ops = vec_keep(R, &R->body_ops, sizeof(pp_shard_op));
        ok = R->err->status == PP_OK;
    }
    free(ops.data);
    return ok;
}

static bool parse_func(reader *R)
{
    pp_shard_func f;
    memset(&f, 0, sizeof f);
    f.line = R->tok.line;
    f.col = R->tok.col;
    f.src_start = (size_t)(R->tok.s - R->text);
    f.is_public = 1;
    reset_function(R);
    if (!lex_next(R))
        return false;
    if (is_word(R, "public") || is_word(R, "private") || is_word(R, "nested")) {
        f.is_public = is_word(R, "public");
        if (!lex_next(R))
            return false;
    }
    if (R->tok.kind != T_SYMBOL)
        return expected(R, "the function name (@name)");
    const char *nm = R->tok.s + 1;
    size_t nlen = R->tok.len - 1;
    if (nm[0] == '"') {
        nm++;
        nlen -= 2;
    }
    if (!(f.name = keep_text(R, nm, nlen)))
        return false;
    if (pp_shard_module_find_func(&(pp_shard_module){.n_funcs = R->funcs.n, .funcs = R->funcs.data}, f.name) >= 0)
        return fail_at(R, R->tok.line, R->tok.col, "function @%s is defined twice", f.name);
    vec args = {0}, results = {0};
    bool ok = lex_next(R) && parse_args(R, &f, &args) && parse_results(R, &results) && skip_loc(R);
    if (ok && is_word(R, "attributes")) {
        vec attrs = {0};
        ok = lex_next(R) && (is_punct(R, "{") ? parse_attr_dict(R, &attrs, "}") : expected(R, "'{' after attributes"));
        free(attrs.data);
    }
    f.args = ok ? vec_keep(R, &args, sizeof(pp_shard_param)) : NULL;
    f.n_results = results.n;
    f.results = ok ? vec_keep(R, &results, sizeof(pp_shard_param)) : NULL;
    free(args.data);
    free(results.data);
    ok = ok && R->err->status == PP_OK && parse_func_body(R, &f) && skip_loc(R);
    f.src_end = R->prev_end;
    return ok && vec_push(R, &R->funcs, &f, sizeof f);
}

/* "{-# dialect_resources: {...} #-}" after the module: skipped whole. */
static bool skip_resources(reader *R)
{
    const char *end = NULL;
    for (size_t k = R->pos; k + 2 < R->size && !end; k++)
        if (R->text[k] == '#' && R->text[k + 1] == '-' && R->text[k + 2] == '}')
            end = R->text + k + 3;
    if (!end)
        return fail_at(R, R->tok.line, R->tok.col, "'{-#' is never closed by '#-}'");
    while (R->text + R->pos < end)
        advance_char(R);
    return lex_next(R);
}

static bool parse_toplevel(reader *R, bool in_module);

static bool parse_module(reader *R)
{
    pp_shard_module *m = R->m;
    if (!lex_next(R))
        return false;
    if (R->tok.kind == T_SYMBOL) {
        if (!(m->name = keep_text(R, R->tok.s + 1, R->tok.len - 1)) || !lex_next(R))
            return false;
    }
    if (is_word(R, "attributes")) {
        if (!lex_next(R))
            return false;
        if (!is_punct(R, "{"))
            return expected(R, "'{' after attributes");
        const char *start = R->tok.s;
        vec attrs = {0};
        bool ok = parse_attr_dict(R, &attrs, "}");
        free(attrs.data);
        if (!ok || !(m->attrs = keep_text(R, start, (size_t)(R->text + R->prev_end - start))))
            return false;
    }
    if (!expect(R, "{", "'{' to open the module"))
        return false;
    while (!is_punct(R, "}")) {
        if (R->tok.kind == T_EOF)
            return expected(R, "'}' to close the module");
        if (!parse_toplevel(R, true))
            return false;
    }
    return lex_next(R) && skip_loc(R);
}

/* "sdy.mesh @name = <[...]>", Shardy's mesh declaration (as the writer puts
 * it before the entry). The sharder takes its mesh from the command line, so
 * the declaration is checked for its form and skipped. */
static bool skip_sdy_mesh(reader *R)
{
    if (!lex_next(R))
        return false;
    if (R->tok.kind != T_SYMBOL)
        return expected(R, "the mesh's name (@name) after sdy.mesh");
    if (!lex_next(R) || !expect(R, "=", "'=' after the mesh's name"))
        return false;
    if (!is_punct(R, "<"))
        return expected(R, "'<' to open the mesh");
    return skip_group(R) && skip_loc(R);
}

static bool parse_toplevel(reader *R, bool in_module)
{
    if (is_word(R, "func.func"))
        return parse_func(R);
    if (is_word(R, "sdy.mesh"))
        return skip_sdy_mesh(R);
    if (is_word(R, "module") && !in_module)
        return parse_module(R);
    if (R->tok.kind == T_HASH) { /* "#loc1 = loc(...)" and other aliases */
        if (!lex_next(R) || !expect(R, "=", "'=' after the alias"))
            return false;
        int line = R->prev_line;
        while (R->tok.kind != T_EOF && R->tok.line == line)
            if (!skip_group(R))
                return false;
        return true;
    }
    if (is_punct(R, "{") && at_char(R, 0, '-') && !in_module)
        return skip_resources(R);
    return expected(R, in_module ? "func.func, sdy.mesh or '}'" : "module or func.func");
}

/* ---- after reading: calls ---- */

static bool call_types_match(reader *R, const pp_shard_func *caller, const pp_shard_op *op, const pp_shard_func *callee)
{
    char a[160], b[160];
    if (op->n_operands != callee->n_args || op->n_results != callee->n_results)
        return fail_at(R, op->line, op->col, "call @%s passes %d argument(s) and takes %d result(s); it has %d and %d",
                       callee->name, (int)op->n_operands, (int)op->n_results, (int)callee->n_args,
                       (int)callee->n_results);
    for (int32_t k = 0; k < op->n_operands; k++) {
        const pp_shard_type *t = &caller->values[op->operands[k]].type;
        if (!pp_shard_type_equal(t, &callee->args[k].type))
            return fail_at(R, op->line, op->col, "call @%s: argument #%d has type %s but the function takes %s",
                           callee->name, (int)k, shard_type_text(t, a, sizeof a),
                           shard_type_text(&callee->args[k].type, b, sizeof b));
    }
    for (int32_t k = 0; k < op->n_results; k++) {
        const pp_shard_type *t = &caller->values[op->results[k]].type;
        if (!pp_shard_type_equal(t, &callee->results[k].type))
            return fail_at(R, op->line, op->col, "call @%s: result #%d has type %s but the function returns %s",
                           callee->name, (int)k, shard_type_text(t, a, sizeof a),
                           shard_type_text(&callee->results[k].type, b, sizeof b));
    }
    return true;
}

static bool return_matches(reader *R, const pp_shard_func *f)
{
    const pp_shard_op *ret = &f->ops[f->n_ops - 1];
    char a[160], b[160];
    if (ret->n_operands != f->n_results)
        return fail_at(R, ret->line, ret->col, "@%s returns %d value(s) but declares %d result(s)", f->name,
                       (int)ret->n_operands, (int)f->n_results);
    for (int32_t k = 0; k < ret->n_operands; k++)
        if (!pp_shard_type_equal(&f->values[ret->operands[k]].type, &f->results[k].type))
            return fail_at(R, ret->line, ret->col, "@%s returns %s as result #%d, declared %s", f->name,
                           shard_type_text(&f->values[ret->operands[k]].type, a, sizeof a), (int)k,
                           shard_type_text(&f->results[k].type, b, sizeof b));
    for (int32_t k = 0; k + 1 < f->n_ops; k++)
        if (f->ops[k].kind == PP_SHARD_OP_RETURN)
            return fail_at(R, f->ops[k].line, f->ops[k].col, "return before the end of @%s", f->name);
    return true;
}

static bool resolve_calls(reader *R)
{
    pp_shard_module *m = R->m;
    for (int32_t fi = 0; fi < m->n_funcs; fi++) {
        pp_shard_func *f = &m->funcs[fi];
        if (!return_matches(R, f))
            return false;
        for (int32_t k = 0; k < f->n_ops; k++) {
            pp_shard_op *op = &f->ops[k];
            if (op->kind != PP_SHARD_OP_CALL)
                continue;
            char name[256];
            const char *sym = op->attrs + 1;
            size_t len = strlen(sym);
            if (sym[0] == '"' && len >= 2) {
                sym++;
                len -= 2;
            }
            snprintf(name, sizeof name, "%.*s", (int)(len > 250 ? 250 : len), sym);
            op->callee = pp_shard_module_find_func(m, name);
            if (op->callee < 0)
                return fail_at(R, op->line, op->col, "call to an unknown function @%s", name);
            if (!call_types_match(R, f, op, &m->funcs[op->callee]))
                return false;
        }
    }
    return true;
}

/* Depth-first over the call graph: a call back into a function still being
 * visited is recursion, which cannot be inlined. */
static bool find_recursion(reader *R, int32_t fi, char *state)
{
    state[fi] = 1;
    const pp_shard_func *f = &R->m->funcs[fi];
    for (int32_t k = 0; k < f->n_ops; k++) {
        const pp_shard_op *op = &f->ops[k];
        if (op->kind != PP_SHARD_OP_CALL)
            continue;
        if (state[op->callee] == 1)
            return fail_at(R, op->line, op->col, "recursive call to @%s", R->m->funcs[op->callee].name);
        if (state[op->callee] == 0 && !find_recursion(R, op->callee, state))
            return false;
    }
    state[fi] = 2;
    return true;
}

static bool check_calls(reader *R)
{
    if (!resolve_calls(R))
        return false;
    char *state = calloc((size_t)R->m->n_funcs + 1, 1);
    if (!state)
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    bool ok = true;
    for (int32_t fi = 0; fi < R->m->n_funcs && ok; fi++)
        if (!state[fi])
            ok = find_recursion(R, fi, state);
    free(state);
    return ok;
}

static int32_t pick_entry(const pp_shard_module *m)
{
    int32_t main_fn = pp_shard_module_find_func(m, "main");
    if (main_fn >= 0)
        return main_fn;
    for (int32_t k = 0; k < m->n_funcs; k++)
        if (m->funcs[k].is_public)
            return k;
    return 0;
}

int32_t pp_shard_module_find_func(const pp_shard_module *module, const char *name)
{
    for (int32_t k = 0; k < module->n_funcs; k++)
        if (strcmp(module->funcs[k].name, name) == 0)
            return k;
    return -1;
}

static bool read_all(reader *R)
{
    if (!lex_next(R))
        return false;
    while (R->tok.kind != T_EOF)
        if (!parse_toplevel(R, false))
            return false;
    if (R->funcs.n == 0)
        return fail_at(R, R->tok.line, R->tok.col, "no function in the input");
    pp_shard_module *m = R->m;
    m->n_funcs = R->funcs.n;
    m->funcs = vec_keep(R, &R->funcs, sizeof(pp_shard_func));
    m->n_warnings = R->warnings.n;
    m->warnings = vec_keep(R, &R->warnings, sizeof(pp_shard_warning));
    if (R->err->status != PP_OK)
        return false;
    m->entry = pick_entry(m);
    return check_calls(R);
}

/* Text is text: a NUL byte would cut the attribute strings kept as C
 * strings, so it is refused where it stands. */
/* MLIR bytecode starts with the magic "ML\xefR" (what jax.export serializes
 * and .mlir.bc files hold); it is said so, with the tools that print it as text. */
static pp_status refuse_binary(const char *name, const char *text, size_t size, pp_error *err)
{
    if (size >= 4 && memcmp(text, "ML\xefR", 4) == 0)
        return pp_error_set(err, PP_EINPUT,
                            "%s:1:1: this is MLIR bytecode, not text: `stablehlo-translate --deserialize %s` "
                            "(or `mlir-opt %s`) prints it as the text the sharder reads",
                            name, name, name);
    const char *nul = memchr(text, '\0', size);
    if (!nul)
        return PP_OK;
    int line = 1, col = 1;
    for (const char *c = text; c < nul; c++) {
        col = *c == '\n' ? 1 : col + 1;
        line += *c == '\n';
    }
    return pp_error_set(err, PP_EINPUT, "%s:%d:%d: a NUL byte in the text", name, line, col);
}

pp_status pp_shard_module_parse(const char *name, const char *text, size_t size, pp_shard_module **out,
                                pp_error *err)
{
    *out = NULL;
    if (refuse_binary(name, text, size, err) != PP_OK)
        return PP_EINPUT;
    pp_arena *arena = pp_arena_new(1 << 16);
    pp_shard_module *m = arena ? pp_arena_calloc(arena, 1, sizeof *m) : NULL;
    if (!m) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
    }
    reader R = {.file = name, .text = text, .size = size, .line = 1, .col = 1, .arena = arena, .err = err, .m = m};
    m->arena = arena;
    m->name = "";
    m->file = keep_text(&R, name, strlen(name));
    bool ok = m->file && read_all(&R);
    free(R.funcs.data);
    free(R.warnings.data);
    free(R.values.data);
    free(R.body_ops.data);
    free(R.slots);
    if (!ok) {
        pp_arena_free(arena);
        if (err->status == PP_OK)
            return pp_error_set(err, PP_EINPUT, "%s: malformed input", name);
        return err->status;
    }
    *out = m;
    return PP_OK;
}

pp_status pp_shard_module_load(const char *path, pp_shard_module **out, pp_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t size = 0;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (st == PP_OK)
        st = pp_shard_module_parse(path, text, size, out, err);
    free(text);
    return st;
}

void pp_shard_module_free(pp_shard_module *module)
{
    if (module)
        pp_arena_free(module->arena);
}
