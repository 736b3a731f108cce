/* test_build.c: the IOPDDL problem builder and contest writer
 * (src/iopddl/build.c, write.c). Owns the evidence that a problem built in
 * memory, written and read back by the loader is the same number for number,
 * and is evaluated as its costs say (every assignment, against a sum by
 * hand); that every kind of value out of range is refused, the first one
 * named by finish; and that the files given on the command line (contest
 * problems, edges of any width) survive a write and a read unchanged. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

static bool same_i64(const int64_t *a, const int64_t *b, uint64_t n) { return n == 0 || !memcmp(a, b, n * sizeof *a); }
static bool same_u64(const uint64_t *a, const uint64_t *b, uint64_t n) { return n == 0 || !memcmp(a, b, n * sizeof *a); }

static void check_same(const pp_iopddl_problem *a, const pp_iopddl_problem *b)
{
    CHECK_EQ_INT(a->node_count, b->node_count);
    CHECK_EQ_INT(a->edge_count, b->edge_count);
    if (a->node_count != b->node_count || a->edge_count != b->edge_count)
        return;
    uint32_t n = a->node_count, m = a->edge_count;
    CHECK(same_u64(a->strategy_start, b->strategy_start, (uint64_t)n + 1));
    CHECK(same_i64(a->interval_start, b->interval_start, n) && same_i64(a->interval_end, b->interval_end, n));
    CHECK(same_i64(a->node_cost, b->node_cost, a->strategy_start[n]));
    CHECK(same_i64(a->node_usage, b->node_usage, a->strategy_start[n]));
    CHECK(same_u64(a->edge_node_start, b->edge_node_start, (uint64_t)m + 1));
    CHECK(same_u64(a->edge_cost_start, b->edge_cost_start, (uint64_t)m + 1));
    CHECK(!memcmp(a->edge_nodes, b->edge_nodes, a->edge_node_start[m] * sizeof *a->edge_nodes));
    CHECK(same_i64(a->edge_cost, b->edge_cost, a->edge_cost_start[m]));
    CHECK(a->has_usage_limit == b->has_usage_limit && a->usage_limit == b->usage_limit);
}

/* Writes p under name and loads the file back. */
static pp_iopddl_problem *round_trip(const pp_iopddl_problem *p, const char *name)
{
    char path[] = "/tmp/pp_test_build_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_iopddl_write(p, name, f, &err), PP_OK);
    fclose(f);
    pp_iopddl_problem *back = NULL;
    pp_status st = pp_iopddl_load(path, &back, &err);
    CHECK_EQ_INT(st, PP_OK);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    unlink(path);
    return back;
}

/* Three nodes of 2, 3 and 1 strategies, edges 0-1 and 1-2, a limit. */
static pp_iopddl_problem *small(void)
{
    uint32_t counts[] = {2, 3, 1};
    pp_iopddl_builder *b;
    pp_error err = {0};
    CHECK_EQ_INT(pp_iopddl_builder_new(3, counts, &b, &err), PP_OK);
    CHECK(pp_iopddl_builder_interval(b, 0, 0, 4) && pp_iopddl_builder_interval(b, 1, 2, 6) &&
          pp_iopddl_builder_interval(b, 2, 5, 5));
    for (uint32_t n = 0; n < 3; n++)
        for (uint32_t s = 0; s < counts[n]; s++)
            CHECK(pp_iopddl_builder_strategy(b, n, s, 10 * n + s, 100 + 7 * n - 3 * s));
    int64_t e01[] = {1, 2, 3, 4, 5, 6}, e12[] = {7, 8, 9};
    CHECK(pp_iopddl_builder_edge(b, 0, 1, e01) && pp_iopddl_builder_edge(b, 1, 2, e12));
    CHECK(pp_iopddl_builder_limit(b, 210));
    pp_iopddl_problem *p = NULL;
    CHECK_EQ_INT(pp_iopddl_builder_finish(b, &p, &err), PP_OK);
    return p;
}

