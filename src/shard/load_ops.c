/* load_ops.c: what the StableHLO reader knows of ops and types: the
 * op-name table, type sizes and text, the checks of each known op's
 * attributes against its operand and result types (so a module that the
 * analysis later trusts is consistent). A reading concern, hence load_;
 * check.c is the independent check of the written module. */
#include "shard/shard_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    pp_shard_op_kind kind;
} KINDS[] = {
    {"opaque", PP_SHARD_OP_OPAQUE},
    {"constant", PP_SHARD_OP_CONSTANT},
    {"iota", PP_SHARD_OP_IOTA},
    {"broadcast_in_dim", PP_SHARD_OP_BROADCAST_IN_DIM},
    {"reshape", PP_SHARD_OP_RESHAPE},
    {"transpose", PP_SHARD_OP_TRANSPOSE},
    {"convert", PP_SHARD_OP_CONVERT},
    {"slice", PP_SHARD_OP_SLICE},
    {"concatenate", PP_SHARD_OP_CONCATENATE},
    {"gather", PP_SHARD_OP_GATHER},
    {"select", PP_SHARD_OP_SELECT},
    {"compare", PP_SHARD_OP_COMPARE},
    {"dot_general", PP_SHARD_OP_DOT_GENERAL},
    {"convolution", PP_SHARD_OP_CONVOLUTION},
    {"reduce", PP_SHARD_OP_REDUCE},
    {"reduce_window", PP_SHARD_OP_REDUCE_WINDOW},
    {"call", PP_SHARD_OP_CALL},
    {"return", PP_SHARD_OP_RETURN},
    {"abs", PP_SHARD_OP_ABS},
    {"negate", PP_SHARD_OP_NEGATE},
    {"exponential", PP_SHARD_OP_EXPONENTIAL},
    {"log", PP_SHARD_OP_LOG},
    {"logistic", PP_SHARD_OP_LOGISTIC},
    {"rsqrt", PP_SHARD_OP_RSQRT},
    {"sqrt", PP_SHARD_OP_SQRT},
    {"tanh", PP_SHARD_OP_TANH},
    {"sign", PP_SHARD_OP_SIGN},
    {"floor", PP_SHARD_OP_FLOOR},
    {"ceil", PP_SHARD_OP_CEIL},
    {"cosine", PP_SHARD_OP_COSINE},
    {"sine", PP_SHARD_OP_SINE},
    {"not", PP_SHARD_OP_NOT},
    {"exponential_minus_one", PP_SHARD_OP_EXPM1},
    {"log_plus_one", PP_SHARD_OP_LOG1P},
    {"add", PP_SHARD_OP_ADD},
    {"subtract", PP_SHARD_OP_SUBTRACT},
    {"multiply", PP_SHARD_OP_MULTIPLY},
    {"divide", PP_SHARD_OP_DIVIDE},
    {"maximum", PP_SHARD_OP_MAXIMUM},
    {"minimum", PP_SHARD_OP_MINIMUM},
    {"power", PP_SHARD_OP_POWER},
    {"remainder", PP_SHARD_OP_REMAINDER},
    {"and", PP_SHARD_OP_AND},
    {"or", PP_SHARD_OP_OR},
    {"xor", PP_SHARD_OP_XOR},
    {"atan2", PP_SHARD_OP_ATAN2},
};

const char *pp_shard_op_kind_name(pp_shard_op_kind kind)
{
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
        if (KINDS[k].kind == kind)
            return KINDS[k].name;
    return "?";
}

int pp_shard_op_is_unary(pp_shard_op_kind kind)
{
    return kind >= PP_SHARD_OP_FIRST_UNARY && kind <= PP_SHARD_OP_LAST_UNARY;
}

int pp_shard_op_is_binary(pp_shard_op_kind kind)
{
    return kind >= PP_SHARD_OP_FIRST_BINARY && kind <= PP_SHARD_OP_LAST_BINARY;
}

static bool name_is(const char *name, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(name, word, len) == 0;
}

/* call and return belong to func (and stablehlo.return ends regions); every
 * other known op is "stablehlo.NAME". */
