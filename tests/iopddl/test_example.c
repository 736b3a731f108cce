/* test_example.c: the contest's five-node example: loads, evaluates the
 * known optimum [0, 0, 2, 1, 0] to 445, and the solver returns 445. */
#include <stdlib.h>
#include "check.h"
#include "parplan/iopddl.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    pp_error err = {0};
    pp_iopddl_problem *p;
    CHECK(pp_iopddl_load(argv[1], &p, &err) == PP_OK);
    if (check_failures) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    CHECK_EQ_INT(p->node_count, 5);
    CHECK_EQ_INT(p->edge_count, 5);
    CHECK_EQ_INT(p->usage_limit, 50);

    uint32_t optimum[5] = {0, 0, 2, 1, 0};
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, optimum, &ev, &err) == PP_OK);
    CHECK_EQ_INT(ev.cost, 445);
    CHECK(ev.feasible);
    CHECK_EQ_INT(ev.peak_usage, 50);

    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.threads = 2;
    o.max_rounds = 20;
    pp_iopddl_result r;
    CHECK(pp_iopddl_solve(p, &o, &r, &err) == PP_OK);
    CHECK_EQ_INT(r.cost, 445);
    CHECK(pp_iopddl_evaluate(p, r.strategies, &ev, &err) == PP_OK);
    CHECK_EQ_INT(ev.cost, 445);
    CHECK(ev.feasible);
    pp_iopddl_result_free(&r);
    pp_iopddl_free(p);
    return CHECK_DONE();
}
