/* load.c: reads the contest JSON (plain or gzip) into a pp_iopddl_problem.
 *
 * A hand-written scanner, not a DOM parser: instances reach 1.3 GB of text
 * and are almost all arrays of arrays of integers (BENCHMARKS.md has the
 * throughput against jansson). Key order is free, so each array of arrays is
 * read into a ragged array (row offsets + values) and checked against the
 * others once the whole document is read. Errors name file and byte offset. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "core/stream.h"
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* NUMBER_LOOKAHEAD covers what scan_int reads ("-" and 24 bytes), so the
 * hot loop tests for the end of the buffer once per number rather than once
 * per character. */
enum { MAX_DEPTH = 200, NUMBER_LOOKAHEAD = 48, KEY_SIZE = 64, PREFAULT_BYTES = 64 << 10 };

/* read_plain_values looks at WINDOW bytes at a time and converts numbers
 * that start inside it, reading up to 24 bytes past it. */
enum { WINDOW = 64, WINDOW_READ = WINDOW + 24 };

/* Rows read between looks at the stop flag: 1,024 rows of the widest
 * proxy's edge costs (2,304 numbers each) are about 15 MB, 15 ms. */
enum { ROWS_PER_STOP_CHECK = 1024 };

#define NO_ROW SIZE_MAX

/* One array of arrays of integers, as read. */
typedef struct {
    int64_t *values;
    size_t count, cap;
    size_t ready;        /* values[0 .. ready) are prefaulted, ready <= cap */
    uint64_t *row_start; /* rows + 1 entries once finished */
    uint64_t *row_pos;   /* byte offset of each row, for messages */
    size_t rows, row_cap, row_ready;
    size_t first_negative_row; /* NO_ROW if every value is >= 0 */
    uint64_t key_pos;    /* byte offset of the key */
    bool present;
} ragged;

/* An object key that may appear once: where it was seen, if it was. */
typedef struct {
    bool present;
    uint64_t pos;        /* byte offset of the value */
} seen;

typedef struct {
    pp_stream in;
    const char *path;
    pp_error *err;
    bool failed;
    ragged intervals, costs, usages, edge_nodes, edge_costs;
    seen document, problem, nodes, edges, name, limit;
    int64_t limit_value;
    char name_text[128];
} loader;

/* Records the first error. A stream that stopped early (corrupt gzip, read
 * error) is the cause of whatever the scanner then met at the end of the
 * text, so that is what is reported, where the readable text ends. */
static bool fail_at(loader *ld, uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail_at(loader *ld, uint64_t pos, const char *fmt, ...)
{
    if (ld->failed)
        return false;
    ld->failed = true;
    const pp_stream *s = &ld->in;
    if (s->failed != PP_OK) {
        pp_error_set(ld->err, s->failed, "%s: byte %llu: cannot read: %s", ld->path,
                     (unsigned long long)(s->base + s->len), s->failure);
        return false;
    }
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    pp_error_set(ld->err, PP_EINPUT, "%s: byte %llu: %s", ld->path, (unsigned long long)pos, reason);
    return false;
}

/* A syntax error at the current position; at the end of the text, says so. */
static bool fail_here(loader *ld, const char *what)
{
    pp_stream *s = &ld->in;
    if (pp_stream_fill(s, 1) == 0)
        return fail_at(ld, pp_stream_offset(s), "unexpected end of input, %s", what);
    return fail_at(ld, pp_stream_offset(s), "%s", what);
}

/* Reading a 1.3 GB file takes seconds, so it stops when the process is
 * asked to (SIGINT, SIGTERM, or a tool's alarm at its time limit: the
 * process-wide flag, pp_stop_request). */
static bool stop_asked(loader *ld)
{
    if (!pp_stop_raised(NULL))
        return false;
    if (!ld->failed) {
        ld->failed = true;
        pp_error_set(ld->err, PP_EIO, "%s: byte %llu: reading stopped: the run was asked to stop (its time limit or a signal)",
                     ld->path, (unsigned long long)pp_stream_offset(&ld->in));
    }
    return true;
}

static bool out_of_memory(loader *ld)
{
    if (!ld->failed) {
        ld->failed = true;
        pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory while reading", ld->path);
    }
    return false;
}

static inline bool is_space(char c)
{
    return (unsigned char)c <= ' ' && (c == ' ' || c == '\n' || c == '\r' || c == '\t');
}

static inline bool is_digit(char c) { return (unsigned)(c - '0') < 10; }

/* Next significant character, not consumed; -1 at the end of the text. */
static inline int peek(loader *ld)
{
    pp_stream *s = &ld->in;
    for (;;) {
        const char *p = s->buf + s->pos, *end = s->buf + s->len;
        while (p < end && is_space(*p))
            p++;
        s->pos = (size_t)(p - s->buf);
        if (p < end)
            return (unsigned char)*p;
        if (pp_stream_fill(s, 1) == 0)
            return -1;
    }
}

static bool expect(loader *ld, char c, const char *what)
{
    if (peek(ld) != (unsigned char)c)
        return fail_here(ld, what);
    ld->in.pos++;
    return true;
}

static inline bool is_hex(char c)
{
    return is_digit(c) || (unsigned)((c | 0x20) - 'a') < 6;
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++)
        v = v << 4 | (unsigned)(is_digit(p[k]) ? p[k] - '0' : (p[k] | 0x20) - 'a' + 10);
    return v;
}

