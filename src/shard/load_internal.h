/* load_internal.h: what the StableHLO reader's three files share: the
 * tokens and reader state, the lexer and the reader's errors and arrays
 * (load_lex.c), attribute dictionaries and their interpretation per op
 * kind (load_attr.c), and the statement an op is read into (the grammar,
 * load.c, owns its reading). The module writer (write.c) walks the text it
 * patches with the same lexer, types, aliases and attribute dictionaries,
 * so the two cannot read a module differently. Internal to src/shard. */
#ifndef PP_SHARD_LOAD_INTERNAL_H
#define PP_SHARD_LOAD_INTERNAL_H

#include "shard/shard_internal.h"

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

typedef struct {
    const char *key;
    size_t key_len;
    const char *val; /* NULL for a unit attribute */
    size_t val_len;
    int line, col;
} attr;

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

/* ---- load_lex.c: arrays, errors, tokens ---- */

/* Appends item (size bytes) to v; false, with the error set, when out of memory. */
bool shard_vec_push(reader *R, vec *v, const void *item, size_t size);
/* v's items copied into the module's arena (NULL when empty or out of memory). */
void *shard_vec_keep(reader *R, vec *v, size_t size);
/* s[0 .. len) as a NUL-terminated copy in the arena. */
char *shard_keep_text(reader *R, const char *s, size_t len);
/* Sets "file:line:col: message" and returns false. */
bool shard_lex_fail(reader *R, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "expected WHAT, found TOKEN" at the current token; false. */
bool shard_lex_expected(reader *R, const char *what);
void shard_lex_advance(reader *R);
bool shard_lex_at_char(const reader *R, size_t ahead, char c);
bool shard_lex_name_char(char c);
bool shard_lex_string(reader *R);
/* Reads the next token into R->tok (comments and white space skipped). */
bool shard_lex_next(reader *R);
bool shard_lex_is_punct(const reader *R, const char *p);
bool shard_lex_is_word(const reader *R, const char *w);
/* The current token must be p: read past it, or fail naming what. */
bool shard_lex_expect(reader *R, const char *p, const char *what);
/* Reads past p when it is the current token (*ok says whether it was). */
bool shard_lex_accept(reader *R, const char *p, bool *ok);
/* Skips a group balanced in (), [], {} or <> starting at the current token. */
bool shard_lex_skip_group(reader *R);
/* Skips a loc(...) when one is next. */
bool shard_lex_skip_loc(reader *R);

/* ---- load.c: the grammar's pieces the module writer walks with ---- */

/* A type (tensor<...> or !dialect.type) into t, its dims in R->arena. */
bool shard_read_type(reader *R, pp_shard_type *t);
/* An alias definition ("#name = value" to the end of its line) at its '#'. */
bool shard_skip_alias(reader *R);

/* ---- load_attr.c: attributes ---- */

/* One attribute value: a balanced run of tokens (see load_attr.c). */
bool shard_attr_value(reader *R, bool in_dict, const char **s, size_t *len);
/* A dictionary of attributes up to close ("}" or ">") into out (attr). */
bool shard_attr_dict(reader *R, vec *out, const char *close);
const attr *shard_attr_find(const vec *attrs, const char *key);
/* The op's attributes read into its fields by its kind. */
bool shard_attr_interpret(reader *R, stmt *s);

#endif
