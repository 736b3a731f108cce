/* lag_search.c: a makespan step for pipelines at tight memory (issue 29).
 * It owns recognising a pipeline from the problem's copies, the family of
 * schedules made from per-stage lags, and the search over that family.
 *
 * The pipeline. rank_bound.c's copies, when every component is a copy of
 * one template (a micro-batch) and every op is forced onto a device: per
 * device the template's ops with successors must be two, its forward (the
 * earlier in topological order) and its backward, and the ops without any
 * at most one, its filler (a W: nothing waits for it), whose inputs are
 * on its own device. Devices with no template op are left out; a device
 * with anything else, and the step does nothing. Stages go in order of
 * their forwards in the template's topological order; copies in order of
 * the incumbent's start of the template's first op.
 *
 * The family. Each stage runs its forwards and backwards in copy order;
 * before backward k it has run k + 1 + lag[s][k] forwards (at most all, at
 * least k + 1, never fewer than before). Its fillers run once their inputs
 * have, in that order: before a forward that needs their memory; into the
 * wait for the next forward's or backward's input when they fit the wait
 * (rule 0), into any wait (rule 1), or only for memory (rule 2); after the
 * stage's last forward into any wait (or as before: two rules); the rest
 * at the end. The six rules are tried and the shortest kept.
 *
 * The search (first tried as bench/zb_family.c, which read op names).
 * From the incumbent's lags, every block move: lag - 1 or + 1 on stages
 * 0..s for backwards k..k + len - 1 (len <= 4), kept when the makespan
 * falls, until none does: the better schedules change every stage at once
 * (the optimum at P = 5, M = 9 is the heuristic with lag - 1 on stages 0-3
 * at k = 3, 4; BENCHMARKS.md). Then each filler is moved up to a radius of
 * places in its stage's order (1, 2, 4, ... places) while the makespan
 * falls, until the deadline, or without one until the climb has run a
 * quarter as many ops as the block search (it pays at P <= 6, where rules
 * alone end 1,062 us above the optimum at P = 5, M = 9, and at P = 16 in
 * the scheduler's time: 838,652 to 838,252).
 *
 * Evaluations take transfers as delays (no channel queue) and stop once a
 * stage's clock plus its work left, or its forwards' and backwards' left
 * plus their tail, reaches the best makespan. The kept lags' runs are
 * recorded (a run per rule, and one of the kept orders for the climb), and
 * a move re-runs only what it changes: a stage's steps before its first
 * changed one are kept unless an input came from a step not kept. The
 * answer is timed by sc_times_from_orders, judged by the checker, and
 * replaces the incumbent only when valid and strictly shorter. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"
#include "sched/timing.h"

enum { RULES = 6, BLOCK = 4 };
enum { FORWARD, BACKWARD, FILLER };

typedef struct {
    int pos, head, tail, len, forwards, backwards;
    double clock, level, done, main_done;
} stage_state;

/* A run recorded, for runs that differ from it from some step of some
 * stages on: a step is one call of a stage's stepper that ran ops, and
 * every step before a stage's first changed one whose inputs came from
 * steps kept is kept, with the state it left. */
typedef struct {
    stage_state *snap;   /* per stage x slot: the state before each step, and after the last */
    int *examined;       /* per stage x slot: the op whose inputs the step waited for, -1 for none */
    int *steps;          /* per stage */
    int *step_of;        /* per op: the step that ran it */
    int *exec, exec_count;  /* steps as stage x slot + step, in the order they ran */
    int *exec_stage;     /* the same steps' stages */
    int *exec_at;        /* per stage x slot: where the step is in exec */
    double *end;         /* per op */
    int *order, *queue, *seq;  /* per stage: the order run, the fillers as they became ready, the sequence */
    bool valid;
} record;

