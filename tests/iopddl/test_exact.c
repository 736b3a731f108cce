/* test_exact.c: the exact solver (src/iopddl/exact.c). Owns its evidence:
 * the contest example solved to 445 and proven; random tiny problems built
 * to exercise every presolve step (one-to-one and many-to-one edges, equal
 * and dominated strategies, additive tables, usage-free chains, tight and
 * impossible limits, forbidden entries) against exhaustive search scored by
 * pp_iopddl_evaluate; warm starts (optimal and costliest); edges over
 * three nodes, through their auxiliary nodes; graph colouring, which only branching decides; and, when given,
 * instance G solved within a time limit to a feasible answer checked by the
 * evaluator, with the figures printed on stderr (no time is asserted), then
 * refused under a small nonzero cap, and cut off after half a second with
 * its answer as the warm start (which must come back). Given OPTIMUM too,
 * the answer must be proven optimal and is written there (the contest's
 * answer line): iopddl_bound_G checks its bound against it rather than
 * prove G's optimum a second time (a CTest fixture).
 * Usage: test_iopddl_exact EXAMPLE [G_FILE [SECONDS [THREADS [OPTIMUM]]]]:
 * with G_FILE, the example and G only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iopddl/exact.h"
#include "parplan/iopddl.h"

#define F PP_IOPDDL_FORBIDDEN

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(uint32_t bound)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % bound);
}

enum { MAX_N = 7, MAX_D = 4, MAX_E = 14 };

/* A problem in the loader's layout, owned by its arena (pp_iopddl_free). */
static pp_iopddl_problem *new_problem(uint32_t n, const uint32_t *d, uint32_t edges, const uint32_t *arity)
{
    pp_arena *a = pp_arena_new(1 << 14);
    pp_iopddl_problem *p = pp_arena_calloc(a, 1, sizeof *p);
    p->arena = a;
    p->node_count = n;
    p->interval_start = pp_arena_calloc(a, n + 1, sizeof(int64_t));
    p->interval_end = pp_arena_calloc(a, n + 1, sizeof(int64_t));
    p->strategy_start = pp_arena_calloc(a, n + 1, sizeof(uint64_t));
    for (uint32_t i = 0; i < n; i++)
        p->strategy_start[i + 1] = p->strategy_start[i] + d[i];
    p->node_cost = pp_arena_calloc(a, p->strategy_start[n] + 1, sizeof(int64_t));
    p->node_usage = pp_arena_calloc(a, p->strategy_start[n] + 1, sizeof(int64_t));
    p->edge_count = edges;
    p->edge_node_start = pp_arena_calloc(a, edges + 1, sizeof(uint64_t));
    for (uint32_t e = 0; e < edges; e++)
        p->edge_node_start[e + 1] = p->edge_node_start[e] + arity[e];
    p->edge_nodes = pp_arena_calloc(a, p->edge_node_start[edges] + 1, sizeof(uint32_t));
    p->edge_cost_start = pp_arena_calloc(a, edges + 1, sizeof(uint64_t));
    return p;
}

/* Sizes the edge cost array once the edges' nodes are known. */
static void size_edge_costs(pp_iopddl_problem *p)
{
    for (uint32_t e = 0; e < p->edge_count; e++) {
        uint64_t size = 1;
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++)
            size *= pp_iopddl_strategy_count(p, p->edge_nodes[k]);
        p->edge_cost_start[e + 1] = p->edge_cost_start[e] + size;
    }
    p->edge_cost = pp_arena_calloc(p->arena, p->edge_cost_start[p->edge_count] + 1, sizeof(int64_t));
}

/* Random tiny problem. Pair tables come in kinds the presolve treats
 * specially: a function of one end (everything else forbidden), one-to-one,
 * additive, constant, or plain random with some forbidden entries. Dense
 * problems have random tables only, more edges and a limit that can be met,
 * so that a MIP is left after the presolve more often. */
