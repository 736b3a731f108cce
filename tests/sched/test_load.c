/* test_load.c: the problem and schedule JSON readers and writers. Every file
 * in data/malformed/ (and data/malformed_schedule/, read against
 * data/example_problem.json) fails with PP_EINPUT and a message that starts
 * with the file and names the right line:column (for a value, the line and
 * column of the value, or of the object missing a key, then its JSON path);
 * the example loads to the fields written in it; problems and schedules,
 * including random ones with numbers that need all 17 digits, survive write
 * -> load unchanged; the example schedule passes the checker before and
 * after its round trip, and one with an op left out loads and fails the
 * checker. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "parplan/sched.h"
#include "sched/load.h"

typedef struct {
    const char *file;
    const char *says;  /* what follows the file name in the message */
} expected;

static const expected bad_problems[] = {
    {"syntax_trailing_comma.json", ":3:40: unexpected token near ']'"},
    {"syntax_bad_token.json", ":3:37: invalid token near 'x'"},
    {"syntax_empty.json", ":1:1: '[' or '{' expected near end of file"},
    {"syntax_duplicate_key.json", ":3:49: duplicate object key"},
    {"syntax_huge_number.json", ":3:41: real number overflow"},
    {"syntax_trailing_text.json", ":2:4: end of file expected"},
    {"root_not_object.json", ": expected an object, got an array"},
    {"unknown_key.json", ":18:15: ops[1].duraton: unknown key (allowed: name, kind, duration,"},
    {"unknown_root_key.json", ":25:18: dependencies: unknown key"},
    {"missing_duration.json", ":12:3: ops[0].duration: missing"},
    {"missing_devices.json", ":1:1: devices: missing"},
    {"missing_op_name.json", ":16:3: ops[1].name: missing"},
    {"missing_dep_to.json", ":26:3: deps[0].to: missing"},
    {"duration_string.json", ":22:16: ops[2].duration: expected a number >= 0, got \"abc\""},
    {"duration_null.json", ":14:16: ops[0].duration: expected a number >= 0, got null"},
    {"negative_weight.json", ":19:14: ops[1].weight: expected a number >= 0, got -1"},
    {"negative_memory.json", ":8:14: devices[1].memory: expected a number >= 0, got -5"},
    {"negative_comm.json", ":29:12: deps[0].comm: expected a number >= 0, got -0.5"},
    {"negative_duration.json", ":14:16: ops[0].duration: expected a number >= 0, got -2"},
    {"adjust_string.json", ":15:14: ops[0].adjust: expected a finite number, got \"1\""},
    {"name_not_string.json", ":4:12: devices[0].name: expected a string, got 5"},
    {"op_not_object.json", ":16:3: ops[1]: expected an object, got 3"},
    {"devices_not_array.json", ":2:13: devices: expected an array, got an object"},
    {"devices_empty.json", ":2:13: devices: the list is empty"},
    {"unknown_device.json", ":35:14: ops[5].device: unknown device \"gpu7\""},
    {"unknown_device_in_set.json", ":21:5: ops[1].devices[1]: unknown device \"gpu9\""},
    {"device_set_empty.json", ":15:15: ops[0].devices: the list is empty"},
    {"device_set_twice.json", ":18:5: ops[0].devices[2]: device \"gpu1\" is listed twice"},
    {"device_and_devices.json", ":16:3: ops[1]: give \"device\" or \"devices\", not both"},
    {"unknown_op_in_dep.json", ":36:10: deps[2].to: unknown op \"zz\""},
    {"duplicate_device.json", ":10:12: devices[2].name: \"gpu0\" is already the name of devices[0]"},
    {"duplicate_op.json", ":25:12: ops[3].name: \"o1\" is already the name of ops[1]"},
    {"duplicate_dep.json", ":34:3: deps[2]: the dependency \"o0\" -> \"o1\" is already deps[0]"},
    {"self_dep.json", ":30:3: deps[1]: op \"o2\" depends on itself"},
    {"channels_empty.json", ":11:14: channels: the list is empty"},
    {"channel_unknown_device.json", ":14:10: channels[0].to: unknown device \"tpu\""},
    {"channel_to_itself.json", ":16:3: channels[1]: a channel from device \"gpu1\" to itself"},
    {"channel_twice.json", ":20:3: channels[2]: the channel \"gpu0\" -> \"gpu1\" is already channels[0]"},
    {"cycle.json", ": the dependencies form a cycle: o3 <- o2 <- o1 <- o3"},
    {"capacity_below_forced.json", ": device \"gpu0\": memory 5 is below the 6 of weights forced onto it"},
    {"weight_fits_nowhere.json", ": op \"a\": its weight 6 fits on none of its devices"},
    {"no_channel.json", ": dependency \"a\" -> \"b\": no channel joins"},
};

