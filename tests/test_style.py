"""One style: the code is formatted and linted by ruff and core/ and fitting/ type-check.

The rules are in pyproject.toml (``[tool.ruff]``, ``[tool.mypy]``); ``bash scripts/style.sh``
applies them to the whole tree. ruff and mypy come with the ``test`` extra.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from needs import missing

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(tool) is None:
        missing(f"{tool} is not installed: python -m pip install -e '.[test]'")
    return subprocess.run(
        [sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing_to_lint():
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, (
        f"ruff check (bash scripts/style.sh fixes most):\n{done.stdout}{done.stderr}"
    )


def test_the_code_is_formatted():
    done = _run("ruff", "format", "--no-cache", "--check", ".")
    assert done.returncode == 0, (
        f"not formatted (bash scripts/style.sh):\n{done.stdout}{done.stderr}"
    )


@pytest.mark.slow
def test_core_and_fitting_type_check():
    done = _run("mypy")
    assert done.returncode == 0, f"mypy on core/ and fitting/:\n{done.stdout}{done.stderr}"