static pp_iopddl_problem *random_problem(bool dense)
{
    uint32_t n = dense ? MAX_N - rnd(2) : 2 + rnd(MAX_N - 1), d[MAX_N];
    uint32_t edges = dense ? MAX_E - rnd(4) : rnd(MAX_E + 1), arity[MAX_E];
    for (uint32_t i = 0; i < n; i++)
        d[i] = dense ? 2 + rnd(MAX_D - 1) : 1 + rnd(MAX_D);
    for (uint32_t e = 0; e < edges; e++)
        arity[e] = rnd(10) == 0 ? 1 : 2;
    pp_iopddl_problem *p = new_problem(n, d, edges, arity);
    uint32_t forbid_one_in = dense ? 100 : rnd(4) == 0 ? 6 : 60;
    bool small_usage = !dense && rnd(2) == 0; /* many equal usages: ties and usage-free nodes */
    for (uint32_t i = 0; i < n; i++) {
        p->interval_start[i] = rnd(10);
        p->interval_end[i] = p->interval_start[i] + (rnd(8) == 0 ? 0 : 1 + rnd(8));
        for (uint32_t s = 0; s < d[i]; s++) {
            uint64_t k = p->strategy_start[i] + s;
            p->node_cost[k] = rnd(forbid_one_in) == 0 ? F : (int64_t)rnd(30);
            p->node_usage[k] = small_usage ? (int64_t)rnd(2) : (int64_t)rnd(12);
        }
    }
    for (uint32_t e = 0; e < edges; e++) {
        uint64_t at = p->edge_node_start[e];
        p->edge_nodes[at] = rnd(n);
        if (arity[e] == 2)
            p->edge_nodes[at + 1] = rnd(8) == 0 ? p->edge_nodes[at] : rnd(n); /* self-loops too */
    }
    size_edge_costs(p);
    for (uint32_t e = 0; e < edges; e++) {
        uint64_t at = p->edge_node_start[e];
        int64_t *c = p->edge_cost + p->edge_cost_start[e];
        if (arity[e] == 1) {
            for (uint32_t s = 0; s < d[p->edge_nodes[at]]; s++)
                c[s] = rnd(20);
            continue;
        }
        uint32_t u = p->edge_nodes[at], v = p->edge_nodes[at + 1], du = d[u], dv = d[v];
        uint32_t kind = dense ? 4 + rnd(8) : rnd(12); /* dense: random tables only, so cycles stay */
        uint32_t fu[MAX_D];
        int64_t ru[MAX_D], rv[MAX_D];
        for (uint32_t s = 0; s < MAX_D; s++) {
            fu[s] = rnd(dv);
            ru[s] = rnd(15);
            rv[s] = rnd(15);
        }
        if (kind == 1 && du == dv) { /* a permutation */
            for (uint32_t s = 0; s < du; s++)
                fu[s] = s;
            for (uint32_t s = du - 1; s > 0; s--) {
                uint32_t j = rnd(s + 1), x = fu[j];
                fu[j] = fu[s];
                fu[s] = x;
            }
        }
        for (uint32_t s = 0; s < du; s++)
            for (uint32_t t = 0; t < dv; t++) {
                int64_t *x = &c[s * dv + t];
                switch (kind) {
                case 0: /* a function of u's strategy */
                case 1: *x = t == fu[s] ? (int64_t)rnd(10) : F; break;
                case 2: *x = ru[s] + rv[t]; break;
                case 3: *x = 7; break;
                default: *x = rnd(forbid_one_in) == 0 ? F : (int64_t)rnd(40); break;
                }
            }
    }
    /* Limit: none, impossible, tight or loose, from the least-usage peak. */
    uint32_t regime = dense ? 3 : rnd(5);
    p->has_usage_limit = regime != 0;
    if (p->has_usage_limit) {
        int64_t least_peak = 0, most_peak = 0;
        for (int64_t t = 0; t < 20; t++) {
            int64_t lo = 0, hi = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (!(p->interval_start[i] <= t && t < p->interval_end[i]))
                    continue;
                int64_t a = INT64_MAX, b = 0;
                for (uint64_t k = p->strategy_start[i]; k < p->strategy_start[i + 1]; k++) {
                    a = p->node_usage[k] < a ? p->node_usage[k] : a;
                    b = p->node_usage[k] > b ? p->node_usage[k] : b;
                }
                lo += a;
                hi += b;
            }
            least_peak = lo > least_peak ? lo : least_peak;
            most_peak = hi > most_peak ? hi : most_peak;
        }
        if (regime == 1)
            p->usage_limit = least_peak - 1;
        else if (regime == 2)
            p->usage_limit = least_peak;
        else
            p->usage_limit = least_peak + (int64_t)rnd((uint32_t)(most_peak - least_peak + 1));
    }
    return p;
}

