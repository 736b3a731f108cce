/* parplan sched: operator scheduling on devices and channels (paper 002).
 *
 * A problem is a DAG of operations to place on devices and order, with a
 * transfer on the channel between two devices for every dependency whose ends
 * run on different devices, and a memory level per device that must stay
 * within its capacity. The objective is the makespan.
 *
 * Data flows one way: build or load a problem (pp_sched_problem_finish
 * validates it) -> solve -> check -> write. The checker shares no code with
 * the solver beyond the problem itself. */
#ifndef PARPLAN_SCHED_H
#define PARPLAN_SCHED_H

#include <stdio.h>
#include "parplan/core.h"

#pragma GCC visibility push(default) /* exported from libparplan.so; stability: version.h */

/* Memory semantics (the checker's, and every solver's):
 *  - an op's weight W is held on its device from time 0 to the end;
 *  - its adjustment A (any sign) is applied to its device's level when the op
 *    ends, so the level of a device at time t is
 *    sum(W of its ops) + sum(A of its ops that ended at or before t);
 *  - that level must never exceed the device's capacity.
 * A dependency (u, v) whose ends are on different devices needs a channel
 * from u's device to v's device and a transfer on it of length comm(u, v),
 * after u ends and before v starts; a channel carries one transfer at a time.
 * Dependencies on the same device cost nothing.
 * Ops joined by pp_sched_colocate run on one device (a backward op where its
 * forward op left the activations it frees). */
typedef struct pp_sched_problem {
    int op_count;
    int dep_count;
    int device_count;

    /* Per op. */
    char **op_name;
    char **op_kind;          /* free text ("forward", ...): colours the pictures */
    double *duration;
    double *weight;          /* W */
    double *adjust;          /* A */
    int *allowed_start;      /* op_count + 1 offsets into allowed_device; an empty */
    int *allowed_device;     /* range means every device is allowed */

    /* Per dependency. */
    int *dep_from;
    int *dep_to;
    double *dep_comm;

    /* Per device. */
    char **device_name;
    double *capacity;        /* INFINITY when unlimited */
    unsigned char *channel;  /* device_count^2, channel[a * device_count + b] != 0: a->b exists */

    /* Built by pp_sched_problem_finish: CSR adjacency, a topological order, colocated groups. */
    int *succ_start, *succ_dep;  /* deps leaving each op, by dep index */
    int *pred_start, *pred_dep;  /* deps entering each op, by dep index */
    int *topo_order;
    int *group;                  /* per op, the first op of its colocated group (itself when alone):
                                    every op of a group runs on one device */

    struct pp_sched_builder *builder; /* growable arrays while building; NULL after finish */
    pp_arena *arena;
    char *time_unit;             /* what one unit of duration and comm is ("us"), NULL: not stated */
} pp_sched_problem;

/* Building a problem (the loader and the generators use this). Names must be
 * unique per kind; indices are returned in insertion order. */
pp_sched_problem *pp_sched_problem_new(void);
void pp_sched_problem_free(pp_sched_problem *p);
int pp_sched_add_device(pp_sched_problem *p, const char *name, double capacity);
int pp_sched_add_op(pp_sched_problem *p, const char *name, const char *kind,
                    double duration, double weight, double adjust);
void pp_sched_allow(pp_sched_problem *p, int op, int device); /* none called: any device */
int pp_sched_add_dep(pp_sched_problem *p, int from, int to, double comm);
void pp_sched_add_channel(pp_sched_problem *p, int from_device, int to_device);
/* States the unit of the problem's times (e.g. "us"): the pictures label
 * their axes with it. Any text; false when out of memory. */
bool pp_sched_set_time_unit(pp_sched_problem *p, const char *unit);
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

/* A schedule: a device and a start and end time per op, and per dependency
 * the transfer's start and end (NAN when both ends are on the same device). */
typedef struct pp_sched_schedule {
    int op_count;
    int dep_count;
    int *device;
    double *start, *end;
    double *transfer_start, *transfer_end;
    double stated_makespan;  /* the file's "makespan" when one was read, else NAN: checked */
    double period;           /* a cyclic schedule's period (the file's "period"), else NAN */
} pp_sched_schedule;

