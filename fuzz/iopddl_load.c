/* iopddl_load.c: libFuzzer target for the IOPDDL loader
 * (pp_iopddl_load_buffer, the same code as pp_iopddl_load after the file is
 * opened). Loads the input from memory and checks:
 * a failed load says why, with "NAME: byte N: reason" and N within the text;
 * a loaded problem is consistent (offsets in order, edges name nodes that
 * exist, cost tables the product of their nodes' strategy counts), and the
 * all-zero assignment evaluates; and the same text gzip-compressed loads to
 * the same problem or fails with the same message. Any breach aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "input"
#define GZ_NAME "input.gz"

static unsigned char *gzip_bytes(const uint8_t *data, size_t size, size_t *out_size)
{
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)size);
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (!out || deflate(&z, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&z);
        free(out);
        return NULL;
    }
    *out_size = z.total_out;
    deflateEnd(&z);
    return out;
}

/* The message after "NAME: ", checking "byte N: " with N <= size. */
static const char *reason_of(const pp_error *err, const char *name, size_t size)
{
    size_t n = strlen(name);
    if (err->message[0] == '\0' || strncmp(err->message, name, n) != 0 || strncmp(err->message + n, ": ", 2))
        abort();
    const char *rest = err->message + n + 2;
    if (err->status == PP_EINPUT) {
        char *end;
        if (strncmp(rest, "byte ", 5) != 0)
            abort();
        unsigned long long at = strtoull(rest + 5, &end, 10);
        if (end == rest + 5 || strncmp(end, ": ", 2) != 0 || at > size)
            abort();
    }
    return rest;
}

static void check_problem(const pp_iopddl_problem *p)
{
    if (p->node_count == 0 || p->strategy_start[0] != 0 || p->edge_node_start[0] != 0 ||
        p->edge_cost_start[0] != 0 || (p->has_usage_limit && p->usage_limit < 0))
        abort();
    for (uint32_t i = 0; i < p->node_count; i++) {
        if (p->strategy_start[i + 1] <= p->strategy_start[i] || p->interval_start[i] < 0 ||
            p->interval_end[i] < p->interval_start[i])
            abort();
        for (uint64_t k = p->strategy_start[i]; k < p->strategy_start[i + 1]; k++)
            if (p->node_cost[k] < 0 || p->node_usage[k] < 0)
                abort();
    }
    for (uint32_t e = 0; e < p->edge_count; e++) {
        uint64_t cells = 1;
        if (p->edge_node_start[e + 1] <= p->edge_node_start[e])
            abort();
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++) {
            if (p->edge_nodes[k] >= p->node_count)
                abort();
            cells *= pp_iopddl_strategy_count(p, p->edge_nodes[k]);
        }
        if (p->edge_cost_start[e + 1] - p->edge_cost_start[e] != cells)
            abort();
        for (uint64_t k = p->edge_cost_start[e]; k < p->edge_cost_start[e + 1]; k++)
            if (p->edge_cost[k] < 0)
                abort();
    }
}

static bool same_array(const void *a, const void *b, size_t bytes)
{
    return bytes == 0 || memcmp(a, b, bytes) == 0;
}

static void check_same(const pp_iopddl_problem *a, const pp_iopddl_problem *b)
{
    size_t n = a->node_count, m = a->edge_count;
    if (b->node_count != n || b->edge_count != m || a->has_usage_limit != b->has_usage_limit ||
        a->usage_limit != b->usage_limit || strcmp(a->name, b->name) != 0)
        abort();
    size_t strategies = a->strategy_start[n], ends = a->edge_node_start[m], cells = a->edge_cost_start[m];
    if (!same_array(a->interval_start, b->interval_start, n * 8) ||
        !same_array(a->interval_end, b->interval_end, n * 8) ||
        !same_array(a->strategy_start, b->strategy_start, (n + 1) * 8) ||
        !same_array(a->node_cost, b->node_cost, strategies * 8) ||
        !same_array(a->node_usage, b->node_usage, strategies * 8) ||
        !same_array(a->edge_node_start, b->edge_node_start, (m + 1) * 8) ||
        !same_array(a->edge_nodes, b->edge_nodes, ends * 4) ||
        !same_array(a->edge_cost_start, b->edge_cost_start, (m + 1) * 8) ||
        !same_array(a->edge_cost, b->edge_cost, cells * 8))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Input that is itself gzip is inflated (once, not twice below), and
     * its byte offsets count the inflated text, whose size is unknown here. */
    bool gzip_magic = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    pp_status status = pp_iopddl_load_buffer(NAME, data, size, &p, &err);
    const char *reason = NULL;
    if (status == PP_OK) {
        check_problem(p);
        uint32_t *zero = calloc(p->node_count, sizeof *zero);
        pp_iopddl_evaluation ev;
        if (zero && pp_iopddl_evaluate(p, zero, &ev, &err) != PP_OK)
            abort();
        free(zero);
    } else {
        if (p || err.status != status)
            abort();
        reason = reason_of(&err, NAME, gzip_magic ? SIZE_MAX : size);
    }

    size_t gz_size;
    unsigned char *gz = gzip_magic ? NULL : gzip_bytes(data, size, &gz_size);
    if (gz) {
        pp_error gz_err = {0};
        pp_iopddl_problem *q = NULL;
        pp_status gz_status = pp_iopddl_load_buffer(GZ_NAME, gz, gz_size, &q, &gz_err);
        if (gz_status != status)
            abort();
        if (status == PP_OK)
            check_same(p, q);
        else if (strcmp(reason_of(&gz_err, GZ_NAME, size), reason) != 0)
            abort();
        pp_iopddl_free(q);
    }
    free(gz);
    pp_iopddl_free(p);
    return 0;
}
