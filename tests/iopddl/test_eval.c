/* test_eval.c: pp_iopddl_evaluate against the contest's semantics.
 * Owns two kinds of evidence: hand-made problems whose cost, feasibility,
 * peak usage and peak time are worked out in the comments, and a brute-force
 * oracle that recomputes cost and peak for every assignment of random tiny
 * problems with deliberately naive code (a loop over every time step) that
 * shares nothing with src/iopddl/eval.c. Problems go through pp_iopddl_load
 * as JSON text, so the loader's indexing is checked along the way. */
#include "tiny.h"

/* Evaluates s and checks every field of the result. peak_time -1 means
 * "usage never rises above zero". */
static void expect_eval(const pp_iopddl_problem *p, const uint32_t *s, pp_int128 cost, bool feasible,
                        pp_int128 peak, int64_t peak_time, bool forbidden, int line)
{
    pp_error err = {0};
    pp_iopddl_evaluation ev;
    memset(&ev, 0x5a, sizeof ev);
    pp_status status = pp_iopddl_evaluate(p, s, &ev, &err);
    int before = check_failures;
    CHECK_EQ_INT(status, PP_OK);
    CHECK(ev.cost == cost);
    CHECK_EQ_INT(ev.feasible, feasible);
    CHECK(ev.peak_usage == peak);
    CHECK_EQ_INT(ev.peak_time, peak_time);
    CHECK_EQ_INT(ev.uses_forbidden, forbidden);
    if (check_failures != before)
        fprintf(stderr, "  (in the case at line %d)\n", line);
}

#define EXPECT_EVAL(p, s, cost, feasible, peak, peak_time, forbidden) \
    expect_eval(p, s, cost, feasible, peak, peak_time, forbidden, __LINE__)

/* Intervals are half-open and empty ones count for nothing.
 *   node 0 [0, 10)   costs [1, 2]   usages [5, 7]
 *   node 1 [10, 20)  costs [3]      usages [6]     (starts where node 0 ends)
 *   node 2 [5, 5]    costs [4]      usages [100]   (empty: never live)
 *   node 3 [5, 15)   costs [0, 10]  usages [2, 1]
 * [0,0,0,0]: cost 1+3+4+0 = 8; usage [0,5) 5, [5,10) 5+2 = 7, [10,15) 6+2 = 8,
 *            [15,20) 6: peak 8 at t=10. (Closed intervals would give 13 at
 *            t=10; counting node 2 would give 107 at t=5.)
 * [1,0,0,0]: cost 2+3+4+0 = 9; [0,5) 7, [5,10) 7+2 = 9, [10,15) 8: peak 9 at t=5.
 * [1,0,0,1]: cost 2+3+4+10 = 19; [0,5) 7, [5,10) 8, [10,15) 7, [15,20) 6: peak 8 at t=5.
 * With limit 9: all three are feasible (9 is exactly the limit); with limit
 * 8, [1,0,0,0] is one above and infeasible, the others fit exactly. */
static void test_intervals(void)
{
    static const char *json_fmt =
        "{\"problem\": {\"name\": \"intervals\", \"nodes\": {"
        "\"intervals\": [[0, 10], [10, 20], [5, 5], [5, 15]],"
        "\"costs\": [[1, 2], [3], [4], [0, 10]],"
        "\"usages\": [[5, 7], [6], [100], [2, 1]]},"
        "\"edges\": {\"nodes\": [], \"costs\": []}, \"usage_limit\": %d}}";
    for (int limit = 8; limit <= 9; limit++) {
        char json[512];
        snprintf(json, sizeof json, json_fmt, limit);
        pp_iopddl_problem *p = load_text(json);
        if (!p)
            return;
        uint32_t a[4] = {0, 0, 0, 0}, b[4] = {1, 0, 0, 0}, c[4] = {1, 0, 0, 1};
        EXPECT_EVAL(p, a, 8, true, 8, 10, false);
        EXPECT_EVAL(p, b, 9, limit >= 9, 9, 5, false);
        EXPECT_EVAL(p, c, 19, true, 8, 5, false);
        pp_iopddl_free(p);
    }
}

