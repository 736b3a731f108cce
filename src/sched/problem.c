/* problem.c: building a scheduling problem and validating it. Ops, deps and
 * devices grow in plain arrays while the loader or a generator adds them;
 * pp_sched_problem_finish checks the whole and builds the adjacency and a
 * topological order every later stage relies on. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "sched/sched_internal.h"
#include "sched/load.h"

typedef struct pp_sched_builder {
    int op_cap, dep_cap, device_cap, allowed_cap, allowed_count;
    int *allowed_op;         /* (op, device) pairs in the order added */
    int *allowed_dev;
    int channel_pairs, channel_cap;
    int *channel_from, *channel_to;
    int colocated, colocate_cap;
    int *colocate_a, *colocate_b;
    bool failed;             /* an allocation failed: finish reports it */
} pp_sched_builder;

pp_sched_problem *pp_sched_problem_new(void)
{
    pp_sched_problem *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->arena = pp_arena_new(0);
    p->builder = calloc(1, sizeof *p->builder);
    if (!p->arena || !p->builder) {
        pp_sched_problem_free(p);
        return NULL;
    }
    return p;
}

static void builder_free(pp_sched_problem *p)
{
    pp_sched_builder *b = p->builder;
    if (!b)
        return;
    free(b->allowed_op);
    free(b->allowed_dev);
    free(b->channel_from);
    free(b->channel_to);
    free(b->colocate_a);
    free(b->colocate_b);
    free(b);
    p->builder = NULL;
}

void pp_sched_problem_free(pp_sched_problem *p)
{
    if (!p)
        return;
    builder_free(p);
    free(p->op_name);
    free(p->op_kind);
    free(p->duration);
    free(p->weight);
    free(p->adjust);
    free(p->dep_from);
    free(p->dep_to);
    free(p->dep_comm);
    free(p->device_name);
    free(p->capacity);
    pp_arena_free(p->arena);
    free(p);
}

bool pp_sched_set_time_unit(pp_sched_problem *p, const char *unit)
{
    return (p->time_unit = pp_arena_strdup(p->arena, unit)) != NULL;
}

int pp_sched_add_device(pp_sched_problem *p, const char *name, double capacity)
{
    pp_sched_builder *b = p->builder;
    int cap = b->device_cap, n = p->device_count + 1;
    char *copy = pp_arena_strdup(p->arena, name);
    if (!copy || !pp_grow((void **)&p->device_name, &cap, n, sizeof(char *)) ||
        !pp_grow((void **)&p->capacity, &b->device_cap, n, sizeof(double))) {
        b->failed = true;
        return -1;
    }
    p->device_name[p->device_count] = copy;
    p->capacity[p->device_count] = capacity;
    return p->device_count++;
}

int pp_sched_add_op(pp_sched_problem *p, const char *name, const char *kind,
                    double duration, double weight, double adjust)
{
    pp_sched_builder *b = p->builder;
    int n = p->op_count + 1, c1 = b->op_cap, c2 = b->op_cap, c3 = b->op_cap, c4 = b->op_cap;
    char *name_copy = pp_arena_strdup(p->arena, name);
    char *kind_copy = pp_arena_strdup(p->arena, kind ? kind : "op");
    if (!name_copy || !kind_copy || !pp_grow((void **)&p->op_name, &c1, n, sizeof(char *)) ||
        !pp_grow((void **)&p->op_kind, &c2, n, sizeof(char *)) ||
        !pp_grow((void **)&p->duration, &c3, n, sizeof(double)) ||
        !pp_grow((void **)&p->weight, &c4, n, sizeof(double)) ||
        !pp_grow((void **)&p->adjust, &b->op_cap, n, sizeof(double))) {
        b->failed = true;
        return -1;
    }
    int i = p->op_count++;
    p->op_name[i] = name_copy;
    p->op_kind[i] = kind_copy;
    p->duration[i] = duration;
    p->weight[i] = weight;
    p->adjust[i] = adjust;
    return i;
}

