/* test_timing.c: sc_times_from_orders on hand-worked orders (channel
 * queueing, ties by dependency index, deadlock and malformed orders), and on
 * random graphs split over devices in topological order, where the checker
 * must accept the times and every op and transfer must start as early as
 * its device, inputs and channel allow. The re-timing of fixed orders
 * (retime.c) on those schedules, with span limits and folded at periods,
 * against plain Bellman-Ford: the same verdict and the same times. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sched/retime.h"
#include "sched/sched_internal.h"
#include "sched/timing.h"

/* dev0: a (2), b (1); dev1: c (3), d (1). Deps a->c (comm 1), b->c (comm 1),
 * a->d (comm 2), declared so that a->d has a lower index than b->c.
 * Channel dev0->dev1 serves a->c [2,3], then a->d [3,5] (ready at 2, before
 * b->c), then b->c [5,6]; c runs [6,9]; d [9,10]. */
static void hand_worked(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "dev0", INFINITY);
    pp_sched_add_device(p, "dev1", INFINITY);
    int a = pp_sched_add_op(p, "a", "op", 2, 0, 0), b = pp_sched_add_op(p, "b", "op", 1, 0, 0);
    int c = pp_sched_add_op(p, "c", "op", 3, 0, 0), d = pp_sched_add_op(p, "d", "op", 1, 0, 0);
    int ac = pp_sched_add_dep(p, a, c, 1), ad = pp_sched_add_dep(p, a, d, 2);
    int bc = pp_sched_add_dep(p, b, c, 1);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "hand", &err), PP_OK);
    int device_of[] = {0, 0, 1, 1}, row0[] = {a, b}, row1[] = {c, d}, length[] = {2, 2};
    const int *rows[] = {row0, row1};
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    CHECK_EQ_INT(sc_times_from_orders(p, device_of, rows, length, s, &err), PP_OK);
    CHECK(s->start[a] == 0 && s->end[a] == 2 && s->start[b] == 2 && s->end[b] == 3);
    CHECK(s->transfer_start[ac] == 2 && s->transfer_end[ac] == 3);
    CHECK(s->transfer_start[ad] == 3 && s->transfer_end[ad] == 5);
    CHECK(s->transfer_start[bc] == 5 && s->transfer_end[bc] == 6);
    CHECK(s->start[c] == 6 && s->end[c] == 9 && s->start[d] == 9 && s->end[d] == 10);
    pp_sched_report r;
    CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
    pp_sched_report_free(&r);

    /* Same device: no transfer, no comm. */
    int together[] = {a, b, c, d}, none[] = {0}, all_one[] = {0, 0, 0, 0}, length2[] = {4, 0};
    const int *rows2[] = {together, none};
    CHECK_EQ_INT(sc_times_from_orders(p, all_one, rows2, length2, s, &err), PP_OK);
    CHECK(s->start[c] == 3 && s->end[d] == 7 && isnan(s->transfer_start[ac]));

    /* Deadlock: b moves to dev1 behind c, which needs b. */
    int dl_device[] = {0, 1, 1, 1}, dl0[] = {a}, dl1[] = {c, b, d}, dl_length[] = {1, 3};
    const int *dl_rows[] = {dl0, dl1};
    pp_error_clear(&err);
    CHECK_EQ_INT(sc_times_from_orders(p, dl_device, dl_rows, dl_length, s, &err), PP_EARG);
    CHECK(strstr(err.message, "deadlock") && strstr(err.message, "\"c\""));

    /* Malformed: an op twice, an op in the wrong device's order. */
    int twice0[] = {a, a}, twice1[] = {c, d};
    const int *twice_rows[] = {twice0, twice1};
    pp_error_clear(&err);
    CHECK_EQ_INT(sc_times_from_orders(p, device_of, twice_rows, length, s, &err), PP_EARG);
    CHECK(strstr(err.message, "twice") != NULL);
    int wrong0[] = {a, c}, wrong1[] = {b, d};
    const int *wrong_rows[] = {wrong0, wrong1};
    pp_error_clear(&err);
    CHECK_EQ_INT(sc_times_from_orders(p, device_of, wrong_rows, length, s, &err), PP_EARG);
    CHECK(strstr(err.message, "placed on") != NULL);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* A missing channel is reported, not ignored. */
