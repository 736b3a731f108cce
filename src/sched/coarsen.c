/* coarsen.c: Algorithm 1 of paper 002 section IV. Ops (groups of fine ops)
 * merge greedily: first chain links (GetCandidateEdge: u -> v where u has
 * no other output and v no other input, transitive edges set aside), then
 * pairs with no path between them and other links (GetCandidateNonEdge,
 * widened, see collect_pairs), alternating until the target size is reached
 * or nothing may merge. Then the coarse problem is built, and sc_expand
 * turns its schedules back into fine ones.
 *
 * The graph of groups keeps every dependency, transitive ones included (they
 * carry comm); "after removing topologically redundant edges" is answered
 * with a reachability matrix instead, one bit per pair of groups, so memory
 * grows as op_count^2 / 8 bytes (0.5 MB at 2000 ops, 50 MB at 20000). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "sched/coarsen.h"
#include "sched/sched_internal.h"

/* Thresholds, as multiples of the mean coarse op (total over target). Merging
 * smallest-first under a cap C ends with every mergeable pair summing above
 * C, so about 2 * total / C groups remain: 2 * mean is the smallest cap that
 * can still reach the target, and non-edge merges (which may lengthen the
 * critical path, so they are the riskier kind) get it. Edge merges join a
 * chain link, which lengthens no path, and may grow twice as large. The same
 * multiples bound the memory footprint of ops that may land on a device of
 * finite capacity: weight plus the larger of the highest rise of the level
 * inside the group and what it frees (a coarse op frees memory only at its
 * end, so one that frees much holds it long), so that memory-heavy ops do
 * not pile up in a few coarse ops. And such an op's footprint is at most
 * CAPACITY_SHARE of the smallest finite capacity it may use: a device can
 * then hold four of them, which leaves a schedule room to interleave. In
 * tests/sched/test_coarsen.c coarse ops of a third of a device made
 * memory-limited random problems unschedulable for a list scheduler, and
 * coarse ops freeing four activations deadlocked 1F1B pipelines. */
#define EDGE_SHARE 4.0
#define PAIR_SHARE 2.0
#define CAPACITY_SHARE 0.25
#define BATCH 64

typedef struct {
    int *at;
    int n, cap;
} list;

typedef struct {
    int first, second;  /* the group whose fine ops run first, then the other */
    bool linked;        /* first -> second is a dependency */
    double growth;      /* how far the longest path through the merged op exceeds the critical path */
    double dur;
} candidate;

typedef struct {
    candidate *at;
    int n, cap;
} pool;

typedef struct {
    const pp_sched_problem *p;
    int n, words, dev_words, alive_count;
    unsigned char *alive;
    list *succ, *pred;       /* neighbouring groups, each once */
    uint64_t *desc;          /* row g: the groups g reaches by a path */
    uint64_t *mask;          /* row g: the devices g may run on */
    uint64_t *hop;           /* row d: device d and the devices it has a channel to */
    uint64_t *finite;        /* devices of finite capacity */
    uint64_t *both;          /* scratch: the mask of a candidate merge */
    double *dur, *weight, *adjust;
    double *peak;            /* highest prefix sum of adjust over the members, at least 0 */
    int *first, *last, *next; /* members as linked lists, in run order */
    double *forced;          /* per device: weight of the groups that may run only there */
    double *head, *tail;     /* longest paths before and after each group, durations only */
    int *hint_next;          /* fine op -> the next fine op on its device in the hint; NULL without one */
    int *queue, *count;
    pp_keyed *sorted;
    pool pool;               /* one scan's candidates */
    unsigned char *touched;  /* groups merged in the current batch */
    double edge_dur, pair_dur, edge_mem, pair_mem;
    bool strict_memory;
    bool failed;
} merger;

