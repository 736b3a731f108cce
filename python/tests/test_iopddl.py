"""parplan.iopddl against known optima, the evaluator and the CLI."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import parplan
from conftest import EXAMPLES, cli, cli_message

EXAMPLE = os.path.join(EXAMPLES, "iopddl-example.json")
G = os.path.join(EXAMPLES, "asplos-2025-iopddl-G.json.gz")


def test_example_solves_to_its_optimum_from_a_path_and_from_a_dict():
    from_path = parplan.iopddl.solve(EXAMPLE, timeout=5, threads=1)
    with open(EXAMPLE) as f:
        from_dict = parplan.iopddl.solve(json.load(f), timeout=5, threads=1)
    for s in (from_path, from_dict):
        assert s.cost == 445 and s.proven_optimal and s.feasible and not s.uses_forbidden
        assert s.assignment == [0, 0, 2, 1, 0]
        assert s.lower_bound == 445
    check = parplan.iopddl.evaluate(EXAMPLE, from_path.assignment)
    assert (check.cost, check.peak_usage, check.peak_time) == (445, from_path.peak_usage, from_path.peak_time)


def test_the_evaluator_agrees_with_the_solver_and_the_cli(tmp_path):
    s = parplan.iopddl.solve(G, timeout=3, threads=1, seed=3)
    ours = parplan.iopddl.evaluate(G, s.assignment)
    assert ours.feasible and ours.cost == s.cost and s.lower_bound <= s.cost
    answer = tmp_path / "G.sol"
    answer.write_text(json.dumps(s.assignment))
    code, out, err = cli("eval", G, answer)
    assert code == 0, err
    assert "cost %d" % s.cost in out + err
    # Another assignment, infeasible or not, evaluates the same way too.
    other = [0] * len(s.assignment)
    mine = parplan.iopddl.evaluate(G, other)
    answer.write_text(json.dumps(other))
    code, out, err = cli("eval", G, answer)
    assert code == (0 if mine.feasible else 1)
    assert "cost %d" % mine.cost in out + err


BAD = [
    ('{"problem": {"nodes": {"intervals": [[0, "x"]]}}}', "expected an integer"),
    ('{"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[1]], "usages": [[1, 2]]}}}', None),
    ('{"problem": {"edges": {}}}', "missing key"),
    ('{"problem": ', None),
]


@pytest.mark.parametrize("text,words", BAD)
def test_bad_input_raises_the_clis_message_with_its_position(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(parplan.InputError) as caught:
        parplan.iopddl.solve(str(path), timeout=1)
    e = caught.value
    assert e.file == str(path) and e.position and e.position.startswith("byte ")
    assert str(e) == cli_message("solve", path, "--timeout", 1)
    if words:
        assert words in str(e)
    # The same text as a dict cannot be malformed JSON, but read from memory
    # the text gives the same message under the dict's name.
    try:
        document = json.loads(text)
    except ValueError:
        return
    with pytest.raises(parplan.InputError) as again:
        parplan.iopddl.evaluate(document, [])
    assert again.value.file == "<problem>" and again.value.position.startswith("byte ")


def test_a_wrong_assignment_is_refused():
    with pytest.raises(parplan.InputError) as short:
        parplan.iopddl.evaluate(EXAMPLE, [0, 0])
    assert short.value.file == "<assignment>" and "fewer entries than the problem has nodes" in str(short.value)
    with pytest.raises(TypeError):
        parplan.iopddl.evaluate(EXAMPLE, [0, 0.5, 0, 0, 0])
    with pytest.raises(parplan.Error):
        parplan.iopddl.evaluate(EXAMPLE, [0, 0, 99, 0, 0])
    with pytest.raises(FileNotFoundError if False else parplan.FileError):
        parplan.iopddl.solve(os.path.join(EXAMPLES, "no-such-file.json"))


def test_progress_reaches_the_callback_and_an_exception_in_it_stops_the_solve():
    seen = []
    parplan.iopddl.solve(G, timeout=1.5, threads=1, progress=seen.append)
    assert seen and all(isinstance(p["best_cost"], int) and p["elapsed"] >= 0 for p in seen)

    class Enough(Exception):
        pass

    def stop(p):
        raise Enough()

    started = time.monotonic()
    with pytest.raises(Enough):
        parplan.iopddl.solve(G, timeout=30, threads=1, progress=stop)
    assert time.monotonic() - started < 10
    # The flag was that call's own: the next solve runs to its answer.
    assert parplan.iopddl.solve(EXAMPLE, timeout=5, threads=1).cost == 445


def test_the_gil_is_free_while_solving():
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    parplan.iopddl.solve(G, timeout=1, threads=1, exact=False)
    done.set()
    counter.join()
    # Holding the GIL, the solve would leave the counter no tick at all.
    assert ticks > 20


# bound=False: with the bound's stage G's answer is proven in a fraction of
# a second (its decoded answers reach the optimum), before the signal comes;
# without it the search runs to its timeout.
def test_ctrl_c_stops_a_solve_and_raises_keyboard_interrupt():
    script = textwrap.dedent("""
        import sys, time, parplan
        try:
            started = time.monotonic()
            print("ready", flush=True)
            parplan.iopddl.solve(sys.argv[1], timeout=60, threads=1, exact=False, bound=False)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted %.1f" % (time.monotonic() - started))
        print(parplan.iopddl.solve(sys.argv[2], timeout=5, threads=1).cost)
    """)
    child = subprocess.Popen([sys.executable, "-c", script, G, EXAMPLE], stdout=subprocess.PIPE, text=True,
                             env=os.environ)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    lines = out.split()
    assert lines[0] == "interrupted" and float(lines[1]) < 20
    assert lines[2] == "445"
