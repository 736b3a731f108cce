/* test_load.c: the IOPDDL loader's contract. Every kind of malformed input
 * fails with PP_EINPUT and "FILE: byte N: reason" naming the exact byte and
 * the cause; the valid variants of the format (any key order, unknown keys,
 * optional keys, n-ary edges, free whitespace, gzip, texts far larger than
 * the stream buffer) load with exactly the numbers written. The inputs are
 * written by the test into a fresh temporary folder, and each is also read
 * from memory (pp_iopddl_load_buffer), which must agree word for word.
 * A load asked to stop (the process-wide flag) ends with PP_EIO and says so.
 * With PARPLAN and DATA_DIR arguments it checks instead the malformed files
 * listed in DATA_DIR/expected.tsv, through the loader and through
 * `parplan eval`, which must exit with exactly 2 and print the message. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "check.h"
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

static char dir[64];

static void path_of(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* Loads path expecting PP_EINPUT at byte offset with keyword in the reason. */
static void expect_error_at(const char *what, const char *path, uint64_t offset, const char *keyword)
{
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    pp_status status = pp_iopddl_load(path, &p, &err);
    if (status != PP_EINPUT || p) {
        fprintf(stderr, "%s: status %d (%s), expected an input error\n", what, (int)status, err.message);
        check_failures++;
        pp_iopddl_free(p);
        return;
    }
    CHECK_EQ_INT(err.status, PP_EINPUT);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s: byte ", path);
    unsigned long long at = 0;
    const char *reason = NULL;
    if (strncmp(err.message, prefix, strlen(prefix)) == 0) {
        char *end;
        at = strtoull(err.message + strlen(prefix), &end, 10);
        if (strncmp(end, ": ", 2) == 0)
            reason = end + 2;
    }
    if (!reason) {
        fprintf(stderr, "%s: message not \"FILE: byte N: reason\": %s\n", what, err.message);
        check_failures++;
        return;
    }
    if (at != offset || !strstr(reason, keyword)) {
        fprintf(stderr, "%s: got \"%s\", expected byte %llu and \"%s\"\n", what, err.message,
                (unsigned long long)offset, keyword);
        check_failures++;
    }
}

/* The same text read from memory must give the same answer: the same
 * message word for word, or the same numbers. */
static void expect_same_from_memory(const char *name, const char *path, const char *text, size_t size)
{
    pp_error file_err = {0}, memory_err = {0};
    pp_iopddl_problem *a = NULL, *b = NULL;
    pp_status from_file = pp_iopddl_load(path, &a, &file_err);
    pp_status from_memory = pp_iopddl_load_buffer(path, text, size, &b, &memory_err);
    if (from_file != from_memory || strcmp(file_err.message, memory_err.message) != 0) {
        fprintf(stderr, "%s: from memory \"%s\", from the file \"%s\"\n", name, memory_err.message,
                file_err.message);
        check_failures++;
    }
    if (a && b) {
        CHECK(a->node_count == b->node_count && a->edge_count == b->edge_count);
        uint64_t strategies = a->strategy_start[a->node_count];
        uint64_t pairs = a->edge_cost_start[a->edge_count];
        CHECK(strategies == b->strategy_start[b->node_count] && pairs == b->edge_cost_start[b->edge_count]);
        /* memcmp only with something to compare: an empty array may be NULL. */
        CHECK(strategies == 0 || memcmp(a->node_cost, b->node_cost, strategies * sizeof *a->node_cost) == 0);
        CHECK(pairs == 0 || memcmp(a->edge_cost, b->edge_cost, pairs * sizeof *a->edge_cost) == 0);
        CHECK(a->usage_limit == b->usage_limit && a->has_usage_limit == b->has_usage_limit);
    }
    pp_iopddl_free(a);
    pp_iopddl_free(b);
}

/* The text's '@' marks the byte the error must name; it is removed before
 * writing. For errors at the end of the text, '@' is the last character. */
static void expect_error(const char *name, const char *marked, const char *keyword)
{
    const char *at = strchr(marked, '@');
    if (!at) {
        fprintf(stderr, "%s: test text without '@'\n", name);
        exit(1);
    }
    size_t len = strlen(marked);
    char *text = malloc(len);
    size_t before = (size_t)(at - marked);
    memcpy(text, marked, before);
    memcpy(text + before, at + 1, len - before - 1);
    char path[128];
    path_of(path, sizeof path, name);
    write_file(path, text, len - 1);
    expect_same_from_memory(name, path, text, len - 1);
    free(text);
    expect_error_at(name, path, before, keyword);
}

static pp_iopddl_problem *load_ok(const char *name, const char *path)
{
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    if (pp_iopddl_load(path, &p, &err) != PP_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        check_failures++;
        return NULL;
    }
    return p;
}

