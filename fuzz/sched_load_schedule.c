/* sched_load_schedule.c: libFuzzer target for the schedule reader
 * (pp_sched_load_schedule_buffer, the same code as pp_sched_load_schedule
 * after the file is read), against the fixed problem of
 * tests/sched/data/example_problem.json. Checks: a failed load returns no
 * schedule and says why, starting with "NAME: " or "NAME:LINE:COLUMN: " with
 * the position inside the text; a loaded schedule is consistent (each op
 * unplaced with NAN times or on a device with finite times, each transfer
 * absent or finite); the checker (pp_sched_check) survives whatever times
 * were read and its verdict agrees with its count of violations; and writing
 * the schedule loads back to the same fields and the same verdict, whose
 * writing gives the same text. Any breach aborts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched/load.h"
#include "message.h"
#include "sched/sched_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* tests/sched/data/example_problem.json: two devices with one channel, a
 * memory cap, ops fixed to each device and one free op, two transfers. */
static const char PROBLEM[] =
    "{\"devices\": [{\"name\": \"gpu0\", \"memory\": 10}, {\"name\": \"gpu1\"}],"
    " \"channels\": [{\"from\": \"gpu0\", \"to\": \"gpu1\"}],"
    " \"ops\": [{\"name\": \"a\", \"kind\": \"forward\", \"duration\": 1, \"weight\": 2,"
    "            \"adjust\": 1, \"device\": \"gpu0\"},"
    "          {\"name\": \"b\", \"duration\": 2, \"devices\": [\"gpu0\", \"gpu1\"]},"
    "          {\"name\": \"c\", \"kind\": \"backward\", \"duration\": 1.5, \"adjust\": -0.25,"
    "           \"device\": \"gpu1\"}],"
    " \"deps\": [{\"from\": \"a\", \"to\": \"b\", \"comm\": 0.5},"
    "          {\"from\": \"a\", \"to\": \"c\", \"comm\": 0.5}]}";

/* Loaded on the first input and kept: every input is a schedule of it. */
static pp_sched_problem *problem;

static const pp_sched_problem *the_problem(void)
{
    if (!problem) {
        pp_error err = {0};
        if (pp_sched_load_buffer("problem", PROBLEM, sizeof PROBLEM - 1, &problem, &err) != PP_OK)
            abort();
    }
    return problem;
}

static void check_schedule(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    if (s->op_count != p->op_count || s->dep_count != p->dep_count)
        abort();
    for (int i = 0; i < p->op_count; i++) {
        bool unplaced = s->device[i] == -1 && isnan(s->start[i]) && isnan(s->end[i]);
        bool placed = s->device[i] >= 0 && s->device[i] < p->device_count && isfinite(s->start[i]) &&
                      isfinite(s->end[i]);
        if (!unplaced && !placed)
            abort();
    }
    for (int e = 0; e < p->dep_count; e++) {
        double a = s->transfer_start[e], b = s->transfer_end[e];
        if (!(isnan(a) && isnan(b)) && !(isfinite(a) && isfinite(b)))
            abort();
    }
}

/* The checker's status, after checking that it matches its report. */
static pp_status verdict(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    pp_error err = {0};
    pp_sched_report report;
    pp_status st = pp_sched_check(p, s, &report, &err);
    if (st == PP_OK && report.violations != 0)
        abort();
    if (st == PP_INFEASIBLE && (report.violations < 1 || err.message[0] == '\0'))
        abort();
    if (st != PP_OK && st != PP_INFEASIBLE && st != PP_ENOMEM)
        abort();
    if (st == PP_OK && !(report.makespan >= 0 && isfinite(report.makespan)))
        abort();
    pp_sched_report_free(&report);
    return st;
}

/* Equal, or both NAN (the times of an unplaced op or a missing transfer). */
static bool same_time(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static bool same_schedule(const pp_sched_problem *p, const pp_sched_schedule *a,
                          const pp_sched_schedule *b)
{
    for (int i = 0; i < p->op_count; i++)
        if (a->device[i] != b->device[i] || !same_time(a->start[i], b->start[i]) ||
            !same_time(a->end[i], b->end[i]))
            return false;
    for (int e = 0; e < p->dep_count; e++)
        if (!same_time(a->transfer_start[e], b->transfer_start[e]) ||
            !same_time(a->transfer_end[e], b->transfer_end[e]))
            return false;
    return true;
}

/* The schedule as the writer puts it, in a malloc'd buffer (NULL if memory ran out). */
static char *written(const pp_sched_problem *p, const pp_sched_schedule *s, size_t *size)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    if (!f)
        return NULL;
    pp_error err = {0};
    pp_status st = pp_sched_write_schedule(p, s, f, &err);
    fclose(f);
    if (st == PP_ENOMEM) {
        free(text);
        return NULL;
    }
    if (st != PP_OK)
        abort();
    return text;
}

static void check_round_trip(const pp_sched_problem *p, const pp_sched_schedule *s, pp_status checked)
{
    size_t size, again_size;
    char *text = written(p, s, &size);
    if (!text)
        return;
    pp_error err = {0};
    pp_sched_schedule *t = NULL;
    pp_status st = pp_sched_load_schedule_buffer("written", text, size, p, &t, &err);
    if (st == PP_OK) {
        if (!same_schedule(p, s, t))
            abort();
        pp_status again_checked = verdict(p, t);
        if (again_checked != checked && again_checked != PP_ENOMEM && checked != PP_ENOMEM)
            abort();
        char *again = written(p, t, &again_size);
        if (again && (again_size != size || memcmp(again, text, size) != 0))
            abort();
        free(again);
    } else if (st != PP_ENOMEM) {
        abort();
    }
    pp_sched_schedule_free(t);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const pp_sched_problem *p = the_problem();
    pp_error err = {0};
    pp_sched_schedule *s = NULL;
    pp_status status = pp_sched_load_schedule_buffer(NAME, data, size, p, &s, &err);
    if (status != PP_OK) {
        if (s)
            abort();
        check_message(&err, status, data, size);
        return 0;
    }
    check_schedule(p, s);
    check_round_trip(p, s, verdict(p, s));
    pp_sched_schedule_free(s);
    return 0;
}
