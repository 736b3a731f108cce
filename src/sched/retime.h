/* retime.h: re-timing a schedule whose orders are fixed (internal to sched).
 * Both the span's compaction (span.c) and the cyclic fold (cyclic.c) keep
 * every op on its device and every device's and channel's order, and ask
 * for the earliest times those orders allow under a parameter T: a span
 * limit, or a period. Each such order is a difference constraint
 *     x_to >= x_from + length + periods * T,
 * and the least solution is the longest paths from time 0, which exist
 * exactly when no cycle is positive. This file owns that system: its
 * nodes, its order edges, and the settling of its longest paths. */
#ifndef PP_SCHED_RETIME_H
#define PP_SCHED_RETIME_H

#include <math.h>
#include "sched/solver.h"

/* t's phase modulo the period T, in [0, T). */
static inline double sc_phase(double t, double T)
{
    return t - floor(t / T) * T;
}

typedef struct {
    int from, to;
    double length;
    int periods;  /* how many T the constraint adds: iterations apart, or -1 for a span limit */
} sc_retime_edge;

typedef struct {
    int devices;
    int nodes;        /* the ops, then one per dependency (its transfer when it crosses devices) */
    int groups;       /* devices, then a channel per ordered device pair */
    int edge_count, dep_edges, edge_room;
    sc_retime_edge *edges;  /* the dependencies', then the orders', then any added */
    double *length;   /* per node: its duration or comm time */
    int *group;       /* per node: its device, or devices + channel, -1 for none */
    double *x;        /* per node: the times the orders are read from */
    double *trial;    /* per node: the last settle's times */
    int *first, *last;  /* per group: its first and last node in the order, -1 for none */
    int *rank, *by_rank;  /* nodes by time: the order settle sweeps in */
    int backward;     /* edges from a node to one no later by rank */
    int *out_start;   /* per rank: where its edges start in out */
    sc_retime_edge *out;  /* the edges by their source's rank, ends as ranks */
    double *time;     /* per rank: settle's times */
    int *due;         /* per rank: the sweep that settles it next, 0 for none */
    bool indexed;     /* out_start and out follow edges */
    struct sc_retime_key *keys;
    pp_arena *arena;
} sc_retimer;

/* The nodes, lengths, groups and dependency edges of s, x its times. extra:
 * room for that many edges added after each ordering. false: out of memory. */
bool sc_retimer_init(sc_retimer *r, const pp_sched_problem *p, const pp_sched_schedule *s, int extra);
void sc_retimer_free(sc_retimer *r);

/* The order edges of x read modulo T: each group's nodes by their phase,
 * each to the next (periods: how many iterations apart their copies are)
 * and the last to the first of the next iteration. T = INFINITY: by time,
 * no wrap (one iteration alone). Drops edges added before. */
void sc_retime_order(sc_retimer *r, double T);

void sc_retime_add(sc_retimer *r, int from, int to, double length, int periods);

/* The least times >= 0 under every edge at T, into r->trial; false when
 * none exist (a positive cycle). */
bool sc_retime_settle(sc_retimer *r, double T);

/* r->trial as s's op, transfer times (stated makespan unset). */
void sc_retime_export(const sc_retimer *r, const pp_sched_problem *p, pp_sched_schedule *s);

#endif
