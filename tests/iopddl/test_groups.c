/* test_groups.c: the tied groups and their descent (groups.c) against
 * exhaustive search. Random tiny problems get some pairs that tie their
 * nodes (a random one-to-one map, every other combination forbidden), as
 * chains, trees and cycles, beside ordinary pairs. From a start that keeps
 * every tie, a group descent never ends above its start, returns what it
 * saved, keeps every tie, and leaves no group that one move of its own
 * could make cheaper: the test finds the groups itself (union-find over the
 * ties it planted) and prices every tie-keeping assignment of each group
 * from the problem's own arrays, sharing nothing with groups.c. A planted
 * pair of tied nodes that both prefer another strategy, which no
 * single-node move can reach, is moved. */
#include <math.h>
#include "tiny_model.h"

#define FORBIDDEN_COST 1000000000000000000LL

static bool tie[MAX_EDGES];
static int failures, groups_checked;

static void plant_tie(tiny *t, int e, int a, int b)
{
    int d = t->d[a], perm[MAX_STRATEGIES];
    for (int s = 0; s < d; s++)
        perm[s] = s;
    for (int s = d - 1; s > 0; s--) {
        int k = (int)rnd((uint32_t)s + 1), keep = perm[s];
        perm[s] = perm[k];
        perm[k] = keep;
    }
    t->arity[e] = 2;
    t->nodes[e][0] = a;
    t->nodes[e][1] = b;
    for (int sa = 0; sa < d; sa++)
        for (int sb = 0; sb < d; sb++)
            t->edge_cost[e][sa * d + sb] = perm[sa] == sb ? (int64_t)rnd(20) : FORBIDDEN_COST;
    tie[e] = true;
}

static void random_problem(tiny *t)
{
    memset(t, 0, sizeof *t);
    memset(tie, 0, sizeof tie);
    t->n = 2 + (int)rnd(MAX_NODES - 1);
    int d = 2 + (int)rnd(MAX_STRATEGIES - 1);
    for (int i = 0; i < t->n; i++) {
        t->start[i] = rnd(4);
        t->end[i] = t->start[i] + 1 + rnd(4);
        t->d[i] = rnd(4) == 0 ? 1 + (int)rnd(MAX_STRATEGIES) : d;
        for (int s = 0; s < t->d[i]; s++) {
            t->cost[i][s] = rnd(50);
            t->usage[i][s] = rnd(20);
        }
    }
    for (int i = 1; i < t->n && t->m < MAX_EDGES; i++) {
        int a = (int)rnd((uint32_t)i), e = t->m++;
        if (t->d[a] == t->d[i] && t->d[i] > 1 && rnd(3) != 0) {
            plant_tie(t, e, a, i);
            continue;
        }
        t->arity[e] = 2;
        t->nodes[e][0] = a;
        t->nodes[e][1] = i;
        for (int k = 0; k < table_size(t, e); k++)
            t->edge_cost[e][k] = rnd(60);
    }
    /* A tie closing a cycle: it may agree with the others or not. */
    int a = (int)rnd((uint32_t)t->n), b = (int)rnd((uint32_t)t->n);
    if (a < b && t->d[a] == t->d[b] && t->d[a] > 1 && t->m < MAX_EDGES && rnd(2) == 0)
        plant_tie(t, t->m++, a, b);
}

static bool ties_kept(const tiny *t, const int *s)
{
    for (int e = 0; e < t->m; e++)
        if (tie[e] && t->edge_cost[e][s[t->nodes[e][0]] * t->d[t->nodes[e][1]] + s[t->nodes[e][1]]] >= FORBIDDEN_COST)
            return false;
    return true;
}

static int root_of(const int *parent, int v)
{
    while (parent[v] != v)
        v = parent[v];
    return v;
}

/* The least relaxed cost over tie-keeping assignments that differ from s
 * only inside the tied group of node `root` (its members: root_of == root). */
static double best_group_move(const tiny *t, const int *s, const int *parent, int root, const double *penalty)
{
    int trial[MAX_NODES], members[MAX_NODES], count = 0;
    memcpy(trial, s, sizeof trial);
    for (int i = 0; i < t->n; i++)
        if (root_of(parent, i) == root)
            members[count++] = i;
    double best = INFINITY;
    for (int i = 0; i < count; i++)
        trial[members[i]] = 0;
    for (;;) {
        if (ties_kept(t, trial)) {
            double c = tiny_relaxed_cost(t, trial, penalty);
            best = c < best ? c : best;
        }
        int i = 0;
        while (i < count && ++trial[members[i]] == t->d[members[i]])
            trial[members[i++]] = 0;
        if (i == count)
            return best;
    }
}

