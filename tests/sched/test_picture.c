/* test_picture.c: a schedule's pictures. Owns the evidence that the trace of
 * a hand-made valid schedule (confirmed by the checker) parses back to one
 * row per device and per channel carrying a transfer of positive length, and
 * that every box sits on the right row at the schedule's times with the
 * op's kind or "transfer" as category; that the SVG draws exactly the boxes
 * of positive length with escaped text; and that a schedule without a
 * device or times for some op is refused while a merely invalid one draws. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sched/sched_internal.h"

/* Devices gpu0..gpu2, every channel. Times worked out by hand:
 *   gpu0: f0 [0,2]           b0 [6.5,9.5]
 *   gpu1:     f1 [3,5] b1 [5,6]
 *   gpu2: z [2,2] (zero length)  w [2,3]
 *   gpu0 -> gpu1: f0 -> f1 [2,3], f0 -> b1 [3,4]
 *   gpu1 -> gpu0: b1 -> b0 [6,6.5]
 *   gpu0 -> gpu2: f0 -> z and f0 -> w, both of length zero: no row. */
static pp_sched_problem *build(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "gpu0", INFINITY);
    pp_sched_add_device(p, "gpu1", INFINITY);
    pp_sched_add_device(p, "gpu2", INFINITY);
    int f0 = pp_sched_add_op(p, "f0", "forward", 2, 0, 0);
    int f1 = pp_sched_add_op(p, "f1", "forward", 2, 0, 0);
    int b1 = pp_sched_add_op(p, "b1", "backward", 1, 0, 0);
    int b0 = pp_sched_add_op(p, "b0", "backward", 3, 0, 0);
    int z = pp_sched_add_op(p, "z", "sync", 0, 0, 0);
    int w = pp_sched_add_op(p, "w<&>", "weight&co", 1, 0, 0);
    pp_sched_add_dep(p, f0, f1, 1);
    pp_sched_add_dep(p, f0, b1, 1);
    pp_sched_add_dep(p, f1, b1, 0.5);
    pp_sched_add_dep(p, b1, b0, 0.5);
    pp_sched_add_dep(p, f0, z, 0);
    pp_sched_add_dep(p, f0, w, 0);
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "hand", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

static pp_sched_schedule *hand_schedule(const pp_sched_problem *p)
{
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    int device[] = {0, 1, 1, 0, 2, 2};
    double start[] = {0, 3, 5, 6.5, 2, 2}, end[] = {2, 5, 6, 9.5, 2, 3};
    double tstart[] = {2, 3, NAN, 6, 2, 2}, tend[] = {3, 4, NAN, 6.5, 2, 2};
    memcpy(s->device, device, sizeof device);
    memcpy(s->start, start, sizeof start);
    memcpy(s->end, end, sizeof end);
    memcpy(s->transfer_start, tstart, sizeof tstart);
    memcpy(s->transfer_end, tend, sizeof tend);
    return s;
}

static char *render(const pp_sched_problem *p, const pp_sched_schedule *s,
                    pp_status (*write)(const pp_sched_problem *, const pp_sched_schedule *, FILE *, pp_error *),
                    pp_status want)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    pp_error err = {0};
    pp_status st = write(p, s, f, &err);
    fclose(f);
    CHECK_EQ_INT(st, want);
    if (st != want)
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

/* The row names by tid, from the thread_name metadata. */
static int row_names(json_t *events, const char **name, int cap)
{
    int rows = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "name")), "thread_name") != 0)
            continue;
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CHECK(tid >= 1 && tid <= cap);
        if (tid >= 1 && tid <= cap)
            name[tid - 1] = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        rows++;
    }
    return rows;
}

static int find_dep(const pp_sched_problem *p, const char *label)
{
    for (int e = 0; e < p->dep_count; e++) {
        char want[64];
        snprintf(want, sizeof want, "%s -> %s", p->op_name[p->dep_from[e]], p->op_name[p->dep_to[e]]);
        if (strcmp(want, label) == 0)
            return e;
    }
    return -1;
}

static bool near(json_t *number, double want) { return fabs(json_number_value(number) - want) < 1e-6; }

/* An op box: on its device's row, at its times, its kind as category. */
static void check_op_box(const pp_sched_problem *p, const pp_sched_schedule *s, json_t *e, const char *row)
{
    int i = pp_sched_find_op(p, json_string_value(json_object_get(e, "name")));
    CHECK(i >= 0);
    if (i < 0)
        return;
    CHECK(strcmp(row, p->device_name[s->device[i]]) == 0);
    CHECK(strcmp(json_string_value(json_object_get(e, "cat")), p->op_kind[i]) == 0);
    CHECK(near(json_object_get(e, "ts"), s->start[i] * 1000));
    CHECK(near(json_object_get(e, "dur"), (s->end[i] - s->start[i]) * 1000));
}