/* Appends code point c as UTF-8 to dst (truncated to dst_size - 1). A
 * surrogate left alone is written as its own three bytes, and U+0000 as
 * the two bytes C0 80: neither is valid UTF-8, so neither makes a key
 * match, and no key ends early. */
static void put_code(char *dst, size_t dst_size, size_t *n, unsigned c)
{
    unsigned char b[4];
    size_t len;
    if (c == 0) {
        b[0] = 0xC0, b[1] = 0x80, len = 2;
    } else if (c < 0x80) {
        b[0] = (unsigned char)c, len = 1;
    } else if (c < 0x800) {
        b[0] = (unsigned char)(0xC0 | c >> 6), b[1] = (unsigned char)(0x80 | (c & 0x3F)), len = 2;
    } else if (c < 0x10000) {
        b[0] = (unsigned char)(0xE0 | c >> 12), b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (c & 0x3F)), len = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | c >> 18), b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
        b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F)), b[3] = (unsigned char)(0x80 | (c & 0x3F)), len = 4;
    }
    for (size_t k = 0; k < len; k++, (*n)++)
        if (dst && *n + 1 < dst_size)
            dst[*n] = (char)b[k];
}

/* Reads a string into dst (truncated to dst_size - 1), escapes decoded:
 * "usage\u005flimit" is the key usage_limit (RFC 8259, section 7), as any
 * JSON reader takes it. */
static bool read_string(loader *ld, char *dst, size_t dst_size)
{
    if (!expect(ld, '"', "expected a string"))
        return false;
    pp_stream *s = &ld->in;
    size_t n = 0;
    for (;;) {
        if (s->pos >= s->len && pp_stream_fill(s, 1) == 0)
            return fail_here(ld, "unterminated string");
        char c = s->buf[s->pos];
        if (c == '"')
            break;
        if ((unsigned char)c < 0x20)
            return fail_here(ld, "control character in string");
        if (c != '\\') { /* raw bytes (UTF-8 included) pass as they are */
            if (dst && n + 1 < dst_size)
                dst[n] = c;
            n++;
            s->pos++;
            continue;
        }
        size_t have = pp_stream_fill(s, 12);
        if (have < 2)
            return fail_at(ld, pp_stream_offset(s) + have, "unexpected end of input, unterminated string");
        const char *e = s->buf + s->pos + 1;
        if (*e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *at = *e ? strchr(from, *e) : NULL;
            if (!at)
                return fail_here(ld, "invalid escape in string");
            put_code(dst, dst_size, &n, (unsigned char)to[at - from]);
            s->pos += 2;
            continue;
        }
        for (size_t k = 2; k < 6; k++)
            if (k >= have || !is_hex(s->buf[s->pos + k]))
                return fail_here(ld, "invalid \\u escape in string");
        unsigned code = hex4(s->buf + s->pos + 2);
        size_t len = 6;
        /* A high surrogate and the low one after it make one code point. */
        if (code >= 0xD800 && code < 0xDC00 && have >= 12 && s->buf[s->pos + 6] == '\\' &&
            s->buf[s->pos + 7] == 'u' && is_hex(s->buf[s->pos + 8]) && is_hex(s->buf[s->pos + 9]) &&
            is_hex(s->buf[s->pos + 10]) && is_hex(s->buf[s->pos + 11])) {
            unsigned low = hex4(s->buf + s->pos + 8);
            if (low >= 0xDC00 && low < 0xE000) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                len = 12;
            }
        }
        put_code(dst, dst_size, &n, code);
        s->pos += len;
    }
    s->pos++;
    if (dst)
        dst[n < dst_size ? n : dst_size - 1] = '\0';
    return true;
}

