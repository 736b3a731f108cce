"""parplan.schedule, check_schedule and gen.pipeline against known bounds,
the independent checker and the CLI."""

import copy
import json
import os

import pytest

import parplan
from conftest import EXAMPLES, cli, cli_message

TINY = os.path.join(EXAMPLES, "sched-tiny.json")


def test_dualpipe_p4_reaches_its_bound_and_the_checker_agrees():
    problem, reference = parplan.gen.pipeline(4, 8, "dualpipe", mem_act=5)
    assert parplan.check_schedule(problem, reference).valid
    r = parplan.schedule(problem, timeout=60, threads=2, seed=1)  # stops at the bound, in seconds
    # Middle devices idle P/2 - 1 at the start, then 3M of work.
    assert r.lower_bound == 3 * 8 + 4 // 2 - 1
    assert r.makespan == r.lower_bound
    report = parplan.check_schedule(problem, r.schedule)
    assert report.valid and report.violations == 0 and report.makespan == r.makespan
    capacity = {d["name"]: d["memory"] for d in problem["devices"]}
    assert sorted(report.devices) == sorted(capacity)
    assert all(peak <= capacity[d] for d, peak in zip(report.devices, report.peak_memory))


def test_the_generated_problem_is_the_clis(tmp_path):
    problem, _ = parplan.gen.pipeline(4, 8, "dualpipe", mem_act=5)
    code, out, err = cli("gen", "pipeline", "--pp", 4, "--microbatches", 8, "--scheme", "dualpipe",
                         "--mem-act", 5)
    assert code == 0, err
    assert json.loads(out) == problem


def test_a_schedule_and_its_check_match_the_cli(tmp_path):
    r = parplan.schedule(TINY, timeout=5, threads=1, seed=1, rounds=2000)
    out_file = tmp_path / "s.json"
    code, _, err = cli("schedule", TINY, "--threads", 1, "--seed", 1, "--rounds", 2000, "--out", out_file,
                       "--quiet")
    assert code == 0, err
    assert json.loads(out_file.read_text()) == r.schedule
    code, out, err = cli("check-schedule", TINY, out_file, "--json")
    assert code == 0, err
    assert json.loads(out)["makespan"] == parplan.check_schedule(TINY, str(out_file)).makespan


def test_the_checker_finds_a_broken_schedule():
    problem, reference = parplan.gen.pipeline(4, 8, "dualpipe", mem_act=5)
    broken = copy.deepcopy(reference)
    first = broken["ops"][0]
    first["start"] += 0.5
    report = parplan.check_schedule(problem, broken)
    assert not report.valid and report.violations >= 1 and report.violation


def test_start_from_a_given_schedule():
    problem, reference = parplan.gen.pipeline(4, 8, "1f1b", mem_act=5)
    r = parplan.schedule(problem, timeout=5, threads=1, rounds=100, start=reference)
    assert parplan.check_schedule(problem, r.schedule).valid
    assert r.makespan <= parplan.check_schedule(problem, reference).makespan


def test_bad_problem_raises_the_clis_message_with_its_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"devices": [{"name": "a"}],\n "ops": [{"name": "x", "duration": -1}]}')
    with pytest.raises(parplan.InputError) as caught:
        parplan.schedule(str(path), timeout=1)
    e = caught.value
    assert str(e) == cli_message("schedule", path, "--timeout", 1)
    assert e.file == str(path) and e.position == "2:36" and e.path == "ops[0].duration"
    with pytest.raises(parplan.InputError) as from_dict:
        parplan.schedule({"devices": [{"name": "a"}], "ops": [{"name": "x", "duration": -1}]})
    assert from_dict.value.file == "<problem>" and from_dict.value.path == "ops[0].duration"


def test_bad_schedule_raises_with_its_position(tmp_path):
    path = tmp_path / "bad-schedule.json"
    path.write_text('{"ops": [{"op": "nope", "device": "d0", "start": 0, "end": 1}]}')
    with pytest.raises(parplan.InputError) as caught:
        parplan.check_schedule(TINY, str(path))
    e = caught.value
    assert str(e) == cli_message("check-schedule", TINY, path)
    assert e.file == str(path) and e.position and e.path


def test_interleaved_reference_is_checked_valid():
    # Interleaved 1F1B, P = 2, V = 2, M = 4 at unit times: 3 M V + 3 (P - 1) (gen_interleaved.c).
    problem, reference = parplan.gen.pipeline(2, 4, "interleaved", mem_act=8, chunks=2)
    check = parplan.check_schedule(problem, reference)
    assert check.valid and check.makespan == 3 * 4 * 2 + 3 * (2 - 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="expected dualpipe, 1f1b"):
        parplan.gen.pipeline(4, 8, "nope")
    with pytest.raises(parplan.ArgumentError, match="even number"):
        parplan.gen.pipeline(4, 7, "dualpipe", mem_act=5)
    with pytest.raises(ValueError):
        parplan.schedule(TINY, objective="fastest")
    with pytest.raises(TypeError):
        parplan.schedule(42)


def test_progress_reports_makespans_above_the_bound():
    problem, _ = parplan.gen.pipeline(8, 16, "zb1p", mem_act=9)
    seen = []
    r = parplan.schedule(problem, timeout=2, threads=1, progress=seen.append)
    assert seen and all(p["makespan"] >= p["lower_bound"] == r.lower_bound for p in seen)
    assert min(p["makespan"] for p in seen) >= r.makespan
