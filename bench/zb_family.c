/* zb_family.c: bench/sched-zb-family's program (issue 29). An experiment,
 * not the scheduler: whole zero-bubble schedules built from a few numbers
 * per stage, to see whether schedules of the lower bound's shape beat the
 * zero-bubble heuristic at an activation budget of P micro-batches.
 *
 * The family. Each stage runs its F's and B's in micro-batch order; before
 * its B_k it has run k + 1 + lag[s][k] forwards (capped by M, at least
 * k + 1, never fewer than before). W's are placed by time: before an F
 * that needs their memory; into the wait for the next F/B op's input when
 * they fit it (or into any wait, or never: three rules); after the stage's
 * last F into any wait, or as before (two rules); the rest at the end. The six rules are tried and the shortest kept; with a radius > 0,
 * each W is then moved up to that many places (a hill climb). The orders
 * are timed as early as they allow (transfers are delays: each channel
 * carries one kind in one direction, in op order, so none queue).
 *
 * The search. From the heuristic's lags (read from its orders on stdin,
 * one line per stage, "F0 F1 B0 W0 ..."), every block move: lag - 1 or
 * + 1 on stages 0..s2 for backwards k..k+len-1 (len <= 4), kept when the
 * makespan falls, until none does. Stages change together: the optimum at
 * P = 5, M = 9 is the heuristic with lag - 1 on stages 0-3 at k = 3, 4
 * (BENCHMARKS.md).
 *
 *   zb_family P M RADIUS TF TB TW COMM WMEM OUT.json [SECONDS] < orders
 * prints "start X", each kept move, "best X" (the search stops after
 * SECONDS of CPU time when given); OUT.json is the schedule in
 * parplan's format (ops and transfers, names F{m}.{s} as `gen pipeline`
 * writes them), for `parplan check-schedule`. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXP = 64, MAXM = 256, LEN = 3 * MAXM, W0 = 100000 };

static int P, M;
static double tf, tb, tw, comm, wmem, cap;
static int lag[MAXP][MAXM];
static int order[MAXP][LEN];  /* F m: m, B m: -1 - m, W m: W0 + m */
static double start_f[MAXP][MAXM], start_b[MAXP][MAXM], start_w[MAXP][MAXM];

/* The F/B sequence of stage s from its lags, into seq; its length. */
static int fb_sequence(int s, int *seq)
{
    int n = 0, f = 0;
    for (int k = 0; k < M; k++) {
        int want = k + 1 + lag[s][k];
        want = want > M ? M : want < k + 1 ? k + 1 : want;
        while (f < want)
            seq[n++] = f++;
        seq[n++] = -1 - k;
    }
    return n;
}

/* The input arrival of F/B op x on stage s, -1 when its input is not timed. */
static double arrival(int s, int x, double end_f[][MAXM], double end_b[][MAXM])
{
    if (x >= 0)
        return s == 0 ? 0 : end_f[s - 1][x] < 0 ? -1 : end_f[s - 1][x] + comm;
    int m = -1 - x;
    if (s == P - 1)
        return end_f[s][m];
    return end_b[s + 1][m] < 0 ? -1 : end_b[s + 1][m] + comm;
}

/* Builds every stage's order from the lags, W's by rule (pre: 0 fits the
 * wait, 1 any wait, 2 memory only; post, after the last F: 0 as pre, 1 any
 * wait), into order.
 * false: a stage overflows or the sequences deadlock. */
