/* test_stop.c: the stop flag per solve (`stop` in each system's options).
 * For IOPDDL, scheduling, the cluster planner and the sharder, two solves of
 * one problem run side by side on two threads. The first has a time limit
 * of ten minutes and raises its own flag at its first progress report: it
 * must return (the test would hang otherwise) with an answer the system's
 * checker accepts. The second, bounded by rounds or by the end of its
 * search, keeps its flag down: it must run to its normal end (all its
 * rounds) and, where the run is deterministic (scheduling, cluster, shard),
 * give the very answer it gives alone. With the one process-wide flag it
 * had been stopped too. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cluster/fixture.h"
#include "parplan/iopddl.h"
#include "sched/sched_internal.h"
#include "shard/fixture.h"
#include "cluster/solve.h"
#include "shard/shard_internal.h"
#include "iopddl/problem_io.h"

#define LONG_LIMIT 600.0

/* A flag raised by its own solve's first progress report. */
typedef struct {
    pp_stop_flag flag;
    int reports;
} stopper;

static void raise_flag(stopper *s)
{
    s->reports++;
    atomic_store(&s->flag, 1);
}

typedef struct {
    void (*run)(void *job);
    void *job;
} task;

static void *run_task(void *arg)
{
    task *t = arg;
    t->run(t->job);
    return NULL;
}

static void side_by_side(task stopped, task running)
{
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, run_task, &stopped) == 0);
    CHECK(pthread_create(&b, NULL, run_task, &running) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
}

/* IOPDDL: a 20 x 20 grid, six strategies a node, random costs, and a usage
 * limit that binds. */
typedef struct {
    const pp_iopddl_problem *p;
    pp_iopddl_options o;
    pp_iopddl_result r;
    pp_status status;
} iopddl_job;

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 33;
}

static pp_iopddl_problem *grid_problem(uint32_t side, uint32_t k)
{
    uint32_t n = side * side;
    uint32_t *counts = malloc(n * sizeof *counts);
    int64_t *table = malloc((size_t)k * k * sizeof *table);
    pp_iopddl_builder *b = NULL;
    pp_error err = {0};
    for (uint32_t i = 0; counts && i < n; i++)
        counts[i] = k;
    CHECK(counts && table && pp_iopddl_builder_new(n, counts, &b, &err) == PP_OK);
    uint64_t state = 7;
    for (uint32_t i = 0; b && i < n; i++) {
        pp_iopddl_builder_interval(b, i, i % 10, i % 10 + 5);
        for (uint32_t s = 0; s < k; s++)
            pp_iopddl_builder_strategy(b, i, s, (int64_t)(next_random(&state) % 1000),
                                       (int64_t)(next_random(&state) % 100));
    }
    for (uint32_t i = 0; b && i < n; i++)
        for (int down = 0; down < 2; down++) {
            uint32_t j = down ? i + side : i + 1;
            if (down ? j >= n : j % side == 0)
                continue;
            for (uint32_t c = 0; c < k * k; c++)
                table[c] = (int64_t)(next_random(&state) % 500);
            pp_iopddl_builder_edge(b, i, j, table);
        }
    pp_iopddl_problem *p = NULL;
    if (b) {
        pp_iopddl_builder_limit(b, 30 * (int64_t)n / 2);
        CHECK(pp_iopddl_builder_finish(b, &p, &err) == PP_OK);
    }
    free(counts);
    free(table);
    return p;
}

static void iopddl_stop_on_report(void *ctx, const pp_iopddl_progress *progress)
{
    (void)progress;
    raise_flag(ctx);
}

static void run_iopddl(void *arg)
{
    iopddl_job *j = arg;
    pp_error err = {0};
    j->status = pp_iopddl_solve(j->p, &j->o, &j->r, &err);
}

static void check_iopddl_answer(const pp_iopddl_problem *p, const pp_iopddl_result *r)
{
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    CHECK(r->feasible);
    CHECK(pp_iopddl_evaluate(p, r->strategies, &ev, &err) == PP_OK);
    CHECK(ev.feasible && !ev.uses_forbidden && ev.cost == (pp_int128)r->cost);
}