typedef struct {
    const pp_sched_problem *p;
    pp_arena *arena;
    const pp_deadline *deadline;
    int M, stages, rows;  /* copies, stages, ops a stage holds at most (3M) */
    int *device;          /* per stage */
    int *cls_of;          /* per stage x role: the class, -1 for none */
    int *op;              /* per class x copy */
    int *stage_of, *role; /* per op */
    double *delay;        /* per dep: its comm where it crosses devices */
    double *work, *base, *limit;  /* per stage: its summed durations, weights, capacity with slack */
    double *main_work;    /* per stage: its forwards' and backwards' summed durations */
    double *tail;         /* per stage x role: the longest path on from a copy's end (sc_heads_tails) */
    int *lag;             /* per stage x backward */
    int *seq, *seq_len;   /* per stage: forwards and backwards from the lags */
    int *order, *length;  /* per stage: the orders last built or timed */
    int *kept, *kept_length;  /* the best orders */
    int *queue;           /* per stage: fillers ready, in order */
    int *pending;         /* per op: inputs not yet run (fillers) */
    int *waiting;         /* per stage: the op its next step waits for, -1 for none */
    int *woken, woken_count;  /* stages to run again */
    double *end;          /* per op, when its stamp is the run's */
    unsigned *stamp, *pending_stamp;  /* per op: the run that set its end, its pending */
    unsigned epoch;       /* the run's number */
    const record *from;   /* the record the run keeps steps of, NULL for none */
    double tolerance;
    int winner;           /* the rule that gave the best */
    long ran;             /* ops run in all evaluations so far */
    int slots;            /* steps a stage may take, and one */
    record *writing;      /* the record being written, NULL for none */
    int step_now, examined;  /* the step running, the op it waits for */
    record rules[RULES], climbing;  /* the kept orders' runs, by rule and as orders */
    int *changed, *first_bad;  /* per stage: its first step changed, its first step not kept */
} lagger;

static void *grab(lagger *g, size_t count, size_t size)
{
    return pp_arena_calloc(g->arena, count + 1, size);
}

/* Per device its forward, backward and filler classes (slot[d * 3 +
 * role], -1 for none), and the stages in order. false: not a pipeline this
 * step handles. */
static bool find_stages(lagger *g, const sc_copies *c)
{
    const pp_sched_problem *p = g->p;
    int D = p->device_count, K = c->classes;
    int *slot = grab(g, (size_t)D * 3, sizeof(int)), *place = grab(g, (size_t)p->op_count, sizeof(int));
    g->device = grab(g, (size_t)D, sizeof(int));
    if (!slot || !place || !g->device)
        return false;
    for (int j = 0; j < p->op_count; j++)
        place[p->topo_order[j]] = j;
    for (int j = 0; j < D * 3; j++)
        slot[j] = -1;
    for (int k = 0; k < K; k++) {
        int v = c->rep[k], d = sc_forced_device(p, v);
        if (d < 0)
            return false;
        int *at = slot + d * 3;
        if (p->succ_start[v + 1] == p->succ_start[v]) {
            for (int e = p->pred_start[v]; e < p->pred_start[v + 1]; e++)
                if (sc_forced_device(p, p->dep_from[p->pred_dep[e]]) != d)
                    return false;
            if (at[FILLER] >= 0)
                return false;
            at[FILLER] = k;
        } else if (at[FORWARD] < 0) {
            at[FORWARD] = k;
        } else if (at[BACKWARD] < 0) {
            /* Both reps are in one component: their places order the template. */
            bool first = place[c->rep[at[FORWARD]]] < place[v];
            at[BACKWARD] = first ? k : at[FORWARD], at[FORWARD] = first ? at[FORWARD] : k;
        } else {
            return false;
        }
    }
    g->stages = 0;
    for (int d = 0; d < D; d++) {
        if ((slot[d * 3 + FORWARD] >= 0) != (slot[d * 3 + BACKWARD] >= 0) ||
            (slot[d * 3 + FILLER] >= 0 && slot[d * 3 + FORWARD] < 0))
            return false;
        if (slot[d * 3 + FORWARD] >= 0)
            g->device[g->stages++] = d;
    }
    /* Stages by their forwards' places: a few, sorted by insertion. */
    for (int i = 1; i < g->stages; i++)
        for (int j = i; j > 0; j--) {
            int a = g->device[j - 1], b = g->device[j];
            if (place[c->rep[slot[a * 3]]] < place[c->rep[slot[b * 3]]])
                break;
            g->device[j - 1] = b, g->device[j] = a;
        }
    g->cls_of = grab(g, (size_t)g->stages * 3, sizeof(int));
    if (!g->cls_of)
        return false;
    for (int st = 0; st < g->stages; st++)
        memcpy(g->cls_of + st * 3, slot + g->device[st] * 3, 3 * sizeof(int));
    return g->stages > 0;
}

/* The op of every class and copy, copies by the incumbent's start of the
 * template's first op. */
