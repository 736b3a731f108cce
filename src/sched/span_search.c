/* span_search.c: searches device orders for the longest per-device span
 * (each device from its first op's start to its last op's end), where
 * span.c only re-times orders it is given. Every op keeps its device.
 *
 * A device's span is its work plus its idle time between its first and
 * last op, so the moves remove idle time, the longest-span devices first:
 *  - re-sequence a device: run its ops again in order without idling while
 *    an op could run, under three rules for which ops may pass the one
 *    whose turn it is (a pipeline's deferred W moves into a drain gap that
 *    re-timing alone cannot give it);
 *  - pull on the chain that fixes when the longest device ends: ops on it
 *    that wait behind an op that feeds nobody elsewhere (a drain's B behind
 *    a deferred W, on every device the B passes) go before it, and the
 *    longest device is re-sequenced on the earlier inputs;
 *  - hurry the chains into the longest device's waiting ops and its last
 *    op: each op on them passes the ops of its device that delay it and
 *    feed no other device, all chains at once;
 *  - fill a gap of the longest device with the first later op that is
 *    ready, or shift that op's kind one place earlier.
 * Each move is timed earliest and kept when the schedule fits memory and
 * the longest span falls, or stays and the summed spans fall (in a second
 * search from the same start, or both stay and the longest device's work
 * ends earlier; a third starts from the greedy's policy with the shortest
 * span; the shortest answer is kept). When no move
 * is kept, the rest of the time goes to kicks (a few adjacent ops swapped
 * on the longest devices, then the same descent; the best kept), until the
 * deadline or KICK_TRIES kicks in a row find nothing shorter. Moving an op earlier past
 * ops that run after its inputs have arrived cannot make the orders
 * deadlock (an op it passes that fed it would have ended before it was
 * ready), and the timer refuses any orders that would. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"
#include "sched/timing.h"

typedef struct {
    const pp_sched_problem *p;
    pp_sched_schedule *kept;  /* the timing of the orders as last accepted */
    const pp_sched_schedule *times; /* the arrivals re-sequencing assumes: kept's, or trial's between rounds */
    unsigned char *done;      /* per op, while re-sequencing: placed */
    double *finish;           /* per op, while re-sequencing: its end */
    int *saved, *scratch;     /* a device's order before and after re-sequencing */
    int *by_span;             /* devices, longest span first */
    int *all_saved;           /* every order before a move on several devices */
    int *best_ops;            /* every order of the best found, while kicking */
    int *chain;               /* ops on the chains hurry_chains moves, earliest first */
    pp_keyed *keyed;          /* the same with their kept starts, to sort them */
    pp_sched_schedule *best;  /* its timing */
    int *device;          /* per op */
    int *ops;             /* every device's order, device after device */
    int *first;           /* per device: offset of its order in ops (device_count + 1 entries) */
    const int **rows;     /* per device: ops + first[d] */
    int *length;          /* per device */
    pp_sched_schedule *trial;
    double max_span, sum_span;
    double front, trial_front; /* the longest device's summed ends from its start: kept, and as last timed */
    bool front_rule;           /* ties on both spans are broken by front */
} span_state;

/* Times the orders into st->trial; false when they deadlock or overflow
 * memory. Timed orders meet every dependency and channel, so only memory is
 * left to test: a device runs its ops one after another, so its levels are
 * the running sums along its order, within the checker's slack. (The whole
 * checker here took 45% of the search's time at P = 32; the answer still
 * goes through it.) */
static bool time_orders(span_state *st, double *max_span, double *sum_span)
{
    const pp_sched_problem *p = st->p;
    pp_error err = {0};
    if (sc_times_from_orders(p, st->device, st->rows, st->length, st->trial, &err) != PP_OK)
        return false;
    *max_span = *sum_span = 0;
    for (int d = 0; d < p->device_count; d++) {
        const int *row = st->rows[d];
        int n = st->length[d];
        double level = 0, limit = p->capacity[d] + sc_memory_slack(p->capacity[d]);
        for (int k = 0; k < n; k++)
            level += p->weight[row[k]];
        for (int k = 0; k < n; k++)
            if ((level += p->adjust[row[k]]) > limit)
                return false;
        double span = n ? st->trial->end[row[n - 1]] - st->trial->start[row[0]] : 0;
        if (span > *max_span) {
            st->trial_front = 0;
            for (int k = 0; k < n; k++)
                st->trial_front += st->trial->end[row[k]] - st->trial->start[row[0]];
        }
        *max_span = fmax(*max_span, span);
        *sum_span += span;
    }
    return true;
}

