"""Worked example: shard the bundled transformer on a 2 x 4 mesh of A100s
and print the PartitionSpecs of its arguments, then plan the bundled
heterogeneous cluster (8 RTX 4090D + 8 V100) for a LLaMA-7B-like model.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/plan.py
"""

import os
from collections import Counter

import parplan

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def shard_transformer():
    with open(os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")) as f:
        text = f.read()  # what jax.jit(f).lower(...).as_text() returns
    plan = parplan.shard(text, mesh={"b": 2, "m": 4}, device="a100-80gb", threads=2, seed=1)
    print("transformer on b=2 x m=4 A100-80GB: %.3f ms per step, %.1f MB per device (%s search)"
          % (plan.time * 1e3, plan.peak_memory / 1e6, plan.report["plan"]["source"]))
    print("  %-24s %.3f ms" % ("unsharded", plan.report["unsharded"]["time"] * 1e3))
    for name, cost in plan.baselines.items():
        print("  %-24s %s" % (name, "%.3f ms" % (cost["time"] * 1e3) if "time" in cost else
                              "n/a: " + cost["error"]))
    specs = Counter(parplan.partition_spec(spec) for spec in plan.argument_specs.values())
    print("argument PartitionSpecs (%d arguments):" % len(plan.argument_specs))
    for spec, count in specs.most_common():
        print("  %-22s x %d" % (spec, count))
    print("result PartitionSpecs:", ", ".join(parplan.partition_spec(s) for s in plan.result_specs))
    print("sharded module: %d lines, %d tensors annotated"
          % (plan.module.count("\n"), plan.report["plan"]["module"]["annotated"]))


def plan_cluster():
    cluster = os.path.join(EXAMPLES, "cluster", "hetero-v100-16.json")
    workload = os.path.join(EXAMPLES, "cluster", "llama-7b.json")
    r = parplan.cluster.plan(cluster, workload, timeout=60, threads=2)
    stages = r.plan["replicas"][0]["stages"]
    print("cluster hetero-v100-16, llama-7b: %.4f s per step, %.2f samples/s (uniform %.4f s: %.2fx)"
          % (r.step_time, r.report.samples_per_second, r.uniform_step_time, r.speedup_over_uniform))
    print("  %d replicas x %d stages, layers %s, devices of replica 0 %s"
          % (len(r.plan["replicas"]), len(stages), "/".join(str(s["layers"]) for s in stages),
             [s["devices"] for s in stages]))
    print("  search %s (lower bound %.4f s)"
          % ("complete: the best plan of its space" if r.complete else "stopped by the time limit", r.lower_bound))


if __name__ == "__main__":
    shard_transformer()
    plan_cluster()