static pp_iopddl_problem *load_text(const char *name, const char *text)
{
    char path[128];
    path_of(path, sizeof path, name);
    write_file(path, text, strlen(text));
    expect_same_from_memory(name, path, text, strlen(text));
    return load_ok(name, path);
}

/* gzip (not zlib) framing of data, in memory. */
static unsigned char *gzip_bytes(const void *data, size_t size, size_t *out_size)
{
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        exit(1);
    size_t cap = deflateBound(&z, (uLong)size);
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        exit(1);
    *out_size = z.total_out;
    deflateEnd(&z);
    return out;
}

/* How many bytes of text zlib recovers from a damaged gzip: where a loader
 * that reads everything readable must report the damage. */
static size_t gunzip_readable(const unsigned char *data, size_t size)
{
    z_stream z = {0};
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        exit(1);
    unsigned char out[4096];
    size_t total = 0;
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    for (;;) {
        z.next_out = out;
        z.avail_out = sizeof out;
        int rc = inflate(&z, Z_NO_FLUSH);
        total += sizeof out - z.avail_out;
        if (rc != Z_OK || z.avail_out == sizeof out)
            break;
    }
    inflateEnd(&z);
    return total;
}

/* Three nodes, three edges (one of them joins all three), a limit. */
static const char base[] =
    "{\"problem\":{\"name\":\"t\",\"nodes\":{\"intervals\":[[0,2],[1,3],[2,5]],"
    "\"costs\":[[1,2],[3],[4,5,6]],\"usages\":[[7,8],[9],[10,11,12]]},"
    "\"edges\":{\"nodes\":[[0,1],[1,2],[0,1,2]],"
    "\"costs\":[[13,14],[15,16,17],[18,19,20,21,22,23]]},\"usage_limit\":30}}";

static void check_base(const char *name, const pp_iopddl_problem *p, bool edges, bool limit)
{
    if (!p)
        return;
    static const int64_t costs[] = {1, 2, 3, 4, 5, 6}, usages[] = {7, 8, 9, 10, 11, 12};
    static const uint64_t starts[] = {0, 2, 3, 6};
    static const int64_t from[] = {0, 1, 2}, to[] = {2, 3, 5};
    int before = check_failures;
    CHECK_EQ_INT(p->node_count, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(p->interval_start[i], from[i]);
        CHECK_EQ_INT(p->interval_end[i], to[i]);
    }
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(p->strategy_start[i], starts[i]);
    for (int k = 0; k < 6; k++) {
        CHECK_EQ_INT(p->node_cost[k], costs[k]);
        CHECK_EQ_INT(p->node_usage[k], usages[k]);
    }
    CHECK_EQ_INT(p->has_usage_limit, limit);
    if (limit)
        CHECK_EQ_INT(p->usage_limit, 30);
    if (edges) {
        static const uint64_t node_start[] = {0, 2, 4, 7}, cost_start[] = {0, 2, 5, 11};
        static const uint32_t nodes[] = {0, 1, 1, 2, 0, 1, 2};
        CHECK_EQ_INT(p->edge_count, 3);
        for (int e = 0; e < 4; e++) {
            CHECK_EQ_INT(p->edge_node_start[e], node_start[e]);
            CHECK_EQ_INT(p->edge_cost_start[e], cost_start[e]);
        }
        for (int k = 0; k < 7; k++)
            CHECK_EQ_INT(p->edge_nodes[k], nodes[k]);
        for (int k = 0; k < 11; k++)
            CHECK_EQ_INT(p->edge_cost[k], 13 + k);
    } else {
        CHECK_EQ_INT(p->edge_count, 0);
        CHECK_EQ_INT(p->edge_node_start[0], 0);
        CHECK_EQ_INT(p->edge_cost_start[0], 0);
    }
    if (check_failures != before)
        fprintf(stderr, "  (in %s)\n", name);
}

