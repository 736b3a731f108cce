/* pipe_branch.h: the tests' exact makespan of a zero-bubble pipeline (Qi et
 * al.'s F, B and W per stage, as pp_sched_gen_pipeline builds it with
 * PP_PIPE_ZB), by a branch and bound that reaches sizes exhaustive.h does
 * not (P = 5 stages of 9 micro-batches, 135 ops). Independent of src/sched:
 * it reads durations, memory changes and capacities from the problem, and
 * its schedule goes to the checker.
 *
 * Why the copies of one op run in micro-batch order on every stage. The
 * micro-batches are alike and the graph of one is a tree (F chain up, B
 * chain down, each W after its stage's B), so the k-th start of a stage's
 * B's is >= the k-th end of the B's (or F's) it waits for, plus the
 * transfer (order statistics); matching the k-th to the k-th keeps every
 * time, and the memory, which counts ops, not micro-batches, is unchanged.
 * So a stage's order is an interleaving of its F's, B's and W's, each in
 * index order.
 *
 * The search. Ops are placed one at a time in order of start (ties by
 * device), each as early as its device and inputs allow: every schedule
 * that times each op as early as its device orders allow (semi-active,
 * among which is an optimal one) is reached once. Two cuts keep an optimal
 * one:
 *  - an op is not placed while a B or W of its device that is ready could
 *    end before it starts: putting that one first lowers the memory
 *    earlier and delays nothing;
 *  - a node whose bound reaches the best makespan found (or a given stop
 *    value, a lower bound known to hold) is cut.
 * The bound: heads of the ops left (inputs, device, the ops of the same kind
 * before, and an F's memory: the B's and W's that must have ended, and the
 * device's time to run them), tails (the path to the last W), and per
 * device the most over r of r + the work of its ops with heads >= r + the
 * least tail among them, and the same from the tails' side.
 * Transfers are timed as delays; the caller checks the schedule (channels).
 * The memory is counted in hundredths of a micro-batch: exact for W keeping
 * 0.28 (or any two-decimal share). */
#ifndef PP_TESTS_SCHED_PIPE_BRANCH_H
#define PP_TESTS_SCHED_PIPE_BRANCH_H

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/sched.h"
#include "sched/sched_internal.h"

enum { PB_MAXP = 8, PB_MAXM = 16, PB_KINDS = 3 };

typedef struct {
    const pp_sched_problem *p;
    int P, M;
    long dur[PB_KINDS], adj[PB_KINDS], comm, cap[PB_MAXP];  /* kinds: F, B, W; memory in hundredths */
    int op[PB_KINDS][PB_MAXP][PB_MAXM];                       /* problem op per kind, stage, micro-batch */
    int done[PB_MAXP][PB_KINDS];
    long level[PB_MAXP], free_at[PB_MAXP], end[PB_KINDS][PB_MAXP][PB_MAXM];
    long head[PB_KINDS][PB_MAXP][PB_MAXM], tail[PB_KINDS][PB_MAXP];
    long best, stop_at, nodes, node_limit;
    long best_end[PB_KINDS][PB_MAXP][PB_MAXM];
} pb_search;

static long pb_max(long a, long b)
{
    return a > b ? a : b;
}

/* When the next op of kind k on stage d can start by its inputs, -1 when an
 * input is not placed. */
static long pb_input(const pb_search *x, int k, int d, int m)
{
    if (k == 0)
        return d == 0 ? 0 : x->done[d - 1][0] > m ? x->end[0][d - 1][m] + x->comm : -1;
    if (k == 1) {
        if (d == x->P - 1)
            return x->done[d][0] > m ? x->end[0][d][m] : -1;
        return x->done[d + 1][1] > m ? x->end[1][d + 1][m] + x->comm : -1;
    }
    return x->done[d][1] > m ? x->end[1][d][m] : -1;
}

/* The least time by which F number m of stage d can start for memory: the
 * B's and W's it needs ended, and the stage's time to run them and the F's
 * before it. -1 when no count of them makes room. */