static bool has(const uint64_t *row, int i) { return (row[i >> 6] >> (i & 63)) & 1; }
static void set(uint64_t *row, int i) { row[i >> 6] |= (uint64_t)1 << (i & 63); }
static void clear(uint64_t *row, int i) { row[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
static uint64_t *desc_row(const merger *m, int g) { return m->desc + (size_t)g * m->words; }
static uint64_t *mask_row(const merger *m, int g) { return m->mask + (size_t)g * m->dev_words; }

static bool intersects(const uint64_t *a, const uint64_t *b, int words)
{
    for (int k = 0; k < words; k++)
        if (a[k] & b[k])
            return true;
    return false;
}

static bool same_bits(const uint64_t *a, const uint64_t *b, int words)
{
    return memcmp(a, b, (size_t)words * sizeof *a) == 0;
}

/* The only device in the mask, or -1 when there are none or several. */
static int only_device(const uint64_t *mask, int words)
{
    int found = -1;
    for (int k = 0; k < words; k++) {
        if (!mask[k])
            continue;
        if (found >= 0 || (mask[k] & (mask[k] - 1)))
            return -1;
        found = k * 64 + __builtin_ctzll(mask[k]);
    }
    return found;
}

static bool list_has(const list *l, int x)
{
    for (int k = 0; k < l->n; k++)
        if (l->at[k] == x)
            return true;
    return false;
}

static void list_add(merger *m, list *l, int x)
{
    if (list_has(l, x))
        return;
    if (!pp_grow((void **)&l->at, &l->cap, l->n + 1, sizeof *l->at)) {
        m->failed = true;
        return;
    }
    l->at[l->n++] = x;
}

static void list_remove(list *l, int x)
{
    for (int k = 0; k < l->n; k++)
        if (l->at[k] == x) {
            memmove(l->at + k, l->at + k + 1, (size_t)(l->n - k - 1) * sizeof *l->at);
            l->n--;
            return;
        }
}

static void merger_free(merger *m)
{
    for (int g = 0; m->succ && g < m->n; g++)
        free(m->succ[g].at);
    for (int g = 0; m->pred && g < m->n; g++)
        free(m->pred[g].at);
    free(m->succ);
    free(m->pred);
    free(m->alive);
    free(m->desc);
    free(m->mask);
    free(m->hop);
    free(m->finite);
    free(m->both);
    free(m->dur);
    free(m->weight);
    free(m->adjust);
    free(m->peak);
    free(m->first);
    free(m->last);
    free(m->next);
    free(m->forced);
    free(m->head);
    free(m->hint_next);
    free(m->tail);
    free(m->queue);
    free(m->count);
    free(m->sorted);
    free(m->pool.at);
    free(m->touched);
}

static bool merger_alloc(merger *m)
{
    size_t n = (size_t)m->n + 1, D = (size_t)m->p->device_count;
    m->succ = calloc(n, sizeof *m->succ);
    m->pred = calloc(n, sizeof *m->pred);
    m->alive = calloc(n, 1);
    m->desc = calloc(n * (size_t)m->words, sizeof *m->desc);
    m->mask = calloc(n * (size_t)m->dev_words, sizeof *m->mask);
    m->hop = calloc(D * (size_t)m->dev_words, sizeof *m->hop);
    m->finite = calloc((size_t)m->dev_words, sizeof *m->finite);
    m->both = calloc((size_t)m->dev_words, sizeof *m->both);
    m->dur = malloc(n * sizeof *m->dur);
    m->weight = malloc(n * sizeof *m->weight);
    m->adjust = malloc(n * sizeof *m->adjust);
    m->peak = malloc(n * sizeof *m->peak);
    m->first = malloc(n * sizeof *m->first);
    m->last = malloc(n * sizeof *m->last);
    m->next = malloc(n * sizeof *m->next);
    m->forced = calloc(D, sizeof *m->forced);
    m->head = malloc(n * sizeof *m->head);
    m->tail = malloc(n * sizeof *m->tail);
    m->queue = malloc(n * sizeof *m->queue);
    m->count = malloc(n * sizeof *m->count);
    m->sorted = malloc(n * sizeof *m->sorted);
    m->touched = malloc(n);
    return m->succ && m->pred && m->alive && m->desc && m->mask && m->hop && m->finite && m->both &&
           m->dur && m->weight && m->adjust && m->peak && m->first && m->last && m->next && m->forced &&
           m->head && m->tail && m->queue && m->count && m->sorted && m->touched;
}

static void init_devices(merger *m)
{
    const pp_sched_problem *p = m->p;
    for (int d = 0; d < p->device_count; d++) {
        uint64_t *row = m->hop + (size_t)d * m->dev_words;
        for (int c = 0; c < p->device_count; c++)
            if (c == d || pp_sched_has_channel(p, d, c))
                set(row, c);
        if (isfinite(p->capacity[d]))
            set(m->finite, d);
    }
}

/* One group per fine op, with the fine problem's numbers. */
static void init_groups(merger *m)
{
    const pp_sched_problem *p = m->p;
    m->alive_count = m->n;
    for (int i = 0; i < m->n; i++) {
        m->alive[i] = 1;
        m->dur[i] = p->duration[i];
        m->weight[i] = p->weight[i];
        m->adjust[i] = p->adjust[i];
        m->peak[i] = fmax(0, p->adjust[i]);
        m->first[i] = m->last[i] = i;
        m->next[i] = -1;
        m->strict_memory |= p->duration[i] == 0 && p->adjust[i] < 0;
        for (int d = 0; d < p->device_count; d++)
            if (pp_sched_op_allowed(p, i, d))
                set(mask_row(m, i), d);
        int only = only_device(mask_row(m, i), m->dev_words);
        if (only >= 0)
            m->forced[only] += p->weight[i];
    }
    for (int e = 0; e < p->dep_count; e++) {
        list_add(m, &m->succ[p->dep_from[e]], p->dep_to[e]);
        list_add(m, &m->pred[p->dep_to[e]], p->dep_from[e]);
    }
}

/* Reverse topological order: each op reaches its successors and theirs. */
static void init_reach(merger *m)
{
    const pp_sched_problem *p = m->p;
    for (int k = m->n - 1; k >= 0; k--) {
        int u = p->topo_order[k];
        uint64_t *row = desc_row(m, u);
        for (int j = 0; j < m->succ[u].n; j++) {
            int v = m->succ[u].at[j];
            const uint64_t *below = desc_row(m, v);
            for (int w = 0; w < m->words; w++)
                row[w] |= below[w];
            set(row, v);
        }
    }
}

/* Some device allowed by from_mask has a channel to (or is) one of to_mask. */
static bool connects(const merger *m, const uint64_t *from_mask, const uint64_t *to_mask)
{
    for (int d = 0; d < m->p->device_count; d++)
        if (has(from_mask, d) && intersects(m->hop + (size_t)d * m->dev_words, to_mask, m->dev_words))
            return true;
    return false;
}

/* Every dependency of g (other than with `other`) can still be placed when g
 * shrinks to the candidate mask in m->both. */
static bool neighbours_connect(const merger *m, int g, int other)
{
    if (same_bits(mask_row(m, g), m->both, m->dev_words))
        return true;
    for (int k = 0; k < m->succ[g].n; k++) {
        int x = m->succ[g].at[k];
        if (x != other && !connects(m, m->both, mask_row(m, x)))
            return false;
    }
    for (int k = 0; k < m->pred[g].n; k++) {
        int x = m->pred[g].at[k];
        if (x != other && !connects(m, mask_row(m, x), m->both))
            return false;
    }
    return true;
}

/* pp_sched_problem_finish wants the weight forced onto a device to fit it.
 * (That the merged weight fits some allowed device follows from
 * memory_fits: at most a quarter of every finite capacity it may use.) */
static bool forced_fits(const merger *m, int a, int b)
{
    int only = only_device(m->both, m->dev_words);
    if (only < 0)
        return true;
    double forced = m->forced[only];
    if (only_device(mask_row(m, a), m->dev_words) != only)
        forced += m->weight[a];
    if (only_device(mask_row(m, b), m->dev_words) != only)
        forced += m->weight[b];
    return forced <= m->p->capacity[only];
}

/* A coarse op applies only its net adjustment, at its end. The fine level
 * inside it stays at or below the coarse level as long as no prefix of the
 * members rises above max(0, total): then it is never above the level the
 * coarse op reaches at its end. A zero-duration op with a negative adjustment
 * could end at that same instant and hide that level from the checker, so
 * problems with such ops get the strict rule: no prefix above 0.
 * With a hint, a's last op must also be followed directly by b's first on
 * its device there: coarse ops are then runs of the hint's device orders, so
 * the memory levels the hint passes through stay reachable. Without it,
 * merges on full pipeline devices tied an op that frees memory to ops that
 * need it (B0 + F5 + F6 for one activation) and no schedule was left. */
static bool memory_fits(const merger *m, int a, int b, double max_mem)
{
    if (!intersects(m->both, m->finite, m->dev_words))
        return true;
    double total = m->adjust[a] + m->adjust[b];
    double peak = fmax(m->peak[a], m->adjust[a] + m->peak[b]);
    double limit = m->strict_memory ? 0 : fmax(0, total);
    double footprint = m->weight[a] + m->weight[b] + fmax(peak, -total);
    for (int d = 0; d < m->p->device_count; d++)
        if (has(m->both, d))
            max_mem = fmin(max_mem, CAPACITY_SHARE * m->p->capacity[d]);
    bool adjacent = !m->hint_next || m->hint_next[m->last[a]] == m->first[b];
    return peak <= limit && footprint <= max_mem && adjacent;
}

/* Whether a's members followed by b's may become one op. */
static bool fits(merger *m, int a, int b, double max_dur, double max_mem)
{
    if (m->dur[a] + m->dur[b] > max_dur)
        return false;
    const uint64_t *ma = mask_row(m, a), *mb = mask_row(m, b);
    bool any = false;
    for (int k = 0; k < m->dev_words; k++)
        any |= (m->both[k] = ma[k] & mb[k]) != 0;
    return any && memory_fits(m, a, b, max_mem) && forced_fits(m, a, b) && neighbours_connect(m, a, b) &&
           neighbours_connect(m, b, a);
}

/* u -> v is a chain link once transitive edges are set aside: every other
 * successor of u lies below v, and every other predecessor of v above u. */
static bool chain_link(const merger *m, int u, int v)
{
    const uint64_t *below_v = desc_row(m, v);
    for (int k = 0; k < m->succ[u].n; k++) {
        int c = m->succ[u].at[k];
        if (c != v && !has(below_v, c))
            return false;
    }
    for (int k = 0; k < m->pred[v].n; k++) {
        int w = m->pred[v].at[k];
        if (w != u && !has(desc_row(m, w), u))
            return false;
    }
    return true;
}

/* Heads and tails by Kahn's algorithm over the live groups; returns the
 * critical path (durations only: comm depends on placements not yet made). */
static double heads_tails(merger *m)
{
    int tail_at = 0;
    for (int g = 0; g < m->n; g++) {
        if (!m->alive[g])
            continue;
        m->count[g] = m->pred[g].n;
        m->head[g] = 0;
        if (m->count[g] == 0)
            m->queue[tail_at++] = g;
    }
    for (int at = 0; at < tail_at; at++) {
        int u = m->queue[at];
        for (int k = 0; k < m->succ[u].n; k++) {
            int v = m->succ[u].at[k];
            m->head[v] = fmax(m->head[v], m->head[u] + m->dur[u]);
            if (--m->count[v] == 0)
                m->queue[tail_at++] = v;
        }
    }
    double critical = 0;
    for (int at = tail_at - 1; at >= 0; at--) {
        int u = m->queue[at];
        m->tail[u] = 0;
        for (int k = 0; k < m->succ[u].n; k++) {
            int v = m->succ[u].at[k];
            m->tail[u] = fmax(m->tail[u], m->dur[v] + m->tail[v]);
        }
        critical = fmax(critical, m->head[u] + m->dur[u] + m->tail[u]);
    }
    return critical;
}

typedef struct {
    int device;
    double start, end;
    int op;
} hint_slot;

static int by_slot(const void *x, const void *y)
{
    const hint_slot *a = x, *b = y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

/* The hint's device orders, as the next op of each (see memory_fits). Its
 * times were also tried as releases and deadlines in the critical path
 * ranking; coarse list schedules came out longer on random DAGs and on
 * pipelines with comm, so only the orders are used. */
static bool init_hint(merger *m, const pp_sched_schedule *hint)
{
    hint_slot *slots = malloc(((size_t)m->n + 1) * sizeof *slots);
    m->hint_next = malloc(((size_t)m->n + 1) * sizeof *m->hint_next);
    if (!slots || !m->hint_next) {
        free(slots);
        return false;
    }
    for (int i = 0; i < m->n; i++)
        slots[i] = (hint_slot){hint->device[i], hint->start[i], hint->end[i], i};
    qsort(slots, (size_t)m->n, sizeof *slots, by_slot);
    for (int k = 0; k < m->n; k++)
        m->hint_next[slots[k].op] = k + 1 < m->n && slots[k + 1].device == slots[k].device ? slots[k + 1].op : -1;
    free(slots);
    return true;
}

static void init_thresholds(merger *m, int target)
{
    const pp_sched_problem *p = m->p;
    double work = 0, memory = 0;
    for (int i = 0; i < m->n; i++) {
        work += p->duration[i];
        memory += p->weight[i] + fabs(p->adjust[i]);
    }
    m->edge_dur = EDGE_SHARE * work / target;
    m->pair_dur = PAIR_SHARE * work / target;
    m->edge_mem = EDGE_SHARE * memory / target;
    m->pair_mem = PAIR_SHARE * memory / target;
}

static void push(merger *m, candidate c)
{
    pool *q = &m->pool;
    if (!pp_grow((void **)&q->at, &q->cap, q->n + 1, sizeof *q->at)) {
        m->failed = true;
        return;
    }
    q->at[q->n++] = c;
}

/* GetCandidateEdge: every chain link that may merge. */
static void collect_edges(merger *m)
{
    for (int u = 0; u < m->n; u++) {
        if (!m->alive[u])
            continue;
        for (int k = 0; k < m->succ[u].n; k++) {
            int v = m->succ[u].at[k];
            if (chain_link(m, u, v) && fits(m, u, v, m->edge_dur, m->edge_mem))
                push(m, (candidate){u, v, true, 0, m->dur[u] + m->dur[v]});
        }
    }
}

static bool independent(const merger *m, int a, int b)
{
    return a != b && !has(desc_row(m, a), b) && !has(desc_row(m, b), a);
}

/* u -> v is the only path from u to v, so merging them makes no cycle. */
static bool lone_path(const merger *m, int u, int v)
{
    for (int k = 0; k < m->succ[u].n; k++) {
        int c = m->succ[u].at[k];
        if (c != v && has(desc_row(m, c), v))
            return false;
    }
    return true;
}

static double growth(double through, double critical)
{
    return through - critical > 1e-9 * critical ? through - critical : 0;
}

/* Independent a and b: the merged op starts when both could, everything
 * after either waits for both. The earlier head runs first where memory allows. */
static void try_pair(merger *m, int a, int b, double critical)
{
    if (!independent(m, a, b))
        return;
    if (m->head[b] < m->head[a] || (m->head[b] == m->head[a] && b < a)) {
        int t = a;
        a = b;
        b = t;
    }
    double through = fmax(m->head[a], m->head[b]) + m->dur[a] + m->dur[b] + fmax(m->tail[a], m->tail[b]);
    candidate c = {a, b, false, growth(through, critical), m->dur[a] + m->dur[b]};
    if (fits(m, a, b, m->pair_dur, m->pair_mem)) {
        push(m, c);
    } else if (fits(m, b, a, m->pair_dur, m->pair_mem)) {
        c.first = b;
        c.second = a;
        push(m, c);
    }
}

/* u -> v, not a chain link but the only path between them: the merged op
 * starts when u's inputs and v's other inputs are done, and everything
 * after u or v waits for both. */
static void try_link(merger *m, int u, int v, double critical)
{
    if (!lone_path(m, u, v))
        return;
    double start = m->head[u], after = m->tail[v];
    for (int k = 0; k < m->pred[v].n; k++) {
        int w = m->pred[v].at[k];
        if (w != u)
            start = fmax(start, m->head[w] + m->dur[w]);
    }
    for (int k = 0; k < m->succ[u].n; k++) {
        int c = m->succ[u].at[k];
        if (c != v)
            after = fmax(after, m->dur[c] + m->tail[c]);
    }
    double through = start + m->dur[u] + m->dur[v] + after;
    if (fits(m, u, v, m->pair_dur, m->pair_mem))
        push(m, (candidate){u, v, true, growth(through, critical), m->dur[u] + m->dur[v]});
}

static void try_siblings(merger *m, const list *l, double critical)
{
    for (int i = 0; i < l->n; i++)
        for (int j = i + 1; j < l->n; j++)
            try_pair(m, l->at[i], l->at[j], critical);
}

/* GetCandidateNonEdge, widened. Looking at every independent pair would
 * cost n^2, so the pairs looked at are siblings (a common predecessor or
 * successor: they share inputs or outputs, so merging saves transfers) and
 * neighbours in the order of earliest start (which also reaches groups with
 * no relative in common, e.g. separate components). Non-chain links (edges
 * that are the only path between their ends) join them: on a 2000-op random
 * DAG on 2 devices (tests/sched/test_coarsen.c) the list schedule of the
 * 200-op coarse problem came out 67% longer than the fine one's with pairs
 * alone, which serialise parallel branches, and 3% longer with links too. */
static void collect_pairs(merger *m)
{
    double critical = heads_tails(m);
    int count = 0;
    for (int g = 0; g < m->n; g++) {
        if (!m->alive[g])
            continue;
        for (int k = 0; k < m->succ[g].n; k++)
            try_link(m, g, m->succ[g].at[k], critical);
        try_siblings(m, &m->succ[g], critical);
        try_siblings(m, &m->pred[g], critical);
        m->sorted[count++] = (pp_keyed){m->head[g], g};
    }
    qsort(m->sorted, (size_t)count, sizeof *m->sorted, pp_by_key_then_index);
    for (int k = 1; k < count; k++)
        try_pair(m, m->sorted[k - 1].index, m->sorted[k].index, critical);
}

/* Priority: the least growth of the critical path (chain links have none),
 * then the smallest merged duration, then the ids, for determinism. */
static int by_priority(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->growth != b->growth)
        return a->growth < b->growth ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur < b->dur ? -1 : 1;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return (a->second > b->second) - (a->second < b->second);
}

/* The pool as a binary heap on by_priority: a batch takes only its first
 * few candidates (one, below 2 * BATCH groups), so sorting them all was most
 * of the time spent. */
static void sift_down(candidate *h, int n, int i)
{
    for (;;) {
        int least = i, l = 2 * i + 1, r = l + 1;
        if (l < n && by_priority(&h[l], &h[least]) < 0)
            least = l;
        if (r < n && by_priority(&h[r], &h[least]) < 0)
            least = r;
        if (least == i)
            return;
        candidate t = h[i];
        h[i] = h[least];
        h[least] = t;
        i = least;
    }
}

static candidate pop(pool *q)
{
    candidate top = q->at[0];
    q->at[0] = q->at[--q->n];
    sift_down(q->at, q->n, 0);
    return top;
}

/* A candidate of an earlier merge in the same batch is checked again: the
 * graph around it may have changed. */
static bool still_fits(merger *m, const candidate *c, bool edges)
{
    int a = c->first, b = c->second;
    if (edges)
        return list_has(&m->succ[a], b) && chain_link(m, a, b) && fits(m, a, b, m->edge_dur, m->edge_mem);
    if (c->linked)
        return list_has(&m->succ[a], b) && lone_path(m, a, b) && fits(m, a, b, m->pair_dur, m->pair_mem);
    return independent(m, a, b) && fits(m, a, b, m->pair_dur, m->pair_mem);
}

static void move_forced(merger *m, int g, double sign)
{
    int only = only_device(mask_row(m, g), m->dev_words);
    if (only >= 0)
        m->forced[only] += sign * m->weight[g];
}

/* Everything that reached a or b now reaches the merged group a and all it reaches. */
static void merge_reach(merger *m, int a, int b)
{
    uint64_t *ra = desc_row(m, a);
    const uint64_t *rb = desc_row(m, b);
    for (int w = 0; w < m->words; w++)
        ra[w] |= rb[w];
    clear(ra, b);
    for (int x = 0; x < m->n; x++) {
        uint64_t *rx = desc_row(m, x);
        if (!m->alive[x] || x == a || x == b || !(has(rx, a) || has(rx, b)))
            continue;
        for (int w = 0; w < m->words; w++)
            rx[w] |= ra[w];
        set(rx, a);
        clear(rx, b);
    }
}

static void merge_edges(merger *m, int a, int b)
{
    for (int k = 0; k < m->succ[b].n; k++) {
        int x = m->succ[b].at[k];
        list_add(m, &m->succ[a], x);
        list_remove(&m->pred[x], b);
        list_add(m, &m->pred[x], a);
    }
    for (int k = 0; k < m->pred[b].n; k++) {
        int x = m->pred[b].at[k];
        if (x == a)
            continue;
        list_add(m, &m->pred[a], x);
        list_remove(&m->succ[x], b);
        list_add(m, &m->succ[x], a);
    }
    list_remove(&m->succ[a], b);
    m->succ[b].n = m->pred[b].n = 0;
}

/* MergeNodes: b's members run after a's; b disappears into a. */
static void merge(merger *m, int a, int b)
{
    move_forced(m, a, -1);
    move_forced(m, b, -1);
    m->peak[a] = fmax(m->peak[a], m->adjust[a] + m->peak[b]);
    m->dur[a] += m->dur[b];
    m->weight[a] += m->weight[b];
    m->adjust[a] += m->adjust[b];
    uint64_t *ma = mask_row(m, a);
    const uint64_t *mb = mask_row(m, b);
    for (int k = 0; k < m->dev_words; k++)
        ma[k] &= mb[k];
    move_forced(m, a, +1);
    m->next[m->last[a]] = m->first[b];
    m->last[a] = m->last[b];
    merge_edges(m, a, b);
    merge_reach(m, a, b);
    m->alive[b] = 0;
    m->alive_count--;
}

/* Merges the best candidates of one scan, each group at most once, at most
 * 1/BATCH of the groups. Rescanning after every merge made coarsening
 * quadratic (a 4000-op random DAG to 100 ops took 6 s, 0.9 s in batches);
 * a batch reuses one scan's ranking, whose growth figures go stale as it
 * proceeds, but the list schedules of the coarse problems in
 * tests/sched/test_coarsen.c stayed within 3% of those without batches.
 * Returns the merges made. */
static int merge_batch(merger *m, int target, bool edges)
{
    m->pool.n = 0;
    if (edges)
        collect_edges(m);
    else
        collect_pairs(m);
    for (int i = m->pool.n / 2 - 1; i >= 0; i--)
        sift_down(m->pool.at, m->pool.n, i);
    memset(m->touched, 0, (size_t)m->n);
    int limit = m->alive_count / BATCH > 1 ? m->alive_count / BATCH : 1, merged = 0;
    while (m->pool.n > 0 && merged < limit && m->alive_count > target && !m->failed) {
        candidate c = pop(&m->pool);
        if (m->touched[c.first] || m->touched[c.second] || !still_fits(m, &c, edges))
            continue;
        merge(m, c.first, c.second);
        m->touched[c.first] = m->touched[c.second] = 1;
        merged++;
    }
    return merged;
}

/* Algorithm 1: edges until none is left, then non-edges until none is left,
 * and again, until the target is reached or a round merges nothing. */
static void run(merger *m, int target)
{
    for (;;) {
        int merged = 0, step;
        while (m->alive_count > target && !m->failed && (step = merge_batch(m, target, true)) > 0)
            merged += step;
        while (m->alive_count > target && !m->failed && (step = merge_batch(m, target, false)) > 0)
            merged += step;
        if (!merged || m->alive_count <= target || m->failed)
            return;
    }
}

typedef struct {
    int from, to, dep;  /* coarse ops of a fine dep's ends, the fine dep */
} crossing;

static int by_ends(const void *x, const void *y)
{
    const crossing *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return (a->dep > b->dep) - (a->dep < b->dep);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Numbers the live groups by their first fine op in topological order and
 * lists their members in run order. */
static bool number_groups(const merger *m, sc_coarsening *out, int *root)
{
    const pp_sched_problem *p = m->p;
    int *index = malloc(((size_t)m->n + 1) * sizeof *index);
    out->group_of = malloc(((size_t)m->n + 1) * sizeof *out->group_of);
    out->member_start = malloc(((size_t)m->alive_count + 1) * sizeof *out->member_start);
    out->member = malloc(((size_t)m->n + 1) * sizeof *out->member);
    if (!index || !out->group_of || !out->member_start || !out->member) {
        free(index);
        return false;
    }
    for (int g = 0; g < m->n; g++) {
        index[g] = -1;
        for (int f = m->alive[g] ? m->first[g] : -1; f >= 0; f = m->next[f])
            root[f] = g;
    }
    int groups = 0, at = 0;
    for (int k = 0; k < m->n; k++) {
        int g = root[p->topo_order[k]];
        if (index[g] >= 0)
            continue;
        index[g] = groups;
        out->member_start[groups++] = at;
        for (int f = m->first[g]; f >= 0; f = m->next[f]) {
            out->group_of[f] = index[g];
            out->member[at++] = f;
        }
    }
    out->member_start[groups] = at;
    free(index);
    return true;
}

/* A lone op keeps its name; a merged one is "first+count", with '+'
 * appended while that is some fine op's name (fine names are unique, and two
 * merged names differ in their first member, so the result is unique). */
static char *coarse_name(const pp_sched_problem *p, char **sorted_names, const int *members, int count)
{
    const char *first = p->op_name[members[0]];
    /* Room for a '+' per existing name: the suffix grows until the name is
     * new, and each '+' steps past at most one name already taken. */
    size_t len = strlen(first) + 16 + (size_t)p->op_count;
    char *name = malloc(len);
    if (!name)
        return NULL;
    if (count == 1)
        snprintf(name, len, "%s", first);
    else
        snprintf(name, len, "%s+%d", first, count);
    size_t end = strlen(name);
    while (count > 1 && bsearch(&name, sorted_names, (size_t)p->op_count, sizeof *sorted_names, by_name)) {
        name[end++] = '+';
        name[end] = '\0';
    }
    char *fitted = strdup(name);
    free(name);
    return fitted;
}

static const char *coarse_kind(const pp_sched_problem *p, const int *members, int count)
{
    for (int k = 1; k < count; k++)
        if (strcmp(p->op_kind[members[k]], p->op_kind[members[0]]) != 0)
            return "merged";
    return p->op_kind[members[0]];
}

/* Sums run in member order, the order sc_expand lays the ops out in, so
 * the last fine op ends exactly where the coarse op does. */
static bool add_coarse_op(const merger *m, pp_sched_problem *q, char **sorted_names, const int *members,
                          int count)
{
    const pp_sched_problem *p = m->p;
    double dur = 0, weight = 0, adjust = 0;
    for (int k = 0; k < count; k++) {
        dur += p->duration[members[k]];
        weight += p->weight[members[k]];
        adjust += p->adjust[members[k]];
    }
    char *name = coarse_name(p, sorted_names, members, count);
    if (!name)
        return false;
    int op = pp_sched_add_op(q, name, coarse_kind(p, members, count), dur, weight, adjust);
    free(name);
    if (op < 0)
        return false;
    /* A group keeps the id of its first member (merge keeps the first group). */
    const uint64_t *mask = mask_row(m, members[0]);
    bool every = true;
    for (int d = 0; d < p->device_count; d++)
        every &= has(mask, d);
    for (int d = 0; d < p->device_count && !every; d++)
        if (has(mask, d))
            pp_sched_allow(q, op, d);
    return true;
}

/* One coarse dep per ordered pair of coarse ops with fine deps between them,
 * its comm the sum of theirs in fine dep order (sc_expand's order). */
static bool add_coarse_deps(const pp_sched_problem *p, pp_sched_problem *q, sc_coarsening *out)
{
    crossing *cross = malloc(((size_t)p->dep_count + 1) * sizeof *cross);
    out->dep_of = malloc(((size_t)p->dep_count + 1) * sizeof *out->dep_of);
    if (!cross || !out->dep_of) {
        free(cross);
        return false;
    }
    int count = 0;
    for (int e = 0; e < p->dep_count; e++) {
        out->dep_of[e] = -1;
        int a = out->group_of[p->dep_from[e]], b = out->group_of[p->dep_to[e]];
        if (a != b)
            cross[count++] = (crossing){a, b, e};
    }
    qsort(cross, (size_t)count, sizeof *cross, by_ends);
    bool ok = true;
    for (int k = 0; k < count && ok;) {
        int end = k;
        double comm = 0;
        for (; end < count && cross[end].from == cross[k].from && cross[end].to == cross[k].to; end++)
            comm += p->dep_comm[cross[end].dep];
        int dep = pp_sched_add_dep(q, cross[k].from, cross[k].to, comm);
        ok = dep >= 0;
        for (; k < end; k++)
            out->dep_of[cross[k].dep] = dep;
    }
    free(cross);
    return ok;
}

static bool add_devices_and_ops(const merger *m, pp_sched_problem *q, const sc_coarsening *out)
{
    const pp_sched_problem *p = m->p;
    for (int d = 0; d < p->device_count; d++)
        if (pp_sched_add_device(q, p->device_name[d], p->capacity[d]) < 0)
            return false;
    for (int a = 0; a < p->device_count; a++)
        for (int b = 0; b < p->device_count; b++)
            if (a != b && pp_sched_has_channel(p, a, b))
                pp_sched_add_channel(q, a, b);
    char **sorted = malloc(((size_t)p->op_count + 1) * sizeof *sorted);
    if (!sorted)
        return false;
    memcpy(sorted, p->op_name, (size_t)p->op_count * sizeof *sorted);
    qsort(sorted, (size_t)p->op_count, sizeof *sorted, by_name);
    bool ok = true;
    for (int c = 0; c < m->alive_count && ok; c++) {
        int at = out->member_start[c];
        ok = add_coarse_op(m, q, sorted, out->member + at, out->member_start[c + 1] - at);
    }
    free(sorted);
    return ok;
}

static pp_status build_coarse(const merger *m, sc_coarsening *out, pp_error *err)
{
    int *root = malloc(((size_t)m->n + 1) * sizeof *root);
    bool ok = root && number_groups(m, out, root);
    free(root);
    if (ok)
        ok = (out->coarse = pp_sched_problem_new()) != NULL;
    if (!ok || !add_devices_and_ops(m, out->coarse, out) || !add_coarse_deps(m->p, out->coarse, out))
        return pp_error_set(err, PP_ENOMEM, "coarsen: out of memory");
    return pp_sched_problem_finish(out->coarse, "coarsened problem", err);
}

pp_status sc_coarsen_hinted(const pp_sched_problem *p, int target_ops, const pp_sched_schedule *hint,
                               sc_coarsening *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    if (target_ops < 1)
        return pp_error_set(err, PP_EARG, "coarsen: the target must be at least 1 op, not %d", target_ops);
    if (!p->topo_order)
        return pp_error_set(err, PP_EARG, "coarsen: the problem is not finished");
    if (hint && hint->op_count != p->op_count)
        return pp_error_set(err, PP_EARG, "coarsen: the hint has %d ops, the problem %d", hint->op_count,
                            p->op_count);
    merger m = {.p = p, .n = p->op_count};
    m.words = (m.n + 63) / 64 + 1;
    m.dev_words = (p->device_count + 63) / 64;
    pp_status st = PP_OK;
    if (!merger_alloc(&m)) {
        st = pp_error_set(err, PP_ENOMEM, "coarsen: out of memory for %d ops", m.n);
    } else {
        init_devices(&m);
        init_groups(&m);
        init_reach(&m);
        if (hint && !init_hint(&m, hint))
            m.failed = true;
        init_thresholds(&m, target_ops);
        run(&m, target_ops);
        st = m.failed ? pp_error_set(err, PP_ENOMEM, "coarsen: out of memory") : build_coarse(&m, out, err);
    }
    merger_free(&m);
    if (st != PP_OK)
        sc_coarsening_free(out);
    return st;
}

pp_status sc_coarsen(const pp_sched_problem *p, int target_ops, sc_coarsening *out, pp_error *err)
{
    return sc_coarsen_hinted(p, target_ops, NULL, out, err);
}

void sc_coarsening_free(sc_coarsening *c)
{
    pp_sched_problem_free(c->coarse);
    free(c->group_of);
    free(c->member_start);
    free(c->member);
    free(c->dep_of);
    memset(c, 0, sizeof *c);
}

/* Fine ops back to back from the coarse start; fine transfers one after
 * another from the coarse transfer's start, in fine dep order. Times are
 * start + running sum, as the coarse sums were taken, so the last of each
 * ends exactly where the coarse one does. */
pp_status sc_expand(const pp_sched_problem *fine, const sc_coarsening *c,
                       const pp_sched_schedule *coarse_schedule, pp_sched_schedule *fine_out, pp_error *err)
{
    const pp_sched_problem *q = c->coarse;
    const pp_sched_schedule *cs = coarse_schedule;
    if (cs->op_count != q->op_count || cs->dep_count != q->dep_count || fine_out->op_count != fine->op_count ||
        fine_out->dep_count != fine->dep_count)
        return pp_error_set(err, PP_EARG, "expand: the schedules do not match the problems");
    double *used = calloc((size_t)q->dep_count + 1, sizeof *used);
    if (!used)
        return pp_error_set(err, PP_ENOMEM, "expand: out of memory");
    for (int k = 0; k < q->op_count; k++) {
        double t0 = cs->start[k], sum = 0;
        for (int at = c->member_start[k]; at < c->member_start[k + 1]; at++) {
            int f = c->member[at];
            fine_out->device[f] = cs->device[k];
            fine_out->start[f] = t0 + sum;
            sum += fine->duration[f];
            fine_out->end[f] = t0 + sum;
        }
    }
    for (int e = 0; e < fine->dep_count; e++) {
        int k = c->dep_of[e];
        if (k < 0 || fine_out->device[fine->dep_from[e]] == fine_out->device[fine->dep_to[e]]) {
            fine_out->transfer_start[e] = fine_out->transfer_end[e] = NAN;
            continue;
        }
        fine_out->transfer_start[e] = cs->transfer_start[k] + used[k];
        used[k] += fine->dep_comm[e];
        fine_out->transfer_end[e] = cs->transfer_start[k] + used[k];
    }
    free(used);
    return PP_OK;
}
