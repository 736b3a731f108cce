/* test_relax.c: how a relaxation round raises its weights (relax.c). Owns
 * the evidence that the raise grows with the overflow, and that a round
 * after a far one (1.5 limits or more) gives TRW-S 10 message passes, and
 * one after a near or fitting one the worker's own. Two nodes live at
 * once, each with a cheap strategy of large usage and a dear one of small
 * usage, and a worker whose starting weights are far too low, so its
 * relaxed answer takes both cheap strategies. Far over the limit (5 times)
 * each weight grows by 1.2-1.8 times the overflow's square root in one
 * round; just over it (1.33 times), by 1.2-1.8 alone. The overflow is
 * worked out here from the problem's own arrays. */
#include <math.h>
#include "iopddl/relax.h"
#include "tiny_model.h"

static void check_raise(int64_t limit, double low, double high, bool far)
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
    CHECK_EQ_INT(iopddl_worker_trws_iterations(&w), 3);
    iopddl_worker_round(&w, &none, 0);
    int64_t peak = t.usage[0][w.x[0]] + t.usage[1][w.x[1]];
    CHECK_EQ_INT(peak, 200);
    CHECK_EQ_INT(iopddl_worker_trws_iterations(&w), far ? 10 : 3);
    for (int i = 0; i < 2; i++) {
        double grow = w.weight[i] / before[i];
        if (!(grow >= low && grow <= high)) {
            CHECK(false);
            fprintf(stderr, "limit %lld: weight %d grew %.3f, not in [%.3f, %.3f]\n", (long long)limit, i, grow,
                    low, high);
        }
    }
    /* Weights at their caps: the next answer fits, and the passes are the
     * worker's own again. */
    for (int i = 0; i < 2; i++)
        w.weight[i] = w.weight_cap[i];
    iopddl_worker_round(&w, &none, 0);
    CHECK(w.x[0] == 1 && w.x[1] == 1);
    CHECK_EQ_INT(iopddl_worker_trws_iterations(&w), 3);
    iopddl_worker_free(&w);
    iopddl_model_free(m);
    pp_iopddl_free(p);
}

int main(void)
{
    (void)rnd; /* tiny.h's generator: these two problems are fixed */
    check_raise(40, 1.2 * sqrt(5.0), 1.8 * sqrt(5.0), true);
    check_raise(150, 1.2, 1.8, false);
    return CHECK_DONE();
}