/* When every input of op x is on its device in the current timing. */
static double ready_at(const span_state *st, int x)
{
    const pp_sched_problem *p = st->p;
    const pp_sched_schedule *t = st->trial;
    double at = 0;
    for (int k = p->pred_start[x]; k < p->pred_start[x + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e];
        at = fmax(at, st->device[u] == st->device[x] ? t->end[u] : t->transfer_end[e]);
    }
    return at;
}

/* Moves the op at position from of device d's order to position to (< from). */
static void move_earlier(span_state *st, int d, int from, int to)
{
    int *row = st->ops + st->first[d];
    int x = row[from];
    memmove(row + to + 1, row + to, (size_t)(from - to) * sizeof(int));
    row[to] = x;
}

static void move_later(span_state *st, int d, int from, int to)
{
    int *row = st->ops + st->first[d];
    int x = row[from];
    memmove(row + from, row + from + 1, (size_t)(to - from) * sizeof(int));
    row[to] = x;
}

/* Times the orders as they now stand and keeps them when the longest span
 * falls, or stays and the summed spans fall; else restores the kept times
 * (the caller restores the orders). */
static bool keep_if_better(span_state *st, double tolerance)
{
    double max_span, sum_span;
    if (time_orders(st, &max_span, &sum_span) &&
        (max_span < st->max_span - tolerance ||
         (max_span <= st->max_span + tolerance &&
          (sum_span < st->sum_span - tolerance ||
           (st->front_rule && sum_span <= st->sum_span + tolerance && st->trial_front < st->front - tolerance))))) {
        st->max_span = max_span, st->sum_span = sum_span, st->front = st->trial_front;
        pp_sched_schedule_copy(st->kept, st->trial);
        return true;
    }
    pp_sched_schedule_copy(st->trial, st->kept);
    return false;
}

/* Whether op u is a direct input of op v. */
static bool depends_on(const span_state *st, int v, int u)
{
    const pp_sched_problem *p = st->p;
    for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++)
        if (p->dep_from[p->pred_dep[k]] == u)
            return true;
    return false;
}

static bool feeds_other_device(const span_state *st, int x)
{
    const pp_sched_problem *p = st->p;
    for (int k = p->succ_start[x]; k < p->succ_start[x + 1]; k++)
        if (st->device[p->dep_to[p->succ_dep[k]]] != st->device[x])
            return true;
    return false;
}

/* When op x of device d could start in the new sequence: its inputs from
 * other devices as they arrive in the kept times, its own device's inputs
 * when they end in the new sequence (INFINITY while one has not run). */
static double input_ready(const span_state *st, int x)
{
    const pp_sched_problem *p = st->p;
    double at = 0;
    for (int k = p->pred_start[x]; k < p->pred_start[x + 1]; k++) {
        int e = p->pred_dep[k], u = p->dep_from[e];
        at = fmax(at, st->device[u] != st->device[x] ? st->times->transfer_end[e] : st->done[u] ? st->finish[u]
                                                                                             : INFINITY);
    }
    return at;
}

/* How a re-sequencing may pass the op whose turn it is (the earliest of
 * the order not yet placed): RESEQ_ANY by any op that could run, RESEQ_LOCAL
 * by ops that feed no other device (so no other device's inputs are traded
 * for this device's gaps), RESEQ_FIT by such ops that end before the op in
 * its turn could start (filling only gaps they fit, as Qi et al.'s W into
 * a gap of at least T_W). */
enum { RESEQ_FIT, RESEQ_LOCAL, RESEQ_ANY, RESEQ_MODES };

/* Device d's ops re-sequenced: at each step the earliest op of its order
 * whose inputs are in (arrivals from other devices as the kept times have
 * them), whose memory fits and that the mode lets pass runs. The new order
 * goes to out; false when the device would stall on memory. */
