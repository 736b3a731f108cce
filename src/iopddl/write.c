/* write.c: owns the IOPDDL contest writer (parplan/iopddl.h): a problem as
 * the contest's JSON (the format of benchmarks/iopddl/example.json, which
 * pp_iopddl_load reads), one node or edge per line so that large problems
 * stay readable. */
#include <inttypes.h>
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

static void write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void write_row(FILE *out, const int64_t *v, uint64_t n)
{
    fputc('[', out);
    for (uint64_t k = 0; k < n; k++)
        fprintf(out, k ? ", %" PRId64 : "%" PRId64, v[k]);
    fputc(']', out);
}

/* One row per node of the per-strategy array v (costs or usages). */
static void write_node_rows(FILE *out, const pp_iopddl_problem *p, const char *key, const int64_t *v)
{
    fprintf(out, "      \"%s\": [\n", key);
    for (uint32_t n = 0; n < p->node_count; n++) {
        fputs("        ", out);
        write_row(out, &v[p->strategy_start[n]], pp_iopddl_strategy_count(p, n));
        fputs(n + 1 < p->node_count ? ",\n" : "\n", out);
    }
    fputs("      ]", out);
}

static void write_nodes(FILE *out, const pp_iopddl_problem *p)
{
    fputs("    \"nodes\": {\n      \"intervals\": [\n", out);
    for (uint32_t n = 0; n < p->node_count; n++)
        fprintf(out, "        [%" PRId64 ", %" PRId64 "]%s\n", p->interval_start[n], p->interval_end[n],
                n + 1 < p->node_count ? "," : "");
    fputs("      ],\n", out);
    write_node_rows(out, p, "costs", p->node_cost);
    fputs(",\n", out);
    write_node_rows(out, p, "usages", p->node_usage);
    fputs("\n    },\n", out);
}

static void write_edges(FILE *out, const pp_iopddl_problem *p)
{
    fputs("    \"edges\": {\n      \"nodes\": [\n", out);
    for (uint32_t e = 0; e < p->edge_count; e++) {
        fputs("        [", out);
        for (uint64_t k = p->edge_node_start[e]; k < p->edge_node_start[e + 1]; k++)
            fprintf(out, k > p->edge_node_start[e] ? ", %u" : "%u", p->edge_nodes[k]);
        fputs(e + 1 < p->edge_count ? "],\n" : "]\n", out);
    }
    fputs("      ],\n      \"costs\": [\n", out);
    for (uint32_t e = 0; e < p->edge_count; e++) {
        fputs("        ", out);
        write_row(out, &p->edge_cost[p->edge_cost_start[e]], p->edge_cost_start[e + 1] - p->edge_cost_start[e]);
        fputs(e + 1 < p->edge_count ? ",\n" : "\n", out);
    }
    fputs("      ]\n    }", out);
}

pp_status pp_iopddl_write(const pp_iopddl_problem *p, const char *name, FILE *out, pp_error *err)
{
    if (!name)
        name = p->name;
    fputs("{\n  \"problem\": {\n    \"name\": ", out);
    write_string(out, name);
    fputs(",\n", out);
    write_nodes(out, p);
    write_edges(out, p);
    if (p->has_usage_limit)
        fprintf(out, ",\n    \"usage_limit\": %" PRId64, p->usage_limit);
    fputs("\n  }\n}\n", out);
    if (fflush(out) != 0 || ferror(out))
        return pp_error_set(err, PP_EIO, "IOPDDL problem '%s': write failed", name);
    return PP_OK;
}