pp_sched_schedule *pp_sched_schedule_new(const pp_sched_problem *p);
void pp_sched_schedule_free(pp_sched_schedule *s);
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
typedef struct {
    double makespan;
    double *span;        /* per device: from its first op's start to its last op's end (0: none) */
    double max_span;     /* the longest: zero-bubble's steady-state metric */
    double *busy;        /* summed op durations per device */
    double *bubble;      /* makespan - busy, per device */
    double *peak_memory; /* highest level per device, weights included */
    double max_bubble;
    int violations;
} pp_sched_report;

pp_status pp_sched_check(const pp_sched_problem *p, const pp_sched_schedule *s,
                         pp_sched_report *report, pp_error *err);
/* The checker's tolerance for p: 1e-9 x max(1, summed durations and comm
 * times). A time difference within it (a bubble of -5.7e-14 from summing
 * doubles) is 0. */
double pp_sched_time_tolerance(const pp_sched_problem *p);
void pp_sched_report_free(pp_sched_report *report);

/* Lower bound on the makespan of any valid schedule: the largest of the
 * critical path, total work over devices, and per device (for ops forced onto
 * it) earliest head + work + smallest tail. */
double pp_sched_lower_bound(const pp_sched_problem *p);
/* Lower bound on the longest per-device span: the largest of the work forced
 * onto one device, the total work over devices, and per pair of devices
 * (a, b) the one-machine bound on b's ops that lie on paths from a's ops to
 * a's ops, timed from a's first op (a's span must hold their trip from a,
 * their work on b and their trip back). */
double pp_sched_span_lower_bound(const pp_sched_problem *p);

/* The cyclic objective (cyclic.c; README "Cyclic schedules"): the
 * schedule of one iteration repeated every `period`, iteration k shifted by
 * k x period. Valid when the iteration alone is valid (pp_sched_check), no
 * two copies of ops overlap on a device nor of transfers on a channel,
 * every device's level summed over the iterations alive at once (weights
 * held once) stays within its capacity, each iteration giving back on a
 * device what it takes there, and, unless `async`, each device's optimizer
 * step fits between iterations: its span is at most the period. Fills the
 * report (freed by pp_sched_cyclic_report_free) whether or not valid;
 * PP_INFEASIBLE with the first violation in err otherwise. */
typedef struct {
    double period;
    double bubble;        /* 1 - the busiest device's work / period */
    double *peak_memory;  /* per device, the iterations alive at once summed */
    int violations;
} pp_sched_cyclic_report;

pp_status pp_sched_check_cyclic(const pp_sched_problem *p, const pp_sched_schedule *s, double period, bool async,
                                pp_sched_cyclic_report *report, pp_error *err);
void pp_sched_cyclic_report_free(pp_sched_cyclic_report *report);
/* Lower bound on the period: the longest op, each device's forced work, all
 * work over the devices, each channel's forced transfers, memory by
 * Little's law (a device's mean level over a period, W + the area one
 * iteration's memory covers / T, fits its capacity); unless async, also
 * pp_sched_span_lower_bound (the step puts each span within the period). */
double pp_sched_cyclic_lower_bound(const pp_sched_problem *p, bool async);

/* Reading and writing (JSON, formats in README.md). Errors name the file and
 * the JSON position (line:column for syntax, a path such as ops[3].device for
 * meaning). */
pp_status pp_sched_load(const char *path, pp_sched_problem **out, pp_error *err);
pp_status pp_sched_write_problem(const pp_sched_problem *p, FILE *f, pp_error *err);
pp_status pp_sched_load_schedule(const char *path, const pp_sched_problem *p,
                                 pp_sched_schedule **out, pp_error *err);
/* The two readers for text already in memory (size bytes at data), with
 * `name` standing for the file in messages. */
pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err);
pp_status pp_sched_load_schedule_buffer(const char *name, const void *data, size_t size,
                                        const pp_sched_problem *p, pp_sched_schedule **out,
                                        pp_error *err);
pp_status pp_sched_write_schedule(const pp_sched_problem *p, const pp_sched_schedule *s,
                                  FILE *f, pp_error *err);