/* A tie-keeping start: each node in order takes a strategy that keeps its
 * ties to the nodes before it, when there is one. False if none exists. */
static bool tie_keeping_start(const tiny *t, int *s, int at)
{
    if (at == t->n)
        return ties_kept(t, s);
    int first = (int)rnd((uint32_t)t->d[at]);
    for (int k = 0; k < t->d[at]; k++) {
        s[at] = (first + k) % t->d[at];
        bool ok = true;
        for (int e = 0; e < t->m && ok; e++) {
            int a = t->nodes[e][0], b = t->nodes[e][1];
            if (tie[e] && a <= at && b <= at)
                ok = t->edge_cost[e][s[a] * t->d[b] + s[b]] < FORBIDDEN_COST;
        }
        if (ok && tie_keeping_start(t, s, at + 1))
            return true;
    }
    return false;
}

static void check_one(const tiny *t)
{
    int s[MAX_NODES] = {0};
    if (!tie_keeping_start(t, s, 0))
        return;
    char json[16384];
    pp_iopddl_problem *p;
    iopddl_model *m = tiny_model(t, json, &p);
    if (!m)
        return;
    const iopddl_groups *g = iopddl_groups_new(m, m->arena);
    CHECK(g != NULL);
    double penalty[MAX_NODES];
    uint32_t x[MAX_NODES + 1];
    for (int i = 0; i < t->n; i++) {
        penalty[i] = rnd(3) == 0 ? 0 : (double)rnd(5);
        x[i] = (uint32_t)s[i];
    }
    double start = tiny_relaxed_cost(t, s, penalty);
    pp_deadline none = {0};
    double saved = iopddl_groups_descend(g, x, penalty, &none);
    for (int i = 0; i < t->n; i++)
        s[i] = (int)x[i];
    double reached = tiny_relaxed_cost(t, s, penalty);
    CHECK(ties_kept(t, s));
    CHECK(reached <= start + 1e-6);
    CHECK(fabs((start - reached) - saved) < 1e-6);
    int parent[MAX_NODES];
    for (int i = 0; i < t->n; i++)
        parent[i] = i;
    for (int e = 0; e < t->m; e++)
        if (tie[e]) {
            int a = root_of(parent, t->nodes[e][0]), b = root_of(parent, t->nodes[e][1]);
            if (a != b)
                parent[a] = b;
        }
    int size[MAX_NODES] = {0};
    for (int i = 0; i < t->n; i++)
        size[root_of(parent, i)]++;
    /* Single nodes are the forest descent's to move, not the groups'. */
    for (int i = 0; i < t->n; i++)
        if (parent[i] == i && size[i] > 1 && ++groups_checked && best_group_move(t, s, parent, i, penalty) < reached - 1e-6) {
            CHECK(false);
            if (failures++ == 0)
                fprintf(stderr, "group of node %d can still gain on\n%s\n", i, json);
        }
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

/* Two nodes tied by the identity, both cheaper at strategy 1, start at 0:
 * moving either alone pays the forbidden cost, moving both saves 20. */
static void check_planted(void)
{
    const char *json = "{\"problem\": {\"nodes\": {\"intervals\": [[0, 2], [1, 3]],"
                       " \"costs\": [[10, 0], [10, 0]], \"usages\": [[1, 1], [1, 1]]},"
                       " \"edges\": {\"nodes\": [[0, 1]], \"costs\": [[0, 1000000000000000000,"
                       " 1000000000000000000, 0]]}}}";
    pp_iopddl_problem *p = load_text(json);
    iopddl_model *m;
    pp_error err = {0};
    CHECK(p != NULL);
    CHECK_EQ_INT(iopddl_model_build(p, &m, &err), PP_OK);
    const iopddl_groups *g = iopddl_groups_new(m, m->arena);
    uint32_t x[3] = {0, 0, 0};
    pp_deadline none = {0};
    CHECK(fabs(iopddl_groups_descend(g, x, NULL, &none) - 20) < 1e-9);
    CHECK(x[0] == 1 && x[1] == 1);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(void)
{
    check_planted();
    for (int round = 0; round < CHECK_ROUNDS(2000); round++) {
        tiny t;
        random_problem(&t);
        check_one(&t);
    }
    /* The draws tie enough nodes for the check to mean something. */
    CHECK_AT_LEAST(groups_checked, 1001);
    printf("%d groups checked\n", groups_checked);
    return CHECK_DONE();
}
