"""The bar of a fit that outlives a couple of seconds: the best card so
far, what is proven, the time
left; in a notebook or a terminal, not in a script writing to a file or a pipe unless asked; it ends
on the card's status. The clock is faked where the bar's timing matters; the terminal is a real
pseudo-terminal (``pty``), the fits are real."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.fitting import driver, progress
from slimwidgets.fitting.progress import SHOW_AFTER, FitProgress, fit_progress

REPO = Path(__file__).resolve().parents[2]
HANG = 600  # seconds: a bound against a hang, not a measure of speed


class Bar:
    """What a tqdm bar is told, kept."""

    made: list[Bar] = []

    def __init__(self, **kwargs):
        self.kwargs, self.n, self.postfix, self.desc, self.closed, self.draws = (
            kwargs,
            0,
            "",
            "fit",
            False,
            0,
        )
        Bar.made.append(self)

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def set_description_str(self, text, refresh=True):
        self.desc = text

    def refresh(self):
        self.draws += 1

    def close(self):
        self.closed = True


def table():
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.integers(0, 2, (60, 4)), columns=list("abcd"))
    y = (X.a + X.b - X.c + rng.normal(0, 0.8, 60) > 0.5).astype(int)
    return X, y


def test_the_bar_waits_then_says_the_best_card_what_is_proven_and_the_time_left():
    X, y = table()
    found = []
    card = sw.fit(X, y, max_size=3, on_incumbent=found.append)
    data, spec = prepare_data(X, y), card.spec.replace(time_limit=30.0)
    now = [0.0]
    Bar.made.clear()
    watch = FitProgress(30.0, 0.0, clock=lambda: now[0], make_bar=Bar)
    watch.reading(data, spec)
    watch.on_incumbent(found[-1])
    now[0] = SHOW_AFTER - 0.1
    watch.tick()
    assert Bar.made == []  # a fit younger than SHOW_AFTER draws nothing
    now[0] = 12.4
    watch.tick()
    bar = Bar.made[0]
    assert bar.kwargs["total"] == 30.0 and bar.n == 12.4 and bar.draws == 1
    assert bar.postfix.startswith("best so far: error ") and bar.postfix.endswith(" · 18 s left")
    assert "proven" in bar.postfix or "no proven limit yet" in bar.postfix
    watch.on_bound(found[-1].objective)  # a bound that meets the card: said at the next draw
    now[0] = 13.0
    watch.tick()
    assert "optimal" in bar.postfix or "proven" in bar.postfix
    watch.finish(card)
    assert bar.closed and bar.desc == "done" and bar.postfix.endswith(f"status {card.status}")


def test_a_fit_past_show_after_ends_on_a_bar_even_if_no_redraw_came():
    X, y = table()
    card = sw.fit(X, y, max_size=2)
    Bar.made.clear()
    watch = FitProgress(None, 0.0, clock=lambda: SHOW_AFTER, make_bar=Bar)
    watch.finish(card)
    assert Bar.made[0].kwargs["total"] is None and Bar.made[0].closed
    assert Bar.made[0].postfix.endswith("status optimal")
    Bar.made.clear()
    FitProgress(None, 0.0, clock=lambda: SHOW_AFTER - 0.5, make_bar=Bar).finish(card)
    assert Bar.made == []  # a quick fit prints nothing but its card


def test_progress_none_shows_the_bar_only_where_it_is_seen(monkeypatch):
    monkeypatch.setattr(progress, "interactive", lambda: False)
    assert fit_progress(None, 30.0, 0.0) is None and fit_progress(False, 30.0, 0.0) is None
    assert isinstance(fit_progress(True, 30.0, 0.0), FitProgress)
    monkeypatch.setattr(progress, "interactive", lambda: True)
    assert (
        isinstance(fit_progress(None, 30.0, 0.0), FitProgress)
        and fit_progress(False, None, 0.0) is None
    )
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        fit_progress("yes", 30.0, 0.0)


def test_ctrl_c_closes_the_bar_and_stops_its_timer(monkeypatch):
    X, y = table()
    Bar.made.clear()
    watches = []

    def watched(progress_value, time_limit, started):
        watches.append(
            FitProgress(time_limit, started - SHOW_AFTER, make_bar=Bar)
        )  # old enough to draw
        return watches[-1]

    def interrupted(*args, **kwargs):
        watches[0].tick()  # the bar is up when Ctrl-C comes
        raise KeyboardInterrupt

    monkeypatch.setattr(driver, "fit_progress", watched)
    monkeypatch.setattr(driver, "_fit_table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sw.fit(X, y, max_size=2, progress=True)
    assert watches[0].stopped.is_set() and Bar.made and all(bar.closed for bar in Bar.made)
    assert Bar.made[0].desc == "fit"  # not "done": the bar says nothing it does not know


SCRIPT = """
import numpy as np, pandas as pd, slimwidgets as sw
import slimwidgets.fitting.progress as progress
progress.SHOW_AFTER = 0.0  # the bar of any fit, however quick: nothing here depends on speed
rng = np.random.default_rng(4)
X = pd.DataFrame(rng.integers(0, 2, (60, 4)), columns=list("abcd"))
y = (X.a + X.b - X.c + rng.normal(0, 0.8, 60) > 0.5).astype(int)
card = sw.fit(X, y, max_size=3, progress={progress})
print("STATUS", card.status, flush=True)
"""


def run(progress_value: str, terminal: bool) -> str:
    """The script's stdout and stderr, run with stderr on a pseudo-terminal (80 x 24) or a pipe."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    code = SCRIPT.format(progress=progress_value)
    if not terminal:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG, env=env
        )
        return done.stdout + done.stderr
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child is gone and its terminal closed
            break
        if not chunk:
            break
        out += chunk
    child.wait(HANG)
    os.close(leader)
    return out.decode("utf-8", "replace")


def test_on_a_terminal_the_fit_ends_on_its_bar_and_in_a_pipe_says_nothing_unless_asked():
    seen = run("None", terminal=True)
    assert "STATUS optimal" in seen
    assert "done:" in seen and "status optimal" in seen.replace("\r", "\n")
    piped = run("None", terminal=False)
    assert "STATUS optimal" in piped and "done:" not in piped and "fit:" not in piped
    asked = run("True", terminal=False)
    assert "done:" in asked and "status optimal" in asked


def test_an_incumbent_without_limits_is_said_from_the_program_its_family_s_loss_builds():
    """A decision incumbent reported without limits (not by ``fit``) is said in the user's
    units from the MIP/LP the decision family's loss builds: a bound at its objective is a
    proof under the cap, not "no proven limit yet"."""
    from slimwidgets.fitting.progress import describe_incumbent
    from slimwidgets.solvers.base import Incumbent

    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    data = prepare_data(X, [1, 1, 0, 0, 1, 0], warn=False)
    found = Incumbent(np.array([1.0, 0.0]), -1, 0.0, 0.0, 0.1)  # right on every row
    said = describe_incumbent(data, sw.make_spec(max_fpr=0.5, max_size=2), found, 0.0, 0.1)
    assert said == "TPR 100.0 % at FPR 0.0 % · proven best under this cap"
