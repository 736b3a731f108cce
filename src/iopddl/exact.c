/* exact.c: owns the exact solver's driver for small IOPDDL instances
 * (exact.h): the reduced model presolved (presolve.c), its MIP built
 * (exact_mip.c) and solved by CBC (core/cbc.h) from the warm start carried
 * into it, and the answer carried back out and checked against the model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/cbc.h"
#include "iopddl/exact_mip.h"

/* Does x keep every segment within the limit? (128-bit sums) */
static bool fits(const iopddl_model *m, const uint32_t *x)
{
    if (!m->has_limit)
        return true;
    if (m->limit < 0)
        return false; /* the contest's peak is never below zero */
    uint32_t T = m->segment_count;
    pp_int128 *diff = calloc((size_t)T + 1, sizeof *diff);
    if (!diff)
        return false;
    for (uint32_t v = 0; v < m->node_count; v++)
        if (m->seg_lo[v] < m->seg_hi[v]) {
            int64_t u = m->usage[m->dom_start[v] + x[v]];
            diff[m->seg_lo[v]] += u;
            diff[m->seg_hi[v]] -= u;
        }
    bool ok = true;
    pp_int128 run = 0;
    for (uint32_t t = 0; t < T && ok; t++) {
        run += diff[t];
        ok = run <= m->limit;
    }
    free(diff);
    return ok;
}

/* Usable: within the domains, no forbidden entry (the MIP leaves them
 * out; the total may pass 10^18 all the same) and within the limit. */
static bool usable(const iopddl_model *m, const uint32_t *x, iopddl_cost *cost)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        if (x[v] >= iopddl_domain(m, v))
            return false;
    *cost = iopddl_model_cost(m, x);
    return iopddl_model_forbidden_free(m, x) && fits(m, x);
}

/* CBC on the MIP (core/cbc.h), from warm_sr when given; on out->found, sr
 * holds a strategy per free representative. */
static pp_status run_cbc(const iopddl_reduced *c, const iopddl_exact_mip *p, const iopddl_exact_options *o, double deadline,
                         const uint32_t *warm_sr, uint32_t *sr, pp_cbc_outcome *out, pp_error *err)
{
    int *idx = malloc(((size_t)c->n + 1) * sizeof *idx);
    double *val = malloc(((size_t)c->n + 1) * sizeof *val);
    double *x = malloc(((size_t)p->lp.cols + 1) * sizeof *x);
    if (!idx || !val || !x) {
        free(idx);
        free(val);
        free(x);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the exact solver");
    }
    /* The deadline: CBC's own limit plus a grace for its last step. Costs
     * are integers: a gap below one proves the incumbent optimal. */
    pp_cbc_options co = {.deadline = deadline, .stop = o->stop, .grace = 0.5, .grace_rate = 0.05, .threads = o->threads,
                         .gap = 0.99, .log = o->verbose, .warm_index = idx, .warm_value = val};
    for (uint32_t r = 0; warm_sr && r < c->n; r++)
        if (c->state[r] == ST_FREE) {
            idx[co.warm_count] = p->xcol[base(c, r) + warm_sr[r]];
            val[co.warm_count++] = 1.0;
        }
    pp_status status = pp_cbc_solve(&p->lp, &co, x, out, err);
    if (status == PP_OK && out->found)
        out->found = iopddl_exact_mip_strategies(c, p, x, sr);
    free(idx);
    free(val);
    free(x);
    return status;
}

/* One call's working state: the model, the answer so far and the buffers
 * for strategies on the reduced model. */
typedef struct {
    const iopddl_model *m;
    const iopddl_exact_options *o;
    iopddl_exact_stats *st;
    double t0;
    iopddl_reduced c;
    uint32_t *sr, *warm_sr, *x, *x_out;
    iopddl_cost best; /* the cost of x_out, or -1: none usable yet */
    double lower; /* what *lower_bound_out will say */
    bool proven;
} exact_call;