pp_shard_op_kind shard_kind_of(const char *name, size_t len)
{
    if (name_is(name, len, "call") || name_is(name, len, "func.call"))
        return PP_SHARD_OP_CALL;
    if (name_is(name, len, "return") || name_is(name, len, "func.return") ||
        name_is(name, len, "stablehlo.return"))
        return PP_SHARD_OP_RETURN;
    const char *prefix = "stablehlo.";
    size_t n = strlen(prefix);
    if (len <= n || memcmp(name, prefix, n) != 0)
        return PP_SHARD_OP_OPAQUE;
    for (size_t k = 1; k < sizeof KINDS / sizeof KINDS[0]; k++)
        if (KINDS[k].kind != PP_SHARD_OP_CALL && KINDS[k].kind != PP_SHARD_OP_RETURN &&
            name_is(name + n, len - n, KINDS[k].name))
            return KINDS[k].kind;
    return PP_SHARD_OP_OPAQUE;
}

int64_t pp_shard_type_elements(const pp_shard_type *type)
{
    if (type->rank < 0)
        return 0;
    int64_t n = 1;
    for (int32_t d = 0; d < type->rank; d++) {
        if (type->dims[d] > 0 && n > INT64_MAX / type->dims[d])
            return 0;
        n *= type->dims[d];
    }
    return n;
}

static bool same_shape(const pp_shard_type *a, const pp_shard_type *b)
{
    if (a->rank != b->rank)
        return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d])
            return false;
    return true;
}

int pp_shard_type_equal(const pp_shard_type *a, const pp_shard_type *b)
{
    return same_shape(a, b) && strcmp(a->elem, b->elem) == 0;
}

const char *shard_type_text(const pp_shard_type *type, char *buf, size_t size)
{
    if (type->rank < 0) {
        snprintf(buf, size, "%s", type->elem);
        return buf;
    }
    size_t used = (size_t)snprintf(buf, size, "tensor<");
    for (int32_t d = 0; d < type->rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%lldx", (long long)type->dims[d]);
    if (used < size)
        snprintf(buf + used, size - used, "%s>", type->elem);
    return buf;
}

static const pp_shard_type *operand(const pp_shard_value *values, const pp_shard_op *op, int k)
{
    return &values[op->operands[k]].type;
}

static const pp_shard_type *result(const pp_shard_value *values, const pp_shard_op *op, int k)
{
    return &values[op->results[k]].type;
}

#define LL(x) ((long long)(x))

static bool fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return false;
}

static bool counts(const pp_shard_op *op, int operands, int results, char *why, size_t size)
{
    if (op->n_operands != operands)
        return fail(why, size, "%s takes %d operand(s), got %d", op->name, operands, (int)op->n_operands);
    if (op->n_results != results) {
        snprintf(why, size, "%s has %d result(s), got %d", op->name, results, (int)op->n_results);
        return false;
    }
    return true;
}

/* Every dimension number in list lies in [0, rank) and none repeats. */
static bool dims_valid(const pp_shard_ints *list, int32_t rank, const char *what, char *why, size_t size)
{
    for (int32_t k = 0; k < list->n; k++) {
        if (list->v[k] < 0 || list->v[k] >= rank) {
            snprintf(why, size, "%s dimension %lld is out of range for rank %d", what,
                     (long long)list->v[k], (int)rank);
            return false;
        }
        for (int32_t j = 0; j < k; j++)
            if (list->v[j] == list->v[k]) {
                snprintf(why, size, "%s dimension %lld is repeated", what, (long long)list->v[k]);
                return false;
            }
    }
    return true;
}

bool shard_ints_has(const pp_shard_ints *list, int64_t v)
{
    for (int32_t k = 0; k < list->n; k++)
        if (list->v[k] == v)
            return true;
    return false;
}

static bool check_elementwise(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    int arity = pp_shard_op_is_unary(op->kind) ? 1 : 2;
    if (!counts(op, arity, 1, why, size))
        return false;
    for (int k = 0; k < arity; k++)
        if (!same_shape(operand(values, op, k), result(values, op, 0))) {
            char a[128], b[128];
            snprintf(why, size, "%s: operand #%d has shape %s but the result has %s", op->name, k,
                     shard_type_text(operand(values, op, k), a, sizeof a),
                     shard_type_text(result(values, op, 0), b, sizeof b));
            return false;
        }
    return true;
}

