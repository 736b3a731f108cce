/* test_presolved.c: the presolved problem (presolved.c) against exhaustive
 * search. Random tiny problems with tied and one-way functional pairs (to
 * be merged), leaves without usage (to be eliminated), forbidden entries
 * and a limit that binds. Every answer of the presolved problem that the
 * evaluator finds feasible and free of forbidden costs expands to an
 * answer of the problem that the evaluator finds feasible, at exactly the
 * presolved cost plus the constant; every feasible answer of the problem
 * carries in to a feasible presolved answer no dearer; and the two optima
 * are equal (constant added). With a contest file as argument, the same
 * identities on it for the solver's answer, and the usage scale the
 * presolved problem's search is handed. Also the stages that can take
 * long on a big model (model build, presolve) given a deadline already
 * past. Usage: test_presolved [FILE] */
#include "iopddl/presolved.h"
#include "iopddl/reduced.h"
#include "iopddl/relax.h"
#include "tiny.h"
#include "iopddl/problem_io.h"

#define FORBIDDEN_COST 1000000000000000000LL
/* Presolved problems with more answers than this are not enumerated. */
#define MAX_ENUMERATED 200000

static int built, enumerated;

static void random_pair(tiny *t, int e, int a, int b)
{
    t->arity[e] = 2;
    t->nodes[e][0] = a;
    t->nodes[e][1] = b;
    int kind = (int)rnd(6), da = t->d[a], db = t->d[b];
    for (int sa = 0; sa < da; sa++) {
        int allowed = (int)rnd((uint32_t)db); /* a decides b: one column per row */
        for (int sb = 0; sb < db; sb++) {
            int64_t c = rnd(30);
            if (kind == 0 && sb != allowed)
                c = FORBIDDEN_COST;
            if (kind == 1 && rnd(10) == 0)
                c = FORBIDDEN_COST;
            t->edge_cost[e][sa * db + sb] = c;
        }
    }
}

static void random_problem(tiny *t)
{
    memset(t, 0, sizeof *t);
    t->n = 2 + (int)rnd(MAX_NODES - 1);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(5);
        t->end[i] = rnd(4) == 0 ? t->start[i] : t->start[i] + 1 + rnd(5);
        t->d[i] = rnd(8) == 0 ? 1 : rnd(4) == 0 ? 2 : 3;
        bool usage_free = rnd(5) == 0;
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = rnd(12) == 0 ? FORBIDDEN_COST : rnd(40);
            t->usage[i][s] = usage_free ? 5 : rnd(20);
        }
    }
    for (int i = 1; i < t->n && t->m < MAX_EDGES; i++)
        random_pair(t, t->m++, (int)rnd((uint32_t)i), i);
    while (t->m < MAX_EDGES && rnd(4) != 0) {
        int a = (int)rnd((uint32_t)t->n), b = (int)rnd((uint32_t)t->n);
        if (a != b)
            random_pair(t, t->m++, a < b ? a : b, a < b ? b : a);
    }
    t->has_limit = rnd(8) != 0;
    t->limit = 8 + rnd(30);
}

/* Steps `s` to the next assignment of p's nodes; false after the last. */
static bool next_answer(const pp_iopddl_problem *p, uint32_t *s)
{
    for (uint32_t i = 0; i < p->node_count; i++) {
        if (++s[i] < pp_iopddl_strategy_count(p, i))
            return true;
        s[i] = 0;
    }
    return false;
}

static bool usable(const pp_iopddl_evaluation *ev) { return ev->feasible && !ev->uses_forbidden; }

/* The problem's optimum over its usable answers (-1: none), enumerated. */
static pp_int128 optimum(const pp_iopddl_problem *p)
{
    uint32_t s[MAX_NODES] = {0};
    pp_int128 best = -1;
    pp_error err = {0};
    do {
        pp_iopddl_evaluation ev;
        CHECK(pp_iopddl_evaluate(p, s, &ev, &err) == PP_OK);
        if (usable(&ev) && (best < 0 || ev.cost < best))
            best = ev.cost;
    } while (next_answer(p, s));
    return best;
}

/* Every usable presolved answer expands to a usable answer at its cost plus
 * the constant; returns the presolved optimum plus the constant (-1: none),
 * or -2 when there are too many answers to enumerate. */
static pp_int128 check_presolved_answers(iopddl_presolved *s, const iopddl_model *m, const pp_iopddl_problem *p)
{
    const pp_iopddl_problem *q = iopddl_presolved_problem(s);
    double answers = 1;
    for (uint32_t i = 0; i < q->node_count; i++)
        answers *= pp_iopddl_strategy_count(q, i);
    if (answers > MAX_ENUMERATED)
        return -2;
    uint32_t *a = calloc(q->node_count + 1, sizeof *a), *x = calloc(m->node_count + 1, sizeof *x);
    pp_int128 best = -1;
    pp_error err = {0};
    do {
        pp_iopddl_evaluation ev, full;
        CHECK(pp_iopddl_evaluate(q, a, &ev, &err) == PP_OK);
        if (!usable(&ev))
            continue;
        iopddl_presolved_expand(s, a, x);
        CHECK(pp_iopddl_evaluate(p, x, &full, &err) == PP_OK);
        CHECK(usable(&full));
        CHECK(full.cost == ev.cost + iopddl_presolved_constant(s));
        if (best < 0 || full.cost < best)
            best = full.cost;
    } while (next_answer(q, a));
    free(a);
    free(x);
    enumerated++;
    return best;
}

