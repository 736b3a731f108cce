/* greedy.c: the memory-aware constructive start, a device-driven list
 * scheduler run under a small grid of policies, the best kept. The device
 * whose clock is earliest decides: it runs an op whose inputs are there,
 * else a filler, else waits for the next op that could come. Every rule is
 * stated on the generic problem (ops, dependencies, durations, devices,
 * memory effects), so it serves any graph; on a pipeline it is the
 * zero-bubble heuristic's rules (Qi et al., arXiv 2401.10241, section 3.1)
 * seen from the op graph, and reaches the makespans of gen_zb.c's greedy.
 *
 * - A filler is an op that gives memory back or none, whose inputs and
 *   successors are all on its own device and whose successors are fillers:
 *   nothing elsewhere waits for it (a weight gradient). It runs when the
 *   device would idle (policy: any gap, a gap as long as it, or also a
 *   shorter one on the device that would then have idled most), when an op
 *   waits only for the memory it frees, and when nothing else is left.
 * - Among other ops whose inputs are there: those that lower memory first
 *   (a backward when its input is ready), or those that raise it first.
 * - A raising op's warm-up limit: it may run while the memory it and the
 *   device's earlier raising ops hold stays within depth x its rise, depth
 *   the raises that fit its round trip (from its end to the op on its device
 *   that first gives memory back) once or twice per raise-release cycle
 *   (1F1B's P - s, ZB-H2's 2(P - s) - 1), or none but the capacity; held
 *   throughout or only until the device first gives memory back.
 * - For the span start only (sc_construct_greedy_span): a filler runs
 *   into a gap it does not fit only while the device holds more of them
 *   than its reserve, the fillers its drain can take within the span bound
 *   (measured on the previous run), and its previous gap was not overrun;
 *   and a warm-up limit that also counts the raises that fit before the
 *   first lowering op could arrive (at most one past ZB-H2's: each stage
 *   needs two more in flight than the next to feed it in its steady
 *   state). The makespan's fill rules leave what does not fit a gap for
 *   the end, where a device's span pays for each one; a W run two to a
 *   gap delays the next B, which the gap after it absorbs (1,944 us idle
 *   a gap at Qi et al.'s times, 354 for three W's in two). */
#include <math.h>
#include <stdlib.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

enum { LIMIT_CYCLE, LIMIT_HALF_CYCLE, LIMIT_ARRIVAL, LIMIT_DEPTHS, LIMIT_NONE = LIMIT_DEPTHS };
enum { FILL_WORST, FILL_IDLE, FILL_GAP, FILL_RULES, FILL_RESERVE = FILL_RULES };

typedef struct {
    int limit, fill;
    bool raise_first;   /* a ready raising op runs before a ready lowering one */
    bool warm_only;     /* the limit holds until the device first lowers its level */
} policy;

/* The grid, the policies that usually win first (so that a start on the
 * bound ends the loop early, and among starts on the bound the one the span
 * search does best from comes first: BENCHMARKS.md, issue 17). */
enum { LIMIT_RULES = 3, GRID_SIZE = LIMIT_RULES * FILL_RULES * 4 };

static policy grid_point(int k)
{
    static const int limits[LIMIT_RULES] = {LIMIT_HALF_CYCLE, LIMIT_NONE, LIMIT_CYCLE};
    return (policy){.limit = limits[k % LIMIT_RULES],
                    .fill = k / LIMIT_RULES / 4,
                    .raise_first = k / LIMIT_RULES % 2,
                    .warm_only = k / LIMIT_RULES / 2 % 2 == 0};
}

/* The span start's grid: FILL_RESERVE under every warm-up limit, held
 * until the first lowering op or throughout, then the makespan's grid. */
enum { SPAN_ONLY = (LIMIT_RULES + 1) * 2, SPAN_GRID_SIZE = SPAN_ONLY + GRID_SIZE, RESERVE_ROUNDS = 3 };

static policy span_point(int k)
{
    static const int limits[LIMIT_RULES + 1] = {LIMIT_HALF_CYCLE, LIMIT_ARRIVAL, LIMIT_NONE, LIMIT_CYCLE};
    if (k >= SPAN_ONLY)
        return grid_point(k - SPAN_ONLY);
    return (policy){.limit = limits[k % 4], .fill = FILL_RESERVE, .raise_first = false, .warm_only = k < 4};
}

