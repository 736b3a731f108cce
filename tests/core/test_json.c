/* test_json.c: the JSON locator of core/json.h. Owns the evidence that a
 * JSON path is found at the line and column counted by hand, through nested
 * objects and arrays, keys with escapes (unescaped as jansson does), strings
 * holding brackets, repeated keys (the last one) and multi-byte characters
 * (one column each); that a path going further than the text stops at the
 * deepest part that exists and says how much was found; and that
 * pp_json_place and pp_json_relocate rewrite "FILE: PATH: reason" into
 * "FILE:LINE:COL: PATH: reason" only when the path leads into the text;
 * that pp_json_path writes the paths readers give, cut to its buffer; and
 * that the loader that stops does on a raised flag, and otherwise reads and
 * refuses as pp_json_load_buffer does. */
#include <string.h>
#include "check.h"
#include "core/json.h"

/* Locates path in text and checks the position and how much was found
 * (SIZE_MAX for all of it). */
static void expect_at(const char *text, const char *path, int line, int column, size_t found)
{
    int l = 0, c = 0;
    size_t got = pp_json_locate(text, strlen(text), path, &l, &c);
    size_t want = found == (size_t)-1 ? strlen(path) : found;
    CHECK_EQ_INT(l, line);
    CHECK_EQ_INT(c, column);
    CHECK_EQ_INT(got, want);
    if (l != line || c != column || got != want)
        fprintf(stderr, "  path \"%s\" in %s\n", path, text);
}

static void test_nested_objects(void)
{
    const char *text = "{\n \"a\": {\n  \"b\": {\"c\": 42},\n  \"d\": true\n },\n \"e\": null\n}";
    expect_at(text, "", 1, 1, 0);
    expect_at(text, "a", 2, 7, (size_t)-1);
    expect_at(text, "a.b", 3, 8, (size_t)-1);
    expect_at(text, "a.b.c", 3, 14, (size_t)-1);
    expect_at(text, "a.d", 4, 8, (size_t)-1);
    expect_at(text, "e", 6, 7, (size_t)-1);
    /* The root after blank lines and spaces. */
    expect_at("\n\n   {\"x\": 1}", "x", 3, 10, (size_t)-1);
    expect_at("\n\n   {\"x\": 1}", "", 3, 4, 0);
}

static void test_arrays(void)
{
    const char *text = "[1, [2, 3], {\"x\": [4, 5]}]";
    expect_at(text, "[0]", 1, 2, (size_t)-1);
    expect_at(text, "[1][1]", 1, 9, (size_t)-1);
    expect_at(text, "[2]", 1, 13, (size_t)-1);
    expect_at(text, "[2].x[1]", 1, 23, (size_t)-1);
    /* The objects and arrays before the wanted element are skipped whole. */
    expect_at("{\"ops\": [{\"a\": [1, {\"b\": 2}]}, {\"a\": 3}]}", "ops[1].a", 1, 38, (size_t)-1);
}

static void test_escaped_keys(void)
{
    const char *text = "{\"a\\\"b\": 1, \"c\\\\d\": 2, \"\\u00e9\": 3, \"e\\nf\": 4, "
                       "\"\\ud83d\\ude00\": 5, \"s\": \"}]{[\\\"\", \"t\": 6}";
    expect_at(text, "a\"b", 1, 10, (size_t)-1);
    expect_at(text, "c\\d", 1, 21, (size_t)-1);
    expect_at(text, "\xc3\xa9", 1, 34, (size_t)-1);
    expect_at(text, "e\nf", 1, 45, (size_t)-1);
    expect_at(text, "\xf0\x9f\x98\x80", 1, 64, (size_t)-1);
    /* Brackets and an escaped quote inside a string value do not count. */
    expect_at(text, "t", 1, 87, (size_t)-1);
    /* A key is matched whole, not as the start of a longer one. */
    expect_at("{\"ab\": 1, \"a\": 2}", "a", 1, 16, (size_t)-1);
    /* The readers on jansson (sched, cluster) see keys unescaped too: the
     * typed getters and the allowed-keys check take "usage\u005flimit" for
     * usage_limit (issue 32). */
    static const char escaped[] = "{\"usage\\u005flimit\": 50, \"n\\u0061me\": \"x\"}";
    json_t *root = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_json_load_buffer("k.json", escaped, sizeof escaped - 1, &root, &err), PP_OK);
    static const char *const allowed[] = {"usage_limit", "name", NULL};
    pp_json_at at = {"k.json", ""};
    double limit = 0;
    CHECK_EQ_INT(pp_json_object(at, root, allowed, &err), PP_OK);
    CHECK_EQ_INT(pp_json_number(at, root, "usage_limit", true, 0, &limit, &err), PP_OK);
    CHECK(limit == 50);
    json_decref(root);
}