static bool find_copies_order(lagger *g, const sc_copies *c, const pp_sched_schedule *s)
{
    const pp_sched_problem *p = g->p;
    int n = p->op_count, M = g->M, first = c->cls[p->topo_order[0]];
    int *index = grab(g, (size_t)n, sizeof(int));
    pp_keyed *comps = grab(g, (size_t)M, sizeof(pp_keyed));
    g->op = grab(g, (size_t)c->classes * M, sizeof(int));
    if (!index || !comps || !g->op)
        return false;
    for (int i = 0; i < n; i++)
        index[i] = -1;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (c->cls[i] == first) {
            if (m == M)
                return false;
            index[c->component[i]] = m;
            comps[m++] = (pp_keyed){s->start[i], c->component[i]};
        }
    qsort(comps, (size_t)m, sizeof *comps, pp_by_key_then_index);
    for (int k = 0; k < m; k++)
        index[comps[k].index] = k;
    for (int i = 0; i < n; i++)
        g->op[c->cls[i] * M + index[c->component[i]]] = i;
    return m == M;
}

/* The roles, delays, work, memory and each stage's lags from s. */
static bool find_lags(lagger *g, const pp_sched_schedule *s)
{
    const pp_sched_problem *p = g->p;
    int n = p->op_count, M = g->M, S = g->stages;
    g->stage_of = grab(g, (size_t)n, sizeof(int)), g->role = grab(g, (size_t)n, sizeof(int));
    g->delay = grab(g, (size_t)p->dep_count, sizeof(double));
    g->work = grab(g, (size_t)S, sizeof(double)), g->base = grab(g, (size_t)S, sizeof(double));
    g->limit = grab(g, (size_t)S, sizeof(double)), g->lag = grab(g, (size_t)S * M, sizeof(int));
    g->main_work = grab(g, (size_t)S, sizeof(double)), g->tail = grab(g, (size_t)S * 3, sizeof(double));
    double *head = grab(g, (size_t)n, sizeof(double)), *tail = grab(g, (size_t)n, sizeof(double));
    if (!g->stage_of || !g->role || !g->delay || !g->work || !g->base || !g->limit || !g->lag || !g->main_work ||
        !g->tail || !head || !tail)
        return false;
    sc_heads_tails(p, head, tail);
    for (int e = 0; e < p->dep_count; e++)
        g->delay[e] = sc_dep_delay(p, e);
    for (int st = 0; st < S; st++) {
        int d = g->device[st];
        g->limit[st] = p->capacity[d] + sc_memory_slack(p->capacity[d]);
        for (int r = 0; r < 3; r++) {
            int k = g->cls_of[st * 3 + r];
            for (int m = 0; k >= 0 && m < M; m++) {
                int v = g->op[k * M + m];
                g->stage_of[v] = st, g->role[v] = r, g->tail[st * 3 + r] = tail[v];
                g->work[st] += p->duration[v], g->base[st] += p->weight[v];
                g->main_work[st] += r == FILLER ? 0 : p->duration[v];
            }
        }
        int fk = g->cls_of[st * 3 + FORWARD], bk = g->cls_of[st * 3 + BACKWARD];
        for (int k = 0; k < M; k++) {
            double at = s->start[g->op[bk * M + k]];
            int before = 0;
            for (int m = 0; m < M; m++)
                before += s->start[g->op[fk * M + m]] < at;
            g->lag[st * M + k] = before - (k + 1);
        }
    }
    return true;
}

/* Every stage's forwards and backwards from its lags. */
static void build_sequences(lagger *g)
{
    int M = g->M;
    for (int st = 0; st < g->stages; st++) {
        int *seq = g->seq + st * 2 * M, n = 0, f = 0;
        const int *fw = g->op + g->cls_of[st * 3 + FORWARD] * M, *bw = g->op + g->cls_of[st * 3 + BACKWARD] * M;
        for (int k = 0; k < M; k++) {
            int want = k + 1 + g->lag[st * M + k];
            want = want > M ? M : want < k + 1 ? k + 1 : want;
            while (f < want)
                seq[n++] = fw[f++];
            seq[n++] = bw[k];
        }
        g->seq_len[st] = n;
    }
}

/* Op u's end in this run, or in the record's kept steps; -1 when it has
 * not run. */
static double end_of(const lagger *g, int u)
{
    if (g->stamp[u] == g->epoch)
        return g->end[u];
    const record *f = g->from;
    return f && f->step_of[u] < g->first_bad[g->stage_of[u]] ? f->end[u] : -1;
}