/* What the policies share, computed once. */
typedef struct {
    unsigned char *filler;   /* per op */
    double *depth[LIMIT_DEPTHS];  /* per raising op and limit rule: its depth (INFINITY: none) */
    double *base;            /* per device: the weights of the ops forced onto it */
    unsigned char *in_play;  /* per device: may take an op (sc_devices_in_play) */
} traits;

typedef struct {
    const pp_sched_problem *p;
    const double *tail;
    const traits *t;
    policy pol;
    const double *reserve;   /* per device, FILL_RESERVE: fillers it may leave for after its other ops */
    int *lowers, *overrun_at; /* per device: ops run that lowered its level; their count at its last overrun */
    double *clock, *idle, *level, *held, *peak, *channel_free;  /* per device (channel: D x D) */
    unsigned char *asleep, *lowered;                             /* per device */
    double *end;
    int *device, *missing, *left;    /* per op; left: per device, ops forced onto it still to run */
    /* Ops whose inputs have all run, in lists (list_of): per device its
     * non-fillers, then those with a choice, then per device its fillers. */
    int **ready, *ready_count;
    int free_ops;                    /* ops with a choice still to run */
} sim;

static int list_of(const pp_sched_problem *p, const traits *t, int v)
{
    int d = sc_forced_device(p, v);
    return d < 0 ? p->device_count : t->filler[v] ? p->device_count + 1 + d : d;
}

static double max_comm(const pp_sched_problem *p, int v, bool out)
{
    double c = 0;
    int a = out ? p->succ_start[v] : p->pred_start[v], z = out ? p->succ_start[v + 1] : p->pred_start[v + 1];
    for (int k = a; k < z; k++)
        c = fmax(c, p->dep_comm[out ? p->succ_dep[k] : p->pred_dep[k]]);
    return c;
}

static void find_fillers(const pp_sched_problem *p, unsigned char *filler)
{
    for (int k = p->op_count - 1; k >= 0; k--) {
        int v = p->topo_order[k], d = sc_forced_device(p, v);
        bool f = d >= 0 && p->adjust[v] <= 0;
        for (int j = p->succ_start[v]; f && j < p->succ_start[v + 1]; j++) {
            int w = p->dep_to[p->succ_dep[j]];
            f = filler[w] && sc_forced_device(p, w) == d;
        }
        for (int j = p->pred_start[v]; f && j < p->pred_start[v + 1]; j++)
            f = sc_forced_device(p, p->dep_from[p->pred_dep[j]]) == d;
        filler[v] = f;
    }
}

/* The warm-up depths of device d's raising ops. first[v]: the op forced
 * onto d that lowers its level with the earliest head, reachable from v
 * (v itself included), or -1. */
static void depths_on(const pp_sched_problem *p, int d, const double *head, int *first, traits *t)
{
    for (int k = p->op_count - 1; k >= 0; k--) {
        int v = p->topo_order[k];
        first[v] = sc_forced_device(p, v) == d && p->adjust[v] < 0 ? v : -1;
        for (int j = p->succ_start[v]; j < p->succ_start[v + 1]; j++) {
            int r = first[p->dep_to[p->succ_dep[j]]];
            if (r >= 0 && (first[v] < 0 || head[r] < head[first[v]]))
                first[v] = r;
        }
        if (sc_forced_device(p, v) != d || p->adjust[v] <= 0 || first[v] < 0)
            continue;
        int r = first[v];
        double trip = head[r] - head[v] - p->duration[v];
        double cycle = p->duration[v] + p->duration[r] + max_comm(p, v, true) + max_comm(p, r, false);
        for (int h = 0; h < 2; h++)
            t->depth[h][v] = cycle > 0 ? 1 + floor((h + 1) * trip / cycle + 1e-9) : INFINITY;
        double fit = p->duration[v] > 0 ? floor((head[r] - head[v]) / p->duration[v] + 1e-9) : INFINITY;
        t->depth[LIMIT_ARRIVAL][v] = fmin(t->depth[LIMIT_HALF_CYCLE][v] + 1, fit);
    }
}

static void traits_free(traits *t)
{
    free(t->filler), free(t->base), free(t->in_play);
    for (int h = 0; h < LIMIT_DEPTHS; h++)
        free(t->depth[h]);
}