void pp_sched_allow(pp_sched_problem *p, int op, int device)
{
    pp_sched_builder *b = p->builder;
    int n = b->allowed_count + 1, cap = b->allowed_cap;
    if (!pp_grow((void **)&b->allowed_op, &cap, n, sizeof(int)) ||
        !pp_grow((void **)&b->allowed_dev, &b->allowed_cap, n, sizeof(int))) {
        b->failed = true;
        return;
    }
    b->allowed_op[b->allowed_count] = op;
    b->allowed_dev[b->allowed_count++] = device;
}

int pp_sched_add_dep(pp_sched_problem *p, int from, int to, double comm)
{
    pp_sched_builder *b = p->builder;
    int n = p->dep_count + 1, c1 = b->dep_cap, c2 = b->dep_cap;
    if (!pp_grow((void **)&p->dep_from, &c1, n, sizeof(int)) ||
        !pp_grow((void **)&p->dep_to, &c2, n, sizeof(int)) ||
        !pp_grow((void **)&p->dep_comm, &b->dep_cap, n, sizeof(double))) {
        b->failed = true;
        return -1;
    }
    p->dep_from[p->dep_count] = from;
    p->dep_to[p->dep_count] = to;
    p->dep_comm[p->dep_count] = comm;
    return p->dep_count++;
}

void pp_sched_add_channel(pp_sched_problem *p, int from_device, int to_device)
{
    pp_sched_builder *b = p->builder;
    int n = b->channel_pairs + 1, cap = b->channel_cap;
    if (!pp_grow((void **)&b->channel_from, &cap, n, sizeof(int)) ||
        !pp_grow((void **)&b->channel_to, &b->channel_cap, n, sizeof(int))) {
        b->failed = true;
        return;
    }
    b->channel_from[b->channel_pairs] = from_device;
    b->channel_to[b->channel_pairs++] = to_device;
}

void pp_sched_colocate(pp_sched_problem *p, int a, int b)
{
    pp_sched_builder *bl = p->builder;
    int n = bl->colocated + 1, cap = bl->colocate_cap;
    if (!pp_grow((void **)&bl->colocate_a, &cap, n, sizeof(int)) ||
        !pp_grow((void **)&bl->colocate_b, &bl->colocate_cap, n, sizeof(int))) {
        bl->failed = true;
        return;
    }
    bl->colocate_a[bl->colocated] = a;
    bl->colocate_b[bl->colocated++] = b;
}

int pp_sched_find_op(const pp_sched_problem *p, const char *name)
{
    for (int i = 0; i < p->op_count; i++)
        if (strcmp(p->op_name[i], name) == 0)
            return i;
    return -1;
}

int pp_sched_find_device(const pp_sched_problem *p, const char *name)
{
    for (int d = 0; d < p->device_count; d++)
        if (strcmp(p->device_name[d], name) == 0)
            return d;
    return -1;
}

bool pp_sched_op_allowed(const pp_sched_problem *p, int op, int device)
{
    int a = p->allowed_start[op], z = p->allowed_start[op + 1];
    if (a == z)
        return device >= 0 && device < p->device_count;
    for (int k = a; k < z; k++)
        if (p->allowed_device[k] == device)
            return true;
    return false;
}