/* When op v's inputs are all in, -1 while one has not run. */
static double arrival(const lagger *g, int v)
{
    const pp_sched_problem *p = g->p;
    double at = 0;
    for (int j = p->pred_start[v]; j < p->pred_start[v + 1]; j++) {
        int e = p->pred_dep[j];
        double end = end_of(g, p->dep_from[e]);
        if (end < 0)
            return -1;
        at = fmax(at, end + g->delay[e]);
    }
    return at;
}

/* Whether filler w's inputs have all run now that one more has: a count
 * kept per run, begun at the first input that runs in it. */
static bool ready(lagger *g, int w)
{
    const pp_sched_problem *p = g->p;
    if (g->pending_stamp[w] != g->epoch) {
        g->pending_stamp[w] = g->epoch, g->pending[w] = 0;
        for (int j = p->pred_start[w]; j < p->pred_start[w + 1]; j++)
            g->pending[w] += end_of(g, p->dep_from[p->pred_dep[j]]) < 0;
        return g->pending[w] == 0;
    }
    return --g->pending[w] == 0;
}

/* Whether stage st can still end before cutoff: its work left runs after
 * its clock, and the last of its forwards and backwards has a tail. */
static bool may_end_before(const lagger *g, const stage_state *z, int st, double cutoff)
{
    if (z->clock + g->work[st] - z->done >= cutoff)
        return false;
    double left = g->main_work[st] - z->main_done, tail = INFINITY;
    if (z->forwards < g->M)
        tail = g->tail[st * 3 + FORWARD];
    if (z->backwards < g->M)
        tail = fmin(tail, g->tail[st * 3 + BACKWARD]);
    return !isfinite(tail) || z->clock + left + tail < cutoff;
}

/* Runs op v at t on stage st: false when memory overflows or the stage
 * can no longer end before cutoff. Wakes the stages waiting for v. */
static bool run_op(lagger *g, stage_state *z, int st, int v, double t, double cutoff)
{
    const pp_sched_problem *p = g->p;
    g->end[v] = t + p->duration[v];
    g->stamp[v] = g->epoch;
    g->ran++;
    if (g->writing)
        g->writing->step_of[v] = g->step_now;
    z->clock = g->end[v], z->done += p->duration[v], z->level += p->adjust[v];
    g->order[st * g->rows + z->len++] = v;
    z->forwards += g->role[v] == FORWARD, z->backwards += g->role[v] == BACKWARD;
    z->main_done += g->role[v] == FILLER ? 0 : p->duration[v];
    for (int j = p->succ_start[v]; j < p->succ_start[v + 1]; j++) {
        int w = p->dep_to[p->succ_dep[j]], sw = g->stage_of[w];
        if (g->role[w] == FILLER && ready(g, w))
            g->queue[st * g->M + z->tail++] = w;
        if (g->waiting[sw] == w)
            g->waiting[sw] = -1, g->woken[g->woken_count++] = sw;
    }
    return z->level <= g->limit[st] && may_end_before(g, z, st, cutoff);
}

/* Stage st's next step under a rule (the file's header: pre = rule % 3,
 * post = rule / 3): RAN an op, WAITS for g->waiting[st], DONE, or FAILED. */
enum { RAN, WAITS, DONE, FAILED };

static int step_rule(lagger *g, stage_state *z, int st, int rule, double cutoff)
{
    const pp_sched_problem *p = g->p;
    const int *queue = g->queue + st * g->M;
    int pre = rule % 3, post = rule / 3;
    g->examined = -1;
    if (z->pos == g->seq_len[st]) {
        while (z->head < z->tail)
            if (!run_op(g, z, st, queue[z->head++], z->clock, cutoff))
                return FAILED;
        return DONE;
    }
    int x = g->examined = g->seq[st * 2 * g->M + z->pos];
    double r = arrival(g, x);
    if (r < 0) {
        g->waiting[st] = x;
        return WAITS;
    }
    while (p->adjust[x] > 0 && z->level + p->adjust[x] > g->limit[st] && z->head < z->tail)
        if (!run_op(g, z, st, queue[z->head++], z->clock, cutoff))
            return FAILED;
    bool any = pre == 1 || (post == 1 && z->forwards == g->M), fit = pre == 0;
    while (z->head < z->tail && z->clock < r &&
           (any || (fit && z->clock + p->duration[queue[z->head]] <= r)))
        if (!run_op(g, z, st, queue[z->head++], z->clock, cutoff))
            return FAILED;
    z->pos++;
    return run_op(g, z, st, x, fmax(z->clock, r), cutoff) ? RAN : FAILED;
}

/* Stage st's next op of g->order timed as early as it can be (the
 * timing writes it back in place). */