static bool traits_init(const pp_sched_problem *p, const double *head, traits *t)
{
    size_t n = (size_t)p->op_count + 1;
    t->filler = malloc(n);
    t->base = calloc((size_t)p->device_count, sizeof(double));
    t->in_play = malloc((size_t)p->device_count + 1);
    int *first = malloc(n * sizeof(int));
    int *forced = calloc((size_t)p->device_count + 1, sizeof(int));
    bool ok = t->filler && t->base && t->in_play && first && forced && sc_devices_in_play(p, t->in_play);
    for (int h = 0; h < LIMIT_DEPTHS; h++)
        ok = (t->depth[h] = malloc(n * sizeof(double))) && ok;
    if (ok) {
        find_fillers(p, t->filler);
        for (int v = 0; v < p->op_count; v++) {
            for (int h = 0; h < LIMIT_DEPTHS; h++)
                t->depth[h][v] = INFINITY;
            int d = sc_forced_device(p, v);
            if (d >= 0)
                t->base[d] += p->weight[v], forced[d]++;
        }
        /* Depths are of ops forced onto the device: none, nothing to do. */
        for (int d = 0; d < p->device_count; d++)
            if (isfinite(p->capacity[d]) && forced[d])
                depths_on(p, d, head, first, t);
    }
    free(first);
    free(forced);
    if (!ok)
        traits_free(t);
    return ok;
}

/* When v's inputs are all at device j (INFINITY: one cannot reach it). */
static double arrival(const sim *s, int v, int j)
{
    return sc_inputs_arrive(s->p, v, j, s->device, s->end, s->channel_free);
}

/* Whether v fits device j's memory, with `lowered_by` given back first. */
static bool fits(const sim *s, int v, int j, double lowered_by)
{
    const pp_sched_problem *p = s->p;
    double cap = p->capacity[j], slack = sc_memory_slack(cap);
    double w = sc_forced_device(p, v) >= 0 ? 0 : p->weight[v];
    if (s->peak[j] + w > cap + slack || s->level[j] + lowered_by + w + p->adjust[v] > cap + slack)
        return false;
    if (p->adjust[v] <= 0 || s->pol.limit == LIMIT_NONE || (s->pol.warm_only && s->lowered[j]))
        return true;
    double depth = s->t->depth[s->pol.limit][v];
    return s->held[j] + lowered_by + p->adjust[v] <= depth * p->adjust[v] + slack;
}

static bool allowed(const sim *s, int v, int j)
{
    const pp_sched_problem *p = s->p;
    if (!s->t->in_play[j])
        return false;
    int lead = p->group[v];
    if (lead != v && s->device[lead] >= 0)
        return s->device[lead] == j;
    return pp_sched_op_allowed(p, v, j);
}

/* Is v (ready at a) a better pick than w (ready at b) for the next non-filler? */
static bool before(const sim *s, int v, double a, int w, double b)
{
    const pp_sched_problem *p = s->p;
    int cv = s->pol.raise_first ? p->adjust[v] <= 0 : p->adjust[v] >= 0;
    int cw = s->pol.raise_first ? p->adjust[w] <= 0 : p->adjust[w] >= 0;
    if (cv != cw)
        return cv < cw;
    if (s->tail[v] != s->tail[w])
        return s->tail[v] > s->tail[w];
    return a != b ? a < b : v < w;
}

/* Device j's view at time now: the best op to run now (non-filler, fitting)
 * or -1; the best filler to run now or -1; the earliest a fitting
 * non-filler's inputs arrive; whether some ready op waits only for memory
 * that filler gives back. */
typedef struct {
    int op, filler;
    double op_at, next;
    bool filler_frees;
} view;

static void consider(const sim *s, int j, double now, int v, view *w)
{
    const pp_sched_problem *p = s->p;
    if (!allowed(s, v, j))
        return;
    double at = arrival(s, v, j);
    if (!isfinite(at))
        return;
    if (!fits(s, v, j, 0)) {
        if (w->filler >= 0 && fits(s, v, j, p->adjust[w->filler]))
            w->filler_frees = true;
        return;
    }
    if (at > now)
        w->next = fmin(w->next, at);
    else if (w->op < 0 || before(s, v, at, w->op, w->op_at))
        w->op = v, w->op_at = at;
}