static void test_valid_variants(void)
{
    pp_iopddl_problem *p = load_text("base.json", base);
    check_base("base", p, true, true);
    if (p)
        CHECK(strcmp(p->name, "t") == 0);
    pp_iopddl_free(p);

    /* Keys compare as they read once unescaped (issue 32: a limit written
     * "usage\u005flimit" was ignored); a name is read unescaped too, pairs
     * of surrogates as one character; a key holding \u0000 matches none. */
    p = load_text("escaped-keys.json",
                  "{\"pro\\u0062lem\":{\"n\\u0061me\":\"caf\\u00e9 \\ud83d\\ude00\\/\\t\",\"usage\\u005flimit\":30,"
                  "\"nodes\":{\"intervals\":[[0,2],[1,3],[2,5]],\"\\u0063osts\":[[1,2],[3],[4,5,6]],"
                  "\"usages\\u0000\":[[1]],\"usage\\u0073\":[[7,8],[9],[10,11,12]]},\"edges\":{\"nodes\":[[0,1],[1,2],[0,1,2]],"
                  "\"costs\":[[13,14],[15,16,17],[18,19,20,21,22,23]]}}}");
    check_base("escaped keys", p, true, true);
    if (p)
        CHECK(strcmp(p->name, "caf\xc3\xa9 \xf0\x9f\x98\x80/\t") == 0);
    pp_iopddl_free(p);

    p = load_text("order.json",
                  "{\"problem\":{\"usage_limit\":30,\"edges\":{\"costs\":[[13,14],[15,16,17],"
                  "[18,19,20,21,22,23]],\"nodes\":[[0,1],[1,2],[0,1,2]]},\"nodes\":{\"usages\":"
                  "[[7,8],[9],[10,11,12]],\"costs\":[[1,2],[3],[4,5,6]],\"intervals\":"
                  "[[0,2],[1,3],[2,5]]}}}");
    check_base("order", p, true, true);
    pp_iopddl_free(p);

    p = load_text("unknown.json",
                  "{\"version\":1.5e-3,\"meta\":{\"a\":[1,-2.5E+7,{\"b\":\"x\\\"y\\\\\"}],"
                  "\"c\":null,\"d\":true,\"e\":false,\"\\u00e9\":[[],{}]},\"problem\":{"
                  "\"name\":\"esc\\\"aped\",\"x\":{\"nodes\":[\"not\",\"these\"]},"
                  "\"nodes\":{\"comment\":\"}]\",\"intervals\":[[0,2],[1,3],[2,5]],"
                  "\"costs\":[[1,2],[3],[4,5,6]],\"extra\":[[1.5]],\"usages\":[[7,8],[9],[10,11,12]]},"
                  "\"edges\":{\"weights\":[0.1],\"nodes\":[[0,1],[1,2],[0,1,2]],"
                  "\"costs\":[[13,14],[15,16,17],[18,19,20,21,22,23]]},\"usage_limit\":30,"
                  "\"tail\":\"\\\\\"},\"problems\":{\"nodes\":7}}");
    check_base("unknown", p, true, true);
    if (p)
        CHECK(strcmp(p->name, "esc\"aped") == 0);
    pp_iopddl_free(p);

    p = load_text("nolimit.json",
                  "{\"problem\":{\"nodes\":{\"intervals\":[[0,2],[1,3],[2,5]],"
                  "\"costs\":[[1,2],[3],[4,5,6]],\"usages\":[[7,8],[9],[10,11,12]]},"
                  "\"edges\":{\"nodes\":[[0,1],[1,2],[0,1,2]],"
                  "\"costs\":[[13,14],[15,16,17],[18,19,20,21,22,23]]}}}");
    check_base("nolimit", p, true, false);
    pp_iopddl_free(p);

    p = load_text("noedges.json",
                  "{\"problem\":{\"nodes\":{\"intervals\":[[0,2],[1,3],[2,5]],"
                  "\"costs\":[[1,2],[3],[4,5,6]],\"usages\":[[7,8],[9],[10,11,12]]},"
                  "\"usage_limit\":30}}");
    check_base("noedges", p, false, true);
    pp_iopddl_free(p);

    p = load_text("emptyedges.json",
                  "{\"problem\":{\"nodes\":{\"intervals\":[[0,2],[1,3],[2,5]],"
                  "\"costs\":[[1,2],[3],[4,5,6]],\"usages\":[[7,8],[9],[10,11,12]]},"
                  "\"edges\":{\"nodes\":[],\"costs\":[]},\"usage_limit\":30}}");
    check_base("emptyedges", p, false, true);
    pp_iopddl_free(p);

    /* Every token separated by every kind of JSON whitespace. */
    size_t n = strlen(base);
    char *spaced = malloc(6 * n + 8);
    char *q = spaced;
    *q++ = '\n';
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = base[i];
        bool digit = c >= '0' && c <= '9';
        bool next_digit = base[i + 1] >= '0' && base[i + 1] <= '9';
        *q++ = c;
        if (c == '"')
            in_string = !in_string;
        if (!in_string && !(digit && next_digit) && c != '"') {
            memcpy(q, " \t\r\n ", 5);
            q += 5;
        } else if (!in_string && c == '"') {
            *q++ = '\t';
        }
    }
    *q++ = '\n';
    *q = '\0';
    p = load_text("spaces.json", spaced);
    check_base("spaces", p, true, true);
    pp_iopddl_free(p);
    free(spaced);

    p = load_text("extremes.json",
                  "{\"problem\":{\"nodes\":{\"intervals\":[[0,9223372036854775807]],"
                  "\"costs\":[[0,9223372036854775807,1000000000000000000,-0]],"
                  "\"usages\":[[9223372036854775807,1,12345678901234567,0]]},"
                  "\"usage_limit\":9223372036854775807}}");
    if (p) {
        CHECK_EQ_INT(p->interval_end[0], INT64_MAX);
        CHECK_EQ_INT(p->node_cost[1], INT64_MAX);
        CHECK_EQ_INT(p->node_cost[2], PP_IOPDDL_FORBIDDEN);
        CHECK_EQ_INT(p->node_cost[3], 0);
        CHECK_EQ_INT(p->node_usage[0], INT64_MAX);
        CHECK_EQ_INT(p->node_usage[2], 12345678901234567);
        CHECK_EQ_INT(p->usage_limit, INT64_MAX);
    }
    pp_iopddl_free(p);

    size_t gz_size;
    unsigned char *gz = gzip_bytes(base, strlen(base), &gz_size);
    char path[128];
    path_of(path, sizeof path, "base.json.gz");
    write_file(path, gz, gz_size);
    free(gz);
    p = load_ok("base.json.gz", path);
    check_base("gz", p, true, true);
    pp_iopddl_free(p);
}

