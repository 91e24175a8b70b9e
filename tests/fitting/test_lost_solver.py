"""A lost solver process loses nothing: the HiGHS child of a cancellable fit is really killed
(SIGKILL, as the system's out-of-memory killer does), and the fit returns its best card so far,
labelled "solver_stopped", re-checked against the spec, with what is proven said in words.

No assertion here is on speed: the waits are generous bounds against a hang, not limits.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.status import details_text
from slimwidgets.solvers.backends import worker

from solver_children import HANG, kill_a_busy_child

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or not worker.available(),
        reason="kills a solver child process",
    ),
    pytest.mark.slow,
]  # a worker process killed: python -m pytest --all runs them


def test_a_killed_solver_process_returns_the_best_card_so_far(paper_data):
    X, y = paper_data("heart")
    seen: list = []
    first = threading.Event()

    def on_incumbent(inc):
        seen.append(inc)
        first.set()

    killer = kill_a_busy_child(first)
    # solver="highs": HiGHS in a child from the start (the side search's pool programs too), and
    # heart at C0 = 0.01 is far from proven when the child is killed
    card = sw.fit(
        X,
        y,
        C0=0.01,
        solver="highs",
        time_limit=HANG,
        cancel=threading.Event(),
        on_incumbent=on_incumbent,
    )
    killer.join(1)
    assert killer.killed, "no busy solver child was found to kill"
    assert card.status == "solver_stopped"
    assert "killed by signal 9" in card.details["solver_stopped"]
    # the best card so far: at least as good as every card reported, and it keeps every constraint
    assert card.objective <= min(inc.objective for inc in seen) + 1e-9
    assert sw.check_card(card, prepare_data(X, y, warn=False), card.spec) == []
    assert card.bound <= card.objective
    status = sw.describe(card)
    assert (
        "the solver stopped after" in status.headline and "its process was lost" in status.headline
    )
    assert status.level == "warn" and not status.proven
    assert "killed by signal 9" in details_text(status)
    # a new solver process was started: the next cancellable fit solves in a child and proves
    assert worker.available()
    small = sw.fit(X.iloc[:, :3], y, max_size=2, cancel=threading.Event())
    assert small.status == "optimal"


def test_a_card_that_lost_its_solver_reads_back_from_json(paper_data):
    """The status word is one a card file can carry (the reason stays in the session)."""
    X, y = paper_data("heart")
    card = sw.fit(X.iloc[:, :3], y, max_size=2)
    lost = sw.ScoringSystem.from_json(
        replace(card, status="solver_stopped", bound=None, gap=None).to_json()
    )
    assert lost.status == "solver_stopped"
    assert "its process was lost" in sw.describe(lost).headline
