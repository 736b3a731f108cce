/* rank_bound.c: a lower bound for graphs made of copies of one job (a
 * pipeline's micro-batches), built for tight memory (issue 29), where the
 * per-op bounds of bound.c see no more than a device's warm-up.
 *
 * Copies. The graph's weakly connected components are compared op by op
 * (in index order: duration, memory change, forced device, and the edges
 * in, with their least delays); alike components are copies of one
 * template. A class is one template op; its ops are its copies. Nothing
 * is lost by this: a component alike to no other is a class of one copy.
 *
 * Ranks. For class i, S_i(k) is the k-th smallest start among its copies
 * (k = 0, ..., M - 1), and lb[i][k] a lower bound on it. Every rule below
 * turns lower bounds into a larger one, so starting from 0 and applying them
 * in any order and any number of times keeps every lb valid:
 *  1. An edge a -> i of the template, with least lag L (a's duration plus
 *     the comm when both ends are forced onto different devices), maps the
 *     copies of a one to one onto those of i, each later by >= L; order
 *     statistics keep a componentwise order, so S_i(k) >= S_a(k) + L.
 *  2. A class forced onto one device runs its copies one at a time:
 *     S_i(k) >= S_i(k - 1) + its duration.
 *  3. One device, one machine: before copy k of class i starts (the one of
 *     rank k), its device has run k copies of i (ranks 0..k-1), and, for
 *     every class a forced onto the same device that reaches i in the
 *     template, the k + 1 copies of a that precede those k + 1 copies of i.
 *     Any m copies of a class, sorted by start, have their j-th start >=
 *     lb[a][j]; so for any r, at least #{j < m : lb[a][j] >= r} of them start
 *     at or after r, all end before S_i(k) on the same device, and so
 *     S_i(k) >= r + their summed durations (for r where the set is not
 *     empty).
 *  4. Memory (the checker's model: the level is the weights plus each op's
 *     change from its end on; a device's level changes only by the ops on
 *     it). Let i raise the level by A_i > 0 and be forced onto device d of
 *     capacity C, weights W. When copy k ends, k + 1 copies of i have ended,
 *     so the level is >= W + (k + 1) A_i - (what the lowering ops on d have
 *     given back by then), and must be <= C: the lowering ops that ended by
 *     then give back >= need = W + (k + 1) A_i - C. Each has a duration > 0
 *     and runs on d beside copy k, so it ended by S_i(k). With n_c copies of
 *     lowering class c ended (sum n_c |A_c| >= need), S_i(k) >= the n_c-th
 *     end of c (lb[c][n_c - 1] + duration), and rule 3's argument holds for
 *     those n_c copies and i's k earlier ones together. The least over the
 *     count vectors that give back enough is a bound (exactly, with one or
 *     two lowering classes, as a pipeline stage's B and W; with more, their
 *     ends alone).
 * The rules are swept rank by rank in the template's topological order
 * until nothing rises (or a budget of work runs out: every sweep is valid).
 *
 * The bound. The last copy of class i ends >= lb[i][M - 1] + duration, and
 * still has its tail (sc_heads_tails) to go. Per device, the multiset of
 * (lb[i][k], duration, tail) is a valid set of jobs for the one-machine
 * bound (bound.c): for any r, at least #{k : lb[i][k] >= r} copies of i
 * start at or after r.
 *
 * On Qi et al.'s zero-bubble settings ("Zero Bubble Pipeline Parallelism",
 * ICLR 2024: F, B and W per stage, B's output sent on as soon as B ends, W
 * kept back) at an activation budget of P micro-batches, rule 4 on the first
 * stage is the round trip: F of rank k waits for the B's (and W's) that
 * free k + 1 - P micro-batches, and each B returns no earlier than its F's
 * start plus the trip through every later stage and back (rule 1). At the
 * small sizes the tests try exhaustively (P <= 3) it reaches the optimum. */
#include <stdlib.h>
#include <string.h>
#include "sched/solver.h"

/* Template sizes beyond this get no ancestor lists (rule 3 with the
 * class's own ranks only): the lists cost the template's size squared. */
enum { ANCESTOR_TEMPLATE = 2048 };