/* A text several times the stream's 4 MB buffer: numbers of every length
 * and whitespace runs of every length up to 5 MB land across refills. */
static void test_large(void)
{
    enum { NODES = 300000 };
    size_t cap = 64u << 20;
    char *text = malloc(cap);
    int64_t *expect_cost = malloc(NODES * 2 * sizeof *expect_cost);
    size_t n = 0;
    uint64_t x = 88172645463325252u;
    n += (size_t)sprintf(text + n, "{\"problem\":{\"nodes\":{\"intervals\":[");
    for (int i = 0; i < NODES; i++)
        n += (size_t)sprintf(text + n, "%s[%d,%d]", i ? "," : "", i, i + 1 + i % 7);
    n += (size_t)sprintf(text + n, "],\"costs\":[");
    for (int i = 0; i < NODES; i++) {
        int64_t v[2];
        for (int k = 0; k < 2; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int digits = (int)(x % 19);
            v[k] = (int64_t)((x >> 5) & INT64_MAX);
            int64_t limit = 1;
            for (int d = 0; d < digits; d++)
                limit *= 10;
            v[k] = digits ? v[k] % limit : v[k];
            expect_cost[2 * i + k] = v[k];
        }
        int pad = (int)((x >> 40) % 40);
        n += (size_t)sprintf(text + n, "%s[%*s%lld ,%*s%lld]", i ? "," : "", pad, "", (long long)v[0],
                             pad / 3, "", (long long)v[1]);
        if (i == NODES / 2) {
            memset(text + n, ' ', 5u << 20);
            n += 5u << 20;
        }
    }
    n += (size_t)sprintf(text + n, "],\"usages\":[");
    for (int i = 0; i < NODES; i++)
        n += (size_t)sprintf(text + n, "%s[%d,%d]", i ? "," : "", i, 2 * i);
    n += (size_t)sprintf(text + n, "]}}}");
    if (n >= cap)
        exit(1);
    char path[128];
    path_of(path, sizeof path, "large.json");
    write_file(path, text, n);
    size_t gz_size;
    unsigned char *gz = gzip_bytes(text, n, &gz_size);
    char gz_path[128];
    path_of(gz_path, sizeof gz_path, "large.json.gz");
    write_file(gz_path, gz, gz_size);
    free(gz);
    free(text);
    const char *paths[2] = {path, gz_path};
    for (int f = 0; f < 2; f++) {
        pp_iopddl_problem *p = load_ok(paths[f], paths[f]);
        if (!p)
            continue;
        CHECK_EQ_INT(p->node_count, NODES);
        int wrong = 0;
        for (int i = 0; i < NODES && wrong < 5; i++) {
            if (p->interval_end[i] != i + 1 + i % 7 || p->strategy_start[i] != 2u * i ||
                p->node_cost[2 * i] != expect_cost[2 * i] ||
                p->node_cost[2 * i + 1] != expect_cost[2 * i + 1] || p->node_usage[2 * i + 1] != 2 * i) {
                fprintf(stderr, "%s: node %d read wrong\n", paths[f], i);
                check_failures++;
                wrong++;
            }
        }
        pp_iopddl_free(p);
    }
    free(expect_cost);
    /* Asked to stop (a signal, or a tool's alarm at its time limit), reading
     * ends with a message where it stopped, the gzip file's inflating
     * thread too, and nothing is left allocated. */
    pp_stop_request();
    for (int f = 0; f < 2; f++) {
        pp_error err = {0};
        pp_iopddl_problem *p = NULL;
        CHECK_EQ_INT(pp_iopddl_load(paths[f], &p, &err), PP_EIO);
        CHECK(p == NULL && strstr(err.message, paths[f]) && strstr(err.message, "reading stopped"));
    }
    pp_stop_clear();
}

#define PROBLEM(nodes, rest) "{\"problem\":{\"nodes\":{" nodes "}" rest "}}"
#define NODES3 "\"intervals\":[[0,2],[1,3],[2,5]],\"costs\":[[1,2],[3],[4,5,6]],\"usages\":[[7,8],[9],[10,11,12]]"