static void missing_channel(void)
{
    pp_sched_problem *p = pp_sched_problem_new();
    pp_sched_add_device(p, "dev0", INFINITY);
    pp_sched_add_device(p, "dev1", INFINITY);
    pp_sched_add_channel(p, 1, 0);
    int a = pp_sched_add_op(p, "a", "op", 1, 0, 0), b = pp_sched_add_op(p, "b", "op", 1, 0, 0);
    pp_sched_add_dep(p, a, b, 1);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_problem_finish(p, "hand", &err), PP_OK);
    int device_of[] = {0, 1}, row0[] = {a}, row1[] = {b}, length[] = {1, 1};
    const int *rows[] = {row0, row1};
    pp_sched_schedule *s = pp_sched_schedule_new(p);
    CHECK_EQ_INT(sc_times_from_orders(p, device_of, rows, length, s, &err), PP_EARG);
    CHECK(strstr(err.message, "channel") != NULL);
    pp_sched_schedule_free(s);
    pp_sched_problem_free(p);
}

/* Every op starts at the later of its device's previous end and its inputs'
 * arrival; every transfer starts at its source's end or at the end of
 * another transfer on the same channel (a channel never idles while a
 * transfer waits). */
static void check_earliest(const pp_sched_problem *p, const pp_sched_schedule *s, const int *const *rows,
                           const int *length)
{
    for (int d = 0; d < p->device_count; d++)
        for (int k = 0; k < length[d]; k++) {
            int op = rows[d][k];
            double earliest = k > 0 ? s->end[rows[d][k - 1]] : 0;
            for (int j = p->pred_start[op]; j < p->pred_start[op + 1]; j++) {
                int e = p->pred_dep[j];
                double in = isnan(s->transfer_end[e]) ? s->end[p->dep_from[e]] : s->transfer_end[e];
                earliest = fmax(earliest, in);
            }
            CHECK(s->start[op] == earliest);
        }
    for (int e = 0; e < p->dep_count; e++) {
        if (isnan(s->transfer_start[e]))
            continue;
        bool explained = s->transfer_start[e] == s->end[p->dep_from[e]];
        int a = s->device[p->dep_from[e]], b = s->device[p->dep_to[e]];
        for (int f = 0; f < p->dep_count && !explained; f++)
            explained = f != e && !isnan(s->transfer_end[f]) && s->device[p->dep_from[f]] == a &&
                        s->device[p->dep_to[f]] == b && s->transfer_end[f] == s->transfer_start[e];
        CHECK(explained);
    }
}

/* Longest paths from 0 over r's edges at T by whole passes, into x; false
 * when a pass beyond the nodes' count still raises one (a positive cycle). */
static bool bellman_ford(const sc_retimer *r, double T, double *x)
{
    for (int v = 0; v < r->nodes; v++)
        x[v] = 0;
    for (int pass = 0; pass <= r->nodes; pass++) {
        bool raised = false;
        for (int k = 0; k < r->edge_count; k++) {
            const sc_retime_edge *e = &r->edges[k];
            double at = x[e->from] + e->length + e->periods * T;
            if (at > x[e->to] * (1 + 1e-15) + 1e-12)
                x[e->to] = at, raised = true;
        }
        if (!raised)
            return true;
    }
    return false;
}

/* settle against bellman_ford at T: the verdict, and the times when they settle. */
static void expect_settled_as(sc_retimer *r, double T, double *x, int *settled)
{
    bool ok = sc_retime_settle(r, T);
    CHECK(ok == bellman_ford(r, T, x));
    for (int v = 0; ok && v < r->nodes; v++)
        CHECK(fabs(r->trial[v] - x[v]) <= 1e-9 * fmax(1, x[v]));
    *settled += ok;
}

