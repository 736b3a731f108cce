/* cyclic_bound.c: the cyclic objectives' lower bound on the period
 * (pp_sched_cyclic_lower_bound). The larger of two arguments:
 *  - the resources every period must hold: each op once (so no op longer
 *    than T), each device's forced work, all work over all devices, each
 *    channel's forced transfers; with the step kept, also every device's
 *    span (pp_sched_span_lower_bound);
 *  - memory, by Little's law. In the steady state a device's level at
 *    phase t is W + sum_i A_i floor((t - e_i) / T) (cyclic.c, e_i op i's
 *    end), and over one period the floor of op i integrates to -e_i, so
 *    the level's mean is W + S / T with S = -sum_i A_i e_i: the area one
 *    iteration's memory covers on the device, each unit times how long it
 *    is held. The peak is at least the mean, so a capacity C gives
 *    T >= S / (C - W). S is bounded without a schedule: a shipment
 *    f_ar >= 0 from the ops that raise the level (a supplies A_a) to the
 *    ops that lower it (r takes -A_r), each along a dependency path, has
 *    sum f_ar (e_r - e_a) = -sum_i A_i e_i = S, and e_r - e_a >= dist(a, r),
 *    the longest path from a's end to r's end (durations, and comm where
 *    both ends are forced onto different devices): S >= sum f_ar dist(a, r)
 *    (weak duality; any shipment will do, a greedy one is found). A group
 *    of ops free to move gives back what it takes (sc_cyclic_applies),
 *    so with a shipment of its own its area is >= 0 wherever it lands, and
 *    leaving it and its weights out of a device's S and W only lowers the
 *    bound; a free group with none (it may give memory back before taking
 *    it) drops the memory argument. The paths are followed from every op
 *    that raises a level, within a budget of edge visits (then no memory
 *    argument), so that a large graph is not searched for a bound. */
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

enum { MEMORY_BOUND_VISITS = 1 << 24 };

/* What a raising op can ship to a lowering op of the same home. */
typedef struct {
    int from, to, order;  /* order: the lowering op's place in the topological order */
    double dist;
} lane;

typedef struct {
    const pp_sched_problem *p;
    int *home;       /* per op: its forced device, devices + its group when free, -1 when A is 0 */
    int *at;         /* per op: its place in the topological order */
    int *seen_from;  /* per op: the raising op whose paths last reached it */
    int *reached;
    double *dist, *left;
    lane *lanes;
    int lane_count, lane_room;
    long visits_left;
} memory_paths;

