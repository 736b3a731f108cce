/* solver.h: the scheduling solver's internal stages, shared by the files of
 * src/sched/ that make up pp_sched_solve: bounds, the list decoder, the
 * constructive start and the local search. */
#ifndef PARPLAN_SCHED_SOLVER_H
#define PARPLAN_SCHED_SOLVER_H

#include <math.h>
#include "parplan/sched.h"
#include "core/core_internal.h"

/* How far a device's memory level may pass its capacity and still fit:
 * levels are sums of doubles (a micro-batch's 1 - 0.72 - 0.28 is not 0),
 * and the checker allows this much, so the search must too, or it counts a
 * valid schedule as overflowing. */
static inline double sc_memory_slack(double capacity)
{
    return 1e-9 * fmax(1, isfinite(capacity) ? fabs(capacity) : 1);
}

/* The device an op must run on, or -1 when it has a choice. */
int sc_forced_device(const pp_sched_problem *p, int op);

/* A bound's deadline has passed: NULL is none, not even the process-wide
 * stop, so pp_sched_lower_bound gives the same value in every state. */
static inline bool sc_bound_cut(const pp_deadline *deadline)
{
    return deadline && pp_deadline_passed(deadline);
}

/* pp_sched_lower_bound, with *kind naming the argument that gives it (a
 * static string, "none" when the bound is 0). Past `deadline` (NULL: none)
 * the arguments not yet made are skipped: the bound is still one, only
 * weaker, and *stopped says so. */
double sc_lower_bound_named(const pp_sched_problem *p, const pp_deadline *deadline, const char **kind,
                            bool *stopped);

/* in_play[d] (per device): whether d may take an op in a search: all but
 * the surplus of interchangeable devices no op names (in_play.c). false:
 * out of memory. */
bool sc_devices_in_play(const pp_sched_problem *p, unsigned char *in_play);
/* Devices a and b have the same capacity and the same channels to, from and
 * between them (in_play.c; with the same allowed ops they are
 * interchangeable, which the MIP's symmetry breaking also asks). */
bool sc_devices_alike(const pp_sched_problem *p, int a, int b);

/* The least delay dependency e adds between its ends: its comm when both
 * are forced onto different devices, else 0 (relax.c). */
double sc_dep_delay(const pp_sched_problem *p, int e);

/* The memory argument of pp_sched_cyclic_lower_bound (cyclic_bound.c):
 * per device, Little's law on the least area one iteration's memory covers
 * there; 0 where it cannot say. */
double sc_cyclic_memory_bound(const pp_sched_problem *p);

/* One op on one machine as the one-machine bound sees it (relax.c). */
typedef struct {
    double head, duration, tail;
} sc_job;

/* For thresholds r and q, the jobs with head >= r and tail >= q run one at
 * a time after r and the last still has q to go: the most such bound.
 * Reorders jobs; scratch holds n doubles (relax.c). */
double sc_one_machine_bound(sc_job *jobs, int n, double *scratch);

/* qsort's comparison of doubles, ascending (relax.c). */
int sc_by_double(const void *a, const void *b);

/* A graph's alike components (rank_bound.c, which says how they are found):
 * a class per template op, its ops the copies of it. Arrays in the arena. */
typedef struct {
    int classes;
    int *cls;        /* per op: its class */
    int *component;  /* per op: its component's least op index */
    int *copies;     /* per class: how many ops it has */
    int *rep;        /* per class: its op in the first component found of its kind */
} sc_copies;

/* false: out of memory, or no two components alike. */
bool sc_find_copies(const pp_sched_problem *p, pp_arena *arena, sc_copies *out);

/* The bound over ranks of a graph's alike components (a pipeline's
 * micro-batches) at tight memory (rank_bound.c); tail from sc_heads_tails.
 * 0 when no two components are alike. Past `deadline` (NULL: none), as
 * past its budget of work, it says what it has (*stopped: it was cut). */
double sc_rank_bound(const pp_sched_problem *p, const double *tail, const pp_deadline *deadline, bool *stopped);

/* head[i]: earliest start of i ignoring resources; tail[i]: the longest path
 * from i's end to the end of the graph. Communication counts only between ops
 * forced onto different devices: anything else may share a device. */
void sc_heads_tails(const pp_sched_problem *p, double *head, double *tail);

/* A solution as the search sees it: a device per op and a priority list (a
 * topological order). Decoding runs the list in order, each op appended to its
 * device after every earlier op of the list there, each transfer appended to
 * its channel; device and channel orders are the list's. */
typedef struct {
    int *list;      /* op indices, a topological order */
    int *device;    /* per op */
} sc_solution;

/* Decoding also measures memory: per device, the level after each op in list
 * order; `overflow` sums how far each level rises above capacity. */
typedef struct {
    const pp_sched_problem *p;
    double *start, *end;         /* per op */
    double *transfer_start, *transfer_end;   /* per dep */
    double *device_free, *channel_free, *level;
    int *binding;                /* op whose end fixed this op's start, -1 if none */
    unsigned char *bound_by_device; /* 1 when that op is the device's previous op, 0 for an input */
    int *device_last;            /* scratch: the last op decoded on each device */
    int *order;                  /* scratch: deps of one op by source end */
    double makespan, overflow;
    int broken;                  /* crossing deps with no channel: never valid */
    int last_op;                 /* an op that ends at the makespan */
    int first_over;              /* the first op of the list after which its device overflows, or -1 */
} sc_decoder;