/* The earliest a non-filler of device j could arrive from an op that is
 * ready on a device with a channel to j and fits there: that device's
 * clock, the op's duration, the transfer. */
static double estimate_next(const sim *s, int j)
{
    const pp_sched_problem *p = s->p;
    double next = INFINITY;
    for (int e = 0; e < p->device_count; e++) {
        if (e == j || s->ready_count[e] == 0 || !pp_sched_has_channel(p, e, j))
            continue;
        for (int r = 0; r < s->ready_count[e]; r++) {
            int u = s->ready[e][r];
            if (!fits(s, u, e, 0))
                continue;
            double t = fmax(s->clock[e], arrival(s, u, e)) + p->duration[u];
            for (int k = p->succ_start[u]; k < p->succ_start[u + 1]; k++) {
                int dep = p->succ_dep[k], v = p->dep_to[dep];
                if (!s->t->filler[v] && allowed(s, v, j) && fits(s, v, j, 0))
                    next = fmin(next, t + p->dep_comm[dep]);
            }
        }
    }
    return next;
}

static view look(const sim *s, int j)
{
    const pp_sched_problem *p = s->p;
    view w = {-1, -1, INFINITY, INFINITY, false};
    double now = s->clock[j];
    /* A filler's inputs ran on this device: it can run now. */
    int fl = p->device_count + 1 + j;
    for (int r = 0; r < s->ready_count[fl]; r++)
        if (w.filler < 0 || s->ready[fl][r] < w.filler)
            w.filler = s->ready[fl][r];
    for (int list = 0; list < 2; list++) {
        int which = list ? p->device_count : j;
        for (int r = 0; r < s->ready_count[which]; r++)
            consider(s, j, now, s->ready[which][r], &w);
    }
    return w;
}

static bool fill_now(const sim *s, int j, int filler, double gap)
{
    const pp_sched_problem *p = s->p;
    if (s->pol.fill == FILL_IDLE || !isfinite(gap) || gap >= p->duration[filler])
        return true;
    if (s->pol.fill == FILL_RESERVE)
        return s->ready_count[p->device_count + 1 + j] > s->reserve[j] && s->lowers[j] > s->overrun_at[j] + 1;
    if (s->pol.fill == FILL_GAP)
        return false;
    double worst = 0;
    for (int d = 0; d < p->device_count; d++)
        worst = fmax(worst, s->idle[d]);
    return s->idle[j] + gap > worst;
}

static void wake(sim *s, int v)
{
    const pp_sched_problem *p = s->p;
    int d = sc_forced_device(p, v);
    for (int j = 0; j < p->device_count; j++)
        if (s->t->in_play[j] && (d < 0 ? pp_sched_op_allowed(p, v, j) : j == d))
            s->asleep[j] = 0;
}

static void run_op(sim *s, int v, int j, double start, sc_solution *out, int k)
{
    const pp_sched_problem *p = s->p;
    int d = sc_forced_device(p, v), list = list_of(p, s->t, v);
    sc_inputs_send(p, v, j, s->device, s->end, s->channel_free);
    s->device[v] = j;
    if (p->group[v] != v && s->device[p->group[v]] < 0)
        s->device[p->group[v]] = j;
    s->end[v] = s->clock[j] = start + p->duration[v];
    if (d < 0)
        s->peak[j] += p->weight[v], s->level[j] += p->weight[v], s->free_ops--;
    else
        s->left[d]--;
    s->level[j] += p->adjust[v], s->held[j] += p->adjust[v];
    s->peak[j] = fmax(s->peak[j], s->level[j]);
    s->lowered[j] |= p->adjust[v] < 0;
    s->lowers[j] += p->adjust[v] < 0;
    for (int r = 0; r < s->ready_count[list]; r++)
        if (s->ready[list][r] == v) {
            s->ready[list][r] = s->ready[list][--s->ready_count[list]];
            break;
        }
    for (int i = p->succ_start[v]; i < p->succ_start[v + 1]; i++) {
        int w = p->dep_to[p->succ_dep[i]];
        if (--s->missing[w] == 0) {
            int lw = list_of(p, s->t, w);
            s->ready[lw][s->ready_count[lw]++] = w;
            wake(s, w);
        }
    }
    out->list[k] = v;
}

