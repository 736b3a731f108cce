"""One validation of every option for both front doors (issue 32, item 7):
a value the CLI refuses, Python refuses too, before any work, with the
same words ("timeout nan: allowed: ..."; the CLI writes --timeout)."""

import json
import math
import os

import pytest

import parplan
from conftest import EXAMPLES, cli

SCHED = os.path.join(EXAMPLES, "sched-tiny.json")
IOPDDL = os.path.join(EXAMPLES, "iopddl-example.json")
CLUSTER = os.path.join(EXAMPLES, "cluster", "dgx-a100-8.json")
WORKLOAD = os.path.join(EXAMPLES, "cluster", "gpt-1.7b.json")
MODEL = os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")


def cli_refusal(*args):
    """The CLI's words for a refused flag, without "parplan COMMAND: --"."""
    code, _, err = cli(*args)
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert ": --" in line, line
    return line.split(": --", 1)[1]


def python_refusal(call):
    with pytest.raises(parplan.ArgumentError) as refused:
        call()
    return refused.value.message


def text(v):
    """A value as a user types it on the command line."""
    return "nan" if isinstance(v, float) and math.isnan(v) else "inf" if v == math.inf else "%.17g" % v \
        if isinstance(v, float) else str(v)


@pytest.mark.parametrize("timeout", [0, -1, math.nan, math.inf, 2e9])
def test_iopddl_solve_refuses_the_timeouts_the_cli_refuses(timeout):
    said = python_refusal(lambda: parplan.iopddl.solve(IOPDDL, timeout=timeout))
    assert said == cli_refusal("solve", IOPDDL, "--timeout", text(timeout))
    assert said.startswith("timeout ")


@pytest.mark.parametrize("key,value,flag", [("timeout", math.nan, "--timeout"), ("timeout", math.inf, "--timeout"),
                                            ("timeout", -1, "--timeout"), ("threads", -1, "--threads"),
                                            ("threads", 5000, "--threads"), ("rounds", -1, "--rounds"),
                                            ("coarsen", -3, "--coarsen"), ("objective", "steady", "--objective"),
                                            ("seed", 2**64, "--seed")])
def test_schedule_refuses_what_the_cli_refuses(key, value, flag):
    said = python_refusal(lambda: parplan.schedule(SCHED, **{key: value}))
    assert said == cli_refusal("schedule", SCHED, flag, text(value))


def test_schedule_takes_the_clis_objectives(tmp_path):
    problem, _ = parplan.gen.pipeline(2, 4, scheme="1f1b", mem_act=4)
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps(problem))
    r = parplan.schedule(problem, timeout=2, threads=1, seed=1, rounds=200, objective="cyclic")
    code, out, err = cli("schedule", path, "--timeout", 2, "--threads", 1, "--seed", 1, "--rounds", 200,
                         "--objective", "cyclic", "--quiet")
    assert code == 0, err
    assert r.schedule["period"] == json.loads(out)["period"]


@pytest.mark.parametrize("at", [math.nan, -5, math.inf])
def test_cluster_plan_refuses_the_moments_the_cli_refuses(at):
    said = python_refusal(lambda: parplan.cluster.plan(CLUSTER, WORKLOAD, at=at))
    assert said == cli_refusal("cluster", "plan", CLUSTER, WORKLOAD, "--at", text(at))
    said = python_refusal(lambda: parplan.cluster.simulate(CLUSTER, WORKLOAD, {"tp": 8, "pp": 1, "dp": 1,
                                                                                "micro_batch": 1}, at=at))
    assert said == cli_refusal("cluster", "simulate", CLUSTER, WORKLOAD, "plan.json", "--at", text(at))


@pytest.mark.parametrize("timeout", [0, math.nan, math.inf])
def test_cluster_plan_refuses_the_timeouts_the_cli_refuses(timeout):
    said = python_refusal(lambda: parplan.cluster.plan(CLUSTER, WORKLOAD, timeout=timeout))
    assert said == cli_refusal("cluster", "plan", CLUSTER, WORKLOAD, "--timeout", text(timeout))