/* Pictures: one row per device, then one per channel that carries a transfer. */
pp_status pp_sched_write_trace(const pp_sched_problem *p, const pp_sched_schedule *s,
                               FILE *f, pp_error *err);
pp_status pp_sched_write_svg(const pp_sched_problem *p, const pp_sched_schedule *s,
                             FILE *f, pp_error *err);

/* Generators (paper 002 section V). */
/* PP_PIPE_ZB: the zero-bubble greedy under the activation budget (gen_pipeline.c).
 * PP_PIPE_ZB2P: ZB-H2 of Qi et al. (gen_zb.c). PP_PIPE_INTERLEAVED: interleaved
 * 1F1B with `chunks` stages per device (Narayanan et al., SC'21; gen_interleaved.c).
 * PP_PIPE_ZBV: ZB-V of Qi et al. (arXiv 2401.10241 section 6): 2P stages, device d
 * holding stages d and 2P - 1 - d, at most 2P stage activations per device (gen_zb.c). */
typedef enum {
    PP_PIPE_1F1B, PP_PIPE_ZB1P, PP_PIPE_DUALPIPE, PP_PIPE_ZB, PP_PIPE_ZB2P, PP_PIPE_INTERLEAVED, PP_PIPE_ZBV
} pp_pipe_scheme;

typedef struct {
    int stages;          /* PP: devices (= stages but for interleaved 1F1B) */
    int chunks;          /* interleaved 1F1B: stages per device V, 2..64 (0: 2), so P * V stages;
                            ZB-V: 0 or 2; other schemes: 0 or 1 */
    int microbatches;    /* DualPipe: even, half flow each way */
    pp_pipe_scheme scheme;
    double mem_act;      /* activation budget K, in micro-batch activations per device */
    double param_mem;    /* memory of one stage's parameters (default 1) */
    double comm;         /* transfer time between stages (default 0) */
    double t_f, t_b, t_w;  /* forward, input-gradient, weight-gradient op times (0: the default 1) */
    double w_mem;        /* share of a micro-batch's activations the W op frees (B frees the
                            rest; default 0); must be in [0, 1] */
    bool in_order;       /* each stage runs its F, B and W each in micro-batch order (as the
                            zero-bubble and Megatron runtimes require) */
} pp_pipe_spec;

/* The scheme a name stands for, as the CLI's --scheme and Python's
 * gen.pipeline spell them: "dualpipe", "1f1b", "zb1p", "zb", "zb2p",
 * "interleaved", "zbv". PP_EARG naming the known ones otherwise. */
pp_status pp_pipe_scheme_parse(const char *name, pp_pipe_scheme *out, pp_error *err);

pp_status pp_sched_gen_pipeline(const pp_pipe_spec *spec, pp_sched_problem **out,
                                pp_sched_schedule **reference, pp_error *err);

typedef struct {
    int ops;
    int max_degree;      /* in- and out-degree bound */
    int devices;
    uint64_t seed;
} pp_random_spec;

pp_status pp_sched_gen_random(const pp_random_spec *spec, pp_sched_problem **out, pp_error *err);

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

typedef struct {
    pp_sched_schedule *schedule;  /* NULL when no valid schedule was found */
    double makespan;
    double lower_bound;
    const char *lower_bound_kind; /* the argument that gives lower_bound (a static string) */
    bool lower_bound_cut;         /* the bound's share of the time ran out before its last
                                     argument: lower_bound is one, only weaker */
    double mip_bound;             /* the MIP's bound when it ran, else NAN */
    double period;                /* the cyclic objectives: the schedule's period (also in
                                     schedule->period), else NAN */
    double period_bound;          /* the cyclic objectives: pp_sched_cyclic_lower_bound, else NAN */
    bool proven_optimal;
    double time_to_first;
    double time_to_best;
    double elapsed;
    long rounds;
} pp_sched_result;

void pp_sched_options_default(pp_sched_options *o);
pp_status pp_sched_solve(const pp_sched_problem *p, const pp_sched_options *o,
                         pp_sched_result *result, pp_error *err);
void pp_sched_result_free(pp_sched_result *r);

#pragma GCC visibility pop

#endif
