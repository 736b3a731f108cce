"""parplan.cluster against the CLI and its own simulator."""

import json
import os

import pytest

import parplan
from conftest import EXAMPLES, cli, cli_message

CLUSTER = os.path.join(EXAMPLES, "cluster", "hetero-v100-16.json")
WORKLOAD = os.path.join(EXAMPLES, "cluster", "llama-7b.json")
V100 = os.path.join(EXAMPLES, "cluster", "v100-32.json")
DROP = os.path.join(EXAMPLES, "cluster", "ethernet-drop.events.json")


def close(a, b):
    """The CLI prints 10 significant digits."""
    return abs(a - b) <= 1e-9 * abs(b)


def test_the_readmes_plan_is_the_clis_and_its_simulation_agrees(tmp_path, llama_on_hetero):
    r = llama_on_hetero
    code, out, err = cli("cluster", "plan", CLUSTER, WORKLOAD, "--timeout", 60, "--threads", 2, "--json",
                         "--out", tmp_path / "plan.json")
    assert code == 0, err
    theirs = json.loads(out)
    assert r.complete and theirs["complete"]
    assert close(r.step_time, theirs["step_time"]) and close(r.report.step_time, theirs["step_time"])
    assert close(r.uniform_step_time, theirs["uniform_step_time"])
    assert close(r.ideal_step_time, theirs["ideal_step_time"])
    assert r.plan == json.loads((tmp_path / "plan.json").read_text())
    # The simulator is the judge: the plan returned, simulated again.
    again = parplan.cluster.simulate(CLUSTER, WORKLOAD, r.plan)
    assert again.step_time == r.step_time and again.fits
    assert r.lower_bound <= r.step_time <= r.uniform_step_time
    assert [d["peak_memory"] for d in again.devices] == [d["peak_memory"] for d in r.report.devices]


def test_dicts_mean_what_the_files_mean(tmp_path):
    with open(CLUSTER) as f:
        cluster = json.load(f)
    with open(WORKLOAD) as f:
        workload = json.load(f)
    shorthand = {"tp": 2, "pp": 4, "dp": 2, "micro_batch": 1}
    from_dicts = parplan.cluster.simulate(cluster, workload, shorthand)
    plan_file = tmp_path / "shorthand.json"
    plan_file.write_text(json.dumps(shorthand))
    code, out, err = cli("cluster", "simulate", CLUSTER, WORKLOAD, plan_file, "--json")
    assert code == 0, err
    theirs = json.loads(out)
    assert close(from_dicts.step_time, theirs["step_time"])
    assert all(close(ours["peak_memory"], cli_row["peak_memory"])
               for ours, cli_row in zip(from_dicts.devices, theirs["devices"]))


def test_replan_after_the_ethernet_drops_matches_the_cli(tmp_path):
    old = parplan.cluster.plan(V100, WORKLOAD, timeout=60, threads=2)
    old_file = tmp_path / "old.json"
    old_file.write_text(json.dumps(old.plan))
    new = parplan.cluster.replan(V100, WORKLOAD, old.plan, DROP, timeout=60, threads=2)
    code, out, err = cli("cluster", "replan", V100, WORKLOAD, old_file, "--event", DROP, "--timeout", 60,
                         "--threads", 2, "--json")
    assert code == 0, err
    theirs = json.loads(out)
    assert new.at == theirs["at"] == 1800
    assert close(new.old_step_time, theirs["old_step_time"]) and close(new.step_time, theirs["step_time"])
    assert new.step_time <= new.old_step_time


def test_bad_cluster_raises_the_clis_message_with_its_position(tmp_path):
    bad = {"name": "x", "nodes": [{"name": "n", "type": "v100", "count": 0}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(parplan.InputError) as caught:
        parplan.cluster.plan(str(path), WORKLOAD, timeout=5)
    e = caught.value
    assert str(e) == cli_message("cluster", "plan", path, WORKLOAD, "--timeout", 5)
    assert e.file == str(path) and e.position and e.path == "nodes[0].type"
    with pytest.raises(parplan.InputError) as from_dict:
        parplan.cluster.simulate(bad, WORKLOAD, {"tp": 1, "pp": 1, "dp": 1, "micro_batch": 1})
    assert from_dict.value.file == "<cluster>" and from_dict.value.path == "nodes[0].type"


def test_bad_workload_and_plan_name_their_file(tmp_path):
    with pytest.raises(parplan.InputError) as caught:
        parplan.cluster.simulate(CLUSTER, {"transformer": {"layers": -1}}, {"tp": 1, "pp": 1, "dp": 1,
                                                                             "micro_batch": 1})
    assert caught.value.file == "<workload>" and caught.value.position
    with pytest.raises(parplan.InputError) as caught:
        parplan.cluster.simulate(CLUSTER, WORKLOAD, {"tp": 3, "pp": 1, "dp": 1, "micro_batch": 1})
    assert caught.value.file == "<plan>"
    with pytest.raises(parplan.InputError) as caught:
        parplan.cluster.simulate(CLUSTER, WORKLOAD, {"tp": 1, "pp": 1, "dp": 1, "micro_batch": "x"})
    assert caught.value.file == "<plan>" and caught.value.position == "1:44" and caught.value.path == "micro_batch"
    with pytest.raises(parplan.InputError) as caught:
        parplan.cluster.replan(V100, WORKLOAD, {"tp": 1, "pp": 1, "dp": 32, "micro_batch": 1},
                               {"events": [{"time": -1}]})
    e = caught.value
    assert e.file == "<events>" and e.position == "1:22" and e.path == "events[0].time"


def test_no_plan_that_fits_raises_infeasible():
    with open(os.path.join(EXAMPLES, "cluster", "hetero-v100-8.json")) as f:
        nodes = json.load(f)["nodes"]
    v100 = dict(next(n for n in nodes if "V100" in n["device"]), count=2)
    # LLaMA-7B's 16 bytes of state per parameter alone are over 100 GB.
    with pytest.raises(parplan.InfeasibleError, match="no plan fits"):
        parplan.cluster.plan({"name": "two-v100", "nodes": [v100]}, WORKLOAD, timeout=20, threads=2)


def test_progress_reaches_the_callback():
    seen = []
    plan = parplan.cluster.plan(CLUSTER, WORKLOAD, timeout=60, threads=1, progress=seen.append)
    assert seen, "no progress was reported"
    bests = [p["best_time"] for p in seen]
    assert all(a >= b for a, b in zip(bests, bests[1:]))
    # Reports may be coalesced (the callback sees the latest), never better than the answer.
    assert bests[-1] >= plan.step_time * (1 - 1e-9)