/* Eight bytes as a little-endian word, the first byte lowest, on any host
 * (compilers turn this into one load where the host is little-endian). */
static inline uint64_t load8(const char *p)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t x = 0;
    for (int k = 7; k >= 0; k--)
        x = x << 8 | b[k];
    return x;
}

/* How many of the word's bytes, from the lowest, are ASCII digits (0 to 8).
 * A byte is a digit when its high nibble is 3 both before and after adding 6. */
static inline int leading_digits(uint64_t x)
{
    uint64_t other = ((x & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u) |
                     (((x + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u);
    return other ? __builtin_ctzll(other) >> 3 : 8;
}

/* The value of the word's first n digits (n <= 8), eight at once (SWAR).
 * Shifting them to the top leaves zeros, i.e. leading '0's, below (in two
 * steps, so that n = 0 shifts all out); bytes past the digits may borrow in
 * the subtraction, but only upwards, into the bytes shifted out. */
static inline uint64_t digits_value(uint64_t x, int n)
{
    uint64_t d = (x - 0x3030303030303030u) << (32 - 4 * n) << (32 - 4 * n);
    d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFu;
    d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFu;
    return (d * 10000 + (d >> 32)) & 0xFFFFFFFFu;
}

/* Counts the digits at p (up to 24; p[0 .. 24) must be readable) and, when
 * there are at most 19, their value in *value. Unrolled over three words
 * rather than looped: most numbers in the contest files have 1 to 8 digits
 * or are the 19-digit forbidden cost 10^18. */
static inline int scan_digits(const char *p, uint64_t *value)
{
    static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    uint64_t w = load8(p);
    int n = leading_digits(w);
    uint64_t v = digits_value(w, n);
    if (n == 8) {
        w = load8(p + 8);
        int k = leading_digits(w);
        v = v * scale[k] + digits_value(w, k);
        n += k;
        if (k == 8) {
            w = load8(p + 16);
            k = leading_digits(w);
            v = v * scale[k] + digits_value(w, k);
            n += k;
        }
    }
    *value = v;
    return n;
}

/* Scans an integer at p; the text from p on is either NUMBER_LOOKAHEAD bytes
 * long or all there is, followed by PP_STREAM_PAD '\0's. Integers only: the
 * format has no fractions, and a silently rounded cost would be a wrong
 * answer printed as right. Returns the end of the number, or NULL with a
 * reason. */
static inline const char *scan_int(const char *p, int64_t *out, const char **reason)
{
    bool negative = *p == '-';
    p += negative;
    uint64_t v;
    int n = scan_digits(p, &v);
    if (n == 0) {
        *reason = "expected an integer";
        return NULL;
    }
    if (*p == '0' && n > 1) {
        *reason = "number with a leading zero";
        return NULL;
    }
    /* Without a leading zero, 20 digits are >= 10^19 > INT64_MAX; 19 fit in v. */
    if (n > 19) {
        *reason = "number out of range (more than 64 bits)";
        return NULL;
    }
    p += n;
    if (*p == '.' || *p == 'e' || *p == 'E') {
        *reason = "not an integer (fraction or exponent)";
        return NULL;
    }
    if (v > (uint64_t)INT64_MAX + negative) {
        *reason = "number out of range (more than 64 bits)";
        return NULL;
    }
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return p;
}

static bool read_int(loader *ld, int64_t *out)
{
    pp_stream *s = &ld->in;
    if (peek(ld) < 0)
        return fail_here(ld, "expected an integer");
    pp_stream_fill(s, NUMBER_LOOKAHEAD);
    const char *reason = NULL;
    const char *end = scan_int(s->buf + s->pos, out, &reason);
    if (!end)
        return fail_here(ld, reason);
    s->pos = (size_t)(end - s->buf);
    return true;
}

static bool skip_value(loader *ld, int depth);

static bool skip_container(loader *ld, char close, int depth)
{
    if (depth > MAX_DEPTH)
        return fail_here(ld, "nested too deeply");
    ld->in.pos++;
    if (peek(ld) == (unsigned char)close) {
        ld->in.pos++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            if (peek(ld) != '"')
                return fail_here(ld, "expected a key (a string)");
            if (!read_string(ld, NULL, 0) || !expect(ld, ':', "expected ':'"))
                return false;
        }
        if (!skip_value(ld, depth + 1))
            return false;
        int c = peek(ld);
        if (c == close) {
            ld->in.pos++;
            return true;
        }
        if (c != ',')
            return fail_here(ld, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        ld->in.pos++;
    }
}

static bool skip_literal(loader *ld, const char *word)
{
    size_t n = strlen(word);
    if (pp_stream_fill(&ld->in, n) < n || memcmp(ld->in.buf + ld->in.pos, word, n) != 0)
        return fail_here(ld, "expected a value");
    ld->in.pos += n;
    return true;
}

/* A JSON number of any kind (unknown keys may hold fractions):
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool skip_number(loader *ld)
{
    pp_stream *s = &ld->in;
    uint64_t start = pp_stream_offset(s);
    int state = 0; /* 0 sign, 1 first digit, 2 int, 3 '.', 4 frac, 5 'e', 6 exp sign, 7 exp */
    for (;;) {
        int c = s->pos < s->len || pp_stream_fill(s, 1) ? (unsigned char)s->buf[s->pos] : -1;
        bool digit = c >= '0' && c <= '9';
        int next = -1;
        if (state == 0 && c == '-')
            next = 1;
        else if ((state == 0 || state == 1) && digit)
            next = c == '0' ? 8 : 2;
        else if (state == 2 && digit)
            next = 2;
        else if ((state == 2 || state == 8) && c == '.')
            next = 3;
        else if ((state == 3 || state == 4) && digit)
            next = 4;
        else if ((state == 2 || state == 4 || state == 8) && (c == 'e' || c == 'E'))
            next = 5;
        else if (state == 5 && (c == '+' || c == '-'))
            next = 6;
        else if ((state >= 5 && state <= 7) && digit)
            next = 7;
        if (next < 0) {
            if (state == 2 || state == 4 || state == 7 || state == 8)
                return true;
            return state == 0 ? fail_here(ld, "expected a value")
                              : fail_at(ld, start, "malformed number");
        }
        state = next;
        s->pos++;
    }
}

/* Skips any JSON value (unknown keys are allowed and ignored). */
static bool skip_value(loader *ld, int depth)
{
    switch (peek(ld)) {
    case '{': return skip_container(ld, '}', depth);
    case '[': return skip_container(ld, ']', depth);
    case '"': return read_string(ld, NULL, 0);
    case 't': return skip_literal(ld, "true");
    case 'f': return skip_literal(ld, "false");
    case 'n': return skip_literal(ld, "null");
    default: return skip_number(ld);
    }
}

/* Extends the prefaulted part of an array by PREFAULT_BYTES, growing the
 * array first when it is full. Pages are faulted in one call each 64 KB:
 * on this VM a page fault taken one at a time costs three times as much. */
static bool grow_ready(void **block, size_t *ready, size_t *cap, size_t initial, size_t item)
{
    if (*ready == *cap && !pp_grow_large(block, cap, initial, item))
        return false;
    size_t more = PREFAULT_BYTES / item;
    size_t next = *cap - *ready > more ? *ready + more : *cap;
    pp_prefault((char *)*block + *ready * item, (next - *ready) * item);
    *ready = next;
    return true;
}

static bool ragged_grow_values(loader *ld, ragged *r)
{
    void *values = r->values;
    if (!grow_ready(&values, &r->ready, &r->cap, 1024, sizeof(int64_t)))
        return out_of_memory(ld);
    r->values = values;
    return true;
}

static bool ragged_start_row(loader *ld, ragged *r, uint64_t pos)
{
    if (r->rows + 1 >= r->row_ready) {
        size_t ready = r->row_ready, cap = r->row_cap;
        void *starts = r->row_start, *poss = r->row_pos;
        bool ok = grow_ready(&starts, &ready, &cap, 256, sizeof(uint64_t));
        r->row_start = starts;
        ready = r->row_ready;
        cap = r->row_cap;
        ok = ok && grow_ready(&poss, &ready, &cap, 256, sizeof(uint64_t));
        r->row_pos = poss;
        if (!ok)
            return out_of_memory(ld);
        r->row_ready = ready;
        r->row_cap = cap;
    }
    r->row_start[r->rows] = r->count;
    r->row_pos[r->rows] = pos;
    r->rows++;
    return true;
}

static bool push_value(loader *ld, ragged *r, int64_t v)
{
    if (r->count == r->ready && !ragged_grow_values(ld, r))
        return false;
    r->values[r->count++] = v;
    if (v < 0 && r->first_negative_row == NO_ROW)
        r->first_negative_row = r->rows - 1;
    return true;
}

/* One value of a row and the ',' or ']' after it, in full generality
 * (spaces, signs, refills, every error). Returns that character, or 0. */
static int read_value(loader *ld, ragged *r)
{
    int64_t v;
    if (!read_int(ld, &v) || !push_value(ld, r, v))
        return 0;
    int c = peek(ld);
    if (c != ',' && c != ']')
        return fail_here(ld, "expected ',' or ']'");
    ld->in.pos++;
    return c;
}

/* digit_mask(p, &commas, &zeros): bit k set where p[k] is an ASCII digit,
 * in commas where it is ',' and in zeros where it is '0', for the 64 bytes
 * at p. SSE2 where there is SSE2 (every x86-64); elsewhere eight bytes at a
 * time in a word, which is half as fast. PP_LOAD_PORTABLE picks the latter
 * on x86 too, so that a test can check it here. */
#if defined(__SSE2__) && !defined(PP_LOAD_PORTABLE)
static inline uint64_t bytes_mask(__m128i x, char b)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b)));
}

