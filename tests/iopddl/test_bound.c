/* test_bound.c: the certified lower bound and the neighbourhood search
 * against exhaustive search on random tiny problems with many cycles.
 * Owns the evidence that
 * - TRW-S's dual bound (trws.c) is below the least relaxed cost of every
 *   assignment, for any penalties and any number of iterations, also when
 *   its messages come warm from runs at other penalties;
 * - the bound the solver reports (bound.c, no exact stage) is below the
 *   feasible optimum, at no limit and with the usage rows' multipliers
 *   however they are steered and wherever the steps are cut short, and
 *   the multipliers raise it on some; the same on the presolved model
 *   (bound_model.c), also on problems built for the presolve to shrink
 *   (one-to-one tables closing cycles, dominated strategies, usage-free
 *   nodes of degree one and two), which it does on some;
 * - the bound with the peak's rows kept whole (bound_peak.c) is below the
 *   feasible optimum at any multipliers, with TRW-S's messages after any
 *   number of iterations, on the plain and the presolved model, and above
 *   the Lagrangian at the same multipliers on some;
 * - a restricted model (restrict.c) prices every assignment as the whole
 *   model does;
 * - one round of the neighbourhood search (lns.c), whose region covers a
 *   tiny problem, reaches the optimum from the least-usage answer, and so
 *   does a relaxation worker (relax.c) that solves a region before its
 *   restarts: its best, after enough rounds to stall, is the optimum;
 * - with two threads and a share long enough, the bound runs beside the
 *   first answer and the search (solve.c), still below the optimum, and
 *   the same seed and rounds give the same answer however far it got;
 * - the answers the bound hands over (bound.c, on the presolved model) are
 *   feasible and cost what the evaluator says, each cheaper than the last,
 *   and the search (search.c) takes one while it runs without a round
 *   budget, and none with one;
 * and, on G (argv[1], then the test's only case), that the bound is below
 * the optimum the exact stage proved (argv[2]: iopddl_exact_G's answer,
 * a CTest fixture, so that G's optimum is proven once a suite). */
#include <math.h>
#include <string.h>
#include "iopddl/bound.h"
#include "iopddl/problem_io.h"
#include "iopddl/reduced.h"
#include "iopddl/relax.h"
#include "iopddl/search.h"
#include "tiny.h"

/* How often a worker's region found a better answer than the worker had:
 * some must, or the test would not tell the regions from the rounds. */
static int64_t region_gains;
/* Problems whose usage limit raises the optimum, and those where the
 * Lagrangian bound beats the bound without the limit: some must, or the
 * test would not tell the multipliers from none. */
static int64_t limit_binds, lagrange_gains;
/* Problems the presolve shrank (fewer free nodes than the problem's). */
static int64_t reduced_smaller;
/* Bounds the peak's MIP raised above the Lagrangian at the same
 * multipliers: some must, or the test would not tell the stage from none. */
static int64_t peak_tries, peak_gains;

/* Answers the bound handed over, and those the search took: some must
 * be, or the test would not tell the hand-over from none. */
static int64_t answers_offered, answers_taken;

/* Dense problems: every pair of nodes joined with probability 2/3, so the
 * pairwise part is full of cycles, which is where a dual bound can go wrong. */
static void random_dense(tiny *t)
{
    memset(t, 0, sizeof *t);
    t->n = 2 + (int)rnd(MAX_NODES - 1);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(6);
        t->end[i] = t->start[i] + 1 + rnd(8);
        t->d[i] = 1 + (int)rnd(MAX_STRATEGIES);
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = rnd(9) == 0 ? PP_IOPDDL_FORBIDDEN : rnd(1000);
            t->usage[i][s] = rnd(20);
        }
    }
    for (int a = 0; a < t->n && t->m < MAX_EDGES; a++)
        for (int b = a + 1; b < t->n && t->m < MAX_EDGES; b++) {
            if (rnd(3) == 0)
                continue;
            int e = t->m++;
            t->arity[e] = 2;
            t->nodes[e][0] = a;
            t->nodes[e][1] = b;
            for (int k = 0; k < table_size(t, e); k++)
                t->edge_cost[e][k] = rnd(12) == 0 ? PP_IOPDDL_FORBIDDEN : rnd(1000);
        }
    t->has_limit = rnd(4) != 0;
    t->limit = 10 + rnd(40);
}

/* Sparse problems the presolve works on: some tables allow one partner per
 * row (a permutation, the rest forbidden), some nodes use nothing or the
 * same at every strategy, some strategies are copies of another made
 * worse, and the edges close cycles. */