/* Exhaustive search: the least cost of an assignment that fits and uses no
 * forbidden entry, or -1; also the costliest such assignment. */
static int64_t brute_force(const pp_iopddl_problem *p, uint32_t *best_x, uint32_t *worst_x)
{
    uint32_t n = p->node_count, x[MAX_N] = {0};
    int64_t best = -1, worst = -1;
    pp_error err = {0};
    for (;;) {
        pp_iopddl_evaluation ev;
        if (pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK && ev.feasible && !ev.uses_forbidden) {
            if (best < 0 || ev.cost < best) {
                best = (int64_t)ev.cost;
                memcpy(best_x, x, n * sizeof *x);
            }
            if (ev.cost > worst) {
                worst = (int64_t)ev.cost;
                memcpy(worst_x, x, n * sizeof *x);
            }
        }
        uint32_t i = 0;
        while (i < n && ++x[i] == pp_iopddl_strategy_count(p, i))
            x[i++] = 0;
        if (i == n)
            break;
    }
    return best;
}

static void check_answer(const pp_iopddl_problem *p, const uint32_t *x, iopddl_cost cost)
{
    pp_error err = {0};
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK);
    CHECK(ev.feasible);
    CHECK(!ev.uses_forbidden);
    CHECK_EQ_INT(ev.cost, cost);
}

/* On a mismatch: the problem and our answer, to rebuild the case by hand. */
static void dump(const pp_iopddl_problem *p, const uint32_t *x)
{
    pp_error err = {0};
    pp_iopddl_evaluation ev;
    if (pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK)
        fprintf(stderr, "answer: cost %lld, feasible %d, forbidden %d, peak %lld\n", (long long)ev.cost, ev.feasible,
                ev.uses_forbidden, (long long)ev.peak_usage);
    fprintf(stderr, "limit %lld (%s)\n", (long long)p->usage_limit, p->has_usage_limit ? "set" : "none");
    for (uint32_t i = 0; i < p->node_count; i++) {
        fprintf(stderr, "node %u [%lld, %lld) picks %u:", i, (long long)p->interval_start[i],
                (long long)p->interval_end[i], x[i]);
        for (uint64_t k = p->strategy_start[i]; k < p->strategy_start[i + 1]; k++)
            fprintf(stderr, " %lld/%lld", (long long)p->node_cost[k], (long long)p->node_usage[k]);
        fprintf(stderr, "\n");
    }
    for (uint32_t e = 0; e < p->edge_count; e++) {
        fprintf(stderr, "edge");
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++)
            fprintf(stderr, " %u", p->edge_nodes[k]);
        fprintf(stderr, ":");
        for (uint64_t k = p->edge_cost_start[e]; k < p->edge_cost_start[e + 1]; k++)
            fprintf(stderr, " %lld", (long long)p->edge_cost[k]);
        fprintf(stderr, "\n");
    }
}