static void test_syntax_errors(void)
{
    expect_error("truncated.json", "{\"problem\":{\"nodes\":{\"intervals\":[[0,2]],\"costs\":[[1,2@", "end of input");
    expect_error("truncated-key.json", "{\"problem\":{\"no@", "end of input");
    expect_error("truncated-number.json", "{\"problem\":{\"usage_limit\":12@", "end of input");
    expect_error("truncated-top.json", "{\"problem\":{\"nodes\":{" NODES3 "}}@", "end of input");
    expect_error("empty.json", "@", "end of input");
    expect_error("spaces-only.json", " \n\t@", "end of input");
    expect_error("not-object.json", "@[1,2]", "expected '{'");
    expect_error("string-for-int.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1,@\"2\"]],\"usages\":[[1,2]]", ""),
                 "expected an integer");
    expect_error("bool-for-int.json", PROBLEM("\"intervals\":[[0,@true]],\"costs\":[[1]],\"usages\":[[1]]", ""),
                 "expected an integer");
    expect_error("string-limit.json", PROBLEM(NODES3, ",\"usage_limit\":@\"30\""), "expected an integer");
    expect_error("object-for-array.json", PROBLEM("\"intervals\":@{\"a\":1},\"costs\":[[1]],\"usages\":[[1]]", ""),
                 "expected '['");
    expect_error("int-for-row.json", PROBLEM("\"intervals\":[[0,1]],\"costs\":[@1],\"usages\":[[1]]", ""),
                 "expected '['");
    expect_error("array-for-object.json", "{\"problem\":{\"nodes\":@[[0,1]]}}", "expected '{'");
    expect_error("array-for-problem.json", "{\"problem\":@[]}", "expected '{'");
    expect_error("fraction.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@1.5]],\"usages\":[[1]]", ""),
                 "not an integer");
    expect_error("exponent.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1,@1e3]],\"usages\":[[1,1]]", ""),
                 "not an integer");
    expect_error("negative-fraction.json", PROBLEM(NODES3, ",\"usage_limit\":@-0.5"), "not an integer");
    expect_error("exponent-limit.json", PROBLEM(NODES3, ",\"usage_limit\":@3E1"), "not an integer");
    expect_error("overflow.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@9223372036854775808]],\"usages\":[[1]]", ""),
                 "out of range");
    expect_error("overflow-negative.json",
                 PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@-9223372036854775809]],\"usages\":[[1]]", ""),
                 "out of range");
    expect_error("overflow-20-digits.json",
                 PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@99999999999999999999]],\"usages\":[[1]]", ""),
                 "out of range");
    expect_error("overflow-long.json",
                 PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1],[@123456789012345678901234567890123456789012345678901234567890]],\"usages\":[[1]]", ""),
                 "out of range");
    expect_error("overflow-limit.json", PROBLEM(NODES3, ",\"usage_limit\":@18446744073709551616"), "out of range");
    expect_error("leading-zero.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@01]],\"usages\":[[1]]", ""),
                 "leading zero");
    expect_error("lone-minus.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@-]],\"usages\":[[1]]", ""),
                 "expected an integer");
    expect_error("plus.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[@+1]],\"usages\":[[1]]", ""),
                 "expected an integer");
    expect_error("missing-comma.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1 @2]],\"usages\":[[1]]", ""),
                 "expected ',' or ']'");
    expect_error("trailing-comma.json", PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1,@]],\"usages\":[[1]]", ""),
                 "expected an integer");
    expect_error("missing-colon.json", "{\"problem\" @{}}", "expected ':'");
    expect_error("key-not-string.json", "{\"problem\":{@nodes:{}}}", "expected a key");
    expect_error("control-char.json", "{\"problem\":{\"na@\tme\":1}}", "control character");
    expect_error("bad-literal.json", "{\"x\":@nul,\"problem\":{}}", "expected a value");
    /* Unknown values are skipped recursively: the 201st level is refused. */
    char deep[512];
    size_t d = (size_t)sprintf(deep, "{\"x\":");
    for (int k = 0; k < 200; k++)
        deep[d++] = '[';
    sprintf(deep + d, "@[[]]}");
    expect_error("deep.json", deep, "nested too deeply");
    expect_error("trailing-garbage.json", PROBLEM(NODES3, "") " \n@x", "after the document");
    expect_error("second-document.json", PROBLEM(NODES3, "") "@{}", "after the document");
    static const char nul[] = PROBLEM(NODES3, "") "\0";
    char path[128];
    path_of(path, sizeof path, "nul-byte.json");
    write_file(path, nul, sizeof nul);
    expect_error_at("nul-byte.json", path, sizeof nul - 2, "after the document");
}

