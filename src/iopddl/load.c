/* load.c: reads the contest JSON (plain or gzip) into a pp_iopddl_problem.
 *
 * A hand-written scanner, not a DOM parser: instances reach 1.3 GB of text
 * and are almost all arrays of arrays of integers (BENCHMARKS.md has the
 * throughput against jansson). Key order is free, so each array of arrays is
 * read into a ragged array (row offsets + values) and checked against the
 * others once the whole document is read. Errors name file and byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stream.h"
#include "parplan/iopddl.h"

enum { MAX_DEPTH = 200, NUMBER_LOOKAHEAD = 48 };

/* One array of arrays of integers, as read. */
typedef struct {
    int64_t *values;
    size_t count, cap;
    uint64_t *row_start; /* rows + 1 entries once finished */
    uint64_t *row_pos;   /* byte offset of each row, for messages */
    size_t rows, row_cap;
    uint64_t key_pos;    /* byte offset of the key, 0 if absent */
    bool present;
} ragged;

typedef struct {
    pp_stream in;
    const char *path;
    pp_error *err;
    bool failed;
    ragged intervals, costs, usages, edge_nodes, edge_costs;
    bool has_limit;
    int64_t limit;
    uint64_t limit_pos;
    char name[128];
} loader;

static bool fail_at(loader *ld, uint64_t pos, const char *reason, const char *detail)
{
    if (!ld->failed) {
        ld->failed = true;
        pp_error_set(ld->err, PP_EINPUT, "%s: byte %llu: %s%s", ld->path,
                     (unsigned long long)pos, reason, detail ? detail : "");
    }
    return false;
}

static bool fail(loader *ld, const char *reason)
{
    if (ld->in.failure[0] && ld->in.eof && ld->in.pos >= ld->in.len)
        return fail_at(ld, pp_stream_offset(&ld->in), "cannot read: ", ld->in.failure);
    return fail_at(ld, pp_stream_offset(&ld->in), reason, NULL);
}

static bool out_of_memory(loader *ld)
{
    if (!ld->failed) {
        ld->failed = true;
        pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory while reading", ld->path);
    }
    return false;
}

static inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Next significant character (0 at the end of the text), not consumed. */
static inline char peek(loader *ld)
{
    pp_stream *s = &ld->in;
    for (;;) {
        while (s->pos < s->len && is_space(s->buf[s->pos]))
            s->pos++;
        if (s->pos < s->len)
            return s->buf[s->pos];
        if (pp_stream_fill(s, 1) == 0)
            return 0;
    }
}

static bool expect(loader *ld, char c, const char *what)
{
    if (peek(ld) != c)
        return fail(ld, what);
    ld->in.pos++;
    return true;
}

/* Reads a string into dst (truncated to dst_size - 1); escapes are kept as
 * written, which is all keys and names need. */
static bool read_string(loader *ld, char *dst, size_t dst_size)
{
    if (!expect(ld, '"', "expected a string"))
        return false;
    pp_stream *s = &ld->in;
    size_t n = 0;
    for (;;) {
        if (s->pos >= s->len && pp_stream_fill(s, 1) == 0)
            return fail(ld, "unterminated string");
        char c = s->buf[s->pos++];
        if (c == '"')
            break;
        if ((unsigned char)c < 0x20)
            return fail_at(ld, pp_stream_offset(s) - 1, "control character in string", NULL);
        if (c == '\\') {
            if (s->pos >= s->len && pp_stream_fill(s, 1) == 0)
                return fail(ld, "unterminated string");
            if (dst && n + 1 < dst_size)
                dst[n++] = c;
            c = s->buf[s->pos++];
        }
        if (dst && n + 1 < dst_size)
            dst[n++] = c;
    }
    if (dst)
        dst[n] = '\0';
    return true;
}

/* Integers only: the format has no fractions, and a silently rounded cost
 * would be a wrong answer printed as right. */
static bool read_int(loader *ld, int64_t *out)
{
    pp_stream *s = &ld->in;
    if (s->len - s->pos < NUMBER_LOOKAHEAD)
        pp_stream_fill(s, NUMBER_LOOKAHEAD);
    const char *start = s->buf + s->pos, *p = start;
    bool negative = *p == '-';
    if (negative)
        p++;
    if (*p < '0' || *p > '9')
        return fail(ld, "expected an integer");
    if (*p == '0' && p[1] >= '0' && p[1] <= '9')
        return fail(ld, "number with a leading zero");
    uint64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (++digits > 19) {
            if (v > (UINT64_MAX - 9) / 10)
                return fail(ld, "number out of range (more than 64 bits)");
        }
        v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (*p == '.' || *p == 'e' || *p == 'E')
        return fail(ld, "not an integer (fraction or exponent)");
    if (v > (uint64_t)INT64_MAX + (negative ? 1u : 0u))
        return fail(ld, "number out of range (more than 64 bits)");
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    s->pos += (size_t)(p - start);
    return true;
}