static int by_order_then_far(const void *a, const void *b)
{
    const lane *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return (x->dist < y->dist) - (x->dist > y->dist);
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool add_lane(memory_paths *m, int from, int to)
{
    if (m->lane_count == m->lane_room) {
        int room = 2 * m->lane_room + 16;
        lane *grown = realloc(m->lanes, (size_t)room * sizeof *grown);
        if (!grown)
            return false;
        m->lanes = grown, m->lane_room = room;
    }
    m->lanes[m->lane_count++] = (lane){from, to, m->at[to], m->dist[to]};
    return true;
}

/* The ops reachable from a, with the longest path from a's end to each
 * one's end, and a lane to each that lowers a's home. false: out of
 * memory or visits. */
static bool follow(memory_paths *m, int a)
{
    const pp_sched_problem *p = m->p;
    int count = 1;
    m->reached[0] = a, m->seen_from[a] = a;
    for (int k = 0; k < count; k++)
        for (int j = p->succ_start[m->reached[k]]; j < p->succ_start[m->reached[k] + 1]; j++) {
            int w = p->dep_to[p->succ_dep[j]];
            if (--m->visits_left < 0)
                return false;
            if (m->seen_from[w] != a)
                m->seen_from[w] = a, m->reached[count++] = w;
        }
    /* In topological order, as places, then as ops again. */
    for (int k = 0; k < count; k++)
        m->reached[k] = m->at[m->reached[k]];
    qsort(m->reached, (size_t)count, sizeof(int), by_int);
    for (int k = 0; k < count; k++)
        m->reached[k] = p->topo_order[m->reached[k]], m->dist[m->reached[k]] = k == 0 ? 0 : -INFINITY;
    for (int k = 0; k < count; k++) {
        int v = m->reached[k];
        for (int j = p->succ_start[v]; j < p->succ_start[v + 1]; j++) {
            int e = p->succ_dep[j], w = p->dep_to[e];
            m->dist[w] = fmax(m->dist[w], m->dist[v] + sc_dep_delay(p, e) + p->duration[w]);
        }
        if (k > 0 && m->home[v] == m->home[a] && p->adjust[v] < 0 && !add_lane(m, a, v))
            return false;
    }
    return true;
}

/* Ships greedily along the lanes, the earliest lowering op first, each
 * from its farthest raising ops: per home, the area shipped into area[h],
 * and whether every lowering op got all it gives back into shipped[h]. */
static void ship(memory_paths *m, double *area, bool *shipped, int homes)
{
    const pp_sched_problem *p = m->p;
    double *scale = m->dist;  /* per home now: its summed |A| */
    for (int h = 0; h < homes; h++)
        area[h] = 0, scale[h] = 0, shipped[h] = true;
    for (int i = 0; i < p->op_count; i++)
        if (m->home[i] >= 0)
            m->left[i] = fabs(p->adjust[i]), scale[m->home[i]] += fabs(p->adjust[i]);
    if (m->lane_count > 0)
        qsort(m->lanes, (size_t)m->lane_count, sizeof *m->lanes, by_order_then_far);
    for (int k = 0; k < m->lane_count; k++) {
        const lane *l = &m->lanes[k];
        double amount = fmin(m->left[l->from], m->left[l->to]);
        area[m->home[l->from]] += amount * l->dist;
        m->left[l->from] -= amount, m->left[l->to] -= amount;
    }
    for (int i = 0; i < p->op_count; i++)
        if (m->home[i] >= 0 && m->left[i] > 1e-9 * fmax(1, scale[m->home[i]]))
            shipped[m->home[i]] = false;
}

/* Per op its home (the device it or its group is forced onto, else
 * devices + its group) when it changes a level, and the weights forced
 * onto each device; the topological places. */
static void place(memory_paths *m, double *weight)
{
    const pp_sched_problem *p = m->p;
    for (int d = 0; d < p->device_count; d++)
        weight[d] = 0;
    for (int k = 0; k < p->op_count; k++)
        m->at[p->topo_order[k]] = k;
    for (int i = 0; i < p->op_count; i++) {
        int d = sc_forced_device(p, i);
        d = d >= 0 ? d : sc_forced_device(p, p->group[i]);
        m->home[i] = p->adjust[i] == 0 ? -1 : d >= 0 ? d : p->device_count + p->group[i];
        m->seen_from[i] = -1;
        if (d >= 0)
            weight[d] += p->weight[i];
    }
}

/* Little's law per device with a capacity (above): 0 where it cannot say. */
static double memory_bound(const pp_sched_problem *p, const double *area, const bool *shipped,
                           const double *weight)
{
    int D = p->device_count;
    for (int h = D; h < D + p->op_count; h++)
        if (!shipped[h])
            return 0;
    double bound = 0;
    for (int d = 0; d < D; d++)
        if (shipped[d] && isfinite(p->capacity[d]) && p->capacity[d] > weight[d])
            bound = fmax(bound, area[d] / (p->capacity[d] - weight[d]));
    return bound;
}

double sc_cyclic_memory_bound(const pp_sched_problem *p)
{
    int n = p->op_count, homes = p->device_count + n;
    size_t N = (size_t)(n > homes ? n : homes) + 1;
    pp_arena *arena = pp_arena_new(0);
    memory_paths m = {p, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, MEMORY_BOUND_VISITS};
    double *area = NULL, *weight = NULL;
    bool *shipped = NULL;
    if (arena) {
        m.home = pp_arena_alloc(arena, N * sizeof(int)), m.at = pp_arena_alloc(arena, N * sizeof(int));
        m.seen_from = pp_arena_alloc(arena, N * sizeof(int)), m.reached = pp_arena_alloc(arena, N * sizeof(int));
        m.dist = pp_arena_alloc(arena, N * sizeof(double)), m.left = pp_arena_alloc(arena, N * sizeof(double));
        area = pp_arena_alloc(arena, N * sizeof(double)), shipped = pp_arena_alloc(arena, N * sizeof(bool));
        weight = pp_arena_alloc(arena, N * sizeof(double));
    }
    bool ok = m.home && m.at && m.seen_from && m.reached && m.dist && m.left && area && shipped && weight;
    if (ok)
        place(&m, weight);
    for (int i = 0; ok && i < n; i++)
        if (m.home[i] >= 0 && p->adjust[i] > 0)
            ok = follow(&m, i);
    double bound = 0;
    if (ok) {
        ship(&m, area, shipped, homes);
        bound = memory_bound(p, area, shipped, weight);
    }
    free(m.lanes);
    pp_arena_free(arena);
    return bound;
}

double pp_sched_cyclic_lower_bound(const pp_sched_problem *p, bool async)
{
    int D = p->device_count;
    double *load = calloc((size_t)D * (D + 1) + 1, sizeof(double));
    if (!load)
        return 0;
    double bound = 0, total = 0;
    for (int i = 0; i < p->op_count; i++) {
        int d = sc_forced_device(p, i);
        bound = fmax(bound, p->duration[i]);
        total += p->duration[i];
        if (d >= 0)
            load[d] += p->duration[i];
    }
    for (int e = 0; e < p->dep_count; e++) {
        int a = sc_forced_device(p, p->dep_from[e]), b = sc_forced_device(p, p->dep_to[e]);
        if (a >= 0 && b >= 0 && a != b)
            load[D + a * D + b] += p->dep_comm[e];
    }
    for (int k = 0; k < D * (D + 1); k++)
        bound = fmax(bound, load[k]);
    free(load);
    bound = fmax(fmax(bound, total / D), sc_cyclic_memory_bound(p));
    return async ? bound : fmax(bound, pp_sched_span_lower_bound(p));
}
