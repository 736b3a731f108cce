"""parplan.gen: generated scheduling problems (paper 002 section V)."""

import json

from . import _parplan


def pipeline(stages, microbatches, scheme="dualpipe", mem_act=None, param_mem=1.0, comm=0.0, t_f=1.0, t_b=1.0,
             t_w=1.0, w_mem=0.0, in_order=False, chunks=0):
    """A pipeline-parallel training step on `stages` devices, as
    `parplan gen pipeline` makes it: returns (problem, reference), two dicts
    in the README's formats, reference being the scheme's own schedule (None
    for scheme "zb", whose greedy is the start the solver uses). mem_act is
    the activation budget in micro-batch activations per device (default:
    stages + 1). chunks: model chunks per device for scheme "interleaved"
    (0: 2)."""
    budget = float(stages + 1 if mem_act is None else mem_act)
    problem, reference = _parplan.sched_gen_pipeline(int(stages), int(microbatches), scheme, budget,
                                                     float(param_mem), float(comm), float(t_f), float(t_b),
                                                     float(t_w), float(w_mem), bool(in_order), int(chunks))
    return json.loads(problem), json.loads(reference) if reference is not None else None
