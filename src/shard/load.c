/* load.c: the StableHLO text reader of the auto-sharder (issue 8). It
 * owns the grammar below and the building of pp_shard_module; the lexer is
 * load_lex.c's, the attributes load_attr.c's (load_internal.h).
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
 *                (a DIM is a whole number: a dynamic one, '?', is refused)
 *   encoding  := balanced text on the type's line (#stablehlo.bounds<?, 16>); ignored
 *   balanced  := tokens or characters balanced in (), [], {}, <> and strings
 *   uses      := USE (',' USE)*, USE := VALUE ('#' INT)?
 *   attr-dict := '{' (KEY ('=' attr-value (':' type)?)? (',' ...)*)? '}'
 *   attr-value:= any balanced token run ending before ',' '}' or ':'
 *
 * The pretty form of an op the reader does not know is read as far as the
 * types after its top-level ':'; the rest of that line (with any regions it
 * opens) is skipped. Such ops become OPAQUE, with one warning per op name. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard/load_internal.h"

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
    shard_lex_advance(R);
    while (shard_lex_at_char(R, 0, ' ') || shard_lex_at_char(R, 0, '\t'))
        shard_lex_advance(R);
    if (shard_lex_at_char(R, 0, '>') || R->pos >= R->size || R->text[R->pos] == '\n')
        return shard_lex_fail(R, R->line, R->col, "expected an encoding after ',' in the tensor type");
    while (R->pos < R->size && R->text[R->pos] != '\n' && (depth > 0 || R->text[R->pos] != '>')) {
        char c = R->text[R->pos];
        int line = R->line, col = R->col;
        if (c == '"') {
            if (!shard_lex_string(R))
                return shard_lex_fail(R, line, col, "unterminated string");
            continue;
        }
        if (c != '\0' && strchr("<[({", c)) {
            if (depth == MAX_DEPTH)
                return shard_lex_fail(R, line, col, "brackets nested too deep");
            stack[depth++] = c == '<' ? '>' : c == '[' ? ']' : c == '(' ? ')' : '}';
        } else if (c != '\0' && strchr(">])}", c) && (depth == 0 || stack[--depth] != c)) {
            return shard_lex_fail(R, line, col, "unbalanced '%c' in the tensor type's encoding", c);
        }
        shard_lex_advance(R);
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
        /* Sizes are what the sharder divides and prices: a dynamic one is
         * refused here, where it is written, and never stored. */
        if (shard_lex_at_char(R, 0, '?'))
            return shard_lex_fail(R, line, col,
                                  "dimension %d of the tensor type is dynamic ('?'): the sharder needs static "
                                  "shapes (export with concrete sizes)",
                                  rank);
        if (R->pos >= R->size || !isdigit((unsigned char)R->text[R->pos]))
            break;
        int64_t d = 0;
        while (R->pos < R->size && isdigit((unsigned char)R->text[R->pos])) {
            d = d * 10 + (R->text[R->pos] - '0');
            if (d > MAX_INT_ATTR)
                return shard_lex_fail(R, line, col, "tensor dimension too large");
            shard_lex_advance(R);
        }
        if (!shard_lex_at_char(R, 0, 'x'))
            return shard_lex_fail(R, R->line, R->col, "expected 'x' after a tensor dimension");
        shard_lex_advance(R);
        if (rank == MAX_RANK)
            return shard_lex_fail(R, line, col, "tensor rank above %d", MAX_RANK);
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
        shard_lex_advance(R);
    }
    size_t len = R->pos - start;
    if (len == 0 || len >= sizeof t->elem)
        return shard_lex_fail(R, line, col, "expected an element type in the tensor type");
    memcpy(t->elem, R->text + start, len);
    t->elem[len] = '\0';
    if (!elem_known(t->elem))
        return shard_lex_fail(R, line, col, "unknown element type '%s'", t->elem);
    t->bits = elem_bits(t->elem);
    t->rank = rank;
    t->dims = rank ? pp_arena_alloc(R->arena, (size_t)rank * sizeof *t->dims) : NULL;
    if (rank && !t->dims)
        return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file), false;
    if (rank)
        memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
    if (shard_lex_at_char(R, 0, ',') && !skip_encoding(R))
        return false;
    if (!shard_lex_at_char(R, 0, '>'))
        return shard_lex_fail(R, R->line, R->col, "expected '>' to end the tensor type");
    shard_lex_advance(R);
    return shard_lex_next(R);
}