static bool resequence(span_state *st, int d, int mode, int *out)
{
    const pp_sched_problem *p = st->p;
    const int *row = st->rows[d];
    int n = st->length[d], first = 0;
    double level = 0, capacity = p->capacity[d], slack = sc_memory_slack(capacity);
    for (int k = 0; k < n; k++)
        level += p->weight[row[k]], st->done[row[k]] = 0;
    double now = st->times->start[row[0]];
    for (int placed = 0; placed < n;) {
        while (st->done[row[first]])
            first++;
        int pick = -1;
        double later = INFINITY, turn = INFINITY;  /* the next time an op becomes ready; the turn's */
        for (int j = first; j < n && pick < 0; j++) {
            int x = row[j];
            if (st->done[x] || (mode != RESEQ_ANY && j > first && feeds_other_device(st, x)) ||
                level + p->adjust[x] > capacity + slack)
                continue;
            double ready = input_ready(st, x);
            if (j == first)
                turn = ready;
            if (ready > now || (mode == RESEQ_FIT && j > first && now + p->duration[x] > turn)) {
                later = ready > now ? fmin(later, ready) : later;
                continue;
            }
            pick = x;
        }
        if (pick < 0 && !isfinite(later))
            return false;
        if (pick < 0) {
            now = later;
            continue;
        }
        st->done[pick] = 1;
        st->finish[pick] = now + p->duration[pick];
        now = st->finish[pick];
        level += p->adjust[pick];
        out[placed++] = pick;
    }
    return true;
}

/* Re-sequences device d (resequence) and keeps the result when it beats the kept orders. */
static bool try_resequence(span_state *st, int d, int mode, double tolerance)
{
    int n = st->length[d];
    int *row = st->ops + st->first[d];
    memcpy(st->saved, row, (size_t)n * sizeof(int));
    if (!resequence(st, d, mode, st->scratch) || memcmp(st->scratch, row, (size_t)n * sizeof(int)) == 0)
        return false;
    memcpy(row, st->scratch, (size_t)n * sizeof(int));
    if (keep_if_better(st, tolerance))
        return true;
    memcpy(row, st->saved, (size_t)n * sizeof(int));
    return false;
}

static double span_of(const span_state *st, int d)
{
    const int *row = st->rows[d];
    return st->length[d] ? st->kept->end[row[st->length[d] - 1]] - st->kept->start[row[0]] : 0;
}

/* Every op of device d from position j on of the same kind as the one at j
 * (op_kind: the pipeline's forward, backward, weight) swaps with the op
 * before it unless that one is of the kind too, so the kind's ops all come
 * one place earlier, the first into the gap after position i: moving one op
 * into a gap only opens a gap where it was when its kind comes in a rhythm
 * (F B F B), shifting the rhythm by one does not. Kept when it beats the
 * kept orders. */
static bool shift_kind(span_state *st, int d, int j, double tolerance)
{
    int n = st->length[d];
    int *row = st->ops + st->first[d];
    const char *kind = st->p->op_kind[row[j]];
    memcpy(st->saved, row, (size_t)n * sizeof(int));
    for (int k = j; k < n; k++)
        if (strcmp(st->p->op_kind[row[k]], kind) == 0 && strcmp(st->p->op_kind[row[k - 1]], kind) != 0) {
            int x = row[k];
            row[k] = row[k - 1], row[k - 1] = x;
        }
    if (keep_if_better(st, tolerance))
        return true;
    memcpy(row, st->saved, (size_t)n * sizeof(int));
    return false;
}

/* Tries the gaps of device d in time order; true when a move was kept. The
 * gap's tolerance follows the checker's: shorter idle times are rounding. */
static bool fill_one_gap(span_state *st, int d, double tolerance, const pp_deadline *deadline)
{
    int n = st->length[d];
    for (int i = 0; i + 1 < n && !pp_deadline_passed(deadline); i++) {
        const int *row = st->rows[d];
        double gap_at = st->trial->end[row[i]];
        if (st->trial->start[row[i + 1]] <= gap_at + tolerance)
            continue;
        int j = i + 2;
        while (j < n && ready_at(st, row[j]) > gap_at + tolerance)
            j++;
        if (j >= n)
            continue;
        move_earlier(st, d, j, i + 1);
        if (keep_if_better(st, tolerance))
            return true;
        move_later(st, d, i + 1, j);
        if (j == i + 2 && shift_kind(st, d, j, tolerance))
            return true;
    }
    return false;
}