bool sc_decoder_init(sc_decoder *d, const pp_sched_problem *p);
void sc_decoder_free(sc_decoder *d);
void sc_decode(sc_decoder *d, const sc_solution *s);
/* Writes the decoded times of the last sc_decode call into a schedule. */
void sc_decoder_export(const sc_decoder *d, const sc_solution *s, pp_sched_schedule *out);

/* What the last decode cost, compared in order: missing channels, then
 * overflow, then makespan. A valid schedule beats every invalid one, and
 * among invalid ones the search still sees which is closer. */
typedef struct {
    int broken;
    double overflow, makespan;
} sc_cost;

sc_cost sc_cost_of(const sc_decoder *d);
int sc_cost_compare(sc_cost a, sc_cost b); /* < 0: a is better */

bool sc_solution_from_schedule(const pp_sched_problem *p, const pp_sched_schedule *s, sc_solution *out);
bool sc_solution_alloc(sc_solution *s, int op_count);
void sc_solution_free(sc_solution *s);
void sc_solution_copy(sc_solution *to, const sc_solution *from, int op_count);

/* The list schedulers' transfers (construct.c): over one channel per device
 * pair, sent in input order once the input is done and the channel free.
 * When op v's inputs are all at device j, given where and when the ops
 * before it ran (INFINITY: one cannot reach j); and the channels' times
 * once v's inputs are sent to j. */
double sc_inputs_arrive(const pp_sched_problem *p, int v, int j, const int *device, const double *end,
                           const double *channel_free);
void sc_inputs_send(const pp_sched_problem *p, int v, int j, const int *device, const double *end,
                       double *channel_free);

/* The constructive start: time-driven list scheduling, earliest start first,
 * ties by longest tail, placing each op on its earliest-finishing device and
 * holding back ops that would overflow memory while any other op fits, and
 * keeping room on each device for `reserve` of the ops that give memory back
 * soonest. Past the deadline the rest of the ops are listed in topological
 * order. */
bool sc_construct(const pp_sched_problem *p, const double *head, const double *tail, double reserve,
                     const pp_deadline *deadline, sc_solution *out); /* false: out of memory */

/* The memory-aware start (greedy.c): a device-driven list scheduler under
 * each policy of a small grid (warm-up limits on ops that raise memory,
 * when to run fillers, which ready op first), until one reaches `bound` (a
 * lower bound) or the deadline passes. The best by sc_cost goes to out and its
 * cost to *cost (broken and infinite when no policy finished); dec and
 * scratch are working space. false: out of memory. */
bool sc_construct_greedy(const pp_sched_problem *p, const double *head, const double *tail, double bound,
                            const pp_deadline *deadline, sc_decoder *dec, sc_solution *out,
                            sc_solution *scratch, sc_cost *cost);

/* The greedy's policy whose schedule has the shortest longest per-device
 * span (earliest times), into out, *found false when no policy fits
 * memory: the span search's own start (span_search.c), whose best start by
 * makespan can be far from its best by span. Besides the makespan's grid it
 * tries policies that leave for each device's drain only the fillers that
 * fit there within the span bound. false: out of memory. */
bool sc_construct_greedy_span(const pp_sched_problem *p, const pp_deadline *deadline, pp_sched_schedule *out,
                                 bool *found);

/* Local search over (device, list): late-acceptance hill climbing with moves
 * that shift an op within its precedence window, pull a critical op before
 * its device predecessor, or move an op to another device. */
typedef struct sc_search sc_search;
sc_search *sc_search_new(const pp_sched_problem *p, const sc_solution *start, uint64_t seed, int worker);
/* Runs up to `iterations` moves, fewer when the deadline passes (checked
 * every few hundred); returns how many ran. */
long sc_search_run(sc_search *s, long iterations, const pp_deadline *deadline);
double sc_search_best_cost(const sc_search *s);
const sc_solution *sc_search_best(const sc_search *s);
void sc_search_restart_from(sc_search *s, const sc_solution *from);
void sc_search_free(sc_search *s);

/* Re-times a valid schedule, every device's and channel's order kept, to
 * the least longest per-device span those orders allow (span.c). */
pp_status sc_compact_spans(const pp_sched_problem *p, pp_sched_schedule *s, pp_error *err);

/* The lag search (lag_search.c): on a pipeline of alike micro-batches
 * (rank_bound.c's copies: per device a forward, a backward and at most one
 * filler such as a W), each stage's forwards and backwards ordered by lags
 * and its fillers placed by rule; lags moved in blocks, then fillers moved
 * within their stage, while the makespan falls and until the deadline
 * (NULL: none). Replaces s, a valid schedule, by the result when that is
 * valid (the checker's verdict) and strictly shorter; *improved says so.
 * Does nothing where the problem is not such a pipeline. */
pp_status sc_lag_search(const pp_sched_problem *p, pp_sched_schedule *s, const pp_deadline *deadline,
                        bool *improved, pp_error *err);

/* Moves ops within their devices' orders into the idle gaps of the device
 * with the longest span while that span or the summed spans fall, until
 * none does or the deadline (span_search.c). s must be valid and stays so;
 * *improved says whether its longest span fell. */
pp_status sc_span_search(const pp_sched_problem *p, pp_sched_schedule *s, const pp_deadline *deadline,
                            bool *improved, pp_error *err);

#endif