static int step_order(lagger *g, stage_state *z, int st, int rule, double cutoff)
{
    (void)rule;
    g->examined = -1;
    if (z->pos == g->length[st])
        return DONE;
    int v = g->examined = g->order[st * g->rows + z->pos];
    double r = arrival(g, v);
    if (r < 0) {
        g->waiting[st] = v;
        return WAITS;
    }
    z->len = z->pos++;
    return run_op(g, z, st, v, fmax(z->clock, r), cutoff) ? RAN : FAILED;
}

static double makespan_of(const lagger *g, const stage_state *z)
{
    double t = 0;
    for (int st = 0; st < g->stages; st++)
        t = fmax(t, z[st].clock);
    return t;
}

typedef int (*stepper)(lagger *, stage_state *, int, int, double);

/* Every stage from its start. */
static int start_all(lagger *g, stage_state *z)
{
    g->epoch++, g->from = NULL;
    g->woken_count = 0;
    for (int st = g->stages - 1; st >= 0; st--) {
        z[st] = (stage_state){.level = g->base[st]};
        g->waiting[st] = -1, g->woken[g->woken_count++] = st;
    }
    return g->stages;
}

/* Which of from's steps are kept when each stage changes from step
 * g->changed[st] on: in the order they ran, a step is not kept once one
 * of its op's inputs came from a step not kept (whose stage had, by then,
 * its first such step fixed). */
static void find_kept(lagger *g, const record *from)
{
    const pp_sched_problem *p = g->p;
    /* Every step that ran before the first changed one is kept. */
    int first = from->exec_count;
    for (int st = 0; st < g->stages; st++) {
        g->first_bad[st] = g->changed[st] < from->steps[st] ? g->changed[st] : from->steps[st];
        if (g->first_bad[st] < from->steps[st] && from->exec_at[st * g->slots + g->first_bad[st]] < first)
            first = from->exec_at[st * g->slots + g->first_bad[st]];
    }
    for (int j = first; j < from->exec_count; j++) {
        int e = from->exec[j], st = from->exec_stage[j], i = e - st * g->slots, x = from->examined[e];
        if (i >= g->first_bad[st] || x < 0)
            continue;
        for (int k = p->pred_start[x]; k < p->pred_start[x + 1]; k++) {
            int u = p->dep_from[p->pred_dep[k]];
            if (from->step_of[u] >= g->first_bad[g->stage_of[u]]) {
                g->first_bad[st] = i;
                break;
            }
        }
    }
}

/* Every stage from its first step not kept, the kept steps' ops as from
 * ran them: the stages left to run. */
static int start_from(lagger *g, stage_state *z, const record *from)
{
    g->epoch++, g->from = from;
    find_kept(g, from);
    int left = 0;
    g->woken_count = 0;
    for (int st = g->stages - 1; st >= 0; st--) {
        z[st] = from->snap[st * g->slots + g->first_bad[st]];
        memcpy(g->order + st * g->rows, from->order + st * g->rows, (size_t)z[st].len * sizeof(int));
        memcpy(g->queue + st * g->M, from->queue + st * g->M, (size_t)z[st].tail * sizeof(int));
        g->waiting[st] = -1;
        if (g->first_bad[st] < from->steps[st])
            g->woken[g->woken_count++] = st, left++;
    }
    return left;
}

/* Stage st's steps until it waits, ends or fails (then false); recorded
 * when a record is being written. */
static bool run_stage(lagger *g, stage_state *z, int st, stepper step, int rule, double cutoff, int *left)
{
    record *w = g->writing;
    for (;;) {
        int slot = st * g->slots + z->pos;
        g->step_now = z->pos;
        if (w)
            w->snap[slot] = *z;
        int r = step(g, z, st, rule, cutoff);
        if (r == FAILED)
            return false;
        if (r == WAITS)
            return true;
        if (w)
            w->examined[slot] = g->examined, w->exec_at[slot] = w->exec_count,
            w->exec_stage[w->exec_count] = st, w->exec[w->exec_count++] = slot;
        if (r == DONE) {
            if (w)
                w->snap[slot + 1] = *z, w->steps[st] = z->pos + 1;
            --*left;
            return true;
        }
    }
}

/* Runs every stage by `step` until all are done: the makespan, or INFINITY
 * when one overflows, cannot end before cutoff, or they deadlock. A stage
 * that waits is run again once the op it waits for has run. With a valid
 * record `from` of the same stepper and rule, its kept steps are not run
 * again (g->changed says where the stages change). */