/* Device orders from s: its ops by start (then end), as the search's lists are. */
static bool load_orders(span_state *st, const pp_sched_schedule *s)
{
    const pp_sched_problem *p = st->p;
    int n = p->op_count, D = p->device_count;
    for (int i = 0; i < n; i++)
        st->device[i] = s->device[i], st->length[s->device[i]]++;
    st->first[0] = 0;
    for (int d = 0; d < D; d++)
        st->first[d + 1] = st->first[d] + st->length[d], st->rows[d] = st->ops + st->first[d];
    sc_solution list = {0};
    int *fill = calloc((size_t)D + 1, sizeof(int));
    bool ok = fill && sc_solution_alloc(&list, n) && sc_solution_from_schedule(p, s, &list);
    for (int k = 0; ok && k < n; k++) {
        int x = list.list[k], d = s->device[x];
        st->ops[st->first[d] + fill[d]++] = x;
    }
    free(fill);
    sc_solution_free(&list);
    return ok;
}

/* The chain of inputs that ends at device d's last op, walked back through
 * each op's latest input. Every op on it, off device d, that starts right
 * after a previous op of its device that neither feeds it nor feeds
 * another device (the drain's B behind a deferred W, on every device the B
 * passes) is put before that op, all at once, since removing one such wait
 * leaves the chain on the next; device d itself is then re-sequenced on the
 * earlier inputs (its own W filled the wait; now it must fill it anew).
 * Kept when it beats the kept orders. */
static bool pull_on_chain(span_state *st, int d, double tolerance)
{
    const pp_sched_problem *p = st->p;
    const pp_sched_schedule *t = st->kept;
    size_t bytes = (size_t)p->op_count * sizeof(int);
    memcpy(st->all_saved, st->ops, bytes);
    int v = st->length[d] ? st->rows[d][st->length[d] - 1] : -1, swaps = 0;
    for (int steps = 0; v >= 0 && steps < p->op_count; steps++) {
        int dv = st->device[v], *row = st->ops + st->first[dv], at = 0;
        while (row[at] != v)
            at++;
        int prev = at > 0 ? row[at - 1] : -1, next = -1;
        if (dv != d && prev >= 0 && t->end[prev] >= t->start[v] - tolerance && !feeds_other_device(st, prev) &&
            !depends_on(st, v, prev)) {
            row[at - 1] = v, row[at] = prev;
            swaps++;
        }
        double latest = -INFINITY;
        for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
            int e = p->pred_dep[k], u = p->dep_from[e];
            double in = st->device[u] != dv ? t->transfer_end[e] : t->end[u];
            if (in > latest)
                latest = in, next = u;
        }
        v = next;
    }
    /* The longest device then runs without idling on the earlier inputs. */
    double max_span, sum_span;
    if (swaps > 0 && time_orders(st, &max_span, &sum_span)) {
        st->times = st->trial;
        if (resequence(st, d, RESEQ_LOCAL, st->scratch))
            memcpy(st->ops + st->first[d], st->scratch, (size_t)st->length[d] * sizeof(int));
        st->times = st->kept;
        if (keep_if_better(st, tolerance))
            return true;
    }
    pp_sched_schedule_copy(st->trial, st->kept);
    memcpy(st->ops, st->all_saved, bytes);
    return false;
}

/* Appends to st->chain, from index count on, the chain of inputs that ends
 * at op v, walked back through each op's latest input in the kept times;
 * ops already on it (st->done) end the walk. Returns the new length. */
static int collect_chain(span_state *st, int v, int count)
{
    const pp_sched_problem *p = st->p;
    const pp_sched_schedule *t = st->kept;
    while (v >= 0 && !st->done[v]) {
        st->done[v] = 1;
        st->chain[count++] = v;
        int next = -1;
        double latest = -INFINITY;
        for (int k = p->pred_start[v]; k < p->pred_start[v + 1]; k++) {
            int e = p->pred_dep[k], u = p->dep_from[e];
            double in = st->device[u] != st->device[v] ? t->transfer_end[e] : t->end[u];
            if (in > latest)
                latest = in, next = u;
        }
        v = next;
    }
    return count;
}