static void random_presolvable(tiny *t)
{
    random_dense(t);
    for (int i = 0; i < t->n; i++) {
        int kind = (int)rnd(4);
        for (int s = 0; s < t->d[i]; s++) {
            if (kind == 0)
                t->usage[i][s] = 0;
            else if (kind == 1)
                t->usage[i][s] = t->usage[i][0];
            if (t->cost[i][s] >= PP_IOPDDL_FORBIDDEN && rnd(2))
                t->cost[i][s] = rnd(1000);
        }
    }
    int kept = 0;
    for (int e = 0; e < t->m; e++) {
        if (rnd(3) == 0)
            continue; /* sparser than random_dense: degree one and two occur */
        t->arity[kept] = 2;
        t->nodes[kept][0] = t->nodes[e][0];
        t->nodes[kept][1] = t->nodes[e][1];
        int a = t->nodes[e][0], b = t->nodes[e][1];
        bool one_to_one = t->d[a] == t->d[b] && rnd(2);
        int shift = (int)rnd(3);
        for (int k = 0; k < table_size(t, kept); k++) {
            int sa = k / t->d[b], sb = k % t->d[b];
            if (one_to_one)
                t->edge_cost[kept][k] = sb == (sa + shift) % t->d[b] ? rnd(1000) : PP_IOPDDL_FORBIDDEN;
            else
                t->edge_cost[kept][k] = t->edge_cost[e][k] >= PP_IOPDDL_FORBIDDEN ? rnd(1000) : t->edge_cost[e][k];
        }
        kept++;
    }
    t->m = kept;
}

/* Calls visit for every assignment of the problem's nodes, written into x
 * (auxiliary nodes synced). */
static void enumerate(const iopddl_model *m, uint32_t *x, void (*visit)(const iopddl_model *, const uint32_t *, void *),
                      void *ctx)
{
    memset(x, 0, (m->node_count + 1) * sizeof *x);
    for (;;) {
        iopddl_model_sync_auxiliary(m, x);
        visit(m, x, ctx);
        uint32_t v = 0;
        for (; v < m->problem_nodes; v++) {
            if (++x[v] < iopddl_domain(m, v))
                break;
            x[v] = 0;
        }
        if (v == m->problem_nodes)
            return;
    }
}

typedef struct {
    const double *penalty;
    double least_relaxed;
    int64_t least_feasible; /* -1: none */
    iopddl_profile *profile;
} least;

static void note(const iopddl_model *m, const uint32_t *x, void *ctx)
{
    least *l = ctx;
    l->least_relaxed = fmin(l->least_relaxed, iopddl_relaxed_cost(m, x, l->penalty));
    bool fits = iopddl_profile_fits(l->profile, m, x);
    int64_t cost = iopddl_model_cost(m, x);
    if (fits && cost < PP_IOPDDL_FORBIDDEN && (l->least_feasible < 0 || cost < l->least_feasible))
        l->least_feasible = cost;
}

/* Warm starts, as the subgradient steps use TRW-S: the messages of runs
 * at other penalties kept, each run's bound below the least relaxed cost at
 * its own penalties, however few its iterations. */
static void check_warm(const iopddl_model *m, iopddl_trws *t, uint32_t *x, iopddl_profile *profile, const char *json,
                       int round)
{
    double penalty[64];
    pp_deadline none = pp_deadline_in(0);
    for (int run = 0; run < 6; run++) {
        double most = (double)rnd(3) * 50;
        for (uint32_t v = 0; v < m->node_count; v++)
            penalty[v] = most * rnd(100) / 100;
        least l = {penalty, INFINITY, -1, profile};
        enumerate(m, x, note, &l);
        iopddl_trws_run(t, penalty, 1 + (int)rnd(2), x, &none);
        double bound = iopddl_trws_bound(t);
        if (!(bound <= l.least_relaxed + 1e-6 * fabs(l.least_relaxed)))
            fprintf(stderr, "round %d, warm run %d: bound %.17g above the least relaxed cost %.17g\n%s", round, run,
                    bound, l.least_relaxed, json);
        CHECK(bound <= l.least_relaxed + 1e-6 * fabs(l.least_relaxed));
    }
    /* A run the deadline stops before its first pass has no bound. */
    pp_deadline passed = pp_deadline_in(1e-9);
    while (!pp_deadline_passed(&passed))
        ;
    iopddl_trws_run(t, penalty, 2, x, &passed);
    CHECK(iopddl_trws_bound(t) == -INFINITY);
}

