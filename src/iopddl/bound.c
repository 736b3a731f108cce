/* bound.c: a certified lower bound on every answer's cost: TRW-S's dual
 * bound (trws.c) on the problem with its usage limit dropped. Dropping a
 * constraint can only lower the optimum, and the dual bound of any messages
 * is below the pairwise optimum, so the figure is valid however far the
 * messages are from converging; more iterations only raise it. Costs are
 * integers, so the bound is rounded up after the allowance for rounding.
 *
 * What it does not see is the limit: where memory binds hard (G: the
 * unlimited optimum is half the limited one) the bound is weak. The exact
 * stage's MIP bound, where it runs, replaces it when higher. */
#include <math.h>
#include "iopddl/bound.h"

/* Iterations per check, and the least relative rise over one check that
 * is worth another. */
enum { ITERATIONS_PER_CHECK = 4 };
#define LEAST_RISE 1e-5

double iop_bound_unlimited(const iop_model *m, double seconds, const pp_deadline *deadline)
{
    pp_arena *arena = pp_arena_new(1 << 20);
    iop_trws *t = arena ? iop_trws_new(m, arena) : NULL;
    if (!t || !iop_trws_keep_bound(t, arena)) {
        pp_arena_free(arena);
        return -INFINITY;
    }
    pp_deadline until = pp_deadline_in(seconds);
    if (deadline->at > 0 && (until.at <= 0 || deadline->at < until.at))
        until = *deadline;
    double best = -INFINITY;
    for (;;) {
        iop_trws_run(t, NULL, ITERATIONS_PER_CHECK, NULL, &until);
        double bound = iop_trws_bound(t);
        bool rose = bound > best + LEAST_RISE * fabs(bound);
        best = fmax(best, bound);
        if (!rose || pp_deadline_passed(&until))
            break;
    }
    pp_arena_free(arena);
    return best > -INFINITY ? ceil(best) : best;
}