static const expected bad_schedules[] = {
    {"syntax.json", ":3:25: '}' expected near '\"device\"'"},
    {"unknown_op.json", ":22:12: ops[3].name: the problem has no op \"zz\""},
    {"unknown_device.json", ":11:14: ops[1].device: the problem has no device \"gpu5\""},
    {"op_twice.json", ":21:3: ops[3]: op \"b\" is already placed by ops[1]"},
    {"transfer_twice.json", ":29:3: transfers[1]: the transfer \"a\" -> \"c\" is already given by transfers[0]"},
    {"transfer_not_dep.json", ":29:3: transfers[1]: \"b\" -> \"c\" is not a dependency of the problem"},
    {"start_string.json", ":18:13: ops[2].start: expected a finite number, got \"1.5\""},
    {"end_missing.json", ":9:3: ops[1].end: missing"},
    {"unknown_key.json", ":8:12: ops[0].stat: unknown key (allowed: name, device, start, end)"},
    {"ops_missing.json", ":1:1: ops: missing"},
    {"makespan_string.json", ":2:14: makespan: expected a finite number, got \"3\""},
    {"transfer_end_null.json", ":27:11: transfers[0].end: expected a finite number, got null"},
};

static void expect_message(const char *path, const pp_error *err, const char *says)
{
    size_t n = strlen(path);
    if (strncmp(err->message, path, n) != 0 || strncmp(err->message + n, says, strlen(says)) != 0) {
        fprintf(stderr, "expected \"%s%s...\"\n     got \"%s\"\n", path, says, err->message);
        check_failures++;
    }
}

static void test_bad_problems(void)
{
    for (size_t k = 0; k < sizeof bad_problems / sizeof *bad_problems; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/malformed/%s", PP_DATA_DIR, bad_problems[k].file);
        pp_error err = {0};
        pp_sched_problem *p = (pp_sched_problem *)1;
        CHECK_EQ_INT(pp_sched_load(path, &p, &err), PP_EINPUT);
        CHECK(p == NULL);
        expect_message(path, &err, bad_problems[k].says);
    }
}

static pp_sched_problem *load_example(void)
{
    pp_error err = {0};
    pp_sched_problem *p = NULL;
    if (pp_sched_load(PP_DATA_DIR "/example_problem.json", &p, &err) != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    return p;
}

static void test_bad_schedules(const pp_sched_problem *p)
{
    for (size_t k = 0; k < sizeof bad_schedules / sizeof *bad_schedules; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/malformed_schedule/%s", PP_DATA_DIR, bad_schedules[k].file);
        pp_error err = {0};
        pp_sched_schedule *s = (pp_sched_schedule *)1;
        CHECK_EQ_INT(pp_sched_load_schedule(path, p, &s, &err), PP_EINPUT);
        CHECK(s == NULL);
        expect_message(path, &err, bad_schedules[k].says);
    }
}

static void test_unreadable(const pp_sched_problem *example)
{
    pp_error err = {0};
    pp_sched_problem *p = NULL;
    CHECK_EQ_INT(pp_sched_load(PP_DATA_DIR "/no_such_file.json", &p, &err), PP_EIO);
    expect_message(PP_DATA_DIR "/no_such_file.json", &err, ": No such file or directory");
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_sched_load(PP_DATA_DIR, &p, &err), PP_EIO);
    expect_message(PP_DATA_DIR, &err, ": read error: Is a directory");
    pp_error_clear(&err);
    pp_sched_schedule *s = NULL;
    CHECK_EQ_INT(pp_sched_load_schedule(PP_DATA_DIR "/no_such_file.json", example, &s, &err), PP_EIO);
    CHECK(p == NULL && s == NULL);
}