/* Every usable answer of p carries in to a usable presolved answer no
 * dearer, whose expansion costs the presolved cost plus the constant. */
static void check_entering(iopddl_presolved *s, const iopddl_model *m, const pp_iopddl_problem *p)
{
    const pp_iopddl_problem *q = iopddl_presolved_problem(s);
    uint32_t x[MAX_NODES] = {0}, *a = calloc(q->node_count + 1, sizeof *a);
    uint32_t *full_x = calloc(m->node_count + 1, sizeof *full_x);
    pp_error err = {0};
    do {
        pp_iopddl_evaluation ev, in, out;
        CHECK(pp_iopddl_evaluate(p, x, &ev, &err) == PP_OK);
        if (!usable(&ev))
            continue;
        memcpy(full_x, x, p->node_count * sizeof *x);
        iopddl_model_sync_auxiliary(m, full_x);
        CHECK(iopddl_presolved_enter(s, full_x, a));
        CHECK(pp_iopddl_evaluate(q, a, &in, &err) == PP_OK);
        CHECK(usable(&in));
        CHECK(in.cost + iopddl_presolved_constant(s) <= ev.cost);
        iopddl_presolved_expand(s, a, full_x);
        CHECK(pp_iopddl_evaluate(p, full_x, &out, &err) == PP_OK);
        CHECK(usable(&out));
        CHECK(out.cost == in.cost + iopddl_presolved_constant(s));
    } while (next_answer(p, x));
    free(a);
    free(full_x);
}

static void tiny_problems(void)
{
    static char json[1 << 16];
    for (int trial = 0; trial < CHECK_ROUNDS(12000); trial++) {
        tiny t;
        random_problem(&t);
        tiny_json(&t, json);
        pp_iopddl_problem *p = load_text(json);
        iopddl_model *m = NULL;
        pp_error err = {0};
        if (!p || iopddl_model_build(p, &m, &err) != PP_OK) {
            CHECK(false);
            pp_iopddl_free(p);
            continue;
        }
        pp_int128 best = optimum(p);
        iopddl_reduced c;
        iopddl_exact_stats stats;
        iopddl_presolved *s = iopddl_presolve_model(&c, m, NULL, &stats) ? iopddl_presolved_new(&c, 1.0, UINT64_MAX) : NULL;
        if (s) {
            built++;
            check_entering(s, m, p);
            pp_int128 presolved_best = check_presolved_answers(s, m, p);
            CHECK(presolved_best == -2 || presolved_best == best);
            iopddl_presolved_free(s);
        }
        iopddl_reduced_free(&c);
        iopddl_model_free(m);
        pp_iopddl_free(p);
    }
    /* The presolve decides most tiny draws (or proves them infeasible):
     * enough are left to choose, and few are too big to list. */
    CHECK_AT_LEAST(built, 501);
    CHECK(enumerated > built / 2);
    fprintf(stderr, "tiny: %d presolved problems, %d enumerated\n", built, enumerated);
}

/* On a contest file: the solver's answer carried in and out, priced both
 * ways. 8 s: enough for the solver to search on the presolved problem (C
 * qualifies), so its answer is the expansion of one. */
static void contest_file(const char *path)
{
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    iopddl_model *m = NULL;
    CHECK(pp_iopddl_load(path, &p, &err) == PP_OK && iopddl_model_build(p, &m, &err) == PP_OK);
    if (!m)
        return;
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = 8;
    o.threads = 2;
    pp_iopddl_result r;
    CHECK(pp_iopddl_solve(p, &o, &r, &err) == PP_OK);
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, r.strategies, &ev, &err) == PP_OK && usable(&ev) && ev.cost == r.cost);
    iopddl_reduced c;
    iopddl_exact_stats stats;
    iopddl_presolved *s = iopddl_presolve_model(&c, m, NULL, &stats) ? iopddl_presolved_new(&c, 1.0, UINT64_MAX) : NULL;
    CHECK(s != NULL);
    if (s) {
        const pp_iopddl_problem *q = iopddl_presolved_problem(s);
        uint32_t *a = calloc(q->node_count + 1, sizeof *a), *x = calloc(m->node_count + 1, sizeof *x);
        memcpy(x, r.strategies, p->node_count * sizeof *x);
        iopddl_model_sync_auxiliary(m, x);
        CHECK(iopddl_presolved_enter(s, x, a));
        pp_iopddl_evaluation in, out;
        CHECK(pp_iopddl_evaluate(q, a, &in, &err) == PP_OK && usable(&in));
        CHECK(in.cost + iopddl_presolved_constant(s) <= r.cost);
        iopddl_presolved_expand(s, a, x);
        CHECK(pp_iopddl_evaluate(p, x, &out, &err) == PP_OK && usable(&out));
        CHECK(out.cost == in.cost + iopddl_presolved_constant(s));
        /* No node of the presolved problem has both a cost and a usage
         * spread, so its own scale says nothing (1); the solver hands it
         * the model's. */
        iopddl_model *mq = NULL;
        CHECK(iopddl_model_build(q, &mq, &err) == PP_OK);
        if (mq) {
            CHECK(iopddl_usage_scale(mq) == 1.0);
            CHECK(iopddl_usage_scale(m) != 1.0);
            mq->usage_scale = iopddl_usage_scale(m);
            CHECK(iopddl_usage_scale(mq) == iopddl_usage_scale(m));
            iopddl_model_free(mq);
        }
        fprintf(stderr, "%s: %u presolved nodes, first answer %lld, carried in and out %lld\n", path,
                q->node_count, (long long)r.cost, (long long)out.cost);
        free(a);
        free(x);
        iopddl_presolved_free(s);
    }
    iopddl_reduced_free(&c);
    pp_iopddl_result_free(&r);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