@pytest.mark.parametrize("memory", [-1, math.nan, 0, "16XB", math.inf])
def test_shard_refuses_the_memory_the_cli_refuses(memory):
    with open(MODEL) as f:
        model = f.read()
    said = python_refusal(lambda: parplan.shard(model, mesh="b=2", memory=memory))
    assert said == cli_refusal("shard", MODEL, "--mesh", "b=2", "--memory", text(memory))


def test_shard_takes_memory_as_the_cli_writes_it():
    with open(MODEL) as f:
        model = f.read()
    plan = parplan.shard(model, mesh="b=2", memory="1GiB", timeout=5, threads=1, search="mcts")
    assert plan.report["memory"] == 1073741824


@pytest.mark.parametrize("timeout", [0, math.nan, math.inf])
def test_shard_refuses_the_timeouts_the_cli_refuses(timeout):
    with open(MODEL) as f:
        model = f.read()
    said = python_refusal(lambda: parplan.shard(model, mesh="b=2", timeout=timeout))
    assert said == cli_refusal("shard", MODEL, "--mesh", "b=2", "--timeout", text(timeout))


def test_a_message_quoting_a_greek_axis_name_is_text():
    with open(MODEL) as f:
        model = f.read()
    with pytest.raises(parplan.InputError) as refused:
        parplan.shard(model, mesh="δ=4")
    assert "axis name 'δ' has 'δ'" in refused.value.message


def test_cluster_plan_without_its_documents_names_them():
    with pytest.raises(TypeError, match="cluster must be a path or a dict, not NoneType"):
        parplan.cluster.plan(None, None)
    with pytest.raises(TypeError, match="workload must be a path or a dict, not NoneType"):
        parplan.cluster.simulate(CLUSTER, None, {"tp": 8, "pp": 1, "dp": 1, "micro_batch": 1})


def test_a_seed_past_64_bits_is_refused_with_its_range():
    said = python_refusal(lambda: parplan.iopddl.solve(IOPDDL, timeout=1, seed=2**64))
    assert said == cli_refusal("solve", IOPDDL, "--seed", 2**64)
    assert "from -9223372036854775808 to 18446744073709551615" in said


@pytest.mark.parametrize("mesh,device,precision", [("b=2", "tpu9", "typed"), ("b=1", "a100-80gb", "typed"),
                                                   ("b=2", "a100-80gb", "fp4"), ("b=2,b=2", "h100", "typed")])
def test_shard_opens_the_mesh_as_the_cli_does(mesh, device, precision):
    """One pp_shard_mesh_open for both: the same refusal, word for word."""
    with open(MODEL) as f:
        model = f.read()
    with pytest.raises(parplan.Error) as refused:
        parplan.shard(model, mesh=mesh, device=device, precision=precision)
    code, _, err = cli("shard", MODEL, "--mesh", mesh, "--device", device, "--precision", precision)
    line = err.strip().splitlines()[-1]
    assert code == 2
    assert line.replace("parplan: --", "").replace("parplan: ", "").replace("parplan shard: --", "") == \
        refused.value.message


SMALL = os.path.join(os.environ.get("PP_SOURCE_DIR", "."), "tests", "cluster", "data", "cluster-small.json")
TINY = os.path.join(os.environ.get("PP_SOURCE_DIR", "."), "tests", "cluster", "data", "workload-tiny.json")


def test_cluster_plan_answers_as_the_cli_does():
    """One pp_cluster_plan_summarize for both: the same plan, its check, its step."""
    ours = parplan.cluster.plan(SMALL, TINY, timeout=20, threads=1, seed=1)
    code, out, err = cli("cluster", "plan", SMALL, TINY, "--timeout", 20, "--threads", 1, "--seed", 1, "--json")
    assert code == 0, err
    theirs = json.loads(out)
    assert ours.complete and theirs["complete"]
    assert ours.report.step_time == pytest.approx(theirs["step_time"], rel=1e-9)
    assert ours.ideal_step_time == pytest.approx(theirs["ideal_step_time"], rel=1e-9)


