"""The risk family without surprise (issue 20 item 3): the risk kernels compile in the
background once a card is on screen, and a risk solve that would wait for them says so, and how
far the compile has come."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from slimwidgets.datasets import load_demo
from slimwidgets.widgets import warmup
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.warmup import (
    SEARCH_HEAD,
    WARMING_TEXT,
    RiskWarmup,
    SearchWarmup,
    warming_text,
)

from studio_helpers import settle

pytestmark = pytest.mark.slow  # studio solves: python -m pytest --all runs them


def test_the_risk_kernels_are_ready_before_the_first_switch():
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, alternatives=False)
    try:
        assert c.wait(300)
        warm = c.warming.risk
        assert warm.thread is not None or RiskWarmup._done.is_set()  # started once the card settled
        assert warm.join(300) and RiskWarmup._done.is_set()
        c.set_family("risk")
        assert c.status.text != WARMING_TEXT  # compiled already: nothing to wait for
        assert c.wait(300) and c.card.family == "risk"
    finally:
        assert c.close()


@pytest.fixture
def compiling():
    """A settled studio whose compile is still running (a thread that waits, standing in for it,
    until the test sets ``release``)."""
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, alternatives=False)
    release = threading.Event()
    try:
        assert c.wait(300)
        c.warming.risk.join(300)
        c.warming.risk.thread = threading.Thread(target=release.wait, daemon=True)
        c.warming.risk.thread.start()
        yield c, release
    finally:
        release.set()
        assert c.close()


def test_a_risk_switch_during_the_compile_says_so(compiling):
    c, release = compiling
    c.set_family("risk")
    assert c.status.state == "solving" and c.status.text == WARMING_TEXT
    release.set()
    assert c.wait(300) and c.card.family == "risk" and c.status.text != WARMING_TEXT


def test_a_risk_switch_during_the_compile_says_how_far_it_has_come(compiling, monkeypatch):
    """Each kernel compiled moves the waiting risk solve's status line on ("2 of 4 parts done,
    about 15 s left", the time left measured on the parts done: a fake clock here); a switch made
    once some parts are ready says so at once; a settled card is left alone."""
    c, release = compiling
    clock = SimpleNamespace(monotonic=lambda: now[0])
    now = [100.0]
    monkeypatch.setattr(warmup, "time", clock)
    c.warming.risk._started = 100.0
    seen = []
    c.subscribe(lambda events: seen.append(c.status.text) if "card" in events else None)
    now[0] = 110.0
    c.warming.risk._step(1, 4)  # one part ready before the switch, after 10 s: 30 s to go
    c.set_family("risk")
    assert (
        c.status.text == warming_text(1, 4, left=30.0)
        and "1 of 4 parts done, about 30 s left" in c.status.text
    )
    now[0] = 116.0
    c.warming.risk._step(2, 4)  # 16 s for two parts: about 16 s for the other two
    assert c.status.state == "solving" and c.status.text == warming_text(2, 4, left=16.0)
    assert "2 of 4 parts done, about 15 s left" in c.status.text
    assert seen[-1] == c.status.text  # the view was told
    release.set()
    assert c.wait(300) and c.card.family == "risk"
    settled = c.status.text
    c.warming.risk._step(3, 4)  # a late report changes nothing once the risk card is settled
    assert c.status.text == settled and "parts done" not in settled


# -- the decision family's first solve on a cold numba cache ---------------------------------------
class HeldSearchCompile(SearchWarmup):
    """The search's compile, standing in: it runs on its own thread as the real one does, reports
    the parts the test gives it (``parts.put``) and ends when the test puts None."""

    def __init__(self, on_progress):
        super().__init__(on_progress)
        import queue

        self.parts, self.reported = queue.Queue(), threading.Event()
        self._done = (
            threading.Event()
        )  # this stand-in's own: the process's real compile is not marked done

    def _compile(self):
        while (part := self.parts.get()) is not None:
            self._compiled_part(*part[:2], share=part[2], kept=part[3])
            self.reported.set()


@pytest.fixture
def cold_first_solve(small, monkeypatch):
    """A studio whose first (decision) solve waits for a held compile; the finish clock is a fake
    one (the compile "takes" what the test jumps), and each fit records the limit it was given.
    Yields (controller, compile, clock, limits given to the fits)."""
    from slimwidgets.widgets import finish, solving

    from fake_clock import FakeClock

    clock, limits, real_fit = FakeClock(), [], solving.fit_dataset
    monkeypatch.setattr(finish, "time", clock)

    def fit(data, spec, **kwargs):
        limits.append(spec.time_limit)
        return real_fit(data, spec, **kwargs)

    monkeypatch.setattr(solving, "fit_dataset", fit)
    c = Controller(*small, time_limit=2.0, frontier=False, alternatives=False, start=False)
    held = HeldSearchCompile(c.warming.warming_progress)
    c.warming.search = held
    try:
        yield c, held, clock, limits
    finally:
        held.parts.put(None)
        assert c.close()


def job_waits(c, timeout=60):
    """Until the solve's job has begun (and, the compile still running, waits for it)."""
    end = time.monotonic() + timeout
    while c.core.scheduler.runs < 1:
        assert time.monotonic() < end, "the solve never began"
        time.sleep(0.01)


