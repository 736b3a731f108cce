"""parplan.shard against `parplan shard --json`, field by field."""

import json
import os

import pytest

import parplan
from conftest import EXAMPLES, cli, cli_message

MODEL = os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")


def without_timings(report):
    """The report less what depends on the clock: the searches' seconds."""
    report = json.loads(json.dumps(report))
    for key in ("search", "iopddl"):
        if report.get(key):
            report[key].pop("seconds")
    report["plan"]["module"].pop("file")
    return report


def test_the_bundled_transformers_plan_is_the_clis_field_by_field(tmp_path, chess_sharded):
    ours = chess_sharded
    out = tmp_path / "sharded.mlir"
    code, stdout, stderr = cli("shard", MODEL, "--mesh", "b=2,m=4", "--device", "a100-80gb", "--threads", 2,
                               "--seed", 1, "--json", "--out", out)
    assert code == 0, stderr
    theirs = json.loads(stdout)
    assert without_timings(ours.report) == without_timings(theirs)
    assert ours.module == out.read_text()
    assert ours.fits and ours.time == theirs["plan"]["time"] and ours.peak_memory == theirs["plan"]["peak_memory"]
    # The plan shards something and beats the unsharded module.
    assert any(axes for spec in ours.argument_specs.values() for axes in spec)
    assert ours.time < theirs["unsharded"]["time"]


def test_partition_specs_read_as_jax_writes_them():
    assert parplan.partition_spec([["b"], []]) == "P('b', None)"
    assert parplan.partition_spec([["b", "m"]]) == "P(('b', 'm'))"


def test_bad_text_raises_the_clis_message_with_its_line_and_column(tmp_path):
    bad = "module @m {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %b : tensor<2xf32>\n  }\n}\n"
    path = tmp_path / "bad.mlir"
    path.write_text(bad)
    with pytest.raises(parplan.InputError) as caught:
        parplan.shard(bad, mesh={"b": 2}, name=str(path), timeout=5)
    e = caught.value
    assert str(e) == cli_message("shard", path, "--mesh", "b=2", "--timeout", 5)
    assert e.file == str(path) and e.position == "3:12"
    with pytest.raises(parplan.InputError) as unnamed:
        parplan.shard(bad, mesh="b=2", timeout=5)
    assert unnamed.value.file == "<module>" and unnamed.value.position == "3:12"


def test_bad_mesh_and_device_are_refused():
    with open(MODEL) as f:
        text = f.read()
    with pytest.raises(parplan.ArgumentError, match="no such device type"):
        parplan.shard(text, mesh={"b": 2}, device="abacus")
    with pytest.raises(parplan.ArgumentError, match="nothing to shard"):
        parplan.shard(text, mesh={"b": 1})
    with pytest.raises(parplan.Error):
        parplan.shard(text, mesh="b=two")
    with pytest.raises(ValueError, match=r"search greedy: allowed: mcts\|iopddl\|both"):
        parplan.shard(text, mesh={"b": 2}, search="greedy")


def test_progress_reaches_the_callback_from_both_searches():
    seen = []
    with open(MODEL) as f:
        text = f.read()
    plan = parplan.shard(text, mesh={"b": 2, "m": 4}, threads=1, seed=1, name=MODEL, progress=seen.append)
    stages = {p["stage"] for p in seen}
    assert "mcts" in stages and "iopddl" in stages
    mcts = [p for p in seen if p["stage"] in ("mcts", "polish")]
    # Rounds count up, and the best step time only falls.
    assert all(a["rounds"] <= b["rounds"] for a, b in zip(mcts, mcts[1:]))
    assert all(a["best_runtime"] >= b["best_runtime"] for a, b in zip(mcts, mcts[1:]))
    # No search reports better than the plan chosen (the report rounds to 10 digits).
    assert min(p["best_runtime"] for p in seen) >= plan.time * (1 - 1e-9)


BAD = "module @m {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %b : tensor<2xf32>\n  }\n}\n"


def test_explain_is_the_clis_and_refuses_as_it_does(tmp_path):
    """One pp_shard_run (task EXPLAIN) for both: the same text, the same error."""
    with open(MODEL) as f:
        text = f.read()
    code, stdout, stderr = cli("shard", MODEL, "--explain")
    assert code == 0, stderr
    ours = parplan.shard.explain(text, name=MODEL)
    assert ours == stdout and "colors (dimensions sharded together):" in ours
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    with pytest.raises(parplan.InputError) as caught:
        parplan.shard.explain(BAD, name=str(path))
    assert str(caught.value) == cli_message("shard", path, "--explain")


def test_the_iopddl_problem_is_the_clis_and_refuses_as_it_does(tmp_path):
    """One pp_shard_run (task EMIT_IOPDDL) for both: the same problem at the
    same memory limit, the same error for a device the catalog lacks."""
    with open(MODEL) as f:
        text = f.read()
    path = tmp_path / "problem.json"
    code, _, stderr = cli("shard", MODEL, "--mesh", "b=2,m=4", "--memory", "16GB", "--emit-iopddl", path)
    assert code == 0, stderr
    ours = parplan.shard.iopddl_problem(text, {"b": 2, "m": 4}, memory="16GB", name=MODEL)
    assert ours == json.loads(path.read_text())
    assert ours["problem"]["usage_limit"] == 16 * 10**9
    with pytest.raises(parplan.ArgumentError) as refused:
        parplan.shard.iopddl_problem(text, "b=2", device="abacus", name=MODEL)
    assert str(refused.value) == cli_message("shard", MODEL, "--mesh", "b=2", "--device", "abacus",
                                             "--emit-iopddl", tmp_path / "never.json").replace("--device", "device")


def test_an_applied_solution_plans_as_the_clis_and_refuses_as_it_does(tmp_path):
    """One pp_shard_run (with apply) for both: the plan an IOPDDL answer
    stands for, and the same refusal of a problem built for another mesh."""
    with open(MODEL) as f:
        text = f.read()
    problem, solution = tmp_path / "problem.json", tmp_path / "solution.json"
    code, _, stderr = cli("shard", MODEL, "--mesh", "b=2,m=4", "--emit-iopddl", problem)
    assert code == 0, stderr
    answer = parplan.iopddl.solve(str(problem), timeout=20, threads=1, seed=1, rounds=2)
    solution.write_text(json.dumps(answer.assignment))
    out = tmp_path / "sharded.mlir"
    code, stdout, stderr = cli("shard", MODEL, "--mesh", "b=2,m=4", "--apply-iopddl", problem, solution, "--json",
                               "--out", out)
    assert code == 0, stderr
    ours = parplan.shard(text, {"b": 2, "m": 4}, apply=(problem, solution), name=MODEL)
    assert without_timings(ours.report) == without_timings(json.loads(stdout))
    assert ours.module == out.read_text()
    assert ours.report["plan"]["time"] == json.loads(stdout)["plan"]["time"]
    with pytest.raises(parplan.InputError) as refused:
        parplan.shard(text, {"b": 4, "m": 2}, apply=(problem, solution), name=MODEL)
    assert str(refused.value) == cli_message("shard", MODEL, "--mesh", "b=4,m=2", "--apply-iopddl", problem, solution)