bool shard_read_type(reader *R, pp_shard_type *t)
{
    memset(t, 0, sizeof *t);
    if (shard_lex_is_word(R, "tensor")) {
        if (!shard_lex_at_char(R, 0, '<')) {
            shard_lex_next(R);
            return shard_lex_expected(R, "'<' after tensor");
        }
        shard_lex_advance(R);
        return parse_tensor_body(R, t);
    }
    if (R->tok.kind == T_IDENT && R->tok.s[0] == '!') {
        t->rank = -1;
        size_t n = R->tok.len < sizeof t->elem ? R->tok.len : sizeof t->elem - 1;
        memcpy(t->elem, R->tok.s, n);
        if (!shard_lex_next(R))
            return false;
        return shard_lex_is_punct(R, "<") && R->tok.s == R->text + R->prev_end ? shard_lex_skip_group(R) : true;
    }
    return shard_lex_expected(R, "a tensor type");
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
        return shard_lex_fail(R, name->line, name->col, "%.*s is defined twice", (int)name->len, name->s);
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
        return shard_lex_expected(R, "a value (%name)");
    token name = R->tok;
    int64_t index = -1;
    if (shard_lex_at_char(R, 0, '#')) {
        shard_lex_advance(R);
        int64_t v = 0;
        if (R->pos >= R->size || !isdigit((unsigned char)R->text[R->pos]))
            return shard_lex_fail(R, R->line, R->col, "expected a result number after '#'");
        while (R->pos < R->size && isdigit((unsigned char)R->text[R->pos]) && v < MAX_INT_ATTR) {
            v = v * 10 + (R->text[R->pos] - '0');
            shard_lex_advance(R);
        }
        index = v;
    }
    slot *e = find_slot(R, name.s + 1, name.len - 1);
    if (!e || !e->s || e->count == 0)
        return shard_lex_fail(R, name.line, name.col, "%.*s is not defined", (int)name.len, name.s);
    if (index < 0 && e->count > 1)
        return shard_lex_fail(R, name.line, name.col, "%.*s names %d results: use %.*s#N", (int)name.len, name.s,
                              (int)e->count, (int)name.len, name.s);
    if (index >= e->count)
        return shard_lex_fail(R, name.line, name.col, "%.*s has no result #%lld", (int)name.len, name.s,
                              (long long)index);
    *value = e->first + (int32_t)(index < 0 ? 0 : index);
    return shard_lex_next(R);
}


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
        if (!parse_use(R, &v) || !shard_vec_push(R, &s->operands, &v, sizeof v))
            return false;
        bool ok = true;
        if (!shard_lex_accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
        if (R->tok.kind != T_VALUE) {
            if (close || R->tok.kind != T_IDENT)
                return shard_lex_expected(R, close ? "a value after ','" : "a value or 'name = ...' after ','");
            break; /* ", key = value" of a pretty op */
        }
    }
    return true;
}