static double drive(lagger *g, stage_state *z, stepper step, int rule, double cutoff, const record *from)
{
    int left = from && from->valid ? start_from(g, z, from) : start_all(g, z);
    if (g->writing)
        g->writing->exec_count = 0;
    while (g->woken_count > 0) {
        int st = g->woken[--g->woken_count];
        if (!run_stage(g, z + st, st, step, rule, cutoff, &left))
            return INFINITY;
    }
    return left == 0 ? makespan_of(g, z) : INFINITY;
}

/* A whole run recorded into w (valid when it ends). */
static double record_run(lagger *g, stage_state *z, stepper step, int rule, record *w)
{
    const pp_sched_problem *p = g->p;
    size_t S = (size_t)g->stages;
    g->writing = w;
    double t = drive(g, z, step, rule, INFINITY, NULL);
    g->writing = NULL;
    w->valid = isfinite(t);
    memcpy(w->end, g->end, (size_t)p->op_count * sizeof(double));
    memcpy(w->order, g->order, S * g->rows * sizeof(int));
    memcpy(w->queue, g->queue, S * g->M * sizeof(int));
    memcpy(w->seq, g->seq, S * 2 * g->M * sizeof(int));
    return t;
}

/* The family's schedule under one rule into g->order (INFINITY as drive). */
static double simulate(lagger *g, stage_state *z, int rule, double cutoff, const record *from)
{
    double t = drive(g, z, step_rule, rule, cutoff, from);
    for (int st = 0; st < g->stages; st++)
        g->length[st] = z[st].len;
    return t;
}

/* The orders in g->order timed as early as they allow. */
static double time_orders(lagger *g, stage_state *z, double cutoff, const record *from)
{
    return drive(g, z, step_order, 0, cutoff, from);
}

static void keep_orders(lagger *g)
{
    memcpy(g->kept, g->order, (size_t)g->stages * g->rows * sizeof(int));
    memcpy(g->kept_length, g->length, (size_t)g->stages * sizeof(int));
}

static void restore_orders(lagger *g)
{
    memcpy(g->order, g->kept, (size_t)g->stages * g->rows * sizeof(int));
    memcpy(g->length, g->kept_length, (size_t)g->stages * sizeof(int));
}

/* Per stage, the first step its sequence changes at since the rules'
 * records (which share their sequences); g->slots for none. */
static void find_changes(lagger *g)
{
    const int *old = g->rules[0].seq;
    for (int st = 0; st < g->stages; st++) {
        int n = g->seq_len[st], i = 0, at = st * 2 * g->M;
        while (i < n && g->seq[at + i] == old[at + i])
            i++;
        g->changed[st] = i == n ? g->slots : i;
    }
}

/* The kept lags' runs, under every rule, recorded for the moves after. */
static void record_rules(lagger *g, stage_state *z)
{
    build_sequences(g);
    for (int rule = 0; rule < RULES; rule++)
        record_run(g, z, step_rule, rule, &g->rules[rule]);
}

/* The family at the current lags: the best rule's makespan when under
 * cutoff (its orders kept), else INFINITY. The last winner goes first, so
 * its makespan cuts the other rules short. */
static double evaluate(lagger *g, stage_state *z, double cutoff)
{
    double best = INFINITY;
    int winner = g->winner;
    build_sequences(g);
    find_changes(g);
    for (int j = 0; j < RULES; j++) {
        int rule = j == 0 ? g->winner : j <= g->winner ? j - 1 : j;
        double t = simulate(g, z, rule, fmin(cutoff, best), &g->rules[rule]);
        if (t < best)
            best = t, winner = rule, keep_orders(g);
    }
    g->winner = winner;
    return best;
}

static void shift(lagger *g, int last_stage, int k, int len, int by)
{
    for (int st = 0; st <= last_stage; st++)
        for (int q = k; q < k + len; q++)
            g->lag[st * g->M + q] += by;
}

/* Whether the block's lags, shifted by `by`, would order some stage
 * differently: a forward count already at its end (all, or k + 1) cannot
 * move, and such a move only re-times what was timed. */
static bool moves_something(const lagger *g, int last_stage, int k, int len, int by)
{
    for (int st = 0; st <= last_stage; st++)
        for (int q = k; q < k + len; q++) {
            int want = q + 1 + g->lag[st * g->M + q] + by;
            if (want >= q + 1 && want <= g->M)
                return true;
        }
    return false;
}

/* Block moves of lags until none pays or the deadline; best is the
 * makespan of the kept orders. */
