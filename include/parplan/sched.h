/* parplan sched: operator scheduling on devices and channels (paper 002).
 *
 * A problem is a DAG of operations to place on devices and order, with a
 * transfer on the channel between two devices for every dependency whose ends
 * run on different devices, and a memory level per device that must stay
 * within its capacity. The objective is the makespan.
 *
 * A front door asks through sched_request.h (pp_sched_run reads, solves and
 * checks; pp_sched_check_run checks); this header holds what those carry
 * (the problem, the schedule, the checker's and the solver's reports), the
 * generators and the writers. The checker shares no code with the solver
 * beyond the problem itself. Building, reading, checking and solving as
 * separate calls are src/sched/sched_internal.h. */
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
 * An op colocated with another (the problem format's "with") runs on its
 * device (a backward op where its forward op left the activations it frees). */
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

    /* Built when the problem is validated: CSR adjacency, a topological order, colocated groups. */
    int *succ_start, *succ_dep;  /* deps leaving each op, by dep index */
    int *pred_start, *pred_dep;  /* deps entering each op, by dep index */
    int *topo_order;
    int *group;                  /* per op, the first op of its colocated group (itself when alone):
                                    every op of a group runs on one device */

    struct pp_sched_builder *builder; /* growable arrays while building; NULL after finish */
    pp_arena *arena;
    char *time_unit;             /* what one unit of duration and comm is ("us"), NULL: not stated */
} pp_sched_problem;

void pp_sched_problem_free(pp_sched_problem *p);
/* States the unit of the problem's times (e.g. "us"): the pictures label
 * their axes with it. Any text; false when out of memory. */
bool pp_sched_set_time_unit(pp_sched_problem *p, const char *unit);

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

void pp_sched_schedule_free(pp_sched_schedule *s);

/* The independent checker's figures of a schedule (pp_sched_run's check,
 * pp_sched_check_run's verdict). Times compare with a tolerance of 1e-9 x
 * max(1, the problem's summed durations and comm times). span, busy, bubble
 * and peak_memory have device_count entries. */
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

/* The checker's tolerance for p: 1e-9 x max(1, summed durations and comm
 * times). A time difference within it (a bubble of -5.7e-14 from summing
 * doubles) is 0. */
double pp_sched_time_tolerance(const pp_sched_problem *p);

/* Lower bound on the longest per-device span: the largest of the work forced
 * onto one device, the total work over devices, and per pair of devices
 * (a, b) the one-machine bound on b's ops that lie on paths from a's ops to
 * a's ops, timed from a's first op (a's span must hold their trip from a,
 * their work on b and their trip back). */
double pp_sched_span_lower_bound(const pp_sched_problem *p);

/* The checker's figures of a schedule repeated every `period`, iteration k
 * shifted by k x period (docs/sched.md, "Cyclic schedules"). */
typedef struct {
    double period;
    double bubble;        /* 1 - the busiest device's work / period */
    double *peak_memory;  /* per device, the iterations alive at once summed */
    int violations;
} pp_sched_cyclic_report;

/* Writing (JSON, formats in docs/sched.md). */
pp_status pp_sched_write_problem(const pp_sched_problem *p, FILE *f, pp_error *err);
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

/* What the solver found (pp_sched_run's outcome). */
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
    double period_bound;          /* the cyclic objectives: a lower bound on the period, else NAN */
    bool proven_optimal;
    double time_to_first;
    double time_to_best;
    double elapsed;
    long rounds;
} pp_sched_result;

#pragma GCC visibility pop

#endif