/* The awake device with the earliest clock that has ops left, or -1. */
static int next_device(const sim *s)
{
    int best = -1;
    for (int j = 0; j < s->p->device_count; j++)
        if (!s->asleep[j] && (s->left[j] > 0 || s->free_ops > 0) && (best < 0 || s->clock[j] < s->clock[best]))
            best = j;
    return best;
}

/* Every device waits on another: run the ready op that reaches a device
 * soonest, over the memory if it must; the decoder counts the overflow. */
static void force_one(sim *s, sc_solution *out, int k)
{
    const pp_sched_problem *p = s->p;
    int bv = -1, bj = -1;
    double bt = INFINITY;
    for (int list = 0; list <= 2 * p->device_count; list++)
        for (int r = 0; r < s->ready_count[list]; r++) {
            int v = s->ready[list][r];
            for (int j = 0; j < p->device_count; j++) {
                double t = allowed(s, v, j) ? fmax(s->clock[j], arrival(s, v, j)) : INFINITY;
                if (bv < 0 || t < bt)
                    bv = v, bj = j, bt = t;
            }
        }
    if (!isfinite(bt)) { /* no channel: any allowed device; the decoder counts it broken */
        bj = 0;
        while (bj + 1 < p->device_count && !allowed(s, bv, bj))
            bj++;
        bt = s->clock[bj];
    }
    run_op(s, bv, bj, bt, out, k);
}

/* One decision of device j; returns whether an op ran. */
static bool step(sim *s, int j, sc_solution *out, int k)
{
    view w = look(s, j);
    double now = s->clock[j];
    if (w.op >= 0) {
        run_op(s, w.op, j, now, out, k);
        return true;
    }
    double next = fmin(w.next, estimate_next(s, j));
    if (w.filler >= 0 && (w.filler_frees || fill_now(s, j, w.filler, next - now))) {
        if (next - now < s->p->duration[w.filler])
            s->overrun_at[j] = s->lowers[j];
        run_op(s, w.filler, j, now, out, k);
        return true;
    }
    if (isfinite(next) && next > now) {
        s->idle[j] += next - now;
        s->clock[j] = next;
    } else {
        s->asleep[j] = 1;
    }
    return false;
}

static bool simulate(sim *s, const pp_deadline *deadline, sc_solution *out)
{
    const pp_sched_problem *p = s->p;
    int D = p->device_count;
    /* Only the channels the last run used are cleared, not all D x D: a
     * problem may hold thousands of devices its ops never reach. */
    for (int e = 0; e < p->dep_count; e++) {
        int a = s->device[p->dep_from[e]], b = s->device[p->dep_to[e]];
        if (a >= 0 && b >= 0)
            s->channel_free[a * D + b] = 0;
    }
    for (int i = 0; i < p->op_count; i++)
        s->device[i] = -1, s->end[i] = 0, s->missing[i] = p->pred_start[i + 1] - p->pred_start[i];
    for (int j = 0; j <= 2 * D; j++)
        s->ready_count[j] = 0;
    for (int j = 0; j < D; j++) {
        s->clock[j] = s->idle[j] = s->held[j] = 0;
        s->level[j] = s->peak[j] = s->t->base[j];
        s->asleep[j] = !s->t->in_play[j];
        s->lowered[j] = 0;
        s->left[j] = s->lowers[j] = 0;
        s->overrun_at[j] = -2;
    }
    s->free_ops = 0;
    for (int i = 0; i < p->op_count; i++) {
        int d = sc_forced_device(p, i);
        if (d < 0)
            s->free_ops++;
        else
            s->left[d]++;
        if (s->missing[i] == 0) {
            int list = list_of(p, s->t, i);
            s->ready[list][s->ready_count[list]++] = i;
        }
    }
    long steps = 0;
    for (int k = 0; k < p->op_count;) {
        if (++steps % 256 == 0 && pp_deadline_passed(deadline))
            return false;
        int j = next_device(s);
        if (j < 0)
            force_one(s, out, k++);
        else if (step(s, j, out, k))
            k++;
    }
    for (int i = 0; i < p->op_count; i++)
        out->device[i] = s->device[i];
    return true;
}

