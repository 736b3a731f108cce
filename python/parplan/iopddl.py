"""parplan.iopddl: strategy assignment under a usage limit (the ASPLOS/
EuroSys 2025 contest problem): solve a problem, or evaluate an assignment
with the contest's semantics. A problem is a path (JSON or JSON.gz) or a
dict in the contest's format."""

import operator
import os
from dataclasses import dataclass
from typing import List, Optional

from . import _parplan
from ._inputs import source


@dataclass
class Evaluation:
    """The contest's evaluation of an assignment."""
    cost: int              # 128-bit sum of the chosen node and edge costs
    peak_usage: int        # the highest summed usage of live nodes
    peak_time: int         # the earliest time it is reached; -1 if none
    feasible: bool         # peak_usage within the limit (always without one)
    uses_forbidden: bool   # some chosen cost is 10**18 or more


@dataclass
class Solution:
    """What solve found: the answer, its evaluation and how it went."""
    assignment: List[int]  # a strategy index per node
    cost: int
    peak_usage: int
    peak_time: int
    feasible: bool
    uses_forbidden: bool
    lower_bound: Optional[float]  # certified: no answer costs less; None if unknown
    proven_optimal: bool
    time_first_feasible: float    # seconds from the call
    time_best: float
    time_total: float
    rounds: int                   # relaxation rounds, all workers
    neighbourhood_rounds: int
    library_seconds: float        # the C calls' own wall time (reading included)


def _evaluation(d):
    return Evaluation(d["evaluated_cost"], d["peak_usage"], d["peak_time"], d["feasible"], d["uses_forbidden"])


def solve(problem, timeout=60.0, threads=0, seed=1, rounds=0, exact=True, progress=None, bound=True):
    """Solves problem (a path or a dict) within timeout seconds, with
    `threads` workers (0: one per core). The same seed, threads and rounds
    give the same answer. progress, if given, is called with a dict
    (elapsed, best_cost, rounds, stage) as the search goes. Ctrl-C stops the
    search and raises KeyboardInterrupt. bound=False skips the certified
    bound's stage and gives its share of the time to the search (the exact
    stage and the search's exact regions may still prove an answer). Raises parplan.InputError naming
    the position for a malformed problem, parplan.InfeasibleError when no
    assignment fits the limit."""
    text, is_path, name = source(problem, "problem")
    d = _parplan.iopddl_solve(text, is_path, name, float(timeout), int(threads), int(seed), int(rounds),
                              not exact, progress, not bound)
    return Solution(d["assignment"], d["cost"], d["peak_usage"], d["peak_time"], d["feasible"],
                    d["uses_forbidden"], d["lower_bound"], d["proven_optimal"], d["time_first_feasible"],
                    d["time_best"], d["time_total"], d["rounds"], d["neighbourhood_rounds"], d["library_seconds"])


def _answer(assignment):
    """(text_or_path, is_path, name) of an answer: a path is read by the
    library as the CLI's eval reads it; a sequence of indices is written as
    the same line "[s0, s1, ...]", so a wrong one gets the CLI's words."""
    if isinstance(assignment, (str, os.PathLike)):
        path = os.fspath(assignment)
        return path, True, path
    return "[%s]" % ", ".join(str(operator.index(v)) for v in assignment), False, "<assignment>"


def evaluate(problem, assignment):
    """Evaluates assignment (a strategy index per node, or the path of an
    answer file) on problem with the contest's semantics: half-open
    intervals, 128-bit sums."""
    return _evaluation(_parplan.iopddl_evaluate(*source(problem, "problem"), *_answer(assignment)))
