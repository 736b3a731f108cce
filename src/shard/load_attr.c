/* load_attr.c: owns the StableHLO reader's attributes: dictionaries read
 * as balanced token runs, integer lists and fields found in their text, and
 * their interpretation per op kind (comparison direction, convolution, dot
 * and gather dimension numbers, slice bounds). See load_internal.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard/load_internal.h"

/* One attribute value: a balanced run of tokens up to ',' '}' '>' or, outside
 * a dictionary, ':' at depth 0. In a dictionary "value : type" is one value. */
bool shard_attr_value(reader *R, bool in_dict, const char **s, size_t *len)
{
    const char *start = R->tok.s;
    int parts = 0;
    while (R->tok.kind != T_EOF) {
        if (R->tok.kind == T_PUNCT && R->tok.len == 1 && strchr(",}>)]", R->tok.s[0]))
            break;
        if (shard_lex_is_punct(R, ":")) {
            if (!in_dict || parts == 0)
                break;
            if (!shard_lex_next(R) || !shard_lex_skip_group(R))
                return false;
            parts++;
            continue;
        }
        if (shard_lex_is_punct(R, "->") && !in_dict)
            break;
        if (!shard_lex_skip_group(R))
            return false;
        parts++;
    }
    if (parts == 0)
        return shard_lex_expected(R, "an attribute value");
    *s = start;
    *len = (size_t)(R->text + R->prev_end - start);
    return true;
}

bool shard_attr_dict(reader *R, vec *out, const char *close)
{
    if (!shard_lex_next(R))
        return false;
    while (!shard_lex_is_punct(R, close)) {
        attr a = {.line = R->tok.line, .col = R->tok.col};
        if (R->tok.kind != T_IDENT && R->tok.kind != T_STRING)
            return shard_lex_expected(R, "an attribute name");
        a.key = R->tok.s;
        a.key_len = R->tok.len;
        for (int32_t k = 0; k < out->n; k++) { /* MLIR refuses a key given twice */
            const attr *seen = (const attr *)out->data + k;
            if (seen->key_len == a.key_len && memcmp(seen->key, a.key, a.key_len) == 0)
                return shard_lex_fail(R, a.line, a.col, "attribute '%.*s' given twice (first at %d:%d)", (int)a.key_len,
                                      a.key, seen->line, seen->col);
        }
        bool ok = true;
        if (!shard_lex_next(R))
            return false;
        if (shard_lex_accept(R, "=", &ok) && (!ok || !shard_attr_value(R, true, &a.val, &a.val_len)))
            return false;
        if (!shard_vec_push(R, out, &a, sizeof a))
            return false;
        if (!shard_lex_accept(R, ",", &ok) && !shard_lex_is_punct(R, close))
            return shard_lex_expected(R, close[0] == '}' ? "',' or '}' in the attribute dictionary"
                                                         : "',' or '>' in the properties");
        if (!ok)
            return false;
    }
    return shard_lex_next(R);
}

const attr *shard_attr_find(const vec *attrs, const char *key)
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
        if (shard_lex_name_char(c) && !isdigit((unsigned char)c)) {
            while (k + 1 < len && shard_lex_name_char(s[k + 1]))
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
                return shard_lex_fail(R, line, col, "integer too large in an attribute");
            k++;
        }
        k--;
        if (n == 256)
            return shard_lex_fail(R, line, col, "more than 256 integers in an attribute");
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
        if (depth != 1 || (k > 0 && shard_lex_name_char(s[k - 1])) || k + klen > len || memcmp(s + k, key, klen) != 0 ||
            (k + klen < len && shard_lex_name_char(s[k + klen])))
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
    const attr *a = shard_attr_find(attrs, key);
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
        return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: expected '['");
    (*p)++;
    for (; *p < end && **p != ']'; (*p)++) {
        char c = **p;
        if (c == ' ' || c == ',')
            continue;
        if (pos >= MAX_RANK)
            return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: too many dimensions");
        if (c == l1 || c == l2) {
            int64_t *d = c == l1 ? d1 : d2;
            if (*d >= 0)
                return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: '%c' appears twice", c);
            *d = pos++;
        } else if (isdigit((unsigned char)c)) {
            int v = 0;
            while (*p < end && isdigit((unsigned char)**p) && v < MAX_RANK)
                v = v * 10 + (*(*p)++ - '0');
            (*p)--;
            if (v >= MAX_RANK)
                return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: spatial dimension too large");
            if (seen[v])
                return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: spatial dimension %d appears twice",
                                      v);
            seen[v] = true;
            sp[v] = pos++;
            spatial_n = v + 1 > spatial_n ? v + 1 : spatial_n;
            n++;
        } else {
            return shard_lex_fail(R, a->line, a->col, "convolution dim_numbers: unexpected '%c'", c);
        }
    }
    if (*p >= end || *d1 < 0 || *d2 < 0 || n != spatial_n)
        return shard_lex_fail(R, a->line, a->col,
                              "convolution dim_numbers: expected '%c', '%c' and spatial dimensions 0..n-1", l1, l2);
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
    const attr *a = shard_attr_find(attrs, "dim_numbers");
    if (!a)
        a = shard_attr_find(attrs, "dimension_numbers");
    if (!a || !a->val)
        return shard_lex_fail(R, 1, 1, "convolution without dim_numbers");
    const char *p = a->val, *end = a->val + a->val_len;
    if (!conv_list(R, a, &p, end, 'b', 'f', &c->in_batch, &c->in_feature, &c->in_spatial) ||
        !conv_list(R, a, &p, end, 'i', 'o', &c->kernel_in, &c->kernel_out, &c->kernel_spatial) ||
        !conv_list(R, a, &p, end, 'b', 'f', &c->out_batch, &c->out_feature, &c->out_spatial))
        return false;
    if (c->kernel_spatial.n != c->in_spatial.n || c->out_spatial.n != c->in_spatial.n)
        return shard_lex_fail(R, a->line, a->col,
                              "convolution dim_numbers: the three lists differ in spatial dimensions");
    return attr_int(R, attrs, "feature_group_count", 1, &c->feature_group_count) &&
           attr_int(R, attrs, "batch_group_count", 1, &c->batch_group_count);
}