static long pb_memory_head(const pb_search *x, int d, int m)
{
    long need = (m + 1) * x->adj[0] - x->cap[d], best = -1;
    for (int nb = x->done[d][1]; nb <= m; nb++) {
        long rest = need + x->adj[1] * nb;
        int nw = x->done[d][2];
        if (rest > -x->adj[2] * nw)
            nw = (int)((rest - x->adj[2] - 1) / -x->adj[2]);
        if (nw > nb)
            continue;
        long t = x->free_at[d] + (m - x->done[d][0]) * x->dur[0] + (nb - x->done[d][1]) * x->dur[1] +
                 (nw - x->done[d][2]) * x->dur[2];
        if (nb > x->done[d][1])
            t = pb_max(t, x->head[1][d][nb - 1] + x->dur[1]);
        if (nw > x->done[d][2])
            t = pb_max(t, x->head[2][d][nw - 1] + x->dur[2]);
        best = best < 0 || t < best ? t : best;
    }
    return best;
}

/* Head of op m of kind k on stage d, from its input's end or head. */
static long pb_head(const pb_search *x, int k, int d, int m, long now)
{
    long h = pb_max(x->free_at[d], now);
    if (m > x->done[d][k])
        h = pb_max(h, x->head[k][d][m - 1] + x->dur[k]);
    if (k == 0 && d > 0)
        h = pb_max(h, (m < x->done[d - 1][0] ? x->end[0][d - 1][m] : x->head[0][d - 1][m] + x->dur[0]) + x->comm);
    if (k == 1 && d == x->P - 1)
        h = pb_max(h, m < x->done[d][0] ? x->end[0][d][m] : x->head[0][d][m] + x->dur[0]);
    if (k == 1 && d < x->P - 1)
        h = pb_max(h, (m < x->done[d + 1][1] ? x->end[1][d + 1][m] : x->head[1][d + 1][m] + x->dur[1]) + x->comm);
    if (k == 1 && m >= x->done[d][0])
        h = pb_max(h, x->head[0][d][m] + x->dur[0]);
    if (k == 2)
        h = pb_max(h, m < x->done[d][1] ? x->end[1][d][m] : x->head[1][d][m] + x->dur[1]);
    return h;
}

typedef struct {
    long head, dur, tail;
} pb_job;

/* The jobs by head (by_tail: by tail), the largest first, ties in the
 * order given: an insertion sort, as qsort's merge sort orders them. A
 * device's jobs (48 at most) come as three runs, one per kind, and qsort
 * was most of the search's time under the sanitizers (its interceptor). */
static void pb_sort(pb_job *jobs, int n, bool by_tail)
{
    for (int j = 1; j < n; j++) {
        pb_job v = jobs[j];
        long key = by_tail ? v.tail : v.head;
        int i = j;
        for (; i > 0 && (by_tail ? jobs[i - 1].tail : jobs[i - 1].head) < key; i--)
            jobs[i] = jobs[i - 1];
        jobs[i] = v;
    }
}

/* A lower bound on the makespan of every completion of the node. */
static long pb_bound(pb_search *x, long now)
{
    /* Twice: the F's memory heads use the B's and W's heads of the pass before. */
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < x->P; d++)
            for (int m = x->done[d][0]; m < x->M; m++) {
                long h = pb_head(x, 0, d, m, now);
                if (pass > 0) {
                    long mem = pb_memory_head(x, d, m);
                    if (mem < 0)
                        return LONG_MAX;
                    h = pb_max(h, mem);
                }
                x->head[0][d][m] = h;
            }
        for (int d = x->P - 1; d >= 0; d--)
            for (int m = x->done[d][1]; m < x->M; m++)
                x->head[1][d][m] = pb_head(x, 1, d, m, now);
        for (int d = 0; d < x->P; d++)
            for (int m = x->done[d][2]; m < x->M; m++)
                x->head[2][d][m] = pb_head(x, 2, d, m, now);
    }
    long bound = 0;
    pb_job jobs[PB_KINDS * PB_MAXM];
    for (int d = 0; d < x->P; d++) {
        int n = 0;
        for (int k = 0; k < PB_KINDS; k++)
            for (int m = x->done[d][k]; m < x->M; m++)
                jobs[n++] = (pb_job){x->head[k][d][m], x->dur[k], x->tail[k][d]};
        bound = pb_max(bound, x->free_at[d]);
        pb_sort(jobs, n, false);
        long work = 0, least = LONG_MAX;
        for (int j = 0; j < n; j++) {
            work += jobs[j].dur, least = jobs[j].tail < least ? jobs[j].tail : least;
            bound = pb_max(bound, jobs[j].head + work + least);
        }
        pb_sort(jobs, n, true);
        work = 0, least = LONG_MAX;
        for (int j = 0; j < n; j++) {
            work += jobs[j].dur, least = jobs[j].head < least ? jobs[j].head : least;
            bound = pb_max(bound, least + work + jobs[j].tail);
        }
    }
    return bound;
}

