/* test_solver_small.c: pp_iopddl_solve against exhaustive search.
 * Owns the solver's optimality and feasibility evidence on random tiny
 * problems (<= 6 nodes, <= 3 strategies: at most 729 assignments, all
 * enumerated): one-, two- and three-node edges with repeated endpoints,
 * forbidden 1e18 entries, limits from none through tight to impossible.
 * The brute force scores assignments with pp_iopddl_evaluate, which
 * test_eval.c checks against its own oracle and which shares no code with
 * the search. Also: fixed seed, threads and rounds give the same answer.
 * Cases the solver once got wrong stay in as regression cases. */
#include <signal.h>
#include "tiny.h"

/* Fewer edges than tiny.h allows: the problem streams stay as they were. */
enum { SOLVER_MAX_EDGES = 9 };

/* forbidden_one_in 0: never forbidden. */
static int64_t random_cost(uint32_t forbidden_one_in)
{
    return forbidden_one_in && rnd(forbidden_one_in) == 0 ? PP_IOPDDL_FORBIDDEN : (int64_t)rnd(50);
}

/* Usage peak of s, by the definition (every time step, half-open intervals). */
static int64_t peak_of(const tiny *t, const int *s)
{
    int64_t peak = 0;
    for (int64_t time = 0; time <= MAX_TIME; time++) {
        int64_t level = 0;
        for (int i = 0; i < t->n; i++)
            if (t->start[i] <= time && time < t->end[i])
                level += t->usage[i][s[i]];
        peak = level > peak ? level : peak;
    }
    return peak;
}

/* Limits are placed relative to the least and the largest possible peak so
 * that every regime shows up often: impossible, exactly tight, somewhere in
 * between, or no limit at all. */
static void random_tiny(tiny *t, uint32_t forbidden_one_in)
{
    memset(t, 0, sizeof *t);
    t->n = 1 + (int)rnd(MAX_NODES);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(8);
        t->end[i] = t->start[i] + (rnd(6) == 0 ? 0 : 1 + rnd(7));
        t->d[i] = 1 + (int)rnd(MAX_STRATEGIES);
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = random_cost(forbidden_one_in);
            t->usage[i][s] = rnd(12);
        }
    }
    t->m = (int)rnd(SOLVER_MAX_EDGES + 1);
    for (int e = 0; e < t->m; e++) {
        uint32_t r = rnd(10);
        t->arity[e] = r < 1 ? 1 : r < 7 ? 2 : 3;
        for (int k = 0; k < t->arity[e]; k++)
            t->nodes[e][k] = (int)rnd((uint32_t)t->n);
        for (int k = 0; k < table_size(t, e); k++)
            t->edge_cost[e][k] = random_cost(forbidden_one_in);
    }
    int least[MAX_NODES], most[MAX_NODES];
    for (int i = 0; i < t->n; i++) {
        least[i] = most[i] = 0;
        for (int s = 1; s < t->d[i]; s++) {
            least[i] = t->usage[i][s] < t->usage[i][least[i]] ? s : least[i];
            most[i] = t->usage[i][s] > t->usage[i][most[i]] ? s : most[i];
        }
    }
    int64_t low = peak_of(t, least), high = peak_of(t, most);
    t->has_limit = true;
    switch (rnd(6)) {
    case 0: t->has_limit = false; break;
    case 1: t->limit = low > 0 ? low - 1 - (int64_t)rnd((uint32_t)low) : 0; break;
    case 2: t->limit = low; break;
    case 3: t->limit = low + 1; break;
    default: t->limit = low + (int64_t)rnd((uint32_t)(high - low + 1)); break;
    }
}

/* The least cost over feasible assignments, or -1 if none is feasible. */
static pp_int128 brute_force(const pp_iopddl_problem *p)
{
    uint32_t s[MAX_NODES] = {0};
    pp_int128 best = -1;
    for (;;) {
        pp_error err = {0};
        pp_iopddl_evaluation ev;
        CHECK_EQ_INT(pp_iopddl_evaluate(p, s, &ev, &err), PP_OK);
        if (ev.feasible && (best < 0 || ev.cost < best))
            best = ev.cost;
        if (!tiny_next_assignment(p, s))
            return best;
    }
}

