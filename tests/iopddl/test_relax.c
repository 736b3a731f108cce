/* test_relax.c: how a relaxation round raises its weights (relax.c). Owns
 * the evidence that the raise grows with the overflow: two nodes live at
 * once, each with a cheap strategy of large usage and a dear one of small
 * usage, and a worker whose starting weights are far too low, so its
 * relaxed answer takes both cheap strategies. Far over the limit (5 times)
 * each weight grows by 1.2-1.8 times the overflow's square root in one
 * round; just over it (1.33 times), by 1.2-1.8 alone. The overflow is
 * worked out here from the problem's own arrays. */
#include <math.h>
#include "iopddl/relax.h"
#include "tiny_model.h"

static void check_raise(int64_t limit, double low, double high)
{
    tiny t = {.n = 2, .m = 1, .has_limit = true, .limit = limit};
    for (int i = 0; i < 2; i++) {
        t.start[i] = 0;
        t.end[i] = 10;
        t.d[i] = 2;
        t.cost[i][0] = 0, t.usage[i][0] = 100;
        t.cost[i][1] = 1000, t.usage[i][1] = 10;
    }
    t.arity[0] = 2, t.nodes[0][0] = 0, t.nodes[0][1] = 1;
    char json[16384];
    pp_iopddl_problem *p;
    iopddl_model *m = tiny_model(&t, json, &p);
    if (!m)
        return;
    uint8_t relevant[3];
    uint32_t start[3] = {1, 1, 0};
    iopddl_worker w;
    /* Worker 4 starts at 1/100 of the usage scale (1000 / 90 a unit): a
     * penalty of about 10 against a cost difference of 1000. */
    CHECK(iopddl_relevant_nodes(m, m->arena, relevant) && relevant[0] && relevant[1]);
    CHECK(iopddl_worker_init(&w, m, relevant, NULL, 4, 1, start));
    double before[2] = {w.weight[0], w.weight[1]};
    pp_deadline none = {0};
    iopddl_worker_round(&w, &none, 0);
    int64_t peak = t.usage[0][w.x[0]] + t.usage[1][w.x[1]];
    CHECK_EQ_INT(peak, 200);
    for (int i = 0; i < 2; i++) {
        double grow = w.weight[i] / before[i];
        if (!(grow >= low && grow <= high)) {
            CHECK(false);
            fprintf(stderr, "limit %lld: weight %d grew %.3f, not in [%.3f, %.3f]\n", (long long)limit, i, grow,
                    low, high);
        }
    }
    iopddl_worker_free(&w);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(void)
{
    (void)rnd; /* tiny.h's generator: these two problems are fixed */
    check_raise(40, 1.2 * sqrt(5.0), 1.8 * sqrt(5.0));
    check_raise(150, 1.2, 1.8);
    return CHECK_DONE();
}