/* The chains into device d's ops that wait (start after an idle gap) and
 * into its last op, as one list in kept start order; returns its length. */
static int waiting_chains(span_state *st, int d, double tolerance)
{
    const int *row = st->rows[d];
    int n = st->length[d], count = 0;
    memset(st->done, 0, (size_t)st->p->op_count);  /* resequence leaves it set */
    for (int k = 0; k < n; k++)
        if (k == n - 1 || (k > 0 && st->kept->start[row[k]] > st->kept->end[row[k - 1]] + tolerance))
            count = collect_chain(st, row[k], count);
    for (int c = 0; c < count; c++)
        st->done[st->chain[c]] = 0, st->keyed[c] = (pp_keyed){st->kept->start[st->chain[c]], st->chain[c]};
    qsort(st->keyed, (size_t)count, sizeof *st->keyed, pp_by_key_then_index);
    for (int c = 0; c < count; c++)
        st->chain[c] = st->keyed[c].index;
    return count;
}

/* Hurries the chains into device d's waiting ops and its last op: earliest
 * first, each op on them goes before every op of its device that it waits
 * behind, that is an op ending after the chain op's inputs are in, feeding
 * no other device and not its input (a drain's B that a W delays on one
 * device in ten: no single swap shortens the longest span, all of them
 * together do). The orders are re-timed after each op moved, so the next
 * one is placed on the chains' new times. Kept when it beats the kept
 * orders. */
static bool hurry_chains(span_state *st, int d, double tolerance, const pp_deadline *deadline)
{
    size_t bytes = (size_t)st->p->op_count * sizeof(int);
    int count = waiting_chains(st, d, tolerance), moved = 0;
    double max_span = 0, sum_span = 0;
    memcpy(st->all_saved, st->ops, bytes);
    pp_sched_schedule_copy(st->trial, st->kept);
    bool timed = true;
    for (int c = 0; c < count && timed; c++) {
        if (pp_deadline_passed(deadline)) {  /* each op moved costs a re-timing: 169 at P = 32 */
            timed = false;
            break;
        }
        int v = st->chain[c], dv = st->device[v], *row = st->ops + st->first[dv], at = 0, swaps = 0;
        while (row[at] != v)
            at++;
        double ready = ready_at(st, v);
        for (; at > 0; at--, swaps++) {
            int prev = row[at - 1];
            if (feeds_other_device(st, prev) || depends_on(st, v, prev) || st->trial->end[prev] <= ready + tolerance)
                break;
            row[at - 1] = v, row[at] = prev;
        }
        if (swaps == 0)
            continue;
        if (time_orders(st, &max_span, &sum_span)) {
            moved++;
            continue;
        }
        /* Memory did not allow it (a raising op hurried at the limit): undone. */
        memmove(row + at, row + at + 1, (size_t)swaps * sizeof(int));
        row[at + swaps] = v;
        timed = time_orders(st, &max_span, &sum_span);
    }
    if (moved > 0 && timed && keep_if_better(st, tolerance))
        return true;
    pp_sched_schedule_copy(st->trial, st->kept);
    memcpy(st->ops, st->all_saved, bytes);
    return false;
}

/* One kept move: a re-sequencing of a device, the longest-span devices
 * first (another device's may bring the longest one its inputs sooner),
 * else a pull on the longest device's chain, else a gap of it filled. */
static bool improve_once(span_state *st, double tolerance, const pp_deadline *deadline)
{
    int D = st->p->device_count;
    for (int d = 0; d < D; d++)
        st->by_span[d] = d;
    for (int a = 1; a < D; a++)  /* insertion sort: D is small */
        for (int b = a; b > 0 && span_of(st, st->by_span[b]) > span_of(st, st->by_span[b - 1]); b--) {
            int keep = st->by_span[b];
            st->by_span[b] = st->by_span[b - 1], st->by_span[b - 1] = keep;
        }
    for (int k = 0; k < D && !pp_deadline_passed(deadline); k++)
        for (int mode = 0; mode < RESEQ_MODES && st->length[st->by_span[k]] > 0; mode++)
            if (try_resequence(st, st->by_span[k], mode, tolerance))
                return true;
    if (pull_on_chain(st, st->by_span[0], tolerance) || hurry_chains(st, st->by_span[0], tolerance, deadline))
        return true;
    return fill_one_gap(st, st->by_span[0], tolerance, deadline);
}

