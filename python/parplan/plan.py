"""parplan.plan: one training-step plan of a StableHLO module on a cluster:
pipeline stages cut between the module's repeated layers, each stage's
devices a mesh the sharder shards it on, priced by the cluster simulator."""

import json
import os
from dataclasses import dataclass
from typing import List

from . import _parplan
from ._inputs import text as _text


@dataclass
class Plan:
    """The plan. `report` is exactly what `parplan plan --json` prints."""
    report: dict
    library_seconds: float      # the C call's own wall time: what Python adds is the rest

    @property
    def step_time(self) -> float:
        """s, by the cluster simulator (the judge)."""
        return self.report["step_time"]

    @property
    def stages(self) -> List[dict]:
        return self.report["stages"]

    @property
    def stage_modules(self) -> List[str]:
        """Each stage as a StableHLO module, sharded for its mesh: what
        `parplan plan --out DIR` writes as DIR/stageS.mlir."""
        return [s["module"] for s in self.report["stages"]]

    @property
    def fits(self) -> bool:
        return self.report["fits"]

    @property
    def baselines(self) -> List[dict]:
        """Data parallel, the sharder alone, pipeline only, Megatron
        uniform: each with its step_time, or why it does not apply."""
        return self.report["baselines"]


def plan(stablehlo, cluster, batch=0, microbatches=0, precision="typed", memory=None, timeout=60.0, threads=0,
         seed=1, name=None):
    """Plans one training step of stablehlo (a path, or the module's text
    as jax.jit(f).lower(...).as_text() prints it) on cluster (a path or a
    dict in `parplan cluster plan`'s format). batch: samples per step, a
    multiple of the module's batch (0: that batch times twice the devices);
    microbatches: per replica (0: chosen); memory: bytes per device, a
    number or text with a unit as the CLI takes it ("16GiB"; None: each
    type's). A plan that does not fit is returned with fits False and each
    device's peak against its capacity. Raises parplan.InputError naming the
    file and position of malformed input."""
    if isinstance(stablehlo, os.PathLike) or (isinstance(stablehlo, str) and "\n" not in stablehlo
                                              and os.path.exists(stablehlo)):
        path = os.fspath(stablehlo)
        with open(path, encoding="utf-8") as f:
            text, module_name = f.read(), path
    else:
        text, module_name = stablehlo, "<module>"
    cluster_text, cluster_name = _text(cluster, "cluster")
    d = _parplan.plan(text, name or module_name, cluster_text, cluster_name, int(batch), int(microbatches),
                      precision, memory, float(timeout), int(threads), seed)
    return Plan(json.loads(d["report"]), d["library_seconds"])
