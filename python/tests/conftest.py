"""Shared by the tests: where the sources and the CLI are (set by CTest:
PP_SOURCE_DIR, PP_CLI), running the CLI to compare with, and the two
library results more than one test checks (computed once a session: the
same call with the same inputs gives the same result)."""

import os
import subprocess

import pytest

import parplan

SOURCE = os.environ.get("PP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SOURCE, "examples")


def cli(*args):
    """Runs the parplan CLI: (exit code, stdout, stderr)."""
    exe = os.environ.get("PP_CLI")
    if not exe:
        pytest.skip("PP_CLI is not set (run through ctest)")
    done = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def cli_message(*args):
    """The CLI's error message for a failing command, without "parplan: "."""
    code, _, err = cli(*args)
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    return line[len("parplan: "):] if line.startswith("parplan: ") else line


@pytest.fixture(scope="session")
def chess_sharded():
    """The bundled transformer sharded on b=2 x m=4 A100s, two threads, seed 1
    (test_shard compares it with the CLI, test_example with the example)."""
    model = os.path.join(EXAMPLES, "shard", "searchless_chess_9m.mlir")
    with open(model) as f:
        return parplan.shard(f.read(), mesh={"b": 2, "m": 4}, device="a100-80gb", threads=2, seed=1, name=model)


@pytest.fixture(scope="session")
def llama_on_hetero():
    """LLaMA-7B planned on the bundled heterogeneous cluster, two threads
    (test_cluster compares it with the CLI, test_example with the example)."""
    return parplan.cluster.plan(os.path.join(EXAMPLES, "cluster", "hetero-v100-16.json"),
                                os.path.join(EXAMPLES, "cluster", "llama-7b.json"), timeout=60, threads=2)