static bool dot_dims(reader *R, const vec *attrs, pp_shard_dot_dims *d)
{
    const attr *a = shard_attr_find(attrs, "dot_dimension_numbers");
    if (a && a->val)
        return field_ints(R, a, "lhs_batching_dimensions", &d->lhs_batch) &&
               field_ints(R, a, "rhs_batching_dimensions", &d->rhs_batch) &&
               field_ints(R, a, "lhs_contracting_dimensions", &d->lhs_contract) &&
               field_ints(R, a, "rhs_contracting_dimensions", &d->rhs_contract);
    /* pretty: "batching_dims = [0] x [0], contracting_dims = [2] x [1]" */
    const char *keys[2] = {"batching_dims", "contracting_dims"};
    pp_shard_ints *sides[2][2] = {{&d->lhs_batch, &d->rhs_batch}, {&d->lhs_contract, &d->rhs_contract}};
    for (int k = 0; k < 2; k++) {
        const attr *b = shard_attr_find(attrs, keys[k]);
        if (!b || !b->val)
            continue;
        const char *x = memchr(b->val, 'x', b->val_len);
        if (!x)
            return shard_lex_fail(R, b->line, b->col, "%s: expected '[lhs] x [rhs]'", keys[k]);
        if (!text_ints(R, b->val, (size_t)(x - b->val), b->line, b->col, sides[k][0]) ||
            !text_ints(R, x + 1, b->val_len - (size_t)(x + 1 - b->val), b->line, b->col, sides[k][1]))
            return false;
    }
    return true;
}

static bool gather_dims(reader *R, const vec *attrs, pp_shard_gather_dims *g)
{
    g->index_vector_dim = -1;
    const attr *a = shard_attr_find(attrs, "dimension_numbers");
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
    const attr *a = shard_attr_find(attrs, "slice");
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
                return shard_lex_fail(R, a->line, a->col, "slice: expected 'start:limit' for each dimension");
            if (field == 1)
                st[n] = 1;
            n++;
            field = 0;
            got = 0;
        } else if (c == ':') {
            field++;
            if (field > 2)
                return shard_lex_fail(R, a->line, a->col, "slice: too many ':' in a range");
        } else if (isdigit((unsigned char)c)) {
            int64_t v = 0;
            while (k < a->val_len && isdigit((unsigned char)a->val[k]) && v <= MAX_INT_ATTR)
                v = v * 10 + (a->val[k++] - '0');
            k--;
            if (n >= MAX_RANK || v > MAX_INT_ATTR)
                return shard_lex_fail(R, a->line, a->col, "slice: bound too large");
            (field == 0 ? lo : field == 1 ? hi : st)[n] = v;
            got |= 1 << field;
        } else if (c != ' ') {
            return shard_lex_fail(R, a->line, a->col, "slice: unexpected '%c' in the bounds", c);
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

bool shard_attr_interpret(reader *R, stmt *s)
{
    pp_shard_op *op = &s->op;
    const vec *A = &s->attrs;
    switch (op->kind) {
    case PP_SHARD_OP_BROADCAST_IN_DIM:
        return attr_ints(R, A, shard_attr_find(A, "dims") ? "dims" : "broadcast_dimensions", &op->dims);
    case PP_SHARD_OP_TRANSPOSE:
        return attr_ints(R, A, shard_attr_find(A, "dims") ? "dims" : "permutation", &op->dims);
    case PP_SHARD_OP_REDUCE:
        return attr_ints(R, A, "dimensions", &op->dims);
    case PP_SHARD_OP_REDUCE_WINDOW:
        return attr_ints(R, A, "window_dimensions", &op->dims) && attr_ints(R, A, "window_strides", &op->strides);
    case PP_SHARD_OP_CONCATENATE:
        return attr_int(R, A, shard_attr_find(A, "dim") ? "dim" : "dimension", -1, &op->dim);
    case PP_SHARD_OP_IOTA:
        return attr_int(R, A, shard_attr_find(A, "dim") ? "dim" : "iota_dimension", -1, &op->dim);
    case PP_SHARD_OP_SLICE: return slice_bounds(R, A, op);
    case PP_SHARD_OP_DOT_GENERAL: return dot_dims(R, A, &op->dot);
    case PP_SHARD_OP_CONVOLUTION: return conv_dims(R, A, &op->conv);
    case PP_SHARD_OP_GATHER: return gather_dims(R, A, &op->gather);
    case PP_SHARD_OP_COMPARE: {
        const attr *a = shard_attr_find(A, "comparison_direction");
        op->compare = a && a->val ? compare_of(a->val, a->val_len) : PP_SHARD_CMP_NONE;
        if (op->compare == PP_SHARD_CMP_NONE)
            return shard_lex_fail(R, op->line, op->col, "compare without a direction (EQ, NE, LT, LE, GT, GE)");
        const attr *t = shard_attr_find(A, "compare_type");
        op->compare_type = t && t->val ? shard_keep_text(R, t->val, t->val_len) : "";
        return op->compare_type != NULL;
    }
    default: return true;
    }
}
