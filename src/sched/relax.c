/* relax.c: the pieces every lower bound and search of the scheduler shares:
 * the device an op is forced onto, the delay a dependency surely costs,
 * heads and tails, and the one-machine relaxation. They sit below bound.c
 * and rank_bound.c so that neither bound reaches into the other's file. */
#include <math.h>
#include <stdlib.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

int sc_forced_device(const pp_sched_problem *p, int op)
{
    int a = p->allowed_start[op], z = p->allowed_start[op + 1];
    if (z - a == 1)
        return p->allowed_device[a];
    if (z == a && p->device_count == 1)
        return 0;
    return -1;
}

double sc_dep_delay(const pp_sched_problem *p, int e)
{
    int a = sc_forced_device(p, p->dep_from[e]), b = sc_forced_device(p, p->dep_to[e]);
    return a >= 0 && b >= 0 && a != b ? p->dep_comm[e] : 0;
}

void sc_heads_tails(const pp_sched_problem *p, double *head, double *tail)
{
    int n = p->op_count;
    for (int k = 0; k < n; k++) {
        int v = p->topo_order[k];
        head[v] = 0;
        for (int j = p->pred_start[v]; j < p->pred_start[v + 1]; j++) {
            int e = p->pred_dep[j], u = p->dep_from[e];
            head[v] = fmax(head[v], head[u] + p->duration[u] + sc_dep_delay(p, e));
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        int u = p->topo_order[k];
        tail[u] = 0;
        for (int j = p->succ_start[u]; j < p->succ_start[u + 1]; j++) {
            int e = p->succ_dep[j], v = p->dep_to[e];
            tail[u] = fmax(tail[u], sc_dep_delay(p, e) + p->duration[v] + tail[v]);
        }
    }
}


static int by_head_desc(const void *a, const void *b)
{
    double x = ((const sc_job *)a)->head, y = ((const sc_job *)b)->head;
    return (x < y) - (x > y);
}

int sc_by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The most tail thresholds tried per device: each costs a pass over its
 * ops, and every threshold gives a valid bound. */
enum { TAIL_THRESHOLDS = 64 };

/* For thresholds r and q: the ops with head >= r and tail >= q run one at a
 * time after r, and the last of them still has q to go. q = the least tail
 * is the classic suffix bound; a higher q leaves out the ops that end the
 * graph early, as a pipeline device's W's, whose inputs' own forwards and
 * backwards must all pass before the last backward can go back. `scratch`
 * holds n doubles. */
double sc_one_machine_bound(sc_job *jobs, int n, double *scratch)
{
    qsort(jobs, (size_t)n, sizeof *jobs, by_head_desc);
    for (int k = 0; k < n; k++)
        scratch[k] = jobs[k].tail;
    qsort(scratch, (size_t)n, sizeof *scratch, sc_by_double);
    int distinct = 0;
    for (int k = 0; k < n; k++)
        if (distinct == 0 || scratch[k] != scratch[distinct - 1])
            scratch[distinct++] = scratch[k];
    double best = 0;
    int step = distinct > TAIL_THRESHOLDS ? (distinct + TAIL_THRESHOLDS - 1) / TAIL_THRESHOLDS : 1;
    for (int t = 0; t < distinct; t += step) {
        double q = scratch[t], work = 0;
        for (int k = 0; k < n; k++) {
            if (jobs[k].tail < q)
                continue;
            work += jobs[k].duration;
            best = fmax(best, jobs[k].head + work + q);
        }
    }
    return best;
}