static bool skip_value(loader *ld, int depth);

static bool skip_container(loader *ld, char close, int depth)
{
    ld->in.pos++;
    if (depth > MAX_DEPTH)
        return fail(ld, "nested too deeply");
    if (peek(ld) == close) {
        ld->in.pos++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            if (!read_string(ld, NULL, 0) || !expect(ld, ':', "expected ':'"))
                return false;
        }
        if (!skip_value(ld, depth + 1))
            return false;
        char c = peek(ld);
        ld->in.pos++;
        if (c == close)
            return true;
        if (c != ',')
            return fail_at(ld, pp_stream_offset(&ld->in) - 1,
                           close == '}' ? "expected ',' or '}'" : "expected ',' or ']'", NULL);
    }
}

static bool skip_literal(loader *ld, const char *word)
{
    size_t n = strlen(word);
    if (pp_stream_fill(&ld->in, n) < n || memcmp(ld->in.buf + ld->in.pos, word, n) != 0)
        return fail(ld, "expected a value");
    ld->in.pos += n;
    return true;
}

/* Skips any JSON value (unknown keys are allowed and ignored). */
static bool skip_value(loader *ld, int depth)
{
    char c = peek(ld);
    switch (c) {
    case '{': return skip_container(ld, '}', depth);
    case '[': return skip_container(ld, ']', depth);
    case '"': return read_string(ld, NULL, 0);
    case 't': return skip_literal(ld, "true");
    case 'f': return skip_literal(ld, "false");
    case 'n': return skip_literal(ld, "null");
    default: {
        if (c != '-' && (c < '0' || c > '9'))
            return fail(ld, c ? "expected a value" : "unexpected end of input");
        /* Numbers of unknown keys may be fractions; skip their characters. */
        pp_stream *s = &ld->in;
        for (;;) {
            if (s->pos >= s->len && pp_stream_fill(s, 1) == 0)
                return true;
            c = s->buf[s->pos];
            if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
                return true;
            s->pos++;
        }
    }
    }
}

static bool ragged_push_value(loader *ld, ragged *r, int64_t v)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        int64_t *grown = realloc(r->values, cap * sizeof *grown);
        if (!grown)
            return out_of_memory(ld);
        r->values = grown;
        r->cap = cap;
    }
    r->values[r->count++] = v;
    return true;
}

static bool ragged_start_row(loader *ld, ragged *r, uint64_t pos)
{
    if (r->rows + 1 >= r->row_cap) {
        size_t cap = r->row_cap ? r->row_cap * 2 : 256;
        uint64_t *starts = realloc(r->row_start, cap * sizeof *starts);
        if (starts)
            r->row_start = starts;
        uint64_t *poss = starts ? realloc(r->row_pos, cap * sizeof *poss) : NULL;
        if (!poss)
            return out_of_memory(ld);
        r->row_pos = poss;
        r->row_cap = cap;
    }
    r->row_start[r->rows] = r->count;
    r->row_pos[r->rows] = pos;
    r->rows++;
    return true;
}

/* The hot loop of the loader: [[int, ...], ...]. */
static bool read_ragged(loader *ld, ragged *r, uint64_t key_pos)
{
    if (r->present)
        return fail_at(ld, key_pos, "duplicate key", NULL);
    r->present = true;
    r->key_pos = key_pos;
    if (!expect(ld, '[', "expected '[' (an array of arrays of integers)"))
        return false;
    if (peek(ld) == ']') {
        ld->in.pos++;
    } else {
        for (;;) {
            if (peek(ld) != '[')
                return fail(ld, "expected '[' (each entry is an array of integers)");
            if (!ragged_start_row(ld, r, pp_stream_offset(&ld->in)))
                return false;
            ld->in.pos++;
            if (peek(ld) == ']') {
                ld->in.pos++;
            } else {
                for (;;) {
                    int64_t v;
                    if (!read_int(ld, &v) || !ragged_push_value(ld, r, v))
                        return false;
                    char c = peek(ld);
                    ld->in.pos++;
                    if (c == ']')
                        break;
                    if (c != ',')
                        return fail_at(ld, pp_stream_offset(&ld->in) - 1, "expected ',' or ']'", NULL);
                    peek(ld);
                }
            }
            char c = peek(ld);
            ld->in.pos++;
            if (c == ']')
                break;
            if (c != ',')
                return fail_at(ld, pp_stream_offset(&ld->in) - 1, "expected ',' or ']'", NULL);
        }
    }
    if (!ragged_start_row(ld, r, pp_stream_offset(&ld->in)))
        return false;
    r->rows--; /* the extra entry is the end sentinel row_start[rows] */
    return true;
}

