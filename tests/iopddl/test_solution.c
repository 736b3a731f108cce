/* test_solution.c: pp_iopddl_load_solution, the reader of answer files
 * "[s0, s1, ...]". Owns the evidence that good files are read exactly, and
 * that every bad one (wrong length, index out of range, garbage, trailing
 * data, empty) is refused with PP_EINPUT, no array, and a message naming
 * the file and the byte where the problem is. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

static char dir_path[256];

/* Writes len bytes (NULs allowed) to a fresh file under dir_path. */
static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(data, 1, len, f) == len);
    fclose(f);
}

/* Three nodes with 2, 3 and 1 strategies: index limits differ per node. */
static pp_iopddl_problem *three_nodes(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/problem.json", dir_path);
    const char *json = "{\"problem\": {\"nodes\": {\"intervals\": [[0, 1], [0, 1], [0, 1]],"
                       "\"costs\": [[1, 2], [3, 4, 5], [6]], \"usages\": [[1, 1], [1, 1, 1], [1]]}}}";
    write_file(path, json, strlen(json));
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    CHECK_EQ_INT(pp_iopddl_load(path, &p, &err), PP_OK);
    unlink(path);
    if (!p)
        fprintf(stderr, "%s\n", err.message);
    return p;
}

static void expect_good(const pp_iopddl_problem *p, const char *text, size_t len, const uint32_t *want,
                        int line)
{
    char path[300];
    snprintf(path, sizeof path, "%s/good.txt", dir_path);
    write_file(path, text, len);
    pp_error err = {0};
    uint32_t *s = NULL;
    int before = check_failures;
    CHECK_EQ_INT(pp_iopddl_load_solution(path, p, &s, &err), PP_OK);
    CHECK(s != NULL);
    if (s)
        for (uint32_t i = 0; i < p->node_count; i++)
            CHECK_EQ_INT(s[i], want[i]);
    if (check_failures != before)
        fprintf(stderr, "  (good case at line %d: %s)\n", line, err.message);
    free(s);
    unlink(path);
}

/* The message must read "PATH: byte N: ... REASON ...", with N in
 * [lo, hi]: a range because a reader may point at the start of a bad
 * token or just past it, and either is useful to a person. */
static void expect_bad(const pp_iopddl_problem *p, const char *text, size_t len, size_t lo, size_t hi,
                       const char *reason, int line)
{
    char path[300];
    snprintf(path, sizeof path, "%s/bad.txt", dir_path);
    write_file(path, text, len);
    pp_error err = {0};
    static uint32_t sentinel[1];
    uint32_t *s = sentinel; /* must come back NULL */
    int before = check_failures;
    CHECK_EQ_INT(pp_iopddl_load_solution(path, p, &s, &err), PP_EINPUT);
    CHECK_EQ_INT(err.status, PP_EINPUT);
    CHECK(s == NULL);
    CHECK(strncmp(err.message, path, strlen(path)) == 0);
    const char *at = strstr(err.message, ": byte ");
    CHECK(at != NULL);
    if (at) {
        unsigned long long byte = strtoull(at + 7, NULL, 10);
        CHECK(byte >= lo && byte <= hi);
    }
    CHECK(strstr(err.message, reason) != NULL);
    if (check_failures != before)
        fprintf(stderr, "  (bad case at line %d: expected byte %zu..%zu and \"%s\"; got \"%s\")\n", line, lo,
                hi, reason, err.message);
    unlink(path);
}

#define GOOD(text, ...) \
    expect_good(p, text, sizeof text - 1, (const uint32_t[]){__VA_ARGS__}, __LINE__)
#define BAD(text, lo, hi, reason) expect_bad(p, text, sizeof text - 1, lo, hi, reason, __LINE__)

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir_path, sizeof dir_path, "%s/pp-test-solution-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir_path)) {
        perror("mkdtemp");
        return 1;
    }
    pp_iopddl_problem *p = three_nodes();
    if (!p) {
        rmdir(dir_path);
        return CHECK_DONE();
    }

    GOOD("[1, 2, 0]", 1, 2, 0);
    GOOD("[0,0,0]\n", 0, 0, 0);
    GOOD(" \t\r\n[ 1 ,\n 2 , 0 ]\n\n", 1, 2, 0);

    /* What pp_iopddl_format_solution writes, the reader takes back. */
    char line[12 * 3 + 3];
    uint32_t answer[3] = {1, 1, 0};
    size_t len = pp_iopddl_format_solution(answer, 3, line);
    CHECK_EQ_INT(len, strlen(line));
    CHECK(strcmp(line, "[1, 1, 0]") == 0);
    expect_good(p, line, len, answer, __LINE__);

    /* Empty and blank files: nothing where '[' should be. */
    BAD("", 0, 0, "expected '['");
    BAD("  \n\n", 4, 4, "expected '['");
    BAD("hello", 0, 0, "expected '['");
    BAD("{\"a\": 1}", 0, 0, "expected '['");

    /* Wrong length: too few ends at the closing bracket or the end of the
     * text; too many is caught at the fourth entry (bytes 10..11). */
    BAD("[0, 0]", 5, 6, "fewer entries");
    BAD("[]", 1, 2, "fewer entries");
    BAD("[0, 0, 0, 0]", 10, 11, "more entries");

    /* Out of range for its own node: node 0 has 2 strategies, node 1 has 3,
     * node 2 has 1. The bad token's bytes are given. */
    BAD("[2, 0, 0]", 1, 2, "strategy 2 is out of range: node 0 has 2 strategies (0 to 1)");
    BAD("[0, 3, 0]", 4, 5, "strategy 3 is out of range: node 1 has 3 strategies (0 to 2)");
    BAD("[0, 0, 1]", 7, 8, "out of range");
    BAD("[0, 99999999999999999999, 0]", 4, 24, "out of range");

    /* Garbage inside the list. */
    BAD("[0, x, 0]", 4, 4, "expected a strategy index");
    BAD("[0, -1, 0]", 4, 4, "expected a strategy index");
    BAD("[0, 0, 0,]", 9, 9, "expected a strategy index");
    BAD("[0 0 0]", 3, 3, "expected ',' or ']'");
    BAD("[0, 1.5, 0]", 5, 5, "expected ',' or ']'");
    BAD("[0, 0, 0", 8, 8, "expected ',' or ']'");

    /* Trailing data after a complete answer. */
    BAD("[0, 0, 0] x", 10, 10, "after ']'");
    BAD("[0, 0, 0]]", 9, 9, "after ']'");
    BAD("[0, 0, 0]\n[0, 0, 0]\n", 10, 10, "after ']'");
    BAD("[0, 0, 0]\0", 9, 9, "after ']'");

    /* A file that is not there is an I/O error, not an input error. */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.txt", dir_path);
    pp_error err = {0};
    uint32_t *s = NULL;
    CHECK_EQ_INT(pp_iopddl_load_solution(missing, p, &s, &err), PP_EIO);
    CHECK(s == NULL);
    CHECK(strstr(err.message, missing) != NULL);

    pp_iopddl_free(p);
    CHECK(rmdir(dir_path) == 0);
    return CHECK_DONE();
}
