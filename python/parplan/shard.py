"""parplan.shard: a sharding plan for a StableHLO module on a device mesh
(paper 004), the text as jax.jit(f).lower(...).as_text() prints it."""

import json
import os
from dataclasses import dataclass
from typing import Dict, List, Optional

from . import _parplan


@dataclass
class ShardPlan:
    """The plan chosen, its figures beside the baselines, and the module
    written again with the plan. `report` is exactly what
    `parplan shard --json` prints (plan.module.file reads "<module>": the
    text is `module` here)."""
    report: dict
    module: str                 # the module with the whole plan patched in
    warnings: List[str]         # ops kept opaque, as the CLI warns
    library_seconds: float      # the C calls' own wall time: what Python adds is the rest

    @property
    def argument_specs(self) -> Dict[str, list]:
        """The entry's arguments' PartitionSpecs: per argument, per
        dimension, the mesh axes it is split over ([] for none)."""
        return {a["name"]: a["spec"] for a in self.report["plan"]["shardings"]["arguments"]}

    @property
    def result_specs(self) -> List[list]:
        return self.report["plan"]["shardings"]["results"]

    @property
    def tensors(self) -> List[dict]:
        """Every tensor the plan fixes, with its layout."""
        return self.report["plan"]["tensors"]

    @property
    def time(self) -> float:
        """Predicted step time, s."""
        return self.report["plan"]["time"]

    @property
    def peak_memory(self) -> float:
        """Predicted peak bytes per device."""
        return self.report["plan"]["peak_memory"]

    @property
    def fits(self) -> bool:
        return self.report["plan"]["fits"]

    @property
    def baselines(self) -> Dict[str, dict]:
        """Data parallel, Megatron, both, expert parallel and FSDP, by the
        same cost model (an entry holds "error" where one does not apply)."""
        return self.report["baselines"]


def partition_spec(spec):
    """A spec as JAX writes it: P('b', None), P(('b', 'm'),)."""
    def axis(axes):
        if not axes:
            return "None"
        if len(axes) == 1:
            return repr(axes[0])
        return "(" + ", ".join(map(repr, axes)) + ")"
    return "P(" + ", ".join(axis(a) for a in spec) + ")"


def _mesh_text(mesh):
    if isinstance(mesh, str):
        return mesh
    return ",".join("%s=%d" % (name, size) for name, size in mesh.items())


# The library's tasks (pp_shard_task): plan, --explain, --emit-iopddl.
_PLAN, _EXPLAIN, _EMIT_IOPDDL = 0, 1, 2


def shard(stablehlo_text, mesh, device="a100-80gb", precision="typed", memory=None, timeout=60.0, threads=0,
          seed=1, search="both", format="gspmd", name="<module>", progress=None, apply=None):
    """Plans stablehlo_text's sharding on mesh ({"b": 2, "m": 4}, axes in
    order, or "b=2,m=4"), every device a `device` (a catalog name). memory:
    bytes per device the plan must fit, a number or a string with a unit
    as the CLI's --memory takes it ("16GiB"; None: the device's). The same seed and
    threads give the same plan. A plan that does not fit is still returned
    (fits False). Raises parplan.InputError naming the line and column of
    malformed text. progress, when given, is called now and then with a dict:
    stage ("mcts", "polish", "iopddl"), elapsed, rounds and best_runtime
    (the predicted step time of that search's best plan so far, s).
    apply: (problem, solution), paths of the problem iopddl_problem gives
    (checked to be this model's, mesh's and memory's) and of an IOPDDL
    solution of it: the plan it stands for instead of searching, as the
    CLI's --apply-iopddl."""
    problem, solution = (os.fspath(apply[0]), os.fspath(apply[1])) if apply else (None, None)
    d = _parplan.shard(stablehlo_text, name, _mesh_text(mesh), device, precision, memory, float(timeout),
                       int(threads), int(seed), search, format, progress, _PLAN, problem, solution)
    return ShardPlan(json.loads(d["report"]), d["module"], d["warnings"], d["library_seconds"])


def explain(stablehlo_text, name="<module>"):
    """The named-dimension analysis of stablehlo_text, the text
    `parplan shard --explain` prints: colors, conflicts, compatibility
    sets, repeated-layer groups."""
    return _parplan.shard(stablehlo_text, name, "", "a100-80gb", "typed", None, 60.0, 0, 1, "both", "gspmd", None,
                          _EXPLAIN)["report"]


def iopddl_problem(stablehlo_text, mesh, device="a100-80gb", precision="typed", memory=None, name="<module>"):
    """The sharding problem as an IOPDDL contest problem (a dict), the one
    `parplan shard --emit-iopddl` writes: parplan.iopddl.solve takes it."""
    d = _parplan.shard(stablehlo_text, name, _mesh_text(mesh), device, precision, memory, 60.0, 0, 1, "both",
                       "gspmd", None, _EMIT_IOPDDL)
    return json.loads(d["report"])


# parplan.shard is the function above (the package imports it by that
# name): the other tasks hang from it, as `parplan shard --explain` and
# `--emit-iopddl` are flags of the one command.
shard.explain = explain
shard.iopddl_problem = iopddl_problem