static bool place_by_rule(int pre, int post)
{
    static int seq[MAXP][LEN], n[MAXP], pos[MAXP], wq[MAXP][MAXM], wh[MAXP], wt[MAXP], fdone[MAXP], len[MAXP];
    static double end_f[MAXP][MAXM], end_b[MAXP][MAXM];
    double clock[MAXP] = {0}, level[MAXP] = {0};
    for (int s = 0; s < P; s++) {
        n[s] = fb_sequence(s, seq[s]);
        pos[s] = wh[s] = wt[s] = fdone[s] = len[s] = 0;
        for (int m = 0; m < M; m++)
            end_f[s][m] = end_b[s][m] = -1;
    }
    for (int left = P; left > 0;) {
        bool moved = false;
        for (int s = 0; s < P; s++) {
            if (pos[s] > n[s])
                continue;
            if (pos[s] == n[s]) {
                while (wh[s] < wt[s])
                    order[s][len[s]++] = W0 + wq[s][wh[s]++];
                pos[s]++, left--, moved = true;
                continue;
            }
            int x = seq[s][pos[s]];
            double r = arrival(s, x, end_f, end_b);
            if (r < 0)
                continue;
            while (x >= 0 && level[s] + 1 > cap + 1e-9 && wh[s] < wt[s])
                clock[s] += tw, level[s] -= wmem, order[s][len[s]++] = W0 + wq[s][wh[s]++];
            bool any = (fdone[s] == M && post == 1) || pre == 1, fit = pre == 0;
            while (wh[s] < wt[s] && clock[s] < r && (any || (fit && clock[s] + tw <= r)))
                clock[s] += tw, level[s] -= wmem, order[s][len[s]++] = W0 + wq[s][wh[s]++];
            clock[s] = fmax(clock[s], r) + (x >= 0 ? tf : tb);
            if (x >= 0)
                end_f[s][x] = clock[s], level[s] += 1, fdone[s]++;
            else
                end_b[s][-1 - x] = clock[s], level[s] -= 1 - wmem, wq[s][wt[s]++] = -1 - x;
            if (level[s] > cap + 1e-9)
                return false;
            order[s][len[s]++] = x;
            pos[s]++, moved = true;
        }
        if (!moved)
            return false;
    }
    return true;
}

/* The makespan of the orders, each op as early as they allow (starts
 * recorded); INFINITY when a stage overflows or the orders deadlock. */
static double time_orders(void)
{
    static double end_f[MAXP][MAXM], end_b[MAXP][MAXM];
    double clock[MAXP] = {0}, level[MAXP] = {0}, makespan = 0;
    int pos[MAXP] = {0};
    for (int s = 0; s < P; s++)
        for (int m = 0; m < M; m++)
            end_f[s][m] = end_b[s][m] = -1;
    for (int left = 3 * M * P; left > 0;) {
        bool moved = false;
        for (int s = 0; s < P; s++)
            for (; pos[s] < 3 * M; pos[s]++, left--, moved = true) {
                int x = order[s][pos[s]];
                double r = x >= W0 ? end_b[s][x - W0] : arrival(s, x, end_f, end_b);
                if (r < 0 && x >= W0)
                    return INFINITY;
                if (r < 0)
                    break;
                double t = fmax(clock[s], r);
                if (x >= W0)
                    start_w[s][x - W0] = t, clock[s] = t + tw, level[s] -= wmem;
                else if (x >= 0)
                    start_f[s][x] = t, clock[s] = end_f[s][x] = t + tf, level[s] += 1;
                else
                    start_b[s][-1 - x] = t, clock[s] = end_b[s][-1 - x] = t + tb, level[s] -= 1 - wmem;
                if (level[s] > cap + 1e-9)
                    return INFINITY;
                makespan = fmax(makespan, clock[s]);
            }
        if (!moved)
            return INFINITY;
    }
    return makespan;
}

/* Moves each W up to radius places while the makespan falls. */
static double climb(int radius, double best)
{
    for (bool better = true; better;) {
        better = false;
        for (int s = 0; s < P; s++)
            for (int i = 0; i < 3 * M; i++) {
                if (order[s][i] < W0)
                    continue;
                int keep[LEN];
                memcpy(keep, order[s], sizeof keep);
                for (int j = i - radius < 0 ? 0 : i - radius; j <= i + radius && j < 3 * M; j++) {
                    if (j == i)
                        continue;
                    int x = keep[i], n = 0;
                    for (int k = 0; k < 3 * M; k++)
                        if (k != i)
                            order[s][n++] = keep[k];
                    memmove(order[s] + j + 1, order[s] + j, (size_t)(n - j) * sizeof(int));
                    order[s][j] = x;
                    double t = time_orders();
                    if (t < best - 1e-6) {
                        best = t, better = true;
                        break;
                    }
                    memcpy(order[s], keep, sizeof keep);
                }
            }
    }
    return best;
}