/* Edges of every shape in one problem, no usage limit.
 *   node 0 [0, 4)  costs [1, 2]     usages [3, 4]
 *   node 1 [2, 6)  costs [3, 4, 5]  usages [5, 6, 7]
 *   node 2 [6, 8)  costs [6, 7]     usages [20, 1]
 *   edge [0, 1, 2]: 12 costs 10k+1, k = (s0*3 + s1)*2 + s2 (first endpoint slowest)
 *   edge [2]:       costs [1000, 2000]
 *   edge [1, 1]:    3x3 costs 10000(k+1); a self-loop reads the diagonal, k = 4*s1
 *   edge [0, 1] twice (duplicates both count): costs 100000(k+1), k = s0*3 + s1
 *   edge [1, 0]:    costs 1000000(k+1), k = s1*2 + s0
 * [1,2,0]: nodes 2+5+6 = 13; triple k=10 -> 101; one-node 1000; self-loop k=8 ->
 *          90000; pair k=5 -> 600000 twice; reversed pair k=5 -> 6000000.
 *          Total 7291114. Usage [0,2) 4, [2,4) 11, [4,6) 7, [6,8) 20: peak 20 at t=6.
 * [0,1,1]: nodes 1+4+7 = 12; triple k=3 -> 31; one-node 2000; self-loop k=4 ->
 *          50000; pair k=1 -> 200000 twice; reversed pair k=2 -> 3000000.
 *          Total 3452043. Usage [0,2) 3, [2,4) 9, [4,6) 6, [6,8) 1: peak 9 at t=2.
 * No limit: both feasible. */
static void test_edges(void)
{
    pp_iopddl_problem *p = load_text(
        "{\"problem\": {\"nodes\": {"
        "\"intervals\": [[0, 4], [2, 6], [6, 8]],"
        "\"costs\": [[1, 2], [3, 4, 5], [6, 7]],"
        "\"usages\": [[3, 4], [5, 6, 7], [20, 1]]},"
        "\"edges\": {"
        "\"nodes\": [[0, 1, 2], [2], [1, 1], [0, 1], [0, 1], [1, 0]],"
        "\"costs\": [[1, 11, 21, 31, 41, 51, 61, 71, 81, 91, 101, 111],"
        "            [1000, 2000],"
        "            [10000, 20000, 30000, 40000, 50000, 60000, 70000, 80000, 90000],"
        "            [100000, 200000, 300000, 400000, 500000, 600000],"
        "            [100000, 200000, 300000, 400000, 500000, 600000],"
        "            [1000000, 2000000, 3000000, 4000000, 5000000, 6000000]]}}}");
    if (!p)
        return;
    CHECK(!p->has_usage_limit);
    uint32_t a[3] = {1, 2, 0}, b[3] = {0, 1, 1};
    EXPECT_EVAL(p, a, 7291114, true, 20, 6, false);
    EXPECT_EVAL(p, b, 3452043, true, 9, 2, false);

    /* A strategy index past the node's count is the caller's error. */
    uint32_t bad[3] = {0, 3, 0};
    pp_error err = {0};
    pp_iopddl_evaluation ev;
    CHECK_EQ_INT(pp_iopddl_evaluate(p, bad, &ev, &err), PP_EINPUT);
    CHECK(strstr(err.message, "node 1") != NULL);
    pp_iopddl_free(p);
}

/* Costs of 1e18 and sums past int64.
 *   ten nodes, each [0, 1) with one strategy costing 1e18 and using 1:
 *   cost 1e19 (> INT64_MAX ~ 9.22e18, so it needs the 128-bit sum), forbidden,
 *   peak 10 at t=0, limit 10 -> feasible. */