static double block_search(lagger *g, stage_state *z, double best)
{
    record_rules(g, z);
    for (bool better = true; better;) {
        better = false;
        for (int s2 = 0; s2 < g->stages; s2++)
            for (int k = 0; k < g->M; k++)
                for (int len = 1; len <= BLOCK && k + len <= g->M; len++)
                    for (int by = -1; by <= 1; by += 2) {
                        if (pp_deadline_passed(g->deadline))
                            return best;
                        if (!moves_something(g, s2, k, len, by))
                            continue;
                        shift(g, s2, k, len, by);
                        double t = evaluate(g, z, best - g->tolerance);
                        if (t < best - g->tolerance)
                            best = t, better = true, record_rules(g, z);
                        else
                            shift(g, s2, k, len, -by);
                    }
    }
    return best;
}

/* Moves op at position i of row to position j. */
static void move_in_row(int *row, int i, int j)
{
    int v = row[i];
    if (j < i)
        memmove(row + j + 1, row + j, (size_t)(i - j) * sizeof(int));
    else
        memmove(row + i, row + i + 1, (size_t)(j - i) * sizeof(int));
    row[j] = v;
}

/* Each filler moved up to radius places while the makespan falls and
 * g->ran stays under budget (the kept orders in and out). */
static double climb(lagger *g, stage_state *z, int radius, double best, long budget)
{
    restore_orders(g);
    record_run(g, z, step_order, 0, &g->climbing);
    for (int st = 0; st < g->stages; st++)
        g->changed[st] = g->slots;
    for (bool better = true; better;) {
        better = false;
        for (int st = 0; st < g->stages; st++) {
            int n = g->kept_length[st];
            for (int i = 0; i < n; i++) {
                if (g->role[g->kept[st * g->rows + i]] != FILLER)
                    continue;
                for (int j = i - radius < 0 ? 0 : i - radius; j <= i + radius && j < n; j++) {
                    if (pp_deadline_passed(g->deadline) || g->ran >= budget) {
                        restore_orders(g);
                        return best;
                    }
                    if (j == i)
                        continue;
                    restore_orders(g);
                    move_in_row(g->order + st * g->rows, i, j);
                    g->changed[st] = i < j ? i : j;
                    double t = time_orders(g, z, best - g->tolerance, &g->climbing);
                    g->changed[st] = g->slots;
                    if (t < best - g->tolerance) {
                        best = t, better = true;
                        keep_orders(g);
                        record_run(g, z, step_order, 0, &g->climbing);
                        break;
                    }
                }
            }
        }
    }
    restore_orders(g);
    return best;
}

static bool alloc_record(lagger *g, record *r)
{
    size_t S = (size_t)g->stages, slots = S * g->slots, n = (size_t)g->p->op_count;
    r->snap = grab(g, slots, sizeof(stage_state)), r->examined = grab(g, slots, sizeof(int));
    r->steps = grab(g, S, sizeof(int)), r->step_of = grab(g, n, sizeof(int));
    r->exec = grab(g, slots, sizeof(int)), r->end = grab(g, n, sizeof(double));
    r->exec_stage = grab(g, slots, sizeof(int)), r->exec_at = grab(g, slots, sizeof(int));
    r->order = grab(g, S * g->rows, sizeof(int)), r->queue = grab(g, S * g->M, sizeof(int));
    r->seq = grab(g, S * 2 * g->M, sizeof(int));
    return r->snap && r->examined && r->steps && r->step_of && r->exec && r->exec_stage && r->exec_at && r->end &&
           r->order && r->queue && r->seq;
}

static bool alloc_search(lagger *g)
{
    const pp_sched_problem *p = g->p;
    size_t S = (size_t)g->stages, M = (size_t)g->M, n = (size_t)p->op_count;
    g->rows = 3 * g->M;
    g->seq = grab(g, S * 2 * M, sizeof(int)), g->seq_len = grab(g, S, sizeof(int));
    g->order = grab(g, S * g->rows, sizeof(int)), g->length = grab(g, S, sizeof(int));
    g->kept = grab(g, S * g->rows, sizeof(int)), g->kept_length = grab(g, S, sizeof(int));
    g->queue = grab(g, S * M, sizeof(int)), g->pending = grab(g, n, sizeof(int));
    g->end = grab(g, n, sizeof(double));
    g->stamp = grab(g, n, sizeof(unsigned)), g->pending_stamp = grab(g, n, sizeof(unsigned));
    g->waiting = grab(g, S, sizeof(int)), g->woken = grab(g, S, sizeof(int));
    g->changed = grab(g, S, sizeof(int)), g->first_bad = grab(g, S, sizeof(int));
    g->slots = g->rows + 2;
    for (int r = 0; r <= RULES; r++)
        if (!alloc_record(g, r < RULES ? &g->rules[r] : &g->climbing))
            return false;
    double total = 0;
    for (int i = 0; i < p->op_count; i++)
        total += p->duration[i];
    g->tolerance = 1e-9 * fmax(1, total);
    return g->seq && g->seq_len && g->order && g->length && g->kept && g->kept_length && g->queue &&
           g->pending && g->end && g->stamp && g->pending_stamp && g->waiting && g->woken && g->changed && g->first_bad;
}