static void test_iopddl(void)
{
    pp_iopddl_problem *p = grid_problem(12, 6);
    if (!p)
        return;
    stopper s = {0};
    iopddl_job stopped = {.p = p}, running = {.p = p}, alone = {.p = p};
    pp_iopddl_options_default(&stopped.o);
    stopped.o.threads = 1;
    stopped.o.time_limit = LONG_LIMIT;
    stopped.o.on_progress = iopddl_stop_on_report;
    stopped.o.progress_ctx = &s;
    stopped.o.stop = &s.flag;
    pp_stop_flag down = 0;
    /* The rounds are followed by exact regions (CBC with time limits) until
     * the deadline: the running solve's answer may differ from its lone
     * run's on a loaded machine, its rounds may not. */
    pp_iopddl_options_default(&running.o);
    running.o.threads = 1;
    running.o.time_limit = 4;
    running.o.max_rounds = 10;
    running.o.no_exact = true;
    running.o.bound_share = 0;
    running.o.stop = &down;
    alone.o = running.o;
    run_iopddl(&alone);
    side_by_side((task){run_iopddl, &stopped}, (task){run_iopddl, &running});
    CHECK(stopped.status == PP_OK && running.status == PP_OK && alone.status == PP_OK);
    CHECK(s.reports >= 1 && stopped.r.time_total < LONG_LIMIT);
    check_iopddl_answer(p, &stopped.r);
    check_iopddl_answer(p, &running.r);
    CHECK_EQ_INT(running.r.rounds, 10);
    CHECK_EQ_INT(alone.r.rounds, 10);
    pp_iopddl_result_free(&stopped.r);
    pp_iopddl_result_free(&running.r);
    pp_iopddl_result_free(&alone.r);
    pp_iopddl_free(p);
}

/* Scheduling: a random graph of 2,000 ops on 8 devices. */
typedef struct {
    const pp_sched_problem *p;
    pp_sched_options o;
    pp_sched_result r;
    pp_status status;
} sched_job;

static void sched_stop_on_report(void *ctx, double makespan, double lower_bound, double elapsed)
{
    (void)makespan, (void)lower_bound, (void)elapsed;
    raise_flag(ctx);
}

static void run_sched(void *arg)
{
    sched_job *j = arg;
    pp_error err = {0};
    j->status = pp_sched_solve(j->p, &j->o, &j->r, &err);
}

static void check_schedule(const pp_sched_problem *p, const pp_sched_result *r)
{
    pp_sched_report rep;
    pp_error err = {0};
    CHECK(r->schedule && pp_sched_check(p, r->schedule, &rep, &err) == PP_OK);
    if (r->schedule) {
        CHECK(rep.makespan == r->makespan);
        pp_sched_report_free(&rep);
    }
}

static void test_sched(void)
{
    pp_random_spec spec = {2000, 3, 8, 5};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK(pp_sched_gen_random(&spec, &p, &err) == PP_OK);
    if (!p)
        return;
    stopper s = {0};
    sched_job stopped = {.p = p}, running = {.p = p}, alone = {.p = p};
    pp_sched_options_default(&stopped.o);
    stopped.o.threads = 1;
    stopped.o.time_limit = LONG_LIMIT;
    stopped.o.on_progress = sched_stop_on_report;
    stopped.o.progress_ctx = &s;
    stopped.o.stop = &s.flag;
    pp_stop_flag down = 0;
    pp_sched_options_default(&running.o);
    running.o.threads = 1;
    running.o.max_rounds = 300;
    running.o.stop = &down;
    alone.o = running.o;
    run_sched(&alone);
    side_by_side((task){run_sched, &stopped}, (task){run_sched, &running});
    CHECK(stopped.status == PP_OK && running.status == PP_OK && alone.status == PP_OK);
    CHECK(s.reports >= 1 && stopped.r.elapsed < LONG_LIMIT);
    check_schedule(p, &stopped.r);
    check_schedule(p, &running.r);
    CHECK_EQ_INT(running.r.rounds, alone.r.rounds);
    CHECK(running.r.makespan == alone.r.makespan);
    pp_sched_result_free(&stopped.r);
    pp_sched_result_free(&running.r);
    pp_sched_result_free(&alone.r);
    pp_sched_problem_free(p);
}

/* The cluster planner: two unlike nodes of four devices, 16 layers. */
typedef struct {
    const pp_cluster *c;
    const pp_cluster_workload *w;
    pp_cluster_plan_options o;
    pp_cluster_plan_result r;
    pp_status status;
} cluster_job;

static void cluster_stop_on_report(void *ctx, const pp_cluster_progress *progress)
{
    (void)progress;
    raise_flag(ctx);
}

static void run_cluster(void *arg)
{
    cluster_job *j = arg;
    pp_error err = {0};
    j->status = pp_cluster_plan_search(j->c, j->w, &j->o, &j->r, &err);
}

/* The plan is valid and, simulated again, takes the time reported. */
static void check_cluster_plan(const cluster_job *j)
{
    pp_error err = {0};
    CHECK(j->r.best && pp_cluster_plan_validate(j->c, j->w, j->r.best, &err) == PP_OK);
    if (!j->r.best)
        return;
    pp_cluster_sim_options so = {.start_time = 0};
    pp_cluster_report rep;
    CHECK(pp_cluster_simulate(j->c, j->w, j->r.best, &so, &rep, &err) == PP_OK);
    CHECK(rep.step_time == j->r.best_time);
    pp_cluster_report_free(&rep);
}