static void test_forbidden_sums(void)
{
    char json[2048], *q = json;
    q += sprintf(q, "{\"problem\": {\"usage_limit\": 10, \"nodes\": {\"intervals\": [");
    for (int i = 0; i < 10; i++)
        q += sprintf(q, "%s[0, 1]", i ? ", " : "");
    q += sprintf(q, "], \"costs\": [");
    for (int i = 0; i < 10; i++)
        q += sprintf(q, "%s[1000000000000000000]", i ? ", " : "");
    q += sprintf(q, "], \"usages\": [");
    for (int i = 0; i < 10; i++)
        q += sprintf(q, "%s[1]", i ? ", " : "");
    sprintf(q, "]}}}");
    pp_iopddl_problem *p = load_text(json);
    if (!p)
        return;
    uint32_t s[10] = {0};
    EXPECT_EVAL(p, s, (pp_int128)10 * PP_IOPDDL_FORBIDDEN, true, 10, 0, true);
    pp_iopddl_free(p);
}

/* The forbidden mark is exact: 1e18 - 1 is an ordinary (if huge) cost, and
 * a forbidden edge entry counts like a forbidden node cost.
 *   node 0 [0, 2)  costs [999999999999999999, 0]  usages [0, 0]
 *   node 1 [1, 3)  costs [0, 0]                    usages [0, 0]
 *   edge [0, 1]: costs [0, 0, 1e18, 5], k = s0*2 + s1
 * [0,0]: cost 1e18 - 1, not forbidden.     [1,0]: cost 1e18, forbidden.
 * [1,1]: cost 5.                            Usage is zero throughout: peak 0,
 * no peak time (-1); limit 0 is met exactly, so all are feasible. */
static void test_forbidden_mark(void)
{
    pp_iopddl_problem *p = load_text(
        "{\"problem\": {\"nodes\": {\"intervals\": [[0, 2], [1, 3]],"
        "\"costs\": [[999999999999999999, 0], [0, 0]], \"usages\": [[0, 0], [0, 0]]},"
        "\"edges\": {\"nodes\": [[0, 1]], \"costs\": [[0, 0, 1000000000000000000, 5]]},"
        "\"usage_limit\": 0}}");
    if (!p)
        return;
    uint32_t a[2] = {0, 0}, b[2] = {1, 0}, c[2] = {1, 1};
    EXPECT_EVAL(p, a, PP_IOPDDL_FORBIDDEN - 1, true, 0, -1, false);
    EXPECT_EVAL(p, b, PP_IOPDDL_FORBIDDEN, true, 0, -1, true);
    EXPECT_EVAL(p, c, 5, true, 0, -1, false);
    pp_iopddl_free(p);
}

/* Absent limit with big usages: still feasible, the peak still reported.
 *   node 0 [3, 9)  usage 4e18;  node 1 [5, 7)  usage 4e18;  node 2 [6, 8)  usage 4e18
 *   [5,6) 8e18, [6,7) 1.2e19 (past int64): peak 12e18 at t=6. Costs 0. */
static void test_no_limit_big_usage(void)
{
    pp_iopddl_problem *p = load_text(
        "{\"problem\": {\"nodes\": {\"intervals\": [[3, 9], [5, 7], [6, 8]],"
        "\"costs\": [[0], [0], [0]],"
        "\"usages\": [[4000000000000000000], [4000000000000000000], [4000000000000000000]]}}}");
    if (!p)
        return;
    uint32_t s[3] = {0, 0, 0};
    EXPECT_EVAL(p, s, 0, true, (pp_int128)12 * 1000000000000000000, 6, false);
    pp_iopddl_free(p);
}

/* ---- brute-force oracle on random tiny problems ---- */

static int64_t random_cost(void)
{
    uint32_t r = rnd(20);
    return r == 0 ? PP_IOPDDL_FORBIDDEN : r == 1 ? PP_IOPDDL_FORBIDDEN + rnd(3) : (int64_t)rnd(30);
}