/* The result holds the batch dims, then the free dims of lhs, then of rhs. */
static bool check_dot(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 2, 1, why, size))
        return false;
    const pp_shard_type *l = operand(values, op, 0), *r = operand(values, op, 1), *o = result(values, op, 0);
    const pp_shard_dot_dims *d = &op->dot;
    if (d->lhs_batch.n != d->rhs_batch.n || d->lhs_contract.n != d->rhs_contract.n)
        return fail(why, size, "dot_general: lhs and rhs list different numbers of %s dimensions", d->lhs_batch.n != d->rhs_batch.n ? "batching" : "contracting");
    if (!dims_valid(&d->lhs_batch, l->rank, "lhs batching", why, size) ||
        !dims_valid(&d->rhs_batch, r->rank, "rhs batching", why, size) ||
        !dims_valid(&d->lhs_contract, l->rank, "lhs contracting", why, size) ||
        !dims_valid(&d->rhs_contract, r->rank, "rhs contracting", why, size))
        return false;
    for (int32_t k = 0; k < d->lhs_contract.n; k++)
        if (l->dims[d->lhs_contract.v[k]] != r->dims[d->rhs_contract.v[k]])
            return fail(why, size, "dot_general: contracting dimension sizes differ: lhs %lld, rhs %lld", LL(l->dims[d->lhs_contract.v[k]]), LL(r->dims[d->rhs_contract.v[k]]));
    for (int32_t k = 0; k < d->lhs_batch.n; k++)
        if (l->dims[d->lhs_batch.v[k]] != r->dims[d->rhs_batch.v[k]])
            return fail(why, size, "dot_general: batching dimension sizes differ: lhs %lld, rhs %lld", LL(l->dims[d->lhs_batch.v[k]]), LL(r->dims[d->rhs_batch.v[k]]));
    int64_t expect[64];
    int32_t n = 0;
    for (int32_t k = 0; k < d->lhs_batch.n && n < 64; k++)
        expect[n++] = l->dims[d->lhs_batch.v[k]];
    for (int32_t k = 0; k < l->rank && n < 64; k++)
        if (!shard_ints_has(&d->lhs_batch, k) && !shard_ints_has(&d->lhs_contract, k))
            expect[n++] = l->dims[k];
    for (int32_t k = 0; k < r->rank && n < 64; k++)
        if (!shard_ints_has(&d->rhs_batch, k) && !shard_ints_has(&d->rhs_contract, k))
            expect[n++] = r->dims[k];
    if (n != o->rank)
        return fail(why, size, "dot_general: the result should have rank %lld, not %lld", LL(n), LL(o->rank));
    for (int32_t k = 0; k < n; k++)
        if (expect[k] != o->dims[k])
            return fail(why, size, "dot_general: result dimension %lld should be %lld, not %lld", LL(k), LL(expect[k]), LL(o->dims[k]));
    return true;
}

static bool check_broadcast(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 1, 1, why, size))
        return false;
    const pp_shard_type *a = operand(values, op, 0), *o = result(values, op, 0);
    if (op->dims.n != a->rank)
        return fail(why, size, "broadcast_in_dim: %lld dims for an operand of rank %lld", LL(op->dims.n), LL(a->rank));
    if (!dims_valid(&op->dims, o->rank, "broadcast_in_dim", why, size))
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (a->dims[k] != 1 && a->dims[k] != o->dims[op->dims.v[k]])
            return fail(why, size, "broadcast_in_dim: operand dimension %lld (size %lld) cannot become size %lld", LL(k), LL(a->dims[k]), LL(o->dims[op->dims.v[k]]));
    return true;
}

static bool check_transpose(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 1, 1, why, size))
        return false;
    const pp_shard_type *a = operand(values, op, 0), *o = result(values, op, 0);
    if (op->dims.n != a->rank || o->rank != a->rank)
        return fail(why, size, "transpose: permutation of %lld dims for rank %lld", LL(op->dims.n), LL(a->rank));
    if (!dims_valid(&op->dims, a->rank, "transpose", why, size))
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (o->dims[k] != a->dims[op->dims.v[k]])
            return fail(why, size, "transpose: result dimension %lld should be %lld, not %lld", LL(k), LL(a->dims[op->dims.v[k]]), LL(o->dims[k]));
    return true;
}