/* Steps of rule 3's merges, in all (a third of a second unloaded): past
 * it, rule 3 says nothing and rule 4 counts ends alone, so the bound stays
 * valid, only weaker. P = 32 stages of 96 micro-batches take 11.7 million;
 * P = 64 of 256 reach it with the same bound as at 40 million. */
static const long WORK_BUDGET = 12000000L;
/* Steps of work between looks at the deadline: about a millisecond. */
static const long LOOK_EVERY = 50000L;

enum { MAX_SWEEPS = 50 };

typedef struct {
    const pp_sched_problem *p;
    pp_arena *arena;
    int n, classes;
    int *cls;           /* per op: its class */
    int *parent;        /* per op: union-find over components, roots their least ops */
    int *copies;        /* per class: M */
    int *size;          /* per class: its template's ops */
    int *device;        /* per class: forced device or -1 */
    double *dur, *adj, *tail;
    int *rep;           /* per class: the representative op */
    int *lb_at;         /* per class: its ranks' offset in lb */
    double *lb;
    int *pred_at, *pred_cls;  /* per class: template edges in */
    double *pred_lag;
    int *anc_at, *anc;        /* per class: same-device ancestor classes */
    int *order;               /* classes, topologically */
    int *low_at, *low;        /* per device: lowering classes */
    bool *memory_ok;          /* per device: rule 4 applies */
    double *weights;          /* per device: W */
    long work;
    const pp_deadline *deadline; /* past it, as past the budget: the bound so far, weaker */
    long look;                   /* r->work at which the deadline is next looked at */
    bool stopped;
} ranks;

/* Past the budget of work or the deadline: rule 3 says nothing more. */
static bool spent(ranks *r)
{
    if (!r->stopped && r->work >= r->look) {
        r->look = r->work + LOOK_EVERY;
        r->stopped = sc_bound_cut(r->deadline);
    }
    return r->stopped || r->work >= WORK_BUDGET;
}

/* Union-find root with path halving. */
static int root(int *parent, int x)
{
    while (parent[x] != x)
        parent[x] = parent[parent[x]], x = parent[x];
    return x;
}

/* Whether components with the ops a[] and b[] (each in index order, m ops)
 * are alike; pos[op]: its place in its component. */
static bool alike(const pp_sched_problem *p, const int *a, const int *b, int m, const int *pos)
{
    for (int j = 0; j < m; j++) {
        int x = a[j], y = b[j];
        if (p->duration[x] != p->duration[y] || p->adjust[x] != p->adjust[y] ||
            sc_forced_device(p, x) != sc_forced_device(p, y))
            return false;
        int px = p->pred_start[x], py = p->pred_start[y], nx = p->pred_start[x + 1] - px;
        if (nx != p->pred_start[y + 1] - py)
            return false;
        for (int k = 0; k < nx; k++) {
            int ex = p->pred_dep[px + k], ey = p->pred_dep[py + k];
            if (pos[p->dep_from[ex]] != pos[p->dep_from[ey]] || sc_dep_delay(p, ex) != sc_dep_delay(p, ey))
                return false;
        }
    }
    return true;
}

static unsigned long bits_of(double x)
{
    unsigned long long b = 0;
    memcpy(&b, &x, sizeof x < sizeof b ? sizeof x : sizeof b);
    return (unsigned long)(b ^ b >> 32);
}

static unsigned long shape_hash(const pp_sched_problem *p, const int *ops, int m)
{
    unsigned long h = (unsigned long)m * 2654435761UL;
    for (int j = 0; j < m; j++) {
        int x = ops[j];
        h = h * 31 + bits_of(p->duration[x]);
        h = h * 31 + bits_of(p->adjust[x]);
        h = h * 31 + (unsigned long)(sc_forced_device(p, x) + 1);
        h = h * 31 + (unsigned long)(p->pred_start[x + 1] - p->pred_start[x]);
    }
    return h;
}

typedef struct {
    unsigned long hash;
    int root;
} keyed;

static int by_hash_then_root(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->root > y->root) - (x->root < y->root);
}

static void *grab(ranks *r, size_t count, size_t size)
{
    return pp_arena_alloc(r->arena, (count + 1) * size);
}

/* Components into classes (tail: per op, or NULL for none). false: out of
 * memory, or no two copies alike (then the bound has nothing to add). */