/* The fields of example_problem.json as written there. */
static void test_example_fields(const pp_sched_problem *p)
{
    CHECK_EQ_INT(p->device_count, 2);
    CHECK_EQ_INT(p->op_count, 3);
    CHECK_EQ_INT(p->dep_count, 2);
    CHECK(strcmp(p->device_name[1], "gpu1") == 0);
    CHECK(p->capacity[0] == 10 && p->capacity[1] == INFINITY);
    CHECK(pp_sched_has_channel(p, 0, 1) && !pp_sched_has_channel(p, 1, 0));
    CHECK(strcmp(p->op_kind[0], "forward") == 0 && strcmp(p->op_kind[1], "op") == 0);
    CHECK(p->duration[2] == 1.5 && p->weight[0] == 2 && p->weight[1] == 0);
    CHECK(p->adjust[0] == 1 && p->adjust[1] == 0 && p->adjust[2] == -0.25);
    CHECK(pp_sched_op_allowed(p, 0, 0) && !pp_sched_op_allowed(p, 0, 1));
    CHECK(pp_sched_op_allowed(p, 1, 0) && pp_sched_op_allowed(p, 1, 1));
    CHECK(!pp_sched_op_allowed(p, 2, 0) && pp_sched_op_allowed(p, 2, 1));
    CHECK(p->dep_from[1] == 0 && p->dep_to[1] == 2 && p->dep_comm[1] == 0.5);
}