static bool parse_type_list(reader *R, vec *types, const char *close)
{
    if (close && shard_lex_is_punct(R, close))
        return shard_lex_next(R);
    for (;;) {
        pp_shard_type t;
        if (!shard_read_type(R, &t) || !shard_vec_push(R, types, &t, sizeof t))
            return false;
        if (R->tok.kind == T_PUNCT && R->tok.s[0] == '{') { /* result attributes inside a functype */
            if (!shard_lex_skip_group(R))
                return false;
        }
        bool ok = true;
        if (!shard_lex_accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return close ? shard_lex_expect(R, close, close[0] == ')' ? "')' after the types" : "the end of the types") : true;
}

/* ':' then "(ins) -> outs" or "t, t, ..." */
static bool parse_op_types(reader *R, stmt *s)
{
    if (!shard_lex_expect(R, ":", "':' and the op's types"))
        return false;
    if (shard_lex_is_punct(R, "(")) {
        s->functional = true;
        if (!shard_lex_next(R) || !parse_type_list(R, &s->in_types, ")"))
            return false;
        if (!shard_lex_expect(R, "->", "'->' after the operand types"))
            return false;
        if (shard_lex_is_punct(R, "(")) {
            return shard_lex_next(R) && parse_type_list(R, &s->out_types, ")");
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
    if (!(v.name = shard_keep_text(R, name->s + 1, name->len - 1)))
        return false;
    return define(R, name, R->values.n, 1) && shard_vec_push(R, &R->values, &v, sizeof v);
}

/* "(%a: t, %b: t)" of a block label or of reducer(...). */
static bool parse_block_args(reader *R, stmt *s)
{
    if (!shard_lex_expect(R, "(", "'(' before the block arguments"))
        return false;
    int32_t index = 0;
    while (R->tok.kind == T_VALUE) {
        token name = R->tok;
        pp_shard_type t;
        if (!shard_lex_next(R) || !shard_lex_expect(R, ":", "':' after the block argument") || !shard_read_type(R, &t) ||
            !shard_lex_skip_loc(R) || !block_arg(R, &name, &t, index))
            return false;
        if (s->n_body_values < 2)
            s->body_values[s->n_body_values++] = R->values.n - 1;
        index++;
        bool ok = true;
        if (!shard_lex_accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return shard_lex_expect(R, ")", "')' after the block arguments");
}

/* Region values go out of scope at its end; they stay in the function's values. */
static bool parse_region(reader *R, stmt *s)
{
    int32_t first_value = R->values.n;
    if (++R->depth > MAX_DEPTH)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "regions nested too deep");
    if (!shard_lex_expect(R, "{", "'{' to open the region"))
        return false;
    if (R->tok.kind == T_CARET) {
        if (!shard_lex_next(R))
            return false;
        if (shard_lex_is_punct(R, "(") && !parse_block_args(R, s))
            return false;
        if (!shard_lex_expect(R, ":", "':' after the block label"))
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
    if (!shard_lex_accept(R, "(", &ok))
        return true;
    if (!ok)
        return false;
    do {
        if (!parse_region(R, s))
            return false;
    } while (shard_lex_accept(R, ",", &ok) && ok);
    return ok && shard_lex_expect(R, ")", "')' after the regions");
}

/* "\"stablehlo.x\"(uses) <{props}> (regions) {attrs} : functype" */
static bool parse_generic(reader *R, stmt *s)
{
    bool ok = true;
    if (!shard_lex_expect(R, "(", "'(' before the operands") || !parse_uses(R, s, ")"))
        return false;
    if (!shard_lex_expect(R, ")", "')' after operands"))
        return false;
    s->attrs_start = R->tok.s;
    if (shard_lex_accept(R, "<", &ok)) { /* properties: '<{' reads as '<' then '{' */
        if (!ok)
            return false;
        if (!shard_lex_is_punct(R, "{"))
            return shard_lex_expected(R, "'{' after '<'");
        if (!shard_attr_dict(R, &s->attrs, "}") || !shard_lex_expect(R, ">", "'>' after the properties"))
            return false;
    }
    s->attrs_end = R->text + R->prev_end;
    if (!parse_regions(R, s))
        return false;
    if (shard_lex_is_punct(R, "{") && !shard_attr_dict(R, &s->attrs, "}"))
        return false;
    return parse_op_types(R, s);
}

/* "key = [a] x [b]" or "key = value": the pretty form's keyword attributes,
 * stored as attrs so the generic and pretty forms are interpreted alike. */
static bool parse_keyword_attr(reader *R, stmt *s)
{
    attr a = {.key = R->tok.s, .key_len = R->tok.len, .line = R->tok.line, .col = R->tok.col};
    if (!shard_lex_next(R))
        return false;
    bool ok = true;
    if (shard_lex_is_word(R, "dimensions") && a.key_len == 6 && !memcmp(a.key, "across", 6)) {
        a.key = R->tok.s;
        a.key_len = R->tok.len;
        if (!shard_lex_next(R))
            return false;
    }
    if (!shard_lex_expect(R, "=", "'=' after the attribute name"))
        return false;
    const char *start = R->tok.s;
    if (!shard_attr_value(R, false, &a.val, &a.val_len))
        return false;
    /* "[2] x [0]" and "[b, 0, f]x[0, i, o]->[b, 0, f]" run on past the first group */
    while (ok && (shard_lex_is_word(R, "x") || shard_lex_is_punct(R, "->")))
        ok = shard_lex_next(R) && shard_attr_value(R, false, &a.val, &a.val_len);
    if (!ok)
        return false;
    a.val_len = (size_t)(R->text + R->prev_end - start);
    a.val = start;
    return shard_vec_push(R, &s->attrs, &a, sizeof a);
}

/* The tail common to pretty ops: ", key = value"..., "{attrs}", then types. */
static bool parse_pretty_tail(reader *R, stmt *s)
{
    bool ok = true;
    while (R->tok.kind == T_IDENT) {
        if (!parse_keyword_attr(R, s))
            return false;
        if (!shard_lex_accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    if (shard_lex_is_punct(R, "{") && !shard_attr_dict(R, &s->attrs, "}"))
        return false;
    s->attrs_end = R->text + R->prev_end;
    return parse_op_types(R, s);
}

static bool parse_call(reader *R, stmt *s)
{
    if (R->tok.kind != T_SYMBOL)
        return shard_lex_expected(R, "the callee (@name)");
    s->attrs_start = R->tok.s;
    s->attrs_end = R->tok.s + R->tok.len;
    if (!shard_lex_next(R) || !shard_lex_expect(R, "(", "'(' before the call's operands") || !parse_uses(R, s, ")"))
        return false;
    if (!shard_lex_expect(R, ")", "')' after operands"))
        return false;
    if (shard_lex_is_punct(R, "{") && !shard_attr_dict(R, &s->attrs, "}"))
        return false;
    return parse_op_types(R, s);
}

static bool parse_return(reader *R, stmt *s)
{
    if (!parse_uses(R, s, NULL))
        return false;
    if (s->operands.n == 0)
        return true;
    if (!shard_lex_expect(R, ":", "':' and the returned types"))
        return false;
    return parse_type_list(R, &s->in_types, NULL);
}

static bool parse_reduce(reader *R, stmt *s)
{
    vec inits = {0};
    bool ok = true;
    do {
        int32_t v, init;
        if (!shard_lex_expect(R, "(", "'(' before the reduced value") || !parse_use(R, &v))
            goto fail;
        if (!shard_lex_is_word(R, "init") || !shard_lex_next(R) ||
            !shard_lex_expect(R, ":", "'init:' after the reduced value"))
            goto fail_expected;
        if (!parse_use(R, &init) || !shard_lex_expect(R, ")", "')' after the init value"))
            goto fail;
        if (!shard_vec_push(R, &s->operands, &v, sizeof v) || !shard_vec_push(R, &inits, &init, sizeof init))
            goto fail;
    } while (shard_lex_accept(R, ",", &ok) && ok);
    if (!ok)
        goto fail;
    for (int32_t k = 0; k < inits.n; k++)
        if (!shard_vec_push(R, &s->operands, (int32_t *)inits.data + k, sizeof(int32_t)))
            goto fail;
    free(inits.data);
    if (shard_lex_is_word(R, "applies")) {
        if (!shard_lex_next(R))
            return false;
        if (R->tok.kind != T_IDENT)
            return shard_lex_expected(R, "the reducing op after 'applies'");
        s->op.reducer = shard_kind_of(R->tok.s, R->tok.len);
        if (!shard_lex_next(R))
            return false;
    }
    if (!shard_lex_is_word(R, "across"))
        return shard_lex_expected(R, "'across dimensions = [...]'");
    if (!parse_pretty_tail(R, s))
        return false;
    if (shard_lex_is_word(R, "reducer")) {
        if (!shard_lex_next(R) || !parse_block_args(R, s))
            return false;
        int32_t first = R->values.n - s->n_body_values;
        if (++R->depth > MAX_DEPTH)
            return shard_lex_fail(R, R->tok.line, R->tok.col, "regions nested too deep");
        if (!shard_lex_is_punct(R, "{"))
            return shard_lex_expected(R, "'{' to open the reducer");
        if (!shard_lex_next(R) || !parse_block(R, &s->body, false))
            return false;
        R->depth--;
        for (int32_t k = first; k < R->values.n; k++)
            undefine(R, &((pp_shard_value *)R->values.data)[k]);
    }
    return true;
fail_expected:
    if (R->err->status == PP_OK)
        shard_lex_expected(R, "'init:' after the reduced value");
fail:
    free(inits.data);
    return false;
}

static bool parse_convolution(reader *R, stmt *s)
{
    if (!shard_lex_expect(R, "(", "'(' before the convolution's operands") || !parse_uses(R, s, ")"))
        return false;
    if (!shard_lex_expect(R, ")", "')' after operands"))
        return false;
    s->attrs_start = R->tok.s;
    return parse_pretty_tail(R, s);
}

static bool parse_compare(reader *R, stmt *s)
{
    attr a = {.key = "comparison_direction", .key_len = 20, .val = R->tok.s, .val_len = R->tok.len,
              .line = R->tok.line, .col = R->tok.col};
    if (R->tok.kind != T_IDENT)
        return shard_lex_expected(R, "the comparison direction (EQ, NE, LT, LE, GT, GE)");
    if (!shard_vec_push(R, &s->attrs, &a, sizeof a) || !shard_lex_next(R) ||
        !shard_lex_expect(R, ",", "',' after the direction"))
        return false;
    if (!parse_uses(R, s, NULL))
        return false;
    if (R->tok.kind == T_IDENT && !shard_lex_is_word(R, "loc")) {
        attr t = {.key = "compare_type", .key_len = 12, .val = R->tok.s, .val_len = R->tok.len,
                  .line = R->tok.line, .col = R->tok.col};
        if (!shard_vec_push(R, &s->attrs, &t, sizeof t) || !shard_lex_next(R))
            return false;
    }
    return parse_pretty_tail(R, s);
}

/* "%x [0:33, 0:79:2]" */
static bool parse_slice(reader *R, stmt *s)
{
    if (!parse_uses(R, s, NULL))
        return false;
    if (!shard_lex_is_punct(R, "["))
        return shard_lex_expected(R, "'[' and the slice bounds");
    attr a = {.key = "slice", .key_len = 5, .val = R->tok.s, .line = R->tok.line, .col = R->tok.col};
    if (!shard_lex_skip_group(R))
        return false;
    a.val_len = (size_t)(R->text + R->prev_end - a.val);
    return shard_vec_push(R, &s->attrs, &a, sizeof a) && parse_pretty_tail(R, s);
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
    while (!(depth == 0 && shard_lex_is_punct(R, ":"))) {
        if (R->tok.kind == T_EOF || (depth == 0 && R->tok.line != start_line && R->tok.kind == T_VALUE))
            return shard_lex_expected(R, "':' and the op's types");
        bool open = R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr("([{<", R->tok.s[0]);
        bool close = R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(")]}>", R->tok.s[0]);
        if (R->tok.kind == T_VALUE && braces == 0 && !binds_name(R)) { /* values in braces may be a region's own */
            int32_t v;
            if (!parse_use(R, &v) || !shard_vec_push(R, &s->operands, &v, sizeof v))
                return false;
            continue;
        }
        if (close && depth == 0)
            return shard_lex_expected(R, "':' and the op's types");
        depth += open - close;
        braces += (open && R->tok.s[0] == '{') - (close && R->tok.s[0] == '}');
        if (!shard_lex_next(R))
            return false;
    }
    s->attrs_end = R->tok.s;
    if (!parse_op_types(R, s))
        return false;
    /* the rest of the line, then regions: "{...}" or "cond {...} do {...}" */
    while (R->tok.kind != T_EOF && !shard_lex_is_word(R, "loc")) {
        bool same_line = R->tok.line == R->prev_line;
        bool region = shard_lex_is_punct(R, "{") ||
                      (R->tok.kind == T_IDENT && !memchr(R->tok.s, '.', R->tok.len) && next_char_is(R, '{'));
        if (!same_line && !region)
            break;
        if (!shard_lex_skip_group(R))
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
        if (shard_lex_is_punct(R, "{") && !shard_attr_dict(R, &s->attrs, "}"))
            return false;
        attr a = {.key = "value", .key_len = 5, .line = R->tok.line, .col = R->tok.col};
        s->attrs_start = R->tok.s;
        if (!shard_attr_value(R, false, &a.val, &a.val_len) || !shard_vec_push(R, &s->attrs, &a, sizeof a))
            return false;
        s->attrs_end = R->text + R->prev_end;
        return parse_op_types(R, s);
    }
    case PP_SHARD_OP_OPAQUE: return parse_unknown_pretty(R, s);
    default:
        return parse_uses(R, s, NULL) && parse_pretty_tail(R, s);
    }
}

/* ---- making the op's values ---- */

static bool type_mismatch(reader *R, const stmt *s, int k, const pp_shard_type *want)
{
    const pp_shard_value *v = &((pp_shard_value *)R->values.data)[((int32_t *)s->operands.data)[k]];
    char a[160], b[160];
    return shard_lex_fail(R, s->op.line, s->op.col, "%s: operand #%d %%%s has type %s but the op says %s", s->op.name,
                          k, v->name, shard_type_text(&v->type, a, sizeof a), shard_type_text(want, b, sizeof b));
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
            return shard_lex_fail(R, s->op.line, s->op.col, "%s has %d operand(s) but %d operand type(s)", s->op.name,
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
        return shard_lex_fail(R, s->op.line, s->op.col, "%s: expected one type or '(operand types) -> result types'",
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
        return shard_lex_fail(R, s->op.line, s->op.col, "%s gives %d result(s) but %d name(s) receive them", s->op.name,
                              (int)n_out, (int)n_defs);
    pp_shard_op *op = &s->op;
    op->n_operands = s->operands.n;
    op->operands = shard_vec_keep(R, &s->operands, sizeof(int32_t));
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
            if (!(v.name = shard_keep_text(R, name, strlen(name))))
                return false;
            op->results[r] = R->values.n;
            if (!shard_vec_push(R, &R->values, &v, sizeof v))
                return false;
        }
    }
    if (s->op.kind != PP_SHARD_OP_OPAQUE) {
        char why[300];
        if (!shard_check_op(R->values.data, op, why, sizeof why))
            return shard_lex_fail(R, op->line, op->col, "%s", why);
    }
    /* the body's ops go to body_ops now, contiguous, so nested bodies stay grouped */
    op->body_first = R->body_ops.n;
    op->body_count = s->body.n;
    pp_shard_value *values = R->values.data;
    for (int32_t k = 0; k < s->body.n; k++) {
        pp_shard_op *b = (pp_shard_op *)s->body.data + k;
        for (int32_t j = 0; j < b->n_results; j++)
            values[b->results[j]].op = R->body_ops.n;
        if (!shard_vec_push(R, &R->body_ops, b, sizeof *b))
            return false;
    }
    return shard_vec_push(R, ops, op, sizeof *op);
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
    pp_shard_warning nw = {shard_keep_text(R, msg, strlen(msg)), shard_keep_text(R, name->s, name->len), 1};
    return nw.message && nw.op_name && shard_vec_push(R, &R->warnings, &nw, sizeof nw);
}

/* "%a, %b:2 =" */
static bool parse_defs(reader *R, stmt *s)
{
    while (R->tok.kind == T_VALUE) {
        if (s->n_defs == 32)
            return shard_lex_fail(R, R->tok.line, R->tok.col, "more than 32 result groups");
        s->defs[s->n_defs] = R->tok;
        s->def_counts[s->n_defs] = 1;
        if (!shard_lex_next(R))
            return false;
        bool ok = true;
        if (shard_lex_accept(R, ":", &ok)) {
            if (!ok)
                return false;
            if (R->tok.kind != T_NUMBER || R->tok.s[0] == '-' || R->tok.len > 6)
                return shard_lex_expected(R, "the number of results after ':'");
            int count = 0; /* the token is not NUL-terminated: read its digits only */
            for (size_t k = 0; k < R->tok.len; k++)
                count = count * 10 + (R->tok.s[k] - '0');
            s->def_counts[s->n_defs] = count;
            if (s->def_counts[s->n_defs] < 1)
                return shard_lex_expected(R, "a positive number of results");
            if (!shard_lex_next(R))
                return false;
        }
        s->n_defs++;
        if (!shard_lex_accept(R, ",", &ok))
            break;
        if (!ok)
            return false;
    }
    return shard_lex_expect(R, "=", "'=' after the result names");
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
               (!memchr(text, '.', len) && !shard_lex_is_word(R, "call") && !shard_lex_is_word(R, "return"))) {
        return shard_lex_expected(R, "an op name (dialect.op, call or return)");
    }
    s->op.kind = shard_kind_of(text, len);
    s->op.name = shard_keep_text(R, text, len);
    s->op.line = R->tok.line;
    s->op.col = R->tok.col;
    s->op.callee = -1;
    s->op.dim = -1;
    s->op.reducer = PP_SHARD_OP_OPAQUE;
    if (!s->op.name || !shard_lex_next(R))
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
              parse_op_body(R, &s, &name) && shard_lex_skip_loc(R);
    s.op.src_end = R->prev_end;
    if (ok && s.op.kind == PP_SHARD_OP_REDUCE_WINDOW)
        s.op.reducer = reducer_from_body(R, &s.body);
    if (ok && s.op.kind == PP_SHARD_OP_REDUCE && s.body.n)
        s.op.reducer = reducer_from_body(R, &s.body);
    if (ok && s.attrs_end > s.attrs_start)
        ok = (s.op.attrs = shard_keep_text(R, s.attrs_start, (size_t)(s.attrs_end - s.attrs_start))) != NULL;
    ok = ok && shard_attr_interpret(R, &s) && finish_op(R, &s, ops, top);
    stmt_free(&s);
    return ok;
}

/* Ops up to the closing '}' (consumed). */
static bool parse_block(reader *R, vec *ops, bool top)
{
    while (!shard_lex_is_punct(R, "}")) {
        if (R->tok.kind == T_EOF)
            return shard_lex_expected(R, "'}' to close the block");
        if (!parse_op(R, ops, top))
            return false;
    }
    const pp_shard_op *last = ops->n ? (pp_shard_op *)ops->data + ops->n - 1 : NULL;
    if (!last || last->kind != PP_SHARD_OP_RETURN)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "the block does not end with a return");
    return shard_lex_next(R);
}

/* ---- functions and the module ---- */

static bool parse_param(reader *R, pp_shard_param *p)
{
    memset(p, 0, sizeof *p);
    if (!shard_read_type(R, &p->type))
        return false;
    if (!shard_lex_is_punct(R, "{"))
        return true;
    vec attrs = {0};
    const char *start = R->tok.s;
    bool ok = shard_attr_dict(R, &attrs, "}");
    if (ok)
        ok = (p->attrs = shard_keep_text(R, start, (size_t)(R->text + R->prev_end - start))) != NULL;
    const attr *sh = ok ? shard_attr_find(&attrs, "mhlo.sharding") : NULL;
    if (sh && sh->val && sh->val_len >= 2 && sh->val[0] == '"')
        ok = (p->sharding = shard_keep_text(R, sh->val + 1, sh->val_len - 2)) != NULL;
    free(attrs.data);
    return ok;
}

static bool parse_args(reader *R, pp_shard_func *f, vec *params)
{
    if (!shard_lex_expect(R, "(", "'(' before the function's arguments"))
        return false;
    while (!shard_lex_is_punct(R, ")")) {
        if (R->tok.kind != T_VALUE)
            return shard_lex_expected(R, "an argument (%name: type) or ')'");
        token name = R->tok;
        pp_shard_param p;
        if (!shard_lex_next(R) || !shard_lex_expect(R, ":", "':' after the argument name") || !parse_param(R, &p) ||
            !shard_lex_skip_loc(R))
            return false;
        pp_shard_value v = {.type = p.type, .op = -1, .index = params->n};
        if (!(v.name = shard_keep_text(R, name.s + 1, name.len - 1)) || !define(R, &name, R->values.n, 1) ||
            !shard_vec_push(R, &R->values, &v, sizeof v) || !shard_vec_push(R, params, &p, sizeof p))
            return false;
        bool ok = true;
        if (!shard_lex_accept(R, ",", &ok) && !shard_lex_is_punct(R, ")"))
            return shard_lex_expected(R, "',' or ')' after the argument");
        if (!ok)
            return false;
    }
    f->n_args = params->n;
    return shard_lex_next(R);
}

static bool parse_results(reader *R, vec *params)
{
    bool ok = true;
    if (!shard_lex_accept(R, "->", &ok))
        return true;
    if (!ok)
        return false;
    if (!shard_lex_accept(R, "(", &ok)) { /* a '{' after a bare result type opens the body */
        pp_shard_param p = {0};
        return shard_read_type(R, &p.type) && shard_vec_push(R, params, &p, sizeof p);
    }
    while (ok && !shard_lex_is_punct(R, ")")) {
        pp_shard_param p;
        if (!parse_param(R, &p) || !shard_vec_push(R, params, &p, sizeof p))
            return false;
        if (!shard_lex_accept(R, ",", &ok) && !shard_lex_is_punct(R, ")"))
            return shard_lex_expected(R, "',' or ')' after the result type");
    }
    return ok && shard_lex_next(R);
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
    bool ok = shard_lex_expect(R, "{", "'{' to open the function body") && parse_block(R, &ops, true);
    if (ok) {
        f->n_ops = ops.n;
        f->ops = shard_vec_keep(R, &ops, sizeof(pp_shard_op));
        f->n_values = R->values.n;
        f->values = shard_vec_keep(R, &R->values, sizeof(pp_shard_value));
        f->n_body_ops = R->body_ops.n;
        f->body_ops = shard_vec_keep(R, &R->body_ops, sizeof(pp_shard_op));
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
    if (!shard_lex_next(R))
        return false;
    if (shard_lex_is_word(R, "public") || shard_lex_is_word(R, "private") || shard_lex_is_word(R, "nested")) {
        f.is_public = shard_lex_is_word(R, "public");
        if (!shard_lex_next(R))
            return false;
    }
    if (R->tok.kind != T_SYMBOL)
        return shard_lex_expected(R, "the function name (@name)");
    const char *nm = R->tok.s + 1;
    size_t nlen = R->tok.len - 1;
    if (nm[0] == '"') {
        nm++;
        nlen -= 2;
    }
    if (!(f.name = shard_keep_text(R, nm, nlen)))
        return false;
    if (pp_shard_module_find_func(&(pp_shard_module){.n_funcs = R->funcs.n, .funcs = R->funcs.data}, f.name) >= 0)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "function @%s is defined twice", f.name);
    vec args = {0}, results = {0};
    bool ok = shard_lex_next(R) && parse_args(R, &f, &args) && parse_results(R, &results) && shard_lex_skip_loc(R);
    if (ok && shard_lex_is_word(R, "attributes")) {
        vec attrs = {0};
        ok = shard_lex_next(R) && (shard_lex_is_punct(R, "{") ? shard_attr_dict(R, &attrs, "}")
                                                              : shard_lex_expected(R, "'{' after attributes"));
        free(attrs.data);
    }
    f.args = ok ? shard_vec_keep(R, &args, sizeof(pp_shard_param)) : NULL;
    f.n_results = results.n;
    f.results = ok ? shard_vec_keep(R, &results, sizeof(pp_shard_param)) : NULL;
    free(args.data);
    free(results.data);
    ok = ok && R->err->status == PP_OK && parse_func_body(R, &f) && shard_lex_skip_loc(R);
    f.src_end = R->prev_end;
    return ok && shard_vec_push(R, &R->funcs, &f, sizeof f);
}

/* "{-# dialect_resources: {...} #-}" after the module: skipped whole. */
static bool skip_resources(reader *R)
{
    const char *end = NULL;
    for (size_t k = R->pos; k + 2 < R->size && !end; k++)
        if (R->text[k] == '#' && R->text[k + 1] == '-' && R->text[k + 2] == '}')
            end = R->text + k + 3;
    if (!end)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "'{-#' is never closed by '#-}'");
    while (R->text + R->pos < end)
        shard_lex_advance(R);
    return shard_lex_next(R);
}

static bool parse_toplevel(reader *R, bool in_module);

static bool parse_module(reader *R)
{
    pp_shard_module *m = R->m;
    if (!shard_lex_next(R))
        return false;
    if (R->tok.kind == T_SYMBOL) {
        if (!(m->name = shard_keep_text(R, R->tok.s + 1, R->tok.len - 1)) || !shard_lex_next(R))
            return false;
    }
    if (shard_lex_is_word(R, "attributes")) {
        if (!shard_lex_next(R))
            return false;
        if (!shard_lex_is_punct(R, "{"))
            return shard_lex_expected(R, "'{' after attributes");
        const char *start = R->tok.s;
        vec attrs = {0};
        bool ok = shard_attr_dict(R, &attrs, "}");
        free(attrs.data);
        if (!ok || !(m->attrs = shard_keep_text(R, start, (size_t)(R->text + R->prev_end - start))))
            return false;
    }
    if (!shard_lex_expect(R, "{", "'{' to open the module"))
        return false;
    while (!shard_lex_is_punct(R, "}")) {
        if (R->tok.kind == T_EOF)
            return shard_lex_expected(R, "'}' to close the module");
        if (!parse_toplevel(R, true))
            return false;
    }
    return shard_lex_next(R) && shard_lex_skip_loc(R);
}

/* "sdy.mesh @name = <[...]>", Shardy's mesh declaration (as the writer puts
 * it before the entry). The sharder takes its mesh from the command line, so
 * the declaration is checked for its form and skipped. */
static bool skip_sdy_mesh(reader *R)
{
    if (!shard_lex_next(R))
        return false;
    if (R->tok.kind != T_SYMBOL)
        return shard_lex_expected(R, "the mesh's name (@name) after sdy.mesh");
    if (!shard_lex_next(R) || !shard_lex_expect(R, "=", "'=' after the mesh's name"))
        return false;
    if (!shard_lex_is_punct(R, "<"))
        return shard_lex_expected(R, "'<' to open the mesh");
    return shard_lex_skip_group(R) && shard_lex_skip_loc(R);
}

/* "#loc1 = loc(...)" and other aliases: the rest of the line is the value. */
bool shard_skip_alias(reader *R)
{
    if (!shard_lex_next(R) || !shard_lex_expect(R, "=", "'=' after the alias"))
        return false;
    int line = R->prev_line;
    while (R->tok.kind != T_EOF && R->tok.line == line)
        if (!shard_lex_skip_group(R))
            return false;
    return true;
}

static bool parse_toplevel(reader *R, bool in_module)
{
    if (shard_lex_is_word(R, "func.func"))
        return parse_func(R);
    if (shard_lex_is_word(R, "sdy.mesh"))
        return skip_sdy_mesh(R);
    if (shard_lex_is_word(R, "module") && !in_module)
        return parse_module(R);
    if (R->tok.kind == T_HASH)
        return shard_skip_alias(R);
    if (shard_lex_is_punct(R, "{") && shard_lex_at_char(R, 0, '-') && !in_module)
        return skip_resources(R);
    return shard_lex_expected(R, in_module ? "func.func, sdy.mesh or '}'" : "module or func.func");
}

/* ---- after reading: calls ---- */

static bool call_types_match(reader *R, const pp_shard_func *caller, const pp_shard_op *op, const pp_shard_func *callee)
{
    char a[160], b[160];
    if (op->n_operands != callee->n_args || op->n_results != callee->n_results)
        return shard_lex_fail(R, op->line, op->col,
                              "call @%s passes %d argument(s) and takes %d result(s); it has %d and %d", callee->name,
                              (int)op->n_operands, (int)op->n_results, (int)callee->n_args, (int)callee->n_results);
    for (int32_t k = 0; k < op->n_operands; k++) {
        const pp_shard_type *t = &caller->values[op->operands[k]].type;
        if (!pp_shard_type_equal(t, &callee->args[k].type))
            return shard_lex_fail(R, op->line, op->col, "call @%s: argument #%d has type %s but the function takes %s",
                                  callee->name, (int)k, shard_type_text(t, a, sizeof a),
                                  shard_type_text(&callee->args[k].type, b, sizeof b));
    }
    for (int32_t k = 0; k < op->n_results; k++) {
        const pp_shard_type *t = &caller->values[op->results[k]].type;
        if (!pp_shard_type_equal(t, &callee->results[k].type))
            return shard_lex_fail(R, op->line, op->col, "call @%s: result #%d has type %s but the function returns %s",
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
        return shard_lex_fail(R, ret->line, ret->col, "@%s returns %d value(s) but declares %d result(s)", f->name,
                              (int)ret->n_operands, (int)f->n_results);
    for (int32_t k = 0; k < ret->n_operands; k++)
        if (!pp_shard_type_equal(&f->values[ret->operands[k]].type, &f->results[k].type))
            return shard_lex_fail(R, ret->line, ret->col, "@%s returns %s as result #%d, declared %s", f->name,
                                  shard_type_text(&f->values[ret->operands[k]].type, a, sizeof a), (int)k,
                                  shard_type_text(&f->results[k].type, b, sizeof b));
    for (int32_t k = 0; k + 1 < f->n_ops; k++)
        if (f->ops[k].kind == PP_SHARD_OP_RETURN)
            return shard_lex_fail(R, f->ops[k].line, f->ops[k].col, "return before the end of @%s", f->name);
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
                return shard_lex_fail(R, op->line, op->col, "call to an unknown function @%s", name);
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
            return shard_lex_fail(R, op->line, op->col, "recursive call to @%s", R->m->funcs[op->callee].name);
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
    if (!shard_lex_next(R))
        return false;
    while (R->tok.kind != T_EOF)
        if (!parse_toplevel(R, false))
            return false;
    if (R->funcs.n == 0)
        return shard_lex_fail(R, R->tok.line, R->tok.col, "no function in the input");
    pp_shard_module *m = R->m;
    m->n_funcs = R->funcs.n;
    m->funcs = shard_vec_keep(R, &R->funcs, sizeof(pp_shard_func));
    m->n_warnings = R->warnings.n;
    m->warnings = shard_vec_keep(R, &R->warnings, sizeof(pp_shard_warning));
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
    m->file = shard_keep_text(&R, name, strlen(name));
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