/* The family's makespan at the current lags; its orders left in order. */
static double evaluate(int radius)
{
    static int best_order[MAXP][LEN];
    double best = INFINITY;
    for (int rule = 0; rule < 6; rule++) {
        if (!place_by_rule(rule % 3, rule / 3))
            continue;
        double t = time_orders();
        if (radius > 0 && isfinite(t))
            t = climb(radius, t);
        if (t < best)
            best = t, memcpy(best_order, order, sizeof order);
    }
    memcpy(order, best_order, sizeof order);
    return best;
}

static void shift(int s2, int k, int len, int by)
{
    for (int s = 0; s <= s2; s++)
        for (int q = k; q < k + len; q++)
            lag[s][q] += by;
}

static void read_lags(void)
{
    char line[16 * LEN];
    for (int s = 0; s < P && fgets(line, sizeof line, stdin); s++) {
        int f = 0, k = 0;
        for (char *t = strtok(line, " \n"); t; t = strtok(NULL, " \n"))
            if (t[0] == 'F')
                f++;
            else if (t[0] == 'B' && k < M)
                lag[s][k] = f - (k + 1), k++;
    }
}

static void write_schedule(const char *path, double makespan)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\n  \"makespan\": %.0f,\n  \"ops\": [\n", makespan);
    const char *sep = "";
    for (int m = 0; m < M; m++)
        for (int s = 0; s < P; s++) {
            double st[3] = {start_f[s][m], start_b[s][m], start_w[s][m]}, du[3] = {tf, tb, tw};
            for (int k = 0; k < 3; k++, sep = ",\n")
                fprintf(f, "%s    {\"name\": \"%c%d.%d\", \"device\": \"dev%d\", \"start\": %.17g, \"end\": %.17g}", sep,
                        "FBW"[k], m, s, s, st[k], st[k] + du[k]);
        }
    fprintf(f, "\n  ],\n  \"transfers\": [\n");
    sep = "";
    for (int m = 0; m < M; m++)
        for (int s = 0; s + 1 < P; s++, sep = ",\n") {
            double a = start_f[s][m] + tf, b = start_b[s + 1][m] + tb;
            fprintf(f, "%s    {\"from\": \"F%d.%d\", \"to\": \"F%d.%d\", \"start\": %.17g, \"end\": %.17g},\n", sep, m, s,
                    m, s + 1, a, a + comm);
            fprintf(f, "    {\"from\": \"B%d.%d\", \"to\": \"B%d.%d\", \"start\": %.17g, \"end\": %.17g}", m, s + 1, m, s,
                    b, b + comm);
        }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 10 && argc != 11) {
        fprintf(stderr, "usage: zb_family P M RADIUS TF TB TW COMM WMEM OUT.json [SECONDS] < orders\n");
        return 2;
    }
    P = atoi(argv[1]), M = atoi(argv[2]);
    int radius = atoi(argv[3]);
    tf = atof(argv[4]), tb = atof(argv[5]), tw = atof(argv[6]), comm = atof(argv[7]), wmem = atof(argv[8]);
    if (P < 2 || P > MAXP || M < 1 || M > MAXM) {
        fprintf(stderr, "zb_family: P in 2..%d, M in 1..%d\n", MAXP, MAXM);
        return 2;
    }
    cap = P;
    read_lags();
    double limit = argc == 11 ? atof(argv[10]) : INFINITY;
    double best = evaluate(radius);
    printf("start %.0f\n", best);
    for (bool better = true; better;) {
        better = false;
        for (int s2 = 0; s2 < P && (double)clock() / CLOCKS_PER_SEC < limit; s2++)
            for (int k = 0; k < M; k++)
                for (int len = 1; len <= 4 && k + len <= M; len++)
                    for (int by = -1; by <= 1; by += 2) {
                        shift(s2, k, len, by);
                        double t = evaluate(radius);
                        if (t < best - 1e-6) {
                            best = t, better = true;
                            printf("stages 0-%d, backwards %d-%d: lag %+d -> %.0f\n", s2, k, k + len - 1, by, t);
                            fflush(stdout);
                        } else {
                            shift(s2, k, len, -by);
                        }
                    }
    }
    evaluate(radius);
    best = time_orders();
    printf("best %.0f\n", best);
    write_schedule(argv[9], best);
    return 0;
}