def test_a_first_decision_solve_says_the_search_is_getting_ready_once(
    cold_first_solve, monkeypatch
):
    """Loaded from numba's cache nothing is said; once a part turns out to be compiled, the line
    says what is happening, that it happens once on this computer, the parts done and the time
    left (weighed by the parts' usual shares: a fake clock here); then it solves, its own clock
    started after the compile, and the card settles with no word of the compile left."""
    c, held, clock, limits = cold_first_solve
    now = [500.0]
    monkeypatch.setattr(warmup, "time", SimpleNamespace(monotonic=lambda: now[0], time=time.time))
    seen = []
    c.subscribe(lambda events: seen.append(c.status.text) if "card" in events else None)
    c.set_spec(c.spec)
    assert (
        held.busy and c.status.state == "solving" and c.status.text == "solving…"
    )  # nothing known yet
    held._started = 500.0
    now[0] = 502.0  # the first part compiled in 2 s, a twentieth of the usual compile: 38 s to go
    held.parts.put((1, 6, 0.05, True))
    assert held.reported.wait(60)
    assert c.status.text == warming_text(1, 6, left=38.0, head=SEARCH_HEAD) == seen[-1]
    assert c.status.text == (
        "solving… · getting the search ready (once on this computer): 1 of 6 parts done, "
        "about 40 s left, then it solves"
    )
    held.reported.clear()
    now[0] = 520.0  # half the usual compile behind after 20 s: about 20 s to go
    held.parts.put((5, 6, 0.5, True))
    assert held.reported.wait(60) and "5 of 6 parts done, about 20 s left" in c.status.text
    clock.jump(30.0)  # the compile took 30 s on the finish clock: none of it is the solve's
    job_waits(c)
    held.parts.put(None)
    settle(c)
    assert c.card is not None and c.card.family != "risk"
    assert limits and limits[0] > 2.0 * 0.7, (
        f"the compile was charged to the solve's limit: {limits}"
    )
    assert "getting the search ready" not in c.status.text
    assert any(
        t == "solving…" for t in seen[seen.index(warming_text(5, 6, left=20.0, head=SEARCH_HEAD)) :]
    ), "the line never said that the solve itself had begun"


def test_a_decision_solve_after_the_compile_restarts_the_clock(cold_first_solve):
    """The status line's clock ("running N s") reads ``started``: once the compile ends it is
    the solve's start, not the request's."""
    c, held, clock, limits = cold_first_solve
    c.set_spec(c.spec)
    asked = c.status.started
    held.parts.put((1, 6, 0.05, True))
    assert held.reported.wait(60)
    job_waits(c)
    time.sleep(0.05)
    ended = time.time()
    starts = []
    c.subscribe(
        lambda events: starts.append(c.status.started) if c.status.text == "solving…" else None
    )
    held.parts.put(None)
    settle(c)
    assert starts and starts[0] >= ended > asked


def test_a_compile_without_a_disk_cache_says_it_comes_again(cold_first_solve):
    """Where numba keeps nothing on disk the compile is paid by every new process: the line says
    so rather than "once on this computer"."""
    c, held, clock, limits = cold_first_solve
    c.set_spec(c.spec)
    held.parts.put((2, 6, 0.1, False))
    assert held.reported.wait(60)
    assert (
        "(each time Python starts here: numba has no folder to keep it in): 2 of 6 parts done"
        in c.status.text
    )
    assert "once on this computer" not in c.status.text


def test_a_decision_solve_whose_kernels_load_from_the_cache_says_nothing_of_it(cold_first_solve):
    c, held, clock, limits = cold_first_solve
    c.set_spec(c.spec)
    assert c.status.text == "solving…"
    held.parts.put(None)  # loaded: no part reported
    settle(c)
    assert c.card is not None and "ready" not in c.status.text


def test_the_search_compile_reports_its_parts_and_their_shares(monkeypatch):
    """The real compile's contract (``solvers._kernels.ensure_compiled``), when it compiles: each
    of its parts told once, in order, the shares of the usual time rising to 1."""
    from slimwidgets.solvers import _kernels

    class Cold:  # numba's statistics of a kernel compiled now, kept on disk
        cache_path, cache_misses = "/tmp", {"x": 1}

    monkeypatch.setattr(_kernels, "_compiled", False)
    monkeypatch.setattr(
        _kernels, "_loss_at", type("K", (), {"__call__": lambda self, *a: 0.0, "stats": Cold})()
    )
    told = []
    _kernels.ensure_compiled(
        lambda done, total, *, share, kept: told.append((done, total, round(share, 3), kept))
    )
    assert [t[:2] for t in told] == [
        (i, len(_kernels.COMPILE_SHARES)) for i in range(1, len(_kernels.COMPILE_SHARES) + 1)
    ]
    shares = [t[2] for t in told]
    assert shares == sorted(shares) and shares[-1] == 1.0 and all(t[3] for t in told)
    told.clear()
    Cold.cache_misses = {}  # loaded from the cache: nothing is told
    monkeypatch.setattr(_kernels, "_compiled", False)
    _kernels.ensure_compiled(lambda *a, **k: told.append(a))
    assert told == []
