/* run.c: `cluster plan`, `replan` and `simulate` as one library call each
 * (see parplan/cluster_request.h): the catalog, cluster, events, workload
 * and plan read from files or memory, the search or the simulation, the
 * answer judged and summed up, the step drawn when asked. The CLI and
 * Python hand over a request and a job and render what comes back. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "parplan/deadline.h"
#include "parplan/cluster_request.h"
#include "cluster/load_cluster.h"
#include "cluster/load_plan.h"
#include "cluster/report.h"
#include "cluster/solve.h"
#include "cluster/workload_internal.h"
#include "cluster/moment.h"
#include "cluster/stack.h"
#include "core/timeline_internal.h"
#include "hw/hw_internal.h"

static bool given(const pp_source *s) { return s->path || s->text; }

static pp_status read_cluster(const pp_source *s, pp_cluster_outcome *out, pp_error *err)
{
    if (s->path)
        return pp_cluster_load(s->path, out->catalog, &out->cluster, err);
    return pp_cluster_load_buffer(s->name, s->text, s->size, out->catalog, &out->cluster, err);
}

static pp_status read_events(const pp_source *s, pp_cluster_outcome *out, pp_error *err)
{
    if (s->path)
        return pp_cluster_add_events_file(out->cluster, s->path, err);
    return s->text ? cluster_add_events_buffer(out->cluster, s->name, s->text, s->size, err) : PP_OK;
}

static pp_status read_workload(const pp_source *s, pp_cluster_outcome *out, pp_error *err)
{
    if (s->path)
        return pp_cluster_workload_load(s->path, out->catalog, &out->workload, err);
    return cluster_workload_load_buffer(s->name, s->text, s->size, out->catalog, &out->workload, err);
}

static pp_status read_plan(const pp_source *s, pp_cluster_outcome *out, pp_error *err)
{
    if (s->path)
        return pp_cluster_plan_load(s->path, out->cluster, out->workload, &out->plan, err);
    if (!s->text)
        return PP_OK;
    return cluster_plan_load_buffer(s->name, s->text, s->size, out->cluster, out->workload, &out->plan, err);
}

/* The catalog and the documents in the CLI's order, the request's stack
 * set on the workload before the plan is read (a plan that names none
 * takes the workload's); out->failed names the one that could not be read. */
static pp_status read_documents(const pp_cluster_request *r, const pp_cluster_job *job, pp_cluster_outcome *out,
                                pp_error *err)
{
    static pp_status (*const readers[])(const pp_source *, pp_cluster_outcome *, pp_error *) = {
        read_cluster, read_events, read_workload, read_plan};
    const pp_source *sources[] = {&job->cluster, &job->events, &job->workload, &job->plan};
    out->failed = job->devices;
    pp_status st = pp_hw_catalog_builtin(&out->catalog, err);
    if (st == PP_OK && job->devices)
        st = pp_hw_catalog_add_file(out->catalog, job->devices, err);
    for (size_t k = 0; st == PP_OK && k < sizeof readers / sizeof readers[0]; k++) {
        out->failed = sources[k]->path ? sources[k]->path : sources[k]->name;
        if (readers[k] == read_plan && r->stack)
            pp_cluster_stack_parse(r->stack, &out->workload->stack); /* a name the request's check passed */
        st = readers[k](sources[k], out, err);
    }
    if (st == PP_OK)
        out->failed = NULL;
    return st;
}

/* The moment every event has happened: what a re-plan plans for. */
static double last_event_time(const pp_cluster *c)
{
    double t = 0;
    for (int k = 0; k < c->event_count; k++)
        t = fmax(t, c->events[k].time);
    return t;
}

/* Under a time limit a picture holds at most BOXES_PER_SECOND boxes a
 * second of it, and the search leaves SECONDS_PER_BOX for each to be
 * simulated, drawn and written. Measured on 512 A100s with GPT 39.1B on the
 * shared machine: 20,000 boxes cost 0.26 s of CPU over a plain simulation,
 * 0.4 s of wall time under load; the whole step, 459,009 boxes and 78 MB,
 * had taken 4-15 s past a one-second limit. */