/* A long row of plain numbers (of 1 to 19 digits, so that they fall across
 * the loader's 64-byte windows at every offset) with one value replaced by
 * TOKEN at index k: an error must be named where the old one-number-at-a-
 * time scan named it, and a valid token must read as VALUE. */
static const char *const long_row_numbers[] = {"0", "7", "42", "12345", "98765432", "1000000000000000000",
                                               "123456789012", "5", "600", "3141592653"};

/* Costs and usages get the same row; the error is met first in costs. */
static size_t long_row(char *text, int k, const char *token, size_t *token_at)
{
    size_t n = (size_t)sprintf(text, "{\"problem\":{\"nodes\":{\"intervals\":[[0,2]],\"costs\":[[");
    for (int part = 0; part < 2; part++) {
        if (part)
            n += (size_t)sprintf(text + n, "]],\"usages\":[[");
        for (int i = 0; i < 120; i++) {
            if (i)
                text[n++] = ',';
            if (i == k && !part)
                *token_at = n;
            n += (size_t)sprintf(text + n, "%s", i == k ? token : long_row_numbers[i % 10]);
        }
    }
    return n + (size_t)sprintf(text + n, "]]}}}");
}

static void test_errors_in_long_rows(void)
{
    static const struct {
        const char *token, *keyword;
        size_t at; /* where in the token the error is named */
    } errors[] = {
        {"01", "leading zero", 0},        {"1.5", "not an integer", 0},
        {"1e3", "not an integer", 0},     {"-", "expected an integer", 0},
        {"+1", "expected an integer", 0}, {"", "expected an integer", 0},
        {"1 2", "expected ',' or ']'", 2}, {"1x", "expected ',' or ']'", 1},
        {"99999999999999999999", "out of range", 0}, {"9223372036854775808", "out of range", 0},
        {"123456789012345678901234567890123456789012345678901234567890", "out of range", 0},
    };
    static const struct {
        const char *token;
        int64_t value;
    } valid[] = {{"9223372036854775807", INT64_MAX}, {" 8", 8}, {"8 ", 8}, {"\n0", 0}};
    char text[4096], path[128];
    for (int k = 0; k < 70; k++) {
        for (size_t e = 0; e < sizeof errors / sizeof errors[0]; e++) {
            size_t at = 0, n = long_row(text, k, errors[e].token, &at);
            char name[64];
            snprintf(name, sizeof name, "long-row-%d-%zu.json", k, e);
            path_of(path, sizeof path, name);
            write_file(path, text, n);
            expect_same_from_memory(name, path, text, n);
            expect_error_at(name, path, at + errors[e].at, errors[e].keyword);
        }
        for (size_t v = 0; v < sizeof valid / sizeof valid[0]; v++) {
            size_t at = 0, n = long_row(text, k, valid[v].token, &at);
            path_of(path, sizeof path, "long-row-valid.json");
            write_file(path, text, n);
            pp_iopddl_problem *p = load_ok(path, path);
            if (!p)
                continue;
            int wrong = 0;
            for (int i = 0; i < 120; i++) {
                int64_t expected = i == k ? valid[v].value : strtoll(long_row_numbers[i % 10], NULL, 10);
                wrong += p->node_cost[i] != expected;
            }
            CHECK(p->strategy_start[1] == 120 && wrong == 0);
            pp_iopddl_free(p);
        }
    }
}

