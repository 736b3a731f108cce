"""examples/python/plan.py, the README's worked example, runs and prints
the plans the library finds (the same figures the other tests check
against the CLI)."""

import os
import subprocess
import sys

import parplan
from conftest import EXAMPLES


def test_the_worked_example_prints_the_plans():
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "python", "plan.py")], capture_output=True,
                          text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    with open(os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")) as f:
        plan = parplan.shard(f.read(), mesh={"b": 2, "m": 4}, threads=2, seed=1)
    assert lines[0].startswith("transformer on b=2 x m=4 A100-80GB: %.3f ms per step" % (plan.time * 1e3))
    specs = [line for line in lines if line.startswith("  P(")]
    assert sum(int(line.rsplit("x ", 1)[1]) for line in specs) == len(plan.argument_specs)
    r = parplan.cluster.plan(os.path.join(EXAMPLES, "cluster", "hetero-v100-16.json"),
                             os.path.join(EXAMPLES, "cluster", "llama-7b.json"), threads=2)
    cluster = [line for line in lines if line.startswith("cluster hetero-v100-16")]
    assert cluster and "%.4f s per step" % r.step_time in cluster[0]