#define BOXES_PER_SECOND 10000.0
#define SECONDS_PER_BOX 20e-6

/* The picture and its writing end by the limit less this share of it,
 * kept for the plan's writing, freeing and exit (0.01-0.03 s) and for the
 * writing's pace, which varies from the one measured while drawing: with
 * three runs at once on two cores under --timeout 2, 0.5 s of writing
 * ended up to 0.06 s past its estimate. */
#define PICTURE_TAIL 0.1
/* Boxes of the sample whose writing measures what a box costs now. */
#define SAMPLE_BOXES 512

/* The thread's CPU seconds a box of the picture takes to be written as a
 * trace and an SVG (the job does not say which the caller writes; the
 * trace costs the more), at this build's speed (the sanitizers' is several
 * times slower), from a sample written to /dev/null; SECONDS_PER_BOX when
 * it cannot be measured. */
static double writing_seconds_per_box(void)
{
    pp_timeline *t = pp_timeline_new("sample", 1e6);
    FILE *f = fopen("/dev/null", "w");
    double began = pp_thread_seconds(), per_box = SECONDS_PER_BOX;
    int row = t ? pp_timeline_add_row(t, "node0/0 A100") : -1;
    pp_status st = row >= 0 && f ? PP_OK : PP_ENOMEM;
    pp_error err = {0};
    /* times of full precision and labels as long as the step's: a trace
     * writes each number in full */
    for (int k = 0; k < SAMPLE_BOXES && st == PP_OK; k++)
        st = pp_timeline_add_box(t, row, 0.1 + k * 1.2345678e-3, 0.1 + (k + 0.7654321) * 1.2345678e-3, "F r12 s3 m17",
                                 "forward", &err);
    if (st == PP_OK && pp_timeline_write_trace(t, f, &err) == PP_OK && pp_timeline_write_svg(t, f, &err) == PP_OK)
        per_box = (pp_thread_seconds() - began) / SAMPLE_BOXES;
    if (f)
        fclose(f);
    pp_timeline_free(t);
    return per_box;
}

/* Under a time limit the drawing keeps to what can be written by its end. */
static cluster_drawing drawing_limit(const pp_cluster_request *r, const pp_cluster_job *job)
{
    return (cluster_drawing){.by = job->started + (1 - PICTURE_TAIL) * r->timeout,
                             .cpu_seconds_per_box = writing_seconds_per_box()};
}

static long picture_boxes(const pp_cluster_request *r, const pp_cluster_job *job)
{
    return job->draw && r->timeout > 0 ? (long)fmax(1000.0, BOXES_PER_SECOND * r->timeout) : 0;
}

static pp_status new_timeline(const pp_cluster_job *job, pp_cluster_outcome *out, pp_error *err)
{
    if (!job->draw)
        return PP_OK;
    out->timeline = pp_timeline_new(out->cluster->name ? out->cluster->name : "cluster", 1e6);
    return out->timeline ? PP_OK : pp_error_set(err, PP_ENOMEM, "out of memory for the timeline");
}

/* The picture's title carries what one needs to read it: the cluster, the
 * step time and the plan, and what a time limit left out of it. */
static pp_status title(pp_cluster_outcome *out, const pp_cluster_plan *p, const pp_cluster_report *step, bool cut,
                       pp_error *err)
{
    if (!out->timeline)
        return PP_OK;
    char what[1024], text[1280];
    pp_cluster_plan_describe(p, what, sizeof what);
    int n = snprintf(text, sizeof text, "%s: %.4f s per step (%s)",
                     out->cluster->name ? out->cluster->name : "cluster", step->step_time, what);
    if (cut && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n,
                 "; drawn: the first %d boxes, %ld and the rest of the step left out under the time limit",
                 pp_timeline_box_count(out->timeline), step->boxes_left_out);
    else if (step->boxes_left_out > 0 && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, "; drawn: the first %d boxes, %ld left out under the time limit",
                 pp_timeline_box_count(out->timeline), step->boxes_left_out);
    return pp_timeline_set_title(out->timeline, text, err);
}

