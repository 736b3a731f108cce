/* load_lex.c: owns the StableHLO reader's lexer (tokens, white space and
 * comments, balanced groups, loc(...)), its error messages ("file:line:col:
 * reason") and the growable arrays it reads into (see load_internal.h;
 * the grammar is load.c's). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "shard/load_internal.h"

bool shard_vec_push(reader *R, vec *v, const void *item, size_t size)
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
void *shard_vec_keep(reader *R, vec *v, size_t size)
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

char *shard_keep_text(reader *R, const char *s, size_t len)
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

bool shard_lex_fail(reader *R, int line, int col, const char *fmt, ...)
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

bool shard_lex_expected(reader *R, const char *what)
{
    char buf[64];
    return shard_lex_fail(R, R->tok.line, R->tok.col, "expected %s, got %s", what, tok_text(R, buf, sizeof buf));
}

/* ---- lexer ---- */

void shard_lex_advance(reader *R)
{
    if (R->text[R->pos] == '\n') {
        R->line++;
        R->col = 1;
    } else {
        R->col++;
    }
    R->pos++;
}

bool shard_lex_at_char(const reader *R, size_t ahead, char c)
{
    return R->pos + ahead < R->size && R->text[R->pos + ahead] == c;
}

static void skip_space(reader *R)
{
    while (R->pos < R->size) {
        char c = R->text[R->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            shard_lex_advance(R);
        else if (c == '/' && shard_lex_at_char(R, 1, '/'))
            while (R->pos < R->size && R->text[R->pos] != '\n')
                shard_lex_advance(R);
        else
            break;
    }
}

static void lex_while(reader *R, bool (*ok)(char))
{
    while (R->pos < R->size && ok(R->text[R->pos]))
        shard_lex_advance(R);
}

bool shard_lex_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$'; }

static bool number_char(char c)
{
    return isalnum((unsigned char)c) || c == '.';
}

/* A quoted string; false when it runs off the end of the text. */
bool shard_lex_string(reader *R)
{
    shard_lex_advance(R);
    while (R->pos < R->size && R->text[R->pos] != '"') {
        if (R->text[R->pos] == '\\' && R->pos + 1 < R->size)
            shard_lex_advance(R);
        shard_lex_advance(R);
    }
    if (R->pos >= R->size)
        return false;
    shard_lex_advance(R);
    return true;
}

static bool lex_number(reader *R)
{
    if (R->text[R->pos] == '-' || R->text[R->pos] == '+')
        shard_lex_advance(R);
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
        shard_lex_advance(R);
    }
    return true;
}

/* A sigil-prefixed name (%v, @f, ^bb, #a): a bare or quoted name. */
static bool lex_sigil(reader *R)
{
    shard_lex_advance(R);
    if (R->pos < R->size && R->text[R->pos] == '"')
        return shard_lex_string(R);
    size_t start = R->pos;
    lex_while(R, shard_lex_name_char);
    return R->pos > start;
}

bool shard_lex_next(reader *R)
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
        ok = shard_lex_string(R);
        if (!ok)
            return shard_lex_fail(R, t->line, t->col, "unterminated string");
    } else if (isdigit((unsigned char)c) ||
               ((c == '-' || c == '+') && R->pos + 1 < R->size && isdigit((unsigned char)R->text[R->pos + 1]))) {
        t->kind = T_NUMBER;
        lex_number(R);
    } else if (isalpha((unsigned char)c) || c == '_' || c == '!') {
        t->kind = T_IDENT;
        shard_lex_advance(R);
        lex_while(R, shard_lex_name_char);
    } else if (c == '-' && shard_lex_at_char(R, 1, '>')) {
        t->kind = T_PUNCT;
        shard_lex_advance(R);
        shard_lex_advance(R);
    } else if (strchr("()[]{}<>,:=*?+|", c)) {
        t->kind = T_PUNCT;
        shard_lex_advance(R);
    } else {
        return shard_lex_fail(R, t->line, t->col, "unexpected character '%c'", isprint((unsigned char)c) ? c : '?');
    }
    t->len = (size_t)(R->text + R->pos - t->s);
    if (!ok)
        return shard_lex_fail(R, t->line, t->col, "expected a name after '%c'", c);
    return true;
}

bool shard_lex_is_punct(const reader *R, const char *p)
{
    return R->tok.kind == T_PUNCT && R->tok.len == strlen(p) && memcmp(R->tok.s, p, R->tok.len) == 0;
}

bool shard_lex_is_word(const reader *R, const char *w)
{
    return R->tok.kind == T_IDENT && R->tok.len == strlen(w) && memcmp(R->tok.s, w, R->tok.len) == 0;
}

/* Consumes punctuation p or fails with "expected WHAT, got ...". */
bool shard_lex_expect(reader *R, const char *p, const char *what)
{
    if (!shard_lex_is_punct(R, p))
        return shard_lex_expected(R, what);
    return shard_lex_next(R);
}

bool shard_lex_accept(reader *R, const char *p, bool *ok)
{
    if (!shard_lex_is_punct(R, p))
        return false;
    *ok = shard_lex_next(R);
    return true;
}

/* Skips one balanced group starting at the current opener, or one token. */
bool shard_lex_skip_group(reader *R)
{
    char stack[MAX_DEPTH];
    int lines[MAX_DEPTH], cols[MAX_DEPTH];
    int depth = 0;
    do {
        if (R->tok.kind == T_EOF && depth == 0)
            return shard_lex_expected(R, "a value");
        if (R->tok.kind == T_EOF)
            return shard_lex_fail(R, lines[depth - 1], cols[depth - 1], "this bracket is never closed");
        if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr("([{<", R->tok.s[0])) {
            if (depth == MAX_DEPTH)
                return shard_lex_fail(R, R->tok.line, R->tok.col, "brackets nested too deep");
            lines[depth] = R->tok.line;
            cols[depth] = R->tok.col;
            stack[depth++] = R->tok.s[0] == '(' ? ')' : R->tok.s[0] == '[' ? ']' : R->tok.s[0] == '{' ? '}' : '>';
        } else if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(")]}>", R->tok.s[0])) {
            if (depth == 0)
                return shard_lex_fail(R, R->tok.line, R->tok.col, "unbalanced '%c'", R->tok.s[0]);
            if (stack[depth - 1] != R->tok.s[0])
                return shard_lex_fail(R, R->tok.line, R->tok.col, "unbalanced '%c': the bracket at %d:%d is not closed",
                                      R->tok.s[0], lines[depth - 1], cols[depth - 1]);
            depth--;
        }
        if (!shard_lex_next(R))
            return false;
    } while (depth > 0);
    return true;
}

bool shard_lex_skip_loc(reader *R)
{
    if (!shard_lex_is_word(R, "loc"))
        return true;
    if (!shard_lex_next(R))
        return false;
    if (!shard_lex_is_punct(R, "("))
        return shard_lex_expected(R, "'(' after loc");
    return shard_lex_skip_group(R);
}