/* s re-timed with a span limit on every device (the span's compaction) at
 * 24 limits from 0.77 to 1 x its longest span, and folded at 24 periods
 * from 0.54 to 1 x its makespan: both settle where Bellman-Ford does, and
 * some of each do. */
static void retime_as_bellman_ford(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    sc_retimer r;
    double *x = malloc(((size_t)p->op_count + (size_t)p->dep_count + 1) * sizeof(double));
    CHECK(x && sc_retimer_init(&r, p, s, p->device_count));
    pp_sched_report rep;
    pp_error err = {0};
    pp_sched_check(p, s, &rep, &err);
    int limited = 0, folded = 0;
    sc_retime_order(&r, INFINITY);
    for (int d = 0; d < p->device_count; d++)
        if (r.first[d] >= 0 && r.first[d] != r.last[d])
            sc_retime_add(&r, r.last[d], r.first[d], r.length[r.last[d]], -1);
    for (int k = 1; x && k <= 24; k++)
        expect_settled_as(&r, rep.max_span * (0.76 + 0.01 * k), x, &limited);
    for (int k = 1; x && k <= 24; k++) {
        sc_retime_order(&r, rep.makespan * (0.52 + 0.02 * k));
        expect_settled_as(&r, rep.makespan * (0.52 + 0.02 * k), x, &folded);
    }
    fprintf(stderr, "%d devices, %d nodes: %d of 24 span limits settle, %d of 24 folds\n", p->device_count,
            r.nodes, limited, folded);
    CHECK(limited > 0 && limited < 24 && folded > 0);
    pp_sched_report_free(&rep);
    sc_retimer_free(&r);
    free(x);
}

/* Random graphs: ops dealt to devices in topological order cannot deadlock.
 * On 3 devices, and on 70 (more than the 64 relaxations per edge that
 * settle allows at the least). */
static void random_orders(void)
{
    for (uint64_t seed = 1; seed <= 8; seed++) {
        pp_random_spec spec = {.ops = 120, .max_degree = 3, .devices = seed <= 6 ? 3 : 70, .seed = seed};
        pp_sched_problem *p = NULL;
        pp_error err = {0};
        CHECK_EQ_INT(pp_sched_gen_random(&spec, &p, &err), PP_OK);
        if (!p)
            continue;
        pp_rng rng;
        pp_rng_seed(&rng, seed, 7);
        int n = p->op_count, D = p->device_count;
        int *device_of = calloc((size_t)n, sizeof(int)), *store = calloc((size_t)(n * D), sizeof(int));
        int *length = calloc((size_t)D, sizeof(int));
        const int **rows = calloc((size_t)D, sizeof *rows);
        for (int k = 0; k < n; k++) {
            int op = p->topo_order[k], d = (int)pp_rng_below(&rng, (uint32_t)D);
            device_of[op] = d;
            store[d * n + length[d]++] = op;
        }
        for (int d = 0; d < D; d++)
            rows[d] = store + d * n;
        pp_sched_schedule *s = pp_sched_schedule_new(p);
        CHECK_EQ_INT(sc_times_from_orders(p, device_of, rows, length, s, &err), PP_OK);
        pp_sched_report r;
        CHECK_EQ_INT(pp_sched_check(p, s, &r, &err), PP_OK);
        if (r.violations)
            fprintf(stderr, "seed %llu: %s\n", (unsigned long long)seed, err.message);
        pp_sched_report_free(&r);
        check_earliest(p, s, rows, length);
        retime_as_bellman_ford(p, s);
        pp_sched_schedule_free(s);
        free(length), free(rows);
        free(device_of);
        free(store);
        pp_sched_problem_free(p);
    }
}

int main(void)
{
    hand_worked();
    missing_channel();
    random_orders();
    return CHECK_DONE();
}
