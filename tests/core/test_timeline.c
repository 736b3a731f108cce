/* test_timeline.c: the timeline pictures. Owns the evidence that the Chrome
 * trace parses back (with jansson) to exactly the rows and boxes put in, in
 * microseconds, with named and ordered rows; that the SVG has exactly one
 * rect per box of positive length (plus one background, one per lane and one
 * legend swatch per category), widths proportional to durations, one colour
 * per category, boxes closer than two pixels merged, round tick values, the
 * axis's unit, and every text escaped; and that bad
 * boxes are refused. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/timeline_internal.h"

/* Writes the timeline with `write` into a NUL-terminated string. */
static char *render(const pp_timeline *t, pp_status (*write)(const pp_timeline *, FILE *, pp_error *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    pp_error err = {0};
    pp_status st = write(t, f, &err);
    fclose(f);
    CHECK_EQ_INT(st, PP_OK);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    return text;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* A rect as drawn, with its group's colour and tooltip ("category on row"). */
typedef struct {
    char group[64];
    char fill[16];
    double x, width;
} drawn;

static double attribute(const char *tag, const char *name)
{
    const char *p = strstr(tag, name);
    return p ? atof(p + strlen(name)) : NAN;
}

/* The rects inside each group, in order. */
static int drawn_boxes(const char *svg, drawn *out, int cap)
{
    int n = 0;
    for (const char *g = strstr(svg, "<g fill=\""); g; g = strstr(g + 1, "<g fill=\"")) {
        const char *title = strstr(g, "<title>") + 7, *colon = strstr(title, ": "), *close = strstr(g, "</g>");
        for (const char *p = strstr(g, "<rect"); p && p < close && n < cap; p = strstr(p + 1, "<rect")) {
            snprintf(out[n].group, sizeof out[n].group, "%.*s", (int)(colon - title), title);
            snprintf(out[n].fill, sizeof out[n].fill, "%.7s", g + 9);
            out[n].x = attribute(p, " x=\"");
            out[n].width = attribute(p, " width=\"");
            n++;
        }
    }
    return n;
}

static const drawn *find_drawn(const drawn *d, int n, const char *group)
{
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].group, group) == 0)
            return &d[i];
    return NULL;
}

/* Every '&' starts one of the five XML entities. */
static bool entities_ok(const char *text)
{
    static const char *const ok[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const char *p = strchr(text, '&'); p; p = strchr(p + 1, '&')) {
        bool known = false;
        for (int k = 0; k < 5; k++)
            known |= strncmp(p, ok[k], strlen(ok[k])) == 0;
        if (!known)
            return false;
    }
    return true;
}

typedef struct {
    int row;
    double start, end;
    const char *label, *category, *stored;
} spec;

static const spec boxes[] = {
    {0, 0, 2, "a", "forward", "a"},
    {0, 2, 5, "b<&>\"'", "backward", "b<&>\"'"},
    {1, 1, 4, "c", "forward", "c"},
    {1, 4, 4, "zero", "sync", "zero"},
    {0, 5, 5.01, "a-label-far-too-long-for-its-box", "forward", "a-label-far-too-long-for-its-box"},
    {1, 4.5, 6, "bad\xff\x01", "backward", "bad? "},
};
#define BOX_COUNT ((int)(sizeof boxes / sizeof boxes[0]))

static pp_timeline *example(void)
{
    pp_timeline *t = pp_timeline_new("demo <&>", 1000);
    CHECK(t != NULL);
    CHECK_EQ_INT(pp_timeline_add_row(t, "gpu0"), 0);
    CHECK_EQ_INT(pp_timeline_add_row(t, "gpu<1>&"), 1);
    pp_error err = {0};
    for (int i = 0; i < BOX_COUNT; i++)
        CHECK_EQ_INT(pp_timeline_add_box(t, boxes[i].row, boxes[i].start, boxes[i].end, boxes[i].label,
                                         boxes[i].category, &err), PP_OK);
    return t;
}

static void test_refusals(pp_timeline *t)
{
    pp_error err = {0};
    CHECK_EQ_INT(pp_timeline_add_box(t, 2, 0, 1, "x", "c", &err), PP_EARG);
    CHECK(strstr(err.message, "row 2") != NULL);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_timeline_add_box(t, -1, 0, 1, "x", "c", &err), PP_EARG);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_timeline_add_box(t, 0, 2, 1, "x", "c", &err), PP_EARG);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_timeline_add_box(t, 0, NAN, 1, "x", "c", &err), PP_EARG);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_timeline_add_box(t, 0, 0, INFINITY, "x", "c", &err), PP_EARG);
    CHECK_EQ_INT(pp_timeline_box_count(t), BOX_COUNT);
    CHECK_EQ_INT(pp_timeline_category_count(t), 3);
    CHECK(pp_timeline_new("x", 0) == NULL);
    CHECK(pp_timeline_new("x", NAN) == NULL);
}

