/* sched_internal.h: what the library's floors and the tests use of the
 * operator scheduler and the public sched.h does not show: building and
 * reading a problem and a schedule, the checker, the bounds, and the solver
 * with its options (pp_sched_run is the one call a front door makes). */
#ifndef PP_SCHED_INTERNAL_H
#define PP_SCHED_INTERNAL_H

#include "parplan/sched_request.h"
#include "core/core_internal.h"

/* Building a problem (the loader, the generators and the model graphs use
 * this). Names must be unique per kind; indices are returned in insertion
 * order. */
pp_sched_problem *pp_sched_problem_new(void);
int pp_sched_add_device(pp_sched_problem *p, const char *name, double capacity);
int pp_sched_add_op(pp_sched_problem *p, const char *name, const char *kind,
                    double duration, double weight, double adjust);
void pp_sched_allow(pp_sched_problem *p, int op, int device); /* none called: any device */
int pp_sched_add_dep(pp_sched_problem *p, int from, int to, double comm);
void pp_sched_add_channel(pp_sched_problem *p, int from_device, int to_device);
/* Ops a and b must run on the same device (and so must every op colocated
 * with either); colocated ops must allow the same devices. */
void pp_sched_colocate(pp_sched_problem *p, int a, int b);
/* Without any channel added, every ordered pair of distinct devices has one.
 * Validates (names unique, numbers finite and non-negative where they must be,
 * no cycle, no self-dependency, colocated ops allow the same devices, every
 * op has an allowed device whose capacity holds the weights forced onto it,
 * forced placements have their channels) and
 * builds the adjacency. `where` (a file name) prefixes error messages. */
pp_status pp_sched_problem_finish(pp_sched_problem *p, const char *where, pp_error *err);

int pp_sched_find_op(const pp_sched_problem *p, const char *name);      /* -1 if none */
int pp_sched_find_device(const pp_sched_problem *p, const char *name);  /* -1 if none */
bool pp_sched_op_allowed(const pp_sched_problem *p, int op, int device);
bool pp_sched_has_channel(const pp_sched_problem *p, int from_device, int to_device);

pp_sched_schedule *pp_sched_schedule_new(const pp_sched_problem *p);
void pp_sched_schedule_copy(pp_sched_schedule *to, const pp_sched_schedule *from);
double pp_sched_makespan(const pp_sched_schedule *s);

/* The independent checker. Times compare with a tolerance of 1e-9 x
 * max(1, the problem's summed durations and comm times): each op's end -
 * start must equal its duration, each transfer's its comm time, and a stated
 * makespan the latest end, within it. Fills the report whether or not the
 * schedule is valid; returns PP_OK when valid, PP_INFEASIBLE with the first violation in
 * err (and the number of violations in report->violations) otherwise.
 * report->span, busy, bubble and peak_memory have device_count entries and are freed
 * by pp_sched_report_free. */
pp_status pp_sched_check(const pp_sched_problem *p, const pp_sched_schedule *s,
                         pp_sched_report *report, pp_error *err);
void pp_sched_report_free(pp_sched_report *report);

/* Lower bound on the makespan of any valid schedule: the largest of the
 * critical path, total work over devices, and per device (for ops forced onto
 * it) earliest head + work + smallest tail. */
double pp_sched_lower_bound(const pp_sched_problem *p);

/* The cyclic objective (cyclic.c; docs/sched.md "Cyclic schedules"): the
 * schedule of one iteration repeated every `period`, iteration k shifted by
 * k x period. Valid when the iteration alone is valid (pp_sched_check), no
 * two copies of ops overlap on a device nor of transfers on a channel,
 * every device's level summed over the iterations alive at once (weights
 * held once) stays within its capacity, each iteration giving back on a
 * device what it takes there, and, unless `async`, each device's optimizer
 * step fits between iterations: its span is at most the period. Fills the
 * report (freed by pp_sched_cyclic_report_free) whether or not valid;
 * PP_INFEASIBLE with the first violation in err otherwise. */
pp_status pp_sched_check_cyclic(const pp_sched_problem *p, const pp_sched_schedule *s, double period, bool async,
                                pp_sched_cyclic_report *report, pp_error *err);
void pp_sched_cyclic_report_free(pp_sched_cyclic_report *report);
/* Lower bound on the period: the longest op, each device's forced work, all
 * work over the devices, each channel's forced transfers, memory by
 * Little's law (a device's mean level over a period, W + the area one
 * iteration's memory covers / T, fits its capacity); unless async, also
 * pp_sched_span_lower_bound (the step puts each span within the period). */
double pp_sched_cyclic_lower_bound(const pp_sched_problem *p, bool async);

/* Reading and writing (JSON, formats in docs/sched.md). Errors name the file and
 * the JSON position (line:column for syntax, a path such as ops[3].device for
 * meaning). */
pp_status pp_sched_load(const char *path, pp_sched_problem **out, pp_error *err);
pp_status pp_sched_load_schedule(const char *path, const pp_sched_problem *p,
                                 pp_sched_schedule **out, pp_error *err);
/* The two readers for text already in memory (size bytes at data), with
 * `name` standing for the file in messages. */
pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err);
pp_status pp_sched_load_schedule_buffer(const char *name, const void *data, size_t size,
                                        const pp_sched_problem *p, pp_sched_schedule **out,
                                        pp_error *err);

/* The solver. PP_SCHED_SPAN: the longest per-device span (each device from
 * its first op to its last, zero-bubble's steady-state metric); the search
 * minimises the makespan for half the time, then searches the best
 * schedule's device orders for shorter spans (re-sequencing devices, filling
 * gaps) for the rest, and re-times the result, every device's and channel's
 * order kept, to the least longest span those orders allow. */
/* PP_SCHED_CYCLIC: the period of the schedule repeated (pp_sched_check_cyclic,
 * each device's optimizer step between iterations), searched as the span is
 * and then given the least period its times allow; PP_SCHED_CYCLIC_ASYNC:
 * the same without the step. */
typedef enum { PP_SCHED_MAKESPAN, PP_SCHED_SPAN, PP_SCHED_CYCLIC, PP_SCHED_CYCLIC_ASYNC } pp_sched_objective;

typedef struct {
    double time_limit;   /* seconds; 0 = none (then max_rounds must be set) */
    int threads;         /* 0 = one per core */
    uint64_t seed;
    long max_rounds;     /* per worker; 0 = until the time limit */
    int coarsen_to;      /* above this many ops, start from the graph coarsened to it; 0 = never;
                            ignored when ops are colocated */
    bool no_mip;
    pp_sched_objective objective;
    const pp_sched_schedule *start; /* a valid schedule (a reference, an earlier run): the search
                                       starts from its orders, and no start is constructed;
                                       NULL: none */
    void (*on_progress)(void *ctx, double makespan, double lower_bound, double elapsed);
    void *progress_ctx;
    const pp_stop_flag *stop; /* raised by the caller: return the best so far; NULL: none */
} pp_sched_options;

void pp_sched_options_default(pp_sched_options *o);
pp_status pp_sched_solve(const pp_sched_problem *p, const pp_sched_options *o,
                         pp_sched_result *result, pp_error *err);
void pp_sched_result_free(pp_sched_result *r);

/* The solver's options for a checked request r, solving for `budget` seconds. */
void pp_sched_request_options(const pp_sched_request *r, double budget, pp_sched_options *o);

#endif