static inline uint64_t digit_mask(const char *p, uint64_t *commas, uint64_t *zeros)
{
    uint64_t digits = 0, comma = 0, zero = 0;
    for (int k = 0; k < 64; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
        __m128i d = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
        digits |= (uint64_t)(unsigned)_mm_movemask_epi8(d) << k;
        comma |= bytes_mask(x, ',') << k;
        zero |= bytes_mask(x, '0') << k;
    }
    *commas = comma;
    *zeros = zero;
    return digits;
}
#else
/* The high bit of each byte of x that equals the byte b repeats. */
static inline uint64_t bytes_equal(uint64_t x, uint64_t b)
{
    uint64_t t = x ^ b;
    return ~(((t & 0x7F7F7F7F7F7F7F7Fu) + 0x7F7F7F7F7F7F7F7Fu) | t) & 0x8080808080808080u;
}

/* The high bits of x's bytes as eight bits, byte k to bit k. */
static inline uint64_t high_bits(uint64_t h) { return h * 0x0002040810204081u >> 56; }

static inline uint64_t digit_mask(const char *p, uint64_t *commas, uint64_t *zeros)
{
    uint64_t digits = 0, comma = 0, zero = 0;
    for (int k = 0; k < 64; k += 8) {
        uint64_t x = load8(p + k), t = x ^ 0x3030303030303030u;
        uint64_t digit = ~(((t & 0x7F7F7F7F7F7F7F7Fu) + 0x7676767676767676u) | t) & 0x8080808080808080u;
        digits |= high_bits(digit) << k;
        comma |= high_bits(bytes_equal(x, 0x2C2C2C2C2C2C2C2Cu)) << k;
        zero |= high_bits(bytes_equal(x, 0x3030303030303030u)) << k;
    }
    *commas = comma;
    *zeros = zero;
    return digits;
}
#endif

