/* qi_pipeline.h: the pipeline problems of Qi et al.'s zero-bubble paper as
 * the scheduler's tests build them. Their measured times (paper 002: T_F
 * 5478, T_B 5806, T_W 3534 us, 200 us a transfer) are the settings issue 17
 * measured, so the tests hold the scheduler to figures on the same problems
 * the benchmarks print. */
#ifndef PP_TESTS_QI_PIPELINE_H
#define PP_TESTS_QI_PIPELINE_H

#include "check.h"
#include "parplan/sched.h"

/* P stages, M micro-batches, a device limit of `limit` micro-batches'
 * activations, W keeping w_mem of a forward's; the generator's reference
 * schedule goes to *ref when ref is given. NULL (a failed check) when the
 * generator refuses. */
static inline pp_sched_problem *qi_pipeline(int P, int M, pp_pipe_scheme scheme, double limit, double w_mem,
                                            pp_sched_schedule **ref)
{
    pp_pipe_spec spec = {.stages = P, .microbatches = M, .scheme = scheme, .mem_act = limit, .t_f = 5478,
                         .t_b = 5806, .t_w = 3534, .comm = 200, .w_mem = w_mem};
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_gen_pipeline(&spec, &p, ref, &err), PP_OK);
    return p;
}

#endif