static void solve_options(pp_iopddl_options *o, uint64_t seed)
{
    pp_iopddl_options_default(o);
    o->threads = 2;
    o->max_rounds = 50;
    o->time_limit = 10;
    o->seed = seed;
}

typedef struct {
    pp_status status;
    pp_int128 cost;
    int64_t rounds;
    bool feasible;
    char message[512];
    uint32_t strategies[200];
} solve_report;

/* A tiny solve takes milliseconds; the watchdog only bounds a hang (one
 * happened: ties between forbidden costs once made polish cycle forever),
 * ending the test with the problem named rather than stalling ctest. */
enum { WATCHDOG_SECONDS = 30 };
static const char *watched_label = "", *watched_json = "";

static void on_watchdog(int sig)
{
    (void)sig;
    static const char head[] = "watchdog: the solver did not return on ";
    ssize_t ignored = write(2, head, sizeof head - 1);
    ignored = write(2, watched_label, strlen(watched_label));
    ignored = write(2, ":\n", 2);
    ignored = write(2, watched_json, strlen(watched_json));
    (void)ignored;
    _exit(1);
}

static void solve_with(const pp_iopddl_problem *p, uint64_t seed, unsigned seconds, bool no_exact,
                       const char *label, const char *json, solve_report *out)
{
    memset(out, 0, sizeof *out);
    CHECK(p->node_count <= 200);
    watched_label = label;
    watched_json = json;
    signal(SIGALRM, on_watchdog);
    alarm(seconds);
    pp_iopddl_options o;
    solve_options(&o, seed);
    o.no_exact = no_exact;
    pp_iopddl_result r;
    pp_error err = {0};
    out->status = pp_iopddl_solve(p, &o, &r, &err);
    alarm(0);
    out->cost = r.cost;
    out->rounds = r.rounds;
    out->feasible = r.feasible;
    snprintf(out->message, sizeof out->message, "%s", err.message);
    if (r.strategies && p->node_count <= 200)
        memcpy(out->strategies, r.strategies, p->node_count * sizeof(uint32_t));
    pp_iopddl_result_free(&r);
}

/* Solves p and compares with the exhaustive optimum best (-1: nothing
 * fits): PP_INFEASIBLE exactly when no assignment fits; otherwise a
 * feasible answer, its cost reported as the contest's exact sum, at the
 * optimum, also when every feasible answer needs a forbidden entry (the
 * MIP leaves those out and doubles cannot tell 10^18 + 131 from
 * 10^18 + 147: the exact stage's integer search answers there). Returns
 * whether the solver agreed. */
static bool check_solve(const pp_iopddl_problem *p, const char *json, uint64_t seed, pp_int128 best,
                        const char *label)
{
    solve_report r;
    solve_with(p, seed, WATCHDOG_SECONDS, false, label, json, &r);
    int before = check_failures;
    pp_iopddl_evaluation ev = {0};
    if (best < 0) {
        CHECK_EQ_INT(r.status, PP_INFEASIBLE);
    } else {
        CHECK_EQ_INT(r.status, PP_OK);
        if (r.status == PP_OK) {
            CHECK(r.feasible);
            pp_error err = {0};
            CHECK_EQ_INT(pp_iopddl_evaluate(p, r.strategies, &ev, &err), PP_OK);
            CHECK(ev.feasible);
            /* The reported cost is the contest's sum, forbidden terms and all. */
            CHECK(r.cost == ev.cost);
            CHECK(ev.cost == best);
        }
    }
    bool agreed = check_failures == before;
    if (!agreed) {
        fprintf(stderr, "%s: seed %llu: expected %s", label, (unsigned long long)seed,
                best < 0 ? "PP_INFEASIBLE" : "PP_OK at cost ");
        if (best >= 0)
            print_int128(stderr, best);
        fprintf(stderr, "; returned %s, cost ", pp_status_name(r.status));
        print_int128(stderr, r.cost);
        if (r.status == PP_OK) {
            fprintf(stderr, " (evaluated: ");
            print_int128(stderr, ev.cost);
            fprintf(stderr, ", %s)", ev.feasible ? "feasible" : "infeasible");
        } else if (r.status != PP_INFEASIBLE) {
            fprintf(stderr, " (%s)", r.message);
        }
        fprintf(stderr, "; problem:\n%s", json);
    }
    return agreed;
}