/* The value of the n digits at q (1 <= n <= 19; q[0 .. 24) readable); it
 * may exceed INT64_MAX, which the caller rejects. */
static inline uint64_t digits_at(const char *q, int n)
{
    static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (n <= 8)
        return digits_value(load8(q), n);
    uint64_t v = digits_value(load8(q), 8);
    if (n <= 16)
        return v * scale[n - 8] + digits_value(load8(q + 8), n - 8);
    v = v * scale[8] + digits_value(load8(q + 8), 8);
    return v * scale[n - 16] + digits_value(load8(q + 16), n - 16);
}

/* The hot loop of the loader: a row's values while they are plain digits
 * (no sign, no spaces, no leading zero) each followed by ',' or ']'.
 * Numbers are found WINDOW bytes at a time from masks of digits and commas,
 * so where one number starts never waits on the one before being scanned,
 * and the window's syntax is checked at once: it is cut at the first byte
 * the plain form does not allow (a ',' or ']' after no digit, any other
 * non-digit but the row's ']'). Anything else stops it before the value,
 * for read_value; what it takes, read_value would take the same. Needs
 * WINDOW_READ bytes ahead and room for WINDOW / 2 values. True when it
 * consumed the ']'. */
static bool read_plain_values(pp_stream *s, ragged *r)
{
    if (s->len - s->pos < WINDOW_READ)
        return false;
    const char *p = s->buf + s->pos, *limit = s->buf + s->len - WINDOW_READ;
    int64_t *values = r->values;
    size_t count = r->count, ready = r->ready;
    bool closed = false;
    while (!closed && p <= limit && ready - count >= WINDOW / 2) {
        uint64_t commas, zeros, digits = digit_mask(p, &commas, &zeros);
        uint64_t stops = ~(digits | commas), first_stop = stops & (0 - stops);
        uint64_t closing = first_stop && p[__builtin_ctzll(first_stop)] == ']' ? first_stop : 0;
        uint64_t leading_zeros = digits & ~(digits << 1) & zeros & (digits >> 1);
        uint64_t cut = (stops ^ closing) | ((commas | closing) & ~(digits << 1)) | closing << 1 | leading_zeros;
        uint64_t ends = ~digits & (digits << 1) & ((cut & (0 - cut)) - 1);
        closed = (ends & closing) != 0;
        int start = 0;
        while (ends) {
            int end = __builtin_ctzll(ends);
            ends &= ends - 1;
            const char *q = p + start;
            int n = end - start;
            uint64_t v = digits_at(q, n < 19 ? n : 19);
            /* More than 19 digits, or above INT64_MAX, in one test. */
            if (((v >> 63) | (uint64_t)(19 - n) >> 63) != 0) {
                closed = false;
                break;
            }
            values[count++] = (int64_t)v;
            start = end + 1;
        }
        if (start == 0)
            break;
        p += start;
    }
    s->pos = (size_t)(p - s->buf);
    r->count = count;
    return closed;
}