static pp_status proven_infeasible(exact_call *E)
{
    E->proven = true;
    E->lower = INFINITY;
    return PP_INFEASIBLE;
}

/* The reduced model's answer (E->sr) carried out to every node and kept
 * when it is usable and better (or no worse, with or_equal); false when it
 * is not usable. */
static bool offer(exact_call *E, bool or_equal)
{
    iopddl_cost cost;
    iopddl_reduced_expand(&E->c, E->sr, E->x);
    if (!usable(E->m, E->x, &cost))
        return false;
    if (E->best < 0 || cost < E->best || (or_equal && cost == E->best)) {
        E->best = cost;
        memcpy(E->x_out, E->x, E->m->node_count * sizeof *E->x);
    }
    return true;
}

static void print_sizes(const iopddl_exact_stats *st, const iopddl_reduced *c)
{
    fprintf(stderr,
            "exact: raw %llu columns, %llu rows, %llu nonzeros; reduced %llu columns (%llu binary), %llu rows, "
            "%llu nonzeros; %u free nodes, %u pairs, %u merged, %u fixed, %u eliminated, %llu strategies removed, "
            "%llu dominated, %u of %u overflow segments as %u rows, %d rounds, %.3f s\n",
            (unsigned long long)st->raw_columns, (unsigned long long)st->raw_rows,
            (unsigned long long)st->raw_nonzeros, (unsigned long long)st->columns,
            (unsigned long long)st->integer_columns, (unsigned long long)st->rows, (unsigned long long)st->nonzeros,
            st->free_nodes, st->pairs, st->merged, st->fixed, st->eliminated,
            (unsigned long long)st->strategies_removed, (unsigned long long)st->strategies_dominated,
            st->overflow_segments, c->segments, st->usage_rows, st->presolve_rounds, st->presolve_seconds);
}

/* The presolve decided every node: its answer is optimal if usable. */
static pp_status decided(exact_call *E)
{
    offer(E, true);
    E->proven = E->best >= 0;
    E->lower = E->best >= 0 ? iopddl_cost_floor(E->best) : INFINITY;
    return E->best >= 0 ? PP_OK : PP_INFEASIBLE;
}

/* CBC on the MIP p, and what its answer and bound prove. */
static pp_status solve_mip(exact_call *E, const iopddl_exact_mip *p, pp_error *err)
{
    pp_int128 constant = iopddl_reduced_fixed_cost(&E->c) + p->shift;
    E->st->inexact = !p->doubles_exact;
    bool have_warm = E->best >= 0 && iopddl_reduced_warm(&E->c, E->x_out, E->warm_sr);
    pp_cbc_outcome out;
    double t1 = pp_now(), deadline = E->o->time_limit > 0 ? E->t0 + E->o->time_limit : 0;
    E->st->warm_start_used = have_warm;
    pp_status status = run_cbc(&E->c, p, E->o, deadline, have_warm ? E->warm_sr : NULL, E->sr, &out, err);
    E->st->cbc_crashes = out.crashes;
    E->st->cbc_killed = out.killed;
    E->st->mip_nodes = out.nodes;
    E->st->mip_seconds = pp_now() - t1;
    if (status != PP_OK)
        return status;
    bool cbc_ok = out.found && offer(E, false);
    if (out.bound > -INFINITY && p->doubles_exact)
        E->lower = out.bound + (double)constant;
    if (E->best >= 0) {
        /* CBC works in doubles: its proof holds where they hold the MIP's
         * numbers exactly (exact_mip.h). */
        E->proven = out.proven && cbc_ok && p->doubles_exact;
        if (E->proven || E->lower > iopddl_cost_floor(E->best))
            E->lower = iopddl_cost_floor(E->best);
    } else if (out.infeasible && p->doubles_exact) {
        return proven_infeasible(E);
    }
    return PP_OK;
}

