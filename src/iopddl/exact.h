/* exact.h: the IOPDDL exact solver for small instances (paper 000, section 4:
 * instances below ~2000 nodes are solved to optimality). A presolve shrinks
 * the model, then CBC solves a MIP over what is left. Owned by exact.c (the
 * driver), with reduced.c (the reduced model), presolve.c and exact_mip.c;
 * where the MIP cannot answer exactly, branch.c searches in integers. */
#ifndef PP_IOPDDL_EXACT_H
#define PP_IOPDDL_EXACT_H

#include "iopddl/solver.h"

/* What the presolve and the MIP looked like; every field is filled by
 * iopddl_exact_solve_ex whenever it gets that far. "raw" is the plain
 * formulation with only forbidden entries left out: x[v,s] per allowed
 * strategy, y[q,sa,sb] per allowed pair entry, one row per node, the
 * marginal rows of every pair and one row per segment that can overflow. */
typedef struct {
    uint64_t raw_columns, raw_rows, raw_nonzeros;
    uint64_t columns, rows, nonzeros;          /* the MIP handed to CBC */
    uint64_t integer_columns;                  /* x columns */
    uint32_t free_nodes;                       /* nodes left with a choice */
    uint32_t pairs;                            /* pair tables left */
    uint32_t merged;                           /* nodes merged into a neighbour (functional edges) */
    uint32_t fixed;                            /* nodes left with one strategy */
    uint32_t eliminated;                       /* usage-free nodes of degree <= 2 eliminated */
    uint64_t strategies_removed;               /* forbidden, unreachable or over the limit */
    uint64_t strategies_dominated;
    uint32_t overflow_segments;                /* segments that can exceed the limit */
    uint32_t usage_rows;                       /* of those, rows kept (no row implies another) */
    int presolve_rounds;
    double presolve_seconds, mip_seconds;
    int64_t mip_nodes;                         /* branch-and-bound nodes */
    bool warm_start_used;                      /* warm start was feasible and passed to CBC */
    int cbc_crashes;                           /* CBC process deaths (a second try follows one) */
    bool cbc_killed;                           /* CBC stopped at the deadline or on a stop request */
    bool inexact;                              /* the MIP's doubles cannot hold its numbers: its
                                                  proof, bound and infeasibility count for nothing */
} iopddl_exact_stats;

/* Presolve steps that can be switched off, to measure what each one buys. */
enum {
    IOPDDL_EXACT_NO_MERGE = 1,       /* merging along functional edges */
    IOPDDL_EXACT_NO_DOMINANCE = 2,   /* dominated strategies */
    IOPDDL_EXACT_NO_ELIMINATION = 4, /* usage-free nodes of degree <= 2 */
    IOPDDL_EXACT_NO_ROW_FILTER = 8   /* usage rows implied by a neighbour's row */
};

/* CBC's first LP cannot be interrupted, and its time grows quickly with the
 * matrix: contest instance A reduces to 2.6M nonzeros (LP about 30 s), M and
 * S to 60M and 92M (no answer after 15 minutes, 5-7 GB). Larger reduced
 * MIPs are refused unless the caller raises the cap. */
#define IOPDDL_EXACT_DEFAULT_MAX_NONZEROS 2000000

typedef struct {
    double time_limit;   /* seconds for the whole call; <= 0 means none */
    int threads;         /* 1: serial CBC; n >= 2: CBC's deterministic parallel
                            search on n threads; <= 0: one per online core */
    bool verbose;        /* presolve summary and CBC's log on stderr (else silent) */
    unsigned off;        /* IOPDDL_EXACT_NO_* flags; 0 for the full presolve */
    uint64_t max_nonzeros; /* cap on the reduced MIP; 0: IOPDDL_EXACT_DEFAULT_MAX_NONZEROS */
    const pp_stop_flag *stop; /* the solve's flag, answered as a stop request; NULL: none */
} iopddl_exact_options;

/* Solves m exactly (given time). warm_start (may be NULL) is an assignment
 * to start from; warm_cost is its cost if known, else -1 (it is recomputed
 * and checked either way: an infeasible warm start is ignored).
 * On PP_OK, *cost_out is the exact cost of x_out, the best feasible
 * assignment free of forbidden entries found (never worse than a feasible warm start), or -1 when
 * none was found in time (x_out is then the least-usage assignment);
 * *lower_bound_out is a bound no feasible assignment beats (-INFINITY if
 * CBC got no bound); *proven_optimal says the search finished.
 * PP_INFEASIBLE: proven that every assignment uses a forbidden cost or
 * exceeds the limit (x_out: the least-usage assignment, *cost_out -1).
 * PP_EARG: a reduced MIP over the nonzero cap (the stats say how large;
 * CBC is not started). Edges over three or more nodes arrive as auxiliary
 * nodes (model.c) and need nothing special here.
 * PP_ENOMEM.
 * CBC runs in a child process (fork): the time limit is firm (the child is
 * killed half a second and 5% past it, its answer lost, the bound then
 * -INFINITY), a stop request (pp_stop_requested or o->stop) is answered within 50 ms,
 * a crash inside CBC costs only its answer (one retry without CBC's
 * preprocessing and cuts follows), and calls may run side by side. */
pp_status iopddl_exact_solve(const iopddl_model *m, const uint32_t *warm_start, iopddl_cost warm_cost,
                          double time_limit, int threads, uint32_t *x_out, iopddl_cost *cost_out,
                          double *lower_bound_out, bool *proven_optimal, pp_error *err);

/* The same with all options and the figures above (stats may be NULL). */
pp_status iopddl_exact_solve_ex(const iopddl_model *m, const uint32_t *warm_start, iopddl_cost warm_cost,
                             const iopddl_exact_options *o, uint32_t *x_out, iopddl_cost *cost_out,
                             double *lower_bound_out, bool *proven_optimal, iopddl_exact_stats *stats,
                             pp_error *err);

/* The exact stage in integers (branch.c): a branch and bound over p's own
 * nodes and edges in 128-bit sums, for where the MIP cannot answer exactly
 * (stats.inexact, or no answer free of forbidden entries). x (p->node_count
 * entries) holds an answer to beat, feasible or not, and gets the best
 * found: free of forbidden entries if any feasible answer is, else the
 * cheapest. *proven: the search finished and x is that optimum. Stops at the
 * deadline (its stop flag too) with the best so far. False when out of
 * memory (x unchanged). */
bool iopddl_branch(const pp_iopddl_problem *p, uint32_t *x, const pp_deadline *deadline, bool *proven);

/* True when the entries below PP_IOPDDL_FORBIDDEN of one answer can sum to
 * it or more: the model's merged tables and the presolve's sums then take
 * such a sum for a forbidden entry, and may leave out the answer that is
 * best, so the MIP's proofs (and the model's "forbidden-free") do not hold. */
bool iopddl_sums_reach_forbidden(const pp_iopddl_problem *p);

#endif