bool pp_sched_has_channel(const pp_sched_problem *p, int from_device, int to_device)
{
    return p->channel[from_device * p->device_count + to_device] != 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reports the first name that appears twice. */
static pp_status check_unique(char **names, int n, const char *what, const char *where, pp_error *err)
{
    char **sorted = malloc((size_t)(n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    if (n)
        memcpy(sorted, names, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, by_name);
    for (int i = 1; i < n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            pp_error_set(err, PP_EINPUT, "%s: %s name \"%s\" is used twice", where, what, sorted[i]);
            free(sorted);
            return PP_EINPUT;
        }
    free(sorted);
    return PP_OK;
}

static bool non_negative(double x) { return isfinite(x) && x >= 0; }

/* Every time in a schedule is a sum of durations and comm times, and every
 * memory level a sum of weights and adjustments: sums that overflow are the
 * input's fault, so they are refused here, naming the number that tips them
 * over (ops[i] and deps[e] are the loader's positions, in insertion order). */
static pp_status check_sums(const pp_sched_problem *p, const char *where, pp_error *err)
{
    double time = 0, memory = 0;
    for (int i = 0; i < p->op_count; i++) {
        time += p->duration[i];
        memory += p->weight[i] + fabs(p->adjust[i]);
        if (!isfinite(time))
            return pp_error_set(err, PP_EINPUT, "%s: ops[%d].duration: op \"%s\": the durations add up past "
                                "the largest number (%g)", where, i, p->op_name[i], DBL_MAX);
        if (!isfinite(memory))
            return pp_error_set(err, PP_EINPUT, "%s: ops[%d]: op \"%s\": the weights and adjustments add up "
                                "past the largest number (%g)", where, i, p->op_name[i], DBL_MAX);
    }
    for (int e = 0; e < p->dep_count; e++) {
        time += p->dep_comm[e];
        if (!isfinite(time))
            return pp_error_set(err, PP_EINPUT, "%s: deps[%d].comm: the durations and comm times add up past "
                                "the largest number (%g)", where, e, DBL_MAX);
    }
    return PP_OK;
}

static pp_status check_numbers(const pp_sched_problem *p, const char *where, pp_error *err)
{
    if (p->device_count == 0)
        return pp_error_set(err, PP_EINPUT, "%s: the problem has no device", where);
    for (int d = 0; d < p->device_count; d++)
        if (isnan(p->capacity[d]) || p->capacity[d] < 0)
            return pp_error_set(err, PP_EINPUT, "%s: device \"%s\": memory must be a number >= 0",
                                where, p->device_name[d]);
    for (int i = 0; i < p->op_count; i++) {
        if (!non_negative(p->duration[i]) || !non_negative(p->weight[i]) || !isfinite(p->adjust[i]))
            return pp_error_set(err, PP_EINPUT,
                                "%s: op \"%s\": duration and weight must be finite numbers >= 0, "
                                "adjust a finite number", where, p->op_name[i]);
    }
    for (int e = 0; e < p->dep_count; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (u < 0 || u >= p->op_count || v < 0 || v >= p->op_count)
            return pp_error_set(err, PP_EINPUT, "%s: dependency %d names an op that does not exist", where, e);
        if (u == v)
            return pp_error_set(err, PP_EINPUT, "%s: op \"%s\" depends on itself", where, p->op_name[u]);
        if (!non_negative(p->dep_comm[e]))
            return pp_error_set(err, PP_EINPUT, "%s: dependency \"%s\" -> \"%s\": comm must be a finite number >= 0",
                                where, p->op_name[u], p->op_name[v]);
    }
    return check_sums(p, where, err);
}

static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The same dependency twice would mean two transfers for one edge, which no
 * schedule file could tell apart: refused, as the loader does. */
static pp_status check_repeated_deps(const pp_sched_problem *p, const char *where, pp_error *err)
{
    int *pairs = malloc(((size_t)p->dep_count + 1) * 2 * sizeof(int));
    if (!pairs)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    for (int e = 0; e < p->dep_count; e++)
        pairs[2 * e] = p->dep_from[e], pairs[2 * e + 1] = p->dep_to[e];
    qsort(pairs, (size_t)p->dep_count, 2 * sizeof(int), by_pair);
    pp_status st = PP_OK;
    for (int e = 1; e < p->dep_count && st == PP_OK; e++)
        if (pairs[2 * e] == pairs[2 * e - 2] && pairs[2 * e + 1] == pairs[2 * e - 1])
            st = pp_error_set(err, PP_EINPUT, "%s: dependency \"%s\" -> \"%s\" is given twice", where,
                              p->op_name[pairs[2 * e]], p->op_name[pairs[2 * e + 1]]);
    free(pairs);
    return st;
}

/* Sorts (op, device) pairs by op into the CSR allowed lists, dropping repeats. */
static pp_status build_allowed(pp_sched_problem *p, const char *where, pp_error *err)
{
    pp_sched_builder *b = p->builder;
    p->allowed_start = pp_arena_calloc(p->arena, (size_t)p->op_count + 1, sizeof(int));
    p->allowed_device = pp_arena_alloc(p->arena, (size_t)(b->allowed_count + 1) * sizeof(int));
    if (!p->allowed_start || !p->allowed_device)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    for (int k = 0; k < b->allowed_count; k++) {
        int op = b->allowed_op[k], d = b->allowed_dev[k];
        if (op < 0 || op >= p->op_count || d < 0 || d >= p->device_count)
            return pp_error_set(err, PP_EINPUT, "%s: an allowed device names an op or device that does not exist", where);
        p->allowed_start[op + 1]++;
    }
    for (int i = 0; i < p->op_count; i++)
        p->allowed_start[i + 1] += p->allowed_start[i];
    int *fill = calloc((size_t)p->op_count + 1, sizeof(int));
    if (!fill)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    for (int k = 0; k < b->allowed_count; k++) {
        int op = b->allowed_op[k], d = b->allowed_dev[k], at = p->allowed_start[op];
        bool seen = false;
        for (int j = at; j < at + fill[op]; j++)
            seen |= p->allowed_device[j] == d;
        if (!seen)
            p->allowed_device[at + fill[op]++] = d;
    }
    /* Close the gaps left by repeats. */
    int out = 0;
    for (int i = 0; i < p->op_count; i++) {
        int at = p->allowed_start[i];
        p->allowed_start[i] = out;
        for (int j = 0; j < fill[i]; j++)
            p->allowed_device[out++] = p->allowed_device[at + j];
    }
    p->allowed_start[p->op_count] = out;
    free(fill);
    return PP_OK;
}

static pp_status build_channels(pp_sched_problem *p, const char *where, pp_error *err)
{
    pp_sched_builder *b = p->builder;
    int n = p->device_count;
    p->channel = pp_arena_calloc(p->arena, (size_t)n * n, 1);
    if (!p->channel)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    for (int a = 0; a < n; a++)
        for (int c = 0; c < n; c++)
            p->channel[a * n + c] = b->channel_pairs == 0 && a != c;
    for (int k = 0; k < b->channel_pairs; k++) {
        int a = b->channel_from[k], c = b->channel_to[k];
        if (a < 0 || a >= n || c < 0 || c >= n)
            return pp_error_set(err, PP_EINPUT, "%s: a channel names a device that does not exist", where);
        if (a == c)
            return pp_error_set(err, PP_EINPUT, "%s: channel from device \"%s\" to itself", where,
                                p->device_name[a]);
        p->channel[a * n + c] = 1;
    }
    return PP_OK;
}

static int group_of(int *group, int i)
{
    while (group[i] != i)
        i = group[i] = group[group[i]];
    return i;
}

/* Two equal lists allow the same devices, at once; others are compared
 * device by device (an empty list allows them all). */
static bool same_devices(const pp_sched_problem *p, int a, int b)
{
    int *s = p->allowed_start, n = s[a + 1] - s[a];
    if (a == b || (n == s[b + 1] - s[b] &&
                   memcmp(p->allowed_device + s[a], p->allowed_device + s[b], (size_t)n * sizeof(int)) == 0))
        return true;
    for (int d = 0; d < p->device_count; d++)
        if (pp_sched_op_allowed(p, a, d) != pp_sched_op_allowed(p, b, d))
            return false;
    return true;
}

/* Union-find over the colocated pairs, each group named by its first op so
 * that a solver reads one device per group there. */
static pp_status build_groups(pp_sched_problem *p, const char *where, pp_error *err)
{
    pp_sched_builder *b = p->builder;
    p->group = pp_arena_alloc(p->arena, ((size_t)p->op_count + 1) * sizeof(int));
    if (!p->group)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    for (int i = 0; i < p->op_count; i++)
        p->group[i] = i;
    for (int k = 0; k < b->colocated; k++) {
        int x = b->colocate_a[k], y = b->colocate_b[k];
        if (x < 0 || x >= p->op_count || y < 0 || y >= p->op_count)
            return pp_error_set(err, PP_EINPUT, "%s: a colocation names an op that does not exist", where);
        x = group_of(p->group, x), y = group_of(p->group, y);
        p->group[x > y ? x : y] = x < y ? x : y;
    }
    for (int i = 0; i < p->op_count; i++) {
        p->group[i] = group_of(p->group, i);
        if (!same_devices(p, i, p->group[i]))
            return pp_error_set(err, PP_EINPUT, "%s: op \"%s\" must share a device with \"%s\" but may run on "
                                "other devices", where, p->op_name[i], p->op_name[p->group[i]]);
    }
    return PP_OK;
}

/* CSR lists of deps by source and by target. */
static pp_status build_adjacency(pp_sched_problem *p, const char *where, pp_error *err)
{
    int n = p->op_count, m = p->dep_count;
    p->succ_start = pp_arena_calloc(p->arena, (size_t)n + 1, sizeof(int));
    p->pred_start = pp_arena_calloc(p->arena, (size_t)n + 1, sizeof(int));
    p->succ_dep = pp_arena_alloc(p->arena, (size_t)(m + 1) * sizeof(int));
    p->pred_dep = pp_arena_alloc(p->arena, (size_t)(m + 1) * sizeof(int));
    int *fill = calloc((size_t)n * 2 + 2, sizeof(int));
    if (!p->succ_start || !p->pred_start || !p->succ_dep || !p->pred_dep || !fill) {
        free(fill);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    }
    for (int e = 0; e < m; e++) {
        p->succ_start[p->dep_from[e] + 1]++;
        p->pred_start[p->dep_to[e] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        p->succ_start[i + 1] += p->succ_start[i];
        p->pred_start[i + 1] += p->pred_start[i];
    }
    for (int e = 0; e < m; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        p->succ_dep[p->succ_start[u] + fill[u]++] = e;
        p->pred_dep[p->pred_start[v] + fill[n + 1 + v]++] = e;
    }
    free(fill);
    return PP_OK;
}

/* Kahn's algorithm; on a cycle, walks predecessors among the leftover ops to
 * name one cycle in the message. */
static pp_status build_topo_order(pp_sched_problem *p, const char *where, pp_error *err)
{
    int n = p->op_count;
    p->topo_order = pp_arena_alloc(p->arena, (size_t)(n + 1) * sizeof(int));
    int *indegree = calloc((size_t)n + 1, sizeof(int));
    if (!p->topo_order || !indegree) {
        free(indegree);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    }
    for (int e = 0; e < p->dep_count; e++)
        indegree[p->dep_to[e]]++;
    int head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        if (indegree[i] == 0)
            p->topo_order[tail++] = i;
    while (head < tail) {
        int u = p->topo_order[head++];
        for (int k = p->succ_start[u]; k < p->succ_start[u + 1]; k++) {
            int v = p->dep_to[p->succ_dep[k]];
            if (--indegree[v] == 0)
                p->topo_order[tail++] = v;
        }
    }
    if (tail == n) {
        free(indegree);
        return PP_OK;
    }
    /* Every leftover op has a leftover predecessor: walking back n steps lands
     * on a cycle; walk it once more to print it. */
    int at = 0;
    while (indegree[at] == 0)
        at++;
    for (int step = 0; step < n; step++)
        for (int k = p->pred_start[at]; k < p->pred_start[at + 1]; k++) {
            int u = p->dep_from[p->pred_dep[k]];
            if (indegree[u] > 0) {
                at = u;
                break;
            }
        }
    char path[400];
    int len = snprintf(path, sizeof path, "%s", p->op_name[at]);
    int cur = at, hops = 0;
    do {
        for (int k = p->pred_start[cur]; k < p->pred_start[cur + 1]; k++) {
            int u = p->dep_from[p->pred_dep[k]];
            if (indegree[u] > 0) {
                cur = u;
                break;
            }
        }
        if (len < (int)sizeof path - 1)
            len += snprintf(path + len, sizeof path - (size_t)len, " <- %s", p->op_name[cur]);
    } while (cur != at && ++hops < n);
    free(indegree);
    return pp_error_set(err, PP_EINPUT, "%s: the dependencies form a cycle: %s", where, path);
}

/* How many devices op may run on, and the k-th of them: the checks below
 * go through these lists, not every device for every op (at 64 devices and
 * 49,152 deps the pairs of devices took a fifth of reading a problem). */
static int device_choices(const pp_sched_problem *p, int op)
{
    int n = p->allowed_start[op + 1] - p->allowed_start[op];
    return n > 0 ? n : p->device_count;
}

static int device_choice(const pp_sched_problem *p, int op, int k)
{
    int a = p->allowed_start[op];
    return a == p->allowed_start[op + 1] ? k : p->allowed_device[a + k];
}

static bool fits_somewhere(const pp_sched_problem *p, int op)
{
    for (int k = 0; k < device_choices(p, op); k++)
        if (p->weight[op] <= p->capacity[device_choice(p, op, k)])
            return true;
    return false;
}

/* Some device of u and some of v are the same or joined by a channel. */
static bool joined(const pp_sched_problem *p, int u, int v)
{
    for (int i = 0; i < device_choices(p, u); i++)
        for (int k = 0; k < device_choices(p, v); k++) {
            int a = device_choice(p, u, i), c = device_choice(p, v, k);
            if (a == c || pp_sched_has_channel(p, a, c))
                return true;
        }
    return false;
}

/* Weights forced onto one device must fit it; a dependency between two ops
 * forced onto different devices needs a channel between them. */
static pp_status check_forced(const pp_sched_problem *p, const char *where, pp_error *err)
{
    int n = p->device_count;
    double *forced = calloc((size_t)n, sizeof(double));
    if (!forced)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", where);
    pp_status st = PP_OK;
    for (int i = 0; i < p->op_count && st == PP_OK; i++) {
        int a = p->allowed_start[i], z = p->allowed_start[i + 1];
        if (z - a == 1)
            forced[p->allowed_device[a]] += p->weight[i];
        if (!fits_somewhere(p, i))
            st = pp_error_set(err, PP_EINPUT, "%s: op \"%s\": its weight %g fits on none of its devices",
                              where, p->op_name[i], p->weight[i]);
    }
    for (int d = 0; d < n && st == PP_OK; d++)
        if (forced[d] > p->capacity[d])
            st = pp_error_set(err, PP_EINPUT,
                              "%s: device \"%s\": memory %g is below the %g of weights forced onto it",
                              where, p->device_name[d], p->capacity[d], forced[d]);
    for (int e = 0; e < p->dep_count && st == PP_OK; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (!joined(p, u, v))
            st = pp_error_set(err, PP_EINPUT,
                              "%s: dependency \"%s\" -> \"%s\": no channel joins the devices these ops may run on",
                              where, p->op_name[u], p->op_name[v]);
    }
    free(forced);
    return st;
}

pp_status pp_sched_problem_finish(pp_sched_problem *p, const char *where, pp_error *err)
{
    if (!where)
        where = "problem";
    if (p->builder->failed)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory while building the problem", where);
    pp_status st;
    if ((st = check_unique(p->device_name, p->device_count, "device", where, err)) ||
        (st = check_unique(p->op_name, p->op_count, "op", where, err)) ||
        (st = check_numbers(p, where, err)) || (st = check_repeated_deps(p, where, err)) ||
        (st = build_allowed(p, where, err)) || (st = build_groups(p, where, err)) ||
        (st = build_channels(p, where, err)) || (st = build_adjacency(p, where, err)) ||
        (st = build_topo_order(p, where, err)) || (st = check_forced(p, where, err)))
        return st;
    builder_free(p);
    return PP_OK;
}

/* Field by field, for round-trip checks of the writers and readers. */
bool sc_problem_equal(const pp_sched_problem *a, const pp_sched_problem *b)
{
    int n = a->op_count, m = a->dep_count, d = a->device_count;
    if (n != b->op_count || m != b->dep_count || d != b->device_count ||
        memcmp(a->allowed_start, b->allowed_start, (size_t)(n + 1) * sizeof(int)) != 0 ||
        memcmp(a->allowed_device, b->allowed_device, (size_t)a->allowed_start[n] * sizeof(int)) != 0 ||
        memcmp(a->channel, b->channel, (size_t)d * d) != 0 ||
        memcmp(a->group, b->group, (size_t)n * sizeof(int)) != 0)
        return false;
    for (int i = 0; i < n; i++)
        if (strcmp(a->op_name[i], b->op_name[i]) || strcmp(a->op_kind[i], b->op_kind[i]) ||
            a->duration[i] != b->duration[i] || a->weight[i] != b->weight[i] || a->adjust[i] != b->adjust[i])
            return false;
    for (int e = 0; e < m; e++)
        if (a->dep_from[e] != b->dep_from[e] || a->dep_to[e] != b->dep_to[e] || a->dep_comm[e] != b->dep_comm[e])
            return false;
    for (int k = 0; k < d; k++)
        if (strcmp(a->device_name[k], b->device_name[k]) || a->capacity[k] != b->capacity[k])
            return false;
    return true;
}
