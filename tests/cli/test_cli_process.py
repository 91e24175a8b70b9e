"""`slimwidgets fit` as a user runs it: a default time limit, progress on stderr, and Ctrl-C
that stops the solve and still prints (and saves) the best card found, exit code 130.

Run for real: ``python -m slimwidgets`` in a subprocess, a real SIGINT. Nothing here is timed;
the waits are generous bounds against a hang (how soon the process ends after Ctrl-C is
measured by ``benchmarks/time_limits.py``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slimwidgets.cli import DEFAULT_TIME_LIMIT, main

from solver_children import solver_child_alive

pytestmark = pytest.mark.slow  # the CLI as a process: python -m pytest --all runs them

REPO = Path(__file__).resolve().parents[2]
HANG = 600


def hard_csv(path: Path) -> Path:
    """Noisy labels and 14 binary features: with a small C0, no proof comes for minutes."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 14))
    y = (X[:, :4].sum(axis=1) + rng.normal(0, 1.2, size=400) > 2).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(14)])
    frame["Y"] = y
    frame.to_csv(path, index=False)
    return path


def start(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-m", "slimwidgets", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )


def solver_children(pid: int) -> list[int]:
    """The running solver children of process ``pid`` (read from /proc)."""
    pids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return sorted(p for p in pids if solver_child_alive(p))


def wait_for_children(proc: subprocess.Popen) -> list[int]:
    """The solver children once there is one (HiGHS runs in one after the scan gives up)."""
    end = time.monotonic() + HANG
    while time.monotonic() < end and proc.poll() is None:
        found = solver_children(proc.pid)
        if found:
            return found
        time.sleep(0.1)
    return []


def test_fit_has_a_default_time_limit_stated_in_help(capsys):
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default: {DEFAULT_TIME_LIMIT:g})" in text and "exit code 130" in text


def test_ctrl_c_prints_and_saves_the_best_card_and_exits_130(tmp_path):
    """While HiGHS runs in a child: the card printed and saved, exit code 130, no traceback,
    and no child left behind once the process is gone."""
    data, card_json = hard_csv(tmp_path / "hard.csv"), tmp_path / "card.json"
    proc = start(
        "fit",
        str(data),
        "--target",
        "Y",
        "--C0",
        "0.001",
        "--time-limit",
        "600",
        "--json",
        str(card_json),
    )
    progress = []
    try:
        for line in proc.stderr:  # wait for the first progress line: a card is known by then
            progress.append(line)
            if "best so far:" in line:
                break
        assert progress and "best so far:" in progress[-1], "".join(progress)
        children = wait_for_children(proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = "".join(progress) + err
    assert proc.returncode == 130, err
    # the process reaped its solver children before it ended (it skips the interpreter's teardown)
    assert children and not [p for p in children if solver_child_alive(p)], (children, err)
    assert "Traceback" not in err
    # the progress line speaks in the user's units
    first = progress[-1]
    assert "best so far: error " in first and "%" in first and "gap" not in first
    assert "interrupted" in err
    assert "PREDICT Y IF SCORE" in out
    details = [line for line in out.splitlines() if line.startswith("details:")]
    assert details and details[0].startswith("details: solver status interrupted"), out
    saved = json.loads(card_json.read_text())
    assert saved["status"] == "interrupted"
    printed = {
        line.split(".", 1)[1].split()[0]
        for line in out.splitlines()
        if line[:1].isdigit() and "point" in line
    }
    assert printed == {n for n, c in zip(saved["feature_names"], saved["coefficients"]) if c}


def test_progress_goes_to_stderr_and_quiet_silences_it(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 2, size=(60, 3)), columns=["a", "b", "c"])
    frame["Y"] = (frame.a + frame.b + (rng.random(60) < 0.2) > 1).astype(int)
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    saved = tmp_path / "card.json"
    assert main(["fit", str(path), "--target", "Y", "--json", str(saved)]) == 0
    out, err = capsys.readouterr()
    assert "best so far" not in out and "details: solver status optimal" in out
    assert (
        json.loads(saved.read_text())["spec"]["time_limit"] == DEFAULT_TIME_LIMIT
    )  # the default applied
    assert main(["fit", str(path), "--target", "Y", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "best so far" not in err


def test_a_progress_line_in_users_units():
    """The line built from a card found while solving: metrics and what is proven."""
    from slimwidgets.cli import _Progress
    from slimwidgets.core.data import prepare_data
    from slimwidgets.core.spec import make_spec
    from slimwidgets.solvers.base import Incumbent

    X = np.array([[1, 0], [1, 1], [0, 0], [0, 1]])
    data = prepare_data(X, [1, 1, 0, 0], warn=False)
    prog = _Progress(data, make_spec())
    inc = Incumbent(np.array([2, 0]), -1, 0.01, 0.004, 0.1)
    text = prog.describe(inc, 0.004)  # the final card's words, from the same describe()
    assert text.startswith("error 0.0 % · ") and "proven" in text and "gap" not in text
    assert "proven lowest" in prog.describe(inc, 0.01)  # the bound reached the card
    capped = _Progress(data, make_spec(max_fpr=0.1))
    assert capped.describe(inc, 0.004).startswith("TPR 100.0 % at FPR 0.0 %")