static void test_structure_errors(void)
{
    expect_error("length-mismatch.json",
                 PROBLEM("\"intervals\":[[0,2],[1,3]],\"costs\":[[1,2],[3]],\"usages\":[[7,8],@[9,10]]", ""),
                 "costs and usages differ");
    expect_error("fewer-costs.json",
                 PROBLEM("\"intervals\":[[0,2],[1,3]],@\"costs\":[[1,2]],\"usages\":[[7,8],[9]]", ""),
                 "wrong number of nodes");
    expect_error("more-usages.json",
                 PROBLEM("\"intervals\":[[0,2],[1,3]],\"costs\":[[1,2],[3]],@\"usages\":[[7,8],[9],[1]]", ""),
                 "wrong number of nodes");
    expect_error("no-strategies.json",
                 PROBLEM("\"intervals\":[[0,2],[1,3]],\"costs\":[[1,2],@[]],\"usages\":[[7,8],[]]", ""),
                 "without strategies");
    expect_error("edge-table-size.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[[0,1],[1,2],[0,1,2]],"
                                 "\"costs\":[[13,14],[15,16,17],@[18,19,20,21,22]]}"),
                 "wrong size");
    expect_error("edge-table-size-2.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[[0,2]],\"costs\":[@[1,2,3,4,5]]}"), "wrong size");
    expect_error("edge-count.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[[0,1],[1,2]],@\"costs\":[[13,14]]}"),
                 "wrong number of edges");
    expect_error("edge-no-nodes.json", PROBLEM(NODES3, ",\"edges\":{\"nodes\":[@[]],\"costs\":[[1]]}"),
                 "edge without nodes");
    expect_error("node-out-of-range.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[[0,1],@[1,3]],\"costs\":[[13,14],[1,2,3]]}"),
                 "out of range");
    expect_error("node-negative.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[@[-1,0]],\"costs\":[[13,14]]}"), "out of range");
    expect_error("node-huge.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[@[0,4294967296]],\"costs\":[[13,14]]}"), "out of range");
    expect_error("negative-interval.json",
                 PROBLEM("\"intervals\":[[0,2],@[3,1]],\"costs\":[[1],[2]],\"usages\":[[1],[2]]", ""),
                 "negative interval");
    expect_error("negative-start.json",
                 PROBLEM("\"intervals\":[@[-1,1]],\"costs\":[[1]],\"usages\":[[1]]", ""), "negative interval");
    expect_error("interval-length.json",
                 PROBLEM("\"intervals\":[[0,2],@[1,2,3]],\"costs\":[[1],[2]],\"usages\":[[1],[2]]", ""),
                 "interval length");
    expect_error("negative-cost.json",
                 PROBLEM("\"intervals\":[[0,2],[1,2]],\"costs\":[[1],@[2,-3]],\"usages\":[[1],[2,2]]", ""),
                 "negative");
    expect_error("negative-usage.json",
                 PROBLEM("\"intervals\":[[0,2],[1,2]],\"costs\":[[1],[2,3]],\"usages\":[@[-1],[2,2]]", ""),
                 "negative");
    expect_error("negative-edge-cost.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[[0,1]],\"costs\":[@[13,-14]]}"), "negative");
    expect_error("negative-limit.json", PROBLEM(NODES3, ",\"usage_limit\":@-1"), "negative usage limit");
    expect_error("empty-problem.json", PROBLEM("@\"intervals\":[],\"costs\":[],\"usages\":[]", ""),
                 "empty problem");
    expect_error("empty-nodes.json", "{\"problem\":{\"nodes\":@{}}}", "missing key");
    expect_error("missing-usages.json", "{\"problem\":{\"nodes\":@{\"intervals\":[[0,1]],\"costs\":[[1]]}}}",
                 "missing key \"usages\"");
    expect_error("missing-nodes.json", "{\"problem\":@{\"usage_limit\":3}}", "missing key \"nodes\"");
    expect_error("missing-problem.json", "@{\"nodes\":{}}", "missing key \"problem\"");
    expect_error("edges-without-costs.json", PROBLEM(NODES3, ",\"edges\":@{\"nodes\":[[0,1]]}"),
                 "missing key \"costs\"");
    expect_error("edges-without-nodes.json", PROBLEM(NODES3, ",\"edges\":@{\"costs\":[[0,1]]}"),
                 "missing key \"nodes\"");
    expect_error("duplicate-costs.json",
                 PROBLEM("\"intervals\":[[0,2]],\"costs\":[[1]],\"usages\":[[1]],@\"costs\":[[2]]", ""),
                 "duplicate key");
    expect_error("duplicate-limit.json", PROBLEM(NODES3, ",\"usage_limit\":3,@\"usage_limit\":4"),
                 "duplicate key");
    expect_error("duplicate-nodes.json", PROBLEM(NODES3, ",@\"nodes\":{}"), "duplicate key");
    expect_error("duplicate-edges.json", PROBLEM(NODES3, ",\"edges\":{},@\"edges\":{}"), "duplicate key");
    expect_error("duplicate-problem.json", "{\"problem\":{\"nodes\":{" NODES3 "}},@\"problem\":{}}",
                 "duplicate key");
    expect_error("duplicate-edge-nodes.json",
                 PROBLEM(NODES3, ",\"edges\":{\"nodes\":[],\"costs\":[],@\"nodes\":[]}"), "duplicate key");
}

static void tagged_path(char *path, size_t size, const char *tag, const char *name)
{
    char tagged[48];
    snprintf(tagged, sizeof tagged, "%s%s", tag, name);
    path_of(path, size, tagged);
}

/* Damaged gzip files of `text`: every message names the byte where the
 * readable text ends. `tag` prefixes the files' names. */