def test_cluster_plan_refuses_as_the_cli_does(tmp_path):
    workload = {"name": "huge batch", "transformer": {"layers": 24, "hidden": 2304, "heads": 24, "sequence": 2048,
                                                      "vocabulary": 51200, "global_batch": 2**30}}
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(workload))
    with pytest.raises(parplan.InputError) as refused:
        parplan.cluster.plan(CLUSTER, workload, timeout=5)
    code, _, err = cli("cluster", "plan", CLUSTER, path, "--timeout", 5, "--quiet")
    assert code == 2
    assert err.strip().splitlines()[-1] == "parplan: " + refused.value.message


def test_iopddl_solve_answers_as_the_cli_does(tmp_path):
    """One pp_iopddl_run for both: the same answer for the same seed, threads and rounds."""
    ours = parplan.iopddl.solve(IOPDDL, timeout=20, threads=1, seed=3, rounds=40)
    out = tmp_path / "answer.json"
    code, _, err = cli("solve", IOPDDL, "--timeout", 20, "--threads", 1, "--seed", 3, "--rounds", 40, "--quiet",
                       "--out", out)
    assert code == 0, err
    assert ours.assignment == json.loads(out.read_text())
    assert ours.feasible


def test_iopddl_solve_counts_reading_in_its_timeout_as_the_cli_does():
    with pytest.raises(parplan.InfeasibleError) as late:
        parplan.iopddl.solve(IOPDDL, timeout=1e-6)
    code, _, err = cli("solve", IOPDDL, "--timeout", "0.000001")
    assert code == 1
    assert late.value.message.startswith("no answer within the time limit: ")
    assert err.strip().splitlines()[-1].startswith("parplan: no answer within the time limit: ")


@pytest.mark.parametrize("answer", ["[0, 1, 0, 1, 0]", "[0, 0]", "[0, 0, 99, 0, 0]", "[0, -1, 0, 0, 0]",
                                    "[0, 0, 0, 0, 0] x"])
def test_eval_judges_and_refuses_as_the_cli_does(tmp_path, answer):
    """One pp_iopddl_eval_run for both: the same evaluation, or the same
    words for a bad answer, whether Python's answer is a file or a list."""
    path = tmp_path / "answer.json"
    path.write_text(answer)
    code, out, err = cli("eval", IOPDDL, path)
    try:
        as_list = [int(v) for v in json.loads(answer)]
    except ValueError:
        as_list = None
    if code == 2:
        with pytest.raises(parplan.InputError) as refused:
            parplan.iopddl.evaluate(IOPDDL, path)
        assert err.strip().splitlines()[-1] == "parplan: " + refused.value.message
        assert refused.value.file == str(path)
        if as_list is not None:
            with pytest.raises(parplan.InputError) as again:
                parplan.iopddl.evaluate(IOPDDL, as_list)
            assert again.value.message == refused.value.message.replace(str(path), "<assignment>")
        return
    fields = dict(line.split(" ", 1) for line in out.splitlines())
    for ours in (parplan.iopddl.evaluate(IOPDDL, path), parplan.iopddl.evaluate(IOPDDL, as_list)):
        assert code == (0 if ours.feasible else 1)
        assert (fields["cost"], fields["peak_usage"], fields["peak_time"]) == (
            str(ours.cost), str(ours.peak_usage), str(ours.peak_time))
        assert fields["feasible"] == ("yes" if ours.feasible else "no")