static void test_repeated_keys(void)
{
    /* Jansson keeps the last of repeated keys when repeats are allowed. */
    expect_at("{\"k\": 1, \"k\": 2}", "k", 1, 15, (size_t)-1);
    expect_at("{\"k\": {\"x\": 1}, \"k\": {\"y\": 2}}", "k.y", 1, 28, (size_t)-1);
    /* A key holding a dot is a longer match for the path than its start. */
    expect_at("{\"a.b\": 1, \"a\": {\"b\": 2}}", "a.b", 1, 9, (size_t)-1);
    expect_at("{\"a\": {\"b\": 2}, \"a.b\": 1}", "a.b", 1, 24, (size_t)-1);
}

static void test_missing_paths(void)
{
    const char *text = "{\"a\": {\"b\": 1},\n \"list\": [10, 20]}";
    /* A missing key is placed at its object, the rest of the path too. */
    expect_at(text, "a.c", 1, 7, 1);
    expect_at(text, "a.c.d[3]", 1, 7, 1);
    expect_at(text, "nothing", 1, 1, 0);
    /* Past a number, past the end of an array, an index into an object. */
    expect_at(text, "a.b.c", 1, 13, 3);
    expect_at(text, "list[2]", 2, 10, 4);
    expect_at(text, "[0]", 1, 1, 0);
    expect_at(text, "list.x", 2, 10, 4);
    expect_at("{\"e\": []}", "e[0]", 1, 7, 1);
    /* Text that stops short, as a file jansson refused might. */
    expect_at("{\"a\": {\"b\": ", "a.b", 1, 13, (size_t)-1);
    expect_at("{\"a\": [1, ", "a[1]", 1, 11, (size_t)-1);
    expect_at("", "a", 1, 1, 0);
}

/* A column is a character: the two bytes of an e-acute are one. */
static void test_columns_count_characters(void)
{
    expect_at("{\"\xc3\xa9\": 1, \"z\": 2}", "z", 1, 15, (size_t)-1);
    expect_at("{\"x\": \"\xe2\x82\xac\xe2\x82\xac\",\n \"y\": 1}", "y", 2, 7, (size_t)-1);
}

static const char *placed(const char *message, const char *text)
{
    static pp_error err;
    err = (pp_error){0};
    pp_error_set(&err, PP_EINPUT, "%s", message);
    pp_json_place(&err, PP_EINPUT, "f.json", text, strlen(text));
    return err.message;
}

static void test_place(void)
{
    const char *text = "{\n  \"ops\": [{\"name\": \"x\"}, {\"time\": -1}]\n}";
    CHECK(strcmp(placed("f.json: ops[1].time: must be >= 0", text),
                 "f.json:2:35: ops[1].time: must be >= 0") == 0);
    /* A missing last key or element: at what should hold it. */
    CHECK(strcmp(placed("f.json: ops[0].time: missing", text), "f.json:2:11: ops[0].time: missing") == 0);
    CHECK(strcmp(placed("f.json: ops[2]: missing", text), "f.json:2:10: ops[2]: missing") == 0);
    CHECK(strcmp(placed("f.json: nodes: missing", text), "f.json:1:1: nodes: missing") == 0);
    /* Not a path into the text: left as it is. */
    CHECK(strcmp(placed("f.json: not a plan: expected x", text), "f.json: not a plan: expected x") == 0);
    CHECK(strcmp(placed("f.json: a.b.c: missing", text), "f.json: a.b.c: missing") == 0);
    CHECK(strcmp(placed("f.json: no colon here", text), "f.json: no colon here") == 0);
    CHECK(strcmp(placed("g.json: ops: other file", text), "g.json: ops: other file") == 0);
    CHECK(strcmp(placed("f.json:1:1: ops: placed already", text),
                 "f.json:1:1: ops: placed already") == 0);
    /* Only input errors are about the text. */
    pp_error err = {0};
    pp_error_set(&err, PP_ENOMEM, "f.json: ops: out of memory");
    CHECK_EQ_INT(pp_json_place(&err, PP_ENOMEM, "f.json", text, strlen(text)), PP_ENOMEM);
    CHECK(strcmp(err.message, "f.json: ops: out of memory") == 0);
    CHECK_EQ_INT(pp_json_place(NULL, PP_EINPUT, "f.json", text, strlen(text)), PP_EINPUT);
}