static void test_random(int count, bool dense)
{
    int feasible = 0, infeasible = 0, warm = 0;
    int used_mip = 0, used_merge = 0, used_dominance = 0, used_elimination = 0, used_rows = 0, used_warm = 0;
    int crashes = 0;
    for (int round = 0; round < count && check_failures == 0; round++) {
        pp_iopddl_problem *p = random_problem(dense);
        uint32_t best_x[MAX_N], worst_x[MAX_N];
        int64_t truth = brute_force(p, best_x, worst_x);
        iopddl_model *m;
        pp_error err = {0};
        CHECK(iopddl_model_build(p, &m, &err) == PP_OK);
        uint32_t x[MAX_N];
        iopddl_cost cost;
        double bound;
        bool proven;
        /* Half of the feasible problems get a warm start, the optimum or the
         * costliest feasible assignment, so that carrying either through the
         * presolve's merges and dominance steps is exercised. */
        bool give_warm = truth >= 0 && round % 2 == 0;
        const uint32_t *start = round % 4 == 0 ? best_x : worst_x;
        iopddl_exact_options o = {.time_limit = 10, .threads = 1};
        iopddl_exact_stats stats;
        pp_status st = iopddl_exact_solve_ex(m, give_warm ? start : NULL, -1, &o, x, &cost, &bound, &proven, &stats,
                                          &err);
        used_mip += stats.columns > 0;
        used_merge += stats.merged > 0;
        used_dominance += stats.strategies_dominated > 0;
        used_elimination += stats.eliminated > 0;
        used_rows += stats.usage_rows > 0;
        used_warm += stats.warm_start_used;
        crashes += stats.cbc_crashes;
        if (truth < 0) {
            infeasible++;
            if (st != PP_INFEASIBLE)
                fprintf(stderr, "round %d: expected infeasible, got %s cost %lld\n", round, pp_status_name(st),
                        (long long)cost);
            CHECK(st == PP_INFEASIBLE);
            CHECK_EQ_INT(cost, -1);
            if (st == PP_OK)
                dump(p, x);
        } else {
            feasible++;
            warm += give_warm;
            if (st != PP_OK || cost != truth)
                fprintf(stderr, "round %d: expected %lld, got %s cost %lld (%s)\n", round, (long long)truth,
                        pp_status_name(st), (long long)cost, err.message);
            CHECK(st == PP_OK);
            CHECK_EQ_INT(cost, truth);
            if (cost != truth)
                dump(p, x);
            CHECK(proven);
            CHECK(fabs(bound - (double)truth) < 1e-6);
            check_answer(p, x, cost);
        }
        iopddl_model_free(m);
        pp_iopddl_free(p);
    }
    fprintf(stderr,
            "random: %d feasible (%d warm-started), %d infeasible; solved with a MIP %d (%d with usage rows, "
            "%d passed a warm start), merges in %d, dominance in %d, elimination in %d; CBC crashed %d times\n",
            feasible, warm, infeasible, used_mip, used_rows, used_warm, used_merge, used_dominance,
            used_elimination, crashes);
}

static void test_example(const char *path)
{
    pp_error err = {0};
    pp_iopddl_problem *p;
    CHECK(pp_iopddl_load(path, &p, &err) == PP_OK);
    if (check_failures)
        return;
    iopddl_model *m;
    CHECK(iopddl_model_build(p, &m, &err) == PP_OK);
    uint32_t x[5];
    iopddl_cost cost;
    double bound;
    bool proven;
    iopddl_exact_stats st;
    iopddl_exact_options o = {.time_limit = 10, .threads = 1};
    CHECK(iopddl_exact_solve_ex(m, NULL, -1, &o, x, &cost, &bound, &proven, &st, &err) == PP_OK);
    CHECK_EQ_INT(cost, 445);
    CHECK(proven);
    CHECK_EQ_INT((int64_t)bound, 445);
    check_answer(p, x, cost);
    fprintf(stderr, "example: cost %lld proven %d; raw %llu columns %llu rows, reduced %llu columns %llu rows\n",
            (long long)cost, proven, (unsigned long long)st.raw_columns, (unsigned long long)st.raw_rows,
            (unsigned long long)st.columns, (unsigned long long)st.rows);
    /* A worse warm start does not stop the search from finding 445. */
    uint32_t start[5] = {0, 0, 0, 0, 0};
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, start, &ev, &err) == PP_OK);
    if (ev.feasible) {
        CHECK(iopddl_exact_solve(m, start, (int64_t)ev.cost, 10, 1, x, &cost, &bound, &proven, &err) == PP_OK);
        CHECK_EQ_INT(cost, 445);
    }
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

/* An edge over three nodes (and one naming a node twice) reaches the MIP as
 * an auxiliary node; the answer must match enumeration under the contest's
 * evaluation, with a usage limit that rules the cheapest row out. */