static void test_small(void)
{
    pp_iopddl_problem *p = small();
    if (!p)
        return;
    CHECK_EQ_INT(p->edge_count, 2);
    pp_iopddl_problem *back = round_trip(p, "small \"one\"");
    if (back) {
        check_same(p, back);
        CHECK(!strcmp(back->name, "small \"one\"")); /* written escaped, read unescaped */
    }
    /* Every assignment: cost and usage by hand. Nodes 0 and 1 overlap on
     * [2, 4); node 2's interval is empty. */
    for (uint32_t s0 = 0; s0 < 2; s0++)
        for (uint32_t s1 = 0; s1 < 3; s1++) {
            uint32_t x[3] = {s0, s1, 0};
            int64_t cost = s0 + (10 + s1) + 20 + (1 + 3 * s0 + s1) + (7 + s1);
            int64_t peak = (100 - 3 * s0) + (107 - 3 * s1);
            pp_iopddl_evaluation ev;
            pp_error err = {0};
            CHECK_EQ_INT(pp_iopddl_evaluate(back ? back : p, x, &ev, &err), PP_OK);
            CHECK_EQ_INT((int64_t)ev.cost, cost);
            CHECK_EQ_INT((int64_t)ev.peak_usage, peak);
            CHECK(ev.feasible == (peak <= 210));
        }
    pp_iopddl_free(back);
    pp_iopddl_free(p);
}

/* Each mistake is refused by its setter and named by finish. */
static void test_mistakes(void)
{
    uint32_t counts[] = {2, 2}, none[] = {2, 0};
    int64_t costs[] = {0, 1, 2, 3}, negative[] = {0, -1, 2, 3};
    pp_error err = {0};
    pp_iopddl_builder *b;
    CHECK_EQ_INT(pp_iopddl_builder_new(2, none, &b, &err), PP_EARG);
    CHECK(strstr(err.message, "node 1 has no strategies") != NULL);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_iopddl_builder_new(0, counts, &b, &err), PP_EARG);
    CHECK(strstr(err.message, "at least one node") != NULL);
    const char *expect[] = {"no node 2", "interval [3, 2]", "no strategy 2", "negative cost -1", "node 1 and node 1",
                            "negative cost -1 at entry 1", "usage limit -5"};
    for (int k = 0; k < 7; k++) {
        pp_error_clear(&err);
        CHECK_EQ_INT(pp_iopddl_builder_new(2, counts, &b, &err), PP_OK);
        bool ok = k == 0   ? pp_iopddl_builder_interval(b, 2, 0, 1)
                  : k == 1 ? pp_iopddl_builder_interval(b, 0, 3, 2)
                  : k == 2 ? pp_iopddl_builder_strategy(b, 1, 2, 0, 0)
                  : k == 3 ? pp_iopddl_builder_strategy(b, 1, 0, -1, 0)
                  : k == 4 ? pp_iopddl_builder_edge(b, 1, 1, costs)
                  : k == 5 ? pp_iopddl_builder_edge(b, 0, 1, negative)
                           : pp_iopddl_builder_limit(b, -5);
        CHECK(!ok);
        CHECK(pp_iopddl_builder_strategy(b, 0, 1, 4, 4)); /* later good values change nothing */
        pp_iopddl_problem *p = NULL;
        CHECK_EQ_INT(pp_iopddl_builder_finish(b, &p, &err), PP_EARG);
        CHECK(p == NULL);
        if (!strstr(err.message, expect[k]))
            fprintf(stderr, "mistake %d: \"%s\" does not say \"%s\"\n", k, err.message, expect[k]);
        CHECK(strstr(err.message, expect[k]) != NULL);
    }
}

int main(int argc, char **argv)
{
    test_small();
    test_mistakes();
    for (int i = 1; i < argc; i++) {
        pp_iopddl_problem *p = NULL, *back;
        pp_error err = {0};
        CHECK_EQ_INT(pp_iopddl_load(argv[i], &p, &err), PP_OK);
        if (p && (back = round_trip(p, NULL)) != NULL) {
            check_same(p, back);
            CHECK(!strcmp(p->name, back->name));
            pp_iopddl_free(back);
        }
        pp_iopddl_free(p);
    }
    return CHECK_DONE();
}