pp_status pp_cluster_plan_run(const pp_cluster_request *r, const pp_cluster_job *job, pp_cluster_outcome *out,
                              pp_error *err)
{
    memset(out, 0, sizeof *out);
    pp_status st = pp_cluster_request_check(r, err);
    if (st == PP_OK)
        st = read_documents(r, job, out, err);
    if (st != PP_OK)
        return st;
    out->at = job->replan ? last_event_time(out->cluster) : r->at;
    long boxes = picture_boxes(r, job);
    double left = pp_job_solve_budget(r->timeout, job->started) - SECONDS_PER_BOX * (double)boxes;
    pp_cluster_plan_options o = {.time_limit = fmax(left, 0.01),
                                 .threads = (int)r->threads,
                                 .seed = r->seed,
                                 .start_time = out->at,
                                 .warm_start = out->plan,
                                 .max_context_parallel = (int)r->context_parallel,
                                 /* the search's own simulations serve unless a picture is asked for */
                                 .reserve_simulations = job->draw ? 1 : 0,
                                 .on_progress = job->on_progress,
                                 .progress_ctx = job->progress_ctx,
                                 .stop = job->stop};
    st = pp_cluster_plan_search(out->cluster, out->workload, &o, &out->result, err);
    if (st == PP_OK)
        st = new_timeline(job, out, err);
    pp_cluster_sim_options drawing = {.start_time = out->at, .timeline = out->timeline, .max_boxes = boxes};
    bool limited = st == PP_OK && job->draw && r->timeout > 0, cut = false;
    cluster_drawing limit = limited ? drawing_limit(r, job) : (cluster_drawing){0};
    if (st == PP_OK)
        st = pp_cluster_plan_summarize(out->cluster, out->workload, &out->result, &drawing, limited ? &limit : NULL,
                                       &out->summary, &cut, err);
    if (st == PP_OK)
        st = title(out, out->result.best, &out->summary.best, cut, err);
    return st;
}

pp_status pp_cluster_simulate_run(const pp_cluster_request *r, const pp_cluster_job *job, pp_cluster_outcome *out,
                                  pp_error *err)
{
    memset(out, 0, sizeof *out);
    pp_status st = pp_cluster_request_check(r, err);
    if (st == PP_OK && !given(&job->plan))
        st = pp_error_set(err, PP_EARG, "simulate needs a plan");
    if (st == PP_OK)
        st = read_documents(r, job, out, err);
    out->at = r->at;
    if (st == PP_OK)
        st = new_timeline(job, out, err);
    pp_cluster_sim_options drawing = {.start_time = out->at, .timeline = out->timeline};
    if (st == PP_OK)
        st = pp_cluster_simulate_at(out->cluster, out->workload, out->plan, &drawing, &out->step, err);
    if (st == PP_OK)
        out->summary.ideal = pp_cluster_ideal_step_time(out->cluster, out->workload, out->at);
    if (st == PP_OK)
        st = title(out, out->plan, &out->step, false, err);
    return st;
}

void pp_cluster_outcome_free(pp_cluster_outcome *out)
{
    pp_timeline_free(out->timeline);
    pp_cluster_report_free(&out->step);
    pp_cluster_plan_summary_free(&out->summary);
    pp_cluster_plan_result_free(&out->result);
    pp_cluster_plan_free(out->plan);
    pp_cluster_workload_free(out->workload);
    pp_cluster_free(out->cluster);
    pp_hw_catalog_free(out->catalog);
    memset(out, 0, sizeof *out);
}