/* Inputs come first, then as many init values; each result drops the reduced dims. */
static bool check_reduce(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (op->n_operands < 2 || op->n_operands % 2 || op->n_results != op->n_operands / 2) {
        snprintf(why, size, "reduce: %d operand(s) and %d result(s) do not pair up",
                 (int)op->n_operands, (int)op->n_results);
        return false;
    }
    const pp_shard_type *a = operand(values, op, 0);
    if (!dims_valid(&op->dims, a->rank, "reduce", why, size))
        return false;
    for (int32_t r = 0; r < op->n_results; r++) {
        const pp_shard_type *in = operand(values, op, r), *o = result(values, op, r);
        int32_t n = 0;
        for (int32_t k = 0; k < in->rank; k++) {
            if (shard_ints_has(&op->dims, k))
                continue;
            if (n >= o->rank || o->dims[n] != in->dims[k])
                return fail(why, size, "reduce: result #%lld does not keep input dimension %lld", LL(r), LL(k));
            n++;
        }
        if (n != o->rank)
            return fail(why, size, "reduce: result #%lld should have rank %lld, not %lld", LL(r), LL(n), LL(o->rank));
    }
    return true;
}

static bool check_reshape(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 1, 1, why, size))
        return false;
    int64_t a = pp_shard_type_elements(operand(values, op, 0)), o = pp_shard_type_elements(result(values, op, 0));
    if (a != o)
        return fail(why, size, "reshape: %lld elements cannot become %lld", LL(a), LL(o));
    return true;
}

static bool check_concatenate(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (op->n_operands < 1 || op->n_results != 1) {
        snprintf(why, size, "concatenate needs operands and one result");
        return false;
    }
    const pp_shard_type *o = result(values, op, 0);
    if (op->dim < 0 || op->dim >= o->rank)
        return fail(why, size, "concatenate: dimension %lld is out of range for rank %lld", LL(op->dim), LL(o->rank));
    int64_t total = 0;
    for (int32_t k = 0; k < op->n_operands; k++) {
        const pp_shard_type *a = operand(values, op, k);
        if (a->rank != o->rank)
            return fail(why, size, "concatenate: operand #%lld has rank %lld, the result %lld", LL(k), LL(a->rank), LL(o->rank));
        for (int32_t d = 0; d < o->rank; d++)
            if (d != op->dim && a->dims[d] != o->dims[d])
                return fail(why, size, "concatenate: operand #%lld differs from the result in dimension %lld", LL(k), LL(d));
        total += a->dims[op->dim];
    }
    if (total != o->dims[op->dim])
        return fail(why, size, "concatenate: operands add up to %lld along dimension %lld, the result has %lld", LL(total), LL(op->dim), LL(o->dims[op->dim]));
    return true;
}

static bool check_slice(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 1, 1, why, size))
        return false;
    const pp_shard_type *a = operand(values, op, 0), *o = result(values, op, 0);
    if (op->start.n != a->rank || op->limit.n != a->rank || (op->strides.n && op->strides.n != a->rank) ||
        o->rank != a->rank)
        return fail(why, size, "slice: bounds for %lld dims, the operand has rank %lld", LL(op->start.n), LL(a->rank));
    for (int32_t d = 0; d < a->rank; d++) {
        int64_t lo = op->start.v[d], hi = op->limit.v[d], st = op->strides.n ? op->strides.v[d] : 1;
        if (lo < 0 || hi < lo || hi > a->dims[d] || st < 1)
            return fail(why, size, "slice: bounds %lld:%lld do not fit dimension %lld", LL(lo), LL(hi), LL(d));
        if (o->dims[d] != (hi - lo + st - 1) / st)
            return fail(why, size, "slice: result dimension %lld should be %lld, not %lld", LL(d), LL((hi - lo + st - 1) / st), LL(o->dims[d]));
    }
    return true;
}

