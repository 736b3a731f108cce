/* tiny.h: random tiny IOPDDL problems for tests that enumerate every
 * assignment: the problem as plain arrays, a small deterministic RNG, the
 * problem written as contest JSON and loaded through pp_iopddl_load (so the
 * loader's indexing is exercised too). Each test draws its own problems
 * (its own distributions) into this shape. */
#ifndef PP_TESTS_TINY_H
#define PP_TESTS_TINY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "parplan/iopddl.h"

enum { MAX_NODES = 6, MAX_STRATEGIES = 3, MAX_EDGES = 10, MAX_TIME = 16 };

typedef struct {
    int n;
    int64_t start[MAX_NODES], end[MAX_NODES];
    int d[MAX_NODES];
    int64_t cost[MAX_NODES][MAX_STRATEGIES], usage[MAX_NODES][MAX_STRATEGIES];
    int m;
    int arity[MAX_EDGES];
    int nodes[MAX_EDGES][3];
    int64_t edge_cost[MAX_EDGES][27];
    bool has_limit;
    int64_t limit;
} tiny;

/* xorshift64; a test may reseed it to give each of its regimes a stream. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(uint32_t bound)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % bound);
}

static int table_size(const tiny *t, int e)
{
    int size = 1;
    for (int k = 0; k < t->arity[e]; k++)
        size *= t->d[t->nodes[e][k]];
    return size;
}

static inline void write_row(char **q, const int64_t *v, int count)
{
    *q += sprintf(*q, "[");
    for (int k = 0; k < count; k++)
        *q += sprintf(*q, "%s%lld", k ? ", " : "", (long long)v[k]);
    *q += sprintf(*q, "]");
}

/* JSON of t into buf (large enough: 6 nodes, 10 edges of 27 entries). */
static inline void tiny_json(const tiny *t, char *buf)
{
    char *q = buf;
    q += sprintf(q, "{\"problem\": {\"nodes\": {\"intervals\": [");
    for (int i = 0; i < t->n; i++)
        q += sprintf(q, "%s[%lld, %lld]", i ? ", " : "", (long long)t->start[i], (long long)t->end[i]);
    q += sprintf(q, "],\n\"costs\": [");
    for (int i = 0; i < t->n; i++) {
        q += sprintf(q, "%s", i ? ", " : "");
        write_row(&q, t->cost[i], t->d[i]);
    }
    q += sprintf(q, "],\n\"usages\": [");
    for (int i = 0; i < t->n; i++) {
        q += sprintf(q, "%s", i ? ", " : "");
        write_row(&q, t->usage[i], t->d[i]);
    }
    q += sprintf(q, "]},\n\"edges\": {\"nodes\": [");
    for (int e = 0; e < t->m; e++) {
        q += sprintf(q, "%s[", e ? ", " : "");
        for (int k = 0; k < t->arity[e]; k++)
            q += sprintf(q, "%s%d", k ? ", " : "", t->nodes[e][k]);
        q += sprintf(q, "]");
    }
    q += sprintf(q, "],\n\"costs\": [");
    for (int e = 0; e < t->m; e++) {
        q += sprintf(q, "%s", e ? ", " : "");
        write_row(&q, t->edge_cost[e], table_size(t, e));
    }
    q += sprintf(q, "]}");
    if (t->has_limit)
        q += sprintf(q, ",\n\"usage_limit\": %lld", (long long)t->limit);
    sprintf(q, "}}\n");
}

/* The relaxed cost of assignment s from t's own arrays, for problems of
 * pairs only: node cost plus penalty times usage above the node's least,
 * plus pair costs (first node major). Shares nothing with the solver. */
static inline double tiny_relaxed_cost(const tiny *t, const int *s, const double *penalty)
{
    double total = 0;
    for (int i = 0; i < t->n; i++) {
        int64_t least = t->usage[i][0];
        for (int k = 1; k < t->d[i]; k++)
            least = t->usage[i][k] < least ? t->usage[i][k] : least;
        total += (double)t->cost[i][s[i]] + penalty[i] * (double)(t->usage[i][s[i]] - least);
    }
    for (int e = 0; e < t->m; e++) {
        int a = t->nodes[e][0], b = t->nodes[e][1];
        total += (double)t->edge_cost[e][s[a] * t->d[b] + s[b]];
    }
    return total;
}

/* Steps s to the next assignment of p (the first node fastest); false
 * after the last, s back at all zeros. */
static inline bool tiny_next_assignment(const pp_iopddl_problem *p, uint32_t *s)
{
    for (uint32_t i = 0; i < p->node_count; i++) {
        if (++s[i] < pp_iopddl_strategy_count(p, i))
            return true;
        s[i] = 0;
    }
    return false;
}

static inline void print_int128(FILE *f, pp_int128 v)
{
    if (v < 0) {
        fputc('-', f);
        v = -v;
    }
    if (v >= 10)
        print_int128(f, v / 10);
    fputc('0' + (int)(v % 10), f);
}

/* Writes json to a fresh temporary file and loads it; NULL (and a failed
 * check) if the loader rejects it. */
static pp_iopddl_problem *load_text(const char *json)
{
    char temp_path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(temp_path, sizeof temp_path, "%s/pp-test-tiny-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(temp_path);
    CHECK(fd >= 0);
    if (fd < 0)
        return NULL;
    size_t len = strlen(json);
    CHECK(write(fd, json, len) == (ssize_t)len);
    close(fd);
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    pp_status status = pp_iopddl_load(temp_path, &p, &err);
    unlink(temp_path);
    CHECK_EQ_INT(status, PP_OK);
    if (status != PP_OK) {
        fprintf(stderr, "load failed: %s\n%s\n", err.message, json);
        return NULL;
    }
    return p;
}

#endif
