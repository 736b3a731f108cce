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
static bool fits(const iop_model *m, const uint32_t *x)
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

static bool usable(const iop_model *m, const uint32_t *x, int64_t *cost)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        if (x[v] >= iop_domain(m, v))
            return false;
    *cost = iop_model_cost(m, x);
    return *cost < FORBID && fits(m, x);
}

/* CBC on the MIP (core/cbc.h), from warm_sr when given; on out->found, sr
 * holds a strategy per free representative. */
static pp_status run_cbc(const iop_reduced *c, const iop_exact_mip *p, const iop_exact_options *o, double deadline,
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
    pp_cbc_options co = {.deadline = deadline, .grace = 0.5, .grace_rate = 0.05, .threads = o->threads,
                         .gap = 0.99, .log = o->verbose, .warm_index = idx, .warm_value = val};
    for (uint32_t r = 0; warm_sr && r < c->n; r++)
        if (c->state[r] == ST_FREE) {
            idx[co.warm_count] = p->xcol[base(c, r) + warm_sr[r]];
            val[co.warm_count++] = 1.0;
        }
    pp_status status = pp_cbc_solve(&p->lp, &co, x, out, err);
    if (status == PP_OK && out->found)
        out->found = iop_exact_mip_strategies(c, p, x, sr);
    free(idx);
    free(val);
    free(x);
    return status;
}

pp_status iop_exact_solve_ex(const iop_model *m, const uint32_t *warm_start, int64_t warm_cost,
                             const iop_exact_options *o, uint32_t *x_out, int64_t *cost_out,
                             double *lower_bound_out, bool *proven_optimal, iop_exact_stats *stats,
                             pp_error *err)
{
    double t0 = pp_now();
    iop_exact_stats local;
    iop_exact_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    *cost_out = -1;
    *lower_bound_out = -INFINITY;
    *proven_optimal = false;
    if (!m || !o)
        return pp_error_set(err, PP_EARG, "exact solver: no model or options");
    uint32_t n = m->node_count;
    (void)warm_cost; /* recomputed below: a stale or wrong figure must not mislead the search */

    /* The answer so far: the warm start if it is usable, else nothing. */
    iop_min_usage_assignment(m, x_out);
    int64_t best = -1;
    if (warm_start && usable(m, warm_start, &best))
        memcpy(x_out, warm_start, n * sizeof *x_out);
    else
        best = -1;

    iop_reduced c;
    memset(&c, 0, sizeof c);
    uint32_t *sr = malloc(((size_t)n + 1) * sizeof *sr);
    uint32_t *warm_sr = malloc(((size_t)n + 1) * sizeof *warm_sr);
    uint32_t *x = malloc(((size_t)n + 1) * sizeof *x);
    bool ok = sr && warm_sr && x && iop_reduced_init(&c, m, st);
    c.off = o->off;
    if (ok) {
        iop_exact_raw_size(&c);
        ok = iop_presolve(&c);
    }
    if (!ok) {
        free(sr);
        free(warm_sr);
        free(x);
        iop_reduced_free(&c);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the exact solver");
    }
    st->presolve_seconds = pp_now() - t0;
    pp_status status = PP_OK;
    if (c.infeasible) {
        /* The presolve only removes what no feasible answer can use. */
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
        goto done;
    }
    iop_exact_mip p;
    status = iop_exact_mip_build(&c, &p, o->max_nonzeros ? o->max_nonzeros : IOP_EXACT_DEFAULT_MAX_NONZEROS, err);
    if (status != PP_OK)
        goto done;
    if (c.infeasible) {
        iop_exact_mip_free(&p);
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
        goto done;
    }
    if (o->verbose)
        fprintf(stderr,
                "exact: raw %llu columns, %llu rows, %llu nonzeros; reduced %llu columns (%llu binary), %llu rows, "
                "%llu nonzeros; %u free nodes, %u pairs, %u merged, %u fixed, %u eliminated, %llu strategies removed, "
                "%llu dominated, %u of %u overflow segments as %u rows, %d rounds, %.3f s\n",
                (unsigned long long)st->raw_columns, (unsigned long long)st->raw_rows,
                (unsigned long long)st->raw_nonzeros, (unsigned long long)st->columns,
                (unsigned long long)st->integer_columns, (unsigned long long)st->rows,
                (unsigned long long)st->nonzeros, st->free_nodes, st->pairs, st->merged, st->fixed, st->eliminated,
                (unsigned long long)st->strategies_removed, (unsigned long long)st->strategies_dominated,
                st->overflow_segments, c.segments, st->usage_rows, st->presolve_rounds, st->presolve_seconds);
    pp_int128 constant = iop_reduced_fixed_cost(&c);
    if (p.lp.cols == 0) {
        /* The presolve decided every node. */
        iop_reduced_expand(&c, sr, x);
        int64_t cost;
        if (usable(m, x, &cost) && (best < 0 || cost <= best)) {
            best = cost;
            memcpy(x_out, x, n * sizeof *x);
        }
        *proven_optimal = best >= 0;
        *lower_bound_out = best >= 0 ? (double)best : INFINITY;
        status = best >= 0 ? PP_OK : PP_INFEASIBLE;
        iop_exact_mip_free(&p);
        goto done;
    }
    if (pp_stop_requested()) {
        /* Stopping: not worth starting CBC. */
        *lower_bound_out = -INFINITY;
        iop_exact_mip_free(&p);
        goto done;
    }
    bool have_warm = best >= 0 && iop_reduced_warm(&c, x_out, warm_sr);
    pp_cbc_outcome out;
    double t1 = pp_now();
    st->warm_start_used = have_warm;
    status = run_cbc(&c, &p, o, o->time_limit > 0 ? t0 + o->time_limit : 0, have_warm ? warm_sr : NULL, sr, &out,
                     err);
    st->cbc_crashes = out.crashes;
    st->cbc_killed = out.killed;
    st->mip_nodes = out.nodes;
    st->mip_seconds = pp_now() - t1;
    iop_exact_mip_free(&p);
    if (status != PP_OK)
        goto done;
    bool cbc_ok = false;
    if (out.found) {
        iop_reduced_expand(&c, sr, x);
        int64_t cost;
        cbc_ok = usable(m, x, &cost);
        if (cbc_ok && (best < 0 || cost < best)) {
            best = cost;
            memcpy(x_out, x, n * sizeof *x);
        }
    }
    if (out.bound > -INFINITY)
        *lower_bound_out = out.bound + (double)constant;
    if (best >= 0) {
        *proven_optimal = out.proven && cbc_ok;
        if (*proven_optimal || *lower_bound_out > (double)best)
            *lower_bound_out = (double)best;
    } else if (out.infeasible) {
        *proven_optimal = true;
        *lower_bound_out = INFINITY;
        status = PP_INFEASIBLE;
    }
done:
    *cost_out = status == PP_OK ? best : -1;
    free(sr);
    free(warm_sr);
    free(x);
    iop_reduced_free(&c);
    return status;
}

pp_status iop_exact_solve(const iop_model *m, const uint32_t *warm_start, int64_t warm_cost,
                          double time_limit, int threads, uint32_t *x_out, int64_t *cost_out,
                          double *lower_bound_out, bool *proven_optimal, pp_error *err)
{
    iop_exact_options o = {.time_limit = time_limit, .threads = threads, .verbose = false};
    return iop_exact_solve_ex(m, warm_start, warm_cost, &o, x_out, cost_out, lower_bound_out, proven_optimal,
                              NULL, err);
}