static bool check_convolution(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 2, 1, why, size))
        return false;
    const pp_shard_type *in = operand(values, op, 0), *k = operand(values, op, 1), *o = result(values, op, 0);
    const pp_shard_conv_dims *c = &op->conv;
    if (in->rank != c->in_spatial.n + 2 || k->rank != c->kernel_spatial.n + 2 || o->rank != c->out_spatial.n + 2)
        return fail(why, size, "convolution: dim_numbers name %lld spatial dims for an input of rank %lld", LL(c->in_spatial.n), LL(in->rank));
    if (c->feature_group_count < 1 || c->batch_group_count < 1)
        return fail(why, size, "convolution: group counts must be at least 1, got %lld and %lld", LL(c->feature_group_count), LL(c->batch_group_count));
    if (in->dims[c->in_feature] != k->dims[c->kernel_in] * c->feature_group_count)
        return fail(why, size, "convolution: input features %lld differ from kernel input features %lld x groups %lld", LL(in->dims[c->in_feature]), LL(k->dims[c->kernel_in]), LL(c->feature_group_count));
    if (o->dims[c->out_feature] != k->dims[c->kernel_out])
        return fail(why, size, "convolution: output features %lld differ from kernel output features %lld", LL(o->dims[c->out_feature]), LL(k->dims[c->kernel_out]));
    if (o->dims[c->out_batch] * c->batch_group_count != in->dims[c->in_batch])
        return fail(why, size, "convolution: output batch %lld differs from input batch %lld", LL(o->dims[c->out_batch]), LL(in->dims[c->in_batch]));
    return true;
}

static bool check_select(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 3, 1, why, size))
        return false;
    const pp_shard_type *p = operand(values, op, 0), *o = result(values, op, 0);
    if (!same_shape(operand(values, op, 1), o) || !same_shape(operand(values, op, 2), o))
        return fail(why, size, "select: the branches' shapes differ from the result's");
    if (p->rank != 0 && !same_shape(p, o))
        return fail(why, size, "select: the predicate is neither a scalar nor of the result's shape");
    return true;
}

static bool check_compare(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 2, 1, why, size))
        return false;
    if (!same_shape(operand(values, op, 0), result(values, op, 0)) ||
        !same_shape(operand(values, op, 1), result(values, op, 0)))
        return fail(why, size, "compare: operand shapes differ from the result's");
    return true;
}

static bool check_iota(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (!counts(op, 0, 1, why, size))
        return false;
    if (op->dim < 0 || op->dim >= result(values, op, 0)->rank)
        return fail(why, size, "iota: dimension %lld is out of range for rank %lld", LL(op->dim), LL(result(values, op, 0)->rank));
    return true;
}

/* Only ops whose every operand and result is a tensor are checked; a
 * non-tensor type on a known op is itself an error. */
bool shard_check_op(const pp_shard_value *values, const pp_shard_op *op, char *why, size_t size)
{
    if (op->kind == PP_SHARD_OP_OPAQUE || op->kind == PP_SHARD_OP_CALL || op->kind == PP_SHARD_OP_RETURN)
        return true;
    for (int32_t k = 0; k < op->n_operands; k++)
        if (operand(values, op, k)->rank < 0)
            return fail(why, size, "operand #%lld is not a tensor", LL(k));
    for (int32_t k = 0; k < op->n_results; k++)
        if (result(values, op, k)->rank < 0)
            return fail(why, size, "result #%lld is not a tensor", LL(k));
    if (pp_shard_op_is_unary(op->kind) || pp_shard_op_is_binary(op->kind))
        return check_elementwise(values, op, why, size);
    switch (op->kind) {
    case PP_SHARD_OP_DOT_GENERAL: return check_dot(values, op, why, size);
    case PP_SHARD_OP_BROADCAST_IN_DIM: return check_broadcast(values, op, why, size);
    case PP_SHARD_OP_TRANSPOSE: return check_transpose(values, op, why, size);
    case PP_SHARD_OP_REDUCE: return check_reduce(values, op, why, size);
    case PP_SHARD_OP_RESHAPE: return check_reshape(values, op, why, size);
    case PP_SHARD_OP_CONCATENATE: return check_concatenate(values, op, why, size);
    case PP_SHARD_OP_SLICE: return check_slice(values, op, why, size);
    case PP_SHARD_OP_CONVOLUTION: return check_convolution(values, op, why, size);
    case PP_SHARD_OP_SELECT: return check_select(values, op, why, size);
    case PP_SHARD_OP_COMPARE: return check_compare(values, op, why, size);
    case PP_SHARD_OP_IOTA: return check_iota(values, op, why, size);
    case PP_SHARD_OP_CONVERT: return counts(op, 1, 1, why, size) &&
        (same_shape(operand(values, op, 0), result(values, op, 0)) ||
         fail(why, size, "convert: operand and result shapes differ"));
    case PP_SHARD_OP_CONSTANT: return counts(op, 0, 1, why, size);
    default: return true;
    }
}