/* After the presolve: the MIP built and solved, unless the presolve has
 * decided everything (it only removes what no feasible answer can use). */
static pp_status solve_reduced(exact_call *E, pp_error *err)
{
    if (E->c.infeasible)
        return proven_infeasible(E);
    iopddl_exact_mip p;
    uint64_t cap = E->o->max_nonzeros ? E->o->max_nonzeros : IOPDDL_EXACT_DEFAULT_MAX_NONZEROS;
    pp_status status = iopddl_exact_mip_build(&E->c, &p, cap, err);
    if (status != PP_OK)
        return status;
    if (E->c.infeasible) {
        status = proven_infeasible(E);
    } else {
        if (E->o->verbose)
            print_sizes(E->st, &E->c);
        if (p.lp.cols == 0)
            status = decided(E);
        else if (!pp_stop_raised(E->o->stop)) /* stopping: not worth starting CBC */
            status = solve_mip(E, &p, err);
    }
    iopddl_exact_mip_free(&p);
    return status;
}

pp_status iopddl_exact_solve_ex(const iopddl_model *m, const uint32_t *warm_start, iopddl_cost warm_cost,
                             const iopddl_exact_options *o, uint32_t *x_out, iopddl_cost *cost_out,
                             double *lower_bound_out, bool *proven_optimal, iopddl_exact_stats *stats,
                             pp_error *err)
{
    iopddl_exact_stats local;
    exact_call E = {.m = m, .o = o, .st = stats ? stats : &local, .t0 = pp_now(), .x_out = x_out, .best = -1,
                    .lower = -INFINITY};
    memset(E.st, 0, sizeof *E.st);
    *cost_out = -1;
    *lower_bound_out = -INFINITY;
    *proven_optimal = false;
    if (!m || !o)
        return pp_error_set(err, PP_EARG, "exact solver: no model or options");
    uint32_t n = m->node_count;
    (void)warm_cost; /* recomputed below: a stale or wrong figure must not mislead the search */
    /* The answer so far: the warm start if it is usable, else nothing. */
    iopddl_min_usage_assignment(m, x_out);
    if (warm_start && usable(m, warm_start, &E.best))
        memcpy(x_out, warm_start, n * sizeof *x_out);
    else
        E.best = -1;
    E.sr = malloc(((size_t)n + 1) * sizeof *E.sr);
    E.warm_sr = malloc(((size_t)n + 1) * sizeof *E.warm_sr);
    E.x = malloc(((size_t)n + 1) * sizeof *E.x);
    bool ok = E.sr && E.warm_sr && E.x && iopddl_reduced_init(&E.c, m, E.st);
    E.c.off = o->off;
    if (ok) {
        iopddl_exact_raw_size(&E.c);
        ok = iopddl_presolve(&E.c);
    }
    pp_status status;
    if (ok) {
        E.st->presolve_seconds = pp_now() - E.t0;
        status = solve_reduced(&E, err);
    } else {
        status = pp_error_set(err, PP_ENOMEM, "out of memory in the exact solver");
    }
    *cost_out = status == PP_OK ? E.best : -1;
    *lower_bound_out = E.lower;
    *proven_optimal = E.proven;
    free(E.sr);
    free(E.warm_sr);
    free(E.x);
    iopddl_reduced_free(&E.c);
    return status;
}

pp_status iopddl_exact_solve(const iopddl_model *m, const uint32_t *warm_start, iopddl_cost warm_cost,
                          double time_limit, int threads, uint32_t *x_out, iopddl_cost *cost_out,
                          double *lower_bound_out, bool *proven_optimal, pp_error *err)
{
    iopddl_exact_options o = {.time_limit = time_limit, .threads = threads, .verbose = false};
    return iopddl_exact_solve_ex(m, warm_start, warm_cost, &o, x_out, cost_out, lower_bound_out, proven_optimal,
                              NULL, err);
}