static bool find_classes(ranks *r, const double *tail)
{
    const pp_sched_problem *p = r->p;
    int n = r->n;
    int *parent = grab(r, (size_t)n, sizeof(int)), *at = grab(r, (size_t)n + 1, sizeof(int));
    int *ops = grab(r, (size_t)n, sizeof(int)), *pos = grab(r, (size_t)n, sizeof(int));
    int *group_of = grab(r, (size_t)n, sizeof(int)), *fill = grab(r, (size_t)n, sizeof(int));
    keyed *by_hash = grab(r, (size_t)n, sizeof(keyed));
    r->cls = grab(r, (size_t)n, sizeof(int));
    r->parent = parent;
    if (!parent || !at || !ops || !pos || !group_of || !fill || !by_hash || !r->cls)
        return false;
    for (int i = 0; i < n; i++)
        parent[i] = i;
    for (int e = 0; e < p->dep_count; e++) {
        int a = root(parent, p->dep_from[e]), b = root(parent, p->dep_to[e]);
        if (a != b)
            parent[a > b ? a : b] = a < b ? a : b;
    }
    /* Ops by component root, in index order: a counting sort. */
    memset(at, 0, ((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        at[root(parent, i) + 1]++;
    for (int i = 0; i < n; i++)
        at[i + 1] += at[i];
    int roots = 0;
    for (int i = 0; i < n; i++)
        fill[i] = at[i];
    for (int i = 0; i < n; i++) {
        int c = root(parent, i);
        pos[i] = fill[c] - at[c];
        ops[fill[c]++] = i;
    }
    /* Groups: roots sorted by their shape's hash, each compared with the
     * groups found so far in its run of equal hashes. */
    for (int c = 0; c < n; c++)
        if (root(parent, c) == c)
            by_hash[roots++] = (keyed){shape_hash(p, ops + at[c], at[c + 1] - at[c]), c};
    qsort(by_hash, (size_t)roots, sizeof *by_hash, by_hash_then_root);
    int groups = 0, most = 1, run_first = 0;
    int *group_root = grab(r, (size_t)roots, sizeof(int));
    if (!group_root)
        return false;
    for (int j = 0; j < roots; j++) {
        int c = by_hash[j].root, m = at[c + 1] - at[c];
        if (j > 0 && by_hash[j].hash != by_hash[j - 1].hash)
            run_first = groups;
        group_of[c] = -1;
        for (int g = run_first; g < groups && group_of[c] < 0; g++) {
            int b = group_root[g];
            if (at[b + 1] - at[b] == m && alike(p, ops + at[b], ops + at[c], m, pos))
                group_of[c] = g;
        }
        if (group_of[c] < 0)
            group_root[groups] = c, group_of[c] = groups++;
    }
    int *count = grab(r, (size_t)groups, sizeof(int)), *class_at = grab(r, (size_t)groups, sizeof(int));
    if (!count || !class_at)
        return false;
    memset(count, 0, ((size_t)groups + 1) * sizeof(int));
    for (int j = 0; j < roots; j++)
        count[group_of[by_hash[j].root]]++;
    for (int g = 0; g < groups; g++)
        most = count[g] > most ? count[g] : most;
    if (most < 2)
        return false;
    r->classes = 0;
    for (int g = 0; g < groups; g++) {
        class_at[g] = r->classes;
        r->classes += at[group_root[g] + 1] - at[group_root[g]];
    }
    int K = r->classes;
    r->copies = grab(r, (size_t)K, sizeof(int)), r->size = grab(r, (size_t)K, sizeof(int));
    r->device = grab(r, (size_t)K, sizeof(int));
    r->dur = grab(r, (size_t)K, sizeof(double)), r->adj = grab(r, (size_t)K, sizeof(double));
    r->tail = grab(r, (size_t)K, sizeof(double)), r->rep = grab(r, (size_t)K, sizeof(int));
    r->lb_at = grab(r, (size_t)K + 1, sizeof(int)), r->lb = grab(r, (size_t)n, sizeof(double));
    if (!r->copies || !r->size || !r->device || !r->dur || !r->adj || !r->tail || !r->rep || !r->lb_at || !r->lb)
        return false;
    for (int i = 0; i < n; i++) {
        int c = root(parent, i), g = group_of[c];
        r->cls[i] = class_at[g] + pos[i];
        if (c == group_root[g]) {
            int k = r->cls[i];
            r->rep[k] = i, r->copies[k] = count[g], r->size[k] = at[c + 1] - at[c];
            r->device[k] = sc_forced_device(p, i);
            r->dur[k] = p->duration[i], r->adj[k] = p->adjust[i], r->tail[k] = tail ? tail[i] : 0;
        }
    }
    r->lb_at[0] = 0;
    for (int k = 0; k < K; k++)
        r->lb_at[k + 1] = r->lb_at[k] + r->copies[k];
    memset(r->lb, 0, (size_t)n * sizeof(double));
    return true;
}

/* The template's edges, topological order, same-device ancestors, and per
 * device the lowering classes and whether rule 4 applies. */
static bool find_template(ranks *r)
{
    const pp_sched_problem *p = r->p;
    int K = r->classes, D = p->device_count;
    r->pred_at = grab(r, (size_t)K + 1, sizeof(int)), r->order = grab(r, (size_t)K, sizeof(int));
    r->anc_at = grab(r, (size_t)K + 1, sizeof(int));
    r->low_at = grab(r, (size_t)D + 1, sizeof(int)), r->low = grab(r, (size_t)K, sizeof(int));
    r->memory_ok = grab(r, (size_t)D, sizeof(bool)), r->weights = grab(r, (size_t)D, sizeof(double));
    int edges = 0;
    for (int k = 0; k < K; k++)
        edges += p->pred_start[r->rep[k] + 1] - p->pred_start[r->rep[k]];
    r->pred_cls = grab(r, (size_t)edges, sizeof(int)), r->pred_lag = grab(r, (size_t)edges, sizeof(double));
    if (!r->pred_at || !r->order || !r->anc_at || !r->low_at || !r->low || !r->memory_ok || !r->weights ||
        !r->pred_cls || !r->pred_lag)
        return false;
    r->pred_at[0] = 0;
    for (int k = 0; k < K; k++) {
        int v = r->rep[k], m = r->pred_at[k];
        for (int j = p->pred_start[v]; j < p->pred_start[v + 1]; j++, m++) {
            int e = p->pred_dep[j], u = p->dep_from[e];
            r->pred_cls[m] = r->cls[u], r->pred_lag[m] = p->duration[u] + sc_dep_delay(p, e);
        }
        r->pred_at[k + 1] = m;
    }
    int placed = 0;
    for (int j = 0; j < r->n; j++) {
        int v = p->topo_order[j];
        if (r->rep[r->cls[v]] == v)
            r->order[placed++] = r->cls[v];
    }
    unsigned char *mark = NULL;
    int *list = grab(r, (size_t)K, sizeof(int));
    if (!list)
        return false;
    /* Per class, its ancestors by a search back over the template's edges:
     * for the templates of more than one copy that are small enough. */
    int *anc_count = grab(r, (size_t)K, sizeof(int));
    int **anc_of = grab(r, (size_t)K, sizeof(int *));
    if (!anc_count || !anc_of)
        return false;
    for (int j = 0; j < K; j++) {
        int k = r->order[j], count = 0;
        anc_count[k] = 0, anc_of[k] = NULL;
        if (r->size[k] > ANCESTOR_TEMPLATE || r->copies[k] < 2 || r->device[k] < 0)
            continue;
        if (!mark) {
            mark = grab(r, (size_t)K, 1);
            if (!mark)
                return false;
            memset(mark, 0, (size_t)K);
        }
        int head = 0;
        for (int m = r->pred_at[k]; m < r->pred_at[k + 1]; m++)
            if (!mark[r->pred_cls[m]])
                mark[r->pred_cls[m]] = 1, list[count++] = r->pred_cls[m];
        while (head < count) {
            int a = list[head++];
            for (int m = r->pred_at[a]; m < r->pred_at[a + 1]; m++)
                if (!mark[r->pred_cls[m]])
                    mark[r->pred_cls[m]] = 1, list[count++] = r->pred_cls[m];
        }
        int same = 0;
        for (int m = 0; m < count; m++) {
            mark[list[m]] = 0;
            if (r->device[list[m]] == r->device[k])
                list[same++] = list[m];
        }
        anc_of[k] = grab(r, (size_t)same, sizeof(int));
        if (!anc_of[k])
            return false;
        memcpy(anc_of[k], list, (size_t)same * sizeof(int));
        anc_count[k] = same;
    }
    r->anc_at[0] = 0;
    for (int k = 0; k < K; k++)
        r->anc_at[k + 1] = r->anc_at[k] + anc_count[k];
    r->anc = grab(r, (size_t)r->anc_at[K], sizeof(int));
    if (!r->anc)
        return false;
    for (int k = 0; k < K; k++)
        if (anc_count[k])
            memcpy(r->anc + r->anc_at[k], anc_of[k], (size_t)anc_count[k] * sizeof(int));
    /* Memory: every op that lowers a level must be forced onto its device
     * and take time, else rule 4 cannot tell where or when it gives back. */
    bool lowering_forced = true;
    for (int i = 0; i < r->n; i++)
        if (p->adjust[i] < 0 && (sc_forced_device(p, i) < 0 || p->duration[i] <= 0))
            lowering_forced = false;
    for (int d = 0; d < D; d++)
        r->weights[d] = 0, r->low_at[d + 1] = 0;
    for (int i = 0; i < r->n; i++)
        if (sc_forced_device(p, i) >= 0)
            r->weights[sc_forced_device(p, i)] += p->weight[i];
    for (int k = 0; k < K; k++)
        if (r->adj[k] < 0 && r->device[k] >= 0)
            r->low_at[r->device[k] + 1]++;
    r->low_at[0] = 0;
    for (int d = 0; d < D; d++)
        r->low_at[d + 1] += r->low_at[d];
    int *fill = grab(r, (size_t)D, sizeof(int));
    if (!fill)
        return false;
    memcpy(fill, r->low_at, (size_t)D * sizeof(int));
    for (int k = 0; k < K; k++)
        if (r->adj[k] < 0 && r->device[k] >= 0)
            r->low[fill[r->device[k]]++] = k;
    for (int d = 0; d < D; d++)
        r->memory_ok[d] = lowering_forced && isfinite(p->capacity[d]);
    return true;
}

typedef struct {
    int cls, count;  /* the copies of class cls of ranks < count */
} prefix;

static double *lb_of(const ranks *r, int k)
{
    return r->lb + r->lb_at[k];
}

/* Rule 3 over the copies the prefixes name, all on one device: the most,
 * over r, of r + the durations of those whose lb >= r (0 when none). The
 * prefixes are sorted, so a merge from the top finds every r at once. */
static double machine(ranks *r, const prefix *pre, int m, int *cursor)
{
    double best = 0, work = 0;
    if (spent(r))
        return 0;
    for (int j = 0; j < m; j++)
        cursor[j] = pre[j].count - 1;
    for (;;) {
        int pick = -1;
        double top = -INFINITY;
        for (int j = 0; j < m; j++)
            if (cursor[j] >= 0 && lb_of(r, pre[j].cls)[cursor[j]] > top)
                top = lb_of(r, pre[j].cls)[cursor[j]], pick = j;
        if (pick < 0)
            return best;
        work += r->dur[pre[pick].cls];
        cursor[pick]--;
        best = fmax(best, top + work);
        r->work++;
    }
}

/* Adds copies of ranks < count of class c to the prefixes: to the one of
 * c when there is one (a lowering class may also be an ancestor: its ops
 * count once). */
static void add_prefix(prefix *pre, int *m, int c, int count)
{
    if (count <= 0)
        return;
    for (int j = 0; j < *m; j++)
        if (pre[j].cls == c) {
            pre[j].count = count > pre[j].count ? count : pre[j].count;
            return;
        }
    pre[(*m)++] = (prefix){c, count};
}

/* The n-th end of class c's copies (n >= 1), at least. */
static double nth_end(const ranks *r, int c, int n)
{
    return lb_of(r, c)[n - 1] + r->dur[c];
}

/* Rule 4 with more than two lowering classes: the least t by which the
 * copies' ends alone can give back `need`. */
static double ends_alone(ranks *r, int d, double need, double *scratch)
{
    int m = 0;
    for (int j = r->low_at[d]; j < r->low_at[d + 1]; j++)
        for (int k = 1; k <= r->copies[r->low[j]]; k++)
            scratch[m++] = nth_end(r, r->low[j], k);
    qsort(scratch, (size_t)m, sizeof *scratch, sc_by_double);
    /* Amounts by end: the j-th smallest end gives back at most the largest
     * |A| of any class, so counting every end at the largest |A| is safe. */
    double most = 0, given = 0;
    for (int j = r->low_at[d]; j < r->low_at[d + 1]; j++)
        most = fmax(most, -r->adj[r->low[j]]);
    for (int j = 0; j < m; j++) {
        given += most;
        if (given >= need)
            return scratch[j];
    }
    return 0;
}

typedef struct {
    int n1, n2;
    double t;  /* when the copies' ends alone allow it */
} counts;

static int by_t(const void *a, const void *b)
{
    double x = ((const counts *)a)->t, y = ((const counts *)b)->t;
    return (x > y) - (x < y);
}

/* Rule 4 for copy k of raising class i: pre[0..base) are rule 3's
 * prefixes. The count vectors go by their ends alone, least first: once
 * that passes the best vector's full value, none after can do better.
 * Past the budget of work, the rest count by their ends alone (less, so
 * safe). */
static double memory_rule(ranks *r, int i, int k, prefix *pre, int base, int *cursor, double *scratch,
                          counts *vec)
{
    const pp_sched_problem *p = r->p;
    int d = r->device[i];
    double need = r->weights[d] + r->adj[i] * (k + 1) - p->capacity[d] - sc_memory_slack(p->capacity[d]);
    int q = r->low_at[d + 1] - r->low_at[d];
    if (need <= 0 || q == 0)
        return 0;
    if (q > 2)
        return ends_alone(r, d, need, scratch);
    int u = r->low[r->low_at[d]], v = q == 2 ? r->low[r->low_at[d] + 1] : -1, m = 0;
    for (int n1 = q == 2 ? 0 : r->copies[u]; n1 <= r->copies[u]; n1++) {
        double rest = need + r->adj[u] * n1;
        int n2 = 0;
        /* Counts compared as doubles first: a tiny |A| makes them huge. */
        if (q == 1) {
            double n = ceil(need / -r->adj[u] - 1e-9);
            if (n > r->copies[u])
                break;
            n1 = (int)n;
        } else if (rest > 0) {
            double n = ceil(rest / -r->adj[v] - 1e-9);
            if (n > r->copies[v])
                continue;
            n2 = (int)n;
        }
        vec[m++] = (counts){n1, n2, fmax(n1 ? nth_end(r, u, n1) : 0, n2 ? nth_end(r, v, n2) : 0)};
        /* More copies of u and none of v only take longer. */
        if (n2 == 0)
            break;
    }
    qsort(vec, (size_t)m, sizeof *vec, by_t);
    double best = INFINITY;
    int j = 0;
    for (; j < m && !spent(r) && vec[j].t < best; j++) {
        int h = base;
        add_prefix(pre, &h, u, vec[j].n1);
        add_prefix(pre, &h, v, vec[j].n2);
        best = fmin(best, fmax(vec[j].t, machine(r, pre, h, cursor)));
    }
    if (j < m)
        best = fmin(best, vec[j].t);
    return isfinite(best) ? best : 0;
}

/* Rules 1 to 4 for copy k of class i. */
static double raised(ranks *r, int i, int k, prefix *pre, int *cursor, double *scratch, counts *vec)
{
    const double *lb = lb_of(r, i);
    int d = r->device[i];
    double x = lb[k];
    if (k > 0)
        x = fmax(x, lb[k - 1] + (d >= 0 ? r->dur[i] : 0));
    for (int m = r->pred_at[i]; m < r->pred_at[i + 1]; m++)
        x = fmax(x, lb_of(r, r->pred_cls[m])[k] + r->pred_lag[m]);
    if (d < 0)
        return x;
    int base = 0;
    if (k > 0)
        pre[base++] = (prefix){i, k};
    for (int m = r->anc_at[i]; m < r->anc_at[i + 1]; m++)
        pre[base++] = (prefix){r->anc[m], k + 1};
    x = fmax(x, machine(r, pre, base, cursor));
    if (r->adj[i] > 0 && r->memory_ok[d])
        x = fmax(x, memory_rule(r, i, k, pre, base, cursor, scratch, vec));
    return x;
}

/* Sets copy k of class i to x and keeps the class's ranks sorted (rule 2). */
static void set_rank(ranks *r, int i, int k, double x)
{
    double *lb = lb_of(r, i), step = r->device[i] >= 0 ? r->dur[i] : 0;
    lb[k] = x;
    for (int j = k + 1; j < r->copies[i] && lb[j] < lb[j - 1] + step; j++)
        lb[j] = lb[j - 1] + step;
}

static bool sweep(ranks *r, prefix *pre, int *cursor, double *scratch, counts *vec)
{
    int most = 0;
    bool changed = false;
    for (int k = 0; k < r->classes; k++)
        most = r->copies[k] > most ? r->copies[k] : most;
    for (int k = 0; k < most; k++)
        for (int j = 0; j < r->classes; j++) {
            int i = r->order[j];
            if (k >= r->copies[i])
                continue;
            double x = raised(r, i, k, pre, cursor, scratch, vec), old = lb_of(r, i)[k];
            if (x > old + 1e-9 * fmax(1, fabs(x))) {
                set_rank(r, i, k, x);
                changed = true;
            }
        }
    return changed;
}

/* The last copies with their tails, and per device the one-machine bound
 * over every copy's (lb, duration, tail). */
static double conclude(ranks *r, sc_job *jobs, double *scratch)
{
    const pp_sched_problem *p = r->p;
    double bound = 0;
    for (int k = 0; k < r->classes; k++)
        bound = fmax(bound, lb_of(r, k)[r->copies[k] - 1] + r->dur[k] + r->tail[k]);
    for (int d = 0; d < p->device_count; d++) {
        int n = 0;
        for (int k = 0; k < r->classes; k++)
            if (r->device[k] == d)
                for (int j = 0; j < r->copies[k]; j++)
                    jobs[n++] = (sc_job){lb_of(r, k)[j], r->dur[k], r->tail[k]};
        if (n > 0)
            bound = fmax(bound, sc_one_machine_bound(jobs, n, scratch));
    }
    return bound;
}

bool sc_find_copies(const pp_sched_problem *p, pp_arena *arena, sc_copies *out)
{
    ranks r = {.p = p, .n = p->op_count, .arena = arena};
    if (r.n == 0 || !find_classes(&r, NULL))
        return false;
    out->classes = r.classes, out->cls = r.cls, out->copies = r.copies, out->rep = r.rep;
    out->component = grab(&r, (size_t)r.n, sizeof(int));
    if (!out->component)
        return false;
    for (int i = 0; i < r.n; i++)
        out->component[i] = root(r.parent, i);
    return true;
}

double sc_rank_bound(const pp_sched_problem *p, const double *tail, const pp_deadline *deadline, bool *stopped)
{
    ranks r = {.p = p, .n = p->op_count, .deadline = deadline};
    *stopped = sc_bound_cut(deadline);
    if (r.n == 0 || *stopped || !(r.arena = pp_arena_new(0)))
        return 0;
    double bound = 0;
    if (find_classes(&r, tail) && find_template(&r)) {
        int K = r.classes, most_anc = 0;
        for (int k = 0; k < K; k++)
            most_anc = r.anc_at[k + 1] - r.anc_at[k] > most_anc ? r.anc_at[k + 1] - r.anc_at[k] : most_anc;
        prefix *pre = grab(&r, (size_t)most_anc + 3, sizeof(prefix));
        int *cursor = grab(&r, (size_t)most_anc + 3, sizeof(int));
        double *scratch = grab(&r, (size_t)r.n, sizeof(double));
        sc_job *jobs = grab(&r, (size_t)r.n, sizeof(sc_job));
        counts *vec = grab(&r, (size_t)r.n, sizeof(counts));
        if (pre && cursor && scratch && jobs && vec) {
            for (int s = 0; s < MAX_SWEEPS && !r.stopped && sweep(&r, pre, cursor, scratch, vec); s++)
                ;
            bound = conclude(&r, jobs, scratch);
        }
    }
    pp_arena_free(r.arena);
    *stopped = r.stopped;
    return bound;
}
