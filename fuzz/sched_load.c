/* sched_load.c: libFuzzer target for the scheduling problem reader
 * (pp_sched_load_buffer, the same code as pp_sched_load after the file is
 * read). Checks: a failed load returns no problem and says why, starting with
 * "NAME: " or "NAME:LINE:COLUMN: " with the position inside the text; a
 * loaded problem is consistent (names unique, indices in range, numbers as
 * the format allows, the topological order a permutation that every
 * dependency respects); and writing it loads back to the same problem, whose
 * writing gives the same text. Any breach aborts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched/load.h"
#include "message.h"
#include "sched/sched_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_problem(const pp_sched_problem *p)
{
    int n = p->op_count, m = p->dep_count, d = p->device_count;
    if (n < 0 || m < 0 || d < 1 || p->builder)
        abort();
    for (int k = 0; k < d; k++)
        if (pp_sched_find_device(p, p->device_name[k]) != k || isnan(p->capacity[k]) ||
            p->capacity[k] < 0 || pp_sched_has_channel(p, k, k))
            abort();
    int *position = malloc((size_t)(n + 1) * sizeof *position);
    if (!position)
        return;
    for (int i = 0; i < n; i++)
        position[i] = -1;
    for (int k = 0; k < n; k++) {
        int i = p->topo_order[k];
        if (i < 0 || i >= n || position[i] >= 0)
            abort();
        position[i] = k;
    }
    for (int i = 0; i < n; i++) {
        if (pp_sched_find_op(p, p->op_name[i]) != i || !p->op_kind[i] || !isfinite(p->duration[i]) ||
            p->duration[i] < 0 || !isfinite(p->weight[i]) || p->weight[i] < 0 || !isfinite(p->adjust[i]) ||
            p->allowed_start[i] > p->allowed_start[i + 1])
            abort();
        for (int k = p->allowed_start[i]; k < p->allowed_start[i + 1]; k++)
            if (p->allowed_device[k] < 0 || p->allowed_device[k] >= d)
                abort();
    }
    for (int e = 0; e < m; e++) {
        int u = p->dep_from[e], v = p->dep_to[e];
        if (u < 0 || u >= n || v < 0 || v >= n || position[u] >= position[v] ||
            !isfinite(p->dep_comm[e]) || p->dep_comm[e] < 0)
            abort();
    }
    free(position);
}

/* The problem as the writer puts it, in a malloc'd buffer (NULL if memory ran out). */
static char *written(const pp_sched_problem *p, size_t *size)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    if (!f)
        return NULL;
    pp_error err = {0};
    pp_status st = pp_sched_write_problem(p, f, &err);
    fclose(f);
    if (st == PP_ENOMEM) {
        free(text);
        return NULL;
    }
    if (st != PP_OK)
        abort();
    return text;
}

static void check_round_trip(const pp_sched_problem *p)
{
    size_t size, again_size;
    char *text = written(p, &size);
    if (!text)
        return;
    pp_error err = {0};
    pp_sched_problem *q = NULL;
    pp_status st = pp_sched_load_buffer("written", text, size, &q, &err);
    if (st == PP_OK) {
        if (!sc_problem_equal(p, q))
            abort();
        char *again = written(q, &again_size);
        if (again && (again_size != size || memcmp(again, text, size) != 0))
            abort();
        free(again);
    } else if (st != PP_ENOMEM) {
        abort();
    }
    pp_sched_problem_free(q);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_error err = {0};
    pp_sched_problem *p = NULL;
    pp_status status = pp_sched_load_buffer(NAME, data, size, &p, &err);
    if (status != PP_OK) {
        if (p)
            abort();
        check_message(&err, status, data, size);
        return 0;
    }
    check_problem(p);
    check_round_trip(p);
    pp_sched_problem_free(p);
    return 0;
}
