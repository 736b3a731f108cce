"""parplan.plan against `parplan plan --json`, and the worked example's
checks on that plan: the bundled chess model on the bundled hetero cluster
(the README's example itself, within a limit of 8 s, is run by tests/docs;
its wall time is measured in BENCHMARKS.md, "Plan: no fixed caps", not
asserted: tests hold no timings)."""

import json
import os

import pytest

import parplan
from conftest import EXAMPLES, cli

MODEL = os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")
HETERO = os.path.join(EXAMPLES, "cluster", "hetero-v100-16.json")


def without_clock(report):
    report = json.loads(json.dumps(report))
    report.pop("seconds")
    return report


def test_the_plan_is_the_clis_field_by_field(tmp_path):
    """Also the worked example's checks (the README plans the same model on
    the same cluster, which tests/docs runs as written): one plan here, not
    a second of the same inputs."""
    ours = parplan.plan(MODEL, HETERO, timeout=20, threads=1)
    code, stdout, stderr = cli("plan", MODEL, "--cluster", HETERO, "--timeout", 20, "--threads", 1, "--json",
                               "--out", tmp_path)
    assert code == 0, stderr
    assert without_clock(ours.report) == without_clock(json.loads(stdout))
    # the stages' modules: in the report, and as files, one per stage
    assert len(ours.stage_modules) == len(ours.stages) >= 1
    for s, text in enumerate(ours.stage_modules):
        assert (tmp_path / f"stage{s}.mlir").read_text() == text
        assert text.startswith("module @") and "mhlo.sharding" in text
    # the worked example: it fits, every unit in a stage, no baseline faster
    assert ours.fits and ours.step_time > 0
    assert sum(s["units"] for s in ours.stages) == ours.report["units"]
    for b in ours.baselines:
        assert "why" in b or ours.step_time <= b["step_time"]


def test_a_cluster_too_small_is_a_report_with_the_shortfall():
    cluster = {"name": "two", "nodes": [{"name": "n", "device": "A100-80GB-SXM", "count": 2,
                                         "links": [{"class": "pcie", "bandwidth": 12.9e9, "latency": 1.5e-5}]}]}
    p = parplan.plan(MODEL, cluster, memory=100e6, timeout=20)
    assert not p.fits
    assert any(d["peak_memory"] > d["capacity"] for d in p.report["devices"])


def test_an_unknown_device_type_is_named():
    cluster = {"name": "odd", "nodes": [{"name": "n", "device": "H999", "count": 2,
                                         "links": [{"class": "pcie", "bandwidth": 12.9e9, "latency": 1.5e-5}]}]}
    with pytest.raises(parplan.InputError) as caught:
        parplan.plan(MODEL, cluster)
    assert "H999" in str(caught.value)
