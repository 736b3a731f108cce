/* test_forest.c: the relaxed problem's descent (forest.c) against
 * exhaustive search. Owns the evidence that folding leaves into their
 * neighbours keeps the descent exact: on random tiny forests (stars, paths,
 * two-node components: every kind of leaf forest.c folds or keeps) one
 * descent from any start reaches the relaxed optimum, which the brute force
 * prices from the problem's own arrays (node cost, penalty times usage above
 * the node's least, pair costs), sharing nothing with forest.c. On graphs
 * with cycles a descent never ends above its start, and the cost it returns
 * is that of the answer it leaves. TRW-S, which folds the same leaves, is
 * checked the same way: its bound never above the optimum, and equal to it
 * on forests. */
#include <math.h>
#include "tiny_model.h"

/* Pairs only: the model then has one node per problem node. */
static void random_graph(tiny *t, bool cycles)
{
    memset(t, 0, sizeof *t);
    t->n = 2 + (int)rnd(MAX_NODES - 1);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(4);
        t->end[i] = t->start[i] + 1 + rnd(4);
        t->d[i] = 1 + (int)rnd(MAX_STRATEGIES);
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = rnd(50);
            t->usage[i][s] = rnd(20);
        }
    }
    /* A random forest: node i > 0 hangs under an earlier node, or (one time
     * in five) starts a component of its own. */
    for (int i = 1; i < t->n; i++) {
        if (rnd(5) == 0)
            continue;
        int e = t->m++;
        t->arity[e] = 2;
        t->nodes[e][0] = (int)rnd((uint32_t)i);
        t->nodes[e][1] = i;
    }
    for (int extra = cycles ? 1 + (int)rnd(3) : 0; extra > 0 && t->m < MAX_EDGES; extra--) {
        int a = (int)rnd((uint32_t)t->n), b = (int)rnd((uint32_t)t->n);
        if (a == b)
            continue;
        int e = t->m++;
        t->arity[e] = 2;
        t->nodes[e][0] = a;
        t->nodes[e][1] = b;
    }
    for (int e = 0; e < t->m; e++)
        for (int k = 0; k < table_size(t, e); k++)
            t->edge_cost[e][k] = rnd(60);
}

static double brute_force(const tiny *t, const double *penalty)
{
    int s[MAX_NODES] = {0};
    double best = INFINITY;
    for (;;) {
        double c = tiny_relaxed_cost(t, s, penalty);
        best = c < best ? c : best;
        int i = 0;
        while (i < t->n && ++s[i] == t->d[i])
            s[i++] = 0;
        if (i == t->n)
            return best;
    }
}

static void check_one(const tiny *t, bool cycles, uint64_t seed)
{
    char json[16384];
    pp_iopddl_problem *p;
    iopddl_model *m = tiny_model(t, json, &p);
    if (!m)
        return;
    CHECK_EQ_INT(m->node_count, t->n);
    pp_arena *arena = pp_arena_new(1 << 16);
    iopddl_forest *f = iopddl_forest_new(m, arena);
    CHECK(f != NULL);
    double penalty[MAX_NODES];
    uint32_t x[MAX_NODES + 1];
    int s[MAX_NODES];
    for (int i = 0; i < t->n; i++) {
        penalty[i] = rnd(3) == 0 ? 0 : (double)rnd(5);
        x[i] = rnd((uint32_t)t->d[i]);
        s[i] = (int)x[i];
    }
    double start = tiny_relaxed_cost(t, s, penalty);
    pp_rng rng;
    pp_rng_seed(&rng, seed, 1);
    pp_deadline none = {0};
    double returned = iopddl_forest_descend(f, x, penalty, &rng, 20, 3, &none);
    for (int i = 0; i < t->n; i++) {
        CHECK(x[i] < (uint32_t)t->d[i]);
        s[i] = (int)x[i];
    }
    double reached = tiny_relaxed_cost(t, s, penalty);
    CHECK(fabs(returned - reached) < 1e-6);
    CHECK(reached <= start + 1e-6);
    double optimum = brute_force(t, penalty);
    if (!cycles && fabs(reached - optimum) > 1e-6) {
        CHECK(false);
        fprintf(stderr, "forest descent %.1f, optimum %.1f on\n%s\n", reached, optimum, json);
    }
    /* TRW-S (trws.c, which folds leaves too): its bound is never above the
     * optimum, and on a forest it converges to it. */
    iopddl_trws *trws = iopddl_trws_new(m, arena);
    CHECK(trws && iopddl_trws_keep_bound(trws, arena));
    iopddl_trws_run(trws, penalty, 30, x, &none);
    double bound = iopddl_trws_bound(trws);
    CHECK(bound <= optimum + 1e-9);
    if (!cycles && bound < optimum - 1e-6) {
        CHECK(false);
        fprintf(stderr, "TRW-S bound %.3f below the forest's optimum %.1f on\n%s\n", bound, optimum, json);
    }
    pp_arena_free(arena);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(void)
{
    for (int round = 0; round < CHECK_ROUNDS(400); round++) {
        tiny t;
        bool cycles = round % 2 == 1;
        random_graph(&t, cycles);
        check_one(&t, cycles, (uint64_t)round);
    }
    return CHECK_DONE();
}