/* count random problems, each a fresh draw with forbidden entries one in
 * forbidden_one_in (0: none). */
static void test_random(const char *name, uint64_t stream, int count, uint32_t forbidden_one_in)
{
    static char json[1 << 16];
    int infeasible = 0, forbidden_only = 0, missed = 0;
    /* Each regime has its own stream: a problem's index (in messages) does
     * not depend on how many problems another regime makes. */
    rng_state = stream;
    for (int round = 0; round < count; round++) {
        tiny t;
        random_tiny(&t, forbidden_one_in == 0 ? 0 : rnd(3) == 0 ? 4 : forbidden_one_in);
        tiny_json(&t, json);
        pp_iopddl_problem *p = load_text(json);
        if (!p)
            return;
        pp_int128 best = brute_force(p);
        infeasible += best < 0;
        forbidden_only += best >= PP_IOPDDL_FORBIDDEN;
        char label[64];
        snprintf(label, sizeof label, "%s random problem %d", name, round);
        missed += !check_solve(p, json, (uint64_t)round + 1, best, label);
        pp_iopddl_free(p);
    }
    fprintf(stderr, "%s random: %d problems (%d infeasible, %d needing a forbidden entry), "
            "%d disagreements\n", name, count, infeasible, forbidden_only, missed);
    /* The generator must keep producing every regime, or the test says less than it seems. */
    CHECK(infeasible > count / 20);
    if (forbidden_one_in)
        CHECK(forbidden_only > count / 20);
}

