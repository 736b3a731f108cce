"""Shared by the tests: where the sources and the CLI are (set by CTest:
PP_SOURCE_DIR, PP_CLI), and running the CLI to compare with."""

import os
import subprocess

import pytest

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
