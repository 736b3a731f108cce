/* problem_io.h: the IOPDDL problem made and moved by the library's own
 * files, never by a front door (they hand a pp_source to pp_iopddl_run or
 * pp_iopddl_eval_run): read from memory, an answer read against it, the
 * problem written, and built in memory by the planners that hand their
 * problems to this solver (src/shard's bridge). Owned by load.c,
 * solution.c, write.c and build.c. */
#ifndef PP_IOPDDL_PROBLEM_IO_H
#define PP_IOPDDL_PROBLEM_IO_H

#include <stdio.h>
#include "parplan/iopddl.h"
#include "core/core_internal.h"

/* Building a problem in memory, for planners that hand their problems to
 * this one: nodes with their strategy counts first, then intervals, costs,
 * usages, edges between two nodes and the limit. Every cost, usage and
 * interval starts at 0, with no edges and no limit. A value out of range
 * (a node or strategy that does not exist, a negative cost or usage, an
 * interval not 0 <= start <= end, an edge from a node to itself) makes the
 * setter return false, and pp_iopddl_builder_finish reports the first such
 * mistake: the problem built is always one pp_iopddl_load would accept. */
typedef struct pp_iopddl_builder pp_iopddl_builder;

/* node_count > 0 nodes; node i has strategy_counts[i] > 0 strategies. */
pp_status pp_iopddl_builder_new(uint32_t node_count, const uint32_t *strategy_counts, pp_iopddl_builder **out,
                                pp_error *err);
bool pp_iopddl_builder_interval(pp_iopddl_builder *b, uint32_t node, int64_t start, int64_t end);
bool pp_iopddl_builder_strategy(pp_iopddl_builder *b, uint32_t node, uint32_t s, int64_t cost, int64_t usage);
/* An edge from a to c; costs[sa * count(c) + sc] for their strategies sa, sc. */
bool pp_iopddl_builder_edge(pp_iopddl_builder *b, uint32_t a, uint32_t c, const int64_t *costs);
bool pp_iopddl_builder_limit(pp_iopddl_builder *b, int64_t usage_limit);
/* The problem (free it with pp_iopddl_free), or the first mistake; frees b. */
pp_status pp_iopddl_builder_finish(pp_iopddl_builder *b, pp_iopddl_problem **out, pp_error *err);
/* Frees a builder that is not finished. */
void pp_iopddl_builder_free(pp_iopddl_builder *b);

/* The same from size bytes at data (plain or gzip, as files are), with name
 * standing for the file in messages: "name: byte N: reason". */
pp_status pp_iopddl_load_buffer(const char *name, const void *data, size_t size, pp_iopddl_problem **out,
                                pp_error *err);

/* Reads a solution "[s0, s1, ...]" for p from path (one index per node). */
pp_status pp_iopddl_load_solution(const char *path, const pp_iopddl_problem *p,
                                  uint32_t **out_strategies, pp_error *err);

/* The same from size bytes at text, with name standing for the file in
 * messages: "name: byte N: reason". */
pp_status pp_iopddl_parse_solution(const char *name, const char *text, size_t size, const pp_iopddl_problem *p,
                                   uint32_t **out_strategies, pp_error *err);

/* Writes p as the contest's JSON (what pp_iopddl_load reads), one node or
 * edge per line, under the given name (NULL: p->name). */
pp_status pp_iopddl_write(const pp_iopddl_problem *p, const char *name, FILE *out, pp_error *err);

#endif