static void test_cluster(void)
{
    static pp_hw_device_type types[2];
    types[0] = fixture_type("slow", 1e12, 1e9);
    types[1] = fixture_type("fast", 3e12, 1e9);
    int per[2] = {4, 4};
    pp_cluster *c = fixture_cluster(2, per, types, 50e9, 5e9);
    pp_cluster_workload *w = fixture_workload(16, 2e9, 4e6, 1e5, 2e5, 16);
    stopper s = {0};
    pp_stop_flag down = 0;
    cluster_job stopped = {.c = c, .w = w}, running = stopped, alone = stopped;
    stopped.o = (pp_cluster_plan_options){.threads = 1, .seed = 1, .time_limit = LONG_LIMIT,
                                          .on_progress = cluster_stop_on_report, .progress_ctx = &s, .stop = &s.flag};
    running.o = (pp_cluster_plan_options){.threads = 1, .seed = 1, .stop = &down};
    alone.o = running.o;
    run_cluster(&alone);
    side_by_side((task){run_cluster, &stopped}, (task){run_cluster, &running});
    CHECK(stopped.status == PP_OK && running.status == PP_OK && alone.status == PP_OK);
    CHECK(s.reports >= 1 && stopped.r.seconds < LONG_LIMIT);
    check_cluster_plan(&stopped);
    check_cluster_plan(&running);
    CHECK(running.r.complete && alone.r.complete);
    CHECK(running.r.best_time == alone.r.best_time && running.r.nodes == alone.r.nodes);
    pp_cluster_plan_result_free(&stopped.r);
    pp_cluster_plan_result_free(&running.r);
    pp_cluster_plan_result_free(&alone.r);
    pp_cluster_workload_free(w);
    pp_cluster_free(c);
}

/* The sharder's MCTS: a BERT layer on a 2 x 4 mesh. */
typedef struct {
    const analysed *A;
    const pp_shard_mesh *mesh;
    pp_shard_search_options o;
    pp_shard_search_result r;
    pp_status status;
} shard_job;

static void shard_stop_on_report(void *ctx, const pp_shard_progress *progress)
{
    (void)progress;
    raise_flag(ctx);
}

static void run_shard(void *arg)
{
    shard_job *j = arg;
    pp_error err = {0};
    j->status = pp_shard_search(j->A->flat, j->A->nda, j->mesh, &j->o, &j->r, &err);
}

/* The layout costs what the search reports, evaluated afresh. */
static void check_shard_plan(const shard_job *j)
{
    pp_shard_cost c;
    pp_error err = {0};
    CHECK(pp_shard_cost_eval_layout(j->A->flat, j->A->nda, j->mesh, j->r.axes, &c, &err) == PP_OK);
    CHECK(c.runtime == j->r.cost.runtime && c.peak_memory == j->r.cost.peak_memory);
}

static void test_shard(void)
{
    static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};
    analysed A;
    if (!open_model(&A, PP_SOURCE_DIR "/tests/shard/data/bert_layers.mlir"))
        return;
    pp_shard_mesh mesh = mesh_on("a=2,b=4", &dev, (pp_hw_link){1e9, 1e-6});
    stopper s = {0};
    pp_stop_flag down = 0;
    shard_job stopped = {.A = &A, .mesh = &mesh}, running = stopped, alone = stopped;
    pp_shard_search_options_default(&stopped.o);
    stopped.o.threads = 1;
    stopped.o.time_limit = LONG_LIMIT;
    stopped.o.patience = 1000000;
    stopped.o.on_progress = shard_stop_on_report;
    stopped.o.progress_ctx = &s;
    stopped.o.stop = &s.flag;
    pp_shard_search_options_default(&running.o);
    running.o.threads = 1;
    running.o.stop = &down;
    alone.o = running.o;
    run_shard(&alone);
    side_by_side((task){run_shard, &stopped}, (task){run_shard, &running});
    CHECK(stopped.status == PP_OK && running.status == PP_OK && alone.status == PP_OK);
    CHECK(s.reports >= 1 && stopped.r.timed_out && stopped.r.seconds < LONG_LIMIT);
    check_shard_plan(&stopped);
    check_shard_plan(&running);
    CHECK(!running.r.timed_out && running.r.rounds == alone.r.rounds);
    CHECK(memcmp(running.r.axes, alone.r.axes, (size_t)A.nda->n_names) == 0);
    pp_shard_search_result_free(&stopped.r);
    pp_shard_search_result_free(&running.r);
    pp_shard_search_result_free(&alone.r);
    release(&A);
}

int main(void)
{
    test_iopddl();
    test_sched();
    test_cluster();
    test_shard();
    return CHECK_DONE();
}