static void check_one(const pp_iopddl_problem *p, const char *json, int round)
{
    iopddl_model *m;
    pp_error err = {0};
    CHECK_EQ_INT(iopddl_model_build(p, &m, &err), PP_OK);
    pp_arena *arena = pp_arena_new(1 << 16);
    double penalty[64] = {0};
    for (uint32_t v = 0; v < m->node_count; v++)
        penalty[v] = rnd(3) == 0 ? 0 : (double)rnd(100);
    uint32_t x[64];
    iopddl_profile profile;
    CHECK(iopddl_profile_init(&profile, m, arena));
    least l = {penalty, INFINITY, -1, &profile};
    enumerate(m, x, note, &l);
    least free_of_limit = {NULL, INFINITY, -1, &profile};
    enumerate(m, x, note, &free_of_limit);

    /* Any messages: bound after each of 1..12 iterations. */
    iopddl_trws *t = iopddl_trws_new(m, arena);
    CHECK(t && iopddl_trws_keep_bound(t, arena));
    pp_deadline none = pp_deadline_in(0);
    for (int it = 1; it <= 12; it++) {
        iopddl_trws_run(t, penalty, 1 + (int)rnd(3), x, &none);
        double bound = iopddl_trws_bound(t);
        if (!(bound <= l.least_relaxed + 1e-6 * fabs(l.least_relaxed)))
            fprintf(stderr, "round %d: bound %.17g above the least relaxed cost %.17g\n%s", round, bound,
                    l.least_relaxed, json);
        CHECK(bound <= l.least_relaxed + 1e-6 * fabs(l.least_relaxed));
    }
    check_warm(m, t, x, &profile, json, round);
    double unlimited = iopddl_bound(m, NULL, INFINITY, 0, 1, &none, NULL, NULL, NULL);
    CHECK(unlimited <= free_of_limit.least_relaxed);
    if (l.least_feasible >= 0)
        CHECK(unlimited <= (double)l.least_feasible);

    /* The solver's own bound, without the exact stage. */
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.no_exact = true;
    o.threads = 1;
    o.max_rounds = 5;
    o.seed = (uint64_t)round;
    pp_iopddl_result r;
    pp_status status = pp_iopddl_solve(p, &o, &r, &err);
    if (status == PP_OK && l.least_feasible >= 0) {
        CHECK(r.lower_bound > -INFINITY);
        CHECK(r.lower_bound <= (double)l.least_feasible);
        CHECK(r.lower_bound <= (double)r.cost);
    }
    pp_iopddl_result_free(&r);

    /* Restricting to any set of free nodes keeps every price. */
    uint8_t is_free[64];
    uint32_t held[64];
    for (uint32_t v = 0; v < m->node_count; v++) {
        is_free[v] = (uint8_t)rnd(2);
        held[v] = rnd(iopddl_domain(m, v));
    }
    iopddl_model *restricted = iopddl_model_restrict(m, is_free, held);
    CHECK(restricted != NULL);
    if (restricted) {
        uint32_t whole[64], part[64];
        for (uint32_t v = 0; v < m->node_count; v++) {
            part[v] = is_free[v] ? rnd(iopddl_domain(m, v)) : 0;
            whole[v] = is_free[v] ? part[v] : held[v];
        }
        CHECK_EQ_INT(iopddl_model_cost(restricted, part), iopddl_model_cost(m, whole));
        iopddl_model_free(restricted);
    }

    /* One neighbourhood round from the least-usage answer, when it fits. */
    uint32_t start[64];
    iopddl_min_usage_assignment(m, start);
    if (l.least_feasible >= 0 && iopddl_profile_fits(&profile, m, start)) {
        iopddl_lns lns;
        CHECK(iopddl_lns_init(&lns, m, 1, 1, start, iopddl_model_cost(m, start)));
        iopddl_lns_round(&lns, 10);
        CHECK_EQ_INT(lns.best_cost, l.least_feasible);
        /* A worker with every weight at its cap keeps least usage (the
         * weights take over a hundred rounds to come down), so it stalls,
         * and its region before the restart covers the problem. */
        uint8_t relevant[64];
        iopddl_worker w;
        CHECK(iopddl_relevant_nodes(m, arena, relevant));
        CHECK(iopddl_worker_init(&w, m, relevant, NULL, 0, (uint64_t)round, start));
        for (uint32_t v = 0; v < m->node_count; v++)
            w.weight[v] = w.weight_cap[v];
        w.lns = &lns;
        for (int k = 0; k < 30; k++)
            iopddl_worker_round(&w, &none, 0);
        CHECK(w.regions >= 1);
        region_gains += w.region_gains;
        CHECK_EQ_INT(w.best_cost, l.least_feasible);
        CHECK(iopddl_profile_fits(&profile, m, w.best));
        CHECK_EQ_INT(iopddl_model_cost(m, w.best), w.best_cost);
        iopddl_worker_free(&w);
        iopddl_lns_free(&lns);
    }
    pp_arena_free(arena);
    iopddl_model_free(m);
}