typedef bool (*member_fn)(loader *ld, const char *key, uint64_t key_pos);

/* Reads {"key": value, ...}, handing each member to on_member. */
static bool read_object(loader *ld, member_fn on_member, const char *what)
{
    if (!expect(ld, '{', what))
        return false;
    if (peek(ld) == '}') {
        ld->in.pos++;
        return true;
    }
    for (;;) {
        char key[64];
        uint64_t key_pos = pp_stream_offset(&ld->in);
        if (peek(ld) != '"')
            return fail(ld, "expected a key (a string)");
        key_pos = pp_stream_offset(&ld->in);
        if (!read_string(ld, key, sizeof key) || !expect(ld, ':', "expected ':'"))
            return false;
        if (!on_member(ld, key, key_pos))
            return false;
        char c = peek(ld);
        ld->in.pos++;
        if (c == '}')
            return true;
        if (c != ',')
            return fail_at(ld, pp_stream_offset(&ld->in) - 1, "expected ',' or '}'", NULL);
    }
}

static bool on_nodes_member(loader *ld, const char *key, uint64_t pos)
{
    if (strcmp(key, "intervals") == 0)
        return read_ragged(ld, &ld->intervals, pos);
    if (strcmp(key, "costs") == 0)
        return read_ragged(ld, &ld->costs, pos);
    if (strcmp(key, "usages") == 0)
        return read_ragged(ld, &ld->usages, pos);
    return skip_value(ld, 1);
}

static bool on_edges_member(loader *ld, const char *key, uint64_t pos)
{
    if (strcmp(key, "nodes") == 0)
        return read_ragged(ld, &ld->edge_nodes, pos);
    if (strcmp(key, "costs") == 0)
        return read_ragged(ld, &ld->edge_costs, pos);
    return skip_value(ld, 1);
}

static bool on_problem_member(loader *ld, const char *key, uint64_t pos)
{
    if (strcmp(key, "nodes") == 0)
        return read_object(ld, on_nodes_member, "expected '{' (the nodes object)");
    if (strcmp(key, "edges") == 0)
        return read_object(ld, on_edges_member, "expected '{' (the edges object)");
    if (strcmp(key, "usage_limit") == 0) {
        if (ld->has_limit)
            return fail_at(ld, pos, "duplicate key", NULL);
        ld->has_limit = true;
        peek(ld);
        ld->limit_pos = pp_stream_offset(&ld->in);
        return read_int(ld, &ld->limit);
    }
    if (strcmp(key, "name") == 0)
        return peek(ld) == '"' ? read_string(ld, ld->name, sizeof ld->name) : skip_value(ld, 1);
    return skip_value(ld, 1);
}

static bool on_top_member(loader *ld, const char *key, uint64_t pos)
{
    if (strcmp(key, "problem") == 0)
        return read_object(ld, on_problem_member, "expected '{' (the problem object)");
    return skip_value(ld, 1);
}

static void ragged_free(ragged *r)
{
    free(r->values);
    free(r->row_start);
    free(r->row_pos);
    memset(r, 0, sizeof *r);
}

static uint64_t row_len(const ragged *r, size_t i) { return r->row_start[i + 1] - r->row_start[i]; }

static bool check_nonnegative(loader *ld, const ragged *r, const char *what)
{
    for (size_t i = 0; i < r->rows; i++)
        for (uint64_t k = r->row_start[i]; k < r->row_start[i + 1]; k++)
            if (r->values[k] < 0) {
                char detail[96];
                snprintf(detail, sizeof detail, " (%s of node or edge %zu is negative)", what, i);
                return fail_at(ld, r->row_pos[i], "negative value", detail);
            }
    return true;
}