@pytest.mark.parametrize("period", [None, 5.0, 200.0])
def test_check_schedule_judges_the_repetition_as_the_cli_does(tmp_path, period):
    """One pp_sched_check_run for both: the same verdict, the repetition's too."""
    problem, reference = parplan.gen.pipeline(2, 4, scheme="1f1b", mem_act=4)
    problem_path, schedule_path = tmp_path / "problem.json", tmp_path / "schedule.json"
    problem_path.write_text(json.dumps(problem))
    schedule_path.write_text(json.dumps(reference))
    ours = parplan.check_schedule(problem, reference, period=period)
    args = ["check-schedule", problem_path, schedule_path, "--json"] + (["--period", period] if period else [])
    code, out, err = cli(*args)
    theirs = json.loads(out)
    assert code == (0 if ours.valid else 1), err
    assert (ours.valid, ours.violations) == (theirs["valid"], theirs["violations"])
    assert ours.period == theirs.get("period")
    assert ours.period_bubble == theirs.get("period_bubble")


def test_check_schedule_refuses_the_periods_the_cli_refuses():
    problem, reference = parplan.gen.pipeline(2, 4, scheme="1f1b", mem_act=4)
    said = python_refusal(lambda: parplan.check_schedule(problem, reference, period=-1.0))
    assert said == cli_refusal("check-schedule", SCHED, SCHED, "--period", "-1")


def test_cluster_plan_runs_the_stack_the_cli_runs():
    """--stack and stack= set the same request: the same plan, under the
    stack's rules (DeepSpeed's engine has no interleaved schedule)."""
    ours = parplan.cluster.plan(SMALL, TINY, timeout=20, threads=1, seed=1, stack="megatron-deepspeed")
    code, out, err = cli("cluster", "plan", SMALL, TINY, "--timeout", 20, "--threads", 1, "--seed", 1,
                         "--stack", "megatron-deepspeed", "--quiet")
    assert code == 0, err
    theirs = json.loads(out)
    assert ours.plan["stack"] == theirs["stack"] == "megatron-deepspeed"
    assert ours.plan == theirs
    assert theirs.get("virtual_stages", 1) == 1


def test_cluster_plan_refuses_an_unknown_stack_as_the_cli_does():
    with pytest.raises(parplan.ArgumentError) as refused:
        parplan.cluster.plan(SMALL, TINY, timeout=5, stack="nope")
    code, _, err = cli("cluster", "plan", SMALL, TINY, "--stack", "nope")
    assert code == 2
    assert err.strip().splitlines()[-1] == "parplan cluster plan: --" + refused.value.message


@pytest.mark.parametrize("key,value,flag", [("timeout", math.nan, "--timeout"), ("timeout", math.inf, "--timeout"),
                                            ("memory", -1, "--memory"), ("batch", -1, "--batch"),
                                            ("microbatches", -2, "--microbatches"), ("threads", -3, "--threads"),
                                            ("memory", 0, "--memory"), ("memory", "16XB", "--memory"),
                                            ("seed", 2**64, "--seed"), ("microbatches", 2**32, "--microbatches"),
                                            ("threads", 2**32, "--threads")])
def test_plan_refuses_what_the_cli_refuses(key, value, flag):
    """pp_plan_request_check for both: Python is refused before any work,
    in the words the CLI uses for the flag."""
    model = os.path.join(EXAMPLES, "shard", "moe-tiny.mlir")
    cluster = os.path.join(EXAMPLES, "cluster", "dgx-a100-4.json")
    with pytest.raises(parplan.ArgumentError) as refused:
        parplan.plan(model, cluster, **{key: value})
    code, _, err = cli("plan", model, "--cluster", cluster, flag, value)
    assert code == 2
    if value != -1 or key != "memory":  # the CLI reads bytes with units and refuses "-1" as text, not as a number
        assert err.strip().splitlines()[-1] == "parplan plan: --" + refused.value.message


def test_plan_takes_memory_as_the_cli_writes_it():
    """Bytes with a unit, as --memory takes them (Python took only numbers)."""
    model = os.path.join(EXAMPLES, "shard", "moe-tiny.mlir")
    cluster = os.path.join(EXAMPLES, "cluster", "dgx-a100-4.json")
    p = parplan.plan(model, cluster, memory="1MB", timeout=10, threads=1)
    assert not p.fits