/* The solver with the bound on a thread of its own beside the search (a
 * 20 s limit: a 1 s share), twice with one seed and round budget. */
static void check_beside(const pp_iopddl_problem *p, int64_t least_feasible, int round)
{
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.no_exact = true;
    o.threads = 2;
    o.time_limit = 20;
    o.max_rounds = 5;
    o.seed = (uint64_t)round;
    pp_iopddl_result r[2];
    pp_error err = {0};
    pp_status status[2];
    for (int k = 0; k < 2; k++)
        status[k] = pp_iopddl_solve(p, &o, &r[k], &err);
    CHECK_EQ_INT(status[0], status[1]);
    if (status[0] == PP_OK && least_feasible >= 0) {
        CHECK_EQ_INT(r[0].cost, r[1].cost);
        CHECK(!memcmp(r[0].strategies, r[1].strategies, p->node_count * sizeof(uint32_t)));
        for (int k = 0; k < 2; k++) {
            CHECK(r[k].lower_bound > -INFINITY);
            CHECK(r[k].lower_bound <= (double)least_feasible);
            CHECK(!r[k].proven_optimal || r[k].cost == least_feasible);
        }
    }
    for (int k = 0; k < 2; k++)
        pp_iopddl_result_free(&r[k]);
}

/* The peak's stage at random multipliers (some zero) and messages after
 * 1-6 iterations: below the feasible optimum, and never below the
 * Lagrangian at the same multipliers and messages. */
static void check_peak(const iopddl_model *m, iopddl_reduced *presolved, double optimum, const char *json, int round)
{
    double lambda[256];
    uint32_t segments = m->segment_count;
    if (segments > 256)
        return;
    for (uint32_t s = 0; s < segments; s++)
        lambda[s] = rnd(3) == 0 ? 0 : (double)rnd(80);
    int iterations = 1 + (int)rnd(6);
    double lagrangian = iopddl_bound_at(m, presolved, lambda, segments, iterations, false, 1);
    double kept = iopddl_bound_at(m, presolved, lambda, segments, iterations, true, 1);
    if (!(kept <= optimum))
        fprintf(stderr, "round %d: peak bound %.17g (%s model) above the optimum %.17g\n%s", round, kept,
                presolved ? "reduced" : "plain", optimum, json);
    CHECK(kept <= optimum);
    CHECK(lagrangian <= optimum);
    CHECK(kept >= lagrangian);
    peak_tries++;
    peak_gains += kept > lagrangian;
}

/* The answers one bound hands over, checked as they come. */
typedef struct {
    const pp_iopddl_problem *p;
    const iopddl_model *m;
    int64_t optimum;
    iopddl_cost last;    /* the last answer's cost */
    uint32_t x[64];   /* the last answer */
} handed;

static void note_answer(void *ctx, const uint32_t *x, iopddl_cost cost)
{
    handed *h = ctx;
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    CHECK_EQ_INT(pp_iopddl_evaluate(h->p, x, &ev, &err), PP_OK);
    CHECK(ev.feasible && !ev.uses_forbidden);
    CHECK(ev.cost == cost);
    CHECK(cost >= h->optimum);
    CHECK(cost < h->last);
    h->last = cost;
    memcpy(h->x, x, h->m->node_count * sizeof *x);
    answers_offered++;
}

/* The search from the least-usage answer (when it fits and costs more) with
 * the optimum x handed over before it starts: without a round budget a
 * worker takes it at its first round, and the search, certain of the
 * optimum, ends there; with one it takes none. */