/* Descends from the kept orders: moves until none is kept or the deadline. */
static long descend(span_state *st, double tolerance, const pp_deadline *deadline)
{
    long moves = 0;
    while (!pp_deadline_passed(deadline) && improve_once(st, tolerance, deadline))
        moves++;
    return moves;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return *state;
}

/* A kick out of a local optimum: KICK_SWAPS adjacent ops swapped, each on
 * one of the KICK_DEVICES longest-span devices, neither an input of the
 * other; kept, worse or not, when the orders still time and fit memory.
 * The search stops after KICK_TRIES kicks in a row that find nothing
 * better, so that without a deadline it still ends. */
enum { KICK_SWAPS = 3, KICK_DEVICES = 4, KICK_TRIES = 100 };

static bool kick(span_state *st, uint64_t *rng)
{
    const pp_sched_problem *p = st->p;
    size_t bytes = (size_t)p->op_count * sizeof(int);
    memcpy(st->all_saved, st->ops, bytes);
    int top = p->device_count < KICK_DEVICES ? p->device_count : KICK_DEVICES;
    for (int k = 0; k < KICK_SWAPS; k++) {
        int d = st->by_span[next_random(rng) % (uint64_t)top], n = st->length[d];
        if (n < 2)
            continue;
        int j = 1 + (int)(next_random(rng) % (uint64_t)(n - 1));
        int *row = st->ops + st->first[d];
        if (!depends_on(st, row[j], row[j - 1])) {
            int x = row[j];
            row[j] = row[j - 1], row[j - 1] = x;
        }
    }
    double max_span, sum_span;
    if (time_orders(st, &max_span, &sum_span)) {
        st->max_span = max_span, st->sum_span = sum_span, st->front = st->trial_front;
        pp_sched_schedule_copy(st->kept, st->trial);
        return true;
    }
    pp_sched_schedule_copy(st->trial, st->kept);
    memcpy(st->ops, st->all_saved, bytes);
    return false;
}

/* Iterated descent: kick the best orders, descend, keep what beats them
 * (a descent alone stops in a local optimum: 2.67% span bubble at P = 32
 * with 2P activations, reached in a few seconds of a minute). Returns the
 * moves kept. */
static long kick_and_descend(span_state *st, double tolerance, const pp_deadline *deadline)
{
    const pp_sched_problem *p = st->p;
    size_t bytes = (size_t)p->op_count * sizeof(int);
    double best_span = st->max_span, best_sum = st->sum_span, best_front = st->front;
    memcpy(st->best_ops, st->ops, bytes);
    pp_sched_schedule_copy(st->best, st->kept);
    long kept = 0;
    uint64_t rng = 0x9E3779B97F4A7C15u;
    for (int fruitless = 0; fruitless < KICK_TRIES && !pp_deadline_passed(deadline); fruitless++) {
        if (kick(st, &rng))
            descend(st, tolerance, deadline);
        if (st->max_span < best_span - tolerance) {
            best_span = st->max_span, best_sum = st->sum_span, best_front = st->front;
            memcpy(st->best_ops, st->ops, bytes);
            pp_sched_schedule_copy(st->best, st->kept);
            kept++, fruitless = -1;
        } else {
            memcpy(st->ops, st->best_ops, bytes);
            st->max_span = best_span, st->sum_span = best_sum, st->front = best_front;
            pp_sched_schedule_copy(st->kept, st->best);
        }
        pp_sched_schedule_copy(st->trial, st->kept);
    }
    return kept;
}

/* The longest span of s and its makespan, after re-timing (span.c). */
static bool compacted(const pp_sched_problem *p, pp_sched_schedule *s, double *span, double *makespan)
{
    pp_error err = {0};
    if (sc_compact_spans(p, s, &err) != PP_OK)
        return false;
    pp_sched_report report;
    bool ok = pp_sched_check(p, s, &report, &err) == PP_OK;
    *span = report.max_span, *makespan = report.makespan;
    pp_sched_report_free(&report);
    return ok;
}

