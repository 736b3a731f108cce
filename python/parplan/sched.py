"""Operator scheduling (paper 002): place and order the ops of a problem on
its devices to minimise the makespan, and check a schedule independently.
Problems and schedules are paths or dicts in the README's JSON formats."""

import json
from dataclasses import dataclass
from typing import List, Optional

from . import _parplan
from ._inputs import source, text


@dataclass
class ScheduleResult:
    """What schedule found."""
    schedule: dict             # in the README's schedule format
    makespan: float
    lower_bound: float         # no valid schedule is shorter
    mip_bound: Optional[float]  # the exact MIP's bound when it ran
    proven_optimal: bool
    time_to_first: float
    time_to_best: float
    elapsed: float
    rounds: int
    library_seconds: float     # the C calls' own wall time (reading included)


@dataclass
class CheckReport:
    """The independent checker's verdict and figures."""
    valid: bool
    violation: Optional[str]   # the first violation, as the CLI words it
    violations: int
    makespan: float
    max_span: float
    max_bubble: float
    devices: List[str]         # the lists below follow this order
    span: List[float]
    busy: List[float]
    bubble: List[float]
    peak_memory: List[float]
    period: Optional[float] = None         # the repetition checked, when a period was given or stated
    period_bubble: Optional[float] = None  # 1 - the busiest device's work / period


def schedule(problem, timeout=10.0, threads=0, seed=1, rounds=0, mip=True, coarsen=0, objective="makespan",
             start=None, progress=None):
    """Schedules problem (a path or a dict). Stops early when the makespan
    reaches the lower bound. start: a valid schedule (path or dict) to start
    from. progress, if given, is called with a dict (makespan, lower_bound,
    elapsed). Ctrl-C stops the search and raises KeyboardInterrupt."""
    src, is_path, name = source(problem, "problem")
    start_text = text(start, "start")[0] if start is not None else None
    d = _parplan.sched_solve(src, is_path, name, float(timeout), int(threads), int(seed), int(rounds), not mip,
                             int(coarsen), objective, start_text, progress)
    d["schedule"] = json.loads(d["schedule"])
    return ScheduleResult(**d)


def check_schedule(problem, schedule, period=None, asynchronous=False):
    """Checks schedule against problem with the checker that shares no code
    with the solver, as `parplan check-schedule` does: also the schedule
    repeated every `period` (default: the schedule's own "period", when it
    states one), each device's optimizer step between its iterations unless
    asynchronous. Returns a CheckReport (valid or not); raises
    parplan.InputError when either cannot be read."""
    src, is_path, name = source(problem, "problem")
    schedule_text, schedule_name = text(schedule, "schedule")
    return CheckReport(**_parplan.sched_check(src, is_path, name, schedule_text, schedule_name,
                                              period, bool(asynchronous)))