static void test_hyperedge(void)
{
    uint32_t d[3] = {2, 2, 2}, arity[2] = {3, 3};
    pp_iopddl_problem *p = new_problem(3, d, 2, arity);
    uint32_t nodes[6] = {0, 1, 2, 2, 0, 2};
    for (uint32_t k = 0; k < 6; k++)
        p->edge_nodes[k] = nodes[k];
    for (uint32_t i = 0; i < 3; i++) {
        p->interval_end[i] = 1;
        p->node_usage[2 * i + 1] = 5;
    }
    p->has_usage_limit = true;
    p->usage_limit = 10;
    size_edge_costs(p);
    for (uint64_t k = 0; k < p->edge_cost_start[2]; k++)
        p->edge_cost[k] = k == 3 ? PP_IOPDDL_FORBIDDEN : (int64_t)(20 - (k * 7) % 13);
    pp_int128 best = -1;
    uint32_t all[3];
    for (uint32_t code = 0; code < 8; code++) {
        for (uint32_t i = 0; i < 3; i++)
            all[i] = (code >> i) & 1;
        pp_iopddl_evaluation ev;
        pp_error e = {0};
        CHECK(pp_iopddl_evaluate(p, all, &ev, &e) == PP_OK);
        if (ev.feasible && !ev.uses_forbidden && (best < 0 || ev.cost < best))
            best = ev.cost;
    }
    iopddl_model *m;
    pp_error err = {0};
    CHECK(iopddl_model_build(p, &m, &err) == PP_OK);
    CHECK_EQ_INT(m->node_count, 5);
    uint32_t x[5];
    iopddl_cost cost;
    double bound;
    bool proven;
    CHECK(iopddl_exact_solve(m, NULL, -1, 10, 1, x, &cost, &bound, &proven, &err) == PP_OK);
    CHECK(proven);
    CHECK_EQ_INT(cost, best);
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK);
    CHECK(ev.feasible);
    CHECK(ev.cost == best);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

/* Colouring K4 with k colours ("different strategies" on every edge): the
 * presolve cannot decide it (no edge is a function, nothing dominates) and
 * the LP is feasible at 1/k everywhere, so CBC must branch: it proves three
 * colours infeasible and finds a four-colouring of cost zero. */
static void test_colouring(uint32_t k)
{
    uint32_t d[4] = {k, k, k, k}, arity[6] = {2, 2, 2, 2, 2, 2};
    pp_iopddl_problem *p = new_problem(4, d, 6, arity);
    uint32_t e = 0;
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = a + 1; b < 4; b++, e++) {
            p->edge_nodes[2 * e] = a;
            p->edge_nodes[2 * e + 1] = b;
        }
    size_edge_costs(p);
    for (e = 0; e < 6; e++)
        for (uint32_t s = 0; s < k; s++)
            for (uint32_t t = 0; t < k; t++)
                p->edge_cost[p->edge_cost_start[e] + s * k + t] = s == t ? F : 0;
    iopddl_model *m;
    pp_error err = {0};
    CHECK(iopddl_model_build(p, &m, &err) == PP_OK);
    uint32_t x[4];
    iopddl_cost cost;
    double bound;
    bool proven;
    iopddl_exact_options o = {.time_limit = 10, .threads = 1};
    iopddl_exact_stats stats;
    pp_status st = iopddl_exact_solve_ex(m, NULL, -1, &o, x, &cost, &bound, &proven, &stats, &err);
    CHECK_EQ_INT(stats.free_nodes, 4); /* left to CBC */
    if (k < 4) {
        CHECK(st == PP_INFEASIBLE);
        CHECK_EQ_INT(cost, -1);
    } else {
        CHECK(st == PP_OK);
        CHECK_EQ_INT(cost, 0);
        CHECK(proven);
        check_answer(p, x, cost);
    }
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

/* The proven optimum's answer, for the tests that read it. */
static void write_optimum(const char *path, const pp_iopddl_problem *p, const uint32_t *x)
{
    char *line = malloc(12 * (size_t)p->node_count + 3);
    FILE *f = line ? fopen(path, "w") : NULL;
    CHECK(f != NULL);
    if (f) {
        pp_iopddl_format_solution(x, p->node_count, line);
        CHECK(fprintf(f, "%s\n", line) > 0);
        CHECK(fclose(f) == 0);
    }
    free(line);
}

