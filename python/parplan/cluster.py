"""parplan.cluster: training plans for heterogeneous clusters (paper 003).
Clusters, workloads, events and plans are paths or dicts in the README's
formats ("Cluster planner"); `devices` is a device-catalog file to add to
the built-in catalog (types or a calibration)."""

import json
from dataclasses import dataclass
from typing import List, Optional

from . import _parplan
from ._inputs import source


@dataclass
class Report:
    """One simulated training step."""
    step_time: Optional[float]  # s; None when a transfer waits on a link that is down
    samples_per_second: float
    tflops_per_device: float
    fits: bool                  # every device within its memory
    devices: List[dict]         # per device: node, type, compute, communication, idle, peak_memory, capacity
    ideal_step_time: float = 0.0  # every device computing all the time: no plan is faster


@dataclass
class PlanResult:
    """What plan (or replan) found."""
    plan: dict                  # in the plan file format
    step_time: float
    report: Report
    uniform: Optional[dict]     # the best Megatron-uniform plan that fits, or None
    uniform_step_time: Optional[float]
    old_step_time: Optional[float]  # replan: the old plan under the new conditions (None: cannot run)
    lower_bound: Optional[float]    # no plan in the space is faster
    ideal_step_time: float
    complete: bool              # the search finished: the plan is the best of its space
    nodes: int
    simulations: int
    seconds: float
    at: float                   # the moment of the run planned for
    library_seconds: float      # the C calls' own wall time (reading included)

    @property
    def speedup_over_uniform(self):
        return self.uniform_step_time / self.step_time if self.uniform_step_time else None


def _doc(document, what, required=True):
    """(text_or_path, is_path, name); (None, False, None) for an optional
    document left out. A required one must be a path or a dict."""
    if document is None and not required:
        return (None, False, None)
    return source(document, what)


def _report(d, ideal=None):
    return Report(d["step_time"], d["samples_per_second"], d["tflops_per_device"], d["fits"], d["devices"],
                  ideal if ideal is not None else d.get("ideal_step_time", 0.0))


def _plan(d):
    d["plan"] = json.loads(d["plan"])
    d["uniform"] = json.loads(d["uniform"]) if d["uniform"] is not None else None
    d["report"] = _report(d["report"], d["ideal_step_time"])
    return PlanResult(**d)


def plan(cluster, workload, timeout=60.0, threads=0, seed=1, at=0.0, devices=None, progress=None, stack=None):
    """The best plan for workload on cluster under the conditions `at`
    seconds into the run, beside the best Megatron-uniform plan. Raises
    parplan.InfeasibleError when no plan fits in memory. progress, when
    given, is called now and then with a dict: elapsed, best_time (the best
    plan's simulated step time so far) and nodes explored. stack: the
    software that runs the step ("megatron-lm", "megatron-deepspeed",
    "torchtitan"; None: the workload's), as the CLI's --stack."""
    return _plan(_parplan.cluster_plan(_doc(cluster, "cluster"), _doc(workload, "workload"), _doc(None, "", False),
                                       _doc(None, "", False), devices, False, float(at), float(timeout), int(threads),
                                       int(seed), progress, stack))


def replan(cluster, workload, old_plan, events, timeout=60.0, threads=0, seed=1, devices=None, progress=None,
           stack=None):
    """Re-plans after `events` (a path or a dict {"events": [...]}) have
    all happened, starting from old_plan; old_step_time is the old plan
    under the new conditions. progress: as for plan."""
    return _plan(_parplan.cluster_plan(_doc(cluster, "cluster"), _doc(workload, "workload"),
                                       _doc(events, "events"), _doc(old_plan, "plan"), devices, True, 0.0,
                                       float(timeout), int(threads), int(seed), progress, stack))


def simulate(cluster, workload, plan, at=0.0, devices=None, stack=None):
    """Simulates one training step of plan (the full form or Megatron's
    shorthand {"tp": .., "pp": .., "dp": .., "micro_batch": ..})."""
    return _report(_parplan.cluster_simulate(_doc(cluster, "cluster"), _doc(workload, "workload"),
                                             _doc(plan, "plan"), devices, float(at), stack))