typedef struct {
    long start;
    int d, k;
} pb_move;

static void pb_place(pb_search *x, int d, int k, long start, int sign)
{
    if (sign > 0) {
        x->end[k][d][x->done[d][k]++] = start + x->dur[k];
        x->free_at[d] = start + x->dur[k];
    } else {
        x->done[d][k]--;
    }
    x->level[d] += sign * x->adj[k];
}

/* The ops that may be placed next, by start: each stage's next F (room
 * left), B and W, not before the last placed (now, on device last_d). */
static int pb_moves(const pb_search *x, long now, int last_d, pb_move *out)
{
    int n = 0;
    for (int d = 0; d < x->P; d++) {
        long ready[PB_KINDS];
        for (int k = 0; k < PB_KINDS; k++) {
            int m = x->done[d][k];
            long in = m < x->M ? pb_input(x, k, d, m) : -1;
            ready[k] = in < 0 || (k == 0 && x->level[d] + x->adj[0] > x->cap[d]) ? -1 : pb_max(in, x->free_at[d]);
        }
        for (int k = 0; k < PB_KINDS; k++) {
            long s = ready[k];
            if (s < 0 || s < now || (s == now && d < last_d))
                continue;
            bool fits_before = false;
            for (int low = 1; low < PB_KINDS; low++)
                fits_before |= low != k && ready[low] >= 0 && ready[low] + x->dur[low] <= s;
            if (fits_before)
                continue;
            int j = n++;
            for (; j > 0 && out[j - 1].start > s; j--)
                out[j] = out[j - 1];
            out[j] = (pb_move){s, d, k};
        }
    }
    return n;
}

static void pb_dfs(pb_search *x, int placed, long now, int last_d)
{
    if (x->best <= x->stop_at || (x->node_limit && x->nodes >= x->node_limit))
        return;
    x->nodes++;
    if (placed == PB_KINDS * x->P * x->M) {
        long makespan = 0;
        for (int d = 0; d < x->P; d++)
            makespan = pb_max(makespan, x->free_at[d]);
        if (makespan < x->best) {
            x->best = makespan;
            memcpy(x->best_end, x->end, sizeof x->end);
        }
        return;
    }
    if (pb_bound(x, now) >= x->best)
        return;
    pb_move moves[PB_KINDS * PB_MAXP];
    int n = pb_moves(x, now, last_d, moves);
    for (int j = 0; j < n; j++) {
        int d = moves[j].d, k = moves[j].k;
        long was = x->free_at[d];
        pb_place(x, d, k, moves[j].start, 1);
        pb_dfs(x, placed + 1, moves[j].start, d);
        pb_place(x, d, k, moves[j].start, -1);
        x->free_at[d] = was;
    }
}

/* The problem's op named like the generator's ("F3.1": micro-batch 3, stage 1). */
static int pb_find(const pp_sched_problem *p, char kind, int m, int d)
{
    char name[32];
    snprintf(name, sizeof name, "%c%d.%d", kind, m, d);
    return pp_sched_find_op(p, name);
}

typedef struct {
    int op;
    double start;
} pb_timed;