static void test_instance(const char *path, double seconds, int threads, const char *optimum)
{
    pp_error err = {0};
    pp_iopddl_problem *p;
    pp_status loaded = pp_iopddl_load(path, &p, &err);
    CHECK(loaded == PP_OK);
    if (loaded != PP_OK) { /* not check_failures: an earlier failure must not leak p */
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    iopddl_model *m;
    CHECK(iopddl_model_build(p, &m, &err) == PP_OK);
    uint32_t *x = malloc(p->node_count * sizeof *x);
    iopddl_cost cost;
    double bound;
    bool proven;
    iopddl_exact_stats st;
    /* PP_EXACT_OFF (a number of IOPDDL_EXACT_NO_* flags) and PP_EXACT_VERBOSE are
     * for bench/iopddl-exact: the test itself runs the full presolve, quietly. */
    const char *off = getenv("PP_EXACT_OFF");
    iopddl_exact_options o = {.time_limit = seconds,
                           .threads = threads,
                           .verbose = getenv("PP_EXACT_VERBOSE") != NULL,
                           .off = off ? (unsigned)atoi(off) : 0};
    /* A cap below the reduced MIP's size: refused before CBC, sizes reported. */
    iopddl_exact_options capped = o;
    capped.max_nonzeros = 1000;
    CHECK(iopddl_exact_solve_ex(m, NULL, -1, &capped, x, &cost, &bound, &proven, &st, &err) == PP_EARG);
    CHECK(strstr(err.message, "nonzeros") != NULL);
    CHECK(st.free_nodes > 0);
    pp_error_clear(&err);
    double t0 = pp_now();
    pp_status status = iopddl_exact_solve_ex(m, NULL, -1, &o, x, &cost, &bound, &proven, &st, &err);
    double took = pp_now() - t0;
    CHECK(status == PP_OK);
    CHECK(cost >= 0);
    if (status == PP_OK && cost >= 0)
        check_answer(p, x, cost);
    CHECK(bound <= (double)cost);
    if (optimum) {
        CHECK(proven);
        if (status == PP_OK && proven)
            write_optimum(optimum, p, x);
    }
    fprintf(stderr,
            "%s: cost %lld, bound %.1f, proven %d, %.2f s (presolve %.2f, CBC %.2f, %lld nodes), %d threads\n"
            "  raw:     %llu columns, %llu rows, %llu nonzeros\n"
            "  reduced: %llu columns (%llu binary), %llu rows (%u usage rows of %u overflowable segments), "
            "%llu nonzeros\n"
            "  presolve: %u free nodes, %u pairs; %u merged, %u fixed, %u eliminated; "
            "%llu strategies removed, %llu dominated; %d rounds\n",
            p->name[0] ? p->name : path, (long long)cost, bound, proven, took, st.presolve_seconds,
            st.mip_seconds, (long long)st.mip_nodes, threads, (unsigned long long)st.raw_columns,
            (unsigned long long)st.raw_rows, (unsigned long long)st.raw_nonzeros, (unsigned long long)st.columns,
            (unsigned long long)st.integer_columns, (unsigned long long)st.rows, st.usage_rows,
            st.overflow_segments, (unsigned long long)st.nonzeros, st.free_nodes, st.pairs, st.merged, st.fixed,
            st.eliminated, (unsigned long long)st.strategies_removed, (unsigned long long)st.strategies_dominated,
            st.presolve_rounds);
    /* Again with that answer as the warm start and half a second: CBC is cut
     * off (its first LP takes longer), and the warm start comes back. */
    if (status == PP_OK && cost >= 0) {
        uint32_t *y = malloc(p->node_count * sizeof *y);
        iopddl_cost again;
        CHECK(iopddl_exact_solve(m, x, cost, 0.5, threads, y, &again, &bound, &proven, &err) == PP_OK);
        CHECK(again >= 0 && again <= cost);
        if (again >= 0)
            check_answer(p, y, again);
        free(y);
    }
    free(x);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *seed = getenv("PP_EXACT_SEED"); /* other random problems, for stress runs */
    if (seed && strtoull(seed, NULL, 10) != 0)
        rng_state = strtoull(seed, NULL, 10);
    test_example(argv[1]);
    /* Given G, the rest is G's alone (ctest's iopddl_exact_G, run serial:
     * CBC's threads under a time limit); without, the small problems, which
     * need no core to themselves. */
    if (argc >= 3) {
        if (argc >= 6)
            remove(argv[5]); /* no earlier run's answer is read as this one's */
        test_instance(argv[2], argc >= 4 ? atof(argv[3]) : 60, argc >= 5 ? atoi(argv[4]) : 2,
                      argc >= 6 ? argv[5] : NULL);
        return CHECK_DONE();
    }
    test_hyperedge();
    test_colouring(3);
    test_colouring(4);
    test_random(CHECK_ROUNDS(600), false);
    test_random(CHECK_ROUNDS(300), true);
    return CHECK_DONE();
}