/* Spans during the search are measured on earliest times, which re-timing
 * shortens: a kick can find orders shorter there that re-time no shorter
 * and end later (a device's lone op moved after the op it waited before).
 * So the descent's orders and the kicks' best are both re-timed, and the
 * kicks' kept only when their longest span is shorter, or as short with
 * an earlier end. */
static bool kicks_win(const pp_sched_problem *p, pp_sched_schedule *descended, pp_sched_schedule *kicked,
                      double tolerance)
{
    double span_d, end_d, span_k, end_k;
    if (!compacted(p, descended, &span_d, &end_d) || !compacted(p, kicked, &span_k, &end_k))
        return false;
    return span_k < span_d - tolerance || (span_k <= span_d + tolerance && end_k < end_d - tolerance);
}

/* One search of the orders from s (its answer into s when it is shorter);
 * false when the orders cannot be loaded (out of memory). */
static bool search_from(span_state *st, pp_sched_schedule *s, const pp_deadline *deadline, bool *improved)
{
    const pp_sched_problem *p = st->p;
    memset(st->length, 0, (size_t)p->device_count * sizeof(int));
    if (!load_orders(st, s))
        return false;
    if (!time_orders(st, &st->max_span, &st->sum_span))
        return true;
    st->front = st->trial_front;
    for (int d = 0; d < p->device_count; d++)
        st->by_span[d] = d;
    st->times = st->kept;
    double start_span = st->max_span, tolerance = 1e-9 * fmax(1, st->max_span);
    pp_sched_schedule_copy(st->kept, st->trial);
    if (descend(st, tolerance, deadline) > 0)
        pp_sched_schedule_copy(s, st->kept);
    *improved = st->max_span < start_span - tolerance;
    if (kick_and_descend(st, tolerance, deadline) > 0 && kicks_win(p, s, st->kept, tolerance)) {
        pp_sched_schedule_copy(s, st->kept);
        *improved = true;
    }
    return true;
}

/* Comparing answers re-times them (span.c, a bisection), which at P = 64
 * under load takes seconds: the searches leave room for COMPACTIONS of
 * them, each as long as the first (two per search, two for each comparison
 * of the searches' answers, one for solve.c's last), or are left out when
 * there is none; the span start leaves room for START_COMPACTIONS (its
 * own, one comparison, solve.c's last). Kept half the time, a 60 s run
 * took 69-87 s there. */
enum { COMPACTIONS = 11, START_COMPACTIONS = 4 };

/* The three searches of sc_span_search when the greedy's span start
 * (other, if found) is off the bound: from s under each acceptance rule,
 * then from other; the shortest answer into s. */
static pp_status search_three(span_state *st, pp_sched_schedule *s, pp_sched_schedule *other, bool other_found,
                              double compaction, const pp_deadline *deadline, bool *improved, pp_error *err)
{
    const pp_sched_problem *p = st->p;
    pp_sched_schedule *fronted = pp_sched_schedule_new(p);
    if (!fronted)
        return pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    pp_status status = PP_OK;
    double left = pp_deadline_left(deadline) - COMPACTIONS * compaction;
    pp_sched_schedule_copy(fronted, s);
    pp_deadline first = pp_deadline_within(deadline, left / 3), second = pp_deadline_within(deadline, 2 * left / 3);
    pp_deadline third = pp_deadline_within(deadline, left);
    bool plain_improved = false, front_improved = false, other_improved = false, searching = left > 0;
    double tolerance = 1e-9 * fmax(1, pp_sched_makespan(s));
    if (status == PP_OK && !searching) {
        if (other_found && kicks_win(p, s, other, tolerance))
            pp_sched_schedule_copy(s, other), *improved = true;
        pp_sched_schedule_free(fronted);
        return status;
    }
    if (status != PP_OK || !search_from(st, s, &first, &plain_improved) ||
        (st->front_rule = true, !search_from(st, fronted, &second, &front_improved)))
        status = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    else if (front_improved && (!plain_improved || kicks_win(p, s, fronted, tolerance)))
        pp_sched_schedule_copy(s, fronted);
    *improved = plain_improved || front_improved;
    st->front_rule = false;
    if (status == PP_OK && other_found && !search_from(st, other, &third, &other_improved))
        status = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    if (status == PP_OK && other_found && kicks_win(p, s, other, tolerance)) {
        pp_sched_schedule_copy(s, other);
        *improved = true;
    }
    pp_sched_schedule_free(fronted);
    return status;
}

