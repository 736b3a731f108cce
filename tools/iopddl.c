/* iopddl: the contest's command line. `iopddl FILE TIMEOUT` prints the
 * answer "[s0, s1, ...]" on stdout within TIMEOUT seconds (parsing
 * included); progress and figures go to stderr. SIGINT/SIGTERM end the
 * search early and the best answer so far is printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "parplan/iopddl_request.h"

static int run(int argc, char **argv)
{
    double started = pp_now();
    pp_stop_install_signal_handlers();
    pp_iopddl_request request;
    pp_iopddl_request_default(&request);
    if (argc != 3) {
        fprintf(stderr, "usage: iopddl FILE TIMEOUT\n"
                        "  FILE     contest problem (JSON, or JSON.gz)\n"
                        "  TIMEOUT  seconds for the whole run, reading included (> 0)\n");
        return 2;
    }
    pp_error err = {0};
    if (!cli_parse_double(argv[2], &request.timeout) || pp_iopddl_request_check(&request, &err) != PP_OK) {
        char allowed[160];
        pp_option_range_text(&pp_option_timeout, allowed, sizeof allowed);
        fprintf(stderr, "iopddl: TIMEOUT '%s' is not a positive, finite number of seconds (allowed: %s)\n", argv[2],
                allowed);
        return 2;
    }
    cli_progress progress;
    cli_progress_init(&progress, "iopddl", false);
    pp_iopddl_job job = {.problem = {.path = argv[1]}, .started = started, .process_stop = true,
                         .on_progress = cli_progress_show, .progress_ctx = &progress};
    pp_iopddl_outcome o;
    pp_status status = pp_iopddl_run(&request, &job, &o, &err);
    cli_progress_end(&progress);
    int code;
    if (status == PP_OK) {
        const pp_iopddl_result *r = &o.result;
        code = cli_write_solution("iopddl", NULL, r->strategies, o.problem->node_count);
        char cost[48];
        fprintf(stderr, "iopddl: cost %s  parse %.2fs  first feasible %.2fs  best %.2fs  total %.2fs  rounds %lld\n",
                cli_format_int128(r->cost, cost), o.read_seconds, o.read_seconds + r->time_first_feasible,
                o.read_seconds + r->time_best, pp_now() - started, (long long)r->rounds);
        if (o.evaluation.uses_forbidden)
            fprintf(stderr, "iopddl: warning: the answer pays a forbidden cost (an entry >= 1e18): none free of "
                            "them was found in the time, or none exists\n");
        else if (r->lower_bound > -INFINITY)
            fprintf(stderr, "iopddl: lower bound %.0f (gap %.3f%%)\n", r->lower_bound,
                    pp_iopddl_gap_percent(r->cost, r->lower_bound));
    } else {
        code = cli_fail("iopddl", &err);
    }
    pp_iopddl_outcome_free(&o);
    return code;
}

int main(int argc, char **argv)
{
    return cli_exit("iopddl", run(argc, argv));
}