static bool check_nodes(loader *ld)
{
    static const char *names[3] = {"intervals", "costs", "usages"};
    ragged *parts[3] = {&ld->intervals, &ld->costs, &ld->usages};
    for (int k = 0; k < 3; k++)
        if (!parts[k]->present) {
            char detail[64];
            snprintf(detail, sizeof detail, "\"%s\" in \"nodes\"", names[k]);
            return fail_at(ld, pp_stream_offset(&ld->in), "missing key ", detail);
        }
    size_t n = ld->intervals.rows;
    if (n == 0)
        return fail_at(ld, ld->intervals.key_pos, "empty problem (no nodes)", NULL);
    if (n > UINT32_MAX - 1)
        return fail_at(ld, ld->intervals.key_pos, "too many nodes", NULL);
    char detail[160];
    for (int k = 1; k < 3; k++)
        if (parts[k]->rows != n) {
            snprintf(detail, sizeof detail, " (\"%s\" has %zu entries, \"intervals\" has %zu)",
                     names[k], parts[k]->rows, n);
            return fail_at(ld, parts[k]->key_pos, "wrong number of nodes", detail);
        }
    for (size_t i = 0; i < n; i++) {
        const int64_t *iv = ld->intervals.values + ld->intervals.row_start[i];
        if (row_len(&ld->intervals, i) != 2) {
            snprintf(detail, sizeof detail, " (node %zu: an interval is [start, end])", i);
            return fail_at(ld, ld->intervals.row_pos[i], "wrong interval length", detail);
        }
        if (iv[0] < 0 || iv[1] < iv[0]) {
            snprintf(detail, sizeof detail, " (node %zu: [%lld, %lld])", i, (long long)iv[0],
                     (long long)iv[1]);
            return fail_at(ld, ld->intervals.row_pos[i], "negative interval", detail);
        }
        if (row_len(&ld->costs, i) == 0) {
            snprintf(detail, sizeof detail, " (node %zu)", i);
            return fail_at(ld, ld->costs.row_pos[i], "node without strategies", detail);
        }
        if (row_len(&ld->costs, i) != row_len(&ld->usages, i)) {
            snprintf(detail, sizeof detail, " (node %zu: %llu costs, %llu usages)", i,
                     (unsigned long long)row_len(&ld->costs, i),
                     (unsigned long long)row_len(&ld->usages, i));
            return fail_at(ld, ld->usages.row_pos[i], "costs and usages differ in length", detail);
        }
    }
    return check_nonnegative(ld, &ld->costs, "a cost") &&
           check_nonnegative(ld, &ld->usages, "a usage");
}

static bool check_edges(loader *ld)
{
    ragged *en = &ld->edge_nodes, *ec = &ld->edge_costs;
    if (en->present != ec->present)
        return fail_at(ld, en->present ? en->key_pos : ec->key_pos,
                       "\"edges\" needs both \"nodes\" and \"costs\"", NULL);
    char detail[192];
    if (en->rows != ec->rows) {
        snprintf(detail, sizeof detail, " (%zu edges in \"nodes\", %zu in \"costs\")", en->rows, ec->rows);
        return fail_at(ld, ec->key_pos, "wrong number of edges", detail);
    }
    if (en->rows > UINT32_MAX - 1)
        return fail_at(ld, en->key_pos, "too many edges", NULL);
    size_t n = ld->intervals.rows;
    for (size_t e = 0; e < en->rows; e++) {
        if (row_len(en, e) == 0) {
            snprintf(detail, sizeof detail, " (edge %zu)", e);
            return fail_at(ld, en->row_pos[e], "edge without nodes", detail);
        }
        uint64_t expected = 1;
        for (uint64_t k = en->row_start[e]; k < en->row_start[e + 1]; k++) {
            int64_t v = en->values[k];
            if (v < 0 || (uint64_t)v >= n) {
                snprintf(detail, sizeof detail, " (edge %zu names node %lld; there are %zu)", e,
                         (long long)v, n);
                return fail_at(ld, en->row_pos[e], "node index out of range", detail);
            }
            uint64_t d = row_len(&ld->costs, (size_t)v);
            if (expected > UINT64_MAX / d / 8)
                return fail_at(ld, en->row_pos[e], "edge cost table too large", NULL);
            expected *= d;
        }
        if (row_len(ec, e) != expected) {
            snprintf(detail, sizeof detail,
                     " (edge %zu has %llu costs; the product of its nodes' strategy counts is %llu)",
                     e, (unsigned long long)row_len(ec, e), (unsigned long long)expected);
            return fail_at(ld, ec->row_pos[e], "edge cost table of the wrong size", detail);
        }
    }
    return check_nonnegative(ld, ec, "an edge cost");
}