/* A chain of `n` nodes of two strategies, all live at once, each edge
 * forbidding its two ends to agree; the limit lets every node take its
 * cheaper strategy. */
static pp_iopddl_problem *chain(uint32_t n)
{
    uint32_t *counts = calloc(n, sizeof *counts);
    CHECK(counts != NULL);
    if (!counts)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        counts[i] = 2;
    pp_iopddl_builder *b = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_iopddl_builder_new(n, counts, &b, &err), PP_OK);
    static const int64_t differ[4] = {FORBIDDEN_COST, 3, 5, FORBIDDEN_COST};
    for (uint32_t i = 0; b && i < n; i++) {
        CHECK(pp_iopddl_builder_interval(b, i, 0, 10));
        CHECK(pp_iopddl_builder_strategy(b, i, 0, 1 + i % 3, 4) && pp_iopddl_builder_strategy(b, i, 1, 2, 1));
        if (i > 0)
            CHECK(pp_iopddl_builder_edge(b, i - 1, i, differ));
    }
    pp_iopddl_problem *p = NULL;
    if (b) {
        CHECK(pp_iopddl_builder_limit(b, 4 * (int64_t)n));
        CHECK_EQ_INT(pp_iopddl_builder_finish(b, &p, &err), PP_OK);
    }
    free(counts);
    return p;
}

/* A deadline already past (a raised stop flag, so no clock is read) at
 * each stage that can take long on a big model: the model build gives up
 * once it has 64 pair tables to look back on (a smaller one is built:
 * microseconds), the presolve is abandoned, and the solve says there is no
 * answer; everything is freed either way (the sanitizer build checks). */
static void past_deadlines(void)
{
    pp_stop_flag raised = 1;
    pp_deadline past = {0, &raised};
    pp_error err = {0};
    pp_iopddl_problem *small = chain(40), *large = chain(300);
    iopddl_model *m = NULL;
    CHECK_EQ_INT(iopddl_model_build_until(small, &past, &m, &err), PP_OK);
    iopddl_model_free(m);
    m = NULL;
    CHECK_EQ_INT(iopddl_model_build_until(large, &past, &m, &err), PP_INFEASIBLE);
    CHECK(m == NULL && strstr(err.message, "no answer within the time limit"));
    pp_error_clear(&err);
    CHECK_EQ_INT(iopddl_model_build(large, &m, &err), PP_OK);
    if (m) {
        iopddl_reduced c;
        iopddl_exact_stats stats;
        CHECK(!iopddl_presolve_model(&c, m, &past, &stats));
        CHECK(c.stopped);
        iopddl_reduced_free(&c);
        CHECK(iopddl_presolve_model(&c, m, NULL, &stats) && !c.stopped);
        iopddl_reduced_free(&c);
        iopddl_model_free(m);
    }
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = 10;
    o.threads = 2;
    o.stop = &raised;
    pp_iopddl_result r;
    CHECK_EQ_INT(pp_iopddl_solve(large, &o, &r, &err), PP_INFEASIBLE);
    CHECK(!r.feasible && r.strategies != NULL && strstr(err.message, "no answer within the time limit"));
    pp_iopddl_result_free(&r);
    /* Built, the small one still gets an answer, which the evaluator
     * finds feasible: a stop is never an answer called right wrongly. */
    pp_error_clear(&err);
    pp_iopddl_evaluation ev;
    if (pp_iopddl_solve(small, &o, &r, &err) == PP_OK)
        CHECK(r.feasible && pp_iopddl_evaluate(small, r.strategies, &ev, &err) == PP_OK && ev.feasible);
    else
        CHECK(!r.feasible);
    pp_iopddl_result_free(&r);
    pp_iopddl_free(small);
    pp_iopddl_free(large);
}

int main(int argc, char **argv)
{
    past_deadlines();
    tiny_problems();
    if (argc > 1 && check_have(argv[1]))
        contest_file(argv[1]);
    return CHECK_DONE();
}
