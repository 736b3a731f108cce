/* test_public.c: on a contest instance, the solver returns within its time
 * limit an answer the evaluator finds feasible and free of forbidden costs,
 * at the cost the solver reports. Usage: test_public FILE SECONDS */
#include <stdlib.h>
#include "check.h"
#include "parplan/iopddl.h"

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    if (!check_have(argv[1]))
        return CHECK_DONE();
    pp_error err = {0};
    pp_iopddl_problem *p;
    if (pp_iopddl_load(argv[1], &p, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = atof(argv[2]);
    o.threads = 2;
    pp_iopddl_result r;
    double started = pp_now();
    CHECK(pp_iopddl_solve(p, &o, &r, &err) == PP_OK);
    double took = pp_now() - started;
    CHECK(r.feasible);
    pp_iopddl_evaluation ev;
    CHECK(pp_iopddl_evaluate(p, r.strategies, &ev, &err) == PP_OK);
    CHECK(ev.feasible);
    CHECK(!ev.uses_forbidden);
    CHECK(ev.cost == r.cost);
    fprintf(stderr, "%s: cost %lld in %.2f s (limit %s s), %lld rounds\n", argv[1], (long long)r.cost,
            took, argv[2], (long long)r.rounds);
    pp_iopddl_result_free(&r);
    pp_iopddl_free(p);
    return CHECK_DONE();
}
