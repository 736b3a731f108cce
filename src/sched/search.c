/* search.c: local search over (device per op, priority list), one instance
 * per worker. Late-acceptance hill climbing: a move is kept when the result
 * is no worse than the current solution or than the solution of L moves ago,
 * which lets the search walk the wide plateaus of equal makespan that
 * pipelines have. Moves, each undone when rejected:
 *  - shift: an op to another place in its precedence window;
 *  - pull: an op on the critical chain whose start waits for its device's
 *    previous op is put before that op (or that op after it);
 *  - move: an op with a choice of devices to another one, shifted too;
 *  - relieve (while memory overflows): an op that raised the overflowing
 *    device's level shortly before the overflow goes after it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/solver.h"

/* A move decodes the whole graph, so the deadline is looked at every
 * STOP_WORK ops and edges of decoding (about a millisecond), at most every
 * STOP_EVERY moves: at P = 64 of 256 micro-batches a move takes 5-8 ms, and
 * 256 of them ran 1.5 s past the limit. */
enum { HISTORY = 1000, STOP_EVERY = 256, STOP_WORK = 100000 };

struct sc_search {
    const pp_sched_problem *p;
    sc_decoder dec;
    sc_solution cur, best;
    sc_cost cur_cost, best_cost;
    sc_cost history[HISTORY];
    long iteration;
    int *pos;         /* op -> index in cur.list */
    int *chain;       /* scratch: the critical chain */
    int *flexible;    /* ops with a choice of device */
    int flexible_count;
    int *anywhere;    /* where an op that may run on any device may move: the devices in play */
    int anywhere_count;
    pp_rng rng;
};

static sc_cost evaluate(sc_search *s)
{
    sc_decode(&s->dec, &s->cur);
    return sc_cost_of(&s->dec);
}

double sc_search_best_cost(const sc_search *s)
{
    const sc_cost *c = &s->best_cost;
    return c->broken || c->overflow > 0 ? INFINITY : c->makespan;
}

const sc_solution *sc_search_best(const sc_search *s) { return &s->best; }

static void index_positions(sc_search *s)
{
    for (int k = 0; k < s->p->op_count; k++)
        s->pos[s->cur.list[k]] = k;
}

static void reset_history(sc_search *s)
{
    for (int k = 0; k < HISTORY; k++)
        s->history[k] = s->cur_cost;
}

sc_search *sc_search_new(const pp_sched_problem *p, const sc_solution *start, uint64_t seed, int worker)
{
    sc_search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->p = p;
    size_t n = (size_t)p->op_count + 1;
    s->pos = malloc(n * sizeof(int));
    s->chain = malloc(n * sizeof(int));
    s->flexible = malloc(n * sizeof(int));
    s->anywhere = malloc(((size_t)p->device_count + 1) * sizeof(int));
    unsigned char *in_play = malloc((size_t)p->device_count + 1);
    bool ok = in_play && s->anywhere && sc_devices_in_play(p, in_play);
    for (int d = 0; ok && d < p->device_count; d++)
        if (in_play[d])
            s->anywhere[s->anywhere_count++] = d;
    free(in_play);
    if (!ok || !s->pos || !s->chain || !s->flexible || !sc_decoder_init(&s->dec, p) ||
        !sc_solution_alloc(&s->cur, p->op_count) || !sc_solution_alloc(&s->best, p->op_count)) {
        sc_search_free(s);
        return NULL;
    }
    for (int i = 0; i < p->op_count; i++)
        if (sc_forced_device(p, i) < 0)
            s->flexible[s->flexible_count++] = i;
    pp_rng_seed(&s->rng, seed, (uint64_t)worker);
    sc_search_restart_from(s, start);
    return s;
}

void sc_search_restart_from(sc_search *s, const sc_solution *from)
{
    sc_solution_copy(&s->cur, from, s->p->op_count);
    sc_solution_copy(&s->best, from, s->p->op_count);
    index_positions(s);
    s->cur_cost = s->best_cost = evaluate(s);
    reset_history(s);
}

void sc_search_free(sc_search *s)
{
    if (!s)
        return;
    sc_decoder_free(&s->dec);
    sc_solution_free(&s->cur);
    sc_solution_free(&s->best);
    free(s->pos);
    free(s->chain);
    free(s->flexible);
    free(s->anywhere);
    free(s);
}

/* Positions op i may take: after all its predecessors, before all its
 * successors. */
static void window(const sc_search *s, int i, int *lo, int *hi)
{
    const pp_sched_problem *p = s->p;
    *lo = 0;
    *hi = p->op_count - 1;
    for (int k = p->pred_start[i]; k < p->pred_start[i + 1]; k++) {
        int at = s->pos[p->dep_from[p->pred_dep[k]]] + 1;
        if (at > *lo)
            *lo = at;
    }
    for (int k = p->succ_start[i]; k < p->succ_start[i + 1]; k++) {
        int at = s->pos[p->dep_to[p->succ_dep[k]]] - 1;
        if (at < *hi)
            *hi = at;
    }
}

/* Moves the op at index a to index b, shifting those between. */
static void shift(sc_search *s, int a, int b)
{
    int *list = s->cur.list, op = list[a];
    if (a < b) {
        memmove(list + a, list + a + 1, (size_t)(b - a) * sizeof(int));
        for (int k = a; k < b; k++)
            s->pos[list[k]] = k;
    } else if (a > b) {
        memmove(list + b + 1, list + b, (size_t)(a - b) * sizeof(int));
        for (int k = b + 1; k <= a; k++)
            s->pos[list[k]] = k;
    }
    list[b] = op;
    s->pos[op] = b;
}