static void gzip_errors_of(const char *text, const char *tag)
{
    size_t text_size = strlen(text), gz_size;
    unsigned char *gz = gzip_bytes(text, text_size, &gz_size);
    unsigned char *bad = malloc(gz_size);
    char path[128];

    /* The trailer (CRC-32, length) cut off: all the text, then the damage. */
    tagged_path(path, sizeof path, tag, "cut-trailer.json.gz");
    write_file(path, gz, gz_size - 3);
    expect_error_at("cut-trailer", path, text_size, "cannot read");

    memcpy(bad, gz, gz_size);
    bad[gz_size - 6] ^= 0x55;
    tagged_path(path, sizeof path, tag, "bad-crc.json.gz");
    write_file(path, bad, gz_size);
    expect_error_at("bad-crc", path, text_size, "cannot read");

    /* Cut in the middle of the compressed data: the error is reported where
     * the readable text ends, and says the file could not be read. */
    size_t cut = gz_size / 2;
    tagged_path(path, sizeof path, tag, "cut-middle.json.gz");
    write_file(path, gz, cut);
    expect_error_at("cut-middle", path, gunzip_readable(gz, cut), "cannot read");

    memcpy(bad, gz, gz_size);
    bad[2] = 7; /* compression method: only 8 (deflate) exists */
    tagged_path(path, sizeof path, tag, "bad-method.json.gz");
    write_file(path, bad, gz_size);
    expect_error_at("bad-method", path, 0, "cannot read");

    memcpy(bad, gz, gz_size);
    for (size_t k = 12; k < 24 && k < gz_size; k++)
        bad[k] = 0xff;
    tagged_path(path, sizeof path, tag, "bad-data.json.gz");
    write_file(path, bad, gz_size);
    expect_error_at("bad-data", path, gunzip_readable(bad, gz_size), "cannot read");

    free(bad);
    free(gz);
}

/* On the small document, inflated in the scanner's thread, and on one whose
 * gzip is large enough (over 256 KB) to be inflated on a thread of its own
 * (stream.c): the same messages at the same bytes. */
static void test_gzip_errors(void)
{
    gzip_errors_of(base, "");
    size_t cap = 4u << 20, n = 0;
    char *text = malloc(cap);
    uint64_t x = 88172645463325252u;
    n += (size_t)sprintf(text + n, "{\"problem\":{\"nodes\":{\"intervals\":[[0,1]],\"costs\":[[");
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        n += (size_t)sprintf(text + n, "%s%llu", i ? "," : "", (unsigned long long)(x % 1000000000u));
    }
    n += (size_t)sprintf(text + n, "]],\"usages\":[[1]]}}}");
    size_t gz_size;
    unsigned char *gz = gzip_bytes(text, n, &gz_size);
    CHECK(gz_size >= (256u << 10));
    free(gz);
    gzip_errors_of(text, "large-");
    free(text);
}

static void test_missing_file(void)
{
    char path[128];
    path_of(path, sizeof path, "does-not-exist.json");
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    CHECK_EQ_INT(pp_iopddl_load(path, &p, &err), PP_EIO);
    CHECK(p == NULL);
    CHECK(strstr(err.message, path) != NULL);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 4096);
    size_t n = fread(text, 1, 4095, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void test_cli(const char *parplan, const char *data)
{
    char path[512], line[512], command[2048], err_path[128];
    snprintf(path, sizeof path, "%s/expected.tsv", data);
    FILE *list = fopen(path, "r");
    if (!list) {
        perror(path);
        check_failures++;
        return;
    }
    path_of(err_path, sizeof err_path, "stderr.txt");
    int files = 0;
    while (fgets(line, sizeof line, list)) {
        char name[128], keyword[128];
        unsigned long long offset;
        if (line[0] == '#' || sscanf(line, "%127[^\t]\t%llu\t%127[^\n]", name, &offset, keyword) != 3)
            continue;
        files++;
        char file[384];
        snprintf(file, sizeof file, "%s/%s", data, name);
        expect_error_at(name, file, offset, keyword);

        snprintf(command, sizeof command, "'%s' eval '%s' '%s/zeros.sol' 2>'%s' >/dev/null", parplan, file,
                 data, err_path);
        int status = system(command);
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 2) {
            fprintf(stderr, "%s: parplan eval: status %d, expected exit code 2\n", name, status);
            check_failures++;
        }
        char expected[512];
        snprintf(expected, sizeof expected, "parplan: %s: byte %llu: ", file, offset);
        char *said = read_all(err_path);
        if (!said || strncmp(said, expected, strlen(expected)) != 0 || !strstr(said, keyword) ||
            said[strlen(said) - 1] != '\n') {
            fprintf(stderr, "%s: parplan eval said \"%s\", expected \"%s...%s...\"\n", name,
                    said ? said : "(nothing)", expected, keyword);
            check_failures++;
        }
        free(said);
    }
    fclose(list);
    CHECK(files >= 5);

    snprintf(command, sizeof command, "'%s' eval '%s/does-not-exist.json' '%s/zeros.sol' 2>/dev/null", parplan,
             dir, data);
    int status = system(command);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2);
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pp-test-load-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (argc == 3) {
        test_cli(argv[1], argv[2]);
    } else {
        test_valid_variants();
        test_syntax_errors();
        test_errors_in_long_rows();
        test_structure_errors();
        test_gzip_errors();
        test_missing_file();
        test_large();
    }
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE();
}