/* A transfer box: on the row of its channel, at the transfer's times. */
static void check_transfer_box(const pp_sched_problem *p, const pp_sched_schedule *s, json_t *e, const char *row)
{
    int d = find_dep(p, json_string_value(json_object_get(e, "name")));
    CHECK(d >= 0);
    if (d < 0)
        return;
    char want[64];
    snprintf(want, sizeof want, "%s -> %s", p->device_name[s->device[p->dep_from[d]]],
             p->device_name[s->device[p->dep_to[d]]]);
    CHECK(strcmp(row, want) == 0);
    CHECK(s->transfer_end[d] > s->transfer_start[d]);
    CHECK(near(json_object_get(e, "ts"), s->transfer_start[d] * 1000));
    CHECK(near(json_object_get(e, "dur"), (s->transfer_end[d] - s->transfer_start[d]) * 1000));
}

static void test_trace(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    char *text = render(p, s, pp_sched_write_trace, PP_OK);
    json_t *root = text ? json_loads(text, 0, NULL) : NULL;
    CHECK(root != NULL);
    if (!root) {
        free(text);
        return;
    }
    json_t *events = json_object_get(root, "traceEvents");
    const char *row[8] = {0};
    CHECK_EQ_INT(row_names(events, row, 8), 5);
    const char *want[] = {"gpu0", "gpu1", "gpu2", "gpu0 -> gpu1", "gpu1 -> gpu0"};
    for (int r = 0; r < 5; r++)
        CHECK(row[r] && strcmp(row[r], want[r]) == 0);
    int ops = 0, transfers = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CHECK(tid >= 1 && tid <= 5);
        if (tid < 1 || tid > 5 || !row[tid - 1])
            continue;
        bool transfer = strcmp(json_string_value(json_object_get(e, "cat")), "transfer") == 0;
        if (transfer)
            check_transfer_box(p, s, e, row[tid - 1]);
        else
            check_op_box(p, s, e, row[tid - 1]);
        transfers += transfer;
        ops += !transfer;
    }
    CHECK_EQ_INT(ops, 6);
    CHECK_EQ_INT(transfers, 3);
    CHECK_EQ_INT(json_array_size(events), 1 + 2 * 5 + 6 + 3);
    json_decref(root);
    free(text);
}

static void test_svg(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    char *svg = render(p, s, pp_sched_write_svg, PP_OK);
    if (!svg)
        return;
    /* Background + 5 lanes + 8 boxes of positive length (z has none) + 5
     * categories: forward, backward, sync, weight&co, transfer. */
    CHECK_EQ_INT(count(svg, "<rect"), 1 + 5 + 8 + 5);
    /* The title, then one tooltip per row and category: gpu0 and gpu1 each
     * forward and backward, gpu2 weight&co, and the two links' transfers. */
    CHECK_EQ_INT(count(svg, "<title>"), 1 + 7);
    CHECK(strstr(svg, "<title>transfer on gpu0 -&gt; gpu1: 2 boxes, busy 2</title>") != NULL);
    CHECK(strstr(svg, "<title>transfer on gpu1 -&gt; gpu0: 1 box, busy 0.5</title>") != NULL);
    CHECK(strstr(svg, "<title>forward on gpu0: 1 box, busy 2</title>") != NULL);
    CHECK(strstr(svg, "<title>backward on gpu1: 1 box, busy 1</title>") != NULL);
    CHECK_EQ_INT(count(svg, "<title>sync"), 0);
    CHECK(strstr(svg, ">gpu0 -&gt; gpu1</text>") != NULL);
    CHECK(strstr(svg, ">gpu1 -&gt; gpu0</text>") != NULL);
    CHECK(strstr(svg, "gpu0 -&gt; gpu2") == NULL);
    CHECK(strstr(svg, ">f0 -&gt; b1</text>") != NULL);
    CHECK(strstr(svg, ">w&lt;&amp;&gt;</text>") != NULL);
    CHECK(strstr(svg, "<title>weight&amp;co on gpu2: 1 box, busy 1</title>") != NULL);
    CHECK(strstr(svg, ">weight&amp;co</text>") != NULL);
    CHECK(strstr(svg, "makespan 9.5") != NULL);
    /* The axis names its unit: the problem's, not the trace's millisecond;
     * this problem states none (test_cli: one that does). */
    CHECK(strstr(svg, ">time (time units)</text>") != NULL);
    CHECK(strstr(svg, "time (ms)") == NULL);
    free(svg);
}

/* An overlap breaks the schedule but it still draws; an op without a device
 * or with a NaN time cannot be drawn and is refused. */
static void test_bad(const pp_sched_problem *p, pp_sched_schedule *s)
{
    pp_error err = {0};
    s->start[2] = 4.5;
    s->end[2] = 5.5;
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_INFEASIBLE);
    pp_sched_report_free(&r);
    free(render(p, s, pp_sched_write_svg, PP_OK));
    s->start[1] = NAN;
    free(render(p, s, pp_sched_write_trace, PP_EARG));
    s->start[1] = 3;
    s->device[2] = 3;
    free(render(p, s, pp_sched_write_svg, PP_EARG));
}

int main(void)
{
    pp_sched_problem *p = build();
    CHECK(p != NULL);
    if (!p)
        return CHECK_DONE();
    pp_sched_schedule *s = hand_schedule(p);
    pp_sched_report r;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    if (err.status != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(r.makespan == 9.5);
    pp_sched_report_free(&r);
    test_trace(p, s);
    test_svg(p, s);
    test_bad(p, s);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
    return CHECK_DONE();
}