static void sim_free(sim *s)
{
    free(s->clock), free(s->idle), free(s->level), free(s->held), free(s->peak), free(s->channel_free);
    free(s->asleep), free(s->lowered), free(s->lowers), free(s->overrun_at), free(s->end), free(s->device), free(s->missing), free(s->left);
    if (s->ready)
        for (int j = 0; j <= 2 * s->p->device_count; j++)
            free(s->ready[j]);
    free(s->ready), free(s->ready_count);
}

static bool sim_init(sim *s, const pp_sched_problem *p, const double *tail, const traits *t)
{
    size_t n = (size_t)p->op_count + 1, D = (size_t)p->device_count;
    *s = (sim){.p = p, .tail = tail, .t = t};
    s->clock = malloc(D * sizeof(double)), s->idle = malloc(D * sizeof(double));
    s->level = malloc(D * sizeof(double)), s->held = malloc(D * sizeof(double));
    s->peak = malloc(D * sizeof(double)), s->channel_free = calloc(D * D, sizeof(double));
    s->asleep = malloc(D), s->lowered = malloc(D), s->left = malloc(D * sizeof(int));
    s->lowers = malloc(D * sizeof(int)), s->overrun_at = malloc(D * sizeof(int));
    s->end = malloc(n * sizeof(double)), s->device = malloc(n * sizeof(int)), s->missing = malloc(n * sizeof(int));
    s->ready = calloc(2 * D + 1, sizeof(int *)), s->ready_count = calloc(2 * D + 1, sizeof(int));
    bool ok = s->clock && s->idle && s->level && s->held && s->peak && s->channel_free && s->asleep &&
              s->lowered && s->left && s->lowers && s->overrun_at && s->end && s->device && s->missing && s->ready && s->ready_count;
    /* No op placed yet: simulate clears the channels of the last run's placements. */
    for (int i = 0; ok && i < p->op_count; i++)
        s->device[i] = -1;
    /* Each list as long as the ops that may enter it (ready_count counts them here). */
    for (int i = 0; ok && i < p->op_count; i++)
        s->ready_count[list_of(p, t, i)]++;
    for (size_t j = 0; ok && j <= 2 * D; j++)
        ok = (s->ready[j] = malloc(((size_t)s->ready_count[j] + 1) * sizeof(int))) != NULL;
    if (!ok)
        sim_free(s);
    return ok;
}

bool sc_construct_greedy(const pp_sched_problem *p, const double *head, const double *tail, double bound,
                            const pp_deadline *deadline, sc_decoder *dec, sc_solution *out,
                            sc_solution *scratch, sc_cost *cost)
{
    traits t = {0};
    sim s;
    if (!traits_init(p, head, &t))
        return false;
    if (!sim_init(&s, p, tail, &t)) {
        traits_free(&t);
        return false;
    }
    bool found = false;
    for (int k = 0; k < GRID_SIZE; k++) {
        s.pol = grid_point(k);
        if (!simulate(&s, deadline, scratch))
            break;
        sc_decode(dec, scratch);
        sc_cost c = sc_cost_of(dec);
        if (!found || sc_cost_compare(c, *cost) < 0) {
            *cost = c, found = true;
            sc_solution_copy(out, scratch, p->op_count);
        }
        if (cost->broken == 0 && cost->overflow == 0 && cost->makespan <= bound * (1 + 1e-9))
            break;
    }
    sim_free(&s);
    traits_free(&t);
    if (!found)
        cost->broken = 1, cost->overflow = INFINITY, cost->makespan = INFINITY;
    return true;
}

/* The longest per-device span of s, each device from its first op's start. */
static double longest_span(const pp_sched_problem *p, const pp_sched_schedule *s, double *first, double *last)
{
    for (int d = 0; d < p->device_count; d++)
        first[d] = INFINITY, last[d] = -INFINITY;
    for (int i = 0; i < p->op_count; i++) {
        int d = s->device[i];
        first[d] = fmin(first[d], s->start[i]), last[d] = fmax(last[d], s->end[i]);
    }
    double span = 0;
    for (int d = 0; d < p->device_count; d++)
        if (last[d] >= first[d])
            span = fmax(span, last[d] - first[d]);
    return span;
}

/* The span start's working state: the span sought (the span bound) and,
 * per device, scratch for the reserves. */
