"""examples/python/plan.py, the README's worked example, runs and prints
the plans the library finds (the same figures the other tests check
against the CLI)."""

import os
import subprocess
import sys

from conftest import EXAMPLES


def test_the_worked_example_prints_the_plans(chess_sharded, llama_on_hetero):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "python", "plan.py")], capture_output=True,
                          text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    plan = chess_sharded  # the example's call: the same model, mesh, device, threads and seed
    assert lines[0].startswith("transformer on b=2 x m=4 A100-80GB: %.3f ms per step" % (plan.time * 1e3))
    specs = [line for line in lines if line.startswith("  P(")]
    assert sum(int(line.rsplit("x ", 1)[1]) for line in specs) == len(plan.argument_specs)
    r = llama_on_hetero  # the example's call: the same cluster, workload, limit and threads
    cluster = [line for line in lines if line.startswith("cluster hetero-v100-16")]
    assert cluster and "%.4f s per step" % r.step_time in cluster[0]