/* The kept orders timed by the library and judged by the checker: into s
 * when valid and strictly shorter than it. */
static pp_status adopt(lagger *g, pp_sched_schedule *s, bool *improved, pp_error *err)
{
    const pp_sched_problem *p = g->p;
    size_t D = (size_t)p->device_count;
    int *device = grab(g, (size_t)p->op_count, sizeof(int)), *length = grab(g, D, sizeof(int));
    const int **rows = grab(g, D, sizeof(int *));
    pp_sched_schedule *t = pp_sched_schedule_new(p);
    if (!device || !length || !rows || !t) {
        pp_sched_schedule_free(t);
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    }
    for (int i = 0; i < p->op_count; i++)
        device[i] = g->device[g->stage_of[i]];
    for (int st = 0; st < g->stages; st++)
        rows[g->device[st]] = g->kept + st * g->rows, length[g->device[st]] = g->kept_length[st];
    pp_error why = {0};
    bool valid = sc_times_from_orders(p, device, rows, length, t, &why) == PP_OK;
    if (valid) {
        pp_sched_report report;
        valid = pp_sched_check(p, t, &report, &why) == PP_OK;
        pp_sched_report_free(&report);
    }
    if (valid && pp_sched_makespan(t) < pp_sched_makespan(s) - g->tolerance) {
        pp_sched_schedule_copy(s, t);
        *improved = true;
    }
    pp_sched_schedule_free(t);
    return why.status == PP_ENOMEM ? pp_error_set(err, PP_ENOMEM, "%s", why.message) : PP_OK;
}

/* The block moves from the incumbent's lags, then the filler climb; the
 * answer adopted into s when better. */
static pp_status search(lagger *g, pp_sched_schedule *s, bool *improved, pp_error *err)
{
    stage_state *z = alloc_search(g) ? grab(g, (size_t)g->stages, sizeof *z) : NULL;
    if (!z)
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    double best = evaluate(g, z, INFINITY);
    if (!isfinite(best))
        return PP_OK;
    best = block_search(g, z, best);
    /* Without a deadline, a quarter of the block search's ops. */
    long budget = g->deadline && g->deadline->at > 0 ? LONG_MAX : g->ran + g->ran / 4;
    for (int radius = 1; radius < g->rows && g->ran < budget && !pp_deadline_passed(g->deadline); radius *= 2)
        best = climb(g, z, radius, best, budget);
    return adopt(g, s, improved, err);
}

/* Whether every component is a copy of one template; *M its copies. */
static bool one_template(const sc_copies *c, int n, int *M)
{
    int components = 0;
    *M = c->copies[0];
    for (int i = 0; i < n; i++)
        components += c->component[i] == i;
    for (int k = 0; k < c->classes; k++)
        if (c->copies[k] != *M)
            return false;
    return *M > 1 && components == *M;
}

pp_status sc_lag_search(const pp_sched_problem *p, pp_sched_schedule *s, const pp_deadline *deadline,
                        bool *improved, pp_error *err)
{
    *improved = false;
    lagger g = {.p = p, .deadline = deadline};
    sc_copies c;
    if (p->op_count == 0 || pp_deadline_passed(deadline))
        return PP_OK;
    if (!(g.arena = pp_arena_new(0)))
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    pp_status st = PP_OK;
    /* A failed allocation while recognising (small arrays) reads as no
     * pipeline; the search's own space, as the error it is. */
    if (sc_find_copies(p, g.arena, &c) && one_template(&c, p->op_count, &g.M) && find_stages(&g, &c) &&
        find_copies_order(&g, &c, s) && find_lags(&g, s))
        st = search(&g, s, improved, err);
    pp_arena_free(g.arena);
    return st;
}
