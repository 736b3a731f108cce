/* iopddl: the contest's command line. `iopddl FILE TIMEOUT` prints the
 * answer "[s0, s1, ...]" on stdout within TIMEOUT seconds (parsing
 * included); progress and figures go to stderr. SIGINT/SIGTERM end the
 * search early and the best answer so far is printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int main(int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    double timeout;
    if (argc != 3) {
        fprintf(stderr, "usage: iopddl FILE TIMEOUT\n"
                        "  FILE     contest problem (JSON, or JSON.gz)\n"
                        "  TIMEOUT  seconds for the whole run, reading included (> 0)\n");
        return 2;
    }
    if (!cli_parse_double(argv[2], &timeout) || timeout <= 0) {
        fprintf(stderr, "iopddl: TIMEOUT '%s' is not a positive, finite number of seconds\n", argv[2]);
        return 2;
    }
    pp_error err = {0};
    pp_iopddl_problem *p;
    double budget;
    int code;
    if (!cli_iopddl_read("iopddl", argv[1], timeout, started, &p, &budget, &code))
        return code;
    double parsed = pp_now() - started;

    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = budget;
    cli_progress progress;
    cli_progress_init(&progress, "iopddl", false);
    o.on_progress = cli_progress_show;
    o.progress_ctx = &progress;
    pp_iopddl_result r;
    pp_status status = pp_iopddl_solve(p, &o, &r, &err);
    cli_progress_end(&progress);
    pp_iopddl_evaluation ev;
    if (status == PP_OK)
        status = pp_iopddl_evaluate(p, r.strategies, &ev, &err);
    if (status == PP_OK) {
        code = cli_write_solution("iopddl", NULL, r.strategies, p->node_count);
        char cost[48];
        fprintf(stderr, "iopddl: cost %s  parse %.2fs  first feasible %.2fs  best %.2fs  total %.2fs  rounds %lld\n",
                cli_format_int128(r.cost, cost), parsed, parsed + r.time_first_feasible, parsed + r.time_best,
                pp_now() - started, (long long)r.rounds);
        if (ev.uses_forbidden)
            fprintf(stderr, "iopddl: warning: the answer pays a forbidden cost (an entry >= 1e18): none free of "
                            "them was found in the time, or none exists\n");
        else if (r.lower_bound > -INFINITY)
            fprintf(stderr, "iopddl: lower bound %.0f (gap %.3f%%)\n", r.lower_bound,
                    pp_iopddl_gap_percent(r.cost, r.lower_bound));
    } else {
        code = cli_fail("iopddl", &err);
    }
    pp_iopddl_result_free(&r);
    pp_iopddl_free(p);
    return code;
}