static void test_relocate(void)
{
    const char *text = "{\"a\": [1,\n 2]}";
    pp_error err = {0};
    pp_error_set(&err, PP_EINPUT, "f.json: too big");
    CHECK_EQ_INT(pp_json_relocate(&err, PP_EINPUT, "f.json", text, strlen(text), "a[1]"), PP_EINPUT);
    CHECK(strcmp(err.message, "f.json:2:2: too big") == 0);
    /* A message filling the buffer is cut, not overrun. */
    pp_error full = {0};
    char longer[600];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    pp_error_set(&full, PP_EINPUT, "f.json: %s", longer);
    pp_json_relocate(&full, PP_EINPUT, "f.json", text, strlen(text), "a[1]");
    CHECK(strncmp(full.message, "f.json:2:2: xxx", 15) == 0);
    CHECK_EQ_INT(strlen(full.message), sizeof full.message - 1);
}

/* Paths as the readers write them, cut to the buffer's size. */
static void test_paths(void)
{
    char buf[32];
    CHECK(strcmp(pp_json_path(buf, sizeof buf, "", "ops", 1234567), "ops[1234567]") == 0);
    CHECK(strcmp(pp_json_path(buf, sizeof buf, "ops[3]", "devices", 0), "ops[3].devices[0]") == 0);
    CHECK(strcmp(pp_json_path(buf, sizeof buf, "ops[3]", "name", -1), "ops[3].name") == 0);
    CHECK(strcmp(pp_json_path(buf, sizeof buf, "", "", -1), "") == 0);
    CHECK(strcmp(pp_json_path(buf, 8, "ops", "devices", 2), "ops.dev") == 0);
    CHECK(strcmp(pp_json_path(buf, 9, "", "ops", 1234), "ops[1234") == 0);
}

/* The loader that stops: a raised flag stops it; lowered, it reads what
 * pp_json_load_buffer reads and reports a syntax error at the same place,
 * past the kilobytes it takes at a time. */
static void test_load_stop(void)
{
    enum { COUNT = 3000 };
    static char text[COUNT * 8 + 16];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < COUNT; i++)
        n += (size_t)sprintf(text + n, "%s%d", i ? ",\n" : "", i);
    text[n++] = ']';
    pp_stop_flag raised = 1, lowered = 0;
    json_t *a = NULL, *b = NULL;
    pp_error err = {0}, err2 = {0};
    CHECK_EQ_INT(pp_json_load_buffer_stop("big.json", text, n, &raised, &a, &err), PP_EIO);
    CHECK(a == NULL);
    CHECK(strcmp(err.message, "big.json: reading stopped: the run was asked to stop (its time limit or a signal)") == 0);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_json_load_buffer_stop("big.json", text, n, &lowered, &a, &err), PP_OK);
    CHECK_EQ_INT(pp_json_load_buffer("big.json", text, n, &b, &err), PP_OK);
    CHECK(a && b && json_array_size(a) == COUNT && json_equal(a, b));
    json_decref(a);
    json_decref(b);
    text[n - 1] = ',';
    CHECK_EQ_INT(pp_json_load_buffer_stop("big.json", text, n, &lowered, &a, &err), PP_EINPUT);
    CHECK_EQ_INT(pp_json_load_buffer("big.json", text, n, &b, &err2), PP_EINPUT);
    CHECK(strcmp(err.message, err2.message) == 0);
    CHECK(strncmp(err.message, "big.json:3000:", 14) == 0);
}

int main(void)
{
    test_paths();
    test_load_stop();
    test_nested_objects();
    test_arrays();
    test_escaped_keys();
    test_repeated_keys();
    test_missing_paths();
    test_columns_count_characters();
    test_place();
    test_relocate();
    return CHECK_DONE();
}