static void random_tiny(tiny *t)
{
    memset(t, 0, sizeof *t);
    t->n = 1 + (int)rnd(MAX_NODES);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(10);
        t->end[i] = t->start[i] + rnd(7);
        t->d[i] = 1 + (int)rnd(MAX_STRATEGIES);
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = random_cost();
            t->usage[i][s] = rnd(10);
        }
    }
    t->m = (int)rnd(MAX_EDGES + 1);
    for (int e = 0; e < t->m; e++) {
        uint32_t r = rnd(10);
        t->arity[e] = r < 1 ? 1 : r < 6 ? 2 : 3;
        for (int k = 0; k < t->arity[e]; k++)
            t->nodes[e][k] = (int)rnd((uint32_t)t->n);
        for (int k = 0; k < table_size(t, e); k++)
            t->edge_cost[e][k] = random_cost();
    }
    t->has_limit = rnd(5) != 0;
    t->limit = rnd(25);
}

/* The naive reading of the contest rules: an edge's entry is found by
 * counting through its endpoints like digits, first endpoint most
 * significant; usage at time t is the sum over nodes with start <= t < end. */
static void oracle(const tiny *t, const uint32_t *s, pp_int128 *cost, pp_int128 *peak,
                   int64_t *peak_time, bool *forbidden)
{
    *cost = 0;
    *forbidden = false;
    for (int i = 0; i < t->n; i++) {
        *cost += t->cost[i][s[i]];
        *forbidden |= t->cost[i][s[i]] >= PP_IOPDDL_FORBIDDEN;
    }
    for (int e = 0; e < t->m; e++) {
        int index = 0, weight = 1;
        for (int k = t->arity[e] - 1; k >= 0; k--) {
            int v = t->nodes[e][k];
            index += (int)s[v] * weight;
            weight *= t->d[v];
        }
        *cost += t->edge_cost[e][index];
        *forbidden |= t->edge_cost[e][index] >= PP_IOPDDL_FORBIDDEN;
    }
    *peak = 0;
    *peak_time = -1;
    for (int64_t time = 0; time <= MAX_TIME; time++) {
        pp_int128 level = 0;
        for (int i = 0; i < t->n; i++)
            if (t->start[i] <= time && time < t->end[i])
                level += t->usage[i][s[i]];
        if (level > *peak) {
            *peak = level;
            *peak_time = time;
        }
    }
}

/* Next assignment in odometer order; false after the last. */
static bool next_assignment(const tiny *t, uint32_t *s)
{
    for (int i = 0; i < t->n; i++) {
        if ((int)++s[i] < t->d[i])
            return true;
        s[i] = 0;
    }
    return false;
}

static void test_oracle(int problems)
{
    static char json[1 << 16];
    long assignments = 0;
    for (int round = 0; round < problems; round++) {
        tiny t;
        random_tiny(&t);
        tiny_json(&t, json);
        pp_iopddl_problem *p = load_text(json);
        if (!p)
            return;
        uint32_t s[MAX_NODES] = {0};
        do {
            pp_int128 cost, peak;
            int64_t peak_time;
            bool forbidden;
            oracle(&t, s, &cost, &peak, &peak_time, &forbidden);
            bool feasible = !t.has_limit || peak <= t.limit;
            int before = check_failures;
            EXPECT_EVAL(p, s, cost, feasible, peak, peak_time, forbidden);
            if (check_failures != before) {
                fprintf(stderr, "oracle disagrees on problem %d, assignment [", round);
                for (int i = 0; i < t.n; i++)
                    fprintf(stderr, "%s%u", i ? ", " : "", s[i]);
                fprintf(stderr, "]:\n%s", json);
                pp_iopddl_free(p);
                return;
            }
            assignments++;
        } while (next_assignment(&t, s));
        pp_iopddl_free(p);
    }
    fprintf(stderr, "oracle: %d problems, %ld assignments agree\n", problems, assignments);
}

int main(void)
{
    test_intervals();
    test_edges();
    test_forbidden_sums();
    test_forbidden_mark();
    test_no_limit_big_usage();
    test_oracle(400);
    return CHECK_DONE();
}