/* The integers of one row, after its '[', up to and including its ']'. */
static bool read_row(loader *ld, ragged *r)
{
    pp_stream *s = &ld->in;
    for (;;) {
        if (s->len - s->pos < WINDOW_READ)
            pp_stream_fill(s, WINDOW_READ);
        if (r->ready - r->count < WINDOW / 2 && !ragged_grow_values(ld, r))
            return false;
        if (read_plain_values(s, r))
            return true;
        int c = read_value(ld, r);
        if (c != ',')
            return c == ']';
    }
}

/* [[int, ...], ...] */
static bool read_ragged(loader *ld, ragged *r, uint64_t key_pos)
{
    if (r->present)
        return fail_at(ld, key_pos, "duplicate key");
    r->present = true;
    r->key_pos = key_pos;
    if (!expect(ld, '[', "expected '[' (an array of arrays of integers)"))
        return false;
    if (peek(ld) == ']') {
        ld->in.pos++;
    } else {
        for (;;) {
            if (peek(ld) != '[')
                return fail_here(ld, "expected '[' (each entry is an array of integers)");
            if (r->rows % ROWS_PER_STOP_CHECK == 0 && stop_asked(ld))
                return false;
            if (!ragged_start_row(ld, r, pp_stream_offset(&ld->in)))
                return false;
            ld->in.pos++;
            if (peek(ld) == ']')
                ld->in.pos++;
            else if (!read_row(ld, r))
                return false;
            int c = peek(ld);
            if (c == ']') {
                ld->in.pos++;
                break;
            }
            if (c != ',')
                return fail_here(ld, "expected ',' or ']'");
            ld->in.pos++;
        }
    }
    if (!ragged_start_row(ld, r, pp_stream_offset(&ld->in)))
        return false;
    r->rows--; /* the extra entry is the end sentinel row_start[rows] */
    return true;
}

typedef bool (*member_fn)(loader *ld, const char *key, uint64_t key_pos);

/* Reads {"key": value, ...}, handing each member to on_member; marks the
 * object seen (a second one is a duplicate key at key_pos). */