static void check_handover(const pp_iopddl_problem *p, iopddl_model *m, const uint32_t *x, int64_t optimum,
                           pp_arena *arena)
{
    uint32_t start[64];
    uint8_t relevant[64];
    iopddl_profile profile;
    iopddl_min_usage_assignment(m, start);
    CHECK(iopddl_profile_init(&profile, m, arena) && iopddl_relevant_nodes(m, arena, relevant));
    int64_t start_cost = iopddl_model_cost(m, start);
    if (!iopddl_profile_fits(&profile, m, start) || start_cost <= optimum)
        return;
    iopddl_handover h;
    CHECK(iopddl_handover_init(&h, m));
    iopddl_handover_put(&h, m, x, optimum);
    for (int budget = 0; budget < 2; budget++) {
        iopddl_search s = {.m = m, .relevant = relevant, .threads = 2, .started = pp_now(),
                           .lower_bound = (double)optimum, .handover = &h};
        pp_iopddl_result r = {.cost = start_cost, .lower_bound = -INFINITY, .feasible = true};
        r.strategies = malloc(((size_t)m->node_count + 1) * sizeof *r.strategies);
        memcpy(r.strategies, start, m->node_count * sizeof *start);
        pp_deadline deadline = pp_deadline_in(30);
        pp_error err = {0};
        CHECK_EQ_INT(iopddl_search_run(&s, 1, budget ? 3 : 0, &deadline, &r, &err), PP_OK);
        pp_iopddl_evaluation ev;
        CHECK_EQ_INT(pp_iopddl_evaluate(p, r.strategies, &ev, &err), PP_OK);
        CHECK(ev.feasible && ev.cost == r.cost);
        if (budget) {
            CHECK_EQ_INT(s.handovers_taken, 0);
        } else {
            CHECK(s.handovers_taken >= 1);
            CHECK_EQ_INT(r.cost, optimum);
            answers_taken += s.handovers_taken > 0;
        }
        free(r.strategies);
    }
    iopddl_handover_free(&h);
}

/* The Lagrangian bound (bound.c), steered towards the optimum, towards
 * nothing, and towards a cost far below it (the steps overshoot): always
 * below the feasible optimum (any bound is, when nothing is feasible) and
 * never below the bound without the limit. */
static void check_lagrange(const pp_iopddl_problem *p, const char *json, int round)
{
    iopddl_model *m;
    pp_error err = {0};
    CHECK_EQ_INT(iopddl_model_build(p, &m, &err), PP_OK);
    pp_arena *arena = pp_arena_new(1 << 16);
    uint32_t x[64];
    iopddl_profile profile;
    CHECK(iopddl_profile_init(&profile, m, arena));
    least l = {NULL, INFINITY, -1, &profile};
    enumerate(m, x, note, &l);
    pp_deadline none = pp_deadline_in(0);
    iopddl_reduced c;
    iopddl_exact_stats stats;
    bool presolved = iopddl_presolve_model(&c, m, NULL, &stats);
    for (int reduce = 0; reduce < 2 && l.least_feasible >= 0; reduce++) {
        iopddl_reduced *on = reduce && presolved ? &c : NULL;
        double unlimited = iopddl_bound(m, on, INFINITY, 0, 1, &none, NULL, NULL, NULL);
        double optimum = (double)l.least_feasible;
        double steered[3] = {optimum, INFINITY, optimum / 4};
        double limited[3];
        for (int k = 0; k < 3; k++) {
            handed h = {p, m, l.least_feasible, INT64_MAX, {0}};
            limited[k] = iopddl_bound(m, on, steered[k], 60, 1, &none, NULL, on ? note_answer : NULL, &h);
            if (h.last == l.least_feasible && k == 0)
                check_handover(p, m, h.x, h.last, arena);
            if (!(limited[k] <= optimum))
                fprintf(stderr, "round %d: Lagrangian bound %.17g (%s model) above the optimum %.17g\n%s", round,
                        limited[k], reduce ? "reduced" : "plain", optimum, json);
            CHECK(limited[k] <= optimum);
            CHECK(limited[k] >= unlimited);
        }
        CHECK(unlimited <= optimum);
        check_peak(m, on, optimum, json, round);
        /* Cut short after any number of steps, or by the deadline at
         * once: still below the optimum. */
        int few = 1 + (int)rnd(8);
        CHECK(iopddl_bound(m, on, steered[rnd(3)], few, 1, &none, NULL, NULL, NULL) <= optimum);
        CHECK(iopddl_bound(m, on, steered[rnd(3)], 60, 1e-9, &none, NULL, NULL, NULL) <= optimum);
        if (!reduce) {
            limit_binds += optimum > l.least_relaxed;
            lagrange_gains += limited[0] > unlimited;
        }
    }
    iopddl_bound_model b;
    if (presolved && iopddl_bound_model_reduced(&b, &c, arena))
        reduced_smaller += b.free_nodes < m->problem_nodes;
    if (round % 25 == 0)
        check_beside(p, l.least_feasible, round);
    iopddl_reduced_free(&c);
    pp_arena_free(arena);
    iopddl_model_free(m);
}

