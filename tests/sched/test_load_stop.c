/* test_load_stop.c: reading a large problem under a time limit and a stop
 * flag. A zero-bubble pipeline at P = 32 of 128 micro-batches (12,288 ops,
 * 1.7 MB of JSON) written to a file: `schedule` with a tiny time limit
 * refuses it with "the time limit ... was reached while reading FILE"
 * (PP_INFEASIBLE; the CLI exits 1 and writes no schedule) and keeps no
 * problem; the readers given a raised
 * stop flag stop with "FILE: reading stopped"; with the flag lowered they
 * read the same problem as the generator's, field by field, on which the
 * generator's reference schedule reads back and checks valid with the same
 * makespan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli_run.h"
#include "parplan/sched.h"
#include "parplan/sched_request.h"
#include "core/core_internal.h"
#include "sched/load.h"
#include "sched/sched_internal.h"

enum { STAGES = 32, MICROBATCHES = 128 };

typedef struct {
    pp_sched_problem *problem;
    pp_sched_schedule *reference;
    char problem_path[64], schedule_path[64];
} fixture;

static bool write_to(char *path, const char *pattern, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    strcpy(path, pattern);
    int fd = mkstemp(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f)
        return false;
    pp_error err = {0};
    pp_status st = s ? pp_sched_write_schedule(p, s, f, &err) : pp_sched_write_problem(p, f, &err);
    return (fclose(f) == 0) & (st == PP_OK);
}

static bool make_fixture(fixture *fx)
{
    pp_pipe_spec spec = {.stages = STAGES, .microbatches = MICROBATCHES, .scheme = PP_PIPE_ZB1P,
                         .mem_act = STAGES, .comm = 200, .t_f = 5478, .t_b = 5806, .t_w = 3534};
    pp_error err = {0};
    if (pp_sched_gen_pipeline(&spec, &fx->problem, &fx->reference, &err) != PP_OK) {
        fprintf(stderr, "gen: %s\n", err.message);
        return false;
    }
    return write_to(fx->problem_path, "/tmp/pp-test-load-stop-p-XXXXXX", fx->problem, NULL) &&
           write_to(fx->schedule_path, "/tmp/pp-test-load-stop-s-XXXXXX", fx->problem, fx->reference);
}

/* The whole run under a limit that passes while it reads: refused, no
 * problem kept, the file named. */
static void test_time_limit(const fixture *fx)
{
    pp_sched_request r;
    pp_sched_request_default(&r);
    r.timeout = 1e-3;
    pp_sched_job job = {.problem = {.path = fx->problem_path}, .started = pp_now(), .process_stop = true};
    pp_sched_outcome out;
    pp_error err = {0};
    pp_status st = pp_sched_run(&r, &job, &out, &err);
    CHECK_EQ_INT(st, PP_INFEASIBLE);
    CHECK(strstr(err.message, "no schedule within the time limit: the time limit (0.001 s") == err.message);
    const char *tail = strstr(err.message, "was reached while reading ");
    CHECK(tail && strcmp(tail + strlen("was reached while reading "), fx->problem_path) == 0);
    CHECK(out.problem == NULL);
    CHECK(out.failed && strcmp(out.failed, fx->problem_path) == 0);
    pp_sched_outcome_free(&out);
    pp_stop_clear();
}

/* The command as a user runs it: exit 1, the message, no output file. */
static void test_cli(const fixture *fx)
{
    char out[96], command[400], says[200];
    snprintf(out, sizeof out, "%s.out.json", fx->problem_path);
    snprintf(command, sizeof command, "%s schedule %s --timeout 0.001 --out %s", PP_CLI, fx->problem_path, out);
    snprintf(says, sizeof says, "parplan: no schedule within the time limit: the time limit (0.001 s, less 0.00025 s "
             "kept for stopping) was reached while reading %s", fx->problem_path);
    expect(command, 1, says);
    CHECK(access(out, F_OK) != 0);
    unlink(out);
}

static bool starts_stopped(const pp_error *err, const char *name)
{
    size_t n = strlen(name);
    return strncmp(err->message, name, n) == 0 && strncmp(err->message + n, ": reading stopped: ", 19) == 0;
}

static void test_stop_flag(const fixture *fx)
{
    pp_stop_flag stop = 1;
    pp_source problem = {.path = fx->problem_path}, schedule = {.path = fx->schedule_path};
    pp_sched_problem *p = (pp_sched_problem *)1;
    pp_error err = {0};
    CHECK_EQ_INT(sc_load_stop(&problem, &stop, &p, &err), PP_EIO);
    CHECK(p == NULL);
    CHECK(starts_stopped(&err, fx->problem_path));
    pp_sched_schedule *s = (pp_sched_schedule *)1;
    pp_error err2 = {0};
    CHECK_EQ_INT(sc_load_schedule_stop(&schedule, fx->problem, &stop, &s, &err2), PP_EIO);
    CHECK(s == NULL);
    CHECK(starts_stopped(&err2, fx->schedule_path));
}

/* With the flag lowered, the same problem and the same schedule. */
static void test_no_limit(const fixture *fx)
{
    pp_stop_flag stop = 0;
    pp_source problem = {.path = fx->problem_path}, schedule = {.path = fx->schedule_path};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    REQUIRE(sc_load_stop(&problem, &stop, &p, &err) == PP_OK);
    CHECK_EQ_INT(p->op_count, 3 * STAGES * MICROBATCHES);
    CHECK_EQ_INT(p->device_count, STAGES);
    CHECK(sc_problem_equal(p, fx->problem));
    pp_sched_schedule *s = NULL;
    if (sc_load_schedule_stop(&schedule, p, &stop, &s, &err) == PP_OK) {
        pp_sched_report report;
        CHECK_EQ_INT(pp_sched_check(p, s, &report, &err), PP_OK);
        CHECK(report.makespan == pp_sched_makespan(fx->reference));
        CHECK(report.makespan > 0);
        pp_sched_report_free(&report);
    } else {
        CHECK(!"the reference schedule reads back");
    }
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

int main(void)
{
    fixture fx = {0};
    if (make_fixture(&fx)) {
        test_time_limit(&fx);
        test_cli(&fx);
        test_stop_flag(&fx);
        test_no_limit(&fx);
    } else {
        CHECK(!"the pipeline is generated and written");
    }
    unlink(fx.problem_path);
    unlink(fx.schedule_path);
    pp_sched_schedule_free(fx.reference);
    pp_sched_problem_free(fx.problem);
    return CHECK_DONE();
}