/* Moves the checked ragged arrays into the problem without copying them. */
static pp_status build_problem(loader *ld, pp_iopddl_problem **out)
{
    pp_arena *arena = pp_arena_new(1 << 16);
    pp_iopddl_problem *p = arena ? pp_arena_calloc(arena, 1, sizeof *p) : NULL;
    if (!p) {
        pp_arena_free(arena);
        return pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory", ld->path);
    }
    p->arena = arena;
    size_t n = ld->intervals.rows;
    size_t m = ld->edge_nodes.rows;
    snprintf(p->name, sizeof p->name, "%s", ld->name);
    p->node_count = (uint32_t)n;
    p->edge_count = (uint32_t)m;
    p->has_usage_limit = ld->has_limit;
    p->usage_limit = ld->limit;
    p->interval_start = pp_arena_alloc(arena, n * sizeof(int64_t));
    p->interval_end = pp_arena_alloc(arena, n * sizeof(int64_t));
    p->edge_nodes = pp_arena_alloc(arena, (ld->edge_nodes.count + 1) * sizeof(uint32_t));
    if (!p->interval_start || !p->interval_end || !p->edge_nodes) {
        pp_iopddl_free(p);
        return pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory", ld->path);
    }
    for (size_t i = 0; i < n; i++) {
        p->interval_start[i] = ld->intervals.values[2 * i];
        p->interval_end[i] = ld->intervals.values[2 * i + 1];
    }
    for (size_t k = 0; k < ld->edge_nodes.count; k++)
        p->edge_nodes[k] = (uint32_t)ld->edge_nodes.values[k];
    if (!ld->edge_nodes.present) {
        ld->edge_nodes.row_start = calloc(1, sizeof(uint64_t));
        ld->edge_costs.row_start = calloc(1, sizeof(uint64_t));
    }
    p->strategy_start = ld->costs.row_start;
    p->node_cost = ld->costs.values;
    p->node_usage = ld->usages.values;
    p->edge_node_start = ld->edge_nodes.row_start;
    p->edge_cost_start = ld->edge_costs.row_start;
    p->edge_cost = ld->edge_costs.values;
    ld->costs.row_start = NULL;
    ld->costs.values = NULL;
    ld->usages.values = NULL;
    ld->edge_nodes.row_start = NULL;
    ld->edge_costs.row_start = NULL;
    ld->edge_costs.values = NULL;
    bool ok = pp_arena_adopt(arena, p->strategy_start) & pp_arena_adopt(arena, p->node_cost) &
              pp_arena_adopt(arena, p->node_usage) & pp_arena_adopt(arena, p->edge_node_start) &
              pp_arena_adopt(arena, p->edge_cost_start) & pp_arena_adopt(arena, p->edge_cost);
    if (!ok || !p->edge_node_start || !p->edge_cost_start) {
        pp_iopddl_free(p);
        return pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory", ld->path);
    }
    *out = p;
    return PP_OK;
}

static bool read_document(loader *ld)
{
    if (!read_object(ld, on_top_member, "expected '{' at the start of the document"))
        return false;
    if (peek(ld) != 0)
        return fail(ld, "unexpected data after the document");
    if (ld->in.failure[0])
        return fail_at(ld, pp_stream_offset(&ld->in), "cannot read: ", ld->in.failure);
    if (!ld->intervals.present && !ld->costs.present && !ld->usages.present)
        return fail_at(ld, 0, "no \"problem\" object with \"nodes\" found", NULL);
    if (ld->has_limit && ld->limit < 0)
        return fail_at(ld, ld->limit_pos, "negative usage limit", NULL);
    return check_nodes(ld) && check_edges(ld);
}

pp_status pp_iopddl_load(const char *path, pp_iopddl_problem **out, pp_error *err)
{
    *out = NULL;
    loader *ld = calloc(1, sizeof *ld);
    if (!ld)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    ld->path = path;
    ld->err = err;
    pp_status status = pp_stream_open(&ld->in, path, err);
    if (status == PP_OK) {
        if (read_document(ld))
            status = build_problem(ld, out);
        else
            status = err->status != PP_OK ? err->status : PP_EINPUT;
        pp_stream_close(&ld->in);
    }
    ragged *all[5] = {&ld->intervals, &ld->costs, &ld->usages, &ld->edge_nodes, &ld->edge_costs};
    for (int k = 0; k < 5; k++)
        ragged_free(all[k]);
    free(ld);
    return status;
}

void pp_iopddl_free(pp_iopddl_problem *p)
{
    if (p)
        pp_arena_free(p->arena);
}