/* t written out and checked against the Lagrangian's brute force. */
static void check_text(const tiny *t, char *json, int round)
{
    tiny_json(t, json);
    pp_iopddl_problem *p = load_text(json);
    if (!p)
        return;
    check_lagrange(p, json, round);
    pp_iopddl_free(p);
}

/* On G the exact stage proved the optimum (its answer at optimum_path);
 * the bound must sit below it. */
static void check_g(const char *path, const char *optimum_path)
{
    pp_iopddl_problem *p;
    pp_error err = {0};
    REQUIRE(pp_iopddl_load(path, &p, &err) == PP_OK);
    uint32_t *x = NULL;
    pp_iopddl_evaluation ev = {0};
    bool read = pp_iopddl_load_solution(optimum_path, p, &x, &err) == PP_OK &&
                pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK;
    free(x);
    if (!read)
        fprintf(stderr, "%s\n", err.message);
    if (!read || !ev.feasible || ev.uses_forbidden) {
        CHECK(false);
        pp_iopddl_free(p);
        return;
    }
    double optimum = (double)ev.cost;
    iopddl_model *m;
    REQUIRE(iopddl_model_build(p, &m, &err) == PP_OK);
    pp_deadline none = pp_deadline_in(0);
    iopddl_reduced c;
    iopddl_exact_stats stats;
    bool presolved = iopddl_presolve_model(&c, m, NULL, &stats);
    CHECK(presolved);
    double bound = iopddl_bound(m, NULL, INFINITY, 0, 5, &none, NULL, NULL, NULL);
    double limited = iopddl_bound(m, presolved ? &c : NULL, optimum, 200, 20, &none, NULL, NULL, NULL);
    iopddl_reduced_free(&c);
    fprintf(stderr, "G: optimum %.0f, bound without the limit %.0f, with it %.0f\n", optimum, bound, limited);
    CHECK(bound > 0 && bound <= optimum);
    CHECK(limited >= bound && limited <= optimum);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(int argc, char **argv)
{
    /* Given G and its optimum, the test is G's alone (ctest's
     * iopddl_bound_G); without, the random problems. */
    if (argc > 2) {
        check_g(argv[1], argv[2]);
        return CHECK_DONE();
    }
    static char json[1 << 16];
    rng_state = 0x51ed2701u;
    for (int round = 0; round < CHECK_ROUNDS(200); round++) {
        tiny t;
        random_dense(&t);
        tiny_json(&t, json);
        pp_iopddl_problem *p = load_text(json);
        if (!p)
            continue;
        check_one(p, json, round);
        check_lagrange(p, json, round);
        pp_iopddl_free(p);
    }
    /* Limits that mostly bind: below the usage of many answers. */
    for (int round = 0; round < CHECK_ROUNDS(400); round++) {
        tiny t;
        random_dense(&t);
        t.has_limit = true;
        t.limit = 5 + rnd(30);
        check_text(&t, json, round);
    }
    /* Problems the presolve shrinks, limits binding or not. */
    for (int round = 0; round < CHECK_ROUNDS(400); round++) {
        tiny t;
        random_presolvable(&t);
        if (round % 2)
            t.limit = 5 + rnd(30);
        check_text(&t, json, round);
    }
    fprintf(stderr, "workers' regions that found a better answer: %lld\n", (long long)region_gains);
    CHECK_AT_LEAST(region_gains, 1);
    fprintf(stderr, "limit binding: %lld problems; Lagrangian bound above the one without: %lld\n",
            (long long)limit_binds, (long long)lagrange_gains);
    CHECK_AT_LEAST(lagrange_gains, 40);
    fprintf(stderr, "presolve shrank %lld problems\n", (long long)reduced_smaller);
    CHECK_AT_LEAST(reduced_smaller, 100);
    fprintf(stderr, "peak's MIP above the Lagrangian: %lld of %lld\n", (long long)peak_gains, (long long)peak_tries);
    CHECK_AT_LEAST(peak_gains, 40);
    fprintf(stderr, "answers the bound handed over: %lld; taken by the search: %lld\n", (long long)answers_offered,
            (long long)answers_taken);
    CHECK_AT_LEAST(answers_offered, 50);
    CHECK_AT_LEAST(answers_taken, 10);
    return CHECK_DONE();
}