/* The ops of the critical chain that wait for their device's previous op.
 * The decoder last ran on the latest candidate, which may have been undone:
 * the chain is then a move old, which only makes the pull a guess. Windows
 * are always taken from the current list, so every move stays valid. */
static int device_bound_chain(sc_search *s)
{
    int count = 0;
    for (int v = s->dec.last_op; v >= 0; v = s->dec.binding[v])
        if (s->dec.bound_by_device[v])
            s->chain[count++] = v;
    return count;
}

typedef struct {
    int op, from, to, old_device;
} move;

static move random_shift(sc_search *s, int op)
{
    int lo, hi;
    window(s, op, &lo, &hi);
    int to = lo + (int)pp_rng_below(&s->rng, (uint32_t)(hi - lo + 1));
    move m = {op, s->pos[op], to, s->cur.device[op]};
    shift(s, m.from, m.to);
    return m;
}

/* Puts v before u (its device predecessor), or u after v. The decode that
 * named u may be a move old, so both targets are checked against the whole
 * window. */
static move pull(sc_search *s, int v)
{
    int u = s->dec.binding[v], lo, hi;
    if (u < 0)
        return random_shift(s, v);
    window(s, v, &lo, &hi);
    if (s->pos[u] >= lo && s->pos[u] <= hi) {
        move m = {v, s->pos[v], s->pos[u], s->cur.device[v]};
        shift(s, m.from, m.to);
        return m;
    }
    window(s, u, &lo, &hi);
    if (s->pos[v] >= lo && s->pos[v] <= hi) {
        move m = {u, s->pos[u], s->pos[v], s->cur.device[u]};
        shift(s, m.from, m.to);
        return m;
    }
    return random_shift(s, v);
}

static move relocate(sc_search *s, int op)
{
    const pp_sched_problem *p = s->p;
    int a = p->allowed_start[op], z = p->allowed_start[op + 1], d;
    if (z > a)
        d = p->allowed_device[a + (int)pp_rng_below(&s->rng, (uint32_t)(z - a))];
    else
        d = s->anywhere[pp_rng_below(&s->rng, (uint32_t)s->anywhere_count)];
    move m = random_shift(s, op);
    s->cur.device[op] = d;
    return m;
}

/* The last op before the first overflow that raised the same device's level
 * and may move past it goes to a random place after it. */
static move relieve(sc_search *s, int over)
{
    const int *list = s->cur.list;
    int device = s->cur.device[over], lo, hi;
    for (int k = s->pos[over]; k >= 0; k--) {
        int u = list[k];
        if (s->cur.device[u] != device || s->p->adjust[u] <= 0)
            continue;
        window(s, u, &lo, &hi);
        if (hi > s->pos[over]) {
            int to = s->pos[over] + 1 + (int)pp_rng_below(&s->rng, (uint32_t)(hi - s->pos[over]));
            move m = {u, s->pos[u], to, device};
            shift(s, m.from, m.to);
            return m;
        }
    }
    return random_shift(s, over);
}

static move propose(sc_search *s)
{
    uint32_t r = pp_rng_below(&s->rng, 100);
    if (s->cur_cost.overflow > 0 && s->dec.first_over >= 0 && r < 50)
        return relieve(s, s->dec.first_over);
    if (s->flexible_count && r < 30)
        return relocate(s, s->flexible[pp_rng_below(&s->rng, (uint32_t)s->flexible_count)]);
    if (r < 65) {
        int count = device_bound_chain(s);
        if (count)
            return pull(s, s->chain[pp_rng_below(&s->rng, (uint32_t)count)]);
    }
    return random_shift(s, (int)pp_rng_below(&s->rng, (uint32_t)s->p->op_count));
}

static void undo(sc_search *s, move m)
{
    shift(s, m.to, m.from);
    s->cur.device[m.op] = m.old_device;
}

long sc_search_run(sc_search *s, long iterations, const pp_deadline *deadline)
{
    if (s->p->op_count < 2)
        return 0;
    long k = 0, every = 1 + STOP_WORK / ((long)s->p->op_count + s->p->dep_count);
    if (every > STOP_EVERY)
        every = STOP_EVERY;
    for (; k < iterations; k++, s->iteration++) {
        /* An epoch is sized to ~0.1 s, but a stop must not wait for it on a
         * loaded machine or a slow decode. */
        if (k % every == 0 && pp_deadline_passed(deadline))
            break;
        move m = propose(s);
        sc_cost c = evaluate(s);
        sc_cost *old = &s->history[s->iteration % HISTORY];
        if (sc_cost_compare(c, s->cur_cost) <= 0 || sc_cost_compare(c, *old) <= 0) {
            s->cur_cost = c;
            if (sc_cost_compare(c, s->best_cost) < 0) {
                s->best_cost = c;
                sc_solution_copy(&s->best, &s->cur, s->p->op_count);
            }
        } else {
            undo(s, m);
        }
        if (sc_cost_compare(s->cur_cost, *old) < 0)
            *old = s->cur_cost;
    }
    /* The decoder's state must describe cur for the next pull. */
    evaluate(s);
    return k;
}