static void check_metadata(json_t *events, int *thread_names, int *sort_indexes)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "M") != 0)
            continue;
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *args = json_object_get(e, "args");
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CHECK_EQ_INT(json_integer_value(json_object_get(e, "pid")), 1);
        CHECK(json_object_get(e, "ts") == NULL);
        if (strcmp(name, "process_name") == 0) {
            CHECK(strcmp(json_string_value(json_object_get(args, "name")), "demo <&>") == 0);
        } else if (strcmp(name, "thread_name") == 0) {
            CHECK(strcmp(json_string_value(json_object_get(args, "name")), tid == 1 ? "gpu0" : "gpu<1>&") == 0);
            CHECK(tid == 1 || tid == 2);
            (*thread_names)++;
        } else {
            CHECK(strcmp(name, "thread_sort_index") == 0);
            CHECK_EQ_INT(json_integer_value(json_object_get(args, "sort_index")), tid - 1);
            (*sort_indexes)++;
        }
    }
}

static void test_trace(const pp_timeline *t)
{
    char *text = render(t, pp_timeline_write_trace);
    json_error_t jerr;
    json_t *root = text ? json_loads(text, 0, &jerr) : NULL;
    CHECK(root != NULL);
    if (!root) {
        fprintf(stderr, "trace does not parse: %s\n%s\n", jerr.text, text ? text : "");
        free(text);
        return;
    }
    CHECK(strcmp(json_string_value(json_object_get(root, "displayTimeUnit")), "ms") == 0);
    json_t *events = json_object_get(root, "traceEvents");
    CHECK_EQ_INT(json_array_size(events), 1 + 2 * 2 + BOX_COUNT);
    int thread_names = 0, sort_indexes = 0, x = 0;
    check_metadata(events, &thread_names, &sort_indexes);
    CHECK_EQ_INT(thread_names, 2);
    CHECK_EQ_INT(sort_indexes, 2);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        const spec *b = &boxes[x++];
        CHECK(strcmp(json_string_value(json_object_get(e, "name")), b->stored) == 0);
        CHECK(strcmp(json_string_value(json_object_get(e, "cat")), b->category) == 0);
        CHECK(fabs(json_number_value(json_object_get(e, "ts")) - b->start * 1000) < 1e-9);
        CHECK(fabs(json_number_value(json_object_get(e, "dur")) - (b->end - b->start) * 1000) < 1e-6);
        CHECK_EQ_INT(json_integer_value(json_object_get(e, "tid")), b->row + 1);
        CHECK_EQ_INT(json_integer_value(json_object_get(e, "pid")), 1);
        json_t *args = json_object_get(e, "args");
        CHECK(json_number_value(json_object_get(args, "start")) == b->start);
        CHECK(json_number_value(json_object_get(args, "end")) == b->end);
    }
    CHECK_EQ_INT(x, BOX_COUNT);
    json_decref(root);
    free(text);
}

static void test_svg_boxes(const char *svg)
{
    drawn d[16];
    int n = drawn_boxes(svg, d, 16);
    CHECK_EQ_INT(n, BOX_COUNT - 1);
    const drawn *a = find_drawn(d, n, "forward on gpu0"), *b = find_drawn(d, n, "backward on gpu0"),
                *c = find_drawn(d, n, "forward on gpu&lt;1&gt;&amp;"),
                *bad = find_drawn(d, n, "backward on gpu&lt;1&gt;&amp;");
    CHECK(a && b && c && bad);
    if (!a || !b || !c || !bad)
        return;
    /* Plot 1000 px wide over [0, 6]. */
    double per_unit = a->width / 2;
    CHECK(fabs(per_unit - 1000.0 / 6) < 0.1);
    CHECK(fabs(b->width - 3 * per_unit) < 0.1);
    CHECK(fabs(c->width - 3 * per_unit) < 0.1);
    CHECK(fabs(bad->width - 1.5 * per_unit) < 0.1);
    CHECK(fabs(b->x - a->x - 2 * per_unit) < 0.1);
    CHECK(fabs(c->x - a->x - 1 * per_unit) < 0.1);
    /* The 0.01-long box after a is 1.7 px: drawn 2 px wide, on its own. */
    CHECK(fabs(a[1].x - a->x - 5 * per_unit) < 0.1);
    CHECK(a[1].width == 2);
    /* Categories coloured in first-seen order. */
    CHECK(strcmp(a->fill, "#4e79a7") == 0);
    CHECK(strcmp(c->fill, a->fill) == 0);
    CHECK(strcmp(b->fill, "#f28e2b") == 0);
    CHECK(strcmp(bad->fill, b->fill) == 0);
}

