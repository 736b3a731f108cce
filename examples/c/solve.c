/* solve.c: the smallest program on the installed library. Reads an IOPDDL
 * contest problem, solves it, checks the answer with the evaluator and
 * prints it. Build it with pkg-config or CMake (README.md here). */
#include <stdio.h>
#include <stdlib.h>
#include <parplan/iopddl.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROBLEM.json\n", argv[0]);
        return 2;
    }
    printf("parplan %s (compiled against %s)\n", pp_version(), PP_VERSION);

    pp_error err = {0};
    pp_iopddl_problem *problem;
    if (pp_iopddl_load(argv[1], &problem, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    pp_iopddl_options options;
    pp_iopddl_options_default(&options);
    options.time_limit = 5;
    options.threads = 1;
    pp_iopddl_result result;
    pp_status status = pp_iopddl_solve(problem, &options, &result, &err);
    pp_iopddl_evaluation check;
    if (status == PP_OK)
        status = pp_iopddl_evaluate(problem, result.strategies, &check, &err);
    if (status == PP_OK) {
        char *line = malloc(12 * (size_t)problem->node_count + 3);
        if (line) {
            pp_iopddl_format_solution(result.strategies, problem->node_count, line);
            printf("answer %s\ncost %lld (evaluator: %lld, %s)%s\n", line, (long long)result.cost,
                   (long long)check.cost, check.feasible ? "feasible" : "infeasible",
                   result.proven_optimal ? ", proven optimal" : "");
            free(line);
        }
    } else {
        fprintf(stderr, "%s\n", err.message);
    }
    pp_iopddl_result_free(&result);
    pp_iopddl_free(problem);
    return status == PP_OK ? 0 : 1;
}