typedef struct {
    double target, best;
    double *first, *last, *count, *fill_time, *reserve;  /* per device */
    sc_decoder dec;
    sc_solution list;
    pp_sched_schedule *trial;
} span_run;

/* FILL_RESERVE's reserves from a run's schedule: per device, the fillers
 * that fit, back to back, between the end of its last other op and its
 * first op's start plus the target, less the one the last op readies. */
static void set_reserves(const pp_sched_problem *p, const traits *t, span_run *r)
{
    const pp_sched_schedule *s = r->trial;
    for (int d = 0; d < p->device_count; d++)
        r->first[d] = INFINITY, r->last[d] = -INFINITY, r->count[d] = r->fill_time[d] = 0;
    for (int i = 0; i < p->op_count; i++) {
        int d = s->device[i];
        r->first[d] = fmin(r->first[d], s->start[i]);
        if (t->filler[i])
            r->count[d] += 1, r->fill_time[d] += p->duration[i];
        else
            r->last[d] = fmax(r->last[d], s->end[i]);
    }
    for (int d = 0; d < p->device_count; d++) {
        double mean = r->count[d] > 0 ? r->fill_time[d] / r->count[d] : 0;
        r->reserve[d] = mean > 0 ? floor((r->first[d] + r->target - r->last[d]) / mean) - 1 : INFINITY;
    }
}

/* Runs the sim's policy (FILL_RESERVE: RESERVE_ROUNDS times, each on the
 * reserves of the run before), the shortest span into out; false when the
 * deadline passed. */
static bool span_policy(sim *s, span_run *r, const pp_deadline *deadline, pp_sched_schedule *out, bool *found)
{
    const pp_sched_problem *p = s->p;
    for (int d = 0; d < p->device_count; d++)
        r->reserve[d] = INFINITY;
    s->reserve = r->reserve;
    for (int round = 0; round < (s->pol.fill == FILL_RESERVE ? RESERVE_ROUNDS : 1); round++) {
        if (!simulate(s, deadline, &r->list))
            return false;
        sc_decode(&r->dec, &r->list);
        sc_cost c = sc_cost_of(&r->dec);
        if (c.broken != 0 || c.overflow != 0)
            break;
        sc_decoder_export(&r->dec, &r->list, r->trial);
        double span = longest_span(p, r->trial, r->first, r->last);
        if (span < r->best)
            r->best = span, *found = true, pp_sched_schedule_copy(out, r->trial);
        set_reserves(p, s->t, r);
    }
    return true;
}

bool sc_construct_greedy_span(const pp_sched_problem *p, const pp_deadline *deadline, pp_sched_schedule *out,
                                 bool *found)
{
    size_t n = (size_t)p->op_count + 1, D = (size_t)p->device_count + 1;
    double *head = malloc(n * sizeof(double)), *tail = malloc(n * sizeof(double));
    span_run r = {.best = INFINITY, .trial = pp_sched_schedule_new(p)};
    r.first = malloc(D * sizeof(double)), r.last = malloc(D * sizeof(double)), r.count = malloc(D * sizeof(double));
    r.fill_time = malloc(D * sizeof(double)), r.reserve = malloc(D * sizeof(double));
    bool dec_ok = sc_decoder_init(&r.dec, p);
    traits t = {0};
    sim s;
    bool ok = head && tail && r.first && r.last && r.count && r.fill_time && r.reserve && r.trial && dec_ok &&
              sc_solution_alloc(&r.list, p->op_count);
    if (ok)
        sc_heads_tails(p, head, tail), r.target = pp_sched_span_lower_bound(p);
    bool traited = ok && traits_init(p, head, &t);  /* each frees itself when it fails */
    bool simulating = traited && sim_init(&s, p, tail, &t);
    ok = ok && simulating;
    *found = false;
    for (int k = 0; ok && k < SPAN_GRID_SIZE; k++) {
        s.pol = span_point(k);
        if (!span_policy(&s, &r, deadline, out, found))
            break;
    }
    if (simulating)
        sim_free(&s);
    if (traited)
        traits_free(&t);
    if (dec_ok)
        sc_decoder_free(&r.dec);
    sc_solution_free(&r.list);
    pp_sched_schedule_free(r.trial);
    free(head), free(tail), free(r.first), free(r.last), free(r.count), free(r.fill_time), free(r.reserve);
    return ok;
}