static bool read_object(loader *ld, seen *object, uint64_t key_pos, member_fn on_member, const char *what)
{
    if (object->present)
        return fail_at(ld, key_pos, "duplicate key");
    if (peek(ld) != '{')
        return fail_here(ld, what);
    object->present = true;
    object->pos = pp_stream_offset(&ld->in);
    ld->in.pos++;
    if (peek(ld) == '}') {
        ld->in.pos++;
        return true;
    }
    for (;;) {
        char key[KEY_SIZE];
        if (peek(ld) != '"')
            return fail_here(ld, "expected a key (a string)");
        uint64_t pos = pp_stream_offset(&ld->in);
        if (!read_string(ld, key, sizeof key) || !expect(ld, ':', "expected ':'"))
            return false;
        if (!on_member(ld, key, pos))
            return false;
        int c = peek(ld);
        if (c == '}') {
            ld->in.pos++;
            return true;
        }
        if (c != ',')
            return fail_here(ld, "expected ',' or '}'");
        ld->in.pos++;
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
        return read_object(ld, &ld->nodes, pos, on_nodes_member, "expected '{' (the nodes object)");
    if (strcmp(key, "edges") == 0)
        return read_object(ld, &ld->edges, pos, on_edges_member, "expected '{' (the edges object)");
    if (strcmp(key, "usage_limit") == 0) {
        if (ld->limit.present)
            return fail_at(ld, pos, "duplicate key");
        ld->limit.present = true;
        peek(ld);
        ld->limit.pos = pp_stream_offset(&ld->in);
        return read_int(ld, &ld->limit_value);
    }
    if (strcmp(key, "name") == 0) {
        if (ld->name.present)
            return fail_at(ld, pos, "duplicate key");
        ld->name.present = true;
        return peek(ld) == '"' ? read_string(ld, ld->name_text, sizeof ld->name_text) : skip_value(ld, 1);
    }
    return skip_value(ld, 1);
}

static bool on_top_member(loader *ld, const char *key, uint64_t pos)
{
    if (strcmp(key, "problem") == 0)
        return read_object(ld, &ld->problem, pos, on_problem_member, "expected '{' (the problem object)");
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

static bool check_nonnegative(loader *ld, const ragged *r, const char *what, const char *owner)
{
    size_t i = r->first_negative_row;
    if (i == NO_ROW)
        return true;
    return fail_at(ld, r->row_pos[i], "negative value (%s of %s %zu is negative)", what, owner, i);
}

static bool check_nodes(loader *ld)
{
    static const char *names[3] = {"intervals", "costs", "usages"};
    ragged *parts[3] = {&ld->intervals, &ld->costs, &ld->usages};
    for (int k = 0; k < 3; k++)
        if (!parts[k]->present)
            return fail_at(ld, ld->nodes.pos, "missing key \"%s\" in \"nodes\"", names[k]);
    size_t n = ld->intervals.rows;
    if (n == 0)
        return fail_at(ld, ld->intervals.key_pos, "empty problem (no nodes)");
    if (n > UINT32_MAX - 1)
        return fail_at(ld, ld->intervals.key_pos, "too many nodes");
    for (int k = 1; k < 3; k++)
        if (parts[k]->rows != n)
            return fail_at(ld, parts[k]->key_pos,
                           "wrong number of nodes (\"%s\" has %zu entries, \"intervals\" has %zu)",
                           names[k], parts[k]->rows, n);
    for (size_t i = 0; i < n; i++) {
        const int64_t *iv = ld->intervals.values + ld->intervals.row_start[i];
        if (row_len(&ld->intervals, i) != 2)
            return fail_at(ld, ld->intervals.row_pos[i],
                           "wrong interval length (node %zu: an interval is [start, end])", i);
        if (iv[0] < 0 || iv[1] < iv[0])
            return fail_at(ld, ld->intervals.row_pos[i], "negative interval (node %zu: [%lld, %lld])", i,
                           (long long)iv[0], (long long)iv[1]);
        if (row_len(&ld->costs, i) == 0)
            return fail_at(ld, ld->costs.row_pos[i], "node without strategies (node %zu)", i);
        if (row_len(&ld->costs, i) != row_len(&ld->usages, i))
            return fail_at(ld, ld->usages.row_pos[i],
                           "costs and usages differ in length (node %zu: %llu costs, %llu usages)", i,
                           (unsigned long long)row_len(&ld->costs, i),
                           (unsigned long long)row_len(&ld->usages, i));
    }
    return check_nonnegative(ld, &ld->costs, "a cost", "node") &&
           check_nonnegative(ld, &ld->usages, "a usage", "node");
}

static bool check_edges(loader *ld)
{
    ragged *en = &ld->edge_nodes, *ec = &ld->edge_costs;
    if (en->present != ec->present)
        return fail_at(ld, ld->edges.pos, "missing key \"%s\" in \"edges\"", en->present ? "costs" : "nodes");
    if (en->rows != ec->rows)
        return fail_at(ld, ec->key_pos, "wrong number of edges (%zu in \"nodes\", %zu in \"costs\")",
                       en->rows, ec->rows);
    if (en->rows > UINT32_MAX - 1)
        return fail_at(ld, en->key_pos, "too many edges");
    size_t n = ld->intervals.rows;
    for (size_t e = 0; e < en->rows; e++) {
        if (row_len(en, e) == 0)
            return fail_at(ld, en->row_pos[e], "edge without nodes (edge %zu)", e);
        uint64_t expected = 1;
        for (uint64_t k = en->row_start[e]; k < en->row_start[e + 1]; k++) {
            int64_t v = en->values[k];
            if (v < 0 || (uint64_t)v >= n)
                return fail_at(ld, en->row_pos[e], "node index out of range (edge %zu names node %lld; there are %zu)",
                               e, (long long)v, n);
            uint64_t d = row_len(&ld->costs, (size_t)v);
            if (expected > UINT64_MAX / d / 8)
                return fail_at(ld, en->row_pos[e], "edge cost table too large (edge %zu)", e);
            expected *= d;
        }
        if (row_len(ec, e) != expected)
            return fail_at(ld, ec->row_pos[e],
                           "edge cost table of the wrong size (edge %zu has %llu costs; the product of its "
                           "nodes' strategy counts is %llu)",
                           e, (unsigned long long)row_len(ec, e), (unsigned long long)expected);
    }
    return check_nonnegative(ld, ec, "a cost", "edge");
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
    snprintf(p->name, sizeof p->name, "%s", ld->name_text);
    p->node_count = (uint32_t)n;
    p->edge_count = (uint32_t)m;
    p->has_usage_limit = ld->limit.present;
    p->usage_limit = ld->limit_value;
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
    /* Every block is handed over even after a failure: adopt frees what it cannot keep. */
    void *blocks[6] = {p->strategy_start, p->node_cost, p->node_usage,
                       p->edge_node_start, p->edge_cost_start, p->edge_cost};
    bool ok = true;
    for (int k = 0; k < 6; k++)
        ok = pp_arena_adopt(arena, blocks[k]) && ok;
    if (!ok || !p->edge_node_start || !p->edge_cost_start) {
        pp_iopddl_free(p);
        return pp_error_set(ld->err, PP_ENOMEM, "%s: out of memory", ld->path);
    }
    *out = p;
    return PP_OK;
}

static bool read_document(loader *ld)
{
    if (!read_object(ld, &ld->document, 0, on_top_member, "expected '{' at the start of the document"))
        return false;
    if (peek(ld) >= 0)
        return fail_here(ld, "unexpected data after the document");
    if (ld->in.failed != PP_OK)
        return fail_at(ld, pp_stream_offset(&ld->in), "cannot read");
    if (!ld->problem.present)
        return fail_at(ld, ld->document.pos, "missing key \"problem\"");
    if (!ld->nodes.present)
        return fail_at(ld, ld->problem.pos, "missing key \"nodes\" in \"problem\"");
    if (ld->limit.present && ld->limit_value < 0)
        return fail_at(ld, ld->limit.pos, "negative usage limit");
    return check_nodes(ld) && check_edges(ld);
}

/* Reads from a file (data NULL) or from size bytes at data. */
static pp_status load_from(const char *path, const void *data, size_t size, pp_iopddl_problem **out,
                           pp_error *err)
{
    *out = NULL;
    loader *ld = calloc(1, sizeof *ld);
    if (!ld)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    ld->path = path;
    ld->err = err;
    ragged *all[5] = {&ld->intervals, &ld->costs, &ld->usages, &ld->edge_nodes, &ld->edge_costs};
    for (int k = 0; k < 5; k++)
        all[k]->first_negative_row = NO_ROW;
    pp_status status = data ? pp_stream_open_memory(&ld->in, path, data, size, err)
                            : pp_stream_open(&ld->in, path, err);
    if (status == PP_OK) {
        if (read_document(ld))
            status = build_problem(ld, out);
        else
            status = err->status != PP_OK ? err->status : PP_EINPUT;
        pp_stream_close(&ld->in);
    }
    for (int k = 0; k < 5; k++)
        ragged_free(all[k]);
    free(ld);
    return status;
}

pp_status pp_iopddl_load(const char *path, pp_iopddl_problem **out, pp_error *err)
{
    return load_from(path, NULL, 0, out, err);
}

pp_status pp_iopddl_load_buffer(const char *name, const void *data, size_t size, pp_iopddl_problem **out,
                                pp_error *err)
{
    return load_from(name, data ? data : "", size, out, err);
}

void pp_iopddl_free(pp_iopddl_problem *p)
{
    if (p)
        pp_arena_free(p->arena);
}