/* Boxes less than two pixels apart are one rect; the tooltip counts them. */
static void test_svg_merge(void)
{
    pp_timeline *t = pp_timeline_new("many", 1e6);
    int r = pp_timeline_add_row(t, "link");
    pp_error err = {0};
    for (int k = 0; k < 100; k++)
        CHECK_EQ_INT(pp_timeline_add_box(t, r, k * 1e-3, k * 1e-3 + 1e-4, "x", "transfer", &err), PP_OK);
    CHECK_EQ_INT(pp_timeline_add_box(t, r, 9, 10, "far", "transfer", &err), PP_OK);
    char *svg = render(t, pp_timeline_write_svg);
    if (svg) {
        drawn d[4];
        /* 100 transfers 0.1 px apart over [0, 10] s, then one at 9..10. */
        CHECK_EQ_INT(drawn_boxes(svg, d, 4), 2);
        CHECK(fabs(d[0].width - 10) < 0.1);
        CHECK(strstr(svg, "transfer on link: 101 boxes, busy 1.01</title>") != NULL);
        CHECK(strstr(svg, ">time (s)</text>") != NULL);
    }
    free(svg);
    pp_timeline_free(t);
}

static void test_svg(const pp_timeline *t)
{
    char *svg = render(t, pp_timeline_write_svg);
    if (!svg)
        return;
    /* Background + 2 lanes + 5 boxes of positive length + 3 legend swatches. */
    CHECK_EQ_INT(count(svg, "<rect"), 1 + 2 + 5 + 3);
    /* The title and one tooltip per group of a row and a category. */
    CHECK_EQ_INT(count(svg, "<title>"), 1 + 4);
    CHECK_EQ_INT(count(svg, "<svg"), 1);
    CHECK_EQ_INT(count(svg, "</svg>"), 1);
    CHECK(entities_ok(svg));
    CHECK(strstr(svg, "b<") == NULL);
    CHECK(strstr(svg, "gpu<") == NULL);
    CHECK(strstr(svg, ">gpu&lt;1&gt;&amp;</text>") != NULL);
    CHECK(strstr(svg, ">demo &lt;&amp;&gt;</text>") != NULL);
    /* Labels inside boxes when they fit: "a" does, the long one does not. */
    CHECK(strstr(svg, ">a</text>") != NULL);
    CHECK_EQ_INT(count(svg, "a-label-far-too-long-for-its-box"), 0);
    CHECK(strstr(svg, ">b&lt;&amp;&gt;&quot;&apos;</text>") != NULL);
    CHECK(strstr(svg, ">time (ms)</text>") != NULL);
    /* Legend: all three categories, "sync" although its only box is empty. */
    CHECK(strstr(svg, ">forward</text>") != NULL);
    CHECK(strstr(svg, ">backward</text>") != NULL);
    CHECK(strstr(svg, ">sync</text>") != NULL);
    /* Ticks every unit over [0, 6]. */
    for (int k = 0; k <= 6; k++) {
        char tick[32];
        snprintf(tick, sizeof tick, "\">%d</text>", k);
        CHECK_EQ_INT(count(svg, tick), 1);
    }
    test_svg_boxes(svg);
    free(svg);
}

/* Fractional ranges get round fractional ticks: [0, 0.3] in steps of 0.05. */
static void test_fraction_ticks(void)
{
    pp_timeline *t = pp_timeline_new("small", 1);
    int r = pp_timeline_add_row(t, "only");
    pp_error err = {0};
    CHECK_EQ_INT(pp_timeline_add_box(t, r, 0.1, 0.3, "x", NULL, &err), PP_OK);
    char *svg = render(t, pp_timeline_write_svg);
    if (svg) {
        CHECK(strstr(svg, "\">0.05</text>") != NULL);
        CHECK(strstr(svg, "\">0.25</text>") != NULL);
        CHECK(strstr(svg, "\">0.30</text>") != NULL);
        CHECK(strstr(svg, "\">0.35</text>") == NULL);
        CHECK(strstr(svg, ">other</text>") != NULL);
    }
    free(svg);
    pp_timeline_free(t);
}

/* No rows, no boxes: both pictures still well formed. */
static void test_empty(void)
{
    pp_timeline *t = pp_timeline_new(NULL, 1);
    char *trace = render(t, pp_timeline_write_trace), *svg = render(t, pp_timeline_write_svg);
    json_t *root = trace ? json_loads(trace, 0, NULL) : NULL;
    CHECK(root != NULL);
    CHECK_EQ_INT(json_array_size(json_object_get(root, "traceEvents")), 1);
    CHECK(svg && count(svg, "<rect") == 1 && strstr(svg, "</svg>") != NULL);
    json_decref(root);
    free(trace);
    free(svg);
    pp_timeline_free(t);
}

int main(void)
{
    pp_timeline *t = example();
    CHECK_EQ_INT(pp_timeline_row_count(t), 2);
    test_refusals(t);
    test_trace(t);
    test_svg(t);
    pp_timeline_free(t);
    test_fraction_ticks();
    test_svg_merge();
    test_empty();
    return CHECK_DONE();
}