/* Problems the solver once got wrong, with their exhaustive optimum. */
static void test_known_cases(void)
{
    static const struct {
        const char *label;
        uint64_t seed;
        pp_int128 optimum; /* by hand for the first three, else by the brute force when found */
        const char *json;
    } cases[] = {
        /* Once hung: one node, two strategies at 1e18. Polish's "strictly
         * better" test, cost[s] > cost[best] - 0.5 in doubles, was false for
         * a tie at 2^53 and above, so the node flipped between the two
         * forever; the first-feasible polish had no deadline. */
        {"forbidden tie", 1, 1000000000000000000,
         "{\"problem\": {\"nodes\": {\"intervals\": [[0, 1]],\n"
         "\"costs\": [[1000000000000000000, 1000000000000000000]], \"usages\": [[0, 0]]}}}\n"},
        /* Once hung the same way, with an ordinary cost of 2^53. */
        {"large-cost tie", 1, 9007199254740992,
         "{\"problem\": {\"nodes\": {\"intervals\": [[0, 1]],\n"
         "\"costs\": [[9007199254740992, 9007199254740992]], \"usages\": [[0, 0]]}}}\n"},
        /* Once hung: node 1's strategies both saturate to 1e18 (forbidden,
         * plus a self-loop); 9 + 1e18 + 13 + 32. */
        {"forbidden tie via self-loop", 11, 1000000000000000054,
         "{\"problem\": {\"nodes\": {\"intervals\": [[5, 6], [4, 6], [6, 6]],\n"
         "\"costs\": [[1000000000000000000, 9], [1000000000000000000, 1000000000000000000], [32, 41, 39]],\n"
         "\"usages\": [[11, 6], [9, 9], [4, 1, 8]]},\n"
         "\"edges\": {\"nodes\": [[1, 1]],\n"
         "\"costs\": [[16, 16, 12, 13]]},\n"
         "\"usage_limit\": 15}}\n"},
        /* Once hung before searching: node 2's two least-usage strategies
         * are both forbidden, so the least-usage start tied at 1e18, though
         * an ordinary answer exists. */
        {"forbidden tie at the start", 226, 111,
         "{\"problem\": {\"nodes\": {\"intervals\": [[4, 8], [3, 8], [2, 6], [5, 9]],\n"
         "\"costs\": [[10], [34, 17, 18], [1000000000000000000, 1000000000000000000, 28], [32, 21]],\n"
         "\"usages\": [[8], [2, 8, 11], [0, 0, 1], [1, 11]]},\n"
         "\"edges\": {\"nodes\": [[1, 2, 1]],\n"
         "\"costs\": [[44, 31, 17, 2, 18, 37, 7, 43, 47, 23, 28, 36, 14, 18, 4, 36, 20, 1000000000000000000, "
         "35, 43, 12, 15, 2, 44, 3, 31, 23]]},\n"
         "\"usage_limit\": 17}}\n"},
        /* Once missed (295), with many three-node edges. */
        {"optimum 294", 68, 294,
         "{\"problem\": {\"nodes\": {\"intervals\": [[6, 9], [3, 10], [5, 12], [5, 8], [0, 7]],\n"
         "\"costs\": [[1], [3, 45], [1, 24, 35], [10, 15], [31, 19, 16]],\n"
         "\"usages\": [[3], [2, 0], [1, 0, 2], [8, 5], [9, 1, 6]]},\n"
         "\"edges\": {\"nodes\": [[4, 2, 2], [2, 0, 1], [0], [1, 4, 4], [2, 1], [2, 4], [2], [4, 3, 4], [4, 2, 2]],\n"
         "\"costs\": [[23, 19, 18, 19, 34, 31, 11, 42, 28, 30, 41, 7, 1, 43, 23, 49, 34, 38, 27, 47, 37, 48, 37, 28, "
         "20, 7, 9], [45, 33, 45, 1, 5, 43], [40], "
         "[3, 49, 17, 12, 23, 34, 39, 35, 36, 49, 42, 13, 34, 35, 17, 19, 29, 30], [3, 29, 6, 18, 21, 17], "
         "[35, 20, 36, 17, 20, 9, 24, 39, 24], [41, 16, 18], "
         "[42, 38, 29, 45, 37, 26, 4, 27, 23, 11, 14, 35, 49, 42, 30, 7, 23, 47], "
         "[4, 8, 9, 46, 18, 47, 12, 44, 0, 40, 18, 14, 37, 37, 6, 34, 13, 42, 30, 41, 18, 40, 29, 28, 9, 20, 24]]},\n"
         "\"usage_limit\": 18}}\n"},
        /* Missed: the solver returns 172. */
        {"optimum 165", 284, 165,
         "{\"problem\": {\"nodes\": {\"intervals\": [[6, 11], [1, 5], [0, 1], [2, 6], [1, 2], [2, 9]],\n"
         "\"costs\": [[23], [28, 16], [6, 42, 5], [48, 28], [24, 27], [4, 3]],\n"
         "\"usages\": [[2], [0, 10], [1, 5, 4], [11, 8], [6, 8], [10, 6]]},\n"
         "\"edges\": {\"nodes\": [[1, 3], [0, 3], [3, 5, 4], [4, 4]],\n"
         "\"costs\": [[21, 44, 7, 21], [12, 22], [30, 16, 22, 14, 10, 34, 39, 7], [12, 3, 31, 42]]},\n"
         "\"usage_limit\": 31}}\n"},
        /* Missed, and the smallest such case found: the solver returns 157. */
        {"optimum 156", 2541, 156,
         "{\"problem\": {\"nodes\": {\"intervals\": [[3, 6], [2, 7], [5, 5], [0, 7], [6, 12], [7, 7]],\n"
         "\"costs\": [[24], [8], [10, 25], [8, 24], [43, 6, 48], [2, 13, 34]],\n"
         "\"usages\": [[5], [0], [5, 9], [8, 11], [0, 9, 2], [5, 1, 1]]},\n"
         "\"edges\": {\"nodes\": [[4, 2], [0]],\n"
         "\"costs\": [[45, 12, 44, 0, 21, 23], [35]]},\n"
         "\"usage_limit\": 14}}\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pp_iopddl_problem *p = load_text(cases[k].json);
        if (!p)
            continue;
        pp_int128 best = brute_force(p);
        /* The recorded optimum pins the brute force (and the evaluator) too. */
        CHECK(best == cases[k].optimum);
        char label[64];
        snprintf(label, sizeof label, "known case \"%s\"", cases[k].label);
        check_solve(p, cases[k].json, cases[k].seed, best, label);
        pp_iopddl_free(p);
    }
}

/* A bigger random problem, where the workers' search paths really differ:
 * the same seed, threads and rounds must still give the same answer. */
static void test_determinism(void)
{
    enum { N = 150, E = 300, T = 130 };
    static char json[1 << 20];
    char *q = json;
    rng_state = 0xd1b54a32d192ed03u;
    int start[N], end[N], d[N], least[N];
    for (int i = 0; i < N; i++) {
        start[i] = (int)rnd(100);
        end[i] = start[i] + 1 + (int)rnd(30);
    }
    q += sprintf(q, "{\"problem\": {\"nodes\": {\"intervals\": [");
    for (int i = 0; i < N; i++)
        q += sprintf(q, "%s[%d, %d]", i ? ", " : "", start[i], end[i]);
    q += sprintf(q, "], \"costs\": [");
    for (int i = 0; i < N; i++) {
        d[i] = 1 + (int)rnd(4);
        q += sprintf(q, "%s[", i ? ", " : "");
        for (int s = 0; s < d[i]; s++)
            q += sprintf(q, "%s%u", s ? ", " : "", rnd(1000));
        q += sprintf(q, "]");
    }
    q += sprintf(q, "], \"usages\": [");
    for (int i = 0; i < N; i++) {
        q += sprintf(q, "%s[", i ? ", " : "");
        least[i] = 1000;
        for (int s = 0; s < d[i]; s++) {
            int u = 10 + (int)rnd(100);
            least[i] = u < least[i] ? u : least[i];
            q += sprintf(q, "%s%d", s ? ", " : "", u);
        }
        q += sprintf(q, "]");
    }
    int a[E], b[E];
    q += sprintf(q, "]}, \"edges\": {\"nodes\": [");
    for (int e = 0; e < E; e++) {
        a[e] = (int)rnd(N);
        b[e] = (int)rnd(N);
        q += sprintf(q, "%s[%d, %d]", e ? ", " : "", a[e], b[e]);
    }
    q += sprintf(q, "], \"costs\": [");
    for (int e = 0; e < E; e++) {
        q += sprintf(q, "%s[", e ? ", " : "");
        for (int k = 0; k < d[a[e]] * d[b[e]]; k++)
            q += sprintf(q, "%s%u", k ? ", " : "", rnd(1000));
        q += sprintf(q, "]");
    }
    /* A limit a little above the least-usage peak: feasible, but tight
     * enough that the weights matter and the rounds take different turns. */
    int low = 0;
    for (int t = 0; t < T; t++) {
        int level = 0;
        for (int i = 0; i < N; i++)
            level += start[i] <= t && t < end[i] ? least[i] : 0;
        low = level > low ? level : low;
    }
    sprintf(q, "]}, \"usage_limit\": %d}}", low + low / 5);
    pp_iopddl_problem *p = load_text(json);
    if (!p)
        return;
    solve_report r[2];
    for (int k = 0; k < 2; k++) {
        /* The relaxation workers, not the exact solver, are what could
         * differ from run to run. */
        solve_with(p, 7, 120, true, "the determinism problem", "(generated in test_determinism)\n", &r[k]);
        CHECK_EQ_INT(r[k].status, PP_OK);
        if (r[k].status != PP_OK)
            fprintf(stderr, "determinism: %s\n", r[k].message);
    }
    CHECK(r[1].cost == r[0].cost);
    CHECK_EQ_INT(r[0].rounds, 2 * 50);
    CHECK_EQ_INT(r[1].rounds, r[0].rounds);
    CHECK(memcmp(r[0].strategies, r[1].strategies, N * sizeof(uint32_t)) == 0);
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    CHECK_EQ_INT(pp_iopddl_evaluate(p, r[0].strategies, &ev, &err), PP_OK);
    CHECK(ev.feasible);
    CHECK(ev.cost == r[0].cost);
    fprintf(stderr, "determinism: cost %lld twice, %lld rounds, limit %d\n", (long long)r[0].cost,
            (long long)r[0].rounds, low + low / 5);
    pp_iopddl_free(p);
}


int main(int argc, char **argv)
{
    /* The counts can be raised for a longer search, e.g.
     * test_iopddl_solver_small 3000 1000. */
    int plain = argc > 1 ? atoi(argv[1]) : 300, forbidden = argc > 2 ? atoi(argv[2]) : 150;
    test_known_cases();
    test_random("plain", 0x2545f4914f6cdd1du, plain, 0);
    test_random("forbidden", 0x9e3779b97f4a7c15u, forbidden, 20);
    test_determinism();
    return CHECK_DONE();
}