pp_status sc_span_search(const pp_sched_problem *p, pp_sched_schedule *s, const pp_deadline *deadline,
                            bool *improved, pp_error *err)
{
    int n = p->op_count, D = p->device_count;
    span_state st = {.p = p};
    st.device = malloc(((size_t)n + 1) * sizeof(int));
    st.ops = malloc(((size_t)n + 1) * sizeof(int));
    st.first = malloc(((size_t)D + 1) * sizeof(int));
    st.rows = malloc(((size_t)D + 1) * sizeof *st.rows);
    st.length = calloc((size_t)D + 1, sizeof(int));
    st.trial = pp_sched_schedule_new(p);
    st.kept = pp_sched_schedule_new(p);
    st.best = pp_sched_schedule_new(p);
    st.done = calloc((size_t)n + 1, 1);
    st.finish = malloc(((size_t)n + 1) * sizeof(double));
    st.saved = malloc(((size_t)n + 1) * sizeof(int));
    st.scratch = malloc(((size_t)n + 1) * sizeof(int));
    st.by_span = malloc(((size_t)D + 1) * sizeof(int));
    st.all_saved = malloc(((size_t)n + 1) * sizeof(int));
    st.best_ops = malloc(((size_t)n + 1) * sizeof(int));
    st.chain = malloc(((size_t)n + 1) * sizeof(int));
    st.keyed = malloc(((size_t)n + 1) * sizeof *st.keyed);
    pp_sched_schedule *fronted = pp_sched_schedule_new(p);
    pp_status status = PP_OK;
    *improved = false;
    if (!st.device || !st.ops || !st.first || !st.rows || !st.length || !st.trial || !st.kept || !st.done ||
        !st.finish || !st.saved || !st.scratch || !st.by_span || !st.all_saved || !st.best_ops || !st.best ||
        !st.chain || !st.keyed || !fronted) {
        status = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
    } else {
        /* The greedy's span start first (greedy.c's FILL_RESERVE policies):
         * when it re-times onto the span bound nothing can beat it (P = 32
         * at 2P: 1.83%, where 60 s of search from s stopped at 2.30%).
         * Else a third of the time for each acceptance rule from s, and one
         * for the greedy's start, when it differs (neither rule nor start
         * wins everywhere: BENCHMARKS.md, issue 17); the best answer kept.
         * The start may take half the time left after its re-timings (its
         * policies take 5-8 s at P = 64 with 256 micro-batches). */
        bool other_found = false;
        double other_span = INFINITY, other_end, bound = pp_sched_span_lower_bound(p);
        double timed_at = pp_now();
        if (sc_compact_spans(p, s, err) != PP_OK)
            status = PP_ENOMEM;
        double compaction = pp_now() - timed_at;
        double room = pp_deadline_left(deadline) - START_COMPACTIONS * compaction;
        pp_deadline half = pp_deadline_within(deadline, room > 0 ? 0.5 * room : 1e-9);
        if (status == PP_OK && !sc_construct_greedy_span(p, &half, fronted, &other_found))
            status = pp_error_set(err, PP_ENOMEM, "scheduler: out of memory");
        else if (other_found && !compacted(p, fronted, &other_span, &other_end))
            other_found = false;
        if (status == PP_OK && other_found && other_span <= bound * (1 + 1e-9)) {
            pp_sched_schedule_copy(s, fronted);
            *improved = true;
        } else if (status == PP_OK) {
            status = search_three(&st, s, fronted, other_found, compaction, deadline, improved, err);
        }
    }
    pp_sched_schedule_free(fronted);
    free(st.device), free(st.ops), free(st.first), free(st.rows), free(st.length);
    free(st.done), free(st.finish), free(st.saved), free(st.scratch), free(st.by_span);
    free(st.all_saved), free(st.best_ops), free(st.chain), free(st.keyed);
    pp_sched_schedule_free(st.trial);
    pp_sched_schedule_free(st.kept);
    pp_sched_schedule_free(st.best);
    return status;
}