static bool same_time(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

static bool same_schedule(const pp_sched_schedule *a, const pp_sched_schedule *b)
{
    for (int i = 0; i < a->op_count; i++)
        if (a->device[i] != b->device[i] || !same_time(a->start[i], b->start[i]) || !same_time(a->end[i], b->end[i]))
            return false;
    for (int e = 0; e < a->dep_count; e++)
        if (!same_time(a->transfer_start[e], b->transfer_start[e]) || !same_time(a->transfer_end[e], b->transfer_end[e]))
            return false;
    return true;
}

/* A temporary file for a round trip; the caller unlinks it. */
static FILE *temp_file(char *path)
{
    strcpy(path, "/tmp/pp-test-load-XXXXXX");
    int fd = mkstemp(path);
    return fd < 0 ? NULL : fdopen(fd, "w");
}

static bool same_text(const char *a, const char *b)
{
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    bool same = f && g;
    int c;
    while (same && (c = getc(f)) == getc(g) && c != EOF)
        ;
    same = same && feof(f) && feof(g);
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* Writes p, loads it back; the copy must equal p, and writing the copy must
 * give the same text. Returns the copy. */
static pp_sched_problem *round_trip_problem(const pp_sched_problem *p)
{
    char path[64], again[64];
    FILE *f = temp_file(path);
    pp_error err = {0};
    pp_sched_problem *q = NULL;
    CHECK(f != NULL);
    if (!f)
        return NULL;
    CHECK_EQ_INT(pp_sched_write_problem(p, f, &err), PP_OK);
    fclose(f);
    if (pp_sched_load(path, &q, &err) != PP_OK) {
        fprintf(stderr, "reload: %s\n", err.message);
        check_failures++;
    } else {
        CHECK(sc_problem_equal(p, q));
        FILE *g = temp_file(again);
        CHECK_EQ_INT(pp_sched_write_problem(q, g, &err), PP_OK);
        fclose(g);
        CHECK(same_text(path, again));
        unlink(again);
    }
    unlink(path);
    return q;
}

static pp_sched_schedule *round_trip_schedule(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    char path[64];
    FILE *f = temp_file(path);
    pp_error err = {0};
    pp_sched_schedule *t = NULL;
    CHECK(f != NULL);
    if (!f)
        return NULL;
    CHECK_EQ_INT(pp_sched_write_schedule(p, s, f, &err), PP_OK);
    fclose(f);
    if (pp_sched_load_schedule(path, p, &t, &err) != PP_OK) {
        fprintf(stderr, "reload: %s\n", err.message);
        check_failures++;
    } else {
        CHECK(same_schedule(s, t));
    }
    unlink(path);
    return t;
}

/* Numbers a writer easily gets wrong: 17-digit fractions, tiny, huge,
 * integral beyond 2^53, integral with a fraction's look (1e20). */
static double awkward(pp_rng *rng)
{
    static const double special[] = {0, 1, 0.1, 1.0 / 3, 0.30000000000000004, 1e-300, 4.9e-324,
                                     1e20, 9007199254740993.0, 123456789.125, 2.5};
    if (pp_rng_below(rng, 3) == 0)
        return special[pp_rng_below(rng, sizeof special / sizeof *special)];
    return pp_rng_unit(rng) * 10;
}

/* A random valid problem built through the API: fixed ops, device sets
 * (always with device 0), free ops; deps forward in op order; explicit
 * channels when asked, always one per dep between the devices its ops are
 * fixed to (device 0 for unfixed ones), so every dep can be placed. */
static pp_sched_problem *random_problem(pp_rng *rng)
{
    pp_sched_problem *p = pp_sched_problem_new();
    int devices = 1 + (int)pp_rng_below(rng, 4), ops = (int)pp_rng_below(rng, 12);
    for (int d = 0; d < devices; d++) {
        char name[16];
        snprintf(name, sizeof name, "dev %d", d);
        pp_sched_add_device(p, name, pp_rng_below(rng, 2) ? INFINITY : 1e6 + awkward(rng));
    }
    int *fixed = malloc((size_t)(ops + 1) * sizeof(int));
    for (int i = 0; i < ops; i++) {
        char name[16];
        snprintf(name, sizeof name, "op-%d", i);
        double adjust = pp_rng_below(rng, 2) ? awkward(rng) : -awkward(rng);
        pp_sched_add_op(p, name, pp_rng_below(rng, 2) ? "op" : "forward", awkward(rng),
                        fmod(awkward(rng), 7), adjust);
        fixed[i] = -1;
        int how = (int)pp_rng_below(rng, 3);
        if (how == 0)
            pp_sched_allow(p, i, fixed[i] = (int)pp_rng_below(rng, (uint32_t)devices));
        for (int d = 0; how == 1 && d < devices; d++)
            if (d == 0 || pp_rng_below(rng, 2))
                pp_sched_allow(p, i, d);
    }
    bool explicit_channels = devices > 1 && pp_rng_below(rng, 2);
    for (int v = 1; v < ops; v++)
        for (int u = 0; u < v; u++) {
            if (pp_rng_below(rng, 4) != 0)
                continue;
            pp_sched_add_dep(p, u, v, pp_rng_below(rng, 2) ? 0 : awkward(rng));
            int du = fixed[u] >= 0 ? fixed[u] : 0, dv = fixed[v] >= 0 ? fixed[v] : 0;
            if (explicit_channels && du != dv)
                pp_sched_add_channel(p, du, dv);
        }
    if (explicit_channels)
        pp_sched_add_channel(p, 0, 1);
    for (int a = 0; explicit_channels && a < devices; a++)
        for (int c = 0; c < devices; c++)
            if (a != c && pp_rng_below(rng, 3) == 0)
                pp_sched_add_channel(p, a, c);
    free(fixed);
    pp_error err = {0};
    if (pp_sched_problem_finish(p, "random", &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

/* Random times (not a valid schedule: the reader does not judge), some ops
 * unplaced and some transfers absent. */
static void random_schedule(pp_rng *rng, const pp_sched_problem *p, pp_sched_schedule *s)
{
    for (int i = 0; i < p->op_count; i++) {
        bool placed = pp_rng_below(rng, 5) != 0;
        s->device[i] = placed ? (int)pp_rng_below(rng, (uint32_t)p->device_count) : -1;
        s->start[i] = placed ? awkward(rng) : NAN;
        s->end[i] = placed ? s->start[i] + p->duration[i] : NAN;
    }
    for (int e = 0; e < p->dep_count; e++) {
        bool sent = pp_rng_below(rng, 2) != 0;
        s->transfer_start[e] = sent ? awkward(rng) : NAN;
        s->transfer_end[e] = sent ? s->transfer_start[e] + p->dep_comm[e] : NAN;
    }
}

static void test_random_round_trips(void)
{
    pp_rng rng;
    pp_rng_seed(&rng, 7, 0);
    for (int round = 0; round < 200; round++) {
        pp_sched_problem *p = random_problem(&rng);
        if (!p)
            continue;
        pp_sched_problem *q = round_trip_problem(p);
        pp_sched_schedule *s = pp_sched_schedule_new(p);
        random_schedule(&rng, p, s);
        pp_sched_schedule *t = q ? round_trip_schedule(q, s) : NULL;
        pp_sched_schedule_free(s);
        pp_sched_schedule_free(t);
        pp_sched_problem_free(q);
        pp_sched_problem_free(p);
    }
}

static pp_status check_schedule(const pp_sched_problem *p, const pp_sched_schedule *s, pp_error *err)
{
    pp_sched_report r;
    pp_status st = pp_sched_check(p, s, &r, err);
    pp_sched_report_free(&r);
    return st;
}

static void test_example_schedule(const pp_sched_problem *p)
{
    pp_error err = {0};
    pp_sched_schedule *s = NULL;
    CHECK_EQ_INT(pp_sched_load_schedule(PP_DATA_DIR "/example_schedule.json", p, &s, &err), PP_OK);
    if (!s) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        return;
    }
    CHECK(s->device[2] == 1 && s->start[2] == 1.5 && s->end[2] == 3);
    CHECK(isnan(s->transfer_start[0]) && s->transfer_start[1] == 1 && s->transfer_end[1] == 1.5);
    CHECK_EQ_INT(check_schedule(p, s, &err), PP_OK);
    pp_sched_schedule *t = round_trip_schedule(p, s);
    if (t)
        CHECK_EQ_INT(check_schedule(p, t, &err), PP_OK);
    pp_sched_schedule_free(t);
    pp_sched_schedule_free(s);
}

/* Leaving op c (and its transfer) out is no reading error; the checker
 * reports the op. */
static void test_missing_op(const pp_sched_problem *p)
{
    char path[64];
    FILE *f = temp_file(path);
    fputs("{\"ops\": [{\"name\": \"a\", \"device\": \"gpu0\", \"start\": 0, \"end\": 1},"
          " {\"name\": \"b\", \"device\": \"gpu0\", \"start\": 1, \"end\": 3}]}", f);
    fclose(f);
    pp_error err = {0};
    pp_sched_schedule *s = NULL;
    CHECK_EQ_INT(pp_sched_load_schedule(path, p, &s, &err), PP_OK);
    unlink(path);
    if (!s)
        return;
    CHECK(s->device[2] == -1 && isnan(s->start[2]) && isnan(s->end[2]) && isnan(s->transfer_start[1]));
    CHECK_EQ_INT(check_schedule(p, s, &err), PP_INFEASIBLE);
    CHECK(strstr(err.message, "op \"c\"") != NULL);
    pp_sched_schedule_free(s);
}

/* A full disk shows at the flush: PP_EIO. */
static void test_write_errors(const pp_sched_problem *p)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_write_problem(p, f, &err), PP_EIO);
    pp_error_clear(&err);
    clearerr(f);
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    CHECK_EQ_INT(pp_sched_write_schedule(p, s, f, &err), PP_EIO);
    CHECK(strstr(err.message, "writing the schedule") != NULL);
    pp_sched_schedule_free(s);
    fclose(f);

    pp_sched_problem *bad = pp_sched_problem_new();
    pp_sched_add_device(bad, "g\xff", INFINITY);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_sched_problem_finish(bad, "bad", &err), PP_OK);
    FILE *sink = fopen("/dev/null", "w");
    CHECK_EQ_INT(pp_sched_write_problem(bad, sink, &err), PP_EARG);
    CHECK(strstr(err.message, "not UTF-8") != NULL);
    fclose(sink);
    pp_sched_problem_free(bad);
}

int main(void)
{
    test_bad_problems();
    pp_sched_problem *p = load_example();
    CHECK(p != NULL);
    if (p) {
        test_example_fields(p);
        test_bad_schedules(p);
        test_unreadable(p);
        pp_sched_problem_free(round_trip_problem(p));
        test_example_schedule(p);
        test_missing_op(p);
        test_write_errors(p);
    }
    test_random_round_trips();
    pp_sched_problem_free(p);
    return CHECK_DONE();
}