static int pb_by_start(const void *a, const void *b)
{
    const pb_timed *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Places the ops of `from` that start before `before`, as they are, in
 * order of start: the search then decides only what comes after. Returns
 * the ops placed and sets *now and *last_d; -1 when `from` does not run a
 * stage's F's, B's or W's in micro-batch order or times them otherwise. */
static int pb_fix_prefix(pb_search *x, const pp_sched_schedule *from, double before, long *now, int *last_d)
{
    int n = x->p->op_count, placed = 0;
    pb_timed *order = malloc((size_t)n * sizeof *order);
    int *kind = malloc((size_t)n * 3 * sizeof *kind);
    for (int k = 0; k < PB_KINDS; k++)
        for (int d = 0; d < x->P; d++)
            for (int m = 0; m < x->M; m++) {
                int v = x->op[k][d][m];
                kind[3 * v] = k, kind[3 * v + 1] = d, kind[3 * v + 2] = m;
            }
    for (int v = 0; v < n; v++)
        order[v] = (pb_timed){v, from->start[v]};
    qsort(order, (size_t)n, sizeof *order, pb_by_start);
    for (int j = 0; j < n && order[j].start < before && placed >= 0; j++) {
        int v = order[j].op, k = kind[3 * v], d = kind[3 * v + 1], m = kind[3 * v + 2];
        long start = lround(order[j].start);
        if (m != x->done[d][k] || start != pb_max(x->free_at[d], pb_input(x, k, d, m))) {
            placed = -1;
            break;
        }
        pb_place(x, d, k, start, 1);
        placed++, *now = start, *last_d = d;
    }
    free(order);
    free(kind);
    return placed;
}

/* The least makespan below `above` (the heuristic's, say) into s
 * (pp_sched_schedule_new(p)), or `above` when there is none. stop_at: a
 * value known to be a lower bound (the search stops on reaching it; 0:
 * none, the search proves). fixed: NULL, or a schedule whose ops that start
 * before fixed_before are kept (then the least is over the schedules that
 * begin so). node_limit 0: none; *exact: whether the search finished (or
 * stopped at stop_at). */
static double pipe_branch(const pp_sched_problem *p, int P, int M, double above, double stop_at,
                          const pp_sched_schedule *fixed, double fixed_before, long node_limit,
                          pp_sched_schedule *s, bool *exact)
{
    pb_search *x = calloc(1, sizeof *x);
    static const char kinds[PB_KINDS] = {'F', 'B', 'W'};
    x->p = p, x->P = P, x->M = M, x->best = (long)above, x->stop_at = (long)stop_at, x->node_limit = node_limit;
    for (int k = 0; k < PB_KINDS; k++)
        for (int d = 0; d < P; d++)
            for (int m = 0; m < M; m++)
                x->op[k][d][m] = pb_find(p, kinds[k], m, d);
    for (int k = 0; k < PB_KINDS; k++) {
        x->dur[k] = lround(p->duration[x->op[k][0][0]]);
        x->adj[k] = lround(100 * p->adjust[x->op[k][0][0]]);
    }
    x->comm = lround(p->dep_comm[p->pred_dep[p->pred_start[x->op[0][1][0]]]]);
    for (int d = 0; d < P; d++) {
        double weights = 0;
        for (int m = 0; m < M; m++)
            for (int k = 0; k < PB_KINDS; k++)
                weights += p->weight[x->op[k][d][m]];
        x->cap[d] = lround(100 * (p->capacity[p->allowed_device[p->allowed_start[x->op[0][d][0]]]] - weights));
        x->tail[0][d] = (P - 1 - d) * (x->comm + x->dur[0]) + P * x->dur[1] + (P - 1) * x->comm + x->dur[2];
        x->tail[1][d] = d * (x->comm + x->dur[1]) + x->dur[2];
        x->tail[2][d] = 0;
    }
    long now = 0;
    int last_d = 0, placed = fixed ? pb_fix_prefix(x, fixed, fixed_before, &now, &last_d) : 0;
    if (placed >= 0)
        pb_dfs(x, placed, now, last_d);
    *exact = placed >= 0 && (!x->node_limit || x->nodes < x->node_limit || x->best <= x->stop_at);
    double best = (double)x->best;
    if (x->best < (long)above)
        for (int k = 0; k < PB_KINDS; k++)
            for (int d = 0; d < P; d++)
                for (int m = 0; m < M; m++) {
                    int v = x->op[k][d][m];
                    s->device[v] = p->allowed_device[p->allowed_start[v]];
                    s->end[v] = (double)x->best_end[k][d][m];
                    s->start[v] = s->end[v] - p->duration[v];
                }
    if (x->best < (long)above)
        for (int e = 0; e < p->dep_count; e++) {
            int u = p->dep_from[e], v = p->dep_to[e];
            bool cross = s->device[u] != s->device[v];
            s->transfer_start[e] = cross ? s->end[u] : NAN;
            s->transfer_end[e] = cross ? s->end[u] + p->dep_comm[e] : NAN;
        }
    free(x);
    return best;
}

#endif
