/* mip.h: the exact scheduling MIP of paper 002 section III (eqs. 1-19),
 * linearised and solved by CBC (internal to sched; owned by mip.c).
 *
 * The model follows the checker's semantics (parplan/sched.h): every
 * schedule it accepts passes the checker, and every schedule the checker
 * passes satisfies it (but for one corner with zero-length ops, see mip.c),
 * so what it proves optimal is optimal. */
#ifndef PP_SCHED_MIP_H
#define PP_SCHED_MIP_H

#include "parplan/sched.h"

typedef struct {
    double time_limit;                      /* seconds, firm; <= 0: none */
    int threads;                            /* 1: serial CBC; n >= 2: CBC's deterministic
                                               parallel search; <= 0: one per core */
    const pp_sched_schedule *warm_start;    /* may be NULL; ignored unless pp_sched_check passes it */
    const pp_stop_flag *stop;               /* the solve's flag; NULL: none */
} sc_mip_options;

typedef struct {
    double makespan;   /* of the schedule written to out (NAN when none) */
    double bound;      /* lower bound on every valid makespan (INFINITY: none exists) */
    bool optimal;      /* the search finished: makespan is optimal, or none exists */
    bool found;        /* out holds a valid schedule (it passed pp_sched_check) */
    bool warm_start_fits; /* the warm start passed the checker and satisfied every
                             row of the model, so CBC started from it */
} sc_mip_result;

/* Solves p exactly within the time limit. Returns PP_OK whether or not a
 * schedule was found in time (see r->found), PP_INFEASIBLE when the MIP
 * proves that no valid schedule exists, PP_ENOMEM / PP_EARG on failure.
 * out is written only when r->found. */
pp_status sc_mip_solve(const pp_sched_problem *p, const sc_mip_options *o,
                          pp_sched_schedule *out, sc_mip_result *r, pp_error *err);

#endif
